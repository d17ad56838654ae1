//! Attacks of an outside review on the newest surface (scopes, views,
//! kernels, registration, managed memory, forced release, reporters):
//! each test states the misuse and asserts the behaviour the design
//! promises (a clear error, data intact, a clean audit).

use crate::common;

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU32, Ordering};
use std::time::Duration;

use aclrt::sim;
use aclrt::{Acl, Error, HostMode, PageAlignedBuf, Reporter, Result, make_guard};
use common::*;

/// Subscribing a stream to a reporter while a scope's host function is
/// still queued on it would mix `aclrtLaunchHostFunc` and
/// `aclrtLaunchCallback` on one stream (acl-facts 5.8): refused like the
/// same mix with `Stream::launch_host_fn`.
#[test]
fn subscribe_while_a_scope_host_fn_is_pending_is_refused() -> Result<()> {
    in_host_context(|ctx| {
        let stream = ctx.create_stream()?;
        let reporter = Reporter::spawn()?;
        let ran = AtomicU32::new(0);
        sim::set_stream_delay(stream.as_raw(), Duration::from_millis(20));
        let subscribed = ctx.scope(|s| {
            make_guard!(gl);
            let lane = s.lane(&stream, gl);
            let mut dev = ctx.alloc::<u8>(64)?;
            let _ = &mut dev;
            lane.host_fn(|| {
                ran.fetch_add(1, Ordering::SeqCst);
            })?;
            Ok(reporter.subscribe(&stream).map(drop))
        })?;
        assert!(
            matches!(subscribed, Err(Error::CallbackMix { .. })),
            "{subscribed:?}"
        );
        assert_eq!(ran.load(Ordering::SeqCst), 1);
        // Once the scope has ended (its host functions settled), it is still
        // refused: the stream had a host function (107011 on hardware).
        assert!(matches!(
            reporter.subscribe(&stream),
            Err(Error::CallbackMix { .. })
        ));
        let stream = ctx.create_stream()?;
        let sub = reporter.subscribe(&stream)?;
        sub.launch_blocking(|| {})?;
        stream.synchronize()?;
        sub.unsubscribe()?;
        reporter.stop()?;
        drop(stream);
        Ok(())
    })
}

/// Registering memory that is registered already through an outer
/// registration (a reborrow) is refused (507910); registering managed
/// memory (`ManagedBuffer::as_mut_slice` lends it as a plain `&mut [T]`) is
/// refused before the runtime sees it (107016), not a rule violation; pinned
/// memory of the runtime may be registered. The outer registration stays
/// usable throughout.
#[test]
fn registering_registered_or_managed_memory_is_refused() -> Result<()> {
    in_host_context(|ctx| {
        let mut pages = PageAlignedBuf::<u32>::from_slice(&pattern_u32(2048, 3))?;
        {
            let mut outer = ctx.register_host(&mut pages[..])?;
            let inner = ctx.register_host(outer.as_mut_slice()).map(drop);
            assert_eq!(
                inner.unwrap_err().code(),
                Some(aclrt::sys::ACL_ERROR_HOST_MEMORY_ALREADY_REGISTERED)
            );
            assert_eq!(outer.as_slice(), &pattern_u32(2048, 3)[..]);
            outer.unregister()?;
        }
        // Pinned memory of the runtime (a page inside an aclrtMallocHost block).
        let mut host = ctx.alloc_host_zeroed::<u8>(3 * 4096)?;
        let skip = (4096 - host.as_ptr() as usize % 4096) % 4096;
        ctx.register_host(&mut host.as_mut_slice()[skip..skip + 4096])?
            .unregister()?;
        // Managed memory: a whole page and a single byte of it.
        let mut managed = ctx.alloc_managed::<u8>(3 * 4096)?;
        let skip = (4096 - managed.as_ptr() as usize % 4096) % 4096;
        for range in [skip..skip + 4096, skip + 4096..skip + 4097] {
            let r = ctx
                .register_host(&mut managed.as_mut_slice()[range])
                .map(drop);
            assert_eq!(
                r.unwrap_err().code(),
                Some(aclrt::sys::ACL_ERROR_RT_INVALID_MEMORY_TYPE)
            );
        }
        // Freed managed memory is no longer remembered.
        managed.free()?;
        drop(host);
        Ok(())
    })
}

