/**
 * References in comments resolve inside the repository. A comment of src/, test/ or scripts/
 * (and a Markdown file there or in docs/; not README.md, whose paths are a user's) that names
 * a repository path names one that exists; a cited
 * section of a Markdown file (`docs/service-facts.md#status`) is one of its headings; facts
 * about the service are cited from docs/service-facts.md, not from notes outside the
 * repository; and a comment or a test title says its reason itself instead of pointing at an
 * issue number of a tracker the repository does not have.
 *
 * What counts as a repository path: a name with a `/` that ends in .ts, .mjs, .cjs, .js, .json
 * or .md and starts with `./`, `../`, a top-level folder (src, test, scripts, docs) or a folder
 * of src/ or test/ (`local/atomic-write.ts`, `support/harness.ts`); it resolves against the
 * comment's own folder (when relative), the repository root, src/ or test/. A folder named with
 * a trailing `/` from a top-level folder (`test/contract/fixtures/`) must exist too. Names of a
 * design's files (`components/Button.tsx`), of `.mpsync/` and of the build output (`dist/`) are
 * not repository paths. A bare `*.md` name resolves against the root or docs/.
 */
import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import { dirname, join } from "node:path";
import ts from "typescript";
import { describe, expect, it } from "vitest";

const ROOT = join(import.meta.dirname, "../..");
const TOP = ["src", "test", "scripts", "docs"];
const SCANNED = ["src", "test", "scripts"];
const CODE = /\.(?:ts|mjs|cjs|js)$/;
/** The notes file the service facts came from; it lives outside the repository. */
const OUTSIDE_NOTES = ["SERVICE", "FACTS"].join("-");
const FACTS_DOC = "docs/service-facts.md";

const subfolders = (dir: string): string[] =>
  readdirSync(join(ROOT, dir), { withFileTypes: true }).filter((e) => e.isDirectory()).map((e) => e.name);
const KNOWN_FIRST = new Set([...TOP, ...subfolders("src"), ...subfolders("test")]);

