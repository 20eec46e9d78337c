#!/usr/bin/env bash
# One .vsix per platform, each bundling that platform's server, plus a universal one with
# none (it uses `wirelens.server.path` or `wirelens` on PATH). VS Code's Marketplace and
# `code --install-extension` pick the package whose target matches the machine.
#
# Usage: editors/vscode/scripts/package-targets.sh [--dist DIR] [--out DIR] [TARGET…]
#   --dist DIR  the servers, as DIR/<target>/wirelens[.exe] (default: dist/ at the
#               repository root, what dist/build writes)
#   --out DIR   where the .vsix files go (default: editors/vscode/out-vsix)
#   TARGET      linux-x64 linux-arm64 win32-x64 darwin-x64 darwin-arm64 universal
#               (default: every target with a binary in DIST, and universal)
# Writes wirelens-<target>.vsix; a missing binary for a named target is an error. Uses the
# pinned @vscode/vsce of package.json (npm ci at the repository root first).
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
repo=$(cd "$here/../.." && pwd)
dist=$repo/dist
out=$here/out-vsix
targets=()
while [ $# -gt 0 ]; do
  case $1 in
    --dist) dist=$(cd "$2" && pwd); shift 2 ;;
    --out) mkdir -p "$2"; out=$(cd "$2" && pwd); shift 2 ;;
    -h | --help) sed -n '2,14p' "$0"; exit 0 ;;
    *) targets+=("$1"); shift ;;
  esac
done
all=(linux-x64 linux-arm64 win32-x64 darwin-x64 darwin-arm64)
exe() { case $1 in win32-*) echo wirelens.exe ;; *) echo wirelens ;; esac; }
if [ ${#targets[@]} -eq 0 ]; then
  for t in "${all[@]}"; do [ -f "$dist/$t/$(exe "$t")" ] && targets+=("$t"); done
  targets+=(universal)
fi
for t in "${targets[@]}"; do
  case " ${all[*]} universal " in *" $t "*) ;; *) echo "package-targets: unknown target '$t'" >&2; exit 2 ;; esac
  if [ "$t" != universal ] && [ ! -f "$dist/$t/$(exe "$t")" ]; then
    echo "package-targets: no server for $t at $dist/$t/$(exe "$t") (dist/build $t)" >&2
    exit 1
  fi
done

cd "$here"
vsce=$repo/node_modules/.bin/vsce
[ -x "$vsce" ] || vsce=$here/node_modules/.bin/vsce
[ -x "$vsce" ] || { echo "package-targets: @vscode/vsce not installed (npm ci at the repository root)" >&2; exit 1; }
# A server/ folder of a local `npm run package` is put back afterwards.
saved=
if [ -e server ]; then saved=$(mktemp -d); mv server "$saved/"; fi
restore() { rm -rf server; if [ -n "$saved" ]; then mv "$saved/server" .; rmdir "$saved"; fi; }
trap restore EXIT

npm run build -- --minify >/dev/null
mkdir -p "$out"
for t in "${targets[@]}"; do
  rm -rf server
  args=(package --no-dependencies --skip-license --out "$out/wirelens-$t.vsix")
  if [ "$t" != universal ]; then
    mkdir server
    cp "$dist/$t/$(exe "$t")" "server/$(exe "$t")"
    chmod 755 "server/$(exe "$t")"
    args+=(--target "$t")
  fi
  "$vsce" "${args[@]}"
  # The package holds exactly the server it was made with (or none).
  vsix=$out/wirelens-$t.vsix
  if [ "$t" = universal ]; then
    if unzip -l "$vsix" | grep -q 'extension/server/'; then echo "package-targets: $vsix bundles a server" >&2; exit 1; fi
  else
    want=$(sha256sum <"server/$(exe "$t")" | cut -d' ' -f1)
    got=$(unzip -p "$vsix" "extension/server/$(exe "$t")" | sha256sum | cut -d' ' -f1)
    [ "$want" = "$got" ] || { echo "package-targets: $vsix: extension/server/$(exe "$t") differs from $dist/$t" >&2; exit 1; }
    unzip -p "$vsix" extension.vsixmanifest | grep -q "TargetPlatform=\"$t\"" || { echo "package-targets: $vsix: no TargetPlatform $t" >&2; exit 1; }
  fi
  echo "package-targets: $vsix checked ($t)"
done
ls -l "$out"/wirelens-*.vsix
