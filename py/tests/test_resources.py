"""The runtime's newer resources: pyACL's `acl.rt` functions (device
information, stream attributes, notifies, IPC memory and events, virtual
memory, value tasks) and the Pythonic layer's `device.info`, notifies and
IPC buffers (two real processes), attacked."""

import os
import subprocess
import sys
import threading
import time
import unittest

import acl
import aclrt
from aclrt import AclError, AclUsageError
from support import AclCase, H2D, D2H, needs_numpy, run_mode

ATTR_AICORE, ATTR_TOTAL_MEM, ATTR_NPU_ARCH = 101, 301, 601
EVENT_IPC = 0x40
LOC_DEVICE, HBM_HUGE = 1, 4
ACCESS_RW = 0x3
WAIT_GEQ = 0


def soc():
    return os.environ.get("ACLRT_SIM_SOC", "910b")


class PyaclDevice(AclCase):
    def test_device_information_follows_the_conventions(self):
        v, ret = acl.rt.get_device_info(0, ATTR_AICORE)
        self.assertEqual(ret, 0)
        self.assertIsInstance(v, int)
        self.assertEqual(v, 24 if soc() == "910b" else 8)
        total, ret = acl.rt.get_device_info(0, ATTR_TOTAL_MEM)
        self.assertEqual(ret, 0)
        self.assertGreater(total, 0)
        # an unknown attribute and an unknown device: ret only, never an exception
        self.assertEqual(acl.rt.get_device_info(0, 12345), (0, 107000))
        self.assertNotEqual(acl.rt.get_device_info(99, ATTR_AICORE)[1], 0)
        status, ret = acl.rt.query_device_status(0)
        self.assertEqual((status, ret), (0, 0))
        rates, ret = acl.rt.get_device_utilization_rate(0)
        self.assertEqual(ret, 0)
        self.assertEqual(
            sorted(rates),
            ["aicpu_utilization", "cube_utilization", "memory_utilization", "vector_utilization"],
        )
        self.assertEqual(rates["memory_utilization"], -1)
        cap, ret = acl.rt.get_device_capability(0, 1)
        self.assertEqual(ret, 0)
        self.assertIn(cap, (0, 1))
        self.assertEqual(acl.rt.device_get_bare_tgid(), (os.getpid(), 0))

    def test_resource_limits_and_saturation_mode(self):
        cube, ret = acl.rt.get_device_res_limit(0, 0)
        self.assertEqual(ret, 0)
        self.assertGreater(cube, 0)
        self.assertEqual(acl.rt.set_device_res_limit(0, 0, 1), 0)
        self.assertEqual(acl.rt.get_device_res_limit(0, 0), (1, 0))
        self.assertEqual(acl.rt.set_device_res_limit(0, 0, cube + 1000), 107000)
        self.assertEqual(acl.rt.reset_device_res_limit(0), 0)
        self.assertEqual(acl.rt.get_device_res_limit(0, 0), (cube, 0))
        mode, ret = acl.rt.get_device_sat_mode()
        self.assertEqual(ret, 0)
        self.assertEqual(mode, 1 if soc() == "910b" else 0)
        self.assertEqual(acl.rt.set_device_sat_mode(mode), 0)
        self.assertEqual(acl.rt.set_device_sat_mode(7), 107000)

    def test_stream_attributes(self):
        s, ret = acl.rt.create_stream_with_config(3, 1)
        self.assertEqual(ret, 0)
        self.cleanups.append((acl.rt.destroy_stream, (s,)))
        sid, ret = acl.rt.stream_get_id(s)
        self.assertEqual(ret, 0)
        self.assertNotEqual(sid, acl.rt.stream_get_id(self.stream)[0])
        self.assertEqual(acl.rt.stream_get_priority(s), (3, 0))
        flags, ret = acl.rt.stream_get_flags(s)
        self.assertEqual(ret, 0)
        self.assertEqual(flags & 1, 1)
        self.assertEqual(acl.rt.stream_get_id(0xDEAD0)[1], 107017)

    def test_bad_arguments_raise_pyacls_parse_error(self):
        for name, args in (
            ("get_device_info", ("0", 101)),
            ("get_device_info", (0,)),
            ("record_notify", (1,)),
            ("ipc_mem_set_import_pid", ("k", [1, "x"])),
            ("ipc_mem_set_import_pid", (b"k", [1])),
            ("ipc_mem_import_by_key", ("a\0b", 0)),
            ("ipc_open_event_handle", (b"x" * 65,)),
            ("malloc_physical", (2 << 20, {"nope": 1}, 0)),
            ("mem_set_access", (0, 0, [(1, 2)])),
            ("value_write", (0, 1, 0)),
        ):
            with self.subTest(name=name, args=args):
                with self.assertRaisesRegex(TypeError, f"acl.rt.{name} args parse failed"):
                    getattr(acl.rt, name)(*args)
        with self.assertRaisesRegex(TypeError, "args parse failed"):
            acl.rt.get_device_info(device_id=0, attr=101)


