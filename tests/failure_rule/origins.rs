//! A second independent review of the failure rule (SAFETY.md section 4.1),
//! after buffers came to carry their origin (the lanes their contents came
//! through or they were lent to) and contents given back unchecked came to
//! be marked in the scope: safe-code attacks on what comes back under
//! `&mut` while a lane the origin must name may still touch it (lent
//! lanes of a shared buffer, kernels reading several lanes, scopes with
//! more than 63 lanes, the awaited forms), and on lost work through
//! sub-slices, views, partial writes and refused launches of marked
//! contents. Watchdogs make a hang fail the test instead of the suite.
//! The attacks that broke the rule are not here: see the review's report.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc;
use std::time::Duration;

use crate::common::*;
use aclrt::future::block_on;
use aclrt::kernel::{Count, In, Out};
use aclrt::{Error, Result, sim, sys};

use crate::after_failure::{assert_still, writer};

/// A shared buffer's lent lanes: lane a produces it, lane b reads it (a
/// host function holds lane b for 40 ms before the read, so lane b still
/// reads the memory well after lane a finished), lane c reclaims it and
/// the wait task of lane c for lane b's reads fails. Every give-back form
/// on lane c (`reuse`, `Fence::reuse`, the failed checked wait taken back,
/// the failed fence wait taken back, and the awaited fence forms) returns
/// only once lane b's read is over: the reader's lane is in the origin.
#[test]
fn a_reclaimed_buffer_waits_for_a_reader_whose_wait_task_on_the_reclaiming_lane_failed()
-> Result<()> {
    in_host_context(|ctx| {
        let streams = [
            ctx.create_stream()?,
            ctx.create_stream()?,
            ctx.create_stream()?,
        ];
        let mut h = ctx.alloc_host_zeroed::<u8>(64)?;
        let mut d = ctx.alloc::<u8>(64)?;
        for path in 0..6 {
            let read = AtomicBool::new(false);
            let what = format!("give-back path {path}");
            let r = ctx.scope(|s| {
                aclrt::make_guard!(g);
                let l = s.lanes(&streams, g);
                // Held until lane c has queued its waits, so that neither
                // record has completed then (a wait for a completed record
                // queues no task, which would move the injected fault):
                // lane b waits for lane a's record too.
                let gate = HeldGate::new();
                let opener = gate.opener();
                let hold = gate.body();
                let x = l[0].host_fn_with(&mut h, move |p| {
                    hold();
                    p.fill(0x5a);
                })?;
                let shared = l[0].share(x)?;
                let reading = l[1].read(&shared)?;
                let flag = &read;
                l[1].host_fn(move || {
                    std::thread::sleep(Duration::from_millis(40));
                    flag.store(true, Ordering::SeqCst);
                })?;
                let copied = l[1].copy(&reading, &mut d)?;
                // Lane c's tasks at the reclaim: the wait for lane a's
                // record (1), the wait for lane b's reads (2): it fails.
                sim::inject_stream_task_fault(streams[2].as_raw(), 2, 507_000);
                let x = l[2].reclaim(shared)?;
                drop(opener);
                let back = match path {
                    0 => x.reuse()?,
                    1 => x.fence()?.reuse()?,
                    2 => x
                        .wait_or_keep()
                        .expect_err("Ok after a failed wait task")
                        .into_item()
                        .reuse()?,
                    3 => x
                        .fence()?
                        .wait_or_keep()
                        .expect_err("Ok after a failed wait task")
                        .into_item()
                        .reuse()?,
                    4 => block_on(x.fence()?.reuse_async())?,
                    _ => block_on(x.wait_async())
                        .expect_err("Ok after a failed wait task")
                        .into_item()
                        .reuse()?,
                };
                assert!(
                    read.load(Ordering::SeqCst),
                    "&mut back while lane b reads: {what}"
                );
                assert!(
                    streams[1].is_complete()?,
                    "lane b busy at the give-back: {what}"
                );
                // The read saw the producer's value, not a later write.
                back.fill(0);
                let d = copied.reuse()?;
                assert_eq!(d.len(), 64);
                Ok(())
            });
            let e = r.expect_err(&what);
            assert!(
                e.to_string().contains("(wait event"),
                "the fault missed lane c's wait for lane b: {e}"
            );
        }
        let [a, b, c] = streams;
        a.destroy()?;
        b.destroy()?;
        c.destroy()
    })
}

