//! The execution engine: streams as in-order task queues, executed by the
//! shared worker pool (`rt::pool`), and the event state their tasks record
//! and wait for.
//!
//! Design (see the crate docs for the user-visible rules):
//!
//! * Every task gets a per-stream sequence number (`seq`, 1-based). A stream
//!   has executed everything up to `completed`; an event record is the pair
//!   (stream, seq) and is complete when `completed >= seq`.
//! * Enqueueing takes the queue lock and pushes; only the task that finds
//!   the stream unscheduled (no tasks queued, no worker on it) hands the
//!   stream to the pool ([`pool::schedule`]). A pool worker swaps the whole
//!   queue out ([`run_batch`]) and runs the batch without holding any lock;
//!   at most one worker runs a stream at a time, so per-stream order holds.
//!   A task that may block (a wait, a delay, a host function, a callback, a
//!   kernel) runs in a [`pool::Blocking`] section, so a blocked stream never
//!   holds up the others.
//! * Completion is an atomic store; a thread waiting for a sequence number
//!   registers the smallest awaited number in `notify_at`, and the worker
//!   takes the lock to notify only once that number is reached.
//! * A task keeps everything it touches alive (`Arc`s of memory blocks,
//!   events and streams); it is dropped before its completion is published,
//!   so "still in use" is exactly "an `Arc` is still held by a task".

use std::cell::Cell;
use std::collections::{BTreeMap, VecDeque};
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::sync::atomic::{AtomicBool, AtomicU32, AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Condvar, Mutex, MutexGuard, OnceLock, PoisonError};
use std::thread;
use std::time::{Duration, Instant};

use crate::diag::{self, Error, Res};
use crate::ffi;
use crate::model::{Violation, ViolationKind};
use crate::prim::{self, HostCall, Span};
use crate::rt::pool::{self, Blocking, Long, NoWorker};
use crate::rt::reports::{self, BlockLedger, BlockMark, ReportQueue};
use crate::sync::{self, Done, DoneGuard, lock};
use crate::trace;

/// Code reported when a kernel outlives `aclrtSetOpExecuteTimeOut`: 507014
/// `ACL_ERROR_RT_AICORE_TIMEOUT` (the device's task timeout of an AI Core
/// task, as the runtime maps it).
pub(crate) const EXECUTE_TIMEOUT_CODE: i32 = ffi::ACL_ERROR_RT_AICORE_TIMEOUT;

/// The fault of a kernel that started at `started` and outlived its
/// op-execute `limit`.
fn execute_timeout(started: Instant, limit: Duration) -> (i32, String) {
    (
        EXECUTE_TIMEOUT_CODE,
        format!(
            "the kernel ran {:?}, past its op-execute limit of {limit:?} \
             (aclrtSetOpExecuteTimeOut)",
            started.elapsed()
        ),
    )
}

/// Code reported when a wait task outlives `aclrtSetOpWaitTimeout`.
pub(crate) const WAIT_TIMEOUT_CODE: i32 = ffi::ACL_ERROR_RT_TASK_TIMEOUT;

/// Global default delay before every task (`SimConfig::task_delay`), ns.
static TASK_DELAY_NS: AtomicU64 = AtomicU64::new(0);
/// Tasks queued since the runtime was reset (for `inject_task_fault`).
static TASKS_QUEUED: AtomicU64 = AtomicU64::new(0);
/// Tasks dropped or cut short by `aclrtStreamAbort` since the last reset.
static ABORTED_TASKS: AtomicU64 = AtomicU64::new(0);

/// How long `aclrtStreamAbort` waits for the running task (a host function
/// cannot be interrupted) before it gives up with 107019.
pub(crate) const ABORT_LIMIT: Duration = Duration::from_secs(60);
static ANY_TASK_FAULT: AtomicBool = AtomicBool::new(false);
static TASK_FAULTS: Mutex<Vec<TaskFault>> = Mutex::new(Vec::new());

/// An injected task fault waiting for its task.
struct TaskFault {
    /// Which tasks count: on one stream (its id) or any; kernels only or
    /// every task.
    stream: Option<u64>,
    kernels: bool,
    /// Untargeted (`stream: None, kernels: false`): the global task number
    /// that fails. Targeted: how many matching tasks are still to come
    /// before the one that fails (1: the next).
    at: u64,
    code: i32,
}

/// A copy or memset of at least this many bytes runs in a [`Long`] section
/// (it takes microseconds: other ready streams get a worker of their own).
const LONG_TASK_BYTES: usize = 64 << 10;

/// A pool worker that has run one batch this long while other streams wait
/// asks the pool for help (checked every [`HELP_CHECK_EVERY`] tasks).
const HELP_AFTER: Duration = Duration::from_micros(50);
const HELP_CHECK_EVERY: u32 = 16;

/// How long a host thread that waits for a stream (every synchronisation:
/// stream, event, device, their timeout variants, a drain before a free, an
/// abort) watches the stream's progress before it parks on the condition
/// variable.
///
/// A short task (a 4 KiB copy) finishes a few hundred nanoseconds after it
/// is queued when a pool worker is awake (`rt::pool` spins for new work). A
/// synchronisation that arrives sooner used to park at once, and then paid
/// a futex wake-up and a reschedule (3–4 µs on the benchmark VM, more under
/// load) instead of those few hundred nanoseconds: whether a round trip took
/// ~0.9 µs or ~3.7 µs depended on how the two threads happened to meet,
/// which made the same raw loop read 905 ns in one run and 3.2 µs in
/// another. Watching the completion counter briefly first makes the
/// outcome the same for every caller. Long waits pay at most this much CPU
/// time before they park, as an idle pool worker does ([`pool`]).
/// The default of [`SYNC_SPIN_NS`] ([`crate::set_sync_spin`] changes it).
const SYNC_SPIN_FOR: Duration = Duration::from_micros(20);

/// The current watch before a host-side wait parks, in nanoseconds.
static SYNC_SPIN_NS: AtomicU64 = AtomicU64::new(SYNC_SPIN_FOR.as_nanos() as u64);

/// The longest watch [`set_sync_spin`] accepts.
const SYNC_SPIN_MAX: Duration = Duration::from_millis(10);

/// Sets how long a host-side wait watches before it parks (at most
/// [`SYNC_SPIN_MAX`]).
pub(crate) fn set_sync_spin(d: Duration) {
    let ns = d.min(SYNC_SPIN_MAX).as_nanos() as u64;
    SYNC_SPIN_NS.store(ns, Ordering::Relaxed);
}

/// "No per-stream delay configured" in `StreamShared::delay_ns`.
const NO_DELAY_OVERRIDE: u64 = u64::MAX;

/// Sets the default delay of every task (from the configuration).
pub(crate) fn set_task_delay(d: Duration) {
    TASK_DELAY_NS.store(
        u64::try_from(d.as_nanos()).unwrap_or(u64::MAX - 1),
        Ordering::Relaxed,
    );
}

/// Makes the `nth` task queued from now (over all streams) fail with `code`.
pub(crate) fn inject_task_fault(nth: u64, code: i32) {
    let at = TASKS_QUEUED.load(Ordering::SeqCst) + nth;
    lock(&TASK_FAULTS).push(TaskFault {
        stream: None,
        kernels: false,
        at,
        code,
    });
    ANY_TASK_FAULT.store(true, Ordering::SeqCst);
}

/// Makes the `nth` matching task queued from now fail with `code`: a task
/// on the stream with id `stream` (any stream: `None`), a kernel launch only
/// if `kernels`.
pub(crate) fn inject_targeted_task_fault(stream: Option<u64>, kernels: bool, nth: u64, code: i32) {
    lock(&TASK_FAULTS).push(TaskFault {
        stream,
        kernels,
        at: nth,
        code,
    });
    ANY_TASK_FAULT.store(true, Ordering::SeqCst);
}

/// Removes all injected task faults.
pub(crate) fn clear_task_faults() {
    lock(&TASK_FAULTS).clear();
    ANY_TASK_FAULT.store(false, Ordering::SeqCst);
}

/// Forgets task faults and the task counters.
pub(crate) fn reset_tasks() {
    clear_task_faults();
    TASKS_QUEUED.store(0, Ordering::SeqCst);
    ABORTED_TASKS.store(0, Ordering::SeqCst);
}

/// Tasks dropped or cut short by `aclrtStreamAbort` since the last reset.
pub(crate) fn aborted_tasks() -> u64 {
    ABORTED_TASKS.load(Ordering::SeqCst)
}

