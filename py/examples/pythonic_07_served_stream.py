"""A stream's callbacks served by the program's own thread, and the
hand-off primitives a second process would use: `with stream.serve() as
server:` subscribes this thread; callbacks run inside `server.process()`;
the end of the block runs those still due. A notify exported by key and an
IPC event opened from its handle order a second stream after the first
(here within one process; they work between processes too)."""

import os
import threading

import aclrt


def main():
    with aclrt.Runtime() as rt, rt.device(0) as dev, dev.context() as ctx:
        s1, s2 = ctx.stream(), ctx.stream()
        ran = []
        with s1.serve() as server:
            for i in range(3):
                s1.add_callback(lambda i=i: ran.append((i, threading.get_ident())))
            while len(ran) < 3:
                server.process(timeout=1.0)
        assert [i for i, _ in ran] == [0, 1, 2]
        assert {t for _, t in ran} == {threading.get_ident()}, "run on this thread"
        print("callbacks served here:", [i for i, _ in ran])

        buf, host = ctx.alloc(4096), ctx.pinned(4096)
        notify = ctx.notify()
        imported = ctx.import_notify(notify.export(pids=[os.getpid()]))
        s1.memset(buf, 0x2A)
        notify.record(s1)
        imported.wait(s2)
        s2.copy(host, buf)
        s2.synchronize()
        assert set(host.tobytes()) == {0x2A}
        print("ordered by an imported notify")
        s1.synchronize()

        if os.environ.get("ACLRT_SIM_SOC", "910b") != "310p":  # the 310P has no IPC events
            ev = ctx.ipc_event()
            opened = ctx.ipc_open_event(ev.ipc_handle)
            s1.memset(buf, 0x2B)
            s1.record(ev)
            s2.wait(opened)
            s2.copy(host, buf)
            s2.synchronize()
            assert set(host.tobytes()) == {0x2B}
            print("ordered by an opened IPC event")
            s1.synchronize()
    print("ok")


if __name__ == "__main__":
    main()
