/** The e2e project's freshness check: stale or not from the inputs' times, and when it builds. */
import { mkdir, rm, utimes, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { BUILD_STAMP, buildIfStale, readBuildInputs, staleReason } from "../../scripts/dist-freshness.mjs";
import { useTempDirs } from "./temp-dir.js";

const T = 1_700_000_000_000;

describe("staleReason", () => {
  const rows: { name: string; stamp: number | undefined; inputs: [string, number][]; want: string | undefined }[] = [
    {
      name: "every input older than the stamp: fresh",
      stamp: T,
      inputs: [
        ["src/a.ts", T - 5],
        ["src", T - 9],
      ],
      want: undefined,
    },
    { name: "an input as old as the stamp (read by the build): fresh", stamp: T, inputs: [["src/a.ts", T]], want: undefined },
    {
      name: "an input saved after the build began: stale",
      stamp: T,
      inputs: [
        ["src/a.ts", T - 5],
        ["src/b.ts", T + 1],
      ],
      want: "src/b.ts changed after the last build",
    },
    {
      name: "names the newest of several",
      stamp: T,
      inputs: [
        ["src/a.ts", T + 3],
        ["package-lock.json", T + 7],
        ["src/c.ts", T + 1],
      ],
      want: "package-lock.json changed after the last build",
    },
    {
      name: "no stamp: stale whatever the times",
      stamp: undefined,
      inputs: [["src/a.ts", 0]],
      want: `${BUILD_STAMP} is missing (never built, or the last build failed)`,
    },
    { name: "no inputs: fresh", stamp: T, inputs: [], want: undefined },
  ];
  it.each(rows)("$name", ({ stamp, inputs, want }) => {
    expect(
      staleReason(
        stamp,
        inputs.map(([path, mtimeMs]) => ({ path, mtimeMs })),
      ),
    ).toBe(want);
  });
});

describe("on a real folder", () => {
  const tempDir = useTempDirs();

  async function repoAt(time: number): Promise<string> {
    const repo = await tempDir();
    await mkdir(join(repo, "src/sync"), { recursive: true });
    await mkdir(join(repo, "dist"));
    const files = ["src/main.ts", "src/sync/plan.ts", "src/sync/plan.test.ts", "src/sync/notes.md", "package.json"];
    for (const file of files) await writeFile(join(repo, file), "x");
    for (const path of [...files, "src/sync", "src"]) await utimes(join(repo, path), new Date(time), new Date(time));
    return repo;
  }

  async function stampAt(repo: string, time: number): Promise<void> {
    await writeFile(join(repo, BUILD_STAMP), "");
    await utimes(join(repo, BUILD_STAMP), new Date(time), new Date(time));
  }

  it("reads src's folders and its .ts files but tests, and the build files there are", async () => {
    const repo = await repoAt(T);
    const paths = (await readBuildInputs(repo)).map((i) => i.path).sort();
    expect(paths).toEqual(["package.json", "src", "src/main.ts", "src/sync", "src/sync/plan.ts"]);
  });

  it("builds once when a source changed after the stamp, and not again once the build stamped", async () => {
    const repo = await repoAt(T);
    await stampAt(repo, T + 10);
    await utimes(join(repo, "src/sync/plan.ts"), new Date(T + 20), new Date(T + 20));
    const lines: string[] = [];
    let builds = 0;
    const build = () => {
      builds += 1;
      return 0;
    };
    expect(await buildIfStale(repo, build, (l) => lines.push(l))).toBe("src/sync/plan.ts changed after the last build");
    expect(builds).toBe(1);
    expect(lines).toEqual(["dist/ is stale (src/sync/plan.ts changed after the last build): building it first (npm run build)"]);
    await stampAt(repo, T + 30);
    expect(await buildIfStale(repo, build, (l) => lines.push(l))).toBeUndefined();
    expect(builds).toBe(1);
  });

  it("sees a deleted source by its folder's time", async () => {
    const repo = await repoAt(T);
    await stampAt(repo, T + 10);
    await rm(join(repo, "src/sync/plan.ts"));
    await utimes(join(repo, "src/sync"), new Date(T + 20), new Date(T + 20));
    expect(staleReason(T + 10, await readBuildInputs(repo))).toBe("src/sync changed after the last build");
  });

  it("a failed build is one error line that says what to do", async () => {
    const repo = await repoAt(T);
    await expect(
      buildIfStale(
        repo,
        () => 2,
        () => undefined,
      ),
    ).rejects.toThrow(
      /^dist\/ is stale \(dist\/\.build-stamp is missing \(never built, or the last build failed\)\) and npm run build failed \(exit 2\): fix the build, then run the tests again$/,
    );
  });
});
