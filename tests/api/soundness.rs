//! Soundness at the edges: what safe code cannot do, each shown
//! by a program that tries. Every test checks the simulator's audit: the
//! runtime's rules were never broken, nothing hung and nothing aborted.

use crate::common;

use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use aclrt::sim::{self, ResourceKind, ViolationKind};
use aclrt::{
    Acl, DeviceMode, Error, ErrorKind, Escalation, HostMode, RunMode, Runtime, make_guard,
};
use common::*;

// ------------------------------------------------ duplicate peer-access tokens

fn peer_tokens<M: RunMode>(rt: Runtime<'_, M>) -> aclrt::Result<()> {
    let d0 = rt.device(0)?;
    let d1 = rt.device(1)?;
    let d0_again = rt.device(0)?; // a second handle of device 0
    make_guard!(g0);
    let c0 = d0.create_context(g0)?;
    make_guard!(g1);
    let c1 = d1.create_context(g1)?;
    let src = c0.alloc_from(&[7u32; 64])?;
    let mut dst = c1.alloc_zeroed::<u32>(64)?;
    let first = d0.enable_peer_access(&d1)?;
    let second = d0_again.enable_peer_access(&d1)?;
    // Dropping one token must not disable the access the other proves.
    drop(first);
    c0.copy_to_peer(&second, &c1, &src, &mut dst)?;
    let mut back = vec![0u32; 64];
    c1.copy(&dst, &mut back)?;
    assert_eq!(back, [7u32; 64]);
    second.disable()?;
    drop((src, dst));
    c0.destroy()?;
    c1.destroy()?;
    d0_again.reset()?;
    d0.reset()?;
    d1.reset()
}

#[test]
fn a_second_peer_token_keeps_access_on_until_the_last_goes() -> aclrt::Result<()> {
    for config in [host_config(), device_config()] {
        let _sim = take(config);
        let acl = Acl::init()?;
        match acl.detect() {
            aclrt::Detected::Host(rt) => peer_tokens(rt)?,
            aclrt::Detected::Device(rt) => peer_tokens(rt)?,
        }
        acl.finalize()?;
        assert_clean();
    }
    Ok(())
}

// ------------------------------------------- fill makes its own context current

#[test]
fn host_buffer_uninit_fill_on_another_thread() -> aclrt::Result<()> {
    for config in [host_config(), device_config()] {
        let _sim = take(config);
        let acl = Acl::init()?;
        if acl.run_mode() == aclrt::RunModeKind::Host {
            let rt = acl.require::<HostMode>()?;
            let d0 = rt.device(0)?;
            let d1 = rt.device(1)?;
            make_guard!(g);
            let ctx = d0.create_context(g)?;
            let uninit = ctx.alloc_host_uninit::<u32>(16)?;
            // A fresh thread, where no context is current (107002 before).
            let filled = std::thread::scope(|s| s.spawn(|| uninit.fill(0xab)).join().unwrap())?;
            assert_eq!(filled.to_vec(), vec![0xabab_abab_u32; 16]);
            drop(filled);
            ctx.destroy()?;
            d1.reset()?;
            d0.reset()?;
        } else {
            let rt = acl.require::<DeviceMode>()?;
            let d0 = rt.device(0)?;
            let d1 = rt.device(1)?;
            make_guard!(g);
            let ctx = d0.create_context(g)?;
            let uninit = ctx.alloc_host_uninit::<u32>(16)?;
            // In device run mode the buffer is memory of device 0: a memset
            // while device 1 is current would be a cross-device access.
            let _ = d1.memory_info();
            let filled = uninit.fill(0x01)?;
            assert_eq!(filled.to_vec(), vec![0x0101_0101_u32; 16]);
            drop(filled);
            ctx.destroy()?;
            d1.reset()?;
            d0.reset()?;
        }
        acl.finalize()?;
        assert_clean();
    }
    Ok(())
}

// -------------------------------------------- host functions that call the runtime

