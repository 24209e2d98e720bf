/**
 * One HTTP attempt over undici: send, read the body under a size cap, and classify transport
 * failures (network, timeout, and whether the request can have reached the server).
 */
import { isUtf8 } from "node:buffer";
import type { IncomingHttpHeaders } from "node:http";
import { Agent, buildConnector, request, type Dispatcher } from "undici";
import { ACCEPT_ENCODING, BodyDecodingError, decodeBody } from "./content-encoding.js";
import { Preconnector } from "./preconnect.js";
import { errnoCode } from "../core/errors.js";

/** Transport timeouts. */
export interface Timeouts {
  /** TCP/TLS connect. @default 10000 */
  connectMs: number;
  /** Until the response headers arrive. @default 30000 */
  headersMs: number;
  /** Between two body chunks. @default 60000 */
  bodyMs: number;
  /**
   * The whole exchange, first byte sent to last byte read: a body trickling in just inside
   * bodyMs would otherwise never end. @default headersMs + bodyMs
   */
  totalMs?: number;
}

/** Defaults of Timeouts. */
export const DEFAULT_TIMEOUTS: Readonly<Timeouts> = Object.freeze({ connectMs: 10_000, headersMs: 30_000, bodyMs: 60_000 });

/** Bodies larger than this are refused as malformed (no v3 response comes close). */
export const MAX_RESPONSE_BYTES = 64 * 1024 * 1024;

/**
 * A keep-alive undici Agent with the given timeouts; with `preconnector`, its sockets come
 * through it (see preconnect.ts).
 */
export function createDefaultAgent(timeouts: Timeouts, preconnector?: Preconnector): Agent {
  return new Agent({
    connect: preconnector?.connect ?? { timeout: timeouts.connectMs },
    headersTimeout: timeouts.headersMs,
    bodyTimeout: timeouts.bodyMs,
    // Kept past one status interval when the server allows it (its Keep-Alive hint wins):
    // the next save then needs no new TCP and TLS handshake. warm() covers the rest.
    keepAliveTimeout: 65_000,
    keepAliveMaxTimeout: 600_000,
  });
}

/** A Preconnector over undici's own connector with the given timeouts. */
export function createPreconnector(timeouts: Timeouts): Preconnector {
  return new Preconnector(buildConnector({ timeout: timeouts.connectMs }));
}

/** One attempt's request. */
export interface HttpRequest {
  method: "GET" | "POST" | "PATCH";
  url: string;
  headers: Record<string, string>;
  body?: string | undefined;
  signal?: AbortSignal | undefined;
  timeouts: Timeouts;
  maxBodyBytes: number;
}

/** A response whose body was read (or found too large). */
export interface HttpResponse {
  status: number;
  headers: IncomingHttpHeaders;
  /**
   * The body as text: undefined when it exceeded maxBodyBytes or was not UTF-8 (`bodyProblem`
   * says which). Decoded chunk by chunk as it arrives: no buffer of the whole body is ever
   * made (a read of 100 files is about 400 KB, and freed buffers that large stay in the C
   * library's heap: BENCHMARKS.md, idle RSS).
   */
  body: string | undefined;
  /** "undecodable": an error answer (not 2xx) in an unknown coding or corrupt; its status and headers stand. */
  bodyProblem?: "too-large" | "not-utf8" | "undecodable";
}

/** Why an attempt got no response. */
export type TransportFailureKind = "network" | "timeout";

/** An attempt that got no (complete) response; converted to ApiError by the caller. */
export class TransportFailure extends Error {
  readonly kind: TransportFailureKind;
  /** False when the request certainly never left this machine. */
  readonly sent: boolean;
  /** A short reason without addresses or secrets, e.g. `ECONNREFUSED`, `no response headers within 30000 ms`. */
  readonly reason: string;

  constructor(kind: TransportFailureKind, sent: boolean, reason: string, cause: unknown) {
    super(reason, { cause });
    this.name = "TransportFailure";
    this.kind = kind;
    this.sent = sent;
    this.reason = reason;
  }
}

/** Codes of failures that happen before a single byte of the request is written. */
const NOT_SENT_CODES = new Set(["ECONNREFUSED", "ENOTFOUND", "EAI_AGAIN", "EHOSTUNREACH", "ENETUNREACH"]);