/// Empty views (the tail of `split_at(len)`, a split at 0) as operands of
/// asynchronous copies, memsets and host steps: nothing is touched, nothing
/// is violated, the other half is intact.
#[test]
fn empty_views_as_async_operands() -> Result<()> {
    in_host_context(|ctx| {
        let stream = ctx.create_stream()?;
        let data = pattern_u32(64, 9);
        let input = ctx.alloc_host_from(&data)?;
        let mut dev = ctx.alloc_from(&data)?;
        let mut out = ctx.alloc_host_zeroed::<u32>(64)?;
        ctx.scope(|s| {
            make_guard!(gl);
            let lane = s.lane(&stream, gl);
            let (empty_front, all) = dev.split_at_mut(0)?;
            let (all2, empty_back) = all.split_at_mut(64)?;
            assert_eq!(
                (empty_front.len(), all2.len(), empty_back.len()),
                (0, 64, 0)
            );
            let (_, in_empty) = input.split_at(64);
            let (_, out_empty) = out.split_at_mut(64);
            let e = lane.memset(empty_back, 0xff)?;
            let e = lane.copy(in_empty, e)?;
            let _ = lane.copy(&e, out_empty)?;
            let _ = lane.memset(empty_front, 0xff)?;
            lane.copy(&input, all2)?.wait()?;
            Ok(())
        })?;
        assert_eq!(out.to_vec(), vec![0; 64]);
        ctx.copy(&dev, &mut out)?;
        assert_eq!(out.to_vec(), data);
        // Chunks and splits out of range are errors.
        assert!(matches!(dev.chunks(0), Err(Error::ZeroChunkSize)));
        assert!(matches!(dev.chunks_mut(0), Err(Error::ZeroChunkSize)));
        assert!(matches!(dev.split_at(65), Err(Error::OutOfRange { .. })));
        assert!(matches!(
            dev.split_at_mut(usize::MAX),
            Err(Error::OutOfRange { .. })
        ));
        assert!(matches!(
            dev.view(60..=usize::MAX),
            Err(Error::OutOfRange { .. })
        ));
        assert_eq!(dev.chunks(64 * 1024)?.count(), 1);
        assert_eq!(dev.chunks(usize::MAX)?.map(|c| c.len()).sum::<usize>(), 64);
        drop((input, dev, out, stream));
        Ok(())
    })
}

/// `rv_fill`: x[i] = i as f32 for i < n, block k of nb doing i ≡ k (mod nb).
/// `rv_panic`: panics (a bug in a kernel registered in the simulator).
fn register_review_kernels() {
    sim::register_kernel("rv_fill", |block, nb, args| {
        let (x, n) = (args.u64(0)?, args.u64(1)?);
        let mut i = block as usize;
        while i < n as usize {
            args.write_f32(x, i, i as f32)?;
            i += nb as usize;
        }
        Ok(())
    });
    sim::register_kernel("rv_panic", |_, _, _| panic!("rv_panic: a kernel bug"));
}

