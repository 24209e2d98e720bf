/**
 * The bundler's freshness check on a real temp folder: a build whose files changed while it ran
 * is stale, and a change after it is seen, judged by what each file was (time and size), not by
 * the wall clock: Linux stamps a write with the last timer tick's time, which can be earlier
 * than a build that began before the write.
 */
import { mkdir, mkdtemp, rm, utimes, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { afterEach, beforeAll, describe, expect, it } from "vitest";
import { scaffoldFiles } from "../../src/emulator/scaffold.js";
import { Bundler } from "../../src/preview/bundler.js";
import { NpmInstaller } from "../../src/preview/package-installer.js";
import { TailwindCss } from "../../src/preview/tailwind-css.js";
import { loadToolchain, type Toolchain } from "../../src/preview/toolchain.js";

const APP = (text: string): string => `export function App() {\n  return <h1>${text}</h1>;\n}\n`;

/** Writes `rel` with its time set `agoMs` before now (the coarse clock's lag, exaggerated). */
async function writeBackdated(root: string, rel: string, text: string, agoMs: number): Promise<void> {
  await writeFile(join(root, rel), text);
  const then = new Date(Date.now() - agoMs);
  await utimes(join(root, rel), then, then);
}

/** A stylesheet step that runs `during` inside the build (after the bundler looked at its files). */
class HookedCss extends TailwindCss {
  during: (() => Promise<void>) | undefined;
  override async process(file: string, css: string): Promise<string> {
    await this.during?.();
    this.during = undefined;
    return super.process(file, css);
  }
}

describe("Bundler freshness", () => {
  let tools: Toolchain;
  let root: string;
  let bundler: Bundler | undefined;
  beforeAll(async () => {
    tools = await loadToolchain({ cacheDir: undefined, installer: new NpmInstaller() });
  });
  afterEach(async () => {
    await bundler?.dispose();
    await rm(dirname(root), { recursive: true, force: true });
  });

  async function start(): Promise<{ b: Bundler; css: HookedCss }> {
    root = join(await mkdtemp(join(tmpdir(), "mpsync-bundler-")), "design");
    for (const [rel, text] of scaffoldFiles("Freshness")) {
      await mkdir(dirname(join(root, rel)), { recursive: true });
      await writeFile(join(root, rel), text);
    }
    const css = new HookedCss(root, tools);
    bundler = new Bundler({ root, entry: join(root, "index.tsx"), tools, css, cache: undefined });
    expect((await bundler.build()).ok).toBe(true);
    return { b: bundler, css };
  }

  it("a build during which a file it reads was written is stale, whatever time the write carries", async () => {
    const { b, css } = await start();
    css.during = () => writeBackdated(root, "App.tsx", APP("written during the build"), 1000);
    expect((await b.build()).stale).toBe(true);
    expect((await b.build()).stale).toBe(false);
  });

  it("a write after the last build is seen, even stamped before that build", async () => {
    const { b } = await start();
    expect(await b.changedSinceBuild()).toBe(false);
    await writeBackdated(root, "App.tsx", APP("saved after the build, its change never reported"), 1000);
    expect(await b.changedSinceBuild()).toBe(true);
    const out = await b.build();
    expect(out.js).toContain("its change never reported");
    expect(await b.changedSinceBuild()).toBe(false);
  });
});
