//! Host callbacks: `aclrtLaunchHostFunc` (runs on the stream worker) and the
//! `aclrtSubscribeReport` / `aclrtLaunchCallback` / `aclrtProcessReport` /
//! `aclrtUnSubscribeReport` flow (runs on the application's thread), on the
//! callback queues of `rt::reports`.

use std::collections::BTreeSet;
use std::ffi::c_void;
use std::sync::atomic::Ordering;
use std::time::{Duration, Instant};

use crate::diag::{Error, Res};
use crate::ffi;
use crate::prim::{self, HostCall};
use crate::rt::detach;
use crate::rt::exec::{Op, StreamShared};
use crate::rt::reports::{Report, ReportQueue, Subscription, run_callback, run_orphans};
use crate::rt::rt;
use crate::sync::lock;

/// Maximum number of subscribed threads.
const MAX_SUBSCRIBED_THREADS: usize = 1024;

/// `aclrtLaunchHostFunc`, E `LaunchHostFunc`'s mechanism checks + I (the
/// handle guard and the NULL function check, fidelity row CB-NULL-FN, are
/// the layers' above).
pub(crate) fn launch_host_func(
    stream: usize,
    f: unsafe extern "C" fn(*mut c_void),
    make: impl FnOnce(unsafe extern "C" fn(*mut c_void)) -> HostCall,
) -> Res<()> {
    let (sh, served) = {
        let rt = rt();
        let st = rt.stream_in_current(stream)?.1;
        (
            st.shared.clone(),
            rt.ext.host_func_streams.contains(&st.handle),
        )
    };
    if lock(&sh.subscriber).is_some() {
        if stream == 0 || served {
            // A stream subscribed with aclrtSubscribeHostFunc: the host
            // function is served by the subscribed thread's
            // aclrtProcessHostFunc, and holds the stream until it returns.
            // Or a literal NULL: the runtime layer's mix check looks at the
            // handle only, and the default stream, already served by a
            // report thread, takes the host function as a blocking callback
            // task for that thread (fidelity row CB-MIX-NULL).
            let ticket = sh.ticket();
            sh.submit(
                Op::Callback {
                    call: make(f),
                    block: true,
                    via: "aclrtLaunchHostFunc",
                    mark: None,
                },
                ticket,
            )?;
            return Ok(());
        }
        return Err(mixed(
            &sh,
            "aclrtLaunchHostFunc",
            "subscribed with aclrtSubscribeReport",
        ));
    }
    let ticket = sh.ticket();
    sh.submit(Op::HostFunc(make(f)), ticket)?;
    sh.host_funcs.store(true, Ordering::Relaxed);
    Ok(())
}

/// 107011 `ACL_ERROR_RT_STREAM_SUBSCRIBE`: the real runtime binds a stream
/// to one callback mechanism at a time (`aclrtLaunchHostFunc`'s internal
/// thread, or a thread of `aclrtSubscribeReport`); `what` names the one in
/// force (fidelity rows CB-MIX-*).
fn mixed(sh: &StreamShared, call: &str, what: &str) -> Error {
    Error::new(
        ffi::ACL_ERROR_RT_STREAM_SUBSCRIBE,
        format!(
            "{call}: stream {:#x} is {what}; a stream serves one callback mechanism \
             (aclrtLaunchHostFunc, or aclrtSubscribeReport + aclrtLaunchCallback), not both",
            sh.handle
        ),
    )
}

/// The [`mixed`] error when `aclrtLaunchHostFunc` was used on `sh`.
fn refuse_if_host_funcs(sh: &StreamShared, call: &str) -> Res<()> {
    if sh.host_funcs.load(Ordering::Relaxed) {
        return Err(mixed(
            sh,
            call,
            "served by aclrtLaunchHostFunc's callback thread",
        ));
    }
    Ok(())
}

