/**
 * The service runtime's package versions, for a design without a package.json (what the
 * service's exports pin: docs/service-facts.md#exports-and-runtime).
 * The one place they are written: the preview installs a package a scaffold imports at the
 * version named here, and the newest release of one not named.
 */
export const RUNTIME_VERSIONS: Readonly<Record<string, string>> = {
  react: "18.3.1",
  "react-dom": "18.3.1",
  "lucide-react": "0.522.0",
  "framer-motion": "11.5.4",
  "react-router-dom": "6.26.2",
  recharts: "^2.15.0",
};

/** What every design gets before its first import is seen: React, which the entry mounts with. */
export const RUNTIME_BASE = ["react", "react-dom"] as const;

/** The spec npm is given for `name` in a design without a package.json. */
export function runtimeSpec(name: string): string {
  const version = RUNTIME_VERSIONS[name];
  return version === undefined ? name : `${name}@${version}`;
}
