//! Every public function of `aclrt`, in both run modes, with assertions on
//! the data it returns.

use crate::common;

use std::sync::Arc;
use std::sync::atomic::{AtomicU32, Ordering};
use std::time::Duration;

use aclrt::bounds::Memory;
use aclrt::sim::{self, ResourceKind};
use aclrt::{
    Acl, Detected, Device, DeviceMode, Error, ErrorKind, HostMode, MallocPolicy, Result, RunMode,
    RunModeKind, StreamFlags, SyncOnly, Timing, make_guard, sys,
};
use common::*;

// ------------------------------------------------------------ runtime level

#[test]
fn acl_queries_host_mode() -> Result<()> {
    let _sim = take(host_config());
    let acl = Acl::init()?;
    assert_eq!(acl.device_count()?, 2);
    assert_eq!(acl.run_mode(), RunModeKind::Host);
    let soc = acl.soc_name().expect("the simulator has a SoC name");
    assert!(!soc.is_empty());
    assert_eq!(
        acl.version()?,
        (
            sys::ACL_MAJOR_VERSION,
            sys::ACL_MINOR_VERSION,
            sys::ACL_PATCH_VERSION
        )
    );
    assert!(matches!(acl.detect(), Detected::Host(_)));
    let rt = acl.require::<HostMode>()?;
    assert!(std::ptr::eq(rt.acl(), &acl));
    assert_eq!(
        acl.require::<DeviceMode>().unwrap_err(),
        Error::WrongRunMode {
            expected: RunModeKind::Device,
            actual: RunModeKind::Host
        }
    );
    assert!(sim::audit().initialized);
    acl.finalize()?;
    assert!(!sim::audit().initialized);
    assert_clean();
    Ok(())
}

#[test]
fn acl_queries_device_mode() -> Result<()> {
    let _sim = take(sim::SimConfig {
        devices: 3,
        ..device_config()
    });
    let acl = Acl::init()?;
    assert_eq!(acl.device_count()?, 3);
    assert_eq!(acl.run_mode(), RunModeKind::Device);
    assert!(!acl.soc_name()?.is_empty());
    assert_eq!(acl.version()?.0, sys::ACL_MAJOR_VERSION);
    match acl.detect() {
        Detected::Device(rt) => {
            let device = rt.device(2)?;
            assert_eq!(device.id(), 2);
        }
        Detected::Host(_) => panic!("the simulator was configured for ACL_DEVICE"),
    }
    let err = acl.require::<HostMode>().unwrap_err();
    assert_eq!(
        err,
        Error::WrongRunMode {
            expected: RunModeKind::Host,
            actual: RunModeKind::Device
        }
    );
    assert_eq!(err.kind(), ErrorKind::InvalidParam);
    acl.finalize()?;
    assert_clean();
    Ok(())
}

#[test]
fn init_with_config_file() -> Result<()> {
    let _sim = take(host_config());
    let path = std::env::temp_dir().join(format!("aclrt-it-{}.json", std::process::id()));
    std::fs::write(&path, b"{}\n").expect("write the config file");
    let cpath = std::ffi::CString::new(path.to_str().expect("utf-8 temp path")).unwrap();
    let acl = Acl::init_with_config(&cpath)?;
    assert_eq!(acl.device_count()?, 2);
    let device = acl.require::<HostMode>()?.device(1)?;
    assert_eq!(device.id(), 1);
    device.reset()?;
    acl.finalize()?;
    // A missing file is the runtime's error, and leaves no live `Acl`.
    let missing = std::ffi::CString::new(
        path.with_extension("missing")
            .to_str()
            .expect("utf-8 temp path"),
    )
    .unwrap();
    let err = Acl::init_with_config(&missing).unwrap_err();
    assert_eq!(err.function(), Some("aclInit"));
    assert_eq!(err.code(), Some(sys::ACL_ERROR_INVALID_FILE));
    // Re-initialising with the same configuration works (a different one
    // would be refused by the runtime, as documented).
    let acl = Acl::init_with_config(&cpath)?;
    acl.finalize()?;
    let _ = std::fs::remove_file(&path);
    assert_clean();
    Ok(())
}

// ------------------------------------------------------------ mode-generic bodies