/// A host function on stream A synchronises stream B while B waits for a
/// mark recorded on A after that host function: the synchronisation is
/// refused (it would never return), the scope ends normally.
#[test]
fn blocking_call_inside_a_host_function_is_refused() -> aclrt::Result<()> {
    let _sim = take(host_config());
    let acl = Acl::init()?;
    let refused = std::sync::Mutex::new(None);
    {
        let device = acl.require::<HostMode>()?.device(0)?;
        make_guard!(g);
        let ctx = device.create_context(g)?;
        let a = ctx.create_stream()?;
        let b = ctx.create_stream()?;
        let mut buf = ctx.alloc_zeroed::<u8>(256)?;
        ctx.scope(|s| {
            make_guard!(la);
            let lane_a = s.lane(&a, la);
            make_guard!(lb);
            let lane_b = s.lane(&b, lb);
            let b_ref = &b;
            let refused = &refused;
            lane_a.host_fn(move || {
                *refused.lock().unwrap() = Some(b_ref.synchronize());
            })?;
            let mark = lane_a.mark()?;
            lane_b.wait_mark(mark)?;
            let _ = lane_b.memset(&mut buf, 1)?;
            Ok(())
        })?;
        drop(buf);
        b.destroy()?;
        a.destroy()?;
        ctx.destroy()?;
        device.reset()?;
    }
    acl.finalize()?;
    let outcome = refused
        .into_inner()
        .unwrap()
        .expect("the host function ran");
    assert!(
        matches!(
            outcome,
            Err(Error::InCallback {
                operation: "aclrtSynchronizeStream"
            })
        ),
        "{outcome:?}"
    );
    assert_clean();
    Ok(())
}

/// A scope opened inside a host function on the same stream is refused with
/// an error (it used to make the outer scope's end fail and abort).
#[test]
fn scope_inside_a_host_function_is_refused() -> aclrt::Result<()> {
    let _sim = take(host_config());
    let acl = Acl::init()?;
    let outcome = std::sync::Mutex::new(None);
    {
        let device = acl.require::<HostMode>()?.device(0)?;
        make_guard!(g);
        let ctx = device.create_context(g)?;
        let stream = ctx.create_stream()?;
        ctx.scope(|s| {
            make_guard!(l);
            let lane = s.lane(&stream, l);
            let (ctx, stream, outcome) = (&ctx, &stream, &outcome);
            lane.host_fn(move || {
                let inner = ctx.scope(|s| {
                    make_guard!(l2);
                    let lane = s.lane(stream, l2);
                    lane.host_fn(|| {})?;
                    Ok(())
                });
                *outcome.lock().unwrap() = Some(inner);
            })?;
            Ok(())
        })?;
        // Destroying a stream also waits for it: refused inside a host function.
        let destroy_inside = std::sync::Mutex::new(None);
        let spare = ctx.create_stream()?;
        std::thread::scope(|t| {
            t.spawn(|| {
                ctx.scope(|s| {
                    make_guard!(l);
                    let lane = s.lane(&stream, l);
                    let spare = &spare;
                    let destroy_inside = &destroy_inside;
                    lane.host_fn(move || {
                        *destroy_inside.lock().unwrap() = Some(spare.synchronize());
                    })?;
                    Ok(())
                })
            })
            .join()
            .unwrap()
        })?;
        assert!(matches!(
            destroy_inside.into_inner().unwrap(),
            Some(Err(Error::InCallback { .. }))
        ));
        spare.destroy()?;
        stream.destroy()?;
        ctx.destroy()?;
        device.reset()?;
    }
    acl.finalize()?;
    let inner = outcome
        .into_inner()
        .unwrap()
        .expect("the host function ran");
    assert!(
        matches!(
            inner,
            Err(Error::InCallback {
                operation: "Context::scope"
            })
        ),
        "{inner:?}"
    );
    assert_clean();
    Ok(())
}

// ------------------------------------------------------- bounded end of a scope

fn timeout_flow<M: RunMode>(rt: Runtime<'_, M>, abort_fails: bool) -> aclrt::Result<()> {
    let device = rt.device(0)?;
    make_guard!(g);
    let ctx = device.create_context(g)?;
    let slow = ctx.create_stream()?;
    let fast = ctx.create_stream()?;
    let mut a = ctx.alloc_zeroed::<u8>(4096)?;
    let mut b = ctx.alloc_zeroed::<u8>(4096)?;
    let ran = AtomicBool::new(false);
    sim::set_stream_delay(
        slow.as_raw(),
        Duration::from_millis(if abort_fails { 300 } else { 10_000 }),
    );
    if abort_fails {
        // Every abort fails: the scope falls back to an unbounded synchronisation.
        for n in 1..=6 {
            sim::inject_fault("aclrtStreamAbort", n, 507899);
        }
    }
    let result = ctx.scope_with_timeout(Duration::from_millis(50), |s| {
        make_guard!(l1);
        let slow_lane = s.lane(&slow, l1);
        make_guard!(l2);
        let fast_lane = s.lane(&fast, l2);
        let a = slow_lane.memset(&mut a, 0x5a)?;
        let ran = &ran;
        slow_lane.host_fn(move || ran.store(true, Ordering::SeqCst))?;
        // The fast lane waits for the slow one: it must be aborted too.
        let mark = slow_lane.mark()?;
        fast_lane.wait_mark(mark)?;
        let _ = fast_lane.memset(&mut b, 0x11)?;
        let _ = a;
        Ok(())
    });
    let expected = if abort_fails {
        Escalation::UnboundedSynchronize
    } else {
        Escalation::StreamAbort
    };
    match &result {
        Err(Error::ScopeTimeout {
            millis: 50,
            escalation,
        }) if *escalation == expected => {}
        other => panic!("expected a scope timeout with {expected:?}, got {other:?}"),
    }
    assert_eq!(result.unwrap_err().kind(), ErrorKind::Timeout);
    if abort_fails {
        // The memset and host function ran: the scope waited for them.
        assert!(ran.load(Ordering::SeqCst));
    } else {
        // Discarded, never run: the scope did not wait for the 10 s delay
        // (the host function would have run after it).
        assert!(!ran.load(Ordering::SeqCst));
        let mut back = vec![0xffu8; 4096];
        ctx.copy(&b, &mut back)?;
        assert_eq!(back, vec![0u8; 4096], "the dependent memset was discarded");
    }
    sim::clear_faults();
    // The streams are usable again.
    ctx.scope(|s| {
        make_guard!(l);
        let lane = s.lane(&slow, l);
        let a = lane.memset(&mut a, 7)?.wait()?;
        let _ = a;
        Ok(())
    })?;
    let mut back = vec![0u8; 4096];
    ctx.copy(&a, &mut back)?;
    assert_eq!(back, vec![7u8; 4096]);
    drop((a, b));
    fast.destroy()?;
    slow.destroy()?;
    ctx.destroy()?;
    device.reset()
}

