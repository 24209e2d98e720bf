/**
 * code-server (VS Code in a browser, from npm) for the extension's tests: installed by
 * scripts/vscode-test-setup.sh, started on 127.0.0.1:0 on Node 24 with a fresh profile and the
 * packed extension, and driven through a page of Debian's Chromium.
 */
import { spawn, spawnSync, type ChildProcess } from "node:child_process";
import { existsSync, realpathSync } from "node:fs";
import { chmod, mkdir, readFile, writeFile } from "node:fs/promises";
import { dirname, join } from "node:path";
import type { Locator, Page } from "playwright-core";

/** The folder scripts/vscode-test-setup.sh installed into (it prints it). */
export function codeServerDir(repo: string): string {
  const run = spawnSync("bash", [join(repo, "scripts/vscode-test-setup.sh")], { encoding: "utf8", stdio: ["ignore", "pipe", "inherit"] });
  if (run.status !== 0) throw new Error(`scripts/vscode-test-setup.sh failed (exit ${String(run.status)})`);
  const dir = run.stdout.trim().split("\n").at(-1) ?? "";
  if (!existsSync(join(dir, "node_modules/code-server/out/node/entry.js"))) throw new Error(`no code-server in ${dir}`);
  return dir;
}

/** A running code-server. */
export interface CodeServer {
  url: string;
  child: ChildProcess;
  stop(): void;
}

/** Installs `vsix` into a fresh profile under `home` and starts code-server there with `settings`. */
export async function startCodeServer(options: {
  dir: string;
  home: string;
  vsix: string;
  env: Record<string, string>;
  settings: Record<string, unknown>;
}): Promise<CodeServer> {
  const node = join(options.dir, "node");
  const entry = join(options.dir, "node_modules/code-server/out/node/entry.js");
  const userData = join(options.home, "vscode-user");
  const extensions = join(options.home, "vscode-extensions");
  await mkdir(join(userData, "User"), { recursive: true });
  await writeFile(join(userData, "User", "settings.json"), JSON.stringify(options.settings, null, 2));
  const config = join(options.home, "code-server.yaml");
  await writeFile(config, "auth: none\n");
  const env = { ...options.env, PATH: `${dirname(realpathSync(node))}:${options.env["PATH"] ?? ""}` };
  const common = ["--config", config, "--user-data-dir", userData, "--extensions-dir", extensions];
  const install = spawnSync(node, [entry, ...common, "--install-extension", options.vsix], { env, encoding: "utf8" });
  if (install.status !== 0) throw new Error(`code-server --install-extension failed: ${install.stdout}${install.stderr}`);
  const child = spawn(
    node,
    [entry, ...common, "--auth", "none", "--bind-addr", "127.0.0.1:0", "--disable-telemetry", "--disable-update-check", "--disable-workspace-trust"],
    { env, stdio: ["ignore", "pipe", "pipe"] },
  );
  const url = await new Promise<string>((resolve, reject) => {
    let text = "";
    const seen = (chunk: Buffer): void => {
      text += chunk.toString();
      const m = /HTTP server listening on (http:\/\/127\.0\.0\.1:\d+\/)/.exec(text);
      if (m !== null) resolve(m[1]!);
    };
    child.stdout.on("data", seen);
    child.stderr.on("data", seen);
    child.on("exit", (code) => reject(new Error(`code-server exited (${String(code)}): ${text}`)));
  });
  return { url, child, stop: () => void child.kill("SIGTERM") };
}

/** Runs a palette command by its title (F1, the title, Enter on its row). */
export async function runPaletteCommand(page: Page, title: string): Promise<void> {
  await page.keyboard.press("F1");
  const input = page.locator(".quick-input-widget input");
  await input.waitFor({ state: "visible" });
  await input.fill(`>${title}`);
  const row = page.locator(".quick-input-list .monaco-list-row").filter({ hasText: title }).first();
  await row.waitFor({ state: "visible" });
  await row.click();
}

/** The extension's status bar item. */
export function statusItem(page: Page): Locator {
  return page.locator("footer .statusbar-item").filter({ hasText: /^mpsync/ });
}

/** Waits until the status bar says `text` (`mpsync synced`). */
export async function waitForStatus(page: Page, text: string): Promise<void> {
  await page
    .locator("footer .statusbar-item")
    .filter({ hasText: new RegExp(`^mpsync ${text}$`) })
    .waitFor({ state: "visible", timeout: 150_000 });
}

/**
 * The program the extension runs (its `mpsync.path`): the built CLI `bin` on `node`. Each run's
 * pid goes to `root/mpsync-pids` (for stopCliRuns), its stderr to `root/mpsync-stderr.log`.
 */
export async function writeCliShim(root: string, node: string, bin: string): Promise<string> {
  const shim = join(root, "mpsync");
  await writeFile(shim, `#!/bin/sh\necho $$ >>"${join(root, "mpsync-pids")}"\nexec "${node}" "${bin}" "$@" 2>>"${join(root, "mpsync-stderr.log")}"\n`);
  await chmod(shim, 0o755);
  return shim;
}

/** Stops (SIGTERM) every run of the shim still alive, and waits up to 30 s for each to end. */
export async function stopCliRuns(root: string, bin: string): Promise<void> {
  const pids = (await readFile(join(root, "mpsync-pids"), "utf8").catch(() => "")).split("\n").filter(Boolean).map(Number);
  const ours = async (pid: number): Promise<boolean> => (await readFile(`/proc/${pid}/cmdline`, "utf8").catch(() => "")).includes(bin);
  const alive = [];
  for (const pid of pids) if (await ours(pid)) alive.push(pid);
  for (const pid of alive) process.kill(pid, "SIGTERM");
  for (let i = 0; i < 300; i++) {
    const left = [];
    for (const pid of alive) if (await ours(pid)) left.push(pid);
    if (left.length === 0) return;
    await new Promise((r) => setTimeout(r, 100));
  }
}
