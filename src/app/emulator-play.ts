/**
 * A teammate on the emulator, played from the command line (`mpsync emulator web-edit` and
 * `mpsync emulator generate`): an edit in the web editor changes the design's active version
 * without a new version, a prompt there starts a generation that ends with one. Both go to
 * the emulator the folder's config points at, and only to a loopback address.
 */
import { isLoopbackUrl } from "../config/poll-floor.js";
import { MpsyncError } from "../core/errors.js";
import { emulatorDesignControl, type EmulatorDesignControl } from "../emulator/control-client.js";
import type { Mapping, Runtime } from "../runtime.js";
import { openReadOnly } from "./folder.js";
import type { LocatedFile } from "./restore-file.js";

/** A web-editor edit: append `line` to the file, or remove it. */
export type WebEdit = { append: string } | { remove: true };

/** What a web edit did. */
export interface WebEditDone {
  editorId: string;
  name: string;
}

/** Plays a web-editor edit of `file` on the emulator holding its design. */
export async function playWebEdit(runtime: Runtime, file: LocatedFile, edit: WebEdit): Promise<WebEditDone> {
  const { control, editorId } = await emulatorOf(runtime, file.mapping, "web-edit");
  const files = await control.files();
  const old = files[file.rel];
  if (old === undefined && "remove" in edit) throw new MpsyncError("NOT_FOUND", `${file.rel} is not in design ${editorId}`);
  if ("remove" in edit) await control.removeFile(file.rel);
  else if (old === undefined) await control.editFile(file.rel, `${edit.append}\n`);
  else await control.editFile(file.rel, `${old}${old === "" || old.endsWith("\n") ? "" : "\n"}${edit.append}\n`);
  return { editorId, name: file.rel };
}

/** Starts a generation of `prompt` on the emulator holding the mapping's design, as the web editor would. */
export async function playGeneration(runtime: Runtime, mapping: Mapping, prompt: string): Promise<{ editorId: string }> {
  const { control, editorId } = await emulatorOf(runtime, mapping, "generate");
  await control.startGeneration(prompt);
  return { editorId };
}

async function emulatorOf(runtime: Runtime, mapping: Mapping, command: string): Promise<{ control: EmulatorDesignControl; editorId: string }> {
  const baseUrl = runtime.baseUrl();
  if (!isLoopbackUrl(baseUrl)) {
    throw new MpsyncError("USAGE", `mpsync emulator ${command} plays the web editor of the emulator only: ${mapping.label} syncs with ${baseUrl}`, {
      hint: "point baseUrl in .syncrc or MPSYNC_BASE_URL at a running mpsync emulator",
    });
  }
  const editorId = (await openReadOnly(runtime, mapping)).editorId;
  return { control: emulatorDesignControl(baseUrl, editorId), editorId };
}
