//! Memory (and, in the header, events) shared between processes (`aclrtIpcMem*`,
//! `aclrtIpcGetEventHandle`, `aclrtIpcOpenEventHandle`). One thin function
//! per C call (the event calls are not bound yet); the typed layer (`crate::ipc`) keeps an exported buffer
//! borrowed while its key is open and closes an import before its context.

use core::ffi::{CStr, c_char, c_void};
use core::ptr::NonNull;

use aclrt_sys as sys;

use super::check;
use super::vmm::Addr;
use crate::error::Result;

/// The longest key the runtime writes, with its NUL.
pub(crate) const KEY_LEN: usize = 128;

/// `aclrtIpcMemGetExportKey(ptr, bytes)`: the key naming the memory.
pub(crate) fn mem_export_key(ptr: NonNull<u8>, bytes: usize) -> Result<[u8; KEY_LEN]> {
    let mut key = [0u8; KEY_LEN];
    // SAFETY: `ptr..ptr+bytes` is a live allocation the caller borrows for
    // the call; `key` is a valid, writable buffer of `KEY_LEN` bytes.
    let code = unsafe {
        sys::aclrtIpcMemGetExportKey(
            ptr.as_ptr().cast(),
            bytes,
            key.as_mut_ptr().cast::<c_char>(),
            KEY_LEN,
            0,
        )
    };
    check(code, "aclrtIpcMemGetExportKey")?;
    Ok(key)
}

/// `aclrtIpcMemSetImportPid(key, pids)`.
pub(crate) fn mem_set_import_pid(key: &CStr, pids: &[i32]) -> Result<()> {
    let mut pids = pids.to_vec();
    // SAFETY: `key` is NUL-terminated; `pids` is a valid array of
    // `pids.len()` i32s for the whole call.
    let code = unsafe { sys::aclrtIpcMemSetImportPid(key.as_ptr(), pids.as_mut_ptr(), pids.len()) };
    check(code, "aclrtIpcMemSetImportPid")
}

/// `aclrtIpcMemImportByKey(key)`: the address the memory is mapped at here.
pub(crate) fn mem_import(key: &CStr) -> Result<Addr> {
    let mut p: *mut c_void = core::ptr::null_mut();
    // SAFETY: `p` is a valid, writable pointer slot; `key` is NUL-terminated.
    let code = unsafe { sys::aclrtIpcMemImportByKey(&mut p, key.as_ptr(), 0) };
    check(code, "aclrtIpcMemImportByKey")?;
    Ok(Addr::new(super::raw(p, "aclrtIpcMemImportByKey")?.0.cast()))
}

/// `aclrtIpcMemClose(key)`: ends an export or an import of this process.
pub(crate) fn mem_close(key: &CStr) -> Result<()> {
    // SAFETY: `key` is NUL-terminated; no region of an import closed here is
    // borrowed any more (its owner is being dropped).
    let code = unsafe { sys::aclrtIpcMemClose(key.as_ptr()) };
    check(code, "aclrtIpcMemClose")
}

/// `aclrtMemGetAddressRange(ptr)`: the size of the allocation (runtime,
/// mapped or imported) that starts at `ptr`, or `None` if `ptr` is not its
/// start.
pub(crate) fn allocation_size(ptr: Addr) -> Result<Option<usize>> {
    let mut base: *mut c_void = core::ptr::null_mut();
    let mut size = 0usize;
    // SAFETY: `ptr` is a live import of this process; `base` and `size`
    // are valid, writable locals for the whole call.
    let code = unsafe { sys::aclrtMemGetAddressRange(ptr.as_ptr().cast(), &mut base, &mut size) };
    check(code, "aclrtMemGetAddressRange")?;
    Ok((base == ptr.as_ptr().cast::<c_void>()).then_some(size))
}
