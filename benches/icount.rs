//! Deterministic cost of one safe call versus one raw call, for
//! `benches/instructions.sh` (valgrind --tool=callgrind counts instructions).
//!
//! Usage: `icount <safe|raw> <copy|event|stream|memset|scope|kernel> <iterations>`;
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

use aclrt::kernel::Scalar;
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
    // A synchronising thread first watches the stream for a few
    // microseconds before it parks; how long depends on when the worker
    // runs. Parking at once keeps the calling thread's count deterministic
    // (the same on both sides: both synchronise through the same call).
    aclrt::sim::set_sync_spin(std::time::Duration::ZERO);
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
    // The raw side records and waits on the same event as the safe side:
    // the simulator finds an event by handle in an ordered map, so an event
    // created later costs it more per lookup (about 30 instructions per
    // record + synchronize here), which would count for the wrapper.
    let raw_ev = ev.as_ref().expect("event").as_raw();
    // SAFETY: `raw_ctx` is live.
    unsafe { ok(sys::aclrtSetCurrentContext(raw_ctx)) };
    if op == "kernel" {
        kernel_launches(mode, n, &ctx, &stream);
        return;
    }
    // The case is chosen once, outside the counted loop: each arm runs its
    // own copy of `repeat`, so both sides pay the same loop and nothing else
    // (a `match` on the strings inside the loop cost the later arms, the raw
    // ones, more compares per iteration).
    match (mode.as_str(), op.as_str()) {
        ("safe", "copy") => repeat(n, || ctx.copy(&host, &mut dev).expect("copy")),
        ("raw", "copy") => repeat(n, || {
            // SAFETY: live regions of 4096 bytes; the context is current.
            let code =
                unsafe { sys::aclrtMemcpy(dp, 4096, hp, 4096, sys::ACL_MEMCPY_HOST_TO_DEVICE) };
            ok(code)
        }),
        // The event moves through each record (`Stream::record` takes it by
        // value): the loop owns it, with no `Option` to juggle.
        ("safe", "event") => {
            let mut e = ev.take().expect("event");
            for _ in 0..n {
                e = stream.record(e).expect("record");
                e.synchronize().expect("sync");
            }
        }
        ("raw", "event") => {
            for _ in 0..n {
                // SAFETY: live event (`ev`, alive until the end of `main`)
                // and stream of the current context.
                unsafe {
                    ok(sys::aclrtRecordEvent(raw_ev, raw_stream));
                    ok(sys::aclrtSynchronizeEvent(raw_ev));
                }
            }
        }
        ("safe", "stream") => repeat(n, || {
            ctx.create_stream()
                .expect("create")
                .destroy()
                .expect("destroy")
        }),
        ("raw", "stream") => repeat(n, || {
            let mut s = null_mut();
            // SAFETY: valid out pointer; the context is current.
            unsafe {
                ok(sys::aclrtCreateStream(&mut s));
                ok(sys::aclrtDestroyStream(s));
            }
        }),
        ("safe", "memset") => repeat(n, || ctx.memset(&mut dev, 0).expect("memset")),
        // SAFETY: a live device region of 4096 bytes; the context is current.
        ("raw", "memset") => repeat(n, || ok(unsafe { sys::aclrtMemset(dp, 4096, 0, 4096) })),
        ("safe", "scope") => repeat(n, || {
            ctx.scope(|s| {
                make_guard!(l);
                let lane = s.lane(&stream, l);
                lane.copy(&host, &mut dev)?.wait()?;
                Ok(())
            })
            .expect("scope")
        }),
        // SAFETY: live regions of 4096 bytes, a live stream of the current
        // context; synchronised before the next iteration.
        ("raw", "scope") => repeat(n, || unsafe {
            ok(sys::aclrtMemcpyAsync(
                dp,
                4096,
                hp,
                4096,
                sys::ACL_MEMCPY_HOST_TO_DEVICE,
                raw_stream,
            ));
            ok(sys::aclrtSynchronizeStream(raw_stream));
        }),
        other => panic!("unknown case {other:?}"),
    }
}

/// Run `f` `n` times: the counted loop, one copy per case.
#[inline(never)]
fn repeat(n: usize, mut f: impl FnMut()) {
    for _ in 0..n {
        f();
    }
}