#[test]
fn scope_with_timeout_aborts_its_streams() -> aclrt::Result<()> {
    for config in [host_config(), device_config()] {
        let _sim = take(config);
        let acl = Acl::init()?;
        match acl.detect() {
            aclrt::Detected::Host(rt) => timeout_flow(rt, false)?,
            aclrt::Detected::Device(rt) => timeout_flow(rt, false)?,
        }
        acl.finalize()?;
        assert_clean();
    }
    Ok(())
}

#[test]
fn scope_with_timeout_falls_back_to_synchronize_when_abort_fails() -> aclrt::Result<()> {
    let _sim = take(host_config());
    let acl = Acl::init()?;
    timeout_flow(acl.require::<HostMode>()?, true)?;
    acl.finalize()?;
    assert_clean();
    Ok(())
}

/// A plain scope whose streams cannot be synchronised (every
/// synchronisation fails) no longer aborts the process: it aborts the
/// streams and returns the error.
#[test]
fn scope_whose_synchronisation_keeps_failing_returns_an_error() -> aclrt::Result<()> {
    let _sim = take(host_config());
    let acl = Acl::init()?;
    {
        let device = acl.require::<HostMode>()?.device(0)?;
        make_guard!(g);
        let ctx = device.create_context(g)?;
        let stream = ctx.create_stream()?;
        let mut buf = ctx.alloc::<u8>(64)?;
        for n in 1..=3 {
            sim::inject_fault("aclrtSynchronizeStream", n, 507899);
        }
        let err = ctx
            .scope(|s| {
                make_guard!(l);
                let lane = s.lane(&stream, l);
                let _ = lane.memset(&mut buf, 3)?;
                Ok(())
            })
            .unwrap_err();
        assert_eq!(err.code(), Some(507899));
        sim::clear_faults();
        drop(buf);
        stream.destroy()?;
        ctx.destroy()?;
        device.reset()?;
    }
    acl.finalize()?;
    assert_clean();
    Ok(())
}

// ------------------------------------------ leaked children keep their parents

#[test]
fn leaked_children_make_parent_releases_refuse_without_breaking_rules() -> aclrt::Result<()> {
    let _sim = take(host_config());
    let acl = Acl::init()?;
    {
        let device = acl.require::<HostMode>()?.device(0)?;
        make_guard!(g);
        let ctx = device.create_context(g)?;
        std::mem::forget(ctx.alloc::<f32>(16)?);
        std::mem::forget(ctx.create_stream()?);
        let err = ctx.destroy().unwrap_err();
        assert!(
            matches!(
                err,
                Error::LiveChildren {
                    function: "aclrtDestroyContext",
                    live: 2
                }
            ),
            "{err:?}"
        );
        assert_eq!(err.kind(), ErrorKind::ReleaseFailed);
        let err = device.reset().unwrap_err();
        assert!(
            matches!(
                err,
                Error::LiveChildren {
                    function: "aclrtResetDevice",
                    live: 3
                }
            ),
            "{err:?}"
        );
    }
    let err = acl.finalize().unwrap_err();
    assert!(
        matches!(
            err,
            Error::LiveChildren {
                function: "aclFinalize",
                ..
            }
        ),
        "{err:?}"
    );
    let audit = sim::audit();
    assert!(audit.violations.is_empty(), "{audit:#?}");
    assert!(audit.initialized, "the runtime stays initialised");
    assert_eq!(live(&audit, ResourceKind::Stream), 1);
    assert_eq!(live(&audit, ResourceKind::DeviceMemory), 1);
    // A fresh runtime after a reset starts with a clean book.
    sim::reset();
    let acl = Acl::init()?;
    acl.finalize()?;
    assert_clean();
    let _ = ViolationKind::ResetWithLiveResources;
    Ok(())
}

