import { mkdir, readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { ConfigInvalidError } from "../../src/config/config-error.js";
import { loadConfig } from "../../src/config/load-config.js";
import { addDesignMapping, toConfigRelativeDir, writeConfig } from "../../src/config/write-config.js";
import { useTempDirs } from "../support/temp-dir.js";

const tempDir = useTempDirs();

async function designsIn(file: string): Promise<{ dir: string; design: string }[]> {
  const loaded = await loadConfig({ cwd: join(file, ".."), configPath: file, env: {} });
  return loaded.config.designs.map(({ dir, design }) => ({ dir, design }));
}

describe("writeConfig", () => {
  it("writes 2-space JSON with a final newline", async () => {
    const file = join(await tempDir(), ".syncrc");
    await writeConfig(file, { designs: [{ dir: "web", design: "abc" }] });
    expect(await readFile(file, "utf8")).toBe('{\n  "designs": [\n    {\n      "dir": "web",\n      "design": "abc"\n    }\n  ]\n}\n');
  });

  it("refuses an invalid config and writes nothing", async () => {
    const file = join(await tempDir(), ".syncrc");
    await expect(writeConfig(file, { designs: [] })).rejects.toBeInstanceOf(ConfigInvalidError);
    await expect(readFile(file)).rejects.toMatchObject({ code: "ENOENT" });
  });
});

describe("addDesignMapping", () => {
  it("creates .syncrc in cwd when none exists above", async () => {
    const cwd = await tempDir();
    const added = await addDesignMapping(join(cwd, ".syncrc"), { dir: "web", design: "abc" }, cwd);
    expect(added).toEqual({ path: join(cwd, ".syncrc"), created: true, mapping: { dir: "web", design: "abc" } });
    expect(await designsIn(added.path)).toEqual([{ dir: "web", design: "abc" }]);
  });

  it("extends the nearest .syncrc above cwd, storing dir relative to it", async () => {
    const root = await tempDir();
    await writeFile(join(root, ".syncrc"), JSON.stringify({ designs: [{ dir: "web", design: "abc" }] }, null, 2));
    const cwd = join(root, "packages", "app");
    await mkdir(cwd, { recursive: true });
    const added = await addDesignMapping(undefined, { dir: "ui", design: "def" }, cwd);
    expect(added).toEqual({ path: join(root, ".syncrc"), created: false, mapping: { dir: "packages/app/ui", design: "def" } });
    expect(await designsIn(added.path)).toEqual([
      { dir: "web", design: "abc" },
      { dir: "packages/app/ui", design: "def" },
    ]);
    expect(await readFile(added.path, "utf8")).toContain('  "designs": [\n    {\n      "dir": "web",');
  });

  it("keeps comments and layout of an existing file", async () => {
    const root = await tempDir();
    const original = [
      "// my sync settings",
      "{",
      '  "designs": [',
      "    // the marketing site",
      '    { "dir": "site", "design": "abc" }, /* keep me */',
      "  ],",
      '  "logLevel": "debug" // chatty',
      "}",
      "",
    ].join("\n");
    await writeFile(join(root, ".syncrc"), original);
    await addDesignMapping(undefined, { dir: "docs", design: "def" }, root);
    const text = await readFile(join(root, ".syncrc"), "utf8");
    for (const comment of ["// my sync settings", "// the marketing site", "/* keep me */", "// chatty"]) expect(text).toContain(comment);
    expect(await designsIn(join(root, ".syncrc"))).toEqual([
      { dir: "site", design: "abc" },
      { dir: "docs", design: "def" },
    ]);
  });

  it("a comment after the last entry stays on that entry's line; the final newline stays", async () => {
    const root = await tempDir();
    const lines = ["{", '  "designs": [', '    { "dir": "web", "design": "abc" } // the web app', "  ]", "}", ""];
    await writeFile(join(root, ".syncrc"), lines.join("\n"));
    await addDesignMapping(undefined, { dir: "docs", design: "def" }, root);
    const text = await readFile(join(root, ".syncrc"), "utf8");
    expect(text).toContain('{ "dir": "web", "design": "abc" }, // the web app\n');
    expect(text.indexOf("// the web app")).toBeLessThan(text.indexOf('"docs"'));
    expect(text.endsWith("}\n")).toBe(true);
    expect(await designsIn(join(root, ".syncrc"))).toEqual([
      { dir: "web", design: "abc" },
      { dir: "docs", design: "def" },
    ]);
  });

  it.each([
    { name: "an empty designs array", text: '{\n  "designs": []\n}\n' },
    { name: "no designs key", text: '{\n  "logLevel": "warn"\n}\n' },
    { name: "an empty object", text: "{}\n" },
    { name: "CRLF line endings", text: '{\r\n  "designs": [\r\n    { "dir": "a", "design": "b" }\r\n  ]\r\n}\r\n' },
  ])("edits a file with $name", async ({ text }) => {
    const root = await tempDir();
    await writeFile(join(root, ".syncrc"), text);
    await addDesignMapping(undefined, { dir: "new", design: "xyz" }, root);
    const designs = await designsIn(join(root, ".syncrc"));
    expect(designs.at(-1)).toEqual({ dir: "new", design: "xyz" });
    const written = await readFile(join(root, ".syncrc"), "utf8");
    if (text.includes("\r\n")) expect(written.replaceAll("\r\n", "")).not.toContain("\n");
  });

  it.each([
    { dir: "web", line: '.syncrc: designs[0]: folder "web" is already mapped to design "abc"' },
    { dir: "./web/", line: '.syncrc: designs[0]: folder "web" is already mapped to design "abc"' },
    { dir: "web/inner", line: '.syncrc: designs[1].dir: "web/inner" overlaps "web" of designs[0]: mapped folders must not nest' },
  ])("refuses $dir when web is mapped, leaving the file alone", async ({ dir, line }) => {
    const root = await tempDir();
    const text = '{ "designs": [{ "dir": "web", "design": "abc" }] }';
    await writeFile(join(root, ".syncrc"), text);
    const error = await addDesignMapping(undefined, { dir, design: "def" }, root).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ConfigInvalidError);
    expect((error as ConfigInvalidError).problems).toEqual([line]);
    expect(await readFile(join(root, ".syncrc"), "utf8")).toBe(text);
  });

  it("refuses to extend an invalid file", async () => {
    const root = await tempDir();
    await writeFile(join(root, ".syncrc"), '{ "designs": [], "colour": 1 }');
    const error = await addDesignMapping(undefined, { dir: "web", design: "abc" }, root).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ConfigInvalidError);
    expect((error as ConfigInvalidError).problems).toHaveLength(1);
    expect((error as ConfigInvalidError).problems[0]).toMatch(/^\.syncrc: unknown key "colour" \(allowed: /);
    expect(await readFile(join(root, ".syncrc"), "utf8")).toBe('{ "designs": [], "colour": 1 }');
  });

  it("computes config-relative dirs", () => {
    expect(toConfigRelativeDir("/r/a/b", "/r")).toBe("a/b");
    expect(toConfigRelativeDir("/r", "/r")).toBe(".");
    expect(toConfigRelativeDir("/x", "/r")).toBe("../x");
  });
});
