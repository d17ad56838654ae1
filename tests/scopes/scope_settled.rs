//! A scope's end skips the synchronisation of a lane that
//! the scope synchronised after its last work there (`Parked::wait`,
//! `Lane::synchronize`), and only of such a lane. Every way of queueing
//! work after such a synchronisation must make the end synchronise again:
//! these tests queue slow work after a wait (a copy, a memset, a host
//! function, a kernel launch, an event record, work on a second lane) and
//! check that it has finished when `Context::scope` returns; and they count
//! the `aclrtSynchronizeStream` calls, so the skip itself is checked too.

use crate::common;

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use aclrt::kernel::Scalar;
use aclrt::sim;
use aclrt::{Acl, Device, Result, RunMode, make_guard};
use common::*;

fn syncs() -> u64 {
    sim::call_counts()
        .iter()
        .find(|(f, _)| *f == "aclrtSynchronizeStream")
        .map_or(0, |&(_, n)| n)
}

/// Runs `$f(&device)` on a fresh simulator in host and in device run mode.
macro_rules! both_modes {
    ($f:ident) => {
        for config in [host_config(), device_config()] {
            let _sim = take(config);
            let acl = Acl::init().expect("aclInit");
            match acl.detect() {
                aclrt::Detected::Host(rt) => $f(&rt.device(0).expect("device")),
                aclrt::Detected::Device(rt) => $f(&rt.device(0).expect("device")),
            }
            .expect("the flow succeeds");
            acl.finalize().expect("aclFinalize");
            assert_clean();
        }
    };
}

fn waited_lane_is_not_synchronised_again<M: RunMode>(device: &Device<'_, M>) -> Result<()> {
    make_guard!(g);
    let ctx = device.create_context(g)?;
    let stream = ctx.create_stream()?;
    let host = ctx.alloc_host_from(&[7u8; 4096])?;
    let mut dev = ctx.alloc::<u8>(4096)?;
    let before = syncs();
    ctx.scope(|s| {
        make_guard!(l);
        let lane = s.lane(&stream, l);
        lane.copy(&host, &mut dev)?.wait()?;
        Ok(())
    })?;
    assert_eq!(syncs() - before, 1, "the wait's synchronisation only");
    // `Lane::synchronize` settles the lane too.
    let before = syncs();
    ctx.scope(|s| {
        make_guard!(l);
        let lane = s.lane(&stream, l);
        let _ = lane.copy(&host, &mut dev)?;
        lane.synchronize()
    })?;
    assert_eq!(syncs() - before, 1);
    // Without a wait the end synchronises.
    let before = syncs();
    ctx.scope(|s| {
        make_guard!(l);
        let lane = s.lane(&stream, l);
        let _ = lane.copy(&host, &mut dev)?;
        Ok(())
    })?;
    assert_eq!(syncs() - before, 1);
    Ok(())
}

#[test]
fn end_skips_a_lane_synchronised_after_its_last_work() {
    both_modes!(waited_lane_is_not_synchronised_again);
}

