/**
 * The preview's address: it answers before Vite exists (a page saying what it waits for, or
 * why the preview is unavailable), a busy default port falls back to any free one, and a busy
 * port asked for by number is refused with a line naming --port 0.
 */
import { afterEach, describe, expect, it } from "vitest";
import { listenOn } from "../../src/app/dev.js";
import { PreviewFront, READY_PATH } from "../../src/preview/preview-front.js";

const fronts: PreviewFront[] = [];
const front = (options?: ConstructorParameters<typeof PreviewFront>[0]): PreviewFront => {
  const f = new PreviewFront(options);
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

  it("answers the status page's question 'does Vite serve yet?' with 204 until it does, then hands it to Vite", async () => {
    const f = front({ refreshSec: 7 });
    const port = await f.listen(0);
    const page = await (await fetch(`http://127.0.0.1:${port}/`)).text();
    expect(page).toContain('content="7"');
    expect(page).toContain(READY_PATH);
    expect((await fetch(`http://127.0.0.1:${port}${READY_PATH}`)).status).toBe(204);
    f.status({ phase: "unavailable", message: "preview unavailable: no registry" });
    expect(await (await fetch(`http://127.0.0.1:${port}/`)).text()).not.toContain(READY_PATH);
    const seen: string[] = [];
    f.attach((req, _res, next) => (seen.push(req.url ?? ""), next()));
    expect((await fetch(`http://127.0.0.1:${port}${READY_PATH}`)).status).toBe(404);
    expect(seen).toEqual([READY_PATH]);
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
