/** The folder rule (config/mappings.ts): which mappings a command acts on. */
import { describe, expect, it } from "vitest";
import { folderLabel, mappingAt, selectMappings, type Mapping } from "../../src/config/mappings.js";

const home = "/home/u/project";
const web: Mapping = { dir: "web", design: "a", root: `${home}/web`, label: "web" };
const nested: Mapping = { dir: "web/admin", design: "b", root: `${home}/web/admin`, label: "web/admin" };
const docs: Mapping = { dir: "docs/", design: "c", root: `${home}/docs`, label: "docs" };
const all = [web, nested, docs];

describe("the folder rule", () => {
  it.each([
    ["outside every folder: all of them", home, all],
    ["inside a folder: that one", `${home}/web/src`, [web]],
    ["inside nested folders: the deepest", `${home}/web/admin/x`, [nested]],
    ["a sibling whose name starts alike is not inside", `${home}/website`, all],
  ])("%s", (_name, cwd, expected) => {
    expect(selectMappings(all, [], cwd, `${home}/.syncrc`)).toEqual(expected);
  });

  it("takes a folder as tab completion or a script gives it", () => {
    for (const name of ["web", "web/", "./web/", `${home}/web`, "docs"]) {
      expect(selectMappings(all, [name], home, `${home}/.syncrc`)[0]?.dir).toBe(name.includes("docs") ? "docs/" : "web");
    }
    expect(mappingAt(all, `${home}/docs`)).toBe(docs);
  });

  it("a name that maps nothing is a usage error listing the mapped folders", () => {
    expect(() => selectMappings(all, ["api"], home, `${home}/.syncrc`)).toThrow(
      expect.objectContaining({ code: "USAGE", message: `api is not a mapped folder in ${home}/.syncrc`, hint: "mapped: web, web/admin, docs" }),
    );
  });
});

describe("folderLabel: how every line a person reads names a mapped folder", () => {
  it.each([
    ["/p/site", "/p", "site"],
    ["/p/site", "/p/site", "."],
    ["/p/demo-design", "/p/.demo", "../demo-design"],
    ["/p/a/b", "/p/x/y", "../../a/b"],
  ])("%s seen from %s: %s", (root, cwd, label) => {
    expect(folderLabel(root, cwd)).toBe(label);
  });
});
