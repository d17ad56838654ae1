//! Asynchronous work in scopes: lanes, hand-offs between streams, host
//! functions, events, threads, and what happens on panic, error and fault.

use crate::common;

use std::panic::{AssertUnwindSafe, catch_unwind};
use std::sync::atomic::{AtomicU32, AtomicU64, Ordering};
use std::sync::{Arc, mpsc};
use std::time::Duration;

use aclrt::sim;
use aclrt::{
    Acl, Device, DeviceMode, ErrorKind, HostMode, Result, RunMode, SyncOnly, make_guard, sys,
};
use common::*;

fn checksum(data: &[u32]) -> u64 {
    data.iter()
        .enumerate()
        .map(|(i, &v)| (i as u64 + 1) * u64::from(v))
        .sum::<u64>()
        | 1
}

/// H2D, D2D, memset, D2H through one lane, with views as operands.
fn scope_roundtrip<M: RunMode>(device: &Device<'_, M>) -> Result<()> {
    make_guard!(g);
    let ctx = device.create_context(g)?;
    let stream = ctx.create_stream()?;
    let data = pattern_u32(4096, 17);
    let input = ctx.alloc_host_from(&data)?;
    let mut d1 = ctx.alloc::<u32>(4096)?;
    let mut d2 = ctx.alloc::<u32>(4096)?;
    let mut out = ctx.alloc_host_zeroed::<u32>(4096)?;
    let mut filled = ctx.alloc_host_zeroed::<u32>(4096)?;
    let mut d3 = ctx.alloc::<u32>(8192)?;
    let mut tail = d3.view_mut(4096..)?;
    let mut half = ctx.alloc_host_zeroed::<u32>(4096)?;
    let returned = ctx.scope(|s| {
        make_guard!(l);
        let lane = s.lane(&stream, l);
        let x = lane.copy(&input, &mut d1)?; // H2D
        let y = lane.copy(&x, &mut d2)?; // D2D
        let y = lane.memset(y, 0x3C)?;
        let f = lane.copy(&y, &mut filled)?; // D2H
        let o = lane.copy(&x, &mut out)?; // D2H of the first copy
        let t = lane.copy(&x, &mut tail)?; // into a view
        let h = lane.copy(&t, &mut half)?; // from a view
        assert_eq!(h.len(), 4096);
        let o = o.wait()?;
        assert_eq!(&o[..], &data[..]);
        o.set(0, 1)?; // the CPU owns it again
        let f = f.wait()?;
        assert!(f.iter().all(|v| v == 0x3C3C_3C3C));
        Ok(o.get(0).unwrap() + 1)
    })?;
    assert_eq!(returned, 2);
    assert_eq!(out.get(0), Some(1));
    assert_eq!(&out[1..], &data[1..]);
    assert_eq!(&half[..], &data[..]);
    let mut back = vec![0u32; 4096];
    ctx.copy(&d2, &mut back)?;
    assert!(back.iter().all(|&v| v == 0x3C3C_3C3C));
    ctx.copy(&d3.view(4096..)?, &mut back)?;
    assert_eq!(back, data);
    Ok(())
}

#[test]
fn scope_roundtrip_host_mode() -> Result<()> {
    let _sim = take(host_config());
    let acl = Acl::init()?;
    scope_roundtrip(&acl.require::<HostMode>()?.device(0)?)?;
    acl.finalize()?;
    assert_clean();
    Ok(())
}

#[test]
fn scope_roundtrip_device_mode() -> Result<()> {
    let _sim = take(device_config());
    let acl = Acl::init()?;
    scope_roundtrip(&acl.require::<DeviceMode>()?.device(1)?)?;
    acl.finalize()?;
    assert_clean();
    Ok(())
}

