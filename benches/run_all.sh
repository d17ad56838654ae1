#!/usr/bin/env bash
# Regenerate every figure of BENCHMARKS.md and the plots under docs/:
#   bash benches/run_all.sh
# 1. machine facts; 2. criterion benches `overhead`, `sim_scaling` and
# `sim_throughput` (one run, results in $CARGO_TARGET_DIR/criterion), and
# `sim_memory` (RSS per live resource -> $RESULTS/memory.txt) and
# `interleaved` (the async round trip, safe and raw in alternating blocks
# -> $RESULTS/interleaved.txt) and `service_loop` (the service loop of
# examples/21 against the C loop -> $RESULTS/service_loop.txt);
# 3. instruction counts (benches/instructions.sh, needs valgrind);
# 4. compile time (benches/compile_time.sh); 5. the timeline pictures
# (examples/13_timeline.rs -> docs/timeline.svg, examples/19_compute_pipeline.rs
# -> docs/compute_pipeline.svg); 6. benches/report.py. The kernel figures:
# `kernel_launch` (criterion) and the `kernel` row of instructions.sh.
# Takes about 10 minutes on a 2-core machine. Honours CARGO_TARGET_DIR.
set -euo pipefail
cd "$(dirname "$0")/.."
export CARGO_TARGET_DIR=${CARGO_TARGET_DIR:-target}
case $CARGO_TARGET_DIR in /*) ;; *) CARGO_TARGET_DIR=$PWD/$CARGO_TARGET_DIR ;; esac
export RESULTS=$CARGO_TARGET_DIR/bench-results
mkdir -p "$RESULTS"
start=$SECONDS

{
  echo "date=$(date -u '+%Y-%m-%d %H:%M UTC')"
  echo "cores (nproc)=$(nproc)"
  echo "CPU=$(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ *//')"
  echo "memory=$(awk '/MemTotal/ { printf "%.1f GiB", $2 / 1048576 }' /proc/meminfo)"
  echo "rustc=$(rustc -V)"
  echo "kernel=$(uname -r)"
  echo "load average at start=$(cut -d' ' -f1-3 /proc/loadavg)"
  echo "git commit=$(git rev-parse --short HEAD 2>/dev/null || echo none)$(git diff --quiet 2>/dev/null || echo ' (with uncommitted changes)')"
} >"$RESULTS/machine.txt"
cat "$RESULTS/machine.txt"

echo "=== criterion benches"
rm -rf "$CARGO_TARGET_DIR/criterion"
# The exported absolute CARGO_TARGET_DIR: criterion writes its results
# under it (a relative one would resolve against benches/, where cargo
# runs the bench binaries).
cargo bench --manifest-path benches/Cargo.toml --bench overhead --bench sim_scaling
cargo bench --manifest-path benches/Cargo.toml --bench sim_throughput
cargo bench --manifest-path benches/Cargo.toml --bench kernel_launch

echo "=== memory per live resource"
cargo bench --manifest-path benches/Cargo.toml --bench sim_memory

echo "=== the async round trip in alternating blocks"
cargo bench --manifest-path benches/Cargo.toml --bench interleaved

echo "=== the service loop against the C loop, in alternating blocks"
cargo bench --manifest-path benches/Cargo.toml --bench service_loop

echo "=== the async service against the blocking service, and the awaited round trip"
cargo bench --manifest-path benches/Cargo.toml --bench async_service

echo "=== instruction counts"
if command -v valgrind >/dev/null; then
  bash benches/instructions.sh | tee "$RESULTS/instructions.txt"
else
  echo "valgrind not found: instruction counts skipped" | tee "$RESULTS/instructions.txt"
fi

echo "=== compile time"
bash benches/compile_time.sh

echo "=== timeline picture"
cargo run --quiet --example 13_timeline -- "$CARGO_TARGET_DIR/timeline.svg"
mkdir -p docs
cp "$CARGO_TARGET_DIR/timeline.svg" docs/timeline.svg
cargo run --quiet --example 19_compute_pipeline -- "$CARGO_TARGET_DIR/compute_pipeline.svg"
cp "$CARGO_TARGET_DIR/compute_pipeline.svg" docs/compute_pipeline.svg

echo "load average at end=$(cut -d' ' -f1-3 /proc/loadavg)" >>"$RESULTS/machine.txt"
echo "=== report"
python3 benches/report.py "$CARGO_TARGET_DIR/criterion" --results "$RESULTS" --out BENCHMARKS.md --docs docs
echo "run_all.sh: done in $((SECONDS - start))s"
