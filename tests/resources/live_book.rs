//! The book of live children counts streams in their
//! context's slot (no per-stream entry) and other children by key. These
//! check the counts that `Error::LiveChildren` reports through interleaved
//! contexts (the book's one-entry slot cache and the thread's cached
//! counter switch at every call), threads, host functions, the default
//! context, a forced destroy, leaks and a fresh runtime.

use crate::common;

use aclrt::sim;
use aclrt::sim::SimConfig;
use aclrt::{Acl, DeviceMode, Error, HostMode, Result, RunMode, make_guard};
use common::*;

#[track_caller]
fn live_children(err: Error, function: &str) -> usize {
    match err {
        Error::LiveChildren { function: f, live } if f == function => live,
        other => panic!("expected LiveChildren from {function}, got {other:?}"),
    }
}

#[test]
fn counts_follow_each_context_through_interleaved_creates() -> Result<()> {
    let _sim = take(host_config());
    let acl = Acl::init()?;
    {
        let device = acl.require::<HostMode>()?.device(0)?;
        make_guard!(ga);
        make_guard!(gb);
        let a = device.create_context(ga)?;
        let b = device.create_context(gb)?;
        // Interleaved: every create and destroy switches the cached context.
        let a1 = a.create_stream()?;
        let b1 = b.create_stream()?;
        let a2 = a.create_stream()?;
        let ev = b.create_event()?;
        let b2 = b.create_stream()?;
        let a3 = a.create_stream()?;
        b1.destroy()?;
        a1.destroy()?;
        std::mem::forget(a2); // a keeps one stream for good
        b2.destroy_force()?;
        a3.destroy()?;
        std::mem::forget(ev); // b keeps one event for good
        // Streams of the default context count for the device.
        make_guard!(gd);
        let dflt = device.default_context(gd);
        let d1 = dflt.create_stream()?;
        std::mem::forget(dflt.create_stream()?);
        d1.destroy()?;
        assert_eq!(
            live_children(a.destroy().unwrap_err(), "aclrtDestroyContext"),
            1
        );
        assert_eq!(
            live_children(b.destroy().unwrap_err(), "aclrtDestroyContext"),
            1
        );
        // Two explicit contexts and three children (a's stream, b's event,
        // the default context's stream).
        let err = device.reset().unwrap_err();
        assert_eq!(live_children(err, "aclrtResetDevice"), 5);
    }
    // And the open device handle.
    let err = acl.finalize().unwrap_err();
    assert_eq!(live_children(err, "aclFinalize"), 6);
    sim::reset();
    assert_clean();
    Ok(())
}

#[test]
fn released_streams_free_their_context() -> Result<()> {
    let _sim = take(host_config());
    let acl = Acl::init()?;
    {
        let device = acl.require::<HostMode>()?.device(0)?;
        for _ in 0..3 {
            make_guard!(g);
            let ctx = device.create_context(g)?;
            let streams: Vec<_> = (0..4).map(|_| ctx.create_stream()).collect::<Result<_>>()?;
            for (i, s) in streams.into_iter().enumerate() {
                if i % 2 == 0 {
                    s.destroy()?;
                } else {
                    s.destroy_force()?;
                }
            }
            ctx.destroy()?;
        }
        make_guard!(g);
        let dflt = device.default_context(g);
        drop(dflt.create_stream()?); // released by Drop
        device.reset()?;
    }
    acl.finalize()?;
    assert_clean();
    Ok(())
}

