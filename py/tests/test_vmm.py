"""Virtual memory in the Pythonic layer (`ctx.reserve`, `ctx.alloc_physical`,
`range.map`, `mapping.grow`, views), attacked: release order, granularity,
the collector, use after release, another thread, fork, process exit."""

import gc
import os
import threading
import unittest

import acl
import aclrt
from aclrt import AclError, AclUsageError
from support import needs_numpy, run_mode, run_python


class Base(unittest.TestCase):
    def tearDown(self):
        acl.finalize()


def _mode():
    return "device" if run_mode() == 0 else "host"


class Granularity(Base):
    def test_sizes_are_multiples_of_the_granularity(self):
        with aclrt.Runtime() as rt, rt.device(0) as dev, dev.context() as ctx:
            g = ctx.granularity
            self.assertEqual(g, 2 << 20)
            self.assertEqual(ctx.granules(3), 3 * g)
            for bad in (g + 1, g // 2, 3 * g - 32):
                with self.assertRaisesRegex(ValueError, r"not a multiple of the allocation granularity"):
                    ctx.reserve(bad)
                with self.assertRaisesRegex(ValueError, r"ctx\.granules\("):
                    ctx.alloc_physical(bad)
            for bad in (0, -g):
                with self.assertRaises(ValueError):
                    ctx.reserve(bad)
            for bad in (True, 1.5, "2"):
                with self.assertRaises(TypeError):
                    ctx.alloc_physical(bad)
            with self.assertRaises(ValueError):
                ctx.granules(0)
            r, p = ctx.reserve(2 * g), ctx.alloc_physical(g)
            with self.assertRaisesRegex(ValueError, "offset"):
                r.map(p, g // 2)
            with self.assertRaisesRegex(ValueError, "do not fit"):
                r.map(p, 2 * g)
            self.assertFalse(p.mapped)  # nothing was mapped by the refusals


@needs_numpy
class MapAndGrow(Base):
    def test_a_mapping_is_device_memory_and_grows_in_place(self):
        import numpy as np

        with aclrt.Runtime() as rt, rt.device(0) as dev, dev.context() as ctx:
            g = ctx.granularity
            r = ctx.reserve(4 * g)
            first, second = ctx.alloc_physical(g), ctx.alloc_physical(2 * g)
            m = r.map(first)
            self.assertIsInstance(m, aclrt.DeviceBuffer)
            self.assertEqual((m.nbytes, m.ptr, m.offset), (g, r.ptr, 0))
            data = np.arange(g // 4, dtype=np.uint32)
            ctx.copy(m, data)
            address = m.ptr
            self.assertIs(m.grow(second), m)
            self.assertEqual((m.nbytes, m.ptr), (3 * g, address))  # in place, no move
            self.assertEqual(m.allocations, (first, second))
            head, tail = m.pieces()
            self.assertEqual((head.nbytes, tail.nbytes), (g, 2 * g))
            self.assertTrue((head.to_numpy(np.uint32) == data).all())  # kept its data
            with ctx.stream() as s:
                s.memset(tail, 0x5A)
                host = ctx.pinned(64)
                s.copy(host, m.view(g, 64))
                s.synchronize()
                self.assertTrue((host.numpy() == 0x5A).all())
            with self.assertRaisesRegex(ValueError, "do not fit"):
                m.grow(ctx.alloc_physical(2 * g))  # past the range
            third = ctx.alloc_physical(g)
            del head, tail
            m.close()
            for p in (first, second):
                self.assertFalse(p.mapped)
            # the same range and allocations map again after the unmap
            m2 = r.map(second, g)
            self.assertEqual(m2.ptr, r.ptr + g)
            self.assertEqual(m2.to_numpy()[:4].tolist(), [0x5A] * 4)  # the bytes stay with it
            m2.close()
            for p in (first, second, third):
                p.close()
            r.close()
            self.assertTrue(r.closed and m.closed)

    def test_two_mappings_in_one_range_and_an_overlap_refused(self):
        with aclrt.Runtime() as rt, rt.device(0) as dev, dev.context() as ctx:
            g = ctx.granularity
            r = ctx.reserve(2 * g)
            a, b, c = (ctx.alloc_physical(g) for _ in range(3))
            ma, mb = r.map(a, 0), r.map(b, g)
            ma.fill(1)
            mb.fill(2)
            self.assertEqual(ma.to_numpy()[0], 1)
            self.assertEqual(mb.to_numpy()[0], 2)
            with self.assertRaises(AclError) as cm:
                r.map(c, g)  # overlaps mb: the runtime's refusal
            self.assertEqual(cm.exception.code, 107000)
            self.assertFalse(c.mapped)  # the failed map left no count behind
            c.close()
        self.assertTrue(ma.closed and mb.closed and r.closed)


class ReleaseOrder(Base):
    def test_unmap_comes_before_release_and_free(self):
        with aclrt.Runtime() as rt, rt.device(0) as dev, dev.context() as ctx:
            g = ctx.granularity
            r, p = ctx.reserve(2 * g), ctx.alloc_physical(g)
            m = r.map(p)
            with self.assertRaisesRegex(AclUsageError, "mapped already"):
                r.map(p, g)  # one mapping per allocation
            with self.assertRaisesRegex(AclUsageError, "live children"):
                p.close()
            with self.assertRaisesRegex(AclUsageError, "live children"):
                r.close()
            with self.assertRaisesRegex(AclUsageError, "live children"):
                ctx.close()
            with self.assertRaisesRegex(AclUsageError, "cannot be exported"):
                m.ipc_export(any_process=True)
            m.close()
            for use in (lambda: m.ptr, m.to_numpy, lambda: m.fill(0), lambda: m.view(0, 8),
                        lambda: m.grow(ctx.alloc_physical(g))):
                with self.assertRaises(AclUsageError):
                    use()
            m.close()  # twice: nothing
            p.close()
            r.close()
            with self.assertRaises(AclUsageError):
                r.map(ctx.alloc_physical(g))
            with self.assertRaises(AclUsageError):
                ctx.reserve(g).map(p)  # a freed allocation

    def test_a_with_block_releases_in_order(self):
        with aclrt.Runtime() as rt, rt.device(0) as dev:
            with dev.context() as ctx:
                g = ctx.granularity
                r = ctx.reserve(2 * g)
                m = r.map(ctx.alloc_physical(g))
                m.grow(ctx.alloc_physical(g))
            self.assertTrue(m.closed and r.closed and all(p.closed for p in m.allocations))
            with dev.context() as ctx2:
                g = ctx2.granularity
                with ctx2.reserve(g) as r2:
                    p2 = ctx2.alloc_physical(g)
                    m2 = r2.map(p2)
                self.assertTrue(m2.closed and r2.closed)  # the range's block unmapped it
                self.assertFalse(p2.closed)
                self.assertFalse(p2.mapped)

    def test_queued_work_holds_the_mapping(self):
        with aclrt.Runtime() as rt, rt.device(0) as dev, dev.context() as ctx, ctx.stream() as s:
            g = ctx.granularity
            m = ctx.reserve(g).map(ctx.alloc_physical(g))
            v = m.view(0, 4096)
            s.memset(m, 1)
            s.memset(v, 2)
            with self.assertRaisesRegex(AclUsageError, "a view of it"):
                m.close()
            for busy in (m, v):
                with self.assertRaisesRegex(AclUsageError, "queued stream work"):
                    busy.fill(0)
            with self.assertRaisesRegex(AclUsageError, "queued stream work"):
                v.close()
            del v, busy
            gc.collect()
            with self.assertRaisesRegex(AclUsageError, "a view of it"):
                m.close()  # the queued work keeps the view (and so the mapping)
            s.synchronize()  # settles the work: the view goes
            m.close()
            self.assertTrue(m.closed)

    def test_no_second_owner(self):
        import copy
        import pickle

        with aclrt.Runtime() as rt, rt.device(0) as dev, dev.context() as ctx:
            g = ctx.granularity
            r = ctx.reserve(g)
            m = r.map(ctx.alloc_physical(g))
            for obj in (r, m, m.allocations[0], m.view(0, 8)):
                with self.assertRaises(TypeError):
                    pickle.dumps(obj)
                with self.assertRaises(TypeError):
                    copy.deepcopy(obj)

    def test_a_device_reset_while_mapped_is_refused(self):
        with aclrt.Runtime() as rt:
            dev = rt.device(0)
            ctx = dev.default_context
            g = ctx.granularity
            m = ctx.reserve(g).map(ctx.alloc_physical(g))
            with self.assertRaisesRegex(AclUsageError, "live children"):
                dev.close()
            self.assertFalse(dev.closed)
            m.fill(1)  # still mapped
            m.close()
            with self.assertRaisesRegex(AclUsageError, "live children"):
                dev.close()  # the range and the allocation are left
            m.reservation.close()
            m.allocations[0].close()
            dev.close()
            self.assertTrue(dev.closed)

    def test_allocations_of_another_context_are_refused(self):
        with aclrt.Runtime() as rt, rt.device(0) as dev, dev.context() as c1, dev.context() as c2:
            g = c1.granularity
            r, p = c1.reserve(g), c2.alloc_physical(g)
            with self.assertRaisesRegex(AclUsageError, "another context"):
                r.map(p)
            for bad in (None, 3, c1.alloc(64)):
                with self.assertRaises(TypeError):
                    r.map(bad)
            with self.assertRaises(TypeError):
                aclrt.Mapping(p, p)


class Lifetimes(Base):
    def test_a_mapping_keeps_its_range_and_allocation_alive(self):
        with aclrt.Runtime() as rt, rt.device(0) as dev, dev.context() as ctx:
            g = ctx.granularity

            def make():
                return ctx.reserve(2 * g).map(ctx.alloc_physical(g))

            m = make()  # the range and allocation have no other reference
            gc.collect()
            r, (p,) = m.reservation, m.allocations
            self.assertFalse(r.closed or p.closed)
            self.assertTrue(p.mapped)
            m.fill(7)
            back = bytearray(2)
            ctx.copy(back, m, 2)
            self.assertEqual(bytes(back), b"\x07\x07")
            del r, p
            gc.collect()
            # the context's release finds the mapping first, then its parents

    def test_a_view_keeps_the_mapping_mapped(self):
        with aclrt.Runtime() as rt, rt.device(0) as dev:
            with dev.context() as ctx:
                g = ctx.granularity
                r, p = ctx.reserve(g), ctx.alloc_physical(g)
                m = r.map(p)
                v = m.view(64, 128)
                self.assertEqual((v.ptr, v.nbytes), (m.ptr + 64, 128))
                with self.assertRaisesRegex(AclUsageError, "a view of it"):
                    m.close()
                with self.assertRaises(ValueError):
                    m.view(g - 8, 16)
                with self.assertRaises(ValueError):
                    m.view(0, 0)
                v.close()
                v.close()
                with self.assertRaises(AclUsageError):
                    v.fill(0)
                m.close()  # no view left
                p.close()
                m2 = r.map(p2 := ctx.alloc_physical(g))
                v2 = m2.view()
                # leaving the with-block with a view alive: the unmap, the
                # free and the context's release wait for the view
            self.assertTrue(ctx.closed)
            self.assertTrue(p2.mapped)
            self.assertTrue(m2._deferred)  # still mapped: the view keeps it
            self.assertFalse(p2._h.open)  # the free waits too (closed to new uses)
            del v2
            gc.collect()
            self.assertFalse(m2._deferred)  # unmapped by the view's end
            self.assertFalse(p2.mapped)
            self.assertEqual(p2._h._children, 0)

    def test_a_view_dropped_without_release_ends_its_hold(self):
        with aclrt.Runtime() as rt, rt.device(0) as dev, dev.context() as ctx:
            g = ctx.granularity
            m = ctx.reserve(g).map(ctx.alloc_physical(g))
            for _ in range(3):
                m.view(0, 8)  # collected at once
            m.pieces()
            gc.collect()
            m.close()
            self.assertTrue(m.closed)


class Threads(Base):
    def test_another_thread_copies_and_cannot_unmap_under_a_view(self):
        with aclrt.Runtime() as rt, rt.device(0) as dev, dev.context() as ctx:
            g = ctx.granularity
            m = ctx.reserve(2 * g).map(ctx.alloc_physical(g))
            v = m.view(0, 4096)
            out = {}

            def worker():
                try:
                    ctx.copy(v, bytes([9]) * 4096)
                    back = bytearray(16)
                    ctx.copy(back, v, 16)
                    out["read"] = bytes(back)
                    m.close()
                except AclUsageError as e:
                    out["refused"] = str(e)

            t = threading.Thread(target=worker)
            t.start()
            t.join(60)
            self.assertEqual(out.get("read"), bytes([9]) * 16)
            self.assertIn("a view of it", out.get("refused", ""))
            self.assertFalse(m.closed)
            del v
            gc.collect()
            t = threading.Thread(target=m.close)
            t.start()
            t.join(60)
            self.assertTrue(m.closed)

    def test_racing_maps_of_one_allocation_map_it_once(self):
        with aclrt.Runtime() as rt, rt.device(0) as dev, dev.context() as ctx:
            g = ctx.granularity
            r, p = ctx.reserve(8 * g), ctx.alloc_physical(g)
            results = []
            barrier = threading.Barrier(4)

            def worker(i):
                barrier.wait()
                try:
                    results.append(r.map(p, i * g))
                except AclUsageError:
                    results.append(None)

            ts = [threading.Thread(target=worker, args=(i,)) for i in range(4)]
            for t in ts:
                t.start()
            for t in ts:
                t.join(60)
            mapped = [m for m in results if m is not None]
            self.assertEqual(len(mapped), 1)
            self.assertEqual(len(results), 4)
            mapped[0].close()


@unittest.skipUnless(hasattr(os, "fork"), "no fork on this platform")
class Fork(Base):
    def test_a_forked_child_cannot_map_or_view(self):
        with aclrt.Runtime() as rt, rt.device(0) as dev, dev.context() as ctx:
            g = ctx.granularity
            r, p = ctx.reserve(2 * g), ctx.alloc_physical(g)
            m = r.map(p)
            spare = ctx.alloc_physical(g)
            rd, wr = os.pipe()
            pid = os.fork()
            if pid == 0:
                os.close(rd)
                out = []
                for name, call in (
                    ("reserve", lambda: ctx.reserve(g)),
                    ("map", lambda: r.map(spare, g)),
                    ("grow", lambda: m.grow(spare)),
                    ("view", lambda: m.view(0, 8)),
                    ("unmap", m.close),
                ):
                    try:
                        call()
                        out.append(f"{name}: no error")
                    except RuntimeError as e:
                        out.append(f"{name}: {'forked child' in str(e)}")
                    except BaseException as e:  # noqa: BLE001
                        out.append(f"{name}: {type(e).__name__}")
                os.write(wr, "\n".join(out).encode())
                os._exit(0)
            os.close(wr)
            _, status = os.waitpid(pid, 0)
            report = os.read(rd, 65536).decode()
            os.close(rd)
            self.assertEqual(os.waitstatus_to_exitcode(status), 0)
            self.assertEqual(
                report.splitlines(),
                ["reserve: True", "map: True", "grow: True", "view: True", "unmap: True"],
            )
            m.fill(1)  # the parent's mapping is unaffected
            m.close()


class Exit(Base):
    def test_a_process_may_exit_with_mappings_and_views_alive(self):
        code = """
import aclrt, sys
rt = aclrt.Runtime()
dev = rt.device(0)
ctx = dev.context()
g = ctx.granularity
m = ctx.reserve(2 * g).map(ctx.alloc_physical(g))
m.grow(ctx.alloc_physical(g))
v = m.view(0, 64)
v.fill(1)
print("exiting", flush=True)
if sys.argv[1] == "exit":
    sys.exit(3)
with ctx:
    raise SystemExit(4)  # the with-block defers the unmap to the view
"""
        for how, rc in (("exit", 3), ("with", 4)):
            p = run_python(code, _mode(), timeout=60, args=(how,))
            self.assertEqual(p.returncode, rc, p.stderr)
            self.assertIn("exiting", p.stdout)
            self.assertNotIn("Traceback", p.stderr)


if __name__ == "__main__":
    unittest.main()
