/** Samples of one side in one round, in ms. */
export interface SideRound {
  coldStartMs: number[];
  cssSaveMs: number[];
  componentSaveMs: number[];
  cpuMs: number[];
}
export interface Summary {
  n: number;
  median: number;
  p10: number;
  p90: number;
  p99: number;
  min: number;
  max: number;
  mean: number;
}
export type Figure = "coldStartMs" | "cssSaveMs" | "componentSaveMs" | "cpuMs";
export interface Pooled {
  mpsync: Record<Figure, Summary>;
  vite: Record<Figure, Summary>;
  ratio: Record<Figure, Summary>;
}
export declare const ROUND_FIGURES: readonly Figure[];
/** Pools the rounds into one summary per side and figure, and the median of the rounds' ratios. */
export declare function poolRounds(rounds: readonly { mpsync: SideRound; vite: SideRound }[]): Pooled;
/** `a / b` as `1.23x`, or "" when either is missing. */
export declare function ratioText(a: number | undefined, b: number | undefined): string;
export declare const PREVIEW_HEADER: readonly string[];
/** Rows of the preview table. */
export declare function previewRows(r: {
  pooled: Pooled;
  fetch?: { mpsyncMs: number; viteMs: number } | undefined;
  firstRun?: { mpsyncMs: number; viteMs: number } | undefined;
}): string[][];
