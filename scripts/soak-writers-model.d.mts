/** Tokens of one model file: each writer's section ("a": folder A, "w": the web editor, "b": folder B). */
export type ModelFile = Record<"a" | "w" | "b", string[]>;
export declare const LINES: number;
export declare const SECTIONS: readonly ["a", "w", "b"];
export declare function render(name: string, m: ModelFile): string;
export declare function parse(name: string, text: string | undefined): ModelFile | undefined;
export interface RoundVerdict {
  displaced: string[];
  hidden: string[];
  lost: string[];
  decisionUndone: boolean;
}
export declare function judgeRound(input: {
  model: Map<string, ModelFile>;
  remote: Record<string, string>;
  said: Array<{ event: string; message?: string; files?: string[] }>;
  kept: Iterable<string>;
  decision?: { name: string; line: number; token: string; inWindow: boolean } | undefined;
  adopt?: boolean;
}): RoundVerdict;
