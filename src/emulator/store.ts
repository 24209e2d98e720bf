/**
 * The in-memory model of the service: designs, their artifacts (each one a version), chat
 * messages, credits per account and the fixed design systems. No HTTP here: routes and the
 * control API both work through this class, so they cannot disagree.
 */
import type { DesignSystem } from "../api/schemas.js";
import { EmulatorHttpError, notFound } from "./http-error.js";
import { newCanvasId, newDesignSystemId, newEditorId, newUuid, slugFor } from "./ids.js";
import type { StoredArtifact, StoredDesign, StoredMessage } from "./types.js";

/** What a new design starts with. */
export interface NewDesign {
  owner: string;
  name: string;
  /** Files of v1; null: no artifact until the first generation (a prompted design). */
  files: Map<string, string> | null;
  /** Title of version v1. */
  title: string;
  designSystemId?: string | null;
}

/** The whole store as plain data (persistence). */
export interface StoreState {
  designs: StoredDesign[];
  credits: Array<[owner: string, credits: number]>;
  designSystems: DesignSystem[];
}

const DEFAULT_DESIGN_SYSTEMS: ReadonlyArray<Omit<DesignSystem, "id">> = [
  { name: "Base", description: "Plain Tailwind CSS utility classes" },
  { name: "Wireframe", description: "Low-fidelity greyscale layout" },
  { name: "Shadcn", description: "Radix primitives styled with Tailwind (shadcn/ui)" },
  { name: "MUI", description: "Google Material Design components" },
  { name: "Mantine", description: "Mantine React components" },
  { name: "Chakra", description: "Accessible component library with style props" },
];

/** The emulator's state and every mutation of it. Calls `onChange` after each mutation. */
export class EmulatorStore {
  readonly #designs = new Map<string, StoredDesign>();
  readonly #credits = new Map<string, number>();
  #designSystems: DesignSystem[];
  readonly #defaultCredits: number;
  readonly #now: () => number;
  readonly #onChange: () => void;

  constructor(init: { defaultCredits: number; now?: () => number; onChange?: () => void }) {
    this.#defaultCredits = init.defaultCredits;
    this.#now = init.now ?? Date.now;
    this.#onChange = init.onChange ?? (() => undefined);
    this.#designSystems = DEFAULT_DESIGN_SYSTEMS.map((ds) => ({ id: newDesignSystemId(), ...ds }));
  }

  /** Epoch milliseconds on the store's clock. */
  now(): number {
    return this.#now();
  }

  /** Signals a mutation made directly on a design (persistence hook). */
  changed(): void {
    this.#onChange();
  }

  /** The design, or undefined. */
  findDesign(editorId: string): StoredDesign | undefined {
    return this.#designs.get(editorId);
  }

  /** The design, or a 404. */
  requireDesign(editorId: string): StoredDesign {
    const design = this.#designs.get(editorId);
    if (design === undefined) throw notFound(`Design ${editorId} not found`);
    return design;
  }

  /** Every design, in creation order. */
  designs(): IterableIterator<StoredDesign> {
    return this.#designs.values();
  }

  /** Creates a design whose v1 holds `files`; with `files` null it has no artifact yet. */
  createDesign(init: NewDesign): StoredDesign {
    let editorId = newEditorId();
    while (this.#designs.has(editorId)) editorId = newEditorId();
    const first = init.files === null ? undefined : this.#artifact(1, init.title, init.files);
    const design: StoredDesign = {
      editorId,
      owner: init.owner,
      name: init.name,
      canvasId: newCanvasId(),
      slug: slugFor(init.name, editorId),
      designSystemId: init.designSystemId ?? null,
      artifacts: new Map(first === undefined ? [] : [[first.id, first]]),
      activeArtifactId: first?.id ?? null,
      previewUrl: null,
      publishedArtifactId: null,
      publishedAt: null,
      messages: [],
      generation: null,
    };
    this.#designs.set(editorId, design);
    this.#onChange();
    return design;
  }

  /** The artifact of `design` (the active one when `artifactId` is left out), or a 404. */
  requireArtifact(design: StoredDesign, artifactId?: string): StoredArtifact {
    const id = artifactId ?? design.activeArtifactId;
    if (id === null) throw notFound(`Design ${design.editorId} has no artifact yet`);
    const artifact = design.artifacts.get(id);
    if (artifact === undefined) throw notFound(`Artifact ${id} not found in design ${design.editorId}`);
    return artifact;
  }

  /** Appends a new artifact (the next version) and makes it active. */
  addArtifact(design: StoredDesign, files: Map<string, string>, title: string): StoredArtifact {
    const artifact = this.#artifact(design.artifacts.size + 1, title, files);
    design.artifacts.set(artifact.id, artifact);
    design.activeArtifactId = artifact.id;
    this.#onChange();
    return artifact;
  }

  /** Makes an existing artifact the active one. */
  setActiveArtifact(design: StoredDesign, artifactId: string): void {
    this.requireArtifact(design, artifactId);
    design.activeArtifactId = artifactId;
    this.#onChange();
  }

  /** Appends a chat item (an assistant item may name the artifact it produced). */
  addMessage(design: StoredDesign, role: StoredMessage["role"], content: string, artifactId?: string): void {
    design.messages.push({ id: newUuid(), role, content, timeCreated: this.#now(), ...(artifactId === undefined ? {} : { artifactId }) });
    this.#onChange();
  }

  /** Credits left for an account. */
  credits(owner: string): number {
    return this.#credits.get(owner) ?? this.#defaultCredits;
  }

  /** Sets an account's credits. */
  setCredits(owner: string, credits: number): void {
    this.#credits.set(owner, Math.max(0, Math.floor(credits)));
    this.#onChange();
  }

  /** Takes one credit, or answers 402 when none is left. */
  spendCredit(owner: string): void {
    const left = this.credits(owner);
    if (left <= 0) throw new EmulatorHttpError(402, "Out of credits: this account has no credits left");
    this.setCredits(owner, left - 1);
  }

  /** The fixed design systems (ids stable for this store). */
  designSystems(): readonly DesignSystem[] {
    return this.#designSystems;
  }

  /** The store as plain data. Generation timers are not part of it. */
  exportState(): StoreState {
    return {
      designs: [...this.#designs.values()],
      credits: [...this.#credits.entries()],
      designSystems: this.#designSystems,
    };
  }

  /** Replaces the whole state (loading a data file). Does not signal a change. */
  importState(state: StoreState): void {
    this.#designs.clear();
    for (const design of state.designs) this.#designs.set(design.editorId, design);
    this.#credits.clear();
    for (const [owner, credits] of state.credits) this.#credits.set(owner, credits);
    if (state.designSystems.length > 0) this.#designSystems = state.designSystems;
  }

  #artifact(version: number, title: string, files: Map<string, string>): StoredArtifact {
    return { id: newUuid(), version, title, timeCreated: this.#now(), files: new Map(files) };
  }
}
