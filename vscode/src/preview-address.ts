/** Where VS Code shows the preview of `mpsync dev`, and what it says when it cannot show it itself. Pure. */

/** The address to open, and a line for the output when the address only works on this machine. */
export interface PreviewAddress {
  url: string;
  note?: string;
}

/**
 * `local` is the address `mpsync dev` listens on; `external` is what `vscode.env.asExternalUri`
 * made of it. A forwarded port (a remote window of desktop VS Code) keeps the page's root paths and
 * is taken. A path under a proxy (code-server's `/proxy/PORT/`) is not: the preview's page loads
 * its scripts by root paths (`/@vite/client`, `/index.tsx`), which would miss the prefix; the
 * local address serves a browser on this machine, and the note says how to reach it from another.
 */
export function previewAddress(local: string, external: string): PreviewAddress {
  const there = new URL(external);
  if (there.pathname === "/" || there.pathname === "") return { url: external };
  const port = new URL(local).port;
  return {
    url: local,
    note: `The preview is at ${local} on the machine mpsync runs on; VS Code's proxy (${there.pathname}) cannot serve its page (it loads scripts by root paths). From another machine, forward the port: ssh -L ${port}:127.0.0.1:${port}`,
  };
}

/** The one message when the preview opened in the user's browser instead: `why` VS Code's Simple Browser did not show it. */
export function openedOutside(url: string, why: string): string {
  return `mpsync: ${why}, so the preview opened in your browser: ${url}`;
}

/** Why, when VS Code has no Simple Browser. */
export const NO_SIMPLE_BROWSER = "VS Code's Simple Browser is not available (built-in extension vscode.simple-browser disabled or absent)";