/// The stream counts are cached per thread with the current context: a
/// stream made on one thread and released on another, or leaked there, is
/// counted once in its own context, whichever context each thread had
/// current before.
#[test]
fn counts_hold_across_threads_and_contexts() -> Result<()> {
    let _sim = take(host_config());
    let acl = Acl::init()?;
    {
        let device = acl.require::<HostMode>()?.device(0)?;
        make_guard!(ga);
        make_guard!(gb);
        let a = device.create_context(ga)?;
        let b = device.create_context(gb)?;
        // Made here, released on other threads (each with its own cache).
        let from_a: Vec<_> = (0..4).map(|_| a.create_stream()).collect::<Result<_>>()?;
        let from_b: Vec<_> = (0..3).map(|_| b.create_stream()).collect::<Result<_>>()?;
        std::thread::scope(|t| -> Result<()> {
            let ta = t.spawn(move || -> Result<()> {
                let mut it = from_a.into_iter();
                it.next().expect("four").destroy()?;
                drop(it.next());
                std::mem::forget(it.next()); // one of a's streams leaks
                it.next().expect("four").destroy_force()?;
                Ok(())
            });
            let tb = t.spawn(|| -> Result<()> {
                // Made on this thread, leaked in b; b's others released here.
                std::mem::forget(b.create_stream()?);
                for s in from_b {
                    s.destroy()?;
                }
                // Alternate contexts on this thread.
                for _ in 0..3 {
                    a.create_stream()?.destroy()?;
                    b.create_stream()?.destroy()?;
                }
                Ok(())
            });
            ta.join().expect("thread a")?;
            tb.join().expect("thread b")
        })?;
        assert_eq!(
            live_children(a.destroy().unwrap_err(), "aclrtDestroyContext"),
            1
        );
        assert_eq!(
            live_children(b.destroy().unwrap_err(), "aclrtDestroyContext"),
            1
        );
    }
    sim::reset();
    assert_clean();
    Ok(())
}

/// A fresh `aclInit` starts an empty book (the counters of the earlier
/// one are reused, reset): nothing leaked before counts afterwards. In both
/// run modes; the leaking round's `sim::reset` returns the simulator to the
/// environment's configuration, so the round's own is set again after it.
#[test]
fn a_fresh_runtime_counts_from_zero() -> Result<()> {
    fn rounds<M: RunMode>(config: &SimConfig) -> Result<()> {
        for round in 0..3 {
            let acl = Acl::init()?;
            let device = acl.require::<M>()?.device(0)?;
            make_guard!(g);
            let ctx = device.create_context(g)?;
            let kept = ctx.create_stream()?;
            let s = ctx.create_stream()?;
            s.destroy()?;
            if round == 1 {
                // Leak everything: the book refuses the releases.
                std::mem::forget(kept);
                assert_eq!(
                    live_children(ctx.destroy().unwrap_err(), "aclrtDestroyContext"),
                    1
                );
                drop(device);
                assert!(matches!(acl.finalize(), Err(Error::LiveChildren { .. })));
                sim::reset();
                sim::configure(config.clone());
                continue;
            }
            kept.destroy()?;
            ctx.destroy()?;
            device.reset()?;
            acl.finalize()?;
        }
        Ok(())
    }
    for config in [host_config(), device_config()] {
        let _sim = take(config.clone());
        match config.run_mode {
            sim::RunMode::Host => rounds::<HostMode>(&config)?,
            sim::RunMode::Device => rounds::<DeviceMode>(&config)?,
        }
        assert_clean();
    }
    Ok(())
}

/// A stream may be made inside a host function, but not destroyed there
/// (`aclrtDestroyStream` waits): the thread's cached counter never skips
/// that refusal, however often the thread made and released streams
/// outside host functions before. A refused stream leaks and is counted.
#[test]
fn stream_destroys_inside_host_functions_stay_refused() -> Result<()> {
    let _sim = take(host_config());
    let acl = Acl::init()?;
    {
        let device = acl.require::<HostMode>()?.device(0)?;
        make_guard!(g);
        let ctx = device.create_context(g)?;
        let stream = ctx.create_stream()?;
        let outcomes = std::sync::Mutex::new(Vec::new());
        ctx.scope(|s| {
            make_guard!(l);
            let lane = s.lane(&stream, l);
            for _ in 0..2 {
                let (ctx, outcomes) = (&ctx, &outcomes);
                lane.host_fn(move || {
                    let made = ctx.create_stream().map(|s| s.destroy());
                    outcomes.lock().unwrap().push(made);
                })?;
            }
            Ok(())
        })?;
        let outcomes = outcomes.into_inner().unwrap();
        assert_eq!(outcomes.len(), 2);
        for outcome in outcomes {
            assert_eq!(
                outcome,
                Ok(Err(Error::InCallback {
                    operation: "aclrtDestroyStream"
                }))
            );
        }
        // Outside host functions, on this thread, destroys go on.
        ctx.create_stream()?.destroy()?;
        stream.destroy()?;
        assert_eq!(
            live_children(ctx.destroy().unwrap_err(), "aclrtDestroyContext"),
            2
        );
    }
    sim::reset();
    assert_clean();
    Ok(())
}
