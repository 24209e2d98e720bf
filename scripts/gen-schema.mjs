#!/usr/bin/env node
// Writes syncrc.schema.json from the built zod schema (run `npm run build` first).
// `--check` only compares and exits 1 when the committed file is stale.
import { readFile, writeFile } from "node:fs/promises";
import { isDeepStrictEqual } from "node:util";

const { buildSyncrcJsonSchema } = await import(new URL("../dist/config/json-schema.js", import.meta.url).href);
const target = new URL("../syncrc.schema.json", import.meta.url);
const schema = buildSyncrcJsonSchema();

if (process.argv.includes("--check")) {
  const current = JSON.parse(await readFile(target, "utf8").catch(() => "null"));
  if (!isDeepStrictEqual(current, schema)) {
    console.error("syncrc.schema.json is stale: run npm run schema");
    process.exit(1);
  }
  console.log("syncrc.schema.json is up to date");
} else {
  await writeFile(target, `${JSON.stringify(schema, null, 2)}\n`);
  console.log(`wrote ${target.pathname}`);
}
