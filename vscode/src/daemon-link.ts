/**
 * The extension's side of one folder's control socket (docs/control-protocol.md): `subscribe`
 * for the live state, and one request per connection for the controls. When no daemon listens,
 * it tries again now and then (a socket connect, not a CLI run).
 */
import { createHash } from "node:crypto";
import { createConnection, type Socket } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { CLIENT_PROTOCOL } from "./state-view.js";

/** As the daemon places it: long paths move to a private temp folder (the protocol's rule). */
export function socketPathOf(root: string, uid: number = process.getuid?.() ?? 0): string {
  const inFolder = join(root, ".mpsync", "control.sock");
  if (inFolder.length <= 100 && process.platform !== "win32") return inFolder;
  const id = createHash("sha256").update(root).digest("hex").slice(0, 24);
  if (process.platform === "win32") return `\\\\.\\pipe\\mpsync-${id}`;
  return join(tmpdir(), `mpsync-${uid}`, `${id}.sock`);
}

/** What a subscription reports. */
export interface LinkListener {
  /** A line of the stream: the first is the hello (the state now), the rest updates. */
  line(value: unknown, first: boolean): void;
  /** No daemon listens (or it went away). */
  gone(): void;
}

/** Follows one folder's daemon until closed. */
export class DaemonLink {
  readonly #root: string;
  readonly #listener: LinkListener;
  readonly #retryMs: number;
  #socket: Socket | undefined;
  #timer: NodeJS.Timeout | undefined;
  #closed = false;

  constructor(root: string, listener: LinkListener, retryMs = 2000) {
    this.#root = root;
    this.#listener = listener;
    this.#retryMs = retryMs;
  }

  /** Connects (now, and again after each loss). */
  connect(): void {
    if (this.#closed || this.#socket !== undefined) return;
    if (this.#timer !== undefined) clearTimeout(this.#timer);
    this.#timer = undefined;
    const socket = createConnection(socketPathOf(this.#root));
    this.#socket = socket;
    let text = "";
    let first = true;
    socket.setEncoding("utf8");
    socket.on("connect", () => socket.write(`${JSON.stringify({ op: "subscribe", protocol: CLIENT_PROTOCOL })}\n`));
    socket.on("data", (chunk: string) => {
      text += chunk;
      let eol: number;
      while ((eol = text.indexOf("\n")) >= 0) {
        const raw = text.slice(0, eol);
        text = text.slice(eol + 1);
        let value: unknown;
        try {
          value = JSON.parse(raw);
        } catch {
          value = undefined;
        }
        this.#listener.line(value, first);
        first = false;
      }
    });
    socket.on("error", () => socket.destroy());
    socket.on("close", () => {
      this.#socket = undefined;
      if (this.#closed) return;
      this.#listener.gone();
      this.#timer = setTimeout(() => this.connect(), this.#retryMs);
    });
  }

  /** Stops following. */
  close(): void {
    this.#closed = true;
    if (this.#timer !== undefined) clearTimeout(this.#timer);
    this.#socket?.destroy();
  }
}