class PyaclNotify(AclCase):
    def test_a_notify_orders_two_streams(self):
        n, ret = acl.rt.create_notify(0)
        self.assertEqual(ret, 0)
        self.assertGreater(n, 0)
        nid, ret = acl.rt.get_notify_id(n)
        self.assertEqual(ret, 0)
        s2, ret = acl.rt.create_stream()
        self.assertEqual(ret, 0)
        dev, ret = acl.rt.malloc(64, 0)
        self.assertEqual(ret, 0)
        host, ret = acl.rt.malloc_host(64)
        self.assertEqual(ret, 0)
        self.assertEqual(acl.rt.memset_async(dev, 64, 9, 64, self.stream), 0)
        self.assertEqual(acl.rt.record_notify(n, self.stream), 0)
        self.assertEqual(acl.rt.wait_and_reset_notify(n, s2, 0), 0)
        self.assertEqual(acl.rt.memcpy_async(host, 64, dev, 64, D2H, s2), 0)
        self.assertEqual(acl.rt.synchronize_stream(s2), 0)
        self.assertEqual(acl.util.ptr_to_bytes(host, 64), b"\x09" * 64)
        key, ret = acl.rt.notify_get_export_key(n, 128, 0)
        self.assertEqual(ret, 0)
        self.assertIsInstance(key, str)
        self.assertEqual(acl.rt.notify_set_import_pid(n, [os.getpid()]), 0)
        m, ret = acl.rt.notify_import_by_key(key, 0)
        self.assertEqual(ret, 0)
        self.assertNotEqual(m, n)
        self.assertEqual(acl.rt.notify_import_by_key("no-such-key", 0), (0, 107000))
        for h in (m, n):
            self.assertEqual(acl.rt.destroy_notify(h), 0)
        self.assertEqual(acl.rt.destroy_notify(n), 107017)  # destroyed: refused, no crash
        self.assertEqual(acl.rt.record_notify(n, self.stream), 107017)
        self.assertEqual(acl.rt.destroy_stream(s2), 0)
        self.assertEqual(acl.rt.free(dev), 0)
        self.assertEqual(acl.rt.free_host(host), 0)


