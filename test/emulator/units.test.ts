import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { compileFiles, loaderFor } from "../../src/emulator/compile.js";
import { PollLimiter } from "../../src/emulator/poll-limit.js";
import { applyPromptEdits, componentNameFor } from "../../src/emulator/prompt-edits.js";
import { matchRoute } from "../../src/emulator/router.js";
import { scaffoldFiles } from "../../src/emulator/scaffold.js";
import { parseDesignUrl } from "../../src/emulator/url-resolution.js";

const hosts = { appUrl: "https://www.magicpatterns.com", publishedHost: "magicpatterns.app" };

describe("prompt edits", () => {
  it("names components from the first three words", () => {
    expect(componentNameFor("add a PRICING table now")).toBe("AddAPricing");
    expect(componentNameFor("3 columns")).toBe("Section3Columns");
    expect(componentNameFor("!!!")).toBe("Generated");
  });

  it("is deterministic and always yields compiling code", async () => {
    await fc.assert(
      fc.asyncProperty(fc.string({ minLength: 1, maxLength: 60 }), async (prompt) => {
        const base = scaffoldFiles("Demo");
        const once = applyPromptEdits(base, prompt);
        expect(applyPromptEdits(base, prompt)).toEqual(once);
        expect(await compileFiles(once.files)).toEqual({ ok: true });
      }),
      { numRuns: 25 },
    );
  });

  it("leaves a user-rewritten App.tsx alone", () => {
    const result = applyPromptEdits(new Map([["App.tsx", "mine"]]), "Add header");
    expect(result.files.get("App.tsx")).toBe("mine");
    expect(result.summary).toBe("Added components/AddHeader.tsx");
  });
});

describe("url parsing", () => {
  it("reads the three shapes and rejects others", () => {
    expect(parseDesignUrl("https://www.magicpatterns.com/c/abc/screens", hosts)).toEqual({ kind: "editor", editorId: "abc" });
    expect(parseDesignUrl("https://project-my-app-1.magicpatterns.app/x", hosts)).toEqual({ kind: "published", slug: "my-app-1" });
    expect(parseDesignUrl("project-my-app-1.magicpatterns.app", hosts)).toEqual({ kind: "published", slug: "my-app-1" });
    expect(parseDesignUrl("https://www.magicpatterns.com/s/cv1?nodeIds=n1,n2", hosts)).toEqual({ kind: "canvas", canvasId: "cv1", nodeId: "n1" });
    expect(parseDesignUrl("https://www.magicpatterns.com/pricing", hosts)).toBeUndefined();
    expect(parseDesignUrl("ftp://www.magicpatterns.com/c/abc", hosts)).toBeUndefined();
    expect(parseDesignUrl("https://www.magicpatterns.com/c/%zz", hosts)).toBeUndefined();
    expect(() => parseDesignUrl("not a url", hosts)).toThrow(/not a valid URL/);
  });
});

describe("router, compile, poll limiter", () => {
  it("matches literal segments and parameters, and reports the allowed methods", () => {
    const routes = [
      { method: "GET", pattern: "/v3/designs/:editorId/status", handler: "status" },
      { method: "POST", pattern: "/v3/designs/resolve-url", handler: "resolve" },
    ];
    expect(matchRoute(routes, "GET", "/v3/designs/a%2Fb/status")).toEqual({ kind: "found", handler: "status", params: { editorId: "a/b" } });
    expect(matchRoute(routes, "GET", "/v3/designs/resolve-url")).toEqual({ kind: "method-not-allowed", allowed: ["POST"] });
    expect(matchRoute(routes, "GET", "/v3/designs/x/status/extra")).toEqual({ kind: "not-found" });
  });

  it("picks loaders by extension and reports 1-based columns", async () => {
    expect(loaderFor("a/b.TSX")).toBe("tsx");
    expect(loaderFor("README.md")).toBeUndefined();
    expect(
      await compileFiles(
        new Map([
          ["ok.css", "a{}"],
          ["x.ts", "const = 1;"],
        ]),
      ),
    ).toEqual({ ok: false, error: 'x.ts:1:7: Expected identifier but found "="' });
  });

  it("limits polls per owner and design, rounding Retry-After up", () => {
    const limiter = new PollLimiter(60_000);
    expect(limiter.check("o", "d", 1_000)).toBeUndefined();
    expect(limiter.check("o", "d", 1_500)).toBe(60);
    expect(limiter.check("o", "d", 60_001)).toBe(1);
    expect(limiter.check("other", "d", 1_500)).toBeUndefined();
    expect(limiter.check("o", "d", 61_000)).toBeUndefined();
  });
});
