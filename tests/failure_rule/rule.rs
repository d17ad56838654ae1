//! The failure rule (SAFETY.md), attacked whole: failures and timeouts
//! injected into every kind of task (copy, memset, kernel, event record,
//! event wait, host function) on both lanes of a hand-off chain, seen first
//! by the checked wait itself or by another synchronisation (this thread or
//! another: `Stream::synchronize` of either lane, `Context::synchronize`),
//! in both run modes; then the five failures of the last review, each
//! reproduced as it was reported.

use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::time::Duration;

use crate::common::*;
use aclrt::kernel::{Count, InOut};
use aclrt::{Context, Error, ErrorKind, Result, RunMode, Stream, sim, sys};

/// The codes injected: a listed device fault, the code the simulator gives
/// a kernel that panics (no list classified it before), and the op-wait
/// timeout of a wait task.
const CODES: [i32; 3] = [
    sys::ACL_ERROR_RT_AICORE_EXCEPTION,
    507_000,
    sys::ACL_ERROR_RT_TASK_TIMEOUT,
];

/// The simulator's kernel for these tests: `x[i] += 1` below `n`.
fn register_inc() -> Vec<u8> {
    sim::register_kernel("fr_inc", |block, blocks, args| {
        let (x, n) = (args.u64(0)?, args.u64(1)?);
        for i in (block as usize..n as usize).step_by(blocks as usize) {
            args.write_f32(x, i, args.read_f32(x, i)? + 1.0)?;
        }
        Ok(())
    });
    sim::binary_image(&["fr_inc"])
}

/// Who sees the failure first (besides the checked wait, which always
/// comes after).
#[derive(Clone, Copy, Debug)]
enum Observer {
    /// The checked wait itself.
    Wait,
    /// `Stream::synchronize` of lane `0` or `1`, on this thread.
    StreamHere(usize),
    /// `Stream::synchronize` of lane `0` or `1`, on another thread.
    StreamThere(usize),
    /// `Context::synchronize` on another thread.
    ContextThere,
    /// `Context::synchronize` on this thread.
    ContextHere,
    /// A nested scope's lane on stream `0` or `1`, synchronised.
    Nested(usize),
}

const OBSERVERS: [Observer; 9] = [
    Observer::Wait,
    Observer::StreamHere(0),
    Observer::StreamHere(1),
    Observer::StreamThere(0),
    Observer::StreamThere(1),
    Observer::ContextThere,
    Observer::ContextHere,
    Observer::Nested(0),
    Observer::Nested(1),
];

/// Tasks each lane queues in [`chain`]: lane a memset, copy, kernel, host
/// function, event record (the hand-off); lane b event wait, kernel, copy
/// to the host, host function, event record (the fence). Lane b's event
/// wait is a task only while lane a's record has not executed, so lane a's
/// host function holds lane a until the wait is queued.
const TASKS: usize = 5;

