//! Python functions as runtime callbacks (`acl.rt.launch_callback`).
#![deny(unsafe_code)]

use crate::ffi;
use pyo3::exceptions::PyRuntimeError;
use pyo3::prelude::*;
use std::cell::Cell;
use std::collections::HashMap;
use std::sync::{LazyLock, Mutex};

/// Which thread serves each stream's callbacks (`subscribe_report` through
/// this module), and which stream each event was last recorded on: what a
/// wait from a callback needs to know whether only the waiting thread could
/// serve it. Plain maps under a lock held for one lookup or update, never
/// across a runtime call or Python code.
#[derive(Default)]
struct Served {
    subscriber: HashMap<u64, u64>,
    recorded_on: HashMap<u64, u64>,
}

static SERVED: LazyLock<Mutex<Served>> = LazyLock::new(Mutex::default);

thread_local! {
    /// The stream whose callback this thread is running (0 and `false`
    /// outside callbacks).
    static IN_CALLBACK: Cell<(bool, u64)> = const { Cell::new((false, 0)) };
}

fn served() -> std::sync::MutexGuard<'static, Served> {
    SERVED.lock().unwrap_or_else(|e| e.into_inner())
}

/// True while the calling thread runs a callback of this module.
pub fn in_callback() -> bool {
    IN_CALLBACK.with(Cell::get).0
}

/// `thread` now serves the callbacks of stream `s` (a subscription the
/// runtime accepted).
pub fn subscribed(thread: u64, s: u64) {
    served().subscriber.insert(s, thread);
}

/// The thread that serves stream `s` (a subscription through this module).
pub fn subscriber(s: u64) -> Option<u64> {
    served().subscriber.get(&s).copied()
}

/// Stream `s` is no longer served (an unsubscription the runtime accepted).
pub fn unsubscribed(s: u64) {
    served().subscriber.remove(&s);
}

/// Event `e` was recorded on stream `s`.
pub fn recorded(e: u64, s: u64) {
    served().recorded_on.insert(e, s);
}

/// Event `e` is destroyed (its address may come back for a new one).
pub fn forget_event(e: u64) {
    served().recorded_on.remove(&e);
}

/// The stream event `e` was last recorded on, if known.
pub fn stream_of_event(e: u64) -> Option<u64> {
    served().recorded_on.get(&e).copied()
}

/// Refuses a wait made from inside a callback on another stream that the
/// waiting thread serves (subscribed to the same thread): that thread is
/// busy running this callback, so a callback queued on the other stream
/// could never run, and the runtime would wait for ever. (A wait for the
/// callback's own stream, or the whole device, the runtime itself refuses
/// at once with 107000.)
pub fn refuse_wait_served(what: &str, s: u64) -> PyResult<()> {
    let (inside, cb_stream) = IN_CALLBACK.with(Cell::get);
    if !inside {
        return Ok(());
    }
    let g = served();
    let Some(&me) = g.subscriber.get(&cb_stream) else {
        return Ok(());
    };
    let blocked = s != cb_stream && g.subscriber.get(&s) == Some(&me);
    drop(g);
    if blocked {
        return Err(PyRuntimeError::new_err(format!(
            "{what} from inside a stream callback would deadlock (never return): it waits \
             for stream {s:#x}, whose callbacks this thread serves too \
             (acl.rt.subscribe_report), and this thread is busy in this callback; wait \
             from another thread, or give the stream its own callback thread"
        )));
    }
    Ok(())
}

/// Queues `func(data)` on stream `s`. The runtime calls it on the thread
/// subscribed to the stream (which waits in `process_report` with the GIL
/// released); the call re-acquires the GIL. An exception is printed and
/// swallowed, as pyACL does. A callback the runtime runs while the
/// interpreter is shutting down (the script exited with work queued) is
/// skipped: its Python objects are leaked, never touched without the
/// interpreter.
pub fn launch(func: Py<PyAny>, data: Py<PyAny>, block: u32, s: u64) -> i32 {
    ffi::launch_callback(
        move || {
            let mut objs = Some((func, data));
            let outer = IN_CALLBACK.with(|c| c.replace((true, s)));
            let ran = crate::gil::attach_unless_exiting(|py| {
                if let Some((func, data)) = objs.take() {
                    if let Err(e) = func.call1(py, (data,)) {
                        e.write_unraisable(py, Some(func.bind(py)));
                    }
                }
            });
            IN_CALLBACK.with(|c| c.set(outer));
            if ran.is_none() {
                std::mem::forget(objs.take());
            }
        },
        block,
        s,
    )
}
