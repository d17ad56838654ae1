"""The Pythonic layer `aclrt` (issue 26 item 5)."""

import gc
import threading
import unittest

import acl
import aclrt
from aclrt import AclError, AclUsageError, CallbackError
from aclrt import constants as C
from support import ACL_DEVICE, ACL_HOST, needs_numpy, run_mode


class Base(unittest.TestCase):
    def tearDown(self):
        # Every test leaves the runtime finalized (a failing test included).
        acl.finalize()


class Errors(Base):
    def test_acl_error_carries_code_function_and_message(self):
        with aclrt.Runtime() as rt:
            with self.assertRaises(AclError) as cm:
                rt.device(99)
            e = cm.exception
            self.assertEqual(e.code, 107001)
            self.assertEqual(e.function, "acl.rt.set_device")
            self.assertIsInstance(e.message, str)
            self.assertIn("107001", str(e))
            self.assertEqual(rt._children, [])  # the failed device is not a child

    def test_check(self):
        aclrt.check(0, "f")
        with self.assertRaises(AclError):
            aclrt.check(100000, "f")

    def test_second_runtime(self):
        with aclrt.Runtime():
            with self.assertRaises(AclError) as cm:
                aclrt.Runtime()
            self.assertEqual(cm.exception.code, C.ACL_ERROR_REPEAT_INITIALIZE)
        # the failed second init took a reference (acl-facts §5.1): drop it
        acl.finalize()


class Lifecycle(Base):
    def test_nested_with_blocks_release_in_order(self):
        with aclrt.Runtime() as rt, rt.device(0) as dev, dev.context() as ctx, ctx.stream() as s:
            self.assertEqual(acl.rt.get_context(), (ctx.handle, 0))
            s.synchronize()
        for obj in (rt, dev, ctx, s):
            self.assertTrue(obj.closed)
        # finalized: a new runtime starts
        with aclrt.Runtime():
            pass

    def test_exit_by_exception_releases_everything_in_the_legal_order(self):
        calls = []
        orig = {n: getattr(acl.rt, n) for n in ("destroy_stream", "destroy_event",
                                                 "destroy_context", "reset_device")}
        freed = []  # (the buffers freed) when the context goes: memory is freed in Rust

        class Boom(Exception):
            pass

        with self.assertRaises(Boom):
            with aclrt.Runtime() as rt:
                dev = rt.device(0)
                ctx = dev.context()
                buf = ctx.alloc(64)
                host = ctx.pinned(64)
                ev = ctx.event()
                s = ctx.stream()
                s.copy(buf, host)  # pending work: the stream synchronizes first
                for name, fn in orig.items():
                    setattr(acl.rt, name, (lambda n, f: lambda *a: (calls.append(n), f(*a))[1])(name, fn))
                acl.rt.destroy_context = lambda *a: (freed.append((buf._ptr, host._ptr, buf.closed, host.closed)),
                                                     orig["destroy_context"](*a))[1]
                raise Boom()
        for name, fn in orig.items():
            setattr(acl.rt, name, fn)
        self.assertEqual(calls, ["destroy_stream", "destroy_event", "reset_device"])
        self.assertEqual(freed, [(0, 0, True, True)])
        self.assertTrue(all(o.closed for o in (rt, dev, ctx, buf, host, ev, s)))

    def test_releasing_a_parent_before_its_children_raises(self):
        with aclrt.Runtime() as rt, rt.device(0) as dev:
            ctx = dev.context()
            s = ctx.stream()
            with self.assertRaises(AclUsageError) as cm:
                ctx.close()
            self.assertIn("stream", str(cm.exception))
            with self.assertRaises(AclUsageError):
                dev.close()
            with self.assertRaises(AclUsageError):
                rt.close()
            s.close()
            ctx.close()
            self.assertTrue(ctx.closed)

    def test_device_close_takes_its_default_context_along(self):
        with aclrt.Runtime() as rt:
            dev = rt.device(0)
            dev.default_context.default_stream.synchronize()
            dev.close()  # the default context is part of the device
            self.assertTrue(dev.default_context.closed)
            dev = rt.device(0)
            buf = dev.default_context.alloc(64)
            with self.assertRaises(AclUsageError):
                dev.close()  # ... but not while it has children
            buf.close()
            dev.close()

    def test_default_context_and_stream_cannot_be_destroyed(self):
        with aclrt.Runtime() as rt, rt.device(0) as dev:
            ctx = dev.default_context
            with self.assertRaises(AclUsageError):
                ctx.close()
            with self.assertRaises(AclUsageError):
                ctx.default_stream.close()
            buf = ctx.alloc(128)
            ctx.default_stream.memset(buf, 1)
            ctx.default_stream.synchronize()
        self.assertTrue(buf.closed)

    def test_use_after_release_raises(self):
        with aclrt.Runtime() as rt, rt.device(0) as dev:
            with dev.context() as ctx:
                buf = ctx.alloc(64)
                s = ctx.stream()
            # Leaving the context's block released the buffer with it.
            self.assertTrue(buf.closed)
            with self.assertRaises(AclUsageError) as cm:
                buf.fill(0)
            self.assertIn("released", str(cm.exception))
            with self.assertRaises(AclUsageError):
                _ = buf.ptr
            with self.assertRaises(AclUsageError):
                s.synchronize()
            with self.assertRaises(AclUsageError):
                ctx.stream()
            # close() of something already released is a no-op
            buf.close()

    def test_objects_work_from_another_thread(self):
        with aclrt.Runtime() as rt, rt.device(0) as dev, dev.context() as ctx, ctx.stream() as s:
            buf = ctx.alloc(64)
            errors = []

            def worker():
                try:
                    s.memset(buf, 3)  # binds ctx on this thread first
                    s.synchronize()
                except BaseException as e:
                    errors.append(e)

            t = threading.Thread(target=worker)
            t.start()
            t.join()
            self.assertEqual(errors, [])


