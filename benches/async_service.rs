//! The async service (the device actor of `examples/22_async_service.rs`
//! driven by 256 tokio tasks) against a blocking service under the same
//! load (256 client threads, the batching server of examples 17/21 with
//! blocking waits), side by side in one run; and one awaited 4 KiB copy
//! round trip against the blocking one (and against a host function that
//! wakes the waiting thread: the other completion mechanism).
//!
//! Both services take requests of `WIDTH` floats, batch them (the first
//! request, then what arrives within `WINDOW`, at most `MAX_BATCH`), give
//! each batch a scope of its own with two lanes (half the batch on each:
//! H2D copy, a kernel of `KERNEL_TIME` simulated device time that doubles
//! its input, D2H copy) and answer each request with its row; every reply
//! is checked. They differ in how they wait:
//! * async: clients are tasks on a 2-worker tokio runtime awaiting
//!   `Handle::call`; the actor collects the next batch while the device
//!   works (`Inbox::collect_during`) and awaits both lanes
//!   (`InFlight::wait_async`);
//! * blocking: clients are OS threads blocked on a reply channel; the
//!   server collects a batch (blocking receive with a timeout), queues it,
//!   and blocks in `InFlight::wait_or_keep` on each lane.
//!
//! Reported: throughput (requests/s) of each and their ratio, p50/p99
//! latency of a request (send to reply), and the most OS threads the
//! process had during each side (from /proc/self/status). Rounds alternate
//! the sides; figures are medians over rounds.
//!
//! `cargo bench --manifest-path benches/Cargo.toml --bench async_service`
//! prints `key=value` lines (and writes `$RESULTS/async_service.txt` when
//! `RESULTS` is set). With `--test` (the CI smoke pass) it runs one short
//! round of each and writes nothing.

use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, mpsc};
use std::time::{Duration, Instant};

use aclrt::actor::{self, ActorConfig, Handle, Inbox, Shutdown};
use aclrt::future::block_on;
use aclrt::kernel::{Binary, Count, In, KernelRef, Out};
use aclrt::{Context, DeviceBuffer, HostBuffer, HostMode, InFlight, Lane, Runtime, make_guard};

const WIDTH: usize = 256;
const MAX_BATCH: usize = 32;
const HALF: usize = MAX_BATCH / 2;
const WINDOW: Duration = Duration::from_micros(200);
const KERNEL_TIME: Duration = Duration::from_micros(100);

type Kernel = (In<f32>, Out<f32>, Count);
type Reply = Vec<f32>;

fn row(req: u32) -> Vec<f32> {
    (0..WIDTH).map(|i| (req as usize * 7 + i) as f32).collect()
}

fn check(req: u32, reply: &[f32]) {
    assert_eq!(reply.len(), WIDTH);
    assert_eq!(reply[0], row(req)[0] * 2.0, "request {req}");
    assert_eq!(reply[WIDTH - 1], row(req)[WIDTH - 1] * 2.0, "request {req}");
}

fn median(v: &mut [f64]) -> f64 {
    v.sort_by(f64::total_cmp);
    let n = v.len();
    if n % 2 == 1 {
        v[n / 2]
    } else {
        (v[n / 2 - 1] + v[n / 2]) / 2.0
    }
}

fn percentile(v: &mut [f64], p: f64) -> f64 {
    v.sort_by(f64::total_cmp);
    v[((v.len() as f64 - 1.0) * p).round() as usize]
}

/// The process's OS threads now.
fn threads() -> usize {
    std::fs::read_to_string("/proc/self/status")
        .ok()
        .and_then(|s| {
            s.lines()
                .find_map(|l| l.strip_prefix("Threads:"))
                .and_then(|n| n.trim().parse().ok())
        })
        .unwrap_or(0)
}

/// Samples [`threads`] until stopped; returns the most seen.
struct ThreadPeak {
    stop: Arc<AtomicBool>,
    peak: Arc<AtomicUsize>,
    sampler: std::thread::JoinHandle<()>,
}

