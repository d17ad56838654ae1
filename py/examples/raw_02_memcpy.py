"""Host <-> device transfer, pyACL style: malloc_host + memset + memcpy,
branching on the run mode (seed 003). In ACL_DEVICE mode the app runs on the
device, malloc_host memory is device memory, and the copies are D2D."""

import acl

ACL_SUCCESS = 0
ACL_DEVICE, ACL_HOST = 0, 1
ACL_MEMCPY_HOST_TO_DEVICE = 1
ACL_MEMCPY_DEVICE_TO_HOST = 2
ACL_MEMCPY_DEVICE_TO_DEVICE = 3
ACL_MEM_MALLOC_HUGE_FIRST = 0
SIZE = 1024 * 1024


def check(ret, what):
    if ret != ACL_SUCCESS:
        raise RuntimeError(f"{what} failed: {ret} ({acl.get_recent_err_msg()})")


def main():
    check(acl.init(), "init")
    check(acl.rt.set_device(0), "set_device")
    context, ret = acl.rt.create_context(0)
    check(ret, "create_context")
    run_mode, ret = acl.rt.get_run_mode()
    check(ret, "get_run_mode")
    if run_mode == ACL_HOST:
        to_dev, to_host = ACL_MEMCPY_HOST_TO_DEVICE, ACL_MEMCPY_DEVICE_TO_HOST
    else:
        to_dev = to_host = ACL_MEMCPY_DEVICE_TO_DEVICE
    print("run mode:", "ACL_HOST" if run_mode == ACL_HOST else "ACL_DEVICE")

    host, ret = acl.rt.malloc_host(SIZE)
    check(ret, "malloc_host")
    check(acl.rt.memset(host, SIZE, 0x2A, SIZE), "memset")  # initialise before use
    dev, ret = acl.rt.malloc(SIZE, ACL_MEM_MALLOC_HUGE_FIRST)
    check(ret, "malloc")
    check(acl.rt.memcpy(dev, SIZE, host, SIZE, to_dev), "memcpy to device")

    # Back into a bytes object (application memory), as the samples do.
    out = bytes(SIZE)
    check(acl.rt.memcpy(acl.util.bytes_to_ptr(out), SIZE, dev, SIZE, to_host), "memcpy to host")
    assert out == b"\x2a" * SIZE
    free, total, ret = acl.rt.get_mem_info(1)
    check(ret, "get_mem_info")
    print(f"copied {SIZE} bytes there and back; device memory free {free} of {total}")

    check(acl.rt.free(dev), "free")
    check(acl.rt.free_host(host), "free_host")
    check(acl.rt.destroy_context(context), "destroy_context")
    check(acl.rt.reset_device(0), "reset_device")
    check(acl.finalize(), "finalize")
    print("ok")


if __name__ == "__main__":
    main()
