"""Attacks on the runtime handles of the Pythonic layer: a ``close()`` of a
stream, event, context or device on one thread racing every kind of use of
it on another. Each outcome must be success or a clean ``AclUsageError``
(never an ``AclError``: the simulator answers a destroyed handle with
107017), never both refused, and a use refused only because the close won;
a ``close()`` while a ``synchronize()`` waits (GIL released) on another
thread must not destroy the handle under it."""

import contextlib
import sys
import threading
import time
import unittest
from unittest import mock

import acl
import aclrt
from aclrt import AclError, AclUsageError

ROUNDS = 120  # per (close, use) pair; about 0.2 s each


def outcome(fn, *args):
    try:
        fn(*args)
        return "ok"
    except AclUsageError:
        return "usage"
    except BaseException as e:  # noqa: BLE001 - reported by the test
        return f"{type(e).__name__}: {e}"


def spin(n):
    for _ in range(n):
        pass


class Racer:
    """One worker thread that runs ``use(state)`` while the main thread
    runs ``close(state)``, both released by one barrier. Odd rounds close
    at once (the close mostly wins); even rounds wait until the worker is
    about to start its use, then a varied delay, so the use starts first
    and the close lands somewhere inside or after it."""

    def __init__(self):
        self.go = threading.Barrier(2)
        self.box = {}
        self.round = 0
        self.t = threading.Thread(target=self._loop, daemon=True)
        self.t.start()

    def _loop(self):
        while True:
            self.go.wait()
            job = self.box.get("job")
            if job is None:
                return
            use, st = job
            self.box["started"] = True
            self.box["use"] = outcome(use, st)
            self.go.wait()

    def race(self, close, use, st):
        i = self.round = self.round + 1
        self.box["job"] = (use, st)
        self.box["started"] = False
        self.go.wait()
        if i % 2 == 0:
            deadline = time.monotonic() + 1
            while not self.box["started"] and time.monotonic() < deadline:
                pass
            spin(20 * (i % 16))
        c = outcome(close, st)
        self.go.wait()
        return c, self.box["use"]

    def stop(self):
        self.box["job"] = None
        self.go.wait()
        self.t.join()


class HandleRaces(unittest.TestCase):
    def setUp(self):
        self._old = sys.getswitchinterval()
        sys.setswitchinterval(1e-6)
        self.racer = Racer()
        self.tallies = {}

    def tearDown(self):
        self.racer.stop()
        sys.setswitchinterval(self._old)

    def check_round(self, name, c, u, tally):
        self.assertIn(c, ("ok", "usage"), f"{name}: close gave {c}")
        self.assertIn(u, ("ok", "usage"), f"{name}: the use gave {u}")
        self.assertFalse(c == "usage" and u == "usage", f"{name}: both refused")
        tally[(c, u)] = tally.get((c, u), 0) + 1

    def run_pairs(self, pairs, make, close, cleanup, rounds=ROUNDS):
        for name, use in pairs.items():
            tally = {}
            for _ in range(rounds):
                st = make()
                c, u = self.racer.race(close, use, st)
                self.check_round(name, c, u, tally)
                if c == "ok":  # once released, every use is refused
                    self.assertEqual(outcome(use, st), "usage", name)
                cleanup(st)
            self.tallies[name] = tally
        # Both orders happen: the close first (the use refused), the use
        # first (the close refused, or both succeed one after the other).
        won = {k for t in self.tallies.values() for k in t}
        self.assertIn(("ok", "usage"), won, self.tallies)
        self.assertTrue({("usage", "ok"), ("ok", "ok")} & won, self.tallies)

    def test_stream_close_racing_each_use(self):
        with aclrt.Runtime() as rt, rt.device(0) as dev, dev.context() as ctx:
            a, b = ctx.alloc(256), ctx.alloc(256)
            ev = ctx.event()
            ctx.default_stream.record(ev)

            def make():
                st = {"s": ctx.stream(), "e": ctx.event()}
                return st

            def copy(st):
                st["s"].copy(a, b)

            def memset(st):
                st["s"].memset(a, 7)

            pairs = {
                "synchronize": lambda st: st["s"].synchronize(),
                "copy": copy,
                "memset": memset,
                "record": lambda st: st["s"].record(st["e"]),
                "wait": lambda st: st["s"].wait(ev),
                "add_callback": lambda st: st["s"].add_callback(lambda: None),
            }

            def cleanup(st):
                s = st["s"]
                if not s.closed:
                    s.synchronize()
                    s.close()
                st["e"].close()
                ctx.synchronize()  # a, b are free again

            self.run_pairs(pairs, make, lambda st: st["s"].close(), cleanup)

    def test_event_close_racing_each_use(self):
        with aclrt.Runtime() as rt, rt.device(0) as dev, dev.context() as ctx:
            s = ctx.stream()
            start = s.record(ctx.event())

            def make():
                return {"e": s.record(ctx.event())}

            pairs = {
                "synchronize": lambda st: st["e"].synchronize(),
                "query": lambda st: st["e"].query(),
                "record": lambda st: s.record(st["e"]),
                "wait": lambda st: s.wait(st["e"]),
                "elapsed": lambda st: st["e"] - start,
            }

            def cleanup(st):
                s.synchronize()
                if not st["e"].closed:
                    st["e"].close()

            self.run_pairs(pairs, make, lambda st: st["e"].close(), cleanup)

    def test_context_close_racing_each_use(self):
        with aclrt.Runtime() as rt, rt.device(0) as dev:
            src, dst = bytes(range(64)), bytearray(64)

            def make():
                return {"c": dev.context(), "made": []}

            def keep(st, obj):
                st["made"].append(obj)

            pairs = {
                "alloc": lambda st: keep(st, st["c"].alloc(64)),
                "pinned": lambda st: keep(st, st["c"].pinned(64)),
                "stream": lambda st: keep(st, st["c"].stream()),
                "event": lambda st: keep(st, st["c"].event()),
                "copy": lambda st: st["c"].copy(dst, src),
                "synchronize": lambda st: st["c"].synchronize(),
                "bind": lambda st: st["c"].bind(),
            }

            def cleanup(st):
                for obj in st["made"]:
                    obj.close()
                if not st["c"].closed:
                    st["c"].close()

            self.run_pairs(pairs, make, lambda st: st["c"].close(), cleanup)
            self.assertEqual(bytes(dst), src)

    def test_device_close_racing_its_uses(self):
        with aclrt.Runtime() as rt:

            def make():
                return {"d": rt.device(0), "made": []}

            pairs = {
                "context": lambda st: st["made"].append(st["d"].context()),
                "mem_info": lambda st: st["d"].mem_info(),
                "synchronize": lambda st: st["d"].synchronize(),
            }

            def cleanup(st):
                for obj in st["made"]:
                    obj.close()
                if not st["d"].closed:
                    st["d"].close()

            self.run_pairs(pairs, make, lambda st: st["d"].close(), cleanup, rounds=60)


