import { describe, expect, it } from "vitest";
import { candidatesFor, relativeImports, unresolvedImports } from "./import-graph.js";

describe("relativeImports", () => {
  it("finds every kind of relative import, resolved against the importer's folder", () => {
    const text = [
      `import React from "react";`,
      `import { Faq } from "./Faq";`,
      `import type { Item } from '../lib/types';`,
      `export * from "./parts/index.js";`,
      `import "./faq.css";`,
      `const Lazy = React.lazy(() => import("./Lazy"));`,
      `const x = require("../data/x.json");`,
    ].join("\n");
    expect(relativeImports("components/Section.tsx", text).map((i) => i.target)).toEqual([
      "components/Faq",
      "lib/types",
      "components/parts/index.js",
      "components/faq.css",
      "components/Lazy",
      "data/x.json",
    ]);
  });

  it("reads CSS @import in both forms and ignores imports that leave the root or are bare", () => {
    const css = `@import "./base.css";\n@import url(./theme.css);\n@import url("https://fonts.example/x.css");`;
    expect(relativeImports("styles/main.css", css).map((i) => i.target)).toEqual(["styles/base.css", "styles/theme.css"]);
    expect(relativeImports("App.tsx", `import x from "../outside";\nimport y from "lodash";`)).toEqual([]);
  });

  it("reads no imports from files that cannot hold them", () => {
    expect(relativeImports("README.md", `import x from "./y";`)).toEqual([]);
  });
});

describe("candidatesFor", () => {
  it.each([
    ["components/Faq.tsx", ["components/Faq.tsx"]],
    ["lib/x.js", ["lib/x.js", "lib/x.ts", "lib/x.tsx"]],
    [
      "styles.css",
      [
        "styles.css",
        "styles.css.tsx",
        "styles.css.ts",
        "styles.css.jsx",
        "styles.css.js",
        "styles.css/index.tsx",
        "styles.css/index.ts",
        "styles.css/index.jsx",
        "styles.css/index.js",
      ],
    ],
    ["lib", ["lib.tsx", "lib.ts", "lib.jsx", "lib.js", "lib/index.tsx", "lib/index.ts", "lib/index.jsx", "lib/index.js"]],
  ])("%s", (target, expected) => {
    expect(candidatesFor(target)).toEqual(expected);
  });
});

describe("unresolvedImports", () => {
  it("names each import no file satisfies, once, with its first importer", () => {
    const files = new Map([
      ["App.tsx", `import { A } from "./components/A";\nimport { G } from "./components/Ghost";\nimport "./index.css";`],
      ["components/A.tsx", `import { G } from "./Ghost";\nimport { l } from "../lib";`],
      ["lib/index.ts", "export const l = 1;"],
      ["index.css", ""],
    ]);
    expect(unresolvedImports(files).map(({ target, from }) => ({ target, from }))).toEqual([{ target: "components/Ghost", from: "App.tsx" }]);
  });
});
