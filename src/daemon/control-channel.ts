/**
 * The local control channel of a running `mpsync watch`: one unix socket per mapped folder,
 * `.mpsync/control.sock` (the folder 0700, the socket 0600: only the owner can connect), over
 * which `mpsync sync`, `pause`, `resume` and a `pull --force` handed over reach the daemon that
 * holds the folder's lock, and over which an editor follows the folder's state (`subscribe`).
 * One request per connection, one JSON line each way; `subscribe` keeps the connection and
 * sends one line per update. docs/control-protocol.md is the contract; CONTROL_PROTOCOL its version.
 */
import { createHash } from "node:crypto";
import { chmod, lstat, mkdir, rm } from "node:fs/promises";
import { createConnection, createServer, type Server, type Socket } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import * as z from "zod";
import { STATE_DIR_NAME } from "../state/state-store.js";
import { errorCode, isErrno, MpsyncError } from "../core/errors.js";
import { SYNC_STATES, syncStateLabel } from "../sync/sync-state.js";
import type { StateFeed, StateUpdate } from "./state-feed.js";

/**
 * The version of the control protocol (docs/control-protocol.md). Every reply carries it; a
 * request that names another version is refused with PROTOCOL_MISMATCH. A new op or field
 * that old clients can ignore keeps the number; a change they would misread raises it.
 */
export const CONTROL_PROTOCOL = 1;

/** What a command asks the daemon. */
export const controlRequestSchema = z.object({
  op: z.enum(["sync", "pause", "resume", "subscribe"]),
  /** With `sync`: proceed past the circuit breakers (`pull --force`). */
  force: z.boolean().optional(),
  /** The protocol the client speaks (absent: any; the reply says the daemon's). */
  protocol: z.number().int().optional(),
});
export type ControlRequest = z.infer<typeof controlRequestSchema>;

/** The daemon's answer. */
export const controlReplySchema = z.object({
  ok: z.boolean(),
  /** The daemon's CONTROL_PROTOCOL. */
  protocol: z.number().int().optional(),
  code: z.string().optional(),
  message: z.string(),
  /** `sync`: the cycle's summary (what was pulled, pushed, conflicted). */
  summary: z.record(z.string(), z.unknown()).optional(),
  /** `subscribe`: the folder's state now (sync/sync-state.ts). */
  state: z.enum(SYNC_STATES).optional(),
  /** `subscribe`: its words. */
  label: z.string().optional(),
});
export type ControlReply = z.infer<typeof controlReplySchema>;

/** Unix socket paths are limited (108 bytes on Linux, 104 on macOS): longer ones move to a private temp folder. */
const MAX_SOCKET_PATH = 100;

/** Where the control socket of the folder `root` lies. */
export function controlSocketPath(root: string, uid: number = process.getuid?.() ?? 0): string {
  const inFolder = join(root, STATE_DIR_NAME, "control.sock");
  if (inFolder.length <= MAX_SOCKET_PATH && process.platform !== "win32") return inFolder;
  const id = createHash("sha256").update(root).digest("hex").slice(0, 24);
  if (process.platform === "win32") return `\\\\.\\pipe\\mpsync-${id}`;
  return join(tmpdir(), `mpsync-${uid}`, `${id}.sock`);
}

/**
 * The second socket of the folder `root`, outside it (in the private folder of the long-path
 * fallback), or undefined where the first already is outside. A removed mapped folder takes
 * `.mpsync/control.sock` with it: `pull --force`, the advice of that halt, still reaches the
 * daemon through this one, and the daemon puts its lock and socket back once the folder is.
 */
export function controlFallbackPath(root: string, uid: number = process.getuid?.() ?? 0): string | undefined {
  const first = controlSocketPath(root, uid);
  if (process.platform === "win32" || !first.startsWith(join(root, STATE_DIR_NAME))) return undefined;
  const id = createHash("sha256").update(root).digest("hex").slice(0, 24);
  return join(tmpdir(), `mpsync-${uid}`, `${id}.folder.sock`);
}

/** A listening control server; close() removes the socket. */
export interface ControlServer {
  readonly path: string;
  /** Stops listening (ends once the open connections do); `keepSocket`: the path is left to a new server. */
  close(keepSocket?: boolean): Promise<void>;
}

/**
 * Listens on the folder's control socket, and on its second one outside the folder
 * (controlFallbackPath). The caller holds the folder's lock, so a socket file left there
 * belongs to a daemon that is gone: it is replaced.
 */
export async function startControlServer(root: string, handle: (request: ControlRequest) => Promise<ControlReply>, feed?: StateFeed): Promise<ControlServer> {
  const first = await listenOn(controlSocketPath(root), handle, feed);
  const fallback = controlFallbackPath(root);
  const second = fallback === undefined ? undefined : await listenOn(fallback, handle, feed).catch(() => undefined);
  return {
    path: first.path,
    async close(keepSocket) {
      await first.close(keepSocket);
      await second?.close(keepSocket);
    },
  };
}

