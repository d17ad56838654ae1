//! How the simulator scales, through raw `aclrt::sys` calls.
//!
//! * `scale_enqueue/streams/K` (K = 1, 2, 4, 8, 16, 64): one host thread
//!   queues `ENQUEUE_TOTAL` (8000) 4-byte `aclrtMemsetAsync` tasks
//!   round-robin over K streams, then synchronises every stream. Throughput
//!   in tasks. Issue 15 targets: K = 8 at ≥ 0.8× and K = 64 at ≥ 0.5× the
//!   rate of K = 1.
//! * `scale_launch/empty_kernel/1`: `aclrtLaunchKernelWithConfig` of an
//!   empty registered kernel (one block, one argument) on one stream,
//!   `LAUNCH_TOTAL` launches then a synchronisation (issue 12 target:
//!   ≥ 1 M launches/s). The raw side only: the safe launch joins this group
//!   as `scale_launch/empty_kernel_safe/1` once `aclrt` has one (report.py
//!   already looks for it).
//! * `scale_queued/memset_enqueue/N` (N = 0, 1600): the cost of one
//!   `aclrtMemsetAsync` when N tasks are already queued on the stream (its
//!   head is a host function that blocks while a chunk is timed; a stream
//!   holds at most 2047 tasks not yet executed, as on the runtime).
//! * `scale_alloc/malloc_free/N` (N = 0, 100000): one `aclrtMalloc` +
//!   `aclrtFree` pair while N other allocations are live (the allocation
//!   table must stay O(log n) per call).
//! * `scale_copy_streams/streams/K`: K streams each run one asynchronous
//!   16 MiB device-to-device copy at the same time, then all are
//!   synchronised. Throughput in bytes (aggregate).
//! * `scale_copy_size/aclrtMemcpy_d2d/SIZE` and
//!   `scale_copy_size/copy_from_slice/SIZE`: a synchronous device-to-device
//!   `aclrtMemcpy` against a plain `copy_from_slice` of the same size, for
//!   SIZE from 4 KiB to 256 MiB.
//! * `overlap_baseline/serial` and `overlap_baseline/two_threads`: two
//!   64 MiB `copy_from_slice` one after the other versus on two threads at
//!   once, without the simulator: how much two concurrent copies can overlap
//!   on this machine at all (the bound for `two_streams_64mib` of
//!   `sys/benches/sim_throughput.rs`).
//!
//! `cargo bench --bench sim_scaling`. `benches/report.py` turns the results
//! into BENCHMARKS.md's tables and the plots under `docs/`.

use std::ffi::c_void;
use std::hint::black_box;
use std::ptr::{null, null_mut};
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use aclrt::sys;
use criterion::{
    BenchmarkId, Criterion, SamplingMode, Throughput, criterion_group, criterion_main,
};

const STREAMS: [usize; 4] = [1, 2, 4, 8];
const ENQUEUE_STREAMS: [usize; 6] = [1, 2, 4, 8, 16, 64];
const ENQUEUE_TOTAL: u64 = 8000;
const LAUNCH_TOTAL: u64 = 8000;
/// Tasks already queued (behind a blocked host function) when one is
/// measured: the deepest is what a stream can hold (2047 not yet executed,
/// the runtime's bound) less the host function and a timed chunk.
const QUEUED: [u64; 2] = [0, 1_600];
const LIVE_ALLOCS: [usize; 2] = [0, 100_000];
const PER_STREAM_COPY: usize = 16 << 20;
const SIZES: [usize; 7] = [
    4 << 10,
    64 << 10,
    1 << 20,
    4 << 20,
    16 << 20,
    64 << 20,
    256 << 20,
];

/// `n`, or at most 10,000 in criterion's `--test` mode (the CI smoke pass
/// runs every benchmark once in the dev profile: it checks that the bench
/// works, not the figure).
fn smoke_size(n: u64) -> u64 {
    if std::env::args().any(|a| a == "--test") {
        n.min(10_000)
    } else {
        n
    }
}

fn ok(code: sys::aclError, what: &str) {
    assert_eq!(code, 0, "{what} failed with {code}");
}

/// Device 0 set, `n` explicit streams, buffers freed on drop.
struct Setup {
    _sim: aclrt::sim::Exclusive,
    streams: Vec<sys::aclrtStream>,
    buffers: Vec<*mut c_void>,
}

impl Setup {
    fn new(n: usize) -> Setup {
        let sim = aclrt::sim::exclusive();
        // SAFETY: no arguments besides a null config path (allowed).
        ok(unsafe { sys::aclInit(null()) }, "aclInit");
        // SAFETY: device 0 exists in the default simulator configuration.
        ok(unsafe { sys::aclrtSetDevice(0) }, "aclrtSetDevice");
        let streams = (0..n)
            .map(|_| {
                let mut s = null_mut();
                // SAFETY: valid out pointer; device 0's default context is current.
                ok(
                    unsafe { sys::aclrtCreateStream(&mut s) },
                    "aclrtCreateStream",
                );
                s
            })
            .collect();
        Setup {
            _sim: sim,
            streams,
            buffers: Vec::new(),
        }
    }

