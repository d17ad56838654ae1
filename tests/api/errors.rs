//! The runtime errors of design §4, each injected in the simulator: a clear
//! `Err`, no panic, and nothing leaked afterwards.

use crate::common;

use std::time::Duration;

use aclrt::sim::{self, SimConfig};
use aclrt::{
    Acl, DeviceMode, Error, ErrorKind, HostMode, Result, RunModeKind, SyncOnly, make_guard, sys,
};
use common::*;

#[test]
fn invalid_device_id() -> Result<()> {
    let _sim = take(host_config());
    let acl = Acl::init()?;
    let rt = acl.require::<HostMode>()?;
    let err = rt.device(2).unwrap_err();
    assert_eq!(err, Error::NoSuchDevice { id: 2, count: 2 });
    assert_eq!(err.kind(), ErrorKind::InvalidDevice);
    assert!(err.to_string().contains("no device 2"));
    assert_eq!(
        rt.device(u32::MAX).unwrap_err(),
        Error::NoSuchDevice {
            id: u32::MAX,
            count: 2
        }
    );
    // Nothing was opened: no device reference is held.
    assert!(sim::audit().live.is_empty());
    let ok = rt.device(1)?;
    drop(ok);
    acl.finalize()?;
    assert_clean();
    Ok(())
}

#[test]
fn invalid_device_id_one_device_device_mode() -> Result<()> {
    let _sim = take(SimConfig {
        devices: 1,
        ..device_config()
    });
    let acl = Acl::init()?;
    let rt = acl.require::<DeviceMode>()?;
    assert_eq!(
        rt.device(1).unwrap_err(),
        Error::NoSuchDevice { id: 1, count: 1 }
    );
    drop(rt.device(0)?);
    acl.finalize()?;
    assert_clean();
    Ok(())
}

#[test]
fn out_of_memory() -> Result<()> {
    let _sim = take(SimConfig {
        memory_per_device: Some(1 << 20),
        ..host_config()
    });
    let acl = Acl::init()?;
    let device = acl.require::<HostMode>()?.device(0)?;
    assert_eq!(device.memory_info()?.total, 1 << 20);
    make_guard!(g);
    let ctx = device.create_context(g)?;
    let err = ctx.alloc::<u8>(2 << 20).unwrap_err();
    assert_eq!(err.kind(), ErrorKind::OutOfMemory);
    assert_eq!(err.function(), Some("aclrtMalloc"));
    assert_eq!(err.code(), Some(sys::ACL_ERROR_RT_MEMORY_ALLOCATION));
    match &err {
        Error::Acl { message, .. } => assert!(!message.is_empty()),
        other => panic!("expected an ACL error, got {other:?}"),
    }
    // Memory in use counts: two halves do not fit.
    let half = ctx.alloc::<u8>(600 << 10)?;
    let err = ctx.alloc_zeroed::<u32>(150 << 10).unwrap_err();
    assert_eq!(err.kind(), ErrorKind::OutOfMemory);
    let err = ctx.alloc_from(&vec![1u8; 600 << 10]).unwrap_err();
    assert_eq!(err.kind(), ErrorKind::OutOfMemory);
    drop(half);
    // After the failure the runtime is usable and nothing leaked.
    let data = pattern_u8(900 << 10, 1);
    let big = ctx.alloc_from(&data)?;
    let mut back = vec![0u8; data.len()];
    ctx.copy(&big, &mut back)?;
    assert!(back == data);
    drop(big);
    ctx.destroy()?;
    device.reset()?;
    acl.finalize()?;
    assert_clean();
    Ok(())
}

#[test]
fn out_of_memory_injected_in_device_mode() -> Result<()> {
    let _sim = take(device_config());
    let acl = Acl::init()?;
    let device = acl.require::<DeviceMode>()?.device(1)?;
    make_guard!(g);
    let ctx = device.create_context(g)?;
    sim::inject_fault("aclrtMalloc", 1, sys::ACL_ERROR_RT_DEVICE_OOM);
    let err = ctx.alloc::<f32>(16).unwrap_err();
    assert_eq!(err.kind(), ErrorKind::OutOfMemory);
    assert_eq!(err.code(), Some(sys::ACL_ERROR_RT_DEVICE_OOM));
    assert_eq!(err.function(), Some("aclrtMalloc"));
    sim::inject_fault("aclrtMallocHost", 1, sys::ACL_ERROR_RT_MEMORY_ALLOCATION);
    let err = ctx.alloc_host_zeroed::<f32>(16).unwrap_err();
    assert_eq!(err.kind(), ErrorKind::OutOfMemory);
    assert_eq!(err.function(), Some("aclrtMallocHost"));
    let ok = ctx.alloc_from(&[1.0f32; 16])?;
    drop(ok);
    drop(ctx);
    drop(device);
    acl.finalize()?;
    assert_clean();
    Ok(())
}

