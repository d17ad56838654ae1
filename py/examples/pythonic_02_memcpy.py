"""Host <-> device transfer, Pythonic style: no `kind` argument, the
direction comes from the buffers and the run mode. Works without numpy."""

import aclrt
from aclrt import constants as C

SIZE = 1024 * 1024


def main():
    with aclrt.Runtime() as rt, rt.device(0) as dev, dev.context() as ctx:
        print("run mode:", "ACL_HOST" if dev.run_mode == C.ACL_HOST else "ACL_DEVICE")
        host = ctx.pinned(SIZE)  # zero-filled pinned memory (device memory in ACL_DEVICE mode)
        host.write(b"\x2a" * SIZE)
        d = ctx.alloc(SIZE)
        ctx.copy(d, host)  # H2D (D2D in ACL_DEVICE mode)
        out = bytearray(SIZE)
        ctx.copy(out, d)  # D2H into application memory
        assert out == b"\x2a" * SIZE
        free, total = dev.mem_info()
        print(f"copied {SIZE} bytes there and back; device memory free {free} of {total}")
        try:
            import numpy as np
        except ImportError:
            print("numpy not installed: skipping the numpy view")
        else:
            view = host.numpy(np.uint32)  # a view: keeps `host` alive, blocks its free
            view[:] = np.arange(view.size, dtype=np.uint32)
            ctx.copy(d, host)
            np.testing.assert_array_equal(d.to_numpy(np.uint32), view)
            del view
    print("ok")


if __name__ == "__main__":
    main()
