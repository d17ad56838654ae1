//! The safe layer under the runtime's thread binding: destroying the
//! thread's current context leaves it no context at all, and the last
//! reset of any device drops its device binding (the runtime does not fall
//! back to a device's default context). Every test first shows, with a raw
//! call, that the thread really has nothing bound, then uses the safe API:
//! a call of the crate that relied on a context staying current would fail
//! with 107002 here. Both run modes.

use crate::common;

use std::sync::mpsc;

use aclrt::sim::SimConfig;
use aclrt::{Acl, Reporter, Result, RunMode, make_guard, sys};
use common::*;

/// The calling thread's current context and device, from the runtime.
fn raw_binding() -> (sys::aclError, sys::aclError) {
    let mut ctx: sys::aclrtContext = std::ptr::null_mut();
    let mut dev = -1;
    // SAFETY: both outputs are valid, writable slots for the calls.
    unsafe {
        (
            sys::aclrtGetCurrentContext(&mut ctx),
            sys::aclrtGetDevice(&mut dev),
        )
    }
}

const UNBOUND: (sys::aclError, sys::aclError) = (
    sys::ACL_ERROR_RT_CONTEXT_NULL,
    sys::ACL_ERROR_RT_CONTEXT_NULL,
);

fn both(mut f: impl FnMut(SimConfig) -> Result<()>) -> Result<()> {
    f(host_config())?;
    f(device_config())
}

fn after_destroy<M: RunMode>(rt: aclrt::Runtime<'_, M>) -> Result<()> {
    let device = rt.device(0)?;
    make_guard!(a);
    make_guard!(b);
    make_guard!(d);
    let dflt = device.default_context(d);
    let keep = device.create_context(a)?;
    let keep_buf = keep.alloc_from(&pattern_u32(64, 3))?;
    let doomed = device.create_context(b)?;
    let stream = doomed.create_stream()?;
    stream.synchronize()?;
    drop(stream);
    doomed.destroy()?;
    // The destroyed context was current: nothing is bound now.
    assert_eq!(raw_binding(), UNBOUND);
    // Default context: streams, memory, copies, synchronisation.
    let s = dflt.create_stream()?;
    let data = pattern_u32(256, 9);
    let buf = dflt.alloc_from(&data)?;
    let mut back = vec![0u32; 256];
    dflt.copy(&buf, &mut back)?;
    assert_eq!(back, data);
    s.synchronize()?;
    device.synchronize()?;
    assert_eq!(dflt.device_id()?, 0);
    assert!(device.memory_info()?.total > 0);
    drop(s);
    drop(buf);
    // The other explicit context, after another destroy of the current one.
    make_guard!(c);
    let again = device.create_context(c)?;
    again.destroy()?;
    assert_eq!(raw_binding(), UNBOUND);
    let mut kb = vec![0u32; 64];
    keep.copy(&keep_buf, &mut kb)?;
    assert_eq!(kb, pattern_u32(64, 3));
    assert!(keep.events_available()? > 0);
    drop(keep_buf);
    keep.destroy()?;
    Ok(())
}

#[test]
fn the_safe_layer_works_after_the_current_context_is_destroyed() -> Result<()> {
    both(|config| {
        let _sim = take(config);
        let acl = Acl::init()?;
        match acl.detect() {
            aclrt::Detected::Host(rt) => after_destroy(rt)?,
            aclrt::Detected::Device(rt) => after_destroy(rt)?,
        }
        acl.finalize()?;
        assert_clean();
        Ok(())
    })
}

fn after_reset<M: RunMode>(rt: aclrt::Runtime<'_, M>) -> Result<()> {
    let one = rt.device(1)?;
    {
        let zero = rt.device(0)?;
        make_guard!(g);
        let z = zero.default_context(g);
        let b = z.alloc_from(&[1u8, 2, 3])?;
        drop(b);
        // The last handle of device 0 goes: its last reset.
    }
    // The reset dropped the thread's binding, whichever device it named.
    assert_eq!(raw_binding(), UNBOUND);
    make_guard!(g);
    let ctx = one.default_context(g);
    let s = ctx.create_stream()?;
    let data = pattern_u8(4096, 5);
    let buf = ctx.alloc_from(&data)?;
    let mut copy = ctx.alloc::<u8>(4096)?;
    ctx.scope(|sc| {
        make_guard!(l);
        let lane = sc.lane(&s, l);
        let _ = lane.copy(&buf, &mut copy)?;
        Ok(())
    })?;
    let mut back = vec![0u8; 4096];
    ctx.copy(&copy, &mut back)?;
    assert_eq!(back, data);
    drop(copy);
    one.synchronize()?;
    assert_eq!(ctx.device_id()?, 1);
    // A reporter after the reset: subscription, callback, unsubscription.
    let reporter = Reporter::spawn()?;
    let (tx, rx) = mpsc::channel();
    {
        let sub = reporter.subscribe(&s)?;
        sub.launch_blocking(move || tx.send(7u32).unwrap())?;
        s.synchronize()?;
        assert_eq!(rx.try_recv().unwrap(), 7);
    }
    reporter.stop()?;
    drop(buf);
    drop(s);
    Ok(())
}

#[test]
fn the_safe_layer_works_after_another_devices_last_reset() -> Result<()> {
    both(|config| {
        let _sim = take(config);
        let acl = Acl::init()?;
        match acl.detect() {
            aclrt::Detected::Host(rt) => after_reset(rt)?,
            aclrt::Detected::Device(rt) => after_reset(rt)?,
        }
        acl.finalize()?;
        assert_clean();
        Ok(())
    })
}

fn scope_wait_after_destroy<M: RunMode>(rt: aclrt::Runtime<'_, M>) -> Result<()> {
    let device = rt.device(0)?;
    make_guard!(g);
    let dflt = device.default_context(g);
    let ds = dflt.default_stream()?;
    let src = dflt.alloc_host_from(&pattern_u32(64, 4))?;
    let mut d = dflt.alloc::<u32>(64)?;
    let mut out = dflt.alloc_host_zeroed::<u32>(64)?;
    let got = dflt.scope(|s| {
        make_guard!(l);
        let lane = s.lane(&ds, l);
        let x = lane.copy(&src, &mut d)?;
        let y = lane.copy(&x, &mut out)?;
        {
            make_guard!(g2);
            let other = device.create_context(g2)?;
            other.destroy()?;
        }
        // Nothing is bound: the wait (on the default stream, which the
        // crate did not make) needs a context all the same.
        assert_eq!(raw_binding(), UNBOUND);
        y.wait().map(|o| o.to_vec())
    })?;
    assert_eq!(got, pattern_u32(64, 4));
    drop((src, d, out));
    Ok(())
}

#[test]
fn a_scope_waits_on_a_default_stream_after_the_current_context_is_destroyed() -> Result<()> {
    both(|config| {
        let _sim = take(config);
        let acl = Acl::init()?;
        match acl.detect() {
            aclrt::Detected::Host(rt) => scope_wait_after_destroy(rt)?,
            aclrt::Detected::Device(rt) => scope_wait_after_destroy(rt)?,
        }
        acl.finalize()?;
        assert_clean();
        Ok(())
    })
}
