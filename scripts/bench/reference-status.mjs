/**
 * The minimal status client of figure 6 as a process, run in a mapped home: the work `mpsync
 * status` cannot skip, done with Node alone. It reads `.syncrc`, asks the service for each
 * design's status with the global `fetch`, and hashes every file of the design's folder (sha256,
 * as mpsync's bases are), then prints one line per design.
 */
import { hash } from "node:crypto";
import { readdir, readFile } from "node:fs/promises";
import { join, relative } from "node:path";

const cwd = process.cwd();
const config = JSON.parse(await readFile(join(cwd, ".syncrc"), "utf8"));
for (const { dir, design } of config.designs) {
  const root = join(cwd, dir);
  const answer = await globalThis.fetch(`${config.baseUrl}/v3/designs/${design}/status`, { headers: { "x-mp-api-key": process.env.MP_API_KEY ?? "" } });
  if (!answer.ok) throw new Error(`status answered ${answer.status}`);
  const status = await answer.json();
  const entries = await readdir(root, { recursive: true, withFileTypes: true });
  const files = entries.filter((e) => e.isFile() && !relative(root, e.parentPath).startsWith(".mpsync"));
  const hashes = await Promise.all(files.map(async (e) => hash("sha256", await readFile(join(e.parentPath, e.name)), "hex")));
  process.stdout.write(`${dir}: ${status.isGenerating ? "generating" : "idle"}, ${hashes.length} files\n`);
}
