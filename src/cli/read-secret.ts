/** Reading a secret (the API key for `login`): hidden on a terminal, one line from a pipe. */
import { MpsyncError } from "../core/errors.js";
import type { CliIo } from "./context.js";

/** Reads a secret: without echo on a TTY, else the first line of stdin. */
export async function readSecret(io: CliIo, prompt: string): Promise<string> {
  const stdin = io.stdin;
  if (stdin.isTTY === true && typeof stdin.setRawMode === "function") return readHidden(io, prompt);
  return readFirstLine(stdin);
}

function readHidden(io: CliIo, prompt: string): Promise<string> {
  const stdin = io.stdin;
  // Echo goes off before the prompt shows: a key typed or pasted as soon as the prompt appears
  // must never reach the screen.
  stdin.setRawMode?.(true);
  io.stderr.write(prompt);
  stdin.resume();
  return new Promise((resolve, reject) => {
    let value = "";
    const finish = (err?: Error): void => {
      stdin.off("data", onData);
      stdin.setRawMode?.(false);
      stdin.pause();
      io.stderr.write("\n");
      if (err !== undefined) reject(err);
      else resolve(value);
    };
    const onData = (chunk: Buffer | string): void => {
      const text = chunk.toString();
      // Arrow keys and other escape sequences arrive as one chunk: never part of a key.
      if (text.startsWith("\u001b")) return;
      for (const ch of text) {
        if (ch === "\r" || ch === "\n" || ch === "\u0004") return finish();
        if (ch === "\u0003") return finish(new MpsyncError("USAGE", "login cancelled: nothing was saved"));
        if (ch === "\u007f" || ch === "\b") value = value.slice(0, -1);
        else if (ch >= " ") value += ch;
      }
    };
    stdin.on("data", onData);
  });
}

/** The first line of a stream (all of it when it ends without a newline). */
export function readFirstLine(stream: CliIo["stdin"]): Promise<string> {
  return new Promise((resolve, reject) => {
    let buffer = "";
    const cleanup = (): void => {
      stream.off("data", onData);
      stream.off("end", onEnd);
      stream.off("error", onError);
      stream.pause();
    };
    const onData = (chunk: Buffer | string): void => {
      buffer += chunk.toString();
      const eol = buffer.indexOf("\n");
      if (eol < 0) return;
      cleanup();
      resolve(buffer.slice(0, eol).replace(/\r$/, ""));
    };
    const onEnd = (): void => {
      cleanup();
      resolve(buffer.replace(/\r$/, ""));
    };
    const onError = (err: Error): void => {
      cleanup();
      reject(err);
    };
    stream.on("data", onData);
    stream.once("end", onEnd);
    stream.once("error", onError);
    stream.resume();
  });
}
