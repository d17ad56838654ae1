"""Shared frame for the Python tests (plain unittest, so `python3 -m
unittest` runs them where pytest is not installed; pytest runs them too)."""

import os
import subprocess
import sys
import unittest

import acl

ACL_SUCCESS = 0
ACL_DEVICE, ACL_HOST = 0, 1
H2H, H2D, D2H, D2D = 0, 1, 2, 3
HUGE_FIRST = 0
EVENT_SYNC, EVENT_TIME_LINE = 0x1, 0x8
CALLBACK_NO_BLOCK, CALLBACK_BLOCK = 0, 1

HERE = os.path.dirname(os.path.abspath(__file__))
PY_DIR = os.path.dirname(HERE)
EXAMPLES = os.path.join(PY_DIR, "examples")

try:
    import numpy  # noqa: F401

    HAVE_NUMPY = True
except ImportError:
    HAVE_NUMPY = False

needs_numpy = unittest.skipUnless(HAVE_NUMPY, "numpy is not installed")


def run_mode():
    """The run mode the simulator was configured with for this process."""
    return ACL_DEVICE if os.environ.get("ACLRT_SIM_RUN_MODE", "host") == "device" else ACL_HOST


def run_python(code_or_path, mode, env=None, timeout=120, args=()):
    """Runs Python code (or a script path) in a fresh interpreter with
    ACLRT_SIM_RUN_MODE=mode; returns the CompletedProcess."""
    e = dict(os.environ)
    e["ACLRT_SIM_RUN_MODE"] = mode
    e.update(env or {})
    if os.path.exists(code_or_path):
        cmd = [sys.executable, code_or_path, *args]
    else:
        cmd = [sys.executable, "-c", code_or_path, *args]
    return subprocess.run(cmd, env=e, capture_output=True, text=True, timeout=timeout)


class AclCase(unittest.TestCase):
    """init → set_device(0) → create_context(0) → create_stream, undone in
    tearDown (in the legal order), so each test starts from a fresh runtime."""

    env = {}

    def setUp(self):
        self._saved = {k: os.environ.get(k) for k in self.env}
        os.environ.update(self.env)
        self.assertEqual(acl.init(), 0)
        self.assertEqual(acl.rt.set_device(0), 0)
        self.ctx, ret = acl.rt.create_context(0)
        self.assertEqual(ret, 0)
        self.stream, ret = acl.rt.create_stream()
        self.assertEqual(ret, 0)
        self.cleanups = []

    def tearDown(self):
        try:
            for fn, args in reversed(self.cleanups):
                fn(*args)
            acl.rt.set_context(self.ctx)
            rets = (
                acl.rt.destroy_stream(self.stream),
                acl.rt.destroy_context(self.ctx),
                acl.rt.reset_device(0),
                acl.finalize(),
            )
        finally:
            # Whatever failed above, leave a finalized runtime to the next test
            # (the simulator's finalize tears everything down).
            acl.finalize()
            for k, v in self._saved.items():
                if v is None:
                    os.environ.pop(k, None)
                else:
                    os.environ[k] = v
        self.assertEqual(rets, (0, 0, 0, 0), "teardown: destroy_stream, destroy_context, reset_device, finalize")

    def malloc(self, size):
        ptr, ret = acl.rt.malloc(size, HUGE_FIRST)
        self.assertEqual(ret, 0)
        self.assertNotEqual(ptr, 0)
        self.cleanups.append((acl.rt.free, (ptr,)))
        return ptr

    def malloc_host(self, size):
        ptr, ret = acl.rt.malloc_host(size)
        self.assertEqual(ret, 0)
        self.assertEqual(ptr % 64, 0)
        self.cleanups.append((acl.rt.free_host, (ptr,)))
        self.assertEqual(acl.rt.memset(ptr, size, 0, size), 0)
        return ptr

    def event(self, flag=EVENT_SYNC | EVENT_TIME_LINE):
        ev, ret = acl.rt.create_event_with_flag(flag)
        self.assertEqual(ret, 0)
        self.cleanups.append((acl.rt.destroy_event, (ev,)))
        return ev

    def h2d(self):
        """The kind a pyACL script passes for host → device in this run mode
        (it would be D2D on the device's own CPU)."""
        return H2D if run_mode() == ACL_HOST else D2D

    def d2h(self):
        return D2H if run_mode() == ACL_HOST else D2D
