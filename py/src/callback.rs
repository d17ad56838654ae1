//! Python functions as runtime callbacks (`acl.rt.launch_callback`).
#![deny(unsafe_code)]

use crate::ffi;
use pyo3::prelude::*;

/// Queues `func(data)` on stream `s`. The runtime calls it on the thread
/// subscribed to the stream (which waits in `process_report` with the GIL
/// released); the call re-acquires the GIL. An exception is printed and
/// swallowed, as pyACL does; a panic (an interpreter already finalized) is
/// caught in the basement's trampoline.
pub fn launch(func: Py<PyAny>, data: Py<PyAny>, block: u32, s: u64) -> i32 {
    ffi::launch_callback(
        move || {
            Python::attach(move |py| {
                if let Err(e) = func.call1(py, (data,)) {
                    e.print(py);
                }
                drop(func);
            })
        },
        block,
        s,
    )
}
