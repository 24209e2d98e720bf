/**
 * The CLI's `--json` documents as the extension reads them: each checked against the published
 * json-output.schema.json (the contract scripts use too), never against the CLI's code.
 */
import { z } from "zod";
import schema from "../../json-output.schema.json" with { type: "json" };

/** The kinds the extension reads. */
export type DocumentKind = "status" | "pause" | "sync" | "restore" | "resolve" | "error" | "event";

/** A `restore --list` copy. */
export interface RestoreCopy {
  at?: number;
  reason: string;
  file?: string;
}

/** A document the schema does not describe: the CLI and the extension disagree. */
export class DocumentMismatch extends Error {}

const validators = new Map<DocumentKind, z.ZodType>();

/** Checks `doc` against the schema's definition `kind`; throws DocumentMismatch with the first problem. */
export function checkDocument<T>(kind: DocumentKind, doc: unknown): T {
  let validator = validators.get(kind);
  if (validator === undefined) {
    const { anyOf: _, ...rest } = schema as Record<string, unknown>;
    validator = z.fromJSONSchema({ ...rest, $ref: `#/definitions/${kind}` } as Parameters<typeof z.fromJSONSchema>[0]);
    validators.set(kind, validator);
  }
  const parsed = validator.safeParse(doc);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw new DocumentMismatch(
      `mpsync printed a ${kind} document this extension does not know (${issue?.path.join(".") ?? ""}: ${issue?.message ?? "?"}): update the older of the two`,
    );
  }
  return doc as T;
}

/** The copies of a `restore --list --json` document that can be put back by time, newest first. */
export function restorableCopies(doc: { copies: RestoreCopy[] }): (RestoreCopy & { at: number; file: string })[] {
  return doc.copies.filter((c): c is RestoreCopy & { at: number; file: string } => c.at !== undefined && c.file !== undefined).sort((a, b) => b.at - a.at);
}

/** A quick pick's line for a copy. */
export function copyLabel(copy: { at: number; reason: string }): string {
  return `${new Date(copy.at).toISOString().replace("T", " ").slice(0, 19)}  ${copy.reason}`;
}
