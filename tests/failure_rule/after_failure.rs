//! An independent review of the failure rule (SAFETY.md section 4.1):
//! safe-code attacks on what comes back after a failure (a buffer still
//! written by another lane under `&mut`), on lost work (a checked wait `Ok`
//! after a failure, also between a recovery point and a later wait, and
//! for data derived from suspect data), on hangs (watchdogs, so that a hang
//! fails the test instead of the suite) and on panics.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc;
use std::time::Duration;

use crate::common::*;
use aclrt::{Context, Device, Error, Result, RunMode, sim, sys};

/// A host function that writes `value` into its buffer for `ms`
/// milliseconds (every millisecond), then says it has stopped.
pub(crate) fn writer(
    done: &AtomicBool,
    value: u8,
    ms: u64,
) -> impl FnOnce(&mut aclrt::PinnedSlice<'_, u8, aclrt::HostMode>) + Send + '_ {
    move |p| {
        for _ in 0..ms {
            p.fill(value);
            std::thread::sleep(Duration::from_millis(1));
        }
        done.store(true, Ordering::SeqCst);
    }
}

/// A borrow handed back: the writer must have stopped, and the value
/// must not change while the borrow lasts.
pub(crate) fn assert_still(back: &[u8], done: &AtomicBool, what: &str) {
    assert!(
        done.load(Ordering::SeqCst),
        "&mut back while a lane writes it: {what}"
    );
    let first = back.to_vec();
    std::thread::sleep(Duration::from_millis(5));
    assert_eq!(back, &first[..], "changed under the borrow: {what}");
}

/// Three lanes, a hand-off chain a -> b -> c of a buffer that lane a's
/// host function still writes; the event wait of lane c (or of lane b)
/// fails: every give-back path on lane c (`InFlight::reuse`,
/// `Fence::reuse`, `wait_or_keep`'s `WaitFailed` taken back) waits for
/// lane a first.
#[test]
fn a_three_lane_chain_gives_nothing_back_before_the_source_lane_stops() -> Result<()> {
    in_host_context(|ctx| {
        let streams = [
            ctx.create_stream()?,
            ctx.create_stream()?,
            ctx.create_stream()?,
        ];
        let mut h = ctx.alloc_host_zeroed::<u8>(128)?;
        for failing in [1usize, 2] {
            for path in 0..4 {
                let done = AtomicBool::new(false);
                let what = format!("wait of lane {failing} fails, give-back path {path}");
                let r = ctx.scope(|s| {
                    aclrt::make_guard!(g);
                    let l = s.lanes(&streams, g);
                    let x = l[0].host_fn_with(&mut h, writer(&done, 0x5a, 60))?;
                    sim::inject_stream_task_fault(
                        streams[failing].as_raw(),
                        1,
                        sys::ACL_ERROR_RT_AICORE_EXCEPTION,
                    );
                    let x = l[1].wait_for(l[0].signal(x)?)?;
                    let x = l[2].wait_for(l[1].signal(x)?)?;
                    let back = match path {
                        0 => x.reuse()?,
                        1 => x.fence()?.reuse()?,
                        2 => x
                            .wait_or_keep()
                            .expect_err("Ok after a failed wait task")
                            .into_item()
                            .reuse()?,
                        _ => x
                            .fence()?
                            .wait_or_keep()
                            .expect_err("Ok after a failed wait task")
                            .into_item()
                            .reuse()?,
                    };
                    assert_still(back, &done, &what);
                    assert!(back.iter().all(|v| v == 0x5a), "{what}");
                    Ok(())
                });
                assert!(r.is_err(), "the scope ended Ok: {what}");
            }
        }
        let [a, b, c] = streams;
        a.destroy()?;
        b.destroy()?;
        c.destroy()
    })
}

/// The fence's own event record fails (the task after a host function
/// still writing the buffer, on the buffer's only lane): `Fence::reuse`
/// and the fence's `WaitFailed` do not hand the buffer back early.
#[test]
fn a_failed_fence_record_gives_nothing_back_early() -> Result<()> {
    in_host_context(|ctx| {
        let stream = ctx.create_stream()?;
        let mut h = ctx.alloc_host_zeroed::<u8>(128)?;
        for keep in [false, true] {
            let done = AtomicBool::new(false);
            let r = ctx.scope(|s| {
                s.with_lane(&stream, |lane| {
                    let x = lane.host_fn_with(&mut h, writer(&done, 0x33, 40))?;
                    sim::inject_stream_task_fault(stream.as_raw(), 1, 507_000);
                    let fence = x.fence()?;
                    let back = if keep {
                        fence
                            .wait_or_keep()
                            .expect_err("Ok after the fence's record failed")
                            .into_item()
                            .reuse()?
                    } else {
                        fence.reuse()?
                    };
                    assert_still(back, &done, "failed fence record");
                    Ok(())
                })
            });
            assert_eq!(r.unwrap_err().code(), Some(507_000), "keep {keep}");
        }
        stream.destroy()
    })
}

/// The scope's end after the body panicked, or after the body forgot the
/// in-flight buffer, the signal, or the `WaitFailed`: the borrow of the
/// buffer comes back only once lane a's host function stopped.
/// (The signal and the in-flight buffer have no `Drop` today; the forgets
/// stay so that one added later is attacked too.)
#[test]
#[allow(clippy::forget_non_drop)]
fn the_scope_end_after_a_panic_or_a_forget_waits_for_every_lane() -> Result<()> {
    in_host_context(|ctx| {
        let (a, b) = (ctx.create_stream()?, ctx.create_stream()?);
        let mut h = ctx.alloc_host_zeroed::<u8>(128)?;
        for how in 0..4 {
            let done = AtomicBool::new(false);
            let caught = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
                ctx.scope(|s| {
                    aclrt::make_guard!(ga);
                    aclrt::make_guard!(gb);
                    let (la, lb) = (s.lane(&a, ga), s.lane(&b, gb));
                    let x = la.host_fn_with(&mut h, writer(&done, 0x77, 40))?;
                    let signal = la.signal(x)?;
                    if how == 1 {
                        std::mem::forget(signal);
                        return Ok(());
                    }
                    sim::inject_stream_task_fault(b.as_raw(), 1, sys::ACL_ERROR_RT_TASK_TIMEOUT);
                    let x = lb.wait_for(signal)?;
                    match how {
                        0 => panic!("body"),
                        2 => std::mem::forget(x),
                        _ => std::mem::forget(x.wait_or_keep().expect_err("failed wait")),
                    }
                    Ok(())
                })
            }));
            // Whatever the body did, the borrow is back now.
            assert_still(&h, &done, &format!("scope end, case {how}"));
            match caught {
                Err(p) => assert_eq!((how, panic_message(&*p).as_str()), (0, "body")),
                Ok(r) => assert_eq!(r.is_err(), how != 1, "case {how}"),
            }
        }
        a.destroy()?;
        b.destroy()
    })
}

