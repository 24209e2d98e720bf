/**
 * The house's layers point one way (docs/architecture.md): every static import of a
 * `src` file goes to its own folder or to a folder of a lower layer, and no set of files imports
 * itself round (a cycle). Type-only imports count: they are how a layer ends up knowing another,
 * and so does a lazy `import()`: the module it loads runs in the same process, so a command's
 * implementation loaded on use must not import back the program that declared it.
 */
import { readdirSync, readFileSync } from "node:fs";
import { dirname, join, normalize, relative } from "node:path";
import { describe, expect, it } from "vitest";

/** Higher imports lower; equal ranks of different folders must not import each other. */
const RANK: Record<string, number> = {
  bin: 10,
  main: 10,
  index: 10,
  cli: 9,
  app: 8,
  daemon: 7,
  runtime: 6,
  git: 5,
  emulator: 5,
  preview: 5,
  sync: 4,
  api: 3,
  state: 3,
  watch: 3,
  scheduling: 2,
  config: 2,
  local: 1,
  core: 0,
  log: 0,
};

const SRC = join(import.meta.dirname, "../../src");

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const abs = join(dir, e.name);
    if (e.isDirectory()) return sourceFiles(abs);
    return e.name.endsWith(".ts") && !e.name.endsWith(".test.ts") ? [abs] : [];
  });
}

/** `sync` for a file of src/sync/, `runtime` for src/runtime.ts. */
function layerOf(file: string): string {
  const rel = relative(SRC, file).split("/");
  return rel.length > 1 ? rel[0]! : rel[0]!.replace(/\.ts$/, "");
}

/** Relative imports of a file (static, and lazy `import()`), as absolute .ts paths. */
function importsOf(file: string): string[] {
  const text = readFileSync(file, "utf8");
  const out: string[] = [];
  for (const m of text.matchAll(/^\s*(?:import|export)\s[^;]*?from\s*["'](\.[^"']+)["']|\bimport\(\s*["'](\.[^"']+)["']\s*\)/gm)) {
    out.push(normalize(join(dirname(file), (m[1] ?? m[2])!)).replace(/\.js$/, ".ts"));
  }
  return out;
}

const files = sourceFiles(SRC);
const graph = new Map(files.map((f) => [f, importsOf(f)]));

describe("layers", () => {
  it("every folder of src has a rank", () => {
    expect(files.map(layerOf).filter((l) => RANK[l] === undefined)).toEqual([]);
  });

  it("imports go only to the same folder or a lower layer", () => {
    const upward: string[] = [];
    for (const [file, targets] of graph) {
      const from = layerOf(file);
      for (const target of targets) {
        const to = layerOf(target);
        if (from !== to && !(RANK[from]! > RANK[to]!)) upward.push(`${relative(SRC, file)} -> ${relative(SRC, target)}`);
      }
    }
    expect(upward).toEqual([]);
  });

  it("no file imports itself round (no import cycle)", () => {
    const cycles: string[] = [];
    const state = new Map<string, "open" | "done">();
    const visit = (file: string, path: string[]): void => {
      if (state.get(file) === "done") return;
      if (state.get(file) === "open") {
        cycles.push([...path.slice(path.indexOf(file)), file].map((f) => relative(SRC, f)).join(" -> "));
        return;
      }
      state.set(file, "open");
      for (const next of graph.get(file) ?? []) if (graph.has(next)) visit(next, [...path, file]);
      state.set(file, "done");
    };
    for (const file of graph.keys()) visit(file, []);
    expect(cycles).toEqual([]);
  });

  it("commands only parse, call app/ and render: no file of cli/commands touches the file system", () => {
    const touching = files.filter((f) => relative(SRC, f).startsWith("cli/commands/") && /from\s*["']node:fs(?:\/promises)?["']/.test(readFileSync(f, "utf8")));
    expect(touching.map((f) => relative(SRC, f))).toEqual([]);
  });

  it("the checks see real edges, static and lazy (a sanity check of the parser)", () => {
    expect(graph.get(join(SRC, "sync/plan-cycle.ts"))).toContain(join(SRC, "sync/reconcile.ts"));
    // A type-only import is an edge too.
    expect(graph.get(join(SRC, "sync/design-sync.ts"))).toContain(join(SRC, "sync/cycle-context.ts"));
    // So is an import() (a declaration's action loading its implementation).
    expect(graph.get(join(SRC, "cli/declare/sync.ts"))).toContain(join(SRC, "cli/commands/status.ts"));
    expect(graph.get(join(SRC, "cli/action.ts"))).toContain(join(SRC, "cli/context.ts"));
  });
});
