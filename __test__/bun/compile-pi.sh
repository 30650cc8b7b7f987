#!/usr/bin/env bash
# Builds Pi as one Bun-compiled executable, the way Pi's release does, from the pinned npm package
# (@earendil-works/pi-coding-agent, the version in this package.json's devDependencies), and prints
# the binary's path on the last line of stdout (everything else goes to stderr).
#
#   usage: __test__/bun/compile-pi.sh <out-dir>     (PI_VERSION overrides the pinned version;
#                                                    BUN_BIN names the bun to compile with, else
#                                                    install-bun.sh installs one under .tmp/tools)
#
# What Pi's release does (the package's own `build:binary` script, Pi 1.x):
#   bun build --compile --no-compile-autoload-bunfig --no-compile-autoload-dotenv
#     --compile-autoload-package-json ./dist/bun/cli.js <the image-resize and codemode workers>
#     --outfile dist/pi
# (from the sources; here their built files from the npm package, dist/utils/image-resize-worker.js
# and dist/extensions/codemode/worker.js), then `copy-binary-assets` puts next to the binary:
# package.json, README.md, CHANGELOG.md, docs/, examples/, photon_rs_bg.wasm, theme/*.json,
# assets/*.png, export-html/ (the compiled Pi finds them through dirname(process.execPath)).
# Here: the host platform only.
#
# The release bundles from the monorepo's install; here the package is installed from npm into a
# staging project, with its pi-* siblings pinned to the same version (as the monorepo has them) and
# @opentelemetry/api added: @mistralai/mistralai (via pi-ai) imports it statically from a module
# it loads lazily; Bun cannot bundle an unresolved import, and marking it --external hoists the
# import to the binary's start ("Cannot find module '@opentelemetry/api'").
#
# Idempotent: <out-dir>/pi is reused when <out-dir>/.stamp matches the Pi version, the Bun version
# and this script; a second run only checks that.
set -euo pipefail

here="$(cd "$(dirname "$0")" && pwd)"
root="$(cd "$here/../.." && pwd)"
out="${1:?usage: compile-pi.sh <out-dir>}"
mkdir -p "$out"
out="$(cd "$out" && pwd)"

pi_version="${PI_VERSION:-$(node -p 'require(process.argv[1]).devDependencies["@earendil-works/pi-coding-agent"]' "$root/package.json")}"
bun="${BUN_BIN:-}"
if [ -z "$bun" ]; then
  bun="$(bash "$here/install-bun.sh" "$root/.tmp/tools/bun" | tail -n 1)"
fi
bun_version="$("$bun" --version)"
stamp="pi=$pi_version bun=$bun_version script=$(sha256sum "$here/compile-pi.sh" | cut -c1-16) $(uname -sm)"

if [ -x "$out/pi" ] && [ "$(cat "$out/.stamp" 2>/dev/null)" = "$stamp" ]; then
  echo "compile-pi.sh: reusing $out/pi ($stamp)" >&2
  echo "$out/pi"
  exit 0
fi

stage="$out/stage"
rm -rf "$stage" "$out/pi" "$out/.stamp"
mkdir -p "$stage"
echo "compile-pi.sh: installing @earendil-works/pi-coding-agent@$pi_version into $stage" >&2
node -e '
  const v = process.argv[1];
  const pkg = {
    name: "pi-bun-binary-stage",
    private: true,
    dependencies: { "@earendil-works/pi-coding-agent": v, "@opentelemetry/api": "^1.9.0" },
    overrides: Object.fromEntries(
      ["pi-ai", "pi-agent-core", "pi-tui", "pi-codemode", "pi-mcp"].map((n) => ["@earendil-works/" + n, v]),
    ),
  };
  require("node:fs").writeFileSync(process.argv[2], JSON.stringify(pkg, null, 2) + "\n");
' "$pi_version" "$stage/package.json"
# No install scripts: nothing Pi's binary needs comes from one (koffi stays external).
(cd "$stage" && npm install --no-audit --no-fund --ignore-scripts --loglevel=error) >&2

pkg="$stage/node_modules/@earendil-works/pi-coding-agent"
installed="$(node -p 'require(process.argv[1]).version' "$pkg/package.json")"
[ "$installed" = "$pi_version" ] || {
  echo "compile-pi.sh: installed pi-coding-agent $installed, wanted $pi_version" >&2
  exit 1
}

entries=(./dist/bun/cli.js ./dist/utils/image-resize-worker.js ./dist/extensions/codemode/worker.js)
flags=(--compile --no-compile-autoload-bunfig --no-compile-autoload-dotenv --compile-autoload-package-json)
echo "compile-pi.sh: $bun build ${flags[*]} ${entries[*]} --outfile $out/pi" >&2
start=$(date +%s)
(cd "$pkg" && "$bun" build "${flags[@]}" "${entries[@]}" --outfile "$out/pi.tmp") >&2
echo "compile-pi.sh: compiled in $(($(date +%s) - start)) s" >&2

# The release's sidecar files (scripts/build-binaries.sh, copy-binary-assets).
for f in package.json README.md CHANGELOG.md; do cp "$pkg/$f" "$out/"; done
cp "$stage/node_modules/@silvia-odwyer/photon-node/photon_rs_bg.wasm" "$out/"
rm -rf "$out/theme" "$out/assets" "$out/export-html" "$out/docs" "$out/examples"
mkdir -p "$out/theme" "$out/assets"
cp "$pkg"/dist/modes/interactive/theme/*.json "$out/theme/"
cp "$pkg"/dist/modes/interactive/assets/*.png "$out/assets/"
cp -r "$pkg/dist/core/export-html" "$out/export-html"
cp -r "$pkg/docs" "$pkg/examples" "$out/"

# The binary must start: a broken bundle fails here, not in the test.
mkdir -p "$stage/home"
if ! v="$(HOME="$stage/home" PI_CODING_AGENT_DIR="$stage/home/agent" PI_OFFLINE=1 "$out/pi.tmp" --version 2>&1)"; then
  echo "compile-pi.sh: the compiled binary does not start: $v" >&2
  exit 1
fi
echo "compile-pi.sh: pi --version: $v" >&2
mv "$out/pi.tmp" "$out/pi"
echo "$stamp" >"$out/.stamp"
echo "$out/pi"
