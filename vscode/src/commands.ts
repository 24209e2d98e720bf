/** The palette's commands: each runs the CLI (a `--json` document) or a terminal, for the active editor's folder. */
import { relative } from "node:path";
import * as vscode from "vscode";
import { copyLabel, restorableCopies, type RestoreCopy } from "./cli-documents.js";
import { errorLine, runJson, runText } from "./cli-runner.js";
import type { ExtensionContext } from "./extension.js";
import type { MappedFolder } from "./folders.js";
import { openPreview } from "./preview.js";

interface ControlDoc {
  designs: { dir: string; message?: string }[];
}

/** Registers every palette command. */
export function registerCommands(context: vscode.ExtensionContext, ext: ExtensionContext): void {
  const onFolder = (run: (cli: string, folder: MappedFolder) => Promise<void>) => async (): Promise<void> => {
    if (ext.cli === undefined) return ext.noCli();
    const folder = await ext.pickFolder();
    if (folder === undefined) return;
    try {
      await run(ext.cli, folder);
    } catch (err) {
      void vscode.window.showErrorMessage(`mpsync: ${err instanceof Error ? err.message : String(err)}`);
    }
  };
  const control = (op: "sync" | "pause" | "resume") =>
    onFolder(async (cli, folder) => {
      const { code, doc } = await runJson<ControlDoc>(cli, [op, folder.dir], folder.configDir, op === "resume" ? "pause" : op);
      const line = errorLine(doc) ?? doc.designs.map((d) => d.message ?? `${d.dir}: ${op} done`).join("; ");
      if (code === 0) void vscode.window.showInformationMessage(`mpsync: ${line}`);
      else void vscode.window.showWarningMessage(`mpsync: ${line}`);
    });
  const register = (id: string, run: () => Promise<void>): void => void context.subscriptions.push(vscode.commands.registerCommand(id, run));
  register("mpsync.syncNow", control("sync"));
  register("mpsync.pause", control("pause"));
  register("mpsync.resume", control("resume"));
  register(
    "mpsync.showStatus",
    onFolder(async (cli, folder) => {
      const { text } = await runText(cli, ["status", folder.dir], folder.configDir);
      ext.output.clear();
      ext.output.appendLine(`$ mpsync status ${folder.dir}`);
      ext.output.appendLine(text);
      ext.output.show(true);
    }),
  );
  register(
    "mpsync.startSync",
    onFolder(async (cli, folder) => {
      if (folder.live) {
        void vscode.window.showInformationMessage(`mpsync: a daemon already syncs ${folder.dir}`);
        return;
      }
      startWatch(cli, folder);
    }),
  );
  register(
    "mpsync.restoreFile",
    onFolder((cli, folder) => restoreFile(cli, folder)),
  );
  register(
    "mpsync.openPreview",
    onFolder((cli, folder) => openPreview(cli, folder, ext.output)),
  );
}

/** Runs `mpsync watch DIR` in a terminal of its own (the terminal shows its lines; Ctrl-C stops it). */
export function startWatch(cli: string, folder: MappedFolder): vscode.Terminal {
  const terminal = vscode.window.createTerminal({
    name: `mpsync watch ${folder.dir}`,
    cwd: folder.configDir,
    shellPath: cli,
    shellArgs: ["watch", folder.dir],
  });
  terminal.show(true);
  return terminal;
}

/** The copies `restore --list` shows, in a quick pick; the chosen one opens in a diff before it is put back. */
async function restoreFile(cli: string, folder: MappedFolder): Promise<void> {
  const current = vscode.window.activeTextEditor?.document.uri;
  const rel = current === undefined ? undefined : relative(folder.root, current.fsPath);
  if (current === undefined || rel === undefined || rel.startsWith("..")) {
    void vscode.window.showWarningMessage(`mpsync: open a file of ${folder.dir} to restore it`);
    return;
  }
  const { doc } = await runJson<{ copies: RestoreCopy[] }>(cli, ["restore", rel, "--list"], folder.root, "restore");
  const copies = restorableCopies(doc);
  if (copies.length === 0) {
    void vscode.window.showInformationMessage(`mpsync holds no copy of ${rel} to put back`);
    return;
  }
  const picked = await vscode.window.showQuickPick(
    copies.map((c) => ({ label: copyLabel(c), copy: c })),
    { placeHolder: `copies of ${rel} mpsync holds, newest first` },
  );
  if (picked === undefined) return;
  await vscode.commands.executeCommand("vscode.diff", vscode.Uri.file(picked.copy.file), current, `${rel}: ${picked.label} ↔ now`);
  const put = await vscode.window.showInformationMessage(`Put this copy of ${rel} back? The current file is backed up first.`, "Put Back");
  if (put !== "Put Back") return;
  // The copy by its file: a conflict's sides and its backup share one time.
  const args = ["restore", rel, "--copy", picked.copy.file];
  let result = await runJson<{ ok: boolean; wouldRemove?: string[] }>(cli, args, folder.root, "restore");
  if (result.doc.ok === false && result.doc.wouldRemove !== undefined) {
    const lines = result.doc.wouldRemove.length;
    const force = await vscode.window.showWarningMessage(
      `This copy lacks ${lines} line(s) of the last synced version: the next push takes them away on the service too.`,
      "Put Back Anyway",
    );
    if (force !== "Put Back Anyway") return;
    result = await runJson(cli, [...args, "--force"], folder.root, "restore");
  }
  const failed = errorLine(result.doc);
  if (failed !== undefined) void vscode.window.showErrorMessage(`mpsync: ${failed}`);
  else void vscode.window.showInformationMessage(`mpsync: restored ${rel}`);
}
