//! Attacks on the device-fault attribution of scope waits (found by the review
//! of the service loop): a checked wait, or the scope's result,
//! must never be `Ok` for work whose device fault happened; `reuse` must
//! never hand a buffer back while the device may still use it; the
//! quiescence of checked waits must not add hangs.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc;
use std::time::{Duration, Instant};

use crate::common::*;
use crate::service_loop::fault_next_task;
use aclrt::{ErrorKind, Result, sim, sys};

/// `ACL_ERROR_RT_AICPU_EXCEPTION` (rt_error_codes.h): a task fault the
/// runtime's `Stream::GetSynchronizeError` returns for an AI CPU task.
const AICPU_EXCEPTION: i32 = 507_018;
/// `ACL_ERROR_RT_AICORE_TIMEOUT`.
const AICORE_TIMEOUT: i32 = 507_014;
/// `ACL_ERROR_RT_VECTOR_CORE_EXCEPTION`.
const VECTOR_CORE_EXCEPTION: i32 = 507_035;

/// Finding 1: a task fault whose code is not one of the four classified as
/// `ErrorKind::DeviceFault` (an AI CPU exception, an AI Core timeout, a
/// vector core exception: codes the runtime's stream synchronisation
/// returns from the stream's error, `Stream::GetError`) is not entered in
/// the fault log; when another thread's synchronisation takes it, the
/// checked wait of the work that faulted is `Ok`.
#[test]
fn a_task_fault_of_another_code_taken_by_another_thread_fails_the_wait() -> Result<()> {
    in_host_context(|ctx| {
        let stream = ctx.create_stream()?;
        let input = ctx.alloc_host_from(&[7u8; 64])?;
        let mut d = ctx.alloc::<u8>(64)?;
        for code in [AICPU_EXCEPTION, AICORE_TIMEOUT, VECTOR_CORE_EXCEPTION] {
            ctx.scope(|s| {
                s.with_lane(&stream, |lane| {
                    sim::inject_stream_task_fault(stream.as_raw(), 1, code);
                    let x = lane.copy(&input, &mut d)?; // faults: nothing copied
                    let seen =
                        std::thread::scope(|t| t.spawn(|| stream.synchronize()).join().unwrap());
                    let seen = seen.unwrap_err();
                    assert_eq!(seen.code(), Some(code));
                    let waited = x.wait_or_keep();
                    let failed = waited.expect_err(&format!("Ok for work that faulted ({code})"));
                    assert_eq!(failed.error().code(), Some(code));
                    failed.into_item().reuse()?;
                    assert_eq!(s.recover()?.unwrap().code(), Some(code));
                    Ok(())
                })
            })?;
        }
        stream.destroy()
    })
}

/// Finding 2: `Fence::reuse` (an event synchronisation, which does not
/// report the fault) and then another thread's `Stream::synchronize`,
/// which takes it: the docs of `Fence::reuse` promise that "a checked wait
/// that it may concern reports it, or else the scope's end, which then
/// returns the fault", but the scope returns `Ok` — the fault was
/// "delivered" to the other thread, so it is not owed.
#[test]
fn a_fault_only_reuse_covered_and_another_thread_took_fails_the_scope() -> Result<()> {
    in_host_context(|ctx| {
        let stream = ctx.create_stream()?;
        let input = ctx.alloc_host_from(&[7u8; 64])?;
        let mut d = ctx.alloc::<u8>(64)?;
        let mut out = ctx.alloc_host_zeroed::<u8>(64)?;
        let r = ctx.scope(|s| {
            s.with_lane(&stream, |lane| {
                fault_next_task(stream.as_raw());
                let x = lane.copy(&input, &mut d)?; // faults
                let host = lane.copy(&x, &mut out)?.fence()?.reuse()?;
                assert!(host.iter().all(|v| v == 0), "nothing arrived");
                let seen = std::thread::scope(|t| t.spawn(|| stream.synchronize()).join().unwrap());
                assert_eq!(seen.unwrap_err().kind(), ErrorKind::DeviceFault);
                Ok(())
            })
        });
        assert_eq!(
            r.map_err(|e| e.kind()),
            Err(ErrorKind::DeviceFault),
            "the scope's result is Ok for its work that faulted"
        );
        stream.destroy()
    })
}