/// What a host-side synchronisation of a stream found.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum SyncEnd {
    /// Everything queued before the call executed.
    Done,
    /// The deadline passed first.
    TimedOut,
    /// The stream was aborted while the call waited (or tasks it waited
    /// for were dropped by an abort): 107023.
    Aborted,
}

/// `aclrtStreamAbort` gave up waiting for the running task.
pub(crate) struct AbortTimedOut;

/// A task was cut short by `aclrtStreamAbort` (a delay or a wait).
struct Cut;

/// A kernel stopped between two blocks by `aclrtStreamAbort`, which stops
/// the tasks running on the stream (acl-facts K.8).
pub(crate) struct KernelCut;

/// The body of a kernel task: asks `cut()` before each block whether an
/// abort stops it.
pub(crate) type KernelRun =
    Box<dyn FnOnce(&dyn Fn() -> bool) -> Result<Option<(i32, String)>, KernelCut> + Send>;

/// What a task will suffer on the device: a delay and maybe a fault.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Ticket {
    delay: Duration,
    fault: Option<i32>,
    /// The C function that queued the task (named in its fault's message).
    queued_by: &'static str,
    /// A kernel's op-execute limit (`aclrtSetOpExecuteTimeOut`), counted
    /// from the start of the task, its delay included.
    limit: Option<Duration>,
}

impl Ticket {
    /// No delay, no fault: the task may complete synchronously if possible.
    pub(crate) fn is_plain(&self) -> bool {
        self.delay.is_zero() && self.fault.is_none()
    }
}

/// The work of one task.
pub(crate) enum Op {
    /// A copy of `src` into `dst` (equal lengths).
    Copy {
        dst: Span,
        src: Span,
        name: &'static str,
    },
    /// A 2-D copy.
    Copy2d {
        dst: Span,
        dpitch: usize,
        src: Span,
        spitch: usize,
        width: usize,
        height: usize,
        name: &'static str,
    },
    /// A byte fill.
    Memset { dst: Span, value: u8 },
    /// `aclrtLaunchHostFunc`: runs on the worker.
    HostFunc(HostCall),
    /// `aclrtLaunchCallback` (or `aclrtLaunchHostFunc` on a subscribed
    /// default stream, `via` names which): handed to the subscribed thread.
    Callback {
        call: HostCall,
        block: bool,
        via: &'static str,
        /// A blocking callback's ledger entry (set when it is queued).
        mark: Option<BlockMark>,
    },
    /// `aclrtRecordEvent`: stamps the event (generation `generation`).
    Record {
        ev: Arc<EventShared>,
        generation: u64,
        /// The record's number among the IPC event's records in every
        /// process (0: not shared).
        ipc: u32,
    },
    /// `aclrtResetEvent`: clears the record of generation `generation`.
    ResetEvent { ev: EventUse, generation: u64 },
    /// `aclrtLaunchKernel[WithConfig]`: runs every block; returns a device
    /// fault (code, reason), or [`KernelCut`] when the stream's abort
    /// stopped it between two blocks (it asks the given function before
    /// each block).
    Kernel(KernelRun),
    /// A task whose body the object modules above define (notifies, value
    /// writes and waits, allocator-backed and reduction tasks): `run` is
    /// called on the stream worker with a function that says whether an
    /// abort or a teardown stops the task (a body that waits asks it
    /// between slices), and returns a device fault (code, reason), or
    /// [`KernelCut`] when it was stopped. `blocking`: the body may wait for
    /// other streams or threads, so the pool may start another worker.
    Native {
        name: &'static str,
        category: &'static str,
        blocking: bool,
        run: KernelRun,
    },
    /// `aclrtStreamWaitEvent`: holds the stream until `target` reaches `seq`.
    Wait {
        target: StreamDep,
        seq: u64,
        ev: EventUse,
        timeout: Option<Duration>,
    },
}

impl Op {
    fn borrows_app(&self) -> bool {
        match self {
            Op::Copy { dst, src, .. } | Op::Copy2d { dst, src, .. } => dst.is_app() || src.is_app(),
            Op::Memset { dst, .. } => dst.is_app(),
            _ => false,
        }
    }

    fn trace_info(&self) -> (&'static str, &'static str, usize, u64, Option<(u64, u64)>) {
        match self {
            Op::Copy { dst, name, .. } => (name, "copy", dst.len(), 0, None),
            Op::Copy2d {
                width,
                height,
                name,
                ..
            } => (name, "copy", width.saturating_mul(*height), 0, None),
            Op::Memset { dst, .. } => ("memset", "memset", dst.len(), 0, None),
            Op::HostFunc(_) => ("host func", "host", 0, 0, None),
            Op::Callback { .. } => ("callback", "host", 0, 0, None),
            Op::Kernel(_) => ("kernel", "kernel", 0, 0, None),
            Op::Native { name, category, .. } => (name, category, 0, 0, None),
            Op::Record { ev, .. } => ("record event", "event", 0, ev.id, None),
            Op::ResetEvent { ev, .. } => ("reset event", "event", 0, ev.id(), None),
            Op::Wait {
                target, seq, ev, ..
            } => ("wait event", "wait", 0, ev.id(), Some((target.id(), *seq))),
        }
    }

    fn origin(&self) -> &'static str {
        match self {
            Op::HostFunc(_) => "aclrtLaunchHostFunc",
            Op::Callback { via, .. } => via,
            _ => "stream worker",
        }
    }
}

struct Task {
    seq: u64,
    op: Op,
    ticket: Ticket,
    /// Declared last: dropped after `op`, so a borrowing caller wakes only
    /// once the task no longer holds application memory.
    done: Option<DoneGuard>,
}

/// A device fault waiting to be reported by a synchronisation.
pub(crate) struct Fault {
    pub seq: u64,
    pub code: i32,
    pub what: &'static str,
    /// The C function that queued the task.
    pub queued_by: &'static str,
    pub why: String,
}

struct Queue {
    tasks: VecDeque<Task>,
    submitted: u64,
    /// The stream is in the pool's ready queue or a pool worker runs a
    /// batch of it (always true while `tasks` is not empty).
    scheduled: bool,
    shutdown: bool,
    /// An `aclrtStreamAbort` is in progress: submissions fail with 107023.
    aborting: bool,
}

/// How many tasks a stream holds not yet executed: its submission queue is
/// a ring of 2048 entries on both chips (CFG `rtsqDepth` of `910_B_93` and
/// `dc`), one of which stays empty. A submission to a full stream waits
/// until a task has executed (RT `StarsEngine::AddTaskToStream`).
pub(crate) const SQ_ROOM: u64 = 2047;

/// The longest a synchronisation waits between checks for an unserved
/// callback (shorter when [`unserved_warn_after`] is).
const UNSERVED_CHECK_EVERY: Duration = Duration::from_secs(1);
/// The default of [`unserved_warn_after`].
const UNSERVED_WARN_AFTER: Duration = Duration::from_secs(5);
/// The default of [`teardown_wait`].
const TEARDOWN_WAIT: Duration = Duration::from_secs(5);

/// [`unserved_warn_after`] in nanoseconds.
static UNSERVED_WARN_NS: AtomicU64 = AtomicU64::new(UNSERVED_WARN_AFTER.as_nanos() as u64);
/// [`teardown_wait`] in nanoseconds.
static TEARDOWN_WAIT_NS: AtomicU64 = AtomicU64::new(TEARDOWN_WAIT.as_nanos() as u64);

/// How long a blocking callback may wait for its thread before a waiting
/// synchronisation says so on stderr ([`crate::set_unserved_warning_after`]).
pub(crate) fn unserved_warn_after() -> Duration {
    Duration::from_nanos(UNSERVED_WARN_NS.load(Ordering::Relaxed))
}

/// How often a waiting synchronisation looks for an unserved callback: every
/// second, or every [`unserved_warn_after`] where that is shorter.
fn unserved_check_every() -> Duration {
    UNSERVED_CHECK_EVERY.min(unserved_warn_after())
}

/// How long a teardown (finalize, reset) waits for a running task before it
/// leaves the stream's worker behind ([`crate::set_teardown_wait`]).
pub(crate) fn teardown_wait() -> Duration {
    Duration::from_nanos(TEARDOWN_WAIT_NS.load(Ordering::Relaxed))
}

