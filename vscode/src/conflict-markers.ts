/** Git-style conflict markers in a file's text, as the Problems panel shows them. Pure. */

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