#[test]
fn zero_size_and_overflowing_allocations() -> Result<()> {
    let _sim = take(host_config());
    let acl = Acl::init()?;
    let device = acl.require::<HostMode>()?.device(0)?;
    make_guard!(g);
    let ctx = device.create_context(g)?;
    let zero = Error::InvalidAllocationSize {
        len: 0,
        elem_size: 4,
    };
    assert_eq!(ctx.alloc::<u32>(0).unwrap_err(), zero);
    assert_eq!(ctx.alloc_zeroed::<u32>(0).unwrap_err(), zero);
    assert_eq!(ctx.alloc_from::<u32>(&[]).unwrap_err(), zero);
    assert_eq!(ctx.alloc_host_zeroed::<u32>(0).unwrap_err(), zero);
    assert_eq!(ctx.alloc_host_from::<u32>(&[]).unwrap_err(), zero);
    assert!(matches!(
        ctx.alloc_host_uninit::<u32>(0),
        Err(Error::InvalidAllocationSize { len: 0, .. })
    ));
    let huge = usize::MAX / 4 + 1;
    assert_eq!(
        ctx.alloc::<u64>(huge).unwrap_err(),
        Error::InvalidAllocationSize {
            len: huge,
            elem_size: 8
        }
    );
    assert_eq!(
        ctx.alloc_host_zeroed::<[u32; 4]>(usize::MAX).unwrap_err(),
        Error::InvalidAllocationSize {
            len: usize::MAX,
            elem_size: 16
        }
    );
    assert_eq!(
        ctx.alloc_with_policy::<u8>(0, aclrt::MallocPolicy::NormalOnly)
            .unwrap_err()
            .kind(),
        ErrorKind::InvalidParam
    );
    // The checks happen before the runtime is asked.
    assert!(
        !sim::call_counts()
            .iter()
            .any(|(f, _)| *f == "aclrtMalloc" || *f == "aclrtMallocHost")
    );
    drop(ctx);
    drop(device);
    acl.finalize()?;
    assert_clean();
    Ok(())
}

#[test]
fn copy_length_mismatch_sync() -> Result<()> {
    let _sim = take(host_config());
    let acl = Acl::init()?;
    let device = acl.require::<HostMode>()?.device(0)?;
    make_guard!(g);
    let ctx = device.create_context(g)?;
    let mut d = ctx.alloc::<u32>(11)?;
    let src = pattern_u32(10, 0);
    assert_eq!(
        ctx.copy(&src, &mut d).unwrap_err(),
        Error::LengthMismatch { src: 10, dst: 11 }
    );
    let mut out = vec![0u32; 12];
    assert_eq!(
        ctx.copy(&d, &mut out).unwrap_err(),
        Error::LengthMismatch { src: 11, dst: 12 }
    );
    assert_eq!(
        ctx.upload(&src, &mut d).unwrap_err(),
        Error::LengthMismatch { src: 10, dst: 11 }
    );
    assert_eq!(
        ctx.download(&d, &mut out).unwrap_err(),
        Error::LengthMismatch { src: 11, dst: 12 }
    );
    let mut d2 = ctx.alloc::<u32>(5)?;
    assert_eq!(
        ctx.copy_on_device(&d, &mut d2).unwrap_err(),
        Error::LengthMismatch { src: 11, dst: 5 }
    );
    assert_eq!(
        ctx.copy(&d.view(0..4)?, &mut d2).unwrap_err(),
        Error::LengthMismatch { src: 4, dst: 5 }
    );
    assert_eq!(
        ctx.copy_into_uninit(&d, ctx.alloc_host_uninit(3)?)
            .unwrap_err(),
        Error::LengthMismatch { src: 11, dst: 3 }
    );
    assert_eq!(
        ctx.alloc_host_uninit::<u32>(3)?
            .init_from(&[1, 2])
            .unwrap_err(),
        Error::LengthMismatch { src: 2, dst: 3 }
    );
    // No copy reached the runtime; the failed `copy_into_uninit` and
    // `init_from` freed their memory.
    assert!(!sim::call_counts().iter().any(|(f, _)| *f == "aclrtMemcpy"));
    assert_eq!(
        live(&sim::audit(), sim::ResourceKind::HostMemory),
        0,
        "uninitialised host memory leaked by a failed initialisation"
    );
    drop((d, d2));
    drop(ctx);
    drop(device);
    acl.finalize()?;
    assert_clean();
    Ok(())
}