/// Sets [`unserved_warn_after`] and [`teardown_wait`]; `None` leaves one as
/// it is.
pub(crate) fn set_wait_limits(unserved_warn: Option<Duration>, teardown: Option<Duration>) {
    let ns = |d: Duration| u64::try_from(d.as_nanos()).unwrap_or(u64::MAX);
    if let Some(d) = unserved_warn {
        UNSERVED_WARN_NS.store(ns(d), Ordering::Relaxed);
    }
    if let Some(d) = teardown {
        TEARDOWN_WAIT_NS.store(ns(d), Ordering::Relaxed);
    }
}

/// Restores the defaults of [`unserved_warn_after`] and [`teardown_wait`].
pub(crate) fn reset_wait_limits() {
    set_wait_limits(Some(UNSERVED_WARN_AFTER), Some(TEARDOWN_WAIT));
}

/// The shared state of one stream (held by the registry, its worker, tasks
/// that wait on it, and events recorded on it).
pub(crate) struct StreamShared {
    /// Lane id (the K of "device N stream K").
    pub id: u64,
    /// The `aclrtStream` handle.
    pub handle: usize,
    /// The device.
    pub device: i32,
    /// Whether this is a context's default stream.
    pub is_default: bool,
    /// `aclrtCreateStreamWithConfig` flags.
    pub flags: u32,
    /// Trace time base; `None` when tracing is off.
    epoch: Option<Instant>,
    q: Mutex<Queue>,
    /// Notified when `completed` reaches `notify_at`, and when a shut-down
    /// stream leaves the pool (`scheduled` turns false).
    done_cv: Condvar,
    completed: AtomicU64,
    notify_at: AtomicU64,
    discard: AtomicBool,
    /// Queued wait tasks of other streams that wait for this stream.
    pub dependents: AtomicUsize,
    delay_ns: AtomicU64,
    fault: Mutex<Option<Fault>>,
    /// The thread subscribed with `aclrtSubscribeReport` and its queue.
    pub subscriber: Mutex<Option<(u64, Arc<ReportQueue>)>>,
    /// Whether `aclrtLaunchHostFunc` was used on this stream: the real
    /// runtime then binds the stream to its own callback thread for good,
    /// and refuses the `aclrtSubscribeReport` mechanism on it (107011).
    pub host_funcs: AtomicBool,
    trace: Mutex<Vec<trace::Task>>,
    /// Tasks with a sequence number up to this one are dropped (not yet
    /// started) or cut short (a delay or a wait) by `aclrtStreamAbort`.
    abort_upto: AtomicU64,
    /// Incremented when an abort starts (synchronisations in flight see it).
    abort_epoch: AtomicU64,
    /// Serialises aborts of this stream.
    abort_serial: Mutex<()>,
    /// Wakes delays and waits of the running task when an abort starts.
    cut: Mutex<()>,
    cut_cv: Condvar,
    /// Sequence numbers of tasks that never executed because of an abort
    /// (disjoint inclusive ranges, start -> end, merged when adjacent):
    /// their event records never complete.
    dropped: Mutex<BTreeMap<u64, u64>>,
    any_dropped: AtomicBool,
    /// Tasks of this stream dropped or cut by aborts.
    dropped_count: AtomicU64,
    /// The failure-mode latch of the stream's context (`crate::failmode`).
    pub fail: crate::rt::latch::StreamLatch,
    /// Whether the unserved-callback warning was printed for this stream.
    warned_unserved: AtomicBool,
    /// The blocking callbacks queued and not yet done (for
    /// [`StreamShared::self_served_wait`]: a task in the worker's batch is
    /// neither queued nor handed to its thread yet).
    blocking: BlockLedger,
    /// The runtime generation the stream was created in (its host
    /// functions and callbacks run marked with it, see
    /// `sync::in_generation`).
    pub generation: u64,
}

impl StreamShared {
    /// A new stream (handed to the pool at its first task).
    pub(crate) fn new(
        id: u64,
        handle: usize,
        device: i32,
        is_default: bool,
        flags: u32,
        epoch: Option<Instant>,
    ) -> Arc<StreamShared> {
        Arc::new(StreamShared {
            id,
            handle,
            device,
            is_default,
            flags,
            epoch,
            q: Mutex::new(Queue {
                tasks: VecDeque::new(),
                submitted: 0,
                scheduled: false,
                shutdown: false,
                aborting: false,
            }),
            done_cv: Condvar::new(),
            completed: AtomicU64::new(0),
            notify_at: AtomicU64::new(u64::MAX),
            discard: AtomicBool::new(false),
            dependents: AtomicUsize::new(0),
            delay_ns: AtomicU64::new(NO_DELAY_OVERRIDE),
            fault: Mutex::new(None),
            subscriber: Mutex::new(None),
            host_funcs: AtomicBool::new(false),
            trace: Mutex::new(Vec::new()),
            abort_upto: AtomicU64::new(0),
            abort_epoch: AtomicU64::new(0),
            abort_serial: Mutex::new(()),
            cut: Mutex::new(()),
            cut_cv: Condvar::new(),
            generation: sync::generation(),
            warned_unserved: AtomicBool::new(false),
            blocking: Arc::default(),
            dropped: Mutex::new(BTreeMap::new()),
            any_dropped: AtomicBool::new(false),
            dropped_count: AtomicU64::new(0),
            fail: crate::rt::latch::StreamLatch::new(),
        })
    }

