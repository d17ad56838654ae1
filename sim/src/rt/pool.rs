//! The worker pool that executes the tasks of every stream.
//!
//! Until issue 15 each stream had a worker thread of its own. Round-robin
//! enqueueing over many streams then woke a parked thread per task (a futex
//! wake and a context switch each), so eight streams ran at a fraction of
//! one stream's rate on two cores. Now a small pool serves all streams:
//!
//! * A stream with queued tasks is *scheduled*: it sits once in the pool's
//!   ready queue, or a pool worker is running a batch of it. Only the
//!   submission that makes a stream scheduled touches the pool (one short
//!   lock); submissions to a scheduled stream only push to its own queue.
//!   So per-stream order holds (one worker at a time runs a stream, a batch
//!   in queue order), and a worker that is already awake serves the next
//!   ready stream without any wake-up.
//! * A worker that runs out of ready streams first *spins* for up to
//!   [`SPIN_FOR`] (at most one worker at a time) before it parks. While one
//!   spins, a stream that becomes ready needs no wake-up at all: the spinner
//!   takes it. This is what keeps round-robin enqueueing over many streams
//!   close to the rate of one stream (each short batch empties a stream,
//!   and the next task reschedules it a few hundred nanoseconds later).
//! * Otherwise a parked worker is woken only when a stream becomes ready and
//!   no parked worker has been signalled yet (`signalled`): one notification
//!   per idle worker, never one per task. A spinner that finds work while
//!   more streams wait wakes the next worker, so work that takes long (two
//!   big copies on two streams) still runs in parallel.
//! * `target` workers (the number of cores, at least two) run tasks that
//!   cannot block. A task that may block for an unbounded time (an event
//!   wait, a delay, a host function, a callback, a kernel) runs inside a
//!   [`Blocking`] section: while it lasts the worker does not count, and the
//!   pool starts another worker when fewer than `target` remain to serve the
//!   ready queue. A blocked stream therefore never holds up other streams,
//!   and a host function that waits for another stream's progress works as
//!   with a thread per stream.
//! * Workers beyond `target` (left over after blocking sections) retire
//!   after [`RETIRE_AFTER`] without work. A runtime teardown (`aclFinalize`,
//!   `aclrt_sim::reset`) stops and joins every idle worker
//!   ([`stop_idle_workers`]), as the thread-per-stream design joined its
//!   workers: no simulator thread outlives the runtime (Miri and valgrind
//!   see none at exit); the next task starts workers again.

use std::collections::VecDeque;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Condvar, LazyLock, Mutex, MutexGuard, PoisonError};
use std::thread::{self, JoinHandle};
use std::time::{Duration, Instant};

use crate::sync::lock;

/// What the pool schedules: a stream with queued tasks (the executor's
/// `StreamShared`). The pool knows nothing else of it.
pub(crate) trait Batch: Send + Sync {
    /// Runs one batch of the queued tasks on the calling pool worker;
    /// `true` when more tasks arrived meanwhile (the stream is queued again).
    fn run_batch(&self) -> bool;
}

/// How long a surplus worker waits for work before it exits.
const RETIRE_AFTER: Duration = Duration::from_secs(2);

/// How long an idle worker looks for a newly ready stream before it parks.
/// Long enough to bridge the gap between two enqueues of a busy host
/// thread, short enough that an idle pool costs nothing measurable.
const SPIN_FOR: Duration = Duration::from_micros(50);

struct PoolState {
    /// Streams with queued tasks that no worker runs yet (each at most once).
    ready: VecDeque<Arc<dyn Batch>>,
    /// Live worker threads.
    workers: usize,
    /// Workers parked on `cv`.
    idle: usize,
    /// Notifications sent to parked workers that they have not consumed yet.
    signalled: usize,
    /// Workers inside a [`Blocking`] section.
    blocked: usize,
    /// Workers inside a [`Long`] section.
    long: usize,
    /// A worker is spinning for work (it needs no notification).
    spinning: bool,
    /// Idle workers exit ([`stop_idle_workers`]).
    stop: bool,
    /// Every worker started and not yet joined.
    handles: Vec<JoinHandle<()>>,
}