#[test]
fn copy_length_mismatch_async() -> Result<()> {
    let _sim = take(device_config());
    let acl = Acl::init()?;
    let device = acl.require::<DeviceMode>()?.device(0)?;
    make_guard!(g);
    let ctx = device.create_context(g)?;
    let stream = ctx.create_stream()?;
    let input = ctx.alloc_host_from(&pattern_u32(8, 3))?;
    let mut d = ctx.alloc::<u32>(9)?;
    let mut ok = ctx.alloc::<u32>(8)?;
    let mut out = ctx.alloc_host_zeroed::<u32>(8)?;
    let result: Result<()> = ctx.scope(|s| {
        make_guard!(l);
        let lane = s.lane(&stream, l);
        // Work queued before the error completes.
        let x = lane.copy(&input, &mut ok)?;
        let _o = lane.copy(&x, &mut out)?;
        let _never = lane.copy(&input, &mut d)?;
        unreachable!("the length mismatch is reported");
    });
    assert_eq!(
        result.unwrap_err(),
        Error::LengthMismatch { src: 8, dst: 9 }
    );
    assert_eq!(&out[..], &input[..]);
    // Mismatch on an InFlight destination and a memset-free path too.
    let mut d2 = ctx.alloc::<u32>(9)?;
    let result: Result<()> = ctx.scope(|s| {
        make_guard!(l);
        let lane = s.lane(&stream, l);
        let x = lane.memset(&mut d2, 0)?;
        assert_eq!(x.len(), 9);
        let err = lane.copy(&input, x).unwrap_err();
        assert_eq!(err, Error::LengthMismatch { src: 8, dst: 9 });
        Err(err)
    });
    assert!(matches!(result, Err(Error::LengthMismatch { .. })));
    drop((input, d, d2, ok, out));
    drop(stream);
    drop(ctx);
    drop(device);
    acl.finalize()?;
    assert_clean();
    Ok(())
}

#[test]
fn second_live_acl() -> Result<()> {
    let _sim = take(host_config());
    let first = Acl::init()?;
    let err = Acl::init().unwrap_err();
    assert_eq!(err, Error::AlreadyInitialized);
    assert_eq!(err.kind(), ErrorKind::Lifecycle);
    // The refused attempt did not disturb the live one.
    assert_eq!(first.device_count()?, 2);
    assert!(sim::audit().initialized);
    drop(first);
    assert!(!sim::audit().initialized);
    let second = Acl::init()?;
    let dev = second.require::<HostMode>()?.device(0)?;
    drop(dev);
    // From another thread as well, while it lives.
    std::thread::scope(|t| {
        let e = t.spawn(Acl::init).join().unwrap();
        assert_eq!(e.unwrap_err(), Error::AlreadyInitialized);
    });
    second.finalize()?;
    let third = Acl::init()?;
    third.finalize()?;
    assert_clean();
    Ok(())
}

#[test]
fn stream_exhaustion() -> Result<()> {
    let _sim = take(host_config());
    let acl = Acl::init()?;
    let device = acl.require::<HostMode>()?.device(0)?;
    make_guard!(g);
    let ctx = device.create_context(g)?;
    sim::inject_fault("aclrtCreateStream", 1, sys::ACL_ERROR_RT_NO_STREAM_RESOURCE);
    let err = ctx.create_stream().unwrap_err();
    assert_eq!(err.kind(), ErrorKind::ResourceExhausted);
    assert_eq!(err.code(), Some(207008));
    assert_eq!(err.function(), Some("aclrtCreateStream"));
    sim::inject_fault(
        "aclrtCreateStreamWithConfig",
        1,
        sys::ACL_ERROR_RT_NO_STREAM_RESOURCE,
    );
    let err = ctx
        .create_stream_with_config(aclrt::StreamPriority::HIGHEST, aclrt::StreamFlags::NONE)
        .unwrap_err();
    assert_eq!(err.kind(), ErrorKind::ResourceExhausted);
    assert_eq!(err.function(), Some("aclrtCreateStreamWithConfig"));
    // The second call is not injected.
    let s = ctx.create_stream()?;
    s.synchronize()?;
    drop(s);
    drop(ctx);
    drop(device);
    acl.finalize()?;
    assert_clean();
    Ok(())
}