    fn queue(&self) -> MutexGuard<'_, Queue> {
        lock(&self.q)
    }

    /// Sets (`Some`) or clears (`None`) this stream's own task delay.
    pub(crate) fn set_delay(&self, d: Option<Duration>) {
        let ns = d.map_or(NO_DELAY_OVERRIDE, |d| {
            u64::try_from(d.as_nanos()).unwrap_or(NO_DELAY_OVERRIDE - 1)
        });
        self.delay_ns.store(ns, Ordering::Relaxed);
    }

    /// Draws the delay and (injected) fault of the next task.
    pub(crate) fn ticket(&self) -> Ticket {
        self.ticket_of(false)
    }

    /// [`ticket`](Self::ticket) of a kernel launch, with its op-execute
    /// `limit` (`aclrtSetOpExecuteTimeOut` or the launch's own; `None`:
    /// never times out).
    pub(crate) fn kernel_ticket(&self, limit: Option<Duration>) -> Ticket {
        Ticket {
            limit,
            ..self.ticket_of(true)
        }
    }

    fn ticket_of(&self, kernel: bool) -> Ticket {
        let own = self.delay_ns.load(Ordering::Relaxed);
        let ns = if own == NO_DELAY_OVERRIDE {
            TASK_DELAY_NS.load(Ordering::Relaxed)
        } else {
            own
        };
        let n = TASKS_QUEUED.fetch_add(1, Ordering::SeqCst) + 1;
        let mut fault = None;
        if ANY_TASK_FAULT.load(Ordering::SeqCst) {
            let mut faults = lock(&TASK_FAULTS);
            let mut hit = None;
            for (i, f) in faults.iter_mut().enumerate() {
                let matches = if f.stream.is_none() && !f.kernels {
                    f.at == n
                } else if f.stream.is_none_or(|id| id == self.id) && (kernel || !f.kernels) {
                    f.at -= 1;
                    f.at == 0
                } else {
                    false
                };
                if matches && hit.is_none() {
                    hit = Some(i);
                }
            }
            if let Some(pos) = hit {
                fault = Some(faults.swap_remove(pos).code);
            }
            if faults.is_empty() {
                ANY_TASK_FAULT.store(false, Ordering::SeqCst);
            }
        }
        Ticket {
            delay: Duration::from_nanos(ns),
            fault,
            queued_by: diag::current_api().unwrap_or("the runtime"),
            limit: None,
        }
    }

    /// Queues `op`; returns its sequence number. A task that borrows
    /// application memory is waited for before this returns (the C API's
    /// rule for pageable memory, and the validity condition of such spans).
    pub(crate) fn submit(self: &Arc<Self>, op: Op, ticket: Ticket) -> Res<u64> {
        if let Some(latch) = self.fail.get() {
            latch.check("no task may be submitted to any stream of the context")?;
        }
        if !matches!(op, Op::Record { .. }) {
            // A record waits before it takes its event's lock.
            self.wait_for_room()?;
        }
        let borrows = op.borrows_app();
        if borrows && sync::on_worker_of(self.id) {
            return Err(diag::rt_param(
                "called from a callback running on this very stream with pageable \
                 host memory; the call would wait for itself",
            ));
        }
        if borrows {
            // The call returns after the copy: a wait for the stream, refused
            // (under that setting) before anything is queued.
            self.check_self_served(Some(self.submitted() + 1))?;
        }
        let done = borrows.then(Done::new);
        let mut task = Task {
            seq: 0,
            op,
            ticket,
            done: done.clone().map(DoneGuard::new),
        };
        let seq;
        {
            let mut q = self.queue();
            if q.shutdown {
                drop(q);
                drop(task);
                return Err(Error::new(
                    ffi::ACL_ERROR_RT_INVALID_HANDLE,
                    format!("stream {:#x} is being destroyed", self.handle),
                ));
            }
            if q.aborting {
                drop(q);
                drop(task);
                return Err(self.abort_error("the task was not queued"));
            }
            q.submitted += 1;
            seq = q.submitted;
            task.seq = seq;
            set_last_task(seq);
            if let Op::Callback {
                block: true,
                via,
                mark,
                ..
            } = &mut task.op
            {
                lock(&self.blocking).insert(seq, via);
                *mark = Some(BlockMark {
                    ledger: self.blocking.clone(),
                    seq,
                });
            }
            q.tasks.push_back(task);
            if !q.scheduled {
                // Still under the queue lock (lock order: queue, then pool),
                // so no other submission can slip in before a rollback.
                q.scheduled = true;
                if let Err(NoWorker(e)) = pool::schedule(Arc::clone(self) as Arc<dyn pool::Batch>) {
                    q.scheduled = false;
                    let t = q.tasks.pop_back();
                    q.submitted -= 1;
                    drop(q);
                    drop(t);
                    return Err(Error::new(
                        ffi::ACL_ERROR_RT_RESOURCE_ALLOC_FAIL,
                        format!("cannot start a worker thread for stream {}: {e}", self.id),
                    ));
                }
            }
        }
        if let Some(d) = done {
            d.wait_checking(unserved_check_every(), || self.warn_if_unserved());
            if self.is_dropped(seq) {
                return Err(self.abort_error("the task was dropped before it ran"));
            }
        }
        Ok(seq)
    }

    /// Waits while the stream holds [`SQ_ROOM`] tasks not yet executed, as
    /// the runtime's submission waits for room in the stream's submission
    /// queue (RT `StarsEngine::AddTaskToStream`: it retries until the
    /// device has executed a task, with no time limit). A wait that can
    /// never end is refused (a host function or callback of this stream
    /// submitting to it: 107000, as every wait for itself) or reported
    /// (STRICT-SELF-SERVE).
    pub(crate) fn wait_for_room(&self) -> Res<()> {
        loop {
            let submitted = self.submitted();
            if submitted < SQ_ROOM {
                return Ok(());
            }
            // The task whose execution leaves room for one more.
            let frees = submitted + 1 - SQ_ROOM;
            if self.reached(frees) {
                return Ok(());
            }
            if sync::on_worker_of(self.id) {
                return Err(diag::rt_param(format!(
                    "called from a callback running on stream {:#x}, whose submission queue is \
                     full ({SQ_ROOM} tasks not yet executed); the submission would wait for \
                     itself",
                    self.handle
                )));
            }
            self.check_self_served(Some(frees))?;
            self.wait_seq(frees, None);
        }
    }

    /// 107023 for this stream.
    pub(crate) fn abort_error(&self, what: &str) -> Error {
        Error::new(
            ffi::ACL_ERROR_RT_STREAM_ABORT,
            format!(
                "stream {:#x} is being (or was) aborted with aclrtStreamAbort; {what}",
                self.handle
            ),
        )
    }

    /// If the stream is idle, allocates a sequence number that is complete
    /// at once (a record on an idle stream captures nothing).
    pub(crate) fn try_complete_now(&self) -> Option<u64> {
        let mut q = self.queue();
        if q.shutdown
            || q.aborting
            || !q.tasks.is_empty()
            || self.completed.load(Ordering::SeqCst) != q.submitted
        {
            return None;
        }
        q.submitted += 1;
        self.completed.store(q.submitted, Ordering::SeqCst);
        set_last_task(q.submitted);
        Some(q.submitted)
    }

    /// The sequence number of the last queued task.
    pub(crate) fn submitted(&self) -> u64 {
        self.queue().submitted
    }

    /// Whether everything up to `seq` has executed (or was dropped by an
    /// abort: see [`StreamShared::executed`]).
    pub(crate) fn reached(&self, seq: u64) -> bool {
        self.completed.load(Ordering::Acquire) >= seq
    }

    /// Whether task `seq` executed: reached, and not dropped by an abort.
    pub(crate) fn executed(&self, seq: u64) -> bool {
        self.reached(seq) && !self.is_dropped(seq)
    }

    /// Whether task `seq` was dropped (or cut short) by an abort; it never
    /// executes, so an event record it was never completes.
    pub(crate) fn is_dropped(&self, seq: u64) -> bool {
        self.any_dropped.load(Ordering::SeqCst) && self.dropped_in(seq, seq)
    }

    /// Whether any task in `lo..=hi` was dropped by an abort.
    fn dropped_in(&self, lo: u64, hi: u64) -> bool {
        if !self.any_dropped.load(Ordering::SeqCst) || lo > hi {
            return false;
        }
        // Disjoint ranges sorted by start have increasing ends: only the
        // last range starting at or before `hi` can reach `lo`.
        lock(&self.dropped)
            .range(..=hi)
            .next_back()
            .is_some_and(|(_, &end)| end >= lo)
    }

    /// Records `lo..=hi` (never dropped before) as dropped, before their
    /// completion is published.
    fn mark_dropped(&self, lo: u64, hi: u64) {
        let mut d = lock(&self.dropped);
        let (mut start, mut end) = (lo, hi);
        if let Some((&s, &e)) = d.range(..lo).next_back() {
            if e + 1 == lo {
                d.remove(&s);
                start = s;
            }
        }
        if let Some(e) = d.remove(&(hi + 1)) {
            end = e;
        }
        d.insert(start, end);
        self.any_dropped.store(true, Ordering::SeqCst);
    }

    /// Drops a task that an abort cut or never let start, and publishes its
    /// completion (after marking it dropped).
    fn drop_aborted(&self, task: Task) {
        let seq = task.seq;
        self.mark_dropped(seq, seq);
        self.dropped_count.fetch_add(1, Ordering::SeqCst);
        ABORTED_TASKS.fetch_add(1, Ordering::SeqCst);
        drop(task);
        self.complete(seq);
    }

    /// Whether an abort covers task `seq`.
    fn cut_off(&self, seq: u64) -> bool {
        self.abort_upto.load(Ordering::SeqCst) >= seq
    }

    /// Sleeps until `until` unless an abort covering task `seq` starts;
    /// `true` if it did.
    fn sleep_unless_cut(&self, seq: u64, until: Instant) -> bool {
        let mut g = lock(&self.cut);
        loop {
            if self.cut_off(seq) {
                return true;
            }
            let now = Instant::now();
            if now >= until {
                return false;
            }
            g = self
                .cut_cv
                .wait_timeout(g, until - now)
                .unwrap_or_else(PoisonError::into_inner)
                .0;
        }
    }

    /// A host-side synchronisation: waits for everything queued so far.
    pub(crate) fn sync(&self, deadline: Option<Instant>) -> SyncEnd {
        let epoch = self.abort_epoch.load(Ordering::SeqCst);
        let from = self.completed.load(Ordering::SeqCst);
        let target = self.submitted();
        if !self.wait_seq(target, deadline) {
            return SyncEnd::TimedOut;
        }
        if self.abort_epoch.load(Ordering::SeqCst) != epoch || self.dropped_in(from + 1, target) {
            SyncEnd::Aborted
        } else {
            SyncEnd::Done
        }
    }

    /// `aclrtStreamAbort`: drops every queued task, cuts a delayed or
    /// waiting running task short, waits (up to `limit`) for a running task
    /// that cannot be interrupted (a copy, a memset, a host function, a
    /// blocking callback), and returns the stream to normal. Returns the
    /// number of tasks dropped or cut.
    pub(crate) fn abort(&self, limit: Duration) -> Result<u64, AbortTimedOut> {
        let _serial = lock(&self.abort_serial);
        let t0 = Instant::now();
        let before = self.dropped_count.load(Ordering::SeqCst);
        let (taken, batch_end, upto) = {
            let mut q = self.queue();
            if q.shutdown {
                // Being destroyed: the destroy drops or finishes the tasks.
                return Ok(0);
            }
            q.aborting = true;
            self.abort_epoch.fetch_add(1, Ordering::SeqCst);
            let upto = q.submitted;
            let taken = std::mem::take(&mut q.tasks);
            // The worker's current batch ends right before the first task
            // still in the queue.
            let batch_end = taken.front().map_or(upto, |t| t.seq - 1);
            if let Some(first) = taken.front() {
                self.mark_dropped(first.seq, upto);
            }
            self.abort_upto.store(upto, Ordering::SeqCst);
            (taken, batch_end, upto)
        };
        let n = taken.len() as u64;
        self.dropped_count.fetch_add(n, Ordering::SeqCst);
        ABORTED_TASKS.fetch_add(n, Ordering::SeqCst);
        drop(taken);
        {
            let _g = lock(&self.cut);
            self.cut_cv.notify_all();
        }
        // The worker drops the rest of its batch and finishes (or cuts) the
        // task it is running.
        let finished = self.wait_seq(batch_end, Some(t0 + limit));
        if finished {
            // Everything up to `upto` is dropped or done; waiters wake up.
            self.complete(upto);
        }
        // (Otherwise the worker publishes `upto` when it leaves its batch.)
        self.queue().aborting = false;
        let dropped = self.dropped_count.load(Ordering::SeqCst) - before;
        if let Some(epoch) = self.epoch {
            lock(&self.trace).push(trace::Task {
                name: "stream abort",
                category: "abort",
                start_us: t0.duration_since(epoch).as_secs_f64() * 1e6,
                duration_us: t0.elapsed().as_secs_f64() * 1e6,
                seq: upto,
                bytes: 0,
                event: None,
                waits_for: None,
                fault: None,
                aborted: false,
                dropped: Some(dropped),
            });
        }
        if finished {
            Ok(dropped)
        } else {
            Err(AbortTimedOut)
        }
    }

    /// Whether every queued task has executed.
    pub(crate) fn is_idle(&self) -> bool {
        let submitted = self.submitted();
        self.reached(submitted)
    }

    /// The thread this stream is subscribed to, the time its oldest
    /// blocking callback still waiting for that thread was queued and the C
    /// function that queued it (`None`: no such callback).
    pub(crate) fn unserved_callback(&self) -> Option<(u64, Instant, &'static str)> {
        let (tid, queue) = {
            let sub = lock(&self.subscriber);
            let (tid, q) = sub.as_ref()?;
            (*tid, q.clone())
        };
        queue.blocking_since(self.id).map(|(t, via)| (tid, t, via))
    }

    /// Called while a synchronisation (any wait for this stream: with or
    /// without a deadline, a copy of pageable memory, an abort) waits: says
    /// once (on stderr) that the stream is blocked on a callback nobody has
    /// served for [`unserved_warn_after`], so that a hanging program or test
    /// shows its reason (the audit lists it too).
    pub(crate) fn warn_if_unserved(&self) {
        if self.warned_unserved.load(Ordering::Relaxed) {
            return;
        }
        let Some((tid, since, via)) = self.unserved_callback() else {
            return;
        };
        if since.elapsed() >= unserved_warn_after()
            && !self.warned_unserved.swap(true, Ordering::Relaxed)
        {
            eprintln!(
                "aclrt-sim: stream {:#x} is blocked on an unserved callback: a blocking callback \
                 queued by {via}{} has waited {:.1} s for thread {tid:#x} (aclrtSubscribeReport) \
                 and no aclrtProcessReport of that thread has taken it; waiting for the stream \
                 waits until one does (aclrt_sim::audit().unserved_callbacks lists it)",
                self.handle,
                if via == "aclrtLaunchHostFunc" {
                    " (a host function on a subscribed default stream becomes one)"
                } else {
                    ""
                },
                since.elapsed().as_secs_f64()
            );
        }
    }

    /// The wait of the calling thread for task `upto` of this stream (for
    /// the running task only: `None`) if it can never end: the stream is
    /// subscribed to the calling thread (`aclrtSubscribeReport`), and a
    /// blocking callback of it due before `upto` waits for that thread's
    /// `aclrtProcessReport` (or is queued and will), which the thread
    /// cannot call while it waits (rule STRICT-SELF-SERVE; the hardware
    /// hangs the same way).
    pub(crate) fn self_served_wait(&self, upto: Option<u64>) -> Option<Error> {
        let tid = lock(&self.subscriber).as_ref()?.0;
        if tid != prim::os_thread_id() || upto.is_some_and(|u| self.reached(u)) {
            return None;
        }
        let via = match upto {
            // The running task only: a callback already handed to the
            // thread (an abort drops the others).
            None => self.unserved_callback()?.2,
            Some(upto) => lock(&self.blocking)
                .range(..=upto)
                .next()
                .map(|(_, via)| *via)?,
        };
        Some(
            Error::violation(
                ViolationKind::SelfServedWait,
                ffi::ACL_ERROR_RT_PARAM_INVALID,
                format!(
                    "stream {:#x} waits for a blocking callback (queued by {via}) that only this \
                     thread can run, with aclrtProcessReport, as the stream is subscribed to it \
                     (aclrtSubscribeReport); this wait would never end (run aclrtProcessReport \
                     first, or serve the stream from another thread)",
                    self.handle
                ),
            )
            .on(self.handle),
        )
    }

    /// [`self_served_wait`](Self::self_served_wait) as a strict rule of
    /// the C function being called: refused with
    /// [`Strictness::Refuse`](crate::model::Strictness::Refuse); reported at
    /// once otherwise, and the wait goes on (as the hardware's does). Call
    /// without the runtime's lock.
    pub(crate) fn check_self_served(&self, upto: Option<u64>) -> Res<()> {
        match self.self_served_wait(upto) {
            None => Ok(()),
            Some(err) => diag::strict_rule(
                crate::rt::rt().cfg.strictness,
                diag::current_api().unwrap_or("a synchronisation"),
                err,
            ),
        }
    }

    /// Waits until `seq` has executed; `false` on reaching `deadline`.
    ///
    /// A host thread first watches `completed` for up to [`SYNC_SPIN_NS`]
    /// (never past `deadline`) and parks on `done_cv` only after that: see
    /// [`SYNC_SPIN_FOR`]. Pool workers (a wait task for another stream) park
    /// at once, leaving the core to the workers they wait for.
    /// Every [`unserved_check_every`] it looks for an unserved callback
    /// ([`warn_if_unserved`](Self::warn_if_unserved)).
    pub(crate) fn wait_seq(&self, seq: u64, deadline: Option<Instant>) -> bool {
        if self.reached(seq) {
            return true;
        }
        if !sync::on_pool_worker() && self.spin_until_reached(seq, deadline) {
            return true;
        }
        let mut q = self.queue();
        loop {
            self.notify_at.fetch_min(seq, Ordering::SeqCst);
            if self.completed.load(Ordering::SeqCst) >= seq {
                return true;
            }
            match deadline {
                None => {
                    let (g, timeout) = self
                        .done_cv
                        .wait_timeout(q, unserved_check_every())
                        .unwrap_or_else(PoisonError::into_inner);
                    q = g;
                    if timeout.timed_out() {
                        drop(q);
                        self.warn_if_unserved();
                        q = self.queue();
                    }
                }
                Some(d) => {
                    let now = Instant::now();
                    if now >= d {
                        return false;
                    }
                    let (g, timeout) = self
                        .done_cv
                        .wait_timeout(q, (d - now).min(unserved_check_every()))
                        .unwrap_or_else(PoisonError::into_inner);
                    q = g;
                    if timeout.timed_out() {
                        drop(q);
                        self.warn_if_unserved();
                        q = self.queue();
                    }
                }
            }
        }
    }

    /// Watches `completed` until it reaches `seq` (`true`), for at most
    /// [`SYNC_SPIN_NS`] and never past `deadline` (`false`). Takes no lock
    /// and changes nothing: the caller parks as before when it fails.
    fn spin_until_reached(&self, seq: u64, deadline: Option<Instant>) -> bool {
        let spin = SYNC_SPIN_NS.load(Ordering::Relaxed);
        if spin == 0 {
            return false;
        }
        let spin_end = Instant::now() + Duration::from_nanos(spin);
        let until = deadline.map_or(spin_end, |d| d.min(spin_end));
        loop {
            for _ in 0..64 {
                if self.reached(seq) {
                    return true;
                }
                std::hint::spin_loop();
            }
            if Instant::now() >= until {
                return self.reached(seq);
            }
        }
    }

    /// Waits for everything queued so far; `false` on reaching `deadline`.
    pub(crate) fn drain(&self, deadline: Option<Instant>) -> bool {
        let target = self.submitted();
        self.wait_seq(target, deadline)
    }

    fn complete(&self, seq: u64) {
        self.completed.fetch_max(seq, Ordering::SeqCst);
        if seq >= self.notify_at.load(Ordering::SeqCst) {
            let _q = self.queue();
            self.notify_at.store(u64::MAX, Ordering::SeqCst);
            self.done_cv.notify_all();
        }
    }

    /// Takes the pending device fault if it happened at or before `upto`.
    pub(crate) fn take_fault(&self, upto: u64) -> Option<Fault> {
        let mut f = lock(&self.fault);
        if f.as_ref().is_some_and(|f| f.seq <= upto) {
            f.take()
        } else {
            None
        }
    }

    fn set_fault(
        &self,
        seq: u64,
        code: i32,
        what: &'static str,
        queued_by: &'static str,
        why: String,
    ) {
        let mut f = lock(&self.fault);
        if f.is_none() {
            *f = Some(Fault {
                seq,
                code,
                what,
                queued_by,
                why,
            });
        }
    }

    /// Drops the pending (not yet started) tasks and lets the worker stop
    /// after its current task; every waiter is released. Returns the
    /// worker's hold on the stream to wait for (or abandon) while a pool
    /// worker still runs a task of it.
    pub(crate) fn discard(self: &Arc<Self>) -> Option<Worker> {
        self.discard.store(true, Ordering::SeqCst);
        let (dropped, worker) = {
            let mut q = self.queue();
            q.shutdown = true;
            let dropped = std::mem::take(&mut q.tasks);
            self.completed.fetch_max(q.submitted, Ordering::SeqCst);
            self.notify_at.store(u64::MAX, Ordering::SeqCst);
            self.done_cv.notify_all();
            (dropped, q.scheduled.then(|| Worker(Arc::clone(self))))
        };
        drop(dropped);
        worker
    }

    /// Refuses new tasks, lets the pool finish every queued one and waits
    /// until no worker runs this stream any more (unless called from a task
    /// of this very stream).
    pub(crate) fn shutdown_and_join(&self) {
        let mut q = self.queue();
        q.shutdown = true;
        if sync::on_worker_of(self.id) {
            return;
        }
        while q.scheduled {
            q = self.done_cv.wait(q).unwrap_or_else(PoisonError::into_inner);
        }
    }

    /// A task event of zero duration recorded by the calling thread (a
    /// record that completed at once).
    pub(crate) fn trace_instant(
        &self,
        name: &'static str,
        cat: &'static str,
        seq: u64,
        event: u64,
    ) {
        if let Some(epoch) = self.epoch {
            let ts = epoch.elapsed().as_secs_f64() * 1e6;
            lock(&self.trace).push(trace::Task {
                name,
                category: cat,
                start_us: ts,
                duration_us: 0.0,
                seq,
                bytes: 0,
                event: Some(event),
                waits_for: None,
                fault: None,
                aborted: false,
                dropped: None,
            });
        }
    }

    /// This stream's lane of the trace: what it executed so far.
    pub(crate) fn trace_lane(&self) -> trace::Lane {
        trace::Lane {
            device: self.device,
            stream: self.id,
            handle: self.handle,
            is_default: self.is_default,
            tasks: lock(&self.trace).clone(),
        }
    }

    /// Runs one task (on the worker).
    fn run(&self, task: Task) {
        let started = Instant::now();
        // A kernel's delay counts as its running time: one delayed past its
        // op-execute limit sleeps only up to the limit and times out.
        let delay_over = task.ticket.limit.filter(|&l| task.ticket.delay > l);
        if !task.ticket.delay.is_zero() {
            let _blocking = Blocking::enter();
            let slept = delay_over.unwrap_or(task.ticket.delay);
            if self.sleep_unless_cut(task.seq, started + slept) {
                drop(_blocking);
                self.drop_aborted(task);
                return;
            }
        }
        if !matches!(task.op, Op::Record { .. })
            && self.fail.get().is_some_and(|l| l.stops(self.id))
        {
            // Stop on failure: the failed stream's later tasks are not run
            // (event records still fire, releasing waiters).
            let seq = task.seq;
            drop(task);
            self.complete(seq);
            return;
        }
        let Task {
            seq,
            op,
            ticket,
            done,
        } = task;
        let info = self
            .epoch
            .map(|epoch| (epoch, Instant::now(), op.trace_info()));
        let what = op.trace_info().0;
        let origin = op.origin();
        let mut cut = false;
        let failure = match ticket.fault {
            Some(code) => {
                drop(op);
                Some((
                    code,
                    "injected device fault (aclrt_sim task fault injection)".to_owned(),
                ))
            }
            None if delay_over.is_some() => {
                drop(op);
                delay_over.map(|l| execute_timeout(started, l))
            }
            None => match catch_unwind(AssertUnwindSafe(|| {
                self.exec(op, seq, ticket.limit.map(|l| (started, l)))
            })) {
                Ok(Ok(r)) => r,
                Ok(Err(Cut)) => {
                    cut = true;
                    None
                }
                Err(_) => {
                    let message = format!(
                        "{origin}: a task ({what}) on stream {} panicked; the panic was caught \
                         on the stream worker",
                        self.id
                    );
                    diag::record_violation(Violation {
                        function: origin,
                        code: ffi::ACL_ERROR_RT_INTERNAL_ERROR,
                        kind: ViolationKind::CallbackPanicked,
                        message,
                        rule: crate::model::rule_name(ViolationKind::CallbackPanicked, origin, 0),
                        handle: None,
                        refused: false,
                    });
                    Some((
                        ffi::ACL_ERROR_RT_INTERNAL_ERROR,
                        "the task panicked".to_owned(),
                    ))
                }
            },
        };
        if let Some((epoch, t0, (name, cat, bytes, event, target))) = info {
            let end = Instant::now();
            lock(&self.trace).push(trace::Task {
                name,
                category: cat,
                start_us: t0.duration_since(epoch).as_secs_f64() * 1e6,
                duration_us: end.duration_since(t0).as_secs_f64() * 1e6,
                seq,
                bytes,
                event: (event != 0).then_some(event),
                waits_for: target,
                fault: failure.as_ref().map(|f| f.0),
                aborted: cut,
                dropped: None,
            });
        }
        if let Some((code, why)) = failure {
            self.set_fault(seq, code, what, ticket.queued_by, why);
            if let Some(latch) = self.fail.get() {
                latch.on_fault(self.id, self.handle, seq, code);
            }
            // The exception callback (aclrtSetExceptionInfoCallback) hears
            // of every task failure, on the worker, outside every lock.
            super::ext::task_failed(self.device, self.id, seq, code);
        }
        if cut {
            self.mark_dropped(seq, seq);
            self.dropped_count.fetch_add(1, Ordering::SeqCst);
            // A kernel cut by a teardown is not an abort of the application.
            if !self.discard.load(Ordering::SeqCst) {
                ABORTED_TASKS.fetch_add(1, Ordering::SeqCst);
            }
        }
        drop(done);
        self.complete(seq);
    }

    /// Executes task `seq`'s operation; returns a device fault (code,
    /// reason), or `Cut` when an abort cut a wait short.
    fn exec(
        &self,
        op: Op,
        seq: u64,
        limit: Option<(Instant, Duration)>,
    ) -> Result<Option<(i32, String)>, Cut> {
        let internal = |what: &str| {
            Ok(Some((
                ffi::ACL_ERROR_RT_INTERNAL_ERROR,
                format!("internal error: inconsistent {what} task"),
            )))
        };
        let _long = match &op {
            Op::Copy { dst, .. } | Op::Memset { dst, .. } => dst.len() >= LONG_TASK_BYTES,
            Op::Copy2d { width, height, .. } => width.saturating_mul(*height) >= LONG_TASK_BYTES,
            _ => false,
        }
        .then(Long::enter);
        match op {
            Op::Copy { dst, src, .. } => {
                if !prim::copy(&dst, &src) {
                    return internal("copy");
                }
            }
            Op::Copy2d {
                dst,
                dpitch,
                src,
                spitch,
                width,
                height,
                ..
            } => {
                if !prim::copy_2d(&dst, dpitch, &src, spitch, width, height) {
                    return internal("2-D copy");
                }
            }
            Op::Memset { dst, value } => {
                if !prim::fill(&dst, value) {
                    return internal("memset");
                }
            }
            // Application code (and a kernel may spin on memory another
            // stream writes): it may block for as long as it likes.
            Op::HostFunc(call) => {
                let _blocking = Blocking::enter();
                sync::in_generation(self.generation, || call.call());
            }
            Op::Kernel(run) => {
                let _blocking = Blocking::enter();
                // A teardown (or forced destroy) discards the stream: a
                // long kernel stops between blocks too, instead of running
                // on into the next runtime.
                // So does its op-execute deadline (a block, host code, is
                // not interrupted: a block running past it is seen at its
                // end).
                let stopped = || self.cut_off(seq) || self.discard.load(Ordering::SeqCst);
                let over = || limit.is_some_and(|(t0, l)| t0.elapsed() >= l);
                let result = run(&|| stopped() || over());
                return match result {
                    Err(KernelCut) if stopped() => Err(Cut),
                    Ok(None) | Err(KernelCut) if over() => {
                        Ok(limit.map(|(t0, l)| execute_timeout(t0, l)))
                    }
                    Err(KernelCut) => Err(Cut),
                    Ok(r) => Ok(r),
                };
            }
            Op::Native { blocking, run, .. } => {
                let _blocking = blocking.then(Blocking::enter);
                let stopped = || self.cut_off(seq) || self.discard.load(Ordering::SeqCst);
                return match run(&stopped) {
                    Ok(r) => Ok(r),
                    Err(KernelCut) => Err(Cut),
                };
            }
            Op::Callback {
                call,
                block,
                via,
                mark,
            } => {
                let _blocking = Blocking::enter();
                reports::dispatch(
                    &self.subscriber,
                    self.id,
                    self.generation,
                    (call, block, via),
                    mark,
                );
            }
            Op::Record {
                ev,
                generation,
                ipc,
            } => {
                ev.stamp(generation, Instant::now());
                ev.ipc_executed(ipc);
            }
            Op::ResetEvent { ev, generation } => ev.shared().clear_record(generation),
            Op::Wait {
                target,
                seq: awaited,
                ev,
                timeout,
            } => {
                let start = Instant::now();
                let deadline = timeout.map(|t| start + t);
                let other = target.stream();
                // A wait for a record that already executed does not block.
                let _blocking = (!other.executed(awaited)).then(Blocking::enter);
                loop {
                    if self.cut_off(seq) {
                        return Err(Cut);
                    }
                    if self.discard.load(Ordering::SeqCst) {
                        break;
                    }
                    let slice = Instant::now() + Duration::from_millis(50);
                    let until = deadline.map_or(slice, |d| d.min(slice));
                    if other.is_dropped(awaited) {
                        // The record was dropped by an abort of its stream: it
                        // never completes (as on the device); only an abort of
                        // this stream, a teardown or the op-wait timeout ends
                        // the wait.
                        self.sleep_unless_cut(seq, until);
                    } else if other.wait_seq(awaited, Some(until)) && !other.is_dropped(awaited) {
                        break;
                    }
                    if deadline.is_some_and(|d| Instant::now() >= d) {
                        return Ok(Some((
                            WAIT_TIMEOUT_CODE,
                            format!(
                                "waiting for event {:#x} timed out after {:?} \
                                 (aclrtSetOpWaitTimeout)",
                                ev.shared().handle,
                                start.elapsed()
                            ),
                        )));
                    }
                }
            }
        }
        Ok(None)
    }
}