/// Run the chain in one scope with task `nth` of lane `lane` failing with
/// `code` (none: `None`), the failure seen first by `observer`; check the
/// rule; recover; run the chain again clean in the same scope.
fn chain<'id, M: RunMode>(
    ctx: &Context<'_, 'id, M>,
    streams: &[Stream<'_, 'id>; 2],
    fault: Option<(usize, usize, i32)>,
    observer: Observer,
) -> Result<()> {
    let binary = ctx.load_binary(&register_inc())?;
    // SAFETY: `fr_inc` reads and writes its `InOut` below `Count`, nothing else.
    let inc = unsafe { binary.kernel_ref::<(InOut<f32>, Count)>(c"fr_inc")? };
    let n = 64;
    let input = ctx.alloc_host_from(&pattern_f32(n, 1.0))?;
    let mut d = ctx.alloc::<f32>(n)?;
    let mut h = ctx.alloc_host_zeroed::<f32>(n)?;
    let mut out = ctx.alloc_host_zeroed::<f32>(n)?;
    let host_ran = AtomicUsize::new(0);
    let expected: Vec<f32> = pattern_f32(n, 1.0).iter().map(|v| v + 2.0).collect();
    let r = ctx.scope(|s| {
        aclrt::make_guard!(g);
        let lanes = s.lanes(streams, g);
        let (la, lb) = (&lanes[0], &lanes[1]);
        if let Some((lane, nth, code)) = fault {
            sim::inject_stream_task_fault(streams[lane].as_raw(), nth as u64, code);
        }
        let mut d = Some(la.park(&mut d)?);
        let mut h = Some(la.park(&mut h)?);
        let mut out = Some(lb.park(&mut out)?);
        for round in 0..2 {
            // Lane a's host function holds lane a until lane b's wait for
            // the hand-off is queued: the runtime queues no wait task for a
            // record that has already executed (the simulator follows it),
            // which would leave lane b one task short, and the fault meant
            // for its `nth` task on the next one, or on none this round.
            let gate = HeldGate::new();
            let opener = gate.opener();
            let hold = gate.body();
            let x = la.memset(d.take().unwrap(), 0)?;
            let x = la.copy(&input, x)?;
            let (x, _) = la.launch_in(&binary, inc, 2, (x, n))?;
            let ran = &host_ran;
            let hh = la.host_fn_with(h.take().unwrap(), move |p| {
                hold();
                ran.fetch_add(1, Ordering::SeqCst);
                for i in 0..p.len() {
                    p.set(i, 2.0).unwrap();
                }
            })?;
            let x = lb.wait_for(la.signal(x)?)?;
            drop(opener);
            let (x, _) = lb.launch_in(&binary, inc, 2, (x, n))?;
            let o = lb.copy(&x, out.take().unwrap())?;
            lb.host_fn(move || {
                ran.fetch_add(1, Ordering::SeqCst);
            })?;
            let fence = o.fence()?;
            // Another synchronisation sees the failure first.
            match observer {
                Observer::Wait => {}
                Observer::StreamHere(i) => {
                    let _ = streams[i].synchronize();
                }
                Observer::StreamThere(i) => {
                    let _ = std::thread::scope(|t| {
                        t.spawn(|| streams[i].synchronize()).join().unwrap()
                    });
                }
                Observer::ContextThere => {
                    let _ = std::thread::scope(|t| t.spawn(|| ctx.synchronize()).join().unwrap());
                }
                Observer::ContextHere => {
                    let _ = ctx.synchronize();
                }
                Observer::Nested(i) => {
                    let _ = ctx.scope(|s2| s2.with_lane(&streams[i], |l| l.synchronize()));
                }
            }
            let waited = fence.wait_or_keep();
            let hw = hh.wait_or_keep();
            match (round, fault) {
                (0, Some((lane, nth, code))) => {
                    let what = format!("task {nth} of lane {lane}, code {code}, {observer:?}");
                    let failed = waited.expect_err(&format!("Ok for work that failed: {what}"));
                    assert_eq!(failed.error().code(), Some(code), "{what}");
                    // Every other checked wait of the scope fails too.
                    let hw = hw.expect_err(&format!("sticky: {what}"));
                    assert_eq!(hw.error().code(), Some(code), "{what}");
                    // The give-back makes both lanes of its origin idle
                    // first (its contents came through lane a).
                    let back = failed.into_item().reuse()?;
                    assert!(la.is_complete()? && lb.is_complete()?, "{what}");
                    assert_eq!(back.len(), n);
                    h = Some(la.park(hw.into_item().reuse()?)?);
                    out = Some(lb.park(back)?);
                    let recovered = s
                        .recover()?
                        .expect("the recovery point returns the failure");
                    assert_eq!(recovered.code(), Some(code), "{what}");
                    // The source buffer's contents come from before the
                    // failure: a checked wait of it keeps failing.
                    let x = x
                        .wait_or_keep()
                        .expect_err("contents from before the failure");
                    d = Some(la.wait_for(lb.signal(x.into_item())?)?);
                    // Written afresh (a memset) it is clean again.
                    d = Some(la.memset(d.take().unwrap(), 0)?);
                    // So must be the host function's buffer: it came back
                    // unchecked (`reuse`) with contents the failed chain
                    // wrote, and a host function given it may read them
                    // (it writes in place, like a kernel's `InOut`).
                    h = Some(la.memset(h.take().unwrap(), 0)?);
                }
                _ => {
                    let o = waited.map_err(Error::from)?;
                    assert_eq!(o.to_vec(), expected);
                    let hv = hw.map_err(Error::from)?;
                    assert!(hv.iter().all(|v| v == 2.0));
                    return Ok(());
                }
            }
        }
        unreachable!("round 1 returns")
    });
    r?;
    binary.unload()
}

