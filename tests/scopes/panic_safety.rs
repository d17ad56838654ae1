//! Panic safety: a panic after each k-th operation inside a scope body, and
//! inside the k-th host function (scoped and unscoped), in both run modes.
//!
//! For every k: the panic reaches the caller (`catch_unwind` gets the
//! payload we raised); the work queued before the panic completed (its data
//! is there: nothing is lost); the simulator records no violation (a
//! use-after-free or a release while a task still uses the memory would be
//! one); after dropping everything and `finalize`, nothing leaks; the
//! process does not abort. A task delay on the first lane keeps the copies
//! really in flight while the panic unwinds.

use crate::common;

use std::panic::{AssertUnwindSafe, catch_unwind};
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

use aclrt::sim::{self, SimConfig};
use aclrt::{Acl, Context, Detected, Result, RunMode, Runtime, make_guard};
use common::*;

const N: usize = 256;
/// Operations in the scope body of [`scope_with_panic`].
const BODY_OPS: usize = 10;

fn panic_if(counter: &mut usize, at: usize) {
    *counter += 1;
    if *counter == at {
        panic!("injected panic after operation {at}");
    }
}

fn with_runtime(config: SimConfig, f: impl FnOnce(&Acl) -> Result<()>) {
    sim::reset();
    sim::configure(config);
    let acl = Acl::init().expect("init");
    f(&acl).expect("the flow itself succeeds");
    acl.finalize().expect("finalize: nothing leaked");
    assert_clean();
}

/// Runs a two-lane scope whose body panics after operation `at` (never when
/// `at > BODY_OPS`), then checks the data of the operations queued before.
fn scope_with_panic<M: RunMode>(rt: Runtime<'_, M>, at: usize) -> Result<()> {
    let device = rt.device(0)?;
    make_guard!(g);
    let ctx = device.create_context(g)?;
    let (sa, sb) = (ctx.create_stream()?, ctx.create_stream()?);
    sim::set_stream_delay(sa.as_raw(), Duration::from_millis(2));
    let input = ctx.alloc_host_from(&pattern_u8(N, 3))?;
    let mut dev = ctx.alloc_zeroed::<u8>(N)?;
    let mut dev2 = ctx.alloc_zeroed::<u8>(N)?;
    let mut out = ctx.alloc_host_zeroed::<u8>(N)?;
    let ran = AtomicUsize::new(0);
    let event = ctx.create_event()?;
    let outcome = catch_unwind(AssertUnwindSafe(|| {
        ctx.scope(|s| {
            let mut n = 0;
            make_guard!(ga);
            make_guard!(gb);
            let a = s.lane(&sa, ga);
            let b = s.lane(&sb, gb);
            let d = a.copy(&input, &mut dev)?; // 1: H2D, slow lane
            panic_if(&mut n, at);
            let sig = a.signal(d)?; // 2
            panic_if(&mut n, at);
            let d = b.wait_for(sig)?; // 3
            panic_if(&mut n, at);
            let o = b.copy(&d, &mut out)?; // 4: D2H
            panic_if(&mut n, at);
            let o = b.host_fn_with(o, |v| v.update_all(|x| x.wrapping_add(1)))?; // 5
            panic_if(&mut n, at);
            let _e = b.record(event)?; // 6
            panic_if(&mut n, at);
            b.wait_mark(a.mark()?)?; // 7
            panic_if(&mut n, at);
            let _m = a.memset(&mut dev2, 7)?; // 8
            panic_if(&mut n, at);
            b.host_fn(|| {
                ran.fetch_add(1, Ordering::SeqCst);
            })?; // 9
            panic_if(&mut n, at);
            let o = o.wait()?; // 10
            panic_if(&mut n, at);
            assert_eq!(o.get(1), Some(pattern_u8(N, 3)[1].wrapping_add(1)));
            Ok(())
        })
    }));
    match outcome {
        Ok(r) => {
            assert!(at > BODY_OPS, "no panic although one was injected at {at}");
            r?;
        }
        Err(payload) => {
            assert_eq!(
                panic_message(&*payload),
                format!("injected panic after operation {at}")
            );
        }
    }
    // The scope synchronised before the panic went on: what was queued ran.
    let expect_out: Vec<u8> = match at {
        ..=3 => vec![0; N],
        4 => pattern_u8(N, 3),
        _ => pattern_u8(N, 3).iter().map(|x| x.wrapping_add(1)).collect(),
    };
    assert_eq!(*out, expect_out[..], "panic at {at}");
    let mut back = vec![0u8; N];
    ctx.copy(&dev, &mut back)?;
    assert_eq!(
        back,
        pattern_u8(N, 3),
        "the H2D copy completed (panic at {at})"
    );
    ctx.copy(&dev2, &mut back)?;
    assert_eq!(back, vec![if at >= 8 { 7 } else { 0 }; N], "panic at {at}");
    assert_eq!(ran.load(Ordering::SeqCst), usize::from(at >= 9));
    assert!(sim::audit().violations.is_empty(), "{:#?}", sim::audit());
    Ok(())
}

