/** A build input (a file or a folder of `src/`) and its modification time. */
export interface InputTime {
  path: string;
  mtimeMs: number;
}
/** The stamp `npm run build` writes last, relative to the repository. */
export declare const BUILD_STAMP: string;
/** Why dist/ is stale, or undefined when it is fresh. */
export declare function staleReason(stampMs: number | undefined, inputs: readonly InputTime[]): string | undefined;
/** The modification time of the build stamp, undefined when there is none. */
export declare function readStampTime(repo: string): Promise<number | undefined>;
/** Every build input's time: `src/` (its folders and its `.ts` files but tests) and the build files. */
export declare function readBuildInputs(repo: string): Promise<InputTime[]>;
/** Runs `build` when dist/ is stale and says why on one line; returns the reason, or undefined when fresh. */
export declare function buildIfStale(repo: string, build: () => number | null, say: (line: string) => void): Promise<string | undefined>;
