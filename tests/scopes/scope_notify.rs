//! Notifies as a scope's hand-off between lanes (`Scope::notify`,
//! `Lane::record_notify`, `Lane::wait_notify`) and their failure rule:
//! a wait no record of the scope can end never hangs — a synchronisation
//! of its lane is refused, the scope's end aborts the scope's streams and
//! reports `NotifyNotRecorded` — in both run modes. A watchdog aborts the
//! test process if anything hangs.

use crate::common;

use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use aclrt::sim;
use aclrt::{Acl, Context, Error, ErrorKind, Result, RunMode, make_guard, sys};
use common::*;

/// Aborts the process if the test is not done within `secs`: a hang is a
/// failure, never a stuck CI job.
struct Watchdog(std::sync::mpsc::Sender<()>);

fn watchdog(what: &'static str, secs: u64) -> Watchdog {
    let (tx, rx) = std::sync::mpsc::channel::<()>();
    std::thread::spawn(move || {
        if let Err(std::sync::mpsc::RecvTimeoutError::Timeout) =
            rx.recv_timeout(Duration::from_secs(secs))
        {
            eprintln!("{what}: hung for {secs} s");
            std::process::abort();
        }
    });
    Watchdog(tx)
}

impl Drop for Watchdog {
    fn drop(&mut self) {
        let _ = self.0.send(());
    }
}

/// Runs `f` (once per run mode) against a fresh context of device 0, then
/// destroys it, resets the device, finalises and checks the audit.
fn both_modes(
    what: &'static str,
    f: impl for<'id> Fn(&Context<'_, 'id, aclrt::HostMode>) -> Result<()> + Copy,
    g: impl for<'id> Fn(&Context<'_, 'id, aclrt::DeviceMode>) -> Result<()> + Copy,
) {
    let _dog = watchdog(what, 60);
    for device_mode in [false, true] {
        let _sim = take(if device_mode {
            device_config()
        } else {
            host_config()
        });
        let acl = Acl::init().expect("aclInit");
        if device_mode {
            with_ctx(&acl, g).expect("flow (device run mode)");
        } else {
            with_ctx(&acl, f).expect("flow (host run mode)");
        }
        acl.finalize().expect("aclFinalize");
        assert_clean();
    }
}

fn with_ctx<M: RunMode>(
    acl: &Acl,
    f: impl for<'id> FnOnce(&Context<'_, 'id, M>) -> Result<()>,
) -> Result<()> {
    let device = acl.require::<M>()?.device(0)?;
    make_guard!(g);
    let ctx = device.create_context(g)?;
    f(&ctx)?;
    ctx.destroy()?;
    device.reset()
}

fn not_recorded(r: &Result<()>) -> bool {
    matches!(r, Err(Error::NotifyNotRecorded { .. }))
}

/// The wait is queued first; the lane's later work runs only after the
/// other lane's slow host function and the record behind it.
fn wait_before_record<M: RunMode>(ctx: &Context<'_, '_, M>) -> Result<()> {
    let (a, b) = (ctx.create_stream()?, ctx.create_stream()?);
    let mut n = ctx.create_notify()?;
    let written = AtomicBool::new(false);
    let seen = AtomicBool::new(false);
    for _round in 0..3 {
        written.store(false, Ordering::SeqCst);
        seen.store(false, Ordering::SeqCst);
        ctx.scope(|s| {
            make_guard!(ga);
            make_guard!(gb);
            let (la, lb) = (s.lane(&a, ga), s.lane(&b, gb));
            let n = s.notify(&mut n)?;
            let (written, seen) = (&written, &seen);
            lb.wait_notify(n)?;
            lb.host_fn(move || seen.store(written.load(Ordering::SeqCst), Ordering::SeqCst))?;
            la.host_fn(move || {
                std::thread::sleep(Duration::from_millis(30));
                written.store(true, Ordering::SeqCst);
            })?;
            la.record_notify(n)
        })?;
        assert!(
            seen.load(Ordering::SeqCst),
            "lane b ran before lane a's record"
        );
    }
    // The notify came back whole: usable outside the scope.
    b.record_notify(&n)?;
    a.wait_notify(&n)?;
    a.synchronize()?;
    drop(n);
    a.destroy()?;
    b.destroy()
}

#[test]
fn a_wait_queued_before_its_record_orders_the_lanes() {
    both_modes("wait_before_record", wait_before_record, wait_before_record);
}

