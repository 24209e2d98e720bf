/**
 * The map's "To change X, open Y" table (docs/architecture.md) stays true: a row that names
 * symbols under "defined once" names the files where each is defined, and no other file of
 * src/ defines it, so a newcomer who opens those files has the whole of it. The first five rows
 * are the newcomer's common changes, and every file they name exists. The map stays short.
 */
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join, relative } from "node:path";
import { describe, expect, it } from "vitest";

const ROOT = join(import.meta.dirname, "../..");
const SRC = join(ROOT, "src");
/** Two screens of a laptop terminal; details live beside the code they describe. */
const MAP_MAX_LINES = 130;
const CELL_MAX_CHARS = 200;
const FIVE = ["the name of a conflict copy", "a new endpoint", "the debounce", "a field of `status --json`", "how the preview reloads on a pulled version"];

/** One row of the table: what to change, the files to open, the symbols defined only there. */
interface Row {
  change: string;
  files: string[];
  symbols: string[];
}

/** The rows of the table under `## To change X, open Y`. */
export function tableRows(markdown: string): Row[] {
  const section = markdown.split(/^## /m).find((s) => s.startsWith("To change X, open Y")) ?? "";
  const lines = section.split("\n").filter((l) => l.startsWith("| ") && !l.startsWith("| to change") && !l.startsWith("|---"));
  return lines.map((line) => {
    const [change, open, defined] = line
      .split("|")
      .slice(1, -1)
      .map((c) => c.trim());
    const ticked = (cell: string | undefined): string[] => [...(cell ?? "").matchAll(/`([^`]+)`/g)].map((m) => m[1]!);
    return { change: change!, files: ticked(open).filter((t) => /\.\w+$/.test(t) && !t.includes("*")), symbols: ticked(defined) };
  });
}

/** A repository path as the table writes it: under src/ unless it starts with a top-level name. */
function resolvePath(name: string): string | undefined {
  return [join(SRC, name), join(ROOT, name)].find((p) => existsSync(p));
}

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const abs = join(dir, e.name);
    if (e.isDirectory()) return sourceFiles(abs);
    return e.name.endsWith(".ts") && !e.name.endsWith(".test.ts") ? [abs] : [];
  });
}

/** The files of src/ (relative to it) with a top-level declaration of `symbol`. */
export function definitionsOf(symbol: string, sources: ReadonlyMap<string, string>): string[] {
  const declared = new RegExp(`^(?:export\\s+)?(?:declare\\s+)?(?:abstract\\s+)?(?:const|let|var|async\\s+function\\*?|function\\*?|class|interface|type|enum)\\s+${symbol}\\b`, "m");
  return [...sources].filter(([, text]) => declared.test(text)).map(([file]) => file);
}

const rows = tableRows(readFileSync(join(ROOT, "docs/architecture.md"), "utf8"));
const sources = new Map(sourceFiles(SRC).map((f) => [relative(SRC, f), readFileSync(f, "utf8")]));

describe("the map's table of changes", () => {
  it("opens with the newcomer's five changes, each naming files that exist and a symbol", () => {
    expect(rows.slice(0, 5).map((r) => FIVE.find((label) => r.change.startsWith(label)))).toEqual(FIVE);
    for (const row of rows.slice(0, 5)) {
      expect(row.symbols.length, row.change).toBeGreaterThan(0);
      expect(row.files.filter((f) => resolvePath(f) === undefined), row.change).toEqual([]);
    }
  });

  it.each(rows.filter((r) => r.symbols.length > 0).map((r) => [r.change, r] as const))("%s: each symbol is defined in the files named, and nowhere else in src/", (_, row) => {
    const named = new Set(row.files.map((f) => (f.startsWith("src/") ? f.slice(4) : f)));
    for (const symbol of row.symbols) {
      const where = definitionsOf(symbol, sources);
      expect(where.length, `${symbol} is defined in ${where.join(", ") || "no file"}`).toBe(1);
      expect(named.has(where[0]!), `${symbol} is defined in ${where[0]}, which the row does not name`).toBe(true);
    }
  });

  it("is a map, not an index: two screens at most, no table cell longer than a sentence or two", () => {
    const map = readFileSync(join(ROOT, "docs/architecture.md"), "utf8");
    expect(map.split("\n").length).toBeLessThanOrEqual(MAP_MAX_LINES);
    const cells = map.split("\n").flatMap((l) => (l.startsWith("|") ? l.split("|").slice(1, -1) : []));
    expect(cells.filter((c) => c.trim().length > CELL_MAX_CHARS).map((c) => c.trim().slice(0, 60))).toEqual([]);
  });

  it("finds what it looks for (a sanity check of the parser)", () => {
    const table = ["## To change X, open Y", "", "| to change | open | defined once | tests |", "|---|---|---|---|", "| a thing | `a/b.ts`, README.md | `makeThing` | `x` |"];
    expect(tableRows(table.join("\n"))).toEqual([{ change: "a thing", files: ["a/b.ts"], symbols: ["makeThing"] }]);
    const twice = new Map([
      ["a/one.ts", "export const makeThing = 1;"],
      ["a/two.ts", "function makeThing() {}\nconst makeThings = 2;"],
      ["a/three.ts", "  makeThing();"],
    ]);
    expect(definitionsOf("makeThing", twice)).toEqual(["a/one.ts", "a/two.ts"]);
  });
});
