/**
 * The service and folder checks behind `mpsync doctor` (app/doctor.ts runs them). Each returns
 * data (name, ok, detail, fix) and never throws: a doctor that crashes on the problem it should
 * diagnose is no help.
 */
import { constants } from "node:fs";
import { access, readFile, stat } from "node:fs/promises";
import { join } from "node:path";
import { createDefaultAgent, sendHttpRequest, TransportFailure, type HttpResponse } from "../api/http-transport.js";
import { API_KEY_HEADER } from "../api/schemas.js";
import type { ResolvedDesign } from "../config/load-config.js";
import { isLockHolderAlive, readFolderLock } from "../state/lock.js";
import { STATE_DIR_NAME } from "../state/state-store.js";
import { describeError } from "../sync/describe-error.js";
import { isErrno, errnoCode } from "../core/errors.js";
import type { DoctorCheck } from "../app/json-documents.js";

/** One check's outcome (the `--json` shape). */
export type { DoctorCheck } from "../app/json-documents.js";

/** Local clocks further than this from the service's are reported. */
export const MAX_CLOCK_SKEW_MS = 2 * 60 * 1000;
const PROBE_TIMEOUTS = { connectMs: 5_000, headersMs: 10_000, bodyMs: 10_000 };

/** A check that passed. */
export const pass = (name: string, detail: string): DoctorCheck => ({ name, ok: true, detail, fix: null });
/** A check that failed, with what to do. */
export const fail = (name: string, detail: string, fix: string): DoctorCheck => ({ name, ok: false, detail, fix });

/** What the service checks found; `keyRefused`: the service answered 401 or 403 to the key. */
export interface ServiceChecks {
  checks: DoctorCheck[];
  keyRefused: boolean;
}

/** Reachability, key validity (GET /v3/health) and clock skew (the response's Date header). */
export async function checkService(baseUrl: string, key: string | undefined, now: () => number): Promise<ServiceChecks> {
  const agent = createDefaultAgent(PROBE_TIMEOUTS);
  const started = now();
  let res: HttpResponse;
  try {
    res = await sendHttpRequest(agent, {
      method: "GET",
      url: `${baseUrl}/v3/health`,
      headers: key === undefined ? {} : { [API_KEY_HEADER]: key },
      timeouts: PROBE_TIMEOUTS,
      maxBodyBytes: 1024 * 1024,
    });
  } catch (err) {
    const why = err instanceof TransportFailure ? err.reason : describeError(err);
    return {
      checks: [
        fail("service", `${baseUrl} unreachable: ${why}`, "check the network connection, or baseUrl in .syncrc / MPSYNC_BASE_URL"),
        fail("key valid", "not checked: the service is unreachable", "fix the service check first"),
      ],
      keyRefused: false,
    };
  } finally {
    await agent.close().catch(() => undefined);
  }
  const received = now();
  const latencyMs = received - started;
  return {
    checks: [serviceCheck(baseUrl, res.status, latencyMs), keyValidCheck(key, res.status, latencyMs), clockCheck(res, received, latencyMs)],
    keyRefused: key !== undefined && (res.status === 401 || res.status === 403),
  };
}

function serviceCheck(baseUrl: string, status: number, latencyMs: number): DoctorCheck {
  if (status === 404)
    return fail(
      "service",
      `${baseUrl} answered 404 for /v3/health: no v3 API there`,
      "baseUrl must include the API prefix, e.g. https://api.magicpatterns.com/api",
    );
  if (status >= 500) return fail("service", `${baseUrl} answered ${status} (${latencyMs} ms)`, "the service has trouble: try again later");
  return pass("service", `${baseUrl} reachable (${latencyMs} ms)`);
}

