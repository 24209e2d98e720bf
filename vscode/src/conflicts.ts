/**
 * Conflicts where the editor shows them: each block of markers in a mapped folder's file is a
 * problem (Problems panel), and `mpsync resolve --ours/--theirs` are its quick fixes. VS Code's
 * own merge buttons for git-style markers are untouched.
 */
import { relative } from "node:path";
import * as vscode from "vscode";
import { findConflictBlocks, inStateFolder } from "./conflict-markers.js";
import { errorLine, runJson } from "./cli-runner.js";
import type { ExtensionContext } from "./extension.js";

const SOURCE = "mpsync";

/** Watches open and saved documents of mapped folders for markers; registers the quick fixes. */
export function registerConflicts(context: vscode.ExtensionContext, ext: ExtensionContext): void {
  const diagnostics = vscode.languages.createDiagnosticCollection(SOURCE);
  const check = (doc: vscode.TextDocument): void => {
    const folder = ext.folders.folderOf(doc.uri.fsPath);
    if (folder === undefined || doc.uri.scheme !== "file") return;
    if (inStateFolder(folder.root, doc.uri.fsPath)) return;
    const found = findConflictBlocks(doc.getText()).map((b) => {
      const range = new vscode.Range(b.start, 0, b.end, doc.lineAt(b.end).text.length);
      const d = new vscode.Diagnostic(
        range,
        "mpsync conflict: both sides changed these lines (resolve, or pick a side with mpsync resolve)",
        vscode.DiagnosticSeverity.Error,
      );
      d.source = SOURCE;
      return d;
    });
    diagnostics.set(doc.uri, found);
  };
  context.subscriptions.push(
    diagnostics,
    vscode.workspace.onDidOpenTextDocument(check),
    vscode.workspace.onDidChangeTextDocument((e) => check(e.document)),
    vscode.workspace.onDidCloseTextDocument((doc) => diagnostics.delete(doc.uri)),
    vscode.languages.registerCodeActionsProvider(
      { scheme: "file" },
      { provideCodeActions: (doc, _range, ctx) => fixes(doc, ctx) },
      {
        providedCodeActionKinds: [vscode.CodeActionKind.QuickFix],
      },
    ),
  );
  for (const doc of vscode.workspace.textDocuments) check(doc);
  const resolve = (side: "ours" | "theirs") => async (uri: vscode.Uri) => {
    const folder = ext.folders.folderOf(uri.fsPath);
    if (ext.cli === undefined) return ext.noCli();
    if (folder === undefined) return;
    const rel = relative(folder.root, uri.fsPath);
    const { doc } = await runJson(ext.cli, ["resolve", rel, `--${side}`], folder.root, "resolve");
    const failed = errorLine(doc);
    if (failed !== undefined) void vscode.window.showErrorMessage(`mpsync: ${failed}`);
    else void vscode.window.showInformationMessage(`mpsync: ${rel} resolved with ${side === "ours" ? "your side" : "the service's side"}`);
  };
  context.subscriptions.push(
    vscode.commands.registerCommand("mpsync.resolveOurs", resolve("ours")),
    vscode.commands.registerCommand("mpsync.resolveTheirs", resolve("theirs")),
    // Reloaded from disk after a resolve or a pull: the problems follow the file.
    vscode.workspace.onDidSaveTextDocument(check),
  );
  context.subscriptions.push(vscode.window.onDidChangeActiveTextEditor((e) => e !== undefined && check(e.document)));
}

function fixes(doc: vscode.TextDocument, ctx: vscode.CodeActionContext): vscode.CodeAction[] {
  if (!ctx.diagnostics.some((d) => d.source === SOURCE)) return [];
  return (["ours", "theirs"] as const).map((side) => {
    const title = side === "ours" ? "mpsync: resolve --ours (keep my side)" : "mpsync: resolve --theirs (take the service's side)";
    const action = new vscode.CodeAction(title, vscode.CodeActionKind.QuickFix);
    action.command = { title, command: side === "ours" ? "mpsync.resolveOurs" : "mpsync.resolveTheirs", arguments: [doc.uri] };
    action.diagnostics = ctx.diagnostics.filter((d) => d.source === SOURCE);
    return action;
  });
}