    /// Device memory of `bytes` bytes, every byte set to `fill`.
    fn device(&mut self, bytes: usize, fill: i32) -> *mut c_void {
        let mut p = null_mut();
        // SAFETY: valid out pointer; the new block is `bytes` long.
        unsafe {
            ok(
                sys::aclrtMalloc(&mut p, bytes, sys::ACL_MEM_MALLOC_HUGE_FIRST),
                "aclrtMalloc",
            );
            ok(sys::aclrtMemset(p, bytes, fill, bytes), "aclrtMemset");
        }
        self.buffers.push(p);
        p
    }
}

impl Drop for Setup {
    fn drop(&mut self) {
        // SAFETY: every pointer and stream was created by `Setup` and is
        // released once, after all queued work was synchronised.
        unsafe {
            for &s in &self.streams {
                ok(sys::aclrtSynchronizeStream(s), "aclrtSynchronizeStream");
            }
            for &p in &self.buffers {
                ok(sys::aclrtFree(p), "aclrtFree");
            }
            for &s in &self.streams {
                ok(sys::aclrtDestroyStream(s), "aclrtDestroyStream");
            }
            ok(sys::aclrtResetDevice(0), "aclrtResetDevice");
            ok(sys::aclFinalize(), "aclFinalize");
        }
        let audit = aclrt::sim::audit();
        assert!(
            audit.is_clean(),
            "benchmark left the audit dirty: {audit:#?}"
        );
    }
}

fn enqueue_vs_streams(c: &mut Criterion) {
    let mut g = c.benchmark_group("scale_enqueue");
    g.throughput(Throughput::Elements(ENQUEUE_TOTAL));
    for k in ENQUEUE_STREAMS {
        let mut setup = Setup::new(k);
        let targets: Vec<*mut c_void> = (0..k).map(|_| setup.device(64, 0)).collect();
        let streams = setup.streams.clone();
        g.bench_function(BenchmarkId::new("streams", k), |b| {
            b.iter(|| {
                for i in 0..ENQUEUE_TOTAL as usize {
                    let j = i % k;
                    // SAFETY: `targets[j]` is a live 64-byte block; the
                    // stream is live in the current context.
                    ok(
                        unsafe {
                            sys::aclrtMemsetAsync(targets[j], 4, (i & 0xff) as i32, 4, streams[j])
                        },
                        "aclrtMemsetAsync",
                    );
                }
                for &s in &streams {
                    // SAFETY: a live stream.
                    ok(
                        unsafe { sys::aclrtSynchronizeStream(s) },
                        "aclrtSynchronizeStream",
                    );
                }
            })
        });
        drop(setup);
    }
    g.finish();
}

/// Host function: spins (sleeping) until the `AtomicBool` behind `flag` is
/// set.
unsafe extern "C" fn block_until_set(flag: *mut c_void) {
    // SAFETY: `queued_tasks` passes a pointer to an `AtomicBool` it keeps
    // alive until the stream running this function is synchronised.
    let flag = unsafe { &*flag.cast::<AtomicBool>() };
    while !flag.load(Ordering::Acquire) {
        std::thread::sleep(Duration::from_micros(200));
    }
}

/// Tasks measured between two refills of the blocked stream: the queue's
/// depth stays within `[N, N + CHUNK]` while a chunk is timed.
const CHUNK: u64 = 400;

/// Closes the gate, blocks `s` behind it (a host function) and queues `n`
/// memsets of `target` behind that.
fn block_and_fill(s: sys::aclrtStream, gate: &AtomicBool, target: *mut c_void, n: u64) {
    gate.store(false, Ordering::Release);
    let gate_arg: *mut c_void = std::ptr::from_ref(gate).cast_mut().cast();
    // SAFETY: a live stream; `gate` outlives the stream's synchronisation
    // (`drain`), which every caller makes before the gate goes.
    ok(
        unsafe { sys::aclrtLaunchHostFunc(s, Some(block_until_set), gate_arg) },
        "aclrtLaunchHostFunc",
    );
    for _ in 0..n {
        // SAFETY: `target` is a live 64-byte block, `s` a live stream.
        ok(
            unsafe { sys::aclrtMemsetAsync(target, 4, 1, 4, s) },
            "aclrtMemsetAsync",
        );
    }
}

/// Opens the gate and waits for everything queued on `s`.
fn drain(s: sys::aclrtStream, gate: &AtomicBool) {
    gate.store(true, Ordering::Release);
    // SAFETY: a live stream.
    ok(
        unsafe { sys::aclrtSynchronizeStream(s) },
        "aclrtSynchronizeStream",
    );
}