class PyaclIpcAndVmm(AclCase):
    def test_ipc_memory_in_one_process(self):
        dev, ret = acl.rt.malloc(4096, 0)
        self.assertEqual(ret, 0)
        key, ret = acl.rt.ipc_mem_get_export_key(dev, 4096, 65, 0)
        self.assertEqual(ret, 0)
        self.assertTrue(key)
        self.assertEqual(acl.rt.ipc_mem_set_import_pid(key, [os.getpid()]), 0)
        self.assertEqual(acl.rt.ipc_mem_get_export_key(dev, 4096, 0, 0), ("", 107000))
        self.assertEqual(acl.rt.mem_get_address_range(dev)[1:], (4096, 0))
        self.assertEqual(acl.rt.ipc_mem_close(key), 0)
        self.assertEqual(acl.rt.ipc_mem_import_by_key(key, 0)[1], 107000)
        self.assertEqual(acl.rt.free(dev), 0)

    def test_ipc_event_handles(self):
        e, ret = acl.rt.create_event_ex_with_flag(EVENT_IPC)
        if soc() == "310p":
            self.assertEqual((e, ret), (0, 207000))  # the chip has no IPC events
            return
        self.assertEqual(ret, 0)
        handle, ret = acl.rt.ipc_get_event_handle(e)
        self.assertEqual(ret, 0)
        self.assertIsInstance(handle, bytes)
        self.assertEqual(len(handle), 64)
        opened, ret = acl.rt.ipc_open_event_handle(handle)
        self.assertEqual(ret, 0)
        self.assertNotEqual(opened, 0)
        self.assertEqual(acl.rt.record_event(e, self.stream), 0)
        self.assertEqual(acl.rt.stream_wait_event(0, opened), 0)
        self.assertEqual(acl.rt.synchronize_device(), 0)
        self.assertEqual(acl.rt.destroy_event(opened), 0)
        plain, ret = acl.rt.create_event()
        self.assertEqual(acl.rt.ipc_get_event_handle(plain)[1], 107000)
        self.assertEqual(acl.rt.destroy_event(plain), 0)
        self.assertEqual(acl.rt.destroy_event(e), 0)

    def test_virtual_memory_maps_physical_memory(self):
        prop = {"location_id": 0, "location_type": LOC_DEVICE, "mem_attr": HBM_HUGE}
        gran, ret = acl.rt.mem_get_allocation_granularity(prop, 0)
        self.assertEqual((gran, ret), (2 << 20, 0))
        va, ret = acl.rt.reserve_mem_address(2 * gran, 0, 0, 0)
        self.assertEqual(ret, 0)
        ph, ret = acl.rt.malloc_physical(gran, prop, 0)
        self.assertEqual(ret, 0)
        self.assertEqual(acl.rt.malloc_physical(gran + 1, prop, 0)[1], 107000)
        self.assertEqual(acl.rt.map_mem(va, gran, 0, ph, 0), 0)
        self.assertEqual(acl.rt.mem_set_access(va, gran, [(ACCESS_RW, 0, LOC_DEVICE)]), 0)
        src = bytes(range(256)) * 16
        self.assertEqual(acl.rt.memcpy(va, gran, acl.util.bytes_to_ptr(src), len(src), H2D), 0)
        out = bytes(len(src))
        self.assertEqual(acl.rt.memcpy(acl.util.bytes_to_ptr(out), len(out), va, len(src), D2H), 0)
        self.assertEqual(out, src)
        # the order the runtime needs: unmap, then free and release
        self.assertEqual(acl.rt.free_physical(ph), 107000)  # still mapped
        self.assertEqual(acl.rt.release_mem_address(va), 107000)  # mappings left
        self.assertEqual(acl.rt.unmap_mem(va), 0)
        self.assertEqual(acl.rt.free_physical(ph), 0)
        self.assertEqual(acl.rt.release_mem_address(va), 0)

    def test_value_write_and_wait(self):
        dev, ret = acl.rt.malloc(64, 0)
        self.assertEqual(ret, 0)
        self.assertEqual(acl.rt.memset(dev, 64, 0, 64), 0)
        s2, ret = acl.rt.create_stream()
        self.assertEqual(ret, 0)
        ret = acl.rt.value_wait(dev, 5, WAIT_GEQ, s2)
        if soc() == "310p":
            self.assertEqual(ret, 207000)
        else:
            self.assertEqual(ret, 0)
            self.assertEqual(acl.rt.value_write(dev, 5, 0, self.stream), 0)
            self.assertEqual(acl.rt.synchronize_stream(s2), 0)
            out = bytes(8)
            self.assertEqual(acl.rt.memcpy(acl.util.bytes_to_ptr(out), 8, dev, 8, D2H), 0)
            self.assertEqual(int.from_bytes(out, "little"), 5)
        self.assertEqual(acl.rt.synchronize_stream(self.stream), 0)
        self.assertEqual(acl.rt.destroy_stream(s2), 0)
        self.assertEqual(acl.rt.free(dev), 0)