/// `aclrtLaunchCallback`, E `CallbackLaunch`'s mechanism checks + I (the
/// blockType, the handle guard and the NULL function are the layers'
/// above).
pub(crate) fn launch_callback(
    f: unsafe extern "C" fn(*mut c_void),
    block: bool,
    stream: usize,
    make: impl FnOnce(unsafe extern "C" fn(*mut c_void)) -> HostCall,
) -> Res<()> {
    let sh = {
        let rt = rt();
        rt.stream_in_current(stream)?.1.shared.clone()
    };
    if stream == 0 && sh.host_funcs.load(Ordering::Relaxed) && lock(&sh.subscriber).is_none() {
        // A literal NULL on a default stream served by the runtime's own
        // callback thread (aclrtLaunchHostFunc): the mix check looks at the
        // handle only, so the callback is taken and run by that thread, as
        // a host function is (fidelity row CB-MIX-NULL).
        let ticket = sh.ticket();
        sh.submit(Op::HostFunc(make(f)), ticket)?;
        return Ok(());
    }
    refuse_if_host_funcs(&sh, "aclrtLaunchCallback")?;
    if lock(&sh.subscriber).is_none() {
        return Err(Error::new(
            ffi::ACL_ERROR_RT_STREAM_NO_CB_REG,
            format!(
                "stream {:#x} has no subscribed thread; call aclrtSubscribeReport first",
                sh.handle
            ),
        ));
    }
    let ticket = sh.ticket();
    sh.submit(
        Op::Callback {
            call: make(f),
            block,
            via: "aclrtLaunchCallback",
            mark: None,
        },
        ticket,
    )?;
    Ok(())
}

/// E `SubscribeReport` / `UnSubscribeReport`: a stream handle (not NULL)
/// served by the runtime's host-function thread 107011, before the
/// implementation's checks.
pub(crate) fn check_not_host_func_stream(stream: usize, call: &str) -> Res<()> {
    if stream == 0 {
        return Ok(());
    }
    let sh = rt().stream(stream)?.shared.clone();
    refuse_if_host_funcs(&sh, call)
}

/// `aclrtSubscribeReport`, I `SubscribeReport`: NULL is the current
/// context's default stream (107002 without one); a stream handle is not
/// checked against the current context (row CB-SUB-CTX), but a chip with
/// the STARS scheduler (the 910B) creates the event of the stream's
/// blocking callbacks in the current context first (I `EventCreate`:
/// 107002 without one).
pub(crate) fn subscribe(tid: u64, stream: usize) -> Res<()> {
    let mut rt = rt();
    if stream != 0 && rt.cfg.soc.has_stars() {
        rt.current()?;
    }
    let st = rt.stream(stream)?;
    let (sh, handle, device) = (st.shared.clone(), st.handle, st.device);
    refuse_if_host_funcs(&sh, "aclrtSubscribeReport")?;
    let mut sub = lock(&sh.subscriber);
    if let Some((other, _)) = sub.as_ref() {
        return Err(Error::new(
            ffi::ACL_ERROR_RT_STREAM_SUBSCRIBE,
            format!("stream {handle:#x} is already subscribed by thread {other:#x}"),
        ));
    }
    let queue = match rt.subs.get_mut(&tid) {
        Some(s) if s.device != device => {
            return Err(Error::new(
                ffi::ACL_ERROR_RT_THREAD_SUBSCRIBE,
                format!(
                    "thread {tid:#x} already serves streams of device {}; a thread serves one \
                     device",
                    s.device
                ),
            ));
        }
        Some(s) => {
            s.streams.insert(handle);
            s.queue.clone()
        }
        None => {
            if rt.subs.len() >= MAX_SUBSCRIBED_THREADS {
                return Err(Error::new(
                    ffi::ACL_ERROR_RT_OVER_LIMIT,
                    format!("at most {MAX_SUBSCRIBED_THREADS} threads can be subscribed"),
                ));
            }
            let queue = ReportQueue::new();
            rt.subs.insert(
                tid,
                Subscription {
                    device,
                    queue: queue.clone(),
                    streams: BTreeSet::from([handle]),
                },
            );
            queue
        }
    };
    *sub = Some((tid, queue));
    Ok(())
}

