//! Event kinds of `aclrtCreateEventExWithFlag`, event timestamps, the wait
//! status, and stream priority through the safe API, in both run modes,
//! with the simulator's audit clean at the end of every test.

use crate::common;

use std::sync::atomic::{AtomicBool, AtomicU32, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use aclrt::bounds::{EventKind, IsRecorded, TimingKind, WaitableKind};
use aclrt::sim::{self, ViolationKind};
use aclrt::{
    Acl, Context, DeviceMode, Error, ErrorKind, Event, ExProgress, ExProgressTimed, ExSync,
    ExSyncProgress, ExSyncProgressTimed, ExSyncTimed, ExTimeLine, HostMode, Result, RunMode,
    StreamFlags, StreamPriority, SyncOnly, Timing, make_guard, sys,
};
use common::*;

fn both_modes(f: impl Fn(&Acl, bool) -> Result<()>) {
    for (config, device_mode) in [(host_config(), false), (device_config(), true)] {
        let _sim = take(config);
        let acl = Acl::init().expect("aclInit");
        f(&acl, device_mode).expect("flow");
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

fn in_mode(acl: &Acl, device_mode: bool, f: &dyn Fn(&dyn Flow) -> Result<()>) -> Result<()> {
    if device_mode {
        with_ctx::<DeviceMode>(acl, |ctx| f(&CtxFlow(ctx)))
    } else {
        with_ctx::<HostMode>(acl, |ctx| f(&CtxFlow(ctx)))
    }
}

/// Lets one test body run against contexts of either run mode.
trait Flow {
    fn run(&self, which: &str) -> Result<()>;
}

struct CtxFlow<'a, 'c, 'id, M: RunMode>(&'a Context<'c, 'id, M>);

impl<M: RunMode> Flow for CtxFlow<'_, '_, '_, M> {
    fn run(&self, which: &str) -> Result<()> {
        match which {
            "kinds" => every_kind(self.0),
            "cross_stream" => cross_stream_wait(self.0),
            "timestamps" => timestamps(self.0),
            "wait_status" => wait_status(self.0),
            "priority" => priority(self.0),
            _ => unreachable!("{which}"),
        }
    }
}

// ------------------------------------------------------------ kinds

#[test]
fn kind_flags_are_the_documented_values() {
    assert_eq!(Timing::FLAG, 0);
    const { assert!(!Timing::EX) };
    assert_eq!(SyncOnly::FLAG, sys::ACL_EVENT_SYNC);
    const { assert!(!SyncOnly::EX) };
    let sync = sys::ACL_EVENT_SYNC;
    let progress = sys::ACL_EVENT_CAPTURE_STREAM_PROGRESS;
    let time_line = sys::ACL_EVENT_TIME_LINE;
    assert_eq!((sync, progress, time_line), (0x1, 0x2, 0x8));
    let ex = [
        (ExSync::FLAG, ExSync::EX, sync),
        (ExSyncTimed::FLAG, ExSyncTimed::EX, sync | time_line),
        (ExSyncProgress::FLAG, ExSyncProgress::EX, sync | progress),
        (
            ExSyncProgressTimed::FLAG,
            ExSyncProgressTimed::EX,
            sync | progress | time_line,
        ),
        (ExProgress::FLAG, ExProgress::EX, progress),
        (
            ExProgressTimed::FLAG,
            ExProgressTimed::EX,
            progress | time_line,
        ),
        (ExTimeLine::FLAG, ExTimeLine::EX, time_line),
    ];
    for (flag, is_ex, want) in ex {
        assert!(is_ex);
        assert_eq!(flag, want);
    }
    // Seven distinct flag sets: every non-empty combination of the three
    // documented flags.
    let mut flags: Vec<u32> = ex.iter().map(|e| e.0).collect();
    flags.sort_unstable();
    flags.dedup();
    assert_eq!(flags.len(), 7);
}

/// Record, synchronise and query one event of kind `K`; time it when it is
/// timed.
fn record_and_check<'id, K: EventKind, M: RunMode>(ctx: &Context<'_, 'id, M>) -> Result<()> {
    let stream = ctx.create_stream()?;
    let ev = ctx.create_event_of::<K>()?;
    let ev = stream.record(ev)?;
    ev.synchronize()?;
    assert!(ev.is_complete()?);
    // Re-recording is allowed for every kind.
    let ev = stream.record(ev)?;
    ev.synchronize_timeout(Duration::from_secs(5))?;
    assert!(ev.is_complete()?);
    ev.destroy()?;
    stream.destroy()
}

