/**
 * The operating system's keychain (Secret Service on Linux, Keychain on macOS, Credential
 * Manager on Windows) through `@napi-rs/keyring`: one entry per service address, under the
 * service name `mpsync`. The native binding is loaded on the first use, never at start-up: a
 * command whose key comes from MP_API_KEY or the credentials file, and `--help`, never load it.
 */
import { createRequire } from "node:module";

/** Where `mpsync login` keeps keys by default; one entry per service address. */
export interface Keychain {
  /** The keychain's name as a user knows it ("the Secret Service keychain"). */
  readonly name: string;
  /** The key stored for `address`; undefined when there is none or the keychain does not answer. */
  get(address: string): Promise<string | undefined>;
  /** Stores `key` for `address`; throws when the keychain refuses (locked, no collection, no service). */
  set(address: string, key: string): Promise<void>;
  /** Removes the key of `address`; true when there was one. */
  remove(address: string): Promise<boolean>;
  /** Every address a key is stored for (empty when the keychain does not answer). */
  addresses(): Promise<string[]>;
}

/** The keychain, or why there is none here (one clause, for a line such as "... : saved to FILE"). */
export type KeychainOpening = { keychain: Keychain } | { unavailable: string };

/** Opens the keychain: undefined never; `unavailable` when the binding does not load or no keychain answers. */
export type OpenKeychain = () => Promise<KeychainOpening>;

/** The service name every entry is stored under (the account is the service address). */
export const KEYCHAIN_SERVICE = "mpsync";

type Binding = typeof import("@napi-rs/keyring");

/** The real keychain of this machine (see the module comment). */
export const openSystemKeychain: OpenKeychain = async () => {
  let binding: Binding;
  try {
    binding = await loadBinding();
  } catch (err) {
    return { unavailable: `the keychain binding does not load on ${process.platform}-${process.arch} (${firstLine(messageOf(err))})` };
  }
  const name = keychainName();
  // On Linux the binding falls back to the kernel keyring when no Secret Service answers; that
  // keyring forgets its keys at logout, so mpsync pins the Secret Service and uses the file instead.
  const options = { linux: { store: "secret-service" as const } };
  const entry = (address: string): InstanceType<Binding["AsyncEntry"]> => new binding.AsyncEntry(KEYCHAIN_SERVICE, address, options);
  try {
    entry("probe");
  } catch (err) {
    return { unavailable: `no keychain answers (${whyNoKeychain(messageOf(err))})` };
  }
  return {
    keychain: {
      name,
      get: async (address) =>
        (await entry(address)
          .getPassword()
          .catch(() => null)) ?? undefined,
      set: (address, key) => entry(address).setPassword(key),
      remove: (address) => entry(address).deleteCredential(),
      addresses: async () => {
        const found = await binding.findCredentialsAsync(KEYCHAIN_SERVICE).catch(() => []);
        return found.map((c) => c.account).sort();
      },
    },
  };
};

function loadBinding(): Promise<Binding> {
  // require, not import(): the binding is CommonJS with a native file, and the CLI bundle runs
  // from V8's code cache, where a script's dynamic import() has no loader. The bundler leaves
  // a require made this way alone, so the binding is read from node_modules at run time.
  return Promise.resolve(createRequire(import.meta.url)("@napi-rs/keyring") as Binding);
}

function keychainName(): string {
  if (process.platform === "darwin") return "the macOS Keychain";
  if (process.platform === "win32") return "the Windows Credential Manager";
  return "the Secret Service keychain";
}

/** The binding's reason in a user's words: most often there is no D-Bus session (ssh, a container, CI). */
function whyNoKeychain(message: string): string {
  if (message.includes("DBUS_SESSION_BUS_ADDRESS")) return "no D-Bus session: DBUS_SESSION_BUS_ADDRESS is not set";
  return firstLine(message.replace(/^(Platform failure: )?(DBus error: )?/, ""));
}

function firstLine(text: string): string {
  return text.split("\n")[0] ?? text;
}

function messageOf(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}
