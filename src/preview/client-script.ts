/**
 * The script every preview page loads: listens to the reload channel (server-sent events),
 * swaps the stylesheet in place on a CSS change, reloads on a script change or a pulled
 * version, shows compile and runtime errors in an overlay, shows the sync state in a badge,
 * and reports runtime errors to the terminal. Both widgets live in shadow roots, so neither the
 * design's CSS (Tailwind's preflight) nor theirs leaks across.
 */
import { PAGE_URLS } from "./page.js";

/** The client script's source (plain browser JavaScript). */
export function clientScript(): string {
  return `
const EVENTS = ${JSON.stringify(PAGE_URLS.events)};
const CSS = ${JSON.stringify(PAGE_URLS.css)};
let version = 0;
let overlay, badge;
/** What the overlay shows: "build" problems (the server's to clear) or a "runtime" error of this page. */
let overlayKind = "";
const [loadedJs, loadedCss] = (document.querySelector("meta[name=mpsync-build]")?.content ?? "0.0").split(".").map(Number);
let shownCss = loadedCss;

function widget(tag, css) {
  const host = document.createElement(tag);
  const root = host.attachShadow({ mode: "open" });
  const style = document.createElement("style");
  style.textContent = css;
  const box = document.createElement("div");
  box.className = "box";
  root.append(style, box);
  document.documentElement.append(host);
  return { host, box };
}

function showProblems(title, problems, kind = "build") {
  overlayKind = kind;
  overlay ??= widget("mpsync-overlay", ".box{position:fixed;inset:0;z-index:2147483646;background:rgba(20,20,24,.92);color:#f3f3f3;font:14px/1.5 ui-monospace,Menlo,monospace;padding:32px;overflow:auto;white-space:pre-wrap}.t{color:#ff6b6b;font-weight:700;margin-bottom:12px}.w{color:#9ab}.c{color:#ffd479}");
  overlay.box.replaceChildren();
  const t = document.createElement("div");
  t.className = "t";
  t.textContent = title;
  overlay.box.append(t);
  for (const p of problems) {
    const item = document.createElement("div");
    const where = p.file ? p.file + (p.line ? ":" + p.line + (p.column ? ":" + p.column : "") : "") + "  " : "";
    item.innerHTML = "";
    const w = document.createElement("span");
    w.className = "w";
    w.textContent = where;
    item.append(w, document.createTextNode(p.message));
    if (p.lineText) {
      const c = document.createElement("div");
      c.className = "c";
      c.textContent = "  " + p.lineText;
      item.append(c);
    }
    overlay.box.append(item);
  }
  overlay.host.hidden = false;
}

function hideProblems() {
  // A runtime error of this page stays until a new build reloads it: the server's "no build
  // problems" (its greeting may come after the error) says nothing about it.
  if (overlay && overlayKind === "build") overlay.host.hidden = true;
}

// The words come from the server (sync/sync-state.ts syncStateLabel): one owner of them.
function showSync(state, label, message) {
  badge ??= widget("mpsync-badge", ".box{position:fixed;right:12px;bottom:12px;z-index:2147483647;font:12px/1 system-ui,sans-serif;padding:6px 10px;border-radius:999px;background:#111;color:#fff;opacity:.85;box-shadow:0 1px 4px rgba(0,0,0,.3)}.box::before{content:'';display:inline-block;width:8px;height:8px;border-radius:50%;margin-right:6px;background:var(--dot)}");
  const colors = { synced: "#3ecf8e", paused: "#f0b429", pushing: "#4aa3ff", conflict: "#ff6b6b", offline: "#aaa", unavailable: "#aaa", generating: "#c792ea", attention: "#ff6b6b", starting: "#aaa" };
  badge.box.style.setProperty("--dot", colors[state] ?? "#aaa");
  badge.box.textContent = "mpsync: " + (label ?? state);
  badge.box.title = message ?? "";
  badge.host.dataset.state = state;
}

function swapCss() {
  const old = document.querySelector("link[data-mpsync-css]");
  const next = document.createElement("link");
  next.rel = "stylesheet";
  next.href = CSS + "?v=" + (++version);
  next.dataset.mpsyncCss = "";
  next.onload = next.onerror = () => old?.remove();
  (old ?? document.head.lastChild).after(next);
}

function report(kind, message, stack) {
  fetch("/__mpsync/runtime-error", { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ kind, message, stack }) }).catch(() => {});
}

addEventListener("error", (e) => {
  const err = e.error;
  showProblems("Runtime error", [{ message: String(err?.message ?? e.message) }], "runtime");
  report("error", String(err?.message ?? e.message), String(err?.stack ?? (e.filename + ":" + e.lineno + ":" + e.colno)));
});
addEventListener("unhandledrejection", (e) => {
  const err = e.reason;
  showProblems("Unhandled rejection", [{ message: String(err?.message ?? err) }], "runtime");
  report("rejection", String(err?.message ?? err), String(err?.stack ?? ""));
});

const source = new EventSource(EVENTS);
source.onmessage = (e) => {
  const m = JSON.parse(e.data);
  if (m.type === "hello") {
    // Changes announced while this page loaded, before it listened.
    if (m.js !== loadedJs) location.reload();
    else if (m.css !== shownCss) (shownCss = m.css), swapCss();
  } else if (m.type === "css") (shownCss = m.css), swapCss();
  else if (m.type === "reload") location.reload();
  else if (m.type === "problems" && m.problems.length > 0 && m.title !== "Runtime error") showProblems(m.title, m.problems);
  else if (m.type === "problems" && m.problems.length === 0) hideProblems();
  else if (m.type === "sync") showSync(m.state, m.label, m.message);
};
`;
}
