"""A stream's callbacks served by a thread the program owns
(`stream.serve()` over pyACL's `subscribe_report` / `process_report` /
`unsubscribe_report` / `launch_callback`), attacked: the GIL, callbacks
that raise, waits of the serving thread, another thread, the collector,
fork, interpreter exit, and both host-function-thread settings of the
simulator."""

import gc
import os
import threading
import time
import unittest

import acl
import aclrt
from aclrt import AclUsageError, CallbackError
from support import run_mode, run_python


class Base(unittest.TestCase):
    def tearDown(self):
        acl.finalize()


def _mode():
    return "device" if run_mode() == 0 else "host"


class Serving(Base):
    def test_callbacks_run_on_the_serving_thread(self):
        with aclrt.Runtime() as rt, rt.device(0) as dev, dev.context() as ctx, ctx.stream() as s:
            ran = []
            with s.serve() as server:
                self.assertTrue(server.serving)
                self.assertEqual(server.thread, threading.get_ident())
                s.add_callback(lambda x: ran.append((x, threading.get_ident())), 1)
                s.add_callback(lambda x: ran.append((x, threading.get_ident())), 2)
                got = 0
                deadline = time.monotonic() + 30
                while got < 2 and time.monotonic() < deadline:
                    got += server.process(1.0)
                self.assertEqual(got, 2)
                self.assertFalse(server.process(0.02))  # nothing due: a timeout
            self.assertFalse(server.serving)
            me = threading.get_ident()
            self.assertEqual(ran, [(1, me), (2, me)])
            s.synchronize()
            with self.assertRaisesRegex(AclUsageError, "after its with-block"):
                server.process(0.01)
            with self.assertRaisesRegex(AclUsageError, "entered once"):
                server.__enter__()

    def test_the_end_of_the_block_runs_the_callbacks_still_queued(self):
        with aclrt.Runtime() as rt, rt.device(0) as dev, dev.context() as ctx, ctx.stream() as s:
            ran = []
            with s.serve():
                for i in range(3):
                    s.add_callback(ran.append, i)
            self.assertEqual(ran, [0, 1, 2])
            # afterwards the context's own callback thread serves the stream
            s.add_callback(ran.append, 3)
            s.synchronize()
            self.assertEqual(ran, [0, 1, 2, 3])

    def test_an_exception_in_a_callback_is_raised_by_process(self):
        with aclrt.Runtime() as rt, rt.device(0) as dev, dev.context() as ctx, ctx.stream() as s:
            def boom():
                raise KeyError("from the callback")

            with s.serve() as server:
                s.add_callback(boom)
                with self.assertRaises(CallbackError) as cm:
                    while not server.process(1.0):
                        pass
                self.assertIsInstance(cm.exception.__cause__, KeyError)
                s.add_callback(lambda: None)
                self.assertTrue(server.process(5.0))  # serving goes on
            with self.assertRaises(CallbackError):
                with s.serve():
                    s.add_callback(boom)  # run by the end of the block
            s.synchronize()

    def test_bad_arguments_and_no_second_owner(self):
        with aclrt.Runtime() as rt, rt.device(0) as dev, dev.context() as ctx, ctx.stream() as s:
            with s.serve() as server:
                for bad in (0, -1, float("nan")):
                    with self.assertRaises(ValueError):
                        server.process(bad)
                for bad in ("1", True):
                    with self.assertRaises(TypeError):
                        server.process(bad)
            with self.assertRaises(TypeError):
                aclrt.Server(ctx)
            import copy
            import pickle

            for attempt in (lambda: pickle.dumps(s.serve()), lambda: copy.copy(s.serve())):
                with self.assertRaises(TypeError):
                    attempt()