impl PoolState {
    /// Workers that can take a ready stream (not inside a blocking task).
    fn capacity(&self) -> usize {
        self.workers - self.blocked
    }

    /// Awake workers that will look at the ready queue soon: neither parked
    /// nor inside a long or blocking task.
    fn free_awake(&self) -> usize {
        self.capacity() - self.idle - self.long
    }
}

pub(crate) struct Pool {
    st: Mutex<PoolState>,
    /// `st.ready.len()`, readable without the lock (for the spinner).
    ready_len: AtomicUsize,
    cv: Condvar,
    target: usize,
}

static POOL: LazyLock<Pool> = LazyLock::new(|| Pool {
    st: Mutex::new(PoolState {
        ready: VecDeque::new(),
        workers: 0,
        idle: 0,
        signalled: 0,
        blocked: 0,
        long: 0,
        spinning: false,
        stop: false,
        handles: Vec::new(),
    }),
    ready_len: AtomicUsize::new(0),
    cv: Condvar::new(),
    target: thread::available_parallelism().map_or(2, |n| n.get().max(2)),
});

/// The pool could not start a worker and none can run the stream.
pub(crate) struct NoWorker(pub std::io::Error);

impl Pool {
    fn get() -> &'static Pool {
        &POOL
    }

    fn state(&self) -> MutexGuard<'_, PoolState> {
        lock(&self.st)
    }

    /// Makes sure someone will take the head of the ready queue: signals a
    /// parked worker that was not signalled yet, or starts a worker when
    /// fewer than `target` can serve the queue.
    fn kick(&'static self, st: &mut PoolState) -> Result<(), NoWorker> {
        if st.ready.is_empty() || st.spinning {
            // Nothing to do, or the spinner takes it.
            return Ok(());
        }
        if st.idle > st.signalled {
            st.signalled += 1;
            self.cv.notify_one();
            return Ok(());
        }
        if st.capacity() < self.target {
            let spawned = thread::Builder::new()
                .name("aclrt-sim worker".to_owned())
                .spawn(move || self.worker_main());
            match spawned {
                Ok(h) => {
                    st.workers += 1;
                    st.handles.push(h);
                }
                // A worker that can serve the queue exists: it will.
                Err(_) if st.capacity() > 0 => {}
                Err(e) => return Err(NoWorker(e)),
            }
        }
        Ok(())
    }

    /// Pops the head of the ready queue.
    fn pop(&self, st: &mut PoolState) -> Option<Arc<dyn Batch>> {
        let s = st.ready.pop_front();
        self.ready_len.store(st.ready.len(), Ordering::Relaxed);
        s
    }

    /// Appends to the ready queue.
    fn push(&self, st: &mut PoolState, stream: Arc<dyn Batch>) {
        st.ready.push_back(stream);
        self.ready_len.store(st.ready.len(), Ordering::Relaxed);
    }

    /// Takes the next ready stream; `None` when this worker retires.
    fn next(&'static self) -> Option<Arc<dyn Batch>> {
        let mut st = self.state();
        loop {
            if let Some(s) = self.pop(&mut st) {
                return Some(s);
            }
            if st.stop {
                st.workers -= 1;
                return None;
            }
            if !st.spinning {
                st.spinning = true;
                drop(st);
                let until = Instant::now() + SPIN_FOR;
                'spin: loop {
                    for _ in 0..64 {
                        if self.ready_len.load(Ordering::Relaxed) > 0 {
                            break 'spin;
                        }
                        std::hint::spin_loop();
                    }
                    if Instant::now() >= until {
                        break;
                    }
                }
                st = self.state();
                // Under the lock: a stream scheduled while `spinning` was
                // set (and so woke nobody) is in `ready` now.
                st.spinning = false;
                if let Some(s) = self.pop(&mut st) {
                    // Streams still waiting stay for this worker to take
                    // after this batch; a long batch or a long task calls
                    // for help (`help`, `Long`).
                    return Some(s);
                }
                if st.stop {
                    st.workers -= 1;
                    return None;
                }
            }
            let surplus = st.capacity() > self.target;
            st.idle += 1;
            let timed_out = if surplus {
                let (g, r) = self
                    .cv
                    .wait_timeout(st, RETIRE_AFTER)
                    .unwrap_or_else(PoisonError::into_inner);
                st = g;
                r.timed_out()
            } else {
                st = self.cv.wait(st).unwrap_or_else(PoisonError::into_inner);
                false
            };
            st.idle -= 1;
            st.signalled = st.signalled.saturating_sub(1);
            if timed_out && st.ready.is_empty() && st.capacity() > self.target {
                st.workers -= 1;
                return None;
            }
        }
    }

    fn worker_main(&'static self) {
        while let Some(stream) = self.next() {
            if stream.run_batch() {
                // More tasks arrived meanwhile: back to the end of the ready
                // queue, so that one busy stream cannot starve the others.
                let mut st = self.state();
                self.push(&mut st, stream);
            }
        }
    }
}

