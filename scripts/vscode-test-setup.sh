#!/usr/bin/env bash
# What the VS Code tests (npm run test:vscode) need beside the repository: Debian's Chromium,
# Node 24 (code-server's engine: the binary scripts/node-binary.mjs keeps, the one CI's Node 24
# run uses) and code-server from the npm registry, installed once into a cache folder that later
# runs reuse. No install script runs: code-server's postinstall.sh compiles VS Code's native
# addons from source (sqlite, kerberos, spdlog...: more than ten minutes on 2 busy cores), and
# the tests need none of them; the terminal's node-pty and the file watcher come prebuilt.
# Without spdlog, VS Code's log files, code-server prints one stack trace ("Could not locate
# the bindings file") and goes on.
# Prints the folder that holds `node` (a link to Node 24) and node_modules/code-server.
set -euo pipefail
CODE_SERVER_VERSION=4.139.1
CACHE="${MPSYNC_VSCODE_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/mpsync/vscode-test}"
DEST="$CACHE/code-server-$CODE_SERVER_VERSION"
HERE="$(cd "$(dirname "$0")" && pwd)"

if [ ! -x /usr/bin/chromium ] && [ -z "${MPSYNC_CHROMIUM:-}" ]; then
  echo "installing Debian's chromium for the VS Code tests" >&2
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq >/dev/null
  apt-get install -y -qq chromium >/dev/null
fi

node24="$(node "$HERE/node-binary.mjs" 24)"
if [ ! -f "$DEST/.complete" ]; then
  echo "installing code-server $CODE_SERVER_VERSION into $DEST (once; later runs reuse it)" >&2
  rm -rf "$DEST"
  mkdir -p "$DEST"
  cd "$DEST"
  export PATH="$(dirname "$node24"):$PATH"
  quiet=(--no-audit --no-fund --loglevel=error --ignore-scripts)
  echo '{"name":"mpsync-vscode-test","private":true}' >package.json
  npm install "${quiet[@]}" --save-exact "code-server@$CODE_SERVER_VERSION" >&2
  # What postinstall.sh installs, without building: VS Code's server modules, and the built-in
  # extensions' TypeScript, trimmed by their own script.
  (cd node_modules/code-server/lib/vscode && npm install "${quiet[@]}" --omit=dev >&2)
  (cd node_modules/code-server/lib/vscode/extensions && npm install "${quiet[@]}" --omit=dev >&2 && node postinstall.mjs >/dev/null)
  touch .complete
fi
ln -sfn "$node24" "$DEST/node"
echo "$DEST"
