/**
 * A second client on the same design: another folder with its own state and its own
 * DesignSync over the same fake service, as a teammate running mpsync. For the first client its
 * pushes are remote changes that move no artifact id; its own folder must converge too.
 */
import { ApiError } from "../../src/api/errors.js";
import { createSilentLogger } from "../../src/log/logger.js";
import { createIgnoreMatcher } from "../../src/local/ignore-rules.js";
import { checkRemoteName } from "../../src/local/path-jail.js";
import type { CycleReport } from "../../src/sync/design-sync.js";
import { DesignSync } from "../../src/sync/design-sync.js";
import type { SyncEvent } from "../../src/sync/events.js";
import { createMemoryFolder, describeContent } from "../support/memory-ports.js";
import { jailRemoteNames } from "../../src/sync/remote-snapshot.js";
import type { World } from "./world.js";

/** The teammate: a folder, its state, its engine; its PATCHes are noted as remote content. */
export class Teammate {
  readonly folder = createMemoryFolder({ matcher: createIgnoreMatcher({ patterns: [] }) });
  readonly store = this.folder.store;
  readonly tree = this.folder.tree;
  readonly pending = new Set<string>();
  readonly events: SyncEvent[] = [];
  readonly #w: World;
  #sync: DesignSync | undefined;

  constructor(world: World) {
    this.#w = world;
    this.tree.onAccess = (a) => {
      if (a.op === "write" || a.op === "remove") this.pending.add(a.rel);
    };
  }

  /** Starts the teammate's mpsync: open, then the start-up full sync. */
  async start(): Promise<void> {
    this.#sync = new DesignSync({
      dir: "mate",
      design: this.#w.service.editorId,
      client: this.#w.service.client,
      local: this.tree,
      matcher: createIgnoreMatcher({ patterns: [] }),
      store: this.store,
      policy: "merge",
      logger: createSilentLogger(),
      emit: (e) => this.events.push(e),
      clock: this.#w.clock,
    });
    await this.#sync.open();
    await this.run((s) => s.fullSync());
  }

  /** The teammate saves `rel` with line `line` changed. */
  edit(rel: string, line: number): void {
    const current = this.tree.files.get(rel);
    const next = typeof current === "string" ? this.#w.editLine(current, line, "m") : this.#w.freshText("mate");
    this.#w.lines.wrote(rel, current, next);
    this.tree.put(rel, next);
    this.pending.add(rel);
  }

  /** Its push pass over what it saved. */
  async push(): Promise<void> {
    const batch = new Set(this.pending);
    this.pending.clear();
    if ((await this.run((s) => s.pushPaths(batch))) === "failed") for (const p of batch) this.pending.add(p);
  }

  /** One engine step; a failed request is a failed cycle (retried later). Its PATCHes are remote content for the first client. */
  async run(step: (sync: DesignSync) => Promise<CycleReport | undefined>): Promise<"ok" | "failed"> {
    const sync = this.#sync;
    if (sync === undefined) return "failed";
    const before = this.#w.service.patches.length;
    const outer = this.#w.mateRunning;
    this.#w.mateRunning = true;
    try {
      await step(sync);
      return "ok";
    } catch (err) {
      if (!(err instanceof ApiError)) throw err;
      return "failed";
    } finally {
      this.#w.mateRunning = outer;
      for (const patch of this.#w.service.patches.slice(before)) {
        this.#w.teammatePatches.add(patch);
        if (patch.applied) for (const f of patch.files) this.#w.noteRemote(f.fileName, f.code);
      }
    }
  }

  /** A full sync; when a breaker halts it, a forced one, as the teammate would run `pull --force`. */
  async settle(): Promise<void> {
    let halted = false;
    await this.run(async (s) => {
      const report = await s.fullSync();
      halted = report.plan.halt !== undefined;
      return report;
    });
    if (halted) await this.run((s) => s.fullSync({ force: true }));
  }

  /** Once quiet: every file of the teammate's folder not in conflict holds the remote content. */
  converged(): string[] {
    const remote = this.#w.service.active().files;
    const refused = new Set(jailRemoteNames([...remote.keys()]).refused.map((r) => r.name));
    const out: string[] = [];
    for (const [rel, text] of remote) {
      if (refused.has(rel) || !checkRemoteName(rel).ok || this.tree.ignores(rel)) continue;
      const local = this.tree.files.get(rel);
      if (local === undefined) {
        if (this.store.saved?.files[rel] === undefined) out.push(`teammate: ${rel} is remote only`);
        continue;
      }
      const read = describeContent(local);
      if (read.binary || read.hasMarkers) continue;
      // Content the service refused (413 alone) stays local, reported, until it changes.
      if (this.store.saved?.refusedContent?.[rel] === read.hash) continue;
      if (read.text !== text) out.push(`teammate: ${rel} differs from the remote`);
    }
    return out;
  }
}
