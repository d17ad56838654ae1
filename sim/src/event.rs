//! Events: creation flag rules, records as (stream, sequence number),
//! status, synchronisation, waits, resets and elapsed time (the event state
//! itself lives with the engine, in `rt::exec`).

use std::sync::atomic::{AtomicU32, AtomicUsize};
use std::sync::{Arc, Mutex, OnceLock};
use std::time::{Duration, Instant};

use crate::diag::{Error, Res, rt_param};
use crate::ffi;
use crate::model::ViolationKind;
use crate::prim::Out;
use crate::rt::EventRec;
use crate::rt::exec::{
    EvState, EventApi, EventShared, EventState, EventUse, HIDDEN_DDSYNC, Op, RecPoint, StreamDep,
};
use crate::rt::{self, HandleKind, rt};
use crate::sync::lock;

const PLAIN_FLAGS: u32 =
    ffi::ACL_EVENT_CAPTURE_STREAM_PROGRESS | HIDDEN_DDSYNC | ffi::ACL_EVENT_TIME_LINE;

/// Maximum events per device.
pub(crate) const MAX_EVENTS: u32 = 65536;

/// When the simulated devices "booted": the first event creation of the
/// process, so it precedes every record. `aclrtEventGetTimestamp` counts
/// microseconds from here; it never moves (not even at
/// [`reset`](crate::reset)), so timestamps are monotonic over the process.
static DEVICE_BOOT: OnceLock<Instant> = OnceLock::new();

fn device_boot() -> Instant {
    *DEVICE_BOOT.get_or_init(Instant::now)
}

/// A 207000 violation: the event's creation flags do not allow `what`.
fn flag_mismatch(msg: String) -> Error {
    Error::violation(
        ViolationKind::EventFlagMismatch,
        ffi::ACL_ERROR_RT_FEATURE_NOT_SUPPORT,
        msg,
    )
}

/// E `EventCreate`'s flag rules (`aclrtCreateEventWithFlag`).
pub(crate) fn check_with_flag(flag: u32) -> Res<()> {
    const ALLOWED: u32 = 0x3F;
    if flag == 0 {
        return Err(rt_param(
            "flag 0 is not allowed: set at least one ACL_EVENT_* bit",
        ));
    }
    if flag & !ALLOWED != 0 {
        return Err(rt_param(format!(
            "flag {flag:#x} has bits outside ACL_EVENT_SYNC..ACL_EVENT_EXTERNAL (0x3f)"
        )));
    }
    for alone in [ffi::ACL_EVENT_DEVICE_USE_ONLY, ffi::ACL_EVENT_EXTERNAL] {
        if flag & alone != 0 && flag != alone {
            return Err(rt_param(format!(
                "flag {flag:#x}: {alone:#x} must be used alone"
            )));
        }
    }
    Ok(())
}

/// E `EventCreateEx`'s flag rules (`aclrtCreateEventExWithFlag`): IPC
/// events only where the chip's feature list has them (910B; fidelity row
/// EVENT-IPC).
pub(crate) fn check_ex_flag(flag: u32, soc: crate::model::Soc) -> Res<()> {
    const ALLOWED: u32 = 0xF;
    if flag == 0 {
        return Err(rt_param(
            "flag 0 is not allowed: set at least one ACL_EVENT_* bit",
        ));
    }
    if flag == ffi::ACL_EVENT_IPC {
        if soc.ipc_events() {
            return Ok(());
        }
        return Err(Error::new(
            ffi::ACL_ERROR_RT_FEATURE_NOT_SUPPORT,
            format!("ACL_EVENT_IPC events are not supported by the simulated chip ({soc:?})"),
        ));
    }
    if flag & !ALLOWED != 0 {
        return Err(rt_param(format!(
            "flag {flag:#x} is not accepted: use bits of ACL_EVENT_SYNC | 0x2 | 0x4 | \
             ACL_EVENT_TIME_LINE, or ACL_EVENT_IPC alone"
        )));
    }
    Ok(())
}

