/**
 * Response compression, negotiated: the client asks for it on every request and decodes the
 * `Content-Encoding` an answer carries, whether or not the service compresses (unknown for the
 * real one). node:zlib is loaded on the first compressed answer only: a CLI command whose
 * answers come plain never pays for it, and start-up never does.
 */
import { constants as bufferConstants } from "node:buffer";
import type { IncomingHttpHeaders } from "node:http";
import { errnoCode } from "../core/errors.js";

/**
 * Sent on every request. Brotli packs source text a little tighter than gzip; deflate is left
 * out: the same algorithm as gzip, and servers have sent it both zlib-wrapped and raw. An
 * answer in deflate is decoded all the same.
 */
export const ACCEPT_ENCODING = "br, gzip";

/** More codings stacked on one answer than any server sends: refused (a decompression bomb's trick). */
const MAX_CODINGS = 2;

/** An answer whose body could not be decoded: an unknown coding or a corrupt body. */
export class BodyDecodingError extends Error {
  constructor(message: string, cause?: unknown) {
    super(message, { cause });
    this.name = "BodyDecodingError";
  }
}

/** The codings of `headers`' Content-Encoding, in the order they were applied; identity left out. */
function contentCodings(headers: IncomingHttpHeaders): string[] {
  const raw = headers["content-encoding"];
  const value = Array.isArray(raw) ? raw.join(",") : (raw ?? "");
  return value
    .split(",")
    .map((c) => c.trim().toLowerCase())
    .filter((c) => c !== "" && c !== "identity");
}

type Zlib = typeof import("node:zlib");
/**
 * Synchronous on purpose: a read's answer decodes in a few milliseconds, and one at a time on
 * the main thread keeps one decoder's window in memory at once (brotli's is up to 4 MiB; reads
 * in flight decoded side by side on the thread pool raise a large pull's peak RSS) and spares
 * the thread-pool round trip.
 */
type Decoder = (zlib: Zlib, bytes: Buffer, options: { maxOutputLength: number }) => Buffer;

/** A zlib-wrapped deflate stream starts with a CMF/FLG pair whose 16-bit value is a multiple of 31. */
function hasZlibHeader(bytes: Buffer): boolean {
  const cmf = bytes[0] ?? 0;
  const flg = bytes[1] ?? 0;
  return (cmf & 0x0f) === 8 && ((cmf << 8) | flg) % 31 === 0;
}

/** A Map, not an object: a coding named `constructor` must not find Object's. */
const DECODERS = new Map<string, Decoder>([
  ["gzip", (z, b, o) => z.gunzipSync(b, o)],
  ["x-gzip", (z, b, o) => z.gunzipSync(b, o)],
  ["br", (z, b, o) => z.brotliDecompressSync(b, o)],
  ["deflate", (z, b, o) => (hasZlibHeader(b) ? z.inflateSync(b, o) : z.inflateRawSync(b, o))],
]);

/**
 * Decodes `bytes` by the answer's Content-Encoding; "too-large" when the decoded body would pass
 * `maxBytes`. Throws BodyDecodingError for an unknown coding or a corrupt body.
 */
export function decodeBody(bytes: Buffer, headers: IncomingHttpHeaders, maxBytes: number): Buffer | "too-large" {
  const codings = contentCodings(headers);
  if (codings.length === 0 || bytes.length === 0) return bytes;
  if (codings.length > MAX_CODINGS) throw new BodyDecodingError(`response uses ${codings.length} content codings (${codings.join(", ")})`);
  const unknown = codings.find((c) => !DECODERS.has(c));
  if (unknown !== undefined) throw new BodyDecodingError(`response body in an unsupported content coding (${unknown})`);
  // Not import(): the CLI runs as a vm.Script from its code cache (core/code-cache.ts), where a
  // dynamic import has no loader; getBuiltinModule loads the builtin on demand all the same.
  const zlib = process.getBuiltinModule("node:zlib");
  const options = { maxOutputLength: Math.min(maxBytes, bufferConstants.MAX_LENGTH) };
  let out = bytes;
  for (const coding of codings.reverse()) {
    try {
      out = (DECODERS.get(coding) as Decoder)(zlib, out, options);
    } catch (err) {
      if (errnoCode(err) === "ERR_BUFFER_TOO_LARGE") return "too-large";
      throw new BodyDecodingError(`response body could not be decoded (${coding}: ${(err as Error).message})`, err);
    }
  }
  return out;
}
