//! Regressions of the failure rule from its third independent review, each
//! a test that failed before its fix: past 31 lanes a buffer's waits touch
//! no lane of the first 31 it never met, and a failure of one of those does
//! not keep its mark; a wait does not wait for another thread's
//! synchronisation of a lane the memory left (stalled behind a host
//! function that waits for this thread). Its finding on a fence-reused
//! mark (it stops synchronising its old lane once the scope did) is a case
//! of `recovery_point::a_fence_reused_mark_stops_synchronising_its_lane_once_the_scope_did`.
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc;
use std::time::Duration;

use crate::common::*;
use aclrt::{Result, sim};

/// Runs `body` with a gate receiver for a host function and reports
/// whether a watchdog had to open the gate (after 1 s) for `body` to end.
fn gated<'s, 'e, T>(
    t: &'s std::thread::Scope<'s, 'e>,
    body: impl FnOnce(mpsc::Receiver<()>) -> Result<T>,
) -> Result<(T, bool)> {
    let (gate_tx, gate_rx) = mpsc::channel::<()>();
    let (done_tx, done_rx) = mpsc::channel::<()>();
    let by = std::sync::Arc::new(AtomicBool::new(false));
    let gate = gate_tx.clone();
    let by2 = by.clone();
    let watchdog = t.spawn(move || {
        if done_rx.recv_timeout(Duration::from_secs(1)).is_err() {
            by2.store(true, Ordering::SeqCst);
            let _ = gate.send(());
        }
    });
    let r = body(gate_rx);
    let stalled = by.load(Ordering::SeqCst);
    let _ = done_tx.send(());
    let _ = gate_tx.send(());
    watchdog.join().unwrap();
    Ok((r?, stalled))
}

/// Finding B: a scope of 32 lanes; a buffer that never left lane 31 (the
/// 32nd stream, which shares `EVERY_LANE`) is waited for (checked) or
/// given back (`reuse`, `Fence::reuse`): each synchronises every lane of
/// the scope, lane 0 included, whose host function waits for this thread.
/// Lane 30 (its own bit) is the control.
#[test]
fn past_31_lanes_no_wait_synchronises_a_first_lane_the_buffer_never_met() -> Result<()> {
    in_host_context(|ctx| {
        let streams = (0..32)
            .map(|_| ctx.create_stream())
            .collect::<Result<Vec<_>>>()?;
        let mut d = ctx.alloc::<u8>(64)?;
        let mut stalls = Vec::new();
        for lane in [30usize, 31] {
            for form in 0..3 {
                std::thread::scope(|t| {
                    ctx.scope(|s| {
                        aclrt::make_guard!(g);
                        let l = s.lanes(&streams, g);
                        let (_, stalled) = gated(t, |gate| {
                            l[0].host_fn(move || {
                                let _ = gate.recv_timeout(Duration::from_secs(5));
                            })?;
                            let x = l[lane].memset(&mut d, 1)?;
                            match form {
                                0 => x.wait().map(|_| ()),
                                1 => x.reuse().map(|_| ()),
                                _ => x.fence()?.reuse().map(|_| ()),
                            }
                        })?;
                        if stalled {
                            stalls.push((lane, form));
                        }
                        Ok(())
                    })
                })?;
            }
        }
        for s in streams {
            s.destroy()?;
        }
        assert!(
            stalls.is_empty(),
            "(lane, form) {stalls:?} (0 checked wait, 1 reuse, 2 fence reuse) waited for lane 0's gate"
        );
        Ok(())
    })
}

/// Keep `sim` used.
#[allow(dead_code)]
fn _unused() {
    let _ = sim::binary_image(&[]);
}

