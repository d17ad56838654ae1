//! Regressions of the failure rule's origins and marks (the second
//! independent review's findings, each a test that failed before its fix):
//! a kernel `Out` written in part keeps the old contents' origin; a mark's
//! lanes are not synchronised again (no wait for a lane the memory left);
//! older contents are judged by the failures of their own lanes only.
#![allow(unused_imports)]

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc;
use std::time::Duration;

use crate::common::*;
use aclrt::kernel::{Count, Out};
use aclrt::{Result, sim};

fn register_fill() -> Vec<u8> {
    sim::register_kernel("rr2f_fill", |block, blocks, args| {
        let (x, n) = (args.u64(0)?, args.u64(1)?);
        for i in (block as usize..n as usize).step_by(blocks as usize) {
            args.write_f32(x, i, 1.0)?;
        }
        Ok(())
    });
    sim::binary_image(&["rr2f_fill"])
}

/// Finding 1: a kernel `Out` operand is taken as a whole overwrite, but the
/// kernel writes what its `Count` says: the mark of the reused faulted
/// buffer ends and its clock restarts, so after the recovery point the copy
/// of the buffer passes its checked wait with 48 of its 64 elements left
/// as the failed copy left them.
#[test]
fn a_kernel_out_written_in_part_keeps_the_mark() -> Result<()> {
    in_host_context(|ctx| {
        let binary = ctx.load_binary(&register_fill())?;
        // SAFETY: `rr2f_fill` writes its `Out` below `Count`, nothing else.
        let fill = unsafe { binary.kernel_ref::<(Out<f32>, Count)>(c"rr2f_fill")? };
        let stream = ctx.create_stream()?;
        let input = ctx.alloc_host_from(&[7.0f32; 64])?;
        let mut d = ctx.alloc::<f32>(64)?;
        let mut out = ctx.alloc_host_zeroed::<f32>(64)?;
        ctx.scope(|s| {
            s.with_lane(&stream, |lane| {
                let d = lane.memset(&mut d, 0)?.wait()?; // 0.0, checked
                sim::inject_stream_task_fault(stream.as_raw(), 1, 507_000);
                let back = lane.copy(&input, d)?.reuse()?; // faulted: never 7.0
                assert!(s.recover()?.is_some());
                let (x, ()) = lane.launch_in(&binary, fill, 1, (back, 16usize))?;
                let o = lane.copy(&x, &mut out)?;
                if let Ok(o) = o.wait_or_keep() {
                    panic!(
                        "checked wait Ok; elements 16.. hold {:?} where the failed copy was to write 7.0",
                        &o[16..20]
                    );
                }
                Ok(())
            })
        })?;
        stream.destroy()?;
        binary.unload()
    })
}

/// Finding 1, without a mark: a buffer whose copy failed stays in flight
/// (its failed checked wait taken back); after the recovery point a
/// partial `Out` launch restarts its clock, and the copy of the whole
/// buffer passes its checked wait.
#[test]
fn a_kernel_out_written_in_part_keeps_an_in_flight_buffers_origin() -> Result<()> {
    in_host_context(|ctx| {
        let binary = ctx.load_binary(&register_fill())?;
        // SAFETY: `rr2f_fill` writes its `Out` below `Count`, nothing else.
        let fill = unsafe { binary.kernel_ref::<(Out<f32>, Count)>(c"rr2f_fill")? };
        let stream = ctx.create_stream()?;
        let input = ctx.alloc_host_from(&[7.0f32; 64])?;
        let mut d = ctx.alloc::<f32>(64)?;
        let mut out = ctx.alloc_host_zeroed::<f32>(64)?;
        ctx.scope(|s| {
            s.with_lane(&stream, |lane| {
                sim::inject_stream_task_fault(stream.as_raw(), 1, 507_000);
                let x = lane.copy(&input, &mut d)?;
                let x = x.wait_or_keep().expect_err("faulted").into_item();
                assert!(s.recover()?.is_some());
                let (x, ()) = lane.launch_in(&binary, fill, 1, (x, 16usize))?;
                let o = lane.copy(&x, &mut out)?;
                assert!(o.wait_or_keep().is_err(), "Ok without a mark");
                Ok(())
            })
        })?;
        stream.destroy()?;
        binary.unload()
    })
}

