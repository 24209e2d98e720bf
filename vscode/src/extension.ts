/**
 * mpsync for VS Code: the state of the active editor's mapped folder in the status bar (live,
 * from the daemon's control socket), the controls in the command palette, conflicts in the
 * Problems panel. It talks to mpsync only through the control protocol and `--json` documents.
 */
import { accessSync, constants } from "node:fs";
import * as vscode from "vscode";
import { findCli } from "./cli-path.js";
import { registerCommands } from "./commands.js";
import { registerConflicts } from "./conflicts.js";
import { Folders, type MappedFolder } from "./folders.js";
import { stopPreviews } from "./preview.js";
import { statusBarText, statusBarTooltip } from "./state-view.js";

/** What the commands share. */
export interface ExtensionContext {
  cli: string | undefined;
  folders: Folders;
  output: vscode.OutputChannel;
  /** The folder of the active editor, else the only one; asks when several fit. */
  pickFolder(): Promise<MappedFolder | undefined>;
  /** Says the CLI could not be found, once per call. */
  noCli(): void;
}

/** Called by VS Code when the workspace holds a .syncrc. */
export async function activate(context: vscode.ExtensionContext): Promise<void> {
  const output = vscode.window.createOutputChannel("mpsync");
  const item = vscode.window.createStatusBarItem("mpsync.state", vscode.StatusBarAlignment.Left, 100);
  item.name = "mpsync";
  item.command = "mpsync.showStatus";
  item.text = "mpsync";
  item.show();
  const update = (): void => {
    const folder = activeFolder(folders);
    item.text = folder === undefined ? "mpsync" : statusBarText(folder.view);
    item.tooltip = folder === undefined ? "mpsync" : statusBarTooltip(folder.view, folder.dir);
  };
  const folders = new Folders(update);
  const found = locateCli();
  const ext: ExtensionContext = {
    cli: "path" in found ? found.path : undefined,
    folders,
    output,
    pickFolder: () => pickFolder(folders),
    noCli: () => void vscode.window.showErrorMessage("problem" in found ? found.problem : "mpsync not found"),
  };
  context.subscriptions.push(output, item, { dispose: () => folders.dispose() });
  context.subscriptions.push(vscode.window.onDidChangeActiveTextEditor(update));
  context.subscriptions.push(vscode.workspace.onDidSaveTextDocument((doc) => folders.saved(doc.uri.fsPath)));
  registerCommands(context, ext);
  registerConflicts(context, ext);
  if (ext.cli === undefined) {
    item.text = "mpsync not found";
    item.tooltip = "problem" in found ? found.problem : "";
    ext.noCli();
    return;
  }
  const configs = await vscode.workspace.findFiles("{.syncrc,*/.syncrc}", "**/node_modules/**", 20);
  await folders
    .load(
      ext.cli,
      configs.map((u) => u.fsPath),
    )
    .catch((err: unknown) => {
      output.appendLine(err instanceof Error ? err.message : String(err));
      void vscode.window.showErrorMessage(`mpsync: ${err instanceof Error ? err.message : String(err)}`);
    });
}

/** Stops the previews this extension started. */
export function deactivate(): void {
  stopPreviews();
}

function locateCli(): { path: string } | { problem: string } {
  return findCli({
    setting: vscode.workspace.getConfiguration("mpsync").get<string>("path") ?? "",
    folders: (vscode.workspace.workspaceFolders ?? []).map((f) => f.uri.fsPath),
    pathEnv: process.env["PATH"] ?? "",
    runnable: (path) => {
      try {
        accessSync(path, constants.X_OK);
        return true;
      } catch {
        return false;
      }
    },
  });
}

function activeFolder(folders: Folders): MappedFolder | undefined {
  const path = vscode.window.activeTextEditor?.document.uri.fsPath;
  const own = path === undefined ? undefined : folders.folderOf(path);
  return own ?? (folders.list.length === 1 ? folders.list[0] : undefined);
}

async function pickFolder(folders: Folders): Promise<MappedFolder | undefined> {
  const active = activeFolder(folders);
  if (active !== undefined) return active;
  if (folders.list.length === 0) {
    void vscode.window.showWarningMessage("mpsync: no mapped folder in this workspace's .syncrc");
    return undefined;
  }
  const picked = await vscode.window.showQuickPick(
    folders.list.map((f) => ({ label: f.dir, description: f.root, folder: f })),
    { placeHolder: "which mapped folder?" },
  );
  return picked?.folder;
}