class CloseDuringSynchronize(unittest.TestCase):
    """Deterministic: a synchronize waits (GIL released) for a callback
    that sleeps; a close on another thread meanwhile must be refused."""

    def wait_for_use(self, h):
        deadline = time.monotonic() + 5
        while h._uses == 0:
            self.assertLess(time.monotonic(), deadline, "the synchronize never started")
            time.sleep(0.001)

    def test_stream(self):
        with aclrt.Runtime() as rt, rt.device(0) as dev, dev.context() as ctx:
            s = ctx.stream()
            s.add_callback(time.sleep, 0.1)
            t = threading.Thread(target=s.synchronize)
            t.start()
            self.wait_for_use(s._h)
            with self.assertRaisesRegex(AclUsageError, "in flight"):
                s.close()
            t.join()
            self.assertFalse(s.closed)
            s.close()
            with self.assertRaises(AclUsageError):
                s.synchronize()

    def test_event(self):
        with aclrt.Runtime() as rt, rt.device(0) as dev, dev.context() as ctx:
            s = ctx.stream()
            s.add_callback(time.sleep, 0.1)
            e = s.record(ctx.event())
            t = threading.Thread(target=e.synchronize)
            t.start()
            self.wait_for_use(e._h)
            with self.assertRaisesRegex(AclUsageError, "in flight"):
                e.close()
            t.join()
            e.close()
            s.synchronize()

    def test_a_with_block_left_during_a_synchronize_raises_cleanly(self):
        rt = aclrt.Runtime()
        dev = rt.device(0)
        ctx = dev.context()
        s = ctx.stream()
        s.add_callback(time.sleep, 0.1)
        t = threading.Thread(target=s.synchronize)
        t.start()
        self.wait_for_use(s._h)
        with self.assertRaises(AclUsageError):
            ctx.__exit__(None, None, None)
        t.join()
        rt.__exit__(None, None, None)  # the whole tree, now that nothing is in flight
        self.assertTrue(s.closed and ctx.closed and rt.closed)