#[test]
fn event_exhaustion() -> Result<()> {
    let _sim = take(device_config());
    let acl = Acl::init()?;
    let device = acl.require::<DeviceMode>()?.device(0)?;
    make_guard!(g);
    let ctx = device.create_context(g)?;
    sim::inject_fault("aclrtCreateEvent", 1, sys::ACL_ERROR_RT_NO_EVENT_RESOURCE);
    let err = ctx.create_event().unwrap_err();
    assert_eq!(err.kind(), ErrorKind::ResourceExhausted);
    assert_eq!(err.code(), Some(207007));
    assert_eq!(err.function(), Some("aclrtCreateEvent"));
    sim::inject_fault(
        "aclrtCreateEventWithFlag",
        1,
        sys::ACL_ERROR_RT_NO_EVENT_RESOURCE,
    );
    let err = ctx.create_event_of::<SyncOnly>().unwrap_err();
    assert_eq!(err.kind(), ErrorKind::ResourceExhausted);
    assert_eq!(err.function(), Some("aclrtCreateEventWithFlag"));

    // Inside a scope: the event of a hand-off cannot be created.
    let stream = ctx.create_stream()?;
    let input = ctx.alloc_host_from(&pattern_u32(32, 5))?;
    let mut d = ctx.alloc::<u32>(32)?;
    sim::inject_fault(
        "aclrtCreateEventWithFlag",
        1,
        sys::ACL_ERROR_RT_NO_EVENT_RESOURCE,
    );
    let result = ctx.scope(|s| {
        make_guard!(l);
        let lane = s.lane(&stream, l);
        let x = lane.copy(&input, &mut d)?;
        let _signal = lane.signal(x)?;
        Ok(())
    });
    assert_eq!(result.unwrap_err().kind(), ErrorKind::ResourceExhausted);
    let mut back = vec![0u32; 32];
    ctx.copy(&d, &mut back)?;
    assert_eq!(back, pattern_u32(32, 5));
    let e = ctx.create_event()?;
    e.destroy()?;
    drop((input, d, stream));
    drop(ctx);
    drop(device);
    acl.finalize()?;
    assert_clean();
    Ok(())
}

#[test]
fn timeouts() -> Result<()> {
    let _sim = take(host_config());
    let acl = Acl::init()?;
    let device = acl.require::<HostMode>()?.device(0)?;
    make_guard!(g);
    let ctx = device.create_context(g)?;
    let stream = ctx.create_stream()?;
    sim::set_stream_delay(stream.as_raw(), Duration::from_millis(50));

    // Stream.
    stream.launch_host_fn(|| {})?;
    let err = stream
        .synchronize_timeout(Duration::from_millis(2))
        .unwrap_err();
    assert!(err.is_timeout(), "{err:?}");
    assert_eq!(err.code(), Some(sys::ACL_ERROR_RT_STREAM_SYNC_TIMEOUT));
    assert_eq!(err.function(), Some("aclrtSynchronizeStreamWithTimeout"));
    stream.synchronize()?;

    // Event.
    let event = ctx.create_event()?;
    stream.launch_host_fn(|| {})?;
    let event = stream.record(event)?;
    let err = event
        .synchronize_timeout(Duration::from_millis(2))
        .unwrap_err();
    assert!(err.is_timeout(), "{err:?}");
    assert_eq!(err.code(), Some(sys::ACL_ERROR_RT_EVENT_SYNC_TIMEOUT));
    assert_eq!(err.function(), Some("aclrtSynchronizeEventWithTimeout"));
    event.synchronize()?;

    // Context.
    stream.launch_host_fn(|| {})?;
    let err = ctx
        .synchronize_timeout(Duration::from_millis(2))
        .unwrap_err();
    assert!(err.is_timeout(), "{err:?}");
    // Made stream by stream (the failure rule).
    assert_eq!(err.function(), Some("aclrtSynchronizeStreamWithTimeout"));
    ctx.synchronize()?;

    // Inside a scope, on a lane.
    let input = ctx.alloc_host_from(&[1u8, 2, 3])?;
    let mut d = ctx.alloc::<u8>(3)?;
    ctx.scope(|s| {
        make_guard!(l);
        let lane = s.lane(&stream, l);
        let x = lane.copy(&input, &mut d)?;
        assert!(!lane.is_complete()?);
        let err = stream
            .synchronize_timeout(Duration::from_millis(2))
            .unwrap_err();
        assert!(err.is_timeout());
        lane.synchronize()?;
        assert!(lane.is_complete()?);
        x.wait()?;
        Ok(())
    })?;

    // Timeouts the runtime cannot express are refused before any call.
    assert_eq!(
        stream.synchronize_timeout(Duration::ZERO).unwrap_err(),
        Error::InvalidTimeout { millis: 0 }
    );
    assert_eq!(
        ctx.synchronize_timeout(Duration::from_micros(999))
            .unwrap_err(),
        Error::InvalidTimeout { millis: 0 }
    );
    let too_long = Duration::from_millis(i32::MAX as u64 + 1);
    assert_eq!(
        event.synchronize_timeout(too_long).unwrap_err(),
        Error::InvalidTimeout {
            millis: i32::MAX as u128 + 1
        }
    );
    drop((input, d));
    drop(event);
    drop(stream);
    drop(ctx);
    drop(device);
    acl.finalize()?;
    assert_clean();
    Ok(())
}

