//! Host callbacks: `aclrtLaunchHostFunc` (runs on the stream worker) and the
//! `aclrtSubscribeReport` / `aclrtLaunchCallback` / `aclrtProcessReport` /
//! `aclrtUnSubscribeReport` flow (runs on the application's thread).

use std::collections::{BTreeSet, VecDeque};
use std::ffi::c_void;
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::sync::{Arc, Condvar, Mutex, PoisonError};
use std::time::{Duration, Instant};

use crate::diag::{self, Error, Res, param};
use crate::ffi;
use crate::model::{Violation, ViolationKind};
use crate::prim::{self, HostCall};
use crate::rt::rt;
use crate::stream::{Op, StreamShared};
use crate::sync::lock;
use crate::sync::{Done, DoneGuard};

/// Maximum number of subscribed threads.
const MAX_SUBSCRIBED_THREADS: usize = 1024;

/// One callback handed to a reporting thread.
pub(crate) struct Report {
    call: HostCall,
    stream: u64,
    /// Declared last: signalled after the call has run (or the report was
    /// dropped unrun at teardown), releasing a `ACL_CALLBACK_BLOCK` stream.
    done: Option<DoneGuard>,
}

/// The callback queue of one subscribed thread.
pub(crate) struct ReportQueue {
    q: Mutex<(VecDeque<Report>, bool)>,
    cv: Condvar,
}

impl ReportQueue {
    fn new() -> Arc<ReportQueue> {
        Arc::new(ReportQueue {
            q: Mutex::new((VecDeque::new(), false)),
            cv: Condvar::new(),
        })
    }

    fn push(&self, r: Report) {
        let mut q = lock(&self.q);
        if q.1 {
            drop(q);
            // Closed: run it here rather than lose it.
            run_callback(r.call, "aclrtLaunchCallback");
            return;
        }
        q.0.push_back(r);
        self.cv.notify_all();
    }

    /// Waits for a report; `None` on timeout or when the queue was closed.
    fn pop(&self, deadline: Option<Instant>) -> Option<Report> {
        let mut q = lock(&self.q);
        loop {
            if let Some(r) = q.0.pop_front() {
                return Some(r);
            }
            if q.1 {
                return None;
            }
            match deadline {
                None => q = self.cv.wait(q).unwrap_or_else(PoisonError::into_inner),
                Some(d) => {
                    let now = Instant::now();
                    if now >= d {
                        return None;
                    }
                    q = self
                        .cv
                        .wait_timeout(q, d - now)
                        .unwrap_or_else(PoisonError::into_inner)
                        .0;
                }
            }
        }
    }

    /// Removes the queued reports of stream `id` (all if `None`).
    fn take_of(&self, id: Option<u64>) -> Vec<Report> {
        let mut q = lock(&self.q);
        let (mine, rest): (Vec<Report>, Vec<Report>) =
            q.0.drain(..)
                .partition(|r| id.is_none_or(|id| r.stream == id));
        q.0.extend(rest);
        mine
    }

    /// Closes the queue: a waiting `aclrtProcessReport` returns.
    fn close(&self) {
        lock(&self.q).1 = true;
        self.cv.notify_all();
    }

    /// Teardown: drops every queued report unrun (releasing blocked
    /// streams) and closes the queue.
    pub(crate) fn cancel_all(&self) {
        let dropped = self.take_of(None);
        self.close();
        drop(dropped);
    }
}

/// A thread subscribed with `aclrtSubscribeReport`.
pub(crate) struct Subscription {
    /// Its device (a thread serves streams of one device only).
    pub device: i32,
    /// Its callback queue.
    pub queue: Arc<ReportQueue>,
    /// The stream handles it serves.
    pub streams: BTreeSet<usize>,
}

/// Runs an application callback, catching a panic (recorded as a
/// violation) so that it cannot tear down a runtime thread.
fn run_callback(call: HostCall, function: &'static str) {
    if catch_unwind(AssertUnwindSafe(|| {
        crate::sync::as_callback(|| call.call())
    }))
    .is_err()
    {
        diag::record_violation(Violation {
            function,
            code: ffi::ACL_ERROR_RT_INTERNAL_ERROR,
            kind: ViolationKind::CallbackPanicked,
            message: format!("{function}: a host callback panicked; the panic was caught"),
        });
    }
}

/// Executes a `Callback` task on the stream worker: hands it to the
/// subscribed thread (and waits for it if `block`), or runs it inline when
/// the stream lost its subscription meanwhile.
pub(crate) fn dispatch(stream: &StreamShared, call: HostCall, block: bool) {
    let queue = lock(&stream.subscriber).as_ref().map(|(_, q)| q.clone());
    match queue {
        None => run_callback(call, "aclrtLaunchCallback"),
        Some(q) => {
            let done = block.then(Done::new);
            q.push(Report {
                call,
                stream: stream.id,
                done: done.clone().map(DoneGuard::new),
            });
            if let Some(d) = done {
                d.wait();
            }
        }
    }
}

