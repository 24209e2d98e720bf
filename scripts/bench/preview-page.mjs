/**
 * The preview bench's probe in the page and its waiters: the page reports, at the animation
 * frame it shows it, every new `heading|letter-spacing|counter` it renders; the bench awaits the
 * report that shows a change.
 */

/* global document, getComputedStyle, window, requestAnimationFrame -- WATCH_PAGE runs in the page */
/** Reports each new heading text, heading letter spacing and counter text, from every page load. */
export const WATCH_PAGE = () => {
  let last = "";
  const frame = () => {
    const h1 = document.querySelector("h1");
    if (h1 !== null) {
      const count = document.querySelector("#count")?.textContent?.trim() ?? "";
      const seen = `${h1.textContent}|${getComputedStyle(h1).letterSpacing}|${count}`;
      if (seen !== last) {
        last = seen;
        window.benchSeen(seen, performance.timeOrigin + performance.now());
      }
    }
    requestAnimationFrame(frame);
  };
  requestAnimationFrame(frame);
};

/** Waiters on what the page shows (WATCH_PAGE reports each new state). */
export function pageWatcher() {
  const waiters = [];
  let lastSeen = "";
  return {
    seen(text, at) {
      lastSeen = text;
      for (const w of [...waiters]) {
        if (!w.match(text)) continue;
        waiters.splice(waiters.indexOf(w), 1);
        w.resolve(at);
      }
    },
    /** The last state the page reported. */
    last: () => lastSeen,
    /** Resolves with the page's time of the first report matching `match`. */
    next(match, who, timeoutMs = 60_000) {
      return new Promise((resolve, reject) => {
        const waiter = { match, resolve: (at) => (clearTimeout(timer), resolve(at)) };
        const timer = setTimeout(() => {
          waiters.splice(waiters.indexOf(waiter), 1);
          reject(new Error(`preview bench (${who}): the page did not show the change within ${timeoutMs} ms (last seen: ${lastSeen})`));
        }, timeoutMs);
        waiters.push(waiter);
      });
    },
  };
}