/// Pinned-to-pinned asynchronous copies are host-to-host in host run mode,
/// which the runtime refuses (207000); in device run mode they are
/// device-to-device and work.
#[test]
fn async_pinned_to_pinned_copy_in_device_mode() -> Result<()> {
    // In host run mode an asynchronous pinned-to-pinned copy would be
    // ACL_MEMCPY_HOST_TO_HOST, which the runtime refuses (207000); the crate
    // refuses it at compile time instead (ui-test). In device run mode it is
    // a device-to-device copy and works.
    let _sim = take(device_config());
    let acl = Acl::init()?;
    let device = acl.require::<DeviceMode>()?.device(0)?;
    make_guard!(g);
    let ctx = device.create_context(g)?;
    let stream = ctx.create_stream()?;
    let a = ctx.alloc_host_from(&[1u8, 2, 3])?;
    let mut b = ctx.alloc_host_zeroed::<u8>(3)?;
    ctx.scope(|s| {
        make_guard!(l);
        let lane = s.lane(&stream, l);
        let b = lane.copy(&a, &mut b)?.wait()?;
        assert_eq!(&b[..], &[1, 2, 3]);
        Ok(())
    })?;
    drop(a);
    drop(b);
    drop(stream);
    drop(ctx);
    drop(device);
    acl.finalize()?;
    assert_clean();
    Ok(())
}

// Forgetting these guards is the point of the test (they own no runtime
// resource, and must not need their destructor for safety).
#[allow(clippy::mem_forget, clippy::forget_non_drop)]
#[test]
fn forgetting_in_flight_signal_and_mark_is_harmless() -> Result<()> {
    let _sim = take(host_config());
    let acl = Acl::init()?;
    let device = acl.require::<HostMode>()?.device(0)?;
    make_guard!(g);
    let ctx = device.create_context(g)?;
    let sa = ctx.create_stream()?;
    let sb = ctx.create_stream()?;
    sim::set_stream_delay(sa.as_raw(), Duration::from_millis(30));
    let data = pattern_u32(512, 3);
    let input = ctx.alloc_host_from(&data)?;
    let mut d = ctx.alloc::<u32>(512)?;
    let mut d2 = ctx.alloc::<u32>(512)?;
    let mut out = ctx.alloc_host_zeroed::<u32>(512)?;
    let mut out2 = ctx.alloc_host_zeroed::<u32>(512)?;
    let d_b = ctx.alloc_from(&data)?;
    ctx.scope(|s| {
        make_guard!(ga);
        make_guard!(gb);
        let a = s.lane(&sa, ga);
        let b = s.lane(&sb, gb);
        let x = a.copy(&input, &mut d)?;
        let o = a.copy(&x, &mut out)?;
        std::mem::forget(o); // still borrowed until the scope has synchronised
        let y = a.copy(&x, &mut d2)?;
        let signal = a.signal(y)?;
        std::mem::forget(signal);
        let mark = a.mark()?;
        b.wait_mark(mark)?;
        // `Mark` is `Copy`: forgetting it cannot matter, by construction.
        #[allow(forgetting_copy_types)]
        std::mem::forget(mark);
        let o2 = b.copy(&d_b, &mut out2)?;
        std::mem::forget(o2);
        Ok(())
    })?;
    // The scope waited for everything that was forgotten.
    assert_eq!(&out[..], &data[..]);
    assert_eq!(&out2[..], &data[..]);
    let mut back = vec![0u32; 512];
    ctx.copy(&d2, &mut back)?;
    assert_eq!(back, data);
    // The scope's own events were destroyed.
    assert_eq!(live(&sim::audit(), sim::ResourceKind::Event), 0);
    drop(input);
    drop(d);
    drop(d2);
    drop(out);
    drop(out2);
    drop(d_b);
    drop(sa);
    drop(sb);
    drop(ctx);
    drop(device);
    acl.finalize()?;
    assert_clean();
    Ok(())
}

#[test]
fn panic_in_scope_with_copies_in_flight() -> Result<()> {
    let _sim = take(host_config());
    let acl = Acl::init()?;
    let device = acl.require::<HostMode>()?.device(0)?;
    make_guard!(g);
    let ctx = device.create_context(g)?;
    let stream = ctx.create_stream()?;
    sim::set_stream_delay(stream.as_raw(), Duration::from_millis(30));
    let data = pattern_u32(1024, 8);
    let input = ctx.alloc_host_from(&data)?;
    let mut d = ctx.alloc::<u32>(1024)?;
    let mut out = ctx.alloc_host_zeroed::<u32>(1024)?;
    let caught = catch_unwind(AssertUnwindSafe(|| {
        ctx.scope(|s| -> Result<()> {
            make_guard!(l);
            let lane = s.lane(&stream, l);
            let x = lane.copy(&input, &mut d)?;
            let _o = lane.copy(&x, &mut out)?;
            panic!("boom with copies in flight")
        })
    }));
    let payload = caught.expect_err("the panic propagates out of the scope");
    assert_eq!(panic_message(&*payload), "boom with copies in flight");
    // The scope synchronised before unwinding further: the copies finished.
    assert!(stream.is_complete()?);
    assert_eq!(&out[..], &data[..]);
    drop(input);
    drop(d);
    drop(out);
    drop(stream);
    drop(ctx);
    drop(device);
    acl.finalize()?;
    assert_clean();
    Ok(())
}

