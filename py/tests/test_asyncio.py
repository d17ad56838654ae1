"""Awaiting the NPU from asyncio (both run modes: the suite runs once per
ACLRT_SIM_RUN_MODE): awaited synchronisations of streams and events and
awaited copies back to numpy, the event loop free meanwhile, many tasks on
one device, faults failing only their own await, and cancellation leaving
no buffer freed under queued work."""

import asyncio
import threading
import time
import unittest

import aclrt
from aclrt import AclUsageError, CallbackError
from support import HAVE_NUMPY, needs_numpy

if HAVE_NUMPY:
    import numpy as np


def run(coro):
    return asyncio.run(asyncio.wait_for(coro, 60))


class Awaited(unittest.TestCase):
    def setUp(self):
        self.rt = aclrt.Runtime()
        self.dev = self.rt.device(0)
        self.ctx = self.dev.context()

    def tearDown(self):
        self.rt.__exit__(None, None, None)

    def gated(self, stream):
        """A callback that holds ``stream`` until the returned event is set."""
        gate = threading.Event()
        stream.add_callback(gate.wait, 30)
        return gate

    def test_synchronize_async_settles_the_buffers(self):
        s, d, h = self.ctx.stream(), self.ctx.alloc(4096), self.ctx.pinned(4096)
        h.write(bytes(range(256)) * 16)
        s.copy(d, h)
        with self.assertRaises(AclUsageError):
            h.tobytes()  # busy until a synchronisation covers the copy
        run(s.synchronize_async())
        self.assertEqual(h.tobytes(16), bytes(range(16)))
        d.close()  # settled: not busy

    def test_the_loop_runs_while_the_stream_is_held(self):
        s, d, h = self.ctx.stream(), self.ctx.alloc(64), self.ctx.pinned(64)
        gate = self.gated(s)
        s.copy(d, h)
        ticks = []

        async def main():
            waiter = asyncio.ensure_future(s.synchronize_async())
            for i in range(20):
                await asyncio.sleep(0.005)
                ticks.append(i)
                self.assertFalse(waiter.done())
            gate.set()
            await waiter

        run(main())
        self.assertEqual(len(ticks), 20)
        d.close()

    def test_await_event(self):
        s, d, h = self.ctx.stream(), self.ctx.alloc(64), self.ctx.pinned(64)
        e = self.ctx.event()
        s.copy(d, h)
        s.record(e)

        async def main():
            await e
            await e.synchronize_async()

        run(main())
        d.close()  # the event's work is settled
        self.assertTrue(e.query())

    @needs_numpy
    def test_to_numpy_async_round_trip(self):
        s, d = self.ctx.stream(), self.ctx.alloc(4096)
        h = self.ctx.pinned(4096)
        src = np.arange(1024, dtype=np.float32)
        h.write(src)
        s.copy(d, h)
        out = run(s.to_numpy_async(d, np.float32, (32, 32)))
        self.assertEqual(out.shape, (32, 32))
        np.testing.assert_array_equal(out.ravel(), src)
        with self.assertRaises(TypeError):
            run(s.to_numpy_async(d, object))
        with self.assertRaises(AclUsageError):
            run(s.to_numpy_async(b"bytes"))

    @needs_numpy
    def test_many_tasks_share_one_device(self):
        streams = [self.ctx.stream() for _ in range(4)]

        async def one(i):
            s = streams[i % len(streams)]
            with self.ctx.pinned(1024) as h, self.ctx.alloc(1024) as d:
                h.write(np.full(256, i, dtype=np.int32))
                s.copy(d, h)
                out = await s.to_numpy_async(d, np.int32)
            return int(out[0]), int(out[-1])

        async def main():
            return await asyncio.gather(*(one(i) for i in range(64)))

        self.assertEqual(run(main()), [(i, i) for i in range(64)])

    def test_a_fault_fails_only_its_await(self):
        s1, s2 = self.ctx.stream(), self.ctx.stream()
        s1.add_callback(lambda: 1 / 0)
        s2.add_callback(lambda: None)

        async def main():
            return await asyncio.gather(
                s1.synchronize_async(), s2.synchronize_async(), return_exceptions=True
            )

        r1, r2 = run(main())
        self.assertIsInstance(r1, CallbackError)
        self.assertIsInstance(r1.__cause__, ZeroDivisionError)
        self.assertIsNone(r2)
        run(s1.synchronize_async())  # reported once

    def test_cancelled_await_frees_nothing_under_queued_work(self):
        s, d, h = self.ctx.stream(), self.ctx.alloc(64), self.ctx.pinned(64)
        gate = self.gated(s)
        s.copy(d, h)

        async def main():
            t = asyncio.ensure_future(s.synchronize_async())
            await asyncio.sleep(0.02)
            t.cancel()
            with self.assertRaises(asyncio.CancelledError):
                await t

        run(main())
        with self.assertRaises(AclUsageError):
            d.close()  # the copy is still queued behind the gate
        self.assertTrue(h._busy)
        self.assertEqual(s._h._awaits, 1)  # the cancelled wait goes on
        gate.set()
        deadline = time.monotonic() + 10
        while h._busy and time.monotonic() < deadline:
            time.sleep(0.001)  # the cancelled wait finishes and settles
        self.assertFalse(h._busy)
        d.close()
        s.close()

    def test_close_after_a_cancelled_await_waits_for_the_work(self):
        s, d, h = self.ctx.stream(), self.ctx.alloc(64), self.ctx.pinned(64)
        gate = self.gated(s)
        s.copy(d, h)

        async def main():
            t = asyncio.ensure_future(s.synchronize_async())
            await asyncio.sleep(0.02)
            t.cancel()

        run(main())
        threading.Timer(0.05, gate.set).start()
        s.close()  # synchronises (as a close does), then the wait ends
        self.assertEqual(s._h._awaits, 0)
        self.assertFalse(h._busy)
        d.close()

    @needs_numpy
    def test_cancelled_copy_back_releases_its_staging_later(self):
        s, d = self.ctx.stream(), self.ctx.alloc(4096)
        gate = self.gated(s)

        async def main():
            t = asyncio.ensure_future(s.to_numpy_async(d))
            await asyncio.sleep(0.02)
            t.cancel()
            with self.assertRaises(asyncio.CancelledError):
                await t

        run(main())
        staging = [c for c in self.ctx._children if isinstance(c, aclrt.HostBuffer)]
        self.assertEqual(len(staging), 1)
        self.assertFalse(staging[0].closed)  # still written by the queued copy
        gate.set()
        deadline = time.monotonic() + 10
        while not staging[0].closed and time.monotonic() < deadline:
            time.sleep(0.001)
        self.assertTrue(staging[0].closed)

    def test_with_block_of_a_stream_after_a_cancelled_await(self):
        d = self.ctx.alloc(64)
        h = self.ctx.pinned(64)
        with self.ctx.stream() as s:
            gate = self.gated(s)
            s.copy(d, h)

            async def main():
                t = asyncio.ensure_future(s.synchronize_async())
                await asyncio.sleep(0.01)
                t.cancel()

            run(main())
            threading.Timer(0.05, gate.set).start()
        # The block's end synchronised, waited for the cancelled wait, and
        # released the stream.
        self.assertTrue(s.closed)
        d.close()

    def test_awaited_wait_after_release_or_outside_a_loop(self):
        s = self.ctx.stream()
        s.close()
        with self.assertRaises(AclUsageError):
            run(s.synchronize_async())
        coro = self.ctx.stream().synchronize_async()
        with self.assertRaises(RuntimeError):  # no running event loop
            coro.send(None)
        coro.close()


if __name__ == "__main__":
    unittest.main()
