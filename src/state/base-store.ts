/**
 * Content-addressed base texts under `.mpsync/base/` (a 3-way merge needs the last synced text
 * of every file). Two forms, like git's loose objects and packs:
 * - a loose file `base/<sha256>` for the few texts a push or a merge records;
 * - a pack for the many texts of one pull (`putBases`): `base/pack-<id>` holds the texts end to
 *   end and `base/pack-<id>.idx` maps each hash to its offset and length. One pull of 2,000
 *   files writes two files instead of 2,000.
 * Every text is checked against its hash when read: a damaged or missing one answers undefined,
 * which turns a later clean merge into a reported conflict, never a wrong merge. Nothing here is
 * fsynced for the same reason. Only the folder lock's holder writes or prunes (a reader, such as
 * `mpsync status`, never deletes: a pack it sees without its index may be mid-write).
 */
import { randomBytes } from "node:crypto";
import { mkdir, open, readdir, readFile, unlink } from "node:fs/promises";
import { join } from "node:path";
import * as z from "zod";
import { hashContent } from "../core/hash.js";
import { writeFileAtomicallyGuarded } from "../local/atomic-write.js";
import { hashSchema } from "./state-schema.js";
import { isErrno } from "../core/errors.js";

const PACK_PREFIX = "pack-";
/** A pack whose live bytes fall under this share of its size is rewritten by pruneBases. */
const REPACK_BELOW = 0.5;

const packIndexSchema = z.record(hashSchema, z.tuple([z.number().int().nonnegative(), z.number().int().nonnegative()]));

interface Where {
  /** Pack id, or undefined for a loose file. */
  pack: string | undefined;
  offset: number;
  length: number;
}

/** The base texts of one folder. */
export class BaseTextStore {
  readonly #dir: string;
  readonly #ensureLayout: () => Promise<void>;
  /** hash -> where its text is; loaded once (one readdir and the pack indexes). */
  #index: Promise<Map<string, Where>> | undefined;
  /** Packs found without an index (a write killed between the two): removed by the next prune. */
  #orphans: string[] = [];

  constructor(dir: string, ensureLayout: () => Promise<void>) {
    this.#dir = dir;
    this.#ensureLayout = ensureLayout;
  }