const PATH = /(?<![\w./@:-])((?:\.\.?\/)*(?:[\w.-]+\/)+[\w.-]+\.(?:ts|mjs|cjs|json|js|md))(#[\w-]+)?(?![\w/])/g;
const FOLDER = /(?<![\w./@:-])((?:src|test|scripts|docs)\/(?:[\w.-]+\/)*)(?![\w.-])/g;
const BARE_MD = /(?<![\w./@:-])([\w-]+\.md)(#[\w-]+)?(?![\w/])/g;
const ISSUE = /\b[Ii]ssues? \d+/g;

/** A comment (or a test title, or a Markdown file) and where it starts. */
interface Text {
  file: string;
  line: number;
  text: string;
}

function filesUnder(dir: string): string[] {
  return readdirSync(join(ROOT, dir), { withFileTypes: true }).flatMap((e) => {
    const rel = join(dir, e.name);
    if (e.isDirectory()) return e.name === "node_modules" ? [] : filesUnder(rel);
    return CODE.test(e.name) || e.name.endsWith(".md") ? [rel] : [];
  });
}

const K = ts.SyntaxKind;
/** Tokens after which a `/` divides; after any other it starts a regular expression. */
const ENDS_OPERAND = new Set([K.Identifier, K.PrivateIdentifier, K.NumericLiteral, K.BigIntLiteral, K.StringLiteral, K.RegularExpressionLiteral,
  K.NoSubstitutionTemplateLiteral, K.TemplateTail, K.CloseParenToken, K.CloseBracketToken, K.CloseBraceToken, K.PlusPlusToken,
  K.MinusMinusToken, K.ThisKeyword, K.SuperKeyword, K.NullKeyword, K.TrueKeyword, K.FalseKeyword]);
const TITLED = new Set(["describe", "it", "test"]);

/**
 * Every comment of a source file, and every string title of a `describe`, `it` or `test`
 * call. TypeScript's scanner (a parse costs ten times as much), told where a `/` starts a
 * regular expression and where a `}` goes back into a template literal.
 */
export function textsOf(file: string, source: string): Text[] {
  const lineStarts = [0, ...[...source.matchAll(/\n/g)].map((m) => m.index + 1)];
  const out: Text[] = [];
  const add = (pos: number, end: number): void => {
    out.push({ file, line: lineStarts.findLastIndex((s) => s <= pos) + 1, text: source.slice(pos, end) });
  };
  const scanner = ts.createScanner(ts.ScriptTarget.Latest, false, ts.LanguageVariant.Standard, source);
  const braces: number[] = []; // open braces inside each template substitution we are in
  const last: ts.SyntaxKind[] = [];
  let callee = "";
  for (let kind = scanner.scan(); kind !== K.EndOfFileToken; kind = scanner.scan()) {
    if (kind === K.SingleLineCommentTrivia || kind === K.MultiLineCommentTrivia) add(scanner.getTokenStart(), scanner.getTokenEnd());
    if (kind >= K.FirstTriviaToken && kind <= K.LastTriviaToken) continue;
    if ((kind === K.SlashToken || kind === K.SlashEqualsToken) && !ENDS_OPERAND.has(last[0]!)) kind = scanner.reScanSlashToken();
    if (kind === K.TemplateHead) braces.unshift(0);
    else if (kind === K.OpenBraceToken && braces.length > 0) braces[0]!++;
    else if (kind === K.CloseBraceToken && braces[0] === 0) {
      kind = scanner.reScanTemplateToken(false);
      if (kind === K.TemplateTail) braces.shift();
    } else if (kind === K.CloseBraceToken && braces.length > 0) braces[0]!--;
    const title = kind === K.StringLiteral || kind === K.NoSubstitutionTemplateLiteral;
    if (title && last[0] === K.OpenParenToken && last[1] === K.Identifier && TITLED.has(callee)) add(scanner.getTokenStart(), scanner.getTokenEnd());
    if (kind === K.Identifier) callee = scanner.getTokenValue();
    last.unshift(kind);
    last.length = 2;
  }
  return out;
}

/** The slugs a Markdown file's headings get (GitHub's rule). */
function anchorsOf(file: string): Set<string> {
  const headings = readFileSync(file, "utf8").match(/^#{1,6} .+$/gm) ?? [];
  return new Set(headings.map((h) => h.replace(/^#+ /, "").trim().toLowerCase().replace(/[^\w\- ]/g, "").replace(/ /g, "-")));
}

function resolves(name: string, anchor: string | undefined, bases: string[]): string | undefined {
  const found = bases.map((b) => join(b, name)).find((p) => existsSync(p));
  if (found === undefined) return `${name} does not exist`;
  if (anchor !== undefined && !anchorsOf(found).has(anchor.slice(1))) return `${name} has no section ${anchor}`;
  return undefined;
}

/** The problems of one text: `file:line: what`. */
export function problemsOf({ file, line, text }: Text): string[] {
  const problems: string[] = [];
  const at = (index: number): string => `${file}:${line + (text.slice(0, index).match(/\n/g)?.length ?? 0)}`;
  const here = dirname(join(ROOT, file));
  for (const m of text.matchAll(PATH)) {
    const name = m[1]!;
    if (name.includes(OUTSIDE_NOTES)) continue;
    const relativeName = name.startsWith("./") || name.startsWith("../");
    if (!relativeName && !KNOWN_FIRST.has(name.split("/")[0]!)) continue;
    const bases = relativeName ? [here] : [ROOT, join(ROOT, "src"), join(ROOT, "test")];
    const problem = resolves(name, m[2], bases);
    if (problem !== undefined) problems.push(`${at(m.index)}: ${problem}`);
  }
  for (const m of text.matchAll(FOLDER)) {
    const dir = join(ROOT, m[1]!);
    if (!existsSync(dir) || !statSync(dir).isDirectory()) problems.push(`${at(m.index)}: folder ${m[1]} does not exist`);
  }
  for (const m of text.matchAll(BARE_MD)) {
    if (m[1]!.includes(OUTSIDE_NOTES)) continue;
    const problem = resolves(m[1]!, m[2], [ROOT, join(ROOT, "docs")]);
    if (problem !== undefined) problems.push(`${at(m.index)}: ${problem}`);
  }
  const notes = file === FACTS_DOC ? [] : text.matchAll(new RegExp(OUTSIDE_NOTES, "g"));
  for (const m of notes) problems.push(`${at(m.index)}: cite ${FACTS_DOC} (with its section) instead`);
  for (const m of text.matchAll(ISSUE)) problems.push(`${at(m.index)}: "${m[0]}" points at no tracker: say the reason itself`);
  return problems;
}

/** The Markdown files of docs/ (the inside of the repository, in its own paths). */
const DOCS = readdirSync(join(ROOT, "docs")).filter((f) => f.endsWith(".md")).map((f) => join("docs", f));

function scannedTexts(): Text[] {
  return [...SCANNED.flatMap(filesUnder), ...DOCS].flatMap((file) => {
    const source = readFileSync(join(ROOT, file), "utf8");
    return file.endsWith(".md") ? [{ file, line: 1, text: source }] : textsOf(file, source);
  });
}

describe("references in comments", () => {
  it("every repository path, cited section and .md name in a comment of src, test or scripts (or in docs/*.md) exists; no issue numbers", () => {
    expect(scannedTexts().flatMap(problemsOf)).toEqual([]);
  });

  it(`README.md cites the service facts from ${FACTS_DOC} too`, () => {
    const lines = readFileSync(join(ROOT, "README.md"), "utf8").split("\n");
    expect(lines.flatMap((l, i) => (l.includes(OUTSIDE_NOTES) ? [`README.md:${i + 1}`] : []))).toEqual([]);
    // Linked as the package holds it, so the link resolves on the registry's page too.
    expect(lines.some((l) => l.includes(`](https://unpkg.com/mpsync/${FACTS_DOC})`))).toBe(true);
  });

  it("the checks find what they look for (a sanity check of the scanner and the rules)", () => {
    const source = [
      "/** See local/atomic-write.ts and sync/nope.ts (issue 12). */",
      'const s = "src/not-a-comment.ts"; // docs/service-facts.md#status, docs/service-facts.md#nowhere',
      "function f() {",
      `  // ${OUTSIDE_NOTES}.md "Publish"; components/Button.tsx is a design's file; api-v3.md`,
      "}",
      'it("a title (issue 3)", () => {});',
    ].join("\n");
    const texts = textsOf("src/example.ts", source);
    expect(texts.map((t) => t.line)).toEqual([1, 2, 4, 6]);
    expect(texts.flatMap(problemsOf)).toEqual([
      "src/example.ts:1: sync/nope.ts does not exist",
      'src/example.ts:1: "issue 12" points at no tracker: say the reason itself',
      "src/example.ts:2: docs/service-facts.md has no section #nowhere",
      "src/example.ts:4: api-v3.md does not exist",
      `src/example.ts:4: cite ${FACTS_DOC} (with its section) instead`,
      'src/example.ts:6: "issue 3" points at no tracker: say the reason itself',
    ]);
    // Paths relative to src/ and test/ are known; a design's own folders are not.
    expect([...KNOWN_FIRST].filter((f) => ["local", "support", "components"].includes(f))).toEqual(["local", "support"]);
  });
});