fn timed<'id, K: TimingKind, M: RunMode>(ctx: &Context<'_, 'id, M>) -> Result<()> {
    let stream = ctx.create_stream()?;
    let a = stream.record(ctx.create_event_of::<K>()?)?;
    let b = stream.record(ctx.create_event_of::<K>()?)?;
    stream.synchronize()?;
    let (ta, tb) = (a.timestamp()?, b.timestamp()?);
    assert!(tb >= ta);
    let ms = b.elapsed_since(&a)?;
    assert!(ms >= 0.0);
    drop((a, b));
    stream.destroy()
}

fn waited<'id, K: WaitableKind, M: RunMode>(ctx: &Context<'_, 'id, M>) -> Result<()> {
    let a = ctx.create_stream()?;
    let b = ctx.create_stream()?;
    let produced = Arc::new(AtomicU32::new(0));
    let p = Arc::clone(&produced);
    a.launch_host_fn(move || {
        std::thread::sleep(Duration::from_millis(15));
        p.store(7, Ordering::SeqCst);
    })?;
    let ev = a.record(ctx.create_event_of::<K>()?)?;
    let seen = AtomicU32::new(u32::MAX);
    ctx.scope(|s| {
        make_guard!(lb);
        let lane = s.lane(&b, lb);
        lane.wait_event(&ev)?;
        lane.host_fn(|| seen.store(produced.load(Ordering::SeqCst), Ordering::SeqCst))?;
        lane.synchronize()
    })?;
    // Lane b ran its host function only after stream a passed the record.
    assert_eq!(seen.load(Ordering::SeqCst), 7);
    ev.destroy()?;
    a.destroy()?;
    b.destroy()
}

fn every_kind<'id, M: RunMode>(ctx: &Context<'_, 'id, M>) -> Result<()> {
    record_and_check::<Timing, M>(ctx)?;
    record_and_check::<SyncOnly, M>(ctx)?;
    record_and_check::<ExSync, M>(ctx)?;
    record_and_check::<ExSyncTimed, M>(ctx)?;
    record_and_check::<ExSyncProgress, M>(ctx)?;
    record_and_check::<ExSyncProgressTimed, M>(ctx)?;
    record_and_check::<ExProgress, M>(ctx)?;
    record_and_check::<ExProgressTimed, M>(ctx)?;
    record_and_check::<ExTimeLine, M>(ctx)?;
    timed::<Timing, M>(ctx)?;
    timed::<ExSyncTimed, M>(ctx)?;
    timed::<ExSyncProgressTimed, M>(ctx)?;
    timed::<ExProgressTimed, M>(ctx)?;
    timed::<ExTimeLine, M>(ctx)?;
    waited::<Timing, M>(ctx)?;
    waited::<SyncOnly, M>(ctx)?;
    waited::<ExSync, M>(ctx)?;
    waited::<ExSyncTimed, M>(ctx)?;
    waited::<ExSyncProgress, M>(ctx)?;
    waited::<ExSyncProgressTimed, M>(ctx)
}

#[test]
fn every_kind_records_times_and_waits_as_its_flags_allow() {
    both_modes(|acl, dm| in_mode(acl, dm, &|f| f.run("kinds")));
}

// ------------------------------------------------------------ cross stream

