/** `.demo/web-edit` (scripts/demo-web-edit.mjs): a teammate's web-editor edit in `npm run demo`. */
import { spawn } from "node:child_process";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { startEmulator, type RunningEmulator } from "../../src/emulator/index.js";

const SCRIPT = join(import.meta.dirname, "..", "..", "scripts", "demo-web-edit.mjs");

function run(args: string[], env: Record<string, string>): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [SCRIPT, ...args], { env: { PATH: process.env["PATH"] ?? "", ...env }, stdio: ["ignore", "pipe", "pipe"] });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (d: Buffer) => (stdout += d.toString()));
    child.stderr.on("data", (d: Buffer) => (stderr += d.toString()));
    child.on("error", reject);
    child.on("close", (code) => resolve({ code, stdout, stderr }));
  });
}

describe("demo web-edit", () => {
  let emu: RunningEmulator | undefined;
  afterEach(async () => {
    await emu?.close();
    emu = undefined;
  });

  it("appends a line to the active version without a new version; a missing file or a stopped emulator is one line", async () => {
    emu = await startEmulator({ host: "127.0.0.1", port: 0, keys: ["k"] });
    const { editorId } = emu.control.createDesign("k", { name: "demo", files: { "App.tsx": "export default 1;\n" } });
    const versionsBefore = emu.control.getDesign(editorId).versions.length;
    const env = { MPSYNC_BASE_URL: emu.baseUrl, DEMO_EDITOR_ID: editorId };

    const edited = await run(["demo-design/App.tsx", "// from the web"], env);
    expect(edited).toMatchObject({ code: 0, stderr: "" });
    expect(emu.control.getFiles(editorId)["App.tsx"]).toBe("export default 1;\n// from the web\n");
    expect(emu.control.getDesign(editorId).versions.length).toBe(versionsBefore);

    const missing = await run(["Nope.tsx"], env);
    expect(missing.code).toBe(1);
    expect(missing.stderr).toBe("web-edit: Nope.tsx is not in the design (it holds App.tsx)\n");

    const url = emu.baseUrl;
    await emu.close();
    emu = undefined;
    const down = await run(["App.tsx"], { MPSYNC_BASE_URL: url, DEMO_EDITOR_ID: editorId });
    expect(down.code).toBe(1);
    expect(down.stderr).toBe(`web-edit: the demo emulator does not answer at ${url}: is npm run demo still running?\n`);
  });
});
