//! Overlapping pipelines and the scope's error type: device buffers
//! split into disjoint parts used by different lanes at once, views and
//! events made inside a scope, one producer feeding several readers
//! (fan-out) and joining back, and scopes whose closures return the
//! application's error type.

use crate::common;

use std::time::Duration;

use aclrt::sim;
use aclrt::{Acl, Device, DeviceMode, Error, HostMode, Result, RunMode, SyncOnly, make_guard};
use common::*;

/// Double buffering on one device buffer: its two halves are filled by two
/// lanes at once, each from its own half of one pinned buffer, and read
/// back into the halves of another.
fn split_halves<M: RunMode>(device: &Device<'_, M>) -> Result<()> {
    make_guard!(g);
    let ctx = device.create_context(g)?;
    let (a, b) = (ctx.create_stream()?, ctx.create_stream()?);
    // Slow lanes: if the halves were not really independent, or the
    // copies not ordered, the result would be wrong.
    sim::set_stream_delay(a.as_raw(), Duration::from_millis(2));
    sim::set_stream_delay(b.as_raw(), Duration::from_millis(2));
    let data = pattern_u32(2048, 5);
    let input = ctx.alloc_host_from(&data)?;
    let mut dev = ctx.alloc::<u32>(2048)?;
    let mut out = ctx.alloc_host_zeroed::<u32>(2048)?;
    ctx.scope(|s| {
        make_guard!(ga);
        make_guard!(gb);
        let (la, lb) = (s.lane(&a, ga), s.lane(&b, gb));
        // The views are made inside the scope and passed by value.
        let (lo, hi) = dev.split_at_mut(1000)?;
        let (in_lo, in_hi) = input.split_at(1000);
        let (out_lo, out_hi) = out.split_at_mut(1000);
        let lo = la.copy(in_lo, lo)?;
        let hi = lb.copy(in_hi, hi)?;
        let x = la.copy(&lo, out_lo)?;
        let y = lb.copy(&hi, out_hi)?;
        assert_eq!((x.len(), y.len()), (1000, 1048));
        Ok(())
    })?;
    assert_eq!(out.to_vec(), data);
    Ok(())
}

#[test]
fn split_device_buffer_across_two_lanes_host_mode() -> Result<()> {
    let _sim = take(host_config());
    let acl = Acl::init()?;
    split_halves(&acl.require::<HostMode>()?.device(0)?)?;
    acl.finalize()?;
    assert_clean();
    Ok(())
}

#[test]
fn split_device_buffer_across_two_lanes_device_mode() -> Result<()> {
    let _sim = take(device_config());
    let acl = Acl::init()?;
    split_halves(&acl.require::<DeviceMode>()?.device(1)?)?;
    acl.finalize()?;
    assert_clean();
    Ok(())
}

/// `chunks_mut` gives one writable part per lane; each lane memsets its own
/// chunk with its own byte.
#[test]
fn chunks_of_one_buffer_on_four_lanes() -> Result<()> {
    let _sim = take(host_config());
    let acl = Acl::init()?;
    {
        let device = acl.require::<HostMode>()?.device(0)?;
        make_guard!(g);
        let ctx = device.create_context(g)?;
        let streams = [
            ctx.create_stream()?,
            ctx.create_stream()?,
            ctx.create_stream()?,
            ctx.create_stream()?,
        ];
        let mut dev = ctx.alloc::<u8>(1000)?;
        let mut out = ctx.alloc_host_zeroed::<u8>(1000)?;
        ctx.scope(|s| {
            make_guard!(g0);
            make_guard!(g1);
            make_guard!(g2);
            make_guard!(g3);
            let (l0, l1, l2, l3) = (
                s.lane(&streams[0], g0),
                s.lane(&streams[1], g1),
                s.lane(&streams[2], g2),
                s.lane(&streams[3], g3),
            );
            let mut parts = dev.chunks_mut(256)?;
            let mut outs = out.chunks_mut(256);
            // Lanes have different brands (types), so they are used one by one.
            macro_rules! step {
                ($lane:expr, $byte:expr) => {{
                    let part = parts.next().expect("a chunk");
                    let part = $lane.memset(part, $byte)?;
                    let _ = $lane.copy(&part, outs.next().expect("a chunk"))?;
                }};
            }
            step!(l0, 1);
            step!(l1, 2);
            step!(l2, 3);
            step!(l3, 4);
            assert!(parts.next().is_none());
            Ok(())
        })?;
        let got = out.to_vec();
        assert!(got[..256].iter().all(|&b| b == 1));
        assert!(got[256..512].iter().all(|&b| b == 2));
        assert!(got[512..768].iter().all(|&b| b == 3));
        assert!(got[768..].iter().all(|&b| b == 4), "last chunk is 232 long");
    }
    acl.finalize()?;
    assert_clean();
    Ok(())
}

