//! Zero-cost proof: the same operation through the safe API and through raw
//! `aclrt-sys` calls, on the same simulator, in the same run.
//!
//! `cargo bench --bench overhead` (criterion). The raw side is the minimal
//! correct raw code: it makes its context current once, outside the timed
//! loop, while the safe side checks (and if needed sets) the current context
//! on every call. The context-switch case switches on both sides.

use std::ffi::c_void;
use std::hint::black_box;
use std::ptr::null_mut;
use std::time::Duration;

use aclrt::{Acl, HostMode, make_guard, sys};
use criterion::{Criterion, criterion_group, criterion_main};

const N: usize = 4096;

fn ok(code: sys::aclError) {
    assert_eq!(code, 0, "ACL call failed: {code}");
}

fn bench(c: &mut Criterion) {
    let acl = Acl::init().expect("aclInit");
    let rt = acl.require::<HostMode>().expect("host run mode");
    let device = rt.device(0).expect("device 0");
    make_guard!(ga);
    let ctx = device.create_context(ga).expect("context A");
    make_guard!(gb);
    let ctx_b = device.create_context(gb).expect("context B");
    let stream = ctx.create_stream().expect("stream");
    let host = ctx.alloc_host_from(&[7u8; N]).expect("pinned");
    let mut dev = ctx.alloc::<u8>(N).expect("device");
    let host_b = ctx_b.alloc_host_from(&[9u8; N]).expect("pinned B");
    let mut dev_b = ctx_b.alloc::<u8>(N).expect("device B");
    let raw_stream = stream.as_raw();
    let raw_ctx = ctx.as_raw();
    let raw_ctx_b = ctx_b.as_raw();
    let host_ptr = host.as_ptr() as *const c_void;
    let dev_ptr = dev.as_device_ptr() as *mut c_void;
    let host_b_ptr = host_b.as_ptr() as *const c_void;
    let dev_b_ptr = dev_b.as_device_ptr() as *mut c_void;

    let mut g = c.benchmark_group("stream_create_destroy");
    g.bench_function("safe", |b| {
        b.iter(|| {
            ctx.create_stream()
                .expect("create")
                .destroy()
                .expect("destroy")
        })
    });
    g.bench_function("raw", |b| {
        // The minimal correct raw code: make the context current once.
        // SAFETY: `raw_ctx` is a live context.
        ok(unsafe { sys::aclrtSetCurrentContext(raw_ctx) });
        b.iter(|| {
            let mut s = null_mut();
            // SAFETY: valid out pointer; the stream's context is current.
            unsafe {
                ok(sys::aclrtCreateStream(&mut s));
                ok(sys::aclrtDestroyStream(s));
            }
        })
    });
    g.finish();

    let mut g = c.benchmark_group("event_record_synchronize");
    let mut ev = Some(
        stream
            .record(ctx.create_event().expect("event"))
            .expect("record"),
    );
    g.bench_function("safe", |b| {
        b.iter(|| {
            let e = stream.record(ev.take().expect("event")).expect("record");
            e.synchronize().expect("sync");
            ev = Some(e);
        })
    });
    let mut raw_ev = null_mut();
    // SAFETY: valid out pointer; `raw_ctx` is a live context.
    unsafe {
        ok(sys::aclrtSetCurrentContext(raw_ctx));
        ok(sys::aclrtCreateEvent(&mut raw_ev));
    }
    g.bench_function("raw", |b| {
        // SAFETY: `raw_ctx` is a live context.
        ok(unsafe { sys::aclrtSetCurrentContext(raw_ctx) });
        b.iter(|| {
            // SAFETY: live event and stream of the current context.
            unsafe {
                ok(sys::aclrtRecordEvent(raw_ev, raw_stream));
                ok(sys::aclrtSynchronizeEvent(raw_ev));
            }
        })
    });
    g.finish();

    let mut g = c.benchmark_group("memcpy_sync_4k");
    g.bench_function("safe", |b| {
        b.iter(|| ctx.copy(&host, &mut dev).expect("copy"))
    });
    g.bench_function("raw", |b| {
        // SAFETY: `raw_ctx` is a live context.
        ok(unsafe { sys::aclrtSetCurrentContext(raw_ctx) });
        b.iter(|| {
            // SAFETY: both regions are live allocations of N bytes.
            unsafe {
                ok(sys::aclrtMemcpy(
                    dev_ptr,
                    N,
                    host_ptr,
                    N,
                    sys::ACL_MEMCPY_HOST_TO_DEVICE,
                ));
            }
        })
    });
    g.finish();

    let mut g = c.benchmark_group("memcpy_async_4k_synchronize");
    g.bench_function("safe", |b| {
        b.iter(|| {
            ctx.scope(|s| {
                make_guard!(l);
                let lane = s.lane(&stream, l);
                lane.copy(&host, &mut dev)?.wait()?;
                Ok(())
            })
            .expect("scope")
        })
    });
    g.bench_function("raw", |b| {
        // SAFETY: `raw_ctx` is a live context.
        ok(unsafe { sys::aclrtSetCurrentContext(raw_ctx) });
        b.iter(|| {
            // SAFETY: live allocations of N bytes, live stream of the
            // current context; synchronised before the next iteration.
            unsafe {
                ok(sys::aclrtMemcpyAsync(
                    dev_ptr,
                    N,
                    host_ptr,
                    N,
                    sys::ACL_MEMCPY_HOST_TO_DEVICE,
                    raw_stream,
                ));
                ok(sys::aclrtSynchronizeStream(raw_stream));
            }
        })
    });
    g.finish();

    let mut g = c.benchmark_group("context_switch_copy_4k");
    g.bench_function("safe", |b| {
        b.iter(|| {
            ctx.copy(&host, &mut dev).expect("copy A");
            ctx_b.copy(&host_b, &mut dev_b).expect("copy B");
        })
    });
    g.bench_function("raw", |b| {
        b.iter(|| {
            // SAFETY: each copy runs with its own context current; all
            // regions are live allocations of N bytes.
            unsafe {
                ok(sys::aclrtSetCurrentContext(raw_ctx));
                ok(sys::aclrtMemcpy(
                    dev_ptr,
                    N,
                    host_ptr,
                    N,
                    sys::ACL_MEMCPY_HOST_TO_DEVICE,
                ));
                ok(sys::aclrtSetCurrentContext(raw_ctx_b));
                ok(sys::aclrtMemcpy(
                    dev_b_ptr,
                    N,
                    host_b_ptr,
                    N,
                    sys::ACL_MEMCPY_HOST_TO_DEVICE,
                ));
            }
        })
    });
    g.finish();

    // SAFETY: the raw event is live and no longer used.
    unsafe { ok(sys::aclrtDestroyEvent(raw_ev)) };
    black_box(&ev);
}

fn config() -> Criterion {
    Criterion::default()
        .warm_up_time(Duration::from_millis(300))
        .measurement_time(Duration::from_secs(2))
        .sample_size(30)
}

criterion_group! { name = benches; config = config(); targets = bench }
criterion_main!(benches);
