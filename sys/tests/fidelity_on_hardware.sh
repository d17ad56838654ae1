#!/usr/bin/env bash
# Checks the rows of sim/FIDELITY.md that sys/tests/c/fidelity.c covers
# against a real AscendCL runtime, on a machine with an Ascend NPU and a
# CANN toolkit:
#
#     sys/tests/fidelity_on_hardware.sh            # toolkit from the environment
#     sys/tests/fidelity_on_hardware.sh /path/lib64
#
# It compiles the program against the project's own header (sys/include),
# links it against the toolkit's libascendcl.so and runs it once per run
# mode the machine has (host mode on a PCIe card). Each line says whether a
# row of the table agrees ("ROW-ID agree") or what the hardware answered
# instead ("ROW-ID DIFFER: ..."); please report DIFFER lines in an issue.
# The same program runs on the simulator in CI
# (sys/tests/c_programs.rs, c_fidelity_rows_agree_in_both_run_modes).
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
sys="$(dirname "$here")"

lib="${1:-${ASCENDCL_SYS_LIB_DIR:-}}"
if [[ -z "$lib" ]]; then
    for root in "${ASCEND_TOOLKIT_HOME:-}" "${ASCEND_HOME_PATH:-}" /usr/local/Ascend/ascend-toolkit/latest; do
        if [[ -n "$root" && -f "$root/lib64/libascendcl.so" ]]; then
            lib="$root/lib64"
            break
        fi
    done
fi
if [[ -z "$lib" || ! -f "$lib/libascendcl.so" ]]; then
    echo "no libascendcl.so found: pass its directory, or set ASCENDCL_SYS_LIB_DIR / ASCEND_TOOLKIT_HOME (source the toolkit's set_env.sh)" >&2
    exit 2
fi

out="$(mktemp -d)"
trap 'rm -rf "$out"' EXIT
"${CC:-cc}" -std=c11 -Wall -Wextra -Werror -O1 -I "$sys/include" \
    "$here/c/fidelity.c" -o "$out/fidelity" -L "$lib" -lascendcl -lpthread
echo "libascendcl: $lib/libascendcl.so"
LD_LIBRARY_PATH="$lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}" "$out/fidelity"
