/**
 * A strict JSON scanner that reports where things are. JSON.parse on Node 20 often names no
 * position ("Unexpected token '}', ... is not valid JSON"), and editing `.syncrc` in place
 * (keeping the user's comments) needs the offsets of its values.
 */

/** Where one JSON value sits in the text; containers list their children. */
export interface JsonNode {
  kind: "object" | "array" | "string" | "number" | "literal";
  /** Offset of the first character. */
  start: number;
  /** Offset just past the last character. */
  end: number;
  /** Object members, in order. */
  members?: { key: string; value: JsonNode }[];
  /** Array items, in order. */
  items?: JsonNode[];
}

/** A JSON syntax error at `offset`. */
export class JsonSyntaxError extends Error {
  readonly offset: number;

  constructor(message: string, offset: number) {
    super(message);
    this.name = "JsonSyntaxError";
    this.offset = offset;
  }
}

/** Deeper nesting than this is refused rather than risking the call stack. */
const MAX_DEPTH = 512;

/** Scans `text` as one strict JSON value; throws {@link JsonSyntaxError} at the first error. */
export function scanJson(text: string): JsonNode {
  return new JsonScanner(text).scanDocument();
}

/** Recursive descent over the text; `#at` is the only state and lives as long as one scan. */
class JsonScanner {
  readonly #text: string;
  #at = 0;

  constructor(text: string) {
    this.#text = text;
  }

  scanDocument(): JsonNode {
    const root = this.#value(0);
    this.#skipSpace();
    if (this.#at < this.#text.length) this.#fail(`${this.#here()} after the end of the document`);
    return root;
  }

  #value(depth: number): JsonNode {
    this.#skipSpace();
    if (depth > MAX_DEPTH) this.#fail("nesting too deep");
    const char = this.#text[this.#at];
    if (char === "{") return this.#object(depth);
    if (char === "[") return this.#array(depth);
    if (char === '"') return this.#string();
    for (const literal of ["true", "false", "null"]) {
      if (this.#text.startsWith(literal, this.#at)) return this.#node("literal", this.#at, (this.#at += literal.length));
    }
    if (char === "-" || (char !== undefined && char >= "0" && char <= "9")) return this.#number();
    return this.#fail(`${this.#here()}, expected a value`);
  }

  #object(depth: number): JsonNode {
    const start = this.#at++;
    const members: { key: string; value: JsonNode }[] = [];
    this.#skipSpace();
    if (this.#text[this.#at] === "}") return { kind: "object", start, end: ++this.#at, members };
    for (;;) {
      this.#skipSpace();
      if (this.#text[this.#at] !== '"') this.#fail(`${this.#here()}, expected a key in double quotes`);
      const key = this.#string();
      this.#expect(":", '":" after the key');
      const value = this.#value(depth + 1);
      members.push({ key: JSON.parse(this.#text.slice(key.start, key.end)) as string, value });
      if (this.#endOfList("}")) return { kind: "object", start, end: this.#at, members };
    }
  }

  #array(depth: number): JsonNode {
    const start = this.#at++;
    const items: JsonNode[] = [];
    this.#skipSpace();
    if (this.#text[this.#at] === "]") return { kind: "array", start, end: ++this.#at, items };
    for (;;) {
      items.push(this.#value(depth + 1));
      if (this.#endOfList("]")) return { kind: "array", start, end: this.#at, items };
    }
  }

  /** After a member or item: true (and past it) at `close`, false (and past it) at a comma. */
  #endOfList(close: "}" | "]"): boolean {
    this.#skipSpace();
    const char = this.#text[this.#at];
    if (char !== close && char !== ",") this.#fail(`${this.#here()}, expected "," or "${close}"`);
    this.#at++;
    return char === close;
  }

  #string(): JsonNode {
    const text = this.#text;
    const start = this.#at++;
    while (this.#at < text.length && text[this.#at] !== '"') {
      if (text.charCodeAt(this.#at) < 0x20) this.#fail("control character in string (escape it, e.g. \\n)");
      if (text[this.#at] !== "\\") {
        this.#at++;
        continue;
      }
      const escape = text[this.#at + 1] ?? "";
      if (escape === "u" && /^[0-9a-fA-F]{4}$/.test(text.slice(this.#at + 2, this.#at + 6))) this.#at += 6;
      else if (escape !== "" && '"\\/bfnrt'.includes(escape)) this.#at += 2;
      else this.#fail("invalid escape in string");
    }
    if (this.#at >= text.length) this.#fail("unterminated string", start);
    return this.#node("string", start, ++this.#at);
  }

  #number(): JsonNode {
    // Sticky, and made per call: a shared regex would carry lastIndex between scans.
    const pattern = /-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?/y;
    pattern.lastIndex = this.#at;
    const match = pattern.exec(this.#text);
    if (match === null) return this.#fail(this.#here());
    const start = this.#at;
    return this.#node("number", start, (this.#at += match[0].length));
  }

  #node(kind: JsonNode["kind"], start: number, end: number): JsonNode {
    return { kind, start, end };
  }

  #expect(char: string, what: string): void {
    this.#skipSpace();
    if (this.#text[this.#at] !== char) this.#fail(`${this.#here()}, expected ${what}`);
    this.#at++;
  }

  #skipSpace(): void {
    while (this.#at < this.#text.length && " \t\n\r".includes(this.#text[this.#at] ?? "")) this.#at++;
  }

  #here(): string {
    return this.#at >= this.#text.length ? "unexpected end of file" : `unexpected ${JSON.stringify(this.#text[this.#at])}`;
  }

  #fail(message: string, at = this.#at): never {
    throw new JsonSyntaxError(message, at);
  }
}

/** 1-based line and column of `offset` in `text`. */
export function lineColumnAt(text: string, offset: number): { line: number; column: number } {
  const before = text.slice(0, Math.max(0, offset));
  const lineStart = before.lastIndexOf("\n") + 1;
  return { line: before.split("\n").length, column: offset - lineStart + 1 };
}
