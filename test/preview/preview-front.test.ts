/**
 * The preview's address: it answers before Vite exists (a page saying what it waits for, or
 * why the preview is unavailable), a busy default port falls back to any free one, and a busy
 * port asked for by number is refused with a line naming --port 0.
 */
import { afterEach, describe, expect, it } from "vitest";
import { listenOn } from "../../src/app/dev.js";
import { PreviewFront } from "../../src/preview/preview-front.js";

const fronts: PreviewFront[] = [];
const front = (): PreviewFront => {
  const f = new PreviewFront();
  fronts.push(f);
  return f;
};
afterEach(async () => {
  await Promise.all(fronts.splice(0).map((f) => f.close().catch(() => undefined)));
});

describe("PreviewFront", () => {
  it("says what the preview waits for, then why it is unavailable, before Vite runs", async () => {
    const f = front();
    const port = await f.listen(0);
    f.status({ phase: "preparing", message: "installing the design's packages (3 s)" });
    const waiting = await fetch(`http://127.0.0.1:${port}/`);
    expect(waiting.status).toBe(503);
    expect(await waiting.text()).toContain("installing the design's packages (3 s)");
    f.status({ phase: "unavailable", message: "preview unavailable: npm install failed: ENOTFOUND registry.npmjs.org" });
    const text = await (await fetch(`http://127.0.0.1:${port}/`)).text();
    expect(text).toContain('data-mpsync-status="unavailable"');
    expect(text).toContain("ENOTFOUND");
    f.attach((_req, res) => res.end("vite"));
    expect(await (await fetch(`http://127.0.0.1:${port}/`)).text()).toBe("vite");
  });

  it("a busy default port falls back to any free one; a busy port asked for names --port 0", async () => {
    const busy = await front().listen(0);
    const fallback = await listenOn(front(), undefined, busy);
    expect(fallback).not.toBe(busy);
    const err = await listenOn(front(), busy, 5180).then(
      () => undefined,
      (e: unknown) => e as Error & { code?: string; hint?: string },
    );
    expect(err?.code).toBe("USAGE");
    expect(`${err?.message}; ${err?.hint}`).toMatch(/port \d+ is in use.*--port 0/);
  });
});