#[test]
fn panic_in_host_fn_is_reraised_after_synchronising() -> Result<()> {
    let _sim = take(device_config());
    let acl = Acl::init()?;
    let device = acl.require::<DeviceMode>()?.device(0)?;
    make_guard!(g);
    let ctx = device.create_context(g)?;
    let stream = ctx.create_stream()?;
    let data = pattern_u32(100, 4);
    let input = ctx.alloc_host_from(&data)?;
    let mut d = ctx.alloc::<u32>(100)?;
    let mut out = ctx.alloc_host_zeroed::<u32>(100)?;
    let thread = std::thread::current().id();
    let caught = catch_unwind(AssertUnwindSafe(|| {
        ctx.scope(|s| {
            make_guard!(l);
            let lane = s.lane(&stream, l);
            lane.host_fn(|| panic!("boom in a host function"))?;
            let x = lane.copy(&input, &mut d)?;
            let _o = lane.copy(&x, &mut out)?;
            Ok(())
        })
    }));
    let payload = caught.expect_err("the host function's panic is re-raised");
    assert_eq!(panic_message(&*payload), "boom in a host function");
    assert_eq!(std::thread::current().id(), thread);
    // Re-raised after the synchronisation: the work queued after it ran.
    assert!(stream.is_complete()?);
    assert_eq!(&out[..], &data[..]);
    drop(input);
    drop(d);
    drop(out);
    drop(stream);
    drop(ctx);
    drop(device);
    acl.finalize()?;
    // The panic never reached the runtime's thread unhandled.
    assert_clean();
    Ok(())
}

#[test]
fn error_midway_completes_queued_work() -> Result<()> {
    let _sim = take(host_config());
    let acl = Acl::init()?;
    let device = acl.require::<HostMode>()?.device(0)?;
    make_guard!(g);
    let ctx = device.create_context(g)?;
    let stream = ctx.create_stream()?;
    sim::set_stream_delay(stream.as_raw(), Duration::from_millis(20));
    let data = pattern_u32(256, 2);
    let input = ctx.alloc_host_from(&data)?;
    let mut d = ctx.alloc::<u32>(256)?;
    let mut out = ctx.alloc_host_zeroed::<u32>(256)?;
    let ran = AtomicU32::new(0);
    let result: Result<u32> = ctx.scope(|s| {
        make_guard!(l);
        let lane = s.lane(&stream, l);
        let x = lane.copy(&input, &mut d)?;
        let _o = lane.copy(&x, &mut out)?;
        lane.host_fn(|| {
            ran.fetch_add(1, Ordering::SeqCst);
        })?;
        // An error midway, after work was queued.
        let value = midway_error()?;
        Ok(value)
    });
    assert_eq!(
        result.unwrap_err(),
        aclrt::Error::OutOfRange {
            start: 0,
            end: 9,
            len: 8
        }
    );
    assert_eq!(ran.load(Ordering::SeqCst), 1);
    assert_eq!(&out[..], &data[..]);
    drop(input);
    drop(d);
    drop(out);
    drop(stream);
    drop(ctx);
    drop(device);
    acl.finalize()?;
    assert_clean();
    Ok(())
}

/// An error of this crate's own kind, as a closure would meet midway.
fn midway_error() -> Result<u32> {
    Err(aclrt::Error::OutOfRange {
        start: 0,
        end: 9,
        len: 8,
    })
}