#[test]
fn device_fault_at_stream_synchronize() -> Result<()> {
    let _sim = take(host_config());
    let acl = Acl::init()?;
    let device = acl.require::<HostMode>()?.device(0)?;
    make_guard!(g);
    let ctx = device.create_context(g)?;
    let stream = ctx.create_stream()?;
    let event = ctx.create_event_of::<SyncOnly>()?;
    sim::inject_task_fault(1, sys::ACL_ERROR_RT_AICORE_EXCEPTION);
    let event = stream.record(event)?; // the faulting task
    let err = stream.synchronize().unwrap_err();
    assert_eq!(err.kind(), ErrorKind::DeviceFault);
    assert_eq!(err.code(), Some(sys::ACL_ERROR_RT_AICORE_EXCEPTION));
    // The failing task's function; the call that reported it.
    assert_eq!(err.function(), Some("aclrtRecordEvent"));
    assert_eq!(err.call(), Some("aclrtSynchronizeStream"));
    // Display names the reporting call once.
    assert_eq!(
        err.to_string().matches("aclrtSynchronizeStream").count(),
        1,
        "{err}"
    );
    // Reported once.
    stream.synchronize()?;
    let event = stream.record(event)?;
    event.synchronize()?;
    drop(event);

    // An event's synchronisation does not report a fault of the work it
    // captured (the runtime's does not: FIDELITY EVENT-S-4); the stream's
    // next synchronisation does. Context synchronisation reports one too.
    let event = ctx.create_event()?;
    sim::inject_task_fault(1, sys::ACL_ERROR_RT_TS_ERROR);
    stream.launch_host_fn(|| panic!("a faulted host function never runs"))?;
    let event = stream.record(event)?;
    event.synchronize()?;
    let err = stream.synchronize().unwrap_err();
    assert_eq!(err.kind(), ErrorKind::DeviceFault);
    assert_eq!(err.code(), Some(sys::ACL_ERROR_RT_TS_ERROR));
    sim::inject_task_fault(1, sys::ACL_ERROR_RT_AICORE_EXCEPTION);
    let event = stream.record(event)?;
    let err = ctx.synchronize().unwrap_err();
    assert_eq!(err.kind(), ErrorKind::DeviceFault);
    ctx.synchronize()?;
    drop(event);
    drop(stream);
    drop(ctx);
    drop(device);
    acl.finalize()?;
    assert_clean();
    Ok(())
}