thread_local! {
    /// The sequence number of the last task the calling thread queued
    /// (`aclrtGetThreadLastTaskId`; 0 before its first).
    static LAST_TASK: Cell<u32> = const { Cell::new(0) };
}

/// Remembers `seq` as the calling thread's last queued task.
fn set_last_task(seq: u64) {
    // Task ids are 32-bit in the C API; the sequence wraps the same way.
    let _ = LAST_TASK.try_with(|c| c.set(seq as u32));
}

/// The id of the last task the calling thread queued on any stream (0
/// before its first).
pub(crate) fn thread_last_task() -> u32 {
    LAST_TASK.try_with(Cell::get).unwrap_or(0)
}

thread_local! {
    /// A pool worker's spare batch buffer (swapped with a stream's queue, so
    /// that neither allocates again once warm).
    static SPARE: Cell<VecDeque<Task>> = const { Cell::new(VecDeque::new()) };
}

impl pool::Batch for StreamShared {
    fn run_batch(&self) -> bool {
        run_batch(self)
    }
}

/// Runs one batch of `sh`'s queue on the calling pool worker: every task
/// queued when it starts, in order. Returns `true` when more tasks were
/// queued meanwhile (the stream stays scheduled and the caller puts it back
/// into the ready queue), `false` when the stream left the pool.
fn run_batch(sh: &StreamShared) -> bool {
    let mut batch = SPARE.take();
    std::mem::swap(&mut sh.queue().tasks, &mut batch);
    sync::set_worker_of(sh.id);
    let started = Instant::now();
    let mut until_check = HELP_CHECK_EVERY;
    while let Some(task) = batch.pop_front() {
        // A long batch while other streams wait: let another worker take
        // them (once per batch).
        if until_check > 0 {
            until_check -= 1;
            if until_check == 0 {
                if pool::waiting() && started.elapsed() >= HELP_AFTER {
                    pool::help();
                } else {
                    until_check = HELP_CHECK_EVERY;
                }
            }
        }
        if sh.discard.load(Ordering::SeqCst) {
            drop(task);
            batch.clear();
            break;
        }
        let seq = task.seq;
        if sh.cut_off(seq) {
            sh.drop_aborted(task);
        } else {
            sh.run(task);
        }
        if batch.is_empty() {
            // An abort that gave up waiting for this batch left the
            // completion of the tasks it dropped from the queue to us.
            let upto = sh.abort_upto.load(Ordering::SeqCst);
            if upto > seq {
                sh.complete(upto);
            }
        }
    }
    sync::set_worker_of(0);
    // Pool workers live on: keep a small buffer, not the largest batch ever
    // seen (10^6 queued tasks would otherwise pin ~100 MB per worker).
    if batch.capacity() <= 4096 {
        SPARE.set(batch);
    }
    let mut q = sh.queue();
    if !q.tasks.is_empty() {
        return true;
    }
    q.scheduled = false;
    if q.shutdown {
        // `shutdown_and_join` and `Worker::join` wait for this.
        sh.done_cv.notify_all();
    }
    false
}

