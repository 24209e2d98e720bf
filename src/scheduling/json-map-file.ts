/**
 * A small JSON map persisted in one file, shared by the poll and generation ledgers: reads are
 * fresh (other mpsync processes write the same file), writes are atomic and serialised within
 * this process, and a missing or corrupt file reads as empty rather than failing a command.
 */
import { readFile } from "node:fs/promises";
import type { z } from "zod";
import { writeJsonAtomically } from "../local/atomic-write.js";

/** Read-modify-write access to a JSON map file validated by `schema`. */
export class JsonMapFile<V> {
  readonly #file: string;
  readonly #schema: z.ZodType<Record<string, V>>;
  readonly #durable: boolean;
  #writes: Promise<unknown> = Promise.resolve();

  /**
   * `durable: false` skips the fsync: a kill still leaves the old or the new map (temp file,
   * rename); only a power loss can undo the last write. @default true
   */
  constructor(file: string, schema: z.ZodType<Record<string, V>>, options: { durable?: boolean } = {}) {
    this.#file = file;
    this.#schema = schema;
    this.#durable = options.durable ?? true;
  }

  /** The current map; empty when the file is missing, unreadable or malformed. */
  async read(): Promise<Record<string, V>> {
    let text: string;
    try {
      text = await readFile(this.#file, "utf8");
    } catch {
      return {};
    }
    try {
      const parsed = this.#schema.safeParse(JSON.parse(text));
      return parsed.success ? parsed.data : {};
    } catch {
      return {};
    }
  }

  /** Applies `change` to the freshly read map and writes the result atomically. */
  update(change: (map: Record<string, V>) => Record<string, V>): Promise<void> {
    const next = this.#writes.then(async () => {
      const map = await this.read();
      await writeJsonAtomically(this.#file, change(map), { fsync: this.#durable });
    });
    // The chain survives a failed write; the caller still sees the failure.
    this.#writes = next.catch(() => undefined);
    return next;
  }
}
