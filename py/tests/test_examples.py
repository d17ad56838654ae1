"""Every example of py/examples runs, unchanged, in this process's run mode
(ACLRT_SIM_RUN_MODE; the test command runs the whole suite once per mode,
see tests/python.rs). ACLRT_PY_EXAMPLES_BOTH_MODES=1 runs each in both."""

import glob
import os
import unittest

from support import EXAMPLES, HAVE_NUMPY, run_python


class Examples(unittest.TestCase):
    def test_every_example_in_both_run_modes(self):
        scripts = sorted(glob.glob(os.path.join(EXAMPLES, "*.py")))
        self.assertGreaterEqual(len(scripts), 8)
        names = {os.path.basename(s) for s in scripts}
        # Each flow in both styles.
        for flow in ("01_resources", "02_memcpy", "03_streams_events", "04_callbacks"):
            self.assertIn(f"raw_{flow}.py", names)
            self.assertIn(f"pythonic_{flow}.py", names)
        modes = [os.environ.get("ACLRT_SIM_RUN_MODE", "host")]
        if os.environ.get("ACLRT_PY_EXAMPLES_BOTH_MODES") == "1":
            modes = ["host", "device"]
        for script in scripts:
            with open(script) as f:
                if not HAVE_NUMPY and "\nimport numpy" in f.read():
                    continue  # (numpy-dependent: skipped, as the numpy cases are)
            for mode in modes:
                with self.subTest(script=os.path.basename(script), mode=mode):
                    p = run_python(script, mode, timeout=120)
                    self.assertEqual(p.returncode, 0, p.stdout + p.stderr)
                    self.assertEqual(p.stdout.strip().splitlines()[-1], "ok")
                    wanted = "ACL_DEVICE" if mode == "device" else "ACL_HOST"
                    if "run mode:" in p.stdout:
                        self.assertIn(wanted, p.stdout)


if __name__ == "__main__":
    unittest.main()