impl ThreadPeak {
    fn start() -> ThreadPeak {
        let stop = Arc::new(AtomicBool::new(false));
        let peak = Arc::new(AtomicUsize::new(0));
        let (s, p) = (stop.clone(), peak.clone());
        let sampler = std::thread::spawn(move || {
            while !s.load(Ordering::Relaxed) {
                p.fetch_max(threads(), Ordering::Relaxed);
                std::thread::sleep(Duration::from_millis(2));
            }
        });
        ThreadPeak {
            stop,
            peak,
            sampler,
        }
    }

    /// The peak, less the sampler itself.
    fn stop(self) -> usize {
        self.stop.store(true, Ordering::Relaxed);
        self.sampler.join().unwrap();
        self.peak.load(Ordering::Relaxed).saturating_sub(1)
    }
}

struct Half<'ctx, 'id> {
    staging: HostBuffer<'ctx, 'id, f32, HostMode>,
    d_in: DeviceBuffer<'ctx, 'id, f32>,
    d_out: DeviceBuffer<'ctx, 'id, f32>,
    out: HostBuffer<'ctx, 'id, f32, HostMode>,
}

impl<'ctx, 'id> Half<'ctx, 'id> {
    fn new(ctx: &'ctx Context<'ctx, 'id, HostMode>) -> Half<'ctx, 'id> {
        Half {
            staging: ctx.alloc_host_zeroed(HALF * WIDTH).unwrap(),
            d_in: ctx.alloc(HALF * WIDTH).unwrap(),
            d_out: ctx.alloc(HALF * WIDTH).unwrap(),
            out: ctx.alloc_host_zeroed(HALF * WIDTH).unwrap(),
        }
    }
}

#[allow(clippy::too_many_arguments)]
fn queue_half<'s, 'env, 'ctx, 'id, 'sid>(
    lane: &Lane<'s, 'env, 'id, 'sid, HostMode>,
    binary: &'s Binary<'_, 'id>,
    kernel: KernelRef<'id, Kernel>,
    staging: &'s HostBuffer<'ctx, 'id, f32, HostMode>,
    d_in: &'s mut DeviceBuffer<'ctx, 'id, f32>,
    d_out: &'s mut DeviceBuffer<'ctx, 'id, f32>,
    out: &'s mut HostBuffer<'ctx, 'id, f32, HostMode>,
) -> aclrt::Result<InFlight<'s, 'sid, HostBuffer<'ctx, 'id, f32, HostMode>>> {
    let d_in = lane.copy(staging, d_in)?;
    let (_, d_out, _) = lane.launch_in(binary, kernel, 1, (&d_in, d_out, HALF * WIDTH))?;
    lane.copy(&d_out, out)
}

type Job = (u32, mpsc::SyncSender<aclrt::Result<Reply>>);

/// A batch for the blocking server: the first job, then what arrives
/// within the window.
fn take(rx: &mpsc::Receiver<Job>) -> Option<Vec<Job>> {
    let first = rx.recv().ok()?;
    let mut jobs = vec![first];
    let deadline = Instant::now() + WINDOW;
    while jobs.len() < MAX_BATCH {
        let left = deadline.saturating_duration_since(Instant::now());
        match rx.recv_timeout(left) {
            Ok(j) => jobs.push(j),
            Err(_) => break,
        }
    }
    Some(jobs)
}

