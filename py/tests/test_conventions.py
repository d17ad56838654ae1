"""pyACL's conventions for every function of the module (pyacl-facts.md §1):
layout, argument parsing, return shapes, ret on misuse."""

import importlib
import types
import unittest

import acl
import acl.rt
import acl.util
from support import ACL_HOST, D2D, D2H, EVENT_SYNC, EVENT_TIME_LINE, H2D, HUGE_FIRST, AclCase, run_mode, run_python

# Every implemented row: name -> (a valid argument tuple builder or None, arity).
ACL_FUNCS = {
    "init": 0, "finalize": 0, "finalize_reference": 0, "get_recent_err_msg": 0,
    "get_soc_name": 0, "get_version": 0, "app_log": 2,
}
RT_FUNCS = {
    # device
    "set_device": 1, "reset_device": 1, "reset_device_force": 1, "get_device": 0,
    "get_device_count": 0, "get_run_mode": 0, "synchronize_device": 0,
    "synchronize_device_with_timeout": 1,
    # context
    "create_context": 1, "destroy_context": 1, "set_context": 1, "get_context": 0,
    "ctx_get_current_default_stream": 0,
    # stream
    "create_stream": 0, "create_stream_with_config": 2, "destroy_stream": 1,
    "destroy_stream_force": 1, "synchronize_stream": 1, "synchronize_stream_with_timeout": 2,
    "stream_query": 1, "set_stream_failure_mode": 2, "get_stream_available_num": 0,
    # events
    "create_event": 0, "create_event_with_flag": 1, "create_event_ex_with_flag": 1,
    "destroy_event": 1, "record_event": 2, "reset_event": 2, "query_event": 1,
    "query_event_status": 1, "query_event_wait_status": 1, "synchronize_event": 1,
    "synchronize_event_with_timeout": 2, "event_elapsed_time": 2, "stream_wait_event": 2,
    "set_op_wait_timeout": 1, "event_get_timestamp": 1, "get_event_avail_num": 0,
    # memory
    "malloc": 2, "malloc_cached": 2, "malloc_align32": 2, "free": 1, "malloc_host": 1,
    "free_host": 1, "memset": 4, "memset_async": 5, "memcpy": 5, "memcpy_async": 6,
    "get_mem_info": 1, "memcpy2d": 7, "memcpy2d_async": 8,
    # callbacks
    "subscribe_report": 2, "unsubscribe_report": 2, "launch_callback": 4, "process_report": 1,
    # peer access, last error (C exports beyond pyacl-facts.md's 68 rows)
    "device_can_access_peer": 2, "device_enable_peer_access": 2,
    "device_disable_peer_access": 1, "get_last_error": 1, "peek_at_last_error": 1,
}
# The runtime's newer resources (py/src/rt_ext.rs): beyond pyacl-facts.md's rows.
RT_EXT_FUNCS = {
    "get_device_info": 2, "get_device_capability": 2, "query_device_status": 1,
    "get_device_utilization_rate": 1, "get_device_res_limit": 2, "set_device_res_limit": 3,
    "reset_device_res_limit": 1, "set_device_sat_mode": 1, "get_device_sat_mode": 0,
    "device_get_bare_tgid": 0,
    "stream_get_id": 1, "stream_get_flags": 1, "stream_get_priority": 1,
    "create_notify": 1, "destroy_notify": 1, "record_notify": 2, "wait_and_reset_notify": 3,
    "get_notify_id": 1, "notify_get_export_key": 3, "notify_set_import_pid": 2,
    "notify_import_by_key": 2,
    "ipc_mem_get_export_key": 4, "ipc_mem_set_import_pid": 2, "ipc_mem_import_by_key": 2,
    "ipc_mem_close": 1, "mem_get_address_range": 1, "ipc_get_event_handle": 1,
    "ipc_open_event_handle": 1,
    "reserve_mem_address": 4, "release_mem_address": 1, "malloc_physical": 3,
    "free_physical": 1, "map_mem": 5, "unmap_mem": 1, "mem_set_access": 3,
    "mem_get_allocation_granularity": 2,
    "value_write": 4, "value_wait": 4,
    "set_exception_info_callback": 1,
}
# Functions whose first argument is not an int: a key (`str`), a callable.
KEY_FIRST = {"notify_import_by_key", "ipc_mem_set_import_pid", "ipc_mem_import_by_key", "ipc_mem_close",
             "set_exception_info_callback"}