/// The recovery point while lane a's host function (writing a buffer lane
/// b received) still runs and lane b's wait failed: it returns only with
/// every lane idle, and the buffer then comes back unchanged under the
/// borrow.
#[test]
fn recover_while_another_lanes_host_function_runs() -> Result<()> {
    in_host_context(|ctx| {
        let (a, b) = (ctx.create_stream()?, ctx.create_stream()?);
        let mut h = ctx.alloc_host_zeroed::<u8>(128)?;
        let done = AtomicBool::new(false);
        ctx.scope(|s| {
            aclrt::make_guard!(ga);
            aclrt::make_guard!(gb);
            let (la, lb) = (s.lane(&a, ga), s.lane(&b, gb));
            let x = la.host_fn_with(&mut h, writer(&done, 0x11, 40))?;
            sim::inject_stream_task_fault(b.as_raw(), 1, 507_000);
            let x = lb.wait_for(la.signal(x)?)?;
            let seen = s
                .recover()?
                .expect("the recovery point returns the failure");
            assert_eq!(seen.code(), Some(507_000));
            assert!(
                done.load(Ordering::SeqCst),
                "recover returned while lane a runs"
            );
            assert!(la.is_complete()? && lb.is_complete()?);
            let back = x.reuse()?;
            assert_still(back, &done, "after recover");
            // Clean after the recovery point.
            assert_eq!(s.recover()?.map(|e| e.code()), None);
            Ok(())
        })?;
        a.destroy()?;
        b.destroy()
    })
}

/// Who sees a failure queued after a recovery point first.
const OBSERVERS: usize = 6;

/// After a recovery point, a failure of new work, of each code, seen first
/// by another synchronisation (this lane's stream on another thread, the
/// context here and there, the device there, a nested scope, a second
/// recovery point): the later checked wait fails, and so does the checked
/// wait of a copy of the failed buffer (derived data), and the scope's end.
fn after_recover<M: RunMode>(dev: &Device<'_, M>, ctx: &Context<'_, '_, M>) -> Result<()> {
    let stream = ctx.create_stream()?;
    let input = ctx.alloc_host_from(&[9u8; 64])?;
    let mut d = ctx.alloc::<u8>(64)?;
    let mut out = ctx.alloc_host_zeroed::<u8>(64)?;
    let mut out2 = ctx.alloc_host_zeroed::<u8>(64)?;
    for code in [
        507_000,
        sys::ACL_ERROR_RT_TASK_TIMEOUT,
        sys::ACL_ERROR_RT_AICORE_EXCEPTION,
    ] {
        for observer in 0..OBSERVERS {
            let what = format!("code {code}, observer {observer}");
            let r = ctx.scope(|s| {
                s.with_lane(&stream, |lane| {
                    // A failure before the recovery point, recovered.
                    sim::inject_stream_task_fault(stream.as_raw(), 1, code);
                    let x = lane.memset(&mut d, 1)?;
                    assert!(s.recover()?.is_some(), "{what}");
                    let x = x.reuse()?;
                    // Written afresh, then a failing copy after the point.
                    let x = lane.memset(x, 2)?;
                    sim::inject_stream_task_fault(stream.as_raw(), 1, code);
                    let x = lane.copy(&input, x)?; // fails: stays 2
                    match observer {
                        0 => {
                            let _ = std::thread::scope(|t| {
                                t.spawn(|| stream.synchronize()).join().unwrap()
                            });
                        }
                        1 => {
                            let _ = ctx.synchronize();
                        }
                        2 => {
                            let _ = std::thread::scope(|t| {
                                t.spawn(|| ctx.synchronize()).join().unwrap()
                            });
                        }
                        3 => {
                            let _ = std::thread::scope(|t| {
                                t.spawn(|| dev.synchronize()).join().unwrap()
                            });
                        }
                        4 => {
                            let _ = ctx.scope(|s2| s2.with_lane(&stream, |l| l.synchronize()));
                        }
                        _ => {
                            let _ = stream.is_complete();
                            let _ = lane.synchronize();
                        }
                    }
                    // Derived: a copy of the failed buffer, queued after the
                    // failure was seen.
                    let o = lane.copy(&x, &mut out)?;
                    let o = o.wait_or_keep().expect_err(&format!("derived Ok: {what}"));
                    assert_eq!(o.error().code(), Some(code), "{what}");
                    assert!(o.into_item().reuse()?.iter().all(|v| v == 2), "{what}");
                    let x = x
                        .wait_or_keep()
                        .expect_err(&format!("Ok with unwritten data: {what}"));
                    assert_eq!(x.error().code(), Some(code), "{what}");
                    let x = x.into_item();
                    assert_eq!(s.recover()?.map(|e| e.code()), Some(Some(code)), "{what}");
                    // After the second point the failed contents still fail
                    // what is derived from them.
                    let o2 = lane.copy(&x, &mut out2)?;
                    let o2 = o2.wait_or_keep();
                    assert!(o2.is_err(), "derived after recover Ok: {what}");
                    Ok(())
                })
            });
            r?;
        }
    }
    stream.destroy()
}

