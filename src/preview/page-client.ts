/**
 * What the preview adds to the page beside Vite's own client (which does Fast Refresh, CSS
 * swaps, reloads and the error overlay): the sync badge, and the report of a runtime error to
 * the terminal, which maps it to the design's file and line and answers with Vite's overlay.
 * Hand-written because both are mpsync's, not Vite's. `pageClient` runs in the browser: it
 * is served as its own source (`pageClientModule`), so it uses nothing from its module.
 */

/** A sync state as the page receives it (`mpsync:sync`). */
export interface SyncMessage {
  state: string;
  label: string;
  message: string;
}

/** A runtime error as the page reports it (`mpsync:runtime-error`). */
export interface RuntimeErrorReport {
  message: string;
  stack: string;
}

/** The part of `import.meta.hot` the page client uses. */
interface HotChannel {
  on(event: "mpsync:sync", cb: (m: SyncMessage) => void): void;
  send(event: "mpsync:runtime-error", data: RuntimeErrorReport): void;
}

/** The part of the DOM the page client uses (this project compiles without the DOM library). */
interface Box {
  textContent: string | null;
  title: string;
  className: string;
  style: { setProperty(name: string, value: string): void };
  dataset: Record<string, string | undefined>;
  attachShadow(init: { mode: "open" }): { append(...nodes: Box[]): void };
  append(...nodes: Box[]): void;
}
interface PageGlobals {
  document: { createElement(tag: string): Box; documentElement: Box };
  addEventListener(
    type: "error",
    cb: (e: { error?: { message?: string; stack?: string }; message: string; filename: string; lineno: number; colno: number }) => void,
  ): void;
  addEventListener(type: "unhandledrejection", cb: (e: { reason?: { message?: string; stack?: string } }) => void): void;
}

/** Runs in the page: the badge (in a shadow root, apart from the design's CSS) and error reports. */
export function pageClient(hot: HotChannel, page: PageGlobals): void {
  const colors: Record<string, string> = {
    synced: "#3ecf8e",
    pushing: "#4aa3ff",
    conflict: "#ff6b6b",
    attention: "#ff6b6b",
    generating: "#c792ea",
    paused: "#f5b942",
  };
  let badge: { host: Box; box: Box } | undefined;
  const show = (m: SyncMessage): void => {
    if (badge === undefined) {
      const host = page.document.createElement("mpsync-badge");
      const style = page.document.createElement("style");
      style.textContent =
        ".box{position:fixed;right:12px;bottom:12px;z-index:2147483647;font:12px/1 system-ui,sans-serif;padding:6px 10px;border-radius:999px;background:#111;color:#fff;opacity:.85;box-shadow:0 1px 4px rgba(0,0,0,.3)}.box::before{content:'';display:inline-block;width:8px;height:8px;border-radius:50%;margin-right:6px;background:var(--dot)}";
      const box = page.document.createElement("div");
      box.className = "box";
      host.attachShadow({ mode: "open" }).append(style, box);
      page.document.documentElement.append(host);
      badge = { host, box };
    }
    badge.box.style.setProperty("--dot", colors[m.state] ?? "#aaa");
    badge.box.textContent = `mpsync: ${m.label}`;
    badge.box.title = m.message;
    badge.host.dataset["state"] = m.state;
  };
  hot.on("mpsync:sync", show);
  page.addEventListener("error", (e) => {
    hot.send("mpsync:runtime-error", {
      message: String(e.error?.message ?? e.message),
      stack: String(e.error?.stack ?? `at ${e.filename}:${e.lineno}:${e.colno}`),
    });
  });
  page.addEventListener("unhandledrejection", (e) => {
    hot.send("mpsync:runtime-error", { message: String(e.reason?.message ?? e.reason), stack: String(e.reason?.stack ?? "") });
  });
}

/** The page client as a module Vite serves (Vite gives it `import.meta.hot`). */
export function pageClientModule(): string {
  return `(${pageClient.toString()})(import.meta.hot, globalThis);\n`;
}
