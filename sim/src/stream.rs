//! Streams: creation, destruction (normal and forced), synchronisation,
//! abort, query, the per-device limit and the op wait timeout.

use std::sync::atomic::Ordering;
use std::time::Duration;

use crate::diag::{Error, Res, param, rt_param};
use crate::ffi;
use crate::model::ViolationKind;
use crate::prim::Out;
use crate::rt::exec::{self, SyncEnd, fault_error};
use crate::rt::reports;
use crate::rt::{ForcedWorker, HandleKind, MAX_STREAMS, rt};
use crate::sync::{self};

/// The stream flags the ACL layer passes on (`aclrtCreateStreamWithConfig`
/// drops every other bit: fidelity row STREAM-CFG-2).
pub(crate) const KNOWN_FLAGS: u32 = ffi::ACL_STREAM_FAST_LAUNCH
    | ffi::ACL_STREAM_FAST_SYNC
    | ffi::ACL_STREAM_PERSISTENT
    | ffi::ACL_STREAM_HUGE
    | ffi::ACL_STREAM_CPU_SCHEDULE
    | ffi::ACL_STREAM_DEVICE_USE_ONLY;

/// E `CheckStreamFlags` (stream creation): huge streams only where the
/// chip has them (207000, fidelity row SOC-HUGE); DEVICE_USE_ONLY, the
/// runtime's "control-process" flag, only alone (107000, STREAM-CFG-3).
pub(crate) fn check_flags(flags: u32, soc: crate::model::Soc) -> Res<()> {
    if flags & ffi::ACL_STREAM_HUGE != 0 && !soc.huge_streams() {
        return Err(Error::new(
            ffi::ACL_ERROR_RT_FEATURE_NOT_SUPPORT,
            format!(
                "flags {flags:#x}: the simulated chip ({soc:?}) has no huge streams \
                 (ACL_STREAM_HUGE)"
            ),
        ));
    }
    if flags & ffi::ACL_STREAM_DEVICE_USE_ONLY != 0 && flags != ffi::ACL_STREAM_DEVICE_USE_ONLY {
        return Err(rt_param(format!(
            "flags {flags:#x}: ACL_STREAM_DEVICE_USE_ONLY cannot be combined with other flags"
        )));
    }
    Ok(())
}

/// `aclrtCreateStream[WithConfig]`, I `StreamCreate`: a stream of the
/// current context (the flags were checked by [`check_flags`]); its handle.
pub(crate) fn create_stream(flags: u32) -> Res<usize> {
    let mut rt = rt();
    let ctx = rt.current()?;
    let (c, d) = (ctx.handle, ctx.device);
    rt.new_stream(c, d, false, flags)
}

/// 107000 for a NULL stream on a chip without the control submission
/// queue: the runtime layer resolves NULL to the default stream only where
/// the chip has one (fidelity row SOC-NULL-STREAM).
pub(crate) fn null_stream_needs_control_sq(
    rt: &crate::rt::Runtime,
    h: usize,
    call: &str,
) -> Res<()> {
    if h == 0 && !rt.cfg.soc.control_sq() {
        return Err(rt_param(format!(
            "{call}: stream is NULL; the simulated chip ({:?}) has no control submission queue, \
             so NULL does not name the default stream here (pass an explicit stream)",
            rt.cfg.soc
        )));
    }
    Ok(())
}

/// The least (lowest) stream priority, 7; the greatest is 0 (F.8).
pub(crate) const LEAST_PRIORITY: i32 = 7;

/// The priority part of `aclrtCreateStreamWithConfig`, after
/// [`create_stream`] made stream `h`: stores `priority` clamped into 0..=7
/// (the runtime reads the `uint32_t` as `int32_t`, so values of 2^31 or
/// more are negative and clamp to 0; it never errors).
pub(crate) fn set_created_priority(h: usize, priority: u32) {
    let clamped = (priority as i32).clamp(0, LEAST_PRIORITY) as u32;
    if let Some(rec) = rt().streams.get_mut(&h) {
        rec.priority = clamped;
    }
}