/// The blocking side's server: as [`serve_async`], with blocking waits
/// (each lane's output in turn) and the next batch collected after.
fn serve_blocking(rt: Runtime<'_, HostMode>, rx: mpsc::Receiver<Job>) -> aclrt::Result<()> {
    let device = rt.device(0)?;
    device.with_context(|ctx| {
        let binary = ctx.load_binary(&aclrt::sim::binary_image(&["bench_async_kernel"]))?;
        // SAFETY: the kernel reads `In` and writes `Out`, `Count` elements each.
        let kernel = unsafe { binary.kernel_ref::<Kernel>(c"bench_async_kernel")? };
        let streams = [ctx.create_stream()?, ctx.create_stream()?];
        let (mut h0, mut h1) = (Half::new(ctx), Half::new(ctx));
        while let Some(jobs) = take(&rx) {
            for (i, j) in jobs.iter().enumerate() {
                let h = if i < HALF { &mut h0 } else { &mut h1 };
                let at = (i % HALF) * WIDTH;
                h.staging[at..at + WIDTH].copy_from_slice(&row(j.0));
            }
            let (binary, streams) = (&binary, &streams);
            let (s0, s1) = (&h0.staging, &h1.staging);
            let (i0, o0, r0) = (&mut h0.d_in, &mut h0.d_out, &mut h0.out);
            let (i1, o1, r1) = (&mut h1.d_in, &mut h1.d_out, &mut h1.out);
            let done = ctx.scope(|s| {
                make_guard!(g);
                let lanes = s.lanes(streams, g);
                let a = queue_half(&lanes[0], binary, kernel, s0, i0, o0, r0)?;
                let b = queue_half(&lanes[1], binary, kernel, s1, i1, o1, r1)?;
                a.wait_or_keep()?;
                b.wait_or_keep()?;
                Ok(())
            });
            for (i, j) in jobs.into_iter().enumerate() {
                let h = if i < HALF { &h0 } else { &h1 };
                let at = (i % HALF) * WIDTH;
                let reply = match &done {
                    Ok(()) => Ok(h.out[at..at + WIDTH].to_vec()),
                    Err(e) => Err(e.clone()),
                };
                let _ = j.1.send(reply);
            }
        }
        drop((h0, h1));
        for s in streams {
            s.destroy()?;
        }
        binary.unload()
    })?
}

/// The async side's actor body: as [`serve`], with awaited waits.
fn serve_async(rt: Runtime<'_, HostMode>, mut inbox: Inbox<u32, Reply>) -> aclrt::Result<()> {
    let device = rt.device(0)?;
    device.with_context(|ctx| {
        let binary = ctx.load_binary(&aclrt::sim::binary_image(&["bench_async_kernel"]))?;
        // SAFETY: the kernel reads `In` and writes `Out`, `Count` elements each.
        let kernel = unsafe { binary.kernel_ref::<Kernel>(c"bench_async_kernel")? };
        let streams = [ctx.create_stream()?, ctx.create_stream()?];
        let (mut h0, mut h1) = (Half::new(ctx), Half::new(ctx));
        let mut next = inbox.next_batch();
        while let Some(batch) = next.take() {
            let (reqs, replies) = batch.into_parts();
            for (i, r) in reqs.iter().enumerate() {
                let h = if i < HALF { &mut h0 } else { &mut h1 };
                let at = (i % HALF) * WIDTH;
                h.staging[at..at + WIDTH].copy_from_slice(&row(*r));
            }
            let inbox = &mut inbox;
            let (binary, streams) = (&binary, &streams);
            let (s0, s1) = (&h0.staging, &h1.staging);
            let (i0, o0, r0) = (&mut h0.d_in, &mut h0.d_out, &mut h0.out);
            let (i1, o1, r1) = (&mut h1.d_in, &mut h1.d_out, &mut h1.out);
            let done = ctx.scope(|s| {
                make_guard!(g);
                let lanes = s.lanes(streams, g);
                let a = queue_half(&lanes[0], binary, kernel, s0, i0, o0, r0)?;
                let b = queue_half(&lanes[1], binary, kernel, s1, i1, o1, r1)?;
                block_on(async {
                    let work = async {
                        let (ra, rb) = tokio::join!(a.wait_async(), b.wait_async());
                        ra?;
                        rb?;
                        Ok::<_, aclrt::Error>(())
                    };
                    let (r, collected) = inbox.collect_during(work).await;
                    next = collected;
                    r
                })
            });
            match done {
                Ok(()) => replies.send((0..reqs.len()).map(|i| {
                    let h = if i < HALF { &h0 } else { &h1 };
                    let at = (i % HALF) * WIDTH;
                    h.out[at..at + WIDTH].to_vec()
                })),
                Err(e) => replies.fail(e),
            }
            if next.is_none() {
                next = inbox.next_batch();
            }
        }
        drop((h0, h1));
        for s in streams {
            s.destroy()?;
        }
        binary.unload()
    })?
}

/// One run of a side: (seconds, latencies in µs, peak OS threads).
struct Run {
    secs: f64,
    lat_us: Vec<f64>,
    threads: usize,
}

