# shellcheck shell=bash
# The targets lane's pieces (.ci/targets-lane sources this): installing what cannot come from a
# plain `apt-get install`, one function per kind of target, and the summary table.

sudo_if_needed() { if [ "$(id -u)" = 0 ]; then "$@"; else sudo "$@"; fi; }

# Debian's musl loader for arm64, without adding arm64 to dpkg's architectures: a private apt
# state that reuses the system's sources, then `apt-get download` and `dpkg -x`.
fetch_musl_arm64() {
  local dir="$1" state="$1/apt"
  rm -rf "$dir" && mkdir -p "$state/lists/partial" "$state/cache/archives/partial" "$dir/root"
  : >"$state/status"
  local opts=(-o "Dir::State::Lists=$state/lists" -o "Dir::State::status=$state/status"
    -o "Dir::Cache=$state/cache" -o APT::Architectures=amd64,arm64)
  apt-get "${opts[@]}" update -qq &&
    (cd "$dir" && apt-get "${opts[@]}" download musl:arm64) &&
    dpkg -x "$dir"/musl_*_arm64.deb "$dir/root" &&
    rm -rf "$state" "$dir"/musl_*_arm64.deb &&
    # The package's loader link is absolute; qemu looks it up under QEMU_LD_PREFIX.
    ln -sf aarch64-linux-musl/libc.so "$dir/root/lib/ld-musl-aarch64.so.1"
}

# qemu-user for arm64 ELF files started by exec (the arm64 Node's children: the test fake is a
# script whose interpreter is that Node). Needs root; the handler stays registered.
register_binfmt() {
  [ -e /proc/sys/fs/binfmt_misc/qemu-aarch64 ] && return 0
  mountpoint -q /proc/sys/fs/binfmt_misc ||
    sudo_if_needed mount -t binfmt_misc binfmt_misc /proc/sys/fs/binfmt_misc || return 1
  sudo_if_needed sh -c 'cat /usr/lib/binfmt.d/qemu-aarch64.conf >/proc/sys/fs/binfmt_misc/register'
}

BS=(-Zbuild-std=std,panic_abort)
# The workspace's crates compiled by clippy-driver with -D warnings, as `cargo clippy` does it
# (CLIPPY_ARGS is how cargo-clippy passes them): the build that produces a target's tests or
# .node is also its clippy run, instead of a second compile in check mode. Put `linted` first:
# `linted env VAR=value cargo ...`.
linted() {
  RUSTC_WORKSPACE_WRAPPER=/usr/bin/clippy-driver \
    CLIPPY_ARGS="-D__CLIPPY_HACKERY__warnings__CLIPPY_HACKERY__" "$@"
}

# step LABEL CMD...: runs CMD, its output to the console and to $step_log; sets $took.
step() {
  local label="$1" start=$SECONDS rc
  shift
  nstep=$((nstep + 1))
  step_log="$logs/$t.$nstep.log" step_label="$label"
  echo "== targets: $t: $label"
  "$@" 2>&1 | tee "$step_log"
  rc=${PIPESTATUS[0]}
  took=$((SECONDS - start))
  echo "-- targets: $t: $label: exit $rc, ${took}s"
  return "$rc"
}
cargo_passed() { grep -Eo 'test result: ok\. [0-9]+ passed' "$step_log" | awk '{s += $4} END {print s + 0}'; }
node_count() { grep -Eo "^ℹ $1 [0-9]+" "$step_log" | awk '{print $3}' | tail -n 1; }

platform_of() {
  case "$1" in
    x86_64-apple-darwin) echo darwin-x64 ;; aarch64-apple-darwin) echo darwin-arm64 ;;
    x86_64-unknown-linux-gnu) echo linux-x64-gnu ;; aarch64-unknown-linux-gnu) echo linux-arm64-gnu ;;
    x86_64-unknown-linux-musl) echo linux-x64-musl ;; aarch64-unknown-linux-musl) echo linux-arm64-musl ;;
    x86_64-pc-windows-msvc) echo win32-x64-msvc ;; aarch64-pc-windows-msvc) echo win32-arm64-msvc ;;
  esac
}
# Copies the built cdylib where release.yml's build legs upload theirs; sets $node_file.
place() {
  local lib=libpi_codegraph.so
  case "$t" in *-apple-darwin) lib=libpi_codegraph.dylib ;; esac
  mkdir -p "$artifacts/bindings-$t"
  node_file="$artifacts/bindings-$t/pi-codegraph.$(platform_of "$t").node"
  cp "$CARGO_TARGET_DIR/$t/debug/$lib" "$node_file"
}