#[test]
fn device_fault_in_queued_task_surfaces_at_synchronisation() -> Result<()> {
    let _sim = take(host_config());
    let acl = Acl::init()?;
    let device = acl.require::<HostMode>()?.device(0)?;
    make_guard!(g);
    let ctx = device.create_context(g)?;
    let stream = ctx.create_stream()?;
    sim::set_stream_delay(stream.as_raw(), Duration::from_millis(10));
    let data = pattern_u32(64, 6);
    let input = ctx.alloc_host_from(&data)?;
    let mut d = ctx.alloc_zeroed::<u32>(64)?;
    let mut out = ctx.alloc_host_zeroed::<u32>(64)?;
    let after_fault = AtomicU32::new(0);
    let result = ctx.scope(|s| {
        make_guard!(l);
        let lane = s.lane(&stream, l);
        let x = lane.copy(&input, &mut d)?;
        sim::inject_task_fault(1, sys::ACL_ERROR_RT_AICORE_EXCEPTION);
        // The faulting task: queued without error, it fails on the device.
        lane.host_fn(|| {
            after_fault.fetch_add(1, Ordering::SeqCst);
        })?;
        let o = lane.copy(&x, &mut out)?;
        let err = o.wait().unwrap_err();
        // The failure sticks to the scope until the recovery point.
        assert_eq!(s.recover()?.as_ref(), Some(&err));
        Ok(err)
    })?;
    assert_eq!(result.kind(), ErrorKind::DeviceFault);
    assert_eq!(result.code(), Some(sys::ACL_ERROR_RT_AICORE_EXCEPTION));
    // The faulted task did nothing; the others ran.
    assert_eq!(after_fault.load(Ordering::SeqCst), 0);
    assert_eq!(&out[..], &data[..]);
    drop(input);
    drop(d);
    drop(out);
    drop(stream);
    drop(ctx);
    drop(device);
    acl.finalize()?;
    assert_clean();
    Ok(())
}

fn two_lane_hand_off<M: RunMode>(device: &Device<'_, M>) -> Result<()> {
    make_guard!(g);
    let ctx = device.create_context(g)?;
    let sa = ctx.create_stream()?;
    let sb = ctx.create_stream()?;
    sim::set_stream_delay(sa.as_raw(), Duration::from_millis(30));
    let data = pattern_u32(2048, 21);
    let input = ctx.alloc_host_from(&data)?;
    let mut dev = ctx.alloc_zeroed::<u32>(2048)?;
    let mut dev2 = ctx.alloc_zeroed::<u32>(2048)?;
    let mut out = ctx.alloc_host_zeroed::<u32>(2048)?;
    let mut out2 = ctx.alloc_host_zeroed::<u32>(2048)?;
    ctx.scope(|s| {
        make_guard!(ga);
        make_guard!(gb);
        let a = s.lane(&sa, ga);
        let b = s.lane(&sb, gb);
        // A (slow) writes, B reads after waiting for A's signal.
        let x = a.copy(&input, &mut dev)?;
        let signal = a.signal(x)?;
        let x = b.wait_for(signal)?;
        let y = b.copy(&x, &mut dev2)?;
        let o = b.copy(&x, &mut out)?;
        let o = o.wait()?;
        assert_eq!(&o[..], &data[..]);
        // And back: B's copy handed to A.
        let signal = b.signal(y)?;
        let y = a.wait_for(signal)?;
        let o2 = a.copy(&y, &mut out2)?;
        assert_eq!(&o2.wait()?[..], &data[..]);
        Ok(())
    })?;
    assert_eq!(&out[..], &data[..]);
    assert_eq!(&out2[..], &data[..]);
    Ok(())
}

#[test]
fn two_streams_event_hand_off_host_mode() -> Result<()> {
    let _sim = take(host_config());
    let acl = Acl::init()?;
    two_lane_hand_off(&acl.require::<HostMode>()?.device(0)?)?;
    acl.finalize()?;
    assert_clean();
    Ok(())
}

#[test]
fn two_streams_event_hand_off_device_mode() -> Result<()> {
    let _sim = take(device_config());
    let acl = Acl::init()?;
    two_lane_hand_off(&acl.require::<DeviceMode>()?.device(0)?)?;
    acl.finalize()?;
    assert_clean();
    Ok(())
}