/// Splitting checks its arguments.
#[test]
fn split_and_chunk_errors() -> Result<()> {
    let _sim = take(host_config());
    let acl = Acl::init()?;
    {
        let device = acl.require::<HostMode>()?.device(0)?;
        make_guard!(g);
        let ctx = device.create_context(g)?;
        let mut dev = ctx.alloc::<u16>(10)?;
        assert!(matches!(
            dev.split_at_mut(11),
            Err(Error::OutOfRange { len: 10, .. })
        ));
        assert!(matches!(dev.split_at(11), Err(Error::OutOfRange { .. })));
        assert!(matches!(dev.chunks(0), Err(Error::ZeroChunkSize)));
        assert!(matches!(dev.chunks_mut(0), Err(Error::ZeroChunkSize)));
        let (a, b) = dev.split_at(10)?;
        assert_eq!((a.len(), b.len()), (10, 0));
        let lens: Vec<usize> = dev.chunks(3)?.map(|v| v.len()).collect();
        assert_eq!(lens, [3, 3, 3, 1]);
        let (x, y) = dev.split_at_mut(4)?;
        let (x1, x2) = x.split_at_mut(1)?;
        assert_eq!((x1.len(), x2.len(), y.len()), (1, 3, 6));
        assert!(matches!(y.split_at_mut(7), Err(Error::OutOfRange { .. })));
    }
    acl.finalize()?;
    assert_clean();
    Ok(())
}

/// One producer, two consumers reading the same device buffer at the same
/// time, then the producer takes it back and overwrites it. The readers are
/// slow: if `reclaim` did not wait for them, the overwrite would reach
/// their outputs.
fn fan_out<M: RunMode>(device: &Device<'_, M>) -> Result<()> {
    make_guard!(g);
    let ctx = device.create_context(g)?;
    let (p, r1, r2) = (
        ctx.create_stream()?,
        ctx.create_stream()?,
        ctx.create_stream()?,
    );
    sim::set_stream_delay(r1.as_raw(), Duration::from_millis(20));
    sim::set_stream_delay(r2.as_raw(), Duration::from_millis(30));
    let data = pattern_u32(4096, 9);
    let input = ctx.alloc_host_from(&data)?;
    let mut dev = ctx.alloc::<u32>(4096)?;
    let mut out1 = ctx.alloc_host_zeroed::<u32>(4096)?;
    let mut out2 = ctx.alloc_host_zeroed::<u32>(4096)?;
    let mut after = ctx.alloc_host_zeroed::<u32>(4096)?;
    ctx.scope(|s| {
        make_guard!(gp);
        make_guard!(g1);
        make_guard!(g2);
        let (lp, l1, l2) = (s.lane(&p, gp), s.lane(&r1, g1), s.lane(&r2, g2));
        let shared = lp.share(lp.copy(&input, &mut dev)?)?;
        assert_eq!(shared.len(), 4096);
        let reading = l1.read(&shared)?;
        // Reading again on the same lane waits only once.
        let again = l1.read(&shared)?;
        let _a = l1.copy(&reading, &mut out1)?;
        let _ = (reading, again);
        let _b = l2.copy(&l2.read(&shared)?, &mut out2)?;
        let dev = lp.reclaim(shared)?;
        let dev = lp.memset(dev, 0xFF)?;
        let _ = lp.copy(&dev, &mut after)?;
        Ok(())
    })?;
    assert_eq!(out1.to_vec(), data);
    assert_eq!(out2.to_vec(), data);
    assert!(after.iter().all(|v| v == u32::MAX));
    Ok(())
}

#[test]
fn fan_out_and_join_host_mode() -> Result<()> {
    let _sim = take(host_config());
    let acl = Acl::init()?;
    fan_out(&acl.require::<HostMode>()?.device(0)?)?;
    acl.finalize()?;
    assert_clean();
    Ok(())
}

#[test]
fn fan_out_and_join_device_mode() -> Result<()> {
    let _sim = take(device_config());
    let acl = Acl::init()?;
    fan_out(&acl.require::<DeviceMode>()?.device(0)?)?;
    acl.finalize()?;
    assert_clean();
    Ok(())
}

