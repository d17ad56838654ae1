//! Leaving and re-entering the interpreter around blocking calls, safe at
//! process exit.
//!
//! CPython before 3.14 ends a thread that tries to take the GIL once the
//! interpreter is finalizing with `pthread_exit`: a forced unwind, which
//! aborts the process ("FATAL: exception not rethrown") when it meets the
//! panic trap of an extension function. A daemon thread that sits in
//! `acl.rt.process_report` (or any other call that released the GIL) when
//! the script ends would hit exactly that on its way back.
//!
//! So: once the interpreter has run every `atexit` handler (and joined the
//! non-daemon threads), `SHUTTING_DOWN` is set; a thread coming back from a
//! blocking call after that never re-enters the interpreter (it parks until
//! the process ends, as CPython 3.14 itself does with such threads), and a
//! callback is skipped. Threads that came back just before are counted in
//! `RETURNING`; the finalizing thread waits (GIL released) until they are
//! back in Python, so none is still waiting for the GIL when finalization
//! starts. The thread that finalizes is never parked.
//!
//! The moment "after every handler" is the release of an [`ExitFence`]: the
//! module registers a handler with a fence as its argument, and the
//! interpreter drops the handlers' arguments only after it ran all of them,
//! whatever the order they were registered in, so a handler registered
//! before `import acl` (which runs after the module's) may still join a
//! thread that waits in a blocking call.
#![deny(unsafe_code)]

use pyo3::prelude::*;
use std::sync::OnceLock;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering::SeqCst};
use std::thread::ThreadId;
use std::time::{Duration, Instant};

static SHUTTING_DOWN: AtomicBool = AtomicBool::new(false);
static RETURNING: AtomicUsize = AtomicUsize::new(0);
static FINALIZER: OnceLock<ThreadId> = OnceLock::new();

/// Counts the calling thread as on its way back into the interpreter;
/// `false` (not counted) once the interpreter is shutting down.
fn enter_returning() -> bool {
    RETURNING.fetch_add(1, SeqCst);
    if SHUTTING_DOWN.load(SeqCst) && FINALIZER.get() != Some(&std::thread::current().id()) {
        RETURNING.fetch_sub(1, SeqCst);
        return false;
    }
    true
}

fn park_forever() -> ! {
    loop {
        std::thread::park();
    }
}

/// Runs `f` with the GIL released, then re-acquires it, unless the
/// interpreter started shutting down meanwhile (then the thread parks).
pub fn blocking<T: Send>(py: Python<'_>, f: impl FnOnce() -> T + Send) -> T {
    let r = py.detach(move || {
        let r = f();
        if !enter_returning() {
            park_forever();
        }
        r
    });
    RETURNING.fetch_sub(1, SeqCst);
    r
}

/// Runs `f` attached to the interpreter (from a thread that does not hold
/// the GIL: a callback, a `start_thread` thread), unless it is shutting
/// down; `None` when skipped.
pub fn attach_unless_exiting<R>(f: impl for<'py> FnOnce(Python<'py>) -> R) -> Option<R> {
    if !enter_returning() {
        return None;
    }
    let r = Python::try_attach(f);
    RETURNING.fetch_sub(1, SeqCst);
    r
}

/// Stops re-entries into the interpreter (see the module docs) and waits,
/// GIL released, for the threads on their way back.
fn shut_down(py: Python<'_>) {
    let _ = FINALIZER.set(std::thread::current().id());
    SHUTTING_DOWN.store(true, SeqCst);
    // Let the threads already on their way back get the GIL and return to
    // Python (bounded: a thread stuck elsewhere must not hold up the exit).
    py.detach(|| {
        let start = Instant::now();
        while RETURNING.load(SeqCst) > 0 && start.elapsed() < Duration::from_secs(2) {
            std::thread::sleep(Duration::from_millis(1));
        }
    });
}

/// The argument of the module's `atexit` handler: released by the
/// interpreter once every handler has run, which shuts the re-entries.
#[pyclass(module = "acl._native", name = "_ExitFence", frozen)]
pub struct ExitFence;

impl Drop for ExitFence {
    fn drop(&mut self) {
        Python::attach(shut_down);
    }
}

/// A new fence (for the module's registration).
pub fn fence() -> ExitFence {
    ExitFence
}

/// The `atexit` handler (`acl._native._at_exit(fence)`): nothing to do
/// itself; its argument's release after the last handler is the shutdown.
#[pyfunction]
#[pyo3(signature = (*_fence))]
pub fn _at_exit(_fence: &Bound<'_, pyo3::types::PyTuple>) {}