/// The simulator's kernel for these tests: `z[i] = x[i] + y[i]` below `n`.
fn register_add() -> Vec<u8> {
    sim::register_kernel("rr2_add", |block, blocks, args| {
        let (x, y, z, n) = (args.u64(0)?, args.u64(1)?, args.u64(2)?, args.u64(3)?);
        for i in (block as usize..n as usize).step_by(blocks as usize) {
            args.write_f32(z, i, args.read_f32(x, i)? + args.read_f32(y, i)?)?;
        }
        Ok(())
    });
    sim::binary_image(&["rr2_add"])
}

/// A kernel on lane b with two inputs from two other lanes: one handed
/// over from lane a, one shared by lane c and read on lane b. The producer
/// on one of them fails and nobody synchronises its lane: the output's
/// checked wait synchronises both source lanes (its origin joins both
/// inputs') and fails with the producer's code; with no fault it is `Ok`
/// with the sum (the control).
#[test]
fn a_kernel_reading_two_other_lanes_fails_for_either_producer() -> Result<()> {
    in_host_context(|ctx| {
        let binary = ctx.load_binary(&register_add())?;
        // SAFETY: `rr2_add` reads its two `In` and writes its `Out` below
        // `Count`, nothing else.
        let add = unsafe { binary.kernel_ref::<(In<f32>, In<f32>, Out<f32>, Count)>(c"rr2_add")? };
        let (a, b, c) = (
            ctx.create_stream()?,
            ctx.create_stream()?,
            ctx.create_stream()?,
        );
        let one = ctx.alloc_host_from(&[1.0f32; 32])?;
        let two = ctx.alloc_host_from(&[2.0f32; 32])?;
        let mut x = ctx.alloc::<f32>(32)?;
        let mut y = ctx.alloc::<f32>(32)?;
        let mut z = ctx.alloc::<f32>(32)?;
        let mut out = ctx.alloc_host_zeroed::<f32>(32)?;
        for faulty in [None, Some(&a), Some(&c)] {
            let r = ctx.scope(|s| {
                aclrt::make_guard!(ga);
                aclrt::make_guard!(gb);
                aclrt::make_guard!(gc);
                let (la, lb, lc) = (s.lane(&a, ga), s.lane(&b, gb), s.lane(&c, gc));
                if let Some(stream) = faulty {
                    sim::inject_stream_task_fault(stream.as_raw(), 1, 507_000);
                }
                let xa = la.copy(&one, &mut x)?;
                let xb = lb.wait_for(la.signal(xa)?)?;
                let shared = lc.share(lc.copy(&two, &mut y)?)?;
                let reading = lb.read(&shared)?;
                let (_, _, zb, ()) = lb.launch_in(&binary, add, 1, (&xb, &reading, &mut z, 32))?;
                let o = lb.copy(&zb, &mut out)?;
                match (faulty, o.wait_or_keep()) {
                    (None, Ok(o)) => assert!(o.iter().all(|v| v == 3.0), "{o:?}"),
                    (None, Err(e)) => panic!("no fault, yet: {}", e.error()),
                    (Some(_), Ok(_)) => panic!("Ok for a sum of an input never written"),
                    (Some(_), Err(e)) => {
                        assert_eq!(e.error().code(), Some(507_000));
                        assert!(a.is_complete()? && c.is_complete()?);
                    }
                }
                let _ = (xb.reuse()?, lc.reclaim(shared)?.reuse()?, zb.reuse()?);
                Ok(())
            });
            assert_eq!(r.is_err(), faulty.is_some(), "{r:?}");
        }
        a.destroy()?;
        b.destroy()?;
        c.destroy()?;
        binary.unload()
    })
}

