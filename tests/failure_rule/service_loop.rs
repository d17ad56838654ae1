//! A service loop in one scope: lanes of one set (`Scope::lanes`)
//! and their run-time stream check on every path that queues work on a
//! bound operand; fences (`InFlight::fence`, `aclrtSynchronizeEvent`) that
//! wait at the operation and reuse their events; failed waits that give the
//! buffer back; `KernelRef` checked against its binary; targeted fault
//! injection; error texts and the failing task's function.

use crate::common;

use std::time::Duration;

use aclrt::kernel::{Count, In, InOut, Out};
use aclrt::{Error, ErrorKind, Result, sim, sys};
use common::*;

/// The simulator's copy kernel for these tests: `y[i] = x[i]` below `n`.
fn register_copy() -> Vec<u8> {
    sim::register_kernel("svc_copy", |block, blocks, args| {
        let (x, y, n) = (args.u64(0)?, args.u64(1)?, args.u64(2)?);
        for i in (block as usize..n as usize).step_by(blocks as usize) {
            args.write_f32(y, i, args.read_f32(x, i)?)?;
        }
        Ok(())
    });
    sim::register_kernel("svc_inc", |block, blocks, args| {
        let (x, n) = (args.u64(0)?, args.u64(1)?);
        for i in (block as usize..n as usize).step_by(blocks as usize) {
            args.write_f32(x, i, args.read_f32(x, i)? + 1.0)?;
        }
        Ok(())
    });
    sim::binary_image(&["svc_copy", "svc_inc"])
}

/// The next task queued on the stream with this raw handle faults with an
/// AI Core exception (507015).
pub(crate) fn fault_next_task(stream: *mut core::ffi::c_void) {
    sim::inject_stream_task_fault(stream, 1, sys::ACL_ERROR_RT_AICORE_EXCEPTION);
}

fn calls(name: &str) -> u64 {
    sim::call_counts()
        .into_iter()
        .find(|(f, _)| *f == name)
        .map_or(0, |(_, n)| n)
}

fn is_wrong_lane<T: core::fmt::Debug>(r: &Result<T>) -> bool {
    matches!(r, Err(Error::WrongLane { .. }))
}

