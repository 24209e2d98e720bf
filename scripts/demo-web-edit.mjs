#!/usr/bin/env node
/**
 * `.demo/web-edit PATH [LINE]` (written by `npm run demo`): a teammate's edit in the web editor,
 * played through the demo emulator's control routes. Appends LINE (default: a comment with the
 * time) to PATH in the design's active version, which moves no version: the running daemon
 * finds it at its next content check (within `remoteCheckSec`, 5 s in the demo). Edit the same
 * line locally first and the two edits meet as a conflict.
 *
 * Environment (set by the wrapper): MPSYNC_BASE_URL, the emulator's `.../api` address, and
 * DEMO_EDITOR_ID, the demo design.
 */
const [path, line = `// edited in the web editor at ${new Date().toTimeString().slice(0, 8)}`] = process.argv.slice(2);
const baseUrl = process.env.MPSYNC_BASE_URL ?? "";
const editorId = process.env.DEMO_EDITOR_ID ?? "";

async function main() {
  if (path === undefined || baseUrl === "" || editorId === "") {
    throw new Error("usage: .demo/web-edit PATH [LINE] (run it from the folder of npm run demo, while the demo runs)");
  }
  const control = `${baseUrl.replace(/\/api\/?$/, "")}/__control/designs/${encodeURIComponent(editorId)}`;
  const files = (await call(`${control}/files`)).files;
  const name = path.replace(/^(\.\/)?demo-design\//, "");
  const old = files[name];
  if (old === undefined) throw new Error(`${name} is not in the design (it holds ${Object.keys(files).sort().join(", ")})`);
  const content = `${old}${old === "" || old.endsWith("\n") ? "" : "\n"}${line}\n`;
  await call(`${control}/edit-file`, { name, content });
  console.log(`edited ${name} in the web editor: appended "${line}"; the daemon pulls it at its next check`);
}

async function call(url, body) {
  let res;
  try {
    res = await globalThis.fetch(
      url,
      body === undefined ? {} : { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(body) },
    );
  } catch {
    throw new Error(`the demo emulator does not answer at ${baseUrl}: is npm run demo still running?`);
  }
  if (!res.ok) throw new Error(`the demo emulator answered ${res.status}: ${await res.text()}`);
  return res.json();
}

main().catch((err) => {
  console.error(`web-edit: ${err instanceof Error ? err.message : String(err)}`);
  process.exitCode = 1;
});