/// More than 63 lanes (the lanes from the 63rd on share one bit): a
/// buffer written by a host function on lane 65 and handed to lane 1,
/// or written on lane 1 and handed to lane 64, whose wait task fails;
/// `reuse`, `Fence::reuse` (which must not take the event-only path:
/// the buffer left its lane) and the failed checked wait taken back all
/// wait for the writer.
#[test]
fn past_63_lanes_no_give_back_comes_before_the_writer_stops() -> Result<()> {
    in_host_context(|ctx| {
        let streams = (0..66)
            .map(|_| ctx.create_stream())
            .collect::<Result<Vec<_>>>()?;
        let mut h = ctx.alloc_host_zeroed::<u8>(32)?;
        for (from, to) in [(65usize, 1usize), (1, 64), (63, 64)] {
            for path in 0..3 {
                let done = AtomicBool::new(false);
                let what = format!("{from} -> {to}, path {path}");
                let r = ctx.scope(|s| {
                    aclrt::make_guard!(g);
                    let l = s.lanes(&streams, g);
                    let x = l[from].host_fn_with(&mut h, writer(&done, 0x77, 30))?;
                    sim::inject_stream_task_fault(streams[to].as_raw(), 1, 507_000);
                    let x = l[to].wait_for(l[from].signal(x)?)?;
                    let back = match path {
                        0 => x.reuse()?,
                        1 => x.fence()?.reuse()?,
                        _ => x
                            .wait_or_keep()
                            .expect_err("Ok after a failed wait task")
                            .into_item()
                            .reuse()?,
                    };
                    assert_still(back, &done, &what);
                    Ok(())
                });
                assert!(r.is_err(), "{what}");
            }
        }
        // A buffer that never left lane 64 comes back by its fence (every
        // lane made idle: its bit is shared), and is trusted.
        ctx.scope(|s| {
            aclrt::make_guard!(g);
            let l = s.lanes(&streams, g);
            let x = l[64].host_fn_with(&mut h, |p| p.fill(9))?;
            let back = x.fence()?.wait()?;
            assert!(back.iter().all(|v| v == 9));
            Ok(())
        })?;
        for s in streams {
            s.destroy()?;
        }
        Ok(())
    })
}