/// Every path that queues work on a buffer bound to a lane refuses a lane
/// of the same set with another stream, before anything is queued; the
/// buffer is unharmed and the scope ends cleanly.
#[test]
fn wrong_lane_of_a_set_is_refused_on_every_path() -> Result<()> {
    in_host_context(|ctx| {
        let image = register_copy();
        let binary = ctx.load_binary(&image)?;
        // SAFETY: `svc_copy` reads `In`, writes `Out` below `Count`, nothing else.
        let copy = unsafe { binary.kernel::<(In<f32>, Out<f32>, Count)>(c"svc_copy")? };
        // SAFETY: `svc_inc` reads and writes its `InOut` below `Count`, nothing else.
        let inc = unsafe { binary.kernel_ref::<(InOut<f32>, Count)>(c"svc_inc")? };
        let streams = vec![ctx.create_stream()?, ctx.create_stream()?];
        let input = ctx.alloc_host_from(&pattern_f32(64, 1.0))?;
        let mut d = ctx.alloc::<f32>(64)?;
        let mut sinks: Vec<_> = (0..9)
            .map(|_| ctx.alloc::<f32>(64))
            .collect::<Result<_>>()?;
        let mut host_sink = ctx.alloc_host_zeroed::<f32>(64)?;
        let mut out = ctx.alloc_host_zeroed::<f32>(64)?;
        ctx.scope(|s| {
            aclrt::make_guard!(g);
            let lanes = s.lanes(&streams, g);
            let (a, b) = (&lanes[0], &lanes[1]);
            let mut sinks = sinks.iter_mut();
            let mut sink = || sinks.next().expect("enough sinks");
            let x = a.copy(&input, &mut d)?;
            let before = calls("aclrtMemcpyAsync") + calls("aclrtMemsetAsync");
            let launches = calls("aclrtLaunchKernelWithConfig");
            // A source in flight on `a`, read on `b`.
            assert!(is_wrong_lane(&b.copy(&x, sink())));
            assert!(is_wrong_lane(&b.launch(&copy, 1, (&x, sink(), 64))));
            // A destination in flight on `a`, written on `b`: each call
            // consumes the `InFlight`, so each gets a fresh one on `a`.
            assert!(is_wrong_lane(&b.memset(a.park(sink())?, 0)));
            assert!(is_wrong_lane(&b.copy(&input, a.park(sink())?)));
            assert!(is_wrong_lane(&b.park(a.park(sink())?)));
            assert!(is_wrong_lane(&b.signal(a.park(sink())?)));
            assert!(is_wrong_lane(&b.share(a.park(sink())?)));
            assert!(is_wrong_lane(&b.launch_in(
                &binary,
                inc,
                1,
                (a.park(sink())?, 64)
            )));
            assert!(is_wrong_lane(
                &b.host_fn_with(a.park(&mut host_sink)?, |_| {})
            ));
            // A shared buffer read on `a`, the reading used on `b`.
            let shared = a.share(a.copy(&input, sink())?)?;
            let reading = a.read(&shared)?;
            assert!(is_wrong_lane(&b.copy(&reading, &mut out)));
            // Nothing was queued by the refused calls (the share's copy was
            // one, the park none).
            assert_eq!(
                calls("aclrtMemcpyAsync") + calls("aclrtMemsetAsync"),
                before + 1
            );
            assert_eq!(calls("aclrtLaunchKernelWithConfig"), launches);
            // The right way: the hand-off; the buffer is what `a` copied.
            let x = b.wait_for(a.signal(x)?)?;
            assert!(is_wrong_lane(&a.memset(x, 0)), "now it is `b`'s");
            Ok(())
        })?;
        // The refused calls left nothing behind; the buffer is what `a` copied.
        ctx.scope(|s| {
            s.with_lane(&streams[0], |lane| {
                let back = lane.copy(&d, &mut out)?.wait()?;
                assert_eq!(back.as_slice(), &pattern_f32(64, 1.0)[..]);
                Ok(())
            })
        })?;
        let _ = copy;
        binary.unload()?;
        for s in streams {
            s.destroy()?;
        }
        Ok(())
    })
}

/// The hand-off within a set keeps the data right (the second lane waits for
/// the slow first one); a set of one lane works like `Scope::lane`.
#[test]
fn hand_off_within_a_set() -> Result<()> {
    in_host_context(|ctx| {
        let (s0, s1) = (ctx.create_stream()?, ctx.create_stream()?);
        let delay = Duration::from_millis(20);
        sim::set_stream_delay(s0.as_raw(), delay);
        let streams = vec![s0, s1];
        let input = ctx.alloc_host_from(&pattern_u32(256, 3))?;
        let mut d = ctx.alloc::<u32>(256)?;
        let mut out = ctx.alloc_host_zeroed::<u32>(256)?;
        ctx.scope(|s| {
            aclrt::make_guard!(g);
            let lanes = s.lanes(&streams, g);
            let x = lanes[0].copy(&input, &mut d)?; // slow
            let x = lanes[1].wait_for(lanes[0].signal(x)?)?;
            let out = lanes[1].copy(&x, &mut out)?.fence()?.wait()?;
            assert_eq!(out.as_slice(), &pattern_u32(256, 3)[..]);
            Ok(())
        })?;
        let same = std::slice::from_ref(&streams[1]);
        ctx.scope(|s| {
            aclrt::make_guard!(g);
            let a = s.lanes(same, g);
            let x = a[0].memset(&mut d, 7)?;
            let back = a[0].copy(&x, &mut out)?.wait()?;
            assert!(back.iter().all(|v| v == u32::from_ne_bytes([7; 4])));
            Ok(())
        })?;
        for s in streams {
            s.destroy()?;
        }
        Ok(())
    })
}

