#!/usr/bin/env node
// Writes the published JSON Schemas from the built zod schemas (run `npm run build` first):
// syncrc.schema.json (.syncrc) and json-output.schema.json (what --json prints).
// `--check` only compares and exits 1 when a committed file is stale.
import { readFile, writeFile } from "node:fs/promises";
import { isDeepStrictEqual } from "node:util";

const { buildSyncrcJsonSchema } = await import(new URL("../dist/config/json-schema.js", import.meta.url).href);
const { buildJsonOutputSchema } = await import(new URL("../dist/app/json-documents.js", import.meta.url).href);
const schemas = [
  ["syncrc.schema.json", buildSyncrcJsonSchema()],
  ["json-output.schema.json", buildJsonOutputSchema()],
];

let stale = false;
for (const [name, schema] of schemas) {
  const target = new URL(`../${name}`, import.meta.url);
  if (process.argv.includes("--check")) {
    const current = JSON.parse(await readFile(target, "utf8").catch(() => "null"));
    if (isDeepStrictEqual(current, schema)) {
      console.log(`${name} is up to date`);
    } else {
      console.error(`${name} is stale: run npm run schema`);
      stale = true;
    }
  } else {
    await writeFile(target, `${JSON.stringify(schema, null, 2)}\n`);
    console.log(`wrote ${target.pathname}`);
  }
}
if (stale) process.exit(1);