/// The awaited forms of a three-lane chain a -> b -> c, lane a's host
/// function still writing and lane c's (or b's) wait task failing:
/// `Fence::reuse_async`, `Fence::wait_async` and `InFlight::wait_async`
/// (failed, taken back) give nothing back before lane a stops. And an
/// awaited checked wait of a buffer that never left lane a does not wait
/// for lane b gated by a host function that waits for this thread.
#[test]
fn the_awaited_forms_follow_the_origin_both_ways() -> Result<()> {
    in_host_context(|ctx| {
        let streams = [
            ctx.create_stream()?,
            ctx.create_stream()?,
            ctx.create_stream()?,
        ];
        let mut h = ctx.alloc_host_zeroed::<u8>(64)?;
        for failing in [1usize, 2] {
            for path in 0..3 {
                let done = AtomicBool::new(false);
                let what = format!("lane {failing} fails, awaited path {path}");
                let r = ctx.scope(|s| {
                    aclrt::make_guard!(g);
                    let l = s.lanes(&streams, g);
                    let x = l[0].host_fn_with(&mut h, writer(&done, 0x6b, 40))?;
                    sim::inject_stream_task_fault(streams[failing].as_raw(), 1, 507_000);
                    let x = l[1].wait_for(l[0].signal(x)?)?;
                    let x = l[2].wait_for(l[1].signal(x)?)?;
                    let back = match path {
                        0 => block_on(x.fence()?.reuse_async())?,
                        1 => block_on(x.fence()?.wait_async())
                            .expect_err("Ok after a failed wait task")
                            .into_item()
                            .reuse()?,
                        _ => block_on(x.wait_async())
                            .expect_err("Ok after a failed wait task")
                            .into_item()
                            .reuse()?,
                    };
                    assert_still(back, &done, &what);
                    Ok(())
                });
                assert!(r.is_err(), "{what}");
            }
        }
        let [a, b, c] = streams;
        let input = ctx.alloc_host_from(&[5u8; 64])?;
        let mut d = ctx.alloc::<u8>(64)?;
        let mut e = ctx.alloc::<u8>(64)?;
        for form in 0..2 {
            let by_watchdog = AtomicBool::new(false);
            std::thread::scope(|t| {
                ctx.scope(|s| {
                    aclrt::make_guard!(ga);
                    aclrt::make_guard!(gb);
                    let (la, lb) = (s.lane(&a, ga), s.lane(&b, gb));
                    let y = lb.wait_for(la.signal(la.memset(&mut e, 1)?)?)?;
                    let (gate_tx, gate_rx) = mpsc::channel::<()>();
                    lb.host_fn(move || {
                        let _ = gate_rx.recv_timeout(Duration::from_secs(5));
                    })?;
                    let x = la.copy(&input, &mut d)?;
                    let (done_tx, done_rx) = mpsc::channel::<()>();
                    let gate = gate_tx.clone();
                    let by = &by_watchdog;
                    let watchdog = t.spawn(move || {
                        if done_rx.recv_timeout(Duration::from_secs(2)).is_err() {
                            by.store(true, Ordering::SeqCst);
                            let _ = gate.send(());
                        }
                    });
                    let back: Result<&mut _> = if form == 0 {
                        block_on(x.wait_async()).map_err(Error::from)
                    } else {
                        x.fence().and_then(|f| Ok(block_on(f.reuse_async())?))
                    };
                    let stalled = by_watchdog.load(Ordering::SeqCst);
                    let _ = done_tx.send(());
                    let _ = gate_tx.send(());
                    watchdog.join().unwrap();
                    assert_eq!(back?.len(), 64, "form {form}");
                    assert!(!stalled, "awaited form {form} waited for lane b's gate");
                    let _ = y.reuse()?;
                    Ok(())
                })
            })?;
        }
        a.destroy()?;
        b.destroy()?;
        c.destroy()
    })
}

/// Sub-slices and overlapping views of a faulted buffer taken back with
/// `reuse`, after the recovery point: a view of the middle of device
/// memory, the upper half of split pinned memory read alone, and again
/// after only the lower half was parked again and written afresh (a
/// smaller write ends no mark): every copy's checked wait fails.
#[test]
fn parts_and_views_of_reused_faulted_contents_stay_suspect() -> Result<()> {
    in_host_context(|ctx| {
        let stream = ctx.create_stream()?;
        let fresh = ctx.alloc_host_from(&[8u8; 64])?;
        let mut d = ctx.alloc::<u8>(64)?;
        let mut h = ctx.alloc_host_zeroed::<u8>(64)?;
        let (mut o0, mut o1, mut o3) = (
            ctx.alloc::<u8>(32)?,
            ctx.alloc::<u8>(32)?,
            ctx.alloc::<u8>(32)?,
        );
        ctx.scope(|s| {
            s.with_lane(&stream, |lane| {
                sim::inject_stream_task_fault(stream.as_raw(), 1, 507_000);
                let dback = lane.copy(&fresh, &mut d)?.reuse()?; // faulted
                sim::inject_stream_task_fault(stream.as_raw(), 1, 507_000);
                let hback = lane.memset(&mut h, 3)?.reuse()?; // faulted
                assert!(s.recover()?.is_some());
                let mut oks = Vec::new();
                // The middle of the device buffer, through a view.
                if lane
                    .copy(dback.view(16..48)?, &mut o0)?
                    .wait_or_keep()
                    .is_ok()
                {
                    oks.push("a view of the middle");
                }
                // Pinned memory split: the upper half read alone.
                let (lo, hi) = hback.split_at_mut(32);
                if lane.copy(&*hi, &mut o1)?.wait_or_keep().is_ok() {
                    oks.push("the upper half read alone");
                }
                // The lower half parked again and written afresh: its
                // own contents are clean...
                let lo = lane.memset(lo, 8)?.wait()?;
                assert!(lo.iter().all(|v| v == 8));
                // ...the upper half is not.
                if lane.copy(&*hi, &mut o3)?.wait_or_keep().is_ok() {
                    oks.push("the upper half after the lower was rewritten");
                }
                assert!(oks.is_empty(), "Ok for suspect contents: {oks:?}");
                Ok(())
            })
        })?;
        stream.destroy()
    })
}

