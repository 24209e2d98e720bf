/**
 * The files a version needs, found from its own code: the API cannot list a past artifact's
 * files, but every file a design uses is reachable from its entry by relative imports. Pure:
 * the caller reads the candidate names (the read endpoint leaves out names that do not exist).
 */
import { posix } from "node:path";

/** Extensions tried, in order, for an import without one (as bundlers resolve them). */
const SCRIPT_EXTENSIONS = [".tsx", ".ts", ".jsx", ".js"] as const;

/** Files whose text is searched for imports. */
const IMPORTING = /\.(?:tsx|ts|jsx|js|mjs|cjs|css)$/;

/**
 * `import ... from "x"`, `export ... from "x"`, `import "x"`, `import("x")`, `require("x")`,
 * and in CSS `@import "x"` / `@import url(x)`.
 */
const SPECIFIER = /(?:\bfrom\s*|\bimport\s*\(?\s*|\brequire\s*\(\s*|@import\s+(?:url\(\s*)?)["']([^"'\n]+)["']|@import\s+url\(\s*([^"')\s]+)\s*\)/g;

/** One relative import of a file: the names that would satisfy it. */
export interface RelativeImport {
  /** The importing file. */
  from: string;
  /** The import as resolved against the importer's folder, before extensions (`components/Faq`). */
  target: string;
  /** Names to look for, in the order a bundler tries them. */
  candidates: string[];
}

/** The relative imports of `text` (the file `name`); imports that leave the design's root are ignored. */
export function relativeImports(name: string, text: string): RelativeImport[] {
  if (!IMPORTING.test(name)) return [];
  const out: RelativeImport[] = [];
  const seen = new Set<string>();
  for (const m of text.matchAll(SPECIFIER)) {
    const spec = (m[1] ?? m[2] ?? "").split(/[?#]/)[0]!;
    if (!spec.startsWith("./") && !spec.startsWith("../")) continue;
    const target = posix.normalize(posix.join(posix.dirname(name), spec));
    if (target.startsWith("../") || target === ".." || seen.has(target)) continue;
    seen.add(target);
    out.push({ from: name, target, candidates: candidatesFor(target) });
  }
  return out;
}

/**
 * The names an import of `target` may mean, in the order a bundler tries them: a TypeScript
 * name itself; a `.js` name or its TypeScript source; else the name as written (a stylesheet,
 * an image) and then each script extension and each `index` file of a folder (`./Faq`,
 * `./Button.styles`).
 */
export function candidatesFor(target: string): string[] {
  const ext = posix.extname(target);
  if (ext === ".ts" || ext === ".tsx") return [target];
  if (ext === ".js" || ext === ".jsx") {
    const stem = target.slice(0, -ext.length);
    return [target, `${stem}.ts`, `${stem}.tsx`];
  }
  const guessed = [...SCRIPT_EXTENSIONS.map((e) => `${target}${e}`), ...SCRIPT_EXTENSIONS.map((e) => `${target}/index${e}`)];
  return ext === "" ? guessed : [target, ...guessed];
}

/** The imports of `files` none of whose candidates is among them, once per target. */
export function unresolvedImports(files: ReadonlyMap<string, string>): RelativeImport[] {
  const missing = new Map<string, RelativeImport>();
  for (const [name, text] of files) {
    for (const imp of relativeImports(name, text)) {
      if (!imp.candidates.some((c) => files.has(c)) && !missing.has(imp.target)) missing.set(imp.target, imp);
    }
  }
  return [...missing.values()];
}
