/**
 * A running emulator's control routes (control-routes.ts) seen from another process: what a
 * teammate does in the web editor (edit a file of the active version, start a prompt) played
 * by `mpsync emulator web-edit` and `mpsync emulator generate`. Loopback only, no key.
 */
import { MpsyncError } from "../core/errors.js";

/** The emulator answering at `baseUrl` (its `.../api` address), for one design. */
export interface EmulatorDesignControl {
  /** The files of the design's active version. */
  files(): Promise<Record<string, string>>;
  editFile(name: string, content: string): Promise<void>;
  removeFile(name: string): Promise<void>;
  /** Starts a generation that ends by itself (after the emulator's `--generation-ms`). */
  startGeneration(prompt: string): Promise<void>;
}

/** The control routes of the emulator at `baseUrl` for `editorId`. */
export function emulatorDesignControl(baseUrl: string, editorId: string): EmulatorDesignControl {
  const root = `${baseUrl.replace(/\/+$/, "").replace(/\/api$/, "")}/__control/designs/${encodeURIComponent(editorId)}`;
  const call = async (path: string, body?: unknown): Promise<unknown> => {
    let res: Response;
    try {
      res = await fetch(
        `${root}${path}`,
        body === undefined ? {} : { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(body) },
      );
    } catch (err) {
      throw new MpsyncError("NETWORK", `no emulator answers at ${baseUrl}`, {
        cause: err,
        hint: "start one with mpsync emulator (and point baseUrl or MPSYNC_BASE_URL at it)",
      });
    }
    const text = await res.text();
    if (!res.ok) throw new MpsyncError(res.status === 404 ? "NOT_FOUND" : "USAGE", `the emulator at ${baseUrl} answered ${res.status}: ${errorOf(text)}`);
    return JSON.parse(text) as unknown;
  };
  return {
    files: async () => ((await call("/files")) as { files: Record<string, string> }).files,
    editFile: async (name, content) => void (await call("/edit-file", { name, content })),
    removeFile: async (name) => void (await call("/remove-file", { name })),
    startGeneration: async (prompt) => void (await call("/start-generation", { prompt, autoFinish: true })),
  };
}

function errorOf(text: string): string {
  try {
    const body = JSON.parse(text) as { error?: unknown };
    return typeof body.error === "string" ? body.error : text;
  } catch {
    return text;
  }
}
