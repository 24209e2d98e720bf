/**
 * The rules for other writers (README, "a race or a decision"), one row each, through the pure
 * plan of a cycle: the ledger's records and what a read of the service found go in as data, the
 * plan and the writers' verdicts come out. Our PATCH of App.tsx sent SENT over BASE and was
 * answered on artifact a1; the file still holds SENT locally.
 */
import { describe, expect, it } from "vitest";
import { hashContent } from "../core/hash.js";
import { BaseLedger, type LandedPush, type LedgerData } from "./base-ledger.js";
import type { FileAction } from "./model.js";
import { planCycle, planTriples, pushPlanSettings } from "./plan-cycle.js";
import type { RemoteSnapshot } from "./remote-snapshot.js";

const h = hashContent;
const P = "App.tsx";
const BASE = "a\nb\nc\n";
const SENT = "a\nB ours\nc\n";
/** A teammate's text made on BASE: our line is not in it. */
const THEIRS = "a\nb\nC theirs\n";
/** An older text of ours, sent without an answer and replaced by SENT. */
const OLD_OURS = "a\nB old ours\nc\n";
const TEXTS = new Map([BASE, SENT, THEIRS, OLD_OURS].map((t) => [h(t), t]));

const landed = (more: Partial<LandedPush> = {}): LandedPush => ({ hash: h(SENT), previous: h(BASE), artifactId: "a1", ...more });

/** A push pass's plan of App.tsx, the service holding `remoteText` on a1. */
function planWith(ledgerData: Omit<LedgerData, "files">, remoteText: string) {
  const clock = { now: () => 0, monotonic: () => 0 };
  const ledger = new BaseLedger({ files: { [P]: { hash: h(SENT) } }, ...ledgerData }, async () => undefined, clock);
  const remote: RemoteSnapshot = { artifactId: "a1", listed: [P], names: new Set([P]), refused: [], texts: new Map([[P, remoteText]]) };
  const local = { hash: h(SENT), binary: false, hasMarkers: false };
  const triples = planTriples(new Set([P]), () => local, remote, 100, {
    ledger,
    ignores: () => false,
    refusedLocalOf: () => undefined,
    judgeName: () => () => undefined,
  });
  const planned = planCycle(triples, TEXTS, remote, 100, pushPlanSettings("merge"));
  const said = Object.entries(planned.writers).flatMap(([k, paths]) => ([...(paths as Set<string>)].includes(P) ? [k] : []));
  return { actions: planned.plan.actions, said };
}

const pull: FileAction = { kind: "pull", path: P, remoteHash: h(THEIRS), expectLocal: h(SENT), reason: "remote-changed" };

describe("the rules for other writers, through the plan", () => {
  it.each<[string, Omit<LedgerData, "files">, string, FileAction[], string[]]>([
    [
      "a decision (our edit was confirmed visible before the teammate removed it): their text is pulled, nothing said",
      { landed: { [P]: landed({ settled: true }) } },
      THEIRS,
      [pull],
      [],
    ],
    [
      "a race (a writer who could not have seen our edit): merged back once, from what our PATCH replaced, and said",
      { landed: { [P]: landed() } },
      THEIRS,
      [{ kind: "conflict", path: P, policy: "merge", base: h(BASE), localHash: h(SENT), remoteHash: h(THEIRS) }],
      ["raced", "mergedBack"],
    ],
    [
      "removed again after our merge-back: the removal stands (pulled) and is said",
      { landed: { [P]: landed({ mergedBack: true }) } },
      THEIRS,
      [pull],
      ["removedAgain"],
    ],
    [
      "our own late request (an older text of ours arrives after the newer one): the latest is sent again and said",
      { landed: { [P]: landed() }, unanswered: { [P]: [h(OLD_OURS)] } },
      OLD_OURS,
      [{ kind: "push", path: P, expectLocal: h(SENT), reason: "local-changed" }],
      ["ownLate"],
    ],
    ["the service holds our edit: nothing to do, nothing said", { landed: { [P]: landed() } }, SENT, [], []],
  ])("%s", (_name, ledgerData, remoteText, actions, said) => {
    const planned = planWith(ledgerData, remoteText);
    expect(planned.actions).toEqual(actions);
    expect(planned.said).toEqual(said);
  });
});
