#!/usr/bin/env bash
# Runs every example under valgrind memcheck, in both simulator run modes.
#
#   tests/valgrind.sh            # from the repository root
#
# Builds the examples (debug profile, `sim` backend), then runs each binary
# with `--error-exitcode=1 --leak-check=full --errors-for-leak-kinds=definite`
# (plus tests/valgrind.supp if present), with ACLRT_SIM_RUN_MODE=host and
# =device. Exits non-zero on the first example with a memcheck error, a
# definite leak, or a failure of the example itself. Skips 13_timeline and
# compile_cost* (slow, if they exist). Honours CARGO_TARGET_DIR.
set -euo pipefail
cd "$(dirname "$0")/.."
target="${CARGO_TARGET_DIR:-target}"
cargo build -p aclrt --examples --quiet
supp=()
if [[ -f tests/valgrind.supp ]]; then supp=(--suppressions=tests/valgrind.supp); fi
status=0
start=$(date +%s)
for src in examples/*.rs; do
  name=$(basename "$src" .rs)
  case "$name" in 13_timeline|compile_cost*) echo "skip $name"; continue;; esac
  bin="$target/debug/examples/$name"
  for mode in host device; do
    t0=$(date +%s.%N)
    if ACLRT_SIM_RUN_MODE=$mode valgrind -q --error-exitcode=1 --leak-check=full \
        --errors-for-leak-kinds=definite "${supp[@]}" "$bin" >/tmp/valgrind-$name-$mode.log 2>&1; then
      printf 'ok    %-24s %-6s %5.1fs\n' "$name" "$mode" "$(awk -v a="$(date +%s.%N)" -v b="$t0" 'BEGIN{print a-b}')"
    else
      printf 'FAIL  %-24s %-6s (log: /tmp/valgrind-%s-%s.log)\n' "$name" "$mode" "$name" "$mode"
      tail -40 "/tmp/valgrind-$name-$mode.log"
      status=1
    fi
  done
done
echo "valgrind: total $(( $(date +%s) - start ))s, status $status"
exit $status
