#!/usr/bin/env bash
# Packages the three published crates together, with verification (each is
# unpacked and built on its own, against the freshly packaged siblings in a
# temporary registry), then prints what each package holds and how big it is,
# and fails if a package holds something only the repository needs.
#
#   bash .ci/package.sh                 # CI (a clean checkout)
#   bash .ci/package.sh --allow-dirty   # locally, with uncommitted edits
#
# cargo warns "ignoring test ... is not included": aclrt-sim's and
# aclrt-sys's tests need the workspace (C programs, fixtures, the header and
# bindings of sys/) and are left out on purpose.
set -euo pipefail
cd "$(dirname "$0")/.."

crates=(aclrt-sim aclrt-sys aclrt)
args=()
for c in "${crates[@]}"; do args+=(-p "$c"); done
# Verification unpacks the packaged siblings into
# $CARGO_HOME/registry/src/-<hash>/<crate>-<version>, the hash taken from
# this checkout's path, and cargo reuses a copy already unpacked there under
# the same name and version. An earlier run from the same path (same
# version, older sources) would be built instead of this one, so the copies
# of our crates go first.
#
# The same holds for build outputs: a crate from a registry (the temporary
# one included) is taken as immutable, so an artifact of an earlier
# aclrt-sys 0.1.0 in a reused target directory is "Fresh" and aclrt would
# be checked against it. The packages are therefore built and verified in a
# target directory of their own, emptied first.
export CARGO_TARGET_DIR=target/package-check
rm -rf "$CARGO_TARGET_DIR"
home=${CARGO_HOME:-$HOME/.cargo}
for c in "${crates[@]}"; do
  rm -rf "$home"/registry/src/-*/"$c"-[0-9]*
done
cargo package "${args[@]}" --locked "$@"

# What must never be published: tests and their fixtures, C test programs,
# benchmarks, pictures, CI scripts, the toolchain pin.
forbidden='(^|/)(tests|benches|fixtures|docs|\.ci|\.cargo)/|\.(c|cpp|cc|svg|png|jpg|gif|trace\.json)$|(^|/)rust-toolchain|(^|/)\.gitignore$'
bad=0
echo
printf '%-12s %6s %10s %12s\n' crate files ".crate" "unpacked"
for c in "${crates[@]}"; do
  v=$(cargo pkgid -p "$c" | sed 's/.*@//')
  list=$(cargo package --list -p "$c" --locked "$@" 2>/dev/null)
  file="$CARGO_TARGET_DIR/package/$c-$v.crate"
  unpacked=$(tar -tvzf "$file" | awk '{s += $3} END {print s}')
  printf '%-12s %6d %10d %12d\n' "$c" "$(echo "$list" | wc -l)" "$(wc -c <"$file")" "$unpacked"
  # The simulator's one C file is source of its build (build.rs compiles
  # it: aclAppLog is C-variadic), not a test program.
  if hits=$(echo "$list" | grep -E "$forbidden" | grep -vx 'src/raw/app_log\.c'); then
    echo "$c: files that do not belong in the package:" >&2
    echo "$hits" >&2
    bad=1
  fi
done
for c in "${crates[@]}"; do
  echo
  echo "--- $c: cargo package --list"
  cargo package --list -p "$c" --locked "$@" 2>/dev/null
done
exit $bad