/// `aclrtCreateEvent*`, I `EventCreate[Ex]` (the flags were checked by
/// the runtime's argument-checking layer, [`check_with_flag`] /
/// [`check_ex_flag`]).
pub(crate) fn create(out: Out<usize>, flag: Option<u32>, api: EventApi) -> Res<()> {
    let flags = match (api, flag) {
        (EventApi::WithFlag | EventApi::Ex, Some(f)) => f,
        _ => PLAIN_FLAGS,
    };
    device_boot();
    let mut rt = rt();
    let ctx = rt.current()?;
    let (ctx, device) = (ctx.handle, ctx.device);
    let dev = rt.device_mut(device)?;
    if dev.events >= MAX_EVENTS {
        return Err(Error::new(
            ffi::ACL_ERROR_RT_NO_EVENT_RESOURCE,
            format!("device {device} has no event left (limit {MAX_EVENTS})"),
        ));
    }
    dev.events += 1;
    let (id, handle) = rt::new_handle(HandleKind::Event);
    let shared = Arc::new(EventShared {
        id,
        handle,
        flags,
        api,
        device,
        st: Mutex::new(EventState {
            generation: 0,
            rec: None,
            time: None,
        }),
        pending: AtomicUsize::new(0),
        waits: AtomicUsize::new(0),
        op_flags: [AtomicU32::new(u32::MAX), AtomicU32::new(u32::MAX)],
        ipc: OnceLock::new(),
    });
    if flags & ffi::ACL_EVENT_IPC != 0 {
        crate::ipc::share_event(&shared);
    }
    rt.events.insert(handle, EventRec { ctx, shared });
    out.write(handle);
    Ok(())
}

/// `aclrtDestroyEvent`, I `EventDestroy` (`h` is not NULL).
pub(crate) fn destroy(h: usize) -> Res<()> {
    let mut rt = rt();
    let ev = rt.event(h)?.shared.clone();
    let pending = ev.pending();
    if pending > 0 {
        // Strict rule STRICT-EVENT-IN-USE: the real runtime lets the event go
        // and releases it once the tasks are done; hardware-like mode does
        // that in report mode, the default (the queued tasks hold their own reference).
        let err = Error::violation(
            ViolationKind::ReleaseWhileInUse,
            ffi::ACL_ERROR_RT_EVENT_NOT_COMPLETE,
            format!(
                "event {h:#x} is still used by {pending} queued task(s) (a stream wait or \
                 reset issued on it has not executed yet); synchronize the waiting stream first"
            ),
        )
        .on(h);
        crate::diag::strict_rule(rt.cfg.strictness, "aclrtDestroyEvent", err)?;
    }
    rt.events.remove(&h);
    if let Ok(dev) = rt.device_mut(ev.device) {
        dev.events = dev.events.saturating_sub(1);
    }
    drop(rt);
    // The exporter's own handle goes: its IPC handle opens nothing more
    // (handles opened already keep the shared file).
    if let Some((_, name, true)) = ev.ipc.get() {
        if ev.handle == h {
            crate::shared_files::remove_shared(name);
        }
    }
    Ok(())
}

/// 107000 for an `ACL_EVENT_DEVICE_USE_ONLY` event: the runtime layer's
/// record, reset and wait refuse device-only events from the host, before
/// any stream check (fidelity row EVENT-DEVONLY).
fn host_may_use(ev: &EventShared, call: &str) -> Res<()> {
    if ev.flags & ffi::ACL_EVENT_DEVICE_USE_ONLY != 0 {
        return Err(crate::diag::rt_param(format!(
            "{call}: event {:#x} was created with ACL_EVENT_DEVICE_USE_ONLY; only device code \
             may record, reset or wait for it",
            ev.handle
        )));
    }
    Ok(())
}

/// E's device-only check of a record, reset or wait (`host_may_use`) of
/// event `h`.
pub(crate) fn check_host_use(h: usize, call: &str) -> Res<()> {
    host_may_use(&*lookup(h)?, call)
}

/// E `StreamWaitEvent`'s event checks: a device-only event 107000, then an
/// event without a wait task 207000 (before the implementation's context
/// checks).
pub(crate) fn check_host_wait(h: usize) -> Res<()> {
    let ev = lookup(h)?;
    host_may_use(&ev, "aclrtStreamWaitEvent")?;
    if !ev.waitable() {
        return Err(flag_mismatch(format!(
            "event {h:#x} (flags {:#x}) cannot be waited for: it needs ACL_EVENT_SYNC, \
             ACL_EVENT_EXTERNAL or ACL_EVENT_IPC (or come from aclrtCreateEvent); \
             ACL_EVENT_TIME_LINE and ACL_EVENT_CAPTURE_STREAM_PROGRESS events are not waitable",
            ev.flags
        )));
    }
    Ok(())
}

