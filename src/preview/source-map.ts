/**
 * Maps a place in the bundle back to the design's file (a runtime error's stack names
 * `app.js:LINE:COL`; the terminal line must name `App.tsx:LINE`). A minimal reader of source
 * map v3 `mappings` (base64 VLQ), enough for esbuild's maps.
 */

/** A place in a source file (1-based line and column). */
export interface SourcePlace {
  source: string;
  line: number;
  column: number;
}

const B64 = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

function decodeVlq(segment: string): number[] {
  const out: number[] = [];
  let value = 0;
  let shift = 0;
  for (const ch of segment) {
    const digit = B64.indexOf(ch);
    if (digit < 0) return out;
    value += (digit & 31) << shift;
    if ((digit & 32) !== 0) {
      shift += 5;
      continue;
    }
    out.push(value & 1 ? -(value >>> 1) : value >>> 1);
    value = 0;
    shift = 0;
  }
  return out;
}

/** The source place of generated (1-based) `line`:`column` in `mapText`, or undefined. */
export function originalPlace(mapText: string, line: number, column: number): SourcePlace | undefined {
  let map: { sources?: string[]; mappings?: string };
  try {
    map = JSON.parse(mapText) as typeof map;
  } catch {
    return undefined;
  }
  const lines = (map.mappings ?? "").split(";");
  let src = 0;
  let srcLine = 0;
  let srcCol = 0;
  for (let l = 0; l < lines.length && l < line; l++) {
    let genCol = 0;
    let best: SourcePlace | undefined;
    for (const seg of (lines[l] ?? "").split(",")) {
      if (seg === "") continue;
      const v = decodeVlq(seg);
      genCol += v[0] ?? 0;
      if (v.length < 4) continue;
      src += v[1] ?? 0;
      srcLine += v[2] ?? 0;
      srcCol += v[3] ?? 0;
      if (l === line - 1 && genCol <= column - 1) best = { source: map.sources?.[src] ?? "?", line: srcLine + 1, column: srcCol + 1 };
    }
    if (l === line - 1) return best;
  }
  return undefined;
}

/** The first `app.js:LINE:COL` of a stack. */
export function bundlePlace(stack: string): { line: number; column: number } | undefined {
  const m = /\/__mpsync\/out\/app\.js(?:\?[^:\s)]*)?:(\d+):(\d+)/.exec(stack);
  return m === null ? undefined : { line: Number(m[1]), column: Number(m[2]) };
}
