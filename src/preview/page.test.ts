import { mkdtemp, mkdir, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { absoluteContent } from "./design-css.js";
import { namesIcon, providedEntry, providedPage } from "./page.js";

let dir: string | undefined;
afterEach(async () => {
  if (dir !== undefined) await rm(dir, { recursive: true, force: true });
});

describe("the provided page", () => {
  it("a scaffold (no index.html): index.tsx into a provided page with #root", async () => {
    dir = await mkdtemp(join(tmpdir(), "mpsync-page-"));
    await writeFile(join(dir, "index.tsx"), "");
    expect(providedEntry(dir)).toBe("index.tsx");
    expect(providedPage("index.tsx")).toContain('<div id="root"></div>\n<script type="module" src="/index.tsx"></script>');
  });

  it("a Vite export: its own index.html, nothing provided", async () => {
    dir = await mkdtemp(join(tmpdir(), "mpsync-page-"));
    await mkdir(join(dir, "src"));
    await writeFile(join(dir, "src", "main.tsx"), "");
    await writeFile(join(dir, "index.html"), '<html><body><script type="module" src="/src/main.tsx"></script></body></html>');
    expect(providedEntry(dir)).toBeUndefined();
  });

  it("no entry at all: a page without a script", async () => {
    dir = await mkdtemp(join(tmpdir(), "mpsync-page-"));
    expect(providedEntry(dir)).toBeUndefined();
    expect(providedPage(undefined)).not.toContain("<script");
  });

  it.each([
    ['<link rel="icon" href="/x.svg">', true],
    ["<link rel='shortcut icon' href='/f.ico'>", true],
    ['<link rel="stylesheet" href="/a.css">', false],
  ])("namesIcon(%j) is %j", (html, named) => {
    expect(namesIcon(html)).toBe(named);
  });
});

describe("absoluteContent", () => {
  it("takes the design's globs relative to its folder, in every shape Tailwind v3 accepts", () => {
    expect(absoluteContent("/d", ["./index.html", "./**/*.{ts,tsx}", "!./legacy/**"])).toEqual(["/d/index.html", "/d/**/*.{ts,tsx}", "!/d/legacy/**"]);
    expect(absoluteContent("/d", { files: ["./src/**/*.tsx", { raw: "<b class='p-1'>" }] })).toEqual({
      relative: false,
      files: ["/d/src/**/*.tsx", { raw: "<b class='p-1'>" }],
    });
    expect(absoluteContent("/d", undefined)).toEqual(["/d/**/*.{html,js,jsx,ts,tsx}", "!/d/node_modules"]);
  });
});