/// `aclrtRecordEvent`, I `EventRecord` (the handles and the device-only
/// flag were checked by the layers above).
pub(crate) fn record(h: usize, stream: usize) -> Res<()> {
    let (ev, sh) = {
        let rt = rt();
        let ev = rt.event(h)?.shared.clone();
        let (_, st) = rt.stream_in_current(stream)?;
        let sh = st.shared.clone();
        if ev.device != sh.device {
            return Err(Error::violation(
                ViolationKind::WrongContext,
                ffi::ACL_ERROR_RT_STREAM_CONTEXT,
                format!(
                    "event {h:#x} belongs to device {} but stream {:#x} to device {}",
                    ev.device, sh.handle, sh.device
                ),
            ));
        }
        (ev, sh)
    };
    // Stop on failure: a record is a submission too (also when the stream
    // is idle and it would complete at once).
    if let Some(latch) = sh.fail.get() {
        latch.check("no task may be submitted to any stream of the context")?;
    }
    // Room in the stream's submission queue first, without the event's
    // lock (the worker takes it to stamp a record).
    sh.wait_for_room()?;
    let ticket = sh.ticket();
    let mut st = lock(&ev.st);
    let generation = st.generation + 1;
    let ipc = ev.ipc_issue();
    let fast = if ticket.is_plain() {
        sh.try_complete_now()
    } else {
        None
    };
    let seq = match fast {
        Some(seq) => {
            st.time = Some(Instant::now());
            ev.ipc_executed(ipc);
            sh.trace_instant("record event", "event", seq, ev.id);
            seq
        }
        None => {
            let submitted = sh.submit(
                Op::Record {
                    ev: ev.clone(),
                    generation,
                    ipc,
                },
                ticket,
            );
            // A record never queued is none another process waits for.
            let seq = submitted.inspect_err(|_| ev.ipc_executed(ipc))?;
            st.time = None;
            seq
        }
    };
    st.generation = generation;
    st.rec = Some(RecPoint { stream: sh, seq });
    Ok(())
}

/// `aclrtResetEvent`, I `EventReset`.
pub(crate) fn reset(h: usize, stream: usize) -> Res<()> {
    let (ev, sh) = {
        let rt = rt();
        let ev = rt.event(h)?.shared.clone();
        let (_, st) = rt.stream_in_current(stream)?;
        (ev, st.shared.clone())
    };
    match ev.api {
        // `aclrtCreateEvent` is `rtEventCreate`, which creates with the
        // default flags; they include the synchronising one, so the reset
        // passes E `EventReset` and is queued (row EVENT-R-2).
        EventApi::Plain => {}
        EventApi::WithFlag if ev.flags & ffi::ACL_EVENT_SYNC != 0 => {}
        EventApi::WithFlag => {
            return Err(flag_mismatch(format!(
                "event {h:#x} was created without ACL_EVENT_SYNC; only such events can be reset"
            )));
        }
        EventApi::Ex => {
            return Err(flag_mismatch(format!(
                "event {h:#x} comes from aclrtCreateEventExWithFlag and cannot be reset"
            )));
        }
    }
    let ticket = sh.ticket();
    let generation = lock(&ev.st).generation;
    sh.submit(
        Op::ResetEvent {
            ev: EventUse::new(ev),
            generation,
        },
        ticket,
    )?;
    Ok(())
}

/// `aclrtStreamWaitEvent`, I `StreamWaitEvent` (the event's flags were
/// checked by [`check_host_wait`]).
pub(crate) fn stream_wait(stream: usize, h: usize) -> Res<()> {
    stream_wait_within(stream, h, None)
}