/// `kernel`: `n` launches of an empty registered kernel with one 4-byte
/// scalar argument on `stream`. Safe: `Lane::launch` inside a scope opened
/// before the launches; raw: `aclrtKernelArgsInit`/`Append`/`Finalize` and
/// `aclrtLaunchKernelWithConfig`, with the context made current once
/// before, and an `aclrtSynchronizeStream` after them (what the scope's end
/// does on the safe side). Both sides load the binary and look up the
/// function once, outside the counted launches.
///
/// The stream's worker would otherwise run the launches while they are
/// queued, and how often it sleeps and is woken depends on the timing of
/// the two threads, which differs between the two sides (a few hundred
/// instructions per launch either way). So both sides first queue a host
/// function that holds the worker until every launch is queued ([`gate`]):
/// the queue and the worker then do exactly the same work on both sides.
fn kernel_launches<'id, M: aclrt::RunMode>(
    mode: &str,
    n: usize,
    ctx: &aclrt::Context<'_, 'id, M>,
    stream: &aclrt::Stream<'_, 'id>,
) {
    aclrt::sim::register_kernel("icount_empty", |_, _, _| Ok(()));
    let binary = ctx
        .load_binary(&aclrt::sim::binary_image(&["icount_empty"]))
        .expect("binary");
    // SAFETY: `icount_empty` touches no memory.
    let empty = unsafe { binary.kernel::<(Scalar<u32>,)>(c"icount_empty") }.expect("kernel");
    let (func, raw_stream) = (empty.as_raw(), stream.as_raw());
    // SAFETY: the context is live.
    unsafe { ok(sys::aclrtSetCurrentContext(ctx.as_raw())) };
    match mode {
        "safe" => ctx
            .scope(|s| {
                make_guard!(l);
                let lane = s.lane(stream, l);
                gate::close(raw_stream);
                for i in 0..n {
                    lane.launch(&empty, 1u32, (i as u32,))?;
                }
                gate::open();
                Ok(())
            })
            .expect("launches"),
        "raw" => {
            gate::close(raw_stream);
            for i in 0..n {
                let mut value = i as u32;
                let (mut args, mut param) = (null_mut(), null_mut());
                // SAFETY: `func` is a live function handle of the current
                // context's device; out pointers to locals; `value` is a
                // live 4-byte scalar; this thread's list is finalized before
                // the launch; `stream` is live and of the current context.
                unsafe {
                    ok(sys::aclrtKernelArgsInit(func, &mut args));
                    ok(sys::aclrtKernelArgsAppend(
                        args,
                        (&raw mut value).cast::<c_void>(),
                        4,
                        &mut param,
                    ));
                    ok(sys::aclrtKernelArgsFinalize(args));
                    ok(sys::aclrtLaunchKernelWithConfig(
                        func,
                        1,
                        raw_stream,
                        null_mut(),
                        args,
                        null_mut(),
                    ));
                }
            }
            gate::open();
            // SAFETY: live stream of the current context.
            unsafe { ok(sys::aclrtSynchronizeStream(raw_stream)) };
        }
        other => panic!("unknown mode {other:?}"),
    }
    binary.unload().expect("unload");
}

/// Holds a stream's worker in a host function until [`open`](gate::open).
mod gate {
    use std::ffi::c_void;
    use std::ptr::null_mut;
    use std::sync::{Condvar, Mutex};

    use aclrt::sys;

    static OPEN: Mutex<bool> = Mutex::new(true);
    static WAKE: Condvar = Condvar::new();

    extern "C" fn hold(_: *mut c_void) {
        let mut open = OPEN.lock().unwrap();
        while !*open {
            open = WAKE.wait(open).unwrap();
        }
    }

    /// Queue the gate, closed, on `stream` (of the current context).
    pub fn close(stream: *mut c_void) {
        *OPEN.lock().unwrap() = false;
        // SAFETY: `stream` is live and of the current context; `hold` is a
        // plain function that ignores its argument and does not unwind.
        let code = unsafe { sys::aclrtLaunchHostFunc(stream, Some(hold), null_mut()) };
        assert_eq!(code, 0, "aclrtLaunchHostFunc failed: {code}");
    }

    /// Let the worker go on.
    pub fn open() {
        *OPEN.lock().unwrap() = true;
        WAKE.notify_all();
    }
}
