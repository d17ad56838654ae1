#!/usr/bin/env python3
"""Size of the trusted base (issue 23, item 9), so that a later
untangling can be compared with the same method.

1. Unsafe allowed: the .rs files of src/ and sim/src/ in a module tree where
   `unsafe` is allowed (the crate roots are `#![deny(unsafe_code)]`; these
   are the modules declared `#[allow(unsafe_code)]` and their files, less
   sub-trees that deny it again, e.g. src/ffi/protocol/, and files whose
   module denies it again (an inner `#![deny(unsafe_code)]`, e.g.
   src/ffi/live.rs)). Counted: all lines,
   and code lines (not blank, not only a comment).
2. Under a crate lock, approximately: the body lines of every function in
   src/ and sim/src/ that acquires a lock (`.lock()`, `.read()`/`.write()`
   on a lock, `lock(&...)`, or a helper returning a guard, found by its
   signature and printed), counted whole:
   an upper bound of the lines that can run with a crate lock held (what a
   callee runs under the caller's lock is not added).

Usage: python3 .ci/trusted_base.py   (from the repository root)
"""
import os
import re
import sys

UNSAFE_TREES = ["src/ffi", "sim/src/prim", "sim/src/raw"]
# Sub-trees of those that are `#![deny(unsafe_code)]` again.
SAFE_TREES = ["src/ffi/protocol"]
# sim/src/ffi.rs (`#[allow(unsafe_code)] pub mod ffi`) includes the generated bindings.
UNSAFE_FILES = ["sim/src/ffi.rs", "sim/src/bindings.rs"]

def guard_helpers():
    """The functions of src/ and sim/src/ that return a lock guard
    (`-> MutexGuard`, `-> Held` (the library's ranked guard), `-> Guard`,
    or an `RwLock` guard): a call of one takes a lock."""
    names = set()
    pat = re.compile(r"fn (\w+)(<[^>]*>)?\([^)]*\)\s*->\s*(std::sync::)?(MutexGuard|Held|Guard|RwLockReadGuard|RwLockWriteGuard)\b")
    for r in ["src", "sim/src"]:
        for f in rs_files(r):
            for m in pat.finditer(open(f, encoding="utf-8").read()):
                names.add(m.group(1))
    names.discard("lock")
    # `protocol::sync::wait` re-takes a lock it was given; calls named
    # `wait()` elsewhere are not lock helpers.
    names.discard("wait")
    return names


def guard_regex():
    helpers = "|".join(sorted(guard_helpers()))
    return re.compile(
        r"\block\(|\.read\(\)|\.write\(\)"
        + (r"|\b(" + helpers + r")\(\)" if helpers else "")
    )


def rs_files(root):
    for d, _, fs in os.walk(root):
        for f in sorted(fs):
            if f.endswith(".rs"):
                yield os.path.join(d, f)


def code_lines(text):
    n = 0
    for line in text.splitlines():
        s = line.strip()
        if s and not s.startswith("//"):
            n += 1
    return n


DENIES = re.compile(r"^#!\[deny\(unsafe_code\)\]", re.M)


def denies_unsafe(f):
    """A file whose module says `#![deny(unsafe_code)]` again (the
    bookkeeping beside the basement)."""
    return DENIES.search(open(f, encoding="utf-8").read()) is not None


def unsafe_allowed():
    files = []
    for t in UNSAFE_TREES:
        for f in rs_files(t):
            if not any(f.startswith(s + "/") for s in SAFE_TREES) and not denies_unsafe(f):
                files.append(f)
    files += [f for f in UNSAFE_FILES if os.path.exists(f)]
    return files


FN = re.compile(r"^\s*(pub(\([^)]*\))?\s+)?(const\s+)?(unsafe\s+)?(extern\s+\"C\"\s+)?fn\s+(\w+)")


def locked_fn_lines(path):
    """(function name, body lines) of the functions of `path` that take a lock."""
    lines = open(path, encoding="utf-8").read().splitlines()
    out = []
    i = 0
    while i < len(lines):
        m = FN.match(lines[i])
        if not m:
            i += 1
            continue
        # Find the body: from the first `{` to its matching `}`.
        depth = 0
        start = None
        j = i
        while j < len(lines):
            code = lines[j].split("//")[0]
            for ch in code:
                if ch == "{":
                    depth += 1
                    if start is None:
                        start = j
                elif ch == "}":
                    depth -= 1
            if start is not None and depth == 0:
                break
            if start is None and code.rstrip().endswith(";"):
                break  # a declaration without a body
            j += 1
        if start is None:
            i = j + 1
            continue
        body = lines[start : j + 1]
        text = "\n".join(l.split("//")[0] for l in body)
        if GUARDS.search(text) and "fn lock<" not in lines[i]:
            out.append((m.group(6), code_lines("\n".join(body))))
        i = start + 1  # nested fns are counted too (closures are not fns)
    return out


def main():
    global GUARDS
    os.chdir(os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
    GUARDS = guard_regex()
    print("   guard helpers: " + ", ".join(sorted(guard_helpers())))
    print("1. unsafe allowed (file: all lines / code lines)")
    tot = code = 0
    per_crate = {}
    for f in unsafe_allowed():
        text = open(f, encoding="utf-8").read()
        a, c = len(text.splitlines()), code_lines(text)
        tot += a
        code += c
        crate = "sim" if f.startswith("sim/") else "aclrt"
        pa, pc = per_crate.get(crate, (0, 0))
        per_crate[crate] = (pa + a, pc + c)
        print(f"   {f}: {a} / {c}")
    for k, (a, c) in sorted(per_crate.items()):
        print(f"   {k}: {a} lines, {c} code lines")
    print(f"   total: {tot} lines, {code} code lines")
    all_src = sum(len(open(f).read().splitlines()) for r in ["src", "sim/src"] for f in rs_files(r))
    print(f"   (all .rs of src/ and sim/src/: {all_src} lines)")
    print("2. functions that take a crate lock (code lines of their bodies)")
    grand = 0
    nfn = 0
    for r in ["src", "sim/src"]:
        sub = 0
        n = 0
        for f in rs_files(r):
            for name, c in locked_fn_lines(f):
                sub += c
                n += 1
        print(f"   {r}: {n} functions, {sub} code lines")
        grand += sub
        nfn += n
    print(f"   total: {nfn} functions, {grand} code lines")


if __name__ == "__main__":
    sys.exit(main())
