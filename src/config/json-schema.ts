/** The JSON Schema of `.syncrc` (shipped as syncrc.schema.json), generated from the zod schema. */
import * as z from "zod";
import { syncrcSchema } from "./schema.js";

/** `$id` of the published schema: the file inside the npm package. */
export const SYNCRC_SCHEMA_ID = "https://unpkg.com/mpsync/syncrc.schema.json";

/**
 * Builds the JSON Schema (draft-07, the draft editors support best) of what users write:
 * keys with defaults are optional. `allowComments` and `allowTrailingCommas` tell VS Code that
 * `.syncrc` is JSONC, as the loader accepts.
 */
export function buildSyncrcJsonSchema(): Record<string, unknown> {
  const generated = z.toJSONSchema(syncrcSchema, { target: "draft-07", io: "input" }) as Record<string, unknown>;
  const { $schema, ...rest } = generated;
  return {
    $schema,
    $id: SYNCRC_SCHEMA_ID,
    title: "mpsync .syncrc",
    ...rest,
    allowComments: true,
    allowTrailingCommas: true,
  };
}