class PyaclExceptionCallback(AclCase):
    def test_a_failed_task_is_reported_to_the_callback(self):
        got, raised = [], []

        def cb(info):
            got.append((dict(info), threading.get_ident()))
            raise RuntimeError("in the callback")  # printed, never propagated

        self.cleanups.append((acl.rt.set_exception_info_callback, (None,)))
        self.assertEqual(acl.rt.set_exception_info_callback(cb), 0)
        n, ret = acl.rt.create_notify(0)
        self.assertEqual(ret, 0)
        old_hook = sys.unraisablehook
        sys.unraisablehook = lambda u: raised.append(u.exc_value)
        try:
            # a wait no record satisfies, with a 1 s limit: the stream's task fails
            self.assertEqual(acl.rt.wait_and_reset_notify(n, self.stream, 1), 0)
            self.assertEqual(acl.rt.synchronize_stream(self.stream), 107020)
        finally:
            sys.unraisablehook = old_hook
        self.assertEqual(len(got), 1)
        info, thread = got[0]
        self.assertEqual(info["device_id"], 0)
        self.assertEqual(info["error_code"], 107020)
        self.assertEqual(info["stream_id"], acl.rt.stream_get_id(self.stream)[0])
        self.assertNotEqual(thread, threading.get_ident())  # the runtime's thread
        self.assertEqual([str(e) for e in raised], ["in the callback"])
        # removed: a later failure reaches nobody
        self.assertEqual(acl.rt.set_exception_info_callback(None), 0)
        s2, ret = acl.rt.create_stream()
        self.assertEqual(ret, 0)
        self.assertEqual(acl.rt.wait_and_reset_notify(n, s2, 1), 0)
        self.assertEqual(acl.rt.synchronize_stream(s2), 107020)
        self.assertEqual(len(got), 1)
        self.assertEqual(acl.rt.destroy_stream(s2), 0)
        self.assertEqual(acl.rt.destroy_notify(n), 0)
        with self.assertRaisesRegex(TypeError, "parameter must be callable"):
            acl.rt.set_exception_info_callback(5)
        with self.assertRaisesRegex(TypeError, "args parse failed"):
            acl.rt.set_exception_info_callback()


class Base(unittest.TestCase):
    def tearDown(self):
        acl.finalize()


class PythonicDeviceInfo(Base):
    def test_device_info(self):
        with aclrt.Runtime() as rt, rt.device(0) as dev:
            info = dev.info
            self.assertIsInstance(info, aclrt.DeviceInfo)
            self.assertEqual(info.id, 0)
            self.assertEqual(info.aicore_cores, 24 if soc() == "910b" else 8)
            self.assertGreater(info.total_memory, 0)
            self.assertTrue(info.healthy)
            self.assertIn(info.overflow_mode, ("saturation", "inf_nan"))
            self.assertIsNone(info.utilization.memory)
            with self.assertRaises(Exception):
                info.id = 1  # frozen
        with self.assertRaises(AclUsageError):
            dev.info  # noqa: B018 - a closed device