RT_FUNCS.update(RT_EXT_FUNCS)
UTIL_FUNCS = {
    "bytes_to_ptr": 1, "ptr_to_bytes": 2, "numpy_to_ptr": 1, "numpy_contiguous_to_ptr": 1,
    "ptr_to_numpy": 3, "start_thread": 2, "stop_thread": 1,
}


def public(mod):
    return sorted(n for n in dir(mod) if not n.startswith("_"))


class Layout(unittest.TestCase):
    def test_the_69_rows_plus_peer_and_last_error_and_nothing_else(self):
        self.assertEqual(len(ACL_FUNCS) + len(RT_FUNCS) + len(UTIL_FUNCS), 69 + 5 + 39)
        self.assertEqual(len(RT_EXT_FUNCS), 39)
        self.assertEqual(sorted(set(public(acl)) - {"rt", "util"}), sorted(ACL_FUNCS))
        self.assertEqual(public(acl.rt), sorted(RT_FUNCS))
        self.assertEqual(public(acl.util), sorted(UTIL_FUNCS))

    def test_dir_of_util_lists_what_exists(self):
        # Samples branch on it: `if "bytes_to_ptr" in dir(acl.util)`.
        self.assertIn("bytes_to_ptr", dir(acl.util))
        self.assertIn("numpy_to_ptr", dir(acl.util))
        self.assertNotIn("bytes_to_numpy", dir(acl.util))

    def test_import_forms(self):
        self.assertIs(importlib.import_module("acl.rt"), acl.rt)
        self.assertIs(importlib.import_module("acl.util"), acl.util)
        self.assertIsInstance(acl.rt, types.ModuleType)
        from acl import rt

        self.assertIs(rt.malloc, acl.rt.malloc)

    def test_no_constants_exported(self):
        for mod in (acl, acl.rt, acl.util):
            for name in public(mod):
                self.assertTrue(callable(getattr(mod, name)) or isinstance(getattr(mod, name), types.ModuleType),
                                f"{mod.__name__}.{name} is a constant")
            self.assertFalse(any(n.startswith("ACL_") for n in dir(mod)))

    def test_every_function_has_a_docstring(self):
        for mod, names in ((acl, ACL_FUNCS), (acl.rt, RT_FUNCS), (acl.util, UTIL_FUNCS)):
            for name in names:
                self.assertTrue(getattr(mod, name).__doc__, name)


class ArgumentParsing(unittest.TestCase):
    """PyArg_ParseTuple's behaviour: exact positional arity, ints only,
    TypeError('acl.rt.<name> args parse failed')."""

    def test_wrong_arity_is_a_type_error_for_every_function(self):
        for mod, names, prefix in ((acl, ACL_FUNCS, "acl"), (acl.rt, RT_FUNCS, "acl.rt"),
                                   (acl.util, UTIL_FUNCS, "acl.util")):
            for name, arity in names.items():
                if name == "init":
                    continue  # one optional argument
                fn = getattr(mod, name)
                with self.subTest(name=name):
                    with self.assertRaises(TypeError) as cm:
                        fn(*([0] * (arity + 1)))
                    if name not in ("launch_callback", "start_thread", "set_exception_info_callback"):
                        self.assertEqual(str(cm.exception), f"{prefix}.{name} args parse failed")

    def test_non_int_arguments_are_type_errors(self):
        for name, arity in RT_FUNCS.items():
            if arity == 0 or name == "launch_callback" or name in KEY_FIRST:
                continue
            fn = getattr(acl.rt, name)
            for bad in ("1", 1.5, None, [1]):
                with self.subTest(name=name, bad=bad):
                    with self.assertRaises(TypeError):
                        fn(*([bad] + [0] * (arity - 1)))

    def test_keywords_are_refused(self):
        with self.assertRaises(TypeError):
            acl.rt.set_device(device_id=0)

    def test_init_takes_an_optional_path(self):
        with self.assertRaises(TypeError):
            acl.init(5)
        with self.assertRaises(TypeError):
            acl.init("a", "b")

    def test_bools_are_ints_and_negative_pointers_wrap(self):
        # 'i' accepts bool; 'k' masks a negative int to 64 bits (unknown handle).
        self.assertEqual(acl.init(), 0)
        try:
            self.assertEqual(acl.rt.set_device(False), 0)
            self.assertEqual(acl.rt.synchronize_stream(-1), 107017)
            self.assertEqual(acl.rt.reset_device(0), 0)
        finally:
            self.assertEqual(acl.finalize(), 0)

    def test_non_callables(self):
        with self.assertRaises(TypeError) as cm:
            acl.rt.launch_callback(5, None, 1, 0)
        self.assertEqual(str(cm.exception), "parameter must be callable")
        with self.assertRaises(TypeError) as cm:
            acl.util.start_thread("f", None)
        self.assertEqual(str(cm.exception), "parameter must be callable")

    def test_bytes_to_ptr_of_non_bytes_is_a_value_error(self):
        for bad in (bytearray(4), "str", 5, memoryview(b"ab")):
            with self.assertRaises(ValueError):
                acl.util.bytes_to_ptr(bad)