class Refusals(Base):
    def test_waits_of_the_serving_thread_raise_instead_of_hanging(self):
        with aclrt.Runtime() as rt, rt.device(0) as dev, dev.context() as ctx, ctx.stream() as s:
            ev = ctx.event()
            with s.serve() as server:
                gate = threading.Event()
                s.add_callback(gate.set)
                s.record(ev)
                for wait in (s.synchronize, ctx.synchronize, dev.synchronize, ev.synchronize):
                    with self.assertRaisesRegex(AclUsageError, "serves"):
                        wait()
                while not gate.is_set():
                    server.process(1.0)
                deadline = time.monotonic() + 30
                while not ev.query() and time.monotonic() < deadline:
                    server.process(0.01)  # the record after the callback
                ev.synchronize()  # its work is done: allowed
            s.synchronize()

    def test_the_stream_cannot_be_released_while_served(self):
        with aclrt.Runtime() as rt, rt.device(0) as dev, dev.context() as ctx:
            s = ctx.stream()
            with s.serve():
                with self.assertRaisesRegex(AclUsageError, "in flight"):
                    s.close()
                self.assertFalse(s.closed)
            s.close()
            self.assertTrue(s.closed)
            with self.assertRaises(AclUsageError):
                s.serve()

    def test_one_thread_serves_a_stream(self):
        with aclrt.Runtime() as rt, rt.device(0) as dev, dev.context() as ctx, ctx.stream() as s:
            s.add_callback(lambda: None)  # the context's callback thread serves it now
            s.synchronize()
            with self.assertRaisesRegex(AclUsageError, "served by another thread"):
                with s.serve():
                    pass
            s2 = ctx.stream()
            with s2.serve():
                errors = []

                def other():
                    try:
                        with s2.serve():
                            pass
                    except AclUsageError as e:
                        errors.append(str(e))

                t = threading.Thread(target=other)
                t.start()
                t.join(30)
                self.assertEqual(len(errors), 1)
            s2.close()

    def test_only_the_serving_thread_processes_or_ends_the_block(self):
        with aclrt.Runtime() as rt, rt.device(0) as dev, dev.context() as ctx, ctx.stream() as s:
            with s.serve() as server:
                errors = []

                def other():
                    for call in (lambda: server.process(0.01), lambda: server.__exit__(None, None, None)):
                        try:
                            call()
                        except AclUsageError as e:
                            errors.append(str(e))

                t = threading.Thread(target=other)
                t.start()
                t.join(30)
                self.assertEqual(len(errors), 2)
                self.assertIn("thread that entered it", errors[0])
                self.assertTrue(server.serving)

    def test_one_server_entered_from_two_threads_at_once(self):
        with aclrt.Runtime() as rt, rt.device(0) as dev, dev.context() as ctx, ctx.stream() as s:
            server = s.serve()
            barrier = threading.Barrier(2)
            outcome = []

            def enter():
                barrier.wait()
                try:
                    server.__enter__()
                    outcome.append(("in", threading.get_ident()))
                except AclUsageError as e:
                    outcome.append(("refused", str(e)))

            ts = [threading.Thread(target=enter) for _ in range(2)]
            for t in ts:
                t.start()
            for t in ts:
                t.join(30)
            kinds = sorted(k for k, _ in outcome)
            self.assertEqual(kinds, ["in", "refused"])
            winner = next(v for k, v in outcome if k == "in")
            self.assertEqual(server.thread, winner)
            # the winner's thread is gone without ending the block: the
            # collector's unsubscription frees the stream
            del server
            gc.collect()
            s.add_callback(lambda: None)
            s.synchronize()

    def test_process_from_inside_a_callback_is_refused(self):
        with aclrt.Runtime() as rt, rt.device(0) as dev, dev.context() as ctx, ctx.stream() as s:
            with s.serve() as server:
                s.add_callback(server.process, 0.01)
                with self.assertRaises(CallbackError) as cm:
                    while not server.process(1.0):
                        pass
                self.assertIn("inside a callback", str(cm.exception.__cause__))


class Threads(Base):
    def test_a_worker_thread_serves_while_the_main_thread_waits(self):
        # The main thread blocks in synchronize() (GIL released) while the
        # worker runs the callbacks (each taking the GIL): no deadlock.
        with aclrt.Runtime() as rt, rt.device(0) as dev, dev.context() as ctx, ctx.stream() as s:
            ready, stop = threading.Event(), threading.Event()
            ran, errors = [], []

            def serve():
                try:
                    with s.serve() as server:
                        ready.set()
                        while not stop.is_set():
                            server.process(0.05)
                except BaseException as e:  # noqa: BLE001
                    errors.append(e)

            t = threading.Thread(target=serve)
            t.start()
            self.assertTrue(ready.wait(30))
            for i in range(20):
                s.add_callback(lambda i=i: ran.append((i, threading.get_ident())))
            s.synchronize()
            self.assertEqual([i for i, _ in ran], list(range(20)))
            self.assertEqual({tid for _, tid in ran}, {t.ident})
            stop.set()
            t.join(30)
            self.assertFalse(t.is_alive())
            self.assertEqual(errors, [])

    def test_a_collected_server_unsubscribes(self):
        with aclrt.Runtime() as rt, rt.device(0) as dev, dev.context() as ctx:
            s = ctx.stream()

            def served():
                with s.serve() as server:
                    yield server

            g = served()
            next(g)  # inside the block; the generator is then abandoned
            del g
            gc.collect()
            server = aclrt.Server(s)
            server.__enter__()  # a block never ended
            self.assertTrue(aclrt._core._native._serving(s._h))
            holder = [server]
            del server
            t = threading.Thread(target=holder.clear)  # collected on another thread
            t.start()
            t.join(30)
            gc.collect()
            # this thread no longer counts as serving it: its waits go on
            self.assertFalse(aclrt._core._native._serving(s._h))
            s.add_callback(lambda: None)
            s.synchronize()
            s.close()  # neither holds the stream any more
            self.assertTrue(s.closed)


