//! The child of a `fork()`: every runtime call refuses with a clear error.
//!
//! `fork()` copies the calling thread only: the runtime's own threads (the
//! simulator's stream workers, a real runtime's driver threads) do not exist
//! in the child, and locks they held stay locked there for ever, so a child
//! that synchronises a stream with queued work would wait for ever. As
//! CUDA does ("cannot re-initialize in forked subprocess"), the child of a
//! process that used the runtime gets an exception from every call instead.
//! The flag is set by an `os.register_at_fork(after_in_child=...)` handler
//! that the module registers when it is imported; a process that never
//! called the runtime forks children that may use it.
#![deny(unsafe_code)]

use pyo3::exceptions::PyRuntimeError;
use pyo3::prelude::*;
use std::sync::atomic::{AtomicBool, Ordering::Relaxed};

/// Set once this process called the runtime.
static TOUCHED: AtomicBool = AtomicBool::new(false);
/// Set in the child of a fork of a process that had called the runtime.
static FORKED: AtomicBool = AtomicBool::new(false);

/// The message of the child's error.
pub const MESSAGE: &str = "acl: the runtime cannot be used in a forked child process \
(the parent had used it; its threads do not exist in the child): start the child \
with multiprocessing's 'spawn' or 'forkserver' method, or fork before the first acl call";

/// `Err` in the child of a fork of a process that had used the runtime;
/// otherwise records that this process uses the runtime.
#[inline]
pub fn check() -> PyResult<()> {
    if FORKED.load(Relaxed) {
        return Err(PyRuntimeError::new_err(MESSAGE));
    }
    if !TOUCHED.load(Relaxed) {
        TOUCHED.store(true, Relaxed);
    }
    Ok(())
}

/// True in the child of a fork of a process that had used the runtime.
pub fn forked() -> bool {
    FORKED.load(Relaxed)
}

/// The `os.register_at_fork(after_in_child=...)` handler
/// (`acl._native._after_fork_in_child`).
#[pyfunction]
pub fn _after_fork_in_child() {
    if TOUCHED.load(Relaxed) {
        FORKED.store(true, Relaxed);
    }
}