class ProcessLevel(unittest.TestCase):
    def test_init_finalize_and_repeat(self):
        self.assertEqual(acl.init(), 0)
        self.assertEqual(acl.init(), 100002)  # ACL_ERROR_REPEAT_INITIALIZE
        # The repeated init still took a reference (acl-facts §5.1): one is left.
        ref, ret = acl.finalize_reference()
        self.assertEqual((ref, ret), (1, 0))
        self.assertEqual(acl.finalize(), 0)
        self.assertEqual(acl.init(None), 0)
        self.assertEqual(acl.finalize(), 0)

    def test_strings(self):
        self.assertEqual(acl.init(), 0)
        try:
            soc = acl.get_soc_name()
            self.assertIsInstance(soc, str)
            self.assertTrue(soc)
            major, minor, patch, ret = acl.get_version()
            self.assertEqual(ret, 0)
            self.assertTrue(all(isinstance(v, int) for v in (major, minor, patch)))
            self.assertEqual(acl.rt.set_device(0), 0)
            ptr, ret = acl.rt.malloc(0, HUGE_FIRST)
            self.assertEqual(ptr, 0)  # output on failure: what the C call left, 0
            self.assertNotEqual(ret, 0)
            msg = acl.get_recent_err_msg()
            self.assertIsInstance(msg, str)
            self.assertIn("aclrtMalloc", msg)
            self.assertEqual(acl.rt.reset_device(0), 0)
        finally:
            self.assertEqual(acl.finalize(), 0)


class Device(unittest.TestCase):
    def test_device_rows(self):
        self.assertEqual(acl.init(), 0)
        try:
            dev, ret = acl.rt.get_device()
            self.assertEqual((dev, ret), (0, 107002))  # no device set yet
            count, ret = acl.rt.get_device_count()
            self.assertEqual(ret, 0)
            self.assertGreaterEqual(count, 1)
            self.assertEqual(acl.rt.set_device(count), 107001)  # invalid id: ret, no exception
            self.assertEqual(acl.rt.set_device(0), 0)
            self.assertEqual(acl.rt.get_device(), (0, 0))
            mode, ret = acl.rt.get_run_mode()
            self.assertEqual((mode, ret), (run_mode(), 0))
            self.assertEqual(acl.rt.synchronize_device(), 0)
            self.assertEqual(acl.rt.synchronize_device_with_timeout(-1), 0)
            self.assertEqual(acl.rt.synchronize_device_with_timeout(100), 0)
            free, total, ret = acl.rt.get_mem_info(1)
            self.assertEqual(ret, 0)
            self.assertTrue(0 < free <= total)
            # An attribute outside aclrtMemAttr: the runtime's argument
            # check (not the ACL layer) refuses it as an invalid memory type.
            self.assertEqual(acl.rt.get_mem_info(1000)[2], 107016)
            self.assertEqual(acl.rt.reset_device(0), 0)
            self.assertNotEqual(acl.rt.reset_device(0), 0)  # not set any more
            self.assertEqual(acl.rt.set_device(0), 0)
            self.assertEqual(acl.rt.reset_device_force(0), 0)
            self.assertNotEqual(acl.rt.reset_device_force(0), 0)
        finally:
            self.assertEqual(acl.finalize(), 0)


