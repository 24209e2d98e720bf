/**
 * The daemon loop never forgets a local change: over random histories of saves, status
 * answers, git pauses (before a cycle, and begun during one), failed and answered cycles, every changed path stays owed (pending,
 * in a push in flight, or covered by a full sync still due) until a cycle that covered it
 * was answered; and once the service answers again, one more cycle settles everything. Every
 * `mpsync sync` asked is answered once: at once when no full sync runs for it, else by that
 * full sync's end or failure.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import type { DesignStatus } from "../api/schemas.js";
import type { FailureClass } from "../sync/failure.js";
import type { SyncRequest } from "./loop-state.js";
import { initialLoopState, step, type Effect, type LoopConfig, type LoopEvent, type LoopState } from "./worker-loop.js";

const cfg: LoopConfig = { label: "web", publishOnPush: false, remoteCheckMs: 60_000, retry: { baseMs: 1000, maxMs: 60_000 } };
const PATHS = ["a.ts", "b.ts", "lib/c.ts", "d.css"];

type Move =
  | { k: "save"; paths: string[] }
  | { k: "cycle"; gitBusy: boolean }
  | { k: "answer" }
  | { k: "fail"; failure: "retry" | "wait" | "git" }
  | { k: "retry-due" }
  | { k: "confirm-due" }
  | { k: "git-free" }
  | { k: "status"; generating: boolean; moved: boolean }
  | { k: "sync"; gitBusy: boolean };

const move: fc.Arbitrary<Move> = fc.oneof(
  fc.record({ k: fc.constant("save" as const), paths: fc.subarray(PATHS, { minLength: 1 }) }),
  fc.record({ k: fc.constant("cycle" as const), gitBusy: fc.boolean() }),
  fc.constant({ k: "answer" as const }),
  fc.record({ k: fc.constant("fail" as const), failure: fc.constantFrom("retry" as const, "wait" as const, "git" as const) }),
  fc.constant({ k: "retry-due" as const }),
  fc.constant({ k: "confirm-due" as const }),
  fc.constant({ k: "git-free" as const }),
  fc.record({ k: fc.constant("status" as const), generating: fc.boolean(), moved: fc.boolean() }),
  fc.record({ k: fc.constant("sync" as const), gitBusy: fc.boolean() }),
);

/** The loop plus what the shell would have in flight. */
class World {
  state: LoopState = initialLoopState();
  /** Paths saved and not yet covered by an answered cycle. */
  readonly owed = new Set<string>();
  inFlight: { kind: "push"; paths: ReadonlySet<string> } | { kind: "full"; request?: SyncRequest | undefined } | undefined;
  artifact = 1;
  /** `mpsync sync` requests asked and not answered yet. */
  readonly asked = new Set<number>();
  requests = 0;

  send(event: LoopEvent): void {
    const out = step(this.state, event, cfg);
    this.state = out.state;
    for (const e of out.effects) this.#effect(e);
  }

