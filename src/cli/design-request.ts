/**
 * What `create` and `init --create` share: the creation flags (declared in src/cli/declare/design.ts), their translation into a
 * POST /v3/designs body (the client counts a prompted creation against the generation budget).
 */
import { MpsyncError } from "../api/errors.js";
import type { CreateDesignRequest, Design } from "../api/schemas.js";
import { isBareEditorId, normalizeDesignUrl } from "../sync/resolve-design.js";
import type { CommandContext } from "./context.js";

/** Flags of a design creation. */
export interface CreateFlags {
  name?: string;
  prompt?: string;
  template?: string;
  designSystem?: string;
  image?: string[];
}

/** The request body for `flags`; a template URL is resolved to its editorId. */
export async function buildCreateRequest(ctx: CommandContext, flags: CreateFlags): Promise<CreateDesignRequest> {
  const images = flags.image ?? [];
  if (images.length > 0 && flags.prompt === undefined) {
    throw new MpsyncError("USAGE", "--image needs --prompt: images are references for a generation");
  }
  checkImageUrls(images);
  if (flags.prompt !== undefined && flags.prompt.trim() === "") throw new MpsyncError("USAGE", "--prompt is empty");
  const body: CreateDesignRequest = {};
  if (flags.name !== undefined) body.name = flags.name;
  if (flags.prompt !== undefined) body.prompt = flags.prompt;
  if (images.length > 0) body.imageUrls = images;
  if (flags.designSystem !== undefined) {
    // Ids are `ds-<uuid>`; anything else is a name the service resolves case-insensitively.
    if (flags.designSystem.startsWith("ds-")) body.designSystemId = flags.designSystem;
    else body.designSystem = flags.designSystem;
  }
  if (flags.template !== undefined) {
    const client = await ctx.runtime.client();
    body.templateId = isBareEditorId(flags.template) ? flags.template : await client.resolveUrl(normalizeDesignUrl(flags.template));
  }
  return body;
}

/** Throws USAGE unless every `--image` is an http(s) URL. */
export function checkImageUrls(images: readonly string[]): void {
  for (const url of images) {
    if (!/^https?:\/\//i.test(url) || !URL.canParse(url)) throw new MpsyncError("USAGE", `--image ${url}: expected an http(s) URL`);
  }
}

/** Creates the design; a prompted creation goes through the generation budget (the client's). */
export async function createDesign(ctx: CommandContext, body: CreateDesignRequest): Promise<Design> {
  return (await ctx.runtime.client()).createDesign(body);
}