/// A fence's `reuse` waits for its event, not for the lane: work queued on
/// the lane after the fence (here slowed down) is still running when the
/// fenced buffer comes back; its checked `wait` synchronises the lane (the
/// runtime reports faults to stream synchronisations only).
#[test]
fn fence_reuse_waits_at_the_operation_and_wait_for_the_lane() -> Result<()> {
    in_host_context(|ctx| {
        let stream = ctx.create_stream()?;
        let input = ctx.alloc_host_from(&pattern_u32(1024, 9))?;
        let mut d = ctx.alloc::<u32>(1024)?;
        let mut out = ctx.alloc_host_zeroed::<u32>(1024)?;
        let mut slow = ctx.alloc::<u32>(1024)?;
        ctx.scope(|s| {
            s.with_lane(&stream, |lane| {
                let x = lane.copy(&input, &mut d)?;
                let done = lane.copy(&x, &mut out)?.fence()?;
                // Every task queued from now on waits 300 ms first.
                sim::set_stream_delay(stream.as_raw(), Duration::from_millis(300));
                let later = lane.memset(&mut slow, 1)?;
                let out = done.reuse()?;
                assert_eq!(out.as_slice(), &pattern_u32(1024, 9)[..]);
                assert!(!lane.is_complete()?, "the fence waited for the whole lane");
                // A checked wait covers the later work too.
                let done = lane.copy(&x, lane.park(out)?)?.fence()?;
                let _later = lane.memset(later, 2)?;
                done.wait()?;
                assert!(lane.is_complete()?, "a checked wait synchronises the lane");
                Ok(())
            })
        })?;
        stream.destroy()
    })
}

/// A loop of fences makes as many events as it has fences pending at once
/// (a long-running scope does not pile up events), and `resume` returns a
/// fence's buffer for more work on its lane.
#[test]
fn fence_events_are_reused_and_resume_works() -> Result<()> {
    in_host_context(|ctx| {
        let stream = ctx.create_stream()?;
        let mut d = ctx.alloc::<u8>(256)?;
        let mut out = ctx.alloc_host_zeroed::<u8>(256)?;
        let created = calls("aclrtCreateEventWithFlag");
        ctx.scope(|s| {
            s.with_lane(&stream, |lane| {
                let mut d = lane.park(&mut d)?;
                let mut out = lane.park(&mut out)?;
                for round in 0..50u8 {
                    d = lane.memset(d, round)?;
                    let fence = lane.copy(&d, out)?.fence()?;
                    let fence = if round % 2 == 0 {
                        // Back on the lane, then fenced again.
                        lane.copy(&d, fence.resume())?.fence()?
                    } else {
                        fence
                    };
                    let _ = fence.is_complete()?;
                    let host = fence.wait()?;
                    assert!(host.iter().all(|v| v == round));
                    out = lane.park(host)?;
                }
                Ok(())
            })
        })?;
        let made = calls("aclrtCreateEventWithFlag") - created;
        assert!(made <= 2, "{made} events for 50 sequential fences");
        stream.destroy()
    })
}

