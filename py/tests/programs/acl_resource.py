"""A resource helper as the vendor's Python helper library has one, driven
the way its samples drive it: init, set the device (a second component sets
it again), create a context and a stream, allocate host and device memory,
copy there and back, serve callbacks on a report thread, allocate two 4 GiB
device buffers, log through acl.app_log on every error path, then tear down.

    python acl_resource.py tidy     every resource released in order
    python acl_resource.py sloppy   the samples' order: no destroy_stream
                                    (the context goes with its stream), one
                                    reset_device for two set_device
                                    (finalize with the device still set)

Prints "acl_resource(<mode>): ok" and exits 0 when every call answered as
the hardware does. The constants are the script's own, as pyACL scripts
define them.
"""

import sys
import threading

import acl

ACL_SUCCESS = 0
ACL_DEBUG, ACL_INFO, ACL_WARNING, ACL_ERROR = 0, 1, 2, 3
ACL_HOST = 1
ACL_MEM_MALLOC_HUGE_FIRST = 0
ACL_MEMCPY_HOST_TO_DEVICE, ACL_MEMCPY_DEVICE_TO_HOST = 1, 2
ACL_MEMCPY_DEVICE_TO_DEVICE = 3
ACL_CALLBACK_BLOCK = 1
ACL_HBM_MEM = 1

failures = []


def check(ret, what):
    if ret != ACL_SUCCESS:
        acl.app_log(ACL_ERROR, f"{what} failed, ret {ret}")
        failures.append(f"{what} returned {ret}: {acl.get_recent_err_msg()}")
        return False
    return True


class AclResource:
    def __init__(self, device_id=0):
        self.device_id = device_id
        self.context = None
        self.stream = None
        self.run_mode = None

    def init(self):
        if not check(acl.init(), "acl.init"):
            return False
        if not check(acl.rt.set_device(self.device_id), "acl.rt.set_device"):
            return False
        self.context, ret = acl.rt.create_context(self.device_id)
        if not check(ret, "acl.rt.create_context"):
            return False
        self.stream, ret = acl.rt.create_stream()
        if not check(ret, "acl.rt.create_stream"):
            return False
        self.run_mode, ret = acl.rt.get_run_mode()
        acl.app_log(ACL_INFO, f"device {self.device_id} ready, run mode {self.run_mode}")
        return check(ret, "acl.rt.get_run_mode")

    def set_device_again(self):
        # A second component sets the device on its own; that makes the
        # device's default context current, so the helper makes its own
        # context current again before using its stream.
        return check(acl.rt.set_device(self.device_id), "acl.rt.set_device (again)") and check(
            acl.rt.set_context(self.context), "acl.rt.set_context"
        )

    def release_tidy(self):
        check(acl.rt.destroy_stream(self.stream), "acl.rt.destroy_stream")
        check(acl.rt.destroy_context(self.context), "acl.rt.destroy_context")
        check(acl.rt.reset_device(self.device_id), "acl.rt.reset_device")
        check(acl.rt.reset_device(self.device_id), "acl.rt.reset_device")
        check(acl.finalize(), "acl.finalize")

    def release_as_the_samples_do(self):
        check(acl.rt.destroy_context(self.context), "acl.rt.destroy_context")
        check(acl.rt.reset_device(self.device_id), "acl.rt.reset_device")
        check(acl.finalize(), "acl.finalize")