/// The body fails (returns an error) after the wait and before the
/// record: the end aborts the scope's streams instead of hanging, reports
/// `NotifyNotRecorded` (over the body's error), and the streams, the
/// notify and the context stay usable.
fn body_error_before_record<M: RunMode>(ctx: &Context<'_, '_, M>) -> Result<()> {
    let (a, b) = (ctx.create_stream()?, ctx.create_stream()?);
    let mut n = ctx.create_notify()?;
    let mut d = ctx.alloc::<u8>(64)?;
    let start = Instant::now();
    let r: Result<()> = ctx.scope(|s| {
        make_guard!(ga);
        make_guard!(gb);
        let (_la, lb) = (s.lane(&a, ga), s.lane(&b, gb));
        let n = s.notify(&mut n)?;
        lb.wait_notify(n)?;
        let _x = lb.memset(&mut d, 7)?;
        // The producer's step fails before it records.
        Err(Error::InvalidTimeout { millis: 0 })
    });
    match &r {
        Err(Error::NotifyNotRecorded { waits, records }) => {
            assert_eq!((*waits, *records), (1, 0));
        }
        other => panic!("expected NotifyNotRecorded, got {other:?}"),
    }
    assert_eq!(r.as_ref().unwrap_err().kind(), ErrorKind::Aborted);
    assert!(start.elapsed() < Duration::from_secs(10));
    // The memset behind the wait was discarded, never run.
    let mut h = [0u8; 64];
    ctx.copy(&d, &mut h[..])?;
    assert!(
        h.iter().all(|&v| v != 7),
        "work behind the aborted wait ran"
    );
    // Everything is usable again: the same hand-off, done right.
    ctx.scope(|s| {
        make_guard!(ga);
        make_guard!(gb);
        let (la, lb) = (s.lane(&a, ga), s.lane(&b, gb));
        let n = s.notify(&mut n)?;
        lb.wait_notify(n)?;
        let _x = lb.memset(&mut d, 9)?;
        la.record_notify(n)
    })?;
    ctx.copy(&d, &mut h[..])?;
    assert!(h.iter().all(|&v| v == 9));
    drop(n);
    a.destroy()?;
    b.destroy()
}

#[test]
fn a_body_error_before_the_record_aborts_instead_of_hanging() {
    both_modes(
        "body_error_before_record",
        body_error_before_record,
        body_error_before_record,
    );
}

/// The body panics after the wait: the unwinding end aborts the streams
/// (no hang) and the panic goes on.
fn panic_before_record<M: RunMode>(ctx: &Context<'_, '_, M>) -> Result<()> {
    let (a, b) = (ctx.create_stream()?, ctx.create_stream()?);
    let mut n = ctx.create_notify()?;
    let caught = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        let _ = ctx.scope(|s| {
            make_guard!(ga);
            make_guard!(gb);
            let (_la, lb) = (s.lane(&a, ga), s.lane(&b, gb));
            let n = s.notify(&mut n)?;
            lb.wait_notify(n)?;
            panic!("the producer panicked before its record");
            #[allow(unreachable_code)]
            Ok(())
        });
    }));
    let payload = caught.expect_err("the panic goes on");
    assert!(panic_message(&*payload).contains("before its record"));
    // Lane b's stream was aborted, not left waiting.
    assert!(b.is_complete()?);
    b.synchronize()?;
    drop(n);
    a.destroy()?;
    b.destroy()
}

#[test]
fn a_panic_before_the_record_aborts_instead_of_hanging() {
    both_modes(
        "panic_before_record",
        panic_before_record,
        panic_before_record,
    );
}

/// A record queued on the waiting lane itself sits behind the wait and
/// cannot end it; a failed record call is not counted either.
fn record_behind_the_wait<M: RunMode>(ctx: &Context<'_, '_, M>) -> Result<()> {
    let b = ctx.create_stream()?;
    let mut n = ctx.create_notify()?;
    let r = ctx.scope(|s| {
        make_guard!(gb);
        let lb = s.lane(&b, gb);
        let n = s.notify(&mut n)?;
        lb.wait_notify(n)?;
        lb.record_notify(n)
    });
    match r {
        Err(Error::NotifyNotRecorded { waits, records }) => assert_eq!((waits, records), (1, 1)),
        other => panic!("expected NotifyNotRecorded, got {other:?}"),
    }
    // A record before the wait on the same lane sets it in time.
    ctx.scope(|s| {
        make_guard!(gb);
        let lb = s.lane(&b, gb);
        let n = s.notify(&mut n)?;
        lb.record_notify(n)?;
        lb.wait_notify(n)?;
        lb.synchronize()
    })?;
    drop(n);
    b.destroy()
}

#[test]
fn a_record_behind_the_wait_on_its_own_lane_does_not_count() {
    both_modes(
        "record_behind_the_wait",
        record_behind_the_wait,
        record_behind_the_wait,
    );
}

