"""acl.util's memory helpers (pyacl-facts.md §2.8, issue 26 item 3)."""

import subprocess
import sys
import unittest
import warnings

import acl
from support import H2H, AclCase, needs_numpy


class BytesHelpers(AclCase):
    def test_bytes_to_ptr_is_the_objects_own_buffer(self):
        data = b"0123456789abcdef" * 4
        ptr = acl.util.bytes_to_ptr(data)
        self.assertEqual(acl.util.bytes_to_ptr(data), ptr)  # no copy: the same address
        self.assertEqual(acl.util.ptr_to_bytes(ptr, len(data)), data)

    def test_samples_flow_device_to_host_into_bytes(self):
        # The samples' idiom: memcpy D2H into bytes_to_ptr memory (application,
        # pageable memory), then read the bytes object.
        dev = self.malloc(256)
        src = bytes(range(256))
        self.assertEqual(acl.rt.memcpy(dev, 256, acl.util.bytes_to_ptr(src), 256, self.h2d()), 0)
        out = bytes(256)
        self.assertEqual(acl.rt.memcpy(acl.util.bytes_to_ptr(out), 256, dev, 256, self.d2h()), 0)
        self.assertEqual(out, src)

    def test_ptr_to_bytes_copies(self):
        host = self.malloc_host(64)
        self.assertEqual(acl.rt.memset(host, 64, 7, 64), 0)
        snap = acl.util.ptr_to_bytes(host, 64)
        self.assertEqual(acl.rt.memset(host, 64, 9, 64), 0)
        self.assertEqual(snap, b"\x07" * 64)  # a copy: unchanged
        self.assertEqual(acl.util.ptr_to_bytes(host, 0), b"")
        with self.assertRaises(ValueError):
            acl.util.ptr_to_bytes(0, 16)

    def test_host_to_host_between_application_buffers(self):
        a = b"x" * 32
        b = bytes(32)
        self.assertEqual(acl.rt.memcpy(acl.util.bytes_to_ptr(b), 32, acl.util.bytes_to_ptr(a), 32, H2H), 0)
        self.assertEqual(b, a)


