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
   on a lock, `lock(&...)`, or a helper of the same crate returning a
   guard, found by its signature and printed: `name()` for a free
   function, `.name()` for a method; a `RefCell` borrow is no lock, and a
   method of the same name that returns no guard is no helper), counted
   whole: an upper bound of the lines that can run with a crate lock held
   (what a callee runs under the caller's lock is not added; a function
   that only calls a function taking a lock, with arguments, is not
   counted).
3. Cited: the functions of src/ that the `// SAFETY:` comments of src/
   name (in backticks: `Type::function` or `module::function`, resolved
   in all of src/; or a bare `function` that is neither a variable nor an
   import of the comment's file, resolved in the basement only: the one in
   the comment's file, else the only one under its directory, else the
   only one in src/ffi; a bare name of a method of std is left out that
   way), each to its definition, its lines summed: `cited: N lines in M
   functions`; a module cited whole (`scope::end`, or a bare `waits`
   naming a file of the basement) counts its file; a name that stays
   ambiguous is listed, not summed. The
   trusted set is the unsafe-allowed files of the crate plus the cited
   functions outside them. A cited function outside the counted files
   (the basement `src/ffi`, and the few typed-layer functions listed in
   TRUSTED_ABOVE, which are counted) fails the script (exit 1): a SAFETY
   argument may rely only on what is counted. Names are resolved in
   src/rule/ too (the rule's bookkeeping beside the basement, `#![deny
   (unsafe_code)]`, not counted), so a cited function there fails the
   script instead of being passed over.

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

def guard_helpers(root):
    """The functions of the crate tree `root` (src/ or sim/src/) that return
    a lock guard (`-> MutexGuard`, `-> Held` (the library's ranked guard),
    `-> Guard`, or an `RwLock` guard, with or without a path before it):
    {name: "method" or "free"}. A call of one takes a lock: `name()` for a
    free function, `.name()` for a method (so a method of the same name
    that returns no guard, `Flow::queue`, or a `RefCell` borrow
    `ScopeCore::book`, is not taken for one, nor is a helper of the other
    crate)."""
    names = {}
    pat = re.compile(
        r"fn (\w+)(<[^>]*>)?\(([^)]*)\)\s*->\s*(?:[\w]+::)*(MutexGuard|Held|Guard|RwLockReadGuard|RwLockWriteGuard)\b"
    )
    for f in rs_files(root):
        for m in pat.finditer(open(f, encoding="utf-8").read()):
            params = m.group(3).strip()
            kind = "method" if re.match(r"&?\s*('\w+\s+)?(mut\s+)?self\b", params) else "free"
            if names.get(m.group(1), kind) != kind:
                kind = "both"
            names[m.group(1)] = kind
    names.pop("lock", None)
    # `protocol::sync::wait` re-takes a lock it was given; calls named
    # `wait()` elsewhere are not lock helpers.
    names.pop("wait", None)
    return names


def guard_regex(root):
    helpers = guard_helpers(root)
    free = [n for n, k in helpers.items() if k in ("free", "both")]
    meth = [n for n, k in helpers.items() if k in ("method", "both")]
    alts = [r"\block\(", r"\.read\(\)", r"\.write\(\)"]
    if free:
        alts.append(r"(?<![.\w])(?:\w+::)*(" + "|".join(sorted(free)) + r")\(\)")
    if meth:
        alts.append(r"\.(" + "|".join(sorted(meth)) + r")\(\)")
    return re.compile("|".join(alts))


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


# Typed-layer functions whose signatures a SAFETY argument of the basement
# relies on (the borrows they take); counted in the trusted set. Adding one
# is a reviewed change of the trusted base.
TRUSTED_ABOVE = {
    ("src/kernel/launch.rs", "launch"),
    ("src/kernel/launch.rs", "launch_in"),
    ("src/register.rs", "register_host"),
}

IDENT_PATH = re.compile(r"^(?:[A-Za-z_]\w*::)*[A-Za-z_]\w*$")
BASEMENT = "src/ffi/"
# The rule's bookkeeping beside the basement (`#![deny(unsafe_code)]`, not
# counted): a SAFETY comment's name is resolved there too, so that a cited
# function or module that lies there is found (and fails the script)
# rather than left out.
RULE = "src/rule/"


