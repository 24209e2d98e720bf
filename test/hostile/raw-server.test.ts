/**
 * Responses the emulator cannot produce, from a raw node:http server in front of it: every
 * request is proxied to the emulator except the one the test rewrites into hostile bytes
 * (invalid UTF-8, names nobody asked for, a lying Content-Length, a body that trickles forever).
 */
import type { ServerResponse } from "node:http";
import { afterEach, describe, expect, it } from "vitest";
import { MpsyncError } from "../../src/core/errors.js";
import { summarizeCycle } from "../../src/sync/cycle-summary.js";
import { startTestServer, type SeenRequest, type TestServer } from "../api/http-test-server.js";
import { startHarness, STARTER_FILES, TEST_KEY, type Harness } from "../support/harness.js";
import { openWithClient } from "../support/engine-with-client.js";
import { listTree, snapshotTree } from "./tree.js";

const READ_NAME = "POST /v3/designs/{editorId}/artifacts/{artifactId}/files/read";

let h: Harness | undefined;
let server: TestServer | undefined;
const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  // Server first: closing its sockets ends any hung or trickling answer, which a client close waits for.
  await server?.close();
  server = undefined;
  for (const c of cleanups.splice(0)) await c();
  await h?.close();
  h = undefined;
});

type Override = (req: SeenRequest, res: ServerResponse, upstream: (req: SeenRequest) => Promise<Response>) => boolean | Promise<boolean>;

/** A proxy to the harness emulator; `override` answers a request itself by returning true. */
async function startProxy(harness: Harness, override: Override): Promise<TestServer> {
  const target = new URL(harness.emu.baseUrl);
  const forward = (req: SeenRequest): Promise<Response> =>
    fetch(`${target.origin}${req.url}`, {
      method: req.method,
      headers: { "x-mp-api-key": TEST_KEY, "content-type": "application/json" },
      ...(req.method === "GET" ? {} : { body: req.body }),
    });
  return startTestServer(async (req, res) => {
    if (await override(req, res, forward)) return;
    const upstream = await forward(req);
    const body = Buffer.from(await upstream.arrayBuffer());
    res.writeHead(upstream.status, { "content-type": upstream.headers.get("content-type") ?? "application/json", "content-length": body.length });
    res.end(body);
  });
}

/** A synced folder whose remote then changes, opened through a proxy with `override`. */
async function throughProxy(override: Override, clientOptions: Parameters<typeof openWithClient>[1] = {}) {
  const harness = await startHarness();
  h = harness;
  const direct = await openWithClient(harness);
  await direct.sync.fullSync();
  await direct.client.close();
  harness.emu.control.setFiles(harness.editorId, { ...STARTER_FILES, "App.tsx": "// remote edit\n" }, { newArtifact: true });
  server = await startProxy(harness, override);
  const { sync, client } = await openWithClient(harness, { baseUrl: server.baseUrl, ...clientOptions });
  cleanups.push(() => client.close());
  return { harness, sync, before: await snapshotTree(harness.root) };
}

const isRead = (req: SeenRequest): boolean => req.method === "POST" && req.url.endsWith("/files/read");

function sendBytes(res: ServerResponse, body: Buffer): void {
  res.writeHead(200, { "content-type": "application/json; charset=utf-8", "content-length": body.length });
  res.end(body);
}

async function rejection(p: Promise<unknown>): Promise<MpsyncError & { endpoint?: string }> {
  const err = await p.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(err, "the cycle did not reject").toBeInstanceOf(MpsyncError);
  return err as MpsyncError;
}

