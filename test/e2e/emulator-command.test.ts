/** `mpsync emulator`: prints its base URL, serves, and stops cleanly on SIGTERM. */
import { execFileSync, spawn } from "node:child_process";
import { describe, expect, it } from "vitest";
import { assertBuilt, BIN } from "./helpers.js";

/** A spawned `mpsync emulator ...args`, once `found(stdout)` gives a value; `stop` sends SIGTERM and resolves to the exit code. */
async function spawnEmulator<T>(args: string[], found: (stdout: string) => T | undefined): Promise<{ value: T; stop(): Promise<number | null> }> {
  assertBuilt();
  const child = spawn(process.execPath, [BIN, "emulator", ...args], {
    env: { PATH: process.env["PATH"] ?? "", NO_COLOR: "1" },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let stdout = "";
  const value = await new Promise<T>((resolve, reject) => {
    child.on("error", reject);
    child.on("exit", (code) => reject(new Error(`emulator exited early (${String(code)})`)));
    child.stdout.on("data", (d: Buffer) => {
      stdout += d.toString();
      const v = found(stdout);
      if (v !== undefined) resolve(v);
    });
  });
  child.removeAllListeners("exit");
  return {
    value,
    stop() {
      const exited = new Promise<number | null>((resolve) => child.once("close", resolve));
      child.kill("SIGTERM");
      return exited;
    },
  };
}

/** The base URL of `--json` output, once it is a whole document. */
function jsonBaseUrl(stdout: string): string | undefined {
  try {
    return (JSON.parse(stdout) as { baseUrl: string }).baseUrl;
  } catch {
    return undefined;
  }
}

describe("mpsync emulator", () => {
  it("serves until SIGTERM, then exits 0; --max-body-bytes answers larger bodies 413", async () => {
    const emulator = await spawnEmulator(["--json", "--key", "k-one", "--generation-ms", "50", "--max-body-bytes", "1024"], jsonBaseUrl);
    const baseUrl = emulator.value;
    expect(baseUrl).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/api$/);
    const ok = await fetch(`${baseUrl}/v3/health`, { headers: { "x-mp-api-key": "k-one" } });
    expect(ok.status).toBe(200);
    const refused = await fetch(`${baseUrl}/v3/health`, { headers: { "x-mp-api-key": "other" } });
    expect(refused.status).toBe(401);
    const headers = { "x-mp-api-key": "k-one", "content-type": "application/json" };
    const big = await fetch(`${baseUrl}/v3/designs`, { method: "POST", headers, body: JSON.stringify({ name: "x".repeat(2048) }) });
    expect(big.status).toBe(413);
    const small = await fetch(`${baseUrl}/v3/designs`, { method: "POST", headers, body: JSON.stringify({ name: "Small" }) });
    expect(small.status).toBe(200);
    expect(await emulator.stop()).toBe(0);
  });

  it("--compress off answers plain even when asked; an unknown mode is a usage error (exit 2)", async () => {
    const emulator = await spawnEmulator(["--json", "--compress", "off"], jsonBaseUrl);
    const baseUrl = emulator.value;
    const origin = baseUrl.replace(/\/api$/, "");
    const files = { "App.tsx": "export function App() { return null; }\n".repeat(200) };
    const created = await fetch(`${origin}/__control/designs`, { method: "POST", body: JSON.stringify({ key: "k", files }) });
    const { editorId, artifactId } = (await created.json()) as { editorId: string; artifactId: string };
    const headers = { "x-mp-api-key": "k", "content-type": "application/json", "accept-encoding": "br, gzip" };
    const read = await fetch(`${baseUrl}/v3/designs/${editorId}/artifacts/${artifactId}/files/read`, {
      method: "POST",
      headers,
      body: JSON.stringify({ fileNames: ["App.tsx"] }),
    });
    expect(read.status).toBe(200);
    expect(read.headers.get("content-encoding")).toBeNull();
    expect(((await read.json()) as { files: Array<{ content: string }> }).files[0]?.content).toBe(files["App.tsx"]);
    expect(await emulator.stop()).toBe(0);

    const bad = spawn(process.execPath, [BIN, "emulator", "--compress", "always"], {
      env: { PATH: process.env["PATH"] ?? "", NO_COLOR: "1" },
      stdio: ["ignore", "pipe", "pipe"],
    });
    let stderr = "";
    bad.stderr.on("data", (d: Buffer) => (stderr += d.toString()));
    expect(await new Promise<number | null>((resolve) => bad.once("close", resolve))).toBe(2);
    expect(stderr.trim().split("\n")[0]).toContain("--compress always: expected auto or off");
  });

  it("prints an export line that a shell takes as it is pasted", async () => {
    const emulator = await spawnEmulator([], (stdout) => (stdout.endsWith("\n") ? stdout.split("\n").find((l) => l.trim().startsWith("export ")) : undefined));
    const line = emulator.value;
    const pasted = execFileSync("sh", ["-c", `${line}\nprintf %s "$MPSYNC_BASE_URL"`], { encoding: "utf8" });
    expect(pasted).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/api$/);
    expect(await emulator.stop()).toBe(0);
  });
});
