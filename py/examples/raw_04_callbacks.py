"""Callbacks, pyACL style: a thread subscribed to the stream serves
process_report while the main thread blocks in synchronize_stream."""

import threading

import acl

ACL_SUCCESS = 0
ACL_CALLBACK_BLOCK = 1


def check(ret, what):
    if ret != ACL_SUCCESS:
        raise RuntimeError(f"{what} failed: {ret} ({acl.get_recent_err_msg()})")


def main():
    check(acl.init(), "init")
    check(acl.rt.set_device(0), "set_device")
    context, ret = acl.rt.create_context(0)
    check(ret, "create_context")
    stream, ret = acl.rt.create_stream()
    check(ret, "create_stream")

    running = [True]

    def report_loop(ctx):
        check(acl.rt.set_context(ctx), "set_context")  # threads set it themselves
        while running[0]:
            acl.rt.process_report(100)  # non-zero on timeout: keep going

    tid, ret = acl.util.start_thread(report_loop, context)
    check(ret, "start_thread")
    check(acl.rt.subscribe_report(tid, stream), "subscribe_report")

    results = []

    def on_done(user_data):
        results.append((user_data[0], threading.get_ident() == tid))

    dev, _ = acl.rt.malloc(4096, 0)
    for i in range(3):
        check(acl.rt.memset_async(dev, 4096, i, 4096, stream), "memset_async")
        check(acl.rt.launch_callback(on_done, [f"batch {i}"], ACL_CALLBACK_BLOCK, stream), "launch_callback")
    check(acl.rt.synchronize_stream(stream), "synchronize_stream")
    print("callbacks:", results)
    assert results == [(f"batch {i}", True) for i in range(3)]

    check(acl.rt.unsubscribe_report(tid, stream), "unsubscribe_report")
    running[0] = False
    check(acl.util.stop_thread(tid), "stop_thread")
    check(acl.rt.free(dev), "free")
    check(acl.rt.destroy_stream(stream), "destroy_stream")
    check(acl.rt.destroy_context(context), "destroy_context")
    check(acl.rt.reset_device(0), "reset_device")
    check(acl.finalize(), "finalize")
    print("ok")


if __name__ == "__main__":
    main()
