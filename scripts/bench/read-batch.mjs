/**
 * Read batch size: the time to read every file of a design through the real client
 * (files/read, 4 requests in flight per key) with 40, 100, 250 names per request and all names
 * in one, at 2,000 and 10,000 files of 4 KB, interleaved size by size, median of 3. Prints a
 * Markdown table. Usage: npm run build && node scripts/bench/read-batch.mjs
 */
import { createClient } from "../../dist/api/client.js";
import { BENCH_KEY, makeFiles, startBenchEmulator } from "./fixture.mjs";
import { summarize } from "./stats.mjs";

const emu = await startBenchEmulator();
const SIZES = [40, 100, 250, "all"];
console.log("| files | names per request | requests | median | min / max |");
console.log("|---|---|---|---|---|");
for (const count of [2000, 10_000]) {
  const { editorId } = emu.control.createDesign(BENCH_KEY, { files: makeFiles(count, 4096, "src", 50) });
  const probe = createClient({ baseUrl: emu.baseUrl, apiKey: BENCH_KEY });
  const active = await probe.getActiveArtifact(editorId);
  await probe.close();
  const times = new Map(SIZES.map((s) => [s, []]));
  for (let round = 0; round < 3; round++) {
    for (const size of SIZES) {
      const client = createClient({ baseUrl: emu.baseUrl, apiKey: BENCH_KEY, readBatchSize: size === "all" ? count : size });
      const started = performance.now();
      const files = await client.readFiles(editorId, active.artifactId, active.files);
      times.get(size).push(performance.now() - started);
      await client.close();
      if (files.length !== count) throw new Error(`read ${files.length} of ${count}`);
    }
  }
  for (const size of SIZES) {
    const s = summarize(times.get(size));
    const n = size === "all" ? count : size;
    console.log(
      `| ${count.toLocaleString("en-US")} | ${size === "all" ? `all (${count})` : size} | ${Math.ceil(count / n)} | ${Math.round(s.median)} ms | ${Math.round(s.min)} / ${Math.round(s.max)} ms |`,
    );
  }
}
await emu.close();
