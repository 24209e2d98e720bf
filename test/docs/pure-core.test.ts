/**
 * The sync decisions are pure (docs/architecture.md, "One sync cycle"): reconcile, the merge, the
 * race-or-decision rule of other writers, the plan's model and every planning file of a cycle
 * (`sync/plan-*.ts`) import no I/O, directly or through another file: no `node:` module but
 * `node:path`'s posix helpers, no dependency that touches the disk or the network, no file of
 * the layers that do. Planning also reaches no asynchronous code: every port of the engine is
 * async, so a file with an `await` (the cycle's reads, journals and steps) cannot be planning.
 */
import { readdirSync, readFileSync } from "node:fs";
import { dirname, join, normalize, relative } from "node:path";
import { describe, expect, it } from "vitest";

const SRC = join(import.meta.dirname, "../../src");
const PLANNING = readdirSync(join(SRC, "sync"))
  .filter((f) => /^plan-.*\.ts$/.test(f) && !f.endsWith(".test.ts"))
  .map((f) => `sync/${f}`);
const PURE = [
  "sync/reconcile.ts",
  "sync/merge.ts",
  "sync/other-writers.ts",
  "sync/holds-edit.ts",
  "sync/races.ts",
  "sync/ledger-reading.ts",
  "sync/ledger-next.ts",
  "sync/model.ts",
  "sync/sync-state.ts",
  "daemon/worker-loop.ts",
  "daemon/cycle-decision.ts",
  ...PLANNING,
];
/** Modules a pure file may reach: computation only. */
const ALLOWED_PACKAGES = new Set(["node-diff3", "diff", "zod", "node:crypto"]);
const IO_FOLDERS = ["local/", "state/", "api/", "watch/", "emulator/", "preview/", "git/", "log/"];

/** Every import specifier of a file (static and lazy; type-only imports carry no I/O and are skipped). */
function specifiers(file: string): string[] {
  const text = readFileSync(file, "utf8");
  return [...text.matchAll(/^\s*(?:import|export)\s(?!type\s)[^;]*?from\s*["']([^"']+)["']|\bimport\(\s*["']([^"']+)["']\s*\)/gm)].map((m) => (m[1] ?? m[2])!);
}

/** The I/O a pure file reaches, as "file -> module" lines. */
function ioReached(start: string): string[] {
  const seen = new Set<string>();
  const found: string[] = [];
  const visit = (file: string): void => {
    if (seen.has(file)) return;
    seen.add(file);
    const rel = relative(SRC, file);
    if (IO_FOLDERS.some((f) => rel.startsWith(f))) found.push(`${start} reaches ${rel}`);
    for (const s of specifiers(file)) {
      if (s.startsWith(".")) visit(normalize(join(dirname(file), s)).replace(/\.js$/, ".ts"));
      else if (!ALLOWED_PACKAGES.has(s)) found.push(`${relative(SRC, file)} imports ${s}`);
    }
  };
  visit(join(SRC, start));
  return found;
}

/** The files `start` reaches (itself included) whose code awaits or declares an async function. */
function asyncReached(start: string): string[] {
  const seen = new Set<string>();
  const found: string[] = [];
  const visit = (file: string): void => {
    if (seen.has(file)) return;
    seen.add(file);
    const code = readFileSync(file, "utf8").replace(/\/\*[\s\S]*?\*\//g, "").replace(/\/\/.*$/gm, "");
    if (/\b(?:await|async)\b/.test(code)) found.push(`${start} reaches ${relative(SRC, file)}, which is asynchronous`);
    for (const s of specifiers(file)) if (s.startsWith(".")) visit(normalize(join(dirname(file), s)).replace(/\.js$/, ".ts"));
  };
  visit(join(SRC, start));
  return found;
}

describe("the pure core", () => {
  it.each(PURE)("%s reaches no I/O", (file) => {
    expect(ioReached(file)).toEqual([]);
  });

  it("covers the planning files of a cycle and reconcile", () => {
    expect(PLANNING).toEqual(expect.arrayContaining(["sync/plan-cycle.ts", "sync/plan-triples.ts"]));
  });

  it.each([...PLANNING, "sync/reconcile.ts"])("%s reaches no asynchronous code (planning reads and writes nothing)", (file) => {
    expect(asyncReached(file)).toEqual([]);
  });
});