/// A leaked child of one `Device` handle does not stop another handle of the
/// same device from being released (the runtime's count stays above zero).
#[test]
fn leak_only_blocks_the_last_device_handle() -> aclrt::Result<()> {
    let _sim = take(device_config());
    let acl = Acl::init()?;
    let rt = acl.require::<DeviceMode>()?;
    let first = rt.device(0)?;
    let second = rt.device(0)?;
    make_guard!(g);
    let ctx = first.default_context(g);
    std::mem::forget(ctx.alloc_host_zeroed::<u8>(64)?);
    second.reset()?; // not the last handle
    assert!(matches!(
        first.reset(),
        Err(Error::LiveChildren {
            function: "aclrtResetDevice",
            live: 1
        })
    ));
    assert!(sim::audit().violations.is_empty());
    drop(acl);
    assert!(sim::audit().violations.is_empty());
    sim::reset();
    Ok(())
}

// ------------------------------------- the simulator's control API under live handles

/// `sim::reset()` while a `HostBuffer` lives used to free the memory under
/// it (a use-after-free from safe code). Memory live at a reset is
/// quarantined: the buffer stays readable and writable, its later release
/// is an error, and a new allocation never reuses it. Also run under Miri
/// in CI (a use-after-free there is reported, not just garbage).
#[test]
fn sim_reset_under_a_live_host_buffer_frees_nothing() -> aclrt::Result<()> {
    let _sim = take(host_config());
    let acl = Acl::init()?;
    let device = acl.require::<HostMode>()?.device(0)?;
    make_guard!(g);
    let ctx = device.create_context(g)?;
    let mut buf = ctx.alloc_host_from(&[0x1111_1111u32; 256])?;
    sim::reset(); // safe code tears the simulator down under `buf`
    // A fresh runtime allocates memory of the same size and fills it.
    aclrt_sim_fill_fresh_block(256 * 4);
    assert_eq!(buf.to_vec(), vec![0x1111_1111u32; 256]);
    buf[3] = 7;
    assert_eq!(buf[3], 7);
    // Every call through the stale handles is an error, never a crash.
    assert!(ctx.create_stream().is_err());
    assert!(buf.free().is_err());
    drop(ctx);
    drop(device);
    drop(acl);
    sim::reset();
    Ok(())
}

/// Initialise the runtime through the raw API, allocate `bytes` of pinned
/// memory, fill it with 0xEE, free it and finalize.
fn aclrt_sim_fill_fresh_block(bytes: usize) {
    use aclrt::sys;
    // SAFETY: a plain C-API sequence on the simulator: init, set device,
    // allocate, write within the allocation, free, reset, finalize; every
    // pointer passed is valid for the call.
    unsafe {
        assert_eq!(sys::aclInit(core::ptr::null()), 0);
        assert_eq!(sys::aclrtSetDevice(0), 0);
        let mut p: *mut core::ffi::c_void = core::ptr::null_mut();
        assert_eq!(sys::aclrtMallocHost(&mut p, bytes), 0);
        p.cast::<u8>().write_bytes(0xEE, bytes);
        assert_eq!(sys::aclrtFreeHost(p), 0);
        assert_eq!(sys::aclrtResetDevice(0), 0);
        assert_eq!(sys::aclFinalize(), 0);
    }
}

// ------------------------------------------ found by the outside review (round 1)

/// `sim::reset()` inside a scope body: the scope's end finds its streams
/// gone (the memory is quarantined) and returns an error; it used to abort
/// the process.
#[test]
fn sim_reset_inside_a_scope_returns_an_error() -> aclrt::Result<()> {
    let _sim = take(host_config());
    let acl = Acl::init()?;
    let device = acl.require::<HostMode>()?.device(0)?;
    make_guard!(g);
    let ctx = device.create_context(g)?;
    let stream = ctx.create_stream()?;
    let mut d = ctx.alloc::<u32>(16)?;
    let result = ctx.scope(|s| {
        make_guard!(l);
        let lane = s.lane(&stream, l);
        let _x = lane.memset(&mut d, 0)?;
        sim::reset();
        Ok(())
    });
    assert!(result.is_err(), "{result:?}");
    drop(d);
    drop(stream);
    drop(ctx);
    drop(device);
    drop(acl);
    sim::reset();
    Ok(())
}

