/**
 * A real Secret Service for tests: a private D-Bus session (`dbus-run-session`) with Debian's
 * gnome-keyring unlocked headless, its keyrings in a temp folder. `.ci/run` installs both
 * programs; a machine without them fails here with a line saying so, never a skipped test.
 */
import { spawn, type ChildProcessWithoutNullStreams } from "node:child_process";
import { mkdir } from "node:fs/promises";
import { join } from "node:path";

/** A running session: `env` reaches it (DBUS_SESSION_BUS_ADDRESS); `close` ends the bus and the keyring. */
export interface SecretService {
  env: { DBUS_SESSION_BUS_ADDRESS: string };
  close(): Promise<void>;
}

// The session lives while `cat` reads its stdin: closing stdin ends it, and gnome-keyring with it.
const SESSION_SCRIPT = [
  "command -v gnome-keyring-daemon >/dev/null || { echo 'gnome-keyring-daemon is missing: apt-get install gnome-keyring dbus (.ci/run does)' >&2; exit 127; }",
  "printf pw | gnome-keyring-daemon --unlock --components=secrets >/dev/null",
  'echo "$DBUS_SESSION_BUS_ADDRESS"',
  "exec cat",
].join("\n");

/** Starts a Secret Service whose keyrings live under `home` (a temp folder). */
export async function startSecretService(home: string): Promise<SecretService> {
  await mkdir(join(home, "data"), { recursive: true });
  let child: ChildProcessWithoutNullStreams;
  try {
    child = spawn("dbus-run-session", ["--", "sh", "-c", SESSION_SCRIPT], {
      env: { PATH: process.env["PATH"] ?? "", HOME: home, XDG_DATA_HOME: join(home, "data"), XDG_RUNTIME_DIR: home },
    });
  } catch (err) {
    throw new Error(`cannot start dbus-run-session (apt-get install dbus gnome-keyring; .ci/run does): ${String(err)}`);
  }
  const closed = new Promise<void>((resolve) => child.once("close", () => resolve()));
  let stderr = "";
  child.stderr.on("data", (d: Buffer) => (stderr += d.toString()));
  const address = await new Promise<string>((resolve, reject) => {
    let out = "";
    child.once("error", (err) => reject(new Error(`cannot start dbus-run-session (apt-get install dbus gnome-keyring; .ci/run does): ${err.message}`)));
    child.once("close", (code) => reject(new Error(`the D-Bus session ended (exit ${String(code)}) before it answered: ${stderr.trim()}`)));
    child.stdout.on("data", (d: Buffer) => {
      out += d.toString();
      const line = out.split("\n")[0];
      if (out.includes("\n") && line !== undefined) resolve(line.trim());
    });
  });
  return {
    env: { DBUS_SESSION_BUS_ADDRESS: address },
    async close() {
      child.stdin.end();
      await closed;
    },
  };
}
