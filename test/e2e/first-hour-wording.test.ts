/**
 * The lines a newcomer reads in the first hour, through the built CLI, compared whole: pushed and
 * pulled lines name their files, a conflict that wrote no marker says so, quoted lines carry no
 * JSON escapes, the restore sentence has no padding, the poll floor of the service in use, the
 * zsh completion header, and one trailer spelling for both kinds of design commit.
 */
import { spawn, execFileSync } from "node:child_process";
import { createInterface } from "node:readline";
import { writeFile } from "node:fs/promises";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { spawnWatch, type DaemonProcess } from "../daemon/daemon-process.js";
import { BIN, seedDesign, startWorld, type E2eWorld } from "./helpers.js";

let world: E2eWorld;
let editorId: string;
let daemon: DaemonProcess | undefined;

beforeEach(async () => {
  world = await startWorld();
  editorId = seedDesign(world, { "App.tsx": "export default 1;\n", "logo.svg": "<svg></svg>\n", "index.css": `p { content: "a"; }\n` }).editorId;
  await world.writeSyncrc({ designs: [{ dir: "site", design: editorId }], pollIntervalSec: 0.05, remoteCheckSec: 0.05, debounceMs: 50 });
  expect((await world.run(["pull"])).code).toBe(0);
});
afterEach(async () => {
  daemon?.child.kill("SIGTERM");
  await daemon?.exited;
  daemon = undefined;
  await world.close();
});

describe("watch", () => {
  it("pushed and pulled lines name the files; a conflict that wrote no marker says so", async () => {
    daemon = spawnWatch(world.cwd, world.env);
    await daemon.waitFor((e) => e["event"] === "ready");
    await writeFile(join(world.cwd, "site", "App.tsx"), "export default 2;\n");
    const pushed = await daemon.waitFor((e) => e["event"] === "pushed");
    expect(pushed["message"]).toBe("pushed App.tsx");

    world.emulator.control.editFile(editorId, "index.css", "p { color: red; }\n");
    const pulled = await daemon.waitFor((e) => e["event"] === "pulled");
    expect(pulled["message"]).toBe("pulled index.css");

    // A synced text file replaced by binary bytes here, and edited in the web editor.
    const since = daemon.events.length;
    await writeFile(join(world.cwd, "site", "logo.svg"), Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x00, 0x01, 0x02]));
    world.emulator.control.editFile(editorId, "logo.svg", "<svg><g/></svg>\n");
    const conflict = await daemon.waitFor((e) => e["event"] === "conflict", { since });
    expect(conflict["message"]).toBe(
      "conflict in logo.svg: your file is kept as it is and not pushed, no markers written; the service's side is in .mpsync/conflicts/ (mpsync resolve logo.svg --theirs takes it)",
    );
  });

  it("a person's line is the arrow, the verb and the files", async () => {
    const child = spawn(process.execPath, [BIN, "watch"], { cwd: world.cwd, env: world.env, stdio: ["ignore", "pipe", "pipe"] });
    const lines: string[] = [];
    const waiting = new Set<() => void>();
    createInterface({ input: child.stdout }).on("line", (l) => {
      lines.push(l);
      for (const w of [...waiting]) w();
    });
    const seen = (re: RegExp): Promise<string> =>
      new Promise((resolve) => {
        const check = (): void => {
          const hit = lines.find((l) => re.test(l));
          if (hit === undefined) return;
          waiting.delete(check);
          resolve(hit);
        };
        waiting.add(check);
        check();
      });
    const ready = seen(/watching/);
    await ready;
    const pushed = seen(/pushed/);
    await writeFile(join(world.cwd, "site", "App.tsx"), "export default 3;\n");
    expect(await pushed).toMatch(/^\d\d:\d\d:\d\d site ↑ pushed App\.tsx$/);
    child.kill("SIGTERM");
    await new Promise((resolve) => child.on("exit", resolve));
  });
});

it("restore quotes a line as the file has it and says which copy it put back in one sentence", async () => {
  world.emulator.control.editFile(editorId, "index.css", `p { content: "b"; }\n`);
  expect((await world.run(["pull"])).code).toBe(0);
  const refused = await world.run(["restore", "site/index.css"]);
  expect(refused.code).toBe(1);
  expect(refused.stderr.split("\n")[0]).toMatch(
    /^! not restored: this copy of index\.css \(backup: replaced or removed by sync, saved \d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z\) lacks 1 line of the last synced version, first "p \{ content: "b"; \}"; the next push would take them away on the service too$/,
  );
  const restored = await world.run(["restore", "site/index.css", "--force"]);
  expect(restored.stdout.split("\n")[0]).toMatch(
    /^✓ restored index\.css in site \(backup: replaced or removed by sync, saved \d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z\)$/,
  );
});

it("a pollIntervalSec below the floor names the floor of the service in use", async () => {
  await world.writeSyncrc({ designs: [{ dir: "site", design: editorId }], pollIntervalSec: 0.01 });
  const real = await world.run(["status"], { env: { MPSYNC_BASE_URL: undefined } });
  expect(real.stderr.split("\n")[0]).toBe(
    "error: .syncrc: pollIntervalSec: expected a number from 60 to 86400 for https://api.magicpatterns.com/api (only a loopback address accepts 0.05 and up), got 0.01",
  );
  const emulated = await world.run(["status"]);
  expect(emulated.stderr.split("\n")[0]).toBe(`error: .syncrc: pollIntervalSec: expected a number from 0.05 to 86400 for ${world.emulator.baseUrl}, got 0.01`);
});

it("completion zsh says zsh", async () => {
  const zsh = await world.run(["completion", "zsh"]);
  expect(zsh.stdout.split("\n").slice(0, 2)).toEqual([
    "# mpsync completion (zsh): source <(mpsync completion zsh)",
    "autoload -U +X bashcompinit && bashcompinit",
  ]);
  const bash = await world.run(["completion", "bash"]);
  expect(bash.stdout.split("\n")[0]).toBe("# mpsync completion (bash): source <(mpsync completion bash)");
});

it("commit on pull and history export write the same git trailers", async () => {
  const git = (...args: string[]): string => execFileSync("git", args, { cwd: world.cwd, encoding: "utf8" }).trim();
  git("init", "-q", "-b", "main");
  git("config", "user.email", "t@example.com");
  git("config", "user.name", "T");
  await writeFile(join(world.cwd, ".gitignore"), "site/.mpsync/\n");
  git("add", ".");
  git("commit", "-q", "-m", "start");
  await world.writeSyncrc({ designs: [{ dir: "site", design: editorId }], pollIntervalSec: 0.05, git: { commitOnPull: true } });
  world.emulator.control.setFiles(
    editorId,
    { ...world.emulator.control.getFiles(editorId), "App.tsx": "export default 9;\n" },
    { newArtifact: true, title: "Nine" },
  );
  expect((await world.run(["pull"])).code).toBe(0);
  expect((await world.run(["history", "export"])).code).toBe(0);
  const artifactId = world.emulator.control.activeArtifactId(editorId);
  const trailers = `Editor-Id: ${editorId}\nArtifact-Id: ${artifactId}`;
  expect(git("log", "-1", "--format=%(trailers)", "main")).toBe(trailers);
  expect(git("log", "-1", "--format=%(trailers)", "design-history")).toBe(trailers);
});
