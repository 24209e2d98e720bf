/**
 * The real engine on a harness folder, but with a client the test configures (small timeouts,
 * one attempt, a small size cap, or another base URL), so hostile responses fail fast instead
 * of waiting out the production retry and timeout defaults.
 */
import { createClient, type ClientOptions, type ClosableV3Client } from "../../src/api/client.js";
import { createSilentLogger } from "../../src/log/logger.js";
import { createSystemClock } from "../../src/core/clock.js";
import { DesignSync } from "../../src/sync/design-sync.js";
import { openFsFolder } from "../../src/sync/fs-adapters.js";
import { TEST_KEY, type Harness } from "./harness.js";

/** Client options of a fast-failing test client: one attempt, sub-second timeouts. */
export const FAST_FAIL: Partial<ClientOptions> = {
  retry: { maxAttempts: 1 },
  timeouts: { connectMs: 1_000, headersMs: 400, bodyMs: 400 },
};

/** A DesignSync over `h.root` whose client is built from `options` (base URL: the emulator unless given). */
export async function openWithClient(h: Harness, options: Partial<ClientOptions> = {}): Promise<{ sync: DesignSync; client: ClosableV3Client }> {
  const clock = createSystemClock();
  const client = createClient({ baseUrl: h.emu.baseUrl, apiKey: TEST_KEY, ...FAST_FAIL, ...options });
  const folder = await openFsFolder(h.root, [], clock);
  const sync = new DesignSync({
    dir: "design",
    design: h.editorId,
    client,
    local: folder.local,
    matcher: folder.matcher,
    store: folder.store,
    policy: "merge",
    logger: createSilentLogger(),
    emit: h.emit,
    clock,
  });
  await sync.open();
  return { sync, client };
}