/// Finding 3: a mark keeps the lanes the memory passed through before it
/// came back (when every one of them was made idle), and re-parking joins
/// them: a buffer written afresh on lane a only, after it came back from
/// lane b, still makes lane b idle at its checked wait, so a host function
/// on lane b that waits for this thread holds the wait (here until a
/// watchdog opens the gate after 2 s).
#[test]
fn a_marks_lanes_are_not_waited_for_again() -> Result<()> {
    in_host_context(|ctx| {
        let (a, b) = (ctx.create_stream()?, ctx.create_stream()?);
        let input = ctx.alloc_host_from(&[5u8; 64])?;
        let mut e = ctx.alloc::<u8>(64)?;
        let mut d = ctx.alloc::<u8>(64)?;
        let mut stalls = Vec::new();
        for form in 0..2 {
            let by_watchdog = AtomicBool::new(false);
            std::thread::scope(|t| {
                ctx.scope(|s| {
                    aclrt::make_guard!(ga);
                    aclrt::make_guard!(gb);
                    let (la, lb) = (s.lane(&a, ga), s.lane(&b, gb));
                    // Written on b, handed to a, taken back unchecked: a
                    // and b idle, the memory idle, no failure anywhere.
                    let y = la.wait_for(lb.signal(lb.memset(&mut e, 1)?)?)?;
                    let back = y.reuse()?;
                    assert!(la.is_complete()? && lb.is_complete()?);
                    let (gate_tx, gate_rx) = mpsc::channel::<()>();
                    lb.host_fn(move || {
                        let _ = gate_rx.recv_timeout(Duration::from_secs(5));
                    })?;
                    let (done_tx, done_rx) = mpsc::channel::<()>();
                    let gate = gate_tx.clone();
                    let by = &by_watchdog;
                    let watchdog = t.spawn(move || {
                        if done_rx.recv_timeout(Duration::from_secs(2)).is_err() {
                            by.store(true, Ordering::SeqCst);
                            let _ = gate.send(());
                        }
                    });
                    let waited = if form == 0 {
                        // The memory written afresh on lane a.
                        la.copy(&input, back)?.wait().map(|x| x.len())
                    } else {
                        // Read on lane a into a buffer of lane a.
                        la.copy(&*back, &mut d)?.wait().map(|x| x.len())
                    };
                    let stalled = by_watchdog.load(Ordering::SeqCst);
                    let _ = done_tx.send(());
                    let _ = gate_tx.send(());
                    watchdog.join().unwrap();
                    waited?;
                    if stalled {
                        stalls.push(form);
                    }
                    Ok(())
                })
            })?;
        }
        assert!(
            stalls.is_empty(),
            "forms {stalls:?} (0: written afresh on a, 1: read on a) waited for lane b's gate"
        );
        a.destroy()?;
        b.destroy()
    })
}

/// Finding 4: a mark outlives every recovery point once *any* lane of the
/// scope failed after its work began, even a lane its contents never met:
/// weights loaded on lane b and taken back with `Fence::reuse` (the loader
/// never failed), then one request on lane a fails and the scope recovers:
/// every later read of the weights, on any lane, fails its checked wait,
/// for the rest of the scope.
#[test]
fn a_failure_of_another_lane_does_not_keep_a_mark() -> Result<()> {
    in_host_context(|ctx| {
        let (a, b) = (ctx.create_stream()?, ctx.create_stream()?);
        let host_w = ctx.alloc_host_from(&[3u8; 64])?;
        let req = ctx.alloc_host_from(&[4u8; 64])?;
        let mut weights = ctx.alloc::<u8>(64)?;
        let mut r = ctx.alloc::<u8>(64)?;
        let mut outs = [
            ctx.alloc_host_zeroed::<u8>(64)?,
            ctx.alloc_host_zeroed::<u8>(64)?,
            ctx.alloc_host_zeroed::<u8>(64)?,
        ];
        ctx.scope(|s| {
            aclrt::make_guard!(ga);
            aclrt::make_guard!(gb);
            let (la, lb) = (s.lane(&a, ga), s.lane(&b, gb));
            let w = lb.copy(&host_w, &mut weights)?.fence()?.reuse()?;
            assert!(lb.is_complete()?);
            sim::inject_stream_task_fault(a.as_raw(), 1, 507_000);
            let failed = la.copy(&req, &mut r)?.wait_or_keep();
            assert!(failed.is_err());
            assert!(s.recover()?.is_some());
            let mut fails = Vec::new();
            let [o0, o1, o2] = &mut outs;
            let reads = [
                la.copy(&*w, o0)?.wait().map(|_| ()),
                lb.copy(&*w, o1)?.wait().map(|_| ()),
                la.copy(&*w, o2)?.wait().map(|_| ()),
            ];
            for (round, read) in reads.into_iter().enumerate() {
                if let Err(e) = read {
                    fails.push(format!("read {round}: {e}"));
                }
            }
            assert!(s.recover()?.is_none(), "nothing failed since");
            assert!(
                fails.is_empty(),
                "reads of weights lane b loaded fine fail after lane a's failure: {fails:#?}"
            );
            Ok(())
        })?;
        a.destroy()?;
        b.destroy()
    })
}