/// Launch configurations at the edges (0 blocks, u32::MAX blocks, huge
/// attributes) are refused with an error or run; they never hang, and a
/// kernel that panics in the simulator surfaces as an error of the scope.
#[test]
fn kernel_launch_edges_and_a_panicking_kernel() -> Result<()> {
    use aclrt::kernel::{Count, LaunchConfig, Out};
    let _sim = take(host_config());
    register_review_kernels();
    let acl = Acl::init()?;
    let device = acl.require::<HostMode>()?.device(0)?;
    make_guard!(g);
    let ctx = device.create_context(g)?;
    let stream = ctx.create_stream()?;
    let binary = ctx.load_binary(&sim::binary_image(&["rv_fill", "rv_panic"]))?;
    // SAFETY: rv_fill writes x below n and reads nothing.
    let fill = unsafe { binary.kernel::<(Out<f32>, Count)>(c"rv_fill")? };
    // SAFETY: rv_panic touches no memory.
    let bad = unsafe { binary.kernel::<(Out<f32>, Count)>(c"rv_panic")? };
    let mut x = ctx.alloc_zeroed::<f32>(16)?;
    let zero = ctx.scope(|s| {
        make_guard!(l);
        let lane = s.lane(&stream, l);
        let _ = lane.launch(&fill, 0, (&mut x, 16))?;
        Ok(())
    });
    assert_eq!(zero.unwrap_err().code(), Some(100_000));
    for config in [
        LaunchConfig::blocks(1).block_offset(u32::MAX),
        LaunchConfig::blocks(1).dyn_ubuf_size(u32::MAX),
        LaunchConfig::blocks(2).timeout(Duration::MAX),
    ] {
        let r = ctx.scope(|s| {
            make_guard!(l);
            let lane = s.lane(&stream, l);
            let _ = lane.launch(&fill, config, (&mut x, 16))?;
            Ok(())
        });
        // Accepted or refused by the runtime, never a panic or a hang.
        assert!(
            matches!(r, Ok(()) | Err(Error::Acl { .. })),
            "{config:?}: {r:?}"
        );
    }
    // A launch of u32::MAX blocks runs for a long time on the simulator
    // (one call per block): a deadline stops it.
    let r = ctx.scope_with_timeout(Duration::from_millis(200), |s| {
        make_guard!(l);
        let lane = s.lane(&stream, l);
        let _ = lane.launch(&fill, u32::MAX, (&mut x, 16))?;
        Ok(())
    });
    assert!(matches!(r, Err(Error::ScopeTimeout { .. })), "{r:?}");
    let r = ctx.scope(|s| {
        make_guard!(l);
        let lane = s.lane(&stream, l);
        let (x, _) = lane.launch(&bad, 1, (&mut x, 16))?;
        x.wait()?;
        Ok(())
    });
    assert!(r.is_err(), "a panicking kernel is an error: {r:?}");
    // The lane is usable afterwards.
    ctx.scope(|s| {
        make_guard!(l);
        let lane = s.lane(&stream, l);
        let _ = lane.launch(&fill, 3, (&mut x, 16))?;
        Ok(())
    })?;
    let mut back = [0f32; 16];
    ctx.download(&x, &mut back)?;
    assert_eq!(back, core::array::from_fn(|i| i as f32));
    drop(x);
    binary.unload()?;
    drop(stream);
    drop(ctx);
    device.reset()?;
    acl.finalize()?;
    let audit = sim::audit();
    assert!(audit.leaks.is_empty(), "{audit:?}");
    assert_eq!(
        violation_kinds(&audit),
        [sim::ViolationKind::CallbackPanicked; 1],
        "only the panicking kernel's: {audit:?}"
    );
    Ok(())
}

/// A host function of a scope re-enters the API: a static host function on
/// its own stream, an allocation, a synchronous copy, and (refused) a
/// synchronisation of its own stream; one panics. The scope ends, the
/// panic comes back on the scope's thread, nothing leaks.
#[test]
fn host_fn_reenters_the_api() -> Result<()> {
    in_host_context(|ctx| {
        let stream = ctx.create_stream()?;
        let seen = Arc::new(AtomicU32::new(0));
        let refused = AtomicU32::new(0);
        let r = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            ctx.scope(|s| {
                make_guard!(l);
                let lane = s.lane(&stream, l);
                let (stream, ctx, seen, refused) = (&stream, &ctx, &seen, &refused);
                lane.host_fn(move || {
                    let seen2 = Arc::clone(seen);
                    stream
                        .launch_host_fn(move || {
                            seen2.fetch_add(10, Ordering::SeqCst);
                        })
                        .unwrap();
                    let buf = ctx.alloc_from(&[1u32, 2, 3]).unwrap();
                    let mut back = [0u32; 3];
                    ctx.download(&buf, &mut back).unwrap();
                    assert_eq!(back, [1, 2, 3]);
                    if matches!(stream.synchronize(), Err(Error::InCallback { .. })) {
                        refused.fetch_add(1, Ordering::SeqCst);
                    }
                    seen.fetch_add(1, Ordering::SeqCst);
                })?;
                lane.host_fn(|| panic!("host function bug"))?;
                Ok(())
            })
        }));
        let payload = r.expect_err("the host function's panic is resumed");
        assert_eq!(panic_message(&*payload), "host function bug");
        stream.synchronize()?;
        assert_eq!(seen.load(Ordering::SeqCst), 11);
        assert_eq!(refused.load(Ordering::SeqCst), 1);
        drop(stream);
        Ok(())
    })
}