/// Device-level queries: memory info, streams and events available, peers.
fn device_level<M: RunMode>(device: &Device<'_, M>, peer: &Device<'_, M>) -> Result<()> {
    assert_eq!(device.id(), 0);
    assert_eq!(peer.id(), 1);
    device.synchronize()?;
    assert!(device.can_access_peer(peer)?);
    assert!(peer.can_access_peer(device)?);
    // The runtime refuses a device as its own peer.
    assert_eq!(
        device.can_access_peer(device).unwrap_err().kind(),
        ErrorKind::InvalidParam
    );

    make_guard!(g);
    let ctx = device.create_context(g)?;
    let before = device.memory_info()?;
    assert!(before.total > 0 && before.free <= before.total);
    let bytes = 1 << 20;
    let buf = ctx.alloc::<u8>(bytes)?;
    let during = device.memory_info()?;
    assert_eq!(during.total, before.total);
    assert!(
        before.free - during.free >= bytes,
        "{before:?} -> {during:?}"
    );
    buf.free()?;
    assert_eq!(device.memory_info()?, before);

    let streams = device.streams_available()?;
    assert!(streams > 0);
    let stream = ctx.create_stream()?;
    assert_eq!(device.streams_available()?, streams - 1);
    stream.destroy()?;
    assert_eq!(device.streams_available()?, streams);

    let events = ctx.events_available()?;
    assert!(events > 0);
    let event = ctx.create_event()?;
    assert_eq!(ctx.events_available()?, events - 1);
    event.destroy()?;
    assert_eq!(ctx.events_available()?, events);
    ctx.destroy()
}

