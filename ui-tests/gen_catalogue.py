#!/usr/bin/env python3
"""Regenerate src/guide/safety_model.md from the headers of the ui-test cases.

Each compile-fail case opens with three comment lines (Misuse / Why it must
not compile / Enforced by); this script lists them, with their compile-pass
twins, as the "Safety model" chapter of the crate docs.

    python3 ui-tests/gen_catalogue.py
"""
import pathlib

ROOT = pathlib.Path(__file__).resolve().parent
OUT = ROOT.parent / "src" / "guide" / "safety_model.md"

GROUPS = [
    ("Lifecycle, residency and identity", "fail", "pass"),
    ("Asynchronous work, events, cross-stream and threads", "async-fail", "async-pass"),
]

INTRO = """# Safety model

Every guarantee below is a compile error for the misuse, proven by a
[trybuild](https://docs.rs/trybuild) case in `ui-tests/` of the repository:
the *fail* case must not compile (its expected compiler output is reviewed in
the `.stderr` file next to it) and the *pass* twin shows the right way and
runs on the simulator. What the types cannot see is checked at run time and
returns an [`Error`](crate::Error) (never a panic, never undefined behaviour):
invalid device ids, out of memory, zero-size or oversize allocations, copy
length mismatches, a second live `Acl`, stream/event exhaustion, timeouts,
device faults reported at synchronisation.

The run-time guarantees that support the compile-time ones:

* **Leak-safe async**: asynchronous work only exists inside
  [`Context::scope`](crate::Context::scope), which synchronises every stream
  it used before returning — after success, error or panic — so `mem::forget`
  of anything the API hands out cannot cause a use-after-free.
* **Current context**: every call makes the right context current first, so
  safe code never gets error 107003, from any thread.
* **Drop never panics**; `destroy`/`free`/`reset`/`finalize` return the errors
  that `Drop` has to swallow.
* **Panics never unwind through C**: host functions run under
  `catch_unwind`, and the panic is resumed on the caller's thread after
  synchronisation.
* **All `unsafe` code** lives in one private module tree (`src/ffi/`), each
  block with a `// SAFETY:` comment naming its preconditions; the crate root
  has `#![deny(unsafe_code)]` with `ffi` the only exception, so the compiler
  checks it.

"""


def header(path):
    lines = path.read_text().splitlines()[:3]
    vals = []
    for prefix, line in zip(("// Misuse:", "// Why it must not compile:", "// Enforced by:"), lines):
        vals.append(line[len(prefix):].strip() if line.startswith(prefix) else "")
    return vals


def main():
    out = [INTRO]
    total = 0
    for title, fail, passd in GROUPS:
        cases = sorted((ROOT / fail).glob("*.rs"))
        if not cases:
            continue
        out.append(f"## {title}\n\n| misuse | why it must not compile | enforced by | fail case | pass twin |\n| --- | --- | --- | --- | --- |\n")
        for case in cases:
            misuse, why, by = header(case)
            twin = ROOT / passd / case.name
            twin_text = f"`ui-tests/{passd}/{case.name}`" if twin.exists() else "(none)"
            cell = lambda s: s.replace("|", "\\|")
            out.append(f"| {cell(misuse)} | {cell(why)} | {cell(by)} | `ui-tests/{fail}/{case.name}` | {twin_text} |\n")
            total += 1
        out.append("\n")
    out.append(f"{total} compile-fail cases in all.\n")
    OUT.write_text("".join(out))
    print(f"wrote {OUT} ({total} cases)")


if __name__ == "__main__":
    main()