/// `aclrtStreamGetPriority`, I `StreamGetPriority` (NULL stream: the
/// current context's default stream; the stream's context is not checked).
pub(crate) fn get_priority(h: usize, out: Out<u32>) -> Res<()> {
    let rt = rt();
    rt.current()?;
    let priority = rt.stream(h)?.priority;
    out.write(priority);
    Ok(())
}

/// `aclrtStreamGetId`, I `GetStreamId`: a NULL stream is the current
/// context's default stream (107002 without a context); the stream's own
/// context is not checked. The id is the stream's number on its device
/// (the K of "device N stream K" in the trace).
pub(crate) fn get_id(h: usize) -> Res<i32> {
    Ok(rt().stream(h)?.shared.id as i32)
}

/// `aclrtStreamGetFlags`, I `StreamGetFlags`: a current context first
/// (107002), then the stream (NULL: the default stream); the flags it was
/// created with, as the ACL layer translates them back (the known bits).
pub(crate) fn get_flags(h: usize) -> Res<u32> {
    let rt = rt();
    rt.current()?;
    Ok(rt.stream(h)?.shared.flags & KNOWN_FLAGS)
}

/// `aclrtSetStreamOverflowSwitch`, I `SetStreamOverflowSwitch`: a current
/// context (107002), the stream (NULL: the default stream) of that context
/// (107003).
pub(crate) fn set_overflow_switch(h: usize, flag: u32) -> Res<()> {
    let mut rt = rt();
    let handle = rt.stream_in_current(h)?.1.handle;
    if let Some(st) = rt.streams.get_mut(&handle) {
        st.overflow_switch = flag;
    }
    Ok(())
}

/// `aclrtGetStreamOverflowSwitch`, I `GetStreamOverflowSwitch`: as the
/// setter; the stream's switch on a chip with STARS, else always 1.
pub(crate) fn overflow_switch(h: usize) -> Res<u32> {
    let rt = rt();
    let st = rt.stream_in_current(h)?.1;
    Ok(if rt.cfg.soc.stars() {
        st.overflow_switch
    } else {
        1
    })
}

/// `aclrtDeviceGetStreamPriorityRange`: least 7, greatest 0; either pointer
/// may be NULL (nothing checks them).
pub(crate) fn priority_range(least: Out<i32>, greatest: Out<i32>) -> Res<()> {
    least.write(LEAST_PRIORITY);
    greatest.write(0);
    Ok(())
}

/// `aclrtDestroyStream` / `aclrtDestroyStreamForce`, I `StreamDestroy`
/// (`h` is not NULL: the ACL layer refused that).
pub(crate) fn destroy_stream(h: usize, force: bool) -> Res<()> {
    let (sh, orphans, ctx, device) = {
        let mut rt = rt();
        let st = rt.stream(h)?;
        let (ctx, device) = (st.ctx, st.device);
        if st.is_default {
            return Err(param(format!(
                "stream {h:#x} is a default stream; it cannot be destroyed"
            )));
        }
        rt.stream_in_current(h)?;
        let sh = rt.stream(h)?.shared.clone();
        if sync::on_worker_of(sh.id) {
            return Err(rt_param(
                "called from a callback running on this very stream; it would wait for itself",
            ));
        }
        if force {
            let deps = sh.dependents.load(Ordering::SeqCst);
            if deps > 0 && !sh.is_idle() {
                return Err(Error::violation(
                    ViolationKind::ReleaseWhileInUse,
                    ffi::ACL_ERROR_RT_STREAM_NOT_COMPLETE,
                    format!(
                        "{deps} queued wait task(s) of other streams wait for unfinished tasks of \
                         stream {h:#x}; force-destroying it would drop what they wait for"
                    ),
                ));
            }
        }
        match rt.remove_stream(h) {
            Some((sh, orphans)) => (sh, orphans, ctx, device),
            None => return Err(rt.bad_handle(h, HandleKind::Stream)),
        }
    };
    // The orphaned callbacks first: a blocking one among them holds the
    // worker until it has run, so joining the worker before would wait for
    // ever (found by the fuzzer: a stream subscribed to the destroying
    // thread itself, or to a thread that never serves it).
    reports::run_orphans(orphans);
    if force {
        // Pending tasks are dropped; the running one finishes on its own,
        // and device synchronisation waits for it.
        if let Some(worker) = sh.discard() {
            rt().forced.push(ForcedWorker {
                ctx,
                device,
                stream_id: sh.id,
                worker,
            });
        }
    } else {
        sh.shutdown_and_join();
    }
    Ok(())
}