  #effect(e: Effect): void {
    // A queued cycle: decided at once (the shell runs it next).
    if (e.do === "enqueue-cycle") {
      if (this.inFlight === undefined) this.send({ type: "cycle", gitBusy: false, halted: false });
    } else if (e.do === "push") {
      this.inFlight = { kind: "push", paths: e.paths };
    } else if (e.do === "full-sync") {
      this.inFlight = { kind: "full", request: e.check === true ? undefined : e.request };
    } else if (e.do === "answer-sync") {
      expect(this.asked.has(e.request), `request ${e.request} answered twice or never asked`).toBe(true);
      this.asked.delete(e.request);
    }
  }

  apply(m: Move): void {
    switch (m.k) {
      case "save":
        for (const p of m.paths) this.owed.add(p);
        this.send({ type: "local", paths: m.paths });
        return;
      case "cycle":
        if (this.inFlight === undefined) this.send({ type: "cycle", gitBusy: m.gitBusy, halted: false });
        return;
      case "answer": {
        const done = this.inFlight;
        if (done === undefined) return;
        this.inFlight = undefined;
        if (done.kind === "full") this.owed.clear();
        else for (const p of done.paths) this.owed.delete(p);
        this.send({
          type: "cycle-done",
          full: done.kind === "full",
          report: { remoteNames: [], pulledOrRemoved: 0, pushed: 0 },
          hadPersistedError: false,
          now: 0,
          ...(done.kind === "full" && done.request !== undefined ? { request: done.request, halted: false } : {}),
        });
        return;
      }
      case "fail": {
        const failed = this.inFlight;
        if (failed === undefined) return;
        this.inFlight = undefined;
        if (failed.kind === "push") this.send({ type: "unsent", paths: failed.paths });
        const answers =
          failed.kind === "full" && failed.request !== undefined ? { request: failed.request.id, code: "NETWORK", message: "offline" } : undefined;
        this.send({ type: "failed", failure: m.failure as FailureClass, code: "NETWORK", message: "offline", jitter: 0.5, answers });
        return;
      }
      case "retry-due":
        if (this.state.retryArmed) this.send({ type: "retry-due" });
        return;
      case "confirm-due":
        if (this.state.confirmArmed) this.send({ type: "confirm-due" });
        return;
      case "git-free":
        if (this.state.waitingForGit) this.send({ type: "git-free", waitedMs: 1, operation: undefined });
        return;
      case "status": {
        if (this.inFlight !== undefined) return; // status is handled on the chain, after the cycle
        if (m.moved && !m.generating) this.artifact += 1;
        const status = { isGenerating: m.generating, activeArtifactId: `a${this.artifact}`, availableFiles: [] } as unknown as DesignStatus;
        this.send({
          type: "status",
          status,
          persisted: undefined,
          artifactId: `a${this.artifact - (m.moved ? 1 : 0)}`,
          halted: false,
          gitBusy: false,
          now: 0,
          at: 0,
        });
        return;
      }
      case "sync": {
        if (this.inFlight !== undefined) return; // asked on the chain, after the running cycle
        this.requests += 1;
        this.asked.add(this.requests);
        this.send({ type: "sync-now", request: this.requests, force: false, gitBusy: m.gitBusy, halted: false });
        return;
      }
    }
  }

  /** A request not answered yet is the one the full sync in flight answers. */
  checkAsked(): void {
    const running = this.inFlight?.kind === "full" ? this.inFlight.request?.id : undefined;
    expect([...this.asked].filter((id) => id !== running)).toEqual([]);
  }

  /** Every owed path is pending, in a push in flight, or covered by a full sync due or running. */
  checkOwed(): void {
    const fullDue = this.state.needsFullSync || this.inFlight?.kind === "full";
    for (const p of this.owed) {
      const held = this.state.pending.has(p) || (this.inFlight?.kind === "push" && this.inFlight.paths.has(p)) || fullDue;
      expect(
        held,
        `${p} is owed but nowhere: ${JSON.stringify({ pending: [...this.state.pending], inFlight: this.inFlight, needsFullSync: this.state.needsFullSync })}`,
      ).toBe(true);
    }
  }

  /** The service answers and nothing is generating or busy: a few cycles settle every owed path. */
  settle(): void {
    for (let i = 0; i < 4 && (this.owed.size > 0 || this.inFlight !== undefined); i++) {
      if (this.state.generating) this.apply({ k: "status", generating: false, moved: false });
      if (this.state.waitingForGit) this.apply({ k: "git-free" });
      if (this.inFlight === undefined) this.apply({ k: "cycle", gitBusy: false });
      this.apply({ k: "answer" });
    }
  }
}

describe("worker loop: no local change is forgotten", () => {
  it("keeps every saved path owed until an answered cycle covered it, over random histories", () => {
    fc.assert(
      fc.property(fc.array(move, { maxLength: 40 }), (moves) => {
        const w = new World();
        w.send({ type: "start", generating: false });
        for (const m of moves) {
          w.apply(m);
          w.checkOwed();
          w.checkAsked();
        }
        w.settle();
        expect([...w.owed]).toEqual([]);
        expect([...w.asked]).toEqual([]);
      }),
      { numRuns: Number(process.env["MPSYNC_SOAK_RUNS"] ?? 500) },
    );
  });
});