/// A failed fence wait (a kernel fault injected into the next kernel of the
/// stream) gives the fence back; the error names the launch; a second
/// checked wait fails again (the outcome does not change); `reuse` returns
/// the buffer; the lane goes on.
#[test]
fn failed_fence_wait_recovers_inside_the_scope() -> Result<()> {
    in_host_context(|ctx| {
        let binary = ctx.load_binary(&register_copy())?;
        // SAFETY: as in `wrong_lane_of_a_set_is_refused_on_every_path`.
        let copy = unsafe { binary.kernel_ref::<(In<f32>, Out<f32>, Count)>(c"svc_copy")? };
        let stream = ctx.create_stream()?;
        let x = ctx.alloc_from(&pattern_f32(64, 2.0))?;
        let mut y = ctx.alloc::<f32>(64)?;
        let mut out = ctx.alloc_host_zeroed::<f32>(64)?;
        ctx.scope(|s| {
            s.with_lane(&stream, |lane| {
                // Copies and memsets do not count: the kernel faults.
                sim::inject_kernel_fault(Some(stream.as_raw()), 1, sim::KERNEL_FAULT_CODE);
                let y0 = lane.memset(&mut y, 0)?;
                let (_, y1, _) = lane.launch_in(&binary, copy, 2, (&x, y0, 64))?;
                let fence = lane.copy(&y1, &mut out)?.fence()?;
                let failed = fence.wait_or_keep().unwrap_err();
                let e = failed.error().clone();
                assert_eq!(e.kind(), ErrorKind::DeviceFault);
                assert_eq!(e.function(), Some("aclrtLaunchKernelWithConfig"), "{e}");
                assert_eq!(e.call(), Some("aclrtSynchronizeStream"));
                let text = e.to_string();
                assert_eq!(text.matches("aclrtSynchronizeStream").count(), 1, "{text}");
                let failed = failed.into_item().wait_or_keep().unwrap_err();
                assert_eq!(failed.error(), &e, "the same fault again");
                let out = failed.into_item().reuse()?;
                assert!(
                    out.iter().all(|v| v == 0.0),
                    "the faulted kernel wrote nothing"
                );
                // The failure sticks until the recovery point returns it.
                assert_eq!(s.recover()?, Some(e.clone()));
                // The lane goes on: the same launch again, right this time.
                // (`y1`'s contents come from before the failure: the launch
                // overwrites it, an `Out`, so its new contents are clean.)
                let (_, y2, _) = lane.launch_in(&binary, copy, 2, (&x, y1, 64))?;
                let out = lane.copy(&y2, lane.park(out)?)?.fence()?.wait()?;
                assert_eq!(out.as_slice(), &pattern_f32(64, 2.0)[..]);
                Ok(())
            })
        })?;
        binary.unload()?;
        stream.destroy()
    })
}

/// `inject_stream_task_fault` counts only the tasks of its stream.
#[test]
fn stream_task_fault_hits_only_its_stream() -> Result<()> {
    in_host_context(|ctx| {
        let (a, b) = (ctx.create_stream()?, ctx.create_stream()?);
        let input = ctx.alloc_host_from(&[5u8; 64])?;
        let (mut da, mut db) = (ctx.alloc::<u8>(64)?, ctx.alloc::<u8>(64)?);
        sim::inject_stream_task_fault(b.as_raw(), 2, sys::ACL_ERROR_RT_AICORE_EXCEPTION);
        ctx.scope(|s| {
            aclrt::make_guard!(ga);
            aclrt::make_guard!(gb);
            let (la, lb) = (s.lane(&a, ga), s.lane(&b, gb));
            let mut x = la.park(&mut da)?;
            for _ in 0..3 {
                x = la.memset(x, 1)?;
            }
            la.copy(&input, x)?.wait()?; // stream a: no fault
            let x = lb.memset(&mut db, 1)?; // b's 1st: fine
            let x = lb.copy(&input, x)?; // b's 2nd: faults
            let failed = x.wait_or_keep().unwrap_err();
            assert_eq!(failed.error().function(), Some("aclrtMemcpyAsync"));
            // The outcome does not change: a second checked wait fails too.
            let failed = failed.into_item().wait_or_keep().unwrap_err();
            assert_eq!(failed.error().kind(), ErrorKind::DeviceFault);
            let back = failed.into_item().reuse()?;
            assert_eq!(back.len(), 64);
            assert_eq!(s.recover()?.unwrap().kind(), ErrorKind::DeviceFault);
            Ok(())
        })?;
        a.destroy()?;
        b.destroy()
    })
}

/// `KernelRef::of` refuses a binary it was not looked up in, even one
/// loaded from the same image.
#[test]
fn kernel_ref_is_checked_against_its_binary() -> Result<()> {
    in_host_context(|ctx| {
        let image = register_copy();
        let first = ctx.load_binary(&image)?;
        let second = ctx.load_binary(&image)?;
        // SAFETY: as in `wrong_lane_of_a_set_is_refused_on_every_path`.
        let k = unsafe { first.kernel_ref::<(In<f32>, Out<f32>, Count)>(c"svc_copy")? };
        assert!(k.of(&first).is_ok());
        assert_eq!(k.of(&second).unwrap_err(), Error::ForeignKernel);
        second.unload()?;
        first.unload()
    })
}

