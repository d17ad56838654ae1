//! Concurrency stress: many threads × streams × events for a bounded time,
//! with injected task delays (`set_stream_delay`), in both run modes.
//!
//! Workers (half on one shared context, half on a context of their own,
//! spread over both devices) loop until the deadline: two streams each with a
//! random task delay, a two-lane scope (H2D copy, event hand-off, D2H copy,
//! `host_fn_with`, a recorded event waited for with a timeout), unscoped host
//! functions, and synchronous copies; every result is checked. A syncer
//! thread meanwhile synchronises the shared context and both devices.
//! Every wait is bounded (`synchronize_timeout`); a watchdog aborts the
//! process if the workers do not finish in time (a deadlock), rather than
//! letting the suite hang. Afterwards the audit must be clean.
//!
//! Duration per run mode: `ACLRT_STRESS_MS` (default 2000 ms).

use crate::common;

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use aclrt::sim::{self, SimConfig};
use aclrt::{Acl, Context, Detected, Result, RunMode, Runtime, Stream, make_guard};
use common::*;

const WORKERS: usize = 8;
const T: Duration = Duration::from_secs(10);

fn budget() -> Duration {
    let ms = std::env::var("ACLRT_STRESS_MS")
        .ok()
        .and_then(|v| v.trim().parse().ok())
        .unwrap_or(2000);
    Duration::from_millis(ms)
}

/// A tiny deterministic generator (no shared state between workers).
fn next(seed: &mut u64) -> u64 {
    *seed ^= *seed << 13;
    *seed ^= *seed >> 7;
    *seed ^= *seed << 17;
    *seed
}

fn round<'id, M: RunMode>(
    ctx: &Context<'_, 'id, M>,
    streams: &[Stream<'_, 'id>; 2],
    seed: &mut u64,
    worker: usize,
) -> Result<()> {
    let n = 1 + (next(seed) % 2048) as usize;
    for s in streams {
        let delay = Duration::from_micros(next(seed) % 300);
        sim::set_stream_delay(s.as_raw(), delay);
    }
    let tag = next(seed) as u32;
    let input = ctx.alloc_host_from(&pattern_u32(n, tag))?;
    let mut dev = ctx.alloc::<u32>(n)?;
    let mut out = ctx.alloc_host_zeroed::<u32>(n)?;
    let event = ctx.create_event()?;
    let calls = Arc::new(AtomicUsize::new(0));
    ctx.scope(|s| {
        make_guard!(ga);
        make_guard!(gb);
        let a = s.lane(&streams[0], ga);
        let b = s.lane(&streams[1], gb);
        let d = a.copy(&input, &mut dev)?;
        let d = b.wait_for(a.signal(d)?)?;
        let o = b.copy(&d, &mut out)?;
        let o = b.host_fn_with(o, |v| v.update_all(|x| x.wrapping_mul(3)))?;
        let e = b.record(event)?;
        e.synchronize_timeout(T)?;
        streams[1].synchronize_timeout(T)?;
        let o = o.wait()?;
        let expect: Vec<u32> = pattern_u32(n, tag)
            .iter()
            .map(|x| x.wrapping_mul(3))
            .collect();
        assert_eq!(**o, expect[..], "worker {worker}");
        Ok(())
    })?;
    for s in streams {
        let calls = Arc::clone(&calls);
        s.launch_host_fn(move || {
            calls.fetch_add(1, Ordering::SeqCst);
        })?;
        s.synchronize_timeout(T)?;
    }
    streams[0].synchronize()?;
    streams[1].synchronize()?;
    assert_eq!(calls.load(Ordering::SeqCst), 2);
    let mut back = vec![0u32; n];
    ctx.copy(&dev, &mut back)?;
    assert_eq!(back, pattern_u32(n, tag), "worker {worker}");
    Ok(())
}

fn worker<'id, M: RunMode>(
    ctx: &Context<'_, 'id, M>,
    worker: usize,
    deadline: Instant,
    rounds: &AtomicUsize,
) -> Result<()> {
    let streams = [ctx.create_stream()?, ctx.create_stream()?];
    let mut seed = 0x9e37_79b9_7f4a_7c15 ^ (worker as u64 + 1);
    while Instant::now() < deadline {
        round(ctx, &streams, &mut seed, worker)?;
        rounds.fetch_add(1, Ordering::Relaxed);
    }
    Ok(())
}

fn stress<M: RunMode>(rt: Runtime<'_, M>, budget: Duration) -> Result<usize> {
    let devices = [rt.device(0)?, rt.device(1)?];
    make_guard!(g);
    let shared = devices[0].create_context(g)?;
    let deadline = Instant::now() + budget;
    let rounds = AtomicUsize::new(0);
    let stop = AtomicBool::new(false);
    let (done_tx, done_rx) = std::sync::mpsc::channel::<()>();
    // The watchdog: a deadlock must fail, not hang.
    let watchdog = std::thread::spawn(move || {
        if done_rx
            .recv_timeout(budget + Duration::from_secs(60))
            .is_err()
        {
            eprintln!("stress: workers still running long after the deadline: deadlock; aborting");
            std::process::abort();
        }
    });
    let result = std::thread::scope(|t| {
        let syncer = t.spawn(|| -> Result<usize> {
            let mut syncs = 0;
            while !stop.load(Ordering::Relaxed) {
                shared.synchronize_timeout(T)?;
                devices[syncs % 2].synchronize()?;
                syncs += 1;
                std::thread::sleep(Duration::from_millis(1));
            }
            Ok(syncs)
        });
        let handles: Vec<_> = (0..WORKERS)
            .map(|i| {
                let (shared, devices, rounds) = (&shared, &devices, &rounds);
                t.spawn(move || -> Result<()> {
                    if i % 2 == 0 {
                        worker(shared, i, deadline, rounds)
                    } else {
                        make_guard!(g);
                        let own = devices[i / 2 % 2].create_context(g)?;
                        worker(&own, i, deadline, rounds)
                    }
                })
            })
            .collect();
        let results: Vec<Result<()>> = handles
            .into_iter()
            .map(|h| h.join().expect("a worker panicked"))
            .collect();
        stop.store(true, Ordering::Relaxed);
        let syncs = syncer.join().expect("the syncer panicked")?;
        results.into_iter().collect::<Result<()>>().map(|()| syncs)
    });
    let _ = done_tx.send(());
    watchdog.join().expect("watchdog");
    let syncs = result?;
    let rounds = rounds.load(Ordering::Relaxed);
    eprintln!(
        "stress ({:?}): {rounds} rounds by {WORKERS} workers, {syncs} syncs",
        M::KIND
    );
    Ok(rounds)
}

fn run(config: SimConfig) {
    let _sim = sim::exclusive();
    sim::configure(config);
    let acl = Acl::init().expect("init");
    let rounds = match acl.detect() {
        Detected::Host(rt) => stress(rt, budget()),
        Detected::Device(rt) => stress(rt, budget()),
    }
    .expect("stress run");
    assert!(rounds >= WORKERS, "every worker made progress");
    acl.finalize().expect("finalize");
    assert_clean();
}

#[test]
fn threads_streams_events_with_delays_host_mode() {
    run(host_config());
}

#[test]
fn threads_streams_events_with_delays_device_mode() {
    run(device_config());
}
