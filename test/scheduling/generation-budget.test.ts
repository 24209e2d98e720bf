import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { MpsyncError } from "../../src/core/errors.js";
import {
  createFileGenerationLedger,
  createMemoryGenerationLedger,
  formatLocalTime,
  GENERATION_LIMIT,
  GENERATION_WINDOW_MS,
  GenerationBudget,
} from "../../src/scheduling/generation-budget.js";
import { hashApiKey } from "../../src/scheduling/key-hash.js";
import { createFakeClock } from "../api/http-test-server.js";

const KEY = "mp_budget_key_123456";
let dir = "";
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), "mpsync-budget-"));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe("GenerationBudget", () => {
  it("documents the service limit", () => {
    expect(GENERATION_LIMIT).toBe(1000);
    expect(GENERATION_WINDOW_MS).toBe(10 * 3_600_000);
  });

  it("allows `limit` generations per window, then refuses with the local time it frees up", async () => {
    const clock = createFakeClock();
    const budget = new GenerationBudget({ apiKey: KEY, ledger: createMemoryGenerationLedger(), clock, limit: 3, windowMs: 1000 });
    const firstAt = clock.now();
    for (let i = 0; i < 3; i++) {
      await budget.check();
      await budget.record();
      await clock.advance(100);
    }
    expect(await budget.remaining()).toBe(0);
    const err = await budget.check().catch((e: unknown) => e);
    expect(err).toBeInstanceOf(MpsyncError);
    expect((err as MpsyncError).code).toBe("GENERATION_BUDGET");
    expect((err as MpsyncError).message).toContain(`it frees up at ${formatLocalTime(firstAt + 1000)} (local time)`);
    expect(await budget.freesAt()).toBe(firstAt + 1000);
    await clock.advance(firstAt + 1000 - clock.now());
    await expect(budget.check()).resolves.toBeUndefined();
    expect(await budget.remaining()).toBe(1);
  });

  it("counts per key", async () => {
    const clock = createFakeClock();
    const ledger = createMemoryGenerationLedger();
    const a = new GenerationBudget({ apiKey: "key-a-1234", ledger, clock, limit: 1 });
    const b = new GenerationBudget({ apiKey: "key-b-1234", ledger, clock, limit: 1 });
    await a.record();
    await expect(a.check()).rejects.toMatchObject({ code: "GENERATION_BUDGET" });
    await expect(b.check()).resolves.toBeUndefined();
  });

  it("persists across processes in a file keyed by the key's hash, never the key", async () => {
    const clock = createFakeClock();
    const file = join(dir, "generations.json");
    await new GenerationBudget({ apiKey: KEY, ledger: createFileGenerationLedger(file), clock, limit: 2 }).record();
    await new GenerationBudget({ apiKey: KEY, ledger: createFileGenerationLedger(file), clock, limit: 2 }).record();
    const later = new GenerationBudget({ apiKey: KEY, ledger: createFileGenerationLedger(file), clock, limit: 2 });
    await expect(later.check()).rejects.toMatchObject({ code: "GENERATION_BUDGET" });
    const text = await readFile(file, "utf8");
    expect(text).not.toContain(KEY);
    expect(Object.keys(JSON.parse(text) as object)).toEqual([hashApiKey(KEY)]);
  });

  it("forgets sends older than the window when recording", async () => {
    const clock = createFakeClock();
    const file = join(dir, "generations.json");
    const budget = new GenerationBudget({ apiKey: KEY, ledger: createFileGenerationLedger(file), clock, windowMs: 1000 });
    await budget.record();
    await clock.advance(5000);
    await budget.record();
    expect((JSON.parse(await readFile(file, "utf8")) as Record<string, number[]>)[hashApiKey(KEY)]).toEqual([clock.now()]);
  });

  it("treats a missing or corrupt ledger file as empty", async () => {
    const clock = createFakeClock();
    const file = join(dir, "generations.json");
    const budget = new GenerationBudget({ apiKey: KEY, ledger: createFileGenerationLedger(file), clock, limit: 1 });
    await expect(budget.check()).resolves.toBeUndefined();
    await writeFile(file, "{{{", "utf8");
    await expect(budget.check()).resolves.toBeUndefined();
    await budget.record();
    await expect(budget.check()).rejects.toMatchObject({ code: "GENERATION_BUDGET" });
  });

  it("formats local time as YYYY-MM-DD HH:MM", () => {
    expect(formatLocalTime(new Date(2025, 2, 4, 5, 6).getTime())).toBe("2025-03-04 05:06");
  });
});
