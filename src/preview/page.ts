/**
 * The page the preview serves. A scaffold has no index.html: the service's runtime mounts
 * `index.tsx` into `#root`, so the preview provides that page (in memory, never in the synced
 * folder). A Vite export has its own index.html whose module script names the entry
 * (`/src/main.tsx`): that page is served with the script swapped for the bundle.
 */
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";

/** Entry scripts tried, in order, when the design has no index.html naming one. */
export const ENTRY_CANDIDATES = [
  "index.tsx",
  "index.jsx",
  "index.ts",
  "index.js",
  "src/main.tsx",
  "src/index.tsx",
  "src/main.jsx",
  "src/index.jsx",
  "main.tsx",
] as const;

/** Where the page's parts are served. */
export const PAGE_URLS = { js: "/__mpsync/out/app.js", css: "/__mpsync/out/app.css", client: "/__mpsync/client.js", events: "/__mpsync/events" } as const;

/** The design's entry and the page around it. */
export interface PagePlan {
  /** Absolute path of the entry script, or undefined when the design has none. */
  entry: string | undefined;
  /** The HTML, with the bundle, stylesheet and preview client in it. */
  html: string;
}

const MODULE_SCRIPT = /<script\b[^>]*\btype=["']module["'][^>]*\bsrc=["']([^"']+)["'][^>]*>\s*<\/script>/i;

/** Finds the entry and builds the page for the design in `root`. */
export function planPage(root: string): PagePlan {
  const own = join(root, "index.html");
  if (existsSync(own)) {
    const html = readFileSync(own, "utf8");
    const m = MODULE_SCRIPT.exec(html);
    const src = m?.[1];
    if (m !== null && src !== undefined && !/^[a-z]+:/i.test(src)) {
      const entry = join(root, src.replace(/^\.?\//, ""));
      if (existsSync(entry)) return { entry, html: injectHead(html.replace(m[0], appScript())) };
    }
  }
  const found = ENTRY_CANDIDATES.find((c) => existsSync(join(root, c)));
  return { entry: found === undefined ? undefined : join(root, found), html: defaultPage() };
}

function appScript(): string {
  return `<script type="module" src="${PAGE_URLS.js}"></script>`;
}

function headTags(): string {
  return `<link rel="stylesheet" href="${PAGE_URLS.css}" data-mpsync-css><script type="module" src="${PAGE_URLS.client}"></script>`;
}

function injectHead(html: string): string {
  return /<\/head>/i.test(html) ? html.replace(/<\/head>/i, `${headTags()}</head>`) : `${headTags()}${html}`;
}

function defaultPage(): string {
  return [
    "<!doctype html>",
    '<html lang="en">',
    "<head>",
    '<meta charset="UTF-8" />',
    '<meta name="viewport" content="width=device-width, initial-scale=1.0" />',
    "<title>mpsync dev</title>",
    headTags(),
    "</head>",
    "<body>",
    '<div id="root"></div>',
    appScript(),
    "</body>",
    "</html>",
    "",
  ].join("\n");
}

/**
 * `html` with the import map (React's modules) as the first thing in its head (module scripts
 * need it first) and the versions of script and stylesheet it is served with.
 */
export function withImportMap(html: string, importMap: object, versions: { js: number; css: number }): string {
  const tag = `<script type="importmap">${JSON.stringify(importMap).replace(/</g, "\\u003c")}</script><meta name="mpsync-build" content="${versions.js}.${versions.css}">`;
  const head = /<head\b[^>]*>/i.exec(html);
  return head === null ? `${tag}${html}` : html.replace(head[0], `${head[0]}${tag}`);
}
