"""Notify export/import and IPC events in the Pythonic layer
(`notify.export`, `ctx.import_notify`, `ctx.ipc_event`, `ctx.ipc_open_event`),
attacked.

The simulator shares notify keys and IPC event handles between processes
(through shared files, as IPC memory): the paths are tested within one
process, and a real second process imports both below."""

import gc
import os
import threading
import unittest

import acl
import aclrt
from aclrt import AclError, AclUsageError
from support import needs_numpy, run_mode, run_python


def soc():
    return os.environ.get("ACLRT_SIM_SOC", "910b")


def _mode():
    return "device" if run_mode() == 0 else "host"


class Base(unittest.TestCase):
    def tearDown(self):
        acl.finalize()


@needs_numpy
class NotifyExport(Base):
    def test_an_imported_notify_orders_two_streams(self):
        with aclrt.Runtime() as rt, rt.device(0) as dev, dev.context() as ctx:
            s1, s2 = ctx.stream(), ctx.stream()
            buf, host = ctx.alloc(256), ctx.pinned(256)
            n = ctx.notify()
            key = n.export([os.getpid()])
            self.assertIsInstance(key, str)
            self.assertFalse(n.imported)
            with ctx.import_notify(key) as m:
                self.assertTrue(m.imported)
                self.assertIsInstance(m.id, int)
                for value in (5, 6):
                    s1.memset(buf, value)
                    n.record(s1)  # set through the exporter's handle
                    m.wait(s2)  # waited through the import
                    s2.copy(host, buf)
                    s2.synchronize()
                    self.assertTrue((host.numpy() == value).all())
                m.record(s2)  # and the other way round
                n.wait(s1)
                s1.synchronize()
            self.assertTrue(m.closed)
            n.close()

    def test_export_and_import_misuse(self):
        with aclrt.Runtime() as rt, rt.device(0) as dev, dev.context() as ctx:
            n = ctx.notify()
            with self.assertRaisesRegex(AclUsageError, "pids"):
                n.export()
            for bad, err in ((["1"], TypeError), ([True], TypeError), ([0], ValueError), ([-3], ValueError)):
                with self.assertRaises(err):
                    n.export(bad)
            key = n.export(any_process=True)
            for bad in (None, 5, key.encode()):
                with self.assertRaises(TypeError):
                    ctx.import_notify(bad)
            with self.assertRaises(AclError) as cm:
                ctx.import_notify("no such key")
            self.assertEqual(cm.exception.code, 107000)
            n.close()
            with self.assertRaises(AclUsageError):
                n.export(any_process=True)  # used after release
            with self.assertRaises(AclError):
                ctx.import_notify(key)  # its notify is gone: the key names nothing

    def test_the_exporter_may_go_first_and_imports_close_with_their_context(self):
        with aclrt.Runtime() as rt, rt.device(0) as dev:
            with dev.context() as ctx:
                n = ctx.notify()
                m = ctx.import_notify(n.export(any_process=True))
                n.close()  # the import is a notify of its own
                s = ctx.stream()
                m.record(s)
                m.wait(s)
                s.synchronize()
                del m
                gc.collect()  # the context keeps the import until it is released
                self.assertEqual(len([c for c in ctx._children if isinstance(c, aclrt.Notify)]), 1)
            self.assertTrue(ctx.closed)

    def test_an_import_is_refused_once_its_context_is_released(self):
        with aclrt.Runtime() as rt, rt.device(0) as dev:
            with dev.context() as c1:
                key = c1.notify().export(any_process=True)
                c2 = dev.context()
                c2.close()
                with self.assertRaises(AclUsageError):
                    c2.import_notify(key)

    def test_exports_and_imports_from_threads(self):
        # Each thread its own notify (one notify is one flag: records from
        # several threads would coalesce), exported on the main thread's
        # context and imported, recorded and waited on the worker's.
        with aclrt.Runtime() as rt, rt.device(0) as dev, dev.context() as ctx:
            got, errors = [], []

            def worker():
                try:
                    n = ctx.notify()
                    m = ctx.import_notify(n.export(any_process=True))
                    s1, s2 = ctx.stream(), ctx.stream()
                    n.record(s1)
                    m.wait(s2)
                    s2.synchronize()
                    s1.synchronize()
                    got.append(m)
                except BaseException as e:  # noqa: BLE001
                    errors.append(e)

            ts = [threading.Thread(target=worker) for _ in range(4)]
            for t in ts:
                t.start()
            for t in ts:
                t.join(60)
            self.assertEqual(errors, [])
            self.assertEqual(len(got), 4)