class ContextAndStream(AclCase):
    def test_context_rows(self):
        cur, ret = acl.rt.get_context()
        self.assertEqual((cur, ret), (self.ctx, 0))
        stream, ret = acl.rt.ctx_get_current_default_stream()
        self.assertEqual(ret, 0)
        self.assertNotEqual(stream, 0)
        buf = self.malloc(64)
        other, ret = acl.rt.create_context(0)
        self.assertEqual(ret, 0)
        self.assertEqual(acl.rt.get_context(), (other, 0))
        # A stream of another context: 107003.
        self.assertEqual(acl.rt.memset_async(buf, 64, 0, 64, self.stream), 107003)
        self.assertEqual(acl.rt.destroy_context(other), 0)
        self.assertEqual(acl.rt.destroy_context(other), 107002)  # stale handle (the runtime: context not found)
        self.assertEqual(acl.rt.set_context(self.ctx), 0)
        # An unknown context: the runtime's argument check (107000).
        self.assertEqual(acl.rt.set_context(987654), 107000)

    def test_stream_rows(self):
        s, ret = acl.rt.create_stream_with_config(0, 1)
        self.assertEqual(ret, 0)
        self.assertEqual(acl.rt.stream_query(s), (0, 0))  # COMPLETE
        self.assertEqual(acl.rt.set_stream_failure_mode(s, 0), 0)
        n, ret = acl.rt.get_stream_available_num()
        self.assertEqual(ret, 0)
        self.assertGreater(n, 0)
        self.assertEqual(acl.rt.synchronize_stream(s), 0)
        self.assertEqual(acl.rt.synchronize_stream(0), 0)  # the default stream
        self.assertEqual(acl.rt.synchronize_stream_with_timeout(s, 100), 0)
        self.assertEqual(acl.rt.synchronize_stream_with_timeout(0, -1), 0)
        self.assertEqual(acl.rt.destroy_stream(s), 0)
        self.assertEqual(acl.rt.destroy_stream(s), 107017)
        s2, ret = acl.rt.create_stream()
        self.assertEqual(acl.rt.destroy_stream_force(s2), 0)
        self.assertEqual(acl.rt.destroy_stream(0), 100000)  # the default stream: refused
        self.assertEqual(acl.rt.synchronize_stream(0xDEAD0), 107017)


class StrictRules(unittest.TestCase):
    """The named rules the hardware lets through: answered as the hardware
    does by default (and reported), refused with ACLRT_SIM_STRICTNESS=refuse."""

    def run_rules(self, strictness):
        code = (
            "import acl\n"
            "assert acl.init() == 0 and acl.rt.set_device(0) == 0\n"
            "ctx, ret = acl.rt.create_context(0)\n"
            "s, ret = acl.rt.create_stream()\n"
            "print('destroy_context', acl.rt.destroy_context(ctx))\n"
            "print('destroy_stream', acl.rt.destroy_stream(s))\n"
            "acl.rt.destroy_context(ctx)\n"  # refused before (refuse), gone (default)
            "acl.rt.reset_device(0)\n"
            "print('finalize', acl.finalize())\n"
        )
        env = {"ACLRT_SIM_STRICTNESS": strictness} if strictness else {}
        return run_python(code, "host" if run_mode() == 1 else "device", env=env)

    def test_default_answers_as_the_hardware_and_reports(self):
        out = self.run_rules(None)
        self.assertEqual(out.returncode, 0, out.stderr)
        # The context goes with its stream, as on an NPU; the stale stream
        # handle is then refused by the handle check.
        self.assertIn("destroy_context 0", out.stdout)
        self.assertIn("destroy_stream 107017", out.stdout)
        self.assertIn("finalize 0", out.stdout)
        self.assertIn("STRICT-CTX-LIVE in aclrtDestroyContext", out.stderr)
        self.assertIn("audit at exit", out.stderr)

    def test_refuse_refuses_at_the_call(self):
        out = self.run_rules("refuse")
        self.assertEqual(out.returncode, 0, out.stderr)
        self.assertIn("destroy_context 507007", out.stdout)
        self.assertIn("destroy_stream 0", out.stdout)
        self.assertIn("finalize 0", out.stdout)

    def test_error_exit_code(self):
        out = run_python(
            "import acl\nacl.init(); acl.rt.set_device(0); acl.finalize()\n",
            "host" if run_mode() == 1 else "device",
            env={"ACLRT_SIM_ERROR_EXITCODE": "7"},
        )
        # aclFinalize with the device still set: success, a report, exit 7.
        self.assertEqual(out.returncode, 7, out.stderr)
        self.assertIn("STRICT-FINALIZE-LIVE", out.stderr)