#[test]
fn failures_after_a_recovery_point_fail_later_and_derived_waits_in_both_modes() -> Result<()> {
    in_each_mode(after_recover, after_recover)
}

/// The simulator in each run mode, a device and a context on it for `f`;
/// the audit clean after each.
fn in_each_mode(
    host: impl for<'d, 'id> FnOnce(
        &Device<'d, aclrt::HostMode>,
        &Context<'d, 'id, aclrt::HostMode>,
    ) -> Result<()>,
    device: impl for<'d, 'id> FnOnce(
        &Device<'d, aclrt::DeviceMode>,
        &Context<'d, 'id, aclrt::DeviceMode>,
    ) -> Result<()>,
) -> Result<()> {
    {
        let _sim = take(host_config());
        let acl = aclrt::Acl::init()?;
        {
            let dev = acl.require::<aclrt::HostMode>()?.device(0)?;
            aclrt::make_guard!(g);
            let ctx = dev.create_context(g)?;
            host(&dev, &ctx)?;
            ctx.destroy()?;
            dev.reset()?;
        }
        acl.finalize()?;
        assert_clean();
    }
    let _sim = take(device_config());
    let acl = aclrt::Acl::init()?;
    {
        let dev = acl.require::<aclrt::DeviceMode>()?.device(0)?;
        aclrt::make_guard!(g);
        let ctx = dev.create_context(g)?;
        device(&dev, &ctx)?;
        ctx.destroy()?;
        dev.reset()?;
    }
    acl.finalize()?;
    assert_clean();
    Ok(())
}

/// A host function that panics on lane a while lane b's host function
/// writes a buffer lane a handed over: lane b's checked wait fails with
/// the panic's error, the recovery point resumes the panic once, and the
/// buffer is not handed back under the borrow while lane b writes it.
#[test]
fn a_host_function_panic_on_one_lane_with_a_writer_on_the_other() -> Result<()> {
    in_host_context(|ctx| {
        let (a, b) = (ctx.create_stream()?, ctx.create_stream()?);
        let mut h = ctx.alloc_host_zeroed::<u8>(128)?;
        let mut g2 = ctx.alloc_host_zeroed::<u8>(128)?;
        let done = AtomicBool::new(false);
        let caught = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| -> Result<()> {
            ctx.scope(|s| {
                aclrt::make_guard!(ga);
                aclrt::make_guard!(gb);
                let (la, lb) = (s.lane(&a, ga), s.lane(&b, gb));
                let y = lb.host_fn_with(&mut g2, writer(&done, 0x44, 40))?;
                let x = la.host_fn_with(&mut h, |_| panic!("lane a"))?;
                let x = lb.wait_for(la.signal(x)?)?;
                let failed = x
                    .wait_or_keep()
                    .expect_err("Ok after a host function panicked");
                assert_eq!(failed.error(), &Error::HostFnPanicked);
                let back = failed.into_item().reuse()?;
                assert_still(back, &done, "panic on the other lane");
                let _ = y;
                let _ = s.recover();
                unreachable!("the recovery point resumes the panic");
            })
        }));
        assert_eq!(panic_message(&*caught.expect_err("resumed")), "lane a");
        a.destroy()?;
        b.destroy()
    })
}

/// The simulator's kernel for these tests: `x[i] += 1` below `n`.
fn register_inc() -> Vec<u8> {
    sim::register_kernel("rr_inc", |block, blocks, args| {
        let (x, n) = (args.u64(0)?, args.u64(1)?);
        for i in (block as usize..n as usize).step_by(blocks as usize) {
            args.write_f32(x, i, args.read_f32(x, i)? + 1.0)?;
        }
        Ok(())
    });
    sim::binary_image(&["rr_inc"])
}

/// A launch refused at the call (`aclrtLaunchKernelWithConfig` fails) on
/// lane b, of a buffer that lane a still writes (a memset held back by a
/// stream delay) and handed over: `launch_in_or_keep` gives the operand
/// back; its `reuse` (or its failed checked wait, taken back) returns only
/// once lane a is idle, and the scope does not end `Ok`.
#[test]
fn a_refused_launch_gives_back_nothing_the_source_lane_still_writes() -> Result<()> {
    in_host_context(|ctx| {
        let binary = ctx.load_binary(&register_inc())?;
        // SAFETY: `rr_inc` reads and writes its `InOut` below `Count`, nothing else.
        let inc = unsafe {
            binary.kernel_ref::<(aclrt::kernel::InOut<f32>, aclrt::kernel::Count)>(c"rr_inc")?
        };
        let (a, b) = (ctx.create_stream()?, ctx.create_stream()?);
        let mut d = ctx.alloc::<f32>(32)?;
        for reuse in [true, false] {
            let r = ctx.scope(|s| {
                aclrt::make_guard!(ga);
                aclrt::make_guard!(gb);
                let (la, lb) = (s.lane(&a, ga), s.lane(&b, gb));
                sim::set_stream_delay(a.as_raw(), Duration::from_millis(40));
                let x = la.memset(&mut d, 0)?;
                let x = lb.wait_for(la.signal(x)?)?;
                sim::inject_fault(
                    "aclrtLaunchKernelWithConfig",
                    1,
                    sys::ACL_ERROR_RT_AICORE_EXCEPTION,
                );
                let failed = lb
                    .launch_in_or_keep(&binary, inc, 1, (x, 32))
                    .expect_err("the launch call fails");
                let (x, ()) = failed.into_item();
                let _back = if reuse {
                    x.reuse()?
                } else {
                    x.wait_or_keep()
                        .expect_err("Ok for what the failed launch was to write")
                        .into_item()
                        .reuse()?
                };
                assert!(a.is_complete()?, "&mut back while lane a's memset runs");
                sim::set_stream_delay(a.as_raw(), Duration::ZERO);
                Ok(())
            });
            assert!(r.is_err(), "the scope ended Ok after a refused launch");
        }
        sim::clear_faults();
        a.destroy()?;
        b.destroy()?;
        binary.unload()
    })
}

