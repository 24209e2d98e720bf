/**
 * Figure 3b: a first push of N new files of 4 KB (a folder of them copied into a mapped design
 * that already holds N other files), mpsync's engine (localChangeSet + pushPaths, what
 * `mpsync push` runs) against a minimal reference client: read every file, PATCH them in parts
 * of 4 MiB of text, one at a time. Each run pushes into a new design on the same emulator;
 * pairs alternate who goes first. The design's own N files make every new name be judged
 * against N remote names (path-jail.ts localNameJudge).
 */
import { cp, mkdir, readFile, readdir, rm, writeFile } from "node:fs/promises";
import { dirname, join, relative } from "node:path";
import { Agent, request } from "undici";
import { BENCH_KEY, makeFiles, makeHome, openOnlyDesign, withRequests } from "./fixture.mjs";
import { summarize } from "./stats.mjs";

const PART_BYTES = 4 * 1024 * 1024;
/** The files the design holds before the push: as many as are pushed, under another folder. */
const seedOf = (fileCount, bytes) => makeFiles(fileCount, bytes, "seed", 50);

async function listFiles(dir) {
  const entries = await readdir(dir, { recursive: true, withFileTypes: true });
  return entries.filter((e) => e.isFile()).map((e) => join(e.parentPath ?? e.path, e.name));
}

/** The reference: every file read, then PATCHed in parts of PART_BYTES. */
async function referencePush(baseUrl, editorId, artifactId, root) {
  const dispatcher = new Agent({ connections: 1 });
  const headers = { "x-mp-api-key": BENCH_KEY, "content-type": "application/json" };
  try {
    let part = [];
    let bytes = 0;
    const send = async () => {
      const res = await request(`${baseUrl}/v3/designs/${editorId}/artifacts/${artifactId}/files`, {
        method: "PATCH",
        headers,
        body: JSON.stringify({ files: part }),
        dispatcher,
      });
      await res.body.dump();
      if (res.statusCode !== 200) throw new Error(`reference PATCH answered ${res.statusCode}`);
      part = [];
      bytes = 0;
    };
    for (const abs of await listFiles(root)) {
      const code = await readFile(abs, "utf8");
      if (part.length > 0 && bytes + code.length > PART_BYTES) await send();
      part.push({ fileName: relative(root, abs), code });
      bytes += code.length;
    }
    if (part.length > 0) await send();
  } finally {
    await dispatcher.close();
  }
}

async function writeTree(root, files) {
  for (const [name, text] of Object.entries(files)) {
    await mkdir(dirname(join(root, name)), { recursive: true });
    await writeFile(join(root, name), text);
  }
}

/** One engine push: a new design pulled into a new home, the project copied in, then pushed. */
async function enginePush(emu, source, fileCount, seed) {
  const { editorId } = emu.control.createDesign(BENCH_KEY, { files: seed });
  const home = await makeHome(emu.baseUrl, editorId);
  try {
    const runtime = await home.runtime();
    const sync = await openOnlyDesign(runtime);
    await sync.fullSync();
    await cp(source, home.root, { recursive: true });
    const started = performance.now();
    const { result: report, requests } = await withRequests(emu.control, async () => {
      const changed = await sync.localChangeSet();
      return sync.pushPaths(changed.keys(), { seen: changed });
    });
    const ms = performance.now() - started;
    await runtime.close();
    const pushed = report?.result?.pushed.length ?? 0;
    if (pushed !== fileCount) throw new Error(`mpsync pushed ${pushed} of ${fileCount} files`);
    return { ms, patches: requests.filter((r) => r.method === "PATCH").length };
  } finally {
    await home.remove();
  }
}

async function refPush(emu, source, fileCount, seed) {
  const { editorId, artifactId } = emu.control.createDesign(BENCH_KEY, { files: seed });
  const started = performance.now();
  await referencePush(emu.baseUrl, editorId, artifactId, source);
  const ms = performance.now() - started;
  const landed = Object.keys(emu.control.getFiles(editorId)).length - Object.keys(seed).length;
  if (landed !== fileCount) throw new Error(`reference pushed ${landed} of ${fileCount} files`);
  return { ms };
}

/** `runs` pairs per size; resolves one summary per size. */
export async function benchPush(emu, { sizes, runs, bytes, tmp, log }) {
  const out = [];
  for (const fileCount of sizes) {
    const source = join(tmp, `push-source-${fileCount}`);
    const seed = seedOf(fileCount, bytes);
    await writeTree(source, makeFiles(fileCount, bytes, "src", 50));
    log(`push: first push of ${fileCount} files of ${bytes} B, ${runs} pairs (plus one warm-up), alternating order`);
    try {
      await refPush(emu, source, fileCount, seed);
      await enginePush(emu, source, fileCount, seed);
      const engine = [];
      const reference = [];
      let patches = 0;
      for (let i = 0; i < runs; i++) {
        for (const who of i % 2 === 0 ? ["engine", "ref"] : ["ref", "engine"]) {
          if (who === "ref") reference.push((await refPush(emu, source, fileCount, seed)).ms);
          else {
            const r = await enginePush(emu, source, fileCount, seed);
            engine.push(r.ms);
            patches = r.patches;
          }
        }
        log(`  pair ${i + 1}: mpsync ${Math.round(engine.at(-1))} ms, reference ${Math.round(reference.at(-1))} ms`);
      }
      out.push({
        fileCount,
        engineMs: summarize(engine),
        referenceMs: summarize(reference),
        ratio: summarize(engine.map((ms, i) => ms / reference[i])),
        patches,
      });
    } finally {
      await rm(source, { recursive: true, force: true });
    }
  }
  return out;
}
