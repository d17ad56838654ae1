//! Through the safe API: host registration, managed memory,
//! stop-on-failure, the last error and the forced releases, in both run
//! modes where the rule is run-mode independent.

use crate::common;

use std::sync::atomic::{AtomicU32, Ordering};
use std::time::Duration;

use aclrt::sim::{self, ResourceKind, SimConfig};
use aclrt::{
    Acl, DeviceMode, Error, ErrorKind, HostMode, PageAlignedBuf, Result, RunMode, make_guard, sys,
};
use common::*;

fn both(mut f: impl FnMut(SimConfig) -> Result<()>) -> Result<()> {
    f(host_config())?;
    f(device_config())
}

fn detect_run<F>(acl: &Acl, f: F) -> Result<()>
where
    F: FnOnce(aclrt::Detected<'_>) -> Result<()>,
{
    f(acl.detect())
}

// ------------------------------------------------------------ registration

fn registration_round_trip<M: RunMode>(rt: aclrt::Runtime<'_, M>) -> Result<()> {
    let device = rt.device(0)?;
    make_guard!(g);
    let ctx = device.create_context(g)?;
    let stream = ctx.create_stream()?;
    let data = pattern_u32(4096, 7);
    let mut user = PageAlignedBuf::from_slice(&data)?;
    assert_eq!(user.as_ptr() as usize % 4096, 0);
    let mut on_device = ctx.alloc::<u32>(4096)?;
    {
        let mut reg = ctx.register_host(&mut user)?;
        assert_eq!(reg.len(), 4096);
        assert_eq!(live(&sim::audit(), ResourceKind::HostRegistration), 1);
        let alias = reg.device_alias();
        assert_eq!(alias.len(), 4096);
        assert_ne!(alias.as_raw() as usize, reg.as_slice().as_ptr() as usize);
        sim::set_stream_delay(stream.as_raw(), Duration::from_millis(40));
        // The stream is held until the copy call has returned.
        let gate = HeldGate::new();
        stream.launch_host_fn(gate.body())?;
        ctx.scope(|s| {
            make_guard!(l);
            let lane = s.lane(&stream, l);
            let _ = lane.copy(&reg, &mut on_device)?;
            gate.open();
            Ok(())
        })?;
        // Queued without waiting for the copy: truly async (a copy call
        // that waited would have waited for the gate, which would have
        // given up at the hang guard).
        assert!(gate.passed(), "the copy call waited for the copy");
        // Back into the registration, asynchronously.
        reg.as_mut_slice().fill(0);
        ctx.scope(|s| {
            make_guard!(l);
            let lane = s.lane(&stream, l);
            lane.copy(&on_device, &mut reg)?.wait()?;
            Ok(())
        })?;
        assert_eq!(reg.as_slice(), &data[..]);
        reg.as_mut_slice()[0] = 1;
        let given_back = reg.unregister()?;
        given_back[1] = 2;
    }
    assert_eq!(live(&sim::audit(), ResourceKind::HostRegistration), 0);
    assert_eq!((user[0], user[1]), (1, 2));
    drop(on_device);
    drop(stream);
    ctx.destroy()?;
    device.reset()
}

#[test]
fn registered_memory_is_an_async_operand_in_both_run_modes() -> Result<()> {
    both(|cfg| {
        let _sim = take(cfg);
        let acl = Acl::init()?;
        detect_run(&acl, |d| match d {
            aclrt::Detected::Host(rt) => registration_round_trip(rt),
            aclrt::Detected::Device(rt) => registration_round_trip(rt),
        })?;
        acl.finalize()?;
        assert_clean();
        Ok(())
    })
}

#[test]
fn registration_errors_are_clear() -> Result<()> {
    let _sim = take(host_config());
    let acl = Acl::init()?;
    let device = acl.require::<HostMode>()?.device(0)?;
    make_guard!(dg);
    let ctx = device.default_context(dg);
    let mut pages = PageAlignedBuf::<u8>::zeroed(3 * 4096)?;
    // Not page-aligned.
    let err = ctx.register_host(&mut pages[1..]).unwrap_err();
    assert_eq!(
        err,
        Error::NotPageAligned {
            address: pages.as_ptr() as usize + 1,
            offset: 1
        }
    );
    assert!(err.to_string().contains("PageAlignedBuf"));
    // Empty.
    let err = ctx.register_host(&mut pages[..0]).unwrap_err();
    assert!(matches!(err, Error::InvalidAllocationSize { len: 0, .. }));
    // Overlap with a live registration (split borrows of one buffer).
    let (a, b) = pages.split_at_mut(4096);
    let reg_b = ctx.register_host(&mut b[4096..])?;
    let reg_a = ctx.register_host(a)?;
    drop(reg_a);
    drop(reg_b);
    // The same pages again through raw C while a registration lives: 507910.
    let reg = ctx.register_host(&mut pages[..])?;
    let mut dev = std::ptr::null_mut();
    // SAFETY: a page-aligned live range; the simulator refuses the overlap
    // before touching anything.
    let code = unsafe {
        sys::aclrtHostRegister(
            reg.as_slice().as_ptr().cast_mut().cast(),
            4096,
            sys::ACL_HOST_REGISTER_MAPPED,
            &mut dev,
        )
    };
    assert_eq!(code, sys::ACL_ERROR_HOST_MEMORY_ALREADY_REGISTERED);
    assert_eq!(
        ErrorKind::from_code(code),
        ErrorKind::InvalidParam,
        "507910 is classified"
    );
    drop(reg);
    device.reset()?;
    acl.finalize()?;
    assert_clean();
    Ok(())
}

// Forgetting the registration is the point of the test.
#[allow(clippy::mem_forget)]
#[test]
fn a_forgotten_registration_is_a_leak_not_a_use_after_free() -> Result<()> {
    let _sim = take(host_config());
    let acl = Acl::init()?;
    let device = acl.require::<HostMode>()?.device(0)?;
    make_guard!(g);
    let ctx = device.create_context(g)?;
    let stream = ctx.create_stream()?;
    let mut d = ctx.alloc::<u8>(4096)?;
    let mut user = PageAlignedBuf::<u8>::zeroed(4096)?;
    user.fill(5);
    let reg = ctx.register_host(&mut user)?;
    ctx.scope(|s| {
        make_guard!(l);
        let lane = s.lane(&stream, l);
        let _ = lane.copy(&reg, &mut d)?;
        Ok(())
    })?;
    // The scope synchronised: nothing uses the memory any more.
    std::mem::forget(reg);
    // The memory is usable (and freeable) again; the runtime keeps a stale
    // registration entry, nothing touches the memory.
    user[0] = 6;
    let addr = user.as_ptr() as usize;
    // Made before `user` is freed: a later allocation could reuse the
    // stale registered range, and the runtime treats memory there as
    // registered (a copy straddling its edge is refused with 107000).
    let mut back = vec![0u8; 4096];
    drop(user);
    ctx.copy(&d, &mut back)?;
    assert!(back.iter().all(|&b| b == 5));
    drop(d);
    drop(stream);
    // The context cannot be destroyed while the runtime lists its
    // registration: a clean error, nothing released.
    // (The crate's book of live children refuses before the runtime is
    // asked: a leaked child keeps its parent alive.)
    let err = ctx.destroy().unwrap_err();
    assert!(
        matches!(
            err,
            Error::LiveChildren {
                function: "aclrtDestroyContext",
                live: 1
            }
        ),
        "{err:?}"
    );
    let audit = sim::audit();
    assert_eq!(live(&audit, ResourceKind::HostRegistration), 1);
    assert!(audit.violations.is_empty(), "{audit:?}");
    // A new registration of the same (now foreign) pages would be refused
    // with 507910, never silently aliased.
    let again = PageAlignedBuf::<u8>::zeroed(4096)?;
    if again.as_ptr() as usize == addr {
        let mut again = again;
        let err = ctx_register_err(&device, &mut again);
        assert_eq!(err, Some(sys::ACL_ERROR_HOST_MEMORY_ALREADY_REGISTERED));
    }
    drop(device);
    drop(acl);
    Ok(())
}

fn ctx_register_err(device: &aclrt::Device<'_, HostMode>, mem: &mut [u8]) -> Option<i32> {
    make_guard!(g);
    let ctx = device.default_context(g);
    ctx.register_host(mem).err().and_then(|e| e.code())
}

#[test]
fn the_device_alias_is_refused_by_copies_in_the_simulator() -> Result<()> {
    // The safe API has no way to pass the alias to a copy (compile error,
    // ui-tests); raw C code that does is caught.
    let _sim = take(host_config());
    let acl = Acl::init()?;
    let device = acl.require::<HostMode>()?.device(0)?;
    make_guard!(dg);
    let ctx = device.default_context(dg);
    let mut user = PageAlignedBuf::<u8>::zeroed(4096)?;
    let d = ctx.alloc::<u8>(4096)?;
    let reg = ctx.register_host(&mut user)?;
    let alias = reg.device_alias();
    // SAFETY: the simulator resolves both addresses before any access and
    // refuses the alias.
    let code = unsafe {
        sys::aclrtMemcpy(
            d.as_device_ptr().cast_mut(),
            4096,
            alias.as_raw(),
            4096,
            sys::ACL_MEMCPY_HOST_TO_DEVICE,
        )
    };
    assert_eq!(code, sys::ACL_ERROR_RT_INVALID_MEMORY_TYPE);
    drop(reg);
    drop(d);
    device.reset()?;
    acl.finalize()?;
    let audit = sim::audit();
    assert_eq!(
        violation_kinds(&audit),
        vec![sim::ViolationKind::KindMismatch]
    );
    Ok(())
}

// ------------------------------------------------------------ managed memory

fn managed<M: RunMode>(rt: aclrt::Runtime<'_, M>) -> Result<()> {
    let device = rt.device(0)?;
    make_guard!(g);
    let ctx = device.create_context(g)?;
    let stream = ctx.create_stream()?;
    let mut m = ctx.alloc_managed::<u32>(1000)?;
    assert_eq!(m.len(), 1000);
    // By value: both run modes (plain slices are host run mode only).
    assert!(m.to_vec().iter().all(|&v| v == 0), "zeroed");
    m.copy_from_slice(&pattern_u32(1000, 3))?;
    assert_eq!(m.get(999), Some(pattern_u32(1000, 3)[999]));
    assert_eq!(m.get(1000), None);
    assert!(m.set(1000, 0).is_err());
    assert!(m.copy_from_slice(&[0; 3]).is_err());
    let mut d = ctx.alloc::<u32>(1000)?;
    ctx.scope(|s| {
        make_guard!(l);
        let lane = s.lane(&stream, l);
        let _ = lane.copy(&m, &mut d)?;
        Ok(())
    })?;
    ctx.scope(|s| {
        make_guard!(l);
        let lane = s.lane(&stream, l);
        let _ = lane.memset(&mut m, 0)?;
        Ok(())
    })?;
    // The scope is over: the host may look again.
    assert!(m.to_vec().iter().all(|&v| v == 0));
    ctx.copy(&d, &mut m)?;
    let mut back = vec![0u32; 1000];
    m.copy_to_slice(&mut back)?;
    assert_eq!(back, pattern_u32(1000, 3));
    m.set(0, 7)?;
    assert_eq!(m.get(0), Some(7));
    m.free()?;
    drop(d);
    drop(stream);
    ctx.destroy()?;
    device.reset()
}

#[test]
fn managed_memory_from_host_and_device_in_both_run_modes() -> Result<()> {
    both(|cfg| {
        let _sim = take(cfg);
        let acl = Acl::init()?;
        match acl.detect() {
            aclrt::Detected::Host(rt) => managed(rt)?,
            aclrt::Detected::Device(rt) => managed(rt)?,
        }
        acl.finalize()?;
        assert_clean();
        Ok(())
    })
}

#[test]
fn managed_memory_zero_size_is_refused() -> Result<()> {
    let _sim = take(host_config());
    let acl = Acl::init()?;
    let device = acl.require::<HostMode>()?.device(0)?;
    make_guard!(dg);
    let ctx = device.default_context(dg);
    assert!(matches!(
        ctx.alloc_managed::<u32>(0).unwrap_err(),
        Error::InvalidAllocationSize { len: 0, .. }
    ));
    device.reset()?;
    acl.finalize()?;
    assert_clean();
    Ok(())
}

// ------------------------------------------------------------ failure mode, last error

#[test]
fn stop_on_failure_latches_the_context() -> Result<()> {
    let _sim = take(host_config());
    let acl = Acl::init()?;
    let device = acl.require::<HostMode>()?.device(0)?;
    make_guard!(g);
    let ctx = device.create_context(g)?;
    let stream = ctx.create_stream()?;
    let other = ctx.create_stream()?;
    ctx.set_stop_on_failure()?;
    ctx.set_stop_on_failure()?; // idempotent
    sim::set_stream_delay(stream.as_raw(), Duration::from_millis(5));
    let ran = AtomicU32::new(0);
    let mut d = ctx.alloc_zeroed::<u32>(64)?;
    let err = ctx
        .scope(|s| {
            make_guard!(l);
            let lane = s.lane(&stream, l);
            sim::inject_task_fault(1, sys::ACL_ERROR_RT_AICORE_EXCEPTION);
            lane.host_fn(|| {
                ran.fetch_add(1, Ordering::SeqCst);
            })?;
            lane.host_fn(|| {
                ran.fetch_add(10, Ordering::SeqCst);
            })?;
            Ok(())
        })
        .unwrap_err();
    assert_eq!(err.code(), Some(sys::ACL_ERROR_RT_AICORE_EXCEPTION));
    assert_eq!(err.kind(), ErrorKind::DeviceFault);
    assert_eq!(ran.load(Ordering::SeqCst), 0, "stopped: no later task ran");
    // Every later submission, on any stream of the context, fails with it.
    let err = ctx
        .scope(|s| {
            make_guard!(l);
            let lane = s.lane(&other, l);
            let _ = lane.memset(&mut d, 1)?;
            Ok(())
        })
        .unwrap_err();
    assert_eq!(err.code(), Some(sys::ACL_ERROR_RT_AICORE_EXCEPTION));
    assert_eq!(other.synchronize().unwrap_err().code(), err.code());
    // The last error of this thread has it too.
    assert_eq!(
        aclrt::last_error(),
        Some(sys::ACL_ERROR_RT_AICORE_EXCEPTION)
    );
    assert_eq!(
        aclrt::take_last_error(),
        Some(sys::ACL_ERROR_RT_AICORE_EXCEPTION)
    );
    assert_eq!(aclrt::last_error(), None);
    // Destroying the context (and its streams) recovers.
    drop(d);
    drop(stream);
    drop(other);
    ctx.destroy()?;
    make_guard!(g2);
    let fresh = device.create_context(g2)?;
    let s2 = fresh.create_stream()?;
    s2.synchronize()?;
    drop(s2);
    fresh.destroy()?;
    device.reset()?;
    acl.finalize()?;
    assert_clean();
    Ok(())
}

#[test]
fn last_error_is_per_thread() -> Result<()> {
    let _sim = take(host_config());
    let acl = Acl::init()?;
    let rt = acl.require::<HostMode>()?;
    let _ = aclrt::take_last_error();
    // A runtime failure (not a Rust-side check) sets it.
    // SAFETY: integer argument; the runtime refuses the id.
    let code = unsafe { sys::aclrtSetDevice(77) };
    assert_eq!(code, sys::ACL_ERROR_RT_INVALID_DEVICEID);
    assert_eq!(aclrt::last_error(), Some(code));
    let other = std::thread::spawn(aclrt::last_error).join().unwrap();
    assert_eq!(other, None);
    // Successful calls keep it.
    drop(rt.device(0)?);
    assert_eq!(aclrt::take_last_error(), Some(code));
    assert_eq!(aclrt::take_last_error(), None);
    acl.finalize()?;
    assert_clean();
    Ok(())
}

// ------------------------------------------------------------ forced release

/// `Device::reset_force` checks that its handle is the last one and resets
/// in one step as far as this crate's opens go: another thread's
/// `Runtime::device` either comes first (the forced reset is refused,
/// `DeviceInUse`) or is refused while the reset is in flight
/// (`DeviceResetting`, not waited for: the reset waits for the device's
/// tasks, and a host function may open a device). A handle that was opened
/// is never released behind its back: it makes a context and resets
/// normally. Exercises the race from two threads; no outcome depends on
/// timing.
#[test]
fn reset_force_races_with_opens_on_another_thread() -> Result<()> {
    let _sim = take(host_config());
    let acl = Acl::init()?;
    let rt = acl.require::<HostMode>()?;
    let rounds = 200;
    let (opener, resetter) = std::thread::scope(|t| {
        let opener = t.spawn(|| -> Result<(usize, usize)> {
            let (mut opened, mut refused) = (0, 0);
            for _ in 0..rounds {
                match rt.device(1) {
                    Ok(d) => {
                        make_guard!(g);
                        let ctx = d.create_context(g)?;
                        ctx.destroy()?;
                        d.reset()?;
                        opened += 1;
                    }
                    Err(e @ Error::DeviceResetting { .. }) => {
                        assert_eq!(e.kind(), ErrorKind::Lifecycle);
                        refused += 1;
                    }
                    Err(e) => return Err(e),
                }
            }
            Ok((opened, refused))
        });
        let resetter = t.spawn(|| -> Result<(usize, usize)> {
            let (mut reset, mut in_use) = (0, 0);
            for _ in 0..rounds {
                match rt.device(1)?.reset_force() {
                    Ok(()) => reset += 1,
                    Err(Error::DeviceInUse { id: 1, .. }) => in_use += 1,
                    Err(e) => return Err(e),
                }
            }
            Ok((reset, in_use))
        });
        (opener.join().unwrap(), resetter.join().unwrap())
    });
    let (opened, refused) = opener?;
    let (reset, in_use) = resetter?;
    assert_eq!(opened + refused, rounds);
    assert_eq!(reset + in_use, rounds);
    assert_eq!(live(&sim::audit(), ResourceKind::Device), 0);
    acl.finalize()?;
    assert_clean();
    Ok(())
}

#[test]
fn destroy_force_and_reset_force() -> Result<()> {
    let _sim = take(host_config());
    let acl = Acl::init()?;
    let rt = acl.require::<HostMode>()?;
    let device = rt.device(0)?;
    make_guard!(g);
    let ctx = device.create_context(g)?;
    let stream = ctx.create_stream()?;
    let gate = HeldGate::new();
    stream.launch_host_fn(gate.body())?;
    let ran = std::sync::Arc::new(AtomicU32::new(0));
    for _ in 0..3 {
        let ran = ran.clone();
        stream.launch_host_fn(move || {
            ran.fetch_add(1, Ordering::SeqCst);
        })?;
    }
    assert!(wait_until(|| gate.entered()));
    stream.destroy_force()?;
    // Returned while the running task was still held: it did not wait.
    assert!(!gate.left(), "destroy_force waited for the running task");
    gate.open();
    // `Context::synchronize` goes stream by stream over the live streams:
    // the forced one's running task finishes on its own.
    assert!(wait_until(|| gate.left()));
    ctx.synchronize()?;
    assert!(gate.passed());
    assert_eq!(ran.load(Ordering::SeqCst), 0, "queued tasks were dropped");
    ctx.destroy()?;
    // Two handles of device 1: the forced reset is for the last one only.
    let d1 = rt.device(1)?;
    let d1b = rt.device(1)?;
    let err = d1.reset_force().unwrap_err();
    assert_eq!(err, Error::DeviceInUse { id: 1, others: 1 });
    assert_eq!(err.kind(), ErrorKind::ReleaseFailed);
    // A raw aclrtSetDevice outside the crate adds a reference; the forced
    // reset by the last handle releases it too.
    // SAFETY: integer argument.
    assert_eq!(unsafe { sys::aclrtSetDevice(1) }, sys::ACL_SUCCESS);
    d1b.reset_force()?;
    assert_eq!(
        live(&sim::audit(), ResourceKind::Device),
        1,
        "only device 0"
    );
    device.reset()?;
    acl.finalize()?;
    assert_clean();
    Ok(())
}

#[test]
fn device_mode_registration_uses_the_same_api() -> Result<()> {
    let _sim = take(device_config());
    let acl = Acl::init()?;
    let device = acl.require::<DeviceMode>()?.device(0)?;
    make_guard!(dg);
    let ctx = device.default_context(dg);
    let mut user = PageAlignedBuf::from_slice(&[9u16; 2048])?;
    let mut d = ctx.alloc::<u16>(2048)?;
    {
        let reg = ctx.register_host(&mut user)?;
        ctx.copy(&reg, &mut d)?;
    }
    let mut back = vec![0u16; 2048];
    ctx.copy(&d, &mut back)?;
    assert!(back.iter().all(|&v| v == 9));
    drop(d);
    device.reset()?;
    acl.finalize()?;
    assert_clean();
    Ok(())
}

#[test]
fn a_registration_may_be_dropped_on_another_thread() -> Result<()> {
    let _sim = take(host_config());
    let acl = Acl::init()?;
    let device = acl.require::<HostMode>()?.device(0)?;
    make_guard!(g);
    let ctx = device.create_context(g)?;
    let mut user = PageAlignedBuf::<u64>::zeroed(512)?;
    {
        let mut reg = ctx.register_host(&mut user)?;
        reg.as_mut_slice()[0] = 42;
        // Another thread, where no context is current: the unregistration
        // makes the registration's context current first.
        std::thread::scope(|s| {
            s.spawn(move || drop(reg));
        });
    }
    assert_eq!(user[0], 42);
    assert_eq!(live(&sim::audit(), ResourceKind::HostRegistration), 0);
    ctx.destroy()?;
    device.reset()?;
    acl.finalize()?;
    assert_clean();
    Ok(())
}

#[test]
fn forced_releases_are_refused_inside_host_functions() -> Result<()> {
    let _sim = take(host_config());
    let acl = Acl::init()?;
    let device = acl.require::<HostMode>()?.device(0)?;
    make_guard!(g);
    let ctx = device.create_context(g)?;
    let stream = ctx.create_stream()?;
    let victim = ctx.create_stream()?;
    let refused = std::sync::Mutex::new(None);
    ctx.scope(|s| {
        make_guard!(l);
        let lane = s.lane(&stream, l);
        lane.host_fn(|| {
            // Re-entry from the runtime's callback thread: refused, never a
            // wait for the very stream the callback runs on.
            *refused.lock().unwrap() = Some(victim.destroy_force());
        })?;
        Ok(())
    })?;
    let err = refused.into_inner().unwrap().unwrap().unwrap_err();
    assert_eq!(
        err,
        Error::InCallback {
            operation: "aclrtDestroyStreamForce"
        }
    );
    // The refused stream was leaked (as a `Stream` dropped in a callback
    // is): it keeps its context alive, and nothing broke the runtime's rules.
    drop(stream);
    assert!(matches!(
        ctx.destroy().unwrap_err(),
        Error::LiveChildren { .. }
    ));
    assert!(sim::audit().violations.is_empty());
    drop(device);
    drop(acl);
    Ok(())
}

// ------------------------------------------------- every release path

/// A stream's work fails (a faulted copy in a scope), it runs a host
/// function (the callback mechanism's mark), and a forgotten awaited
/// synchronisation watches it; then it is released — destroyed,
/// force-destroyed, or, for a context's default stream, with its context
/// (destroyed) or its device's implicit context (the last reset, plain or
/// forced). On every path no book of the crate keeps an entry keyed by the
/// released handle (a later stream may get the same handle on hardware and
/// must start clean), in both run modes. Before, a failure stayed in the
/// record after a destroy unless some feature had turned the destruction's
/// hooks on, a forced destroy kept the host-function mark, and a default
/// stream's entries outlived its context.
#[test]
fn every_release_path_empties_the_books_of_the_stream() -> Result<()> {
    #[derive(Clone, Copy, Debug, PartialEq)]
    enum Path {
        Destroy,
        DestroyForce,
        ContextDestroy,
        DeviceReset,
        DeviceResetForce,
    }
    fn use_stream<'id, M: RunMode>(
        ctx: &aclrt::Context<'_, 'id, M>,
        stream: &aclrt::Stream<'_, 'id>,
    ) -> Result<()> {
        let src = ctx.alloc_host_from(&pattern_u32(64, 3))?;
        let mut d = ctx.alloc::<u32>(64)?;
        sim::inject_stream_task_fault(stream.as_raw(), 1, sys::ACL_ERROR_RT_AICORE_EXCEPTION);
        let r = ctx.scope(|s| {
            aclrt::make_guard!(g);
            let lane = s.lane(stream, g);
            lane.host_fn(|| {})?;
            let _ = lane.copy(&src, &mut d)?.wait_or_keep();
            Ok(())
        });
        assert!(r.is_err(), "the faulted copy's scope ended Ok");
        sim::clear_faults();
        // A forgotten awaited synchronisation of the idle stream: its watch
        // is queried (and completes) or forgotten by the release.
        core::mem::forget(stream.synchronize_async());
        Ok(())
    }
    fn round<M: RunMode>(acl: &Acl, path: Path) -> Result<()> {
        let device = acl.require::<M>()?.device(0)?;
        let handle;
        match path {
            Path::Destroy | Path::DestroyForce | Path::ContextDestroy => {
                make_guard!(g);
                let ctx = device.create_context(g)?;
                if path == Path::ContextDestroy {
                    let stream = ctx.default_stream()?;
                    use_stream(&ctx, &stream)?;
                    handle = stream.as_raw();
                } else {
                    let stream = ctx.create_stream()?;
                    use_stream(&ctx, &stream)?;
                    handle = stream.as_raw();
                    assert!(
                        aclrt::__books::entries_of(handle) > 0,
                        "nothing was entered"
                    );
                    if path == Path::Destroy {
                        stream.destroy()?;
                    } else {
                        stream.destroy_force()?;
                    }
                }
                ctx.destroy()?;
            }
            Path::DeviceReset | Path::DeviceResetForce => {
                make_guard!(g);
                let ctx = device.default_context(g);
                let stream = ctx.default_stream()?;
                use_stream(&ctx, &stream)?;
                handle = stream.as_raw();
            }
        }
        if path == Path::DeviceResetForce {
            device.reset_force()?;
        } else {
            device.reset()?;
        }
        assert_eq!(
            aclrt::__books::entries_of(handle),
            0,
            "{path:?}: the books still hold the released stream"
        );
        Ok(())
    }
    both(|config| {
        let device_mode = config.run_mode == sim::RunMode::Device;
        for path in [
            Path::Destroy,
            Path::DestroyForce,
            Path::ContextDestroy,
            Path::DeviceReset,
            Path::DeviceResetForce,
        ] {
            let _sim = take(config.clone());
            let acl = Acl::init()?;
            if device_mode {
                round::<DeviceMode>(&acl, path)?;
            } else {
                round::<HostMode>(&acl, path)?;
            }
            acl.finalize()?;
            assert_clean();
        }
        Ok(())
    })
}
