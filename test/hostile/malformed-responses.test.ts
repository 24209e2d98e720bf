/**
 * Hostile responses during a real sync cycle: each one makes the cycle reject with an
 * MpsyncError whose one-line message names the endpoint, and leaves the mapped folder
 * (.mpsync/state.json included) byte-identical. Faults come from the emulator's failNext; the
 * client is built with one attempt and short timeouts so nothing waits out production defaults.
 */
import { afterEach, describe, expect, it } from "vitest";
import type { ClientOptions } from "../../src/api/client.js";
import type { ApiError } from "../../src/api/errors.js";
import { MpsyncError, type ErrorCode } from "../../src/core/errors.js";
import type { InjectedFault } from "../../src/emulator/index.js";
import type { DesignSync } from "../../src/sync/design-sync.js";
import { summarizeCycle } from "../../src/sync/cycle-summary.js";
import { startHarness, STARTER_FILES, type Harness } from "../support/harness.js";
import { openWithClient } from "../support/engine-with-client.js";
import { snapshotTree } from "./tree.js";

let h: Harness | undefined;
let closeClient: (() => Promise<void>) | undefined;
afterEach(async () => {
  await closeClient?.();
  closeClient = undefined;
  await h?.close();
  h = undefined;
});

const ACTIVE = { method: "GET", path: /\/active-artifact$/, name: "GET /v3/designs/{editorId}/active-artifact" };
const READ = { method: "POST", path: /\/files\/read$/, name: "POST /v3/designs/{editorId}/artifacts/{artifactId}/files/read" };
const PATCH = { method: "PATCH", path: /\/files$/, name: "PATCH /v3/designs/{editorId}/artifacts/{artifactId}/files" };

const HTML_502 = "<!DOCTYPE html>\n<html><head><title>502 Bad Gateway</title></head><body><h1>nginx</h1></body></html>\n";
/**
 * The test client's timeouts: its single attempt (FAST_FAIL) kept, but a whole-exchange deadline
 * a loaded machine's loopback answer meets (FAST_FAIL's 800 ms turned an HTML page into a
 * TIMEOUT); the answer that never comes still ends at the headers timeout.
 */
const TIMEOUTS: Partial<ClientOptions> = { timeouts: { connectMs: 10_000, headersMs: 2_000, bodyMs: 2_000, totalMs: 30_000 } };
/** Above the test client's size cap, below nothing else. */
const SIZE_CAP_BYTES = 32 * 1024;

const FAULTS: { label: string; fault: InjectedFault; code: ErrorCode }[] = [
  { label: "an HTML page with 200", fault: { malformed: "html" }, code: "INVALID_RESPONSE" },
  { label: "an HTML error page with 502", fault: { status: 502, body: HTML_502 }, code: "SERVER_ERROR" },
  { label: "truncated JSON", fault: { malformed: "truncated" }, code: "INVALID_RESPONSE" },
  { label: "invalid JSON", fault: { malformed: "invalid-json" }, code: "INVALID_RESPONSE" },
  { label: "schema-invalid JSON", fault: { malformed: "wrong-shape" }, code: "INVALID_RESPONSE" },
  { label: "a response that never comes", fault: { hang: true }, code: "TIMEOUT" },
  { label: "a dropped connection", fault: { drop: true }, code: "NETWORK" },
];

/** A synced folder, then a remote change that a successful pull would write locally. */
async function syncedWithRemoteChange(extra: Record<string, string> = {}): Promise<{ harness: Harness; sync: DesignSync }> {
  const harness = await startHarness();
  h = harness;
  const { sync, client } = await openWithClient(harness, { maxResponseBytes: SIZE_CAP_BYTES, ...TIMEOUTS });
  closeClient = () => client.close();
  await sync.fullSync();
  harness.emu.control.setFiles(
    harness.editorId,
    { ...STARTER_FILES, "App.tsx": "// rewritten remotely\n", "components/New.tsx": "export const New = 1;\n", ...extra },
    { newArtifact: true, title: "remote change" },
  );
  return { harness, sync };
}

