/** File-name-safe UTC timestamps for backup, conflict and corrupt-state names. */

/** `2024-05-01T10-20-30-123Z` for epoch ms `at`: sorts by time, valid on every file system. */
export function fileStamp(at: number): string {
  return new Date(at).toISOString().replace(/[:.]/g, "-");
}