/// The pool's hold on a discarded stream: finished once no worker runs a
/// task of it any more.
pub(crate) struct Worker(Arc<StreamShared>);

impl Worker {
    /// Whether no pool worker runs a task of the stream any more.
    pub(crate) fn is_finished(&self) -> bool {
        !self.0.queue().scheduled
    }

    /// Waits until [`Worker::is_finished`].
    pub(crate) fn join(self) {
        let mut q = self.0.queue();
        while q.scheduled {
            q = self
                .0
                .done_cv
                .wait(q)
                .unwrap_or_else(PoisonError::into_inner);
        }
    }
}

/// Stops workers: each is joined if it finishes before `deadline`, otherwise
/// detached (a host function that never returns must not hang teardown).
pub(crate) fn join_until(workers: Vec<(u64, Worker)>, deadline: Instant) {
    for (id, h) in workers {
        if sync::on_worker_of(id) {
            continue;
        }
        while !h.is_finished() && Instant::now() < deadline {
            thread::sleep(Duration::from_millis(1));
        }
        if h.is_finished() {
            h.join();
        }
    }
}

/// The error of a device fault found by a synchronisation.
pub(crate) fn fault_error(stream: &StreamShared, f: Fault) -> Error {
    Error::new(
        f.code,
        format!(
            "device fault {} in task #{} ({}, queued by {}) on stream {:#x} (device {}): {}",
            f.code, f.seq, f.what, f.queued_by, stream.handle, stream.device, f.why
        ),
    )
}

