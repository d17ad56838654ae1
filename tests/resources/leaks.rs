//! `mem::forget` of every owned handle the API gives out: safe, and it leaks
//! exactly that resource. The leak keeps its parents alive: their explicit
//! releases return `Error::LiveChildren` without calling the runtime, so the
//! runtime's release-order rules are never broken (no violation is
//! recorded); nothing worse happens. Forgetting the guards of a
//! scope (`InFlight`, `Signal`, `Mark`) is harmless: see `awaited/async_scope.rs`.

use crate::common;

use aclrt::sim::{self, ResourceKind};
use aclrt::{Acl, DeviceMode, Error, ErrorKind, HostMode, Result, SyncOnly, make_guard};
use common::*;

use ResourceKind as R;

/// Finalise, which refuses because of the leaks (`Error::LiveChildren`)
/// and leaves the runtime initialised with exactly `alive` in it, no rule
/// broken; then reset the simulator and check that it is clean again.
#[track_caller]
fn finalize_expecting(acl: Acl, alive: &[ResourceKind]) {
    let err = acl
        .finalize()
        .expect_err("finalize refuses while leaked resources live");
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
    assert_eq!(err.kind(), ErrorKind::ReleaseFailed);
    let audit = sim::audit();
    assert!(audit.violations.is_empty(), "{audit:#?}");
    assert!(audit.leaks.is_empty(), "{audit:#?}");
    assert!(audit.initialized, "the leaks keep the runtime alive");
    let mut live_kinds: Vec<ResourceKind> = audit
        .live
        .iter()
        .flat_map(|(&(kind, _), &n)| std::iter::repeat_n(kind, n))
        .collect();
    live_kinds.sort();
    assert_eq!(live_kinds, alive, "{audit:#?}");
    sim::reset();
    assert_clean();
}

#[test]
fn forget_device() -> Result<()> {
    let _sim = take(host_config());
    let acl = Acl::init()?;
    {
        let device = acl.require::<HostMode>()?.device(1)?;
        std::mem::forget(device);
        let a = sim::audit();
        assert_eq!(a.live.get(&(R::Device, 1)), Some(&1));
        assert_eq!(a.live.len(), 1);
    }
    finalize_expecting(acl, &[R::Device]);
    Ok(())
}

#[test]
fn forget_context() -> Result<()> {
    let _sim = take(device_config());
    let acl = Acl::init()?;
    {
        let device = acl.require::<DeviceMode>()?.device(0)?;
        make_guard!(g);
        let ctx = device.create_context(g)?;
        std::mem::forget(ctx);
        assert_eq!(live(&sim::audit(), R::Context), 1);
        let err = device.reset().unwrap_err();
        assert_eq!(err.function(), Some("aclrtResetDevice"));
    }
    finalize_expecting(acl, &[R::Device, R::Context]);
    Ok(())
}

#[test]
fn forget_stream() -> Result<()> {
    let _sim = take(host_config());
    let acl = Acl::init()?;
    {
        let device = acl.require::<HostMode>()?.device(0)?;
        make_guard!(g);
        let ctx = device.create_context(g)?;
        let kept = ctx.create_stream()?;
        let stream = ctx.create_stream()?;
        stream.launch_host_fn(|| {})?;
        std::mem::forget(stream);
        assert_eq!(live(&sim::audit(), R::Stream), 2);
        kept.destroy()?;
        assert_eq!(live(&sim::audit(), R::Stream), 1);
        let err = ctx.destroy().unwrap_err();
        assert_eq!(err.function(), Some("aclrtDestroyContext"));
        assert_eq!(err.kind(), ErrorKind::ReleaseFailed);
        drop(device); // Drop swallows the refused reset
    }
    finalize_expecting(acl, &[R::Device, R::Context, R::Stream]);
    Ok(())
}

#[test]
fn forget_events() -> Result<()> {
    let _sim = take(host_config());
    let acl = Acl::init()?;
    {
        let device = acl.require::<HostMode>()?.device(0)?;
        make_guard!(g);
        let ctx = device.create_context(g)?;
        let stream = ctx.create_stream()?;
        let unrecorded = ctx.create_event()?;
        let recorded = stream.record(ctx.create_event_of::<SyncOnly>()?)?;
        std::mem::forget(unrecorded);
        std::mem::forget(recorded);
        stream.synchronize()?;
        drop(stream);
        assert_eq!(live(&sim::audit(), R::Event), 2);
        drop(ctx);
        drop(device);
    }
    finalize_expecting(acl, &[R::Device, R::Context, R::Event, R::Event]);
    Ok(())
}

#[test]
fn forget_device_buffer() -> Result<()> {
    let _sim = take(host_config());
    let acl = Acl::init()?;
    {
        let device = acl.require::<HostMode>()?.device(0)?;
        make_guard!(g);
        let ctx = device.create_context(g)?;
        let buffer = ctx.alloc_from(&pattern_u32(64, 0))?;
        let other = ctx.alloc::<u8>(10)?;
        std::mem::forget(buffer);
        other.free()?;
        assert_eq!(live(&sim::audit(), R::DeviceMemory), 1);
        drop(ctx);
        drop(device);
    }
    finalize_expecting(acl, &[R::Device, R::Context, R::DeviceMemory]);
    Ok(())
}

#[test]
fn forget_device_buffer_of_the_default_context() -> Result<()> {
    let _sim = take(device_config());
    let acl = Acl::init()?;
    {
        let device = acl.require::<DeviceMode>()?.device(1)?;
        make_guard!(g);
        let ctx = device.default_context(g);
        std::mem::forget(ctx.alloc::<f32>(100)?);
        assert_eq!(sim::audit().live.get(&(R::DeviceMemory, 1)), Some(&1));
        let err = device.reset().unwrap_err();
        assert_eq!(err.kind(), ErrorKind::ReleaseFailed);
    }
    finalize_expecting(acl, &[R::Device, R::DeviceMemory]);
    Ok(())
}

#[test]
fn forget_host_buffers() -> Result<()> {
    let _sim = take(host_config());
    let acl = Acl::init()?;
    {
        let device = acl.require::<HostMode>()?.device(0)?;
        make_guard!(g);
        let ctx = device.create_context(g)?;
        let init = ctx.alloc_host_from(&[1u8, 2, 3])?;
        let uninit = ctx.alloc_host_uninit::<u64>(4)?;
        std::mem::forget(init);
        std::mem::forget(uninit);
        assert_eq!(live(&sim::audit(), R::HostMemory), 2);
        drop(ctx);
        drop(device);
    }
    finalize_expecting(acl, &[R::Device, R::Context, R::HostMemory, R::HostMemory]);
    Ok(())
}

/// Forgetting a peer-access token leaves the access enabled, and keeps both
/// devices open: resetting either's last handle would make the runtime
/// forget the access the token still proves, so it refuses.
#[test]
fn forget_peer_access() -> Result<()> {
    let _sim = take(host_config());
    let acl = Acl::init()?;
    {
        let rt = acl.require::<HostMode>()?;
        let (d0, d1) = (rt.device(0)?, rt.device(1)?);
        std::mem::forget(d0.enable_peer_access(&d1)?);
        for device in [d1, d0] {
            let err = device.reset().unwrap_err();
            assert!(
                matches!(
                    err,
                    Error::LiveChildren {
                        function: "aclrtResetDevice",
                        live: 1
                    }
                ),
                "{err:?}"
            );
        }
    }
    finalize_expecting(acl, &[R::Device, R::Device]);
    Ok(())
}