@needs_numpy
class Buffers(Base):
    def test_pinned_numpy_view_round_trip_through_the_device(self):
        import numpy as np

        with aclrt.Runtime() as rt, rt.device(0) as dev, dev.context() as ctx, ctx.stream() as s:
            host = ctx.pinned(4096)
            self.assertFalse(host.numpy().any())  # zero-filled
            a = host.numpy(np.float32)
            a[:] = np.arange(1024)
            d = ctx.alloc(4096)
            s.copy(d, host)
            back = ctx.pinned(4096)
            s.copy(back, d)
            s.synchronize()
            np.testing.assert_array_equal(back.numpy(np.float32), np.arange(1024, dtype=np.float32))
            np.testing.assert_array_equal(d.to_numpy(np.float32, (32, 32)).ravel(), np.arange(1024))
            del a

    def test_views_keep_memory_alive_and_block_free(self):
        import numpy as np

        with aclrt.Runtime() as rt, rt.device(0) as dev, dev.context() as ctx:
            host = ctx.pinned(256)
            view = host.numpy(np.uint8)[10:20]  # a slice of a view pins it too
            with self.assertRaises(AclUsageError):
                host.close()
            # Dropping the Python reference to the buffer: the view keeps it.
            del host
            gc.collect()
            view[:] = 5
            self.assertEqual(int(view.sum()), 50)
            # The context cannot be released under the view either.
            with self.assertRaises(AclUsageError):
                ctx.close()
            (buf,) = [c for c in ctx._children if isinstance(c, aclrt.HostBuffer)]
            del view
            gc.collect()
            buf.close()
            self.assertTrue(buf.closed)

    def test_with_block_exit_under_a_live_view_defers_until_the_last_view_dies(self):
        import numpy as np

        rt = aclrt.Runtime()
        dev = rt.device(0)
        ctx = dev.context()
        view = ctx.pinned(64).numpy(np.uint8)
        rt.__exit__(None, None, None)  # no error: the release waits for the view
        self.assertTrue(rt.closed)
        view[:] = 1  # still valid memory: nothing was freed
        self.assertEqual(int(view.sum()), 64)
        self.assertNotEqual(acl.init(), 0)  # the runtime is still initialised
        del view
        gc.collect()
        # The last view freed the buffer, then destroyed the context, reset
        # the device and finalized the runtime, in that order.
        self.assertEqual(acl.init(), 0)
        self.assertEqual(acl.finalize(), 0)

    def test_copy_direction_comes_from_the_buffers_and_run_mode(self):
        import numpy as np

        mode = run_mode()
        k = aclrt.kind_of
        if mode == ACL_HOST:
            self.assertEqual(k("device", "pinned", mode), C.ACL_MEMCPY_HOST_TO_DEVICE)
            self.assertEqual(k("pageable", "device", mode), C.ACL_MEMCPY_DEVICE_TO_HOST)
            self.assertEqual(k("device", "device", mode), C.ACL_MEMCPY_DEVICE_TO_DEVICE)
            self.assertEqual(k("pinned", "pageable", mode), C.ACL_MEMCPY_HOST_TO_HOST)
        else:
            self.assertEqual(k("device", "pinned", mode), C.ACL_MEMCPY_DEVICE_TO_DEVICE)
            self.assertEqual(k("pinned", "device", mode), C.ACL_MEMCPY_DEVICE_TO_DEVICE)
            self.assertEqual(k("pageable", "pageable", mode), C.ACL_MEMCPY_HOST_TO_HOST)
        # The copies below use that table (acl._native), and the simulator
        # refuses a kind that contradicts where the memory lies (107016).
        try:
            with aclrt.Runtime() as rt, rt.device(0) as dev, dev.context() as ctx:
                self.assertEqual(dev.run_mode, mode)
                src = np.arange(16, dtype=np.int32)
                d = ctx.alloc(64)
                ctx.copy(d, src)  # numpy → device
                out = bytearray(64)
                ctx.copy(out, d)  # device → bytearray
                self.assertEqual(bytes(out), src.tobytes())
                ctx.copy(d, b"\x01" * 64)  # bytes → device
                pinned = ctx.pinned(64)
                ctx.copy(pinned, d)
                self.assertEqual(pinned.tobytes(), b"\x01" * 64)
        finally:
            pass

    def test_wrong_copies_raise_clearly(self):
        import numpy as np

        with aclrt.Runtime() as rt, rt.device(0) as dev, dev.context() as ctx, ctx.stream() as s:
            d = ctx.alloc(64)
            with self.assertRaises(AclUsageError):
                s.copy(d, np.zeros(16, np.float32))  # async from pageable memory
            with self.assertRaises(AclUsageError):
                ctx.copy(b"immutable" * 8, d)  # into bytes
            with self.assertRaises(ValueError):
                ctx.copy(d, np.zeros(32, np.float32))  # 128 bytes into 64
            with self.assertRaises(AclUsageError):
                ctx.copy(np.zeros(32, np.float32)[::2], d)  # not contiguous
            ro = np.zeros(16, np.float32)
            ro.flags.writeable = False
            with self.assertRaises(AclUsageError):
                ctx.copy(ro, d)
            with self.assertRaises(TypeError):
                ctx.copy(d, "text")
            # Touching a buffer while queued work uses it.
            host = ctx.pinned(64)
            s.copy(d, host)
            with self.assertRaises(AclUsageError):
                host.close()
            with self.assertRaises(AclUsageError):
                ctx.copy(host, d)
            s.synchronize()
            host.close()
            with self.assertRaises(ValueError):
                ctx.alloc(0)
            with self.assertRaises(AclError) as cm:
                ctx.alloc(1 << 60)
            self.assertEqual(cm.exception.function, "acl.rt.malloc")

    def test_buffers_of_another_device(self):
        with aclrt.Runtime() as rt:
            if rt.device_count < 2:
                self.skipTest("one device")
            with rt.device(0) as d0, rt.device(1) as d1:
                c0, c1 = d0.context(), d1.context()
                b0 = c0.alloc(64)
                with c1.stream() as s1:
                    with self.assertRaises(AclUsageError):
                        s1.memset(b0, 0)
                    e0 = c0.event()
                    with self.assertRaises(AclUsageError):
                        s1.record(e0)

    def test_host_buffer_write_and_tobytes(self):
        with aclrt.Runtime() as rt, rt.device(0) as dev, dev.context() as ctx:
            h = ctx.pinned(16)
            h.write(b"abcd", offset=4)
            self.assertEqual(h.tobytes(8), b"\0\0\0\0abcd")
            with self.assertRaises(ValueError):
                h.write(b"x" * 20)


