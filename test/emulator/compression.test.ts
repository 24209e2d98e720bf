/**
 * The emulator compresses an answer only when the request asks, only past COMPRESS_MIN_BYTES,
 * and never with `compress: "off"` (an uncompressing service).
 */
import { request as httpRequest } from "node:http";
import { gunzipSync } from "node:zlib";
import { describe, expect, it } from "vitest";
import { pickCoding } from "../../src/emulator/compression.js";
import { COMPRESS_MIN_BYTES, type RunningEmulator } from "../../src/emulator/index.js";
import { KEY_A, useEmulators } from "./helpers.js";

const start = useEmulators();

/** A GET of the design's status with node:http (which decodes nothing), headers as given. */
function getStatus(emu: RunningEmulator, editorId: string, headers: Record<string, string>): Promise<{ headers: Record<string, unknown>; bytes: Buffer }> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(`${emu.baseUrl}/v3/designs/${editorId}/status`, { headers: { "x-mp-api-key": KEY_A, ...headers } }, (res) => {
      const chunks: Buffer[] = [];
      res.on("data", (c: Buffer) => chunks.push(c));
      res.on("end", () => resolve({ headers: res.headers, bytes: Buffer.concat(chunks) }));
    });
    req.on("error", reject);
    req.end();
  });
}

/** A design whose status answer lists `count` names (about 20 bytes each). */
function designOf(emu: RunningEmulator, count: number): string {
  const files: Record<string, string> = {};
  for (let i = 0; i < count; i++) files[`src/components/c${i}.tsx`] = `export const c${i} = ${i};\n`;
  return emu.control.createDesign(KEY_A, { files }).editorId;
}

describe("emulator: response compression", () => {
  it("answers plain when the request does not ask, and gzip when it asks for gzip", async () => {
    const emu = await start();
    const editorId = designOf(emu, 200);
    const plain = await getStatus(emu, editorId, {});
    expect(plain.headers["content-encoding"]).toBeUndefined();
    expect(plain.bytes.length).toBeGreaterThan(COMPRESS_MIN_BYTES);
    const gz = await getStatus(emu, editorId, { "accept-encoding": "gzip" });
    expect(gz.headers["content-encoding"]).toBe("gzip");
    expect(gz.headers.vary).toBe("accept-encoding");
    expect(gz.bytes.length).toBeLessThan(plain.bytes.length / 2);
    expect(gunzipSync(gz.bytes).equals(plain.bytes)).toBe(true);
    expect(emu.control.connections()).toMatchObject({ bodyBytesDecoded: 2 * plain.bytes.length, bodyBytesSent: plain.bytes.length + gz.bytes.length });
  });

  it("leaves an answer under the threshold plain even when asked", async () => {
    const emu = await start();
    const small = await getStatus(emu, designOf(emu, 2), { "accept-encoding": "br, gzip" });
    expect(small.bytes.length).toBeLessThan(COMPRESS_MIN_BYTES);
    expect(small.headers["content-encoding"]).toBeUndefined();
  });

  it("never compresses with compress off, and can be switched at run time", async () => {
    const emu = await start({ compress: "off" });
    const editorId = designOf(emu, 200);
    expect((await getStatus(emu, editorId, { "accept-encoding": "br, gzip" })).headers["content-encoding"]).toBeUndefined();
    emu.control.setCompression("auto");
    expect((await getStatus(emu, editorId, { "accept-encoding": "br, gzip" })).headers["content-encoding"]).toBe("br");
    expect(() => emu.control.setCompression("always" as "auto")).toThrow('compress must be "auto" or "off", got always');
  });

  it("switches over /__control/compression too; a mode it does not know is a 400", async () => {
    const emu = await start();
    const editorId = designOf(emu, 200);
    const post = (mode: string) => fetch(`${emu.baseUrl.replace(/\/api$/, "")}/__control/compression`, { method: "POST", body: JSON.stringify({ mode }) });
    expect((await post("off")).status).toBe(200);
    expect((await getStatus(emu, editorId, { "accept-encoding": "gzip" })).headers["content-encoding"]).toBeUndefined();
    expect((await post("sometimes")).status).toBe(400);
    expect((await post("auto")).status).toBe(200);
    expect((await getStatus(emu, editorId, { "accept-encoding": "gzip" })).headers["content-encoding"]).toBe("gzip");
  });

  it.each([
    ["br, gzip", "br"],
    ["gzip, deflate", "gzip"],
    ["br;q=0, gzip", "gzip"],
    ["gzip;q=0.5, deflate", "deflate"],
    ["x-gzip", "gzip"],
    ["*", "br"],
    ["*, br;q=0", "gzip"],
    ["identity", undefined],
    ["zstd", undefined],
    ["", undefined],
  ])("Accept-Encoding %j -> %s", (header, expected) => {
    expect(pickCoding(header)).toBe(expected);
  });
});
