//! Notifies (`aclrtCreateNotify`, `aclrtRecordNotify`,
//! `aclrtWaitAndResetNotify`, ...). One thin function per C call; the typed
//! layer (`crate::notify`) keeps a notify alive while a wait on it may be
//! pending.

use core::ffi::{CStr, c_char};

use aclrt_sys as sys;

use super::{Raw, check};
use crate::error::Result;

/// The longest export key, with its NUL.
pub(crate) const KEY_LEN: usize = 128;

/// `aclrtCreateNotify` in the current context, `owner`.
pub(crate) fn create(owner: Raw) -> Result<Raw> {
    let mut n: sys::aclrtNotify = core::ptr::null_mut();
    // SAFETY: `n` is a valid, writable handle slot for the whole call.
    let code = unsafe { sys::aclrtCreateNotify(&mut n, 0) };
    check(code, "aclrtCreateNotify")?;
    let n = super::raw(n, "aclrtCreateNotify")?;
    super::live::child_created(n.as_ptr() as usize, owner);
    Ok(n)
}

/// `aclrtDestroyNotify(n)`.
pub(crate) fn destroy(n: Raw) -> Result<()> {
    // SAFETY: `n` is live and no queued wait refers to it any more (the
    // typed layer synchronised every stream that waited on it); not used
    // afterwards.
    let code = unsafe { sys::aclrtDestroyNotify(n.as_ptr()) };
    check(code, "aclrtDestroyNotify")?;
    super::live::child_released(n.as_ptr() as usize);
    Ok(())
}

/// `aclrtRecordNotify(n, stream)`; the stream's context must be current.
pub(crate) fn record(n: Raw, stream: Raw) -> Result<()> {
    // SAFETY: both handles are live (the caller borrows their owners).
    let code = unsafe { sys::aclrtRecordNotify(n.as_ptr(), stream.as_ptr()) };
    check(code, "aclrtRecordNotify")
}

/// `aclrtWaitAndResetNotify(n, stream, secs)` (0: no limit).
pub(crate) fn wait(n: Raw, stream: Raw, secs: u32) -> Result<()> {
    // SAFETY: both handles are live; the typed layer keeps `n` alive until
    // the stream has been synchronised past this wait.
    let code = unsafe { sys::aclrtWaitAndResetNotify(n.as_ptr(), stream.as_ptr(), secs) };
    check(code, "aclrtWaitAndResetNotify")
}

/// `aclrtGetNotifyId(n)`.
pub(crate) fn id(n: Raw) -> Result<u32> {
    let mut id = 0u32;
    // SAFETY: `n` is live; `id` is a valid, writable u32.
    let code = unsafe { sys::aclrtGetNotifyId(n.as_ptr(), &mut id) };
    check(code, "aclrtGetNotifyId")?;
    Ok(id)
}

/// `aclrtNotifyGetExportKey(n)`.
pub(crate) fn export_key(n: Raw) -> Result<[u8; KEY_LEN]> {
    let mut key = [0u8; KEY_LEN];
    // SAFETY: `n` is live; `key` is a valid, writable buffer of `KEY_LEN`.
    let code = unsafe {
        sys::aclrtNotifyGetExportKey(n.as_ptr(), key.as_mut_ptr().cast::<c_char>(), KEY_LEN, 0)
    };
    check(code, "aclrtNotifyGetExportKey")?;
    Ok(key)
}

/// `aclrtNotifySetImportPid(n, pids)`.
pub(crate) fn set_import_pid(n: Raw, pids: &[i32]) -> Result<()> {
    let mut pids = pids.to_vec();
    // SAFETY: `n` is live; `pids` is a valid array of `pids.len()` i32s.
    let code = unsafe { sys::aclrtNotifySetImportPid(n.as_ptr(), pids.as_mut_ptr(), pids.len()) };
    check(code, "aclrtNotifySetImportPid")
}

/// `aclrtNotifyImportByKey(key)` in the current context, `owner`.
pub(crate) fn import(key: &CStr, owner: Raw) -> Result<Raw> {
    let mut n: sys::aclrtNotify = core::ptr::null_mut();
    // SAFETY: `n` is a valid, writable handle slot; `key` is NUL-terminated.
    let code = unsafe { sys::aclrtNotifyImportByKey(&mut n, key.as_ptr(), 0) };
    check(code, "aclrtNotifyImportByKey")?;
    let n = super::raw(n, "aclrtNotifyImportByKey")?;
    super::live::child_created(n.as_ptr() as usize, owner);
    Ok(n)
}