/// [`stream_wait`] with the wait task's own limit (`aclrtStreamWaitEventWithFlag`'s
/// timeout; `None`: the op-wait timeout of `aclrtSetOpWaitTimeout`).
pub(crate) fn stream_wait_within(stream: usize, h: usize, limit: Option<Duration>) -> Res<()> {
    let (ev, sh, timeout) = {
        let rt = rt();
        let ev = rt.event(h)?.shared.clone();
        let (_, st) = rt.stream_in_current(stream)?;
        let sh = st.shared.clone();
        if ev.device != sh.device {
            return Err(Error::violation(
                ViolationKind::WrongContext,
                ffi::ACL_ERROR_RT_STREAM_CONTEXT,
                format!(
                    "event {h:#x} belongs to device {} but stream {:#x} to device {}; events \
                     synchronise streams of one device",
                    ev.device, sh.handle, sh.device
                ),
            ));
        }
        (ev, sh, limit.or(rt.op_wait_timeout))
    };
    if let Some(g) = ev.foreign_record() {
        return wait_foreign(ev, &sh, g, timeout);
    }
    let Some(rec) = ev.record_point() else {
        // Never recorded (or reset): nothing to wait for.
        return Ok(());
    };
    if rec.stream.executed(rec.seq) {
        return Ok(());
    }
    // A record dropped by aclrtStreamAbort never completes: the wait task
    // holds this stream until it is aborted too (as on the device).
    let ticket = sh.ticket();
    sh.submit(
        Op::Wait {
            target: StreamDep::new(rec.stream),
            seq: rec.seq,
            ev: EventUse::wait(ev),
            timeout,
        },
        ticket,
    )?;
    Ok(())
}

/// A wait for record `g` of an IPC event, issued by another process: the
/// wait task looks at the shared file every millisecond until that record
/// (or a later one) executed there; the op-wait timeout and an abort or a
/// teardown of this stream end it as they end any wait.
fn wait_foreign(
    ev: Arc<EventShared>,
    sh: &Arc<crate::rt::exec::StreamShared>,
    g: u32,
    timeout: Option<Duration>,
) -> Res<()> {
    if ev.ipc_reached(g) {
        return Ok(());
    }
    let hold = EventUse::wait(ev);
    let ticket = sh.ticket();
    sh.submit(
        Op::Native {
            name: "wait event",
            category: "wait",
            blocking: true,
            run: Box::new(move |stopped| {
                let start = Instant::now();
                loop {
                    if hold.shared().ipc_reached(g) {
                        return Ok(None);
                    }
                    if stopped() {
                        return Err(crate::rt::exec::KernelCut);
                    }
                    if timeout.is_some_and(|t| start.elapsed() >= t) {
                        return Ok(Some((
                            crate::rt::exec::WAIT_TIMEOUT_CODE,
                            format!(
                                "waiting for IPC event {:#x} timed out after {:?} \
                                 (aclrtSetOpWaitTimeout)",
                                hold.shared().handle,
                                start.elapsed()
                            ),
                        )));
                    }
                    std::thread::sleep(Duration::from_millis(1));
                }
            }),
        },
        ticket,
    )?;
    Ok(())
}

fn lookup(h: usize) -> Res<Arc<EventShared>> {
    Ok(rt().event(h)?.shared.clone())
}

/// `aclrtQueryEventStatus`, E `EventQueryStatus` + I: whether the event is
/// recorded (complete).
pub(crate) fn query_status(h: usize) -> Res<bool> {
    let ev = lookup(h)?;
    // The runtime layer refuses external events here (fidelity row
    // EVENT-QS-2).
    if ev.flags & ffi::ACL_EVENT_EXTERNAL != 0 {
        return Err(Error::new(
            ffi::ACL_ERROR_RT_FEATURE_NOT_SUPPORT,
            format!("event {h:#x} is external; aclrtQueryEventStatus is not supported for it",),
        ));
    }
    Ok(match ev.state() {
        EvState::Complete => true,
        EvState::Pending => false,
        EvState::Unrecorded => ev.api == EventApi::Ex,
    })
}

fn not_for_ex(ev: &EventShared, what: &str) -> Res<()> {
    if ev.api == EventApi::Ex {
        return Err(flag_mismatch(format!(
            "event {:#x} comes from aclrtCreateEventExWithFlag; use aclrtQueryEventStatus \
             instead of {what}",
            ev.handle
        )));
    }
    if ev.flags & (ffi::ACL_EVENT_EXTERNAL | ffi::ACL_EVENT_IPC) != 0 {
        return Err(Error::new(
            ffi::ACL_ERROR_RT_FEATURE_NOT_SUPPORT,
            format!(
                "event {:#x} (flags {:#x}) is external or IPC; {what} is not supported for it",
                ev.handle, ev.flags
            ),
        ));
    }
    Ok(())
}

/// `aclrtQueryEvent` (deprecated), E `EventQuery` + I: whether the event is
/// complete.
pub(crate) fn query(h: usize) -> Res<bool> {
    let ev = lookup(h)?;
    not_for_ex(&ev, "aclrtQueryEvent")?;
    // Only a record still in flight reads NOT_READY: an event never
    // recorded (or reset) is complete (fidelity row EVENT-Q-1).
    Ok(ev.state() != EvState::Pending)
}

