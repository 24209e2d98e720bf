/** Real node:http servers on 127.0.0.1:0 for client tests, and a clock whose sleeps are scaled down. */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import type { Clock } from "../../src/core/clock.js";

/** One request as the server saw it. */
export interface SeenRequest {
  method: string;
  url: string;
  headers: IncomingMessage["headers"];
  body: string;
  at: number;
}

export type Handler = (req: SeenRequest, res: ServerResponse, index: number) => unknown;

export interface TestServer {
  baseUrl: string;
  requests: SeenRequest[];
  /** Resolves when the server has seen `count` requests. */
  waitForRequests(count: number): Promise<void>;
  close(): Promise<void>;
}

/** Starts a server whose `handler` answers every request; baseUrl ends in /api. */
export async function startTestServer(handler: Handler): Promise<TestServer> {
  const requests: SeenRequest[] = [];
  const waiters: { count: number; resolve: () => void }[] = [];
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      const seen: SeenRequest = {
        method: req.method ?? "",
        url: req.url ?? "",
        headers: req.headers,
        body: Buffer.concat(chunks).toString("utf8"),
        at: Date.now(),
      };
      const index = requests.push(seen) - 1;
      for (const w of waiters.filter((w) => requests.length >= w.count)) w.resolve();
      void Promise.resolve(handler(seen, res, index)).catch(() => res.destroy());
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    baseUrl: `http://127.0.0.1:${port}/api`,
    requests,
    waitForRequests: (count) => (requests.length >= count ? Promise.resolve() : new Promise((resolve) => waiters.push({ count, resolve }))),
    close: async () => {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/** Sends `body` as JSON with `status`. */
export function sendJson(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  const text = JSON.stringify(body);
  res.writeHead(status, { "content-type": "application/json", "content-length": Buffer.byteLength(text), ...headers });
  res.end(text);
}

/** A real clock whose sleeps last `1/scale` of the asked time and are recorded. */
export function createScaledClock(scale = 100): Clock & { sleeps: number[] } {
  const sleeps: number[] = [];
  return {
    sleeps,
    now: () => Date.now(),
    monotonic: () => performance.now(),
    sleep: (ms, signal) => {
      sleeps.push(ms);
      return new Promise<void>((resolve, reject) => {
        if (signal?.aborted) return reject(signal.reason);
        const timer = setTimeout(
          () => {
            signal?.removeEventListener("abort", onAbort);
            resolve();
          },
          Math.max(0, ms / scale),
        );
        const onAbort = (): void => {
          clearTimeout(timer);
          reject(signal?.reason);
        };
        signal?.addEventListener("abort", onAbort, { once: true });
      });
    },
  };
}

/** A manual clock for pure timer logic: time moves only when advanced. */
export function createFakeClock(start = Date.UTC(2025, 0, 1, 12, 0, 0)): Clock & { advance(ms: number): Promise<void> } {
  let now = start;
  const sleepers: { until: number; resolve: () => void }[] = [];
  return {
    now: () => now,
    monotonic: () => now - start,
    sleep: (ms, signal) =>
      new Promise<void>((resolve, reject) => {
        if (signal?.aborted) return reject(signal.reason);
        const entry = { until: now + Math.max(0, ms), resolve };
        sleepers.push(entry);
        signal?.addEventListener(
          "abort",
          () => {
            const index = sleepers.indexOf(entry);
            if (index < 0) return;
            sleepers.splice(index, 1);
            reject(signal.reason);
          },
          { once: true },
        );
      }),
    advance: async (ms) => {
      now += ms;
      for (const s of sleepers.filter((s) => s.until <= now)) {
        sleepers.splice(sleepers.indexOf(s), 1);
        s.resolve();
      }
      // Let continuations of the woken sleepers run.
      for (let i = 0; i < 10; i++) await Promise.resolve();
    },
  };
}
