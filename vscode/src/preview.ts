/**
 * `mpsync: Open Preview`: finds the `mpsync dev` this extension started for the folder, or
 * starts one (a `watch` started by "mpsync: Start Sync" hands the folder over to it: `dev` is
 * `watch` plus the preview), and opens its page in VS Code's Simple Browser.
 */
import { spawn, type ChildProcess } from "node:child_process";
import * as vscode from "vscode";
import { checkDocument } from "./cli-documents.js";
import type { MappedFolder } from "./folders.js";

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
  const url = await dev.url;
  // In a desktop VS Code, Simple Browser (or the integrated browser that takes its place) shows
  // the page; in VS Code for the web (code-server), whose Simple Browser hands the address to a
  // browser command the web build lacks, a panel of this extension frames it the same way.
  if (vscode.env.uiKind === vscode.UIKind.Desktop) await vscode.commands.executeCommand("simpleBrowser.show", url);
  else showInPanel(folder, url);
}

function showInPanel(folder: MappedFolder, url: string): void {
  const panel = vscode.window.createWebviewPanel("mpsync.preview", `Preview: ${folder.dir}`, vscode.ViewColumn.Beside, { enableScripts: false });
  const origin = new URL(url).origin;
  panel.webview.html = `<!doctype html><html><head><meta http-equiv="Content-Security-Policy" content="default-src 'none'; frame-src ${origin}; style-src 'unsafe-inline'"><style>html,body{margin:0;padding:0;height:100%}iframe{border:0;width:100%;height:100%;background:#fff}</style></head><body><iframe src="${url}" title="mpsync dev ${folder.dir}"></iframe></body></html>`;
}

/** Stops the watch this extension started in a terminal for the folder; false when it did not start one. */
async function handOver(folder: MappedFolder): Promise<boolean> {
  const terminal = vscode.window.terminals.find((t) => t.name === `mpsync watch ${folder.dir}`);
  if (terminal === undefined) return false;
  // Ctrl-C: the watch flushes its pending pushes, then lets go of the folder.
  terminal.sendText("\u0003", false);
  await vscode.window.withProgress({ location: vscode.ProgressLocation.Window, title: `mpsync: ${folder.dir} passes to mpsync dev` }, async () => {
    for (let i = 0; i < 100 && folder.live; i++) await new Promise((r) => setTimeout(r, 100));
  });
  terminal.dispose();
  return !folder.live;
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