// ------------------------------------------------------------ events

/// Which creation function made an event (their rules differ).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum EventApi {
    /// `aclrtCreateEvent` (flags 0x2|0x4|0x8).
    Plain,
    /// `aclrtCreateEventWithFlag`.
    WithFlag,
    /// `aclrtCreateEventExWithFlag`.
    Ex,
}

/// The hidden `RT_EVENT_DDSYNC` flag of plain events (makes them waitable).
pub(crate) const HIDDEN_DDSYNC: u32 = 0x4;

/// Where the last record of an event was issued.
#[derive(Clone)]
pub(crate) struct RecPoint {
    pub stream: Arc<StreamShared>,
    pub seq: u64,
}

pub(crate) struct EventState {
    /// Incremented by every record issued.
    pub generation: u64,
    pub rec: Option<RecPoint>,
    /// When the record of generation `generation` executed.
    pub time: Option<Instant>,
}

/// The shared state of one event.
pub(crate) struct EventShared {
    /// Unique id.
    pub id: u64,
    /// The `aclrtEvent` handle.
    pub handle: usize,
    /// Creation flags (plain events: 0x2|0x4|0x8).
    pub flags: u32,
    /// The creation function.
    pub api: EventApi,
    /// The device.
    pub device: i32,
    pub st: Mutex<EventState>,
    /// Queued wait/reset tasks that depend on this event.
    pub pending: AtomicUsize,
    /// Queued wait tasks (`aclrtStreamWaitEvent`) on this event that have
    /// not executed yet (`aclrtQueryEventWaitStatus`).
    pub waits: AtomicUsize,
    /// The operation flags the event keeps once used (DEFAULT or EXTERNAL,
    /// `u32::MAX` before the first): its records' and its waits'.
    pub op_flags: [AtomicU32; 2],
    /// An IPC event shared between processes: the shared file's words
    /// (records issued in every process, the highest executed, the pid of
    /// the last record, the device), its name, and whether this process
    /// exported it.
    pub ipc: OnceLock<(prim::SharedWords, String, bool)>,
}

