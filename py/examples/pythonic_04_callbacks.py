"""Callbacks, Pythonic style: stream.add_callback hides the subscribed
thread and process_report; an exception in a callback surfaces at the next
synchronize()."""

import aclrt


def main():
    results = []
    with aclrt.Runtime() as rt, rt.device(0) as dev, dev.context() as ctx, ctx.stream() as s:
        d = ctx.alloc(4096)
        for i in range(3):
            s.memset(d, i)
            s.add_callback(results.append, f"batch {i}")
        s.synchronize()
        print("callbacks:", results)
        assert results == [f"batch {i}" for i in range(3)]
        s.add_callback(lambda: 1 / 0)
        try:
            s.synchronize()
        except aclrt.CallbackError as e:
            print("reported:", e)
    print("ok")


if __name__ == "__main__":
    main()