// ------------------------------------------------------------------
// Which wait learns a device fault (found by a review): the runtime reports
// a fault once, to the first stream synchronisation that covers it, and
// `aclrtSynchronizeEvent` never; a checked wait must fail for every
// buffer whose work the fault may belong to, whoever saw it first.

/// `n` floats `start, start + 1, ...`.
fn ramp(n: usize, start: f32) -> Vec<f32> {
    (0..n).map(|i| start + i as f32).collect()
}

/// Two fences on one lane, the first batch's kernel faults: the second
/// fence's wait sees the fault first, and the first fence's wait must fail
/// too (it returned `Ok` with the output of a kernel that never ran).
#[test]
fn two_fences_on_one_lane_both_learn_the_fault() -> Result<()> {
    in_host_context(|ctx| {
        let binary = ctx.load_binary(&register_copy())?;
        // SAFETY: as in `wrong_lane_of_a_set_is_refused_on_every_path`.
        let copy = unsafe { binary.kernel_ref::<(In<f32>, Out<f32>, Count)>(c"svc_copy")? };
        let stream = ctx.create_stream()?;
        let x = ctx.alloc_from(&ramp(64, 1.0))?;
        let (mut y1, mut y2) = (ctx.alloc::<f32>(64)?, ctx.alloc::<f32>(64)?);
        let mut out1 = ctx.alloc_host_zeroed::<f32>(64)?;
        let mut out2 = ctx.alloc_host_zeroed::<f32>(64)?;
        ctx.scope(|s| {
            s.with_lane(&stream, |lane| {
                sim::inject_kernel_fault(Some(stream.as_raw()), 1, sim::KERNEL_FAULT_CODE);
                let (_, y1, _) = lane.launch_in(&binary, copy, 2, (&x, &mut y1, 64))?;
                let f1 = lane.copy(&y1, &mut out1)?.fence()?;
                let (_, y2, _) = lane.launch_in(&binary, copy, 2, (&x, &mut y2, 64))?;
                let f2 = lane.copy(&y2, &mut out2)?.fence()?;
                let failed2 = f2.wait_or_keep().unwrap_err();
                assert_eq!(failed2.error().kind(), ErrorKind::DeviceFault);
                let failed1 = f1.wait_or_keep().unwrap_err();
                assert_eq!(failed1.error(), failed2.error(), "the same fault");
                let out1 = failed1.into_item().reuse()?;
                assert!(
                    out1.iter().all(|v| v == 0.0),
                    "the faulted kernel wrote nothing"
                );
                // The second batch did run: its output is there, but a
                // checked wait cannot tell (one fault report for both).
                let out2 = failed2.into_item().reuse()?;
                assert_eq!(out2.as_slice(), &ramp(64, 1.0)[..]);
                assert_eq!(s.recover()?.unwrap().kind(), ErrorKind::DeviceFault);
                Ok(())
            })
        })?;
        binary.unload()?;
        stream.destroy()
    })
}

