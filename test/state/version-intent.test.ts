import { mkdir, mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { recordVersionIntent, takeVersionIntents } from "../../src/state/version-intent.js";

const h = (c: string): string => `sha256:${c.repeat(64)}`;
let root: string;
beforeEach(async () => {
  root = await mkdtemp(join(tmpdir(), "mpsync-intent-"));
  await mkdir(join(root, ".mpsync"));
});
afterEach(() => rm(root, { recursive: true, force: true }));

const state = (more: object): Promise<void> => writeFile(join(root, ".mpsync", "state.json"), JSON.stringify(more));

describe("asked.json: what had gone out when the user asked for a version", () => {
  it("a checkout lists our texts sent with no answer (replaced ones and the one in flight) beside the answered", async () => {
    await state({
      landed: { "App.tsx": { hash: h("a") } },
      unanswered: { "index.css": [h("b")] },
      pendingPush: { "index.css": { hash: h("c"), previous: null, sent: true }, "x.ts": { hash: h("d"), previous: null } },
    });
    await recordVersionIntent(root, "checkout", 1);
    const [intent] = await takeVersionIntents(root);
    expect(intent).toMatchObject({ kind: "checkout", landed: { "App.tsx": h("a") }, unanswered: { "index.css": [h("b"), h("c")] } });
  });

  it("a prompt lists only the answered: a request landing after it on the new version is still ours, late", async () => {
    await state({ landed: { "App.tsx": { hash: h("a") } }, unanswered: { "index.css": [h("b")] } });
    await recordVersionIntent(root, "prompt", 1);
    const [intent] = await takeVersionIntents(root);
    expect(intent?.unanswered).toBeUndefined();
  });

  it("nothing sent: nothing recorded", async () => {
    await state({});
    await recordVersionIntent(root, "checkout", 1);
    await expect(readFile(join(root, ".mpsync", "asked.json"))).rejects.toThrow();
  });
});
