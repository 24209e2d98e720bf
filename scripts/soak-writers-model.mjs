/**
 * The model of scripts/soak-writers.mjs: files whose lines are owned by three writers (folder A,
 * folder B, the web editor) and the judgement of one round, pure so that a unit test can state
 * it (test/support/soak-writers-model.test.ts).
 */

/** Lines of each writer's section in a model file. */
export const LINES = 6;
/** The writers' sections, in file order: A's folder, the web editor, B's folder. */
export const SECTIONS = ["a", "w", "b"];

/** Each section's lines, three fixed lines between sections: edits never neighbour. */
export function render(name, m) {
  const out = [`// file ${name}`];
  for (const [k, s] of SECTIONS.entries()) {
    if (k > 0) out.push(`// ---- fence ${k}a`, `// ---- fence ${k}b`, `// ---- fence ${k}c`);
    for (let i = 0; i < LINES; i++) out.push(`// ${s}${i} ${m[s][i]}`);
  }
  return `${out.join("\n")}\n// end\n`;
}

/** The sections' tokens, or undefined when the text is not a whole model file (empty, truncated, markers). */
export function parse(name, text) {
  if (typeof text !== "string") return undefined;
  const m = {};
  for (const s of SECTIONS) {
    m[s] = [];
    for (let i = 0; i < LINES; i++) {
      const token = text.match(new RegExp(`^// ${s}${i} (\\S+)$`, "m"))?.[1];
      if (token === undefined) return undefined;
      m[s].push(token);
    }
  }
  return text === render(name, m) ? m : undefined;
}

/** Events that tell the user something happened to a file (a `pulled` or `pushed` line does not). */
const TELLS = new Set(["conflict", "notice", "error", "halted"]);

/**
 * Judges one round. `model`: name -> the tokens each writer wrote last (the expectation);
 * `remote`: the service's files after the round went quiet; `said`: both daemons' events of the
 * round; `kept`: every text a user can find (backups, conflicts, versions); `decision`: B's
 * rewrite of one of A's lines, if the round made one; `adopt`: a version the user chose, whose
 * files replace the expectation.
 *
 * A token missing from the service is `displaced` when a kept text holds it and an event named
 * its file, `hidden` when kept but never named, `lost` when kept nowhere. The model then follows
 * the service. Returns the lists, and whether a decision made after a confirmed push was undone.
 */
export function judgeRound({ model, remote, said, kept, decision, adopt = false }) {
  const out = { displaced: [], hidden: [], lost: [], decisionUndone: false };
  const keptModels = [];
  for (const [name, m] of model) {
    const got = parse(name, remote[name]);
    if (got === undefined) {
      out.lost.push(`${name}: missing, truncated or with markers on the service`);
      continue;
    }
    if (!adopt)
      for (const s of SECTIONS)
        for (let i = 0; i < LINES; i++) {
          const want = m[s][i];
          if (got[s][i] === want) continue;
          if (decision?.name === name && s === "a" && i === decision.line) {
            // In the race window either side may stand; after a confirmed push, the decision must.
            if (!decision.inWindow) out.decisionUndone = true;
            continue;
          }
          const where = `${name} ${s}${i} ${want}`;
          if (!isKept(kept, keptModels, name, s, i, want)) out.lost.push(where);
          else if (!said.some((e) => TELLS.has(e.event) && JSON.stringify(e).includes(name))) out.hidden.push(where);
          else out.displaced.push(where);
        }
    model.set(name, got);
  }
  return out;
}

function isKept(kept, cache, name, s, i, token) {
  if (cache.length === 0) for (const text of kept) cache.push(text);
  return cache.some((text) => text.includes(`// file ${name}\n`) && text.includes(`// ${s}${i} ${token}\n`));
}