/// A stream made and kept inside the scope is enlisted as a lane and takes
/// a buffer over from another lane (`signal`/`wait_for`); the scope
/// synchronises it before it destroys it (kept values go last), and a
/// nested scope then uses the buffer given back by `wait`.
#[test]
fn kept_stream_as_lane_then_a_nested_scope() -> Result<()> {
    in_host_context(|ctx| {
        let outer_stream = ctx.create_stream()?;
        let data = pattern_u32(4096, 1);
        let input = ctx.alloc_host_from(&data)?;
        let mut dev = ctx.alloc::<u32>(4096)?;
        let mut out = ctx.alloc_host_zeroed::<u32>(4096)?;
        let mut out2 = ctx.alloc_host_zeroed::<u32>(4096)?;
        sim::set_stream_delay(outer_stream.as_raw(), Duration::from_millis(5));
        ctx.scope(|s| {
            make_guard!(ga);
            let la = s.lane(&outer_stream, ga);
            let signal = la.signal(la.copy(&input, &mut dev)?)?;
            let kept = s.keep(ctx.create_stream()?);
            make_guard!(gb);
            let lb = s.lane(kept, gb);
            let d = lb.wait_for(signal)?;
            let _ = lb.copy(&d, &mut out)?;
            let d = d.wait()?;
            ctx.scope(|inner| {
                make_guard!(gc);
                let lc = inner.lane(&outer_stream, gc);
                lc.copy(&*d, &mut out2)?.wait()?;
                Ok(())
            })?;
            Ok(())
        })?;
        assert_eq!(out.to_vec(), data);
        assert_eq!(out2.to_vec(), data);
        drop((input, dev, out, out2, outer_stream));
        Ok(())
    })
}

/// Forced releases around leaks: a forgotten subscription does not keep a
/// force-destroyed stream subscribed (the reporter stops cleanly), and a
/// forgotten `Device` handle makes `reset_force` of another handle of the
/// same device refuse instead of pulling the device from under it.
// Forgetting is the attack.
#[allow(clippy::mem_forget)]
#[test]
fn forced_releases_after_forgotten_handles() -> Result<()> {
    let _sim = take(host_config());
    let acl = Acl::init()?;
    let rt = acl.require::<HostMode>()?;
    let device = rt.device(0)?;
    {
        make_guard!(g);
        let ctx = device.create_context(g)?;
        let reporter = Reporter::spawn()?;
        let stream = ctx.create_stream()?;
        let ran = Arc::new(AtomicU32::new(0));
        let sub = reporter.subscribe(&stream)?;
        let r = Arc::clone(&ran);
        sub.launch_blocking(move || {
            r.fetch_add(1, Ordering::SeqCst);
        })?;
        stream.synchronize()?;
        std::mem::forget(sub);
        stream.destroy_force()?;
        reporter.stop()?;
        assert_eq!(ran.load(Ordering::SeqCst), 1);
        // The context is clean: a stream can be made and destroyed again.
        ctx.create_stream()?.destroy()?;
        ctx.destroy()?;
    }
    let second = rt.device(0)?;
    std::mem::forget(second);
    let r = device.reset_force();
    assert!(matches!(r, Err(Error::DeviceInUse { .. })), "{r:?}");
    Ok(())
}