class EventsAndCallbacks(Base):
    def test_end_minus_start_is_milliseconds(self):
        import os

        os.environ["ACLRT_SIM_TASK_DELAY"] = "10ms"
        try:
            with aclrt.Runtime() as rt, rt.device(0) as dev, dev.context() as ctx, ctx.stream() as s:
                start, end = ctx.event(), ctx.event()
                d = ctx.alloc(64)
                s.record(start)
                for _ in range(3):
                    s.memset(d, 0)
                s.record(end)
                end.synchronize()
                self.assertTrue(end.query())
                ms = end - start
                self.assertIsInstance(ms, float)
                self.assertGreaterEqual(ms, 25.0)  # three 10 ms tasks
                self.assertLess(ms, 5000.0)
                notime = ctx.event(timing=False)
                s.record(notime)
                with self.assertRaises(AclUsageError):
                    _ = end - notime
                never = ctx.event()
                with self.assertRaises(AclUsageError):
                    _ = end - never
                with self.assertRaises(AclUsageError):
                    s.wait(never)
        finally:
            del os.environ["ACLRT_SIM_TASK_DELAY"]

    def test_stream_wait_event_orders_two_streams(self):
        with aclrt.Runtime() as rt, rt.device(0) as dev, dev.context() as ctx:
            with ctx.stream() as a, ctx.stream() as b:
                d = ctx.alloc(1 << 16)
                h = ctx.pinned(1 << 16)
                ev = ctx.event()
                a.memset(d, 7)
                a.record(ev)
                b.wait(ev)
                b.copy(h, d)
                b.synchronize()
                self.assertEqual(h.tobytes(4), b"\x07" * 4)
                a.synchronize()

    def test_add_callback_runs_in_order_and_reports_exceptions(self):
        with aclrt.Runtime() as rt, rt.device(0) as dev, dev.context() as ctx, ctx.stream() as s:
            seen = []
            d = ctx.alloc(64)
            s.memset(d, 1)
            s.add_callback(seen.append, "first")
            s.add_callback(lambda: seen.append(threading.current_thread().name))
            s.synchronize()
            self.assertEqual(seen, ["first", "aclrt callbacks"])

            def boom():
                raise KeyError("in callback")

            s.add_callback(boom)
            s.add_callback(seen.append, "after")
            with self.assertRaises(CallbackError) as cm:
                s.synchronize()
            self.assertIsInstance(cm.exception.__cause__, KeyError)
            self.assertEqual(seen[-1], "after")
            s.synchronize()  # reported once
            with self.assertRaises(TypeError):
                s.add_callback(42)

    def test_waiting_for_the_stream_inside_its_callback_raises_instead_of_deadlocking(self):
        with aclrt.Runtime() as rt, rt.device(0) as dev, dev.context() as ctx, ctx.stream() as s:
            s.add_callback(s.synchronize)
            s.add_callback(ctx.synchronize)
            with self.assertRaises(CallbackError) as cm:
                s.synchronize()
            self.assertIsInstance(cm.exception.__cause__, AclUsageError)
            self.assertIn("deadlock", str(cm.exception.__cause__))

    def test_default_stream_callbacks(self):
        with aclrt.Runtime() as rt, rt.device(0) as dev:
            seen = []
            dev.default_context.default_stream.add_callback(seen.append, 1)
            dev.default_context.default_stream.synchronize()
            self.assertEqual(seen, [1])


if __name__ == "__main__":
    unittest.main()
