/**
 * A client of a running daemon's `subscribe` (docs/control-protocol.md), speaking the documented
 * wire format on the folder's socket: a test reads the lines one at a time, in order.
 */
import { createConnection } from "node:net";
import { controlSocketPath, CONTROL_PROTOCOL } from "../../src/daemon/control-channel.js";

/** One line of the stream. */
export type StreamLine = Record<string, unknown> & { state?: string; event?: Record<string, unknown> };

/** An open subscription. */
export interface Subscriber {
  /** The next line not read yet (waits for it). */
  next(): Promise<StreamLine>;
  /** Skips lines until one matches. */
  nextWith(match: (line: StreamLine) => boolean): Promise<StreamLine>;
  close(): void;
}

/** Subscribes to the daemon of the folder `root`. */
export function subscribe(root: string): Subscriber {
  const socket = createConnection(controlSocketPath(root));
  const lines: StreamLine[] = [];
  const waiting: ((line: StreamLine) => void)[] = [];
  let text = "";
  socket.setEncoding("utf8");
  socket.on("connect", () => socket.write(`${JSON.stringify({ op: "subscribe", protocol: CONTROL_PROTOCOL })}\n`));
  socket.on("data", (chunk: string) => {
    text += chunk;
    let eol: number;
    while ((eol = text.indexOf("\n")) >= 0) {
      const line = JSON.parse(text.slice(0, eol)) as StreamLine;
      text = text.slice(eol + 1);
      const taker = waiting.shift();
      if (taker === undefined) lines.push(line);
      else taker(line);
    }
  });
  const next = (): Promise<StreamLine> => {
    const line = lines.shift();
    return line === undefined ? new Promise((resolve) => waiting.push(resolve)) : Promise.resolve(line);
  };
  return {
    next,
    async nextWith(match) {
      for (;;) {
        const line = await next();
        if (match(line)) return line;
      }
    },
    close: () => socket.destroy(),
  };
}