/// Every kind of task on every lane of the hand-off chain, each code, each
/// observer, both run modes: the checked waits fail, the give-back waits
/// for both lanes, the recovery point returns the failure, and the chain
/// then runs clean in the same scope.
#[test]
fn every_task_kind_on_every_lane_seen_by_every_synchronisation() -> Result<()> {
    fn all<M: RunMode>(ctx: &Context<'_, '_, M>) -> Result<()> {
        let streams = [ctx.create_stream()?, ctx.create_stream()?];
        chain(ctx, &streams, None, Observer::Wait)?;
        let mut k = 0;
        for lane in 0..2 {
            for nth in 1..=TASKS {
                for observer in OBSERVERS {
                    let code = CODES[k % CODES.len()];
                    k += 1;
                    chain(ctx, &streams, Some((lane, nth, code)), observer)?;
                }
            }
        }
        let [a, b] = streams;
        a.destroy()?;
        b.destroy()
    }
    in_each_mode(all, all)
}

/// The simulator in each run mode, a context on device 0, `host` and
/// `device` run on it in turn; the audit clean after each.
fn in_each_mode(
    host: impl for<'d, 'id> FnOnce(&Context<'d, 'id, aclrt::HostMode>) -> Result<()>,
    device: impl for<'d, 'id> FnOnce(&Context<'d, 'id, aclrt::DeviceMode>) -> Result<()>,
) -> Result<()> {
    in_host_context(host)?;
    let _sim = take(device_config());
    let acl = aclrt::Acl::init()?;
    {
        let dev = acl.require::<aclrt::DeviceMode>()?.device(0)?;
        aclrt::make_guard!(g);
        let ctx = dev.create_context(g)?;
        device(&ctx)?;
        ctx.destroy()?;
        dev.reset()?;
    }
    acl.finalize()?;
    assert_clean();
    Ok(())
}