class CopyHolds(unittest.TestCase):
    """Python code that a copy runs (an ``__index__``) cannot free a buffer
    of that copy before the runtime call: the copy holds both sides."""

    def test_close_from_nbytes_index_is_refused(self):
        with aclrt.Runtime() as rt, rt.device(0) as dev, dev.context() as ctx:
            dst, src = ctx.pinned(64), ctx.pinned(64)
            src.write(bytes(range(64)))
            seen = []

            class Evil:
                def __index__(self):
                    for b in (dst, src):
                        try:
                            b.close()
                            seen.append("closed")
                        except AclUsageError:
                            seen.append("refused")
                    return 64

            ctx.copy(dst, src, Evil())
            self.assertEqual(seen, ["refused", "refused"])
            self.assertEqual(dst.tobytes(), bytes(range(64)))
            dst.close()
            src.close()

    def test_context_close_from_nbytes_index_is_refused(self):
        with aclrt.Runtime() as rt, rt.device(0) as dev:
            ctx = dev.context()
            seen = []

            class Evil:
                def __index__(self):
                    try:
                        ctx.close()
                        seen.append("closed")
                    except AclUsageError:
                        seen.append("refused")
                    return 8

            out = bytearray(8)
            ctx.copy(out, b"abcdefgh", Evil())
            self.assertEqual(seen, ["refused"])
            self.assertEqual(bytes(out), b"abcdefgh")
            ctx.close()


class Bookkeeping(unittest.TestCase):
    """Which buffers queued work uses, with other threads queueing meanwhile
    (their interleaving forced by a hook around the runtime call)."""

    @contextlib.contextmanager
    def hooked(self, name, inject):
        """Runs ``inject()`` (as another thread would) right after the first
        return of the layer's native call ``name`` (the wait or record with
        its bookkeeping, both in Rust), before the layer's Python code goes
        on; the hook must have fired."""
        done = []

        def hook(frame, event, arg):
            if event == "c_return" and not done and getattr(arg, "__name__", "") == name:
                done.append(1)
                sys.setprofile(None)
                inject()

        sys.setprofile(hook)
        try:
            yield
        finally:
            sys.setprofile(None)
        self.assertTrue(done, f"the hook on {name} never fired")

    def test_work_queued_during_a_synchronize_stays_pending(self):
        with aclrt.Runtime() as rt, rt.device(0) as dev, dev.context() as ctx:
            s, d, h = ctx.stream(), ctx.alloc(64), ctx.pinned(64)
            with self.hooked("_sync_stream", lambda: s.copy(d, h)):
                s.synchronize()
            with self.assertRaisesRegex(AclUsageError, "queued"):
                d.close()  # the copy queued after the wait may still run
            with self.assertRaises(AclUsageError):
                h.numpy()
            s.synchronize()
            d.close()

    def test_work_queued_during_a_record_is_not_covered_by_the_event(self):
        with aclrt.Runtime() as rt, rt.device(0) as dev, dev.context() as ctx:
            s, d, h = ctx.stream(), ctx.alloc(64), ctx.pinned(64)
            e = ctx.event()
            with self.hooked("_record", lambda: s.copy(d, h)):
                s.record(e)
            e.synchronize()
            with self.assertRaisesRegex(AclUsageError, "queued"):
                d.close()
            ctx.synchronize()
            d.close()

    def test_work_queued_during_a_context_synchronize_stays_pending(self):
        with aclrt.Runtime() as rt, rt.device(0) as dev, dev.context() as ctx:
            s, d, h = ctx.stream(), ctx.alloc(64), ctx.pinned(64)
            with self.hooked("_sync_device", lambda: s.copy(d, h)):
                ctx.synchronize()
            with self.assertRaisesRegex(AclUsageError, "queued"):
                d.close()
            s.synchronize()
            d.close()

    def test_memory_refuses_its_own_free_while_busy(self):
        with aclrt.Runtime() as rt, rt.device(0) as dev, dev.context() as ctx:
            s, d, h = ctx.stream(), ctx.alloc(64), ctx.pinned(64)
            s.copy(d, h)
            for buf in (d, h):  # the Rust check, below the layer's own
                with self.assertRaisesRegex(AclUsageError, "queued"):
                    buf._free(False)
            s.synchronize()

    def test_threads_sharing_a_stream(self):
        """Four threads queue, record, wait, add callbacks and synchronise on
        one stream: only AclUsageError may come out (no KeyError of the
        bookkeeping, no second subscription of the stream: 107011)."""
        old = sys.getswitchinterval()
        sys.setswitchinterval(1e-5)
        try:
            with aclrt.Runtime() as rt, rt.device(0) as dev, dev.context() as ctx:
                s = ctx.stream()
                bufs = [ctx.alloc(64) for _ in range(2)] + [ctx.pinned(64) for _ in range(2)]
                errors = []
                go = threading.Barrier(4)

                def work(i):
                    go.wait()
                    e = ctx.event()
                    for k in range(150):
                        try:
                            j = (i + k) % 4
                            if j == 0:
                                s.copy(bufs[k % 2], bufs[2 + k % 2])
                            elif j == 1:
                                s.record(e)
                                e.synchronize()
                            elif j == 2:
                                s.add_callback(int)
                                s.synchronize()
                            else:
                                s.synchronize()
                        except AclUsageError:
                            pass
                        except BaseException as ex:  # noqa: BLE001
                            errors.append(f"{type(ex).__name__}: {ex}")

                ts = [threading.Thread(target=work, args=(i,)) for i in range(4)]
                for t in ts:
                    t.start()
                for t in ts:
                    t.join()
                self.assertEqual(errors, [])
                s.synchronize()
                for b in bufs:
                    b.close()
        finally:
            sys.setswitchinterval(old)

    def test_streams_subscribed_from_two_threads_at_once(self):
        with aclrt.Runtime() as rt, rt.device(0) as dev, dev.context() as ctx:
            racer = Racer()
            try:
                for _ in range(60):
                    s = ctx.stream()
                    a, b = racer.race(lambda st: st.add_callback(int), lambda st: st.add_callback(int), s)
                    self.assertEqual((a, b), ("ok", "ok"))
                    s.synchronize()
                    s.close()
            finally:
                racer.stop()