/// A synchronisation of a lane whose wait is unmatched could only hang:
/// `Lane::synchronize`, a checked wait of a buffer on it and the recovery
/// point are refused at once; once the other lane records, the same calls
/// succeed and the scope ends well.
fn sync_refused_until_recorded<M: RunMode>(ctx: &Context<'_, '_, M>) -> Result<()> {
    let (a, b) = (ctx.create_stream()?, ctx.create_stream()?);
    let mut n = ctx.create_notify()?;
    let mut d = ctx.alloc::<u8>(64)?;
    ctx.scope(|s| {
        make_guard!(ga);
        make_guard!(gb);
        let (la, lb) = (s.lane(&a, ga), s.lane(&b, gb));
        let n = s.notify(&mut n)?;
        lb.wait_notify(n)?;
        let x = lb.memset(&mut d, 5)?;
        let start = Instant::now();
        assert!(not_recorded(&lb.synchronize()));
        let x = match x.wait_or_keep() {
            Err(failed) => {
                assert!(matches!(failed.error(), Error::NotifyNotRecorded { .. }));
                failed.into_item()
            }
            Ok(_) => panic!("a checked wait behind an unrecorded notify returned Ok"),
        };
        assert!(start.elapsed() < Duration::from_secs(5), "a refusal waited");
        // The other lane is free to go on.
        la.synchronize()?;
        la.record_notify(n)?;
        x.wait()?;
        lb.synchronize()
    })?;
    let mut h = [0u8; 64];
    ctx.copy(&d, &mut h[..])?;
    assert!(h.iter().all(|&v| v == 5));
    drop(n);
    a.destroy()?;
    b.destroy()
}

#[test]
fn synchronising_a_lane_behind_an_unrecorded_notify_is_refused() {
    both_modes(
        "sync_refused_until_recorded",
        sync_refused_until_recorded,
        sync_refused_until_recorded,
    );
}

/// `Scope::recover` with an unmatched wait aborts the scope's streams and
/// reports it; the scope's end reports it too.
fn recover_aborts<M: RunMode>(ctx: &Context<'_, '_, M>) -> Result<()> {
    let (a, b) = (ctx.create_stream()?, ctx.create_stream()?);
    let mut n = ctx.create_notify()?;
    let r = ctx.scope(|s| {
        make_guard!(ga);
        make_guard!(gb);
        let (_la, lb) = (s.lane(&a, ga), s.lane(&b, gb));
        let n = s.notify(&mut n)?;
        lb.wait_notify(n)?;
        let rec = s.recover();
        assert!(
            matches!(rec, Err(Error::NotifyNotRecorded { .. })),
            "{rec:?}"
        );
        // The abort discarded the wait: the lane is idle.
        assert!(b.is_complete()?);
        Ok(())
    });
    // The abort sticks to the scope.
    assert_eq!(r.unwrap_err().kind(), ErrorKind::Aborted);
    drop(n);
    a.destroy()?;
    b.destroy()
}

#[test]
fn the_recovery_point_aborts_an_unmatched_wait() {
    both_modes("recover_aborts", recover_aborts, recover_aborts);
}

/// A task of the recording lane fails before the record: the runtime goes
/// on after a failed task (continue-on-failure, the default), so the record
/// runs, the waiting lane is released, and the scope reports the fault.
fn failed_task_before_record<M: RunMode>(ctx: &Context<'_, '_, M>) -> Result<()> {
    let (a, b) = (ctx.create_stream()?, ctx.create_stream()?);
    let mut n = ctx.create_notify()?;
    let (mut da, mut db) = (ctx.alloc::<u8>(64)?, ctx.alloc::<u8>(64)?);
    let r = ctx.scope(|s| {
        make_guard!(ga);
        make_guard!(gb);
        let (la, lb) = (s.lane(&a, ga), s.lane(&b, gb));
        let n = s.notify(&mut n)?;
        lb.wait_notify(n)?;
        let _y = lb.memset(&mut db, 3)?;
        sim::inject_stream_task_fault(a.as_raw(), 1, sys::ACL_ERROR_RT_AICORE_EXCEPTION);
        let _z = la.memset(&mut da, 1)?;
        la.record_notify(n)?;
        Ok(())
    });
    let e = r.expect_err("the fault is reported");
    assert_eq!(e.code(), Some(sys::ACL_ERROR_RT_AICORE_EXCEPTION), "{e:?}");
    let mut h = [0u8; 64];
    ctx.copy(&db, &mut h[..])?;
    assert!(h.iter().all(|&v| v == 3), "lane b was not released");
    drop(n);
    a.destroy()?;
    b.destroy()
}

#[test]
fn a_failed_task_before_the_record_releases_the_waiting_lane() {
    both_modes(
        "failed_task_before_record",
        failed_task_before_record,
        failed_task_before_record,
    );
}

