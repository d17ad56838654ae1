"""Attacks on the Pythonic layer and the module without raw pointers: each
test is one way a script could crash, hang or alias memory, and checks that
it cannot (both run modes: the suite runs once per ACLRT_SIM_RUN_MODE)."""

import copy
import gc
import multiprocessing
import os
import pickle
import signal
import sys
import threading
import time
import unittest

import acl
import aclrt
from aclrt import AclUsageError
from support import HAVE_NUMPY, needs_numpy, run_mode, run_python

if HAVE_NUMPY:
    import numpy as np

PLAIN = ("?", "i1", "u1", "i2", "u2", "i4", "u4", "i8", "u8", "f2", "f4", "f8", "c8", "c16")


def tree():
    """An open runtime → device → context, released by the caller's with."""
    rt = aclrt.Runtime()
    dev = rt.device(0)
    ctx = dev.context()
    return rt, dev, ctx


@needs_numpy
class Dtypes(unittest.TestCase):
    def test_object_arrays_are_refused_in_both_directions(self):
        with aclrt.Runtime() as rt, rt.device(0) as dev, dev.context() as ctx:
            d = ctx.alloc(64)
            h = ctx.pinned(64)
            objs = np.empty(8, dtype=object)
            objs[:] = [object() for _ in range(8)]
            for buf in (d, h):
                with self.assertRaisesRegex(TypeError, "plain numeric"):
                    ctx.copy(objs, buf)  # raw bytes over object pointers
                with self.assertRaisesRegex(TypeError, "plain numeric"):
                    ctx.copy(buf, objs)  # object pointers leaked as bytes
                with self.assertRaisesRegex(TypeError, "plain numeric"):
                    buf.to_numpy(object)
            with self.assertRaisesRegex(TypeError, "plain numeric"):
                h.numpy(object)
            rec = np.zeros(4, dtype=[("a", "i4"), ("b", object)])
            with self.assertRaises(TypeError):
                ctx.copy(rec, d)
            with self.assertRaises(TypeError):
                d.to_numpy([("a", "i4"), ("b", "f4")])
            with self.assertRaises(TypeError):
                ctx.copy(np.zeros(4, "U4"), d)
            with self.assertRaisesRegex(TypeError, "plain numeric"):
                h.write(objs)
            self.assertTrue(all(o is not None for o in objs))  # untouched

    def test_every_plain_numeric_dtype_round_trips(self):
        with aclrt.Runtime() as rt, rt.device(0) as dev, dev.context() as ctx:
            d = ctx.alloc(256)
            h = ctx.pinned(256)
            for code in PLAIN:
                with self.subTest(dtype=code):
                    dt = np.dtype(code)
                    src = (np.arange(256 // dt.itemsize) % 2).astype(dt)
                    ctx.copy(d, src)
                    np.testing.assert_array_equal(d.to_numpy(dt), src)
                    ctx.copy(h, d)
                    np.testing.assert_array_equal(h.numpy(dt), src)
                    np.testing.assert_array_equal(h.to_numpy(dt), src)


class NoSecondOwner(unittest.TestCase):
    def test_pickle_copy_and_deepcopy_are_refused_for_every_resource(self):
        with aclrt.Runtime() as rt, rt.device(0) as dev, dev.context() as ctx:
            s = ctx.stream()
            objs = [rt, dev, ctx, dev.default_context, s, ctx.default_stream, ctx.event(),
                    ctx.alloc(64), ctx.pinned(64)]
            for o in objs:
                for how in (pickle.dumps, copy.copy, copy.deepcopy,
                            lambda x: pickle.dumps(x, protocol=0)):
                    with self.subTest(obj=type(o).__name__, how=how):
                        with self.assertRaisesRegex(TypeError, "cannot pickle or copy"):
                            how(o)

    def test_a_buffer_sent_to_another_process_is_refused_before_it_starts(self):
        # What multiprocessing does with a Process argument (spawn) or a Pool
        # task: pickle it. The refusal comes in the parent, no child starts.
        with aclrt.Runtime() as rt, rt.device(0) as dev, dev.context() as ctx:
            host = ctx.pinned(64)
            mp = multiprocessing.get_context("spawn")
            p = mp.Process(target=print, args=(host,))
            with self.assertRaisesRegex(TypeError, "cannot pickle or copy"):
                p.start()
            self.assertIsNone(p.pid)


@needs_numpy
class Views(unittest.TestCase):
    def test_buffer_protocol_views_of_pinned_memory(self):
        with aclrt.Runtime() as rt, rt.device(0) as dev, dev.context() as ctx:
            h = ctx.pinned(64)
            a = np.asarray(h)
            self.assertEqual((a.dtype, a.shape), (np.dtype(np.uint8), (64,)))
            m = memoryview(h)
            self.assertEqual((m.nbytes, m.readonly), (64, False))
            m[0] = 7
            self.assertEqual(a[0], 7)
            self.assertEqual(h._exports, 2)
            with self.assertRaisesRegex(AclUsageError, "view"):
                h.close()
            m.release()
            del a
            gc.collect()
            self.assertEqual(h._exports, 0)
            h.close()
            with self.assertRaises(BufferError):
                memoryview(h)
            d = ctx.alloc(64)
            with self.assertRaisesRegex(BufferError, "device memory"):
                memoryview(d)

    def test_numpy_racing_close_never_yields_a_view_of_freed_memory(self):
        old = sys.getswitchinterval()
        sys.setswitchinterval(1e-6)
        try:
            with aclrt.Runtime() as rt, rt.device(0) as dev, dev.context() as ctx:
                go = threading.Barrier(2)
                box = {}

                def closer():
                    while True:
                        go.wait()
                        buf = box.get("buf")
                        if buf is None:
                            return
                        try:
                            buf.close()
                            box["closed"] = True
                        except AclUsageError:
                            box["closed"] = False
                        go.wait()

                t = threading.Thread(target=closer)
                t.start()
                views = refused = 0
                for _ in range(1500):
                    buf = ctx.pinned(64)
                    box["buf"] = buf
                    go.wait()
                    try:
                        view = buf.numpy()
                    except AclUsageError:
                        view = None
                    go.wait()
                    if view is None:
                        self.assertTrue(box["closed"])
                        refused += 1
                    else:
                        views += 1
                        # The view's memory is live: close was refused, or
                        # happened before... never both.
                        self.assertFalse(box["closed"])
                        self.assertNotEqual(buf._ptr, 0)
                        view[:] = 3
                        self.assertEqual(int(view.sum()), 3 * 64)
                        del view
                        buf.close()
                box["buf"] = None
                go.wait()
                t.join()
                self.assertEqual(views + refused, 1500)
        finally:
            sys.setswitchinterval(old)

    def test_a_view_alive_at_the_end_of_a_with_block_keeps_everything_until_it_dies(self):
        # On another thread, from the default context: the last view's death
        # frees the buffer, then releases the device and the runtime in order.
        with aclrt.Runtime() as rt, rt.device(0) as dev:
            view = dev.default_context.pinned(64).numpy(np.int32)
            view[:] = 5
        self.assertTrue(rt.closed and dev.closed)
        self.assertNotEqual(acl.init(), 0)  # still initialised
        self.assertEqual(int(view.sum()), 5 * 16)
        box = [view]
        del view
        t = threading.Thread(target=box.clear)
        t.start()
        t.join()
        gc.collect()
        self.assertEqual(acl.init(), 0)  # finalized by the last view
        self.assertEqual(acl.finalize(), 0)

    def test_the_last_view_dying_on_another_thread_during_the_exit_releases_everything(self):
        # The view's death races the with-block's exit: whichever finishes
        # last releases the waiting context, device and runtime, once.
        old = sys.getswitchinterval()
        sys.setswitchinterval(1e-6)
        try:
            for i in range(int(os.environ.get("ACLRT_PY_RACE_ROUNDS", "40"))):
                box = []
                go = threading.Event()

                def drop():
                    go.wait()
                    for _ in range(i % 7):
                        pass
                    box.clear()

                t = threading.Thread(target=drop)
                t.start()
                with aclrt.Runtime() as rt, rt.device(0) as dev, dev.context() as ctx:
                    box.append(ctx.pinned(64).numpy())
                    go.set()
                t.join()
                gc.collect()
                self.assertTrue(rt.closed)
                self.assertEqual(acl.init(), 0, f"round {i}: the runtime was left initialised")
                self.assertEqual(acl.finalize(), 0)
        finally:
            sys.setswitchinterval(old)

    def test_the_last_view_dying_between_the_parents_check_and_its_wait(self):
        # The exact interleaving: the context has found that a child still
        # waits (its handle's children, kept in Rust), and the child's last
        # view dies before the context is marked as waiting. The context
        # must still be released (by itself: Rust gives it the release).
        box, fired = [], []

        class Sneaky:
            """The context's handle, with the view dying right after the
            children were read."""

            def __init__(self, h):
                self._real = h

            def _kids(self):
                kids = self._real._kids()
                if box and any(k._closed for k in kids):  # the buffer waits
                    box.clear()  # its last view dies here
                    gc.collect()
                    fired.append(True)
                return kids

            def __getattr__(self, name):
                return getattr(self._real, name)

        with aclrt.Runtime() as rt, rt.device(0) as dev, dev.context() as ctx:
            box.append(ctx.pinned(64).numpy())
            real = ctx._h
            ctx._h = Sneaky(real)
        self.assertEqual(fired, [True])
        self.assertTrue(rt.closed)
        self.assertFalse(real.open)
        self.assertEqual(real._children, 0)
        self.assertEqual(acl.init(), 0)  # context, device and runtime released
        self.assertEqual(acl.finalize(), 0)

    def test_exiting_the_interpreter_with_a_deferred_release(self):
        # The last view dies while the interpreter shuts down: the deferred
        # release runs then, without a hang or a crash.
        code = (
            "import numpy as np, aclrt\n"
            "with aclrt.Runtime() as rt, rt.device(0) as dev, dev.context() as ctx, ctx.stream() as s:\n"
            "    view = ctx.pinned(64).numpy(np.float32)\n"
            "    s.add_callback(print, 'callback')\n"
            "    s.synchronize()\n"
            "view[:] = 2\n"
            "print('sum', float(view.sum()))\n"
        )
        p = run_python(code, "device" if run_mode() == 0 else "host", timeout=60)
        self.assertEqual(p.returncode, 0, p.stderr)
        self.assertIn("sum 32.0", p.stdout)

    def test_numpy_integers_are_sizes(self):
        with aclrt.Runtime() as rt, rt.device(0) as dev, dev.context() as ctx:
            n = np.prod((4, 4)) * np.dtype(np.float32).itemsize
            d = ctx.alloc(n)
            h = ctx.pinned(np.int32(64))
            ctx.copy(d, h, np.uint16(32))
            self.assertEqual(len(d), 64)
            with self.assertRaises(TypeError):
                ctx.alloc(64.0)
            with self.assertRaises(ValueError):
                ctx.copy(d, h, -1)

    def test_an_event_frees_the_buffers_its_work_used(self):
        with aclrt.Runtime() as rt, rt.device(0) as dev, dev.context() as ctx, ctx.stream() as s:
            d, h, h2 = ctx.alloc(64), ctx.pinned(64), ctx.pinned(64)
            h.numpy()[:] = 9
            s.copy(d, h)
            ev = s.record(ctx.event())
            s.copy(h2, d)  # after the record: not covered by ev
            with self.assertRaises(AclUsageError):
                h.numpy()
            ev.synchronize()
            self.assertEqual(int(h.numpy()[0]), 9)  # free again
            with self.assertRaises(AclUsageError):
                h2.numpy()  # still used by work after the record
            ev2 = s.record(ctx.event())
            while not ev2.query():
                time.sleep(0.001)
            self.assertEqual(int(h2.numpy()[0]), 9)
            h.close()
            h2.close()


class Sizes(unittest.TestCase):
    def test_impossible_sizes(self):
        ptr = acl.util.bytes_to_ptr(b"x" * 8)
        with self.assertRaises(MemoryError):
            acl.util.ptr_to_bytes(ptr, 2**62)
        with self.assertRaises((MemoryError, OverflowError)):
            acl.util.ptr_to_bytes(ptr, 2**63)
        with self.assertRaisesRegex(ValueError, "non-negative"):
            acl.util.ptr_to_bytes(ptr, -1)
        self.assertEqual(acl.util.ptr_to_bytes(0, 0), b"")
        with aclrt.Runtime() as rt, rt.device(0) as dev, dev.context() as ctx:
            with self.assertRaises(MemoryError):
                ctx.alloc(2**62)
            with self.assertRaises(MemoryError):
                ctx.pinned(2**62)
            with self.assertRaises(OverflowError):
                ctx.alloc(2**70)
            with self.assertRaises(ValueError):
                ctx.alloc(-1)
            with self.assertRaises(ValueError):
                ctx.alloc(0)

    def test_keywords_give_the_documented_parse_error(self):
        with self.assertRaisesRegex(TypeError, r"^acl\.rt\.malloc args parse failed$"):
            acl.rt.malloc(size=64, policy=0)
        with self.assertRaisesRegex(TypeError, r"^acl\.init args parse failed$"):
            acl.init(config_path=None)
        with self.assertRaisesRegex(TypeError, r"^acl\.util\.ptr_to_bytes args parse failed$"):
            acl.util.ptr_to_bytes(ptr=0, size=0)

    def test_version(self):
        self.assertRegex(acl.__version__, r"^\d+\.\d+\.\d+")
        self.assertEqual(aclrt.__version__, acl.__version__)


EXIT_IN_CALLBACK = r"""
import sys, threading, acl
acl.init(); acl.rt.set_device(0)
ctx, _ = acl.rt.create_context(0)
s, _ = acl.rt.create_stream()
stop = threading.Event()
def loop():
    acl.rt.set_context(ctx)
    while not stop.is_set():
        acl.rt.process_report(20)
t = threading.Thread(target=loop); t.start()
assert acl.rt.subscribe_report(t.ident, s) == 0
def boom(code):
    if code == "kbd":
        raise KeyboardInterrupt
    sys.exit(code)
for arg in (42, "kbd"):
    assert acl.rt.launch_callback(boom, arg, 1, s) == 0
assert acl.rt.synchronize_stream(s) == 0
assert acl.rt.unsubscribe_report(t.ident, s) == 0
stop.set(); t.join()
assert (acl.rt.destroy_stream(s), acl.rt.destroy_context(ctx), acl.rt.reset_device(0), acl.finalize()) == (0, 0, 0, 0)
print("alive")
"""

EXIT_IN_THREAD = r"""
import sys, acl
def f(code):
    sys.exit(code)
tid, ret = acl.util.start_thread(f, 42)
assert ret == 0
assert acl.util.stop_thread(tid) == 0
def g(_):
    raise KeyboardInterrupt
tid, ret = acl.util.start_thread(g, 0)
try:
    acl.util.stop_thread(tid)
except RuntimeError as e:
    print("reported:", e)
print("alive")
"""


class ExitsInCallbacks(unittest.TestCase):
    def run_script(self, code):
        mode = "device" if run_mode() == 0 else "host"
        try:
            return run_python(code, mode, timeout=60)
        except Exception as e:  # TimeoutExpired: the regression is a hang
            self.fail(f"the script hung: {e}")

    def test_sys_exit_and_keyboard_interrupt_in_launch_callback(self):
        p = self.run_script(EXIT_IN_CALLBACK)
        self.assertEqual(p.returncode, 0, p.stderr)
        self.assertIn("alive", p.stdout)
        self.assertIn("SystemExit: 42", p.stderr)  # printed, not silent
        self.assertIn("KeyboardInterrupt", p.stderr)

    def test_sys_exit_in_a_start_thread_function(self):
        p = self.run_script(EXIT_IN_THREAD)
        self.assertEqual(p.returncode, 0, p.stderr)  # not 42: no exit of the process
        self.assertIn("alive", p.stdout)
        self.assertIn("SystemExit: 42", p.stderr)
        self.assertIn("reported:", p.stdout)

    def test_sys_exit_in_add_callback_is_reported_by_synchronize(self):
        with aclrt.Runtime() as rt, rt.device(0) as dev, dev.context() as ctx, ctx.stream() as s:
            s.add_callback(sys.exit, 3)
            with self.assertRaises(aclrt.CallbackError) as cm:
                s.synchronize()
            self.assertIsInstance(cm.exception.__cause__, SystemExit)


@unittest.skipUnless(hasattr(os, "fork"), "no fork on this platform")
class Fork(unittest.TestCase):
    def test_a_forked_child_gets_an_error_instead_of_hanging(self):
        with aclrt.Runtime() as rt, rt.device(0) as dev, dev.context() as ctx, ctx.stream() as s:
            release = threading.Event()
            s.add_callback(release.wait, 30)  # queued work the child would wait for
            d, h = ctx.alloc(64), ctx.pinned(64)
            s.copy(d, h)
            r, w = os.pipe()
            pid = os.fork()
            if pid == 0:  # the child: report what each call did, never hang
                os.close(r)
                out = []
                for name, call in (
                    ("synchronize_stream", lambda: acl.rt.synchronize_stream(s.handle)),
                    ("stream.synchronize", s.synchronize),
                    ("malloc", lambda: acl.rt.malloc(64, 0)),
                    ("ctx.pinned", lambda: ctx.pinned(64)),
                    ("ctx.copy", lambda: ctx.copy(bytearray(64), d)),
                ):
                    try:
                        call()
                        out.append(f"{name}: no error")
                    except RuntimeError as e:
                        out.append(f"{name}: {'forked child' in str(e)}")
                    except BaseException as e:  # noqa: BLE001
                        out.append(f"{name}: {type(e).__name__}")
                os.write(w, "\n".join(out).encode())
                os._exit(0)
            os.close(w)
            deadline = time.monotonic() + 30
            while True:
                done, status = os.waitpid(pid, os.WNOHANG)
                if done:
                    break
                if time.monotonic() > deadline:
                    os.kill(pid, signal.SIGKILL)
                    os.waitpid(pid, 0)
                    release.set()
                    self.fail("the forked child hung")
                time.sleep(0.01)
            report = os.read(r, 65536).decode()
            os.close(r)
            release.set()
            s.synchronize()  # the parent is unaffected
            self.assertEqual(os.waitstatus_to_exitcode(status), 0)
            self.assertEqual(
                report.splitlines(),
                ["synchronize_stream: True", "stream.synchronize: True", "malloc: True",
                 "ctx.pinned: True", "ctx.copy: True"],
            )


class OneCallbackThread(unittest.TestCase):
    def test_streams_of_a_context_share_one_callback_thread(self):
        with aclrt.Runtime() as rt, rt.device(0) as dev, dev.context() as ctx:
            idents = []
            with ctx.stream() as a, ctx.stream() as b:
                a.add_callback(lambda: idents.append(threading.get_ident()))
                b.add_callback(lambda: idents.append(threading.get_ident()))
                ctx.default_stream.add_callback(lambda: idents.append(threading.get_ident()))
                a.synchronize()
                b.synchronize()
                ctx.default_stream.synchronize()
            self.assertEqual(len(idents), 3)
            self.assertEqual(len(set(idents)), 1)
            self.assertNotEqual(idents[0], threading.get_ident())


if __name__ == "__main__":
    unittest.main()