  /** Stores one text as a loose file (unless held already); resolves its hash. */
  async putBase(text: string): Promise<string> {
    const hash = hashContent(text);
    const index = await this.#load();
    if (index.has(hash)) return hash;
    await this.#ensureLayout();
    await mkdir(this.#dir, { recursive: true });
    await writeFileAtomicallyGuarded(join(this.#dir, hash), text, { fsync: false, deferFolderSync: () => undefined });
    index.set(hash, { pack: undefined, offset: 0, length: Buffer.byteLength(text) });
    return hash;
  }

  /** Stores many texts as one pack (those not held already); resolves their hashes in order. */
  async putBases(texts: readonly string[]): Promise<string[]> {
    const index = await this.#load();
    const hashes = texts.map((t) => hashContent(t));
    const fresh = new Map<string, string>();
    for (const [i, hash] of hashes.entries()) if (!index.has(hash) && !fresh.has(hash)) fresh.set(hash, texts[i]!);
    if (fresh.size === 0) return hashes;
    if (fresh.size === 1) {
      const [text] = fresh.values();
      await this.putBase(text!);
      return hashes;
    }
    await this.#writePack(fresh, index);
    return hashes;
  }

  /** A stored text, or undefined when absent or damaged. */
  async getBase(hash: string): Promise<string | undefined> {
    if (!hashSchema.safeParse(hash).success) return undefined;
    const where = (await this.#load()).get(hash);
    let bytes: Buffer | undefined;
    try {
      bytes =
        where?.pack === undefined
          ? await readFile(join(this.#dir, hash))
          : await readSlice(join(this.#dir, `${PACK_PREFIX}${where.pack}`), where.offset, where.length);
    } catch (err) {
      if (isErrno(err, "ENOENT")) return undefined;
      throw err;
    }
    return bytes !== undefined && hashContent(bytes) === hash ? bytes.toString("utf8") : undefined;
  }

  /** Removes every text whose hash is not in `keep`; rewrites packs that became mostly dead. */
  async pruneBases(keep: Iterable<string>): Promise<void> {
    const keepSet = new Set(keep);
    const index = await this.#load();
    const packs = new Map<string, { live: string[]; liveBytes: number; bytes: number }>();
    const doomedLoose: string[] = [];
    for (const [hash, where] of index) {
      if (where.pack === undefined) {
        if (!keepSet.has(hash)) doomedLoose.push(hash);
        continue;
      }
      const p = packs.get(where.pack) ?? { live: [], liveBytes: 0, bytes: 0 };
      p.bytes += where.length;
      if (keepSet.has(hash)) {
        p.live.push(hash);
        p.liveBytes += where.length;
      }
      packs.set(where.pack, p);
    }
    await Promise.all([...doomedLoose, ...this.#orphans.splice(0)].map((name) => unlink(join(this.#dir, name)).catch(ignoreMissing)));
    for (const h of doomedLoose) index.delete(h);
    for (const [id, p] of packs) {
      if (p.live.length > 0 && p.liveBytes >= p.bytes * REPACK_BELOW) continue;
      if (p.live.length > 0) {
        // Mostly dead: the live texts move to a new pack before the old one goes.
        const live = new Map<string, string>();
        for (const h of p.live) {
          const text = await this.getBase(h);
          if (text !== undefined) live.set(h, text);
        }
        await this.#writePack(live, index);
      }
      // Live texts now point at the new pack; whatever still points here is dead (or damaged).
      for (const [h, where] of [...index]) if (where.pack === id) index.delete(h);
      await unlink(join(this.#dir, `${PACK_PREFIX}${id}.idx`)).catch(ignoreMissing);
      await unlink(join(this.#dir, `${PACK_PREFIX}${id}`)).catch(ignoreMissing);
    }
  }

  async #writePack(texts: Map<string, string>, index: Map<string, Where>): Promise<void> {
    await this.#ensureLayout();
    await mkdir(this.#dir, { recursive: true });
    const id = `${Date.now().toString(36)}-${randomBytes(4).toString("hex")}`;
    const entries: Record<string, [number, number]> = {};
    let offset = 0;
    for (const [hash, text] of texts) {
      const length = Buffer.byteLength(text, "utf8");
      entries[hash] = [offset, length];
      offset += length;
    }
    // The pack first, then its index: a pack without an index (a killed write) holds nothing
    // anyone refers to, and the next prune of its id removes it. So the pack is written in
    // place, in chunks: never a buffer of every pulled text (8 MB for 2,000 files of 4 KB).
    await writeTexts(join(this.#dir, `${PACK_PREFIX}${id}`), texts.values());
    // A pull's journal waits on it: the guarded writer makes its calls inline (state-store.ts save).
    await writeFileAtomicallyGuarded(join(this.#dir, `${PACK_PREFIX}${id}.idx`), JSON.stringify(entries), {
      fsync: false,
      deferFolderSync: () => undefined,
      knownDirs: new Set([this.#dir]),
    });
    for (const [hash, [at, length]] of Object.entries(entries)) index.set(hash, { pack: id, offset: at, length });
  }

  #load(): Promise<Map<string, Where>> {
    this.#index ??= this.#readIndex().catch((err: unknown) => {
      this.#index = undefined;
      throw err;
    });
    return this.#index;
  }

  async #readIndex(): Promise<Map<string, Where>> {
    const index = new Map<string, Where>();
    let names: string[];
    try {
      names = await readdir(this.#dir);
    } catch (err) {
      if (isErrno(err, "ENOENT")) return index;
      throw err;
    }
    const packIds = new Set<string>();
    for (const name of names) {
      if (hashSchema.safeParse(name).success) index.set(name, { pack: undefined, offset: 0, length: 0 });
      else if (name.startsWith(PACK_PREFIX) && name.endsWith(".idx")) packIds.add(name.slice(PACK_PREFIX.length, -".idx".length));
    }
    for (const id of packIds) {
      const parsed = packIndexSchema.safeParse(await readFile(join(this.#dir, `${PACK_PREFIX}${id}.idx`), "utf8").then(JSON.parse, () => undefined));
      if (!parsed.success) continue;
      // A loose copy, when there is one, wins: it is read without the pack.
      for (const [hash, [offset, length]] of Object.entries(parsed.data)) if (!index.has(hash)) index.set(hash, { pack: id, offset, length });
    }
    this.#orphans = names.filter((n) => n.startsWith(PACK_PREFIX) && !n.includes(".") && !packIds.has(n.slice(PACK_PREFIX.length)));
    return index;
  }
}

async function readSlice(file: string, offset: number, length: number): Promise<Buffer | undefined> {
  const handle = await open(file, "r");
  try {
    const buffer = Buffer.alloc(length);
    const { bytesRead } = await handle.read(buffer, 0, length, offset);
    return bytesRead === length ? buffer : undefined;
  } finally {
    await handle.close();
  }
}

function ignoreMissing(err: unknown): void {
  if (!isErrno(err, "ENOENT")) throw err;
}

/** Bytes a pack is written in. */
const PACK_CHUNK_BYTES = 256 * 1024;

/** Writes `texts` end to end as UTF-8 into a new file (`wx`: never over another). */
async function writeTexts(file: string, texts: Iterable<string>): Promise<void> {
  const handle = await open(file, "wx");
  /** Writes the first `length` bytes of `bytes` (a write may take fewer than asked). */
  const writeAll = async (bytes: Buffer, length: number): Promise<void> => {
    for (let done = 0; done < length;) done += (await handle.write(bytes, done, length - done)).bytesWritten;
  };
  try {
    const chunk = Buffer.allocUnsafe(PACK_CHUNK_BYTES);
    let used = 0;
    for (const text of texts) {
      const length = Buffer.byteLength(text, "utf8");
      if (used + length > chunk.length) {
        await writeAll(chunk, used);
        used = 0;
      }
      if (length > chunk.length) await writeAll(Buffer.from(text, "utf8"), length);
      else used += chunk.write(text, used, "utf8");
    }
    await writeAll(chunk, used);
  } finally {
    await handle.close();
  }
}