/// Every allocation and synchronous copy of a context, checked on the data.
fn sync_memory<M: RunMode>(device: &Device<'_, M>) -> Result<()> {
    make_guard!(g);
    let ctx = device.create_context(g)?;
    ctx.make_current()?;
    assert!(!ctx.as_raw().is_null());
    assert_eq!(ctx.device_id()?, device.id());
    let data = pattern_u32(1000, 7);

    // pageable -> device -> pageable
    let mut d = ctx.alloc::<u32>(data.len())?;
    assert_eq!(d.len(), 1000);
    assert!(!d.is_empty());
    assert!(!d.as_device_ptr().is_null());
    assert_eq!(Memory::len(&d), 1000);
    ctx.copy(&data, &mut d)?;
    let mut back = vec![0u32; data.len()];
    ctx.copy(&d, &mut back)?;
    assert_eq!(back, data);

    // device -> device
    let mut d2 = ctx.alloc_zeroed::<u32>(data.len())?;
    let mut zeros = vec![1u32; data.len()];
    ctx.copy(&d2, &mut zeros)?;
    assert!(zeros.iter().all(|&v| v == 0));
    ctx.copy_on_device(&d, &mut d2)?;
    ctx.copy(&d2, &mut back[..])?;
    assert_eq!(back, data);

    // alloc_from, fixed-size arrays, f32 and array elements
    let f = pattern_f32(33, 1.25);
    let df = ctx.alloc_from(&f)?;
    let mut fb = vec![0.0f32; 33];
    ctx.copy(&df, &mut fb)?;
    assert_eq!(fb, f);
    let mut da = ctx.alloc::<[u16; 4]>(2)?;
    ctx.copy(&[[1u16, 2, 3, 4], [5, 6, 7, 8]], &mut da)?;
    let mut ab = [[0u16; 4]; 2];
    ctx.copy(&da, &mut ab)?;
    assert_eq!(ab, [[1, 2, 3, 4], [5, 6, 7, 8]]);

    // memset (synchronous)
    ctx.memset(&mut d2, 0xAB)?;
    ctx.copy(&d2, &mut back)?;
    assert!(back.iter().all(|&v| v == 0xABAB_ABAB));

    // views and sub-ranges
    let view = d.view(10..20)?;
    assert_eq!(Memory::len(&view), 10);
    assert!(!Memory::is_empty(&view));
    let mut part = [0u32; 10];
    ctx.copy(&view, &mut part)?;
    assert_eq!(part[..], data[10..20]);
    let tail = d.view(990..)?;
    let mut t = vec![0u32; 10];
    ctx.copy(&tail, &mut t)?;
    assert_eq!(t[..], data[990..]);
    {
        let mut window = d2.view_mut(100..=199)?;
        assert_eq!(Memory::len(&window), 100);
        ctx.copy(&data[..100], &mut window)?;
        // device view -> device view
        let src = d.view(..100)?;
        let mut w2 = d2.view_mut(500..600)?;
        ctx.copy_on_device(&src, &mut w2)?;
    }
    ctx.copy(&d2, &mut back)?;
    for (i, v) in back.iter().enumerate() {
        let want = match i {
            100..=199 => data[i - 100],
            500..=599 => data[i - 500],
            _ => 0xABAB_ABAB,
        };
        assert_eq!(*v, want, "element {i}");
    }
    let empty = d.view(5..5)?;
    assert!(Memory::is_empty(&empty));
    let (lo, hi) = (5, 2);
    assert_eq!(
        d.view(lo..hi).err(),
        Some(Error::OutOfRange {
            start: 5,
            end: 2,
            len: 1000
        })
    );
    assert_eq!(
        d.view_mut(..=1000).err(),
        Some(Error::OutOfRange {
            start: 0,
            end: 1001,
            len: 1000
        })
    );

    // pinned host memory (device memory the CPU addresses in ACL_DEVICE mode)
    let mut h = ctx.alloc_host_from(&data)?;
    assert_eq!(*h, data[..]);
    assert_eq!(h.to_vec(), data);
    assert_eq!(h.len(), 1000);
    h.set(0, 42)?;
    h.set(1, 43)?;
    let mut want = data.clone();
    want[0] = 42;
    want[1] = 43;
    ctx.copy(&h, &mut d)?;
    let mut hz = ctx.alloc_host_zeroed::<u32>(1000)?;
    assert!(hz.iter().all(|v| v == 0));
    ctx.copy(&d, &mut hz)?;
    assert_eq!(&hz[..], &want[..]);
    // host -> host through the runtime
    let mut h2 = ctx.alloc_host_zeroed::<u32>(1000)?;
    ctx.copy(&hz, &mut h2)?;
    assert_eq!(&h2[..], &want[..]);
    ctx.memset(&mut h2, 0x01)?;
    assert!(h2.iter().all(|v| v == 0x0101_0101));

    let u = ctx.alloc_host_uninit::<u32>(1000)?;
    assert_eq!(u.len(), 1000);
    assert!(!u.is_empty());
    let filled = u.fill(0x7F)?;
    assert!(filled.iter().all(|v| v == 0x7F7F_7F7F));
    let z = ctx.alloc_host_uninit::<u64>(3)?.zeroed();
    assert_eq!(&z[..], &[0, 0, 0]);
    let i = ctx.alloc_host_uninit::<u16>(3)?.init_from(&[9, 8, 7])?;
    assert_eq!(&i[..], &[9, 8, 7]);
    let from_dev = ctx.copy_into_uninit(&d, ctx.alloc_host_uninit(1000)?)?;
    assert_eq!(&from_dev[..], &want[..]);
    let from_view = ctx.copy_into_uninit(&d.view(3..6)?, ctx.alloc_host_uninit(3)?)?;
    assert_eq!(&from_view[..], &want[3..6]);
    let from_pageable = ctx.copy_into_uninit(&data[..4], ctx.alloc_host_uninit(4)?)?;
    assert_eq!(&from_pageable[..], &data[..4]);

    // policies
    for policy in [
        MallocPolicy::HugeFirst,
        MallocPolicy::HugeOnly,
        MallocPolicy::NormalOnly,
        MallocPolicy::HugeFirstP2p,
        MallocPolicy::HugeOnlyP2p,
        MallocPolicy::NormalOnlyP2p,
    ] {
        let mut p = ctx.alloc_with_policy::<u8>(100, policy)?;
        ctx.copy(&pattern_u8(100, 3), &mut p)?;
        let mut pb = vec![0u8; 100];
        ctx.copy(&p, &mut pb)?;
        assert_eq!(pb, pattern_u8(100, 3), "{policy:?}");
        p.free()?;
    }

    // explicit frees report their errors
    ctx.alloc_host_uninit::<u8>(16)?.free()?;
    h.free()?;
    filled.free()?;
    d.free()?;
    drop((d2, df, da, hz, h2, z, i, from_dev, from_view, from_pageable));
    let a = sim::audit();
    assert_eq!(live(&a, ResourceKind::DeviceMemory), 0);
    assert_eq!(live(&a, ResourceKind::HostMemory), 0);
    ctx.destroy()
}