/// A fault seen first by a synchronisation outside the scope's buffers —
/// `Stream::synchronize` on another thread, `Context::synchronize` — still
/// fails the checked waits of the buffers whose work it may belong to.
#[test]
fn a_fault_seen_by_another_synchronisation_still_fails_the_wait() -> Result<()> {
    in_host_context(|ctx| {
        let stream = ctx.create_stream()?;
        let input = ctx.alloc_host_from(&[7u8; 64])?;
        let (mut d, mut e) = (ctx.alloc::<u8>(64)?, ctx.alloc::<u8>(64)?);
        let mut out = ctx.alloc_host_zeroed::<u8>(64)?;
        ctx.scope(|s| {
            s.with_lane(&stream, |lane| {
                fault_next_task(stream.as_raw());
                let x = lane.copy(&input, &mut d)?; // faults: nothing copied
                let seen = std::thread::scope(|t| t.spawn(|| stream.synchronize()).join().unwrap());
                assert_eq!(seen.unwrap_err().kind(), ErrorKind::DeviceFault);
                let failed = x.wait_or_keep().unwrap_err();
                assert_eq!(failed.error().kind(), ErrorKind::DeviceFault);
                assert_eq!(failed.error().function(), Some("aclrtMemcpyAsync"));
                let d = failed.into_item().reuse()?;
                // A device synchronisation of the context sees the next one.
                fault_next_task(stream.as_raw());
                let x = lane.copy(&input, lane.park(d)?)?;
                let fence = lane.copy(&x, &mut out)?.fence()?;
                assert_eq!(
                    ctx.synchronize().unwrap_err().kind(),
                    ErrorKind::DeviceFault
                );
                assert_eq!(fence.wait().unwrap_err().kind(), ErrorKind::DeviceFault);
                // Work queued after the failure, before the recovery point,
                // fails too (the failure sticks to the scope) ...
                let failed = lane.copy(&input, &mut e)?.wait_or_keep().unwrap_err();
                assert_eq!(failed.error().kind(), ErrorKind::DeviceFault);
                let e = failed.into_item().reuse()?;
                assert_eq!(s.recover()?.unwrap().kind(), ErrorKind::DeviceFault);
                // ... work queued after it does not.
                let ok = lane.copy(&input, lane.park(e)?)?.wait()?;
                assert_eq!(ok.len(), 64);
                Ok(())
            })
        })?;
        stream.destroy()
    })
}

/// A nested scope on the same stream that sees the fault first does not
/// hide it from the outer scope's buffer.
#[test]
fn a_nested_scope_seeing_the_fault_first_does_not_hide_it() -> Result<()> {
    in_host_context(|ctx| {
        let stream = ctx.create_stream()?;
        let input = ctx.alloc_host_from(&[7u8; 64])?;
        let (mut d, mut inner) = (ctx.alloc::<u8>(64)?, ctx.alloc::<u8>(64)?);
        let r = ctx.scope(|s| {
            s.with_lane(&stream, |lane| {
                fault_next_task(stream.as_raw());
                let x = lane.copy(&input, &mut d)?;
                let nested = ctx.scope(|s2| {
                    s2.with_lane(&stream, |l2| l2.memset(&mut inner, 0)?.wait().map(|_| ()))
                });
                // The nested wait covers the outer work too: conservative.
                assert_eq!(nested.unwrap_err().kind(), ErrorKind::DeviceFault);
                assert_eq!(x.wait().unwrap_err().kind(), ErrorKind::DeviceFault);
                Ok(())
            })
        });
        // Not recovered: the scope's end reports it too.
        assert_eq!(r.unwrap_err().kind(), ErrorKind::DeviceFault);
        stream.destroy()
    })
}

/// A fault that only unchecked waits (`reuse`) saw is returned by the
/// scope's end: no fault is lost.
#[test]
fn a_fault_only_reuse_saw_is_returned_by_the_scope() -> Result<()> {
    in_host_context(|ctx| {
        let stream = ctx.create_stream()?;
        let input = ctx.alloc_host_from(&[7u8; 64])?;
        let mut d = ctx.alloc::<u8>(64)?;
        let mut out = ctx.alloc_host_zeroed::<u8>(64)?;
        // `InFlight::reuse`: its synchronisation consumed the fault.
        let r = ctx.scope(|s| {
            s.with_lane(&stream, |lane| {
                fault_next_task(stream.as_raw());
                lane.copy(&input, &mut d)?.reuse()?;
                Ok(())
            })
        });
        assert_eq!(r.unwrap_err().kind(), ErrorKind::DeviceFault);
        stream.synchronize()?; // reported: nothing left
        // `Fence::reuse`: the event's synchronisation does not see it.
        let r = ctx.scope(|s| {
            s.with_lane(&stream, |lane| {
                fault_next_task(stream.as_raw());
                let x = lane.copy(&input, &mut d)?;
                let host = lane.copy(&x, &mut out)?.fence()?.reuse()?;
                assert_eq!(host.len(), 64);
                Ok(())
            })
        });
        assert_eq!(r.unwrap_err().kind(), ErrorKind::DeviceFault);
        // A fault a checked wait reported sticks until the recovery point
        // returns it; the scope's end is then clean.
        let r = ctx.scope(|s| {
            s.with_lane(&stream, |lane| {
                fault_next_task(stream.as_raw());
                let failed = lane.copy(&input, &mut d)?.wait_or_keep().unwrap_err();
                assert_eq!(failed.error().kind(), ErrorKind::DeviceFault);
                failed.into_item().reuse()?;
                assert_eq!(s.recover()?.unwrap().kind(), ErrorKind::DeviceFault);
                Ok(())
            })
        });
        assert_eq!(r, Ok(()));
        stream.destroy()
    })
}