/// `aclrtUnSubscribeReport`, I `UnSubscribeReport`: removes the
/// subscription of the stream from the registry and runs the reports of
/// that stream still queued. NULL is the current context's default stream
/// (107002 without one); a stream handle is not checked against the
/// current context (row CB-SUB-CTX).
pub(crate) fn unsubscribe(tid: u64, stream: usize) -> Res<()> {
    let orphans = {
        let mut rt = rt();
        let st = rt.stream(stream)?;
        let sh = st.shared.clone();
        if stream == 0 && sh.host_funcs.load(Ordering::Relaxed) {
            // A literal NULL skips the mix check; the runtime's callback
            // thread serves the stream, not `tid` (fidelity row CB-MIX-NULL).
            return Err(Error::new(
                ffi::ACL_ERROR_RT_THREAD_SUBSCRIBE,
                format!(
                    "the default stream {:#x} is served by the runtime's callback thread \
                     (aclrtLaunchHostFunc), not by thread {tid:#x}",
                    sh.handle
                ),
            ));
        }
        refuse_if_host_funcs(&sh, "aclrtUnSubscribeReport")?;
        match lock(&sh.subscriber).as_ref() {
            None => {
                return Err(Error::new(
                    ffi::ACL_ERROR_RT_STREAM_SUBSCRIBE,
                    format!("stream {:#x} is not subscribed", sh.handle),
                ));
            }
            Some((other, _)) if *other != tid => {
                return Err(Error::new(
                    ffi::ACL_ERROR_RT_THREAD_SUBSCRIBE,
                    format!(
                        "stream {:#x} is subscribed by thread {other:#x}, not by {tid:#x}",
                        sh.handle
                    ),
                ));
            }
            Some(_) => {}
        }
        // Either unsubscription ends a host-function subscription too.
        rt.ext.host_func_streams.remove(&sh.handle);
        detach(&mut rt.subs, &sh)
    };
    run_orphans(orphans);
    Ok(())
}

/// `aclrtProcessReport`, I `ProcessReport` (the ACL layer refused a
/// timeout of 0 or below −1).
pub(crate) fn process(timeout: i32) -> Res<()> {
    let tid = prim::os_thread_id();
    let queue = rt().subs.get(&tid).map(|s| s.queue.clone());
    let Some(queue) = queue else {
        return Err(Error::new(
            ffi::ACL_ERROR_RT_THREAD_SUBSCRIBE,
            format!("thread {tid:#x} is not subscribed to any stream (aclrtSubscribeReport)"),
        ));
    };
    let deadline = (timeout > 0).then(|| Instant::now() + Duration::from_millis(timeout as u64));
    match queue.pop(deadline) {
        Some(first) => {
            // I `ProcessReport`: one wake-up of the thread's report queue
            // (the driver's `CqReportIrqWait`) runs every report queued by
            // then, in order (row CB-REPORT-ALL); later ones wait for the
            // next call.
            let mut all = vec![first];
            all.extend(queue.take_of(None));
            for r in all {
                let Report {
                    call,
                    stream,
                    generation,
                    done,
                    ..
                } = r;
                let blocking = done.is_some().then_some(stream);
                crate::sync::blocking_for(blocking, || {
                    run_callback(call, generation, "aclrtProcessReport")
                });
                drop(done);
            }
            Ok(())
        }
        None if queue.is_closed() => Err(Error::new(
            ffi::ACL_ERROR_RT_THREAD_SUBSCRIBE,
            format!("thread {tid:#x} was unsubscribed while waiting"),
        )),
        None => Err(Error::new(
            ffi::ACL_ERROR_RT_REPORT_TIMEOUT,
            format!("no callback arrived within {timeout} ms"),
        )),
    }
}

/// `rtSubscribeHostFunc` (the compact runtime's `SubscribeReport` with the
/// host-function kind): the report subscription's checks, and the stream's
/// host functions are then served by thread `tid`.
pub(crate) fn subscribe_host_func(tid: u64, stream: usize) -> Res<()> {
    subscribe(tid, stream)?;
    let mut rt = rt();
    let h = rt.stream(stream)?.handle;
    rt.ext.host_func_streams.insert(h);
    Ok(())
}

/// `rtUnSubscribeHostFunc`: the report unsubscription's checks; host
/// functions still queued run on the unsubscribing thread.
pub(crate) fn unsubscribe_host_func(tid: u64, stream: usize) -> Res<()> {
    unsubscribe(tid, stream)
}

/// `rtProcessHostFunc`: a timeout of 0 or below -1 107000; a thread that
/// serves no stream 107012; then one host function (or callback) of the
/// thread's streams runs on it, waiting `timeout` ms for one (-1: for
/// ever; none in time: 107010).
pub(crate) fn process_host_func(timeout: i32) -> Res<()> {
    if timeout == 0 || timeout < -1 {
        return Err(Error::new(
            ffi::ACL_ERROR_RT_PARAM_INVALID,
            format!("timeout {timeout}: expected -1 or a positive number of ms"),
        ));
    }
    process(timeout)
}