fn run_async(rt: Runtime<'_, HostMode>, clients: usize, requests: usize) -> Run {
    let config = ActorConfig {
        queue: 256,
        max_batch: MAX_BATCH,
        window: WINDOW,
    };
    let tokio = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .build()
        .unwrap();
    let peak = ThreadPeak::start();
    let t0 = Instant::now();
    let lat = std::thread::scope(|ts| {
        let (handle, actor): (Handle<u32, Reply>, _) =
            actor::spawn_scoped(ts, config, move |inbox| serve_async(rt, inbox)).unwrap();
        let lat = tokio.block_on(async {
            let tasks: Vec<_> = (0..clients)
                .map(|c| {
                    let h = handle.clone();
                    tokio::spawn(async move {
                        let mut lat = Vec::with_capacity(requests);
                        for k in 0..requests {
                            let req = (c * requests + k) as u32;
                            let t = Instant::now();
                            let reply = h.call(req).await.expect("a reply");
                            lat.push(t.elapsed().as_secs_f64() * 1e6);
                            check(req, &reply);
                        }
                        lat
                    })
                })
                .collect();
            let mut all = Vec::new();
            for t in tasks {
                all.extend(t.await.unwrap());
            }
            all
        });
        actor.shutdown(Shutdown::Drain).unwrap();
        lat
    });
    let secs = t0.elapsed().as_secs_f64();
    drop(tokio);
    Run {
        secs,
        lat_us: lat,
        threads: peak.stop(),
    }
}

fn run_blocking(rt: Runtime<'_, HostMode>, clients: usize, requests: usize) -> Run {
    let (tx, rx) = mpsc::sync_channel::<Job>(256);
    let peak = ThreadPeak::start();
    let t0 = Instant::now();
    let lat = std::thread::scope(|ts| {
        let server = ts.spawn(move || serve_blocking(rt, rx));
        let handles: Vec<_> = (0..clients)
            .map(|c| {
                let tx = tx.clone();
                ts.spawn(move || {
                    let mut lat = Vec::with_capacity(requests);
                    let (rtx, rrx) = mpsc::sync_channel(1);
                    for k in 0..requests {
                        let req = (c * requests + k) as u32;
                        let t = Instant::now();
                        tx.send((req, rtx.clone())).unwrap();
                        let reply = rrx.recv().unwrap().expect("a reply");
                        lat.push(t.elapsed().as_secs_f64() * 1e6);
                        check(req, &reply);
                    }
                    lat
                })
            })
            .collect();
        drop(tx);
        let mut all = Vec::new();
        for h in handles {
            all.extend(h.join().unwrap());
        }
        server.join().unwrap().unwrap();
        all
    });
    Run {
        secs: t0.elapsed().as_secs_f64(),
        lat_us: lat,
        threads: peak.stop(),
    }
}

/// Median ns of one 4 KiB round trip (H2D copy, D2H copy, wait for the
/// result), each way of waiting, interleaved.
fn round_trips(rt: Runtime<'_, HostMode>, n: usize) -> [f64; 3] {
    let device = rt.device(0).unwrap();
    let mut t = [Vec::new(), Vec::new(), Vec::new()];
    device
        .with_context(|ctx| {
            let stream = ctx.create_stream()?;
            let src = ctx.alloc_host_from(&vec![3u8; 4096])?;
            let mut dev = ctx.alloc::<u8>(4096)?;
            let mut out = ctx.alloc_host_zeroed::<u8>(4096)?;
            ctx.scope(|s| {
                make_guard!(g);
                let lane = s.lane(&stream, g);
                let (mut dev, mut out) = (&mut dev, &mut out);
                for i in 0..n * 3 {
                    let way = i % 3;
                    let t0 = Instant::now();
                    let d = lane.copy(&src, dev)?;
                    let o = lane.copy(&d, out)?;
                    out = match way {
                        0 => o.wait_or_keep()?,
                        1 => block_on(o.wait_async())?,
                        _ => {
                            // A host function wakes this thread.
                            let me = std::thread::current();
                            let flag = Arc::new(AtomicBool::new(false));
                            let f = flag.clone();
                            lane.host_fn(move || {
                                f.store(true, Ordering::Release);
                                me.unpark();
                            })?;
                            while !flag.load(Ordering::Acquire) {
                                std::thread::park();
                            }
                            o.wait_or_keep()?
                        }
                    };
                    t[way].push(t0.elapsed().as_secs_f64() * 1e9);
                    assert_eq!(out.as_slice()[4095], 3);
                    dev = d.reuse()?;
                }
                Ok(())
            })?;
            drop((src, dev, out));
            stream.destroy()
        })
        .unwrap()
        .unwrap();
    t.map(|mut v| median(&mut v))
}

