/**
 * The preview's HTTP server on loopback: the page, the bundle from memory, the design's static
 * files (`public/` first, as Vite does; never `.mpsync/`, `.git/` or dot files), the reload
 * channel (server-sent events) and the runtime-error report the page posts.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import { readFile, stat } from "node:fs/promises";
import type { AddressInfo } from "node:net";
import { extname, join, normalize, sep } from "node:path";
import { PAGE_URLS } from "./page.js";

/** What the server asks of the preview for each request. */
export interface PreviewContent {
  html(): string;
  clientJs(): string;
  /** A bundle output by URL path (app.js, app.css, the map, assets). */
  output(path: string): { body: string | Uint8Array; type: string; immutable?: boolean } | undefined;
  /** Messages a newly connected page must see first (errors, sync state). */
  greeting(): object[];
  onRuntimeError(report: { kind?: string; message?: string; stack?: string }): void;
}

const TYPES: Record<string, string> = {
  ".html": "text/html; charset=utf-8",
  ".js": "text/javascript; charset=utf-8",
  ".mjs": "text/javascript; charset=utf-8",
  ".css": "text/css; charset=utf-8",
  ".json": "application/json",
  ".map": "application/json",
  ".svg": "image/svg+xml",
  ".png": "image/png",
  ".jpg": "image/jpeg",
  ".jpeg": "image/jpeg",
  ".gif": "image/gif",
  ".webp": "image/webp",
  ".ico": "image/x-icon",
  ".woff": "font/woff",
  ".woff2": "font/woff2",
  ".txt": "text/plain; charset=utf-8",
};

/** The MIME type of a path by its extension. */
export function contentType(path: string): string {
  return TYPES[extname(path).toLowerCase()] ?? "application/octet-stream";
}

/** A running preview server. */
export class PreviewServer {
  readonly #root: string;
  readonly #content: PreviewContent;
  readonly #clients = new Set<ServerResponse>();
  #server: Server | undefined;

  constructor(root: string, content: PreviewContent) {
    this.#root = root;
    this.#content = content;
  }

  /** Listens on 127.0.0.1:`port` (0: any free port); resolves to the port. */
  async listen(port: number): Promise<number> {
    const server = createServer((req, res) => void this.#handle(req, res).catch(() => send(res, 500, "text/plain", "preview error")));
    this.#server = server;
    await new Promise<void>((resolve, reject) => {
      server.once("error", reject);
      server.listen(port, "127.0.0.1", () => resolve());
    });
    return (server.address() as AddressInfo).port;
  }

  /** Sends `message` to every open page. */
  broadcast(message: object): void {
    const data = `data: ${JSON.stringify(message)}\n\n`;
    for (const res of this.#clients) res.write(data);
  }

  /** Pages connected to the reload channel. */
  get clientCount(): number {
    return this.#clients.size;
  }

  /** Closes every connection and the server. */
  async close(): Promise<void> {
    for (const res of this.#clients) res.end();
    this.#clients.clear();
    const server = this.#server;
    if (server === undefined) return;
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  }

  async #handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const path = decodeURIComponent(new URL(req.url ?? "/", "http://127.0.0.1").pathname);
    if (req.method === "POST" && path === "/__mpsync/runtime-error") return this.#runtimeError(req, res);
    if (req.method !== "GET" && req.method !== "HEAD") return send(res, 405, "text/plain", "method not allowed");
    if (path === PAGE_URLS.events) return this.#subscribe(res);
    if (path === PAGE_URLS.client) return send(res, 200, TYPES[".js"]!, this.#content.clientJs());
    if (path.startsWith("/__mpsync/")) {
      const out = this.#content.output(path);
      return out === undefined ? send(res, 404, "text/plain", "not found") : send(res, 200, out.type, out.body, out.immutable === true);
    }
    if (path === "/" || path === "/index.html") return send(res, 200, TYPES[".html"]!, this.#content.html());
    const file = await this.#staticFile(path);
    if (file !== undefined) return send(res, 200, contentType(file), await readFile(file));
    // A client-side route (react-router's BrowserRouter): the page, as Vite's dev server does.
    if (extname(path) === "" && (req.headers.accept ?? "").includes("text/html")) return send(res, 200, TYPES[".html"]!, this.#content.html());
    send(res, 404, "text/plain", "not found");
  }

  async #staticFile(path: string): Promise<string | undefined> {
    const rel = normalize(path).replace(/^[/\\]+/, "");
    if (rel === "" || rel.split(/[/\\]/).some((p) => p.startsWith(".") || p === "node_modules")) return undefined;
    for (const base of [join(this.#root, "public"), this.#root]) {
      const abs = join(base, rel);
      if (!abs.startsWith(base + sep)) continue;
      const s = await stat(abs).catch(() => undefined);
      if (s?.isFile() === true) return abs;
    }
    return undefined;
  }

  #subscribe(res: ServerResponse): void {
    res.writeHead(200, { "content-type": "text/event-stream", "cache-control": "no-store", connection: "keep-alive" });
    res.write(": mpsync\n\n");
    this.#clients.add(res);
    res.on("close", () => this.#clients.delete(res));
    for (const m of this.#content.greeting()) res.write(`data: ${JSON.stringify(m)}\n\n`);
  }

  async #runtimeError(req: IncomingMessage, res: ServerResponse): Promise<void> {
    let body = "";
    for await (const chunk of req) {
      body += String(chunk);
      if (body.length > 64_000) break;
    }
    try {
      this.#content.onRuntimeError(JSON.parse(body) as { kind?: string; message?: string; stack?: string });
    } catch {
      // A malformed report is dropped: the page shows its own overlay anyway.
    }
    send(res, 204, "text/plain", "");
  }
}

function send(res: ServerResponse, status: number, type: string, body: string | Uint8Array, immutable = false): void {
  // Vendor files have their content's hash in their URL: a reload takes them from the cache.
  res.writeHead(status, { "content-type": type, "cache-control": immutable ? "public, max-age=31536000, immutable" : "no-store" });
  res.end(body);
}
