/**
 * Chromium's path and flags have one home, scripts/chromium.mjs, which the browser tests
 * (test/support/browser.ts) and the preview bench (scripts/bench/preview.mjs) both import: a
 * flag added for one is never missing from the other. A second copy fails here, with its place.
 */
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { CHROMIUM_FLAGS } from "../../scripts/chromium.mjs";

const REPO = join(import.meta.dirname, "../..");
const HOME = "scripts/chromium.mjs";

const sources = ["scripts", "test", "src"].flatMap((top) =>
  (readdirSync(join(REPO, top), { recursive: true }) as string[])
    .filter((f) => /\.(ts|mts|mjs|js)$/.test(f) && !f.endsWith(".d.mts"))
    .map((f) => ({ name: `${top}/${f.split("\\").join("/")}`, text: readFileSync(join(REPO, top, f), "utf8") })),
);

describe("Chromium's one home", () => {
  it("no file but scripts/chromium.mjs spells a Chromium flag or its default path", () => {
    const spelled = sources.filter((f) => f.name !== HOME && /"--(no-sandbox|disable-gpu|disable-quic)"|"\/usr\/bin\/chromium"/.test(f.text));
    expect(spelled.map((f) => f.name)).toEqual([]);
    expect(CHROMIUM_FLAGS).toContain("--headless");
  });

  it("the browser tests and the preview bench launch it from there", () => {
    const text = (name: string): string => sources.find((f) => f.name === name)?.text ?? "";
    expect(text("test/support/browser.ts")).toMatch(/from "\.\.\/\.\.\/scripts\/chromium\.mjs"/);
    expect(text("scripts/bench/preview.mjs")).toMatch(/from "\.\.\/chromium\.mjs"/);
  });
});