@needs_numpy
class PythonicNotify(Base):
    def test_notify_between_streams(self):
        import numpy as np

        with aclrt.Runtime() as rt, rt.device(0) as dev, dev.context() as ctx:
            s1, s2 = ctx.stream(), ctx.stream()
            buf, host = ctx.alloc(256), ctx.pinned(256)
            with ctx.notify() as n:
                self.assertIsInstance(n.id, int)
                for value in (3, 4):
                    s1.memset(buf, value)
                    n.record(s1)
                    n.wait(s2)
                    s2.copy(host, buf)
                    s2.synchronize()
                    self.assertTrue((host.numpy() == value).all())
                self.assertEqual(n.wait(s2, timeout=5), n)
                n.record(s1)
                s2.synchronize()
            self.assertTrue(n.closed)
            with self.assertRaises(AclUsageError):
                n.record(s1)
            with self.assertRaises(AclUsageError):
                n.id  # noqa: B018
            np.testing.assert_array_equal(host.numpy(), 4)

    def test_misuse(self):
        with aclrt.Runtime() as rt, rt.device(0) as dev:
            with dev.context() as c1, dev.context() as c2:
                n = c1.notify()
                s_other = c2.stream()
                with self.assertRaises(AclUsageError):
                    n.record(s_other)
                with self.assertRaises(TypeError):
                    n.record(n.handle)
                with self.assertRaises(TypeError):
                    n.wait("stream")
                with self.assertRaises(ValueError):
                    n.wait(c1.stream(), timeout=-1)
                with self.assertRaises(AclUsageError):
                    c1.close()  # live children (the notify)
                with self.assertRaises(TypeError):
                    import pickle

                    pickle.dumps(n)
            self.assertTrue(n.closed)  # released with its context

    def test_a_notify_used_from_threads_while_closed(self):
        with aclrt.Runtime() as rt, rt.device(0) as dev, dev.context() as ctx:
            s1, s2 = ctx.stream(), ctx.stream()
            n = ctx.notify()
            errors, stop = [], threading.Event()

            def use():
                while not stop.is_set():
                    try:  # records never block (waits could: a flag, not a count)
                        n.record(s1)
                        n.id  # noqa: B018
                    except AclUsageError:
                        return
                    except BaseException as e:  # noqa: BLE001
                        errors.append(e)
                        return

            threads = [threading.Thread(target=use) for _ in range(4)]
            for t in threads:
                t.start()
            time.sleep(0.05)
            refused = 0
            for _ in range(20):  # close while uses are in flight: refused or done, never torn
                try:
                    n.close()
                    break
                except AclUsageError:
                    refused += 1
                    time.sleep(0.001)
            stop.set()
            for t in threads:
                t.join(30)
            n.close()  # done now (a no-op if it was already)
            self.assertEqual(errors, [])
            self.assertTrue(n.closed)
            s1.synchronize()
            s2.synchronize()


_CHILD = r"""
import sys, aclrt
key, nbytes, value = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
with aclrt.Runtime() as rt, rt.device(0) as dev, dev.context() as ctx:
    try:
        buf = ctx.ipc_import(key)
    except aclrt.AclError as e:
        print("refused", e.code)
        sys.exit(0)
    with buf:
        assert buf.nbytes == nbytes, (buf.nbytes, nbytes)
        assert isinstance(buf, aclrt.IpcBuffer)
        data = buf.to_numpy()
        print("read", int(data.min()), int(data.max()))
        buf.fill(value)  # written through to the exporter's memory
        try:
            buf.ipc_export(any_process=True)
        except TypeError:
            print("no re-export")
    assert buf.closed
    try:
        buf.to_numpy()
    except aclrt.AclUsageError:
        print("closed")
"""