/// A kernel registered in the simulator is user code running on a stream
/// worker: calling the simulator's control API from it (reading the audit
/// and the configuration, registering another kernel, injecting a fault)
/// works, and `reset`/`exclusive`, which would tear the runtime down under
/// its own running task, panic; the panic is the kernel's fault, reported
/// at the scope. Nothing deadlocks.
#[test]
fn kernel_body_calls_the_simulator_control_api() -> Result<()> {
    use aclrt::kernel::{Count, Out};
    let _sim = take(host_config());
    sim::register_kernel("rv_control", |_, _, args| {
        let _ = sim::audit();
        let _ = sim::config();
        let _ = sim::call_counts();
        sim::register_kernel("rv_other", |_, _, _| Ok(()));
        sim::inject_fault("aclrtGetDeviceCount", 1_000_000, 1);
        sim::clear_faults();
        let x = args.u64(0)?;
        args.write_f32(x, 0, 42.0)
    });
    sim::register_kernel("rv_reset", |_, _, _| {
        sim::reset();
        Ok(())
    });
    sim::register_kernel("rv_exclusive", |_, _, _| {
        drop(sim::exclusive());
        Ok(())
    });
    let acl = Acl::init()?;
    let device = acl.require::<HostMode>()?.device(0)?;
    make_guard!(g);
    let ctx = device.create_context(g)?;
    let stream = ctx.create_stream()?;
    let binary = ctx.load_binary(&sim::binary_image(&[
        "rv_control",
        "rv_reset",
        "rv_exclusive",
    ]))?;
    // SAFETY: each writes at most x[0] and reads nothing.
    let control = unsafe { binary.kernel::<(Out<f32>, Count)>(c"rv_control")? };
    // SAFETY: as above.
    let reset = unsafe { binary.kernel::<(Out<f32>, Count)>(c"rv_reset")? };
    // SAFETY: as above.
    let exclusive = unsafe { binary.kernel::<(Out<f32>, Count)>(c"rv_exclusive")? };
    let mut x = ctx.alloc_zeroed::<f32>(4)?;
    ctx.scope(|s| {
        make_guard!(l);
        let lane = s.lane(&stream, l);
        let _ = lane.launch(&control, 2, (&mut x, 4))?;
        Ok(())
    })?;
    let mut back = [0f32; 4];
    ctx.download(&x, &mut back)?;
    assert_eq!(back, [42.0, 0.0, 0.0, 0.0]);
    for k in [&reset, &exclusive] {
        let r = ctx.scope(|s| {
            make_guard!(l);
            let lane = s.lane(&stream, l);
            let _ = lane.launch(k, 1, (&mut x, 4))?;
            Ok(())
        });
        assert!(r.is_err(), "{r:?}");
    }
    // The runtime is intact: the same buffer round-trips.
    ctx.upload(&[1.0f32, 2.0, 3.0, 4.0][..], &mut x)?;
    ctx.download(&x, &mut back)?;
    assert_eq!(back, [1.0, 2.0, 3.0, 4.0]);
    drop(x);
    binary.unload()?;
    drop(stream);
    drop(ctx);
    device.reset()?;
    acl.finalize()?;
    let audit = sim::audit();
    assert!(audit.leaks.is_empty(), "{audit:?}");
    assert_eq!(
        violation_kinds(&audit),
        [sim::ViolationKind::CallbackPanicked; 2],
        "only the two kernels' panics: {audit:?}"
    );
    Ok(())
}

/// Managed memory lent as a plain slice (`ManagedBuffer::as_slice`) is a
/// pageable-looking operand of the synchronous copies: the runtime accepts
/// it, the data round-trips, no rule is violated.
#[test]
fn managed_memory_as_a_slice_in_synchronous_copies() -> Result<()> {
    in_host_context(|ctx| {
        let mut managed = ctx.alloc_managed::<u32>(256)?;
        managed.as_mut_slice().copy_from_slice(&pattern_u32(256, 4));
        let mut dev = ctx.alloc::<u32>(256)?;
        ctx.upload(managed.as_slice(), &mut dev)?;
        let mut host = ctx.alloc_host_zeroed::<u32>(256)?;
        ctx.copy(managed.as_slice(), &mut host)?;
        assert_eq!(host.to_vec(), pattern_u32(256, 4));
        managed.as_mut_slice().fill(0);
        ctx.download(&dev, managed.as_mut_slice())?;
        assert_eq!(managed.as_slice(), &pattern_u32(256, 4)[..]);
        drop((dev, host, managed));
        Ok(())
    })
}

