"""Benchmark (not a test): the cost of a 4 KiB ``acl.rt.memcpy`` through
the ``acl`` module against the same C call made through ``ctypes`` on the
simulator's ``libascendcl.so``, side by side in one run; and the Pythonic
layer against raw ``acl``: ``ctx.copy`` between two buffers (target: at most
1.2x ``acl.rt.memcpy``) and with a numpy array on one side (target: at most
2x the same raw call from that array's address), with where the time goes
(the Rust copy ``acl._native._copy`` alone, and Python's method call around
it). Without the ``.so`` (``--lib``), the ctypes side is left out.

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
    have_lib = os.path.exists(args.lib)
    if not have_lib:
        print(f"{args.lib} not found (cargo build -p aclrt-sim-capi --release): no ctypes side")
    sides = {}
    if have_lib:
        sides["ctypes"] = ctypes_side(args.lib)

    # --- the acl module (and the Pythonic layer over it) ----------------
    import numpy as np
    from acl import _native

    rt = aclrt.Runtime()
    dev = rt.device(0)
    ctx = dev.context()
    host = ctx.pinned(SIZE)
    dbuf = ctx.alloc(SIZE)
    arr = np.ones(SIZE, np.uint8)
    a_src, a_dst = host.ptr, dbuf.ptr
    a_np = arr.__array_interface__["data"][0]
    memcpy = acl.rt.memcpy
    rcopy = _native._copy
    h, d, m = ctx._h, dev.id, dev.run_mode  # the context handle object
    kind = H2D if m == 1 else 3  # ACL_DEVICE: runtime memory is device memory

    sides.update({
        "acl": lambda: memcpy(a_dst, SIZE, a_src, SIZE, kind),
        "acl_np": lambda: memcpy(a_dst, SIZE, a_np, SIZE, kind),
        "aclrt": lambda: ctx.copy(dbuf, host),
        "aclrt_np": lambda: ctx.copy(dbuf, arr),
        "rust": lambda: rcopy(h, d, m, dbuf, host),
        "rust_np": lambda: rcopy(h, d, m, dbuf, arr),
    })
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

    def ratio(a, b):
        return statistics.median((x - l) / (y - l) for x, y, l in zip(results[a], results[b], loop))

    print(f"python {sys.version.split()[0]}, {args.rounds} rounds x {n} calls, 4 KiB H2D memcpy")
    print(f"{'side':<46}{'ns/call (median)':>18}")
    names = {
        "ctypes": "ctypes -> libascendcl.so",
        "acl": "acl.rt.memcpy, pinned -> device",
        "acl_np": "acl.rt.memcpy, numpy address -> device",
        "aclrt": "ctx.copy(DeviceBuffer, HostBuffer)",
        "aclrt_np": "ctx.copy(DeviceBuffer, ndarray)",
        "rust": "  of which acl._native._copy (buffers)",
        "rust_np": "  of which acl._native._copy (ndarray)",
    }
    for k, label in names.items():
        if k in med:
            print(f"{label:<46}{med[k]:>18.0f}")
    if have_lib:
        print(f"acl / ctypes ratio (median of rounds): {ratio('acl', 'ctypes'):.3f}  (target <= 1.2)")
    print(f"ctx.copy / acl.rt.memcpy, two buffers: {ratio('aclrt', 'acl'):.2f}  (target <= 1.2)")
    print(f"ctx.copy / acl.rt.memcpy, numpy on one side: {ratio('aclrt_np', 'acl_np'):.2f}  (target <= 2)")

    # On a loaded machine a round's median swings with the other load; its
    # fastest rounds (the 10th percentile of each side) do not.
    def low(k):
        xs = sorted(results[k])
        return xs[len(xs) // 10] - base

    print(f"the same from each side's 10th-percentile round: two buffers "
          f"{low('aclrt') / low('acl'):.2f}, numpy on one side {low('aclrt_np') / low('acl_np'):.2f}")
    print(f"where the time goes: the Python method around the Rust copy "
          f"{med['aclrt'] - med['rust']:.0f} ns; the Rust copy over the raw call "
          f"{med['rust'] - med['acl']:.0f} ns (buffers), {med['rust_np'] - med['acl_np']:.0f} ns "
          f"(ndarray: the buffer export)")

    host.close()
    dbuf.close()
    ctx.close()
    dev.close()
    rt.close()


def ctypes_side(path):
    """``aclrtMemcpy`` through ctypes on libascendcl.so (its own simulator)."""
    lib = ctypes.CDLL(os.path.abspath(path))
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
    return lambda: c_memcpy(cd, SIZE, cs, SIZE, H2D)


if __name__ == "__main__":
    main()