/// A timed scope nested in a plain scope aborts a stream the outer scope
/// uses: the outer scope learns it (`Error::WorkAborted`) instead of
/// hanging on a wait for an event record the abort discarded.
#[test]
fn nested_timed_scope_abort_is_reported_to_the_outer_scope() -> aclrt::Result<()> {
    let _sim = take(host_config());
    let acl = Acl::init()?;
    {
        let device = acl.require::<HostMode>()?.device(0)?;
        make_guard!(g);
        let ctx = device.create_context(g)?;
        let (s1, s2) = (ctx.create_stream()?, ctx.create_stream()?);
        let mut d = ctx.alloc::<u32>(64)?;
        let mut h = ctx.alloc_host_zeroed::<u32>(64)?;
        let mut inner = None;
        let outer = ctx.scope(|s| {
            make_guard!(l1);
            let lane1 = s.lane(&s1, l1);
            make_guard!(l2);
            let lane2 = s.lane(&s2, l2);
            lane1.host_fn(|| std::thread::sleep(Duration::from_millis(300)))?;
            let x = lane1.memset(&mut d, 7)?;
            let x = lane2.wait_for(lane1.signal(x)?)?;
            let _y = lane2.copy(&x, &mut h)?;
            inner = Some(ctx.scope_with_timeout(Duration::from_millis(10), |si| {
                make_guard!(li);
                let _ = si.lane(&s1, li);
                Ok(())
            }));
            Ok(())
        });
        assert!(
            matches!(inner, Some(Err(Error::ScopeTimeout { .. }))),
            "{inner:?}"
        );
        assert!(matches!(outer, Err(Error::WorkAborted)), "{outer:?}");
        assert_eq!(Error::WorkAborted.kind(), ErrorKind::Aborted);
        drop((d, h));
        s2.destroy()?;
        s1.destroy()?;
        ctx.destroy()?;
        device.reset()?;
    }
    acl.finalize()?;
    assert_clean();
    Ok(())
}

/// Another thread's timed scope aborts a stream this thread's scope uses:
/// the discarded work is reported (`Error::WorkAborted` from `wait` or the
/// scope), never passed off as done.
#[test]
fn abort_by_another_threads_scope_is_reported() -> aclrt::Result<()> {
    let _sim = take(host_config());
    let acl = Acl::init()?;
    {
        let device = acl.require::<HostMode>()?.device(0)?;
        make_guard!(g);
        let ctx = device.create_context(g)?;
        let s1 = ctx.create_stream()?;
        let src = ctx.alloc_host_from(&[9u32; 4])?;
        let mut d = ctx.alloc::<u32>(4)?;
        let mut out = ctx.alloc_host_zeroed::<u32>(4)?;
        let (tx, rx) = std::sync::mpsc::channel();
        let (a, b) = std::thread::scope(|t| {
            let a = t.spawn(|| {
                ctx.scope(|s| {
                    make_guard!(l);
                    let lane = s.lane(&s1, l);
                    lane.host_fn(|| std::thread::sleep(Duration::from_millis(300)))?;
                    let x = lane.copy(&src, &mut d)?;
                    let y = lane.copy(&x, &mut out)?;
                    tx.send(()).unwrap();
                    let y = y.wait()?;
                    Ok(y.to_vec())
                })
            });
            let (ctx, s1) = (&ctx, &s1);
            let b = t.spawn(move || {
                rx.recv().unwrap();
                ctx.scope_with_timeout(Duration::from_millis(10), |s| {
                    make_guard!(l);
                    let lane = s.lane(s1, l);
                    lane.host_fn(|| {})?;
                    Ok(())
                })
            });
            (a.join().unwrap(), b.join().unwrap())
        });
        assert!(matches!(b, Err(Error::ScopeTimeout { .. })), "{b:?}");
        // Either the synchronisation in flight was cut (107023) or the
        // scope learnt of the abort afterwards: both say `Aborted`.
        assert!(
            matches!(&a, Err(e) if e.kind() == ErrorKind::Aborted),
            "{a:?}"
        );
        drop((src, d, out));
        s1.destroy()?;
        ctx.destroy()?;
        device.reset()?;
    }
    acl.finalize()?;
    assert_clean();
    Ok(())
}