/// Finding B, second symptom: past 31 lanes a failure of another lane
/// keeps a mark after the recovery point (review 2's finding 4 again):
/// weights loaded on lane 31 (the 32nd stream) and taken back with
/// `reuse`; a request on lane 0 fails; the scope recovers; a read of the
/// weights on lane 1 fails its checked wait, for ever. Lane 30 is the
/// control.
#[test]
fn past_31_lanes_a_failure_of_a_first_lane_does_not_keep_a_mark() -> Result<()> {
    in_host_context(|ctx| {
        let streams = (0..32)
            .map(|_| ctx.create_stream())
            .collect::<Result<Vec<_>>>()?;
        let host_w = ctx.alloc_host_from(&[3u8; 64])?;
        let req = ctx.alloc_host_from(&[4u8; 64])?;
        let mut weights = ctx.alloc::<u8>(64)?;
        let mut r = ctx.alloc::<u8>(64)?;
        let mut out = ctx.alloc_host_zeroed::<u8>(64)?;
        let mut fails = Vec::new();
        for loader in [30usize, 31] {
            ctx.scope(|s| {
                aclrt::make_guard!(g);
                let l = s.lanes(&streams, g);
                let w = l[loader].copy(&host_w, &mut weights)?.reuse()?;
                sim::inject_stream_task_fault(streams[0].as_raw(), 1, 507_000);
                assert!(l[0].copy(&req, &mut r)?.wait_or_keep().is_err());
                assert!(s.recover()?.is_some());
                if let Err(e) = l[1].copy(&*w, &mut out)?.wait() {
                    fails.push(format!("loader lane {loader}: {e}"));
                }
                assert!(s.recover()?.is_none(), "nothing failed since");
                Ok(())
            })?;
        }
        for s in streams {
            s.destroy()?;
        }
        assert!(
            fails.is_empty(),
            "reads of weights a lane loaded fine fail after another lane's failure: {fails:#?}"
        );
        Ok(())
    })
}

/// Finding D: a checked wait waits for another thread's synchronisation of
/// a lane the memory left (a `from` lane of a mark): weights written on
/// lane b and taken back with `reuse` (lane b moves to the mark's `from`);
/// lane b then runs a host function that waits for this thread, and
/// another thread synchronises lane b (`Stream::synchronize`, or
/// `Context::synchronize`), blocked behind it. A read of the weights on
/// lane a synchronises lane a only, but its failure lookup quiesces the
/// `from` lanes: it waits for the other thread's synchronisation of lane
/// b, so for the gate: it stalls until the watchdog opens it.
#[test]
fn no_wait_for_another_threads_synchronisation_of_a_lane_the_memory_left() -> Result<()> {
    in_host_context(|ctx| {
        let (a, b) = (ctx.create_stream()?, ctx.create_stream()?);
        let host_w = ctx.alloc_host_from(&[3u8; 64])?;
        let mut weights = ctx.alloc::<u8>(64)?;
        let mut outs = [
            ctx.alloc_host_zeroed::<u8>(64)?,
            ctx.alloc_host_zeroed::<u8>(64)?,
            ctx.alloc_host_zeroed::<u8>(64)?,
        ];
        let mut dctl = ctx.alloc::<u8>(64)?;
        let mut stalls = Vec::new();
        // Observer 2: `Stream::synchronize`, reading memory no scope work
        // wrote (the control: no stall).
        for (observer, out) in outs.iter_mut().enumerate() {
            std::thread::scope(|t| {
                ctx.scope(|s| {
                    aclrt::make_guard!(ga);
                    aclrt::make_guard!(gb);
                    let (la, lb) = (s.lane(&a, ga), s.lane(&b, gb));
                    let w = lb.copy(&host_w, &mut weights)?.reuse()?;
                    let (_, stalled) = gated(t, |gate| {
                        lb.host_fn(move || {
                            let _ = gate.recv_timeout(Duration::from_secs(5));
                        })?;
                        let (b, ctx) = (&b, ctx);
                        let other = t.spawn(move || {
                            if observer == 1 {
                                ctx.synchronize()
                            } else {
                                b.synchronize()
                            }
                        });
                        std::thread::sleep(Duration::from_millis(30));
                        let r = if observer == 2 {
                            let _ = out;
                            la.copy(&host_w, &mut dctl)?.wait().map(|o| o.len())
                        } else {
                            la.copy(&*w, out)?.wait().map(|o| o.len())
                        };
                        // The other thread ends once the gate opens.
                        drop(other);
                        r
                    })?;
                    if stalled {
                        stalls.push(observer);
                    }
                    Ok(())
                })
            })?;
        }
        a.destroy()?;
        b.destroy()?;
        assert!(
            stalls.is_empty(),
            "observers {stalls:?} (0 Stream::synchronize, 1 Context::synchronize of lane b, 2 control): \
             a read of weights on lane a waited for lane b's gate"
        );
        Ok(())
    })
}