fn queued_tasks(c: &mut Criterion) {
    let mut g = c.benchmark_group("scale_queued");
    g.throughput(Throughput::Elements(1));
    for n in QUEUED {
        let mut setup = Setup::new(1);
        let target = setup.device(64, 0);
        let s = setup.streams[0];
        let gate = Box::new(AtomicBool::new(true));
        g.bench_function(BenchmarkId::new("memset_enqueue", n), |b| {
            // A stream holds a bounded number of tasks not yet executed (a
            // submission to a full one waits, as on the runtime): only
            // chunks of CHUNK submissions are timed, each behind `n` queued
            // tasks; between chunks the stream drains and is refilled.
            b.iter_custom(|iters| {
                let mut timed = Duration::ZERO;
                let mut left = iters;
                while left > 0 {
                    let k = left.min(CHUNK);
                    block_and_fill(s, &gate, target, n);
                    let t0 = std::time::Instant::now();
                    for _ in 0..k {
                        // SAFETY: `target` is a live 64-byte block, `s` a
                        // live stream.
                        ok(
                            unsafe { sys::aclrtMemsetAsync(target, 4, 1, 4, s) },
                            "aclrtMemsetAsync",
                        );
                    }
                    timed += t0.elapsed();
                    drain(s, &gate);
                    left -= k;
                }
                timed
            });
        });
        drain(s, &gate);
        drop(setup);
    }
    g.finish();
}

fn live_allocations(c: &mut Criterion) {
    let mut g = c.benchmark_group("scale_alloc");
    g.throughput(Throughput::Elements(1));
    for n in LIVE_ALLOCS.map(|n| smoke_size(n as u64) as usize) {
        let mut setup = Setup::new(0);
        for _ in 0..n {
            let mut p = null_mut();
            // SAFETY: valid out pointer; freed by `Setup`'s drop.
            ok(
                unsafe { sys::aclrtMalloc(&mut p, 32, sys::ACL_MEM_MALLOC_HUGE_FIRST) },
                "aclrtMalloc",
            );
            setup.buffers.push(p);
        }
        g.bench_function(BenchmarkId::new("malloc_free", n), |b| {
            b.iter(|| {
                let mut p = null_mut();
                // SAFETY: valid out pointer; the block is freed at once.
                unsafe {
                    ok(
                        sys::aclrtMalloc(&mut p, 32, sys::ACL_MEM_MALLOC_HUGE_FIRST),
                        "aclrtMalloc",
                    );
                    ok(sys::aclrtFree(black_box(p)), "aclrtFree");
                }
            });
        });
        drop(setup);
    }
    g.finish();
}

fn kernel_launch(c: &mut Criterion) {
    let mut g = c.benchmark_group("scale_launch");
    g.throughput(Throughput::Elements(LAUNCH_TOTAL));
    aclrt_sim::register_kernel("bench_empty", |_, _, _| Ok(()));
    let setup = Setup::new(1);
    let s = setup.streams[0];
    let img = aclrt_sim::binary_image(&["bench_empty"]);
    let mut bin: sys::aclrtBinHandle = null_mut();
    let mut f: sys::aclrtFuncHandle = null_mut();
    let mut args: sys::aclrtArgsHandle = null_mut();
    let mut param: sys::aclrtParamHandle = null_mut();
    let mut arg0 = 0u64;
    // SAFETY: `img` is a binary image of `img.len()` bytes; every out
    // pointer is a local of the right type; the name is NUL-terminated;
    // `arg0` is 8 readable bytes.
    unsafe {
        ok(
            sys::aclrtBinaryLoadFromData(img.as_ptr().cast(), img.len(), null(), &mut bin),
            "aclrtBinaryLoadFromData",
        );
        ok(
            sys::aclrtBinaryGetFunction(bin, c"bench_empty".as_ptr(), &mut f),
            "aclrtBinaryGetFunction",
        );
        ok(
            sys::aclrtKernelArgsInit(f, &mut args),
            "aclrtKernelArgsInit",
        );
        ok(
            sys::aclrtKernelArgsAppend(args, (&raw mut arg0).cast(), 8, &mut param),
            "aclrtKernelArgsAppend",
        );
        ok(
            sys::aclrtKernelArgsFinalize(args),
            "aclrtKernelArgsFinalize",
        );
    }
    g.bench_function(BenchmarkId::new("empty_kernel", 1), |b| {
        b.iter(|| {
            for _ in 0..LAUNCH_TOTAL {
                // SAFETY: a loaded function, a finalized args handle of
                // this thread, a live stream, no config.
                ok(
                    unsafe {
                        sys::aclrtLaunchKernelWithConfig(f, 1, s, null_mut(), args, null_mut())
                    },
                    "aclrtLaunchKernelWithConfig",
                );
            }
            // SAFETY: a live stream.
            ok(
                unsafe { sys::aclrtSynchronizeStream(s) },
                "aclrtSynchronizeStream",
            );
        })
    });
    // Hook for the safe API: once `aclrt` launches kernels, add
    // `empty_kernel_safe` here (same kernel, same count, same stream kind).
    // SAFETY: no launch is pending (synchronised above).
    ok(unsafe { sys::aclrtBinaryUnLoad(bin) }, "aclrtBinaryUnLoad");
    drop(setup);
    g.finish();
}

