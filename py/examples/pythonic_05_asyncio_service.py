"""Awaiting the NPU from asyncio: a small service where many asyncio tasks
share one device. Each request is a batch: its input goes up to device
memory, is checked there by a stream callback, and comes back into numpy
with an awaited copy (`await stream.to_numpy_async(buf)`). The event loop
never blocks: the waits run on waiting threads of the `acl` module, and the
loop resumes each task when its stream's work is done.

A fault fails only its batch: request 13's check raises in its callback,
its `await` raises `aclrt.CallbackError`, and every other request is
served."""

import asyncio

import aclrt
import numpy as np

REQUESTS = 40
STREAMS = 4
FAULTY = 13


async def serve(ctx, streams, request):
    stream = await streams.get()  # a stream of the pool, for this batch
    try:
        batch = np.arange(256, dtype=np.int32) * request
        with ctx.pinned(batch.nbytes) as staged, ctx.alloc(batch.nbytes) as dev:
            staged.write(batch)
            stream.copy(dev, staged)

            def check(request=request):
                if request == FAULTY:
                    raise ValueError(f"batch {request} is corrupt")

            stream.add_callback(check)
            out = await stream.to_numpy_async(dev, np.int32)
        assert (out == batch).all()
        return int(out.sum())
    finally:
        streams.put_nowait(stream)


async def main_async(ctx):
    streams = asyncio.Queue()
    pool = [ctx.stream() for _ in range(STREAMS)]
    for s in pool:
        streams.put_nowait(s)
    ticks = 0

    async def heartbeat():  # runs while the device works: the loop is free
        nonlocal ticks
        while True:
            ticks += 1
            await asyncio.sleep(0)

    beat = asyncio.create_task(heartbeat())
    results = await asyncio.gather(
        *(serve(ctx, streams, r) for r in range(REQUESTS)), return_exceptions=True
    )
    beat.cancel()
    failed = [r for r, res in enumerate(results) if isinstance(res, BaseException)]
    print(f"served {REQUESTS - len(failed)} of {REQUESTS} batches; failed: {failed}")
    assert failed == [FAULTY], results
    assert isinstance(results[FAULTY], aclrt.CallbackError), results[FAULTY]
    print("the fault:", results[FAULTY])
    for r, res in enumerate(results):
        if r != FAULTY:
            assert res == sum(range(256)) * r
    assert ticks > 0
    return pool


def main():
    with aclrt.Runtime() as rt, rt.device(0) as dev, dev.context() as ctx:
        print("run mode:", "ACL_HOST" if ctx.run_mode == 1 else "ACL_DEVICE")
        asyncio.run(main_async(ctx))
    print("ok")


if __name__ == "__main__":
    main()
