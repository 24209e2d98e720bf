/**
 * A slow writer (a generator run as `node gen.js > App.tsx`, an editor saving in chunks) keeps
 * writing through the descriptor it opened while a web edit of the same file arrives and the
 * running `watch` replaces the file. The writer's text must end in the working file or a
 * conflict copy, and be said; never only in the orphaned old file. The writer is a real process
 * writing through one descriptor; each of its steps waits for the daemon's event, not a clock.
 */
import { spawn, type ChildProcess } from "node:child_process";
import { readdir, readFile } from "node:fs/promises";
import { join } from "node:path";
import { conflictSideName } from "../../src/local/recovery-layout.js";
import { createInterface } from "node:readline";
import { afterEach, describe, expect, it } from "vitest";
import { lines } from "../support/harness.js";
import { useWatches } from "../support/watch-harness.js";

const watches = useWatches();
let writer: ChildProcess | undefined;
afterEach(() => {
  writer?.kill("SIGKILL");
  writer = undefined;
});

/**
 * A writer process: opens `file` for writing (truncating it), writes `first` (maybe empty),
 * says "opened", then writes each line it reads on stdin (JSON strings) through the same
 * descriptor and says "wrote" after each; "end" closes the descriptor and exits.
 */
function startWriter(file: string, first: string): { child: ChildProcess; next(line: string): Promise<void>; end(): Promise<unknown> } {
  const script = `
    const fs = require("node:fs");
    const fd = fs.openSync(${JSON.stringify(file)}, "w");
    fs.writeSync(fd, ${JSON.stringify(first)});
    console.log("opened");
    require("node:readline").createInterface({ input: process.stdin }).on("line", (l) => {
      if (l === "end") { fs.closeSync(fd); process.exit(0); }
      fs.writeSync(fd, JSON.parse(l));
      console.log("wrote");
    });`;
  const child = spawn(process.execPath, ["-e", script], { stdio: ["pipe", "pipe", "inherit"] });
  const said: string[] = [];
  const waiters: (() => void)[] = [];
  createInterface({ input: child.stdout! }).on("line", (l) => {
    said.push(l);
    waiters.shift()?.();
  });
  let heard = 0;
  const hear = (): Promise<void> => {
    heard += 1;
    const want = heard;
    return new Promise((resolve) => (said.length >= want ? resolve() : waiters.push(resolve)));
  };
  void hear(); // "opened"
  return {
    child,
    next: async (line) => {
      child.stdin!.write(`${line}\n`);
      await hear();
    },
    end: () => {
      child.stdin!.write("end\n");
      return new Promise((resolve) => child.once("exit", resolve));
    },
  };
}

async function conflictCopies(root: string, rel: string): Promise<string[]> {
  const dir = join(root, ".mpsync", "conflicts");
  const out: string[] = [];
  for (const stamp of await readdir(dir).catch(() => [] as string[])) {
    const text = await readFile(join(dir, stamp, conflictSideName(rel, "local")), "utf8").catch(() => undefined);
    if (text !== undefined) out.push(text);
  }
  return out;
}

describe("a slow writer while a web edit of its file arrives", () => {
  for (const variant of ["truncate, pause, write", "chunked writes"] as const) {
    it(`${variant}: the writer's text ends in the working file or a conflict copy, and is said`, async () => {
      const { h, d } = await watches.start();
      const generated = lines("Generated", 30);
      const half = variant === "chunked writes" ? generated.slice(0, generated.length / 2) : "";
      const rest = generated.slice(half.length);
      // The web edit lands first; the daemon learns of it when it reads before pushing.
      h.emu.control.editFile(h.editorId, "App.tsx", h.remoteFiles()["App.tsx"]!.replace("// App line 3", "// App line 3, edited on the web"));
      const w = startWriter(join(h.root, "App.tsx"), half);
      writer = w.child;
      // The daemon took the truncated (or half-written) file for an edit: both sides changed.
      await d.waitFor((e) => e.event === "conflict" && (e.files as string[]).includes("App.tsx"));
      // Now the writer writes the rest through the descriptor it opened before the replace.
      await w.next(JSON.stringify(rest));
      const said = await d.waitFor((e) => e.event === "notice" && e.code === "LATE_WRITE");
      await w.end();
      expect(said.files).toEqual(["App.tsx"]);
      const kept = [(await h.readLocal("App.tsx")) ?? "", ...(await conflictCopies(h.root, "App.tsx"))];
      expect(kept.some((t) => t.includes(generated))).toBe(true);
      if (String(said.message).includes("is back in App.tsx")) {
        expect(await h.readLocal("App.tsx")).toBe(generated);
        // It syncs as the user's edit: pushed (the web edit's side is in the conflict copy).
        await d.waitFor((e) => e.event === "pushed" && (e.files as string[]).includes("App.tsx"));
        expect(h.remoteFiles()["App.tsx"]).toBe(generated);
      }
    });
  }

  it("the daemon stopped just after the writer's late bytes: they are recovered and said, and no held file is left", async () => {
    const { h, d } = await watches.start();
    const generated = lines("Generated", 30);
    h.emu.control.editFile(h.editorId, "App.tsx", h.remoteFiles()["App.tsx"]!.replace("// App line 3", "// App line 3, edited on the web"));
    const w = startWriter(join(h.root, "App.tsx"), "");
    writer = w.child;
    await d.waitFor((e) => e.event === "conflict" && (e.files as string[]).includes("App.tsx"));
    await w.next(JSON.stringify(generated));
    d.child.kill("SIGINT");
    expect(await d.exited).toEqual({ code: 0, signal: null });
    await w.end();
    expect(d.events.some((e) => e.event === "notice" && e.code === "LATE_WRITE")).toBe(true);
    const kept = [(await h.readLocal("App.tsx")) ?? "", ...(await conflictCopies(h.root, "App.tsx"))];
    expect(kept.some((t) => t.includes(generated))).toBe(true);
    expect((await readdir(h.root)).filter((name) => name.endsWith(".mpsync.tmp"))).toEqual([]);
  });
});
