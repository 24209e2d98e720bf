/**
 * What the soak scripts share (scripts/soak.mjs, scripts/soak-daemon.mjs): a seeded random
 * source and the model files. A file has L lines (owned by local edits) and R lines (owned by
 * remote edits) three fences apart, so concurrent edits always merge cleanly and any conflict,
 * marker or missing token is the tool's doing.
 */

/** Lines of each side in a model file. */
export const LINES = 8;

/** mulberry32: reproducible choices from a seed (timing still varies between machines). */
export function createRng(seed) {
  let s = seed >>> 0;
  return () => {
    s = (s + 0x6d2b79f5) >>> 0;
    let t = Math.imul(s ^ (s >>> 15), s | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** L lines (local-owned), three fixed lines, R lines (remote-owned): edits never neighbour. */
export function render(name, l, r) {
  const out = [`// file ${name}`];
  for (let i = 0; i < LINES; i++) out.push(`// L${i} ${l[i]}`);
  out.push("// ---- fence 1", "// ---- fence 2", "// ---- fence 3");
  for (let i = 0; i < LINES; i++) out.push(`// R${i} ${r[i]}`);
  return `${out.join("\n")}\n// end\n`;
}

/** {l, r} tokens, or undefined when the text is not a whole model file (empty, truncated, markers). */
export function parse(name, text) {
  if (typeof text !== "string") return undefined;
  const l = [];
  const r = [];
  for (let i = 0; i < LINES; i++) {
    l.push(text.match(new RegExp(`^// L${i} (\\S+)$`, "m"))?.[1]);
    r.push(text.match(new RegExp(`^// R${i} (\\S+)$`, "m"))?.[1]);
  }
  if ([...l, ...r].some((t) => t === undefined)) return undefined;
  return text === render(name, l, r) ? { l, r } : undefined;
}