/// The default context and its default stream.
fn default_context_and_stream<M: RunMode>(device: &Device<'_, M>) -> Result<()> {
    make_guard!(g);
    let ctx = device.default_context(g);
    assert!(!ctx.as_raw().is_null());
    assert_eq!(ctx.device_id()?, device.id());
    let data = pattern_u32(64, 99);
    let buf = ctx.alloc_from(&data)?;
    let stream = ctx.default_stream()?;
    stream.synchronize()?;
    assert!(stream.is_complete()?);
    let mut out = ctx.alloc_host_zeroed::<u32>(64)?;
    ctx.scope(|s| {
        make_guard!(l);
        let lane = s.lane(&stream, l);
        let x = lane.copy(&buf, &mut out)?;
        assert_eq!(x.len(), 64);
        assert!(!x.is_empty());
        let o = x.wait()?;
        assert_eq!(&o[..], &data[..]);
        Ok(())
    })?;
    assert_eq!(&out[..], &data[..]);
    // A host function on the default stream.
    let hits = Arc::new(AtomicU32::new(0));
    let h = hits.clone();
    stream.launch_host_fn(move || {
        h.fetch_add(5, Ordering::SeqCst);
    })?;
    stream.synchronize()?;
    assert_eq!(hits.load(Ordering::SeqCst), 5);
    ctx.synchronize()?;
    ctx.synchronize_timeout(Duration::from_secs(5))?;
    // The view has no destructor; dropping it must not destroy the stream.
    #[allow(clippy::drop_non_drop)]
    drop(stream);
    drop((buf, out));
    // Dropping the view neither destroyed the default context nor its stream.
    let again = ctx.alloc_from(&data)?;
    let mut back = vec![0u32; 64];
    ctx.copy(&again, &mut back)?;
    assert_eq!(back, data);
    Ok(())
}

/// Streams: creation, flags, completion, host functions, destruction.
fn streams<M: RunMode>(device: &Device<'_, M>) -> Result<()> {
    make_guard!(g);
    let ctx = device.create_context(g)?;
    let flags = StreamFlags::FAST_LAUNCH.union(StreamFlags::FAST_SYNC);
    assert_eq!(
        flags.bits(),
        sys::ACL_STREAM_FAST_LAUNCH | sys::ACL_STREAM_FAST_SYNC
    );
    assert_eq!(StreamFlags::NONE.bits(), 0);
    assert_eq!(StreamFlags::default(), StreamFlags::NONE);
    let plain = ctx.create_stream()?;
    let three = aclrt::StreamPriority::new(3).expect("in range");
    let configured = ctx.create_stream_with_config(three, flags)?;
    let none = ctx.create_stream_with_config(aclrt::StreamPriority::HIGHEST, StreamFlags::NONE)?;
    assert_eq!(configured.priority()?, three);
    assert_eq!(none.priority()?, aclrt::StreamPriority::HIGHEST);
    assert_eq!(plain.priority()?, aclrt::StreamPriority::HIGHEST);
    assert!(!plain.as_raw().is_null());
    assert_ne!(plain.as_raw(), configured.as_raw());
    for s in [&plain, &configured, &none] {
        assert!(s.is_complete()?);
        s.synchronize()?;
        // Idle: the timeout is only a hang guard.
        s.synchronize_timeout(HANG_GUARD)?;
    }
    // A host function blocked on a channel keeps the stream busy.
    let (tx, rx) = std::sync::mpsc::channel::<u32>();
    let (done_tx, done_rx) = std::sync::mpsc::channel::<u32>();
    plain.launch_host_fn(move || {
        let v = rx.recv().unwrap_or(0);
        let _ = done_tx.send(v * 2);
    })?;
    assert!(!plain.is_complete()?);
    tx.send(21).unwrap();
    plain.synchronize()?;
    assert!(plain.is_complete()?);
    assert_eq!(done_rx.try_recv(), Ok(42));
    // Host functions run in order.
    let log = Arc::new(std::sync::Mutex::new(Vec::new()));
    for i in 0..5 {
        let log = log.clone();
        configured.launch_host_fn(move || log.lock().unwrap().push(i))?;
    }
    configured.synchronize()?;
    assert_eq!(*log.lock().unwrap(), [0, 1, 2, 3, 4]);
    plain.destroy()?;
    configured.destroy()?;
    drop(none);
    assert_eq!(live(&sim::audit(), ResourceKind::Stream), 0);
    ctx.destroy()
}

