#!/usr/bin/env bash
# Instructions per call, safe API versus raw aclrt-sys, counted by callgrind
# (nearly deterministic: see `count` for what varies, and how it is handled).
#   bash benches/instructions.sh [iterations]      (RUNS=k: runs per count)
# Needs valgrind (apt-get install valgrind).
set -euo pipefail
cd "$(dirname "$0")/.."
N=${1:-2000}
command -v valgrind >/dev/null || { echo "valgrind not found: apt-get install valgrind" >&2; exit 1; }
bin=$(CARGO_TARGET_DIR=target cargo bench --manifest-path benches/Cargo.toml --bench icount --no-run --message-format=json 2>/dev/null \
  | grep -o '"executable":"[^"]*icount[^"]*"' | tail -1 | cut -d'"' -f4)
[ -x "$bin" ] || { echo "could not build the icount bench" >&2; exit 1; }
count() {  # mode op iterations -> instructions (Ir) of the calling thread
  # One output file per thread (`-01` is main): stream workers run the same
  # simulator work for both sides, and an idle worker's spinning (the pool
  # waits a few microseconds before parking) is not deterministic. The
  # calling thread's own watch before it parks in a synchronisation is
  # switched off by icount itself (`aclrt_sim::set_sync_spin(0)`).
  # What is left is additive: when the calling thread finds a lock of the
  # simulator held by the stream's worker, it spins a little before it
  # parks (std's mutex), which added up to ~90 instructions per call to
  # either side of `scope` in one run and not the next. So each count is
  # the least of RUNS runs (default 3): the run with the fewest such spins.
  local out best=; out=$(mktemp -d)
  for _ in $(seq "${RUNS:-3}"); do
    valgrind --tool=callgrind --separate-threads=yes --callgrind-out-file="$out/cg" "$bin" "$1" "$2" "$3" >/dev/null 2>&1
    local c; c=$(grep -E '^(summary|totals):' "$out/cg-01" | head -1 | awk '{print $2}')
    rm -f "$out"/cg*
    if [ -z "$best" ] || [ "$c" -lt "$best" ]; then best=$c; fi
  done
  rm -rf "$out"
  echo "$best"
}
printf '%-8s %14s %14s %8s\n' op safe/call raw/call ratio
for op in copy event stream memset scope kernel; do
  s0=$(count safe "$op" 0); sN=$(count safe "$op" "$N")
  r0=$(count raw "$op" 0); rN=$(count raw "$op" "$N")
  awk -v op="$op" -v s0="$s0" -v sN="$sN" -v r0="$r0" -v rN="$rN" -v n="$N" 'BEGIN {
    s = (sN - s0) / n; r = (rN - r0) / n;
    printf "%-8s %14.1f %14.1f %8.3f\n", op, s, r, s / r }'
done
