#!/usr/bin/env bash
# What the VS Code tests (npm run test:vscode) need beside the repository: Debian's Chromium and
# the build packages code-server's npm install expects, Node 24 (code-server's engine) and
# code-server itself, both from the npm registry, installed once into a cache folder that later
# runs reuse. npm 11 skips install scripts, so code-server's postinstall.sh is run here.
# Prints the folder that holds node_modules/.bin/code-server.
set -euo pipefail
CODE_SERVER_VERSION=4.139.1
NODE_VERSION=24.21.0
CACHE="${MPSYNC_VSCODE_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/mpsync/vscode-test}"
DEST="$CACHE/code-server-$CODE_SERVER_VERSION"

missing=()
for pkg in chromium libkrb5-dev libx11-dev libxkbfile-dev libsecret-1-dev build-essential; do
  dpkg -s "$pkg" >/dev/null 2>&1 || missing+=("$pkg")
done
if [ ${#missing[@]} -gt 0 ]; then
  echo "installing Debian packages for the VS Code tests: ${missing[*]}" >&2
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq >/dev/null
  apt-get install -y -qq "${missing[@]}" >/dev/null
fi

if [ ! -f "$DEST/.complete" ]; then
  echo "installing Node $NODE_VERSION and code-server $CODE_SERVER_VERSION into $DEST (once; later runs reuse it)" >&2
  rm -rf "$DEST"
  mkdir -p "$DEST"
  cd "$DEST"
  echo '{"name":"mpsync-vscode-test","private":true}' >package.json
  npm install --no-audit --no-fund --loglevel=error --save-exact "node@$NODE_VERSION" >&2
  export PATH="$DEST/node_modules/node/bin:$PATH"
  npm install --no-audit --no-fund --loglevel=error --save-exact "code-server@$CODE_SERVER_VERSION" >&2
  (cd node_modules/code-server && npm_config_user_agent="npm/$(npm -v) node/$(node -v) linux x64" sh postinstall.sh >&2)
  touch .complete
fi
echo "$DEST"