function keyValidCheck(key: string | undefined, status: number, latencyMs: number): DoctorCheck {
  if (key === undefined) return fail("key valid", "not checked: no key", "set MP_API_KEY, or run mpsync login");
  if (status === 200) return pass("key valid", `accepted: GET /v3/health 200 in ${latencyMs} ms`);
  if (status === 401 || status === 403) {
    return fail(
      "key valid",
      `refused: GET /v3/health ${status}`,
      "the key is wrong or revoked: create one under account settings, API keys, then mpsync login",
    );
  }
  return fail("key valid", `GET /v3/health answered ${status}`, "try again later; if it persists, check baseUrl");
}

function clockCheck(res: HttpResponse, receivedAt: number, latencyMs: number): DoctorCheck {
  const header = res.headers["date"];
  const serverMs = typeof header === "string" ? Date.parse(header) : Number.NaN;
  if (Number.isNaN(serverMs)) return pass("clock", "not checked: the service sent no Date header");
  // The server stamped its Date about half-way through the round trip; Date has 1 s resolution.
  const skewMs = receivedAt - latencyMs / 2 - serverMs;
  const seconds = Math.round(Math.abs(skewMs) / 1000);
  if (Math.abs(skewMs) <= MAX_CLOCK_SKEW_MS) return pass("clock", `within ${Math.max(1, seconds)} s of the service`);
  return fail(
    "clock",
    `local clock is ${seconds} s ${skewMs > 0 ? "ahead of" : "behind"} the service`,
    "sync the system clock (NTP): poll spacing and the generation budget depend on it",
  );
}

/** Existence, writability, lock and state of one mapped folder, named by `label` (config/mappings.ts `folderLabel`). */
export async function checkFolder(design: ResolvedDesign, label: string): Promise<DoctorCheck[]> {
  const info = await stat(design.root).catch(() => undefined);
  if (info === undefined) return [fail(`folder ${label}`, `${design.root} does not exist`, "run mpsync pull to create it, or fix its dir in .syncrc")];
  if (!info.isDirectory()) return [fail(`folder ${label}`, `${design.root} is not a folder`, "fix its dir in .syncrc")];
  const writable = await access(design.root, constants.W_OK).then(
    () => true,
    () => false,
  );
  const folder = writable
    ? pass(`folder ${label}`, `${design.root} exists and is writable`)
    : fail(`folder ${label}`, `${design.root} is not writable`, `chmod u+w ${design.root}`);
  return [folder, await lockCheck(design, label), await stateCheck(design, label)];
}

async function lockCheck(design: ResolvedDesign, label: string): Promise<DoctorCheck> {
  const name = `lock ${label}`;
  try {
    const holder = await readFolderLock(design.root);
    if (holder === undefined) return pass(name, "free");
    const who = `pid ${holder.pid} (${holder.command}) since ${new Date(holder.startedAt).toISOString()}`;
    return isLockHolderAlive(holder) ? pass(name, `held by ${who}`) : pass(name, `stale lock of ${who}, no longer running: the next command takes it over`);
  } catch (err) {
    return fail(name, `cannot read the lock: ${describeError(err)}`, `check the permissions of ${join(design.root, STATE_DIR_NAME)}`);
  }
}

async function stateCheck(design: ResolvedDesign, label: string): Promise<DoctorCheck> {
  const name = `state ${label}`;
  const file = join(design.root, STATE_DIR_NAME, "state.json");
  let text: string;
  try {
    text = await readFile(file, "utf8");
  } catch (err) {
    if (isErrno(err, "ENOENT")) return pass(name, "not synced yet: mpsync pull creates it");
    return fail(name, `cannot read ${file}: ${errnoCode(err) ?? String(err)}`, `check the permissions of ${file}`);
  }
  let state: { files?: Record<string, unknown>; halted?: { reason?: string } };
  try {
    state = JSON.parse(text) as typeof state;
  } catch {
    return fail(name, `${file} is corrupt`, "run mpsync pull: the file is set aside and differing files become conflicts; nothing is deleted");
  }
  if (state.halted?.reason !== undefined) return fail(name, `needs attention: ${state.halted.reason}`, "check the cause, then mpsync pull --force");
  return pass(name, `readable, ${Object.keys(state.files ?? {}).length} files synced`);
}
