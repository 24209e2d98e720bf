/** `mpsync emulator`: prints its base URL, serves, and stops cleanly on SIGTERM. */
import { spawn } from "node:child_process";
import { describe, expect, it } from "vitest";
import { assertBuilt, BIN } from "./helpers.js";

describe("mpsync emulator", () => {
  it("serves until SIGTERM, then exits 0; --max-body-bytes answers larger bodies 413", async () => {
    assertBuilt();
    const child = spawn(process.execPath, [BIN, "emulator", "--json", "--key", "k-one", "--generation-ms", "50", "--max-body-bytes", "1024"], {
      env: { PATH: process.env["PATH"] ?? "", NO_COLOR: "1" },
      stdio: ["ignore", "pipe", "pipe"],
    });
    let stdout = "";
    const baseUrl = await new Promise<string>((resolve, reject) => {
      child.on("error", reject);
      child.on("exit", (code) => reject(new Error(`emulator exited early (${String(code)})`)));
      child.stdout.on("data", (d: Buffer) => {
        stdout += d.toString();
        try {
          resolve((JSON.parse(stdout) as { baseUrl: string }).baseUrl);
        } catch {
          // Not a whole document yet.
        }
      });
    });
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
    const exited = new Promise<number | null>((resolve) => child.once("close", resolve));
    child.removeAllListeners("exit");
    child.kill("SIGTERM");
    expect(await exited).toBe(0);
  });
});