def impl_type(head):
    """The type an `impl` header (after `impl`) is for."""
    head = head.strip()
    if head.startswith("<"):
        depth = 0
        for i, ch in enumerate(head):
            depth += ch == "<"
            depth -= ch == ">"
            if depth == 0:
                head = head[i + 1 :]
                break
    if " for " in head:
        head = head.split(" for ", 1)[1]
    m = re.match(r"\s*(?:[\w]+::)*(\w+)", head)
    return m.group(1) if m else None


def fn_defs(root):
    """name -> [(file, impl type or None, first line, lines)] of every fn."""
    defs = {}
    for f in rs_files(root):
        lines = open(f, encoding="utf-8").read().splitlines()
        ty = None
        depth = 0
        for i, line in enumerate(lines):
            code = line.split("//")[0]
            im = re.match(r"^(?:unsafe\s+)?impl\b(.*)$", line)
            if im and depth == 0:
                ty = impl_type(im.group(1))
            m = FN.match(line)
            if m:
                d = 0
                start = None
                j = i
                while j < len(lines):
                    c = lines[j].split("//")[0]
                    for ch in c:
                        if ch == "{":
                            d += 1
                            start = j if start is None else start
                        elif ch == "}":
                            d -= 1
                    if start is not None and d == 0:
                        break
                    if start is None and c.rstrip().endswith(";"):
                        break
                    j += 1
                defs.setdefault(m.group(6), []).append((f, ty if depth > 0 else None, i + 1, j - i + 1))
            depth += code.count("{") - code.count("}")
            if depth == 0:
                ty = None
    return defs


def safety_blocks(root):
    """(file, line, text) of every `// SAFETY:` comment of `root`."""
    for f in rs_files(root):
        lines = open(f, encoding="utf-8").read().splitlines()
        i = 0
        while i < len(lines):
            if lines[i].strip().startswith("// SAFETY:"):
                start = i
                block = []
                while i < len(lines) and lines[i].strip().startswith("//"):
                    block.append(lines[i].strip()[2:])
                    i += 1
                yield f, start + 1, " ".join(block)
            else:
                i += 1


def variables(text):
    """Names a file binds as parameters, locals or closure arguments."""
    names = set(re.findall(r"\blet\s+(?:mut\s+)?(\w+)", text))
    names |= set(re.findall(r"[(,]\s*(?:mut\s+)?(\w+)\s*:\s*[^:]", text))
    names |= set(re.findall(r"\|(\w+)\|", text))
    # Imports of std, core and alloc (`use std::alloc::{alloc_zeroed, ..}`).
    for m in re.finditer(r"^use\s+(?:std|core|alloc)::([^;]*);", text, re.M):
        names |= set(re.findall(r"\w+", m.group(1)))
    return names


def cited_fns(root="src"):
    """{(file, line, name): (lines, {cited from})}, and the ambiguous names."""
    defs = fn_defs(root)
    out = {}
    ambiguous = {}
    for f, line, text in safety_blocks(root):
        vars_ = variables(open(f, encoding="utf-8").read())
        for tok in re.findall(r"`([^`]+)`", text):
            tok = tok.strip()
            if tok.endswith("()"):
                tok = tok[:-2]
            if not IDENT_PATH.match(tok):
                continue
            parts = tok.split("::")
            name = parts[-1]
            modules = [os.path.join(b, *parts) + ".rs" for b in (BASEMENT, RULE)]
            module = next((m for m in modules if os.path.exists(m)), None)
            if len(parts) > 1 and module:
                # A module cited whole (`scope::end`): its file.
                n = len(open(module, encoding="utf-8").read().splitlines())
                out.setdefault((module, 1, "(module)"), (n, set()))[1].add(f"{f}:{line}")
                continue
            if len(parts) == 1 and name not in defs and name not in vars_ and module:
                # A module of the basement (or the rule) cited by its bare
                # name (`waits`): its file.
                n = len(open(module, encoding="utf-8").read().splitlines())
                out.setdefault((module, 1, "(module)"), (n, set()))[1].add(f"{f}:{line}")
                continue
            if name not in defs or not name[0].islower():
                continue
            cands = defs[name]
            if len(parts) > 1:
                q = parts[-2]
                cands = [
                    c
                    for c in cands
                    if c[1] == q
                    or os.path.splitext(os.path.basename(c[0]))[0] == q
                    or ("/" + q + "/") in c[0]
                ]
            else:
                if name in vars_:
                    continue
                cands = [c for c in cands if c[0].startswith((BASEMENT, RULE))]
                if not cands:
                    continue
                here = [c for c in cands if c[0] == f]
                # The rule's files stood in src/ffi/ once: for a comment
                # there they are as near as the basement's own.
                d = os.path.dirname(f) + "/"
                near = [c for c in cands if c[0].startswith(d) or (d == BASEMENT and c[0].startswith(RULE))]
                cands = here or (near if len(near) == 1 else cands if len(cands) == 1 else [])
                if not cands:
                    ambiguous.setdefault(tok, set()).add(f"{f}:{line}")
                    continue
            if not cands:
                ambiguous.setdefault(tok, set()).add(f"{f}:{line}")
            for c in cands:
                out.setdefault((c[0], c[2], name), (c[3], set()))[1].add(f"{f}:{line}")
    return out, ambiguous


