/**
 * The preview bench's arithmetic, apart from its browser and servers: per-round figures of
 * `mpsync dev` and of the design's own Vite become pooled medians and the ratio of the two
 * measured in the same round (the machine is shared: a ratio of neighbours is steadier than
 * either absolute), then the rows of its table.
 */
import { summarize } from "./stats.mjs";

/** The figures each round measures on both sides. */
export const ROUND_FIGURES = ["coldStartMs", "cssSaveMs", "componentSaveMs", "cpuMs"];

/**
 * Pools the rounds of one side (`rounds[i][side][figure]`: that round's samples) into one
 * summary per figure, and the median over rounds of mpsync's median / the own Vite's median.
 */
export function poolRounds(rounds) {
  const out = { mpsync: {}, vite: {}, ratio: {} };
  for (const figure of ROUND_FIGURES) {
    for (const side of ["mpsync", "vite"]) out[side][figure] = summarize(rounds.flatMap((r) => r[side][figure]));
    out.ratio[figure] = summarize(rounds.map((r) => summarize(r.mpsync[figure]).median / summarize(r.vite[figure]).median).filter((x) => Number.isFinite(x)));
  }
  return out;
}

/** `a / b` as `1.23x`, or "" when either is missing. */
export function ratioText(a, b) {
  const r = a / b;
  return Number.isFinite(r) && b > 0 ? `${r.toFixed(2)}x` : "";
}

const ms = (v) => (Number.isFinite(v) ? `${Math.round(v)} ms` : "not measured");
const secs = (v) => (Number.isFinite(v) ? `${(v / 1000).toFixed(1)} s` : "not measured");

/** Header of the preview table. */
export const PREVIEW_HEADER = ["figure", "target", "mpsync dev median", "p90", "own vite median", "p90", "mpsync / own vite", "n"];

/**
 * Rows of the preview table from `{ pooled: poolRounds(...), rounds, fetch, firstRun }`:
 * figures measured every round (their ratio is the median of the rounds' ratios), then the
 * first run's fetch and first paint (one each, their ratio the plain quotient).
 */
export function previewRows(r) {
  const { pooled } = r;
  const row = (name, target, key) => [
    name,
    target,
    ms(pooled.mpsync[key].median),
    ms(pooled.mpsync[key].p90),
    ms(pooled.vite[key].median),
    ms(pooled.vite[key].p90),
    Number.isFinite(pooled.ratio[key].median)
      ? `${pooled.ratio[key].median.toFixed(2)}x (rounds ${pooled.ratio[key].min.toFixed(2)}-${pooled.ratio[key].max.toFixed(2)})`
      : "",
    `${pooled.mpsync[key].n} + ${pooled.vite[key].n}`,
  ];
  const once = (name, a, b) => [name, "", secs(a), "", secs(b), "", ratioText(a, b), "1 + 1"];
  return [
    row("save to screen, stylesheet (in place)", "<= 100 ms", "cssSaveMs"),
    row("save to screen, component (Fast Refresh)", "<= 300 ms", "componentSaveMs"),
    row("cold start to first paint (warm caches)", "<= 3000 ms", "coldStartMs"),
    row("CPU of the server's process over a round (cold start, saves)", "", "cpuMs"),
    once("first run's fetch (npm cache warm): mpsync's toolchain / `npm install` in the copy", r.fetch?.mpsyncMs, r.fetch?.viteMs),
    once("first run to first paint (mpsync: the design's packages fetched; vite: deps pre-bundled)", r.firstRun?.mpsyncMs, r.firstRun?.viteMs),
  ];
}
