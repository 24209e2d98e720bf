/**
 * A CPU profile of one engine pull (`node --cpu-prof scripts/bench/profile-pull.mjs N`), and
 * side-by-side times against the reference client. Prints the top functions by self time of
 * the mpsync code (the emulator runs in this process too: its frames are listed apart).
 * Used to find where a pull's time goes; `npm run bench` measures the figures.
 */
import { Session } from "node:inspector/promises";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { BENCH_KEY, makeFiles, makeHome, openOnlyDesign, startBenchEmulator } from "./fixture.mjs";
import { referencePull } from "./pull.mjs";

const count = Number(process.argv[2] ?? 2000);
const perFolder = Number(process.argv[3] ?? 50);
const emu = await startBenchEmulator();
const files = makeFiles(count, 4096, "src", perFolder);
const { editorId } = emu.control.createDesign(BENCH_KEY, { files });

async function engine(profile) {
  const home = await makeHome(emu.baseUrl, editorId);
  const runtime = await home.runtime();
  const sync = await openOnlyDesign(runtime);
  const session = profile ? new Session() : undefined;
  if (session) {
    session.connect();
    await session.post("Profiler.enable");
    await session.post("Profiler.start");
  }
  const t = performance.now();
  await sync.fullSync();
  const ms = performance.now() - t;
  let prof;
  if (session) prof = (await session.post("Profiler.stop")).profile;
  await runtime.close();
  await home.remove();
  return { ms, prof };
}
async function ref() {
  const dir = await mkdtemp(join(tmpdir(), "mpsync-prof-ref-"));
  const t = performance.now();
  await referencePull(emu.baseUrl, editorId, dir);
  const ms = performance.now() - t;
  await rm(dir, { recursive: true, force: true });
  return ms;
}
await ref();
await engine(false);
for (let i = 0; i < 3; i++) {
  const r = await ref();
  const e = (await engine(false)).ms;
  console.log(`run ${i + 1}: engine ${Math.round(e)} ms, reference ${Math.round(r)} ms, ratio ${(e / r).toFixed(2)}x`);
}
const { prof } = await engine(true);
const self = new Map();
const dt = prof.timeDeltas;
const byId = new Map(prof.nodes.map((n) => [n.id, n]));
for (let i = 0; i < prof.samples.length; i++) {
  const n = byId.get(prof.samples[i]);
  const f = n.callFrame;
  const key = `${f.functionName || "(anon)"} ${f.url.replace(/^.*\/(dist|node_modules)\//, "$1/")}:${f.lineNumber + 1}`;
  self.set(key, (self.get(key) ?? 0) + (dt[i] ?? 0));
}
const total = [...self.values()].reduce((a, b) => a + b, 0);
console.log(`profile: ${(total / 1000).toFixed(0)} ms sampled`);
for (const [k, us] of [...self].sort((a, b) => b[1] - a[1]).slice(0, 25)) console.log(`${((100 * us) / total).toFixed(1).padStart(5)} %  ${k}`);
await emu.close();
