"""Ordered acquire and release, Pythonic style: with-blocks release in the
only legal order (also on an exception); the default context and stream are
views that cannot be destroyed."""

import aclrt


def main():
    with aclrt.Runtime() as rt:
        print(f"{rt.device_count} device(s)")
        with rt.device(0) as dev:
            with dev.context() as ctx, ctx.stream() as stream:
                print(f"explicit: context {ctx.handle:#x}, stream {stream.handle:#x}")
                stream.synchronize()
            default = dev.default_context
            default.default_stream.synchronize()
            print(f"default: context {default.handle:#x}, stream 0")
            try:
                default.close()
            except aclrt.AclUsageError as e:
                print("refused:", e)
        # An exception inside: everything is still released, children first.
        try:
            with rt.device(0) as dev, dev.context() as ctx:
                ctx.stream()
                ctx.alloc(1024)
                raise KeyError("something failed")
        except KeyError:
            print("released after an exception:", ctx.closed and dev.closed)
    print("ok")


if __name__ == "__main__":
    main()
