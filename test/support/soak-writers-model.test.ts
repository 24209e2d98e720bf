/**
 * The judgement of `npm run soak:writers` (scripts/soak-writers-model.mjs): a soak that passes
 * must have been able to fail, so each verdict it can give is stated here.
 */
import { describe, expect, it } from "vitest";
import { judgeRound, LINES, parse, render, type ModelFile } from "../../scripts/soak-writers-model.mjs";

const NAME = "src/file0.ts";
const fresh = (): ModelFile => ({ a: Array<string>(LINES).fill("init"), w: Array<string>(LINES).fill("init"), b: Array<string>(LINES).fill("init") });
const withLine = (m: ModelFile, side: keyof ModelFile, line: number, token: string): ModelFile => ({
  ...m,
  [side]: m[side].map((t, i) => (i === line ? token : t)),
});

function judge(expected: ModelFile, onService: ModelFile, extra: Partial<Parameters<typeof judgeRound>[0]> = {}) {
  const model = new Map([[NAME, expected]]);
  const verdict = judgeRound({ model, remote: { [NAME]: render(NAME, onService) }, said: [], kept: [], ...extra });
  return { verdict, model };
}

describe("soak-writers model", () => {
  it("renders and parses each writer's lines; a text with markers or cut short is no model file", () => {
    const m = withLine(fresh(), "w", 2, "wr1o0");
    expect(parse(NAME, render(NAME, m))).toEqual(m);
    expect(parse(NAME, render(NAME, m).replace("// w2 wr1o0\n", "<<<<<<< local\n// w2 wr1o0\n"))).toBeUndefined();
    expect(parse(NAME, render(NAME, m).slice(0, 40))).toBeUndefined();
  });

  it("every token on the service: nothing to report, and the model follows the service", () => {
    const m = withLine(fresh(), "a", 0, "ar1o0");
    const { verdict, model } = judge(m, m);
    expect(verdict).toEqual({ displaced: [], hidden: [], lost: [], decisionUndone: false });
    expect(model.get(NAME)).toEqual(m);
  });

  it("a token gone and kept nowhere is lost; kept but never named in an event is hidden; kept and said is displaced", () => {
    const expected = withLine(fresh(), "b", 3, "br2o1");
    const keptText = render(NAME, expected);
    expect(judge(expected, fresh()).verdict.lost).toEqual([`${NAME} b3 br2o1`]);
    expect(judge(expected, fresh(), { kept: [keptText] }).verdict.hidden).toEqual([`${NAME} b3 br2o1`]);
    // A `pulled` line names the file but tells nothing: still hidden.
    expect(judge(expected, fresh(), { kept: [keptText], said: [{ event: "pulled", files: [NAME] }] }).verdict.hidden).toHaveLength(1);
    const said = [{ event: "conflict", files: [NAME], message: `conflict in ${NAME}: the new version was built without your pushed edit` }];
    expect(judge(expected, fresh(), { kept: [keptText], said }).verdict).toMatchObject({ displaced: [`${NAME} b3 br2o1`], hidden: [], lost: [] });
  });

  it("B's decision on A's line must stand once A's push was confirmed; in the race window either side may", () => {
    const decided = withLine(fresh(), "a", 1, "d5");
    const undone = withLine(fresh(), "a", 1, "ar4o0");
    const decision = { name: NAME, line: 1, token: "d5", inWindow: false };
    expect(judge(decided, undone, { decision }).verdict.decisionUndone).toBe(true);
    expect(judge(decided, decided, { decision }).verdict.decisionUndone).toBe(false);
    expect(judge(decided, undone, { decision: { ...decision, inWindow: true } }).verdict).toEqual({
      displaced: [],
      hidden: [],
      lost: [],
      decisionUndone: false,
    });
  });

  it("a version the user chose replaces the expectation: nothing it removed counts as lost", () => {
    const expected = withLine(fresh(), "a", 2, "ar9o0");
    const { verdict, model } = judge(expected, fresh(), { adopt: true });
    expect(verdict.lost).toEqual([]);
    expect(model.get(NAME)).toEqual(fresh());
  });
});