/// Finding 3: a checked wait waited (`quiesce`) for every device
/// synchronisation of its context in flight on another thread, which
/// waited for *every* stream of the context, here a lane gated by a host
/// function that the scope's thread opens only after its wait: the two
/// waited for each other. `Context::synchronize` now synchronises stream by
/// stream, and a checked wait waits only for synchronisations of its
/// scope's streams. A watchdog opens the gate after 3 s so that the test
/// ends either way.
#[test]
fn a_checked_wait_does_not_wait_for_another_threads_device_sync_of_other_lanes() -> Result<()> {
    in_host_context(|ctx| {
        let (a, b) = (ctx.create_stream()?, ctx.create_stream()?);
        let input = ctx.alloc_host_from(&[7u8; 64])?;
        let mut d = ctx.alloc::<u8>(64)?;
        let (gate_tx, gate_rx) = mpsc::channel::<()>();
        let by_watchdog = AtomicBool::new(false);
        let started = AtomicBool::new(false);
        std::thread::scope(|t| {
            ctx.scope(|s| {
                aclrt::make_guard!(ga);
                aclrt::make_guard!(gb);
                let (la, lb) = (s.lane(&a, ga), s.lane(&b, gb));
                // Lane b is gated until the scope's thread opens it.
                lb.host_fn(move || {
                    let _ = gate_rx.recv();
                })?;
                let x = la.copy(&input, &mut d)?;
                // Another thread synchronises the device (a monitor).
                let sync = t.spawn(|| {
                    started.store(true, Ordering::SeqCst);
                    ctx.synchronize()
                });
                while !started.load(Ordering::SeqCst) {
                    std::thread::yield_now();
                }
                std::thread::sleep(Duration::from_millis(100)); // in flight
                let gate = gate_tx.clone();
                let by = &by_watchdog;
                let (done_tx, done_rx) = mpsc::channel::<()>();
                let watchdog = t.spawn(move || {
                    // Ends as soon as the wait returned; opens the gate itself
                    // only if the wait is still stalled after 3 s.
                    if done_rx.recv_timeout(Duration::from_secs(3)).is_err() {
                        by.store(true, Ordering::SeqCst);
                        let _ = gate.send(());
                    }
                });
                let t0 = Instant::now();
                let waited = x.wait();
                let took = t0.elapsed();
                let opened_by_watchdog = by_watchdog.load(Ordering::SeqCst);
                let _ = done_tx.send(());
                let _ = gate_tx.send(());
                watchdog.join().unwrap();
                sync.join().unwrap()?;
                assert_eq!(waited?.len(), 64);
                assert!(
                    !opened_by_watchdog,
                    "the checked wait of lane a waited {took:?}, until the watchdog opened lane b's gate"
                );
                Ok(())
            })
        })?;
        a.destroy()?;
        b.destroy()
    })
}

/// Held: `InFlight::reuse` never gives a buffer back while its lane still
/// runs work, even when the synchronisation call itself fails with a
/// device-fault code before waiting (a call-level failure).
#[test]
fn reuse_after_a_call_level_fault_does_not_return_a_buffer_in_use() -> Result<()> {
    in_host_context(|ctx| {
        let stream = ctx.create_stream()?;
        let input = ctx.alloc_host_from(&[7u8; 4096])?;
        let mut d = ctx.alloc::<u8>(4096)?;
        sim::set_stream_delay(stream.as_raw(), Duration::from_millis(300));
        let r = ctx.scope(|s| {
            s.with_lane(&stream, |lane| {
                let x = lane.copy(&input, &mut d)?;
                sim::inject_fault(
                    "aclrtSynchronizeStream",
                    1,
                    sys::ACL_ERROR_RT_AICORE_EXCEPTION,
                );
                let failed = x.reuse_or_keep().expect_err("the copy is still running");
                assert_eq!(failed.error().kind(), ErrorKind::DeviceFault);
                // The buffer is still parked: a checked wait later learns the
                // (fake) fault the call reported.
                let r = failed.into_item().wait();
                assert!(r.is_err());
                Ok(())
            })
        });
        // The call-level fault is remembered as seen on the stream.
        let _ = r;
        sim::set_stream_delay(stream.as_raw(), Duration::ZERO);
        stream.destroy()
    })
}