async function listenOn(path: string, handle: (request: ControlRequest) => Promise<ControlReply>, feed: StateFeed | undefined): Promise<ControlServer> {
  if (process.platform !== "win32") {
    const dir = join(path, "..");
    await mkdir(dir, { recursive: true, mode: 0o700 });
    // The folder must be ours and a real folder (the temp fallback is shared with other users).
    const info = await lstat(dir);
    if (!info.isDirectory() || (process.getuid !== undefined && info.uid !== process.getuid())) {
      throw new MpsyncError("UNSAFE_STATE_DIR", `${dir} is not a folder of this user: the control channel stays closed`);
    }
    await chmod(dir, 0o700);
    const existing = await lstat(path).catch(() => undefined);
    if (existing?.isSocket() === true) await rm(path, { force: true });
  }
  const server = createServer({ allowHalfOpen: true }, (socket) => serve(socket, handle, feed));
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(path, () => {
      server.off("error", reject);
      resolve();
    });
  });
  if (process.platform !== "win32") await chmod(path, 0o600);
  return { path, close: (keepSocket) => closeServer(server, keepSocket === true || process.platform === "win32" ? undefined : path) };
}

function serve(socket: Socket, handle: (request: ControlRequest) => Promise<ControlReply>, feed: StateFeed | undefined): void {
  let text = "";
  socket.setEncoding("utf8");
  socket.on("error", () => socket.destroy());
  socket.on("data", (chunk: string) => {
    text += chunk;
    if (text.length > 64 * 1024) socket.destroy();
    const eol = text.indexOf("\n");
    if (eol < 0) return;
    socket.removeAllListeners("data");
    const request = parseRequest(text.slice(0, eol));
    if (request.ok && request.value.op === "subscribe" && feed !== undefined) return stream(socket, feed);
    void answer(request, handle).then((reply) => socket.end(`${JSON.stringify({ ...reply, protocol: CONTROL_PROTOCOL })}\n`));
  });
}

type Parsed = { ok: true; value: ControlRequest } | { ok: false; reply: ControlReply };

function parseRequest(line: string): Parsed {
  let request: ControlRequest;
  try {
    request = controlRequestSchema.parse(JSON.parse(line));
  } catch {
    return { ok: false, reply: { ok: false, code: "USAGE", message: "malformed control request" } };
  }
  if (request.protocol !== undefined && request.protocol !== CONTROL_PROTOCOL) {
    const message = `this mpsync daemon speaks control protocol ${CONTROL_PROTOCOL}, the client ${request.protocol}: update the older of the two`;
    return { ok: false, reply: { ok: false, code: "PROTOCOL_MISMATCH", message } };
  }
  return { ok: true, value: request };
}

async function answer(request: Parsed, handle: (request: ControlRequest) => Promise<ControlReply>): Promise<ControlReply> {
  if (!request.ok) return request.reply;
  if (request.value.op === "subscribe") return { ok: false, code: "USAGE", message: "this folder's daemon has no state to follow" };
  try {
    return await handle(request.value);
  } catch (err) {
    return { ok: false, code: errorCode(err), message: err instanceof Error ? err.message : String(err) };
  }
}

/** `subscribe`: the state now, then one line per update until the client hangs up. */
function stream(socket: Socket, feed: StateFeed): void {
  const write = (line: ControlReply | StateUpdate | (StateUpdate & { event: { time: string } })): void => void socket.write(`${JSON.stringify(line)}\n`);
  const state = feed.state;
  write({ ok: true, protocol: CONTROL_PROTOCOL, message: "subscribed", state, label: syncStateLabel(state) });
  // An event goes out as `watch --json` prints it: with the time it is said.
  const stop = feed.listen((u) => write("event" in u ? { ...u, event: { time: new Date().toISOString(), ...u.event } } : u));
  socket.on("close", stop);
  socket.on("end", () => socket.end());
}

/** Stops listening, then removes the socket file at `path` (none: a new server holds the path). */
async function closeServer(server: Server, path: string | undefined): Promise<void> {
  await new Promise<void>((resolve) => server.close(() => resolve()));
  if (path !== undefined) await rm(path, { force: true }).catch(() => undefined);
}

/**
 * Sends `request` to the daemon of the folder `root` and resolves its answer; undefined when no
 * daemon listens there (no socket, or a socket nobody serves). A `sync` waits for the cycle.
 */
export async function sendControl(root: string, request: ControlRequest): Promise<ControlReply | undefined> {
  const fallback = controlFallbackPath(root);
  return (await sendTo(controlSocketPath(root), request)) ?? (fallback === undefined ? undefined : await sendTo(fallback, request));
}

function sendTo(path: string, request: ControlRequest): Promise<ControlReply | undefined> {
  return new Promise((resolve, reject) => {
    const socket = createConnection(path);
    let text = "";
    socket.setEncoding("utf8");
    socket.on("connect", () => socket.write(`${JSON.stringify({ ...request, protocol: CONTROL_PROTOCOL })}\n`));
    socket.on("data", (chunk: string) => (text += chunk));
    socket.on("error", (err) => {
      if (isErrno(err, "ENOENT", "ECONNREFUSED", "ENOTSOCK")) resolve(undefined);
      else reject(err);
    });
    socket.on("end", () => {
      try {
        resolve(controlReplySchema.parse(JSON.parse(text.trim())));
      } catch {
        reject(new MpsyncError("DAEMON_REFUSED", `the daemon's answer on ${path} could not be read`));
      }
    });
  });
}
