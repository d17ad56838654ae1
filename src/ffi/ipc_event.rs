//! Events shared between processes (`aclrtIpcGetEventHandle`,
//! `aclrtIpcOpenEventHandle`). One thin function per C call; the typed
//! layer (`crate::ipc_event`) ties the handle to the exporter's event and
//! closes an opened event (`aclrtDestroyEvent`, through
//! [`destroy_event`](super::destroy_event), which defers it while a stream
//! wait on it may be queued).

use aclrt_sys as sys;

use super::{Raw, check};
use crate::error::Result;

/// The bytes of an `aclrtIpcEventHandle`.
pub(crate) const HANDLE_LEN: usize = 64;

/// `aclrtIpcGetEventHandle(ev)`: the handle naming the event for other
/// processes.
pub(crate) fn get_handle(ev: Raw) -> Result<[u8; HANDLE_LEN]> {
    let mut h = sys::aclrtIpcEventHandle {
        reserved: [0; HANDLE_LEN],
    };
    // SAFETY: `ev` is a live event (the caller borrows it); `h` is a valid,
    // writable handle struct for the whole call.
    let code = unsafe { sys::aclrtIpcGetEventHandle(ev.as_ptr(), &mut h) };
    check(code, "aclrtIpcGetEventHandle")?;
    Ok(h.reserved.map(|b| b as u8))
}

/// `aclrtIpcOpenEventHandle(handle)` in the current context, `owner`: an
/// event handle of this process, released by `aclrtDestroyEvent`.
pub(crate) fn open_handle(handle: &[u8; HANDLE_LEN], owner: Raw) -> Result<Raw> {
    let h = sys::aclrtIpcEventHandle {
        reserved: handle.map(|b| b as core::ffi::c_char),
    };
    let mut ev: sys::aclrtEvent = core::ptr::null_mut();
    // SAFETY: `ev` is a valid, writable handle slot; `h` is passed by value.
    let code = unsafe { sys::aclrtIpcOpenEventHandle(h, &mut ev) };
    check(code, "aclrtIpcOpenEventHandle")?;
    let ev = super::raw(ev, "aclrtIpcOpenEventHandle")?;
    super::live::child_created(ev.as_ptr() as usize, owner);
    Ok(ev)
}