/// `aclrtLaunchHostFunc`.
pub(crate) fn launch_host_func(
    stream: usize,
    f: Option<unsafe extern "C" fn(*mut c_void)>,
    make: impl FnOnce(unsafe extern "C" fn(*mut c_void)) -> HostCall,
) -> Res<()> {
    let Some(f) = f else {
        return Err(param("fn is NULL"));
    };
    let sh = {
        let rt = rt();
        rt.stream_in_current(stream)?.1.shared.clone()
    };
    let ticket = sh.ticket();
    sh.submit(Op::HostFunc(make(f)), ticket)?;
    Ok(())
}

/// `aclrtLaunchCallback`.
pub(crate) fn launch_callback(
    f: Option<unsafe extern "C" fn(*mut c_void)>,
    block_type: u32,
    stream: usize,
    make: impl FnOnce(unsafe extern "C" fn(*mut c_void)) -> HostCall,
) -> Res<()> {
    let Some(f) = f else {
        return Err(param("fn is NULL"));
    };
    let block = match block_type {
        ffi::ACL_CALLBACK_NO_BLOCK => false,
        ffi::ACL_CALLBACK_BLOCK => true,
        other => {
            return Err(param(format!(
                "blockType {other} is neither ACL_CALLBACK_NO_BLOCK (0) nor ACL_CALLBACK_BLOCK (1)"
            )));
        }
    };
    let sh = {
        let rt = rt();
        rt.stream_in_current(stream)?.1.shared.clone()
    };
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
        },
        ticket,
    )?;
    Ok(())
}

/// `aclrtSubscribeReport`.
pub(crate) fn subscribe(tid: u64, stream: usize) -> Res<()> {
    let mut rt = rt();
    let st = rt.stream_in_current(stream)?.1;
    let (sh, handle, device) = (st.shared.clone(), st.handle, st.device);
    let mut sub = lock(&sh.subscriber);
    if let Some((other, _)) = sub.as_ref() {
        return Err(Error::new(
            ffi::ACL_ERROR_REPEAT_SUBSCRIBE,
            format!("stream {handle:#x} is already subscribed by thread {other:#x}"),
        ));
    }
    let queue = match rt.subs.get_mut(&tid) {
        Some(s) if s.device != device => {
            return Err(diag::rt_param(format!(
                "thread {tid:#x} already serves streams of device {}; a thread serves one device",
                s.device
            )));
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

/// Removes the subscription of stream `sh` (if any) from the registry;
/// returns the reports of that stream still queued (to be run by the caller
/// after releasing the runtime lock).
pub(crate) fn detach(
    subs: &mut std::collections::BTreeMap<u64, Subscription>,
    sh: &StreamShared,
) -> Vec<Report> {
    let Some((tid, queue)) = lock(&sh.subscriber).take() else {
        return Vec::new();
    };
    let pending = queue.take_of(Some(sh.id));
    if let Some(s) = subs.get_mut(&tid) {
        s.streams.remove(&sh.handle);
        if s.streams.is_empty() {
            subs.remove(&tid);
            queue.close();
        }
    }
    pending
}

/// Runs reports that lost their reporting thread.
pub(crate) fn run_orphans(reports: Vec<Report>) {
    for r in reports {
        let Report { call, done, .. } = r;
        run_callback(call, "aclrtUnSubscribeReport");
        drop(done);
    }
}

/// `aclrtUnSubscribeReport`.
pub(crate) fn unsubscribe(tid: u64, stream: usize) -> Res<()> {
    let orphans = {
        let mut rt = rt();
        let st = rt.stream_in_current(stream)?.1;
        let sh = st.shared.clone();
        match lock(&sh.subscriber).as_ref() {
            None => {
                return Err(Error::new(
                    ffi::ACL_ERROR_STREAM_NOT_SUBSCRIBE,
                    format!("stream {:#x} is not subscribed", sh.handle),
                ));
            }
            Some((other, _)) if *other != tid => {
                return Err(Error::new(
                    ffi::ACL_ERROR_THREAD_NOT_SUBSCRIBE,
                    format!(
                        "stream {:#x} is subscribed by thread {other:#x}, not by {tid:#x}",
                        sh.handle
                    ),
                ));
            }
            Some(_) => {}
        }
        detach(&mut rt.subs, &sh)
    };
    run_orphans(orphans);
    Ok(())
}

/// `aclrtProcessReport`.
pub(crate) fn process(timeout: i32) -> Res<()> {
    if timeout == 0 || timeout < -1 {
        return Err(param(format!(
            "timeout {timeout} is invalid: use -1 (wait forever) or a positive number of ms"
        )));
    }
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
        Some(r) => {
            let Report { call, done, .. } = r;
            run_callback(call, "aclrtProcessReport");
            drop(done);
            Ok(())
        }
        None if lock(&queue.q).1 => Err(Error::new(
            ffi::ACL_ERROR_RT_THREAD_SUBSCRIBE,
            format!("thread {tid:#x} was unsubscribed while waiting"),
        )),
        None => Err(Error::new(
            ffi::ACL_ERROR_RT_REPORT_TIMEOUT,
            format!("no callback arrived within {timeout} ms"),
        )),
    }
}