/// An event recorded outside any scope (`Stream::record`) on stream `x`,
/// waited for inside scope S2 by a lane on another stream, while a third
/// scope with a deadline that also uses `x` times out: its escalation
/// aborts `x` and so discards the record. A stream wait for a discarded
/// record never completes (acl-facts K.8: dependent streams must be
/// aborted too), so S2 must be reached by the escalation and learn of it
/// (`Error::WorkAborted`) instead of waiting for ever; and a wait issued
/// after the escalation, for the discarded record, is refused the same
/// way instead of queueing a wait that can never end.
///
/// `x` is held by a wait for an event on a third stream `w`, itself held by
/// a host function at a gate: the abort cuts that wait short. S2's deadline
/// is only a hang guard.
#[test]
fn escalation_reaches_a_scope_waiting_for_an_unscoped_record() -> Result<()> {
    let _sim = take(host_config());
    let acl = Acl::init()?;
    let device = acl.require::<HostMode>()?.device(0)?;
    make_guard!(g);
    let ctx = device.create_context(g)?;
    let (w, x, y) = (
        ctx.create_stream()?,
        ctx.create_stream()?,
        ctx.create_stream()?,
    );
    let gate = HeldGate::new();
    w.launch_host_fn(gate.body())?;
    let held = w.record(ctx.create_event_of::<aclrt::SyncOnly>()?)?;
    x.wait_event(&held)?;
    // Queued behind the held wait: not executed until the gate opens.
    let ev = x.record(ctx.create_event_of::<aclrt::SyncOnly>()?)?;
    let (waited_tx, waited_rx) = std::sync::mpsc::channel();
    let (s2, s3) = std::thread::scope(|t| {
        let (ctx, ev, y) = (&ctx, &ev, &y);
        let s2 = t.spawn(move || {
            ctx.scope_with_timeout(HANG_GUARD, |s| {
                make_guard!(l);
                let lane = s.lane(y, l);
                lane.wait_event(ev)?;
                waited_tx.send(()).unwrap();
                Ok(())
            })
        });
        waited_rx.recv().unwrap();
        // The deadline passes (x is held at the gate): x is aborted.
        let s3 = ctx.scope_with_timeout(Duration::from_millis(10), |s| {
            make_guard!(l);
            let lane = s.lane(&x, l);
            lane.host_fn(|| {})?;
            Ok(())
        });
        (s2.join().unwrap(), s3)
    });
    assert!(matches!(s3, Err(Error::ScopeTimeout { .. })), "{s3:?}");
    assert!(matches!(s2, Err(Error::WorkAborted)), "{s2:?}");
    assert!(
        gate.entered() && !gate.left(),
        "w is still held: the record was discarded"
    );
    // A later wait for the discarded record is refused, not queued.
    let late = ctx.scope_with_timeout(HANG_GUARD, |s| {
        make_guard!(l);
        let lane = s.lane(&y, l);
        lane.wait_event(&ev)
    });
    assert!(matches!(late, Err(Error::WorkAborted)), "{late:?}");
    // So is one outside any scope.
    let r = y.wait_event(&ev);
    assert!(matches!(r, Err(Error::WorkAborted)), "{r:?}");
    gate.open();
    w.synchronize()?;
    assert!(gate.passed());
    drop((held, ev));
    x.synchronize()?;
    y.synchronize()?;
    drop((w, x, y));
    drop(ctx);
    device.reset()?;
    acl.finalize()?;
    sim::clear_faults();
    assert_clean();
    Ok(())
}

