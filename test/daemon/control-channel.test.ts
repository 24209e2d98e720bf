/** The daemon's control channel on a real unix socket: owner-only, one JSON line each way, quiet when nobody listens. */
import { createConnection } from "node:net";
import { mkdir, stat, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { controlSocketPath, sendControl, startControlServer, type ControlRequest } from "../../src/daemon/control-channel.js";
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
    expect(await sendControl(root, { op: "sync", force: true })).toEqual({ ok: true, message: "did sync" });
    expect(seen).toEqual([{ op: "sync", force: true }]);
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
      expect(JSON.parse(reply)).toEqual({ ok: false, code: "USAGE", message: "malformed control request" });
      expect(await sendControl(root, { op: "resume" })).toEqual({ ok: true, message: "fine" });
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
      expect(await sendControl(root, { op: "pause" })).toEqual({ ok: false, code: "FOLDER_LOCKED", message: "held by another mpsync" });
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
});
