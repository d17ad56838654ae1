//! Which streams the calling thread serves as a host-function thread
//! ([`Stream::serve_host_fns`](crate::Stream::serve_host_fns)), so that a
//! wait that only this thread could end is refused. Below both the stream
//! and the host-function-thread modules, which import it.

use core::cell::RefCell;

use crate::error::{Error, Result};
use crate::ffi::Raw;

std::thread_local! {
    /// The streams the calling thread serves (innermost last).
    static SERVING: RefCell<Vec<Raw>> = const { RefCell::new(Vec::new()) };
}

/// The calling thread starts serving `stream`.
pub(crate) fn begin(stream: Raw) {
    let _ = SERVING.try_with(|s| s.borrow_mut().push(stream));
}

/// The calling thread no longer serves `stream` (its innermost entry).
pub(crate) fn end(stream: Raw) {
    let _ = SERVING.try_with(|s| {
        let mut s = s.borrow_mut();
        if let Some(i) = s.iter().rposition(|r| *r == stream) {
            s.remove(i);
        }
    });
}

/// Refuses `operation` on a stream the calling thread serves.
pub(crate) fn refuse_if_serving(stream: Raw, operation: &'static str) -> Result<()> {
    let serving = SERVING
        .try_with(|s| s.borrow().contains(&stream))
        .unwrap_or(false);
    if serving {
        Err(Error::InCallback { operation })
    } else {
        Ok(())
    }
}