/// A kernel fault on lane a, handed to lane b, copied to the host there;
/// the failure is first seen by another thread's synchronisation of a user
/// event recorded on lane b after the copy, or by polling it, or by this
/// thread's `Event::synchronize`, then by another thread's
/// `Context::synchronize` (or by none): the copy's checked wait fails, in
/// both modes.
fn event_observers<M: RunMode>(_: &Device<'_, M>, ctx: &Context<'_, '_, M>) -> Result<()> {
    let binary = ctx.load_binary(&register_inc())?;
    // SAFETY: `rr_inc` reads and writes its `InOut` below `Count`, nothing else.
    let inc = unsafe {
        binary.kernel_ref::<(aclrt::kernel::InOut<f32>, aclrt::kernel::Count)>(c"rr_inc")?
    };
    let streams = [ctx.create_stream()?, ctx.create_stream()?];
    let input = ctx.alloc_host_from(&[1.0f32; 32])?;
    let mut d = ctx.alloc::<f32>(32)?;
    let mut out = ctx.alloc_host_zeroed::<f32>(32)?;
    for observer in 0..5 {
        for code in [507_000, sys::ACL_ERROR_RT_AICORE_EXCEPTION] {
            let what = format!("observer {observer}, code {code}");
            let event = ctx.create_event()?;
            let r = ctx.scope(|s| {
                aclrt::make_guard!(g);
                let l = s.lanes(&streams, g);
                let x = l[0].copy(&input, &mut d)?;
                sim::inject_kernel_fault(Some(streams[0].as_raw()), 1, code);
                let (x, ()) = l[0].launch_in(&binary, inc, 2, (x, 32))?;
                let x = l[1].wait_for(l[0].signal(x)?)?;
                let o = l[1].copy(&x, &mut out)?;
                let event = l[1].record(event)?;
                match observer {
                    0 => {
                        let _ =
                            std::thread::scope(|t| t.spawn(|| event.synchronize()).join().unwrap());
                    }
                    1 => {
                        let _ = std::thread::scope(|t| {
                            t.spawn(|| wait_until(|| event.is_complete().unwrap_or(true)))
                                .join()
                                .unwrap()
                        });
                    }
                    2 => {
                        let _ = event.synchronize();
                    }
                    _ => {}
                }
                if observer < 4 {
                    let _ = std::thread::scope(|t| t.spawn(|| ctx.synchronize()).join().unwrap());
                }
                let failed = o
                    .wait_or_keep()
                    .expect_err(&format!("Ok with unwritten data: {what}"));
                assert_eq!(failed.error().code(), Some(code), "{what}");
                assert!(
                    failed.into_item().reuse()?.iter().all(|v| v == 1.0),
                    "{what}"
                );
                let x = x.wait_or_keep().expect_err(&format!("source Ok: {what}"));
                assert_eq!(x.error().code(), Some(code), "{what}");
                Ok(())
            });
            assert_eq!(
                r.unwrap_err().code(),
                Some(code),
                "the scope ended Ok: {what}"
            );
        }
    }
    let [a, b] = streams;
    a.destroy()?;
    b.destroy()?;
    binary.unload()
}

#[test]
fn a_kernel_fault_seen_through_events_and_the_device_fails_the_copy_in_both_modes() -> Result<()> {
    in_each_mode(event_observers, event_observers)
}

/// A nested scope on a lane's stream fails (its own copy faults) and ends
/// with the failure: the outer scope's checked wait of its work on the
/// same stream, queued before, fails too, and so does its end; then the
/// outer recovery point clears it.
#[test]
fn a_nested_scopes_failure_on_the_same_stream_fails_the_outer_scope() -> Result<()> {
    in_host_context(|ctx| {
        let stream = ctx.create_stream()?;
        let input = ctx.alloc_host_from(&[4u8; 64])?;
        let (mut d, mut e) = (ctx.alloc::<u8>(64)?, ctx.alloc::<u8>(64)?);
        let mut f = ctx.alloc::<u8>(64)?;
        let mut out = ctx.alloc_host_zeroed::<u8>(64)?;
        ctx.scope(|s| {
            s.with_lane(&stream, |lane| {
                let x = lane.copy(&input, &mut d)?;
                let inner = ctx.scope(|s2| {
                    s2.with_lane(&stream, |l2| {
                        sim::inject_stream_task_fault(stream.as_raw(), 1, 507_000);
                        l2.copy(&input, &mut e)?.wait()?;
                        Ok(())
                    })
                });
                assert_eq!(inner.unwrap_err().code(), Some(507_000));
                let o = lane.copy(&x, &mut f)?;
                let failed = o
                    .wait_or_keep()
                    .expect_err("Ok after a failure on its stream");
                assert_eq!(failed.error().code(), Some(507_000));
                assert_eq!(s.recover()?.map(|e| e.code()), Some(Some(507_000)));
                // The outer data came from work that succeeded, but before
                // the failure: it keeps failing; written afresh it passes.
                let f = lane.copy(&input, failed.into_item())?;
                let o = lane.copy(&f, &mut out)?.wait()?;
                assert!(o.iter().all(|v| v == 4));
                Ok(())
            })
        })?;
        stream.destroy()
    })
}