/// Without a wait, the second lane does not see what the first lane
/// produces (the first lane is held by a gate that only the second lane
/// opens, so the order is certain); with `wait_mark` it does.
#[test]
fn second_lane_sees_the_data_only_because_of_the_wait() -> Result<()> {
    let _sim = take(host_config());
    let acl = Acl::init()?;
    let device = acl.require::<HostMode>()?.device(0)?;
    make_guard!(g);
    let ctx = device.create_context(g)?;
    let sa = ctx.create_stream()?;
    let sb = ctx.create_stream()?;
    let data = pattern_u32(300, 77);
    let want = checksum(&data);
    let src = ctx.alloc_from(&data)?;

    // 1. No wait: B runs first and sees nothing.
    let mut out1 = ctx.alloc_host_zeroed::<u32>(300)?;
    let published = AtomicU64::new(0);
    let seen = AtomicU64::new(u64::MAX);
    let (gate_tx, gate_rx) = mpsc::channel::<()>();
    ctx.scope(|s| {
        make_guard!(ga);
        make_guard!(gb);
        let a = s.lane(&sa, ga);
        let b = s.lane(&sb, gb);
        a.host_fn(move || {
            let _ = gate_rx.recv();
        })?;
        let x = a.copy(&src, &mut out1)?;
        let _x = a.host_fn_with(x, |d| {
            published.store(checksum(&d.to_vec()), Ordering::SeqCst)
        })?;
        b.host_fn(|| {
            seen.store(published.load(Ordering::SeqCst), Ordering::SeqCst);
            let _ = gate_tx.send(());
        })?;
        Ok(())
    })?;
    assert_eq!(seen.load(Ordering::SeqCst), 0, "B read before A wrote");
    assert_eq!(published.load(Ordering::SeqCst), want);

    // 2. With the wait: A is slow (30 ms per task), yet B sees A's result.
    sim::set_stream_delay(sa.as_raw(), Duration::from_millis(30));
    let mut out2 = ctx.alloc_host_zeroed::<u32>(300)?;
    let published = AtomicU64::new(0);
    let seen = AtomicU64::new(u64::MAX);
    ctx.scope(|s| {
        make_guard!(ga);
        make_guard!(gb);
        let a = s.lane(&sa, ga);
        let b = s.lane(&sb, gb);
        let x = a.copy(&src, &mut out2)?;
        let _x = a.host_fn_with(x, |d| {
            published.store(checksum(&d.to_vec()), Ordering::SeqCst)
        })?;
        let mark = a.mark()?;
        b.wait_mark(mark)?;
        b.host_fn(|| seen.store(published.load(Ordering::SeqCst), Ordering::SeqCst))?;
        b.synchronize()?;
        // B finished; A's work before the mark is therefore done too.
        assert_eq!(seen.load(Ordering::SeqCst), want);
        Ok(())
    })?;
    assert_eq!(seen.load(Ordering::SeqCst), want);
    drop(src);
    assert_eq!(&out1[..], &data[..]);
    assert_eq!(&out2[..], &data[..]);
    drop(out1);
    drop(out2);
    drop(sa);
    drop(sb);
    drop(ctx);
    drop(device);
    acl.finalize()?;
    assert_clean();
    Ok(())
}

fn host_fn_add<M: RunMode>(device: &Device<'_, M>) -> Result<()> {
    make_guard!(g);
    let ctx = device.create_context(g)?;
    let stream = ctx.create_stream()?;
    let data = pattern_u32(777, 5);
    let input = ctx.alloc_host_from(&data)?;
    let addend: Vec<u32> = (0..777).collect();
    let mut d = ctx.alloc::<u32>(777)?;
    let mut staging = ctx.alloc_host_zeroed::<u32>(777)?;
    let mut d2 = ctx.alloc::<u32>(777)?;
    let mut out = ctx.alloc_host_zeroed::<u32>(777)?;
    ctx.scope(|s| {
        make_guard!(l);
        let lane = s.lane(&stream, l);
        let x = lane.copy(&input, &mut d)?;
        let st = lane.copy(&x, &mut staging)?;
        let st = lane.host_fn_with(st, |v| {
            for (i, a) in addend.iter().enumerate() {
                v.update(i, |e| e.wrapping_add(*a)).expect("in bounds");
            }
        })?;
        let y = lane.copy(&st, &mut d2)?;
        let o = lane.copy(&y, &mut out)?;
        let o = o.wait()?;
        for (i, v) in o.iter().enumerate() {
            assert_eq!(v, data[i].wrapping_add(i as u32), "element {i}");
        }
        Ok(())
    })?;
    assert_eq!(staging.get(776), Some(data[776].wrapping_add(776)));
    Ok(())
}