/// A leaked peer-access token keeps both devices open, so the runtime never
/// forgets the access it proves; a later token works.
#[test]
fn leaked_peer_token_keeps_its_devices_open() -> aclrt::Result<()> {
    let _sim = take(host_config());
    let acl = Acl::init()?;
    let rt = acl.require::<HostMode>()?;
    {
        let (d0, d1) = (rt.device(0)?, rt.device(1)?);
        std::mem::forget(d0.enable_peer_access(&d1)?);
        assert!(matches!(d0.reset(), Err(Error::LiveChildren { .. })));
        assert!(matches!(d1.reset(), Err(Error::LiveChildren { .. })));
    }
    let (d0, d1) = (rt.device(0)?, rt.device(1)?);
    make_guard!(g0);
    let c0 = d0.create_context(g0)?;
    make_guard!(g1);
    let c1 = d1.create_context(g1)?;
    let src = c0.alloc_from(&[5u8; 32])?;
    let mut dst = c1.alloc_zeroed::<u8>(32)?;
    let token = d0.enable_peer_access(&d1)?;
    c0.copy_to_peer(&token, &c1, &src, &mut dst)?;
    drop((token, src, dst));
    c0.destroy()?;
    c1.destroy()?;
    assert!(sim::audit().violations.is_empty());
    drop((d0, d1));
    drop(acl);
    sim::reset();
    Ok(())
}

/// Deadlines that are huge or already passed: no panic; an idle lane is
/// finished even with a zero deadline.
#[test]
fn scope_with_extreme_timeouts() -> aclrt::Result<()> {
    let _sim = take(host_config());
    let acl = Acl::init()?;
    {
        let device = acl.require::<HostMode>()?.device(0)?;
        make_guard!(g);
        let ctx = device.create_context(g)?;
        let stream = ctx.create_stream()?;
        let mut d = ctx.alloc::<u8>(64)?;
        ctx.scope_with_timeout(Duration::MAX, |s| {
            make_guard!(l);
            let lane = s.lane(&stream, l);
            let _ = lane.memset(&mut d, 1)?;
            Ok(())
        })?;
        ctx.scope_with_timeout(Duration::ZERO, |s| {
            make_guard!(l);
            let _lane = s.lane(&stream, l);
            Ok(())
        })?;
        drop(d);
        stream.destroy()?;
        ctx.destroy()?;
        device.reset()?;
    }
    acl.finalize()?;
    assert_clean();
    Ok(())
}

/// The escalation of a scope's deadline records the user events of the
/// scope again (their records were discarded by the abort), so that a later
/// wait does not hang; but not one that was dropped inside the scope: that
/// would be a use after free of its handle.
#[test]
fn escalation_rerecords_live_user_events_only() -> aclrt::Result<()> {
    let _sim = take(host_config());
    let acl = Acl::init()?;
    {
        let device = acl.require::<HostMode>()?.device(0)?;
        make_guard!(g);
        let ctx = device.create_context(g)?;
        let fast = ctx.create_stream()?;
        let slow = ctx.create_stream()?;
        let mut d = ctx.alloc::<u8>(64)?;
        sim::set_stream_delay(slow.as_raw(), Duration::from_secs(10));
        let kept = std::cell::RefCell::new(None);
        let result = ctx.scope_with_timeout(Duration::from_millis(50), |s| {
            make_guard!(l1);
            let fast_lane = s.lane(&fast, l1);
            let event = fast_lane.record(ctx.create_event()?)?;
            // Waits for the (idle) fast lane, then destroys the event.
            drop(event);
            make_guard!(l2);
            let slow_lane = s.lane(&slow, l2);
            let _ = slow_lane.memset(&mut d, 1)?;
            // Recorded on the fast lane behind the slow memset: the abort
            // discards the record.
            fast_lane.wait_mark(slow_lane.mark()?)?;
            *kept.borrow_mut() = Some(fast_lane.record(ctx.create_event()?)?);
            Ok(())
        });
        assert!(
            matches!(result, Err(Error::ScopeTimeout { .. })),
            "{result:?}"
        );
        // Recorded again on the now idle fast stream: a wait returns.
        let kept = kept.into_inner().expect("recorded in the scope");
        kept.synchronize_timeout(Duration::from_secs(2))?;
        drop(kept);
        sim::clear_faults();
        drop(d);
        slow.destroy()?;
        fast.destroy()?;
        ctx.destroy()?;
        device.reset()?;
    }
    acl.finalize()?;
    assert_clean();
    Ok(())
}

