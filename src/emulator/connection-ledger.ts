/**
 * The TCP connections the emulator accepted and the bytes that crossed them: a bench counts
 * new connections per push (each is a TCP and TLS handshake against the real service) and the
 * bytes an idle daemon costs, with the answers' bodies before and after compression.
 */
import type { Socket } from "node:net";

/** Connections accepted since the start, and their bytes both ways (headers included). */
export interface ConnectionStats {
  opened: number;
  bytesRead: number;
  bytesWritten: number;
  /** Bytes of the API answers' bodies as sent (compressed or not), headers left out. */
  bodyBytesSent: number;
  /** The same bodies' bytes before compression: what the client reads once it decoded them. */
  bodyBytesDecoded: number;
}

/** Counts connections; bytes of closed ones are kept, live ones are read when asked. */
export class ConnectionLedger {
  readonly #live = new Set<Socket>();
  readonly #acceptedAt = new WeakMap<Socket, number>();
  #opened = 0;
  #closedRead = 0;
  #closedWritten = 0;
  #bodySent = 0;
  #bodyDecoded = 0;

  /** A connection the server accepted. */
  add(socket: Socket): void {
    this.#opened += 1;
    this.#live.add(socket);
    this.#acceptedAt.set(socket, performance.now());
    socket.once("close", () => {
      this.#closedRead += socket.bytesRead;
      this.#closedWritten += socket.bytesWritten;
      this.#live.delete(socket);
    });
  }

  /** An API answer's body: `sent` bytes on the wire, `decoded` before compression. */
  addBody(sent: number, decoded: number): void {
    this.#bodySent += sent;
    this.#bodyDecoded += decoded;
  }

  /** When `socket` was accepted (performance.now() ms); undefined for one never added. */
  acceptedAt(socket: Socket | null): number | undefined {
    return socket === null ? undefined : this.#acceptedAt.get(socket);
  }

  /** The counts now. */
  stats(): ConnectionStats {
    let bytesRead = this.#closedRead;
    let bytesWritten = this.#closedWritten;
    for (const s of this.#live) {
      bytesRead += s.bytesRead;
      bytesWritten += s.bytesWritten;
    }
    return { opened: this.#opened, bytesRead, bytesWritten, bodyBytesSent: this.#bodySent, bodyBytesDecoded: this.#bodyDecoded };
  }
}