/// A wait outside any scope (`Stream::wait_event` on `y`), queued *before*
/// a timed scope's escalation discards the record it waits for (on `x`,
/// held behind a gate on `w`): the escalation aborts `y` too, so `y`'s
/// synchronisation returns (`WorkAborted`, once) instead of hanging, and
/// the stream works afterwards. Before, `y.synchronize()` never returned.
#[test]
fn escalation_reaches_an_outside_wait_queued_before_it() -> Result<()> {
    let _sim = take(host_config());
    let acl = Acl::init()?;
    let device = acl.require::<HostMode>()?.device(0)?;
    make_guard!(g);
    let ctx = device.create_context(g)?;
    let (w, x, y) = (
        ctx.create_stream()?,
        ctx.create_stream()?,
        ctx.create_stream()?,
    );
    let gate = HeldGate::new();
    w.launch_host_fn(gate.body())?;
    let held = w.record(ctx.create_event_of::<aclrt::SyncOnly>()?)?;
    x.wait_event(&held)?;
    // Queued behind the held wait: not executed until the gate opens.
    let ev = x.record(ctx.create_event_of::<aclrt::SyncOnly>()?)?;
    // The outside wait, and a host function behind it on y.
    y.wait_event(&ev)?;
    let ran = Arc::new(AtomicBool::new(false));
    let r = Arc::clone(&ran);
    y.launch_host_fn(move || r.store(true, Ordering::SeqCst))?;
    assert!(!y.is_complete()?, "y waits for the record on x");
    // The deadline passes (x is held at the gate): x is aborted, and so is y.
    let s3 = ctx.scope_with_timeout(Duration::from_millis(10), |s| {
        make_guard!(l);
        let lane = s.lane(&x, l);
        lane.host_fn(|| {})?;
        Ok(())
    });
    assert!(matches!(s3, Err(Error::ScopeTimeout { .. })), "{s3:?}");
    // Returns (it hung for ever before), reporting the abort once.
    let r = y.synchronize();
    assert!(matches!(r, Err(Error::WorkAborted)), "{r:?}");
    assert!(!ran.load(Ordering::SeqCst), "y's work was discarded");
    assert!(gate.entered() && !gate.left(), "w is still held");
    y.synchronize()?;
    // y works afterwards.
    let again = Arc::new(AtomicBool::new(false));
    let a = Arc::clone(&again);
    y.launch_host_fn(move || a.store(true, Ordering::SeqCst))?;
    y.synchronize()?;
    assert!(again.load(Ordering::SeqCst));
    gate.open();
    w.synchronize()?;
    assert!(gate.passed());
    drop((held, ev));
    x.synchronize()?;
    drop((w, x, y));
    drop(ctx);
    device.reset()?;
    acl.finalize()?;
    sim::clear_faults();
    assert_clean();
    Ok(())
}

/// As above, but the event is recorded again (on an idle stream `v`) after
/// `y`'s wait was queued: the escalation must go by the record the wait is
/// for (on `x`, discarded), not by the event's latest record (on `v`).
#[test]
fn escalation_goes_by_the_record_an_outside_wait_is_for() -> Result<()> {
    let _sim = take(host_config());
    let acl = Acl::init()?;
    let device = acl.require::<HostMode>()?.device(0)?;
    make_guard!(g);
    let ctx = device.create_context(g)?;
    let (w, x, y, v) = (
        ctx.create_stream()?,
        ctx.create_stream()?,
        ctx.create_stream()?,
        ctx.create_stream()?,
    );
    // A first outside wait (for a record that has run) turns record
    // tracking on: the records below are tracked with their streams.
    let warm = v.record(ctx.create_event_of::<aclrt::SyncOnly>()?)?;
    v.synchronize()?;
    y.wait_event(&warm)?;
    let gate = HeldGate::new();
    w.launch_host_fn(gate.body())?;
    let held = w.record(ctx.create_event_of::<aclrt::SyncOnly>()?)?;
    x.wait_event(&held)?;
    let ev = x.record(ctx.create_event_of::<aclrt::SyncOnly>()?)?;
    let z = ctx.create_stream()?;
    z.wait_event(&ev)?;
    // Recorded again on v (idle): the latest record now runs at once.
    let ev = v.record(ev)?;
    v.synchronize()?;
    let s3 = ctx.scope_with_timeout(Duration::from_millis(10), |s| {
        make_guard!(l);
        let lane = s.lane(&x, l);
        lane.host_fn(|| {})?;
        Ok(())
    });
    assert!(matches!(s3, Err(Error::ScopeTimeout { .. })), "{s3:?}");
    // z waited for the discarded record on x: aborted, reported, not hung.
    let r = z.synchronize();
    assert!(matches!(r, Err(Error::WorkAborted)), "{r:?}");
    z.synchronize()?;
    gate.open();
    w.synchronize()?;
    y.synchronize()?;
    x.synchronize()?;
    drop((held, ev, warm));
    drop((w, x, y, v, z));
    drop(ctx);
    device.reset()?;
    acl.finalize()?;
    sim::clear_faults();
    assert_clean();
    Ok(())
}