/// A host function on lane a that writes the buffer slowly, then says so.
fn slow_writer(
    done: &AtomicBool,
) -> impl FnOnce(&mut aclrt::PinnedSlice<'_, u8, aclrt::HostMode>) + Send + '_ {
    move |p| {
        std::thread::sleep(Duration::from_millis(150));
        p.fill(0xab);
        done.store(true, Ordering::SeqCst);
    }
}

/// Failure 1 (undefined behaviour before): a buffer written by a host
/// function still running on lane a, handed to lane b, whose event-wait
/// task fails (an injected fault; an op-wait timeout below): `Fence::reuse`
/// and `InFlight::reuse` on lane b gave `&mut` back while lane a's host
/// function still wrote it. Now they make every lane idle first.
#[test]
fn reuse_after_a_failed_hand_off_wait_waits_for_the_source_lane() -> Result<()> {
    in_host_context(|ctx| {
        let (a, b) = (ctx.create_stream()?, ctx.create_stream()?);
        let mut h = ctx.alloc_host_zeroed::<u8>(256)?;
        for fence in [true, false] {
            let done = AtomicBool::new(false);
            ctx.scope(|s| {
                aclrt::make_guard!(ga);
                aclrt::make_guard!(gb);
                let (la, lb) = (s.lane(&a, ga), s.lane(&b, gb));
                let x = la.host_fn_with(&mut h, slow_writer(&done))?;
                // Lane b's next task, the hand-off's event wait, fails.
                sim::inject_stream_task_fault(b.as_raw(), 1, sys::ACL_ERROR_RT_AICORE_EXCEPTION);
                let x = lb.wait_for(la.signal(x)?)?;
                let back = if fence {
                    x.fence()?.reuse()?
                } else {
                    x.reuse()?
                };
                assert!(
                    done.load(Ordering::SeqCst),
                    "&mut back while lane a writes it"
                );
                assert!(back.iter().all(|v| v == 0xab));
                assert!(s.recover()?.is_some());
                Ok(())
            })?;
        }
        a.destroy()?;
        b.destroy()
    })
}

/// Failure 1, the op-wait timeout form: `Acl::set_op_wait_timeout` of one
/// second; the hand-off's wait task times out while lane a's host function
/// still runs; `Fence::reuse` waits for lane a, and the failure (107020)
/// sticks to the scope.
#[test]
fn reuse_after_an_op_wait_timeout_waits_for_the_source_lane() -> Result<()> {
    let _sim = take(host_config());
    let acl = aclrt::Acl::init()?;
    acl.set_op_wait_timeout(Duration::from_secs(1))?;
    {
        let device = acl.require::<aclrt::HostMode>()?.device(0)?;
        aclrt::make_guard!(g);
        let ctx = device.create_context(g)?;
        let (a, b) = (ctx.create_stream()?, ctx.create_stream()?);
        let mut h = ctx.alloc_host_zeroed::<u8>(256)?;
        let done = AtomicBool::new(false);
        let r = ctx.scope(|s| {
            aclrt::make_guard!(ga);
            aclrt::make_guard!(gb);
            let (la, lb) = (s.lane(&a, ga), s.lane(&b, gb));
            let done = &done;
            let x = la.host_fn_with(&mut h, move |p| {
                std::thread::sleep(Duration::from_millis(1300));
                p.fill(0xcd);
                done.store(true, Ordering::SeqCst);
            })?;
            let x = lb.wait_for(la.signal(x)?)?;
            let back = x.fence()?.reuse()?;
            assert!(
                done.load(Ordering::SeqCst),
                "&mut back while lane a writes it"
            );
            assert!(back.iter().all(|v| v == 0xcd));
            Ok(())
        });
        assert_eq!(r.unwrap_err().code(), Some(sys::ACL_ERROR_RT_TASK_TIMEOUT));
        acl.set_op_wait_timeout(Duration::ZERO)?;
        drop(h);
        a.destroy()?;
        b.destroy()?;
        ctx.destroy()?;
        device.reset()?;
    }
    acl.finalize()?;
    assert_clean();
    Ok(())
}

/// Failures 2 and 3 (lost work before): a task failing with a code outside
/// the old list (507000, what the simulator gives a kernel that panics) or
/// with the op-wait timeout code (107020), taken by another thread's
/// `Stream::synchronize` or `Context::synchronize`: the checked wait was
/// `Ok` with unwritten data and the scope ended `Ok`.
#[test]
fn an_unlisted_code_or_a_timeout_taken_by_another_thread_fails_wait_and_scope() -> Result<()> {
    in_host_context(|ctx| {
        let stream = ctx.create_stream()?;
        let input = ctx.alloc_host_from(&[7u8; 64])?;
        let mut d = ctx.alloc::<u8>(64)?;
        for code in [507_000, sys::ACL_ERROR_RT_TASK_TIMEOUT] {
            for device_sync in [false, true] {
                let r = ctx.scope(|s| {
                    s.with_lane(&stream, |lane| {
                        sim::inject_stream_task_fault(stream.as_raw(), 1, code);
                        let x = lane.copy(&input, &mut d)?;
                        let seen = std::thread::scope(|t| {
                            t.spawn(|| {
                                if device_sync {
                                    ctx.synchronize()
                                } else {
                                    stream.synchronize()
                                }
                            })
                            .join()
                            .unwrap()
                        });
                        assert_eq!(seen.unwrap_err().code(), Some(code));
                        let failed = x.wait_or_keep().expect_err("Ok with unwritten data");
                        assert_eq!(failed.error().code(), Some(code));
                        Ok(())
                    })
                });
                assert_eq!(r.unwrap_err().code(), Some(code), "the scope ended Ok");
            }
        }
        stream.destroy()
    })
}

/// Failure 4 (lost work before): `host_fn_with` writes part of a buffer and
/// panics: `InFlight::wait` returned `Ok` with the half-written buffer; the
/// panic came back only at the scope's end. Now the wait fails at once
/// (`HostFnPanicked`), and the panic is resumed once, at the recovery
/// point.
#[test]
fn a_host_function_panic_fails_the_wait_at_once() -> Result<()> {
    in_host_context(|ctx| {
        let stream = ctx.create_stream()?;
        let mut h = ctx.alloc_host_zeroed::<u8>(64)?;
        let reached_recover = AtomicBool::new(false);
        let caught = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| -> Result<()> {
            ctx.scope(|s| {
                s.with_lane(&stream, |lane| {
                    let x = lane.host_fn_with(&mut h, |p| {
                        p[..32].fill(1);
                        panic!("half-way");
                    })?;
                    let failed = x.wait_or_keep().expect_err("Ok with a half-written buffer");
                    assert_eq!(failed.error(), &Error::HostFnPanicked);
                    let failed = failed.into_item().wait_or_keep().unwrap_err();
                    assert_eq!(failed.error().kind(), ErrorKind::Internal);
                    reached_recover.store(true, Ordering::SeqCst);
                    let _ = s.recover();
                    unreachable!("the recovery point resumes the panic");
                })
            })
        }));
        assert!(reached_recover.load(Ordering::SeqCst));
        let payload = caught.expect_err("the panic propagates");
        assert_eq!(panic_message(&*payload), "half-way");
        assert_eq!(&h[..33], &[[1u8; 32].as_slice(), &[0]].concat()[..]);
        stream.destroy()
    })
}

