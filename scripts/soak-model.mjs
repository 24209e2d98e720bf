/**
 * What the soak scripts share (scripts/soak.mjs, soak-daemon.mjs, soak-writers.mjs): a seeded
 * random source and its choices, the command line of a soak that runs for minutes, and the
 * model files. A file has L lines (owned by local edits) and R lines (owned by
 * remote edits) three fences apart, so concurrent edits always merge cleanly and any conflict,
 * marker or missing token is the tool's doing.
 */

import { readdir, readFile, writeFile } from "node:fs/promises";
import { join, relative, sep } from "node:path";
import { parseArgs } from "node:util";

/** Lines of each side in a model file. */
export const LINES = 8;

/** mulberry32: reproducible choices from a seed (timing still varies between machines). */
export function createRng(seed) {
  let s = seed >>> 0;
  return () => {
    s = (s + 0x6d2b79f5) >>> 0;
    let t = Math.imul(s ^ (s >>> 15), s | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** Seeded choices from `rnd`: a whole number from `lo` to `hi`, and one element of a list. */
export function seededChoices(rnd) {
  return { int: (lo, hi) => lo + Math.floor(rnd() * (hi - lo + 1)), pick: (list) => list[Math.floor(rnd() * list.length)] };
}

/** Resolves after `ms`. */
export const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

/**
 * The command line of a soak that runs for minutes (soak-daemon.mjs, soak-writers.mjs):
 * `--minutes` (else MPSYNC_SOAK_MINUTES), `--seed`, `--round-timeout-ms`, `--keep`.
 */
export function minutesSoakArgs({ minutes, roundTimeoutMs }) {
  const { values } = parseArgs({
    options: {
      minutes: { type: "string", default: process.env.MPSYNC_SOAK_MINUTES ?? minutes },
      seed: { type: "string", default: String(Date.now() % 1_000_000) },
      "round-timeout-ms": { type: "string", default: roundTimeoutMs },
      keep: { type: "boolean", default: false },
    },
  });
  return {
    minutes: values.minutes,
    durationMs: Number(values.minutes) * 60_000,
    seed: Number(values.seed),
    roundTimeoutMs: Number(values["round-timeout-ms"]),
    keep: values.keep,
  };
}

/** L lines (local-owned), three fixed lines, R lines (remote-owned): edits never neighbour. */
export function render(name, l, r) {
  const out = [`// file ${name}`];
  for (let i = 0; i < LINES; i++) out.push(`// L${i} ${l[i]}`);
  out.push("// ---- fence 1", "// ---- fence 2", "// ---- fence 3");
  for (let i = 0; i < LINES; i++) out.push(`// R${i} ${r[i]}`);
  return `${out.join("\n")}\n// end\n`;
}

/** {l, r} tokens, or undefined when the text is not a whole model file (empty, truncated, markers). */
export function parse(name, text) {
  if (typeof text !== "string") return undefined;
  const l = [];
  const r = [];
  for (let i = 0; i < LINES; i++) {
    l.push(text.match(new RegExp(`^// L${i} (\\S+)$`, "m"))?.[1]);
    r.push(text.match(new RegExp(`^// R${i} (\\S+)$`, "m"))?.[1]);
  }
  if ([...l, ...r].some((t) => t === undefined)) return undefined;
  return text === render(name, l, r) ? { l, r } : undefined;
}

/** After a failed round, resolve as a user would ("take theirs") so later rounds judge only their own edits. */
export async function takeRemote(world, model) {
  const remote = world.emu.control.getFiles(world.editorId);
  for (const [name, m] of model) {
    const text = remote[name];
    if (text === undefined) continue;
    const local = await readFile(join(world.root, name), "utf8").catch(() => undefined);
    if (local !== text) await writeFile(join(world.root, name), text).catch(() => undefined);
    const got = parse(name, text);
    if (got !== undefined) Object.assign(m, { l: got.l, r: got.r });
  }
}

/** Every text kept somewhere the user can find it: backups, conflicts, and every version on the service. */
export async function keptTexts(world) {
  const texts = new Set();
  // The recovery layout's one owner, from dist/ (the scripts check it is built before a run).
  const { listKeptFiles, STATE_DIR_NAME } = await import("../dist/local/recovery-layout.js");
  for (const file of await listKeptFiles(join(world.root, STATE_DIR_NAME))) texts.add(await readFile(file, "utf8"));
  for (const v of world.emu.control.getDesign(world.editorId).versions) {
    for (const text of Object.values(world.emu.control.getFiles(world.editorId, v.artifactId))) texts.add(text);
  }
  return texts;
}

/** Every file below `root` as a `/` path (`.mpsync/` left out unless `includeDot`). */
export async function listFiles(root, includeDot = false) {
  const out = [];
  const walk = async (dir) => {
    const entries = await readdir(dir, { withFileTypes: true }).catch(() => []);
    for (const e of entries) {
      if (!includeDot && e.name === ".mpsync") continue;
      const abs = join(dir, e.name);
      if (e.isDirectory()) await walk(abs);
      else out.push(relative(root, abs).split(sep).join("/"));
    }
  };
  await walk(root);
  return out;
}