#[test]
fn host_fn_with_element_wise_add_host_mode() -> Result<()> {
    let _sim = take(host_config());
    let acl = Acl::init()?;
    host_fn_add(&acl.require::<HostMode>()?.device(0)?)?;
    acl.finalize()?;
    assert_clean();
    Ok(())
}

#[test]
fn host_fn_with_element_wise_add_device_mode() -> Result<()> {
    let _sim = take(device_config());
    let acl = Acl::init()?;
    host_fn_add(&acl.require::<DeviceMode>()?.device(1)?)?;
    acl.finalize()?;
    assert_clean();
    Ok(())
}

#[test]
fn threads_each_with_their_own_context() -> Result<()> {
    let _sim = take(host_config());
    let acl = Acl::init()?;
    let rt = acl.require::<HostMode>()?;
    let devices = [rt.device(0)?, rt.device(1)?];
    std::thread::scope(|t| {
        let handles: Vec<_> = (0..4u32)
            .map(|i| {
                let device = &devices[(i % 2) as usize];
                t.spawn(move || -> Result<()> {
                    make_guard!(g);
                    let ctx = device.create_context(g)?;
                    assert_eq!(ctx.device_id()?, i % 2);
                    let s1 = ctx.create_stream()?;
                    let s2 = ctx.create_stream()?;
                    let data = pattern_u32(1000 + i as usize, i);
                    let input = ctx.alloc_host_from(&data)?;
                    let mut d = ctx.alloc::<u32>(data.len())?;
                    let mut out = ctx.alloc_host_zeroed::<u32>(data.len())?;
                    for _round in 0..3 {
                        ctx.scope(|s| {
                            make_guard!(ga);
                            make_guard!(gb);
                            let a = s.lane(&s1, ga);
                            let b = s.lane(&s2, gb);
                            let x = a.copy(&input, &mut d)?;
                            let x = b.wait_for(a.signal(x)?)?;
                            let o = b.copy(&x, &mut out)?;
                            assert_eq!(&o.wait()?[..], &data[..]);
                            Ok(())
                        })?;
                        let mut back = vec![0u32; data.len()];
                        ctx.copy(&d, &mut back)?;
                        assert_eq!(back, data);
                    }
                    drop(input);
                    drop(d);
                    drop(out);
                    drop(s1);
                    drop(s2);
                    ctx.destroy()
                })
            })
            .collect();
        for h in handles {
            h.join().expect("thread panicked")?;
        }
        Ok::<(), aclrt::Error>(())
    })?;
    drop(devices);
    acl.finalize()?;
    assert_clean();
    Ok(())
}

#[test]
fn context_shared_by_threads() -> Result<()> {
    let _sim = take(device_config());
    let acl = Acl::init()?;
    let device = acl.require::<DeviceMode>()?.device(0)?;
    make_guard!(g);
    let ctx = device.create_context(g)?;
    let shared_src = ctx.alloc_from(&pattern_u32(128, 1))?;
    std::thread::scope(|t| {
        let handles: Vec<_> = (0..4u32)
            .map(|i| {
                let ctx = &ctx;
                let shared_src = &shared_src;
                t.spawn(move || -> Result<()> {
                    let stream = ctx.create_stream()?;
                    let data = pattern_u32(128, 100 + i);
                    let input = ctx.alloc_host_from(&data)?;
                    let mut d = ctx.alloc::<u32>(128)?;
                    let mut out = ctx.alloc_host_zeroed::<u32>(128)?;
                    let mut common = ctx.alloc_host_zeroed::<u32>(128)?;
                    ctx.scope(|s| {
                        make_guard!(l);
                        let lane = s.lane(&stream, l);
                        let x = lane.copy(&input, &mut d)?;
                        let o = lane.copy(&x, &mut out)?;
                        let c = lane.copy(shared_src, &mut common)?;
                        assert_eq!(&o.wait()?[..], &data[..]);
                        assert_eq!(&c.wait()?[..], &pattern_u32(128, 1)[..]);
                        Ok(())
                    })?;
                    stream.destroy()
                })
            })
            .collect();
        for h in handles {
            h.join().expect("thread panicked")?;
        }
        Ok::<(), aclrt::Error>(())
    })?;
    drop(shared_src);
    ctx.destroy()?;
    drop(device);
    acl.finalize()?;
    assert_clean();
    Ok(())
}

