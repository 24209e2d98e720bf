/**
 * The emulator's "AI": deterministic edits derived from a prompt. A pure function of
 * (files, prompt), so the same prompt on the same content always gives the same artifact.
 */
import { GENERATED_END, GENERATED_START } from "./scaffold.js";

/** Result of one generation. */
export interface PromptEditResult {
  files: Map<string, string>;
  /** The assistant's chat reply, e.g. "Updated App.tsx and added components/HeroBanner.tsx". */
  summary: string;
}

const MAX_HEADLINE_CHARS = 80;
const COMPONENT_WORDS = 3;

/** PascalCase component name from the first words of the prompt. */
export function componentNameFor(prompt: string): string {
  const words = (prompt.match(/[A-Za-z0-9]+/g) ?? []).slice(0, COMPONENT_WORDS);
  const name = words.map((w) => w.charAt(0).toUpperCase() + w.slice(1).toLowerCase()).join("");
  if (name.length === 0) return "Generated";
  return /^[0-9]/.test(name) ? `Section${name}` : name;
}

/** The headline a prompt puts in App.tsx: its first line, capitalised and capped. */
export function headlineFor(prompt: string): string {
  const firstLine = prompt.trim().split(/\r?\n/)[0] ?? "";
  const capped = firstLine.length > MAX_HEADLINE_CHARS ? `${firstLine.slice(0, MAX_HEADLINE_CHARS - 1)}…` : firstLine;
  return capped.charAt(0).toUpperCase() + capped.slice(1);
}

/** Applies the prompt's edits to a copy of `files`. */
export function applyPromptEdits(files: ReadonlyMap<string, string>, prompt: string): PromptEditResult {
  const next = new Map(files);
  const name = componentNameFor(prompt);
  const componentPath = `components/${name}.tsx`;
  const previous = files.get(componentPath);
  next.set(componentPath, componentSource(name, prompt, nextRevision(previous)));
  const app = files.get("App.tsx");
  const newApp = app === undefined ? undefined : editApp(app, name, headlineFor(prompt));
  if (newApp !== undefined) next.set("App.tsx", newApp);
  const componentVerb = previous === undefined ? "added" : "updated";
  const summary = newApp === undefined ? `${capitalise(componentVerb)} ${componentPath}` : `Updated App.tsx and ${componentVerb} ${componentPath}`;
  return { files: next, summary };
}

function nextRevision(previous: string | undefined): number {
  const match = previous?.match(/data-revision="(\d+)"/);
  return match?.[1] === undefined ? 1 : Number(match[1]) + 1;
}

function componentSource(name: string, prompt: string, revision: number): string {
  return [
    `export function ${name}() {`,
    "  return (",
    `    <section className="mt-6 rounded-lg bg-white p-6 shadow" data-revision="${revision}">`,
    `      <h2 className="text-xl font-semibold text-gray-900">{${JSON.stringify(headlineFor(prompt))}}</h2>`,
    `      <p className="mt-2 text-gray-600">{${JSON.stringify(prompt.trim())}}</p>`,
    "    </section>",
    "  );",
    "}",
    "",
  ].join("\n");
}

/**
 * Rewrites the generated region of App.tsx (headline plus one tag per generated component)
 * and adds the import. Returns undefined when the region is gone: a user who rewrote App.tsx
 * keeps it untouched.
 */
function editApp(app: string, component: string, headline: string): string | undefined {
  const start = app.indexOf(GENERATED_START);
  const end = app.indexOf(GENERATED_END);
  if (start < 0 || end < start) return undefined;
  const lineStart = app.lastIndexOf("\n", start) + 1;
  const indent = /^[ \t]*/.exec(app.slice(lineStart, start))?.[0] ?? "";
  const region = app.slice(start + GENERATED_START.length, end);
  const tags = [...region.matchAll(/<([A-Z][A-Za-z0-9]*) \/>/g)].map((m) => m[1] ?? "");
  if (!tags.includes(component)) tags.push(component);
  const body = [`<h1 className="text-3xl font-bold text-gray-900">{${JSON.stringify(headline)}}</h1>`, ...tags.map((tag) => `<${tag} />`)]
    .map((line) => `${indent}${line}\n`)
    .join("");
  const edited = `${app.slice(0, start)}${GENERATED_START}\n${body}${indent}${app.slice(end)}`;
  return ensureImport(edited, component);
}

function ensureImport(app: string, component: string): string {
  const line = `import { ${component} } from "./components/${component}";`;
  if (app.includes(line)) return app;
  // Before the first import, not after the last: a multi-line import cannot be split then.
  const lines = app.split("\n");
  const firstImport = lines.findIndex((l) => /^import\s/.test(l));
  lines.splice(Math.max(0, firstImport), 0, line);
  return lines.join("\n");
}

function capitalise(text: string): string {
  return text.charAt(0).toUpperCase() + text.slice(1);
}