/** Classifies an undici or socket error. */
export function classifyTransportError(err: unknown, timeouts: Timeouts): TransportFailure {
  const code = errnoCode(err) ?? "unknown error";
  switch (code) {
    case "UND_ERR_CONNECT_TIMEOUT":
      return new TransportFailure("timeout", false, `could not connect within ${timeouts.connectMs} ms`, err);
    case "UND_ERR_HEADERS_TIMEOUT":
      return new TransportFailure("timeout", true, `no response within ${timeouts.headersMs} ms`, err);
    case "UND_ERR_BODY_TIMEOUT":
      return new TransportFailure("timeout", true, `response body stalled for ${timeouts.bodyMs} ms`, err);
    default:
      return new TransportFailure("network", !NOT_SENT_CODES.has(code), `network error (${code})`, err);
  }
}

/**
 * Sends one request and reads its body, decoded by its Content-Encoding (content-encoding.ts);
 * maxBodyBytes caps both the bytes on the wire and the decoded body. Rejects with
 * TransportFailure, or the signal's reason when aborted.
 */
export async function sendHttpRequest(dispatcher: Dispatcher, req: HttpRequest): Promise<HttpResponse> {
  const totalMs = req.timeouts.totalMs ?? req.timeouts.headersMs + req.timeouts.bodyMs;
  const deadline = AbortSignal.timeout(totalMs);
  try {
    const res = await request(req.url, {
      dispatcher,
      method: req.method,
      // Asked for by the layer that decodes; a caller's own accept-encoding wins.
      headers: { "accept-encoding": ACCEPT_ENCODING, ...req.headers },
      body: req.body ?? null,
      signal: req.signal === undefined ? deadline : AbortSignal.any([req.signal, deadline]),
      headersTimeout: req.timeouts.headersMs,
      bodyTimeout: req.timeouts.bodyMs,
    });
    const read = await readCapped(res.body, res.headers, req.maxBodyBytes).catch((err: unknown) => {
      // Only an answer whose body is the result fails here: an error answer keeps its status
      // and Retry-After (a 429 or 503 whose body a proxy mangled is still a 429 or 503).
      if (err instanceof BodyDecodingError && (res.statusCode < 200 || res.statusCode > 299)) return { body: undefined, bodyProblem: "undecodable" as const };
      throw err;
    });
    return { status: res.statusCode, headers: res.headers, ...read };
  } catch (err) {
    if (req.signal?.aborted) throw req.signal.reason;
    // Retried like an answer cut on the way: a proxy that mangled one body may not mangle the next.
    if (err instanceof BodyDecodingError) throw new TransportFailure("network", true, err.message, err);
    if (deadline.aborted) throw new TransportFailure("timeout", true, `no complete response within ${totalMs} ms`, err);
    throw classifyTransportError(err, req.timeouts);
  }
}

async function readCapped(
  body: Dispatcher.ResponseData["body"],
  headers: IncomingHttpHeaders,
  maxBytes: number,
): Promise<Pick<HttpResponse, "body" | "bodyProblem">> {
  const declared = Number(headers["content-length"]);
  // A compressed answer declares its size on the wire.
  if (Number.isFinite(declared) && declared > maxBytes) {
    // Destroyed unread, undici's body emits an AbortError: with no listener that would be an
    // uncaught exception (the CLI would crash on an answer it meant to refuse).
    body.on("error", () => undefined);
    body.destroy();
    return { body: undefined, bodyProblem: "too-large" };
  }
  // The chunks are kept as bytes and decoded once: decoding each chunk, then joining, puts the
  // body through V8's young generation twice (a large share of what a big start allocates, and
  // the scavenges that copy it).
  const chunks: Buffer[] = [];
  let total = 0;
  for await (const chunk of body as AsyncIterable<Buffer>) {
    total += chunk.length;
    if (total > maxBytes) {
      body.destroy();
      return { body: undefined, bodyProblem: "too-large" };
    }
    chunks.push(chunk);
  }
  // Invalid UTF-8 is a malformed answer, never silently turned into U+FFFD and written to the
  // user's files. A leading BOM is dropped, as a TextDecoder does.
  const bytes = decodeBody(Buffer.concat(chunks, total), headers, maxBytes);
  if (bytes === "too-large") return { body: undefined, bodyProblem: "too-large" };
  if (!isUtf8(bytes)) return { body: undefined, bodyProblem: "not-utf8" };
  const bom = bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf ? 3 : 0;
  return { body: bytes.toString("utf8", bom) };
}