const SYNC_IMMEDIATE: u32 =
    ffi::ACL_STREAM_PERSISTENT | ffi::ACL_STREAM_DEVICE_USE_ONLY | ffi::ACL_STREAM_CPU_SCHEDULE;

/// `aclrtSynchronizeStream[WithTimeout]`: E `StreamSynchronize`'s streams
/// that return at once, then I `StreamSynchronize`: a current context is
/// required (107002), then the stream of any context is waited for (the
/// runtime switches to its context for the wait) until `deadline` (from
/// `timeout`, which the message names).
pub(crate) fn synchronize_stream(
    h: usize,
    deadline: Option<std::time::Instant>,
    timeout: Option<i32>,
) -> Res<()> {
    let sh = {
        let rt = rt();
        let sh = rt.stream(h)?.shared.clone();
        if sh.flags & SYNC_IMMEDIATE != 0 {
            return Ok(());
        }
        // I `StreamSynchronize`: `CurrentContext()` then
        // `CHECK_CONTEXT_VALID_WITH_RETURN(.., RT_ERROR_CONTEXT_NULL)`
        // (fidelity row STREAM-SYNC-CTX).
        rt.current()?;
        sh
    };
    if sync::on_worker_of(sh.id) && !sh.is_idle() {
        return Err(rt_param(
            "called from a callback running on this very stream; it would wait for itself",
        ));
    }
    match sh.sync(deadline) {
        SyncEnd::Done => {}
        SyncEnd::TimedOut => {
            return Err(Error::new(
                ffi::ACL_ERROR_RT_STREAM_SYNC_TIMEOUT,
                format!(
                    "stream {:#x} did not finish within {} ms",
                    sh.handle,
                    timeout.unwrap_or(-1)
                ),
            ));
        }
        SyncEnd::Aborted => {
            return Err(sh.abort_error("tasks this synchronisation waited for were dropped"));
        }
    }
    if let Some(f) = sh.take_fault(u64::MAX) {
        return Err(fault_error(&sh, f));
    }
    if let Some(latch) = sh.fail.get() {
        latch.check("every synchronisation of a stream of the context reports it")?;
    }
    Ok(())
}

/// `aclrtStreamAbort`: synchronous; drops the queued tasks, cuts a delayed
/// or waiting running task short, waits for a running task that cannot be
/// interrupted, and leaves the stream usable.
pub(crate) fn stream_abort(h: usize) -> Res<()> {
    let sh = {
        let rt = rt();
        null_stream_needs_control_sq(&rt, h, "aclrtStreamAbort")?;
        let sh = rt.stream_in_current(h)?.1.shared.clone();
        if !rt.cfg.soc.stream_abort() {
            return Err(Error::new(
                ffi::ACL_ERROR_RT_FEATURE_NOT_SUPPORT,
                format!(
                    "aclrtStreamAbort is not supported by the simulated chip ({:?})",
                    rt.cfg.soc
                ),
            ));
        }
        sh
    };
    if sync::on_worker_of(sh.id) {
        return Err(rt_param(
            "called from a callback running on this very stream; the abort would wait for itself",
        ));
    }
    sh.abort(exec::ABORT_LIMIT).map(drop).map_err(|_| {
        Error::new(
            ffi::ACL_ERROR_RT_WAIT_TIMEOUT,
            format!(
                "stream {h:#x}: the running task (a host function or blocking callback) did not \
                 finish within {} s; its queued tasks were dropped, and the stream completes \
                 them once the running task returns",
                exec::ABORT_LIMIT.as_secs()
            ),
        )
    })
}