/// The reference flow: a progress event watches the producer, an ExSync
/// event orders the consumer after it, and time-line events time both.
fn cross_stream_wait<'id, M: RunMode>(ctx: &Context<'_, 'id, M>) -> Result<()> {
    let producer = ctx.create_stream()?;
    let consumer = ctx.create_stream()?;
    let produced = Arc::new(AtomicU32::new(0));
    let start = producer.record(ctx.create_event_of::<ExTimeLine>()?)?;
    let p = Arc::clone(&produced);
    producer.launch_host_fn(move || {
        std::thread::sleep(Duration::from_millis(30));
        p.store(42, Ordering::SeqCst);
    })?;
    let progress = producer.record(ctx.create_event_of::<ExProgress>()?)?;
    let ready = producer.record(ctx.create_event_of::<ExSyncTimed>()?)?;
    let data = pattern_u32(1024, 3);
    let src = ctx.alloc_host_from(&data)?;
    let mut on_device = ctx.alloc::<u32>(1024)?;
    let mut back = ctx.alloc_host_zeroed::<u32>(1024)?;
    let seen = AtomicU32::new(0);
    ctx.scope(|s| {
        make_guard!(lc);
        let c = s.lane(&consumer, lc);
        c.wait_event(&ready)?;
        c.host_fn(|| seen.store(produced.load(Ordering::SeqCst), Ordering::SeqCst))?;
        let up = c.copy(&src, &mut on_device)?;
        let down = c.copy(&up, &mut back)?;
        // The producer is still sleeping: progress not reached.
        assert!(!progress.is_complete()?);
        progress.synchronize()?;
        assert!(progress.is_complete()?);
        down.wait()?;
        Ok(())
    })?;
    assert_eq!(seen.load(Ordering::SeqCst), 42);
    let mut out = vec![0u32; 1024];
    ctx.copy(&back, &mut out)?;
    assert_eq!(out, data);
    let ms = ready.elapsed_since(&start)?;
    assert!(ms >= 25.0, "{ms} ms");
    assert!(ready.timestamp()? >= start.timestamp()? + Duration::from_millis(25));
    drop((start, progress, ready, src, on_device, back));
    producer.destroy()?;
    consumer.destroy()
}

#[test]
fn progress_sync_and_time_line_events_in_one_flow() {
    both_modes(|acl, dm| in_mode(acl, dm, &|f| f.run("cross_stream")));
}

// ------------------------------------------------------------ timestamps

fn timestamps<'id, M: RunMode>(ctx: &Context<'_, 'id, M>) -> Result<()> {
    let stream = ctx.create_stream()?;
    let mut buf = ctx.alloc::<u8>(1 << 16)?;
    let start = stream.record(ctx.create_event()?)?; // Timing
    sim::set_stream_delay(stream.as_raw(), Duration::from_millis(25));
    ctx.scope(|s| {
        make_guard!(l);
        let lane = s.lane(&stream, l);
        let _ = lane.memset(&mut buf, 1)?;
        Ok(())
    })?;
    let end = stream.record(ctx.create_event_of::<ExTimeLine>()?)?;
    // Still queued behind a delayed task: no timestamp yet (107006).
    let err = end.timestamp().unwrap_err();
    assert_eq!(err.code(), Some(sys::ACL_ERROR_RT_EVENT_TIMESTAMP_INVALID));
    assert_eq!(err.function(), Some("aclrtEventGetTimestamp"));
    end.synchronize()?;
    let (t0, t1) = (start.timestamp()?, end.timestamp()?);
    assert!(t1 >= t0 + Duration::from_millis(20), "{t0:?} {t1:?}");
    // Kinds may differ: a Timing start and an ExTimeLine end.
    let ms = end.elapsed_since(&start)?;
    let diff = (t1 - t0).as_secs_f64() * 1e3;
    assert!((f64::from(ms) - diff).abs() < 0.01, "{ms} vs {diff}");
    let back = start.elapsed_since(&end)?;
    assert!(back < 0.0);
    // Another thread reads the same timestamp (events are Sync).
    std::thread::scope(|t| {
        t.spawn(|| assert_eq!(end.timestamp().expect("timestamp"), t1));
    });
    drop((start, end, buf));
    stream.destroy()
}

