/**
 * Response compression end to end: the real undici client against the emulator on
 * 127.0.0.1:0, which compresses answers of 1 KiB and more in a coding the request allows.
 * Whether the real service compresses is unknown, so the client must read both.
 */
import { afterEach, describe, expect, it } from "vitest";
import { ApiError } from "../../src/api/errors.js";
import { createDefaultAgent, DEFAULT_TIMEOUTS, sendHttpRequest, type HttpResponse } from "../../src/api/http-transport.js";
import { startEmulator, type EmulatorOptions, type RunningEmulator } from "../../src/emulator/index.js";
import { API_KEY, testClient } from "./client-fixtures.js";

const running: RunningEmulator[] = [];
afterEach(async () => {
  await Promise.all(running.splice(0).map((emu) => emu.close()));
});

/** Source-like text that compresses as real code does (a few times, not a hundred). */
function sourceText(i: number, bytes: number): string {
  let text = "";
  for (let n = 0; text.length < bytes; n++) text += `export const item${i}_${n} = { id: ${(n * 7919 + i) % 104729}, label: "row ${n.toString(36)}" };\n`;
  return text.slice(0, bytes);
}

async function designWithFiles(options: EmulatorOptions = {}, count = 20, bytes = 2048) {
  const emu = await startEmulator({ generationMs: 50, ...options });
  running.push(emu);
  const files: Record<string, string> = {};
  for (let i = 0; i < count; i++) files[`src/f${i}.tsx`] = sourceText(i, bytes);
  const { editorId, artifactId } = emu.control.createDesign(API_KEY, { files });
  return { emu, editorId, artifactId, files };
}

/** One POST files/read through the transport, asking for `acceptEncoding`. */
async function readRaw(
  emu: RunningEmulator,
  editorId: string,
  artifactId: string,
  names: string[],
  acceptEncoding: string,
  maxBodyBytes = 1 << 20,
): Promise<HttpResponse> {
  const agent = createDefaultAgent(DEFAULT_TIMEOUTS);
  try {
    return await sendHttpRequest(agent, {
      method: "POST",
      url: `${emu.baseUrl}/v3/designs/${editorId}/artifacts/${artifactId}/files/read`,
      headers: { "x-mp-api-key": API_KEY, "content-type": "application/json", "accept-encoding": acceptEncoding },
      body: JSON.stringify({ fileNames: names }),
      timeouts: DEFAULT_TIMEOUTS,
      maxBodyBytes,
    });
  } finally {
    await agent.close();
  }
}

describe("client: compressed answers", () => {
  it("reads files compressed in the coding the emulator picked (br, its first choice), fewer bytes on the wire", async () => {
    const { emu, editorId, artifactId, files } = await designWithFiles();
    const client = testClient(emu.baseUrl);
    try {
      const read = await client.readFiles(editorId, artifactId, Object.keys(files));
      expect(Object.fromEntries(read.map((f) => [f.name, f.content]))).toEqual(files);
    } finally {
      await client.close();
    }
    const { bodyBytesSent, bodyBytesDecoded } = emu.control.connections();
    expect(bodyBytesDecoded).toBeGreaterThan(20 * 2048);
    expect(bodyBytesSent * 2).toBeLessThan(bodyBytesDecoded);
  });

  it.each(["gzip", "deflate", "br", "identity"])("decodes a %s answer from the emulator", async (coding) => {
    const { emu, editorId, artifactId, files } = await designWithFiles();
    const res = await readRaw(emu, editorId, artifactId, Object.keys(files), coding);
    expect(res.status).toBe(200);
    expect(res.headers["content-encoding"]).toBe(coding === "identity" ? undefined : coding);
    const body = JSON.parse(res.body ?? "") as { files: Array<{ name: string; content: string }> };
    expect(Object.fromEntries(body.files.map((f) => [f.name, f.content]))).toEqual(files);
  });

  it("reads plain answers from an emulator that never compresses", async () => {
    const { emu, editorId, artifactId, files } = await designWithFiles({ compress: "off" });
    const client = testClient(emu.baseUrl);
    try {
      const read = await client.readFiles(editorId, artifactId, Object.keys(files));
      expect(read).toHaveLength(20);
    } finally {
      await client.close();
    }
    const { bodyBytesSent, bodyBytesDecoded } = emu.control.connections();
    expect(bodyBytesSent).toBe(bodyBytesDecoded);
  });

  it("caps the decoded body, not only the bytes on the wire (a small answer that inflates past the cap)", async () => {
    const { emu, editorId, artifactId, files } = await designWithFiles();
    const res = await readRaw(emu, editorId, artifactId, Object.keys(files), "gzip", 16 * 1024);
    expect(res.bodyProblem).toBe("too-large");
    expect(emu.control.connections().bodyBytesSent).toBeLessThan(16 * 1024);
  });

  it.each([
    ["corrupt-encoding", "response body could not be decoded (gzip: "],
    ["unknown-encoding", "response body in an unsupported content coding (zstd)"],
  ] as const)("a %s answer is one clear, retryable error line, and a retry reads the design", async (malformed, why) => {
    const { emu, editorId, artifactId, files } = await designWithFiles();
    const client = testClient(emu.baseUrl);
    const path = /\/files\/read$/;
    try {
      emu.control.failNext({ path }, { malformed }, 1);
      expect(await client.readFiles(editorId, artifactId, ["src/f1.tsx"])).toEqual([{ name: "src/f1.tsx", content: files["src/f1.tsx"] }]);
      emu.control.failNext({ path }, { malformed }, 3);
      const err = (await client.readFiles(editorId, artifactId, ["src/f1.tsx"]).catch((e: unknown) => e)) as ApiError;
      expect(err).toBeInstanceOf(ApiError);
      expect(err.code).toBe("NETWORK");
      expect(err.retryable).toBe(true);
      expect(err.message.startsWith(`could not read the design's files: ${why}`)).toBe(true);
      expect(err.message).not.toContain("\n");
    } finally {
      await client.close();
    }
    expect(emu.control.countRequests((e) => e.fault === "malformed")).toBe(4);
  });
});

describe("decodeBody", () => {
  const text = sourceText(1, 4096);
  it("decodes raw deflate (no zlib header) as well as zlib-wrapped, and stacked codings in reverse order", async () => {
    const { brotliCompressSync, deflateRawSync, gzipSync } = await import("node:zlib");
    const { decodeBody } = await import("../../src/api/content-encoding.js");
    expect(String(decodeBody(deflateRawSync(text), { "content-encoding": "deflate" }, 1 << 20))).toBe(text);
    const stacked = brotliCompressSync(gzipSync(text));
    expect(String(decodeBody(stacked, { "content-encoding": "gzip, br" }, 1 << 20))).toBe(text);
    expect(() => decodeBody(stacked, { "content-encoding": "gzip, br, gzip" }, 1 << 20)).toThrow("response uses 3 content codings (gzip, br, gzip)");
    expect(() => decodeBody(stacked, { "content-encoding": "constructor" }, 1 << 20)).toThrow("response body in an unsupported content coding (constructor)");
  });
});
