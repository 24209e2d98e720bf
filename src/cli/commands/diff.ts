/**
 * `mpsync diff [PATH...] [--remote]`: what changed locally, as a unified diff against the last
 * synced version (or, with --remote, against what the service holds now). Changes nothing and
 * takes no lock, so it works while `watch` runs.
 */
import { createTwoFilesPatch } from "diff";
import { MpsyncError } from "../../core/errors.js";
import { readLocalFile } from "../../local/scan-tree.js";
import { UnsafeLocalPathError } from "../../local/safe-path.js";
import type { Mapping } from "../../runtime.js";
import type { CommandContext } from "../context.js";
import type { Output } from "../output.js";
import { locateFile } from "../../app/restore-file.js";
import { openReadOnly } from "../../app/folder.js";
import type { CliDocument } from "../../app/json-documents.js";

/** One file's unified diff; empty for a binary file (then `binary` is true). */
type FileDiff = CliDocument<"diff">["files"][number];

/** `mpsync diff`. */
export async function runDiff(ctx: CommandContext, args: string[], flags: { dir?: string; remote?: boolean }): Promise<void> {
  // An argument is a mapped folder (`mpsync diff web`) or a path inside one.
  const located = await Promise.all(
    args.map((a) => wholeFolder(ctx, a).then((m) => m ?? locateFile(ctx.runtime, ctx.io.cwd, a.replace(/\/+$/, ""), flags.dir))),
  );
  const mapping = located[0]?.mapping ?? (await ctx.runtime.singleMapping(flags.dir));
  if (located.some((l) => l.mapping.root !== mapping.root))
    throw new MpsyncError("USAGE", "the paths lie in different mapped folders: diff one folder at a time");
  const sync = await openReadOnly(ctx.runtime, mapping);
  const wanted = located.flatMap((l) => (l.rel === "" ? [] : [l.rel]));
  const inScope = (p: string): boolean => wanted.length === 0 || wanted.some((w) => p === w || p.startsWith(`${w}/`));
  let remote: Map<string, string> | undefined;
  let candidates: string[];
  if (flags.remote === true) {
    const client = await ctx.runtime.client();
    const active = await client.getActiveArtifact(sync.editorId);
    const local = [...new Set([...Object.keys(sync.state.files), ...(await sync.localChanges())])];
    const names = [...new Set([...active.files, ...local])].filter(inScope).sort();
    remote = new Map((await client.readFiles(sync.editorId, active.artifactId, active.files.filter(inScope))).map((f) => [f.name, f.content]));
    candidates = names;
  } else {
    candidates = (await sync.localChanges()).filter(inScope);
  }
  const files: FileDiff[] = [];
  for (const path of candidates) {
    const local = await readText(mapping.root, path);
    const before = remote === undefined ? await sync.baseText(path) : remote.get(path);
    if (local === "binary") {
      files.push({ path, patch: "", binary: true });
      continue;
    }
    if (local === before) continue;
    const from = remote === undefined ? "last synced" : "remote";
    files.push({
      path,
      binary: false,
      patch: createTwoFilesPatch(
        before === undefined ? "/dev/null" : `a/${path}`,
        local === undefined ? "/dev/null" : `b/${path}`,
        before ?? "",
        local ?? "",
        from,
        "local",
      ),
    });
  }
  ctx.out.result("diff", { ok: true, dir: mapping.dir, editorId: sync.editorId, against: remote === undefined ? "base" : "remote", files }, () =>
    render(ctx.out, files),
  );
}

/** The mapping `arg` names as a whole (a mapped folder), with an empty path; else undefined. */
async function wholeFolder(ctx: CommandContext, arg: string): Promise<{ mapping: Mapping; rel: string } | undefined> {
  try {
    const [mapping] = await ctx.runtime.mappings([arg]);
    return mapping === undefined ? undefined : { mapping, rel: "" };
  } catch {
    return undefined;
  }
}

/** The local text; undefined when absent; "binary" when not UTF-8 text. */
async function readText(root: string, path: string): Promise<string | undefined | "binary"> {
  try {
    const f = await readLocalFile(root, path);
    if (f === undefined) return undefined;
    return f.text ?? "binary";
  } catch (err) {
    if (err instanceof UnsafeLocalPathError) return undefined;
    throw err;
  }
}

function render(out: Output, files: FileDiff[]): void {
  const c = out.c;
  if (files.length === 0) {
    out.info(c.dim("no differences"));
    return;
  }
  for (const f of files) {
    if (f.binary) {
      out.info(c.bold(`Binary file ${f.path} differs`));
      continue;
    }
    for (const line of f.patch.replace(/\n$/, "").split("\n")) {
      if (line.startsWith("===")) continue;
      if (line.startsWith("+++") || line.startsWith("---") || line.startsWith("Index:")) out.info(c.bold(line));
      else if (line.startsWith("@@")) out.info(c.cyan(line));
      else if (line.startsWith("+")) out.info(c.green(line));
      else if (line.startsWith("-")) out.info(c.red(line));
      else out.info(line);
    }
  }
}