/// Events: record, synchronise, query, time, reset, destroy.
fn events<M: RunMode>(device: &Device<'_, M>) -> Result<()> {
    make_guard!(g);
    let ctx = device.create_context(g)?;
    let stream = ctx.create_stream()?;

    let start = ctx.create_event()?;
    let end = ctx.create_event_of::<Timing>()?;
    assert!(!start.as_raw().is_null());
    let host = std::time::Instant::now();
    let start = stream.record(start)?;
    // The stream is held by a host function until the channel fires.
    let (tx, rx) = std::sync::mpsc::channel::<()>();
    stream.launch_host_fn(move || {
        let _ = rx.recv();
        std::thread::sleep(Duration::from_millis(20));
    })?;
    let end = stream.record(end)?;
    assert!(!end.is_complete()?);
    tx.send(()).unwrap();
    end.synchronize()?;
    assert!(end.is_complete()?);
    start.synchronize_timeout(HANG_GUARD)?;
    assert!(start.is_complete()?);
    let host_ms = host.elapsed().as_secs_f32() * 1e3;
    let ms = end.elapsed_since(&start)?;
    // At least the host function's 20 ms, and within the host's own
    // measurement of the same stretch (milliseconds, not another unit).
    assert!(
        ms >= 15.0 && ms <= host_ms,
        "elapsed {ms} ms of {host_ms} ms"
    );
    let back = start.elapsed_since(&end)?;
    assert!(back <= 0.0, "reverse elapsed {back} ms");

    // Re-recording replaces what the event captured.
    let start = stream.record(start)?;
    start.synchronize()?;

    // SyncOnly events can be reset and recorded again.
    let sync = ctx.create_event_of::<SyncOnly>()?;
    let sync = stream.record(sync)?;
    sync.synchronize()?;
    assert!(sync.is_complete()?);
    let sync = stream.reset_event(sync)?;
    let sync = stream.record(sync)?;
    sync.synchronize()?;
    assert!(sync.is_complete()?);

    let unrecorded = ctx.create_event_of::<SyncOnly>()?;
    unrecorded.destroy()?;
    sync.destroy()?;
    start.destroy()?;
    drop(end); // a recorded event is synchronised, then destroyed, on drop
    assert_eq!(live(&sim::audit(), ResourceKind::Event), 0);
    drop(stream);
    ctx.destroy()
}

/// Peer copy from device 0 to device 1.
fn peer_copy<M: RunMode>(dev0: &Device<'_, M>, dev1: &Device<'_, M>) -> Result<()> {
    make_guard!(g0);
    let ctx0 = dev0.create_context(g0)?;
    make_guard!(g1);
    let ctx1 = dev1.create_context(g1)?;
    assert_eq!(ctx0.device_id()?, 0);
    assert_eq!(ctx1.device_id()?, 1);
    let data = pattern_u32(300, 11);
    let src = ctx0.alloc_from(&data)?;
    let mut dst = ctx1.alloc_zeroed::<u32>(300)?;

    let access = dev0.enable_peer_access(dev1)?;
    assert_eq!(access.from_device(), 0);
    assert_eq!(access.to_device(), 1);
    ctx0.copy_to_peer(&access, &ctx1, &src, &mut dst)?;
    let mut back = vec![0u32; 300];
    ctx1.copy(&dst, &mut back)?;
    assert_eq!(back, data);

    // A sub-range into a view of the peer buffer.
    {
        let mut window = dst.view_mut(0..10)?;
        ctx0.copy_to_peer(&access, &ctx1, &src.view(290..)?, &mut window)?;
    }
    ctx1.copy(&dst, &mut back)?;
    assert_eq!(back[..10], data[290..]);
    assert_eq!(back[10..], data[10..]);

    // Access in the other direction does not allow 0 -> 1.
    let reverse = dev1.enable_peer_access(dev0)?;
    assert!(matches!(
        ctx0.copy_to_peer(&reverse, &ctx1, &src, &mut dst)
            .unwrap_err(),
        Error::PeerAccess { from: 0, to: 1, .. }
    ));
    // 1 -> 0 works with it.
    let mut dst0 = ctx0.alloc_zeroed::<u32>(300)?;
    ctx1.copy_to_peer(&reverse, &ctx0, &dst, &mut dst0)?;
    ctx0.copy(&dst0, &mut back)?;
    assert_eq!(back[10..], data[10..]);
    // Length mismatch is checked before anything else.
    let mut short = ctx1.alloc::<u32>(299)?;
    assert_eq!(
        ctx0.copy_to_peer(&access, &ctx1, &src, &mut short)
            .unwrap_err(),
        Error::LengthMismatch { src: 300, dst: 299 }
    );
    // A device is not its own peer.
    assert!(matches!(
        dev0.enable_peer_access(dev0),
        Err(Error::PeerAccess { from: 0, to: 0, .. })
    ));
    reverse.disable()?;
    access.disable()?;
    drop((src, dst, dst0, short));
    ctx1.destroy()?;
    ctx0.destroy()
}