def copy_round_trip(res):
    data = bytes((i * 7 + 3) % 256 for i in range(1 << 16))
    size = len(data)
    on_host = res.run_mode == ACL_HOST
    if on_host:
        host, ret = acl.rt.malloc_host(size)
    else:
        host, ret = acl.rt.malloc(size, ACL_MEM_MALLOC_HUGE_FIRST)
    if not check(ret, "malloc (host side)"):
        return
    dev, ret = acl.rt.malloc(size, ACL_MEM_MALLOC_HUGE_FIRST)
    if not check(ret, "acl.rt.malloc"):
        return
    src = acl.util.bytes_to_ptr(data)
    # Application memory goes to the host side buffer first (on the device,
    # that buffer is device memory).
    kind_in = ACL_MEMCPY_HOST_TO_DEVICE if on_host else ACL_MEMCPY_DEVICE_TO_DEVICE
    check(acl.rt.memcpy(host, size, src, size, 0 if on_host else ACL_MEMCPY_HOST_TO_DEVICE), "memcpy in")
    check(acl.rt.memcpy(dev, size, host, size, kind_in), "acl.rt.memcpy to the device")
    # The samples' way back: into a bytes object's own buffer.
    back = bytes(size)
    dst = acl.util.bytes_to_ptr(back)
    check(acl.rt.memcpy(dst, size, dev, size, ACL_MEMCPY_DEVICE_TO_HOST), "acl.rt.memcpy back")
    if back != data:
        failures.append("the copied bytes differ")
    check(acl.rt.free(dev), "acl.rt.free")
    check(acl.rt.free_host(host) if on_host else acl.rt.free(host), "free (host side)")
    print(f"copy round trip: {size} bytes ok")


def big_buffers():
    big = 4 << 30
    free0, total, ret = acl.rt.get_mem_info(ACL_HBM_MEM)
    check(ret, "acl.rt.get_mem_info")
    a, ret_a = acl.rt.malloc(big, ACL_MEM_MALLOC_HUGE_FIRST)
    b, ret_b = acl.rt.malloc(big, ACL_MEM_MALLOC_HUGE_FIRST)
    if not (check(ret_a, "acl.rt.malloc 4 GiB") and check(ret_b, "acl.rt.malloc 4 GiB")):
        return
    free1, _, ret = acl.rt.get_mem_info(ACL_HBM_MEM)
    check(ret, "acl.rt.get_mem_info")
    if free0 - free1 < 2 * big:
        failures.append(f"free memory {free0} -> {free1} after 8 GiB")
    check(acl.rt.free(a), "acl.rt.free")
    check(acl.rt.free(b), "acl.rt.free")
    print(f"big buffers: 2 x 4 GiB of {total >> 30} GiB ok")


def callback_thread(res):
    stop = threading.Event()
    seen = []

    def serve():
        if acl.rt.set_context(res.context) != ACL_SUCCESS:
            return
        while not stop.is_set():
            acl.rt.process_report(20)

    def on_report(user_data):
        seen.append(user_data)

    worker = threading.Thread(target=serve, daemon=True)
    worker.start()
    ok = check(acl.rt.subscribe_report(worker.ident, res.stream), "acl.rt.subscribe_report")
    for i in range(8):
        ok = ok and check(acl.rt.launch_callback(on_report, i, ACL_CALLBACK_BLOCK, res.stream),
                          "acl.rt.launch_callback")
    ok = ok and check(acl.rt.synchronize_stream(res.stream), "acl.rt.synchronize_stream")
    check(acl.rt.unsubscribe_report(worker.ident, res.stream), "acl.rt.unsubscribe_report")
    stop.set()
    worker.join()
    if sorted(seen) != list(range(8)):
        failures.append(f"callbacks saw {seen}")
    elif ok:
        print("callback thread: 8 callbacks ok")


def main():
    sloppy = len(sys.argv) > 1 and sys.argv[1] == "sloppy"
    res = AclResource(0)
    if res.init() and res.set_device_again():
        copy_round_trip(res)
        big_buffers()
        callback_thread(res)
    if sloppy:
        res.release_as_the_samples_do()
    else:
        res.release_tidy()
    if failures:
        for f in failures:
            print(f, file=sys.stderr)
        return 1
    print(f"acl_resource({'sloppy' if sloppy else 'tidy'}): ok")
    return 0


if __name__ == "__main__":
    sys.exit(main())
