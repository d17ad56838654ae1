"""Threads and the GIL (pyacl-facts.md §1 "GIL", issue 26 item 2)."""

import threading
import time
import unittest

import acl
from support import CALLBACK_BLOCK, CALLBACK_NO_BLOCK, AclCase, run_python


class GilRelease(AclCase):
    # Every queued task takes 20 ms on the simulated device.
    env = {"ACLRT_SIM_TASK_DELAY": "20ms"}

    def _queue(self, n, stream=None):
        dev = self.malloc(64)
        for _ in range(n):
            self.assertEqual(acl.rt.memset_async(dev, 64, 1, 64, self.stream if stream is None else stream), 0)
        self._queued_at = time.monotonic()

    def _progress_while(self, blocking_call):
        """How often another Python thread ran while `blocking_call` blocked."""
        count = [0]
        stop = threading.Event()

        def spin():
            while not stop.is_set():
                count[0] += 1
                time.sleep(0.001)

        t = threading.Thread(target=spin)
        t.start()
        time.sleep(0.01)
        before = count[0]
        t0 = time.monotonic()
        self._called_at = t0
        ret = blocking_call()
        waited = time.monotonic() - t0
        during = count[0] - before
        stop.set()
        t.join()
        return ret, waited, during

    def test_synchronize_stream_releases_the_gil(self):
        self._queue(10)
        ret, waited, during = self._progress_while(lambda: acl.rt.synchronize_stream(self.stream))
        self.assertEqual(ret, 0)
        if waited <= 0.1:  # it really blocked (10 tasks x 20 ms)
            self.fail(self._why_so_short(waited))
        # The other thread kept running: with the GIL held it could not have.
        self.assertGreaterEqual(during, 3)  # any progress proves the GIL was released; a margin for a loaded machine

    def _why_so_short(self, waited, stream=None):
        """The failure message of a wait that returned too soon: how long the
        calling thread took from the last queued task to the call (a thread
        descheduled for longer than the queued work lets the work finish
        first), and whether the stream's work was done just after it returned
        (not done: the call did not wait for it)."""
        status, ret = acl.rt.stream_query(self.stream if stream is None else stream)
        return (f"returned after {waited:.6f} s; {self._called_at - self._queued_at:.3f} s passed "
                f"between the last queued task and the call; stream_query just after: "
                f"status {status} (0: complete), ret {ret}")

    def test_the_other_blocking_calls_release_it(self):
        for name, call in (
            ("synchronize_stream_with_timeout", lambda: acl.rt.synchronize_stream_with_timeout(self.stream, 10000)),
            ("synchronize_device", acl.rt.synchronize_device),
            ("synchronize_device_with_timeout", lambda: acl.rt.synchronize_device_with_timeout(10000)),
        ):
            with self.subTest(name=name):
                # 500 ms of queued work: the call must find it pending even if
                # this thread stalls before it on a loaded machine (8 tasks,
                # 160 ms, once did not: the call rightly returned at once).
                self._queue(25)
                ret, waited, during = self._progress_while(call)
                self.assertEqual(ret, 0)
                if waited <= 0.08:
                    self.fail(self._why_so_short(waited))
                self.assertGreaterEqual(during, 3)
        ev = self.event()
        for name, call in (
            ("synchronize_event", lambda: acl.rt.synchronize_event(ev)),
            ("synchronize_event_with_timeout", lambda: acl.rt.synchronize_event_with_timeout(ev, 10000)),
        ):
            with self.subTest(name=name):
                # 500 ms of queued work: the call must find it pending even if
                # this thread stalls before it on a loaded machine (8 tasks,
                # 160 ms, once did not: the call rightly returned at once).
                self._queue(25)
                self.assertEqual(acl.rt.record_event(ev, self.stream), 0)
                ret, waited, during = self._progress_while(call)
                self.assertEqual(ret, 0)
                if waited <= 0.08:
                    self.fail(self._why_so_short(waited))
                self.assertGreaterEqual(during, 3)
        # process_report on a subscribed thread with nothing to report blocks
        # for its timeout.
        self.assertEqual(acl.rt.subscribe_report(threading.get_ident(), self.stream), 0)
        self.cleanups.append((acl.rt.unsubscribe_report, (threading.get_ident(), self.stream)))
        ret, waited, during = self._progress_while(lambda: acl.rt.process_report(200))
        self.assertNotEqual(ret, 0)  # timeout
        self.assertGreater(waited, 0.15)
        self.assertGreaterEqual(during, 3)  # any progress proves the GIL was released; a margin for a loaded machine

    def test_destroy_stream_waits_without_the_gil(self):
        s, ret = acl.rt.create_stream()
        self.assertEqual(ret, 0)
        self._queue(8, s)
        ret, waited, during = self._progress_while(lambda: acl.rt.destroy_stream(s))
        self.assertEqual(ret, 0)
        self.assertGreaterEqual(during, 3)


