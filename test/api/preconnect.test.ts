import { afterEach, describe, expect, it, vi } from "vitest";
import { createClient, WARM_CONNECTIONS, type ClosableV3Client } from "../../src/api/client.js";
import { startEmulator, type RunningEmulator } from "../../src/emulator/index.js";

const KEY = "mp_preconnect_key";
let emulator: RunningEmulator | undefined;
let client: ClosableV3Client | undefined;

afterEach(async () => {
  await client?.close();
  await emulator?.close();
});

describe("warm() after an idle", () => {
  it("opens the connections a push uses, sends nothing on them, and the next requests ride on them", async () => {
    emulator = await startEmulator({ port: 0, keys: [KEY] });
    const { editorId } = emulator.control.createDesign(KEY);
    client = createClient({ baseUrl: emulator.baseUrl, apiKey: KEY });
    const { control } = emulator;
    client.warm?.();
    await vi.waitFor(() => expect(control.connections().opened).toBe(WARM_CONNECTIONS));
    expect(control.countRequests()).toBe(0);
    // A push's first step: two requests side by side, then a third.
    await Promise.all([client.getStatus(editorId), client.getActiveArtifact(editorId)]);
    await client.getStatus(editorId);
    expect(control.connections().opened).toBe(WARM_CONNECTIONS);
    expect(control.countRequests()).toBe(3);
  });
});
