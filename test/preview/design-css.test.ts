/**
 * The design's stylesheet plugins: Tailwind v3 with the design's config (its requires resolved
 * from the design's package folder, never the synced folder), the design's own PostCSS config,
 * and a design written for Tailwind v4 told in one line.
 */
import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { designCss, tailwindV4Sign } from "../../src/preview/design-css.js";
import { NpmInstaller } from "../../src/preview/package-installer.js";
import { loadToolchain } from "../../src/preview/toolchain.js";

let dir: string | undefined;
afterEach(async () => {
  if (dir !== undefined) await rm(dir, { recursive: true, force: true });
});

async function design(files: Record<string, string>): Promise<string> {
  dir = await mkdtemp(join(tmpdir(), "mpsync-css-"));
  for (const [rel, text] of Object.entries(files)) {
    await mkdir(join(dir, rel, ".."), { recursive: true });
    await writeFile(join(dir, rel), text);
  }
  return dir;
}

const names = (plugins: object[]): string[] => plugins.map((p) => String((p as { postcssPlugin?: string }).postcssPlugin));

describe("designCss", () => {
  it("the scaffold: Tailwind with its config, then Autoprefixer", async () => {
    const root = await design({ "tailwind.config.js": "export default { content: ['./**/*.tsx'] };\n", "index.css": "@import 'tailwindcss/base';\n" });
    const tools = await loadToolchain({ cacheDir: undefined, installer: new NpmInstaller() });
    const css = await designCss({ root, tools, packagesDir: root, tailwindMajor: undefined, fetch: undefined });
    expect(names(css.plugins)).toEqual(["tailwindcss", "autoprefixer"]);
    expect(css.problems).toEqual([]);
    css.dispose();
  });

  it("a design's PostCSS config decides the plugins; a plugin its package.json does not name is said", async () => {
    const root = await design({ "postcss.config.js": "module.exports = { plugins: { tailwindcss: {}, autoprefixer: false } };\n" });
    const tools = await loadToolchain({ cacheDir: undefined, installer: new NpmInstaller() });
    const css = await designCss({ root, tools, packagesDir: root, tailwindMajor: 3, fetch: undefined });
    expect(names(css.plugins)).toEqual(["tailwindcss"]);
    css.dispose();
    await writeFile(join(root, "tailwind.config.js"), 'module.exports = { plugins: [require("tailwindcss-nope")] };\n');
    await expect(designCss({ root, tools, packagesDir: root, tailwindMajor: 3, fetch: undefined })).rejects.toThrow(
      'a config of the design requires "tailwindcss-nope", which its package.json does not name: add it there',
    );
  });

  it("a design written for Tailwind v4 is one line saying so and what to do", async () => {
    const root = await design({ "src/index.css": '@import "tailwindcss";\n@theme { --color-brand: #123456; }\n' });
    expect(tailwindV4Sign(root, undefined)).toBe('index.css uses @import "tailwindcss"');
    expect(tailwindV4Sign(root, 4)).toBe("package.json names tailwindcss 4");
    const tools = await loadToolchain({ cacheDir: undefined, installer: new NpmInstaller() });
    const css = await designCss({ root, tools, packagesDir: root, tailwindMajor: undefined, fetch: undefined });
    expect(names(css.plugins)).toEqual(["autoprefixer"]);
    expect(css.problems).toEqual([expect.stringMatching(/^this design is written for Tailwind CSS v4 .*add "@tailwindcss\/postcss" to its package\.json/)]);
    css.dispose();
  });
});
