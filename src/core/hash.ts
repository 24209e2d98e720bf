/**
 * Content hashing and strict UTF-8 decoding. A hash is sha256 hex of the file's bytes, so a
 * text read as a string and the same file read as bytes always hash alike.
 */
import { hash } from "node:crypto";

/** sha256 hex of `data` (a string is hashed as its UTF-8 bytes). */
export function hashContent(data: string | Uint8Array): string {
  // crypto.hash encodes a string as UTF-8 (lone surrogates as U+FFFD, as Buffer.from does), and
  // one call is cheaper than createHash().update().digest() on a file-sized text.
  return hash("sha256", data, "hex");
}

/** The text of `bytes`, or undefined when they are binary (a NUL byte or invalid UTF-8). */
export function decodeUtf8Strict(bytes: Uint8Array): string | undefined {
  if (bytes.includes(0)) return undefined;
  try {
    // ignoreBOM keeps a leading BOM in the string: re-encoding then gives the very same bytes
    // (and hash), so writing the text back never silently strips it.
    return new TextDecoder("utf-8", { fatal: true, ignoreBOM: true }).decode(bytes);
  } catch {
    return undefined;
  }
}