@needs_numpy
class NumpyHelpers(AclCase):
    def test_numpy_to_ptr_warns_and_gives_the_data_address(self):
        import numpy as np

        arr = np.arange(64, dtype=np.float32)
        with warnings.catch_warnings(record=True) as w:
            warnings.simplefilter("always")
            ptr = acl.util.numpy_to_ptr(arr)
        self.assertEqual(ptr, arr.ctypes.data)
        self.assertEqual(len(w), 1)
        self.assertIs(w[0].category, Warning)
        with warnings.catch_warnings(record=True) as w:
            warnings.simplefilter("always")
            acl.util.numpy_to_ptr(arr[::2])
        self.assertEqual(len(w), 2)  # a second one: not C-contiguous
        with self.assertRaises(ValueError):
            acl.util.numpy_to_ptr([1, 2, 3])

    def test_numpy_round_trip_through_the_device(self):
        import numpy as np

        arr = np.linspace(0, 1, 1024, dtype=np.float32)
        dev = self.malloc(arr.nbytes)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            src = acl.util.numpy_to_ptr(arr)
        self.assertEqual(acl.rt.memcpy(dev, arr.nbytes, src, arr.nbytes, self.h2d()), 0)
        out = np.zeros_like(arr)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            dst = acl.util.numpy_to_ptr(out)
        self.assertEqual(acl.rt.memcpy(dst, out.nbytes, dev, out.nbytes, self.d2h()), 0)
        np.testing.assert_array_equal(out, arr)
        # The bytes idiom of the samples: frombuffer of the bytes written into.
        raw = bytes(arr.nbytes)
        self.assertEqual(acl.rt.memcpy(acl.util.bytes_to_ptr(raw), arr.nbytes, dev, arr.nbytes, self.d2h()), 0)
        np.testing.assert_array_equal(np.frombuffer(raw, dtype=np.float32), arr)

    def test_numpy_contiguous_to_ptr_keeps_the_copy(self):
        import numpy as np

        base = np.arange(32, dtype=np.int32)
        strided = base[::2]
        with warnings.catch_warnings(record=True) as w:
            warnings.simplefilter("always")
            ptr, cont = acl.util.numpy_contiguous_to_ptr(strided)
        self.assertEqual(len(w), 1)
        self.assertTrue(cont.flags.c_contiguous)
        self.assertEqual(ptr, cont.ctypes.data)
        np.testing.assert_array_equal(cont, strided)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            p2, same = acl.util.numpy_contiguous_to_ptr(base)
        self.assertIs(same, base)  # already contiguous: no copy
        with self.assertRaises(ValueError):
            acl.util.numpy_contiguous_to_ptr(b"abc")

    def test_ptr_to_numpy_is_a_writable_view(self):
        import numpy as np

        host = self.malloc_host(4 * 12)
        with warnings.catch_warnings(record=True) as w:
            warnings.simplefilter("always")
            view = acl.util.ptr_to_numpy(host, (3, 4), 11)  # NPY_FLOAT32
        self.assertEqual(len(w), 1)
        self.assertEqual(view.shape, (3, 4))
        self.assertEqual(view.dtype, np.float32)
        self.assertTrue(view.flags.writeable)
        view[:] = 2.5
        # No copy: the runtime sees the write.
        self.assertEqual(acl.util.ptr_to_bytes(host, 4), np.float32(2.5).tobytes())
        self.assertEqual(acl.rt.memset(host, 48, 0, 48), 0)
        self.assertEqual(float(view[2, 3]), 0.0)
        del view

    def test_ptr_to_numpy_type_codes(self):
        import numpy as np

        host = self.malloc_host(64)
        codes = {0: np.bool_, 1: np.int8, 2: np.uint8, 3: np.int16, 4: np.uint16, 5: np.int32,
                 6: np.uint32, 7: np.int64, 8: np.uint64, 9: np.longlong, 10: np.ulonglong,
                 11: np.float32, 12: np.float64, 23: np.float16}
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            for code, dt in codes.items():
                self.assertEqual(acl.util.ptr_to_numpy(host, (2,), code).dtype, np.dtype(dt), code)
            with self.assertRaises(ValueError):
                acl.util.ptr_to_numpy(host, (2,), 99)
            with self.assertRaises(TypeError):
                acl.util.ptr_to_numpy(host, [2], 11)  # shape must be a tuple
            self.assertEqual(acl.util.ptr_to_numpy(0, (0,), 11).shape, (0,))
            with self.assertRaises(ValueError):
                acl.util.ptr_to_numpy(0, (4,), 11)


class LazyNumpy(unittest.TestCase):
    def test_import_acl_does_not_import_numpy(self):
        code = "import sys, acl, acl.rt, acl.util; print('numpy' in sys.modules)"
        p = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
        self.assertEqual(p.returncode, 0, p.stderr)
        self.assertEqual(p.stdout.strip(), "False")

    def test_the_module_works_without_numpy(self):
        # numpy made unimportable: the bytes helpers work, the numpy ones raise ImportError.
        code = (
            "import sys; sys.modules['numpy'] = None\n"
            "import acl\n"
            "b = b'abcd'; assert acl.util.ptr_to_bytes(acl.util.bytes_to_ptr(b), 4) == b\n"
            "try:\n"
            "    acl.util.ptr_to_numpy(acl.util.bytes_to_ptr(b), (4,), 2)\n"
            "except ImportError:\n"
            "    print('ImportError')\n"
        )
        p = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
        self.assertEqual(p.returncode, 0, p.stderr)
        self.assertEqual(p.stdout.strip(), "ImportError")


if __name__ == "__main__":
    unittest.main()
