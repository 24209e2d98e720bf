/**
 * A line of a file quoted in a message a person reads (a conflict's lost edit, a restore's
 * missing line): between double quotes, with the line's own quotes and backslashes as they are
 * in the file, since JSON's escapes (`\"`) are not what the editor shows. Control characters,
 * which would move the terminal's cursor or colour, are the one thing shown escaped.
 */

/** Longest text of a line a message quotes; longer lines end in "...". */
export const QUOTED_LINE_MAX_CHARS = 60;

/** `line` trimmed, cut to QUOTED_LINE_MAX_CHARS and quoted for a message. */
export function quoteLine(line: string): string {
  const trimmed = line.trim();
  const cut = trimmed.length > QUOTED_LINE_MAX_CHARS ? `${trimmed.slice(0, QUOTED_LINE_MAX_CHARS - 3)}...` : trimmed;
  // eslint-disable-next-line no-control-regex
  const shown = cut.replace(/[\u0000-\u001f\u007f\u2028\u2029]/g, (ch) => (ch === "\t" ? "\\t" : `\\u${ch.charCodeAt(0).toString(16).padStart(4, "0")}`));
  return `"${shown}"`;
}