async function expectNamedFailure(promise: Promise<unknown>, endpoint: string, code: ErrorCode): Promise<void> {
  const err = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(err, "the cycle did not reject").toBeInstanceOf(MpsyncError);
  const e = err as MpsyncError;
  expect(e.code).toBe(code);
  // The message says what failed in words; the endpoint itself is kept on the error (--json, -v).
  expect((e as ApiError).endpoint).toBe(endpoint);
  expect(e.message).toMatch(/could not [a-z' ]+: /);
  expect(e.message).not.toContain("\n");
  expect(e.message.length).toBeLessThan(400);
}

describe("a malformed or missing response during a pull writes nothing", () => {
  for (const target of [ACTIVE, READ]) {
    for (const { label, fault, code } of FAULTS) {
      it(`${target.name}: ${label} -> ${code}`, async () => {
        const { harness, sync } = await syncedWithRemoteChange();
        const before = await snapshotTree(harness.root);
        harness.emu.control.failNext({ method: target.method, path: target.path }, fault);
        await expectNamedFailure(sync.fullSync(), target.name, code);
        expect(await snapshotTree(harness.root)).toEqual(before);
        // Nothing was poisoned: the next cycle pulls the change.
        expect(summarizeCycle(await sync.fullSync()).pulled.sort()).toEqual(["App.tsx", "components/New.tsx"]);
      });
    }
  }

  it(`${READ.name}: a body over the size cap is read again in halves; the one file too large alone is reported, not synced, not removed`, async () => {
    const { harness, sync } = await syncedWithRemoteChange({ "big.txt": "x".repeat(SIZE_CAP_BYTES * 2) });
    await harness.writeLocal("big.txt", "local copy\n");
    const s = summarizeCycle(await sync.fullSync());
    expect(s.pulled.sort()).toEqual(["App.tsx", "components/New.tsx"]);
    expect(await harness.readLocal("App.tsx")).toBe("// rewritten remotely\n");
    expect(await harness.readLocal("big.txt")).toBe("local copy\n"); // neither overwritten nor pushed
    expect(harness.remoteFiles()["big.txt"]).toBe("x".repeat(SIZE_CAP_BYTES * 2));
    expect(harness.events.filter((e) => e.event === "notice").map((e) => e.message)).toContain(
      'refused remote file name "big.txt": too large to read (413, or an answer past the 64 MiB size cap): not synced',
    );
    // Every file was asked for in a smaller batch after the first answer was too large.
    expect(harness.emu.control.countRequests((r) => r.method === "POST" && r.path.endsWith("/files/read"))).toBeGreaterThan(2);
  });
});

describe("a malformed answer to a PATCH", () => {
  for (const fault of [{ malformed: "truncated" }, { malformed: "wrong-shape" }, { drop: true, after: true }] satisfies InjectedFault[]) {
    it(`${JSON.stringify(fault)}: rejects naming PATCH, keeps the local file, and the next push converges without a conflict`, async () => {
      const harness = await startHarness();
      h = harness;
      const { sync, client } = await openWithClient(harness, TIMEOUTS);
      closeClient = () => client.close();
      await sync.fullSync();
      await harness.writeLocal("index.css", "/* pushed, answer lost */\n");
      const workingBefore = await snapshotTree(harness.root).then((s) => strip(s));
      // The emulator applies the write first, then mangles the answer (a proxy failing on the way back).
      harness.emu.control.failNext({ method: PATCH.method, path: PATCH.path }, fault);
      await expectNamedFailure(sync.pushPaths(["index.css"]), PATCH.name, "malformed" in fault ? "INVALID_RESPONSE" : "NETWORK");
      expect(strip(await snapshotTree(harness.root))).toEqual(workingBefore);
      expect(harness.remoteFiles()["index.css"]).toBe("/* pushed, answer lost */\n");
      const patches = harness.emu.control.countRequests((e) => e.method === "PATCH");
      const s = summarizeCycle(await sync.pushPaths(await sync.localChanges()));
      expect(s.conflicts).toEqual([]);
      expect(await harness.readLocal("index.css")).toBe("/* pushed, answer lost */\n");
      // The remote already holds the content: recording the base needs no second PATCH.
      expect(harness.emu.control.countRequests((e) => e.method === "PATCH")).toBe(patches);
      expect(await sync.localChanges()).toEqual([]);
    });
  }
});

/** The working files only (state, scan cache and stamps under .mpsync may legitimately move). */
function strip(snap: Record<string, string>): Record<string, string> {
  return Object.fromEntries(Object.entries(snap).filter(([k]) => k !== ".mpsync" && !k.startsWith(".mpsync/")));
}
