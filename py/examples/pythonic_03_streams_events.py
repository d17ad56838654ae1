"""Async copies, two streams ordered by an event, elapsed time, Pythonic style."""

import aclrt

SIZE = 64 * 1024


def main():
    with aclrt.Runtime() as rt, rt.device(0) as dev, dev.context() as ctx:
        with ctx.stream() as producer, ctx.stream() as consumer:
            src, dst = ctx.pinned(SIZE), ctx.pinned(SIZE)
            src.write(b"\x11" * SIZE)
            d = ctx.alloc(SIZE)
            start, done = ctx.event(), ctx.event()
            producer.record(start)
            producer.copy(d, src)  # async: src and d stay busy until synchronized
            producer.record(done)
            consumer.wait(done)
            consumer.copy(dst, d)
            consumer.synchronize()
            producer.synchronize()
            assert done.query()
            assert dst.tobytes() == b"\x11" * SIZE
            print(f"H2D of {SIZE} bytes took {done - start:.3f} ms; consumer saw it")
    print("ok")


if __name__ == "__main__":
    main()
