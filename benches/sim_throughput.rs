//! Throughput of the simulator backend through the raw C ABI.
//!
//! * `memcpy_64mib`: synchronous 64 MiB device-to-device `aclrtMemcpy`
//!   against a plain in-process `copy_from_slice` of the same size.
//! * `enqueue`: N small `aclrtMemsetAsync` on one stream, then synchronise
//!   (throughput in tasks).
//! * `event_round_trip`: `aclrtRecordEvent` + `aclrtSynchronizeEvent` on an
//!   idle stream.
//! * `two_streams_64mib`: two 64 MiB copies on two streams at once versus
//!   one after the other.
//! * `round_trip`: the floor of a thread hand-off (`condvar_floor`: one
//!   request and one reply between two threads through a `Mutex` +
//!   `Condvar`) against an async round trip through a stream worker
//!   (`memcpy_async_4k_then_sync`: a 4 KiB D2D `aclrtMemcpyAsync` +
//!   `aclrtSynchronizeStream`) and an event round trip through it
//!   (`memset_record_sync_event`: a 4-byte `aclrtMemsetAsync`, then
//!   `aclrtRecordEvent` + `aclrtSynchronizeEvent`). Issue 15 target: both
//!   ≤ 1.2× the floor.
//!
//! Run with `cargo bench -p aclrt-sys --bench sim_throughput`.

use std::ffi::c_void;
use std::hint::black_box;
use std::ptr::{null, null_mut};
use std::time::Duration;

use aclrt_sys::*;
use criterion::{BenchmarkId, Criterion, Throughput, criterion_group, criterion_main};

const MIB64: usize = 64 << 20;
const ENQUEUE_N: u64 = 1000;

/// Calls a C function of the simulator and panics unless it succeeded.
macro_rules! acl {
    ($f:ident ( $($arg:expr),* $(,)? )) => {{
        // SAFETY: the benchmark passes only live handles, out-pointers to
        // locals of the right C type, and buffers allocated by the
        // simulator with at least the sizes passed alongside them.
        let code = unsafe { aclrt_sys::$f($($arg),*) };
        assert_eq!(code, ACL_SUCCESS, "{} failed with {}", stringify!($f), code);
    }};
}

/// The runtime set up for a benchmark: device 0, `streams` explicit streams.
struct Rt {
    _sim: aclrt_sim::Exclusive,
    streams: Vec<aclrtStream>,
    buffers: Vec<*mut c_void>,
}

impl Rt {
    fn new(streams: usize) -> Rt {
        let sim = aclrt_sim::exclusive();
        acl!(aclInit(null()));
        acl!(aclrtSetDevice(0));
        let streams = (0..streams)
            .map(|_| {
                let mut s: aclrtStream = null_mut();
                acl!(aclrtCreateStream(&mut s));
                s
            })
            .collect();
        Rt {
            _sim: sim,
            streams,
            buffers: Vec::new(),
        }
    }

    fn malloc(&mut self, size: usize, fill: i32) -> *mut c_void {
        let mut p: *mut c_void = null_mut();
        acl!(aclrtMalloc(&mut p, size, ACL_MEM_MALLOC_HUGE_FIRST));
        acl!(aclrtMemset(p, size, fill, size));
        self.buffers.push(p);
        p
    }
}

impl Drop for Rt {
    fn drop(&mut self) {
        for &p in &self.buffers {
            acl!(aclrtFree(p));
        }
        for &s in &self.streams {
            acl!(aclrtDestroyStream(s));
        }
        acl!(aclrtResetDevice(0));
        acl!(aclFinalize());
        let audit = aclrt_sim::audit();
        assert!(
            audit.is_clean(),
            "benchmark left the audit dirty: {audit:#?}"
        );
    }
}

fn memcpy_64mib(c: &mut Criterion) {
    let mut g = c.benchmark_group("memcpy_64mib");
    g.throughput(Throughput::Bytes(MIB64 as u64));
    {
        let mut rt = Rt::new(0);
        let src = rt.malloc(MIB64, 1);
        let dst = rt.malloc(MIB64, 0);
        g.bench_function("aclrtMemcpy_d2d", |b| {
            b.iter(|| {
                acl!(aclrtMemcpy(
                    dst,
                    MIB64,
                    src,
                    MIB64,
                    ACL_MEMCPY_DEVICE_TO_DEVICE
                ))
            })
        });
    }
    let src = vec![1u8; MIB64];
    let mut dst = vec![0u8; MIB64];
    g.bench_function("copy_from_slice", |b| {
        b.iter(|| {
            dst.copy_from_slice(black_box(&src));
            black_box(&mut dst);
        })
    });
    g.finish();
}