/// A part of a pinned buffer (`&mut buf[a..b]`, a `PinnedSlice`) as the
/// destination of asynchronous work: a copy, then a host function that
/// writes the elements through the address taken when the part was parked
/// (from an exclusive reborrow), then `wait` gives the part back.
///
/// Not in the Miri subset: the simulator writes through its own pointer to
/// the allocation, not the one it is given, which Stacked and Tree Borrows
/// count as a foreign write that invalidates every pointer derived from a
/// reference into the buffer (the part's own, and the host function's).
/// The device of a real runtime is outside the abstract machine.
#[test]
fn pinned_sub_slice_as_async_destination() -> aclrt::Result<()> {
    let _sim = take(host_config());
    let acl = Acl::init()?;
    {
        let device = acl.require::<HostMode>()?.device(0)?;
        make_guard!(g);
        let ctx = device.create_context(g)?;
        let stream = ctx.create_stream()?;
        let src = ctx.alloc_from(&[1u32, 2, 3, 4])?;
        let mut host = ctx.alloc_host_zeroed::<u32>(8)?;
        ctx.scope(|s| {
            make_guard!(l);
            let lane = s.lane(&stream, l);
            let part = lane.copy(&src, &mut host[2..6])?;
            let part = lane.host_fn_with(part, |p| p.update_all(|v| v * 10))?;
            let part = part.wait()?;
            assert_eq!(part.to_vec(), [10, 20, 30, 40]);
            Ok(())
        })?;
        assert_eq!(host.to_vec(), [0, 0, 10, 20, 30, 40, 0, 0]);
        drop((src, host));
        stream.destroy()?;
        ctx.destroy()?;
        device.reset()?;
    }
    acl.finalize()?;
    assert_clean();
    Ok(())
}

// ------------------------------------------ found by the outside review (round 2)

/// A host function stuck in its callback when `sim::reset()` runs is
/// detached by the simulator after its teardown wait (5 s by default, 500 ms
/// here); the scope that queued it must still not return (and end its
/// borrows) before it has finished.
#[test]
fn scope_waits_for_a_host_function_the_runtime_detached() -> aclrt::Result<()> {
    let _sim = take(host_config());
    sim::set_teardown_wait(Duration::from_millis(500));
    let acl = Acl::init()?;
    let device = acl.require::<HostMode>()?.device(0)?;
    make_guard!(g);
    let ctx = device.create_context(g)?;
    let stream = ctx.create_stream()?;
    let finished = AtomicBool::new(false);
    let detached = std::cell::Cell::new(false);
    let result = ctx.scope(|s| {
        make_guard!(l);
        let lane = s.lane(&stream, l);
        let finished = &finished;
        lane.host_fn(move || {
            std::thread::sleep(Duration::from_millis(1500));
            finished.store(true, Ordering::SeqCst);
        })?;
        std::thread::sleep(Duration::from_millis(100));
        sim::reset(); // waits 500 ms for the callback, then detaches it
        detached.set(!finished.load(Ordering::SeqCst));
        Ok(())
    });
    assert!(
        detached.get(),
        "the reset waited for the host function instead of detaching it"
    );
    assert!(
        finished.load(Ordering::SeqCst),
        "the scope returned while its host function was still running"
    );
    assert!(result.is_err(), "{result:?}");
    drop(stream);
    drop(ctx);
    drop(device);
    drop(acl);
    sim::reset();
    Ok(())
}

/// A scope that enlists a stream while another scope's escalation is
/// aborting it (after the group was computed) may have had its work
/// discarded: it is told, never handed zeros as a result.
#[test]
fn scope_enlisting_a_stream_during_an_abort_is_told() -> aclrt::Result<()> {
    let _sim = take(host_config());
    let acl = Acl::init()?;
    {
        let device = acl.require::<HostMode>()?.device(0)?;
        make_guard!(g);
        let ctx = device.create_context(g)?;
        let (s1, s2) = (ctx.create_stream()?, ctx.create_stream()?);
        sim::set_stream_delay(s2.as_raw(), Duration::from_millis(1000));
        let mut out = ctx.alloc_host_zeroed::<u8>(4)?;
        let (a, d) = std::thread::scope(|t| {
            let (ctx, s1, s2) = (&ctx, &s1, &s2);
            let a = t.spawn(move || {
                ctx.scope_with_timeout(Duration::from_millis(50), |s| {
                    make_guard!(l1);
                    let lane1 = s.lane(s1, l1);
                    make_guard!(l2);
                    let _lane2 = s.lane(s2, l2);
                    lane1.host_fn(|| std::thread::sleep(Duration::from_millis(800)))?;
                    Ok(())
                })
            });
            let out = &mut out;
            let d = t.spawn(move || {
                std::thread::sleep(Duration::from_millis(250));
                ctx.scope(|s| {
                    make_guard!(l);
                    let lane = s.lane(s2, l);
                    let x = lane.memset(out, 0xAB)?;
                    std::thread::sleep(Duration::from_millis(1000));
                    Ok(x.wait()?.to_vec())
                })
            });
            (a.join().unwrap(), d.join().unwrap())
        });
        assert!(matches!(a, Err(Error::ScopeTimeout { .. })), "{a:?}");
        match d {
            Ok(v) => assert_eq!(v, vec![0xAB; 4], "handed a result that was never computed"),
            Err(e) => assert_eq!(e.kind(), ErrorKind::Aborted, "{e:?}"),
        }
        sim::clear_faults();
        drop(out);
        s2.destroy()?;
        s1.destroy()?;
        ctx.destroy()?;
        device.reset()?;
    }
    acl.finalize()?;
    assert_clean();
    Ok(())
}

