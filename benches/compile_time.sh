#!/usr/bin/env bash
# What the typestate API costs the compiler.
#   bash benches/compile_time.sh
# (a) `cargo build -p aclrt` from clean, dev and release, dependencies
#     included, and again with only the aclrt crate rebuilt;
# (b) `cargo check` (and a dev `cargo build`) of benches/compile_cost/safe.rs,
#     a ~500-line program using every typestate, against
#     benches/compile_cost/raw.rs, the same work in raw `aclrt::sys` calls
#     (median of 3 runs each, interleaved, after touching the file).
# Uses its own target dir ($CARGO_TARGET_DIR/compile-time, wiped first) and
# writes key=value lines to $RESULTS/compile_time.txt (default
# $CARGO_TARGET_DIR/bench-results). Wall-clock seconds: on a shared machine
# other processes add noise.
set -euo pipefail
cd "$(dirname "$0")/.."
base=${CARGO_TARGET_DIR:-target}
case $base in /*) ;; *) base=$PWD/$base ;; esac
results=${RESULTS:-$base/bench-results}
ct=$base/compile-time
runs=${RUNS:-3}
mkdir -p "$results"
export CARGO_INCREMENTAL=0 CARGO_TERM_COLOR=never

now() { date +%s.%N; }
# timed CMD... -> prints seconds; fails loudly if the command fails
timed() {
  local log; log=$(mktemp)
  local s; s=$(now)
  if ! CARGO_TARGET_DIR=$ct "$@" >"$log" 2>&1; then
    cat "$log" >&2; rm -f "$log"; echo "compile_time.sh: failed: $*" >&2; exit 1
  fi
  local e; e=$(now); rm -f "$log"
  awk -v s="$s" -v e="$e" 'BEGIN { printf "%.2f\n", e - s }'
}
median() { printf '%s\n' "$@" | sort -g | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }

out=$results/compile_time.txt
: >"$out"
put() { echo "$1=$2" | tee -a "$out"; }

put rustc "$(rustc -V)"
put cores "$(nproc)"
put load_before "$(cut -d' ' -f1-3 /proc/loadavg)"

rm -rf "$ct"
put build_dev_clean "$(timed cargo build -p aclrt)"
put build_release_clean "$(timed cargo build -p aclrt --release)"
cargo clean -q -p aclrt --target-dir "$ct"
put build_dev_crate "$(timed cargo build -p aclrt)"
cargo clean -q -p aclrt --release --target-dir "$ct"
put build_release_crate "$(timed cargo build -p aclrt --release)"

# Warm up: dependencies and the library are checked/built once.
timed cargo check --manifest-path benches/Cargo.toml --example compile_cost --example compile_cost_raw >/dev/null
timed cargo build --manifest-path benches/Cargo.toml --example compile_cost --example compile_cost_raw >/dev/null
cs=(); cr=(); bs=(); br=()
for _ in $(seq "$runs"); do
  touch benches/compile_cost/safe.rs; cs+=("$(timed cargo check --manifest-path benches/Cargo.toml --example compile_cost)")
  touch benches/compile_cost/raw.rs; cr+=("$(timed cargo check --manifest-path benches/Cargo.toml --example compile_cost_raw)")
  touch benches/compile_cost/safe.rs; bs+=("$(timed cargo build --manifest-path benches/Cargo.toml --example compile_cost)")
  touch benches/compile_cost/raw.rs; br+=("$(timed cargo build --manifest-path benches/Cargo.toml --example compile_cost_raw)")
done
put check_safe_runs "${cs[*]}"
put check_raw_runs "${cr[*]}"
put build_safe_runs "${bs[*]}"
put build_raw_runs "${br[*]}"
put check_safe "$(median "${cs[@]}")"
put check_raw "$(median "${cr[@]}")"
put build_safe "$(median "${bs[@]}")"
put build_raw "$(median "${br[@]}")"
put lines_safe "$(wc -l <benches/compile_cost/safe.rs)"
put lines_raw "$(wc -l <benches/compile_cost/raw.rs)"
put load_after "$(cut -d' ' -f1-3 /proc/loadavg)"
put note "Medians of $runs runs; each \`cargo check\`/\`cargo build\` of an example also re-runs cargo's own bookkeeping (about the same for both), so the ratio understates the difference in rustc's own type-check time. Load average before: $(grep '^load_before=' "$out" | cut -d= -f2), after: $(cut -d' ' -f1-3 /proc/loadavg)."
