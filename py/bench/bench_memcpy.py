"""Benchmark (not a test): the cost of a 4 KiB ``acl.rt.memcpy`` through
the ``acl`` module against the same C call made through ``ctypes`` on the
simulator's ``libascendcl.so``, side by side in one run; and the Pythonic
layer's per-call overhead over raw ``acl``.

    cargo build -p aclrt-sim-capi --release      # target/release/libascendcl.so
    pip install ./py                             # the module, release build
    python py/bench/bench_memcpy.py [--lib target/release/libascendcl.so]

Both sides run the same simulator code (the module links aclrt-sim, the
.so is aclrt-sim built as a C library), each an independent runtime in this
process. Rounds alternate the sides in blocks, so a slow period of the
machine slows both; the ratio reported is the median of per-round ratios.
"""

import argparse
import ctypes
import os
import statistics
import sys
import time

import acl
import aclrt

SIZE = 4096
H2D = 1


def per_call(fn, n):
    t0 = time.perf_counter_ns()
    for _ in range(n):
        fn()
    return (time.perf_counter_ns() - t0) / n


def main():
    here = os.path.dirname(os.path.abspath(__file__))
    default_lib = os.path.join(here, "..", "..", "target", "release", "libascendcl.so")
    ap = argparse.ArgumentParser()
    ap.add_argument("--lib", default=default_lib)
    ap.add_argument("--rounds", type=int, default=30)
    ap.add_argument("--calls", type=int, default=20000)
    args = ap.parse_args()
    if not os.path.exists(args.lib):
        sys.exit(f"{args.lib} not found: cargo build -p aclrt-sim-capi --release")

    # --- ctypes on libascendcl.so (its own simulator instance) ------------
    lib = ctypes.CDLL(os.path.abspath(args.lib))
    vp = ctypes.c_void_p
    lib.aclInit.argtypes = [ctypes.c_char_p]
    lib.aclrtSetDevice.argtypes = [ctypes.c_int32]
    lib.aclrtMallocHost.argtypes = [ctypes.POINTER(vp), ctypes.c_size_t]
    lib.aclrtMalloc.argtypes = [ctypes.POINTER(vp), ctypes.c_size_t, ctypes.c_uint]
    lib.aclrtMemcpy.argtypes = [vp, ctypes.c_size_t, vp, ctypes.c_size_t, ctypes.c_uint]
    lib.aclrtMemcpy.restype = ctypes.c_int
    assert lib.aclInit(None) == 0 and lib.aclrtSetDevice(0) == 0
    c_src, c_dst = vp(), vp()
    assert lib.aclrtMallocHost(ctypes.byref(c_src), SIZE) == 0
    assert lib.aclrtMalloc(ctypes.byref(c_dst), SIZE, 0) == 0
    cs, cd = c_src.value, c_dst.value
    c_memcpy = lib.aclrtMemcpy

    # --- the acl module (and the Pythonic layer over it) ----------------
    rt = aclrt.Runtime()
    dev = rt.device(0)
    ctx = dev.context()
    host = ctx.pinned(SIZE)
    dbuf = ctx.alloc(SIZE)
    a_src, a_dst = host.ptr, dbuf.ptr
    memcpy = acl.rt.memcpy

    sides = {
        "ctypes": lambda: c_memcpy(cd, SIZE, cs, SIZE, H2D),
        "acl": lambda: memcpy(a_dst, SIZE, a_src, SIZE, H2D),
        "aclrt": lambda: ctx.copy(dbuf, host),
    }
    for fn in sides.values():
        assert fn() in (0, None)
    # Calibrate the lambda call itself, so each side's number is the call.
    empty = lambda: None  # noqa: E731
    results = {k: [] for k in sides}
    loop = []
    n = args.calls
    for _ in range(args.rounds):
        loop.append(per_call(empty, n))
        for name, fn in sides.items():
            results[name].append(per_call(fn, n))
    base = statistics.median(loop)
    med = {k: statistics.median(v) - base for k, v in results.items()}
    ratio = statistics.median((a - l) / (c - l) for a, c, l in zip(results["acl"], results["ctypes"], loop))
    over = statistics.median((p - a) for p, a in zip(results["aclrt"], results["acl"]))
    pyratio = statistics.median((p - l) / (a - l) for p, a, l in zip(results["aclrt"], results["acl"], loop))

    print(f"python {sys.version.split()[0]}, {args.rounds} rounds x {n} calls, 4 KiB H2D memcpy")
    print(f"{'side':<34}{'ns/call (median)':>18}")
    print(f"{'ctypes -> libascendcl.so':<34}{med['ctypes']:>18.0f}")
    print(f"{'acl.rt.memcpy (this module)':<34}{med['acl']:>18.0f}")
    print(f"{'aclrt Context.copy (Pythonic)':<34}{med['aclrt']:>18.0f}")
    print(f"acl / ctypes ratio (median of rounds): {ratio:.3f}  (target <= 1.2)")
    print(f"Pythonic overhead over raw acl: {over:.0f} ns/call, ratio {pyratio:.2f}")

    host.close()
    dbuf.close()
    ctx.close()
    dev.close()
    rt.close()


if __name__ == "__main__":
    main()
