//! Synchronisation helpers every layer shares: poison-free locking, a
//! one-shot completion signal, and the role the calling thread plays for
//! the simulator (a stream worker, an application callback).

use std::cell::Cell;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Condvar, Mutex, MutexGuard, PoisonError};

/// The runtime's generation: raised by every teardown (`aclFinalize`, the
/// last `aclFinalizeReference`, `aclrt_sim::reset`, an `aclInit` that
/// clears what was left after a finalize). Work queued in one generation
/// (host functions, callbacks) carries it, so application code it runs can
/// never reach into a later runtime.
static GENERATION: AtomicU64 = AtomicU64::new(1);

/// The current runtime generation.
pub(crate) fn generation() -> u64 {
    GENERATION.load(Ordering::SeqCst)
}

/// Starts a new runtime generation (at a teardown, under the runtime lock).
pub(crate) fn next_generation() {
    GENERATION.fetch_add(1, Ordering::SeqCst);
}

/// The generation of the application code (host function or callback) the
/// calling thread runs for the runtime when it is no longer the current
/// one; `None` otherwise.
pub(crate) fn stale_caller() -> Option<u64> {
    let g = CALLER_GEN.try_with(Cell::get).unwrap_or(0);
    (g != 0 && g != generation()).then_some(g)
}

/// Runs `f` (application code queued in generation `gen`) marked with that
/// generation on this thread.
pub(crate) fn in_generation<R>(generation: u64, f: impl FnOnce() -> R) -> R {
    struct Restore(u64);
    impl Drop for Restore {
        fn drop(&mut self) {
            CALLER_GEN.with(|c| c.set(self.0));
        }
    }
    let _restore = Restore(CALLER_GEN.with(|c| c.replace(generation)));
    f()
}

/// Locks a mutex, ignoring poisoning (a panic elsewhere must not wedge the
/// runtime; every critical section leaves consistent state or is reset).
pub(crate) fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(PoisonError::into_inner)
}

/// A one-shot completion signal.
pub(crate) struct Done {
    done: Mutex<bool>,
    cv: Condvar,
}

impl Done {
    /// A new, unsignalled signal.
    pub(crate) fn new() -> Arc<Done> {
        Arc::new(Done {
            done: Mutex::new(false),
            cv: Condvar::new(),
        })
    }

    /// Blocks until signalled.
    pub(crate) fn wait(&self) {
        let mut d = lock(&self.done);
        while !*d {
            d = self.cv.wait(d).unwrap_or_else(PoisonError::into_inner);
        }
    }

    /// Blocks until signalled, calling `tick` every `every` meanwhile.
    pub(crate) fn wait_checking(&self, every: std::time::Duration, mut tick: impl FnMut()) {
        let mut d = lock(&self.done);
        while !*d {
            let (g, timeout) = self
                .cv
                .wait_timeout(d, every)
                .unwrap_or_else(PoisonError::into_inner);
            d = g;
            if timeout.timed_out() && !*d {
                drop(d);
                tick();
                d = lock(&self.done);
            }
        }
    }

    fn signal(&self) {
        *lock(&self.done) = true;
        self.cv.notify_all();
    }
}

/// Signals its [`Done`] when dropped (after the task's data is gone).
pub(crate) struct DoneGuard(Arc<Done>);

impl DoneGuard {
    /// Guards `done`.
    pub(crate) fn new(done: Arc<Done>) -> DoneGuard {
        DoneGuard(done)
    }
}

impl Drop for DoneGuard {
    fn drop(&mut self) {
        self.0.signal();
    }
}

thread_local! {
    /// The id of the stream whose worker runs on this thread (0: none).
    static WORKER_OF: Cell<u64> = const { Cell::new(0) };
    /// How many application callbacks are running on this thread (callbacks
    /// run by `aclrtProcessReport` or by an unsubscribing thread).
    static IN_CALLBACK: Cell<u32> = const { Cell::new(0) };
    /// The generation of the host function or callback running on this
    /// thread (0: none).
    static CALLER_GEN: Cell<u64> = const { Cell::new(0) };
    /// The stream whose worker waits for the blocking callback running on
    /// this thread (0: none).
    static BLOCKING_FOR: Cell<u64> = const { Cell::new(0) };
}

/// Whether the calling thread is the worker of stream `id`, or runs a
/// blocking callback that the worker of stream `id` waits for (then it
/// acts for that stream's running task just the same: waiting for the
/// stream, or joining its worker, would wait for itself).
pub(crate) fn on_worker_of(id: u64) -> bool {
    WORKER_OF.with(|w| w.get() == id) || BLOCKING_FOR.try_with(|b| b.get() == id).unwrap_or(false)
}

/// Runs `f` (a blocking callback of stream `stream`, whose worker waits
/// for it) marked as such on this thread; `None`: not blocking.
pub(crate) fn blocking_for<R>(stream: Option<u64>, f: impl FnOnce() -> R) -> R {
    let Some(stream) = stream else {
        return f();
    };
    struct Restore(u64);
    impl Drop for Restore {
        fn drop(&mut self) {
            let _ = BLOCKING_FOR.try_with(|b| b.set(self.0));
        }
    }
    let _restore = Restore(BLOCKING_FOR.with(|b| b.replace(stream)));
    f()
}

/// Whether the calling thread is running tasks of a stream for the pool.
pub(crate) fn on_pool_worker() -> bool {
    WORKER_OF.with(Cell::get) != 0
}

/// Whether the calling thread is a stream worker of the simulator, or is
/// running an application callback on the simulator's behalf.
pub(crate) fn in_runtime_callback() -> bool {
    WORKER_OF.with(Cell::get) != 0 || IN_CALLBACK.with(Cell::get) > 0
}

/// Runs `f` (an application callback) marked as such on this thread.
pub(crate) fn as_callback<R>(f: impl FnOnce() -> R) -> R {
    struct Mark;
    impl Drop for Mark {
        fn drop(&mut self) {
            IN_CALLBACK.with(|c| c.set(c.get() - 1));
        }
    }
    IN_CALLBACK.with(|c| c.set(c.get() + 1));
    let _mark = Mark;
    f()
}

/// Marks the calling thread as the worker of stream `id` while a pool
/// worker runs a batch of that stream (0: none).
pub(crate) fn set_worker_of(id: u64) {
    WORKER_OF.with(|w| w.set(id));
}
