/**
 * Key scan: a representative session of the BUILT CLI with a distinctive key in MP_API_KEY
 * (init, pull, push, status, doctor, a 402 prompt, a wrong key's 401, a server that echoes the
 * key back in its error text, and `watch --json --log-file`), all with --verbose so stacks and
 * debug logs are on. Every byte of output and every file under the temp home is then scanned:
 * neither the key nor the wrong key may appear anywhere. The key is never stored with
 * `login` here, so no file has a legitimate reason to hold it.
 */
import { spawn } from "node:child_process";
import { existsSync } from "node:fs";
import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startEmulator, type RunningEmulator } from "../../src/emulator/index.js";
import { spawnWatch } from "../daemon/daemon-process.js";
import { assertBuilt, BIN } from "../e2e/helpers.js";
import { filesContaining, listTree } from "./tree.js";

/** Distinctive enough that a hit can only be a leak. */
const KEY = "mpk_LEAKCANARY_7f3a9c1e5b2d40aa";
const WRONG_KEY = "mpk_WRONGCANARY_0d9e8c7b6a5f41bb";

let emu: RunningEmulator;
let home: string;
let work: string;
let env: Record<string, string>;
const outputs: { what: string; text: string }[] = [];

beforeAll(async () => {
  assertBuilt();
  emu = await startEmulator({ port: 0, keys: [KEY], generationMs: 100 });
  home = await mkdtemp(join(tmpdir(), "mpsync-keyscan-"));
  work = join(home, "work");
  await mkdir(work, { recursive: true });
  env = {
    PATH: process.env["PATH"] ?? "",
    HOME: home,
    XDG_CONFIG_HOME: join(home, "config"),
    XDG_STATE_HOME: join(home, "state"),
    NO_COLOR: "1",
    MP_API_KEY: KEY,
    MPSYNC_BASE_URL: emu.baseUrl,
  };
});
afterAll(async () => {
  await emu?.close();
  await rm(home, { recursive: true, force: true });
});

/** Runs the built CLI to its end and records both streams for the scan. */
function run(args: string[], extraEnv: Record<string, string> = {}, cwd = work): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [BIN, ...args], { cwd, env: { ...env, ...extraEnv }, stdio: ["ignore", "pipe", "pipe"] });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (d: Buffer) => (stdout += d.toString("utf8")));
    child.stderr.on("data", (d: Buffer) => (stderr += d.toString("utf8")));
    child.on("error", reject);
    child.on("close", (code) => {
      outputs.push({ what: `${args.join(" ")} (stdout)`, text: stdout }, { what: `${args.join(" ")} (stderr)`, text: stderr });
      resolve({ code, stdout, stderr });
    });
  });
}

describe("the API key never leaks", () => {
  it("through a whole verbose session of the built CLI, into any output or any file", async () => {
    const { editorId } = emu.control.createDesign(KEY, { files: { "App.tsx": "export default 1;\n", "index.css": "body{}\n" } });

    expect((await run(["init", "design", "--design", editorId, "--verbose"])).code).toBe(0);
    expect((await run(["pull", "--json", "--verbose"])).code).toBe(0);
    await writeFile(join(work, "design/index.css"), "body { color: red; }\n");
    expect((await run(["push", "--verbose"])).code).toBe(0);
    expect((await run(["status", "--json", "--verbose"])).code).toBe(0);
    expect([0, 1]).toContain((await run(["doctor", "--json", "--verbose"])).code);

    // A service that reflects the key in its error text (a proxy, a debug build, an attacker).
    const echo = JSON.stringify({ error: `key ${KEY} rejected (header x-mp-api-key: ${KEY})` });
    emu.control.failNext({ method: "GET", path: /\/active-artifact$/ }, { status: 403, body: echo });
    expect((await run(["pull", "--verbose"])).code).toBe(3);
    emu.control.failNext({ method: "GET", path: /\/active-artifact$/ }, { status: 401, body: echo });
    expect((await run(["pull", "--json", "--verbose"])).code).toBe(3);

    emu.control.setCredits(KEY, 0);
    expect((await run(["prompt", "make it blue", "--verbose"])).code).toBe(4);

    expect((await run(["pull", "--verbose"], { MP_API_KEY: WRONG_KEY })).code).toBe(3);
    expect((await run(["doctor", "--verbose"], { MP_API_KEY: WRONG_KEY })).code).not.toBe(0);

    const logFile = join(home, "logs", "mpsync.log");
    const d = spawnWatch(work, env, ["--log-file", logFile, "--verbose"]);
    try {
      await d.waitFor((e) => e.event === "ready");
      const since = d.events.length;
      await writeFile(join(work, "design/App.tsx"), "export default 2;\n");
      await d.waitFor((e) => e.event === "pushed", { since });
      d.child.kill("SIGTERM");
      expect((await d.exited).code).toBe(0);
    } finally {
      if (d.child.exitCode === null && d.child.signalCode === null) d.child.kill("SIGKILL");
    }
    outputs.push({ what: "watch (stdout events)", text: JSON.stringify(d.events) }, { what: "watch (stderr)", text: d.stderr.join("\n") });

    // The session really produced verbose logs and files, so the scan below is not vacuous.
    const files = (await listTree(home)).filter((e) => e.kind === "file").map((e) => e.rel);
    expect(files).toEqual(expect.arrayContaining(["work/.syncrc", "work/design/.mpsync/state.json"]));
    expect(files.some((f) => f.startsWith("logs/mpsync"))).toBe(true);
    expect(existsSync(join(env["XDG_CONFIG_HOME"] ?? "", "mpsync", "credentials.json"))).toBe(false);
    expect(outputs.some((o) => o.text.includes(": 403"))).toBe(true);

    for (const secret of [KEY, WRONG_KEY]) {
      expect(
        outputs.filter((o) => o.text.includes(secret)).map((o) => o.what),
        `outputs holding ${secret}`,
      ).toEqual([]);
      expect(await filesContaining(home, secret), `files holding ${secret}`).toEqual([]);
    }
  }, 120_000);
});

describe("a key the service rejects", () => {
  // A 401 is not a per-design error to report and go on: `"ok": true` and exit 0 would tell
  // scripts and CI "all fine".
  it("makes `status` exit 3 with ok: false, like pull", async () => {
    const cwd = join(home, "status-only");
    await mkdir(cwd, { recursive: true });
    const { editorId } = emu.control.createDesign(KEY, { files: { "App.tsx": "export default 1;\n" } });
    await writeFile(join(cwd, ".syncrc"), JSON.stringify({ designs: [{ dir: "d", design: editorId }] }));
    const r = await run(["status", "--json"], { MP_API_KEY: WRONG_KEY }, cwd);
    expect((JSON.parse(r.stdout) as { ok: boolean }).ok).toBe(false);
    expect(r.code).toBe(3);
  });
});
