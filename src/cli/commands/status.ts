/** `mpsync status [DIR...] [--watch]`: what is pending on each side, read without the folder's lock. */
import type { Mapping } from "../../runtime.js";
import type { CommandContext } from "../context.js";
import { EXIT } from "../exit-codes.js";
import { clockTime } from "../../log/clock-time.js";
import { collectStatus, refreshLocalStatus, type DesignStatusReport } from "../../app/collect-status.js";
import { renderStatus, statusExitCode } from "./status-report.js";

/** `mpsync status`. */
export async function runStatus(ctx: CommandContext, dirs: string[], flags: { watch?: boolean }): Promise<number> {
  // Status must answer fast: one try per request, a short connect, no backoff (an
  // unreachable service is said, and the local side is still shown).
  ctx.runtime.failFast();
  if (flags.watch === true) return watchStatus(ctx, dirs);
  const reports: DesignStatusReport[] = [];
  for (const mapping of await ctx.runtime.mappings(dirs)) reports.push(await collectStatus(ctx.runtime, mapping));
  const failed = reports.filter((r) => r.errorCode !== undefined);
  // Read once for the report: collecting already did, unless no design reached the service.
  await ctx.runtime.keyInEffect().catch(() => undefined);
  const key = { ...ctx.runtime.keySource(), serviceUrl: ctx.runtime.baseUrl() };
  ctx.out.result("status", { ok: failed.length === 0, designs: reports, key }, () => {
    renderStatus(ctx.out, reports);
    ctx.out.info(ctx.out.c.dim(`service ${key.serviceUrl}, ${describeKey(key)}`));
  });
  return statusExitCode(reports);
}

/** Screen refreshes of `status --watch`: the local part is read again each time. */
export const STATUS_WATCH_REDRAW_MS = 1000;

/**
 * `status --watch`: like Mutagen's `sync monitor`, every mapping redrawn in place on a terminal
 * (one JSON line per collection with --json, one report per collection when piped). The local
 * part (changes, deletions, markers, pause, daemon and its uptime) is read every redraw from
 * the folder and its scan cache; the service is asked at most once per pollIntervalSec (at
 * least 2 s): status reads the design's files, which must stay bounded on the real service.
 * Ends with exit 0 on Ctrl-C.
 */
async function watchStatus(ctx: CommandContext, dirs: string[]): Promise<number> {
  const config = await ctx.runtime.config();
  const collectMs = Math.max(2000, config.config.pollIntervalSec * 1000);
  const live = ctx.io.stdout.isTTY === true && !ctx.out.opts.json;
  let stop: () => void = () => undefined;
  const stopped = new Promise<void>((resolve) => (stop = resolve));
  let ended = false;
  void stopped.then(() => (ended = true));
  const offs = [ctx.io.onSignal("SIGINT", () => stop()), ctx.io.onSignal("SIGTERM", () => stop())];
  try {
    const mappings = await ctx.runtime.mappings(dirs);
    let reports: DesignStatusReport[] = [];
    let collectedAt = 0;
    // Ages and the next collection are measured on the monotonic clock; `at` stays wall time.
    let collectedMono = Number.NEGATIVE_INFINITY;
    while (!ended) {
      if (ctx.runtime.clock.monotonic() - collectedMono >= collectMs) {
        reports = await collectAll(ctx, mappings);
        collectedAt = ctx.runtime.clock.now();
        collectedMono = ctx.runtime.clock.monotonic();
        if (ctx.out.opts.json) {
          // JSON Lines: one status document per collection.
          ctx.out.jsonLine("status-watch", { ok: reports.every((r) => r.errorCode === undefined), at: new Date(collectedAt).toISOString(), designs: reports });
        } else if (!live) {
          renderStatus(ctx.out, reports);
          ctx.out.info("");
        }
      } else if (live) {
        reports = await Promise.all(reports.map((r, i) => (mappings[i] === undefined ? r : refreshLocalStatus(ctx.runtime, mappings[i], r))));
      }
      if (live) drawLive(ctx, reports, collectedMono, collectMs);
      let timer: NodeJS.Timeout | undefined;
      await Promise.race([stopped, new Promise((resolve) => (timer = setTimeout(resolve, live ? STATUS_WATCH_REDRAW_MS : collectMs)))]);
      clearTimeout(timer);
    }
  } finally {
    for (const off of offs) off();
  }
  return EXIT.ok;
}

async function collectAll(ctx: CommandContext, mappings: Mapping[]): Promise<DesignStatusReport[]> {
  const reports: DesignStatusReport[] = [];
  for (const mapping of mappings) reports.push(await collectStatus(ctx.runtime, mapping));
  return reports;
}

/** Home, clear below: one redraw in place per tick (`collectedMono`: on the monotonic clock). */
function drawLive(ctx: CommandContext, reports: DesignStatusReport[], collectedMono: number, collectMs: number): void {
  const now = ctx.runtime.clock.monotonic();
  ctx.io.stdout.write("\x1b[H\x1b[2J");
  ctx.out.info(ctx.out.c.bold(`mpsync status --watch, ${clockTime(ctx.runtime.clock.now())}; Ctrl-C to stop`));
  ctx.out.info("");
  renderStatus(ctx.out, reports);
  const next = Math.max(0, Math.round((collectedMono + collectMs - now) / 1000));
  ctx.out.info(ctx.out.c.dim(`local side read every second; asked the service ${Math.round((now - collectedMono) / 1000)} s ago, next in ${next} s`));
}

/** Which key status used and the store it came from, never the key: "key for <address> from the Secret Service keychain". */
function describeKey(key: { source: "env" | "keychain" | "file" | "none"; baseUrl?: string | undefined; store?: string | undefined }): string {
  if (key.source === "env") return "key from MP_API_KEY";
  if (key.source === "none") return "no key: run mpsync login";
  if (key.baseUrl === undefined) return `key from ${key.store ?? "the credentials file"}, saved by an older mpsync for any address`;
  return `key for ${key.baseUrl} from ${key.store ?? key.source}`;
}