/// In stop-on-failure mode the failed lane's later tasks (its record
/// among them) do not run: the waiting lane is never released by a
/// record; the scope still ends, by its escalation, with the fault.
fn stop_on_failure<M: RunMode>(ctx: &Context<'_, '_, M>) -> Result<()> {
    ctx.set_stop_on_failure()?;
    let (a, b) = (ctx.create_stream()?, ctx.create_stream()?);
    let mut n = ctx.create_notify()?;
    let (mut da, mut db) = (ctx.alloc::<u8>(64)?, ctx.alloc::<u8>(64)?);
    let r = ctx.scope(|s| {
        make_guard!(ga);
        make_guard!(gb);
        let (la, lb) = (s.lane(&a, ga), s.lane(&b, gb));
        let n = s.notify(&mut n)?;
        lb.wait_notify(n)?;
        let _y = lb.memset(&mut db, 3)?;
        sim::inject_stream_task_fault(a.as_raw(), 1, sys::ACL_ERROR_RT_AICORE_EXCEPTION);
        let _z = la.memset(&mut da, 1)?;
        la.record_notify(n)?;
        Ok(())
    });
    let e = r.expect_err("the fault is reported");
    eprintln!("stop-on-failure scope: {e:?}");
    assert!(
        e.code() == Some(sys::ACL_ERROR_RT_AICORE_EXCEPTION)
            || matches!(e, Error::WorkAborted | Error::NotifyNotRecorded { .. }),
        "{e:?}"
    );
    drop(n);
    drop((da, db));
    let _ = a.destroy();
    let _ = b.destroy();
    Ok(())
}

#[test]
fn stop_on_failure_before_the_record_does_not_hang() {
    both_modes("stop_on_failure", stop_on_failure, stop_on_failure);
}

/// Records the scope counted may coalesce (a notify is one flag): two
/// records that both ran before the waits leave the second wait with
/// nothing to consume. The program's own deadlock; a deadline ends it.
fn coalesced_records<M: RunMode>(ctx: &Context<'_, '_, M>) -> Result<()> {
    let (a, b) = (ctx.create_stream()?, ctx.create_stream()?);
    let mut n = ctx.create_notify()?;
    let r = ctx.scope_with_timeout(Duration::from_millis(300), |s| {
        make_guard!(ga);
        make_guard!(gb);
        let (la, lb) = (s.lane(&a, ga), s.lane(&b, gb));
        let n = s.notify(&mut n)?;
        la.record_notify(n)?;
        la.record_notify(n)?;
        la.synchronize()?;
        lb.wait_notify(n)?;
        lb.wait_notify(n)?;
        Ok(())
    });
    assert!(
        matches!(r, Err(Error::ScopeTimeout { .. })),
        "expected the deadline's escalation, got {r:?}"
    );
    drop(n);
    a.destroy()?;
    b.destroy()
}

#[test]
fn coalesced_records_are_ended_by_the_deadline() {
    both_modes("coalesced_records", coalesced_records, coalesced_records);
}

/// A notify offered to, or taken from, another process is refused: its
/// records and waits there are outside the scope's count.
fn shared_refused<M: RunMode>(ctx: &Context<'_, '_, M>) -> Result<()> {
    let mut n = ctx.create_notify()?;
    let _key = n.export(&[std::process::id()])?;
    let r = ctx.scope(|s| s.notify(&mut n).map(|_| ()));
    assert!(matches!(r, Err(Error::NotifyShared)), "{r:?}");
    // A notify of this process only is taken.
    let mut m = ctx.create_notify()?;
    ctx.scope(|s| s.notify(&mut m).map(|_| ()))
}

#[test]
fn a_notify_shared_with_processes_is_refused() {
    both_modes("shared_refused", shared_refused, shared_refused);
}

/// A wait with a time limit ends by itself: not counted; its timeout fails
/// the lane and the scope reports it.
fn timed_wait<M: RunMode>(ctx: &Context<'_, '_, M>) -> Result<()> {
    let b = ctx.create_stream()?;
    let mut n = ctx.create_notify()?;
    let r = ctx.scope(|s| {
        make_guard!(gb);
        let lb = s.lane(&b, gb);
        let n = s.notify(&mut n)?;
        lb.wait_notify_timeout(n, Duration::from_millis(200))
    });
    let e = r.expect_err("the wait timed out");
    assert!(
        !matches!(e, Error::NotifyNotRecorded { .. }),
        "a timed wait was counted: {e:?}"
    );
    drop(n);
    b.destroy()
}

#[test]
fn a_timed_wait_is_not_counted() {
    both_modes("timed_wait", timed_wait, timed_wait);
}
