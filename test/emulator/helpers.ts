/** Shared helpers of the emulator suites: a started emulator per test and a tiny fetch wrapper. */
import { afterEach } from "vitest";
import { startEmulator, type EmulatorOptions, type RunningEmulator } from "../../src/emulator/index.js";

export const KEY_A = "key-alice-0001";
export const KEY_B = "key-bob-0002";

/** A parsed answer. */
export interface Answer {
  status: number;
  body: unknown;
  text: string;
  headers: Headers;
}

/** Starts emulators and closes them after each test. */
export function useEmulators(): (options?: EmulatorOptions) => Promise<RunningEmulator> {
  const running: RunningEmulator[] = [];
  afterEach(async () => {
    await Promise.all(running.splice(0).map((emu) => emu.close()));
  });
  return async (options = {}) => {
    const emu = await startEmulator({ generationMs: 50, ...options });
    running.push(emu);
    return emu;
  };
}

/** Calls `${emu.baseUrl}${path}` with KEY_A unless `key` says otherwise (null: no header). */
export async function call(
  emu: RunningEmulator,
  method: string,
  path: string,
  options: { body?: unknown; rawBody?: string; key?: string | null } = {},
): Promise<Answer> {
  const headers: Record<string, string> = {};
  const key = options.key === undefined ? KEY_A : options.key;
  if (key !== null) headers["x-mp-api-key"] = key;
  let body: string | undefined = options.rawBody;
  if (options.body !== undefined) body = JSON.stringify(options.body);
  if (body !== undefined) headers["content-type"] = "application/json";
  const res = await fetch(`${emu.baseUrl}${path}`, { method, headers, body });
  const text = await res.text();
  let parsed: unknown = undefined;
  try {
    parsed = JSON.parse(text);
  } catch {
    parsed = undefined;
  }
  return { status: res.status, body: parsed, text, headers: res.headers };
}

/** The body as a record, for property assertions. */
export function json(answer: Answer): Record<string, unknown> {
  if (typeof answer.body !== "object" || answer.body === null) {
    throw new Error(`expected a JSON object, got ${answer.status} ${answer.text}`);
  }
  return answer.body as Record<string, unknown>;
}

/** Creates a blank design over HTTP and returns its editorId and active artifact. */
export async function createBlank(emu: RunningEmulator, key = KEY_A, name?: string): Promise<{ editorId: string; artifactId: string }> {
  const answer = await call(emu, "POST", "/v3/designs", { body: name === undefined ? {} : { name }, key });
  if (answer.status !== 200) throw new Error(`create failed: ${answer.status} ${answer.text}`);
  const body = json(answer);
  return { editorId: String(body["editorId"]), artifactId: String(body["activeArtifactId"]) };
}

/** Polls status (bounded) until the design is idle; returns the last status body. */
export async function waitUntilIdle(emu: RunningEmulator, editorId: string, key = KEY_A, timeoutMs = 5000): Promise<Record<string, unknown>> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const status = json(await call(emu, "GET", `/v3/designs/${editorId}/status`, { key }));
    if (status["isGenerating"] === false) return status;
    if (Date.now() > deadline) throw new Error(`design ${editorId} still generating after ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}