/// A launch refused at the call (`launch_in_or_keep`) gives its output
/// back; taken back with `reuse` and parked again after the recovery
/// point, its copy's checked wait fails (the launch's error is a failure
/// of the lane entered after the output's clock restarted); written afresh
/// by a copy, it is clean again.
#[test]
fn a_refused_launchs_output_taken_back_stays_suspect_after_recover() -> Result<()> {
    in_host_context(|ctx| {
        let binary = ctx.load_binary(&register_add())?;
        // SAFETY: as above.
        let add = unsafe { binary.kernel_ref::<(In<f32>, In<f32>, Out<f32>, Count)>(c"rr2_add")? };
        let stream = ctx.create_stream()?;
        let one = ctx.alloc_host_from(&[1.0f32; 32])?;
        let zin = ctx.alloc::<f32>(32)?;
        let mut z = ctx.alloc::<f32>(32)?;
        let mut outs = [
            ctx.alloc_host_zeroed::<f32>(32)?,
            ctx.alloc_host_zeroed::<f32>(32)?,
        ];
        ctx.scope(|s| {
            s.with_lane(&stream, |lane| {
                sim::inject_fault(
                    "aclrtLaunchKernelWithConfig",
                    1,
                    sys::ACL_ERROR_RT_AICORE_EXCEPTION,
                );
                let failed = lane
                    .launch_in_or_keep(&binary, add, 1, (&zin, &zin, &mut z, 32))
                    .expect_err("the launch call fails");
                let ((), (), zb, ()) = failed.into_item();
                let back = zb.reuse()?;
                assert!(s.recover()?.is_some());
                let [o0, o1] = &mut outs;
                let x = lane.park(back)?;
                let o = lane.copy(&x, o0)?;
                assert!(
                    o.wait_or_keep().is_err(),
                    "Ok for what the refused launch was to write"
                );
                let x = lane.copy(&one, x)?;
                let o = lane.copy(&x, o1)?.wait()?;
                assert!(o.iter().all(|v| v == 1.0));
                Ok(())
            })
        })?;
        sim::clear_faults();
        stream.destroy()?;
        binary.unload()
    })
}

