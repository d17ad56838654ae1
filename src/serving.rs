//! Which streams the calling thread serves as a host-function thread
//! ([`Stream::serve_host_fns`](crate::Stream::serve_host_fns)), so that a
//! wait that only this thread could end is refused. Below both the stream
//! and the host-function-thread modules, which import it.

use crate::error::{Error, Result};
use crate::ffi::Raw;
use crate::ffi::host_thread as raw;

/// The calling thread starts serving `stream`; `false` if that cannot be
/// recorded (the thread's locals are destroyed): it must not serve then,
/// since its waits could not be refused or served.
#[must_use]
pub(crate) fn begin(stream: Raw) -> bool {
    raw::serving_begin(stream)
}

/// The calling thread no longer serves `stream` (its innermost entry).
pub(crate) fn end(stream: Raw) {
    raw::serving_end(stream);
}

/// Refuses `operation` on a stream the calling thread serves.
pub(crate) fn refuse_if_serving(stream: Raw, operation: &'static str) -> Result<()> {
    if raw::serves(stream) {
        Err(Error::InCallback { operation })
    } else {
        Ok(())
    }
}