fn copy_bandwidth_vs_streams(c: &mut Criterion) {
    let mut g = c.benchmark_group("scale_copy_streams");
    g.sampling_mode(SamplingMode::Flat);
    for k in STREAMS {
        g.throughput(Throughput::Bytes((k * PER_STREAM_COPY) as u64));
        let mut setup = Setup::new(k);
        let pairs: Vec<(*mut c_void, *mut c_void)> = (0..k)
            .map(|i| {
                (
                    setup.device(PER_STREAM_COPY, i as i32 + 1),
                    setup.device(PER_STREAM_COPY, 0),
                )
            })
            .collect();
        let streams = setup.streams.clone();
        g.bench_function(BenchmarkId::new("streams", k), |b| {
            b.iter(|| {
                for (&(src, dst), &s) in pairs.iter().zip(&streams) {
                    // SAFETY: both blocks are live and PER_STREAM_COPY long,
                    // distinct per stream; the stream is live.
                    ok(
                        unsafe {
                            sys::aclrtMemcpyAsync(
                                dst,
                                PER_STREAM_COPY,
                                src,
                                PER_STREAM_COPY,
                                sys::ACL_MEMCPY_DEVICE_TO_DEVICE,
                                s,
                            )
                        },
                        "aclrtMemcpyAsync",
                    );
                }
                for &s in &streams {
                    // SAFETY: a live stream.
                    ok(
                        unsafe { sys::aclrtSynchronizeStream(s) },
                        "aclrtSynchronizeStream",
                    );
                }
            })
        });
        drop(setup);
    }
    g.finish();
}

fn copy_bandwidth_vs_size(c: &mut Criterion) {
    let mut g = c.benchmark_group("scale_copy_size");
    for size in SIZES {
        g.throughput(Throughput::Bytes(size as u64));
        // Large copies take tens of ms: one iteration per sample.
        g.sampling_mode(if size >= 16 << 20 {
            SamplingMode::Flat
        } else {
            SamplingMode::Auto
        });
        {
            let mut setup = Setup::new(0);
            let src = setup.device(size, 1);
            let dst = setup.device(size, 0);
            g.bench_function(BenchmarkId::new("aclrtMemcpy_d2d", size), |b| {
                b.iter(|| {
                    // SAFETY: both blocks are live and `size` bytes long.
                    ok(
                        unsafe {
                            sys::aclrtMemcpy(dst, size, src, size, sys::ACL_MEMCPY_DEVICE_TO_DEVICE)
                        },
                        "aclrtMemcpy",
                    )
                })
            });
        }
        let src = vec![1u8; size];
        let mut dst = vec![0u8; size];
        g.bench_function(BenchmarkId::new("copy_from_slice", size), |b| {
            b.iter(|| {
                dst.copy_from_slice(black_box(&src));
                black_box(&mut dst);
            })
        });
    }
    g.finish();
}

fn overlap_baseline(c: &mut Criterion) {
    const N: usize = 64 << 20;
    let mut g = c.benchmark_group("overlap_baseline");
    g.throughput(Throughput::Bytes(2 * N as u64));
    g.sampling_mode(SamplingMode::Flat);
    let (a, b) = (vec![1u8; N], vec![2u8; N]);
    let (mut x, mut y) = (vec![0u8; N], vec![0u8; N]);
    g.bench_function("serial", |bench| {
        bench.iter(|| {
            x.copy_from_slice(black_box(&a));
            y.copy_from_slice(black_box(&b));
        })
    });
    g.bench_function("two_threads", |bench| {
        bench.iter(|| {
            std::thread::scope(|s| {
                s.spawn(|| x.copy_from_slice(black_box(&a)));
                s.spawn(|| y.copy_from_slice(black_box(&b)));
            })
        })
    });
    g.finish();
}

fn config() -> Criterion {
    Criterion::default()
        .sample_size(10)
        .warm_up_time(Duration::from_millis(300))
        .measurement_time(Duration::from_secs(1))
}

criterion_group! {
    name = benches;
    config = config();
    targets = enqueue_vs_streams, kernel_launch, queued_tasks, live_allocations, copy_bandwidth_vs_streams, copy_bandwidth_vs_size, overlap_baseline
}
criterion_main!(benches);
