#!/usr/bin/env bash
# CI smoke run of every benchmark: criterion's test mode runs each benchmark
# once (no timing, no statistics), so it cannot fail on noise, only if a
# benchmark is broken. Dev profile, so it reuses the test build.
#   bash benches/smoke.sh
set -euo pipefail
cd "$(dirname "$0")/.."
start=$SECONDS
CARGO_TARGET_DIR=target cargo test --manifest-path benches/Cargo.toml --benches -- --test
echo "smoke: every benchmark ran once in $((SECONDS - start))s"