/// The same with records the crate tracks: a timed scope S3 records a user
/// event on its held stream `x` and hands it to S2, whose lane on `y` waits
/// for it; S3's escalation discards that record (and records the event
/// again afterwards, for later waits), so S2 is aborted with it. A scope
/// waiting for a record on a stream no escalation touches is left alone.
#[test]
fn escalation_reaches_a_scope_waiting_for_its_record_and_no_other() -> Result<()> {
    let _sim = take(host_config());
    let acl = Acl::init()?;
    let device = acl.require::<HostMode>()?.device(0)?;
    make_guard!(g);
    let ctx = device.create_context(g)?;
    let (w, x, y) = (
        ctx.create_stream()?,
        ctx.create_stream()?,
        ctx.create_stream()?,
    );
    let (z, v) = (ctx.create_stream()?, ctx.create_stream()?);
    let (gate, other_gate) = (HeldGate::new(), HeldGate::new());
    w.launch_host_fn(gate.body())?;
    let held = w.record(ctx.create_event_of::<aclrt::SyncOnly>()?)?;
    x.wait_event(&held)?;
    z.launch_host_fn(other_gate.body())?;
    let ev = ctx.create_event_of::<aclrt::SyncOnly>()?;
    let (ev_tx, ev_rx) = std::sync::mpsc::channel();
    let (waited_tx, waited_rx) = std::sync::mpsc::channel();
    let (go_tx, go_rx) = std::sync::mpsc::channel();
    let (s2, s3) = std::thread::scope(|t| -> Result<_> {
        let (ctx, x, y) = (&ctx, &x, &y);
        let s3 = t.spawn(move || {
            ctx.scope_with_timeout(Duration::from_millis(10), |s| {
                make_guard!(l);
                let lane = s.lane(x, l);
                ev_tx.send(lane.record(ev)?).unwrap();
                // Escalate only once S2 and S4 wait.
                go_rx.recv().unwrap();
                Ok(())
            })
        });
        let s2 = t.spawn(move || {
            ctx.scope_with_timeout(HANG_GUARD, |s| {
                make_guard!(l);
                let lane = s.lane(y, l);
                let ev = s.keep(ev_rx.recv().unwrap());
                lane.wait_event(ev)?;
                waited_tx.send(()).unwrap();
                Ok(())
            })
        });
        waited_rx.recv().unwrap();
        // Recorded outside any scope on z (held at the other gate), after
        // tracking began (S3's record): its stream is known.
        let other = z.record(ctx.create_event_of::<aclrt::SyncOnly>()?)?;
        let s3 = ctx.scope_with_timeout(HANG_GUARD, |s| {
            make_guard!(l);
            let lane = s.lane(&v, l);
            let other = s.keep(other);
            lane.wait_event(other)?;
            go_tx.send(()).unwrap();
            // S3 escalates meanwhile; then the other gate opens.
            let r3 = s3.join().unwrap();
            other_gate.open();
            Ok(r3)
        })?;
        Ok((s2.join().unwrap(), s3))
    })?;
    assert!(matches!(s3, Err(Error::ScopeTimeout { .. })), "{s3:?}");
    assert!(matches!(s2, Err(Error::WorkAborted)), "{s2:?}");
    assert!(
        other_gate.passed(),
        "S4 waited for its record and was not aborted"
    );
    assert!(gate.entered() && !gate.left());
    gate.open();
    w.synchronize()?;
    assert!(gate.passed());
    drop(held);
    for s in [&x, &y, &z, &v] {
        s.synchronize()?;
    }
    drop((w, x, y, z, v));
    drop(ctx);
    device.reset()?;
    acl.finalize()?;
    sim::clear_faults();
    assert_clean();
    Ok(())
}
