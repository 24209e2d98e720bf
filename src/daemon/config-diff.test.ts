import { describe, expect, it } from "vitest";
import { syncrcSchema } from "../config/schema.js";
import type { ResolvedConfig } from "../config/load-config.js";
import { describeReload, planReload, type MappingRef } from "./config-diff.js";

// Labels as the daemon's working directory /p/site sees them: the line names folders by them, not by dir.
const web: MappingRef = { dir: "web", design: "aaaaaaaaaaaaaaaaaaaaaa", root: "/p/web", label: "../web" };
const docs: MappingRef = { dir: "docs", design: "bbbbbbbbbbbbbbbbbbbbbb", root: "/p/docs", label: "../docs" };

function config(over: Record<string, unknown> = {}, designs: MappingRef[] = [web]): ResolvedConfig {
  // Parsed for its defaults; the mappings are the test's (planReload takes them as given).
  const parsed = syncrcSchema.parse({ baseUrl: "http://127.0.0.1:9/api", designs: [{ dir: web.dir, design: web.design }], ...over });
  return { ...parsed, designs: designs.map((d) => ({ dir: d.dir, design: d.design, root: d.root })) } as ResolvedConfig;
}

describe("planReload", () => {
  it.each<[string, ResolvedConfig, MappingRef[], string | undefined]>([
    ["nothing changed", config(), [web], undefined],
    ["a new mapping starts", config({}, [web, docs]), [web, docs], "reloaded .syncrc: started ../docs"],
    ["a removed mapping stops", config({}, []), [], "reloaded .syncrc: stopped ../web"],
    [
      "another design in the same folder restarts it",
      config({}, [{ ...web, design: "cccccccccccccccccccccc" }]),
      [{ ...web, design: "cccccccccccccccccccccc" }],
      "reloaded .syncrc: restarted the sync of ../web to apply its design",
    ],
    [
      "a folder setting restarts every running folder",
      config({ git: { commitOnPull: true }, debounceMs: 500 }),
      [web],
      "reloaded .syncrc: restarted the sync of ../web to apply debounceMs, git.commitOnPull",
    ],
    [
      "poll interval and concurrency apply in place",
      config({ pollIntervalSec: 5, concurrency: 2 }),
      [web],
      "reloaded .syncrc: applied pollIntervalSec, concurrency",
    ],
    ["keepBackupsDays applies in place (the next prune, at once)", config({ keepBackupsDays: 7 }), [web], "reloaded .syncrc: applied keepBackupsDays"],
    [
      "baseUrl and logLevel need a restart, and it says so",
      config({ logLevel: "debug" }),
      [web],
      "reloaded .syncrc: logLevel takes effect when mpsync watch is restarted",
    ],
  ])("%s", (_name, after, wanted, line) => {
    expect(describeReload(planReload(config(), after, [web], wanted))).toBe(line);
  });
});