/// Reclaiming on a reader lane joins the other readers and the producer.
#[test]
fn reclaim_on_a_reader_lane() -> Result<()> {
    let _sim = take(host_config());
    let acl = Acl::init()?;
    {
        let device = acl.require::<HostMode>()?.device(0)?;
        make_guard!(g);
        let ctx = device.create_context(g)?;
        let (p, r1, r2) = (
            ctx.create_stream()?,
            ctx.create_stream()?,
            ctx.create_stream()?,
        );
        sim::set_stream_delay(r2.as_raw(), Duration::from_millis(25));
        let input = ctx.alloc_host_from(&[7u8; 512])?;
        let mut dev = ctx.alloc::<u8>(512)?;
        let mut out2 = ctx.alloc_host_zeroed::<u8>(512)?;
        let mut back = ctx.alloc_host_zeroed::<u8>(512)?;
        ctx.scope(|s| {
            make_guard!(gp);
            make_guard!(g1);
            make_guard!(g2);
            let (lp, l1, l2) = (s.lane(&p, gp), s.lane(&r1, g1), s.lane(&r2, g2));
            let shared = lp.share(lp.copy(&input, &mut dev)?)?;
            let _ = l1.read(&shared)?;
            let _b = l2.copy(&l2.read(&shared)?, &mut out2)?;
            // Lane 1 takes it over: it waits for lane 2's slow read first.
            let dev = l1.reclaim(shared)?;
            let dev = l1.memset(dev, 1)?;
            let got = l1.copy(&dev, &mut back)?.wait()?;
            assert!(got.iter().all(|v| v == 1));
            Ok(())
        })?;
        assert!(out2.iter().all(|v| v == 7));
    }
    acl.finalize()?;
    assert_clean();
    Ok(())
}

/// A user event created and recorded inside the scope, kept by the scope,
/// waited for by another lane, and destroyed after the scope's end.
#[test]
fn event_recorded_inside_scope_waited_by_another_lane() -> Result<()> {
    let _sim = take(host_config());
    let acl = Acl::init()?;
    {
        let device = acl.require::<HostMode>()?.device(0)?;
        make_guard!(g);
        let ctx = device.create_context(g)?;
        let (a, b) = (ctx.create_stream()?, ctx.create_stream()?);
        sim::set_stream_delay(a.as_raw(), Duration::from_millis(20));
        let input = ctx.alloc_host_from(&[9u8; 256])?;
        let mut dev = ctx.alloc::<u8>(256)?;
        let events_before = ctx.events_available()?;
        ctx.scope(|s| {
            make_guard!(ga);
            make_guard!(gb);
            let (la, lb) = (s.lane(&a, ga), s.lane(&b, gb));
            let _x = la.copy(&input, &mut dev)?;
            let done = s.keep(la.record(ctx.create_event_of::<SyncOnly>()?)?);
            lb.wait_event(done)?;
            // Lane b cannot finish before lane a's slow copy.
            lb.synchronize()?;
            assert!(la.is_complete()?);
            assert!(done.is_complete()?);
            Ok(())
        })?;
        // The kept event was destroyed when the scope ended.
        assert_eq!(ctx.events_available()?, events_before);
    }
    acl.finalize()?;
    assert_clean();
    Ok(())
}

/// Kept values are dropped also when the closure panics, after the
/// streams are idle; a stream made and kept inside the scope can carry a
/// lane, and is destroyed after the values kept after it.
#[test]
fn kept_values_drop_on_panic_last_kept_first() -> Result<()> {
    let _sim = take(host_config());
    let acl = Acl::init()?;
    {
        let device = acl.require::<HostMode>()?.device(0)?;
        make_guard!(g);
        let ctx = device.create_context(g)?;
        let mut dev = ctx.alloc::<u8>(1 << 16)?;
        let events_before = ctx.events_available()?;
        let streams_before = device.streams_available()?;
        let r = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            ctx.scope(|s| {
                let stream = s.keep(ctx.create_stream()?);
                sim::set_stream_delay(stream.as_raw(), Duration::from_millis(10));
                make_guard!(l);
                let lane = s.lane(stream, l);
                let _ = lane.memset(&mut dev, 3)?;
                s.keep(lane.record(ctx.create_event_of::<SyncOnly>()?)?);
                let view = s.keep(ctx.alloc::<u8>(16)?);
                let _ = lane.memset(view, 1)?;
                panic!("boom");
                #[allow(unreachable_code)]
                Ok(())
            })
        }));
        assert!(r.is_err());
        assert_eq!(ctx.events_available()?, events_before);
        assert_eq!(device.streams_available()?, streams_before);
        let mut back = vec![0u8; 1 << 16];
        ctx.copy(&dev, &mut back)?;
        assert!(
            back.iter().all(|&b| b == 3),
            "the memset ran before the end"
        );
    }
    acl.finalize()?;
    assert_clean();
    Ok(())
}

#[derive(Debug)]
enum AppError {
    Npu(aclrt::Error),
    Rejected(u32),
}

impl From<aclrt::Error> for AppError {
    fn from(e: aclrt::Error) -> Self {
        AppError::Npu(e)
    }
}

