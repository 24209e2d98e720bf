import { describe, expect, it } from "vitest";
import { afterPulledVersion } from "./dev-preview.js";

describe("how the page shows a pulled version", () => {
  it.each([
    { written: [], next: "nothing" },
    { written: ["App.tsx"], next: "reload" },
    { written: ["App.tsx", "components/Button.tsx", "index.css"], next: "reload" },
    { written: ["App.tsx", "package.json"], next: "restart" },
    { written: ["tailwind.config.js"], next: "restart" },
    { written: ["postcss.config.cjs", "index.css"], next: "restart" },
  ] as const)("$written -> $next", ({ written, next }) => {
    expect(afterPulledVersion(written)).toBe(next);
  });
});
