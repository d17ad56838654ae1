"""Ordered acquire and release, pyACL style: explicit context and stream,
then the default ones (seeds 001/002). Runs on aclrt's simulator unchanged."""

import acl

ACL_SUCCESS = 0


def check(ret, what):
    if ret != ACL_SUCCESS:
        raise RuntimeError(f"{what} failed: {ret} ({acl.get_recent_err_msg()})")


def explicit(device_id):
    check(acl.rt.set_device(device_id), "set_device")
    context, ret = acl.rt.create_context(device_id)
    check(ret, "create_context")
    stream, ret = acl.rt.create_stream()
    check(ret, "create_stream")
    print(f"explicit: context {context:#x}, stream {stream:#x}")
    # release: stream -> context -> device
    check(acl.rt.synchronize_stream(stream), "synchronize_stream")
    check(acl.rt.destroy_stream(stream), "destroy_stream")
    check(acl.rt.destroy_context(context), "destroy_context")
    check(acl.rt.reset_device(device_id), "reset_device")


def default(device_id):
    # set_device creates the default context and stream; 0 is the default stream.
    check(acl.rt.set_device(device_id), "set_device")
    context, ret = acl.rt.get_context()
    check(ret, "get_context")
    check(acl.rt.synchronize_stream(0), "synchronize_stream(0)")
    print(f"default: context {context:#x}, stream 0")
    check(acl.rt.reset_device(device_id), "reset_device")


def main():
    check(acl.init(), "init")
    count, ret = acl.rt.get_device_count()
    check(ret, "get_device_count")
    print(f"{count} device(s), SoC {acl.get_soc_name()}")
    explicit(0)
    default(0)
    check(acl.finalize(), "finalize")
    print("ok")


if __name__ == "__main__":
    main()