/// A faulted buffer taken back with `reuse` and written afresh in two
/// parts after the recovery point (each half parked and written by its own
/// memset): each part written is clean, read alone or with the other; a
/// part not written yet stays suspect. (Before, a mark ended only when one
/// write covered its whole span: the halves failed their reads for the
/// rest of the scope.)
#[test]
fn memory_written_afresh_in_parts_is_clean_part_by_part() -> Result<()> {
    in_host_context(|ctx| {
        let stream = ctx.create_stream()?;
        let mut h = ctx.alloc_host_zeroed::<u8>(64)?;
        let (mut o0, mut o1, mut o2) = (
            ctx.alloc::<u8>(32)?,
            ctx.alloc::<u8>(32)?,
            ctx.alloc::<u8>(32)?,
        );
        ctx.scope(|s| {
            s.with_lane(&stream, |lane| {
                sim::inject_stream_task_fault(stream.as_raw(), 1, 507_000);
                let back = lane.memset(&mut h, 7)?.reuse()?; // faulted
                assert!(s.recover()?.is_some());
                let (lo, hi) = back.split_at_mut(32);
                let lo = lane.memset(lo, 1)?.wait()?;
                // The upper half, not written yet, is still suspect.
                let x = lane.park(hi)?;
                let failed = lane.copy(&x, &mut o0)?.wait_or_keep();
                assert_eq!(
                    failed
                        .expect_err("Ok for the half not written")
                        .error()
                        .code(),
                    Some(507_000)
                );
                // The lower half, written afresh, is clean.
                let o = lane.copy(&*lo, &mut o1)?.wait()?;
                assert_eq!(o.len(), 32);
                // Both halves written: the upper one is clean too.
                let hi = lane.memset(x, 2)?.wait()?;
                let o = lane.copy(&*hi, &mut o2)?.wait()?;
                assert_eq!(o.len(), 32);
                assert!(lo.iter().all(|v| v == 1) && hi.iter().all(|v| v == 2));
                Ok(())
            })
        })?;
        stream.destroy()
    })
}

/// A fence's `reuse` takes its event-only path (the buffer never left its
/// lane) past a faulted copy, so no synchronisation of this thread enters
/// the failure: another thread's `Context::synchronize` or
/// `Stream::synchronize` takes it first. After the recovery point the
/// contents, parked again and handed to lane b, or read through a view on
/// lane b, still fail the checked wait of what is derived from them.
#[test]
fn reused_contents_whose_failure_another_thread_took_fail_after_recover() -> Result<()> {
    in_host_context(|ctx| {
        let (a, b) = (ctx.create_stream()?, ctx.create_stream()?);
        let input = ctx.alloc_host_from(&[7u8; 64])?;
        let mut d = ctx.alloc::<u8>(64)?;
        let mut d2 = ctx.alloc::<u8>(64)?;
        let (mut o0, mut o1) = (
            ctx.alloc_host_zeroed::<u8>(64)?,
            ctx.alloc_host_zeroed::<u8>(64)?,
        );
        for observer in 0..2 {
            let r = ctx.scope(|s| {
                aclrt::make_guard!(ga);
                aclrt::make_guard!(gb);
                let (la, lb) = (s.lane(&a, ga), s.lane(&b, gb));
                sim::inject_stream_task_fault(a.as_raw(), 1, 507_000);
                let back = la.copy(&input, &mut d)?.fence()?.reuse()?;
                let back2 = la.copy(&input, &mut d2)?.fence()?.reuse()?;
                let seen = std::thread::scope(|t| {
                    t.spawn(|| {
                        if observer == 0 {
                            ctx.synchronize()
                        } else {
                            a.synchronize()
                        }
                    })
                    .join()
                    .unwrap()
                });
                assert_eq!(
                    seen.unwrap_err().code(),
                    Some(507_000),
                    "observer {observer}"
                );
                assert!(s.recover()?.is_some(), "observer {observer}");
                // Parked again on lane a, handed to lane b, copied there.
                let x = lb.wait_for(la.signal(la.park(back)?)?)?;
                let failed = lb.copy(&x, &mut o0)?.wait_or_keep();
                assert_eq!(
                    failed
                        .expect_err("Ok for a hand-off of reused faulted contents")
                        .error()
                        .code(),
                    Some(507_000),
                    "observer {observer}"
                );
                // The second copy ran after the faulted one (the stream
                // goes on): its contents are sound, yet given back
                // unchecked before the failure was seen they stay suspect
                // (nothing tells them apart on one lane).
                let failed = lb.copy(back2.view(..)?, &mut o1)?.wait_or_keep();
                assert!(failed.is_err(), "observer {observer}");
                let _ = x.reuse()?;
                Ok(())
            });
            // Recovered: the failures of older contents do not stick.
            assert!(r.is_ok(), "observer {observer}: {r:?}");
        }
        a.destroy()?;
        b.destroy()
    })
}
