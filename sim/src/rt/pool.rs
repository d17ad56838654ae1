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
//! * A parked worker is woken only when a stream becomes ready and no parked
//!   worker has been signalled yet (`signalled`): one notification per idle
//!   worker, never one per task.
//! * `target` workers (the number of cores, at least two) run tasks that
//!   cannot block. A task that may block for an unbounded time (an event
//!   wait, a delay, a host function, a callback, a kernel) runs inside a
//!   [`Blocking`] section: while it lasts the worker does not count, and the
//!   pool starts another worker when fewer than `target` remain to serve the
//!   ready queue. A blocked stream therefore never holds up other streams,
//!   and a host function that waits for another stream's progress works as
//!   with a thread per stream.
//! * Workers beyond `target` (left over after blocking sections) retire
//!   after [`RETIRE_AFTER`] without work; `target` workers stay parked for
//!   the life of the process (they hold no runtime state).

use std::collections::VecDeque;
use std::sync::{Arc, Condvar, LazyLock, Mutex, MutexGuard, PoisonError};
use std::thread;
use std::time::Duration;

use super::exec::{self, StreamShared};
use crate::sync::lock;

/// How long a surplus worker waits for work before it exits.
const RETIRE_AFTER: Duration = Duration::from_secs(2);

struct PoolState {
    /// Streams with queued tasks that no worker runs yet (each at most once).
    ready: VecDeque<Arc<StreamShared>>,
    /// Live worker threads.
    workers: usize,
    /// Workers parked on `cv`.
    idle: usize,
    /// Notifications sent to parked workers that they have not consumed yet.
    signalled: usize,
    /// Workers inside a [`Blocking`] section.
    blocked: usize,
}

impl PoolState {
    /// Workers that can take a ready stream (not inside a blocking task).
    fn capacity(&self) -> usize {
        self.workers - self.blocked
    }
}

pub(crate) struct Pool {
    st: Mutex<PoolState>,
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
    }),
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
        if st.ready.is_empty() {
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
                Ok(_) => st.workers += 1,
                // A worker that can serve the queue exists: it will.
                Err(_) if st.capacity() > 0 => {}
                Err(e) => return Err(NoWorker(e)),
            }
        }
        Ok(())
    }

    /// Takes the next ready stream; `None` when this worker retires.
    fn next(&self) -> Option<Arc<StreamShared>> {
        let mut st = self.state();
        loop {
            if let Some(s) = st.ready.pop_front() {
                return Some(s);
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
            if exec::run_batch(&stream) {
                // More tasks arrived meanwhile: back to the end of the ready
                // queue, so that one busy stream cannot starve the others.
                let mut st = self.state();
                st.ready.push_back(stream);
                // This worker is about to look at the queue itself; others
                // only need waking when more than one stream waits.
                if st.ready.len() > 1 {
                    let _ = self.kick(&mut st);
                }
            }
        }
    }
}

/// Puts a stream that just became scheduled into the ready queue.
pub(crate) fn schedule(stream: Arc<StreamShared>) -> Result<(), NoWorker> {
    let pool = Pool::get();
    let mut st = pool.state();
    st.ready.push_back(stream);
    let r = pool.kick(&mut st);
    if r.is_err() {
        st.ready.pop_back();
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