/// Failure 5 (low before): a faulted buffer taken back with `reuse` and
/// read through a `DeviceView`: the output's checked wait was `Ok`.
#[test]
fn a_view_of_a_faulted_buffer_fails_the_outputs_wait() -> Result<()> {
    in_host_context(|ctx| {
        let stream = ctx.create_stream()?;
        let input = ctx.alloc_host_from(&[7u8; 64])?;
        let mut d = ctx.alloc::<u8>(64)?;
        let mut out = ctx.alloc_host_zeroed::<u8>(64)?;
        let r = ctx.scope(|s| {
            s.with_lane(&stream, |lane| {
                sim::inject_stream_task_fault(
                    stream.as_raw(),
                    1,
                    sys::ACL_ERROR_RT_AICORE_EXCEPTION,
                );
                let d = lane.copy(&input, &mut d)?.reuse()?;
                let view = d.view(..)?;
                let o = lane.copy(view, &mut out)?;
                let failed = o.wait_or_keep().expect_err("Ok for a view of faulted work");
                assert_eq!(failed.error().kind(), ErrorKind::DeviceFault);
                Ok(())
            })
        });
        assert_eq!(r.unwrap_err().kind(), ErrorKind::DeviceFault);
        stream.destroy()
    })
}

/// `Acl::set_op_wait_timeout` takes whole seconds (the runtime's unit);
/// zero turns the limit off; anything else is refused before any call.
#[test]
fn op_timeouts_are_set_through_safe_wrappers() -> Result<()> {
    let _sim = take(host_config());
    let acl = aclrt::Acl::init()?;
    acl.set_op_wait_timeout(Duration::from_secs(3))?;
    acl.set_op_wait_timeout(Duration::ZERO)?;
    assert!(matches!(
        acl.set_op_wait_timeout(Duration::from_millis(1500)),
        Err(Error::InvalidTimeout { .. })
    ));
    acl.set_op_execute_timeout(Duration::from_secs(3))?;
    acl.set_op_execute_timeout(Duration::ZERO)?;
    assert!(matches!(
        acl.set_op_execute_timeout(Duration::from_millis(1500)),
        Err(Error::InvalidTimeout { .. })
    ));
    acl.finalize()?;
    assert_clean();
    Ok(())
}

/// A `launch_in_or_keep` refused before anything is queued
/// (`ForeignKernel`), of an input written on the lane before the refusal,
/// then the recovery point, then the same launch with the right kernel and
/// the operands the refusal gave back: the launch runs and its checked
/// wait succeeds, in both run modes. Before, the refusal was entered as a
/// failure of the lane, which concerned the input (written before it), so
/// the retry failed again with `ForeignKernel`. (Found by the fifth outside
/// review, finding 4.)
#[test]
fn a_launch_refused_before_queueing_can_be_retried() -> Result<()> {
    fn flow<M: RunMode>(ctx: &Context<'_, '_, M>) -> Result<()> {
        let image = register_inc();
        let (first, second) = (ctx.load_binary(&image)?, ctx.load_binary(&image)?);
        // SAFETY: `fr_inc` reads and writes its `InOut` below `Count`, nothing else.
        let inc = unsafe { first.kernel_ref::<(InOut<f32>, Count)>(c"fr_inc")? };
        let stream = ctx.create_stream()?;
        let input = ctx.alloc_host_from(&[1.0f32; 16])?;
        let mut d = ctx.alloc::<f32>(16)?;
        let mut out = ctx.alloc_host_zeroed::<f32>(16)?;
        ctx.scope(|s| {
            s.with_lane(&stream, |lane| {
                let x = lane.copy(&input, &mut d)?;
                let failed = lane
                    .launch_in_or_keep(&second, inc, 1, (x, 16))
                    .unwrap_err();
                assert_eq!(failed.error(), &Error::ForeignKernel);
                let (x, ()) = failed.into_item();
                assert_eq!(s.recover()?, None);
                let (x, ()) = lane
                    .launch_in_or_keep(&first, inc, 1, (x, 16))
                    .map_err(|f| f.error().clone())?;
                let o = lane.copy(&x, &mut out)?.wait()?;
                assert!(o.iter().all(|v| v == 2.0));
                Ok(())
            })
        })?;
        first.unload()?;
        second.unload()?;
        stream.destroy()
    }
    for (config, device_mode) in [(host_config(), false), (device_config(), true)] {
        let _sim = take(config);
        let acl = aclrt::Acl::init()?;
        {
            aclrt::make_guard!(g);
            if device_mode {
                let device = acl.require::<aclrt::DeviceMode>()?.device(0)?;
                let ctx = device.create_context(g)?;
                flow(&ctx)?;
                ctx.destroy()?;
                device.reset()?;
            } else {
                let device = acl.require::<aclrt::HostMode>()?.device(0)?;
                let ctx = device.create_context(g)?;
                flow(&ctx)?;
                ctx.destroy()?;
                device.reset()?;
            }
        }
        acl.finalize()?;
        assert_clean();
    }
    Ok(())
}

