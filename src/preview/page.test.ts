import { mkdtemp, mkdir, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { planPage, PAGE_URLS } from "./page.js";
import { absoluteContent } from "./tailwind-css.js";

let dir: string | undefined;
afterEach(async () => {
  if (dir !== undefined) await rm(dir, { recursive: true, force: true });
});

describe("planPage", () => {
  it("a scaffold (no index.html): index.tsx into a provided page with #root", async () => {
    dir = await mkdtemp(join(tmpdir(), "mpsync-page-"));
    await writeFile(join(dir, "index.tsx"), "");
    const plan = planPage(dir);
    expect(plan.entry).toBe(join(dir, "index.tsx"));
    expect(plan.html).toContain('<div id="root"></div>');
    expect(plan.html).toContain(PAGE_URLS.js);
    expect(plan.html).toContain(PAGE_URLS.client);
  });

  it("a Vite export: its own index.html, its module script swapped for the bundle", async () => {
    dir = await mkdtemp(join(tmpdir(), "mpsync-page-"));
    await mkdir(join(dir, "src"));
    await writeFile(join(dir, "src", "main.tsx"), "");
    await writeFile(
      join(dir, "index.html"),
      '<html><head><title>Export</title></head><body><div id="root"></div><script type="module" src="/src/main.tsx"></script></body></html>',
    );
    const plan = planPage(dir);
    expect(plan.entry).toBe(join(dir, "src", "main.tsx"));
    expect(plan.html).toContain("<title>Export</title>");
    expect(plan.html).not.toContain("/src/main.tsx");
    expect(plan.html).toContain(`<script type="module" src="${PAGE_URLS.js}"></script></body>`);
    expect(plan.html).toContain(`${PAGE_URLS.client}"></script></head>`);
  });

  it("no entry at all", async () => {
    dir = await mkdtemp(join(tmpdir(), "mpsync-page-"));
    expect(planPage(dir).entry).toBeUndefined();
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