/// Held: `Fence::reuse` after a call-level failure of the event's
/// synchronisation does not give the buffer back while the record has not
/// completed.
#[test]
fn fence_reuse_after_a_call_level_fault_does_not_return_a_buffer_in_use() -> Result<()> {
    in_host_context(|ctx| {
        let stream = ctx.create_stream()?;
        let input = ctx.alloc_host_from(&[7u8; 4096])?;
        let mut d = ctx.alloc::<u8>(4096)?;
        sim::set_stream_delay(stream.as_raw(), Duration::from_millis(300));
        let _ = ctx.scope(|s| {
            s.with_lane(&stream, |lane| {
                let f = lane.copy(&input, &mut d)?.fence()?;
                sim::inject_fault(
                    "aclrtSynchronizeEvent",
                    1,
                    sys::ACL_ERROR_RT_AICORE_EXCEPTION,
                );
                let failed = f.reuse_or_keep().expect_err("the record has not completed");
                assert_eq!(failed.error().kind(), ErrorKind::DeviceFault);
                let d = failed.into_item().reuse()?;
                assert_eq!(d.len(), 4096);
                Ok(())
            })
        });
        sim::set_stream_delay(stream.as_raw(), Duration::ZERO);
        stream.destroy()
    })
}

/// Held: a fault seen (and reported) before the recovery point does not
/// fail the checked wait of a buffer parked after it, on its lane or
/// through the context key, so a service loop that serves a batch again
/// after a fault terminates.
#[test]
fn faults_seen_before_the_park_do_not_taint() -> Result<()> {
    in_host_context(|ctx| {
        let (a, b) = (ctx.create_stream()?, ctx.create_stream()?);
        let input = ctx.alloc_host_from(&[7u8; 64])?;
        let (mut d, mut e) = (ctx.alloc::<u8>(64)?, ctx.alloc::<u8>(64)?);
        ctx.scope(|s| {
            aclrt::make_guard!(ga);
            aclrt::make_guard!(gb);
            let (la, lb) = (s.lane(&a, ga), s.lane(&b, gb));
            fault_next_task(a.as_raw());
            fault_next_task(b.as_raw());
            let x = la.copy(&input, &mut d)?;
            let y = lb.copy(&input, &mut e)?;
            assert_eq!(
                ctx.synchronize().unwrap_err().kind(),
                ErrorKind::DeviceFault
            );
            // Lane b's fault is still there (a device sync reports one).
            let _ = b.synchronize();
            let d = x.wait_or_keep().unwrap_err().into_item().reuse()?;
            let e = y.wait_or_keep().unwrap_err().into_item().reuse()?;
            assert_eq!(s.recover()?.unwrap().kind(), ErrorKind::DeviceFault);
            // Hand-off (crossed) and served again: no fault remains.
            let x = la.copy(&input, la.park(d)?)?;
            let x = lb.wait_for(la.signal(x)?)?;
            let x = lb.copy(&input, x)?;
            assert_eq!(x.wait()?.len(), 64);
            let y = lb.copy(&input, lb.park(e)?)?.fence()?;
            assert_eq!(y.wait()?.len(), 64);
            Ok(())
        })?;
        a.destroy()?;
        b.destroy()
    })
}

/// The simulator's copy kernel: `y[i] = x[i]` below `n`.
fn register_copy() -> Vec<u8> {
    sim::register_kernel("atk_copy", |block, blocks, args| {
        let (x, y, n) = (args.u64(0)?, args.u64(1)?, args.u64(2)?);
        for i in (block as usize..n as usize).step_by(blocks as usize) {
            args.write_f32(y, i, args.read_f32(x, i)?)?;
        }
        Ok(())
    });
    sim::binary_image(&["atk_copy"])
}

