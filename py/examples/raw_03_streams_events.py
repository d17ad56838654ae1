"""Async copies, stream synchronisation, events between two streams and the
elapsed time, pyACL style (seed 004)."""

import acl

ACL_SUCCESS = 0
ACL_HOST = 1
ACL_MEMCPY_HOST_TO_DEVICE, ACL_MEMCPY_DEVICE_TO_HOST, ACL_MEMCPY_DEVICE_TO_DEVICE = 1, 2, 3
ACL_EVENT_SYNC, ACL_EVENT_TIME_LINE = 0x1, 0x8
ACL_EVENT_RECORDED_STATUS_COMPLETE = 1
SIZE = 64 * 1024


def check(ret, what):
    if ret != ACL_SUCCESS:
        raise RuntimeError(f"{what} failed: {ret} ({acl.get_recent_err_msg()})")


def main():
    check(acl.init(), "init")
    check(acl.rt.set_device(0), "set_device")
    context, ret = acl.rt.create_context(0)
    check(ret, "create_context")
    run_mode, _ = acl.rt.get_run_mode()
    h2d = ACL_MEMCPY_HOST_TO_DEVICE if run_mode == ACL_HOST else ACL_MEMCPY_DEVICE_TO_DEVICE
    d2h = ACL_MEMCPY_DEVICE_TO_HOST if run_mode == ACL_HOST else ACL_MEMCPY_DEVICE_TO_DEVICE

    producer, ret = acl.rt.create_stream()
    check(ret, "create_stream")
    consumer, ret = acl.rt.create_stream()
    check(ret, "create_stream")
    flags = ACL_EVENT_SYNC | ACL_EVENT_TIME_LINE
    start, ret = acl.rt.create_event_ex_with_flag(flags)
    check(ret, "create_event_ex_with_flag")
    done, ret = acl.rt.create_event_ex_with_flag(flags)
    check(ret, "create_event_ex_with_flag")

    src, _ = acl.rt.malloc_host(SIZE)
    dst, _ = acl.rt.malloc_host(SIZE)
    check(acl.rt.memset(src, SIZE, 0x11, SIZE), "memset")
    check(acl.rt.memset(dst, SIZE, 0, SIZE), "memset")
    dev, ret = acl.rt.malloc(SIZE, 0)
    check(ret, "malloc")

    # producer: H2D, then the event; consumer waits for it, then D2H.
    check(acl.rt.record_event(start, producer), "record_event")
    check(acl.rt.memcpy_async(dev, SIZE, src, SIZE, h2d, producer), "memcpy_async")
    check(acl.rt.record_event(done, producer), "record_event")
    check(acl.rt.stream_wait_event(consumer, done), "stream_wait_event")
    check(acl.rt.memcpy_async(dst, SIZE, dev, SIZE, d2h, consumer), "memcpy_async")
    check(acl.rt.synchronize_stream(consumer), "synchronize_stream")
    check(acl.rt.synchronize_stream(producer), "synchronize_stream")

    status, ret = acl.rt.query_event_status(done)
    check(ret, "query_event_status")
    assert status == ACL_EVENT_RECORDED_STATUS_COMPLETE
    ms, ret = acl.rt.event_elapsed_time(start, done)
    check(ret, "event_elapsed_time")
    assert acl.util.ptr_to_bytes(dst, SIZE) == b"\x11" * SIZE
    print(f"H2D of {SIZE} bytes took {ms:.3f} ms on the producer stream; consumer saw it")

    for ev in (start, done):
        check(acl.rt.destroy_event(ev), "destroy_event")
    check(acl.rt.free(dev), "free")
    check(acl.rt.free_host(src), "free_host")
    check(acl.rt.free_host(dst), "free_host")
    check(acl.rt.destroy_stream(consumer), "destroy_stream")
    check(acl.rt.destroy_stream(producer), "destroy_stream")
    check(acl.rt.destroy_context(context), "destroy_context")
    check(acl.rt.reset_device(0), "reset_device")
    check(acl.finalize(), "finalize")
    print("ok")


if __name__ == "__main__":
    main()