/// A kernel past `aclrtSetOpExecuteTimeOut` on lane a, handed to lane b
/// and fenced there; another thread's `Context::synchronize` sees the
/// timeout first: the fence's checked wait fails with it, and `reuse`
/// hands nothing back before lane a stopped.
#[test]
fn an_op_execute_timeout_seen_by_another_threads_context_sync_fails_the_fence() -> Result<()> {
    let _sim = take(host_config());
    let acl = aclrt::Acl::init()?;
    acl.set_op_execute_timeout(Duration::from_secs(1))?;
    {
        let device = acl.require::<aclrt::HostMode>()?.device(0)?;
        aclrt::make_guard!(g);
        let ctx = device.create_context(g)?;
        let binary = ctx.load_binary(&register_inc())?;
        // SAFETY: `rr_inc` reads and writes its `InOut` below `Count`, nothing else.
        let inc = unsafe {
            binary.kernel_ref::<(aclrt::kernel::InOut<f32>, aclrt::kernel::Count)>(c"rr_inc")?
        };
        let (a, b) = (ctx.create_stream()?, ctx.create_stream()?);
        let input = ctx.alloc_host_from(&[1.0f32; 16])?;
        let mut d = ctx.alloc::<f32>(16)?;
        let mut out = ctx.alloc_host_zeroed::<f32>(16)?;
        let r = ctx.scope(|s| {
            aclrt::make_guard!(ga);
            aclrt::make_guard!(gb);
            let (la, lb) = (s.lane(&a, ga), s.lane(&b, gb));
            let x = la.copy(&input, &mut d)?;
            sim::set_stream_delay(a.as_raw(), Duration::from_secs(30));
            let (x, ()) = la.launch_in(&binary, inc, 1, (x, 16))?;
            // Only the kernel is held back (past its limit).
            sim::set_stream_delay(a.as_raw(), Duration::ZERO);
            let x = lb.wait_for(la.signal(x)?)?;
            let fence = lb.copy(&x, &mut out)?.fence()?;
            let seen = std::thread::scope(|t| t.spawn(|| ctx.synchronize()).join().unwrap());
            assert_eq!(
                seen.unwrap_err().code(),
                Some(sys::ACL_ERROR_RT_AICORE_TIMEOUT)
            );
            let failed = fence
                .wait_or_keep()
                .expect_err("Ok after the kernel timed out");
            assert_eq!(
                failed.error().code(),
                Some(sys::ACL_ERROR_RT_AICORE_TIMEOUT)
            );
            let back = failed.into_item().reuse()?;
            assert!(a.is_complete()? && b.is_complete()?);
            assert!(back.iter().all(|v| v == 1.0), "the kernel never ran");
            Ok(())
        });
        assert_eq!(
            r.unwrap_err().code(),
            Some(sys::ACL_ERROR_RT_AICORE_TIMEOUT)
        );
        acl.set_op_execute_timeout(Duration::ZERO)?;
        drop((d, out, input));
        binary.unload()?;
        a.destroy()?;
        b.destroy()?;
        ctx.destroy()?;
        device.reset()?;
    }
    acl.finalize()?;
    assert_clean();
    Ok(())
}

/// A fence, or a fence's `WaitFailed`, forgotten while lane a's host
/// function writes the buffer (handed to lane b, whose wait failed): the
/// scope's end still makes every lane idle before the borrow returns, and
/// leaks no event (the audit of `in_host_context`).
#[test]
#[allow(clippy::forget_non_drop)] // kept so that a `Drop` added later is attacked too
fn a_forgotten_fence_or_wait_failed_does_not_shorten_the_scope_end() -> Result<()> {
    in_host_context(|ctx| {
        let (a, b) = (ctx.create_stream()?, ctx.create_stream()?);
        let mut h = ctx.alloc_host_zeroed::<u8>(128)?;
        for how in 0..2 {
            let done = AtomicBool::new(false);
            let r = ctx.scope(|s| {
                aclrt::make_guard!(ga);
                aclrt::make_guard!(gb);
                let (la, lb) = (s.lane(&a, ga), s.lane(&b, gb));
                let x = la.host_fn_with(&mut h, writer(&done, 0x66, 40))?;
                sim::inject_stream_task_fault(b.as_raw(), 1, 507_000);
                let fence = lb.wait_for(la.signal(x)?)?.fence()?;
                if how == 0 {
                    std::mem::forget(fence);
                } else {
                    std::mem::forget(fence.wait_or_keep().expect_err("failed wait"));
                }
                Ok(())
            });
            assert_still(&h, &done, &format!("forget case {how}"));
            assert_eq!(r.unwrap_err().code(), Some(507_000), "case {how}");
        }
        a.destroy()?;
        b.destroy()
    })
}

/// A report callback whose capture panics in its `Drop`: the panic is
/// resumed once, by `Reporter::stop`, and nothing aborts.
#[test]
fn a_report_capture_panicking_in_drop_is_resumed_by_stop() -> Result<()> {
    struct Bomb;
    impl Drop for Bomb {
        fn drop(&mut self) {
            panic!("capture drop");
        }
    }
    in_host_context(|ctx| {
        let stream = ctx.create_stream()?;
        let reporter = aclrt::Reporter::spawn()?;
        {
            let sub = reporter.subscribe(&stream)?;
            let bomb = Bomb;
            let ran = std::sync::Arc::new(AtomicBool::new(false));
            let r2 = std::sync::Arc::clone(&ran);
            sub.launch_blocking(move || {
                let _bomb = bomb;
                r2.store(true, Ordering::SeqCst);
            })?;
            stream.synchronize()?;
            assert!(ran.load(Ordering::SeqCst));
            sub.unsubscribe()?;
        }
        let caught = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| reporter.stop()));
        assert_eq!(
            panic_message(&*caught.expect_err("resumed")),
            "capture drop"
        );
        stream.destroy()
    })
}

