/** Runs the mpsync CLI for the extension: `--json` documents checked against the schema, or plain text for people. */
import { execFile } from "node:child_process";
import { checkDocument, type DocumentKind } from "./cli-documents.js";

/** The outcome of one run. */
export interface CliRun<T> {
  code: number;
  doc: T;
}

/** Runs `mpsync ...args --json` in `cwd` and reads its one document (a failure prints an `error` document). */
export function runJson<T>(cli: string, args: readonly string[], cwd: string, kind: DocumentKind): Promise<CliRun<T>> {
  return new Promise((resolve, reject) => {
    execFile(cli, [...args, "--json"], { cwd, env: { ...process.env, NO_COLOR: "1" }, maxBuffer: 16 * 1024 * 1024 }, (err, stdout, stderr) => {
      const code = err === null ? 0 : typeof err.code === "number" ? err.code : 1;
      let doc: unknown;
      try {
        doc = JSON.parse(stdout);
      } catch {
        reject(new Error(`mpsync ${args[0] ?? ""} printed no JSON document (exit ${code}): ${stderr.trim().split("\n")[0] ?? ""}`));
        return;
      }
      try {
        resolve({ code, doc: checkDocument<T>(errorLine(doc) === undefined ? kind : "error", doc) });
      } catch (mismatch) {
        reject(mismatch as Error);
      }
    });
  });
}

/** Runs `mpsync ...args` for its text (no colour): what a person reads, as the terminal shows it. */
export function runText(cli: string, args: readonly string[], cwd: string): Promise<{ code: number; text: string }> {
  return new Promise((resolve) => {
    execFile(cli, [...args, "--no-color"], { cwd, env: { ...process.env, NO_COLOR: "1", COLUMNS: "100" } }, (err, stdout, stderr) => {
      const code = err === null ? 0 : typeof err.code === "number" ? err.code : 1;
      resolve({ code, text: `${stdout}${stderr}`.trimEnd() });
    });
  });
}

/** An `error` document's line (`{"ok":false,"error":{...}}`); undefined for any other document. */
export function errorLine(doc: unknown): string | undefined {
  if (typeof doc !== "object" || doc === null || !("error" in doc)) return undefined;
  const error = doc.error;
  return typeof error === "object" && error !== null && "message" in error ? String(error.message) : undefined;
}