/// A refused `launch_in_or_keep` (here a kernel reference of another
/// binary, refused before anything is queued) gives its operands back,
/// unchanged and trusted: the refusal is no failure of work, so their
/// checked wait succeeds and the recovery point reports nothing; the
/// service loop launches again with the right kernel.
#[test]
fn a_failed_launch_gives_its_operands_back() -> Result<()> {
    in_host_context(|ctx| {
        let image = register_inc();
        let (first, second) = (ctx.load_binary(&image)?, ctx.load_binary(&image)?);
        // SAFETY: `fr_inc` reads and writes its `InOut` below `Count`, nothing else.
        let inc = unsafe { first.kernel_ref::<(InOut<f32>, Count)>(c"fr_inc")? };
        let stream = ctx.create_stream()?;
        let input = ctx.alloc_host_from(&[1.0f32; 16])?;
        let mut d = ctx.alloc::<f32>(16)?;
        let mut out = ctx.alloc_host_zeroed::<f32>(16)?;
        ctx.scope(|s| {
            s.with_lane(&stream, |lane| {
                let x = lane.copy(&input, &mut d)?;
                let failed = lane
                    .launch_in_or_keep(&second, inc, 1, (x, 16))
                    .unwrap_err();
                assert_eq!(failed.error(), &Error::ForeignKernel);
                let (x, ()) = failed.into_item();
                // Nothing was queued: what it holds is what the copy wrote.
                let x = x.wait_or_keep().expect("a refusal failed the lane");
                assert!(x.len() == 16);
                assert_eq!(s.recover()?, None);
                let x = lane.copy(&input, x)?;
                let (x, ()) = lane.launch_in(&first, inc, 1, (x, 16))?;
                let o = lane.copy(&x, &mut out)?.wait()?;
                assert!(o.iter().all(|v| v == 2.0));
                Ok(())
            })
        })?;
        first.unload()?;
        second.unload()?;
        stream.destroy()
    })
}