/// The CPU API of pinned memory (`PinnedSlice`), the same in both run
/// modes, and sub-slices of pinned memory as copy, memset and asynchronous
/// copy operands of their own context.
fn pinned_slices<M: RunMode>(device: &Device<'_, M>) -> Result<()> {
    make_guard!(g);
    let ctx = device.create_context(g)?;
    let data = pattern_u32(64, 3);
    let mut h = ctx.alloc_host_from(&data)?;

    // reads
    assert_eq!(h.len(), 64);
    assert!(!h.is_empty());
    assert_eq!(h.get(1), Some(data[1]));
    assert_eq!(h.get(64), None);
    assert_eq!(h.first(), data.first().copied());
    assert_eq!(h.last(), data.last().copied());
    assert_eq!(h.get(5), Some(data[5]));
    assert_eq!(h.iter().collect::<Vec<_>>(), data);
    assert_eq!(h.iter().next_back(), data.last().copied());
    assert_eq!(h.iter().len(), 64);
    assert_eq!((&*h).into_iter().count(), 64);
    assert_eq!((&h).into_iter().nth(2), Some(data[2]));
    assert_eq!(h.to_vec(), data);
    let mut out = vec![0u32; 64];
    h.copy_to_slice(&mut out);
    assert_eq!(out, data);
    // comparisons, both ways
    assert_eq!(*h, data[..]);
    assert_eq!(*h, data);
    assert_eq!(data, *h);
    assert_eq!(data[..], *h);
    assert_eq!(*h, &data[..]);
    assert_eq!(h[..2], [data[0], data[1]]);
    assert_eq!([data[0], data[1]], h[..2]);
    assert_ne!(*h, data[1..]);
    let h2 = ctx.alloc_host_from(&data)?;
    assert_eq!(*h, *h2);
    assert_eq!(format!("{:?}", &h[..3]), format!("{:?}", &data[..3]));
    assert_eq!(format!("{:?}", h.iter()), "PinnedIter { remaining: 64 }");

    // sub-slices stay pinned memory of this context
    let (lo, hi) = h.split_at(16);
    assert_eq!((lo.len(), hi.len()), (16, 48));
    assert_eq!(*lo, data[..16]);
    assert_eq!(*hi, data[16..]);
    assert_eq!(h[10..20], data[10..20]);
    assert_eq!(h[10..=20], data[10..=20]);
    assert_eq!(h[..=3], data[..=3]);
    assert_eq!(h[60..], data[60..]);
    let chunks: Vec<Vec<u32>> = h.chunks(24).map(|c| c.to_vec()).collect();
    let want: Vec<Vec<u32>> = data.chunks(24).map(<[u32]>::to_vec).collect();
    assert_eq!(chunks, want);
    assert_eq!(h.chunks(24).len(), 3);
    assert_eq!(h.chunks(24).next_back().map(|c| c.len()), Some(16));
    let mut on_device = ctx.alloc::<u32>(16)?;
    ctx.copy(&h[16..32], &mut on_device)?;
    let mut back = vec![0u32; 16];
    ctx.copy(&on_device, &mut back)?;
    assert_eq!(back, data[16..32]);

    // writes
    h.set(0, 7)?;
    assert_eq!(h.update(1, |_| 8)?, 8);
    assert!(h.set(64, 0).is_err());
    h[2..4].fill(9);
    h[4..6].update_all(|_| 10);
    assert_eq!(h[..6], [7, 8, 9, 9, 10, 10]);
    h.fill(1);
    assert!(h.iter().all(|x| x == 1));
    h.copy_from_slice(&data);
    assert_eq!(*h, data);
    {
        let (a, b) = h.split_at_mut(32);
        a.fill(2);
        b.set(0, 3)?;
    }
    assert_eq!(h[31..34], [2, 3, data[33]]);
    for (i, c) in h.chunks_mut(16).enumerate() {
        c.fill(i as u32);
    }
    assert_eq!(h[15..17], [0, 1]);
    assert_eq!(h.get(63), Some(3));
    // a memset and a copy into a part of pinned memory, on its own context
    ctx.memset(&mut h[..8], 0xff)?;
    assert_eq!(
        h[..9],
        [
            u32::MAX,
            u32::MAX,
            u32::MAX,
            u32::MAX,
            u32::MAX,
            u32::MAX,
            u32::MAX,
            u32::MAX,
            0
        ]
    );
    ctx.copy(&on_device, &mut h[48..])?;
    assert_eq!(h[48..], data[16..32]);

    // sub-slices as asynchronous copy operands: the halves swap places
    let stream = ctx.create_stream()?;
    let mut staged = ctx.alloc::<u32>(32)?;
    let mut staged2 = ctx.alloc::<u32>(32)?;
    let src = ctx.alloc_host_from(&data)?;
    let mut result = ctx.alloc_host_zeroed::<u32>(64)?;
    ctx.scope(|s| {
        make_guard!(l);
        let lane = s.lane(&stream, l);
        let (first, second) = src.split_at(32);
        let (out_first, out_second) = result.split_at_mut(32);
        let a = lane.copy(second, &mut staged)?;
        let b = lane.copy(first, &mut staged2)?;
        let a = lane.copy(&a, out_first)?;
        let cleared = lane.memset(out_second, 0xff)?;
        let b = lane.copy(&b, cleared)?;
        assert_eq!(*a.wait()?, data[32..]);
        assert_eq!(*b.wait()?, data[..32]);
        Ok(())
    })?;
    assert_eq!(result[..32], data[32..]);
    assert_eq!(result[32..], data[..32]);
    drop((h, h2, on_device, staged, staged2, src, result));
    stream.destroy()?;
    ctx.destroy()
}

