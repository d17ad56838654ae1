//! How the simulator scales, through raw `aclrt::sys` calls.
//!
//! * `scale_enqueue/streams/K` (K = 1, 2, 4, 8): one host thread queues
//!   `ENQUEUE_TOTAL` 4-byte `aclrtMemsetAsync` tasks round-robin over K
//!   streams, then synchronises every stream. Throughput in tasks.
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
use std::time::Duration;

use aclrt::sys;
use criterion::{
    BenchmarkId, Criterion, SamplingMode, Throughput, criterion_group, criterion_main,
};

const STREAMS: [usize; 4] = [1, 2, 4, 8];
const ENQUEUE_TOTAL: u64 = 2000;
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
    for k in STREAMS {
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
    targets = enqueue_vs_streams, copy_bandwidth_vs_streams, copy_bandwidth_vs_size, overlap_baseline
}
criterion_main!(benches);
