/**
 * Errors of the preview as one terminal line each, naming the design's file and line: Vite's
 * compile errors (its logger, which reports one error several times: a pre-transform, the
 * request, the update) and the page's runtime errors (a stack of served URLs, mapped back
 * through the module's source map and shown in Vite's overlay). Hand-written because Vite
 * maps no browser stack and its log lines are written for its own terminal.
 */
import { isAbsolute, relative, resolve, dirname } from "node:path";
import type { Logger, ViteDevServer } from "vite";
import type { RuntimeErrorReport } from "./page-client.js";
import type { Toolchain } from "./toolchain.js";

/** Where an error is, in the design. */
export interface ErrorPlace {
  file: string;
  line: number;
  column: number;
}

/** Says each line once until `forget` (a save): the same error reported again is not repeated. */
export class OnceSaid {
  readonly #said = new Set<string>();
  readonly #say: (line: string, level: "warn" | "error") => void;

  constructor(say: (line: string, level: "warn" | "error") => void) {
    this.#say = say;
  }

  /** Says `line` unless said since the last `forget`. */
  line(line: string, level: "warn" | "error"): void {
    if (this.#said.has(line)) return;
    this.#said.add(line);
    this.#say(line, level);
  }

  /** The next report of any line is said again. */

  forget(): void {
    this.#said.clear();
  }
}

/** "file:line:col: " for a place, "" for none. */
export function placeText(root: string, p: ErrorPlace | undefined): string {
  return p === undefined ? "" : `${relative(root, p.file)}:${p.line}:${p.column}: `;
}

// eslint-disable-next-line no-control-regex -- ANSI colour codes in Vite's messages
const ANSI = /\u001b\[[0-9;]*m/g;

/** The first telling line of an error message (Vite's carry the file and a code frame after it). */
export function firstLine(message: string): string {
  const lines = message
    .replace(ANSI, "")
    .split("\n")
    .map((l) => l.trim());
  return (lines.find((l) => l !== "" && !/^Transform failed with/.test(l)) ?? "unknown error").replace(/^\[[A-Z_]+\]\s*(Error:\s*)?/, "");
}

interface ViteError {
  message?: string;
  id?: string;
  loc?: { file?: string; line: number; column: number };
}

/** Vite's logger, as one line per error and warning (info is Vite's chatter: hmr update lines). */
export function previewLogger(root: string, said: OnceSaid): Logger {
  const warned = new Set<string>();
  const logger: Logger = {
    hasWarned: false,
    info: () => undefined,
    warn: (msg) => {
      // The React plugin's pre-bundled names are looked up from the design's folder, which has
      // no node_modules: the scan of the entry finds them through the preview's resolver.
      if (/Failed to resolve dependency: .*optimizeDeps\.include/.test(msg)) return;
      logger.hasWarned = true;
      said.line(`preview: ${firstLine(msg)}`, "warn");
    },
    warnOnce: (msg) => {
      if (warned.has(msg)) return;
      warned.add(msg);
      logger.warn(msg);
    },
    error: (msg, options) => {
      // Vite 8's transform errors carry their place on the first of `errors`.
      const outer = options?.error as (ViteError & { errors?: ViteError[] }) | undefined;
      const err = outer?.errors?.[0] ?? outer;
      const file = err?.loc?.file ?? err?.id ?? outer?.id;
      const place =
        file === undefined || err?.loc === undefined ? undefined : { file: file.split("?")[0] ?? file, line: err.loc.line, column: err.loc.column + 1 };
      said.line(`preview: ${placeText(root, place)}${firstLine(err?.message ?? msg).replace(`${place?.file ?? "\0"}: `, "")}`, "error");
    },
    clearScreen: () => undefined,
    hasErrorLogged: () => false,
  };
  return logger;
}

const FRAME = /https?:\/\/[^/\s]+(\/[^\s?:)]*)(?:\?[^\s:)]*)?:(\d+):(\d+)/g;

/** The design's file and line of a runtime error's stack: its first frame in a module of the design. */
export async function runtimePlace(server: ViteDevServer, tools: Toolchain, root: string, report: RuntimeErrorReport): Promise<ErrorPlace | undefined> {
  const graph = server.environments.client.moduleGraph;
  for (const m of report.stack.matchAll(FRAME)) {
    const [, url = "", line = "0", column = "0"] = m;
    const mod = await graph.getModuleByUrl(decodeURIComponent(url));
    const file = mod?.file;
    if (file === null || file === undefined || file.includes("/node_modules/") || relative(root, file).startsWith("..")) continue;
    const map = mod?.transformResult?.map;
    if (map === null || map === undefined || !("mappings" in map)) return { file, line: Number(line), column: Number(column) };
    const at = tools.sourceMap(map).originalPositionFor({ line: Number(line), column: Number(column) - 1 });
    if (at.line === null || at.source === null) continue;
    const source = isAbsolute(at.source) ? at.source : resolve(dirname(file), at.source);
    return { file: source, line: at.line, column: (at.column ?? 0) + 1 };
  }
  return undefined;
}
