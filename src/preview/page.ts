/**
 * The page the preview serves. A scaffold has no index.html: the service's runtime mounts
 * `index.tsx` into `#root`, so the preview provides that page (in memory, never in the synced
 * folder). A Vite export has its own index.html, which Vite serves as it is.
 */
import { existsSync } from "node:fs";
import { join } from "node:path";

/** Entry scripts tried, in order, when the design has no index.html. */
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

/** Where the preview's page script is served (a virtual module of the preview's Vite plugin). */
export const CLIENT_URL = "/@mpsync/client.js";

/** The design's entry script (relative `/` path) when it has no index.html of its own, else undefined. */
export function providedEntry(root: string): string | undefined {
  if (existsSync(join(root, "index.html"))) return undefined;
  return ENTRY_CANDIDATES.find((c) => existsSync(join(root, c)));
}

/** The page provided for a design without index.html, mounting `entry` (undefined: none found). */
export function providedPage(entry: string | undefined): string {
  const script = entry === undefined ? "" : `<script type="module" src="/${entry}"></script>`;
  return [
    "<!doctype html>",
    '<html lang="en">',
    "<head>",
    '<meta charset="UTF-8" />',
    '<meta name="viewport" content="width=device-width, initial-scale=1.0" />',
    "<title>mpsync dev</title>",
    "</head>",
    "<body>",
    '<div id="root"></div>',
    script,
    "</body>",
    "</html>",
    "",
  ].join("\n");
}

/** True when `html` names an icon (else the browser asks for /favicon.ico, a 404 on every load). */
export function namesIcon(html: string): boolean {
  return /<link\b[^>]*\brel=["'][^"']*\bicon\b/i.test(html);
}