#[test]
fn device_fault_at_in_flight_wait() -> Result<()> {
    let _sim = take(device_config());
    let acl = Acl::init()?;
    let device = acl.require::<DeviceMode>()?.device(0)?;
    make_guard!(g);
    let ctx = device.create_context(g)?;
    let stream = ctx.create_stream()?;
    let input = ctx.alloc_host_from(&pattern_u32(16, 1))?;
    let mut d = ctx.alloc_zeroed::<u32>(16)?;
    let mut out = ctx.alloc_host_zeroed::<u32>(16)?;
    ctx.scope(|s| {
        make_guard!(l);
        let lane = s.lane(&stream, l);
        sim::inject_task_fault(1, sys::ACL_ERROR_RT_AICORE_EXCEPTION);
        let x = lane.copy(&input, &mut d)?; // faults: nothing copied
        let err = x.wait().unwrap_err();
        assert_eq!(err.kind(), ErrorKind::DeviceFault);
        assert_eq!(err.function(), Some("aclrtMemcpyAsync"));
        assert_eq!(err.call(), Some("aclrtSynchronizeStream"));
        // The lane keeps working after the fault was reported, once the
        // scope passed its recovery point (the failure sticks until then).
        assert_eq!(s.recover()?.as_ref(), Some(&err));
        let o = lane.copy(&input, &mut out)?;
        assert_eq!(&o.wait()?[..], &pattern_u32(16, 1)[..]);
        Ok(())
    })?;
    let mut back = vec![1u32; 16];
    ctx.copy(&d, &mut back)?;
    assert_eq!(back, vec![0; 16], "a faulted copy does nothing");
    drop((input, d, out, stream));
    drop(ctx);
    drop(device);
    acl.finalize()?;
    assert_clean();
    Ok(())
}

#[test]
fn device_fault_at_scope_end() -> Result<()> {
    let _sim = take(host_config());
    let acl = Acl::init()?;
    let device = acl.require::<HostMode>()?.device(0)?;
    make_guard!(g);
    let ctx = device.create_context(g)?;
    let stream = ctx.create_stream()?;
    let data = pattern_u32(64, 9);
    let input = ctx.alloc_host_from(&data)?;
    let mut d = ctx.alloc::<u32>(64)?;
    let mut out = ctx.alloc_host_zeroed::<u32>(64)?;
    sim::inject_task_fault(2, sys::ACL_ERROR_RT_AICORE_EXCEPTION);
    let result = ctx.scope(|s| {
        make_guard!(l);
        let lane = s.lane(&stream, l);
        let x = lane.copy(&input, &mut d)?;
        let _o = lane.copy(&x, &mut out)?; // faults
        Ok(42)
    });
    let err = result.unwrap_err();
    assert_eq!(err.kind(), ErrorKind::DeviceFault);
    assert_eq!(err.code(), Some(sys::ACL_ERROR_RT_AICORE_EXCEPTION));
    assert!(out.iter().all(|v| v == 0), "the faulted copy did nothing");
    // The first copy ran.
    let mut back = vec![0u32; 64];
    ctx.copy(&d, &mut back)?;
    assert_eq!(back, data);
    // The scope destroyed nothing it should not have: the stream still works.
    stream.synchronize()?;
    drop((input, d, out, stream));
    drop(ctx);
    drop(device);
    acl.finalize()?;
    assert_clean();
    Ok(())
}

#[test]
fn wrong_run_mode_both_ways() -> Result<()> {
    {
        let _sim = take(host_config());
        let acl = Acl::init()?;
        let err = acl.require::<DeviceMode>().unwrap_err();
        assert_eq!(
            err,
            Error::WrongRunMode {
                expected: RunModeKind::Device,
                actual: RunModeKind::Host
            }
        );
        assert!(err.to_string().contains("Device"));
        acl.finalize()?;
        assert_clean();
    }
    let _sim = take(device_config());
    let acl = Acl::init()?;
    assert!(matches!(
        acl.require::<HostMode>(),
        Err(Error::WrongRunMode {
            expected: RunModeKind::Host,
            actual: RunModeKind::Device
        })
    ));
    acl.finalize()?;
    assert_clean();
    Ok(())
}

/// A `'static` host function skipped by a device fault still releases what
/// it captured (design §4: nothing leaked).
#[test]
fn faulted_static_host_fn_releases_its_captures() -> Result<()> {
    let _sim = take(host_config());
    let acl = Acl::init()?;
    let device = acl.require::<HostMode>()?.device(0)?;
    make_guard!(g);
    let ctx = device.create_context(g)?;
    let stream = ctx.create_stream()?;
    let captured = std::sync::Arc::new(());
    let inside = captured.clone();
    sim::inject_task_fault(1, sys::ACL_ERROR_RT_AICORE_EXCEPTION);
    stream.launch_host_fn(move || drop(inside))?;
    let err = stream.synchronize().unwrap_err();
    assert_eq!(err.kind(), ErrorKind::DeviceFault);
    drop(stream);
    drop(ctx);
    drop(device);
    acl.finalize()?;
    assert_clean();
    assert_eq!(
        std::sync::Arc::strong_count(&captured),
        1,
        "the closure of a host function skipped by a device fault was leaked"
    );
    Ok(())
}
