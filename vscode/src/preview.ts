/**
 * `mpsync: Open Preview`: finds the `mpsync dev` this extension started for the folder, or
 * starts one (a `watch` started by "mpsync: Start Sync" hands the folder over to it: `dev` is
 * `watch` plus the preview), and opens its page in VS Code's Simple Browser (code-server has it
 * too).
 */
import { spawn, type ChildProcess } from "node:child_process";
import * as vscode from "vscode";
import { checkDocument } from "./cli-documents.js";
import type { MappedFolder } from "./folders.js";
import { NO_SIMPLE_BROWSER, openedOutside, previewAddress } from "./preview-address.js";

/** VS Code's built-in Simple Browser. */
const SIMPLE_BROWSER = "vscode.simple-browser";

const running = new Map<string, { child: ChildProcess; url: Promise<string> }>();

/** Opens the folder's preview. */
export async function openPreview(cli: string, folder: MappedFolder, output: vscode.OutputChannel): Promise<void> {
  let dev = running.get(folder.root);
  if (dev === undefined || dev.child.exitCode !== null) {
    if (folder.live && !(await handOver(folder))) {
      void vscode.window.showWarningMessage(
        `mpsync: a watch outside VS Code syncs ${folder.dir}; stop it (Ctrl-C) and run Open Preview again, or run mpsync dev ${folder.dir} there`,
      );
      return;
    }
    dev = startDev(cli, folder, output);
    running.set(folder.root, dev);
  }
  await show(await dev.url, output);
}

/**
 * Shows the page in VS Code's Simple Browser (in a desktop VS Code, the integrated browser that
 * takes its place), through the address VS Code can reach (`asExternalUri`: a forwarded port in a
 * remote window); without Simple Browser, in the user's browser, said once.
 */
async function show(local: string, output: vscode.OutputChannel): Promise<void> {
  const external = await vscode.env.asExternalUri(vscode.Uri.parse(local));
  const { url, note } = previewAddress(local, external.toString(true));
  if (note !== undefined) output.appendLine(note);
  const target = vscode.Uri.parse(url);
  let why = NO_SIMPLE_BROWSER;
  if (vscode.extensions.getExtension(SIMPLE_BROWSER) !== undefined) {
    try {
      await vscode.commands.executeCommand("simpleBrowser.api.open", target, { viewColumn: vscode.ViewColumn.Beside, preserveFocus: true });
      return;
    } catch (err) {
      why = `VS Code's Simple Browser could not open it (${err instanceof Error ? err.message : String(err)})`;
    }
  }
  await vscode.env.openExternal(target);
  void vscode.window.showInformationMessage(openedOutside(url, why));
}

/** Stops the watch this extension started in a terminal for the folder; false when it did not start one. */
async function handOver(folder: MappedFolder): Promise<boolean> {
  const terminal = vscode.window.terminals.find((t) => t.name === `mpsync watch ${folder.dir}`);
  if (terminal === undefined) return false;
  // Ctrl-C: the watch flushes its pending pushes, then lets go of the folder. Its control
  // socket closes before its lock is released: `mpsync dev` may start once the process ended.
  terminal.sendText("\u0003", false);
  await vscode.window.withProgress({ location: vscode.ProgressLocation.Window, title: `mpsync: ${folder.dir} passes to mpsync dev` }, async () => {
    for (let i = 0; i < 300 && (folder.live || terminal.exitStatus === undefined); i++) await new Promise((r) => setTimeout(r, 100));
  });
  const ended = terminal.exitStatus !== undefined;
  terminal.dispose();
  return ended && !folder.live;
}

function startDev(cli: string, folder: MappedFolder, output: vscode.OutputChannel): { child: ChildProcess; url: Promise<string> } {
  const child = spawn(cli, ["dev", folder.dir, "--port", "0", "--json"], { cwd: folder.configDir, env: { ...process.env, NO_COLOR: "1" } });
  const url = new Promise<string>((resolve, reject) => {
    let text = "";
    child.stdout.setEncoding("utf8");
    child.stdout.on("data", (chunk: string) => {
      text += chunk;
      let eol: number;
      while ((eol = text.indexOf("\n")) >= 0) {
        const line = text.slice(0, eol);
        text = text.slice(eol + 1);
        output.appendLine(line);
        const event = parseEvent(line);
        if (event?.url !== undefined) resolve(event.url);
      }
    });
    child.stderr.on("data", (chunk: Buffer) => output.append(chunk.toString()));
    child.on("exit", (code) => reject(new Error(`mpsync dev ${folder.dir} ended (exit ${String(code)}) before its preview listened: see the mpsync output`)));
  });
  return { child, url };
}

function parseEvent(line: string): { url?: string } | undefined {
  try {
    return checkDocument<{ url?: string }>("event", JSON.parse(line));
  } catch {
    return undefined;
  }
}

/** Stops every `mpsync dev` this extension started. */
export function stopPreviews(): void {
  for (const { child } of running.values()) child.kill("SIGTERM");
  running.clear();
}