/// Thread-local destructors that call into the crate (a reporter dropped,
/// the runtime's initialisation tried and dropped) at a thread's exit,
/// while the runtime is live on the test's thread: no panic, no abort, no
/// hang (a watchdog bounds the join), and the runtime is left as it was.
#[test]
fn thread_local_destructors_calling_into_the_crate() -> Result<()> {
    struct AtExit(std::sync::mpsc::Sender<String>);
    impl Drop for AtExit {
        fn drop(&mut self) {
            let reporter = aclrt::Reporter::spawn().map(drop);
            let init = aclrt::Acl::init().map(drop);
            let _ = self.0.send(format!("{reporter:?} {init:?}"));
        }
    }
    thread_local! {
        static AT_EXIT: std::cell::RefCell<Option<AtExit>> = const { std::cell::RefCell::new(None) };
    }
    in_host_context(|ctx| {
        let (tx, rx) = std::sync::mpsc::channel();
        let t = std::thread::spawn(move || AT_EXIT.with(|c| *c.borrow_mut() = Some(AtExit(tx))));
        let said = rx
            .recv_timeout(Duration::from_secs(5))
            .expect("the destructor ran to its end");
        t.join().expect("no panic at thread exit");
        assert_eq!(said, "Ok(()) Err(AlreadyInitialized)");
        // The runtime is still usable here.
        let stream = ctx.create_stream()?;
        stream.synchronize()?;
        stream.destroy()
    })
}

/// A host function that panics on lane a (handed to lane b), first seen by
/// another thread's `Stream::synchronize` of lane a or `Context::synchronize`
/// (which may report it, or not: the panic is the scope's): the checked waits on this thread
/// still fail, and the scope does not end `Ok`.
#[test]
fn a_host_function_panic_taken_by_another_thread_fails_the_waits() -> Result<()> {
    in_host_context(|ctx| {
        let (a, b) = (ctx.create_stream()?, ctx.create_stream()?);
        let mut h = ctx.alloc_host_zeroed::<u8>(64)?;
        for whole in [false, true] {
            let r = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
                ctx.scope(|s| {
                    aclrt::make_guard!(ga);
                    aclrt::make_guard!(gb);
                    let (la, lb) = (s.lane(&a, ga), s.lane(&b, gb));
                    let x = la.host_fn_with(&mut h, |p| {
                        p[..8].fill(1);
                        panic!("on lane a");
                    })?;
                    let x = lb.wait_for(la.signal(x)?)?;
                    // The other thread sees the panic (resumed there, or
                    // an error), whichever the crate does.
                    let seen = std::thread::scope(|t| {
                        t.spawn(|| {
                            std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
                                if whole {
                                    ctx.synchronize()
                                } else {
                                    a.synchronize()
                                }
                            }))
                            .map(|r| r.is_err())
                        })
                        .join()
                        .unwrap()
                    });
                    // (A scope's host-function panic is the scope's: the
                    // other thread's synchronisation need not report it.)
                    let _ = seen;
                    let failed = x
                        .wait_or_keep()
                        .expect_err("Ok after a host function panicked");
                    assert_eq!(failed.error(), &Error::HostFnPanicked);
                    Ok(())
                })
            }));
            match r {
                Ok(r) => assert!(r.is_err(), "the scope ended Ok (whole {whole})"),
                Err(p) => assert_eq!(panic_message(&*p), "on lane a"),
            }
        }
        a.destroy()?;
        b.destroy()
    })
}

/// Another thread's bounded synchronisation gives up (its own timeout
/// judges no work) while a lane's copy is held back: the scope's checked
/// wait is then `Ok` when the copy succeeds (no false failure) and fails
/// with the fault's code when it faults (not with the timeout), in both
/// the stream's and the context's bounded forms.
#[test]
fn another_threads_bounded_sync_giving_up_neither_fails_nor_hides_work() -> Result<()> {
    in_host_context(|ctx| {
        let stream = ctx.create_stream()?;
        let input = ctx.alloc_host_from(&[8u8; 64])?;
        let mut d = ctx.alloc::<u8>(64)?;
        let mut out = ctx.alloc_host_zeroed::<u8>(64)?;
        for fault in [false, true] {
            for whole in [false, true] {
                let what = format!("fault {fault}, context {whole}");
                let r = ctx.scope(|s| {
                    s.with_lane(&stream, |lane| {
                        // The copy is held back (behind a host function
                        // that waits for the gate) until the other thread's
                        // bounded synchronisation has given up: a delay
                        // could run out first on a loaded machine, and that
                        // synchronisation would then rightly take the fault.
                        let gate = HeldGate::new();
                        let opener = gate.opener();
                        lane.host_fn(gate.body())?;
                        if fault {
                            sim::inject_stream_task_fault(stream.as_raw(), 1, 507_000);
                        }
                        let x = lane.copy(&input, &mut d)?;
                        let gave_up = std::thread::scope(|t| {
                            t.spawn(|| {
                                let limit = Duration::from_millis(1);
                                if whole {
                                    ctx.synchronize_timeout(limit)
                                } else {
                                    stream.synchronize_timeout(limit)
                                }
                            })
                            .join()
                            .unwrap()
                        });
                        drop(opener);
                        assert_eq!(
                            gave_up.unwrap_err().kind(),
                            aclrt::ErrorKind::Timeout,
                            "{what}"
                        );
                        let o = lane.copy(&x, &mut out)?;
                        match o.wait_or_keep() {
                            Ok(o) => {
                                assert!(!fault, "Ok after a fault: {what}");
                                assert!(o.iter().all(|v| v == 8), "{what}");
                            }
                            Err(e) => {
                                assert!(fault, "a failure with none: {what}: {:?}", e.error());
                                assert_eq!(e.error().code(), Some(507_000), "{what}");
                            }
                        }
                        Ok(())
                    })
                });
                assert_eq!(r.is_err(), fault, "{what}");
            }
        }
        stream.destroy()
    })
}

/// A real op-wait timeout (`Acl::set_op_wait_timeout`, one second) of the
/// middle lane of a three-lane chain whose source lane's host function
/// writes the buffer for longer: lane c's `Fence::reuse` hands nothing back
/// before lane a stopped, and the timeout sticks to the scope.
#[test]
fn an_op_wait_timeout_in_the_middle_of_a_three_lane_chain() -> Result<()> {
    let _sim = take(host_config());
    let acl = aclrt::Acl::init()?;
    acl.set_op_wait_timeout(Duration::from_secs(1))?;
    {
        let device = acl.require::<aclrt::HostMode>()?.device(0)?;
        aclrt::make_guard!(g);
        let ctx = device.create_context(g)?;
        three_lane_op_wait(&ctx)?;
        ctx.destroy()?;
        device.reset()?;
    }
    acl.set_op_wait_timeout(Duration::ZERO)?;
    acl.finalize()?;
    assert_clean();
    Ok(())
}

