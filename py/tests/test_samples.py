"""Programs as users write them (programs/acl_resource.py: a resource helper
as the vendor's Python helper library has one), run in a fresh interpreter
in this process's run mode, and acl.app_log as that library uses it."""

import os
import unittest

from support import HERE, run_python

PROGRAM = os.path.join(HERE, "programs", "acl_resource.py")


def mode():
    return os.environ.get("ACLRT_SIM_RUN_MODE", "host")


class ResourceHelper(unittest.TestCase):
    def run_program(self, arg, env=None):
        return run_python(PROGRAM, mode(), env=env, args=(arg,))

    def test_tidy_program_runs_to_completion(self):
        p = self.run_program("tidy", {"ACLRT_SIM_STRICTNESS": ""})
        self.assertEqual(p.returncode, 0, p.stdout + p.stderr)
        for line in ("copy round trip: 65536 bytes ok", "big buffers: 2 x 4 GiB of 64 GiB ok",
                     "callback thread: 8 callbacks ok", "acl_resource(tidy): ok"):
            self.assertIn(line, p.stdout)
        # The default log level (error) writes none of its info records.
        self.assertNotIn("[INFO]", p.stdout + p.stderr)

    def test_sloppy_teardown_gets_the_hardware_answers_when_asked(self):
        p = self.run_program("sloppy", {"ACLRT_SIM_STRICTNESS": "report"})
        self.assertEqual(p.returncode, 0, p.stdout + p.stderr)
        self.assertIn("acl_resource(sloppy): ok", p.stdout)

    def test_sloppy_teardown_at_the_default_strictness_completes_with_a_report(self):
        p = self.run_program("sloppy", {"ACLRT_SIM_STRICTNESS": ""})
        self.assertEqual(p.returncode, 0, p.stdout + p.stderr)
        self.assertIn("acl_resource(sloppy): ok", p.stdout)
        for rule in ("STRICT-CTX-LIVE", "STRICT-FINALIZE-LIVE"):
            self.assertIn(rule, p.stderr)


class AppLog(unittest.TestCase):
    def test_records_carry_the_python_callers_location(self):
        code = (
            "import acl\n"
            "def load_model():\n"
            "    acl.app_log(1, 'model %d loaded')\n"
            "    acl.app_log(0, 'debug detail')\n"
            "    acl.app_log(3, 'x' * 3000)\n"
            "load_model()\n"
        )
        p = run_python(code, mode(), env={"ASCEND_GLOBAL_LOG_LEVEL": "1",
                                          "ASCEND_SLOG_PRINT_TO_STDOUT": "1"})
        self.assertEqual(p.returncode, 0, p.stderr)
        lines = p.stdout.splitlines()
        self.assertEqual(len(lines), 2, p.stdout)
        # The message is text, never a format: '%d' stays as written.
        self.assertTrue(lines[0].startswith("[INFO] APP("), lines[0])
        self.assertTrue(lines[0].endswith(' load_model:<string>:3: "model %d loaded"'), lines[0])
        self.assertTrue(lines[1].startswith("[ERROR] APP("), lines[1])
        self.assertTrue(lines[1].endswith("...[truncated]"), lines[1][-40:])

    def test_default_level_writes_errors_to_stderr_only(self):
        code = "import acl\nacl.app_log(2, 'warned')\nacl.app_log(3, 'failed')\nacl.app_log(9, 'odd')\n"
        p = run_python(code, mode(), env={"ASCEND_GLOBAL_LOG_LEVEL": "",
                                          "ASCEND_SLOG_PRINT_TO_STDOUT": ""})
        self.assertEqual(p.returncode, 0, p.stderr)
        self.assertEqual(p.stdout, "")
        records = [line for line in p.stderr.splitlines() if " APP(" in line]
        self.assertEqual(len(records), 1, p.stderr)
        self.assertTrue(records[0].startswith("[ERROR]") and records[0].endswith(' <module>:<string>:3: "failed"'),
                        records[0])

    def test_the_log_level_constants_are_the_c_values(self):
        from aclrt import constants as C

        self.assertEqual((C.ACL_DEBUG, C.ACL_INFO, C.ACL_WARNING, C.ACL_ERROR), (0, 1, 2, 3))

    def test_arguments_follow_pyacl_parsing(self):
        import acl

        for bad in ((), (1,), ("1", "m"), (1, 2), (1, "m", 3), (1.5, "m")):
            with self.subTest(args=bad):
                with self.assertRaises(TypeError) as cm:
                    acl.app_log(*bad)
                self.assertEqual(str(cm.exception), "acl.app_log args parse failed")
        self.assertIsNone(acl.app_log(0, "below the level: nothing written"))


if __name__ == "__main__":
    unittest.main()