class Events(AclCase):
    def test_event_rows(self):
        plain, ret = acl.rt.create_event()
        self.assertEqual(ret, 0)
        self.cleanups.append((acl.rt.destroy_event, (plain,)))
        start, end = self.event(), self.event()
        self.assertEqual(acl.rt.record_event(start, self.stream), 0)
        self.assertEqual(acl.rt.memset_async(self.malloc(4096), 4096, 1, 4096, self.stream), 0)
        self.assertEqual(acl.rt.record_event(end, self.stream), 0)
        self.assertEqual(acl.rt.synchronize_event(end), 0)
        self.assertEqual(acl.rt.synchronize_event_with_timeout(end, 1000), 0)
        self.assertEqual(acl.rt.query_event_status(end), (1, 0))  # COMPLETE
        self.assertEqual(acl.rt.query_event(end), (0, 0))  # deprecated: COMPLETE = 0
        self.assertEqual(acl.rt.query_event_wait_status(end), (0, 0))
        ms, ret = acl.rt.event_elapsed_time(start, end)
        self.assertEqual(ret, 0)
        self.assertIsInstance(ms, float)
        self.assertGreaterEqual(ms, 0.0)
        ts, ret = acl.rt.event_get_timestamp(end)
        self.assertEqual(ret, 0)
        self.assertIsInstance(ts, int)
        # Elapsed time of a never-recorded event / without TIME_LINE.
        self.assertEqual(acl.rt.event_elapsed_time(plain, end)[1], 507000)
        notime = self.event(EVENT_SYNC)
        self.assertEqual(acl.rt.record_event(notime, self.stream), 0)
        self.assertEqual(acl.rt.synchronize_stream(self.stream), 0)
        self.assertEqual(acl.rt.event_elapsed_time(notime, end)[1], 107006)
        # stream_wait_event across streams, then reset_event.
        s2, _ = acl.rt.create_stream()
        self.assertEqual(acl.rt.stream_wait_event(s2, end), 0)
        self.assertEqual(acl.rt.stream_wait_event(0, end), 0)  # the default stream
        self.assertEqual(acl.rt.reset_event(end, s2), 0)
        self.assertEqual(acl.rt.synchronize_stream(s2), 0)
        self.assertEqual(acl.rt.destroy_stream(s2), 0)
        # The ex event: usable with records and elapsed time, not with query_event.
        ex, ret = acl.rt.create_event_ex_with_flag(EVENT_SYNC | EVENT_TIME_LINE)
        self.assertEqual(ret, 0)
        self.assertEqual(acl.rt.query_event_status(ex), (1, 0))  # never recorded: COMPLETE
        self.assertEqual(acl.rt.query_event(ex)[1], 207000)
        self.assertEqual(acl.rt.destroy_event(ex), 0)
        self.assertEqual(acl.rt.destroy_event(ex), 107017)
        self.assertEqual(acl.rt.set_op_wait_timeout(0), 0)
        n, ret = acl.rt.get_event_avail_num()
        self.assertEqual(ret, 0)
        self.assertGreater(n, 0)