fn three_lane_op_wait(ctx: &Context<'_, '_, aclrt::HostMode>) -> Result<()> {
    let streams = [
        ctx.create_stream()?,
        ctx.create_stream()?,
        ctx.create_stream()?,
    ];
    let mut h = ctx.alloc_host_zeroed::<u8>(128)?;
    let done = AtomicBool::new(false);
    let r = ctx.scope(|s| {
        aclrt::make_guard!(g);
        let l = s.lanes(&streams, g);
        let x = l[0].host_fn_with(&mut h, writer(&done, 0x2b, 1200))?;
        let x = l[1].wait_for(l[0].signal(x)?)?;
        let x = l[2].wait_for(l[1].signal(x)?)?;
        let back = x.fence()?.reuse()?;
        assert_still(back, &done, "op-wait timeout in the middle");
        assert!(back.iter().all(|v| v == 0x2b));
        Ok(())
    });
    assert_eq!(r.unwrap_err().code(), Some(sys::ACL_ERROR_RT_TASK_TIMEOUT));
    drop(h);
    let [a, b, c] = streams;
    a.destroy()?;
    b.destroy()?;
    c.destroy()
}

/// No wait without bound: lanes a and b exchanged a buffer (so a checked
/// wait makes every lane idle), then lane b is gated by a host function
/// until this thread opens it after the checked wait of work on lane a
/// only. A watchdog opens the gate after 2 s so that the test ends either
/// way; the wait must not have needed it.
#[test]
fn a_checked_wait_after_a_hand_off_does_not_wait_for_a_gated_lane() -> Result<()> {
    in_host_context(|ctx| {
        let (a, b) = (ctx.create_stream()?, ctx.create_stream()?);
        let input = ctx.alloc_host_from(&[3u8; 64])?;
        let mut d = ctx.alloc::<u8>(64)?;
        let mut e = ctx.alloc::<u8>(64)?;
        let by_watchdog = AtomicBool::new(false);
        std::thread::scope(|t| {
            ctx.scope(|s| {
                aclrt::make_guard!(ga);
                aclrt::make_guard!(gb);
                let (la, lb) = (s.lane(&a, ga), s.lane(&b, gb));
                let y = lb.wait_for(la.signal(la.memset(&mut e, 0)?)?)?;
                let y = y.wait()?; // the hand-off is over
                assert_eq!(y.len(), 64);
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
                let waited = x.wait();
                let stalled = by_watchdog.load(Ordering::SeqCst);
                let _ = done_tx.send(());
                let _ = gate_tx.send(());
                watchdog.join().unwrap();
                assert_eq!(waited?.len(), 64);
                assert!(
                    !stalled,
                    "the checked wait of lane a waited for lane b's gate"
                );
                Ok(())
            })
        })?;
        a.destroy()?;
        b.destroy()
    })
}

/// A faulted buffer taken back with `reuse` (not written afresh) and parked
/// again, before and after the recovery point, then copied: the copy's
/// checked wait must not be `Ok` with data derived from the failed work.
#[test]
fn a_faulted_buffer_reused_and_parked_again_still_fails_what_is_derived() -> Result<()> {
    in_host_context(|ctx| {
        let stream = ctx.create_stream()?;
        let input = ctx.alloc_host_from(&[6u8; 64])?;
        let mut d = ctx.alloc::<u8>(64)?;
        let mut out = ctx.alloc_host_zeroed::<u8>(64)?;
        for recover_first in [false, true] {
            let r = ctx.scope(|s| {
                s.with_lane(&stream, |lane| {
                    sim::inject_stream_task_fault(stream.as_raw(), 1, 507_000);
                    let x = lane.copy(&input, &mut d)?; // faults: d never written
                    let back = x.reuse()?;
                    if recover_first {
                        assert!(s.recover()?.is_some());
                    }
                    let x = lane.park(back)?;
                    let o = lane.copy(&x, &mut out)?;
                    let o = o.wait_or_keep();
                    assert!(
                        o.is_err(),
                        "Ok for a copy of a buffer the failed copy was to write (recover first: {recover_first})"
                    );
                    Ok(())
                })
            });
            if !recover_first {
                assert!(r.is_err());
            }
        }
        stream.destroy()
    })
}

/// The same through a `DeviceView` (failure 5 of the issue, with the
/// recovery point between the reuse and the view).
#[test]
fn a_view_of_a_reused_faulted_buffer_after_recover_fails_the_outputs_wait() -> Result<()> {
    in_host_context(|ctx| {
        let stream = ctx.create_stream()?;
        let input = ctx.alloc_host_from(&[7u8; 64])?;
        let mut d = ctx.alloc::<u8>(64)?;
        let mut out = ctx.alloc_host_zeroed::<u8>(64)?;
        ctx.scope(|s| {
            s.with_lane(&stream, |lane| {
                sim::inject_stream_task_fault(stream.as_raw(), 1, 507_000);
                let d = lane.copy(&input, &mut d)?.reuse()?;
                assert!(s.recover()?.is_some());
                let view = d.view(..)?;
                let o = lane.copy(view, &mut out)?;
                assert!(o.wait_or_keep().is_err(), "Ok for a view of faulted work");
                Ok(())
            })
        })?;
        stream.destroy()
    })
}