/// The give-back primitive's table: each way a buffer comes back
/// (`InFlight::wait`, `wait_or_keep`, `reuse`, `Fence::wait`,
/// `Fence::reuse`) × the buffer on its own lane or handed over from
/// another × the work fine, failed (a fault of the lane's last task), or
/// aborted (a nested scope's deadline aborts a stream the scope shares).
/// Checked ways fail on a failure; unchecked ways give the buffer back
/// with every lane that could touch it idle, and the failure sticks until
/// the recovery point; an abort fails every way.
#[test]
fn give_back_table() -> Result<()> {
    #[derive(Clone, Copy, Debug, PartialEq)]
    enum Way {
        Wait,
        WaitOrKeep,
        Reuse,
        FenceWait,
        FenceReuse,
    }
    #[derive(Clone, Copy, Debug, PartialEq)]
    enum Outcome {
        Fine,
        Failed,
        Aborted,
    }
    const CODE: i32 = sys::ACL_ERROR_RT_AICORE_EXCEPTION;
    in_host_context(|ctx| {
        let streams = [ctx.create_stream()?, ctx.create_stream()?];
        let mut h = ctx.alloc_host_zeroed::<u8>(64)?;
        let ways = [
            Way::Wait,
            Way::WaitOrKeep,
            Way::Reuse,
            Way::FenceWait,
            Way::FenceReuse,
        ];
        for way in ways {
            for crossed in [false, true] {
                for outcome in [Outcome::Fine, Outcome::Failed, Outcome::Aborted] {
                    let case = format!("{way:?}, crossed {crossed}, {outcome:?}");
                    let r = ctx.scope(|s| {
                        aclrt::make_guard!(g);
                        let lanes = s.lanes(&streams, g);
                        let (la, lb) = (&lanes[0], &lanes[1]);
                        let x = la.memset(&mut h, 0)?;
                        let x = la.host_fn_with(x, |p| p.fill(0xab))?;
                        // The buffer's last task, a memset on its lane.
                        let (lane, last) = if crossed {
                            (lb, &streams[1])
                        } else {
                            (la, &streams[0])
                        };
                        let x = if crossed {
                            lb.wait_for(la.signal(x)?)?
                        } else {
                            x
                        };
                        if outcome == Outcome::Failed {
                            sim::inject_stream_task_fault(last.as_raw(), 1, CODE);
                        }
                        let x = lane.memset(x, 0xab)?;
                        if outcome == Outcome::Aborted {
                            // The nested scope's task is held back far past
                            // its deadline (the stream's delay, which the
                            // abort cuts short): a sleeping host function
                            // could end before a descheduled test thread
                            // reached the deadline, and the scope would
                            // rightly end Ok.
                            let t = Duration::from_millis(10);
                            let nested = ctx.scope_with_timeout(t, |s2| {
                                s2.with_lane(last, |l| {
                                    sim::set_stream_delay(last.as_raw(), Duration::from_secs(30));
                                    let queued = l.host_fn(|| {}).map(drop);
                                    sim::set_stream_delay(last.as_raw(), Duration::ZERO);
                                    queued
                                })
                            });
                            assert!(nested.is_err(), "{case}: the nested scope timed out");
                        }
                        let back = match way {
                            Way::Wait => x.wait(),
                            Way::WaitOrKeep => x.wait_or_keep().map_err(|f| f.error().clone()),
                            Way::Reuse => x.reuse(),
                            Way::FenceWait => x.fence()?.wait(),
                            Way::FenceReuse => x.fence()?.reuse(),
                        };
                        let checked = matches!(way, Way::Wait | Way::WaitOrKeep | Way::FenceWait);
                        match (outcome, back) {
                            (Outcome::Aborted, Err(e)) => {
                                assert!(matches!(e, Error::WorkAborted), "{case}: {e:?}");
                            }
                            (Outcome::Failed, Err(e)) if checked => {
                                assert_eq!(e.code(), Some(CODE), "{case}");
                            }
                            (Outcome::Fine, Ok(v)) | (Outcome::Failed, Ok(v)) => {
                                assert!(outcome == Outcome::Fine || !checked, "{case}");
                                assert!(la.is_complete()?, "{case}: lane a idle");
                                if crossed {
                                    assert!(lb.is_complete()?, "{case}: lane b idle");
                                }
                                if outcome == Outcome::Fine {
                                    assert!(v.iter().all(|b| b == 0xab), "{case}");
                                }
                            }
                            (_, r) => panic!("{case}: {r:?}"),
                        }
                        if outcome == Outcome::Failed {
                            let e = s.recover()?.expect("the failure stuck");
                            assert_eq!(e.code(), Some(CODE), "{case}");
                        }
                        Ok(())
                    });
                    match outcome {
                        Outcome::Aborted => assert!(r.is_err(), "{case}: the scope ends Err"),
                        _ => r.unwrap_or_else(|e| panic!("{case}: {e:?}")),
                    }
                }
            }
        }
        let [a, b] = streams;
        a.destroy()?;
        b.destroy()
    })
}