#[test]
fn stream_created_in_one_thread_used_in_another() -> Result<()> {
    let _sim = take(host_config());
    let acl = Acl::init()?;
    let device = acl.require::<HostMode>()?.device(1)?;
    make_guard!(g);
    let ctx = device.create_context(g)?;
    let data = pattern_u32(64, 12);
    let input = ctx.alloc_host_from(&data)?;

    // Created here, used there.
    let here = ctx.create_stream()?;
    std::thread::scope(|t| {
        t.spawn(|| -> Result<()> {
            let mut d = ctx.alloc::<u32>(64)?;
            let mut out = ctx.alloc_host_zeroed::<u32>(64)?;
            ctx.scope(|s| {
                make_guard!(l);
                let lane = s.lane(&here, l);
                let x = lane.copy(&input, &mut d)?;
                assert_eq!(&lane.copy(&x, &mut out)?.wait()?[..], &data[..]);
                Ok(())
            })?;
            here.synchronize()?;
            assert!(here.is_complete()?);
            Ok(())
        })
        .join()
        .expect("thread panicked")
    })?;

    // Created there, used and destroyed here.
    let there = std::thread::scope(|t| {
        t.spawn(|| ctx.create_stream())
            .join()
            .expect("thread panicked")
    })?;
    let mut d = ctx.alloc::<u32>(64)?;
    let mut out = ctx.alloc_host_zeroed::<u32>(64)?;
    ctx.scope(|s| {
        make_guard!(l);
        let lane = s.lane(&there, l);
        let x = lane.copy(&input, &mut d)?;
        assert_eq!(&lane.copy(&x, &mut out)?.wait()?[..], &data[..]);
        Ok(())
    })?;
    let hit = Arc::new(AtomicU32::new(0));
    let h = hit.clone();
    there.launch_host_fn(move || {
        h.store(7, Ordering::SeqCst);
    })?;
    there.synchronize()?;
    assert_eq!(hit.load(Ordering::SeqCst), 7);
    there.destroy()?;
    here.destroy()?;
    drop(input);
    drop(d);
    drop(out);
    drop(ctx);
    drop(device);
    acl.finalize()?;
    assert_clean();
    Ok(())
}

#[test]
fn lane_events_wait_event_record_and_timing() -> Result<()> {
    let _sim = take(host_config());
    let acl = Acl::init()?;
    let device = acl.require::<HostMode>()?.device(0)?;
    make_guard!(g);
    let ctx = device.create_context(g)?;
    let sa = ctx.create_stream()?;
    let sb = ctx.create_stream()?;
    sim::set_stream_delay(sa.as_raw(), Duration::from_millis(30));
    let flag = Arc::new(AtomicU32::new(0));
    let f = flag.clone();
    sa.launch_host_fn(move || f.store(1, Ordering::SeqCst))?;
    let user_event = sa.record(ctx.create_event_of::<SyncOnly>()?)?;
    let seen = AtomicU32::new(u32::MAX);
    let data = pattern_u32(32, 0);
    let input = ctx.alloc_host_from(&data)?;
    let mut d = ctx.alloc::<u32>(32)?;
    let (start, end) = ctx.scope(|s| {
        make_guard!(gb);
        let b = s.lane(&sb, gb);
        let start = b.record(ctx.create_event()?)?;
        b.wait_event(&user_event)?;
        b.host_fn(|| seen.store(flag.load(Ordering::SeqCst), Ordering::SeqCst))?;
        let x = b.copy(&input, &mut d)?;
        let end = b.record(ctx.create_event()?)?;
        x.wait()?;
        Ok((start, end))
    })?;
    assert_eq!(seen.load(Ordering::SeqCst), 1, "B waited for A's event");
    end.synchronize()?;
    assert!(start.is_complete()? && end.is_complete()?);
    let ms = end.elapsed_since(&start)?;
    assert!(ms >= 20.0, "B waited about 60 ms for A, measured {ms} ms");
    let mut back = vec![0u32; 32];
    ctx.copy(&d, &mut back)?;
    assert_eq!(back, data);
    drop(start);
    drop(end);
    drop(user_event);
    drop(input);
    drop(d);
    drop(sa);
    drop(sb);
    drop(ctx);
    drop(device);
    acl.finalize()?;
    assert_clean();
    Ok(())
}

