//! The fast path of a one-lane scope: such a scope is in no registry of
//! open scopes, and learns from its stream's record whether an escalation
//! aborted the stream since it enlisted it. An escalation must still reach
//! it, and a scope that needs the registry (a second lane, a user event, a
//! host function, its own escalation) must enter it with what it learnt.
//!
//! One test in its own binary, its phases in order: before the process's
//! first escalation, at it, and after (the thread-slot path this replaces
//! changed at the first escalation; the phases stay as regression tests).

mod common;

use std::sync::mpsc;
use std::time::Duration;

use aclrt::sim;
use aclrt::{Error, ErrorKind, make_guard};
use common::*;

#[test]
fn slotted_scopes_work_and_are_reached_by_escalation() -> aclrt::Result<()> {
    in_host_context(|ctx| {
        let (s1, s2) = (ctx.create_stream()?, ctx.create_stream()?);
        let src = ctx.alloc_host_from(&[9u32; 64])?;
        let mut d = ctx.alloc::<u32>(64)?;
        let mut out = ctx.alloc_host_zeroed::<u32>(64)?;

        // Phase 1: before any escalation. Scopes that stay in the slot, and
        // scopes that leave it for the registry, all compute their results.
        for _ in 0..3 {
            ctx.scope(|s| {
                make_guard!(l);
                let lane = s.lane(&s1, l);
                let x = lane.copy(&src, &mut d)?;
                let y = lane.copy(&x, &mut out)?;
                assert_eq!(y.wait()?.to_vec(), [9u32; 64]);
                Ok(())
            })?;
        }
        let mut other = ctx.alloc_host_zeroed::<u32>(64)?;
        let mut d2 = ctx.alloc::<u32>(64)?;
        // Each way out of the slot, alone: a host function, a user event
        // recorded, a wait for a user event, a second lane; and a nested
        // scope while the outer one holds the thread's slot.
        let ran = std::sync::atomic::AtomicBool::new(false);
        ctx.scope(|s| {
            make_guard!(l);
            let lane = s.lane(&s1, l);
            let x = lane.copy(&src, &mut d)?;
            lane.host_fn(|| ran.store(true, std::sync::atomic::Ordering::SeqCst))?;
            assert_eq!(lane.copy(&x, &mut out)?.wait()?.to_vec(), [9u32; 64]);
            Ok(())
        })?;
        assert!(ran.load(std::sync::atomic::Ordering::SeqCst));
        let event = ctx.scope(|s| {
            make_guard!(l);
            let lane = s.lane(&s1, l);
            let _ = lane.memset(&mut d2, 1)?;
            lane.record(ctx.create_event()?)
        })?;
        event.synchronize()?;
        ctx.scope(|s| {
            make_guard!(l);
            let lane = s.lane(&s2, l);
            lane.wait_event(&event)?;
            assert_eq!(
                lane.copy(&d2, &mut other)?.wait()?.to_vec(),
                [0x0101_0101u32; 64]
            );
            Ok(())
        })?;
        ctx.scope(|s| {
            make_guard!(l1);
            let lane1 = s.lane(&s1, l1);
            let x = lane1.copy(&src, &mut d)?;
            ctx.scope(|inner| {
                make_guard!(li);
                let lane = inner.lane(&s2, li);
                lane.memset(&mut d2, 0)?.wait()?;
                Ok(())
            })?;
            make_guard!(l2);
            let lane2 = s.lane(&s2, l2);
            let x = lane2.wait_for(lane1.signal(x)?)?;
            assert_eq!(lane2.copy(&x, &mut other)?.wait()?.to_vec(), [9u32; 64]);
            Ok(())
        })?;
        drop(event);

        // Phase 2: the process's first escalation. Two scopes on other
        // threads are in their slots with work queued on `s1` (held back by
        // a delay); a third thread's timed scope on `s1` misses its
        // deadline and aborts the stream, discarding their work. Both learn
        // it after the abort is over (when their synchronisation finds the
        // stream idle): one from `wait`, one at the end of its scope.
        sim::set_stream_delay(s1.as_raw(), Duration::from_secs(30));
        let mut out_b = ctx.alloc_host_zeroed::<u32>(64)?;
        let mut d_b = ctx.alloc::<u32>(64)?;
        let mut scratch = ctx.alloc::<u8>(16)?;
        let (queued_tx, queued_rx) = mpsc::channel();
        let (done_a_tx, done_a_rx) = mpsc::channel::<()>();
        let (done_b_tx, done_b_rx) = mpsc::channel::<()>();
        let (waited, ended, timed) = std::thread::scope(|t| {
            let (ctx, s1, src) = (&ctx, &s1, &src);
            let (d, out, d_b, out_b) = (&mut d, &mut out, &mut d_b, &mut out_b);
            let scratch = &mut scratch;
            let queued_a = queued_tx.clone();
            let waited = t.spawn(move || {
                ctx.scope(|s| {
                    make_guard!(l);
                    let lane = s.lane(s1, l);
                    let x = lane.copy(src, &mut *d)?;
                    let y = lane.copy(&x, &mut *out)?;
                    queued_a.send(()).unwrap();
                    done_a_rx.recv().unwrap();
                    y.wait().map(|_| ())
                })
            });
            let queued_b = queued_tx;
            let ended = t.spawn(move || {
                ctx.scope(|s| {
                    make_guard!(l);
                    let lane = s.lane(s1, l);
                    let x = lane.copy(src, &mut *d_b)?;
                    let _y = lane.copy(&x, &mut *out_b)?;
                    queued_b.send(()).unwrap();
                    done_b_rx.recv().unwrap();
                    Ok(())
                })
            });
            queued_rx.recv().unwrap();
            queued_rx.recv().unwrap();
            let timed = ctx.scope_with_timeout(Duration::from_millis(20), |s| {
                make_guard!(l);
                let lane = s.lane(s1, l);
                let _ = lane.memset(&mut *scratch, 0)?;
                Ok(())
            });
            done_a_tx.send(()).unwrap();
            done_b_tx.send(()).unwrap();
            (waited.join().unwrap(), ended.join().unwrap(), timed)
        });
        assert!(
            matches!(timed, Err(Error::ScopeTimeout { .. })),
            "{timed:?}"
        );
        assert!(matches!(waited, Err(Error::WorkAborted)), "{waited:?}");
        assert!(matches!(ended, Err(Error::WorkAborted)), "{ended:?}");
        assert_eq!(Error::WorkAborted.kind(), ErrorKind::Aborted);
        // The discarded copies never wrote their destinations.
        assert_eq!(out_b.to_vec(), [0u32; 64]);
        sim::set_stream_delay(s1.as_raw(), Duration::ZERO);

        // Phase 3: after an escalation every scope uses the registry; the
        // stream works again.
        ctx.scope(|s| {
            make_guard!(l);
            let lane = s.lane(&s1, l);
            let x = lane.copy(&src, &mut d)?;
            assert_eq!(lane.copy(&x, &mut out)?.wait()?.to_vec(), [9u32; 64]);
            Ok(())
        })?;
        drop((src, d, out, other, d2, out_b, d_b, scratch));
        s2.destroy()?;
        s1.destroy()?;
        Ok(())
    })
}