/// The failure rule covers a task timeout: `Acl::set_op_execute_timeout`
/// of one second, a kernel whose simulated duration (its stream's delay)
/// is far longer: it is stopped at the limit, its checked wait fails with
/// 507014, the scope recovers, and the same lane launches again cleanly.
#[test]
fn a_kernel_past_the_op_execute_timeout_fails_its_checked_wait() -> Result<()> {
    let _sim = take(host_config());
    let acl = aclrt::Acl::init()?;
    acl.set_op_execute_timeout(Duration::from_secs(1))?;
    {
        let device = acl.require::<aclrt::HostMode>()?.device(0)?;
        aclrt::make_guard!(g);
        let ctx = device.create_context(g)?;
        let binary = ctx.load_binary(&register_inc())?;
        // SAFETY: `fr_inc` reads and writes its `InOut` below `Count`, nothing else.
        let inc = unsafe { binary.kernel_ref::<(InOut<f32>, Count)>(c"fr_inc")? };
        let stream = ctx.create_stream()?;
        let input = ctx.alloc_host_from(&[1.0f32; 16])?;
        let mut d = ctx.alloc::<f32>(16)?;
        let mut out = ctx.alloc_host_zeroed::<f32>(16)?;
        ctx.scope(|s| {
            s.with_lane(&stream, |lane| {
                let x = lane.copy(&input, &mut d)?;
                let x = lane.wait_for(lane.signal(x)?)?;
                sim::set_stream_delay(stream.as_raw(), Duration::from_secs(30));
                let t0 = std::time::Instant::now();
                let (x, ()) = lane.launch_in(&binary, inc, 1, (x, 16))?;
                let failed = x.wait_or_keep().unwrap_err();
                assert!(
                    t0.elapsed() < Duration::from_secs(20),
                    "stopped at the limit"
                );
                assert_eq!(
                    failed.error().code(),
                    Some(sys::ACL_ERROR_RT_AICORE_TIMEOUT)
                );
                sim::clear_faults();
                let recovered = s
                    .recover()?
                    .expect("the recovery point returns the failure");
                assert_eq!(recovered.code(), Some(sys::ACL_ERROR_RT_AICORE_TIMEOUT));
                // Written afresh, the buffer is trusted again.
                let x = lane.copy(&input, failed.into_item())?;
                let (x, ()) = lane.launch_in(&binary, inc, 1, (x, 16))?;
                let o = lane.copy(&x, &mut out)?.wait()?;
                assert!(o.iter().all(|v| v == 2.0));
                Ok(())
            })
        })?;
        acl.set_op_execute_timeout(Duration::ZERO)?;
        drop((d, out, input));
        binary.unload()?;
        stream.destroy()?;
        ctx.destroy()?;
        device.reset()?;
    }
    acl.finalize()?;
    assert_clean();
    Ok(())
}

/// A refusal before anything is queued does not launder suspect contents:
/// a buffer whose copy faulted, taken back unchecked with `reuse`, the
/// scope past its recovery point, then given as the `Out` of a launch
/// refused with `ForeignKernel`: what it holds is still what the faulted
/// copy left, so a copy of it fails its checked wait (the refusal judged
/// no work, and staged nothing that counts as written). Written afresh by
/// a launch that runs, it is clean.
#[test]
fn a_refused_launch_does_not_launder_suspect_contents() -> Result<()> {
    use aclrt::kernel::{In, Out};
    in_host_context(|ctx| {
        sim::register_kernel("fr_add", |block, blocks, args| {
            let (x, y, z, n) = (args.u64(0)?, args.u64(1)?, args.u64(2)?, args.u64(3)?);
            for i in (block as usize..n as usize).step_by(blocks as usize) {
                args.write_f32(z, i, args.read_f32(x, i)? + args.read_f32(y, i)?)?;
            }
            Ok(())
        });
        let image = sim::binary_image(&["fr_add"]);
        let (first, second) = (ctx.load_binary(&image)?, ctx.load_binary(&image)?);
        // SAFETY: `fr_add` reads its `In`s and writes its `Out` below `Count`.
        let add = unsafe { first.kernel_ref::<(In<f32>, In<f32>, Out<f32>, Count)>(c"fr_add")? };
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
                sim::inject_stream_task_fault(
                    stream.as_raw(),
                    1,
                    sys::ACL_ERROR_RT_AICORE_EXCEPTION,
                );
                let faulted = lane.copy(&one, &mut z)?;
                let back = faulted.reuse()?;
                assert!(s.recover()?.is_some(), "the fault was not seen");
                let x = lane.park(back)?;
                let failed = lane
                    .launch_in_or_keep(&second, add, 1, (&zin, &zin, x, 32))
                    .unwrap_err();
                assert_eq!(failed.error(), &Error::ForeignKernel);
                let ((), (), x, ()) = failed.into_item();
                let [o0, o1] = &mut outs;
                let o = lane.copy(&x, o0)?;
                assert!(
                    o.wait_or_keep().is_err(),
                    "Ok for what the faulted copy left, after a refused launch"
                );
                let x = lane.copy(&one, x)?;
                let o = lane.copy(&x, o1)?.wait()?;
                assert!(o.iter().all(|v| v == 1.0));
                Ok(())
            })
        })?;
        sim::clear_faults();
        first.unload()?;
        second.unload()?;
        stream.destroy()
    })
}
