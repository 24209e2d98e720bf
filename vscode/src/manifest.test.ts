import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";

const manifest = JSON.parse(readFileSync(join(import.meta.dirname, "../package.json"), "utf8")) as {
  main: string;
  activationEvents: string[];
  contributes: { commands: { command: string; title: string; category: string }[]; menus: { commandPalette: { command: string; when: string }[] } };
};

describe("the extension's manifest", () => {
  it("offers exactly these palette titles (the code actions' resolve commands stay out of the palette)", () => {
    const hidden = new Set(manifest.contributes.menus.commandPalette.filter((m) => m.when === "false").map((m) => m.command));
    const titles = manifest.contributes.commands.filter((c) => !hidden.has(c.command)).map((c) => `${c.category}: ${c.title}`);
    expect(titles).toEqual([
      "mpsync: Sync Now",
      "mpsync: Pause",
      "mpsync: Resume",
      "mpsync: Open Preview",
      "mpsync: Show Status",
      "mpsync: Restore File...",
      "mpsync: Start Sync",
    ]);
  });
  it("activates in a workspace holding a .syncrc and loads the bundle", () => {
    expect(manifest.activationEvents).toContain("workspaceContains:.syncrc");
    expect(manifest.main).toBe("./out/extension.cjs");
  });
});