class IpcEvents(Base):
    def test_an_opened_ipc_event_orders_streams(self):
        with aclrt.Runtime() as rt, rt.device(0) as dev, dev.context() as ctx:
            if soc() == "310p":
                with self.assertRaises(AclError) as cm:
                    ctx.ipc_event()
                self.assertEqual(cm.exception.code, 207000)  # the chip has no IPC events
                return
            s1, s2 = ctx.stream(), ctx.stream()
            ev = ctx.ipc_event()
            self.assertIsInstance(ev, aclrt.Event)
            handle = ev.ipc_handle
            self.assertIsInstance(handle, bytes)
            self.assertEqual(len(handle), 64)
            opened = ctx.ipc_open_event(handle)
            self.assertTrue(opened.recorded)
            dst = ctx.alloc(4096)
            s1.memset(dst, 0x33)
            s1.record(ev)
            s2.wait(opened)
            host = ctx.pinned(4096)
            s2.copy(host, dst)  # ordered after s1's memset by the opened event
            s2.synchronize()
            opened.synchronize()
            self.assertTrue(opened.query())
            self.assertEqual(set(host.tobytes()), {0x33})
            s1.synchronize()
            with self.assertRaisesRegex(AclUsageError, "timing=False"):
                ev.elapsed_since(ev)
            opened.close()
            ev.close()
            with self.assertRaises(AclUsageError):
                ev.ipc_handle  # noqa: B018 - used after release
            for bad in (None, "x" * 64):
                with self.assertRaises(TypeError):
                    ctx.ipc_open_event(bad)
            with self.assertRaises(AclError):
                ctx.ipc_open_event(b"\0" * 64)
            plain = ctx.event()
            self.assertFalse(hasattr(plain, "ipc_handle"))

    def test_opened_events_close_with_their_context_in_order(self):
        if soc() == "310p":
            self.skipTest("no IPC events on this chip")
        with aclrt.Runtime() as rt, rt.device(0) as dev:
            with dev.context() as ctx:
                ev = ctx.ipc_event()
                opened = ctx.ipc_open_event(ev.ipc_handle)
                s = ctx.stream()
                s.record(ev)
                s.wait(opened)
            self.assertTrue(ev.closed and opened.closed and s.closed)


_CHILD = """
import sys, aclrt
key, handle = sys.argv[1], bytes.fromhex(sys.argv[2])
with aclrt.Runtime() as rt, rt.device(0) as dev, dev.context() as ctx:
    for name, f in (("notify", lambda: ctx.import_notify(key)),
                    ("event", lambda: ctx.ipc_open_event(handle))):
        try:
            f()
            print(name, "imported")
        except aclrt.AclError as e:
            print(name, e.code)
"""


class AnotherProcess(Base):
    def test_another_process_imports_them(self):
        with aclrt.Runtime() as rt, rt.device(0) as dev, dev.context() as ctx:
            key = ctx.notify().export(any_process=True)
            handle = ctx.ipc_event().ipc_handle if soc() != "310p" else b"\0" * 64
            p = run_python(_CHILD, _mode(), env={"ACLRT_SIM_REPORT": "none"}, timeout=60,
                           args=(key, handle.hex()))
            self.assertEqual(p.returncode, 0, p.stderr)
            self.assertIn("notify imported", p.stdout)
            if soc() != "310p":
                self.assertIn("event imported", p.stdout)


_EXIT = """
import sys, aclrt
rt = aclrt.Runtime(); dev = rt.device(0); ctx = dev.context()
n = ctx.notify()
m = ctx.import_notify(n.export(any_process=True))
s = ctx.stream()
n.record(s)
m.wait(s)
if sys.argv[1] == "910b":
    ev = ctx.ipc_event()
    opened = ctx.ipc_open_event(ev.ipc_handle)
    s.record(ev)
    s.wait(opened)
del n  # the context keeps it
print("exiting", flush=True)
sys.exit(6)
"""


class Exit(Base):
    def test_a_process_may_exit_with_imports_and_opened_events_alive(self):
        p = run_python(_EXIT, _mode(), timeout=60, args=(soc(),))
        self.assertEqual(p.returncode, 6, p.stderr)
        self.assertIn("exiting", p.stdout)
        self.assertNotIn("Traceback", p.stderr)


@unittest.skipUnless(hasattr(os, "fork"), "no fork on this platform")
class Fork(Base):
    def test_a_forked_child_cannot_export_or_import(self):
        with aclrt.Runtime() as rt, rt.device(0) as dev, dev.context() as ctx:
            n = ctx.notify()
            key = n.export(any_process=True)
            rd, wr = os.pipe()
            pid = os.fork()
            if pid == 0:
                os.close(rd)
                out = []
                for name, call in (
                    ("export", lambda: n.export(any_process=True)),
                    ("import", lambda: ctx.import_notify(key)),
                    ("event", ctx.ipc_event),
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
            self.assertEqual(report.splitlines(), ["export: True", "import: True", "event: True"])
            ctx.import_notify(key).close()  # the parent is unaffected


if __name__ == "__main__":
    unittest.main()