/// Finding 4: a buffer whose contents come from another buffer in flight
/// on the same lane (a copy or kernel reading `&in_flight`) is parked
/// after that buffer; a fault of the source's work seen in between (by an
/// unchecked `reuse` of a third buffer, the service loop's staging refill,
/// or by another thread) is older than the new buffer's `since`, so its
/// checked wait was `Ok` for contents derived from faulted work.
#[test]
fn a_buffer_copied_from_faulted_work_seen_before_its_park_fails_its_wait() -> Result<()> {
    in_host_context(|ctx| {
        let stream = ctx.create_stream()?;
        let input = ctx.alloc_host_from(&[7u8; 64])?;
        let (mut d, mut z) = (ctx.alloc::<u8>(64)?, ctx.alloc::<u8>(64)?);
        let mut out = ctx.alloc_host_zeroed::<u8>(64)?;
        // Seen by an unchecked wait of a third buffer of the lane.
        let r = ctx.scope(|s| {
            s.with_lane(&stream, |lane| {
                fault_next_task(stream.as_raw());
                let x = lane.copy(&input, &mut d)?; // faults: d keeps zeros
                lane.memset(&mut z, 1)?.reuse()?; // takes the fault (owed)
                let y = lane.copy(&x, &mut out)?; // out from x's contents
                let waited = y.wait_or_keep();
                let failed = waited.expect_err("Ok for a copy of faulted work");
                assert_eq!(failed.error().kind(), ErrorKind::DeviceFault);
                Ok(())
            })
        });
        // Not recovered: the failure sticks to the scope's end too.
        assert_eq!(r.map_err(|e| e.kind()), Err(ErrorKind::DeviceFault));
        // Seen by another thread's synchronisation.
        ctx.scope(|s| {
            s.with_lane(&stream, |lane| {
                fault_next_task(stream.as_raw());
                let x = lane.copy(&input, &mut d)?;
                let seen = std::thread::scope(|t| t.spawn(|| stream.synchronize()).join().unwrap());
                assert_eq!(seen.unwrap_err().kind(), ErrorKind::DeviceFault);
                let y = lane.copy(&x, &mut out)?;
                let failed = y.wait_or_keep().expect_err("Ok for a copy of faulted work");
                assert_eq!(failed.error().kind(), ErrorKind::DeviceFault);
                // The source fails too (its own since).
                let x = x.wait_or_keep().unwrap_err().into_item();
                // After the recovery point, fresh work is clean, and a copy of
                // the faulted source still fails (its contents come from
                // before the failure).
                assert_eq!(s.recover()?.unwrap().kind(), ErrorKind::DeviceFault);
                assert_eq!(lane.copy(&input, &mut z)?.wait()?.len(), 64);
                let again = lane.copy(&x, failed.into_item())?;
                assert_eq!(again.wait().unwrap_err().kind(), ErrorKind::DeviceFault);
                Ok(())
            })
        })?;
        stream.destroy()
    })
}

/// Finding 4, kernel path: a kernel reading `&in_flight` (its `In`
/// argument staged after or before the `Out`).
#[test]
fn a_kernel_output_from_faulted_work_seen_before_its_park_fails_its_wait() -> Result<()> {
    use aclrt::kernel::{Count, In, Out};
    in_host_context(|ctx| {
        let binary = ctx.load_binary(&register_copy())?;
        // SAFETY: atk_copy reads `n` f32 of its first buffer and writes `n`
        // f32 of its second; both hold 64.
        let copy = unsafe { binary.kernel_ref::<(In<f32>, Out<f32>, Count)>(c"atk_copy")? };
        let stream = ctx.create_stream()?;
        let input = ctx.alloc_host_from(&[1.5f32; 64])?;
        let (mut x, mut y) = (ctx.alloc::<f32>(64)?, ctx.alloc::<f32>(64)?);
        ctx.scope(|s| {
            s.with_lane(&stream, |lane| {
                fault_next_task(stream.as_raw());
                let xi = lane.copy(&input, &mut x)?; // faults
                let seen = std::thread::scope(|t| t.spawn(|| stream.synchronize()).join().unwrap());
                assert_eq!(seen.unwrap_err().kind(), ErrorKind::DeviceFault);
                let (_, yi, _) = lane.launch_in(&binary, copy, 2, (&xi, &mut y, 64))?;
                let failed = yi
                    .wait_or_keep()
                    .expect_err("Ok for a kernel output of faulted work");
                assert_eq!(failed.error().kind(), ErrorKind::DeviceFault);
                assert_eq!(s.recover()?.unwrap().kind(), ErrorKind::DeviceFault);
                // The output of a kernel that reads the faulted buffer still
                // fails after the recovery point.
                let (_, yi, _) = lane.launch_in(&binary, copy, 2, (&xi, failed.into_item(), 64))?;
                assert!(yi.wait().is_err());
                Ok(())
            })
        })?;
        binary.unload()?;
        stream.destroy()
    })
}

