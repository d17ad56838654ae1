//! The device's overflow status (`aclrtGetOverflowStatus`,
//! `aclrtResetOverflowStatus`). One thin function per C call. The status
//! is copied by a task of the stream into a [`StatusArea`]: 64 bytes of
//! device memory the typed layer (`crate::overflow`) allocated, never hands
//! out, and frees only once the stream is idle past the copy.

use core::ffi::c_void;

use aclrt_sys as sys;

use super::{Raw, check};
use crate::error::Result;

/// The bytes `aclrtGetOverflowStatus` copies.
pub(crate) const STATUS_LEN: usize = 64;

/// The address of a device area of [`STATUS_LEN`] bytes the typed layer
/// owns (an allocation made by `aclrtMalloc`, live as long as this). An
/// address only: the CPU never dereferences it.
pub(crate) struct StatusArea(usize);

impl StatusArea {
    /// The area at `ptr`: the start of a live device allocation of at least
    /// [`STATUS_LEN`] bytes, owned by the caller for as long as this lives
    /// and until the stream it is given to is idle.
    pub(crate) fn new(ptr: *const c_void) -> StatusArea {
        StatusArea(ptr as usize)
    }
}

/// `aclrtGetOverflowStatus(area, 64, stream)`: queues the copy of the
/// status into `area`; the stream's context must be current.
pub(crate) fn get_status(area: &StatusArea, stream: Raw) -> Result<()> {
    // SAFETY: `area` is `STATUS_LEN` bytes of live device memory
    // (`StatusArea`'s contract), which the typed layer keeps allocated
    // until the stream is idle past this task; the stream is live.
    let code =
        unsafe { sys::aclrtGetOverflowStatus(area.0 as *mut c_void, STATUS_LEN, stream.as_ptr()) };
    check(code, "aclrtGetOverflowStatus")
}

/// `aclrtResetOverflowStatus(stream)`; the stream's context must be
/// current.
pub(crate) fn reset_status(stream: Raw) -> Result<()> {
    // SAFETY: the stream is live (the caller borrows it).
    let code = unsafe { sys::aclrtResetOverflowStatus(stream.as_ptr()) };
    check(code, "aclrtResetOverflowStatus")
}