/// `aclrtQueryEventWaitStatus` (COMPLETE = 0, NOT_READY = 1): whether every
/// wait task issued on the event (`aclrtStreamWaitEvent`) has executed;
/// COMPLETE when none was issued (F.7).
pub(crate) fn query_wait_status(h: usize) -> Res<bool> {
    let ev = lookup(h)?;
    not_for_ex(&ev, "aclrtQueryEventWaitStatus")?;
    Ok(ev.pending_waits() == 0)
}

/// `aclrtSynchronizeEvent[WithTimeout]`, E `EventSynchronize` (external
/// events) + I, waiting until `deadline` (from `timeout`, which the
/// message names).
pub(crate) fn synchronize(h: usize, deadline: Option<Instant>, timeout: Option<i32>) -> Res<()> {
    let ev = lookup(h)?;
    if ev.flags & (ffi::ACL_EVENT_EXTERNAL | ffi::ACL_EVENT_DEVICE_USE_ONLY) != 0 {
        return Err(Error::new(
            ffi::ACL_ERROR_RT_FEATURE_NOT_SUPPORT,
            format!(
                "event {h:#x} (flags {:#x}) is external or device-use-only; the host cannot \
                 synchronize with it",
                ev.flags
            ),
        ));
    }
    if let Some(g) = ev.foreign_record() {
        // A record of another process: its completion shows in the shared
        // file.
        while !ev.ipc_reached(g) {
            if deadline.is_some_and(|d| Instant::now() >= d) {
                return Err(Error::new(
                    ffi::ACL_ERROR_RT_EVENT_SYNC_TIMEOUT,
                    format!(
                        "IPC event {h:#x} did not complete within {} ms",
                        timeout.unwrap_or(-1)
                    ),
                ));
            }
            std::thread::sleep(Duration::from_millis(1));
        }
        return Ok(());
    }
    let Some(rec) = ev.record_point() else {
        return Ok(());
    };
    let dropped = || {
        rec.stream.abort_error(&format!(
            "the record of event {h:#x} was dropped, so the event never completes"
        ))
    };
    if rec.stream.is_dropped(rec.seq) {
        return Err(dropped());
    }
    if crate::sync::on_worker_of(rec.stream.id) && !rec.stream.reached(rec.seq) {
        return Err(rt_param(
            "called from a callback running on the stream the event was recorded on; it \
             would wait for itself",
        ));
    }
    rec.stream.check_self_served(Some(rec.seq))?;
    if !rec.stream.wait_seq(rec.seq, deadline) {
        return Err(Error::new(
            ffi::ACL_ERROR_RT_EVENT_SYNC_TIMEOUT,
            format!(
                "event {h:#x} did not complete within {} ms",
                timeout.unwrap_or(-1)
            ),
        ));
    }
    if rec.stream.is_dropped(rec.seq) {
        return Err(dropped());
    }
    // A device fault of a captured task is not reported here: the runtime
    // waits for the record task and returns (`Event::Synchronize` →
    // `Stream::SynchronizeImpl`), leaving the fault on the stream for its
    // next `aclrtSynchronizeStream` or `aclrtSynchronizeDevice` (FIDELITY
    // EVENT-S-4). In the stop-on-failure mode the context's failure is
    // reported by every call (`Context::CheckStatus`), this one included.
    if let Some(latch) = rec.stream.fail.get() {
        latch.check("every synchronisation in the context reports it")?;
    }
    Ok(())
}

