/**
 * Background generations: one run per design, finished by a timer after generationMs or on
 * demand by the control API.
 *
 * Decisions (the real service documents none of this, docs/service-facts.md#generation):
 * - A prompt sent while the design is generating is refused with 409
 *   `{ "error": "Design is already generating" }` and costs no credit.
 * - A prompt containing the literal `[fail]` ends in a failed generation: the design goes idle
 *   with no new artifact, and the chat gets an assistant message saying it failed.
 * - A successful run edits the artifact that is active when it finishes (a version picked in
 *   the editor meanwhile is what the "AI" builds on) and appends a new active artifact titled
 *   with the prompt.
 */
import { EmulatorHttpError } from "./http-error.js";
import { newUuid } from "./ids.js";
import { applyPromptEdits } from "./prompt-edits.js";
import { scaffoldFiles } from "./scaffold.js";
import type { EmulatorStore } from "./store.js";
import type { StoredDesign } from "./types.js";

/** The literal that makes a generation fail. */
export const FAIL_MARKER = "[fail]";
/** Message of the 409 answer to a prompt sent while generating. */
export const ALREADY_GENERATING = "Design is already generating";

/** Outcome of a finished generation: the new artifact, or null when it failed. */
export interface GenerationOutcome {
  artifactId: string | null;
}

/** Starts and finishes generations against one store. */
export class GenerationRunner {
  readonly #store: EmulatorStore;
  readonly #generationMs: number;
  readonly #timers = new Map<string, NodeJS.Timeout>();

  constructor(store: EmulatorStore, generationMs: number) {
    this.#store = store;
    this.#generationMs = generationMs;
  }

  /** Throws the 409 when `design` is generating. */
  assertIdle(design: StoredDesign): void {
    if (design.generation !== null) throw new EmulatorHttpError(409, ALREADY_GENERATING);
  }

  /** Records the user's prompt and starts a run; returns its requestId. */
  start(design: StoredDesign, prompt: string, options: { autoFinish: boolean; firstFiles?: Map<string, string> }): string {
    this.assertIdle(design);
    const requestId = newUuid();
    const firstFiles = options.firstFiles === undefined ? {} : { firstFiles: [...options.firstFiles.entries()] };
    design.generation = { requestId, prompt, startedAt: this.#store.now(), autoFinish: options.autoFinish, ...firstFiles };
    this.#store.addMessage(design, "user", prompt);
    if (options.autoFinish) this.#schedule(design.editorId, this.#generationMs);
    return requestId;
  }

  /** Finishes the design's run now (cancelling its timer). 409 when it is not generating. */
  finish(editorId: string): GenerationOutcome {
    const design = this.#store.requireDesign(editorId);
    const run = design.generation;
    if (run === null) throw new EmulatorHttpError(409, `Design ${editorId} is not generating`);
    this.#clearTimer(editorId);
    design.generation = null;
    if (run.prompt.includes(FAIL_MARKER)) {
      this.#store.addMessage(design, "assistant", "Sorry, the generation failed. No changes were made.");
      return { artifactId: null };
    }
    // A design's first generation builds on the scaffold or template it was created from.
    const source = design.activeArtifactId === null ? new Map(run.firstFiles ?? scaffoldFiles(design.name)) : this.#store.requireArtifact(design).files;
    const result = applyPromptEdits(source, run.prompt);
    const artifact = this.#store.addArtifact(design, result.files, run.prompt);
    this.#store.addMessage(design, "assistant", result.summary, artifact.id);
    return { artifactId: artifact.id };
  }

  /** Re-arms timers of runs loaded from a data file, for the time they had left. */
  resume(): void {
    for (const design of this.#store.designs()) {
      const run = design.generation;
      if (run === null || !run.autoFinish) continue;
      const left = run.startedAt + this.#generationMs - this.#store.now();
      this.#schedule(design.editorId, Math.max(0, left));
    }
  }

  /** Cancels every timer (runs stay recorded as generating, for persistence). */
  stop(): void {
    for (const timer of this.#timers.values()) clearTimeout(timer);
    this.#timers.clear();
  }

  #schedule(editorId: string, delayMs: number): void {
    this.#clearTimer(editorId);
    const timer = setTimeout(() => {
      this.#timers.delete(editorId);
      const design = this.#store.findDesign(editorId);
      if (design?.generation != null) this.finish(editorId);
    }, delayMs);
    // A pending generation must not keep a CLI or test process alive on its own.
    timer.unref();
    this.#timers.set(editorId, timer);
  }

  #clearTimer(editorId: string): void {
    const timer = this.#timers.get(editorId);
    if (timer !== undefined) clearTimeout(timer);
    this.#timers.delete(editorId);
  }
}
