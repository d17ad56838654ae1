"""Virtual memory, Pythonic style: a device buffer that grows in place.
A range of eight granules is reserved; one physical allocation is mapped at
its start and filled; a second allocation is mapped right after it
(`mapping.grow`): the buffer has twice the size at the same address and the
data written before is still there. Releasing the range or freeing an
allocation while mapped raises; the with-block unmaps, frees and releases in
order."""

import aclrt


def main():
    with aclrt.Runtime() as rt, rt.device(0) as dev, dev.context() as ctx, ctx.stream() as s:
        g = ctx.granularity
        print("granularity:", g, "bytes")
        reservation = ctx.reserve(ctx.granules(8))
        first = ctx.alloc_physical(g)
        buf = reservation.map(first)
        data = bytes(range(256)) * (g // 256)
        ctx.copy(buf, data)
        address = buf.ptr

        buf.grow(ctx.alloc_physical(g))
        assert buf.ptr == address and buf.nbytes == 2 * g, "grown in place"
        head, tail = buf.pieces()  # one copy per physical allocation
        s.memset(tail, 0x7F)
        back = ctx.pinned(g)
        s.copy(back, head)
        s.synchronize()
        assert back.tobytes() == data, "the first granule kept its data"
        check = bytearray(16)
        ctx.copy(check, tail, 16)
        assert check == b"\x7f" * 16
        print("grown:", buf.nbytes, "bytes at", hex(buf.ptr))
        try:
            first.close()
        except aclrt.AclUsageError as e:
            print("refused:", e)
        del head, tail
    print("ok")


if __name__ == "__main__":
    main()