/// An escalation records a scope's user events again so that later waits do
/// not hang, but never over a later record made by a scope it did not abort.
#[test]
fn escalation_does_not_clobber_a_later_record() -> aclrt::Result<()> {
    let _sim = take(host_config());
    let acl = Acl::init()?;
    {
        let device = acl.require::<HostMode>()?.device(0)?;
        make_guard!(g);
        let ctx = device.create_context(g)?;
        let (s1, s3) = (ctx.create_stream()?, ctx.create_stream()?);
        sim::set_stream_delay(s3.as_raw(), Duration::from_millis(1500));
        let mut buf = ctx.alloc::<u8>(64)?;
        let ev = ctx.create_event_of::<aclrt::SyncOnly>()?;
        let (tx, rx) = std::sync::mpsc::channel();
        let (ready_tx, ready_rx) = std::sync::mpsc::channel::<()>();
        let (a, c) = std::thread::scope(|t| {
            let (ctx, s1, s3) = (&ctx, &s1, &s3);
            let a = t.spawn(move || {
                ctx.scope_with_timeout(Duration::from_millis(100), |s| {
                    make_guard!(l);
                    let lane = s.lane(s1, l);
                    lane.host_fn(|| std::thread::sleep(Duration::from_millis(400)))?;
                    let ev = lane.record(ev)?;
                    tx.send(ev).unwrap();
                    // Escalate only once the other scope has recorded it again.
                    ready_rx.recv().unwrap();
                    Ok(())
                })
            });
            let buf = &mut buf;
            let c = t.spawn(move || {
                let ev = rx.recv().unwrap();
                ctx.scope(|s| {
                    make_guard!(l);
                    let lane = s.lane(s3, l);
                    let _x = lane.memset(buf, 1)?;
                    let ev = lane.record(ev)?;
                    ready_tx.send(()).unwrap();
                    std::thread::sleep(Duration::from_millis(700));
                    // The memset is still queued behind the delay, so the
                    // event recorded after it cannot be complete.
                    let early = ev.is_complete()?;
                    let lane_done = lane.is_complete()?;
                    Ok((early, lane_done, ev))
                })
            });
            (a.join().unwrap(), c.join().unwrap())
        });
        assert!(matches!(a, Err(Error::ScopeTimeout { .. })), "{a:?}");
        let (early, lane_done, ev) = c?;
        assert!(!lane_done);
        assert!(
            !early,
            "an escalation recorded the event over a later record"
        );
        ev.synchronize()?;
        sim::clear_faults();
        drop(ev);
        drop(buf);
        s3.destroy()?;
        s1.destroy()?;
        ctx.destroy()?;
        device.reset()?;
    }
    acl.finalize()?;
    assert_clean();
    Ok(())
}

/// Peer-access counts outlive a `sim::reset()` of the runtime under the same
/// `Acl`; a new token still enables the access it proves.
#[test]
fn peer_token_after_a_sim_reset_still_proves_access() -> aclrt::Result<()> {
    let _sim = take(host_config());
    let acl = Acl::init()?;
    let rt = acl.require::<HostMode>()?;
    {
        let (d0, d1) = (rt.device(0)?, rt.device(1)?);
        std::mem::forget(d0.enable_peer_access(&d1)?);
        sim::reset();
        drop((d0, d1));
    }
    let (e0, e1) = (rt.device(0)?, rt.device(1)?);
    make_guard!(g0);
    let c0 = e0.create_context(g0)?;
    make_guard!(g1);
    let c1 = e1.create_context(g1)?;
    let src = c0.alloc_from(&[3u8; 16])?;
    let mut dst = c1.alloc_zeroed::<u8>(16)?;
    let token = e0.enable_peer_access(&e1)?;
    c0.copy_to_peer(&token, &c1, &src, &mut dst)?;
    let mut back = vec![0u8; 16];
    c1.copy(&dst, &mut back)?;
    assert_eq!(back, vec![3u8; 16]);
    assert!(sim::audit().violations.is_empty(), "{:#?}", sim::audit());
    drop((token, src, dst));
    drop((c0, c1));
    drop((e0, e1));
    drop(acl);
    sim::reset();
    Ok(())
}