# The binding smoke test in a copy of what it needs (index.js, binding.js, lib/, the fake), so
# the checkout's own .node is never replaced. NODE_CMD... runs node.
smoke() {
  local stage="$CARGO_TARGET_DIR/smoke-$t"
  rm -rf "$stage" && mkdir -p "$stage/__test__/packaging"
  cp -r "$root/index.js" "$root/binding.js" "$root/package.json" "$root/lib" "$stage/"
  cp -r "$root/__test__/helpers" "$stage/__test__/"
  cp "$root/__test__/packaging/binding-smoke.test.mjs" "$stage/__test__/packaging/"
  cp "$node_file" "$stage/"
  (cd "$stage" && echo "node $("$@" --version)" && PI_CODEGRAPH_RUNNER=native "$@" --test --test-reporter=spec __test__/packaging/binding-smoke.test.mjs)
}

glibc_floor() {
  local newest
  newest="$(readelf -V --wide "$1" | grep -Eo 'GLIBC_[0-9.]+' | sed 's/GLIBC_//' | sort -V | tail -n 1)"
  echo "NEEDED: $(readelf -d "$1" | grep -Eo 'NEEDED.*\[[^]]+\]' | sed 's/.*\[//; s/\]//' | tr '\n' ' ')"
  echo "newest glibc symbol version: $newest"
  [ "$(printf '%s\n2.17\n' "$newest" | sort -V | tail -n 1)" = 2.17 ]
}
musl_only() {
  local needed
  needed="$(readelf -d "$1" | grep -Eo 'NEEDED.*\[[^]]+\]' | sed 's/.*\[//; s/\]//' | tr '\n' ' ')"
  echo "NEEDED: $needed"
  [ "$needed" = "libc.so " ] && ! readelf -V --wide "$1" | grep -q GLIBC_
}

gnu_target() {
  # The .node only: the host's tests run in the rust-test step (and on musl in the x64 musl row);
  # arm64's own part is the binding smoke test, which loads this .node into a real arm64 Node.
  local bs=()
  [ "$t" = aarch64-unknown-linux-gnu ] && bs=("${BS[@]}")
  step "build the .node (zig, glibc 2.17 floor)" \
    linted cargo-zigbuild build -p pi-codegraph --lib "${bs[@]}" --target "$t.2.17" || return 1
  place
  built="dev .node, zig gnu.2.17 (${took}s)"
  checked="clippy -D warnings$([ "$t" = x86_64-unknown-linux-gnu ] && echo " (+ lint step)")"
  step "glibc floor" glibc_floor "$node_file" || return 1
  checked+=", glibc <= 2.17"
  if [ "$t" = x86_64-unknown-linux-gnu ]; then
    step "binding smoke test (host Node)" smoke node || return 1
  elif [ "$binfmt" = yes ]; then
    step "binding smoke test (arm64 Node under qemu-user)" smoke \
      env QEMU_LD_PREFIX=/usr/aarch64-linux-gnu "$arm64_node" || return 1
  else
    unproven+="the binding smoke test (no binfmt_misc here for the arm64 Node's children); "
    [ "${TARGETS_LANE_REQUIRED:-0}" != 1 ]
    return
  fi
  ran+="binding smoke $(node_count pass)/$(node_count tests) on Node $(grep -Eo '^node v[0-9.]+' "$step_log" | tail -n 1 | cut -c6-) (${took}s)"
  [ "$t" = aarch64-unknown-linux-gnu ] && unproven+="cargo test on arm64 (x64 glibc and musl run it), the full Node suite on arm64 (qemu-user breaks its timing and posix_spawn error tests); "
  unproven+="the release profile (LTO) build"
}

musl_target() {
  # x64: the .node and `cargo test`, natively on musl. arm64: the .node alone (its code is x64's;
  # what is arm64's own, the binding in a real arm64 Node, the glibc row's smoke test runs).
  local qemu=() what=(--workspace --all-targets) label=".node and the tests"
  [ "$t" = aarch64-unknown-linux-musl ] &&
    qemu=(env "QEMU_LD_PREFIX=$musl_arm64/root" qemu-aarch64-static) what=(-p pi-codegraph --lib) label=".node"
  step "build the $label (zig)" linted cargo-zigbuild build "${what[@]}" "${BS[@]}" --target "$t" || return 1
  place
  built="dev $label, zig (${took}s)"
  if [ "$t" = x86_64-unknown-linux-musl ]; then
    step "cargo test natively" linted cargo-zigbuild test --workspace "${BS[@]}" --target "$t" || return 1
    ran="cargo test $(cargo_passed) passed natively (${took}s); "
  fi
  checked="clippy -D warnings"
  step "links only musl's libc" musl_only "$node_file" || return 1
  checked+=", NEEDED only libc.so"
  local loader_check="$CARGO_TARGET_DIR/dlopen-smoke-$t"
  if [ "$t" = x86_64-unknown-linux-musl ]; then
    musl-gcc -O2 -o "$loader_check" "$root/.ci/targets/dlopen-smoke.c"
  else
    python3 -m ziglang cc -target aarch64-linux-musl -dynamic -O2 -o "$loader_check" "$root/.ci/targets/dlopen-smoke.c"
  fi || return 1
  step "dlopen by musl's loader" "${qemu[@]}" "$loader_check" "$node_file" || return 1
  ran+="musl loader dlopen ok"
  unproven="Node loading it (no musl Node runs here; release.yml's Alpine legs do); the release profile build"
  [ "$t" = aarch64-unknown-linux-musl ] && unproven+="; cargo test on arm64 (x64 musl and glibc run it)"
  return 0
}

