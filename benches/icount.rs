//! Deterministic cost of one safe call versus one raw call, for
//! `benches/instructions.sh` (valgrind --tool=callgrind counts instructions).
//!
//! Usage: `icount <safe|raw> <copy|event|stream|memset|scope> <iterations>`;
//! without
//! arguments (as under `cargo bench`) it does nothing. The script runs it
//! with 0 and N iterations and divides the difference by N, so setup and
//! teardown cancel out. `scope` is a whole safe `Context::scope` with one
//! lane, one async 4 KiB copy and its wait, against `aclrtMemcpyAsync` +
//! `aclrtSynchronizeStream`; the script counts the calling thread only
//! (the stream worker's instructions are the same simulator work on both
//! sides, and its idle spinning is not deterministic).

use std::ffi::c_void;
use std::ptr::null_mut;

use aclrt::{Acl, HostMode, make_guard, sys};

fn ok(code: sys::aclError) {
    assert_eq!(code, 0, "ACL call failed: {code}");
}

fn main() {
    let args: Vec<String> = std::env::args()
        .skip(1)
        .filter(|a| !a.starts_with("--"))
        .collect();
    let [mode, op, iterations] = args.as_slice() else {
        return;
    };
    let n: usize = iterations.parse().expect("iterations");
    let acl = Acl::init().expect("aclInit");
    let rt = acl.require::<HostMode>().expect("host run mode");
    let device = rt.device(0).expect("device");
    make_guard!(g);
    let ctx = device.create_context(g).expect("context");
    let stream = ctx.create_stream().expect("stream");
    let host = ctx.alloc_host_from(&[1u8; 4096]).expect("pinned");
    let mut dev = ctx.alloc::<u8>(4096).expect("device");
    let (raw_ctx, raw_stream) = (ctx.as_raw(), stream.as_raw());
    let (hp, dp) = (
        host.as_ptr() as *const c_void,
        dev.as_device_ptr() as *mut c_void,
    );
    let mut ev = Some(
        stream
            .record(ctx.create_event().expect("event"))
            .expect("record"),
    );
    let mut raw_ev = null_mut();
    // SAFETY: valid out pointer; `raw_ctx` is live.
    unsafe {
        ok(sys::aclrtSetCurrentContext(raw_ctx));
        ok(sys::aclrtCreateEvent(&mut raw_ev));
    }
    for _ in 0..n {
        match (mode.as_str(), op.as_str()) {
            ("safe", "copy") => ctx.copy(&host, &mut dev).expect("copy"),
            ("raw", "copy") => {
                // SAFETY: live regions of 4096 bytes; the context is current.
                let code =
                    unsafe { sys::aclrtMemcpy(dp, 4096, hp, 4096, sys::ACL_MEMCPY_HOST_TO_DEVICE) };
                ok(code)
            }
            ("safe", "event") => {
                let e = stream.record(ev.take().expect("event")).expect("record");
                e.synchronize().expect("sync");
                ev = Some(e);
            }
            // SAFETY: live event and stream of the current context.
            ("raw", "event") => unsafe {
                ok(sys::aclrtRecordEvent(raw_ev, raw_stream));
                ok(sys::aclrtSynchronizeEvent(raw_ev));
            },
            ("safe", "stream") => ctx
                .create_stream()
                .expect("create")
                .destroy()
                .expect("destroy"),
            ("raw", "stream") => {
                let mut s = null_mut();
                // SAFETY: valid out pointer; the context is current.
                unsafe {
                    ok(sys::aclrtCreateStream(&mut s));
                    ok(sys::aclrtDestroyStream(s));
                }
            }
            ("safe", "memset") => ctx.memset(&mut dev, 0).expect("memset"),
            // SAFETY: a live device region of 4096 bytes; the context is current.
            ("raw", "memset") => ok(unsafe { sys::aclrtMemset(dp, 4096, 0, 4096) }),
            ("safe", "scope") => ctx
                .scope(|s| {
                    make_guard!(l);
                    let lane = s.lane(&stream, l);
                    lane.copy(&host, &mut dev)?.wait()?;
                    Ok(())
                })
                .expect("scope"),
            // SAFETY: live regions of 4096 bytes, a live stream of the
            // current context; synchronised before the next iteration.
            ("raw", "scope") => unsafe {
                ok(sys::aclrtMemcpyAsync(
                    dp,
                    4096,
                    hp,
                    4096,
                    sys::ACL_MEMCPY_HOST_TO_DEVICE,
                    raw_stream,
                ));
                ok(sys::aclrtSynchronizeStream(raw_stream));
            },
            other => panic!("unknown case {other:?}"),
        }
    }
    // SAFETY: the raw event is live and unused from here on.
    unsafe { ok(sys::aclrtDestroyEvent(raw_ev)) };
}