/// A buffer that came from another lane (`signal` + `wait_for`): a fault of
/// the work on the first lane is reported by that lane's synchronisation
/// only, so the checked wait on the second lane synchronises it too.
#[test]
fn a_fault_on_the_lane_a_buffer_came_from_fails_its_wait() -> Result<()> {
    in_host_context(|ctx| {
        let binary = ctx.load_binary(&register_copy())?;
        // SAFETY: as in `wrong_lane_of_a_set_is_refused_on_every_path`.
        let copy = unsafe { binary.kernel_ref::<(In<f32>, Out<f32>, Count)>(c"svc_copy")? };
        let (a, b) = (ctx.create_stream()?, ctx.create_stream()?);
        let x = ctx.alloc_from(&ramp(64, 1.0))?;
        let mut y = ctx.alloc::<f32>(64)?;
        let mut out = ctx.alloc_host_zeroed::<f32>(64)?;
        ctx.scope(|s| {
            aclrt::make_guard!(ga);
            aclrt::make_guard!(gb);
            let (la, lb) = (s.lane(&a, ga), s.lane(&b, gb));
            sim::inject_kernel_fault(Some(a.as_raw()), 1, sim::KERNEL_FAULT_CODE);
            let (_, y, _) = la.launch_in(&binary, copy, 2, (&x, &mut y, 64))?;
            let y = lb.wait_for(la.signal(y)?)?;
            let failed = lb.copy(&y, &mut out)?.wait_or_keep().unwrap_err();
            assert_eq!(failed.error().kind(), ErrorKind::DeviceFault);
            assert!(failed.into_item().reuse()?.iter().all(|v| v == 0.0));
            assert_eq!(s.recover()?.unwrap().kind(), ErrorKind::DeviceFault);
            Ok(())
        })?;
        binary.unload()?;
        a.destroy()?;
        b.destroy()
    })
}

/// A checked fence wait after a checked wait of a later fence of the same
/// lane (which synchronised the lane after both records) synchronises
/// nothing more; the outcome is still looked up (see
/// `two_fences_on_one_lane_both_learn_the_fault`).
#[test]
fn a_fence_covered_by_a_later_checked_wait_is_not_synchronised_again() -> Result<()> {
    in_host_context(|ctx| {
        let stream = ctx.create_stream()?;
        let input = ctx.alloc_host_from(&[7u8; 64])?;
        let (mut d1, mut d2) = (ctx.alloc::<u8>(64)?, ctx.alloc::<u8>(64)?);
        let mut d3 = ctx.alloc::<u8>(64)?;
        ctx.scope(|s| {
            s.with_lane(&stream, |lane| {
                let f1 = lane.copy(&input, &mut d1)?.fence()?;
                let f2 = lane.copy(&input, &mut d2)?.fence()?;
                let before = calls("aclrtSynchronizeStream");
                f2.wait()?;
                assert_eq!(calls("aclrtSynchronizeStream"), before + 1);
                f1.wait()?;
                assert_eq!(calls("aclrtSynchronizeStream"), before + 1, "covered");
                // A fence recorded after that synchronisation is not covered.
                let f3 = lane.copy(&input, &mut d3)?.fence()?;
                let before = calls("aclrtSynchronizeStream");
                f3.wait()?;
                assert_eq!(calls("aclrtSynchronizeStream"), before + 1);
                Ok(())
            })
        })?;
        stream.destroy()
    })
}
