/**
 * Help as a terminal of `width` columns shows it. commander wraps its own parts (description,
 * options, commands) to that width, but not the text a command adds after them: a prose line
 * wider than the terminal would be cut mid-word by the terminal's own wrap.
 */

/** Columns of help on `stream`: a sized terminal's width, else 80 (a pipe, a file, script(1) with no size). */
export function helpWidth(stream: { isTTY?: boolean; columns?: number }): number {
  return stream.isTTY === true && (stream.columns ?? 0) > 0 ? (stream.columns as number) : 80;
}

/**
 * `text` with every paragraph of prose (lines from column 0, up to a blank or indented line)
 * that has a line wider than `width` reflowed to it. Indented lines are left as written:
 * commander's own columns are wrapped already, and an example is a command to paste.
 */
export function wrapHelp(text: string, width: number): string {
  const out: string[] = [];
  let paragraph: string[] = [];
  const flush = (): void => {
    out.push(...(paragraph.some((line) => line.length > width) ? reflow(paragraph.join(" "), width) : paragraph));
    paragraph = [];
  };
  for (const line of text.split("\n")) {
    if (line !== "" && !/^\s/.test(line)) {
      paragraph.push(line);
      continue;
    }
    flush();
    out.push(line);
  }
  flush();
  return out.join("\n");
}

/** A number and its unit stay on one line ("10 s", "0.5 s", "64 MiB"). */
const NUMBER_UNIT = /(\d) (s|ms|KiB|MiB|MB|GB)\b/g;

function reflow(text: string, width: number): string[] {
  const lines: string[] = [];
  let line = "";
  const words = text.replace(NUMBER_UNIT, "$1\u00a0$2").split(/[ \t\n]+/);
  for (const word of words.filter((w) => w !== "").map((w) => w.replace("\u00a0", " "))) {
    if (line === "") line = word;
    else if (line.length + 1 + word.length <= width) line += ` ${word}`;
    else {
      lines.push(line);
      line = word;
    }
  }
  if (line !== "") lines.push(line);
  return lines;
}