describe("hostile bytes from a raw server", () => {
  // Regression: parseJsonBody decoded with Buffer#toString("utf8"), which silently turns
  // invalid bytes into U+FFFD, so a corrupt body is accepted and written to disk as changed text.
  it("invalid UTF-8 (0xff 0xfe) inside a JSON string is a malformed response naming the endpoint; nothing is written", async () => {
    const { harness, sync, before } = await throughProxy((req, res) => {
      if (!isRead(req)) return false;
      const head = Buffer.from('{"files":[{"name":"App.tsx","content":"bad ');
      sendBytes(res, Buffer.concat([head, Buffer.from([0xff, 0xfe]), Buffer.from('"}]}')]));
      return true;
    });
    const err = await rejection(sync.fullSync());
    expect(err.code).toBe("INVALID_RESPONSE");
    expect(err.endpoint).toBe(READ_NAME);
    expect(err.message).toContain("could not read the design's files");
    expect(await snapshotTree(harness.root)).toEqual(before);
  });

  it("names in a files/read answer that were never asked for (hostile or not) are never written", async () => {
    const { harness, sync } = await throughProxy((req, res) => {
      if (!isRead(req)) return false;
      const files = [
        { name: "App.tsx", content: "// remote edit\n" },
        { name: "../escaped.txt", content: "pwned\n" },
        { name: ".git/hooks/pre-commit", content: "#!/bin/sh\n" },
        { name: "unlisted.txt", content: "not in the artifact\n" },
      ];
      sendBytes(res, Buffer.from(JSON.stringify({ files })));
      return true;
    });
    const s = summarizeCycle(await sync.fullSync());
    expect(s.pulled).toEqual(["App.tsx"]);
    const rels = (await listTree(harness.home)).map((e) => e.rel);
    expect(rels.filter((r) => /escaped|\.git\b|unlisted/.test(r))).toEqual([]);
  });

  // Regression: a name the artifact lists but files/read leaves out is taken for "deleted
  // remotely", so a server that drops entries from a read answer makes the engine remove
  // unchanged local files (backed up, but gone from the working tree, and the halt breaker only
  // trips above half of the files).
  it("a listed file that files/read leaves out is not removed locally", async () => {
    const { harness, sync } = await throughProxy(async (req, res, forward) => {
      if (!isRead(req)) return false;
      const body = (await (await forward(req)).json()) as { files: { name: string; content: string }[] };
      sendBytes(res, Buffer.from(JSON.stringify({ files: body.files.filter((f) => f.name !== "index.css") })));
      return true;
    });
    const s = summarizeCycle(await sync.fullSync());
    expect(s.removed).toEqual([]);
    expect(await harness.readLocal("index.css")).toBe(STARTER_FILES["index.css"]);
  });

  it("a Content-Length over the default size cap is refused before the body is read; each file is then asked for alone, and reported", async () => {
    const { harness, sync, before } = await throughProxy((req, res) => {
      if (!isRead(req)) return false;
      // Declares 200 MiB, sends a few bytes, then stalls: the cap must fire on the header alone.
      res.writeHead(200, { "content-type": "application/json", "content-length": String(200 * 1024 * 1024) });
      res.write('{"files":[');
      return true;
    });
    const report = await sync.fullSync();
    expect(report.refusedNames.map((r) => r.name).sort()).toEqual(Object.keys(STARTER_FILES).sort());
    expect(report.refusedNames[0]?.reason).toContain("size cap");
    expect(summarizeCycle(report).removed).toEqual([]);
    // The working files are untouched (only .mpsync/ may record the cycle).
    const working = (tree: Record<string, unknown>): Record<string, unknown> =>
      Object.fromEntries(Object.entries(tree).filter(([k]) => !k.startsWith(".mpsync")));
    expect(working(await snapshotTree(harness.root))).toEqual(working(before));
  });

  // Regression: bodyTimeout is the gap between two chunks and there was no overall deadline,
  // so a body that trickled a byte faster than bodyMs never timed out: the cycle (and in the
  // daemon, that design's worker) hung for good.
  it("a body that trickles forever, each chunk inside bodyMs, still ends with TIMEOUT", async () => {
    const { harness, sync, before } = await throughProxy((req, res) => {
      if (!isRead(req)) return false;
      res.writeHead(200, { "content-type": "application/json" });
      res.write('{"files":[');
      const timer = setInterval(() => (res.destroyed ? clearInterval(timer) : res.write(" ")), 100);
      res.on("close", () => clearInterval(timer));
      return true;
    });
    // bodyMs 400 with a chunk every 100 ms: only an overall deadline can end it. 3 s is 7x bodyMs.
    const outcome = await Promise.race([
      rejection(sync.fullSync()),
      new Promise<"still hanging">((resolve) => setTimeout(() => resolve("still hanging"), 3_000).unref()),
    ]);
    expect(outcome).not.toBe("still hanging");
    expect((outcome as MpsyncError).code).toBe("TIMEOUT");
    expect(await snapshotTree(harness.root)).toEqual(before);
  });
});

describe("content the emulator control can plant", () => {
  it("a lone surrogate in remote content: written once, and the next cycles neither push it back nor loop", async () => {
    const harness = await startHarness();
    h = harness;
    const { sync, client } = await openWithClient(harness);
    cleanups.push(() => client.close());
    await sync.fullSync();
    harness.emu.control.editFile(harness.editorId, "index.css", "/* broken \ud800 text */\n");
    await sync.fullSync();
    const patches = (): number => harness.emu.control.countRequests((e) => e.method === "PATCH");
    for (let i = 0; i < 3; i++) {
      await sync.fullSync();
      await sync.pushPaths(await sync.localChanges());
    }
    expect(patches()).toBe(0);
    // The remote content is left as the service has it: a lossy local copy is never sent back.
    expect(harness.remoteFiles()["index.css"]).toBe("/* broken \ud800 text */\n");
  });
});
