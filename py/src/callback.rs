//! Python functions as runtime callbacks (`acl.rt.launch_callback`).
#![deny(unsafe_code)]

use crate::ffi;
use pyo3::prelude::*;

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
            let ran = crate::gil::attach_unless_exiting(|py| {
                if let Some((func, data)) = objs.take() {
                    if let Err(e) = func.call1(py, (data,)) {
                        e.write_unraisable(py, Some(func.bind(py)));
                    }
                }
            });
            if ran.is_none() {
                std::mem::forget(objs.take());
            }
        },
        block,
        s,
    )
}