fn enqueue(c: &mut Criterion) {
    let mut g = c.benchmark_group("enqueue");
    g.throughput(Throughput::Elements(ENQUEUE_N));
    let mut rt = Rt::new(1);
    let s = rt.streams[0];
    let p = rt.malloc(64, 0);
    g.bench_function(
        BenchmarkId::new("memset_async_4B_then_sync", ENQUEUE_N),
        |b| {
            b.iter(|| {
                for i in 0..ENQUEUE_N {
                    acl!(aclrtMemsetAsync(p, 4, (i & 0xff) as i32, 4, s));
                }
                acl!(aclrtSynchronizeStream(s));
            })
        },
    );
    g.finish();
    drop(rt);
}

fn event_round_trip(c: &mut Criterion) {
    let rt = Rt::new(1);
    let s = rt.streams[0];
    let mut e: aclrtEvent = null_mut();
    acl!(aclrtCreateEvent(&mut e));
    c.bench_function(
        "event_round_trip/record_then_synchronize_idle_stream",
        |b| {
            b.iter(|| {
                acl!(aclrtRecordEvent(e, s));
                acl!(aclrtSynchronizeEvent(e));
            })
        },
    );
    acl!(aclrtDestroyEvent(e));
    drop(rt);
}

fn round_trip(c: &mut Criterion) {
    use std::sync::{Arc, Condvar, Mutex};
    let mut g = c.benchmark_group("round_trip");
    {
        // state: 0 idle, 1 request, 2 reply, 3 stop.
        let pair = Arc::new((Mutex::new(0u8), Condvar::new()));
        let peer = {
            let pair = Arc::clone(&pair);
            std::thread::spawn(move || {
                let (m, cv) = &*pair;
                let mut st = m.lock().unwrap();
                loop {
                    while *st == 0 || *st == 2 {
                        st = cv.wait(st).unwrap();
                    }
                    if *st == 3 {
                        return;
                    }
                    *st = 2;
                    cv.notify_all();
                }
            })
        };
        let (m, cv) = &*pair;
        g.bench_function("condvar_floor", |b| {
            b.iter(|| {
                let mut st = m.lock().unwrap();
                *st = 1;
                cv.notify_all();
                while *st != 2 {
                    st = cv.wait(st).unwrap();
                }
                *st = 0;
            })
        });
        *m.lock().unwrap() = 3;
        cv.notify_all();
        peer.join().unwrap();
    }
    let mut rt = Rt::new(1);
    let s = rt.streams[0];
    let src = rt.malloc(4096, 1);
    let dst = rt.malloc(4096, 0);
    g.bench_function("memcpy_async_4k_then_sync", |b| {
        b.iter(|| {
            acl!(aclrtMemcpyAsync(
                dst,
                4096,
                src,
                4096,
                ACL_MEMCPY_DEVICE_TO_DEVICE,
                s
            ));
            acl!(aclrtSynchronizeStream(s));
        })
    });
    let mut e: aclrtEvent = null_mut();
    acl!(aclrtCreateEvent(&mut e));
    g.bench_function("memset_record_sync_event", |b| {
        b.iter(|| {
            acl!(aclrtMemsetAsync(dst, 4, 2, 4, s));
            acl!(aclrtRecordEvent(e, s));
            acl!(aclrtSynchronizeEvent(e));
        })
    });
    acl!(aclrtSynchronizeStream(s));
    acl!(aclrtDestroyEvent(e));
    g.finish();
    drop(rt);
}

fn two_streams_64mib(c: &mut Criterion) {
    let mut g = c.benchmark_group("two_streams_64mib");
    g.throughput(Throughput::Bytes(2 * MIB64 as u64));
    let mut rt = Rt::new(2);
    let (a, b_stream) = (rt.streams[0], rt.streams[1]);
    let src_a = rt.malloc(MIB64, 1);
    let dst_a = rt.malloc(MIB64, 0);
    let src_b = rt.malloc(MIB64, 2);
    let dst_b = rt.malloc(MIB64, 0);
    let copy = |dst: *mut c_void, src: *mut c_void, s: aclrtStream| {
        acl!(aclrtMemcpyAsync(
            dst,
            MIB64,
            src,
            MIB64,
            ACL_MEMCPY_DEVICE_TO_DEVICE,
            s
        ));
    };
    g.bench_function("concurrent", |b| {
        b.iter(|| {
            copy(dst_a, src_a, a);
            copy(dst_b, src_b, b_stream);
            acl!(aclrtSynchronizeStream(a));
            acl!(aclrtSynchronizeStream(b_stream));
        })
    });
    g.bench_function("one_after_the_other", |b| {
        b.iter(|| {
            copy(dst_a, src_a, a);
            acl!(aclrtSynchronizeStream(a));
            copy(dst_b, src_b, b_stream);
            acl!(aclrtSynchronizeStream(b_stream));
        })
    });
    g.finish();
    drop(rt);
}

fn config() -> Criterion {
    Criterion::default()
        .sample_size(10)
        .warm_up_time(Duration::from_millis(500))
        .measurement_time(Duration::from_secs(3))
}

criterion_group! {
    name = benches;
    config = config();
    targets = memcpy_64mib, enqueue, event_round_trip, round_trip, two_streams_64mib
}
criterion_main!(benches);