#[test]
fn timestamps_are_monotonic_and_agree_with_elapsed_time() {
    both_modes(|acl, dm| in_mode(acl, dm, &|f| f.run("timestamps")));
}

#[test]
fn timestamp_fault_injection_is_reported_and_leaks_nothing() -> Result<()> {
    let _sim = take(host_config());
    let acl = Acl::init()?;
    let device = acl.require::<HostMode>()?.device(0)?;
    make_guard!(g);
    let ctx = device.create_context(g)?;
    sim::inject_fault(
        "aclrtCreateEventExWithFlag",
        1,
        sys::ACL_ERROR_RT_NO_EVENT_RESOURCE,
    );
    let err = ctx.create_event_of::<ExSync>().unwrap_err();
    assert_eq!(err.kind(), ErrorKind::ResourceExhausted);
    assert_eq!(err.function(), Some("aclrtCreateEventExWithFlag"));
    let stream = ctx.create_stream()?;
    let ev = stream.record(ctx.create_event_of::<ExSyncTimed>()?)?;
    ev.synchronize()?;
    sim::inject_fault(
        "aclrtEventGetTimestamp",
        1,
        sys::ACL_ERROR_RT_INTERNAL_ERROR,
    );
    let err = ev.timestamp().unwrap_err();
    assert!(matches!(err, Error::Acl { .. }));
    assert_eq!(err.function(), Some("aclrtEventGetTimestamp"));
    // Not injected any more.
    assert!(ev.timestamp()? > Duration::ZERO);
    sim::clear_faults();
    drop(ev);
    drop(stream);
    drop(ctx);
    device.reset()?;
    acl.finalize()?;
    assert_clean();
    Ok(())
}

// ------------------------------------------------------------ wait status

fn wait_status<'id, M: RunMode>(ctx: &Context<'_, 'id, M>) -> Result<()> {
    let a = ctx.create_stream()?;
    let b = ctx.create_stream()?;
    let ev = ctx.create_event_of::<SyncOnly>()?;
    // No wait issued: complete, even unrecorded.
    assert!(ev.waits_complete()?);
    let release = Arc::new(AtomicBool::new(false));
    let r = Arc::clone(&release);
    a.launch_host_fn(move || {
        while !r.load(Ordering::SeqCst) {
            std::thread::sleep(Duration::from_millis(1));
        }
    })?;
    let ev = a.record(ev)?;
    assert!(ev.waits_complete()?, "recorded, no wait issued");
    let seen = Mutex::new(None);
    ctx.scope(|s| {
        make_guard!(lb);
        let lane = s.lane(&b, lb);
        lane.wait_event(&ev)?;
        // A host function may query (it does not wait for the device) but
        // not synchronise.
        lane.host_fn(|| {
            *seen.lock().unwrap() = Some((ev.waits_complete(), ev.synchronize()));
        })?;
        std::thread::sleep(Duration::from_millis(10));
        assert!(!ev.waits_complete()?, "lane b waits behind stream a");
        release.store(true, Ordering::SeqCst);
        lane.synchronize()?;
        assert!(ev.waits_complete()?);
        Ok(())
    })?;
    let (in_cb, sync_in_cb) = seen.lock().unwrap().take().expect("host function ran");
    assert!(in_cb?, "the wait had executed before the host function");
    assert!(
        matches!(sync_in_cb, Err(Error::InCallback { .. })),
        "{sync_in_cb:?}"
    );
    ev.destroy()?;
    a.destroy()?;
    b.destroy()
}

#[test]
fn wait_status_follows_the_issued_waits() {
    both_modes(|acl, dm| in_mode(acl, dm, &|f| f.run("wait_status")));
}

// ------------------------------------------------------------ priority