fn everything<M: RunMode>(acl: &Acl) -> Result<()> {
    let rt = acl.require::<M>()?;
    let dev0 = rt.device(0)?;
    let dev1 = rt.device(1)?;
    device_level(&dev0, &dev1)?;
    sync_memory(&dev0)?;
    sync_memory(&dev1)?;
    default_context_and_stream(&dev0)?;
    streams(&dev0)?;
    events(&dev1)?;
    peer_copy(&dev0, &dev1)?;
    pinned_slices(&dev1)?;
    // Two references on one device are counted.
    let dev0_again = rt.device(0)?;
    dev0_again.reset()?;
    assert_eq!(sim::audit().live[&(ResourceKind::Device, 0)], 1);
    dev1.reset()?;
    dev0.reset()
}

#[test]
fn every_function_host_mode() -> Result<()> {
    let _sim = take(host_config());
    let acl = Acl::init()?;
    everything::<HostMode>(&acl)?;
    acl.finalize()?;
    assert_clean();
    Ok(())
}

#[test]
fn every_function_device_mode() -> Result<()> {
    let _sim = take(device_config());
    let acl = Acl::init()?;
    everything::<DeviceMode>(&acl)?;
    acl.finalize()?;
    assert_clean();
    Ok(())
}

// ------------------------------------------------------------ host-mode-only API

#[test]
fn upload_download_host_mode() -> Result<()> {
    let _sim = take(host_config());
    let acl = Acl::init()?;
    let device = acl.require::<HostMode>()?.device(0)?;
    make_guard!(g);
    let ctx = device.create_context(g)?;
    let data = pattern_f32(257, -3.0);
    let pinned = ctx.alloc_host_from(&data)?;
    let mut d = ctx.alloc::<f32>(257)?;
    ctx.upload(&pinned, &mut d)?;
    let mut out = vec![0.0f32; 257];
    ctx.download(&d, &mut out)?;
    assert_eq!(out, data);
    // pageable upload, pinned download, view download
    let mut d2 = ctx.alloc::<f32>(257)?;
    ctx.upload(&data[..], &mut d2)?;
    let mut pout = ctx.alloc_host_zeroed::<f32>(257)?;
    ctx.download(&d2, &mut pout)?;
    assert_eq!(&pout[..], &data[..]);
    let mut few = [0.0f32; 7];
    ctx.download(&d2.view(250..)?, &mut few)?;
    assert_eq!(few[..], data[250..]);
    ctx.upload(&few, &mut d2.view_mut(0..7)?)?;
    ctx.download(&d2, &mut out)?;
    assert_eq!(out[..7], data[250..]);
    assert_eq!(out[7..], data[7..]);
    // In host run mode pinned memory is also a plain slice (pageable memory).
    let plain: &[f32] = &pinned;
    assert_eq!(plain, &data[..]);
    assert_eq!(pinned.as_slice(), &data[..]);
    assert_eq!(pinned.as_pinned().as_slice(), &data[..]);
    assert_eq!(pinned.windows(2).count(), 256);
    pout.as_mut_slice()[0] = 0.5;
    pout.as_pinned_mut().as_mut_slice()[1] = 0.25;
    assert_eq!(pout[..2], [0.5, 0.25]);
    drop((pinned, d, d2, pout));
    ctx.destroy()?;
    device.reset()?;
    acl.finalize()?;
    assert_clean();
    Ok(())
}

