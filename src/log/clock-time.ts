/** The time stamp of terminal lines: one format for daemon events and log lines. */
/**
 * Local wall-clock time as 24-hour `HH:MM:SS`: the one format of every line the terminal shows
 * (daemon events, log lines, the status --watch header), whatever the locale.
 */
export function clockTime(at: Date | number): string {
  return new Date(at).toTimeString().slice(0, 8);
}