class Callbacks(AclCase):
    env = {"ACLRT_SIM_TASK_DELAY": "5ms"}

    def _reporter(self, stop):
        def loop():
            while not stop.is_set():
                acl.rt.process_report(20)

        t = threading.Thread(target=loop)
        t.start()
        return t

    def test_launch_callback_runs_fn_with_the_one_object_on_the_subscribed_thread(self):
        stop = threading.Event()
        t = self._reporter(stop)
        try:
            self.assertEqual(acl.rt.subscribe_report(t.ident, self.stream), 0)
            seen = []
            payload = [1, "two", 3.0]
            self.assertEqual(acl.rt.launch_callback(lambda d: seen.append((d, threading.get_ident())),
                                                    payload, CALLBACK_BLOCK, self.stream), 0)
            self.assertEqual(acl.rt.synchronize_stream(self.stream), 0)
            self.assertEqual(len(seen), 1)
            self.assertIs(seen[0][0], payload)
            self.assertEqual(seen[0][1], t.ident)
            # An exception in fn is swallowed (printed); the stream goes on.
            self.assertEqual(acl.rt.launch_callback(lambda d: 1 / 0, None, CALLBACK_BLOCK, self.stream), 0)
            self.assertEqual(acl.rt.launch_callback(seen.append, "after", CALLBACK_BLOCK, self.stream), 0)
            self.assertEqual(acl.rt.synchronize_stream(self.stream), 0)
            self.assertEqual(seen[-1], "after")
            self.assertEqual(acl.rt.unsubscribe_report(t.ident, self.stream), 0)
        finally:
            stop.set()
            t.join()

    def test_launch_callback_without_subscription_is_a_ret(self):
        s, _ = acl.rt.create_stream()
        self.assertNotEqual(acl.rt.launch_callback(print, None, CALLBACK_BLOCK, s), 0)
        self.assertEqual(acl.rt.destroy_stream(s), 0)

    def test_callback_thread_racing_a_main_thread_blocked_in_synchronize(self):
        # Many callbacks (each needs the GIL) while the main thread sits in
        # synchronize_stream: with the GIL held there, this deadlocks.
        stop = threading.Event()
        t = self._reporter(stop)
        try:
            self.assertEqual(acl.rt.subscribe_report(t.ident, self.stream), 0)
            dev = self.malloc(64)
            hits = []
            for i in range(30):
                self.assertEqual(acl.rt.memset_async(dev, 64, i, 64, self.stream), 0)
                self.assertEqual(acl.rt.launch_callback(hits.append, i,
                                                        CALLBACK_BLOCK if i % 2 else CALLBACK_NO_BLOCK,
                                                        self.stream), 0)
            self.assertEqual(acl.rt.synchronize_stream(self.stream), 0)
            blocking = [i for i in range(30) if i % 2]
            self.assertTrue(set(blocking) <= set(hits))
            self.assertEqual(acl.rt.unsubscribe_report(t.ident, self.stream), 0)
        finally:
            stop.set()
            t.join()

    def test_no_deadlock_in_a_fresh_interpreter(self):
        # The same race under a hard timeout: a deadlock fails instead of hanging.
        code = (
            "import acl, threading\n"
            "acl.init(); acl.rt.set_device(0)\n"
            "ctx, _ = acl.rt.create_context(0); s, _ = acl.rt.create_stream()\n"
            "stop = threading.Event()\n"
            "def loop():\n"
            "    acl.rt.set_context(ctx)\n"
            "    while not stop.is_set(): acl.rt.process_report(10)\n"
            "t = threading.Thread(target=loop); t.start()\n"
            "assert acl.rt.subscribe_report(t.ident, s) == 0\n"
            "hits = []\n"
            "for i in range(200): assert acl.rt.launch_callback(hits.append, i, 1, s) == 0\n"
            "assert acl.rt.synchronize_stream(s) == 0\n"
            "assert hits == list(range(200)), hits\n"
            "acl.rt.unsubscribe_report(t.ident, s); stop.set(); t.join()\n"
            "acl.rt.destroy_stream(s); acl.rt.destroy_context(ctx); acl.rt.reset_device(0)\n"
            "print(acl.finalize())\n"
        )
        for mode in ("host", "device"):
            p = run_python(code, mode, env={"ACLRT_SIM_TASK_DELAY": "1ms"}, timeout=60)
            self.assertEqual(p.returncode, 0, p.stderr)
            self.assertEqual(p.stdout.strip(), "0")


