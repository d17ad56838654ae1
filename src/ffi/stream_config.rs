//! Stream configuration handles (`aclrtCreateStreamConfigHandle`,
//! `aclrtSetStreamConfigOpt`, `aclrtDestroyStreamConfigHandle`) and the
//! creation of a stream from one (`aclrtCreateStreamV2`). One thin function
//! per C call; the typed layer (`crate::stream_config`) owns the handle and
//! sets only the priority and the flags (never the work area: a device
//! pointer the stream would write).

use core::ffi::c_void;

use aclrt_sys as sys;

use super::{Raw, check};
use crate::error::Result;

/// A configuration handle the typed layer owns (made by
/// `aclrtCreateStreamConfigHandle`, destroyed by its drop).
pub(crate) struct ConfigHandle(Raw);

/// `aclrtCreateStreamConfigHandle()`: NULL (an allocation failure) is an
/// error.
pub(crate) fn create() -> Result<ConfigHandle> {
    // SAFETY: no arguments; the runtime allocates the handle.
    let h = unsafe { sys::aclrtCreateStreamConfigHandle() };
    Ok(ConfigHandle(super::raw(
        h.cast::<c_void>(),
        "aclrtCreateStreamConfigHandle",
    )?))
}

/// `aclrtDestroyStreamConfigHandle(h)`: the handle's drop, its one call.
fn destroy(h: &mut ConfigHandle) -> Result<()> {
    // SAFETY: `h` came from `aclrtCreateStreamConfigHandle` and is destroyed
    // only here, by its drop, once; it is not used afterwards.
    let code = unsafe {
        sys::aclrtDestroyStreamConfigHandle(h.0.as_ptr().cast::<sys::aclrtStreamConfigHandle>())
    };
    check(code, "aclrtDestroyStreamConfigHandle")
}

impl Drop for ConfigHandle {
    fn drop(&mut self) {
        let _ = destroy(self);
    }
}

/// `aclrtSetStreamConfigOpt(h, ACL_RT_STREAM_PRIORITY, &priority, 4)`.
pub(crate) fn set_priority(h: &mut ConfigHandle, priority: u32) -> Result<()> {
    // SAFETY: `h` is live and exclusively borrowed; the value is a valid u32
    // of the size passed, read during the call only.
    let code = unsafe {
        sys::aclrtSetStreamConfigOpt(
            h.0.as_ptr().cast::<sys::aclrtStreamConfigHandle>(),
            sys::ACL_RT_STREAM_PRIORITY,
            core::ptr::from_ref(&priority).cast::<c_void>(),
            size_of::<u32>(),
        )
    };
    check(code, "aclrtSetStreamConfigOpt")
}

/// `aclrtSetStreamConfigOpt(h, ACL_RT_STREAM_FLAG, &flags, size_of usize)`.
pub(crate) fn set_flags(h: &mut ConfigHandle, flags: usize) -> Result<()> {
    // SAFETY: `h` is live and exclusively borrowed; the value is a valid
    // usize of the size passed, read during the call only.
    let code = unsafe {
        sys::aclrtSetStreamConfigOpt(
            h.0.as_ptr().cast::<sys::aclrtStreamConfigHandle>(),
            sys::ACL_RT_STREAM_FLAG,
            core::ptr::from_ref(&flags).cast::<c_void>(),
            size_of::<usize>(),
        )
    };
    check(code, "aclrtSetStreamConfigOpt")
}

/// `aclrtCreateStreamV2(h)` in context `owner`, made current first.
pub(crate) fn create_stream(owner: Raw, h: &ConfigHandle) -> Result<Raw> {
    let counter = super::make_current_counted(owner)?;
    let mut stream: sys::aclrtStream = core::ptr::null_mut();
    // SAFETY: `stream` is a valid, writable handle slot; `h` is live and
    // only read during the call.
    let code = unsafe {
        sys::aclrtCreateStreamV2(
            &mut stream,
            h.0.as_ptr().cast::<sys::aclrtStreamConfigHandle>(),
        )
    };
    check(code, "aclrtCreateStreamV2")?;
    let stream = super::raw(stream, "aclrtCreateStreamV2")?;
    counter.created();
    super::record::made(stream, owner);
    Ok(stream)
}
