/**
 * `--data FILE`: the whole store as JSON, loaded at start and saved atomically (temp file,
 * fsync, rename) shortly after each change and on close. Owners are key hashes, so the file
 * holds no credential.
 */
import { readFile } from "node:fs/promises";
import * as z from "zod";
import { designSystemSchema } from "../api/schemas.js";
import { writeJsonAtomically } from "../local/atomic-write.js";
import { newUuid } from "./ids.js";
import type { StoreState } from "./store.js";
import type { StoredDesign } from "./types.js";
import { isErrno } from "../core/errors.js";

/** Quiet time before a save, so a burst of changes is one write. */
export const SAVE_DEBOUNCE_MS = 50;
const FORMAT = "mpsync-emulator-data";

const artifactSchema = z.object({
  id: z.string(),
  version: z.number().int().min(1),
  title: z.string(),
  timeCreated: z.number(),
  files: z.array(z.tuple([z.string(), z.string()])),
});
const persistedDesignSchema = z.object({
  editorId: z.string(),
  owner: z.string(),
  name: z.string(),
  canvasId: z.string(),
  slug: z.string(),
  designSystemId: z.string().nullable(),
  artifacts: z.array(artifactSchema),
  activeArtifactId: z.string().nullable(),
  previewUrl: z.string().nullable(),
  publishedArtifactId: z.string().nullable(),
  publishedAt: z.number().nullable(),
  messages: z.array(
    z.object({
      id: z.string().default(() => newUuid()),
      role: z.enum(["user", "assistant"]),
      content: z.string(),
      timeCreated: z.number(),
      artifactId: z.string().optional(),
    }),
  ),
  generation: z
    .object({
      requestId: z.string(),
      prompt: z.string(),
      startedAt: z.number(),
      autoFinish: z.boolean(),
      firstFiles: z.array(z.tuple([z.string(), z.string()])).optional(),
    })
    .nullable(),
});
const dataFileSchema = z.object({
  format: z.literal(FORMAT),
  version: z.literal(1),
  designs: z.array(persistedDesignSchema),
  credits: z.array(z.tuple([z.string(), z.number()])),
  designSystems: z.array(designSystemSchema),
});
type PersistedDesign = z.infer<typeof persistedDesignSchema>;

/** The store as the JSON document written to the data file. */
export function serializeState(state: StoreState): z.infer<typeof dataFileSchema> {
  return {
    format: FORMAT,
    version: 1,
    designs: state.designs.map(serializeDesign),
    credits: state.credits,
    designSystems: state.designSystems,
  };
}

function serializeDesign(design: StoredDesign): PersistedDesign {
  const artifacts = [...design.artifacts.values()].map((a) => ({ ...a, files: [...a.files.entries()] }));
  const messages = design.messages.map((m) => ({ ...m }));
  return { ...design, artifacts, messages, generation: design.generation && { ...design.generation } };
}

function deserializeDesign(design: PersistedDesign): StoredDesign {
  const artifacts = new Map(design.artifacts.map((a) => [a.id, { ...a, files: new Map(a.files) }]));
  if (design.activeArtifactId !== null && !artifacts.has(design.activeArtifactId)) {
    throw new Error(`design ${design.editorId}: active artifact ${design.activeArtifactId} is missing`);
  }
  return { ...design, artifacts };
}

/** Reads the data file; undefined when it does not exist. A corrupt file is an error, never overwritten. */
export async function loadState(file: string): Promise<StoreState | undefined> {
  let text: string;
  try {
    text = await readFile(file, "utf8");
  } catch (err) {
    if (isErrno(err, "ENOENT")) return undefined;
    throw err;
  }
  let parsed: z.infer<typeof dataFileSchema>;
  try {
    parsed = dataFileSchema.parse(JSON.parse(text));
  } catch (err) {
    throw new Error(`Emulator data file ${file} is not valid: ${err instanceof Error ? err.message : String(err)}`, {
      cause: err,
    });
  }
  return {
    designs: parsed.designs.map(deserializeDesign),
    credits: parsed.credits,
    designSystems: parsed.designSystems,
  };
}

/** Debounced, serialised saves of the store to one file. */
export class StateSaver {
  readonly #file: string;
  readonly #snapshot: () => StoreState;
  readonly #onError: (err: unknown) => void;
  #timer: NodeJS.Timeout | undefined;
  #chain: Promise<void> = Promise.resolve();

  constructor(file: string, snapshot: () => StoreState, onError: (err: unknown) => void) {
    this.#file = file;
    this.#snapshot = snapshot;
    this.#onError = onError;
  }

  /** Saves after SAVE_DEBOUNCE_MS of quiet. */
  schedule(): void {
    if (this.#timer !== undefined) clearTimeout(this.#timer);
    this.#timer = setTimeout(() => {
      this.#timer = undefined;
      void this.#save();
    }, SAVE_DEBOUNCE_MS);
  }

  /** Saves now (cancelling a pending debounce) and waits for every write in flight. */
  async flush(): Promise<void> {
    if (this.#timer !== undefined) clearTimeout(this.#timer);
    this.#timer = undefined;
    await this.#save();
  }

  #save(): Promise<void> {
    // Snapshot when the write starts, so the file always holds one consistent state.
    this.#chain = this.#chain.then(() => writeJsonAtomically(this.#file, serializeState(this.#snapshot()))).catch((err: unknown) => this.#onError(err));
    return this.#chain;
  }
}