/// Finding (a), every give-back form: after lanes a and b exchanged a
/// buffer, lane b is gated by a host function that waits for this thread;
/// a buffer that never left lane a comes back through `InFlight::reuse`,
/// `Fence::reuse`, `Fence::wait` and `wait_or_keep` without waiting for
/// lane b (a watchdog opens the gate after 2 s so the test ends either
/// way). A buffer that *did* come through lane b still waits for it.
#[test]
fn no_give_back_waits_for_a_lane_its_buffer_never_met() -> Result<()> {
    in_host_context(|ctx| {
        let (a, b) = (ctx.create_stream()?, ctx.create_stream()?);
        let input = ctx.alloc_host_from(&[5u8; 64])?;
        let mut d = ctx.alloc::<u8>(64)?;
        let mut e = ctx.alloc::<u8>(64)?;
        for form in 0..4 {
            let by_watchdog = AtomicBool::new(false);
            std::thread::scope(|t| {
                ctx.scope(|s| {
                    aclrt::make_guard!(ga);
                    aclrt::make_guard!(gb);
                    let (la, lb) = (s.lane(&a, ga), s.lane(&b, gb));
                    // A hand-off a -> b, still in flight on lane b.
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
                    let back: Result<&mut _> = match form {
                        0 => x.reuse(),
                        1 => x.fence().and_then(|f| f.reuse()),
                        2 => x.fence().and_then(|f| f.wait()),
                        _ => x.wait_or_keep().map_err(Error::from),
                    };
                    let stalled = by_watchdog.load(Ordering::SeqCst);
                    let _ = done_tx.send(());
                    let _ = gate_tx.send(());
                    watchdog.join().unwrap();
                    assert_eq!(back?.len(), 64, "form {form}");
                    assert!(!stalled, "form {form} waited for lane b's gate");
                    // The buffer that came through lane b waits for it (the
                    // gate is open now): its own lane is b, its origin a + b.
                    let y = y.reuse()?;
                    assert_eq!(y.len(), 64);
                    assert!(la.is_complete()? && lb.is_complete()?);
                    Ok(())
                })
            })?;
        }
        a.destroy()?;
        b.destroy()
    })
}

/// The buffer's lanes include every lane its contents came through: a
/// kernel-free chain a -> b -> copy on b; lane a's memset fails (nobody
/// synchronises lane a); the copy's checked wait on lane b synchronises
/// lane a too and fails, with no hand-off anywhere else in the scope.
#[test]
fn a_derived_buffer_waits_for_the_lanes_its_contents_came_through() -> Result<()> {
    in_host_context(|ctx| {
        let (a, b) = (ctx.create_stream()?, ctx.create_stream()?);
        let mut d = ctx.alloc::<u8>(64)?;
        let mut out = ctx.alloc_host_zeroed::<u8>(64)?;
        let r = ctx.scope(|s| {
            aclrt::make_guard!(ga);
            aclrt::make_guard!(gb);
            let (la, lb) = (s.lane(&a, ga), s.lane(&b, gb));
            sim::inject_stream_task_fault(a.as_raw(), 1, 507_000);
            let x = lb.wait_for(la.signal(la.memset(&mut d, 9)?)?)?;
            let o = lb.copy(&x, &mut out)?;
            let failed = o
                .wait_or_keep()
                .expect_err("Ok for data lane a never wrote");
            assert_eq!(failed.error().code(), Some(507_000));
            assert!(la.is_complete()?, "lane a idle after the checked wait");
            assert!(s.recover()?.is_some());
            Ok(())
        });
        assert!(r.is_ok(), "recovered: {r:?}");
        a.destroy()?;
        b.destroy()
    })
}

/// The edges of the suspect mark (finding (b)): contents written afresh by
/// scope work (a copy into the re-parked buffer) are clean after the
/// recovery point; memory only *read* by the failed work (a host input
/// the user refills) is not marked; contents given back by a checked wait
/// before the failure are trusted after it, while contents given back
/// unchecked (a fence's `reuse`, which judges nothing) before a failure was
/// seen stay suspect: nothing tells their work from the failed one.
#[test]
fn reused_contents_are_clean_once_written_afresh_and_inputs_stay_clean() -> Result<()> {
    in_host_context(|ctx| {
        let stream = ctx.create_stream()?;
        let mut input = ctx.alloc_host_from(&[6u8; 64])?;
        let fresh = ctx.alloc_host_from(&[8u8; 64])?;
        let mut d = ctx.alloc::<u8>(64)?;
        let mut d2 = ctx.alloc::<u8>(64)?;
        let mut good = ctx.alloc::<u8>(64)?;
        let mut unchecked = ctx.alloc::<u8>(64)?;
        let mut out = ctx.alloc_host_zeroed::<u8>(64)?;
        ctx.scope(|s| {
            s.with_lane(&stream, |lane| {
                // Checked before the failure: trusted after it.
                let g = lane.copy(&fresh, &mut good)?.wait()?;
                // Unchecked before the failure was seen.
                let u = lane.copy(&fresh, &mut unchecked)?.fence()?.reuse()?;
                sim::inject_stream_task_fault(stream.as_raw(), 1, 507_000);
                let xin = lane.park(&mut input)?;
                let x = lane.copy(&xin, &mut d)?; // faults
                let back = x.reuse()?;
                let inp = xin.reuse()?;
                assert!(s.recover()?.is_some());
                // The input the failed copy read: refilled, copied, clean.
                inp.copy_from_slice(&[7u8; 64]);
                let y = lane.copy(&*inp, &mut d2)?;
                let o = lane.copy(&y, &mut out)?.wait()?;
                assert!(o.iter().all(|v| v == 7));
                // The output written afresh: clean.
                let x = lane.park(back)?;
                let x = lane.copy(&fresh, x)?;
                let o = lane.copy(&x, o)?.wait()?;
                assert!(o.iter().all(|v| v == 8));
                // Contents no failure followed, read after the recovery.
                let o = lane.copy(&*g, o)?.wait()?;
                assert!(o.iter().all(|v| v == 8));
                let failed = lane.copy(&*u, o)?.wait_or_keep();
                let failed = failed.expect_err("unchecked contents the failure may concern");
                assert_eq!(failed.error().code(), Some(507_000));
                Ok(())
            })
        })?;
        stream.destroy()
    })
}
