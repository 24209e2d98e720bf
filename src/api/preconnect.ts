/**
 * Connections opened before they are needed. After an idle longer than the server's
 * keep-alive (unknown for the real service; node:http closes at 5 s, load balancers at 60 s or
 * more), the first save would open its connections when its requests go out, and pay a TCP and
 * TLS handshake (2 round trips) on top of them. The daemon calls `open` when local activity
 * begins, while the debounce runs: the handshakes overlap it, and undici takes the sockets when
 * the push asks for connections. Nothing is sent on them, so this changes nothing on the
 * service; one left unused is closed after UNUSED_SOCKET_MS.
 */
import type { Socket } from "node:net";
import type { buildConnector } from "undici";

/** undici's connector: opens a socket for an origin and calls back once it is usable. */
export type Connector = buildConnector.connector;
type ConnectOptions = buildConnector.Options;
type Callback = buildConnector.Callback;
type Settled = (err: Error | null, socket: Socket | null) => void;

/** A pre-opened socket left unused this long is closed (below node:http's 5 s keep-alive). */
const UNUSED_SOCKET_MS = 4_000;

interface Pending {
  socket?: Socket;
  /** undici's callback once it took this entry before the socket was ready. */
  taker?: Settled;
  timer?: NodeJS.Timeout;
}

/** A connector for undici's Agent that hands out sockets opened ahead by `open`. */
export class Preconnector {
  readonly #base: Connector;
  readonly #stash = new Map<string, Pending[]>();
  /** After close(), a handshake that completes late is closed at once, not stashed. */
  #closed = false;

  constructor(base: Connector) {
    this.#base = base;
  }

  /** The connector to give undici (`new Agent({ connect })`). */
  readonly connect = (options: ConnectOptions, callback: Callback): void => {
    const entry = this.#take(originKey(options));
    // A failed handshake leaves the stash at once; a socket the server closed or half-closed
    // since (its keep-alive, unknown for the real service) is not handed on.
    const socket = entry?.socket;
    if (entry === undefined || (socket !== undefined && !isUsable(socket))) {
      socket?.destroy();
      this.#base(options, callback);
    } else if (socket !== undefined) {
      // Never synchronously: undici's Client is inside its own resume loop when it asks.
      process.nextTick(() => callback(null, socket));
    } else {
      // Still handshaking: undici gets it the moment it is ready, or a fresh one if it failed.
      entry.taker = (err, socket) => (err === null && socket !== null ? callback(null, socket) : this.#base(options, callback));
    }
  };

  /** Starts opening sockets to `origin` until `count` are ready or on their way. */
  open(origin: string, count: number): void {
    const url = new URL(origin);
    const options: ConnectOptions = { hostname: url.hostname.replace(/^\[|\]$/g, ""), host: url.host, protocol: url.protocol, port: url.port };
    const key = originKey(options);
    const list = this.#stash.get(key) ?? [];
    this.#stash.set(key, list);
    for (let i = list.length; i < count; i += 1) {
      const entry: Pending = {};
      list.push(entry);
      this.#base(options, (err: Error | null, socket: Socket | null) => {
        const taker = entry.taker;
        if (taker !== undefined) return taker(err, socket);
        if (err !== null || socket === null) return this.#drop(key, entry);
        if (this.#closed) return void socket.destroy();
        entry.socket = socket;
        // The server may close it first (its keep-alive): then it is no longer offered.
        socket.once("close", () => this.#drop(key, entry));
        entry.timer = setTimeout(() => {
          this.#drop(key, entry);
          socket.destroy();
        }, UNUSED_SOCKET_MS);
        entry.timer.unref();
      });
    }
  }

  /** Closes every socket not handed out. */
  close(): void {
    this.#closed = true;
    for (const list of this.#stash.values()) for (const entry of list) entry.socket?.destroy();
    this.#stash.clear();
  }

  #take(key: string): Pending | undefined {
    const entry = this.#stash.get(key)?.shift();
    if (entry?.timer !== undefined) clearTimeout(entry.timer);
    return entry;
  }

  #drop(key: string, entry: Pending): void {
    const list = this.#stash.get(key);
    const at = list?.indexOf(entry) ?? -1;
    if (at >= 0) list?.splice(at, 1);
    if (entry.timer !== undefined) clearTimeout(entry.timer);
  }
}

/** Still open both ways: not destroyed, not ended by the server, still writable. */
function isUsable(socket: Socket): boolean {
  return !socket.destroyed && !socket.readableEnded && socket.writable;
}

function originKey(options: ConnectOptions): string {
  return `${options.protocol}//${options.host}`;
}