@needs_numpy
class PythonicIpc(Base):
    def _child(self, nbytes, value, key=None):
        """A second interpreter running _CHILD; the key comes on argv, or
        (``key=None``) on stdin, so that it can be exported to the child's
        pid first."""
        env = dict(os.environ)
        env["ACLRT_SIM_RUN_MODE"] = "device" if run_mode() == 0 else "host"
        code = _CHILD
        if key is None:
            code = "import sys\nsys.argv[1] = sys.stdin.readline().strip()\n" + code
        return subprocess.Popen(
            [sys.executable, "-c", code, key or "-", str(nbytes), str(value)],
            env=env, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
            text=True,
        )

    def test_a_buffer_shared_with_another_process(self):
        with aclrt.Runtime() as rt, rt.device(0) as dev, dev.context() as ctx:
            buf = ctx.alloc(8192)
            buf.fill(0x11)
            p = self._child(buf.nbytes, 0x22)
            with buf.ipc_export([p.pid]) as exp:
                self.assertIsInstance(exp.key, str)
                self.assertEqual(exp.pids, (p.pid,))
                out, err = p.communicate(exp.key + "\n", timeout=120)
                self.assertEqual(p.returncode, 0, err)
                self.assertIn("read 17 17", out)
                self.assertIn("no re-export", out)
                self.assertIn("closed", out)
                # the child's writes are in this process's memory
                self.assertTrue((buf.to_numpy() == 0x22).all())
                with self.assertRaises(AclUsageError):
                    buf.close()  # exported: refused
            self.assertTrue(exp.closed)
            buf.close()
            self.assertTrue(buf.closed)

    def test_a_process_not_on_the_list_is_refused(self):
        with aclrt.Runtime() as rt, rt.device(0) as dev, dev.context() as ctx:
            buf = ctx.alloc(4096)
            with buf.ipc_export([os.getpid()]) as exp:
                p = self._child(4096, 1, key=exp.key)
                out, err = p.communicate("", timeout=120)
                self.assertEqual(p.returncode, 0, err)
                self.assertIn("refused 207006", out)  # not on the allow-list
                self.assertNotIn("read", out)

    def test_export_and_import_misuse(self):
        with aclrt.Runtime() as rt, rt.device(0) as dev, dev.context() as ctx:
            buf = ctx.alloc(4096)
            with self.assertRaises(AclUsageError):
                buf.ipc_export()  # no pid and not any_process
            for bad in (["1"], [True], [-5], [2**40]):
                with self.subTest(bad=bad):
                    with self.assertRaises((TypeError, ValueError)):
                        buf.ipc_export(bad)
            with self.assertRaises(TypeError):
                aclrt.IpcExport(ctx.pinned(64), [os.getpid()])
            with self.assertRaises(TypeError):
                ctx.ipc_import(b"key")
            with self.assertRaises(AclError) as cm:
                ctx.ipc_import("no-such-key")
            self.assertEqual(cm.exception.code, 107000)
            self.assertEqual([c for c in ctx._children if isinstance(c, aclrt.IpcBuffer)], [])
            exp = buf.ipc_export([os.getpid()])
            imp = ctx.ipc_import(exp.key)  # this process is on the list
            self.assertEqual(imp.nbytes, 4096)
            with self.assertRaises(TypeError):
                imp.ipc_export(any_process=True)  # not owned: no re-export
            host = ctx.pinned(4096)
            with ctx.stream() as s:
                s.copy(host, imp)
                with self.assertRaises(AclUsageError):
                    imp.close()  # queued work uses it: refused, not closed under it
                s.synchronize()
            imp.close()
            imp.close()  # idempotent
            with self.assertRaises(AclUsageError):
                imp.fill(0)
            with self.assertRaises(AclUsageError):
                ctx.copy(ctx.pinned(16), imp, 16)
            # leaving the context's block closes the export before the buffer
        self.assertTrue(exp.closed and buf.closed)

    def test_an_import_left_open_is_closed_with_its_context(self):
        with aclrt.Runtime() as rt, rt.device(0) as dev, dev.context() as ctx:
            buf = ctx.alloc(4096)
            exp = buf.ipc_export(any_process=True)
            imp = ctx.ipc_import(exp.key)
            calls = []
            orig = acl.rt.ipc_mem_close

            def spy(key):
                calls.append(key)
                return orig(key)

            acl.rt.ipc_mem_close = spy  # restored below; the with-exit runs with it
        acl.rt.ipc_mem_close = orig
        self.assertTrue(imp.closed and exp.closed and buf.closed)
        self.assertEqual(calls, [exp.key])  # the export's close (the import's is in Rust)

    @unittest.skipUnless(hasattr(os, "fork"), "no fork on this platform")
    def test_a_forked_child_cannot_import_or_notify(self):
        with aclrt.Runtime() as rt, rt.device(0) as dev, dev.context() as ctx:
            buf = ctx.alloc(4096)
            exp = buf.ipc_export(any_process=True)
            r, w = os.pipe()
            pid = os.fork()
            if pid == 0:
                os.close(r)
                out = []
                for name, call in (
                    ("import", lambda: ctx.ipc_import(exp.key)),
                    ("notify", ctx.notify),
                    ("info", lambda: dev.info),
                    ("raw", lambda: acl.rt.create_notify(0)),
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
            _, status = os.waitpid(pid, 0)
            report = os.read(r, 65536).decode()
            os.close(r)
            self.assertEqual(os.waitstatus_to_exitcode(status), 0)
            self.assertEqual(
                report.splitlines(),
                ["import: True", "notify: True", "info: True", "raw: True"],
            )
            exp.close()  # the parent is unaffected


if __name__ == "__main__":
    unittest.main()
