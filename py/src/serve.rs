//! A stream's callbacks served by a thread the program owns
//! (`acl._native._Server`, the Pythonic layer's `stream.serve()`).
//!
//! The server subscribes the thread that enters it (`aclrtSubscribeReport`
//! with that thread's `pthread_t`, which is `threading.get_ident()`), runs
//! the stream's callbacks in `process` on that thread only (GIL released
//! while it waits; each callback takes the GIL), and unsubscribes when it is
//! exited or collected. While it serves, it holds a *use* of the stream's
//! handle, so the stream cannot be released under the subscription (a
//! `close()` raises), and the thread knows it serves the stream (a
//! thread-local list, the thread's own state): a wait of that thread for the
//! stream (or the device) could only be served by the waiting thread itself,
//! so the Pythonic layer refuses it at once instead of hanging.
#![deny(unsafe_code)]

use crate::errors::AclUsageError;
use crate::ffi;
use crate::handle::Handle;
use pyo3::prelude::*;
use std::cell::RefCell;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};

thread_local! {
    /// The serials of the stream handles this thread serves, each with its
    /// server's flag (cleared by the server's end, whichever thread ends
    /// it: a server collected on another thread).
    static SERVING: RefCell<Vec<(u64, Arc<AtomicBool>)>> = const { RefCell::new(Vec::new()) };
}

/// True when the calling thread serves the stream of handle serial
/// `stream` (`None`: any stream).
pub fn serving(stream: Option<u64>) -> bool {
    SERVING.with(|s| {
        let mut s = s.borrow_mut();
        s.retain(|(_, alive)| alive.load(Ordering::Acquire));
        match stream {
            Some(serial) => s.iter().any(|(x, _)| *x == serial),
            None => !s.is_empty(),
        }
    })
}

fn thread_ident(py: Python<'_>) -> PyResult<u64> {
    py.import("_thread")?.call_method0("get_ident")?.extract()
}

/// Where a server is in its life.
enum Phase {
    New,
    /// Being entered (by one thread: a second `_enter` is refused).
    Entering,
    /// Subscribed: the thread `(ident, stream value)`.
    Serving {
        thread: u64,
        stream: u64,
    },
    Done,
}

/// Runs the callbacks of stream `s` (subscribed to the calling thread) until
/// the work queued on it so far is done (`aclrtStreamQuery` says complete),
/// so that a server's end runs them here rather than leaving them to no
/// thread; stops at once where the runtime cannot answer the query.
fn drain_stream(s: u64) {
    loop {
        let (status, ret) = ffi::stream_query(s);
        if ret != 0 || status == 0 {
            return;
        }
        let ret = ffi::process_report(10);
        if ret != 0 && ret != REPORT_TIMEOUT {
            return;
        }
    }
}

/// `ACL_ERROR_RT_REPORT_TIMEOUT`: `aclrtProcessReport` found nothing due.
const REPORT_TIMEOUT: i32 = 507012;

/// One subscription of the entering thread to a stream (`acl._native._Server`).
#[pyclass(module = "acl._native", name = "_Server", frozen)]
pub struct Server {
    stream: Py<Handle>,
    ctx: Py<Handle>,
    phase: Mutex<Phase>,
    /// Set while serving; the serving thread's list holds it too.
    alive: Arc<AtomicBool>,
}

impl Server {
    fn phase(&self) -> std::sync::MutexGuard<'_, Phase> {
        self.phase.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Unsubscribes (once) and ends the use of the stream; in a forked
    /// child nothing is called (the subscription was the parent's).
    fn finish(&self, py: Python<'_>, drain: bool) -> i32 {
        let (thread, s) = {
            let mut phase = self.phase();
            match *phase {
                Phase::Serving { thread, stream } => {
                    *phase = Phase::Done;
                    (thread, stream)
                }
                Phase::Entering => return 0, // the entering thread decides
                _ => {
                    *phase = Phase::Done;
                    return 0;
                }
            }
        };
        self.alive.store(false, Ordering::Release);
        let ret = if crate::fork::forked() {
            0
        } else {
            let ret = self.ctx.get().bind().unwrap_or(0);
            if ret != 0 {
                ret
            } else {
                crate::gil::blocking(py, move || {
                    if drain {
                        drain_stream(s);
                    }
                    ffi::unsubscribe_report(thread, s)
                })
            }
        };
        if ret == 0 {
            crate::callback::unsubscribed(s);
        }
        self.stream.get().end_use();
        ret
    }
}

#[pymethods]
impl Server {
    #[new]
    fn new(stream: Bound<'_, Handle>, ctx: Bound<'_, Handle>) -> Self {
        Server {
            stream: stream.unbind(),
            ctx: ctx.unbind(),
            phase: Mutex::new(Phase::New),
            alive: Arc::new(AtomicBool::new(false)),
        }
    }