/// `aclrtEventElapsedTime`, EV `Event::ElapsedTime`: both events recorded
/// (507000 otherwise), then both timestamps taken: a record that has not
/// executed (or never will, after a fault) has none yet, 107006 (row
/// EVENT-T-3).
pub(crate) fn elapsed(out: Out<f32>, start: usize, end: usize) -> Res<()> {
    let (a, b) = {
        let rt = rt();
        (
            rt.event(start)?.shared.clone(),
            rt.event(end)?.shared.clone(),
        )
    };
    for ev in [&a, &b] {
        if ev.flags & (ffi::ACL_EVENT_EXTERNAL | ffi::ACL_EVENT_IPC) != 0 {
            return Err(Error::new(
                ffi::ACL_ERROR_RT_FEATURE_NOT_SUPPORT,
                format!(
                    "event {:#x} is external/IPC and carries no timestamp",
                    ev.handle
                ),
            ));
        }
    }
    for ev in [&a, &b] {
        if lock(&ev.st).rec.is_none() {
            return Err(not_recorded(ev));
        }
    }
    let mut times = [Instant::now(); 2];
    for (i, ev) in [&a, &b].into_iter().enumerate() {
        let st = lock(&ev.st);
        let Some(rec) = st.rec.clone() else {
            return Err(not_recorded(ev));
        };
        if ev.flags & ffi::ACL_EVENT_TIME_LINE == 0 {
            return Err(no_time_line(ev));
        }
        let executed = rec.stream.executed(rec.seq);
        match st.time {
            Some(t) if executed => times[i] = t,
            _ => {
                return Err(Error::new(
                    ffi::ACL_ERROR_RT_EVENT_TIMESTAMP_INVALID,
                    format!(
                        "the record of event {:#x} {}, so it has no timestamp; synchronize \
                         the event (or its stream) first",
                        ev.handle,
                        if executed {
                            "did not run (device fault)"
                        } else {
                            "has not executed yet"
                        }
                    ),
                ));
            }
        }
    }
    let ms = if times[1] >= times[0] {
        times[1].duration_since(times[0]).as_secs_f64() * 1e3
    } else {
        -(times[0].duration_since(times[1]).as_secs_f64() * 1e3)
    };
    out.write(ms as f32);
    Ok(())
}

/// 507000 ("recorder null"): timing an event that was never recorded.
fn not_recorded(ev: &EventShared) -> Error {
    Error::violation(
        ViolationKind::EventNotRecorded,
        ffi::ACL_ERROR_RT_INTERNAL_ERROR,
        format!(
            "event {:#x} was never recorded (or was reset since), so it has no timestamp; \
             record it and synchronize first",
            ev.handle
        ),
    )
}

/// 107006: timing an event created without `ACL_EVENT_TIME_LINE`.
fn no_time_line(ev: &EventShared) -> Error {
    Error::violation(
        ViolationKind::EventFlagMismatch,
        ffi::ACL_ERROR_RT_EVENT_TIMESTAMP_INVALID,
        format!(
            "event {:#x} (flags {:#x}) was created without ACL_EVENT_TIME_LINE, so its record \
             captured no timestamp",
            ev.handle, ev.flags
        ),
    )
}

/// `aclrtEventGetTimestamp`: when the event's record executed, in µs since
/// the simulated device booted (F.6).
pub(crate) fn timestamp(h: usize, out: Out<u64>) -> Res<()> {
    let ev = lookup(h)?;
    if ev.flags & (ffi::ACL_EVENT_EXTERNAL | ffi::ACL_EVENT_IPC) != 0 {
        return Err(Error::new(
            ffi::ACL_ERROR_RT_FEATURE_NOT_SUPPORT,
            format!(
                "event {h:#x} (flags {:#x}) is external or IPC and carries no timestamp",
                ev.flags
            ),
        ));
    }
    let st = lock(&ev.st);
    let Some(rec) = st.rec.clone() else {
        return Err(not_recorded(&ev));
    };
    if ev.flags & ffi::ACL_EVENT_TIME_LINE == 0 {
        return Err(no_time_line(&ev));
    }
    if !rec.stream.executed(rec.seq) {
        return Err(Error::new(
            ffi::ACL_ERROR_RT_EVENT_TIMESTAMP_INVALID,
            format!(
                "the record of event {h:#x} has not executed yet, so there is no timestamp; \
                 synchronize the event (or its stream) first"
            ),
        ));
    }
    let Some(at) = st.time else {
        return Err(Error::new(
            ffi::ACL_ERROR_RT_EVENT_TIMESTAMP_INVALID,
            format!("the record of event {h:#x} did not execute (device fault)"),
        ));
    };
    let us = at.saturating_duration_since(device_boot()).as_micros();
    out.write(u64::try_from(us).unwrap_or(u64::MAX));
    Ok(())
}

/// `aclrtGetEventAvailNum`, I.
pub(crate) fn available(out: Out<u32>) -> Res<()> {
    let rt = rt();
    let device = rt.current()?.device;
    let used = rt.device(device)?.events;
    out.write(MAX_EVENTS.saturating_sub(used));
    Ok(())
}
