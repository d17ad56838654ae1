//! Stream attributes beyond the basics: the overflow-detection switch
//! (`aclrtSetStreamOverflowSwitch`, `aclrtGetStreamOverflowSwitch`). One
//! safe function per C call; the typed layer is `crate::stream_ext`.

use aclrt_sys as sys;

use super::{Raw, check};
use crate::error::Result;

/// `aclrtSetStreamOverflowSwitch(stream, flag)` (the stream's context is
/// current: the caller's duty).
pub(crate) fn set_overflow_switch(stream: Raw, on: bool) -> Result<()> {
    // SAFETY: `stream` is live (module invariant); `flag` is 0 or 1.
    let code = unsafe { sys::aclrtSetStreamOverflowSwitch(stream.as_ptr(), u32::from(on)) };
    check(code, "aclrtSetStreamOverflowSwitch")
}

/// `aclrtGetStreamOverflowSwitch(stream, &flag)`.
pub(crate) fn overflow_switch(stream: Raw) -> Result<bool> {
    let mut flag = 0u32;
    // SAFETY: `stream` is live (module invariant); `flag` is a valid,
    // writable u32 for the whole call.
    let code = unsafe { sys::aclrtGetStreamOverflowSwitch(stream.as_ptr(), &mut flag) };
    check(code, "aclrtGetStreamOverflowSwitch")?;
    Ok(flag != 0)
}

/// `aclrtStreamStop(stream)`: the runtime discards the tasks queued on
/// `stream` that have not run (the stream's context is current: the
/// caller's duty). No user code runs inside.
pub(crate) fn stream_stop(stream: Raw) -> Result<()> {
    // SAFETY: `stream` is live (module invariant); no other argument.
    let code = unsafe { sys::aclrtStreamStop(stream.as_ptr()) };
    check(code, "aclrtStreamStop")
}