fn priority<'id, M: RunMode>(ctx: &Context<'_, 'id, M>) -> Result<()> {
    assert_eq!(ctx.default_stream()?.priority()?, StreamPriority::HIGHEST);
    assert_eq!(ctx.create_stream()?.priority()?, StreamPriority::HIGHEST);
    for p in 0..=7 {
        let want = StreamPriority::new(p).expect("in range");
        let s = ctx.create_stream_with_config(want, StreamFlags::FAST_LAUNCH)?;
        assert_eq!(s.priority()?, want);
        assert_eq!(s.priority()?.get(), p);
        // Read from another thread (streams are Sync; each call binds).
        std::thread::scope(|t| {
            t.spawn(|| assert_eq!(s.priority().expect("priority"), want));
        });
        s.destroy()?;
    }
    Ok(())
}

#[test]
fn stream_priority_round_trips_in_both_modes() {
    both_modes(|acl, dm| {
        if dm {
            let range = acl
                .require::<DeviceMode>()?
                .device(0)?
                .stream_priority_range()?;
            assert_eq!((range.least, range.greatest), (7, 0));
        } else {
            let device = acl.require::<HostMode>()?.device(1)?;
            let range = device.stream_priority_range()?;
            assert_eq!((range.least, range.greatest), (7, 0));
            assert!(range.contains(StreamPriority::LOWEST));
            assert!(range.contains(StreamPriority::HIGHEST));
            device.reset()?;
        }
        in_mode(acl, dm, &|f| f.run("priority"))
    });
}

#[test]
fn stream_priority_values() {
    assert_eq!(StreamPriority::new(8), None);
    assert_eq!(StreamPriority::new(7), Some(StreamPriority::LOWEST));
    assert_eq!(StreamPriority::default(), StreamPriority::HIGHEST);
    // The runtime's clamp, as documented (F.8).
    assert_eq!(StreamPriority::clamped(8), StreamPriority::LOWEST);
    assert_eq!(StreamPriority::clamped(0x7FFF_FFFF), StreamPriority::LOWEST);
    assert_eq!(
        StreamPriority::clamped(0x8000_0000),
        StreamPriority::HIGHEST
    );
    assert_eq!(StreamPriority::clamped(u32::MAX), StreamPriority::HIGHEST);
    assert_eq!(StreamPriority::clamped(5).get(), 5);
    assert!(StreamPriority::HIGHEST.is_higher_than(StreamPriority::LOWEST));
    assert!(!StreamPriority::LOWEST.is_higher_than(StreamPriority::HIGHEST));
    assert!(!StreamPriority::LOWEST.is_higher_than(StreamPriority::LOWEST));
}

/// A rule broken through the raw API on purpose is recorded by the
/// simulator; the safe API cannot express it.
#[test]
fn raw_wait_on_a_progress_event_is_a_recorded_violation() -> Result<()> {
    let _sim = take(host_config());
    let acl = Acl::init()?;
    let device = acl.require::<HostMode>()?.device(0)?;
    make_guard!(g);
    let ctx = device.create_context(g)?;
    let stream = ctx.create_stream()?;
    let ev = stream.record(ctx.create_event_of::<ExProgress>()?)?;
    ev.synchronize()?;
    // SAFETY: both handles are live (owned above); the call only reads them.
    let code = unsafe { sys::aclrtStreamWaitEvent(stream.as_raw(), ev.as_raw()) };
    assert_eq!(code, sys::ACL_ERROR_RT_FEATURE_NOT_SUPPORT);
    let audit = sim::audit();
    assert_eq!(audit.violations.len(), 1);
    assert_eq!(audit.violations[0].kind, ViolationKind::EventFlagMismatch);
    assert_eq!(audit.violations[0].function, "aclrtStreamWaitEvent");
    drop(ev);
    drop(stream);
    drop(ctx);
    device.reset()?;
    acl.finalize()?;
    sim::reset();
    Ok(())
}

#[allow(dead_code)]
fn generic_over_recorded<'id, K: TimingKind, S: IsRecorded>(
    a: &Event<'_, 'id, K, S>,
    b: &Event<'_, 'id, ExTimeLine, S>,
) -> Result<f32> {
    b.elapsed_since(a)
}
