/**
 * The daemon's control channel on a real unix socket: owner-only, one JSON line each way, quiet
 * when nobody listens, versioned (docs/control-protocol.md), and a `subscribe` stream of state.
 */
import { createConnection } from "node:net";
import { mkdir, stat, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { CONTROL_PROTOCOL, controlSocketPath, sendControl, startControlServer, type ControlRequest } from "../../src/daemon/control-channel.js";
import { StateFeed } from "../../src/daemon/state-feed.js";
import { useTempDirs } from "../support/temp-dir.js";
import { MpsyncError } from "../../src/core/errors.js";

const tempDir = useTempDirs();

describe("control channel", () => {
  it("answers a request through an owner-only socket under .mpsync, and removes it on close", async () => {
    const root = await tempDir();
    const seen: ControlRequest[] = [];
    const server = await startControlServer(root, async (request) => {
      seen.push(request);
      return { ok: true, message: `did ${request.op}` };
    });
    expect(server.path).toBe(join(root, ".mpsync", "control.sock"));
    expect((await stat(server.path)).mode & 0o777).toBe(0o600);
    expect((await stat(join(root, ".mpsync"))).mode & 0o777).toBe(0o700);
    expect(await sendControl(root, { op: "sync", force: true })).toEqual({ ok: true, protocol: CONTROL_PROTOCOL, message: "did sync" });
    expect(seen).toEqual([{ op: "sync", force: true, protocol: CONTROL_PROTOCOL }]);
    await server.close();
    await expect(stat(server.path)).rejects.toThrow();
  });

  it("no daemon: no socket, or a socket left by a killed one, reads as undefined", async () => {
    const root = await tempDir();
    expect(await sendControl(root, { op: "pause" })).toBeUndefined();
    const server = await startControlServer(root, async () => ({ ok: true, message: "x" }));
    // A killed daemon leaves its socket file: nobody accepts on it.
    const path = server.path;
    await server.close();
    await mkdir(join(root, ".mpsync"), { recursive: true });
    await writeFile(path, "");
    expect(await sendControl(root, { op: "pause" })).toBeUndefined();
  });

  it("a malformed request is answered, not fatal, and the next one is served", async () => {
    const root = await tempDir();
    const server = await startControlServer(root, async () => ({ ok: true, message: "fine" }));
    try {
      const reply = await new Promise<string>((resolve) => {
        const socket = createConnection(server.path);
        let text = "";
        socket.on("connect", () => socket.write('{"op":"format-disk"}\n'));
        socket.on("data", (d: Buffer) => (text += d.toString()));
        socket.on("end", () => resolve(text));
      });
      expect(JSON.parse(reply)).toEqual({ ok: false, protocol: CONTROL_PROTOCOL, code: "USAGE", message: "malformed control request" });
      expect(await sendControl(root, { op: "resume" })).toEqual({ ok: true, protocol: CONTROL_PROTOCOL, message: "fine" });
    } finally {
      await server.close();
    }
  });

  it("a control that fails answers with the failure's own code (it was INTERNAL for every one)", async () => {
    const root = await tempDir();
    const server = await startControlServer(root, async () => {
      throw new MpsyncError("FOLDER_LOCKED", "held by another mpsync");
    });
    try {
      expect(await sendControl(root, { op: "pause" })).toEqual({
        ok: false,
        protocol: CONTROL_PROTOCOL,
        code: "FOLDER_LOCKED",
        message: "held by another mpsync",
      });
    } finally {
      await server.close();
    }
  });

  it("a folder path too long for a socket gets one in a private folder of this user", () => {
    const long = join("/tmp", "x".repeat(120));
    const path = controlSocketPath(long, 4242);
    expect(path.length).toBeLessThan(100);
    expect(path).toContain("mpsync-4242");
  });

  it("refuses a client of another protocol version with a line that says both versions", async () => {
    const root = await tempDir();
    const server = await startControlServer(root, async () => ({ ok: true, message: "fine" }));
    try {
      const [reply] = await exchange(server.path, { op: "pause", protocol: CONTROL_PROTOCOL + 1 }, 1);
      expect(reply).toEqual({
        ok: false,
        protocol: CONTROL_PROTOCOL,
        code: "PROTOCOL_MISMATCH",
        message: `this mpsync daemon speaks control protocol ${CONTROL_PROTOCOL}, the client ${CONTROL_PROTOCOL + 1}: update the older of the two`,
      });
    } finally {
      await server.close();
    }
  });

  it("subscribe: the state now, then each event with the state it leads to, and the ends of cycles", async () => {
    const root = await tempDir();
    const feed = new StateFeed();
    const server = await startControlServer(root, async () => ({ ok: true, message: "fine" }), feed);
    try {
      const lines = exchange(server.path, { op: "subscribe", protocol: CONTROL_PROTOCOL }, 5);
      await until(() => feed.listening);
      feed.event({ event: "ready", dir: "site", message: "watching for changes" });
      feed.event({ event: "notice", dir: "site", code: "PAUSED", message: "paused" });
      feed.cycleEnd();
      feed.event({ event: "notice", dir: "site", code: "RESUMED", message: "resumed" });
      expect(await lines).toEqual([
        { ok: true, protocol: CONTROL_PROTOCOL, message: "subscribed", state: "starting", label: "starting" },
        { state: "synced", label: "synced", event: { time: expect.any(String), event: "ready", dir: "site", message: "watching for changes" } },
        { state: "paused", label: "paused", event: { time: expect.any(String), event: "notice", dir: "site", code: "PAUSED", message: "paused" } },
        { state: "paused", label: "paused", cycleEnd: true },
        { state: "synced", label: "synced", event: { time: expect.any(String), event: "notice", dir: "site", code: "RESUMED", message: "resumed" } },
      ]);
      // The client hung up: the feed no longer writes to it.
      await until(() => !feed.listening);
    } finally {
      await server.close();
    }
  });
});

/** Sends `request` as one line and resolves the first `count` lines of the answer, then hangs up. */
function exchange(path: string, request: object, count: number): Promise<unknown[]> {
  return new Promise((resolve, reject) => {
    const socket = createConnection(path);
    let text = "";
    socket.on("connect", () => socket.write(`${JSON.stringify(request)}\n`));
    socket.on("error", reject);
    socket.on("data", (d: Buffer) => {
      text += d.toString();
      const lines = text.split("\n").filter((l) => l !== "");
      if (lines.length < count) return;
      socket.destroy();
      resolve(lines.slice(0, count).map((l) => JSON.parse(l) as unknown));
    });
  });
}

async function until(condition: () => boolean): Promise<void> {
  while (!condition()) await new Promise((r) => setImmediate(r));
}
