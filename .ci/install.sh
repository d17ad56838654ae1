#!/usr/bin/env bash
# Installs what CI needs, idempotently, and says what it found and did.
#
#   bash .ci/install.sh              # detect, install what is missing, verify
#   bash .ci/install.sh --self-test  # prove the detection on fake machines
#
# Each tool is detected by what its user actually loads or runs:
# - a C and a C++ compiler: `cc` and `c++` on PATH (the header and C-program tests);
# - libclang for bindgen (the drift check): a file that clang-sys accepts,
#   i.e. `libclang.so`, `libclang-<version>.so` or one of those with a
#   `.so.<n>` suffix, in the dynamic linker's cache or under /usr/lib/llvm-*/lib.
#   `libclang-cpp.so.*` (the C++ interface, which the image ships) is NOT libclang;
# - valgrind on PATH;
# - the nightly toolchain's miri and rust-src components (the Miri subset;
#   optional: the miri stage reports SKIPPED if they cannot be had).
# After installing, every required tool is checked again; a tool still
# missing is an error, not a silent skip.
set -euo pipefail

# Does a list of library file names (one a line, on stdin) contain a libclang
# that bindgen can load? The regex mirrors clang-sys's search patterns.
has_libclang_in() {
  grep -Eq '(^|/|[[:space:]])libclang(-[0-9][0-9.]*)?\.so(\.[0-9][0-9.]*)?([[:space:]]|$)'
}

# The names this machine offers: the linker cache plus LLVM's own lib dirs
# and LIBCLANG_PATH (where clang-sys also looks).
libclang_candidates() {
  { ldconfig -p 2>/dev/null | awk '{print $1}'
    local d
    for d in /usr/lib/llvm-*/lib /usr/lib64/llvm*/lib ${LIBCLANG_PATH:+"$LIBCLANG_PATH"}; do
      [ -d "$d" ] && ls -1 "$d" 2>/dev/null
    done
  } || true
}

have_libclang() { libclang_candidates | has_libclang_in; }

self_test() {
  local fail=0
  check() { # expected(0|1) description names...
    local want="$1" what="$2"; shift 2
    if printf '%s\n' "$@" | has_libclang_in; then got=0; else got=1; fi
    if [ "$got" = "$want" ]; then echo "ok   $what"; else echo "FAIL $what"; fail=1; fi
  }
  # The machine image of this project ships only the C++ interface: missing.
  check 1 "image with libclang-cpp.so.14 only" libclang-cpp.so.14 libc.so.6 libLLVM-14.so.1
  check 1 "empty library path" ""
  check 1 "libclang-cpp.so unversioned" libclang-cpp.so
  check 1 "a library whose name only contains libclang" libclangBasic.a
  # What Debian's libclang-dev / libclang1-N install: present.
  check 0 "Debian libclang1-14 (libclang-14.so.1)" libc.so.6 libclang-14.so.1
  check 0 "LLVM dir (libclang.so)" libclang.so
  check 0 "versioned suffix (libclang.so.14)" libclang.so.14
  check 0 "versioned name (libclang-16.so)" libclang-16.so
  # And the real function, pointed at an empty cache and no LLVM dirs.
  if ( ldconfig() { :; }; LIBCLANG_PATH=/nonexistent have_libclang_no_llvm ); then
    echo "FAIL detection with an empty library path"; fail=1
  else
    echo "ok   detection with an empty library path"
  fi
  return $fail
}

# have_libclang with no LLVM dirs (for the self-test).
have_libclang_no_llvm() { { ldconfig -p 2>/dev/null | awk '{print $1}'; } | has_libclang_in; }

if [ "${1:-}" = "--self-test" ]; then
  self_test
  exit $?
fi

if command -v sudo >/dev/null && [ "$(id -u)" != 0 ]; then SUDO=sudo; else SUDO=; fi

need=()
command -v cc  >/dev/null || need+=(gcc)
command -v c++ >/dev/null || need+=(g++)
have_libclang          || need+=(libclang-dev)
command -v valgrind >/dev/null || need+=(valgrind)
if [ "${#need[@]}" -gt 0 ]; then
  echo "installing: ${need[*]}"
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq "${need[@]}" >/dev/null
else
  echo "installing: nothing (compilers, libclang, valgrind present)"
fi

# Verify: what was needed must now be there.
missing=()
command -v cc  >/dev/null || missing+=(cc)
command -v c++ >/dev/null || missing+=(c++)
have_libclang          || missing+=(libclang)
command -v valgrind >/dev/null || missing+=(valgrind)
if [ "${#missing[@]}" -gt 0 ]; then
  echo "error: still missing after install: ${missing[*]}" >&2
  exit 1
fi
echo "libclang: $(libclang_candidates | grep -E '^libclang(-[0-9][0-9.]*)?\.so' | sort -u | tr '\n' ' ')"

rustup component add rustfmt clippy >/dev/null
# Miri is optional: the miri stage prints SKIPPED when it is not available.
if rustup toolchain install nightly --profile minimal --component miri,rust-src >/dev/null 2>&1 \
   || rustup +nightly component add miri rust-src >/dev/null 2>&1; then
  echo "miri: $(cargo +nightly miri --version 2>/dev/null || echo 'installed')"
else
  echo "miri: could not be installed here (the miri stage will say SKIPPED)"
fi
cargo --version; rustc --version
