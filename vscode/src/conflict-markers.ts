/** Git-style conflict markers in a file's text, as the Problems panel shows them. Pure. */
import { relative } from "node:path";

/** One conflict: the lines of its `<<<<<<<` and `>>>>>>>` markers (0-based). */
export interface ConflictBlock {
  start: number;
  end: number;
}

/** Every complete conflict block of `text`. */
export function findConflictBlocks(text: string): ConflictBlock[] {
  const blocks: ConflictBlock[] = [];
  let start: number | undefined;
  let separated = false;
  text.split(/\r?\n/).forEach((line, i) => {
    if (line.startsWith("<<<<<<<")) {
      start = i;
      separated = false;
    } else if (start !== undefined && line.startsWith("=======")) {
      separated = true;
    } else if (start !== undefined && separated && line.startsWith(">>>>>>>")) {
      blocks.push({ start, end: i });
      start = undefined;
    }
  });
  return blocks;
}

/**
 * True for a file in the folder's `.mpsync/` (backups, conflict copies): mpsync's own copies,
 * which may hold markers, are neither problems nor saves to push.
 */
export function inStateFolder(root: string, path: string): boolean {
  return relative(root, path).split(/[\\/]/)[0] === ".mpsync";
}
