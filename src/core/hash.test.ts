import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { createHash } from "node:crypto";
import { decodeUtf8Strict, hashContent } from "./hash.js";

describe("hashContent", () => {
  it("is sha256 hex", () => {
    expect(hashContent("abc")).toBe("ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
  });

  it("hashes a string and its UTF-8 bytes alike", () => {
    fc.assert(
      fc.property(fc.string({ unit: "binary" }), (text) => {
        expect(hashContent(text)).toBe(hashContent(new TextEncoder().encode(text)));
        expect(hashContent(text)).toBe(hashContent(Buffer.from(text, "utf8")));
      }),
    );
  });

  it("hashes lone surrogates as Buffer.from encodes them (U+FFFD), as before crypto.hash", () => {
    for (const text of ["\ud800x", "a\udc00", "\ud83d"]) {
      expect(hashContent(text)).toBe(createHash("sha256").update(Buffer.from(text, "utf8")).digest("hex"));
    }
  });
});

describe("decodeUtf8Strict", () => {
  it("round-trips any NUL-free text byte for byte, BOM included", () => {
    fc.assert(
      fc.property(
        fc.string({ unit: "binary" }).map((s) => s.replace(/\0/g, "")),
        (text) => {
          const bytes = Buffer.from(text, "utf8");
          const decoded = decodeUtf8Strict(bytes);
          expect(decoded).toBeDefined();
          expect(hashContent(decoded ?? "")).toBe(hashContent(bytes));
        },
      ),
    );
    expect(decodeUtf8Strict(Buffer.from("\ufeffhi", "utf8"))).toBe("\ufeffhi");
  });

  it.each([
    ["a NUL byte", [0x61, 0x00, 0x62]],
    ["an invalid byte", [0xff, 0x61]],
    ["a truncated sequence", [0xe2, 0x82]],
    ["an overlong encoding", [0xc0, 0xaf]],
    ["an encoded surrogate", [0xed, 0xa0, 0x80]],
  ])("says binary for %s", (_name, bytes) => {
    expect(decodeUtf8Strict(Uint8Array.from(bytes))).toBeUndefined();
  });

  it("decodes the empty file", () => {
    expect(decodeUtf8Strict(new Uint8Array())).toBe("");
  });
});