fn main() {
    let test_mode = std::env::args().any(|a| a == "--test");
    let (rounds, clients, requests, trips) = if test_mode {
        (1, 16, 2, 20)
    } else {
        (5, 256, 8, 2000)
    };
    aclrt::sim::register_kernel("bench_async_kernel", |block, _, args| {
        let (x, y, n) = (args.u64(0)?, args.u64(1)?, args.u64(2)? as usize);
        if block == 0 {
            std::thread::sleep(KERNEL_TIME);
            for i in 0..n {
                args.write_f32(y, i, args.read_f32(x, i)? * 2.0)?;
            }
        }
        Ok(())
    });
    let acl = aclrt::Acl::init().expect("aclInit");
    let rt = acl.require::<HostMode>().expect("host run mode");
    let base_threads = threads();
    let (mut tput_a, mut tput_b, mut ratio) = (Vec::new(), Vec::new(), Vec::new());
    let (mut lat_a, mut lat_b) = (Vec::new(), Vec::new());
    let (mut thr_a, mut thr_b) = (0, 0);
    for r in 0..rounds {
        let (a, b) = if r % 2 == 0 {
            let a = run_async(rt, clients, requests);
            (a, run_blocking(rt, clients, requests))
        } else {
            let b = run_blocking(rt, clients, requests);
            (run_async(rt, clients, requests), b)
        };
        let n = (clients * requests) as f64;
        tput_a.push(n / a.secs);
        tput_b.push(n / b.secs);
        ratio.push(b.secs / a.secs);
        lat_a.extend(a.lat_us);
        lat_b.extend(b.lat_us);
        thr_a = thr_a.max(a.threads);
        thr_b = thr_b.max(b.threads);
    }
    let [rt_blocking, rt_awaited, rt_host_fn] = round_trips(rt, trips);
    acl.finalize().expect("aclFinalize");
    let audit = aclrt::sim::audit();
    assert!(
        audit.is_clean(),
        "the benchmark left the audit dirty: {audit:#?}"
    );
    let lines = [
        format!("rounds={rounds}"),
        format!("clients={clients}"),
        format!("requests_per_client={requests}"),
        format!("max_batch={MAX_BATCH}"),
        format!("window_us={}", WINDOW.as_micros()),
        format!("kernel_us={}", KERNEL_TIME.as_micros()),
        format!("async_throughput_median_rps={:.0}", median(&mut tput_a)),
        format!("blocking_throughput_median_rps={:.0}", median(&mut tput_b)),
        format!("throughput_ratio_median={:.3}", median(&mut ratio)),
        format!("async_latency_p50_us={:.0}", percentile(&mut lat_a, 0.5)),
        format!("async_latency_p99_us={:.0}", percentile(&mut lat_a, 0.99)),
        format!("blocking_latency_p50_us={:.0}", percentile(&mut lat_b, 0.5)),
        format!(
            "blocking_latency_p99_us={:.0}",
            percentile(&mut lat_b, 0.99)
        ),
        format!("threads_before={base_threads}"),
        format!("async_peak_os_threads={thr_a}"),
        format!("blocking_peak_os_threads={thr_b}"),
        format!("round_trip_4k_blocking_ns={rt_blocking:.0}"),
        format!("round_trip_4k_awaited_ns={rt_awaited:.0}"),
        format!("round_trip_4k_host_fn_wake_ns={rt_host_fn:.0}"),
        format!("round_trip_awaited_ratio={:.3}", rt_awaited / rt_blocking),
        format!("round_trip_host_fn_ratio={:.3}", rt_host_fn / rt_blocking),
    ];
    for l in &lines {
        println!("{l}");
    }
    if !test_mode {
        if let Ok(dir) = std::env::var("RESULTS") {
            let path = std::path::Path::new(&dir).join("async_service.txt");
            std::fs::write(&path, lines.join("\n") + "\n").expect("write async_service.txt");
        }
    }
}
