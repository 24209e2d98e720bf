/** `mpsync open [--preview] [--print]`: the mapped design (or its preview) in the browser. */
import { spawn } from "node:child_process";
import { z } from "zod";
import { MpsyncError } from "../../core/errors.js";
import { openStateStore } from "../../state/state-store.js";
import type { CommandContext } from "../context.js";
import { openMapped } from "./versions.js";

/** What `publish` records in `.mpsync/links.json` for `open --preview`. */
export const linksSchema = z.object({ previewUrl: z.string().optional() });

/** The web editor of the real service (the emulator names its designs' editors there too). */
const DEFAULT_APP_URL = "https://www.magicpatterns.com";

/** The web editor's address of a design: `api.<host>` serves `www.<host>`; else the real editor. */
export function editorUrlOf(baseUrl: string, editorId: string): string {
  const url = new URL(baseUrl);
  // api.magicpatterns.com -> www.magicpatterns.com (docs/service-facts.md#addresses-and-auth).
  const app = url.hostname.startsWith("api.") ? `${url.protocol}//www.${url.hostname.slice(4)}` : DEFAULT_APP_URL;
  return `${app}/c/${editorId}`;
}

/** `mpsync open`. */
export async function runOpen(ctx: CommandContext, flags: { dir?: string; preview?: boolean; print?: boolean }): Promise<void> {
  const { mapping, editorId } = await openMapped(ctx, flags.dir);
  let url = editorUrlOf(ctx.runtime.baseUrl(), editorId);
  if (flags.preview === true) {
    const links = await openStateStore(mapping.root).loadSide("links.json", linksSchema);
    if (links?.previewUrl === undefined) {
      // The service's publish answer is not documented to carry it (docs/service-facts.md#publish).
      throw new MpsyncError("NOT_FOUND", `${mapping.label}: the service has not told mpsync this design's preview address`, {
        hint: "run mpsync publish (when its answer names the preview, it is remembered here), or mpsync open and use the editor's preview",
      });
    }
    url = links.previewUrl;
  }
  const opened = flags.print === true ? false : await openInBrowser(url, ctx.runtime.options.env);
  ctx.out.result("open", { ok: true, dir: mapping.dir, editorId, url, opened }, () => {
    ctx.out.info(opened ? `opened ${url}` : url);
  });
}

/**
 * Starts $BROWSER (or the platform's opener) on `url`; false when none could be started. It is
 * not waited for: a browser started directly may run until it is closed.
 */
export function openInBrowser(url: string, env: Record<string, string | undefined>): Promise<boolean> {
  const browser = env.BROWSER?.trim();
  const [command, args] =
    browser !== undefined && browser !== ""
      ? [browser, [url]]
      : process.platform === "darwin"
        ? ["open", [url]]
        : process.platform === "win32"
          ? ["cmd", ["/c", "start", "", url]]
          : ["xdg-open", [url]];
  return new Promise((resolve) => {
    const child = spawn(command, args, { stdio: "ignore", detached: true, env });
    child.once("error", () => resolve(false));
    child.once("spawn", () => {
      child.unref();
      resolve(true);
    });
  });
}
