/**
 * Response compression, as a web server or CDN in front of an API does it: an answer past a
 * size is compressed in a coding the request's Accept-Encoding allows (brotli before gzip
 * before deflate). Whether the real service compresses is not known
 * (docs/service-facts.md#compression), so the emulator does both: `compress: "off"` answers as an uncompressing service.
 */
import type { IncomingHttpHeaders } from "node:http";
import type { SendOutcome } from "./fault-outcome.js";
import type { CompressMode } from "./types.js";

/** Throws a RangeError naming the option unless `mode` is a CompressMode. */
export function checkCompressMode(mode: unknown): asserts mode is CompressMode {
  if (mode !== "auto" && mode !== "off") throw new RangeError(`compress must be "auto" or "off", got ${String(mode)}`);
}

/** Coding the emulator answers in. */
export type AnswerCoding = "br" | "gzip" | "deflate";

/**
 * Answers smaller than this go plain: a coding's own header and the CPU are not worth it on a
 * status answer of a few names (nginx and CDNs use thresholds of this order). @default 1024
 */
export const COMPRESS_MIN_BYTES = 1024;

/**
 * Brotli quality 4 and gzip level 6: what CDNs and nginx use on dynamic answers. Quality 4
 * packs source text about as tightly as gzip 6 for much less CPU (BENCHMARKS.md, "Figures
 * behind the code's choices"), and the bench runs the emulator in the client's own process.
 */
const BROTLI_QUALITY = 4;
const GZIP_LEVEL = 6;

const PREFERENCE: readonly AnswerCoding[] = ["br", "gzip", "deflate"];

/** The coding to answer in for this Accept-Encoding, by q-values (RFC 9110 12.5.3); undefined: plain. */
export function pickCoding(acceptEncoding: string | string[] | undefined): AnswerCoding | undefined {
  const value = Array.isArray(acceptEncoding) ? acceptEncoding.join(",") : (acceptEncoding ?? "");
  const q = new Map<string, number>();
  for (const part of value.split(",")) {
    const [token = "", ...params] = part.split(";").map((s) => s.trim().toLowerCase());
    if (token === "") continue;
    const qParam = params.find((p) => p.startsWith("q="));
    const weight = qParam === undefined ? 1 : Number(qParam.slice(2));
    q.set(token === "x-gzip" ? "gzip" : token, Number.isFinite(weight) ? weight : 0);
  }
  const weightOf = (coding: AnswerCoding): number => q.get(coding) ?? q.get("*") ?? 0;
  let best: AnswerCoding | undefined;
  for (const coding of PREFERENCE) if (weightOf(coding) > 0 && (best === undefined || weightOf(coding) > weightOf(best))) best = coding;
  return best;
}

/** Compresses `text` in `coding` (node:zlib on the thread pool: the server's loop keeps answering). */
function compressText(text: string | Uint8Array, coding: AnswerCoding): Promise<Buffer> {
  // Loaded on the first answer it compresses (not import(): see api/content-encoding.ts).
  const zlib = process.getBuiltinModule("node:zlib");
  const input = typeof text === "string" ? Buffer.from(text) : text;
  return new Promise((resolve, reject) => {
    const done = (err: Error | null, out: Buffer): void => (err === null ? resolve(out) : reject(err));
    if (coding === "br") {
      const params = { [zlib.constants.BROTLI_PARAM_QUALITY]: BROTLI_QUALITY, [zlib.constants.BROTLI_PARAM_SIZE_HINT]: input.length };
      zlib.brotliCompress(input, { params }, done);
    } else if (coding === "gzip") zlib.gzip(input, { level: GZIP_LEVEL }, done);
    else zlib.deflate(input, { level: GZIP_LEVEL }, done);
  });
}

/**
 * The answer as it goes on the wire: compressed when `mode` is auto, the request asked, it is
 * at least COMPRESS_MIN_BYTES and carries no coding already (an injected fault's own).
 */
export async function encodeAnswer(outcome: SendOutcome, requestHeaders: IncomingHttpHeaders, mode: CompressMode): Promise<SendOutcome> {
  if (mode === "off" || outcome.headers["content-encoding"] !== undefined) return outcome;
  const size = byteSize(outcome.text);
  if (size < COMPRESS_MIN_BYTES) return outcome;
  const coding = pickCoding(requestHeaders["accept-encoding"]);
  if (coding === undefined) return outcome;
  const text = await compressText(outcome.text, coding);
  return { ...outcome, text, headers: { ...outcome.headers, "content-encoding": coding, vary: "accept-encoding" } };
}

/** Bytes of an answer's body, text or bytes. */
export function byteSize(text: string | Uint8Array): number {
  return typeof text === "string" ? Buffer.byteLength(text) : text.length;
}