/// The run modes carry their C values. (The memcpy kind table, computed from
/// the run mode and the places of both operands, is a unit test of the crate:
/// it has no public value-level form.)
#[test]
fn run_mode_values() {
    assert_eq!(HostMode::KIND, RunModeKind::Host);
    assert_eq!(DeviceMode::KIND, RunModeKind::Device);
    assert_eq!(HostMode::ACL_VALUE, sys::ACL_HOST);
    assert_eq!(DeviceMode::ACL_VALUE, sys::ACL_DEVICE);
}

#[test]
fn malloc_policy_values() {
    assert_eq!(MallocPolicy::default(), MallocPolicy::HugeFirst);
    assert_eq!(
        MallocPolicy::HugeFirst.to_raw(),
        sys::ACL_MEM_MALLOC_HUGE_FIRST
    );
    assert_eq!(
        MallocPolicy::HugeOnly.to_raw(),
        sys::ACL_MEM_MALLOC_HUGE_ONLY
    );
    assert_eq!(
        MallocPolicy::NormalOnly.to_raw(),
        sys::ACL_MEM_MALLOC_NORMAL_ONLY
    );
    assert_eq!(
        MallocPolicy::HugeFirstP2p.to_raw(),
        sys::ACL_MEM_MALLOC_HUGE_FIRST_P2P
    );
    assert_eq!(
        MallocPolicy::HugeOnlyP2p.to_raw(),
        sys::ACL_MEM_MALLOC_HUGE_ONLY_P2P
    );
    assert_eq!(
        MallocPolicy::NormalOnlyP2p.to_raw(),
        sys::ACL_MEM_MALLOC_NORMAL_ONLY_P2P
    );
}

#[test]
fn error_classification_and_accessors() {
    assert_eq!(
        ErrorKind::from_code(sys::ACL_ERROR_RT_AICORE_EXCEPTION),
        ErrorKind::DeviceFault
    );
    assert_eq!(ErrorKind::from_code(207001), ErrorKind::OutOfMemory);
    assert_eq!(ErrorKind::from_code(207007), ErrorKind::ResourceExhausted);
    assert_eq!(ErrorKind::from_code(207008), ErrorKind::ResourceExhausted);
    assert_eq!(ErrorKind::from_code(507046), ErrorKind::Timeout);
    assert_eq!(ErrorKind::from_code(507047), ErrorKind::Timeout);
    assert_eq!(ErrorKind::from_code(107001), ErrorKind::InvalidDevice);
    assert_eq!(ErrorKind::from_code(107003), ErrorKind::WrongContext);
    assert_eq!(ErrorKind::from_code(100002), ErrorKind::Lifecycle);
    assert_eq!(ErrorKind::from_code(123_456), ErrorKind::Internal);

    let e = Error::Acl {
        code: 507046,
        kind: ErrorKind::Timeout,
        function: "aclrtSynchronizeStreamWithTimeout",
        message: "late".into(),
    };
    assert!(e.is_timeout());
    assert_eq!(e.code(), Some(507046));
    assert_eq!(e.function(), Some("aclrtSynchronizeStreamWithTimeout"));
    let text = e.to_string();
    assert!(text.contains("aclrtSynchronizeStreamWithTimeout") && text.contains("507046"));
    assert!(text.contains("late"));

    let rust_side = Error::LengthMismatch { src: 1, dst: 2 };
    assert_eq!(rust_side.code(), None);
    assert_eq!(rust_side.function(), None);
    assert!(!rust_side.is_timeout());
    assert_eq!(rust_side.kind(), ErrorKind::InvalidParam);
    assert_eq!(Error::AlreadyInitialized.kind(), ErrorKind::Lifecycle);
    assert_eq!(
        Error::NoSuchDevice { id: 9, count: 2 }.kind(),
        ErrorKind::InvalidDevice
    );
    assert!(
        Error::NoSuchDevice { id: 9, count: 2 }
            .to_string()
            .contains('9')
    );
}
