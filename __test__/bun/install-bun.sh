#!/usr/bin/env bash
# Installs Bun from the npm registry into <dir> and prints the bun binary's path on the last line
# of stdout (npm's own output goes to stderr). Idempotent: an existing working install is reused.
#
#   usage: __test__/bun/install-bun.sh <dir>          (BUN_VERSION overrides the pinned version)
#
# Why no install script: the `bun` package's postinstall only moves the binary out of the
# platform package that npm already picked by os/cpu/libc (@oven/bun-linux-x64, …-musl,
# @oven/bun-darwin-aarch64, …) into bun/bin/bun.exe. With --ignore-scripts the binary simply
# stays at node_modules/@oven/bun-<platform>/bin/bun, so the install neither depends on npm's
# allowScripts policy (warn-only or strict) nor lets a postinstall reach the network.
set -euo pipefail

dir="${1:?usage: install-bun.sh <dir>}"
mkdir -p "$dir"
dir="$(cd "$dir" && pwd)" # print an absolute path whatever the caller passed
version="${BUN_VERSION:-1.4.5}"

find_bun() {
  local exe
  # A platform package's own binary (script-less install), else a postinstall-placed one.
  for exe in "$dir"/node_modules/@oven/bun-*/bin/bun "$dir"/node_modules/bun/bin/bun.exe; do
    if [ -x "$exe" ] && [ "$("$exe" --version 2>/dev/null)" = "$version" ]; then
      echo "$exe"
      return 0
    fi
  done
  return 1
}

if ! find_bun >/dev/null; then
  printf '{"name":"bun-tool","private":true}\n' >"$dir/package.json"
  (cd "$dir" && npm install --no-audit --no-fund --ignore-scripts --save-exact --loglevel=error "bun@$version") >&2
fi

if ! bun="$(find_bun)"; then
  echo "install-bun.sh: no runnable bun $version under $dir/node_modules (unsupported platform, or optional dependencies omitted?)" >&2
  exit 1
fi
echo "$bun"