/// Finding 4, shared path: a lane reads a `Shared` buffer whose producer
/// faulted, the fault taken before the reader's destination was parked.
#[test]
fn a_read_of_a_shared_buffer_from_faulted_work_fails_its_wait() -> Result<()> {
    in_host_context(|ctx| {
        let (a, b) = (ctx.create_stream()?, ctx.create_stream()?);
        let input = ctx.alloc_host_from(&[7u8; 64])?;
        let mut d = ctx.alloc::<u8>(64)?;
        let mut out = ctx.alloc_host_zeroed::<u8>(64)?;
        ctx.scope(|s| {
            aclrt::make_guard!(ga);
            aclrt::make_guard!(gb);
            let (la, lb) = (s.lane(&a, ga), s.lane(&b, gb));
            fault_next_task(a.as_raw());
            let x = la.copy(&input, &mut d)?; // faults
            let shared = la.share(x)?;
            let seen = std::thread::scope(|t| t.spawn(|| a.synchronize()).join().unwrap());
            assert_eq!(seen.unwrap_err().kind(), ErrorKind::DeviceFault);
            let reading = lb.read(&shared)?;
            let y = lb.copy(&reading, &mut out)?;
            let failed = y.wait_or_keep().expect_err("Ok for a read of faulted work");
            assert_eq!(failed.error().kind(), ErrorKind::DeviceFault);
            assert_eq!(s.recover()?.unwrap().kind(), ErrorKind::DeviceFault);
            Ok(())
        })?;
        a.destroy()?;
        b.destroy()
    })
}

/// Finding 2, the one-lane fast end (`end_settled`: one stream the scope
/// synchronised, no book): the fault another thread took before the
/// scope's `InFlight::reuse` synchronised is still the scope's result.
#[test]
fn the_fast_scope_end_reports_a_fault_another_thread_took() -> Result<()> {
    in_host_context(|ctx| {
        let stream = ctx.create_stream()?;
        let input = ctx.alloc_host_from(&[7u8; 64])?;
        let mut d = ctx.alloc::<u8>(64)?;
        let r = ctx.scope(|s| {
            s.with_lane(&stream, |lane| {
                fault_next_task(stream.as_raw());
                let x = lane.copy(&input, &mut d)?;
                let seen = std::thread::scope(|t| t.spawn(|| stream.synchronize()).join().unwrap());
                assert_eq!(seen.unwrap_err().kind(), ErrorKind::DeviceFault);
                x.reuse()?; // finds nothing: the fault was taken
                Ok(())
            })
        });
        assert_eq!(r.map_err(|e| e.kind()), Err(ErrorKind::DeviceFault));
        stream.destroy()
    })
}

/// Held: in the stop-on-failure mode `Fence::reuse` (whose event
/// synchronisation reports the context's stored failure) gives the buffer
/// back once the record ran, and the scope returns the fault.
#[test]
fn stop_mode_fence_reuse_gives_the_buffer_back_and_the_scope_fails() -> Result<()> {
    in_host_context(|ctx| {
        ctx.set_stop_on_failure()?;
        let stream = ctx.create_stream()?;
        let input = ctx.alloc_host_from(&[7u8; 64])?;
        let mut d = ctx.alloc::<u8>(64)?;
        let mut out = ctx.alloc_host_zeroed::<u8>(64)?;
        let r = ctx.scope(|s| {
            s.with_lane(&stream, |lane| {
                fault_next_task(stream.as_raw());
                let x = lane.copy(&input, &mut d)?;
                let f = lane.copy(&x, &mut out)?.fence()?;
                match f.reuse_or_keep() {
                    Ok(host) => assert!(host.iter().all(|v| v == 0)),
                    Err(failed) => {
                        assert_eq!(failed.error().kind(), ErrorKind::DeviceFault);
                    }
                }
                Ok(())
            })
        });
        assert_eq!(r.map_err(|e| e.kind()), Err(ErrorKind::DeviceFault));
        // The context stays failed (stop mode); its streams cannot be
        // destroyed cleanly in every runtime, so only the result is checked.
        let _ = stream.destroy();
        Ok(())
    })
}