/// Work queued after the wait on a slow stream: the end must wait for it.
fn work_after_wait_is_waited_for<M: RunMode>(device: &Device<'_, M>) -> Result<()> {
    make_guard!(g);
    let ctx = device.create_context(g)?;
    let stream = ctx.create_stream()?;
    let host = ctx.alloc_host_from(&[7u8; 4096])?;
    let mut dev = ctx.alloc::<u8>(4096)?;
    let mut back = ctx.alloc_host_zeroed::<u8>(4096)?;
    sim::set_stream_delay(stream.as_raw(), Duration::from_millis(30));
    // A copy after the wait.
    ctx.scope(|s| {
        make_guard!(l);
        let lane = s.lane(&stream, l);
        let d = lane.copy(&host, &mut dev)?.wait()?;
        let _ = lane.copy(&*d, &mut back)?;
        Ok(())
    })?;
    assert!(back.iter().all(|b| b == 7), "the copy after the wait ran");
    // A memset after the wait.
    ctx.scope(|s| {
        make_guard!(l);
        let lane = s.lane(&stream, l);
        let d = lane.copy(&host, &mut dev)?.wait()?;
        let _ = lane.memset(d, 3)?;
        Ok(())
    })?;
    ctx.copy(&dev, &mut back)?;
    assert!(back.iter().all(|b| b == 3), "the memset after the wait ran");
    // A host function after `Lane::synchronize`.
    let ran = Arc::new(AtomicBool::new(false));
    ctx.scope(|s| {
        make_guard!(l);
        let lane = s.lane(&stream, l);
        let _ = lane.memset(&mut dev, 1)?;
        lane.synchronize()?;
        let ran = Arc::clone(&ran);
        lane.host_fn(move || {
            std::thread::sleep(Duration::from_millis(30));
            ran.store(true, Ordering::SeqCst);
        })
    })?;
    assert!(
        ran.load(Ordering::SeqCst),
        "the host function after the wait ran"
    );
    // An event recorded after the wait: recorded (complete) when the scope
    // returns.
    let event = ctx.create_event()?;
    let event = ctx.scope(|s| {
        make_guard!(l);
        let lane = s.lane(&stream, l);
        lane.copy(&host, &mut dev)?.wait()?;
        lane.record(event)
    })?;
    assert!(event.is_complete()?, "the record after the wait is done");
    // Work on a second lane, not waited for, while the first was.
    let other = ctx.create_stream()?;
    sim::set_stream_delay(other.as_raw(), Duration::from_millis(30));
    let mut dev2 = ctx.alloc_zeroed::<u8>(4096)?;
    ctx.scope(|s| {
        make_guard!(a);
        make_guard!(b);
        let first = s.lane(&stream, a);
        let second = s.lane(&other, b);
        let _ = second.copy(&host, &mut dev2)?;
        first.copy(&host, &mut dev)?.wait()?;
        Ok(())
    })?;
    ctx.copy(&dev2, &mut back)?;
    assert!(back.iter().all(|b| b == 7), "the second lane's copy ran");
    sim::clear_faults();
    Ok(())
}

#[test]
fn work_queued_after_a_wait_finishes_before_the_scope_returns() {
    both_modes!(work_after_wait_is_waited_for);
}

static KERNEL_RAN: AtomicBool = AtomicBool::new(false);

/// A kernel launched after the wait (queued by `ffi::kernel` through
/// `LaneCore::stream`).
fn launch_after_wait<M: RunMode>(device: &Device<'_, M>) -> Result<()> {
    sim::register_kernel("settled_slow", |_, _, _| {
        std::thread::sleep(Duration::from_millis(30));
        KERNEL_RAN.store(true, Ordering::SeqCst);
        Ok(())
    });
    make_guard!(g);
    let ctx = device.create_context(g)?;
    let stream = ctx.create_stream()?;
    let host = ctx.alloc_host_from(&[7u8; 4096])?;
    let mut dev = ctx.alloc::<u8>(4096)?;
    let binary = ctx.load_binary(&sim::binary_image(&["settled_slow"]))?;
    // SAFETY: `settled_slow` touches no memory.
    let kernel = unsafe { binary.kernel::<(Scalar<u32>,)>(c"settled_slow") }?;
    KERNEL_RAN.store(false, Ordering::SeqCst);
    ctx.scope(|s| {
        make_guard!(l);
        let lane = s.lane(&stream, l);
        lane.copy(&host, &mut dev)?.wait()?;
        lane.launch(&kernel, 1u32, (1u32,))?;
        Ok(())
    })?;
    assert!(
        KERNEL_RAN.load(Ordering::SeqCst),
        "the launch after the wait ran"
    );
    binary.unload()?;
    Ok(())
}

#[test]
fn kernel_launched_after_a_wait_finishes_before_the_scope_returns() {
    both_modes!(launch_after_wait);
}

/// A wait whose synchronisation failed does not settle the lane.
fn failed_wait<M: RunMode>(device: &Device<'_, M>) -> Result<()> {
    make_guard!(g);
    let ctx = device.create_context(g)?;
    let stream = ctx.create_stream()?;
    let host = ctx.alloc_host_from(&[7u8; 4096])?;
    let mut dev = ctx.alloc::<u8>(4096)?;
    let before = syncs();
    sim::inject_fault("aclrtSynchronizeStream", 1, 507_011);
    let r = ctx.scope(|s| {
        make_guard!(l);
        let lane = s.lane(&stream, l);
        let err = lane.copy(&host, &mut dev)?.wait().unwrap_err();
        assert_eq!(err.code(), Some(507_011), "{err}");
        Ok(())
    });
    // Not recovered: the failure (any code) sticks to the scope's end.
    assert_eq!(r.unwrap_err().code(), Some(507_011));
    assert_eq!(syncs() - before, 2, "the end synchronised again");
    sim::clear_faults();
    Ok(())
}

#[test]
fn a_failed_wait_does_not_spare_the_final_synchronisation() {
    both_modes!(failed_wait);
}