@unittest.skipUnless(hasattr(os, "fork"), "no fork on this platform")
class Fork(Base):
    def test_a_forked_child_cannot_process_and_leaves_quietly(self):
        with aclrt.Runtime() as rt, rt.device(0) as dev, dev.context() as ctx, ctx.stream() as s:
            with s.serve() as server:
                rd, wr = os.pipe()
                pid = os.fork()
                if pid == 0:
                    os.close(rd)
                    out = []
                    try:
                        server.process(0.01)
                        out.append("process: no error")
                    except RuntimeError as e:
                        out.append(f"process: {'forked child' in str(e)}")
                    try:
                        server.__exit__(None, None, None)
                        out.append("exit: ok")
                    except BaseException as e:  # noqa: BLE001
                        out.append(f"exit: {type(e).__name__}")
                    os.write(wr, "\n".join(out).encode())
                    os._exit(0)
                os.close(wr)
                _, status = os.waitpid(pid, 0)
                report = os.read(rd, 65536).decode()
                os.close(rd)
                self.assertEqual(os.waitstatus_to_exitcode(status), 0)
                self.assertEqual(report.splitlines(), ["process: True", "exit: ok"])
                s.add_callback(lambda: None)
                self.assertTrue(server.process(5.0))  # the parent still serves


_EXIT = """
import sys, threading, time, aclrt
rt = aclrt.Runtime(); dev = rt.device(0); ctx = dev.context(); s = ctx.stream()
how = sys.argv[1]
ran = []
if how == "daemon":
    ready = threading.Event()
    def serve():
        with s.serve() as server:
            ready.set()
            while True:
                server.process(None)  # blocked (GIL released) when the script ends
    threading.Thread(target=serve, daemon=True).start()
    ready.wait(30)
    s.add_callback(ran.append, 1)
    time.sleep(0.2)
    print("served", ran, flush=True)
elif how == "inside":
    with s.serve() as server:
        s.add_callback(ran.append, 1)
        print("exiting inside the block", flush=True)
        sys.exit(5)
"""


class Exit(Base):
    def test_the_interpreter_exits_with_a_thread_serving(self):
        p = run_python(_EXIT, _mode(), timeout=60, args=("daemon",))
        self.assertEqual(p.returncode, 0, p.stderr)
        self.assertIn("served [1]", p.stdout)
        self.assertNotIn("Fatal", p.stderr)

    def test_sys_exit_inside_the_block(self):
        p = run_python(_EXIT, _mode(), timeout=60, args=("inside",))
        self.assertEqual(p.returncode, 5, p.stderr)
        self.assertIn("exiting inside the block", p.stdout)
        self.assertNotIn("Traceback", p.stderr)


_SETTINGS = """
import threading, aclrt, acl
with aclrt.Runtime() as rt, rt.device(0) as dev, dev.context() as ctx, ctx.stream() as s:
    ran = []
    with s.serve() as server:
        s.add_callback(ran.append, threading.get_ident())
        while not server.process(1.0):
            pass
    print("served", ran == [threading.get_ident()])
    # the host-function-thread calls have no pyACL wrapper:
    print("no host-func wrappers", not any("host_func" in n for n in dir(acl.rt)))
"""


class HostFuncThreadSettings(Base):
    def test_report_serving_works_with_both_settings(self):
        # ACLRT_SIM_HOST_FUNC_THREADS decides the answer of
        # aclrtSubscribeHostFunc and its companions (207000 with `chip`, served
        # with `compact`); pyACL wraps none of them, and the report
        # subscription that stream.serve() uses is served with both.
        for setting in ("chip", "compact"):
            p = run_python(_SETTINGS, _mode(), env={"ACLRT_SIM_HOST_FUNC_THREADS": setting}, timeout=60)
            self.assertEqual(p.returncode, 0, p.stderr)
            self.assertIn("served True", p.stdout, setting)
            self.assertIn("no host-func wrappers True", p.stdout, setting)


if __name__ == "__main__":
    unittest.main()