/// `aclrtStreamQuery`, I `StreamQuery`: whether the stream is idle. The
/// runtime needs a current context but queries a stream of any context
/// (fidelity row STREAM-10: no 107003 here).
pub(crate) fn stream_query(h: usize) -> Res<bool> {
    let rt = rt();
    rt.current()?;
    Ok(rt.stream(h)?.shared.is_idle())
}

/// `aclrtGetStreamAvailableNum`, I.
pub(crate) fn streams_available(out: Out<u32>) -> Res<()> {
    let rt = rt();
    let d = rt.current()?.device;
    out.write(MAX_STREAMS.saturating_sub(rt.device(d)?.streams));
    Ok(())
}

/// `aclrtSetOpExecuteTimeOut` (seconds; 0: the chip's default). The
/// runtime's C entry point refuses it only on chips this simulator does not
/// model (207000 where the chip configures the limit in milliseconds or has
/// no AI CPU); the implementation converts it to microseconds without a
/// bound and stores it process-wide, the last call winning. Kernels queued
/// from then on run under it ([`Soc::op_execute_limit`](crate::Soc::op_execute_limit)).
pub(crate) fn set_op_execute_timeout(secs: u32) -> Res<()> {
    rt().op_execute_timeout = secs;
    Ok(())
}

/// `aclrtSetOpWaitTimeout` (seconds; 0: never).
pub(crate) fn set_op_wait_timeout(secs: u32) -> Res<()> {
    rt().op_wait_timeout = (secs > 0).then(|| Duration::from_secs(u64::from(secs)));
    Ok(())
}

/// 107005 `ACL_ERROR_RT_STREAM_MODEL` for a stream that is not bound to a
/// model runtime instance: no stream of the simulator is (binding one,
/// `aclmdlRIBindStream`, is not modelled), so the stream-to-stream tasks
/// of model instances (`aclrtActiveStream`, `aclrtSwitchStream`) all end
/// here.
fn not_model_stream(h: usize) -> Error {
    Error::new(
        ffi::ACL_ERROR_RT_STREAM_MODEL,
        format!("stream {h:#x} is not bound to a model runtime instance"),
    )
}

/// `aclrtActiveStream`, I `StreamActive`: a current context (107002), then
/// both streams must be model streams (107005).
pub(crate) fn active_stream(stream: usize) -> Res<()> {
    rt().current()?;
    Err(not_model_stream(stream))
}

/// `aclrtSwitchStream`, I `StreamSwitchEx`: the true stream, then the
/// stream, must be model streams (107005), before the context is looked
/// at.
pub(crate) fn switch_stream(true_stream: usize) -> Res<()> {
    Err(not_model_stream(true_stream))
}

/// `aclrtStreamStop`, I `StreamClear(STOP)`: a current context (107002); a
/// chip without STARS cannot clear streams (207000); the TS firmware must
/// have the MC2-enhance feature, which the simulated firmware has not
/// (207000, the answer of such firmware); the stream's context is checked
/// only after that.
pub(crate) fn stream_stop() -> Res<()> {
    let rt = rt();
    rt.current()?;
    let why = if rt.cfg.soc.stars() {
        "the simulated task scheduler firmware has no stream clearing (TS_FEATURE_MC2_ENHANCE)"
    } else {
        "this chip clears streams only on STARS platforms, which it is not"
    };
    Err(Error::new(ffi::ACL_ERROR_RT_FEATURE_NOT_SUPPORT, why))
}

/// The stream the overflow status functions work on
/// (`aclrtGetOverflowStatus`, `aclrtResetOverflowStatus`; I
/// `GetDeviceSatStatus`, `CleanDeviceSatStatus`): a current context
/// (107002), NULL its default stream, a stream of that context (107003).
pub(crate) fn overflow_target(h: usize) -> Res<()> {
    rt().stream_in_current(h).map(|_| ())
}