fn body_panics(config: SimConfig) {
    for at in 1..=BODY_OPS + 1 {
        with_runtime(config.clone(), |acl| match acl.detect() {
            Detected::Host(rt) => scope_with_panic(rt, at),
            Detected::Device(rt) => scope_with_panic(rt, at),
        });
    }
}

#[test]
fn panic_after_each_operation_of_a_scope_body_host_mode() {
    let _sim = sim::exclusive();
    body_panics(host_config());
}

#[test]
fn panic_after_each_operation_of_a_scope_body_device_mode() {
    let _sim = sim::exclusive();
    body_panics(device_config());
}

/// Host functions queued in a scope (`host_fn_with` and `host_fn`, on two
/// lanes); the `at`-th to run panics. The scope re-raises it after the
/// synchronisation; the other host functions all ran and their data is there.
fn host_fn_panic<M: RunMode>(ctx: &Context<'_, '_, M>, at: usize) -> Result<()> {
    const FNS: usize = 4;
    let (sa, sb) = (ctx.create_stream()?, ctx.create_stream()?);
    sim::set_stream_delay(sa.as_raw(), Duration::from_millis(1));
    let mut x = ctx.alloc_host_zeroed::<u32>(N)?;
    let mut y = ctx.alloc_host_zeroed::<u32>(N)?;
    let order = AtomicUsize::new(0);
    let calls = AtomicUsize::new(0);
    // Host function `i` (by queue position): adds `i + 1`; panics when it is
    // the `at`-th, after its work.
    let tick = || {
        calls.fetch_add(1, Ordering::SeqCst);
        if order.fetch_add(1, Ordering::SeqCst) + 1 == at {
            panic!("host function panic {at}");
        }
    };
    let step = |i: usize| {
        move |v: &mut aclrt::PinnedSlice<'_, u32, _>| {
            v.update_all(|e| e + i as u32 + 1);
            tick();
        }
    };
    let outcome = catch_unwind(AssertUnwindSafe(|| {
        ctx.scope(|s| {
            make_guard!(ga);
            make_guard!(gb);
            let a = s.lane(&sa, ga);
            let b = s.lane(&sb, gb);
            let fx = a.host_fn_with(&mut x, step(0))?;
            let fx = a.host_fn_with(fx, step(1))?;
            let fy = b.host_fn_with(&mut y, step(2))?;
            let fx = b.wait_for(a.signal(fx)?)?;
            b.host_fn(tick)?;
            let _ = (fx, fy);
            Ok(())
        })
    }));
    match outcome {
        Ok(r) => {
            r?;
            assert!(at > FNS, "the host function panic at {at} was lost");
        }
        Err(p) => assert_eq!(panic_message(&*p), format!("host function panic {at}")),
    }
    assert_eq!(calls.load(Ordering::SeqCst), FNS, "every host function ran");
    assert!(x.iter().all(|e| e == 1 + 2));
    assert!(y.iter().all(|e| e == 3));
    Ok(())
}

