/** The reference client as a process: node reference-cli.mjs BASE_URL EDITOR_ID DIR (see pull.mjs). */
import { referencePull } from "./pull.mjs";

const [baseUrl, editorId, dir] = process.argv.slice(2);
await referencePull(baseUrl, editorId, dir);
