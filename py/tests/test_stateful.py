"""A stateful property test of the Pythonic layer (hypothesis): allocate,
copy and memset (synchronous and on a stream), view, close, synchronise,
record and query events in random order, each step on the main thread or a
worker thread, and close streams and events while the worker uses them;
with exceptions in flight (the last view of a buffer whose release was
deferred dies while an exception propagates), events recorded again from
another thread or a signal handler while they are waited for, and forks
(the child must get the documented RuntimeError); every result is checked
against a numpy model, every refusal against the model's idea of which
buffers are busy, viewed or released, and nothing may crash or hang. Sized
to keep the suite fast (a few seconds)."""

import gc
import os
import signal
import threading
import time
import unittest
from concurrent.futures import ThreadPoolExecutor

import acl
import aclrt
from aclrt import AclUsageError
from support import ACL_HOST, HAVE_NUMPY, run_mode

try:
    from hypothesis import HealthCheck, settings
    from hypothesis import strategies as st
    from hypothesis.stateful import Bundle, RuleBasedStateMachine, consumes, invariant, rule

    HAVE_HYPOTHESIS = True
except ImportError:
    HAVE_HYPOTHESIS = False

if HAVE_NUMPY:
    import numpy as np

SIZES = (16, 64, 256)

if HAVE_HYPOTHESIS and HAVE_NUMPY:

    class Layer(RuleBasedStateMachine):
        buffers = Bundle("buffers")

        def __init__(self):
            super().__init__()
            self.pool = ThreadPoolExecutor(1)
            self.rt = aclrt.Runtime()
            self.ctx = self.rt.device(0).context()
            self.stream = self.ctx.stream()
            self.model = {}  # buffer -> its expected contents (uint8)
            self.last_use = {}  # buffer -> sequence number of its last queued use
            self.seq = 0
            self.events = []  # (event, the sequence number it covers)
            self.views = {}  # buffer -> live numpy views
            self.closed = set()

        def on(self, thread, fn, *args):
            return self.pool.submit(fn, *args).result() if thread else fn(*args)

        def busy(self, b):
            return b in self.last_use

        def settle(self, upto=None):
            for b, seq in list(self.last_use.items()):
                if upto is None or seq <= upto:
                    del self.last_use[b]

        @rule(target=buffers, host=st.booleans(), n=st.sampled_from(SIZES),
              fill=st.integers(0, 255), thread=st.booleans())
        def allocate(self, host, n, fill, thread):
            b = self.on(thread, self.ctx.pinned if host else self.ctx.alloc, n)
            data = np.full(n, fill, np.uint8)
            self.on(thread, self.ctx.copy, b, data)
            self.model[b] = data
            return b

        def refused(self, *bufs, synchronous=True):
            if any(b in self.closed for b in bufs):
                return True
            return synchronous and any(self.busy(b) for b in bufs)

        @rule(dst=buffers, src=buffers, thread=st.booleans(), data=st.data())
        def copy(self, dst, src, thread, data):
            n = data.draw(st.integers(0, min(dst.nbytes, src.nbytes)))
            if self.refused(dst, src):
                with self.assertRaises(AclUsageError):
                    self.on(thread, self.ctx.copy, dst, src, n)
                return
            self.on(thread, self.ctx.copy, dst, src, n)
            self.model[dst] = self.model[dst].copy()
            self.model[dst][:n] = self.model[src][:n]

        @rule(dst=buffers, src=buffers, thread=st.booleans())
        def copy_async(self, dst, src, thread):
            n = min(dst.nbytes, src.nbytes)
            host_to_host = (isinstance(dst, aclrt.HostBuffer) and isinstance(src, aclrt.HostBuffer)
                            and run_mode() == ACL_HOST)
            if host_to_host or self.refused(dst, src, synchronous=False):
                with self.assertRaises(AclUsageError):
                    self.on(thread, self.stream.copy, dst, src, n)
                return
            self.on(thread, self.stream.copy, dst, src, n)
            self.seq += 1
            self.last_use[dst] = self.last_use[src] = self.seq
            self.model[dst] = self.model[dst].copy()
            self.model[dst][:n] = self.model[src][:n]

        @rule(b=buffers, value=st.integers(0, 255), on_stream=st.booleans(), thread=st.booleans())
        def memset(self, b, value, on_stream, thread):
            if on_stream:
                fn = self.stream.memset
            elif isinstance(b, aclrt.DeviceBuffer):
                fn = lambda b_, v: b_.fill(v)  # noqa: E731
            else:
                return
            if self.refused(b, synchronous=not on_stream):
                with self.assertRaises(AclUsageError):
                    self.on(thread, fn, b, value)
                return
            self.on(thread, fn, b, value)
            if on_stream:
                self.seq += 1
                self.last_use[b] = self.seq
            self.model[b] = np.full(b.nbytes, value, np.uint8)

        @rule(b=buffers, value=st.integers(0, 255), keep=st.booleans(), thread=st.booleans())
        def view(self, b, value, keep, thread):
            if not isinstance(b, aclrt.HostBuffer):
                return
            if self.refused(b):
                with self.assertRaises(AclUsageError):
                    self.on(thread, b.numpy)
                return
            v = self.on(thread, b.numpy)
            np.testing.assert_array_equal(v, self.model[b])
            v[::3] = value
            self.model[b] = v.copy()
            if keep:
                self.views.setdefault(b, []).append(v)

        @rule()
        def drop_views(self):
            self.views.clear()
            gc.collect()

        @rule(b=consumes(buffers), thread=st.booleans())
        def close(self, b, thread):
            if b in self.closed:
                self.on(thread, b.close)  # closing twice is a no-op
                return
            if self.busy(b) or self.views.get(b):
                with self.assertRaises(AclUsageError):
                    self.on(thread, b.close)
                return
            self.on(thread, b.close)
            self.closed.add(b)
            assert b.closed

        @rule(thread=st.booleans())
        def synchronize(self, thread):
            self.on(thread, self.stream.synchronize)
            self.settle()

        @rule(thread=st.booleans())
        def record(self, thread):
            ev = self.on(thread, self.ctx.event)
            self.on(thread, self.stream.record, ev)
            self.events.append((ev, self.seq))

        @rule(data=st.data(), wait=st.booleans(), thread=st.booleans())
        def wait_event(self, data, wait, thread):
            if not self.events:
                return
            ev, seq = data.draw(st.sampled_from(self.events))
            if wait:
                self.on(thread, ev.synchronize)
                self.settle(seq)
            elif self.on(thread, ev.query):
                self.settle(seq)

        @rule(kind=st.sampled_from(["stream", "event"]), use=st.integers(0, 2))
        def close_racing_a_use(self, kind, use):
            """A close on this thread racing a use on the worker: success or
            AclUsageError each (never an AclError: a destroyed handle reaching
            the runtime), never both refused."""
            tmp = self.ctx.event()
            if kind == "stream":
                obj = self.ctx.stream()
                fn = (obj.synchronize, lambda: obj.add_callback(int), lambda: obj.record(tmp))[use]
            else:
                obj = self.stream.record(self.ctx.event())
                fn = (obj.synchronize, obj.query, lambda: self.stream.wait(obj))[use]

            def attempt(f):
                try:
                    f()
                    return True
                except AclUsageError:
                    return False

            fut = self.pool.submit(attempt, fn)
            closed = attempt(obj.close)
            used = fut.result()
            assert closed or used
            if not closed:
                if kind == "stream":
                    obj.synchronize()
                obj.close()
            assert obj.closed
            tmp.close()

        def queueable(self, dst, src):
            host_to_host = (isinstance(dst, aclrt.HostBuffer) and isinstance(src, aclrt.HostBuffer)
                            and run_mode() == ACL_HOST)
            return not host_to_host and not self.refused(dst, src, synchronous=False)

        def queued_copy(self, dst, src):
            """The model of a stream copy the layer accepted."""
            n = min(dst.nbytes, src.nbytes)
            self.seq += 1
            self.last_use[dst] = self.last_use[src] = self.seq
            self.model[dst] = self.model[dst].copy()
            self.model[dst][:n] = self.model[src][:n]

        def consistent_unless_busy(self, *bufs):
            """A buffer the layer no longer calls busy holds what the model
            says (its queued work is done): a settlement never runs ahead of
            the work. Then a full synchronisation brings model and layer
            together again."""
            for b in bufs:
                if b not in self.closed and not b._busy:
                    np.testing.assert_array_equal(b.to_numpy(), self.model[b])
            self.stream.synchronize()
            self.settle()

        @rule(b=consumes(buffers), thread=st.booleans())
        def last_view_dies_with_an_exception_in_flight(self, b, thread):
            """A with-block ends while a view lives (the release is deferred);
            the view is the argument of a call whose other argument raises,
            so it dies while the exception propagates."""
            if not isinstance(b, aclrt.HostBuffer) or b in self.closed or self.refused(b):
                return
            if self.views.get(b):
                return

            def scenario():
                def view():
                    with b:  # its end defers the release to the last view
                        return b.numpy()

                def combine(v, _n):
                    return v

                try:
                    combine(view(), int("not a number"))
                except ValueError:
                    return True
                return False

            assert self.on(thread, scenario)
            self.closed.add(b)
            assert b.closed and b._exports == 0

        @rule(dst=buffers, src=buffers, thread=st.booleans())
        def rerecord_from_another_thread(self, dst, src, thread):
            """An event is waited for while another thread queues a copy and
            records the event again."""
            if not self.queueable(dst, src):
                return
            ev = self.ctx.event()
            self.stream.record(ev)

            n = min(dst.nbytes, src.nbytes)

            def other():
                self.stream.copy(dst, src, n)
                self.stream.record(ev)

            fut = self.pool.submit(other)
            (ev.synchronize if thread else ev.query)()
            fut.result()
            self.queued_copy(dst, src)
            self.consistent_unless_busy(dst, src)
            ev.close()

        @rule(dst=buffers, src=buffers)
        def rerecord_from_a_signal_handler(self, dst, src):
            """As above, from a signal handler that interrupts the waits."""
            if not self.queueable(dst, src) or threading.current_thread() is not threading.main_thread():
                return
            if not hasattr(signal, "setitimer"):
                return
            ev = self.ctx.event()
            self.stream.record(ev)
            fired = []
            n = min(dst.nbytes, src.nbytes)

            def handler(_sig, _frame):
                if not fired:
                    fired.append(1)
                    self.stream.copy(dst, src, n)
                    self.stream.record(ev)

            old = signal.signal(signal.SIGALRM, handler)
            try:
                signal.setitimer(signal.ITIMER_REAL, 0.0005)
                deadline = time.monotonic() + 5
                while not fired and time.monotonic() < deadline:
                    ev.synchronize()
                    ev.query()
            finally:
                signal.setitimer(signal.ITIMER_REAL, 0)
                signal.signal(signal.SIGALRM, old)
            if fired:
                self.queued_copy(dst, src)
            self.consistent_unless_busy(dst, src)
            ev.close()

        @rule(b=buffers, what=st.sampled_from(["close", "synchronize", "numpy", "copy"]))
        def fork_child_refuses(self, b, what):
            """A forked child (the worker thread alive in the parent) gets
            the documented RuntimeError from any runtime use, never a hang."""
            if not hasattr(os, "fork"):
                return
            fn = {
                "close": b.close,
                "synchronize": self.stream.synchronize,
                "numpy": lambda: b.to_numpy(),
                "copy": lambda: self.ctx.copy(b, bytes(b.nbytes)),
            }[what]
            pid = os.fork()
            if pid == 0:  # the child: never returns into the test
                released = b in self.closed
                code = 3
                try:
                    fn()
                    if released and what == "close":
                        code = 0  # closing a released buffer again: nothing to do
                except AclUsageError:
                    code = 0 if released else 5  # used after its release
                except RuntimeError as e:
                    code = 0 if "forked child" in str(e) else 4
                except BaseException:  # noqa: BLE001 - reported by the exit code
                    code = 6
                os._exit(code)
            deadline = time.monotonic() + 20
            while True:
                done, status = os.waitpid(pid, os.WNOHANG)
                if done:
                    break
                if time.monotonic() > deadline:
                    os.kill(pid, signal.SIGKILL)
                    os.waitpid(pid, 0)
                    raise AssertionError(f"the forked child hung in {what}")
                time.sleep(0.001)
            assert os.waitstatus_to_exitcode(status) == 0, (what, status)

        @invariant()
        def contents_match_the_model(self):
            for b, expected in self.model.items():
                if b in self.closed or self.busy(b):
                    continue
                np.testing.assert_array_equal(b.to_numpy(), expected)

        def teardown(self):
            self.views.clear()
            gc.collect()
            self.rt.__exit__(None, None, None)
            self.pool.shutdown()
            # Everything was released: the runtime can start again.
            assert acl.init() == 0
            assert acl.finalize() == 0

        def assertRaises(self, exc):
            return unittest.TestCase().assertRaises(exc)

    Layer.TestCase.settings = settings(
        max_examples=int(__import__("os").environ.get("ACLRT_PY_STATEFUL_EXAMPLES", "12")),
        stateful_step_count=20,
        deadline=None,
        suppress_health_check=list(HealthCheck),
    )

    class TestLayer(Layer.TestCase):
        pass

else:

    @unittest.skip("hypothesis and numpy are needed (pip install hypothesis numpy)")
    class TestLayer(unittest.TestCase):
        def test_skipped(self):
            pass


if __name__ == "__main__":
    unittest.main()
