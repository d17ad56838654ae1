//! Callback queues: the reports `aclrtLaunchCallback` tasks hand to the
//! threads subscribed with `aclrtSubscribeReport`, and the guarded
//! invocation of application callbacks.

use std::collections::{BTreeMap, BTreeSet, VecDeque};
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::sync::{Arc, Condvar, Mutex, PoisonError};
use std::time::Instant;

use crate::diag;
use crate::ffi;
use crate::model::{Violation, ViolationKind};
use crate::prim::HostCall;
use crate::sync::{Done, DoneGuard, lock};

/// The blocking callbacks of a stream queued and not yet done: sequence
/// number → the C function that queued it.
pub(crate) type BlockLedger = Arc<Mutex<BTreeMap<u64, &'static str>>>;

/// A blocking callback task's entry in its stream's [`BlockLedger`]: held
/// by the task, then by the report handed to the subscribed thread, and
/// removed once the callback has run (or was dropped unrun).
pub(crate) struct BlockMark {
    pub(crate) ledger: BlockLedger,
    pub(crate) seq: u64,
}

impl Drop for BlockMark {
    fn drop(&mut self) {
        lock(&self.ledger).remove(&self.seq);
    }
}

/// One callback handed to a reporting thread.
pub(crate) struct Report {
    pub call: HostCall,
    pub stream: u64,
    /// The runtime generation of the stream that launched it.
    pub generation: u64,
    /// When it was queued.
    pub queued_at: Instant,
    /// The C function that queued it: `aclrtLaunchCallback`, or
    /// `aclrtLaunchHostFunc` on a subscribed default stream.
    pub via: &'static str,
    /// A blocking callback's entry in its stream's ledger, held only for
    /// its drop: removed when the report is dropped (after the call has
    /// run, or unrun).
    pub _mark: Option<BlockMark>,
    /// Declared last: signalled after the call has run (or the report was
    /// dropped unrun at teardown), releasing a `ACL_CALLBACK_BLOCK` stream.
    pub done: Option<DoneGuard>,
}

/// The callback queue of one subscribed thread.
pub(crate) struct ReportQueue {
    q: Mutex<(VecDeque<Report>, bool)>,
    cv: Condvar,
}

impl ReportQueue {
    pub(crate) fn new() -> Arc<ReportQueue> {
        Arc::new(ReportQueue {
            q: Mutex::new((VecDeque::new(), false)),
            cv: Condvar::new(),
        })
    }

    /// Queues `r`, or gives it back when the queue is closed (the caller
    /// runs it rather than lose it, outside any lock).
    pub(crate) fn push(&self, r: Report) -> Result<(), Report> {
        let mut q = lock(&self.q);
        if q.1 {
            return Err(r);
        }
        q.0.push_back(r);
        self.cv.notify_all();
        Ok(())
    }

    /// Waits for a report; `None` on timeout or when the queue was closed.
    pub(crate) fn pop(&self, deadline: Option<Instant>) -> Option<Report> {
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
    pub(crate) fn take_of(&self, id: Option<u64>) -> Vec<Report> {
        let mut q = lock(&self.q);
        let (mine, rest): (Vec<Report>, Vec<Report>) =
            q.0.drain(..)
                .partition(|r| id.is_none_or(|id| r.stream == id));
        q.0.extend(rest);
        mine
    }

    /// When the oldest blocking report of stream `id` still queued (not
    /// taken by a reporting thread) was queued.
    pub(crate) fn blocking_since(&self, id: u64) -> Option<(Instant, &'static str)> {
        lock(&self.q)
            .0
            .iter()
            .filter(|r| r.stream == id && r.done.is_some())
            .map(|r| (r.queued_at, r.via))
            .min_by_key(|(t, _)| *t)
    }

    /// Whether the queue was closed (its thread unsubscribed).
    pub(crate) fn is_closed(&self) -> bool {
        lock(&self.q).1
    }

    /// Closes the queue: a waiting `aclrtProcessReport` returns.
    pub(crate) fn close(&self) {
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
pub(crate) fn run_callback(call: HostCall, generation: u64, function: &'static str) {
    if catch_unwind(AssertUnwindSafe(|| {
        crate::sync::in_generation(generation, || crate::sync::as_callback(|| call.call()))
    }))
    .is_err()
    {
        diag::record_violation(Violation {
            function,
            code: ffi::ACL_ERROR_RT_INTERNAL_ERROR,
            kind: ViolationKind::CallbackPanicked,
            message: format!("{function}: a host callback panicked; the panic was caught"),
            rule: crate::model::rule_name(ViolationKind::CallbackPanicked, function, 0),
            handle: None,
            refused: false,
        });
    }
}

/// Executes a `Callback` task on the stream worker: hands it to the thread
/// subscribed for the stream (and waits for it if `block`), or runs it
/// inline when the stream has no subscription (any more) or its queue was
/// closed. The report is queued under the stream's subscriber lock, so a
/// teardown that detaches the stream (`rt::detach`, which takes the
/// subscriber and then the stream's queued reports as orphans to run) either
/// comes first (nothing queued: run inline here) or finds the report queued
/// (run as an orphan): a report is never queued after its stream's orphans
/// were collected, where no thread would ever take it.
pub(crate) fn dispatch(
    subscriber: &Mutex<Option<(u64, Arc<ReportQueue>)>>,
    stream: u64,
    generation: u64,
    (call, block, via): (HostCall, bool, &'static str),
    mark: Option<BlockMark>,
) {
    let done = block.then(Done::new);
    let report = Report {
        call,
        stream,
        generation,
        queued_at: Instant::now(),
        via,
        _mark: mark,
        done: done.clone().map(DoneGuard::new),
    };
    let unqueued = {
        let sub = lock(subscriber);
        match sub.as_ref() {
            Some((_, q)) => q.push(report).err(),
            None => Some(report),
        }
    };
    match unqueued {
        // Run here, outside every lock; dropping its guard afterwards
        // signals `done`.
        Some(r) => {
            let Report {
                call,
                generation,
                done,
                ..
            } = r;
            run_callback(call, generation, via);
            drop(done);
        }
        None => {
            if let Some(d) = done {
                d.wait();
            }
        }
    }
}

/// Runs reports that lost their reporting thread.
pub(crate) fn run_orphans(reports: Vec<Report>) {
    for r in reports {
        let Report {
            call,
            stream,
            generation,
            done,
            ..
        } = r;
        let blocking = done.is_some().then_some(stream);
        crate::sync::blocking_for(blocking, || {
            run_callback(call, generation, "aclrtUnSubscribeReport")
        });
        drop(done);
    }
}
