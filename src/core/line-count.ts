/** Lines of a text as a multiset: what an edit added or dropped, whatever moved around it. */

/** Non-blank lines (trailing blanks and CR ignored) -> how often each occurs. */
export function countLines(text: string): Map<string, number> {
  const out = new Map<string, number>();
  for (const raw of text.split("\n")) {
    const line = raw.replace(/\s+$/, "");
    if (line !== "") out.set(line, (out.get(line) ?? 0) + 1);
  }
  return out;
}
