/** `mpsync open [--preview] [--print]`: the mapped design (or its preview) in the browser. */
import { spawn } from "node:child_process";
import * as z from "zod";
import { MpsyncError } from "../../core/errors.js";
import { openStateStore } from "../../state/state-store.js";
import type { CommandContext } from "../context.js";
import { openMapped } from "./versions.js";
import { isLoopbackUrl } from "../../config/poll-floor.js";
import { PLACEHOLDER_NOTE } from "../links.js";

/** What `publish` records in `.mpsync/links.json` for `open --preview`: the preview's address when the answer named it, and when it published. */
export const linksSchema = z.object({ previewUrl: z.string().optional(), publishedAt: z.number().optional() });

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
  const baseUrl = ctx.runtime.baseUrl();
  const emulated = isLoopbackUrl(baseUrl);
  let url = editorUrlOf(baseUrl, editorId);
  if (flags.preview === true) {
    if (emulated) {
      throw new MpsyncError("NOT_FOUND", `${mapping.label}: the emulator publishes no preview (its preview links are placeholders)`, {
        hint: `preview the folder locally: mpsync dev ${mapping.label}`,
      });
    }
    const links = await openStateStore(mapping.root).loadSide("links.json", linksSchema);
    if (links?.previewUrl === undefined) throw noPreviewAddress(mapping.label, links?.publishedAt);
    url = links.previewUrl;
  }
  // The emulator's editor link leads nowhere: printed as a placeholder, never opened.
  const opened = flags.print === true || emulated ? false : await openInBrowser(url, ctx.runtime.options.env);
  ctx.out.result("open", { ok: true, dir: mapping.dir, editorId, url, opened }, () => {
    ctx.out.info(opened ? `opened ${url}` : emulated ? `${url} (${PLACEHOLDER_NOTE}; the design's files are in ${mapping.label})` : url);
  });
}

/** No preview address is known: never published here, or published with an answer that did not name it (the service's answer is not documented to). */
function noPreviewAddress(label: string, publishedAt: number | undefined): MpsyncError {
  if (publishedAt === undefined) {
    return new MpsyncError("NOT_FOUND", `${label}: the service has not told mpsync this design's preview address`, {
      hint: "run mpsync publish (when its answer names the preview, it is remembered here), or mpsync open and use the editor's preview",
    });
  }
  return new MpsyncError(
    "NOT_FOUND",
    `${label} was published (${new Date(publishedAt).toISOString()}), but the service's answer did not name the preview address`,
    {
      hint: `open the editor (mpsync open ${label}) and use its preview, or preview the folder locally: mpsync dev ${label}`,
    },
  );
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