/// Puts a stream that just became scheduled into the ready queue.
pub(crate) fn schedule(stream: Arc<dyn Batch>) -> Result<(), NoWorker> {
    let pool = Pool::get();
    let mut st = pool.state();
    pool.push(&mut st, stream);
    if st.free_awake() > 0 {
        // A worker that is awake and not inside a long or blocking task
        // (running a short batch, or spinning) takes it soon: no wake-up.
        return Ok(());
    }
    let r = pool.kick(&mut st);
    if r.is_err() {
        st.ready.pop_back();
        pool.ready_len.store(st.ready.len(), Ordering::Relaxed);
    }
    r
}

/// A task that may block for an unbounded time runs inside one: the pool
/// keeps `target` other workers available to the ready queue meanwhile.
pub(crate) struct Blocking(());

impl Blocking {
    /// Enters a blocking section on the calling worker.
    pub(crate) fn enter() -> Blocking {
        let pool = Pool::get();
        let mut st = pool.state();
        st.blocked += 1;
        // When no worker could be started, the ready streams wait until a
        // worker is free again (as if this task were short).
        let _ = pool.kick(&mut st);
        Blocking(())
    }
}

impl Drop for Blocking {
    fn drop(&mut self) {
        Pool::get().state().blocked -= 1;
    }
}

/// Whether streams wait in the ready queue (one relaxed load).
pub(crate) fn waiting() -> bool {
    Pool::get().ready_len.load(Ordering::Relaxed) > 0
}

/// Called by a worker that has been running one batch for a while while
/// streams wait: wakes (or starts) a worker for them.
pub(crate) fn help() {
    let pool = Pool::get();
    let mut st = pool.state();
    let _ = pool.kick(&mut st);
}

/// A task that takes long but cannot block (a big copy or memset) runs
/// inside one: the worker does not count as soon-free meanwhile, so a
/// stream that becomes ready wakes another worker (up to `target`), and
/// streams already waiting get one at once. Two big copies on two streams
/// so run in parallel.
pub(crate) struct Long(());

impl Long {
    /// Enters a long section on the calling worker.
    pub(crate) fn enter() -> Long {
        let pool = Pool::get();
        let mut st = pool.state();
        st.long += 1;
        let _ = pool.kick(&mut st);
        Long(())
    }
}

impl Drop for Long {
    fn drop(&mut self) {
        Pool::get().state().long -= 1;
    }
}

/// Stops every idle worker and joins it (until `deadline`); a worker still
/// running a task (a host function that never returns, on a stream the
/// teardown gave up on) is left running and joined by a later call.
/// Called by the runtime teardown, when no live stream is left.
pub(crate) fn stop_idle_workers(deadline: Instant) {
    let pool = Pool::get();
    let handles = {
        let mut st = pool.state();
        st.stop = true;
        pool.cv.notify_all();
        std::mem::take(&mut st.handles)
    };
    let me = thread::current().id();
    let mut left = Vec::new();
    for h in handles {
        if h.thread().id() == me {
            // A teardown from a task: this worker cannot join itself.
            left.push(h);
            continue;
        }
        while !h.is_finished() && Instant::now() < deadline {
            thread::sleep(Duration::from_micros(200));
        }
        if h.is_finished() {
            let _ = h.join();
        } else {
            left.push(h);
        }
    }
    let mut st = pool.state();
    st.stop = false;
    // Exited workers consumed no signal: none may stay counted.
    st.signalled = st.signalled.min(st.idle);
    st.handles.extend(left);
}
