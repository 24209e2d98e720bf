/**
 * `mpsync history export` through the built CLI when versions added and removed files: the
 * API lists only the active version's files, so a file only a past version held is found by
 * following that version's imports; an import nothing satisfies is named in one warning per
 * version, and the last line says how many commits lack files.
 */
import { execFileSync } from "node:child_process";
import { writeFile } from "node:fs/promises";
import { join } from "node:path";
import { afterEach, beforeEach, expect, it } from "vitest";
import { seedDesign, startWorld, type E2eWorld } from "./helpers.js";

let world: E2eWorld;
beforeEach(async () => {
  world = await startWorld();
});
afterEach(async () => world.close());

function git(...args: string[]): string {
  return execFileSync("git", args, { cwd: world.cwd, encoding: "utf8", env: { ...world.env, GIT_CONFIG_NOSYSTEM: "1" } }).trim();
}

const V1 = {
  "App.tsx": `import { Header } from "./components/Header";\nimport "./styles.css";\nexport default function App() {\n  return <Header />;\n}\n`,
  "components/Header.tsx": `export function Header() {\n  return <h1>Hi</h1>;\n}\n`,
  "styles.css": "body { margin: 0; }\n",
};

// Three CLI runs and eight git commands: more than the default 30 s on a loaded machine.
it("follows each version's imports to the files only it held, and names what none holds", { timeout: 90_000 }, async () => {
  const { editorId } = seedDesign(world, V1);
  const control = world.emulator.control;
  control.setFiles(
    editorId,
    {
      ...V1,
      "App.tsx": `import { Header } from "./components/Header";\nimport { AddAFaq } from "./components/AddAFaq";\nimport "./styles.css";\nexport default function App() {\n  return <><Header /><AddAFaq /></>;\n}\n`,
      "components/AddAFaq.tsx": `import { questions } from "../lib";\nimport "./faq.css";\nexport function AddAFaq() {\n  return <dl>{questions.length}</dl>;\n}\n`,
      "components/faq.css": "dl { color: red; }\n",
      "lib/index.ts": `export const questions = ["why?"];\n`,
    },
    { newArtifact: true, title: "Add a FAQ" },
  );
  control.setFiles(editorId, { ...V1, "App.tsx": `import { Ghost } from "./components/Ghost";\n${V1["App.tsx"]}` }, { newArtifact: true, title: "Haunted" });
  control.setFiles(editorId, V1, { newArtifact: true, title: "Back to v1" });
  git("init", "-q", "-b", "main");
  git("config", "user.email", "t@example.com");
  git("config", "user.name", "T");
  await world.writeSyncrc({ designs: [{ dir: "site", design: editorId }], pollIntervalSec: 0.05 });
  await writeFile(join(world.cwd, ".gitignore"), "site/.mpsync/\n");
  expect((await world.run(["pull"])).code).toBe(0);

  const run = await world.run(["history", "export"]);

  expect(run.code, run.stderr).toBe(0);
  expect(run.stderr.split("\n")).toEqual([
    "! v3: its commit lacks components/Ghost (imported by App.tsx): no such file in that version",
    "! added 4 commits to design-history, 1 of them lacking imported files (above); files under site/",
    "",
  ]);
  const v2 = git("ls-tree", "-r", "--name-only", "design-history~2").split("\n");
  expect(v2).toEqual([
    "site/App.tsx",
    "site/components/AddAFaq.tsx",
    "site/components/Header.tsx",
    "site/components/faq.css",
    "site/lib/index.ts",
    "site/styles.css",
  ]);
  expect(git("ls-tree", "-r", "--name-only", "design-history").split("\n")).toEqual(["site/App.tsx", "site/components/Header.tsx", "site/styles.css"]);

  const json = world.readJson<{ incomplete: unknown }>((await world.run(["history", "export", "--json", "--into", "again"])).stdout);
  expect(json.incomplete).toEqual([{ versionLabel: "v3", missing: [{ target: "components/Ghost", from: "App.tsx" }] }]);
});
