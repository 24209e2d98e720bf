/**
 * Response bodies arrive in chunks and are decoded once whole (src/api/http-transport.ts): a
 * character split between two chunks must come out whole, and bytes that are not UTF-8 must be
 * refused wherever they fall, never turned into U+FFFD.
 */
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createDefaultAgent, DEFAULT_TIMEOUTS, sendHttpRequest, TransportFailure } from "../../src/api/http-transport.js";

let server: Server;
let origin: string;
/** The body of the next answer, as separate writes (each flushed before the next). */
let parts: Buffer[] = [];
/** The status and extra headers of the next answer. */
let head: { status: number; headers: Record<string, string> } = { status: 200, headers: {} };

beforeAll(async () => {
  server = createServer((_req, res) => {
    res.writeHead(head.status, { "content-type": "application/json", ...head.headers });
    const send = (i: number): void => {
      if (i === parts.length) {
        res.end();
        return;
      }
      res.write(parts[i], () => setImmediate(() => send(i + 1)));
    };
    send(0);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(async () => {
  await new Promise<void>((resolve) => server.close(() => resolve()));
});

async function fetchBody(chunks: Buffer[], maxBodyBytes = 1024, answer: typeof head = { status: 200, headers: {} }) {
  parts = chunks;
  head = answer;
  const agent = createDefaultAgent(DEFAULT_TIMEOUTS);
  try {
    return await sendHttpRequest(agent, { method: "GET", url: `${origin}/x`, headers: {}, timeouts: DEFAULT_TIMEOUTS, maxBodyBytes });
  } finally {
    await agent.close();
  }
}

describe("response bodies, decoded once whole", () => {
  it("a character split between two chunks comes out whole", async () => {
    const bytes = Buffer.from('{"text":"caf\u00e9 \u{1F600}"}', "utf8");
    const cut = bytes.indexOf(0xf0) + 2; // inside the emoji's four bytes
    const res = await fetchBody([bytes.subarray(0, cut), bytes.subarray(cut)]);
    expect(res.body).toBe('{"text":"caf\u00e9 \u{1F600}"}');
    expect(res.bodyProblem).toBeUndefined();
  });

  it("bytes that are not UTF-8 are refused, in any chunk", async () => {
    const res = await fetchBody([Buffer.from('{"a":"'), Buffer.from([0xff, 0xfe]), Buffer.from('"}')]);
    expect(res.body).toBeUndefined();
    expect(res.bodyProblem).toBe("not-utf8");
  });

  it("encoded surrogates and overlong forms are refused; a leading BOM is dropped, a later one kept", async () => {
    expect((await fetchBody([Buffer.from('"'), Buffer.from([0xed, 0xa0, 0x80]), Buffer.from('"')])).bodyProblem).toBe("not-utf8");
    expect((await fetchBody([Buffer.from('"'), Buffer.from([0xc0, 0xaf]), Buffer.from('"')])).bodyProblem).toBe("not-utf8");
    const bom = Buffer.from([0xef, 0xbb, 0xbf]);
    const res = await fetchBody([bom.subarray(0, 2), Buffer.concat([bom.subarray(2), Buffer.from('{"a":"\ufeff"}')])]);
    expect(res.body).toBe('{"a":"\ufeff"}');
  });

  it("a sequence cut off at the end is refused", async () => {
    const res = await fetchBody([Buffer.from('{"a":"'), Buffer.from([0xe2, 0x82])]);
    expect(res.bodyProblem).toBe("not-utf8");
  });

  it("a body over the cap is refused, counted in bytes across chunks", async () => {
    const res = await fetchBody([Buffer.alloc(600, 0x20), Buffer.alloc(600, 0x20)], 1000);
    expect(res.body).toBeUndefined();
    expect(res.bodyProblem).toBe("too-large");
  });
});

describe("an answer whose body cannot be decoded", () => {
  const mangled = Buffer.concat([Buffer.from([0x1f, 0x8b, 0x08, 0, 0, 0, 0, 0, 0, 0x03]), Buffer.from("not deflate")]);

  it("a 2xx fails the attempt (its body is the result), as a network failure of a sent request", async () => {
    const err = await fetchBody([mangled], 1024, { status: 200, headers: { "content-encoding": "gzip" } }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(TransportFailure);
    expect(err).toMatchObject({ kind: "network", sent: true });
  });

  it("an error answer keeps its status and Retry-After; only its body is lost", async () => {
    const res = await fetchBody([mangled], 1024, { status: 429, headers: { "content-encoding": "gzip", "retry-after": "7" } });
    expect(res.status).toBe(429);
    expect(res.headers["retry-after"]).toBe("7");
    expect(res.body).toBeUndefined();
    expect(res.bodyProblem).toBe("undecodable");
  });
});
