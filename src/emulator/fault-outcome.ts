/**
 * What actually goes on the wire for one request, given the injected and random faults.
 * Malformed answers and `drop` with `after` run the real handler first: the side effects
 * happen, only the answer is lost or mangled, as when a proxy or network fails on the way back.
 */
import type { RandomFault } from "./faults.js";
import { encodeJson, type JsonResponse } from "./http-io.js";
import type { InjectedFault, MalformedKind, RequestLogEntry } from "./types.js";

/** An answer to write. */
export interface SendOutcome {
  kind: "send";
  status: number;
  /** The body: text, or bytes once compressed (compression.ts) or mangled by a fault. */
  text: string | Uint8Array;
  headers: Record<string, string>;
  fault?: RequestLogEntry["fault"];
}

/** The server's instructions. */
export type Outcome = SendOutcome | { kind: "drop"; fault: RequestLogEntry["fault"] } | { kind: "hang" };

/** A gzip header followed by bytes that are no deflate stream: a body a broken proxy mangled. */
const CORRUPT_GZIP = Buffer.concat([Buffer.from([0x1f, 0x8b, 0x08, 0, 0, 0, 0, 0, 0, 0x03]), Buffer.from("\xff\xfe mangled on the way")]);

const HTML_PAGE = "<!DOCTYPE html>\n<html><head><title>502 Bad Gateway</title></head><body><h1>Bad Gateway</h1></body></html>\n";

/** Decides the outcome; `handle` computes the real response when needed. */
export async function decideOutcome(
  injected: InjectedFault | undefined,
  random: RandomFault,
  handle: () => Promise<JsonResponse>,
  holdLate: (apply: () => Promise<unknown>) => void = () => undefined,
): Promise<Outcome> {
  if (injected !== undefined && !("delayMs" in injected)) return injectedOutcome(injected, handle, holdLate);
  if (random?.kind === "drop") return { kind: "drop", fault: "random-drop" };
  if (random?.kind === "error") {
    const body = { error: random.status === 503 ? "Service temporarily unavailable" : "Internal server error" };
    return { ...sendJson({ status: random.status, body }), fault: "random-error" };
  }
  return sendJson(await handle());
}

async function injectedOutcome(
  fault: Exclude<InjectedFault, { delayMs: number }>,
  handle: () => Promise<JsonResponse>,
  holdLate: (apply: () => Promise<unknown>) => void,
): Promise<Outcome> {
  if ("hang" in fault) return { kind: "hang" };
  if ("drop" in fault) {
    if (fault.late === true) holdLate(handle);
    else if (fault.after === true) await handle();
    return { kind: "drop", fault: "drop" };
  }
  if ("malformed" in fault) return malformedOutcome(fault.malformed, await handle());
  const text = fault.body ?? JSON.stringify({ error: `Injected fault: HTTP ${fault.status}` });
  const contentType = looksLikeJson(text) ? "application/json; charset=utf-8" : "text/plain; charset=utf-8";
  const headers: Record<string, string> = { "content-type": contentType };
  if (fault.retryAfter !== undefined) headers["retry-after"] = fault.retryAfter;
  return { kind: "send", status: fault.status, text, headers, fault: "status" };
}

function malformedOutcome(kind: MalformedKind, real: JsonResponse): Outcome {
  const json = { "content-type": "application/json; charset=utf-8" };
  const send = (text: string | Uint8Array, headers: Record<string, string> = json): Outcome => ({
    kind: "send",
    status: 200,
    text,
    headers,
    fault: "malformed",
  });
  switch (kind) {
    case "html":
      return send(HTML_PAGE, { "content-type": "text/html; charset=utf-8" });
    case "truncated": {
      const full = encodeJson(real).text;
      return send(full.slice(0, Math.max(1, Math.floor(full.length / 2))));
    }
    case "wrong-shape":
      return send(JSON.stringify({ unexpected: true, data: [] }));
    case "invalid-json":
      return send("{ this is not json");
    case "corrupt-encoding":
      return send(CORRUPT_GZIP, { ...json, "content-encoding": "gzip" });
    case "unknown-encoding":
      return send(encodeJson(real).text, { ...json, "content-encoding": "zstd" });
  }
}

function sendJson(response: JsonResponse): SendOutcome {
  const { text, headers } = encodeJson(response);
  return { kind: "send", status: response.status, text, headers };
}

function looksLikeJson(text: string): boolean {
  try {
    JSON.parse(text);
    return true;
  } catch {
    return false;
  }
}