class ProcessExit(unittest.TestCase):
    """A script that ends while daemon threads sit in calls that released the
    GIL, with callbacks still queued, exits normally (CPython < 3.14 would
    end such threads with pthread_exit, which aborts the process when it
    meets an extension's panic trap: see py/src/gil.rs)."""

    SCRIPTS = {
        "process_report": (
            "import acl, threading\n"
            "acl.init(); acl.rt.set_device(0); s, _ = acl.rt.create_stream()\n"
            "def loop():\n"
            "    while True: acl.rt.process_report(5)\n"
            "t = threading.Thread(target=loop, daemon=True); t.start()\n"
            "assert acl.rt.subscribe_report(t.ident, s) == 0\n"
            "d, _ = acl.rt.malloc(64, 0)\n"
            "for i in range(50):\n"
            "    acl.rt.memset_async(d, 64, 1, 64, s)\n"
            "    acl.rt.launch_callback(lambda x: None, i, 1, s)\n"
            "print('exiting')\n"
        ),
        "synchronize": (
            "import acl, threading, time\n"
            "acl.init(); acl.rt.set_device(0)\n"
            "def loop():\n"
            "    while True: acl.rt.synchronize_device_with_timeout(3)\n"
            "for _ in range(3): threading.Thread(target=loop, daemon=True).start()\n"
            "time.sleep(0.02)\n"
            "print('exiting')\n"
        ),
        "start_thread": (
            "import acl, time\n"
            "def f(x):\n"
            "    while True: acl.rt.synchronize_device_with_timeout(2)\n"
            "tid, ret = acl.util.start_thread(f, 0); assert ret == 0\n"
            "time.sleep(0.02)\n"
            "print('exiting')\n"
        ),
    }

    def test_exit_with_threads_blocked_in_the_module(self):
        for name, code in self.SCRIPTS.items():
            for i in range(2):
                with self.subTest(script=name, run=i):
                    p = run_python(code, "host", env={"ACLRT_SIM_TASK_DELAY": "1ms"}, timeout=60)
                    self.assertEqual(p.returncode, 0, p.stderr)
                    self.assertEqual(p.stdout.strip(), "exiting")
                    self.assertNotIn("FATAL", p.stderr)

    def test_pythonic_exit_without_closing_a_stream_with_callbacks(self):
        code = (
            "import aclrt\n"
            "rt = aclrt.Runtime(); dev = rt.device(0); ctx = dev.context(); s = ctx.stream()\n"
            "d = ctx.alloc(64)\n"
            "for i in range(20):\n"
            "    s.memset(d, i); s.add_callback(print, i)\n"
            "print('exiting')\n"
        )
        for _ in range(2):
            p = run_python(code, "host", env={"ACLRT_SIM_TASK_DELAY": "1ms"}, timeout=60)
            self.assertEqual(p.returncode, 0, p.stderr)
            self.assertIn("exiting", p.stdout)


class StartThread(AclCase):
    def test_thread_id_is_the_threads_ident_and_args_are_passed(self):
        seen = []
        tid, ret = acl.util.start_thread(lambda a: seen.append((a, threading.get_ident())), {"k": 1})
        self.assertEqual(ret, 0)
        self.assertEqual(acl.util.stop_thread(tid), 0)
        self.assertEqual(seen, [({"k": 1}, tid)])
        tid, ret = acl.util.start_thread(lambda: seen.append("no args"), None)
        self.assertEqual(acl.util.stop_thread(tid), 0)
        self.assertEqual(seen[-1], "no args")

    def test_stop_thread_raises_when_the_function_raised(self):
        def boom(_):
            raise ValueError("boom")

        tid, ret = acl.util.start_thread(boom, 1)
        self.assertEqual(ret, 0)
        with self.assertRaises(RuntimeError) as cm:
            acl.util.stop_thread(tid)
        self.assertIn("boom", str(cm.exception))
        self.assertEqual(acl.util.stop_thread(tid), 3)  # already joined: ESRCH
        self.assertEqual(acl.util.stop_thread(12345), 3)

    def test_a_thread_stopping_itself_gets_edeadlk(self):
        box = {}
        done = threading.Event()

        def selfstop(_):
            box["ret"] = acl.util.stop_thread(threading.get_ident())
            done.set()

        tid, _ = acl.util.start_thread(selfstop, 0)
        self.assertTrue(done.wait(10))
        self.assertEqual(acl.util.stop_thread(tid), 0)
        self.assertEqual(box["ret"], 35)

    def test_start_thread_ids_serve_subscribe_report(self):
        stop = threading.Event()
        ctx = self.ctx

        def serve():
            acl.rt.set_context(ctx)  # threads from start_thread set it themselves
            while not stop.is_set():
                acl.rt.process_report(20)

        tid, ret = acl.util.start_thread(serve, None)  # None: serve() gets no argument
        self.assertEqual(ret, 0)
        try:
            self.assertEqual(acl.rt.subscribe_report(tid, self.stream), 0)
            seen = []
            self.assertEqual(acl.rt.launch_callback(lambda d: seen.append(threading.get_ident()), None,
                                                    CALLBACK_BLOCK, self.stream), 0)
            self.assertEqual(acl.rt.synchronize_stream(self.stream), 0)
            self.assertEqual(seen, [tid])
            self.assertEqual(acl.rt.unsubscribe_report(tid, self.stream), 0)
        finally:
            stop.set()
            # stop_thread joins with the GIL released: serve() can finish.
            self.assertEqual(acl.util.stop_thread(tid), 0)


if __name__ == "__main__":
    unittest.main()