darwin_target() {
  # Both .node files; the test executables are linked for arm64 only (the same code and the same
  # system libraries for the Intel build).
  local arch=x86_64 minos=10.13 what=(-p pi-codegraph --lib) label=".node"
  [ "$t" = aarch64-apple-darwin ] && arch=arm64 minos=11.0 what=(--workspace --all-targets) label="workspace and its tests"
  step "build the $label (zig, macOS $minos)" \
    linted env MACOSX_DEPLOYMENT_TARGET=$minos cargo-zigbuild build "${what[@]}" "${BS[@]}" --target "$t" || return 1
  place
  built="dev .node$([ "$arch" = arm64 ] && echo " + test executables") linked, zig (${took}s)"
  checked="clippy -D warnings"
  step "Mach-O checks" python3 "$root/.ci/targets/macho-check.py" "$node_file" "$arch" "$minos" || return 1
  checked+=", $(head -n 1 "$step_log")"
  ran="nothing (no macOS here)"
  unproven="dyld loading it, Node accepting it, any test on macOS (release.yml's macOS legs)"
}

msvc_target() {
  # x64 checks every target (tests included); arm64 the addon itself (the same cfg(windows) code).
  local what=(--workspace --all-targets) scope="all targets"
  [ "$t" = aarch64-pc-windows-msvc ] && what=(-p pi-codegraph --lib) scope="the addon"
  step "cargo clippy -D warnings (check only)" cargo clippy "${what[@]}" "${BS[@]}" \
    --target "$t" -- -D warnings || return 1
  built="no (linking needs Microsoft's CRT and SDK libraries)"
  checked="clippy -D warnings, $scope (${took}s)"
  ran="nothing"
  unproven="linking, loading, tests (ci.yml's windows job builds and tests x64 MSVC; release.yml builds both)"
}

# A triple's build (std built from source, the workspace's dev build and tests: about 1.2 GB)
# is only needed until its checks ran; its .node is already in $artifacts. CI's machine is fresh
# and its disk is not ours to fill, so there the lane keeps one triple's build at a time instead
# of eight (TARGETS_KEEP_BUILDS=1 keeps them; outside CI they are kept for incremental rebuilds).
prune_target() {
  [ "${CI:-}" = true ] && [ "${TARGETS_KEEP_BUILDS:-0}" != 1 ] || return 0
  rm -rf "${CARGO_TARGET_DIR:?}/$t" "$CARGO_TARGET_DIR/smoke-$t" "$CARGO_TARGET_DIR/dlopen-smoke-$t"
  echo "-- targets: $t: build directory removed; $(disk_free "$CARGO_TARGET_DIR")"
}
disk_free() { df -Pk "$1" | awk 'NR == 2 {printf "%.1f GB free on %s", $4 / 1048576, $6}'; }

declare -A S_BUILT S_CHECKED S_RAN S_UNPROVEN S_STATUS S_SECONDS
run_target() {
  t="$1" nstep=0 built="-" checked="-" ran="" unproven="" step_label="-"
  local start=$SECONDS fn
  case "$t" in
    *-linux-gnu) fn=gnu_target ;; *-linux-musl) fn=musl_target ;;
    *-apple-darwin) fn=darwin_target ;; *-windows-msvc) fn=msvc_target ;;
    *) fn=false; echo "== targets: unknown target $t" ;;
  esac
  if "$fn"; then S_STATUS[$t]=ok; else S_STATUS[$t]="FAILED at: $step_label"; fi
  prune_target
  S_BUILT[$t]="$built" S_CHECKED[$t]="$checked" S_RAN[$t]="${ran:--}" S_UNPROVEN[$t]="${unproven:--}"
  S_SECONDS[$t]=$((SECONDS - start))
}

summary() {
  local t failed=0
  echo "== targets: summary (wall time $((SECONDS - lane_start))s; .node files in $artifacts)"
  for t in "${selected[@]}"; do
    echo "| $t | ${S_STATUS[$t]} | ${S_SECONDS[$t]}s"
    echo "|   built:   ${S_BUILT[$t]}"
    echo "|   checked: ${S_CHECKED[$t]}"
    echo "|   ran:     ${S_RAN[$t]}"
    echo "|   NOT PROVEN HERE: ${S_UNPROVEN[$t]}"
    [ "${S_STATUS[$t]}" = ok ] || failed=1
  done
  return "$failed"
}