/// `try_scope`: `?` on the application's errors and on aclrt's inside one
/// closure; the scope still synchronises before returning the error.
#[test]
fn try_scope_returns_the_callers_error_type() -> Result<()> {
    let _sim = take(host_config());
    let acl = Acl::init()?;
    {
        let device = acl.require::<HostMode>()?.device(0)?;
        make_guard!(g);
        let ctx = device.create_context(g)?;
        let stream = ctx.create_stream()?;
        sim::set_stream_delay(stream.as_raw(), Duration::from_millis(10));
        let mut dev = ctx.alloc::<u8>(64)?;
        let validate = |n: u32| {
            if n > 3 {
                Err(AppError::Rejected(n))
            } else {
                Ok(n)
            }
        };
        let r = ctx.try_scope(|s| -> std::result::Result<u32, AppError> {
            make_guard!(l);
            let lane = s.lane(&stream, l);
            let _ = lane.memset(&mut dev, 1)?;
            validate(7)?;
            Ok(0)
        });
        assert!(matches!(r, Err(AppError::Rejected(7))));
        assert!(stream.is_complete()?, "synchronised before returning");
        // An aclrt error inside the closure arrives as AppError::Npu.
        let r = ctx.try_scope(|s| -> std::result::Result<(), AppError> {
            make_guard!(l);
            let lane = s.lane(&stream, l);
            let (a, _) = dev.split_at_mut(10)?;
            // A buffer made inside the scope, kept to get the scope's lifetime.
            let x = s.keep(ctx.alloc_host_zeroed::<u8>(11)?);
            let _ = lane.copy(&*x, a)?;
            Ok(())
        });
        assert!(matches!(
            r,
            Err(AppError::Npu(Error::LengthMismatch { src: 11, dst: 10 }))
        ));
        // The scope's own error (a missed deadline) is converted too.
        sim::set_stream_delay(stream.as_raw(), Duration::from_secs(5));
        let r = ctx.try_scope_with_timeout(
            Duration::from_millis(30),
            |s| -> std::result::Result<(), AppError> {
                make_guard!(l);
                let lane = s.lane(&stream, l);
                let _ = lane.memset(&mut dev, 2)?;
                Ok(())
            },
        );
        assert!(matches!(r, Err(AppError::Npu(Error::ScopeTimeout { .. }))));
        sim::clear_faults();
    }
    acl.finalize()?;
    assert_clean();
    Ok(())
}

/// Attacks on the fan-out and split operands: forgetting a `Shared`, a
/// `Reading` and an `InFlight` of a by-value view, and panicking with a
/// shared buffer being read on slow lanes. The scope still synchronises
/// every lane before the buffers come back, and nothing leaks. (These
/// types have no `Drop`: forgetting one is dropping it, which is the point.)
#[test]
#[allow(clippy::forget_non_drop)]
fn forgotten_shared_readings_and_views_are_harmless() -> Result<()> {
    let _sim = take(host_config());
    let acl = Acl::init()?;
    {
        let device = acl.require::<HostMode>()?.device(0)?;
        make_guard!(g);
        let ctx = device.create_context(g)?;
        let (p, r) = (ctx.create_stream()?, ctx.create_stream()?);
        sim::set_stream_delay(r.as_raw(), Duration::from_millis(20));
        let input = ctx.alloc_host_from(&[4u8; 1024])?;
        let mut dev = ctx.alloc::<u8>(1024)?;
        let mut out = ctx.alloc_host_zeroed::<u8>(1024)?;
        let mut other = ctx.alloc::<u8>(1024)?;
        ctx.scope(|s| {
            make_guard!(gp);
            make_guard!(gr);
            let (lp, lr) = (s.lane(&p, gp), s.lane(&r, gr));
            let shared = lp.share(lp.copy(&input, &mut dev)?)?;
            let reading = lr.read(&shared)?;
            let _ = lr.copy(&reading, &mut out)?;
            std::mem::forget(reading);
            std::mem::forget(shared);
            let (half, _) = other.split_at_mut(512)?;
            std::mem::forget(lp.memset(half, 9)?);
            Ok(())
        })?;
        // The slow read finished before the scope returned.
        assert!(out.iter().all(|v| v == 4));
        let mut back = vec![0u8; 1024];
        ctx.copy(&other, &mut back)?;
        assert!(back[..512].iter().all(|&v| v == 9));
        // A panic while a shared buffer is being read on a slow lane.
        let r2 = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            ctx.scope(|s| {
                make_guard!(gp);
                make_guard!(gr);
                let (lp, lr) = (s.lane(&p, gp), s.lane(&r, gr));
                let shared = lp.share(lp.memset(&mut dev, 6)?)?;
                let _ = lr.copy(&lr.read(&shared)?, &mut out)?;
                panic!("boom");
                #[allow(unreachable_code)]
                Ok(())
            })
        }));
        assert!(r2.is_err());
        assert!(r.is_complete()?, "the slow lane was synchronised on unwind");
        assert!(out.iter().all(|v| v == 6));
    }
    acl.finalize()?;
    assert_clean();
    Ok(())
}