def main():
    global GUARDS
    os.chdir(os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
    for r in ["src", "sim/src"]:
        h = guard_helpers(r)
        print(f"   guard helpers of {r}: " + ", ".join(f"{n}()" if k == "free" else f".{n}()" if k == "method" else f"{n}() .{n}()" for n, k in sorted(h.items())))
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
        GUARDS = guard_regex(r)
        for f in rs_files(r):
            for name, c in locked_fn_lines(f):
                sub += c
                n += 1
        print(f"   {r}: {n} functions, {sub} code lines")
        grand += sub
        nfn += n
    print(f"   total: {nfn} functions, {grand} code lines")
    print("3. functions the // SAFETY: comments of src/ cite (lines of each)")
    cited, ambiguous = cited_fns("src")
    counted = set(f for f in unsafe_allowed() if f.startswith("src/"))
    n_lines = 0
    outside_counted = 0
    outside_basement = []
    whole = {f for (f, _, name) in cited if name == "(module)"}
    # A function of a module cited whole is in its file's count already.
    cited = {k: v for k, v in cited.items() if k[2] == "(module)" or k[0] not in whole}
    for (f, line, name), (n, frm) in sorted(cited.items()):
        n_lines += n
        mark = ""
        if f not in counted:
            outside_counted += n
            mark = " (outside the unsafe-allowed files)"
        if not f.startswith(BASEMENT):
            if (f, name) in TRUSTED_ABOVE and not f.startswith(RULE):
                mark = " (typed layer, TRUSTED_ABOVE)"
            else:
                outside_basement.append((f, line, name, frm))
                mark = " (OUTSIDE THE COUNTED FILES)"
        print(f"   {f}:{line} {name}: {n}{mark}")
    for tok, frm in sorted(ambiguous.items()):
        print(f"   ambiguous, not summed: `{tok}` (cited at {', '.join(sorted(frm))})")
    print(f"   cited: {n_lines} lines in {len(cited)} functions")
    aclrt_unsafe = sum(len(open(f, encoding="utf-8").read().splitlines()) for f in counted)
    print(
        f"   trusted (aclrt): {aclrt_unsafe + outside_counted} lines = "
        f"{aclrt_unsafe} unsafe-allowed + {outside_counted} cited outside them"
    )
    ffi = sum(len(open(f, encoding="utf-8").read().splitlines()) for f in rs_files("src/ffi"))
    print(f"   src/ffi: {ffi} lines")
    rule = sum(len(open(f, encoding="utf-8").read().splitlines()) for f in rs_files("src/rule"))
    print(f"   src/rule (beside the basement, not counted): {rule} lines")
    if outside_basement:
        for f, line, name, frm in outside_basement:
            print(
                f"error: `{name}` ({f}:{line}) is cited by a SAFETY comment "
                f"({', '.join(sorted(frm))}) but lies outside the counted files "
                f"({BASEMENT} and TRUSTED_ABOVE)",
                file=sys.stderr,
            )
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
