/** Human ages for tables: "just now", "3 min ago", "2 h ago", "5 d ago". */

/** Epoch milliseconds of a service timestamp (epoch ms most likely; seconds tolerated). */
export function toEpochMs(time: number): number {
  // README, "What is known about the real service": the unit is not documented. A value below 1e11 cannot be a
  // millisecond date after 1973, so it is taken as seconds.
  return time < 1e11 ? time * 1000 : time;
}

/** How long ago `thenMs` was, relative to `nowMs`. */
export function formatAge(thenMs: number, nowMs: number): string {
  const s = Math.round((nowMs - thenMs) / 1000);
  if (s < 0) return "in the future";
  if (s < 45) return "just now";
  const min = Math.round(s / 60);
  if (min < 60) return `${min} min ago`;
  const h = Math.round(min / 60);
  if (h < 48) return `${h} h ago`;
  return `${Math.round(h / 24)} d ago`;
}