class Construction(unittest.TestCase):
    """The public classes built by hand: parents of the right class only,
    initialised once, and a failed creation leaves nothing counted."""

    def test_wrong_parents_and_second_init_are_refused(self):
        with aclrt.Runtime() as rt, rt.device(0) as dev, dev.context() as ctx:
            for cls, args in ((aclrt.HostBuffer, (dev, 8)), (aclrt.DeviceBuffer, (None, 8)),
                              (aclrt.Stream, (dev,)), (aclrt.Event, (rt,)),
                              (aclrt.Context, (rt, None)), (aclrt.Device, (ctx, 0))):
                with self.assertRaisesRegex(TypeError, "belongs to"):
                    cls(*args)
            hb = ctx.pinned(8)
            with self.assertRaisesRegex(TypeError, "initialised once"):
                aclrt.HostBuffer.__init__(hb, ctx, 8)
            s = ctx.stream()
            with self.assertRaisesRegex(TypeError, "initialised once"):
                s.__init__(ctx)
            with self.assertRaises(TypeError):
                rt.device(True)
            self.assertFalse(hb.closed)
        self.assertTrue(hb.closed and s.closed)  # the with-blocks released all

    def test_a_failed_creation_leaves_the_context_closable(self):
        with aclrt.Runtime() as rt, rt.device(0) as dev:
            ctx = dev.context()
            for name, make in (("create_stream", ctx.stream), ("create_event_with_flag", ctx.event)):
                with mock.patch.object(acl.rt, name, side_effect=KeyboardInterrupt):
                    with self.assertRaises(KeyboardInterrupt):
                        make()
                with mock.patch.object(acl.rt, name, return_value=(0, 207008)):
                    with self.assertRaises(AclError):
                        make()
            self.assertEqual(ctx._h._children, 0)
            ctx.close()


if __name__ == "__main__":
    unittest.main()


class WaitingParentWithAUseInFlight(unittest.TestCase):
    def test_the_release_comes_with_the_end_of_the_last_use(self):
        """A with-block left while a view is alive makes the context wait;
        the view dies while a copy on another thread still uses the context
        (its ``__index__`` blocks): the context, device and runtime are
        released when that copy returns, not lost."""
        rt = aclrt.Runtime()
        ctx = rt.device(0).context()
        view = ctx.pinned(64).numpy()
        entered, gate = threading.Event(), threading.Event()

        class Slow:
            def __index__(self):
                entered.set()
                gate.wait(5)
                return 8

        out = bytearray(8)
        t = threading.Thread(target=ctx.copy, args=(out, b"abcdefgh", Slow()))
        t.start()
        self.assertTrue(entered.wait(5))
        rt.__exit__(None, None, None)  # the buffer and its ancestors wait for the view
        self.assertTrue(ctx.closed and rt.closed)
        del view  # the buffer is freed; the context's release waits for the copy
        self.assertEqual(ctx._h._uses, 1)
        self.assertEqual(ctx.device._h._children, 1)  # the context: not released yet
        self.assertEqual(rt._h._children, 1)
        gate.set()
        t.join()
        self.assertEqual(bytes(out), b"abcdefgh")
        self.assertEqual((ctx.device._h._children, rt._h._children), (0, 0))
        # Everything was released by the copy's end: a fresh init works.
        self.assertEqual(acl.init(), 0)
        self.assertEqual(acl.finalize(), 0)