class Memory(AclCase):
    def test_allocation_rows(self):
        for fn in (acl.rt.malloc, acl.rt.malloc_cached, acl.rt.malloc_align32):
            ptr, ret = fn(100, HUGE_FIRST)
            self.assertEqual(ret, 0, fn.__name__)
            self.assertNotEqual(ptr, 0)
            self.assertEqual(acl.rt.free(ptr), 0)
            self.assertEqual(acl.rt.free(ptr), 207002)  # double free, recorded by the simulator
            ptr, ret = fn(0, HUGE_FIRST)  # size 0 fails: ret, and the output stays 0
            self.assertEqual((ptr, ret), (0, 100000))
        h, ret = acl.rt.malloc_host(100)
        self.assertEqual(ret, 0)
        self.assertEqual(acl.rt.free(h), 107000)  # the wrong free function
        self.assertEqual(acl.rt.free_host(h), 0)
        self.assertEqual(acl.rt.free_host(123456), 107000)

    def test_copies_are_checked_before_memory_is_touched(self):
        dev = self.malloc(256)
        host = self.malloc_host(256)
        self.assertEqual(acl.rt.memset(host, 256, 0x5A, 256), 0)
        self.assertEqual(acl.rt.memcpy(dev, 256, host, 256, self.h2d()), 0)
        self.assertEqual(acl.rt.memcpy(dev, 256, host, 0, self.h2d()), 0)  # count 0: success
        self.assertEqual(acl.rt.memcpy(dev, 128, host, 256, self.h2d()), 107000)  # count > dest_max
        self.assertEqual(acl.rt.memcpy(dev, 512, host, 512, self.h2d()), 107000)  # out of bounds
        self.assertEqual(acl.rt.memcpy(0, 256, host, 256, self.h2d()), 100000)  # NULL
        self.assertEqual(acl.rt.memcpy(dev, 256, host, 256, 9), 100000)  # kind out of range
        if run_mode() == 1:
            # A wrong kind is answered as the hardware does (and reported);
            # StrictRules above refuses it.
            self.assertEqual(acl.rt.memcpy(dev, 256, dev, 16, H2D), 0)
        self.assertEqual(acl.rt.memset(dev, 256, 1, 512), 107000)
        freed, _ = acl.rt.malloc(64, HUGE_FIRST)
        self.assertEqual(acl.rt.free(freed), 0)
        # A pointer into freed memory: refused, never touched.
        self.assertEqual(acl.rt.memcpy(freed, 64, host, 64, self.h2d()), 107000)
        self.assertEqual(acl.rt.memcpy(host, 64, freed, 64, self.d2h()), 107000)
        back = self.malloc_host(256)
        self.assertEqual(acl.rt.memcpy(back, 256, dev, 256, self.d2h()), 0)
        self.assertEqual(acl.util.ptr_to_bytes(back, 256), b"\x5a" * 256)

    def test_async_rows_and_2d(self):
        dev = self.malloc(1024)
        host = self.malloc_host(1024)
        self.assertEqual(acl.rt.memset_async(host, 1024, 3, 1024, self.stream), 0)
        self.assertEqual(acl.rt.memcpy_async(dev, 1024, host, 1024, self.h2d(), self.stream), 0)
        self.assertEqual(acl.rt.memset_async(host, 1024, 0, 1024, self.stream), 0)
        # 2-D: 8 rows of 16 bytes out of a 64-byte pitch.
        self.assertEqual(acl.rt.memcpy2d_async(host, 16, dev, 64, 16, 8, self.d2h(), self.stream), 0)
        self.assertEqual(acl.rt.synchronize_stream(self.stream), 0)
        self.assertEqual(acl.util.ptr_to_bytes(host, 128), b"\x03" * 128)
        self.assertEqual(acl.util.ptr_to_bytes(host + 128, 16), bytes(16))
        # The synchronous 2-D copy supports host -> device and device -> host
        # only: on the device's own CPU the kind is D2D, which the runtime
        # refuses (207000, sim/FIDELITY.md).
        want = 0 if run_mode() == ACL_HOST else 207000
        self.assertEqual(acl.rt.memcpy2d(dev, 32, host, 16, 16, 4, self.h2d()), want)
        self.assertEqual(acl.rt.memcpy2d(dev, 8, host, 16, 16, 4, self.h2d()), 100000)  # width > dpitch
        self.assertEqual(acl.rt.memcpy_async(dev, 1024, host, 1024, self.h2d(), 0), 0)  # default stream
        self.assertEqual(acl.rt.synchronize_stream(0), 0)


class RunModes(unittest.TestCase):
    def test_both_run_modes_in_subprocesses(self):
        from support import run_python

        code = "import acl; acl.init(); print(acl.rt.get_run_mode()); acl.finalize()"
        for mode, want in (("host", "(1, 0)"), ("device", "(0, 0)")):
            p = run_python(code, mode)
            self.assertEqual(p.returncode, 0, p.stderr)
            self.assertEqual(p.stdout.strip(), want)

    def test_malloc_host_is_device_memory_in_device_mode(self):
        from support import run_python

        # H2D from malloc_host memory: the simulator checks the kind against
        # where memory lies in host mode only; in device mode the memory is
        # the device's (charged to its pool).
        code = (
            "import acl; acl.init(); acl.rt.set_device(0)\n"
            "f0 = acl.rt.get_mem_info(1)[0]\n"
            "h, r = acl.rt.malloc_host(1 << 20); assert r == 0\n"
            "print(f0 - acl.rt.get_mem_info(1)[0])\n"
            "acl.rt.free_host(h); acl.rt.reset_device(0); acl.finalize()\n"
        )
        host = run_python(code, "host")
        device = run_python(code, "device")
        self.assertEqual(host.returncode, 0, host.stderr)
        self.assertEqual(device.returncode, 0, device.stderr)
        self.assertEqual(int(host.stdout), 0)
        self.assertGreaterEqual(int(device.stdout), 1 << 20)


if __name__ == "__main__":
    unittest.main()
