#!/usr/bin/env bash
# The downstream check: build and run downstream/ (a crate outside the
# workspace) against the PACKAGED aclrt, aclrt-sys and aclrt-sim, i.e. the
# `.crate` files that `cargo package -p aclrt-sim -p aclrt-sys -p aclrt` left
# in target/package-check/package/ (see .ci/package.sh), unpacked here into target/packaged/. downstream/Cargo.toml
# depends on `aclrt = "0.1.0"` as a crates.io user would and patches crates-io
# to those unpacked directories. Dependency resolution is fresh each run
# (no lockfile), like a new user's project.
set -euo pipefail
cd "$(dirname "$0")/.."

crates=(aclrt-sim aclrt-sys aclrt)
rm -rf target/packaged
mkdir -p target/packaged
for c in "${crates[@]}"; do
  # The version cargo packaged (e.g. `path+file:///...#aclrt-sys@0.1.0`).
  v=$(cargo pkgid -p "$c" | sed 's/.*@//')
  file="target/package-check/package/$c-$v.crate"
  [ -f "$file" ] || { echo "missing $file: run .ci/package.sh first" >&2; exit 1; }
  # A package left from an earlier commit must not pass for this one.
  sha=$(tar -xzOf "$file" "$c-$v/.cargo_vcs_info.json" | sed -n 's/.*"sha1": "\([0-9a-f]*\)".*/\1/p')
  [ "$sha" = "$(git rev-parse HEAD)" ] || {
    echo "$file was packaged from commit ${sha:-?}, not HEAD $(git rev-parse HEAD): run .ci/package.sh" >&2
    exit 1
  }
  tar -xzf "$file" -C target/packaged
  grep -q "target/packaged/$c-$v\"" downstream/Cargo.toml || {
    echo "downstream/Cargo.toml does not patch $c to target/packaged/$c-$v (version bumped?)" >&2
    exit 1
  }
  echo "unpacked $file ($(wc -c <"$file") bytes) into target/packaged/$c-$v"
done

export CARGO_TARGET_DIR=target/downstream
rm -f downstream/Cargo.lock
cargo generate-lockfile --manifest-path downstream/Cargo.toml
# Where each aclrt crate comes from: the unpacked packages, nothing else.
tree=$(cargo tree --manifest-path downstream/Cargo.toml -e normal,build --prefix none \
         --format '{p}' | grep -E '^aclrt' | sort -u)
echo "$tree"
if echo "$tree" | grep -Ev '^aclrt-downstream|target/packaged/'; then
  echo "an aclrt crate above does not come from target/packaged/" >&2
  exit 1
fi
cargo run --manifest-path downstream/Cargo.toml