    /// Subscribes the calling thread to the stream (its context made
    /// current) and takes a use of the stream's handle; returns the
    /// runtime's ret (0: serving; otherwise nothing is held).
    fn _enter(&self, py: Python<'_>) -> PyResult<i32> {
        crate::fork::check()?;
        {
            let mut phase = self.phase();
            if !matches!(*phase, Phase::New) {
                return Err(AclUsageError::new_err(
                    "a server is entered once (make a new one: stream.serve())",
                ));
            }
            *phase = Phase::Entering;
        }
        let fail = |e: PyErr, used: bool| {
            if used {
                self.stream.get().end_use();
            }
            *self.phase() = Phase::Done;
            Err(e)
        };
        let s = match self.stream.get().begin_use() {
            Ok(s) => s,
            Err(e) => return fail(e, false),
        };
        let thread = match thread_ident(py) {
            Ok(t) => t,
            Err(e) => return fail(e, true),
        };
        let ret = match self.ctx.get().bind() {
            Ok(0) => ffi::subscribe_report(thread, s),
            Ok(ret) => ret,
            Err(e) => return fail(e, true),
        };
        if ret != 0 {
            self.stream.get().end_use();
            *self.phase() = Phase::Done;
            return Ok(ret);
        }
        crate::callback::subscribed(thread, s);
        let serial = self.stream.get().serial();
        self.alive.store(true, Ordering::Release);
        SERVING.with(|v| v.borrow_mut().push((serial, self.alive.clone())));
        *self.phase() = Phase::Serving { thread, stream: s };
        Ok(0)
    }

    /// Runs the callbacks that are due, waiting up to `timeout_ms` (-1: for
    /// ever) for one (`aclrtProcessReport`, GIL released; each callback
    /// takes it). Only the subscribed thread may call it, and not from
    /// inside one of the callbacks it runs. Returns the runtime's ret.
    fn process(&self, py: Python<'_>, timeout_ms: i32) -> PyResult<i32> {
        crate::fork::check()?;
        let thread = match *self.phase() {
            Phase::Serving { thread, .. } => thread,
            Phase::New | Phase::Entering => {
                return Err(AclUsageError::new_err(
                    "the server is not serving yet: use it as `with stream.serve() as server:`",
                ));
            }
            Phase::Done => {
                return Err(AclUsageError::new_err(
                    "the server was used after its with-block ended",
                ));
            }
        };
        if thread_ident(py)? != thread {
            return Err(AclUsageError::new_err(
                "a server processes reports on the thread that entered it (the runtime runs \
                 the stream's callbacks on the subscribed thread only)",
            ));
        }
        if crate::callback::in_callback() {
            return Err(AclUsageError::new_err(
                "server.process() from inside a callback it runs: the thread is busy in that \
                 callback; return from it instead",
            ));
        }
        Ok(crate::gil::blocking(py, move || {
            ffi::process_report(timeout_ms)
        }))
    }

    /// True while subscribed.
    #[getter]
    fn serving(&self) -> bool {
        matches!(*self.phase(), Phase::Serving { .. })
    }

    /// The `threading.get_ident()` of the serving thread (0 unless serving).
    #[getter]
    fn thread(&self) -> u64 {
        match *self.phase() {
            Phase::Serving { thread, .. } => thread,
            _ => 0,
        }
    }

    /// Runs the stream's callbacks until its work queued so far is done,
    /// then unsubscribes (`aclrtUnSubscribeReport`; GIL released for both)
    /// and ends the use of the stream; from the serving thread only (another thread's
    /// exit would leave the serving thread's list wrong). Returns the
    /// runtime's ret (0 also when it was not serving).
    fn _exit(&self, py: Python<'_>) -> PyResult<i32> {
        if let Phase::Serving { thread, .. } = *self.phase()
            && !crate::fork::forked()
            && thread_ident(py)? != thread
        {
            return Err(AclUsageError::new_err(
                "a server's with-block ends on the thread that entered it",
            ));
        }
        if crate::callback::in_callback() && matches!(*self.phase(), Phase::Serving { .. }) {
            return Err(AclUsageError::new_err(
                "ending a server from inside a callback it runs: return from the callback first",
            ));
        }
        Ok(self.finish(py, true))
    }

    /// For the cycle collector.
    fn __traverse__(&self, visit: pyo3::PyVisit<'_>) -> Result<(), pyo3::PyTraverseError> {
        visit.call(&self.stream)?;
        visit.call(&self.ctx)
    }
}

impl Drop for Server {
    /// A server collected while serving (its with-block never ended: an
    /// abandoned generator, a frame kept by a traceback): unsubscribed
    /// here, so the stream's handle is not held for ever.
    fn drop(&mut self) {
        if matches!(*self.phase(), Phase::Serving { .. }) {
            // Not on the serving thread, maybe: no draining (only that
            // thread could run the callbacks).
            let _ = Python::try_attach(|py| self.finish(py, false));
        }
    }
}

/// `_serving(stream=None) -> bool`: whether the calling thread serves the
/// stream of handle `stream` (any stream when `None`).
#[pyfunction]
#[pyo3(signature = (stream = None))]
pub fn _serving(stream: Option<Bound<'_, Handle>>) -> bool {
    serving(stream.map(|h| h.get().serial()))
}

/// `_subscriber(stream) -> int | None`: the thread subscribed to the
/// stream of handle `stream` through this module (the Pythonic layer's
/// callback thread or a server), if any.
#[pyfunction]
pub fn _subscriber(stream: Bound<'_, Handle>) -> Option<u64> {
    crate::callback::subscriber(stream.get().raw())
}