/// The words of an IPC event's shared file.
const IPC_ISSUED: usize = 0;
const IPC_DONE: usize = 1;
const IPC_LAST_PID: usize = 2;
pub(crate) const IPC_DEVICE: usize = 3;

/// What a status query sees.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum EvState {
    Unrecorded,
    Pending,
    Complete,
}

impl EventShared {
    pub(crate) fn record_point(&self) -> Option<RecPoint> {
        lock(&self.st).rec.clone()
    }

    pub(crate) fn state(&self) -> EvState {
        if let Some(g) = self.foreign_record() {
            return if self.ipc_reached(g) {
                EvState::Complete
            } else {
                EvState::Pending
            };
        }
        match self.record_point() {
            None => EvState::Unrecorded,
            // A record dropped by aclrtStreamAbort never completes.
            Some(r) if r.stream.executed(r.seq) => EvState::Complete,
            Some(_) => EvState::Pending,
        }
    }

    /// The record task of generation `generation` executed at `at`.
    pub(crate) fn stamp(&self, generation: u64, at: Instant) {
        let mut st = lock(&self.st);
        if st.generation == generation {
            st.time = Some(at);
        }
    }

    /// A reset task issued at generation `generation` executed.
    pub(crate) fn clear_record(&self, generation: u64) {
        let mut st = lock(&self.st);
        if st.generation == generation {
            st.rec = None;
            st.time = None;
        }
    }

    pub(crate) fn waitable(&self) -> bool {
        self.flags
            & (ffi::ACL_EVENT_SYNC | HIDDEN_DDSYNC | ffi::ACL_EVENT_EXTERNAL | ffi::ACL_EVENT_IPC)
            != 0
    }

    /// Queued wait/reset tasks that depend on this event.
    pub(crate) fn pending(&self) -> usize {
        self.pending.load(Ordering::SeqCst)
    }

    /// Queued wait tasks on this event that have not executed yet.
    pub(crate) fn pending_waits(&self) -> usize {
        self.waits.load(Ordering::SeqCst)
    }

    /// A record of a shared IPC event is issued in this process: its number
    /// among the records of every process (0 when the event is not
    /// shared).
    pub(crate) fn ipc_issue(&self) -> u32 {
        let Some((w, _, _)) = self.ipc.get() else {
            return 0;
        };
        w.word(IPC_LAST_PID)
            .store(std::process::id(), Ordering::SeqCst);
        w.word(IPC_ISSUED).fetch_add(1, Ordering::SeqCst) + 1
    }

    /// Record `g` (of [`Self::ipc_issue`]) executed, or will never be
    /// queued (its submission failed).
    pub(crate) fn ipc_executed(&self, g: u32) {
        if let (Some((w, _, _)), true) = (self.ipc.get(), g > 0) {
            w.word(IPC_DONE).fetch_max(g, Ordering::SeqCst);
        }
    }

    /// The number of the last record of a shared IPC event when another
    /// process issued it (a wait or a query then looks at the shared file;
    /// otherwise at this process's own record).
    pub(crate) fn foreign_record(&self) -> Option<u32> {
        let (w, _, _) = self.ipc.get()?;
        let g = w.word(IPC_ISSUED).load(Ordering::SeqCst);
        let last = w.word(IPC_LAST_PID).load(Ordering::SeqCst);
        (g > 0 && last != std::process::id()).then_some(g)
    }

    /// Whether record `g` of the shared IPC event (or a later one) executed.
    pub(crate) fn ipc_reached(&self, g: u32) -> bool {
        self.ipc
            .get()
            .is_some_and(|(w, _, _)| w.word(IPC_DONE).load(Ordering::SeqCst) >= g)
    }
}

/// A task's hold on an event (counted in `pending`; a wait task's also in
/// `waits`). Released when the task has executed or was dropped.
pub(crate) struct EventUse(Arc<EventShared>, bool);

impl EventUse {
    /// The hold of a reset task.
    pub(crate) fn new(ev: Arc<EventShared>) -> EventUse {
        ev.pending.fetch_add(1, Ordering::SeqCst);
        EventUse(ev, false)
    }

    /// The hold of a wait task.
    pub(crate) fn wait(ev: Arc<EventShared>) -> EventUse {
        ev.pending.fetch_add(1, Ordering::SeqCst);
        ev.waits.fetch_add(1, Ordering::SeqCst);
        EventUse(ev, true)
    }

    /// The event.
    pub(crate) fn shared(&self) -> &EventShared {
        &self.0
    }

    /// Its id.
    pub(crate) fn id(&self) -> u64 {
        self.0.id
    }
}

impl Drop for EventUse {
    fn drop(&mut self) {
        if self.1 {
            self.0.waits.fetch_sub(1, Ordering::SeqCst);
        }
        self.0.pending.fetch_sub(1, Ordering::SeqCst);
    }
}

/// A wait task's hold on the stream it waits for (counted in
/// `dependents`).
pub(crate) struct StreamDep(Arc<StreamShared>);

impl StreamDep {
    pub(crate) fn new(s: Arc<StreamShared>) -> StreamDep {
        s.dependents.fetch_add(1, Ordering::SeqCst);
        StreamDep(s)
    }

    /// The stream waited for.
    pub(crate) fn stream(&self) -> &StreamShared {
        &self.0
    }

    /// Its lane id.
    pub(crate) fn id(&self) -> u64 {
        self.0.id
    }
}

impl Drop for StreamDep {
    fn drop(&mut self) {
        self.0.dependents.fetch_sub(1, Ordering::SeqCst);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dropped_ranges_merge_and_answer_overlaps() {
        let s = StreamShared::new(1, 0x12, 0, false, 0, None);
        assert!(!s.is_dropped(1) && !s.dropped_in(0, u64::MAX));
        // As an abort marks them: the queued tail first, then the worker's
        // batch one by one.
        s.mark_dropped(8, 10);
        s.mark_dropped(5, 5);
        s.mark_dropped(6, 6);
        s.mark_dropped(7, 7);
        s.mark_dropped(20, 20);
        assert_eq!(
            lock(&s.dropped)
                .iter()
                .map(|(&a, &b)| (a, b))
                .collect::<Vec<_>>(),
            [(5, 10), (20, 20)]
        );
        for seq in [5, 7, 10, 20] {
            assert!(s.is_dropped(seq), "{seq}");
        }
        for seq in [4, 11, 19, 21] {
            assert!(!s.is_dropped(seq), "{seq}");
        }
        assert!(s.dropped_in(1, 5) && s.dropped_in(10, 19) && s.dropped_in(11, 30));
        assert!(!s.dropped_in(11, 19) && !s.dropped_in(1, 4) && !s.dropped_in(21, 99));
        assert!(!s.dropped_in(9, 8), "empty range");
    }
}