/// Unscoped host functions (`Stream::launch_host_fn`): the `at`-th panics;
/// `Stream::synchronize` re-raises it, the others ran.
fn static_host_fn_panic<M: RunMode>(ctx: &Context<'_, '_, M>, at: usize) -> Result<()> {
    const FNS: usize = 3;
    let stream = ctx.create_stream()?;
    let calls = Arc::new(AtomicUsize::new(0));
    for i in 1..=FNS {
        let calls = Arc::clone(&calls);
        stream.launch_host_fn(move || {
            calls.fetch_add(1, Ordering::SeqCst);
            if i == at {
                panic!("static host function panic {at}");
            }
        })?;
    }
    let outcome = catch_unwind(AssertUnwindSafe(|| stream.synchronize()));
    match outcome {
        Ok(r) => {
            r?;
            assert!(at > FNS);
        }
        Err(p) => assert_eq!(
            panic_message(&*p),
            format!("static host function panic {at}")
        ),
    }
    assert_eq!(calls.load(Ordering::SeqCst), FNS);
    stream.synchronize()?; // nothing left to re-raise
    Ok(())
}

fn host_fn_panics(config: SimConfig) {
    for at in 1..=5 {
        with_runtime(config.clone(), |acl| {
            fn go<M: RunMode>(rt: Runtime<'_, M>, at: usize) -> Result<()> {
                let device = rt.device(0)?;
                make_guard!(g);
                let ctx = device.create_context(g)?;
                host_fn_panic(&ctx, at)?;
                static_host_fn_panic(&ctx, at)
            }
            match acl.detect() {
                Detected::Host(rt) => go(rt, at),
                Detected::Device(rt) => go(rt, at),
            }
        });
        assert!(sim::audit().violations.is_empty());
    }
}

#[test]
fn panic_in_the_kth_host_function_host_mode() {
    let _sim = sim::exclusive();
    host_fn_panics(host_config());
}

#[test]
fn panic_in_the_kth_host_function_device_mode() {
    let _sim = sim::exclusive();
    host_fn_panics(device_config());
}

/// The documented panics of the pinned slice (`# Panics` on each method,
/// listed in SAFETY.md section 2): each one panics as the slice method it
/// mirrors, before touching anything, and leaves the buffer usable and the
/// audit clean (the frame checks that nothing leaks).
#[test]
fn pinned_slice_methods_panic_as_slices_do() {
    in_host_context(|ctx| {
        let mut buf = ctx.alloc_host_from(&[1u32, 2, 3, 4])?;
        let panics = |what: &str, f: &mut dyn FnMut()| {
            let caught = catch_unwind(AssertUnwindSafe(f));
            assert!(caught.is_err(), "{what} must panic");
        };
        panics("swap out of bounds", &mut || buf.swap(0, 4));
        panics("copy_from_slice, wrong length", &mut || {
            buf.copy_from_slice(&[0u32; 3])
        });
        panics("copy_to_slice, wrong length", &mut || {
            buf.copy_to_slice(&mut [0u32; 5])
        });
        panics("split_at past the end", &mut || {
            let _ = buf.split_at(5);
        });
        panics("split_at_mut past the end", &mut || {
            let _ = buf.split_at_mut(5);
        });
        panics("chunks of 0", &mut || {
            let _ = buf.chunks(0);
        });
        panics("chunks_mut of 0", &mut || {
            let _ = buf.chunks_mut(0);
        });
        panics("index out of bounds", &mut || {
            let _ = buf[4];
        });
        panics("range out of bounds", &mut || {
            let _ = &buf[2..5];
        });
        // Untouched, and usable.
        assert_eq!(buf.to_vec(), vec![1, 2, 3, 4]);
        buf.swap(0, 3);
        assert_eq!(buf.to_vec(), vec![4, 2, 3, 1]);
        drop(buf);
        Ok(())
    })
    .unwrap();
}
