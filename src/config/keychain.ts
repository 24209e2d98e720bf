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
  /** Stores `key` for `address`; throws when the keychain refuses (KeychainUnavailable when none answers). */
  set(address: string, key: string): Promise<void>;
  /** Removes the key of `address`; true when there was one, false when none was or no keychain answers. */
  remove(address: string): Promise<boolean>;
  /** Every address a key is stored for (empty when the keychain does not answer). */
  addresses(): Promise<string[]>;
  /** Undefined when the keychain answers, else why not (one clause). */
  whyUnavailable(): Promise<string | undefined>;
}

/** The keychain, or why there is none here (one clause, for a line such as "...: saved to FILE"). */
export type KeychainOpening = { keychain: Keychain } | { unavailable: string };

/** Opens the keychain: `unavailable` when its binding does not load on this platform. */
export type OpenKeychain = () => Promise<KeychainOpening>;

/** No keychain answers here (no D-Bus session, no Secret Service): the file is used instead. */
export class KeychainUnavailable extends Error {}

/** The service name every entry is stored under (the account is the service address). */
export const KEYCHAIN_SERVICE = "mpsync";

type Binding = typeof import("@napi-rs/keyring");
type Entry = InstanceType<Binding["AsyncEntry"]>;

/** The real keychain of this machine (see the module comment). */
export const openSystemKeychain: OpenKeychain = async () => {
  let binding: Binding;
  try {
    binding = await loadBinding();
  } catch (err) {
    return { unavailable: `the keychain binding does not load on ${process.platform}-${process.arch} (${firstLine(messageOf(err))})` };
  }
  return { keychain: bindingKeychain(binding) };
};

function bindingKeychain(binding: Binding): Keychain {
  // On Linux the binding falls back to the kernel keyring when no Secret Service answers; that
  // keyring forgets its keys at logout, so mpsync pins the Secret Service and uses the file instead.
  const options = { linux: { store: "secret-service" as const } };
  // An entry connects to the keychain when it is made: one per address, made on first use.
  const entries = new Map<string, Entry>();
  const entry = (address: string): Entry => {
    let made = entries.get(address);
    if (made === undefined) {
      try {
        made = new binding.AsyncEntry(KEYCHAIN_SERVICE, address, options);
      } catch (err) {
        throw new KeychainUnavailable(`no keychain answers (${whyNoKeychain(messageOf(err))})`);
      }
      entries.set(address, made);
    }
    return made;
  };
  const answered = <T>(work: () => Promise<T>, otherwise: T): Promise<T> => {
    try {
      return work().catch(() => otherwise);
    } catch {
      return Promise.resolve(otherwise);
    }
  };
  return {
    name: keychainName(),
    get: async (address) => (await answered(() => entry(address).getPassword(), null)) ?? undefined,
    set: (address, key) => entry(address).setPassword(key),
    remove: (address) => answered(() => entry(address).deleteCredential(), false),
    addresses: async () => (await answered(() => binding.findCredentialsAsync(KEYCHAIN_SERVICE), [])).map((c) => c.account).sort(),
    whyUnavailable: async () => {
      try {
        // getSecret, unlike getPassword, rejects when the store cannot be read.
        await entry("mpsync-doctor-probe").getSecret();
        return undefined;
      } catch (err) {
        return messageOf(err);
      }
    },
  };
}

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
