/** Errors told about a folder or a refused key are new errors around the original, never the original changed. */
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { ApiError } from "../../src/api/errors.js";
import { namingFolder } from "../../src/app/folder.js";
import { explainRefusedKey } from "../../src/cli/context.js";
import type { CommandContext } from "../../src/cli/context.js";
import { exitCodeFor } from "../../src/cli/exit-codes.js";
import { Output } from "../../src/cli/output.js";
import { ConfigMissingError } from "../../src/config/config-error.js";
import { loadConfig } from "../../src/config/load-config.js";
import { MpsyncError } from "../../src/core/errors.js";
import { describeError } from "../../src/sync/describe-error.js";

const refused = (): ApiError =>
  new ApiError({
    code: "UNAUTHORIZED",
    message: "the service refused the API key (401)",
    status: 401,
    endpoint: "GET /v3/designs/{editorId}/status",
    retryable: false,
    request: { method: "GET", url: "/v3/designs/abc/status" },
  });
const ctxWithKey = (source: "env" | "keychain" | "file" | "none", store?: string): CommandContext =>
  ({ runtime: { keySource: () => ({ source, baseUrl: "http://127.0.0.1:1/api", store }) } }) as unknown as CommandContext;

describe("namingFolder", () => {
  it("names the folder and design around the error, which stays as it was", () => {
    const err = refused();
    const named = namingFolder(err, "web", "abc");
    expect(describeError(named)).toBe("web (design abc): the service refused the API key (401)");
    expect(err.message).toBe("the service refused the API key (401)");
    expect((named as Error).cause).toBe(err);
    expect(exitCodeFor(named)).toBe(exitCodeFor(err));
    expect(namingFolder(named, "web", "abc")).toBe(named);
  });
});

describe("explainRefusedKey", () => {
  it("says which key was refused, through a folder's context, without changing the error", () => {
    const err = refused();
    const explained = explainRefusedKey(namingFolder(err, "web", "abc"), ctxWithKey("env"));
    expect(describeError(explained)).toBe(
      "web (design abc): the service refused the API key (401); the service refused the key in MP_API_KEY: check it, or unset MP_API_KEY to use the key stored by mpsync login",
    );
    expect(exitCodeFor(explained)).toBe(3);
    expect(err.hint).toBeUndefined();
  });

  it("names the stored key's address and store (keychain or file)", () => {
    const explained = explainRefusedKey(refused(), ctxWithKey("keychain", "the Secret Service keychain"));
    expect(describeError(explained)).toBe(
      "the service refused the API key (401); the service refused the key stored for http://127.0.0.1:1/api in the Secret Service keychain: run mpsync login to store a new one",
    );
  });

  it("leaves a refusal in a command's own words (login's typed key) alone", () => {
    const own = new MpsyncError("UNAUTHORIZED", "http://x refused the key you gave: nothing was saved", { cause: refused() });
    expect(explainRefusedKey(own, ctxWithKey("file"))).toBe(own);
  });
});

describe("a missing config is told by its class, not its words", () => {
  it("none found searching, or the named file absent: ConfigMissingError, still CONFIG_INVALID (exit 2)", async () => {
    const dir = await mkdtemp(join(tmpdir(), "mpsync-noconfig-"));
    try {
      const searched = await loadConfig({ cwd: dir, env: {} }).catch((err: unknown) => err);
      expect(searched).toBeInstanceOf(ConfigMissingError);
      expect(searched).toMatchObject({ code: "CONFIG_INVALID", searched: true });
      const named = await loadConfig({ cwd: dir, configPath: "missing.json", env: {} }).catch((err: unknown) => err);
      expect(named).toMatchObject({ code: "CONFIG_INVALID", searched: false, message: `--config: config file ${join(dir, "missing.json")} not found` });
      expect(exitCodeFor(named)).toBe(2);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});

describe("the --json error document", () => {
  it("carries a system failure's own code (EACCES), as watch's events do, not INTERNAL; exit 1", () => {
    let stdout = "";
    const sink = { write: (s: string) => ((stdout += s), true) } as unknown as NodeJS.WritableStream;
    const out = new Output({ json: true, quiet: false, verbose: false, color: false, stdout: sink, stderr: sink });
    out.error(Object.assign(new Error("EACCES: permission denied, open '/x/.mpsync/state.json'"), { code: "EACCES" }));
    expect(JSON.parse(stdout)).toEqual({
      ok: false,
      error: { code: "EACCES", message: "EACCES: permission denied, open '/x/.mpsync/state.json'", exitCode: 1 },
    });
  });
});
