/**
 * The preview's address on loopback, open before its toolchain is. Hand-written because the
 * page must exist before Vite does: while the toolchain or the design's packages are fetched,
 * and when they cannot be, the page says so (and refreshes itself); once Vite runs in
 * middleware mode, every request goes to it, and its HMR socket rides this server.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";

/** Vite's connect stack as this server hands it a request. */
export type RequestHandler = (req: IncomingMessage, res: ServerResponse, next: (err?: unknown) => void) => void;

/** What the page says while Vite is not there. */
export interface FrontStatus {
  phase: "preparing" | "unavailable";
  message: string;
}

/** Where the status page asks whether Vite serves yet: 204 while it does not (then the request is Vite's). */
export const READY_PATH = "/@mpsync/ready";

/** Options of {@link PreviewFront}. */
export interface PreviewFrontOptions {
  /** How often the status page reloads itself to show the progress it waits on, in seconds. @default 2 */
  refreshSec?: number;
}

/** The preview's HTTP server. */
export class PreviewFront {
  readonly server: Server;
  readonly #refreshSec: number;
  #handler: RequestHandler | undefined;
  #status: FrontStatus = { phase: "preparing", message: "starting" };

  constructor(options: PreviewFrontOptions = {}) {
    this.#refreshSec = options.refreshSec ?? 2;
    this.server = createServer((req, res) => this.#handle(req, res));
  }

  /** Listens on 127.0.0.1:`port` (0: any free port); resolves to the port. */
  async listen(port: number): Promise<number> {
    await new Promise<void>((resolve, reject) => {
      this.server.once("error", reject);
      this.server.listen(port, "127.0.0.1", () => {
        this.server.off("error", reject);
        resolve();
      });
    });
    return (this.server.address() as AddressInfo).port;
  }

  /** What the page says until `attach` (or after `detach`). */
  status(status: FrontStatus): void {
    this.#status = status;
  }

  /** Hands every request to Vite. */
  attach(handler: RequestHandler): void {
    this.#handler = handler;
  }

  /** Back to the status page (Vite is being restarted or stopped). */
  detach(): void {
    this.#handler = undefined;
  }

  /** Closes every connection and the server. */
  async close(): Promise<void> {
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }

  #handle(req: IncomingMessage, res: ServerResponse): void {
    const handler = this.#handler;
    const fail = (err?: unknown): void => {
      if (res.headersSent) return void res.end();
      res.writeHead(err === undefined ? 404 : 500, { "content-type": "text/plain; charset=utf-8" });
      res.end(err === undefined ? "not found" : `preview error: ${err instanceof Error ? err.message : String(err)}`);
    };
    if (handler !== undefined) return handler(req, res, fail);
    const path = (req.url ?? "/").split("?")[0] ?? "/";
    if (path === READY_PATH) {
      res.writeHead(204, { "cache-control": "no-store" });
      return void res.end();
    }
    if (path !== "/" && path.includes(".")) return fail();
    res.writeHead(503, { "content-type": "text/html; charset=utf-8", "cache-control": "no-store", "retry-after": "2" });
    res.end(statusPage(this.#status, this.#refreshSec));
  }
}

function statusPage(s: FrontStatus, refreshSec: number): string {
  const text = s.message.replace(/[&<>]/g, (c) => (c === "&" ? "&amp;" : c === "<" ? "&lt;" : "&gt;"));
  // Preparing: the page reloads every refreshSec to show the progress, and asks four times a
  // second whether Vite serves, so the design shows the moment it does (a page opened at once,
  // as `--open` does, would otherwise wait up to a whole refresh on a cold start).
  const refresh =
    s.phase === "preparing"
      ? `<meta http-equiv="refresh" content="${refreshSec}"><script>setInterval(()=>fetch(${JSON.stringify(READY_PATH)},{cache:"no-store"}).then((r)=>{if(r.status!==204)location.reload()},()=>{}),250)</script>`
      : "";
  return `<!doctype html><html lang="en"><head><meta charset="UTF-8"><title>mpsync dev</title><link rel="icon" href="data:,">${refresh}</head><body style="font:15px/1.5 system-ui,sans-serif;margin:48px;color:#222"><h1 style="font-size:18px">mpsync dev: ${s.phase === "preparing" ? "preparing the preview" : "the preview is unavailable"}</h1><p data-mpsync-status="${s.phase}">${text}</p><p style="color:#777">Sync runs meanwhile: saves are pushed, versions made on the service are pulled.</p></body></html>`;
}