#[test]
fn mark_waited_for_by_several_lanes() -> Result<()> {
    let _sim = take(device_config());
    let acl = Acl::init()?;
    let device = acl.require::<DeviceMode>()?.device(0)?;
    make_guard!(g);
    let ctx = device.create_context(g)?;
    let streams = [
        ctx.create_stream()?,
        ctx.create_stream()?,
        ctx.create_stream()?,
        ctx.create_stream()?,
    ];
    sim::set_stream_delay(streams[0].as_raw(), Duration::from_millis(30));
    let value = AtomicU32::new(0);
    let seen = [
        AtomicU32::new(u32::MAX),
        AtomicU32::new(u32::MAX),
        AtomicU32::new(u32::MAX),
    ];
    let data = pattern_u32(16, 40);
    let input = ctx.alloc_host_from(&data)?;
    let mut outs = [
        ctx.alloc_host_zeroed::<u32>(16)?,
        ctx.alloc_host_zeroed::<u32>(16)?,
        ctx.alloc_host_zeroed::<u32>(16)?,
    ];
    ctx.scope(|s| {
        make_guard!(g0);
        let a = s.lane(&streams[0], g0);
        a.host_fn(|| value.store(7, Ordering::SeqCst))?;
        let mark = a.mark()?;
        let [o0, o1, o2] = &mut outs;
        make_guard!(g1);
        make_guard!(g2);
        make_guard!(g3);
        let b = s.lane(&streams[1], g1);
        let c = s.lane(&streams[2], g2);
        let d = s.lane(&streams[3], g3);
        b.wait_mark(mark)?;
        c.wait_mark(mark)?;
        d.wait_mark(mark)?;
        b.host_fn(|| seen[0].store(value.load(Ordering::SeqCst), Ordering::SeqCst))?;
        c.host_fn(|| seen[1].store(value.load(Ordering::SeqCst), Ordering::SeqCst))?;
        d.host_fn(|| seen[2].store(value.load(Ordering::SeqCst), Ordering::SeqCst))?;
        let _ = b.copy(&input, o0)?;
        let _ = c.copy(&input, o1)?;
        let _ = d.copy(&input, o2)?;
        Ok(())
    })?;
    for s in &seen {
        assert_eq!(s.load(Ordering::SeqCst), 7);
    }
    for o in &outs {
        assert_eq!(&o[..], &data[..]);
    }
    drop(input);
    drop(outs);
    drop(streams);
    drop(ctx);
    drop(device);
    acl.finalize()?;
    assert_clean();
    Ok(())
}

#[test]
fn stream_launch_host_fn_orders_after_async_work() -> Result<()> {
    let _sim = take(host_config());
    let acl = Acl::init()?;
    let device = acl.require::<HostMode>()?.device(0)?;
    make_guard!(g);
    let ctx = device.create_context(g)?;
    let stream = ctx.create_stream()?;
    sim::set_stream_delay(stream.as_raw(), Duration::from_millis(10));
    let (tx, rx) = mpsc::channel::<u32>();
    for i in 0..3 {
        let tx = tx.clone();
        stream.launch_host_fn(move || tx.send(i).unwrap())?;
    }
    drop(tx);
    stream.synchronize()?;
    assert_eq!(rx.iter().collect::<Vec<_>>(), [0, 1, 2]);
    // A panicking 'static host function is caught on the runtime thread
    // (never unwinding through C) and resumed by the stream's synchronize.
    stream.launch_host_fn(|| panic!("contained"))?;
    let caught = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| stream.synchronize()))
        .expect_err("the host function's panic is resumed by synchronize");
    assert_eq!(caught.downcast_ref::<&str>(), Some(&"contained"));
    assert!(stream.is_complete()?);
    stream.synchronize()?; // resumed once, then gone
    drop(stream);
    drop(ctx);
    drop(device);
    acl.finalize()?;
    assert_clean();
    Ok(())
}
