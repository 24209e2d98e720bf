/** node:http plumbing: reading bodies, validating them with the shared zod schemas, answering JSON. */
import type { IncomingMessage, ServerResponse } from "node:http";
import type { z } from "zod";
import { badRequest, EmulatorHttpError } from "./http-error.js";

/** A response decided by a handler, written by the server (so faults can alter it). */
export interface JsonResponse {
  status: number;
  body: unknown;
  headers?: Record<string, string>;
}

/**
 * Reads the whole request body as UTF-8; 413 past `maxBytes`. The rest of a body too large is
 * read and dropped before the answer, so the client gets the 413 rather than a reset
 * connection in the middle of its upload.
 */
export async function readBody(req: IncomingMessage, maxBytes: number): Promise<string> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size <= maxBytes) chunks.push(chunk);
  }
  if (size > maxBytes) throw new EmulatorHttpError(413, `Request body larger than ${maxBytes} bytes`);
  return Buffer.concat(chunks).toString("utf8");
}

/**
 * Parses `raw` as JSON and validates it with `schema`; 400 naming the problem otherwise.
 * An empty body counts as `{}` so "every field optional" bodies may be left out.
 */
export function parseJsonBody<T extends z.ZodType>(raw: string, schema: T): z.output<T> {
  let value: unknown = {};
  if (raw.trim().length > 0) {
    try {
      value = JSON.parse(raw);
    } catch (err) {
      throw badRequest(`Invalid JSON body: ${err instanceof Error ? err.message : String(err)}`);
    }
  }
  return validate(schema, value, "body");
}

/** Validates `value` with `schema`; a 400 listing each issue as `<where>.<path>: <message>`. */
export function validate<T extends z.ZodType>(schema: T, value: unknown, where: string): z.output<T> {
  const result = schema.safeParse(value);
  if (result.success) return result.data;
  const issues = result.error.issues.map((issue) => {
    const path = [where, ...issue.path.map(String)].join(".");
    return `${path}: ${issue.message}`;
  });
  throw badRequest(`Invalid request ${issues.join("; ")}`);
}

/** Serialises a JSON response. */
export function encodeJson(response: JsonResponse): { text: string; headers: Record<string, string> } {
  return {
    text: JSON.stringify(response.body),
    headers: { "content-type": "application/json; charset=utf-8", ...response.headers },
  };
}

/** Writes `text` (or bytes) with `status` and `headers`, with an exact content-length. */
export function writeRaw(res: ServerResponse, status: number, text: string | Uint8Array, headers: Record<string, string>): void {
  if (res.headersSent || res.destroyed) return;
  const length = typeof text === "string" ? Buffer.byteLength(text) : text.length;
  res.writeHead(status, { ...headers, "content-length": String(length) });
  res.end(text);
}

/** Turns any thrown value into the `{ error }` response; unexpected ones become a 500. */
export function errorResponse(err: unknown): JsonResponse {
  if (err instanceof EmulatorHttpError) {
    return { status: err.status, body: { error: err.message }, headers: { ...err.headers } };
  }
  const message = err instanceof Error ? err.message : String(err);
  return { status: 500, body: { error: `Internal emulator error: ${message}` } };
}
