//! What this process exported for other processes and has not closed: the
//! IPC keys of device memory (with the allocation each names) and the
//! shareable handles of physical memory.
//!
//! Two rules read the lists. An import of a key or handle this process
//! exported itself is refused (it would give a second, writable name to
//! memory this process owns). And device memory stays allocated while a
//! key names it: `aclrtFree` is not called for an allocation with an open
//! key (`ffi::mem`), so a forgotten export leaks its buffer instead of
//! leaving another process a key to freed memory.
//!
//! No `unsafe`, no runtime call; each list is one ranked lock, held by the
//! callers across the runtime call that makes or closes a key, so that no
//! import or free of this process slips in between.
#![deny(unsafe_code)]

use std::ffi::CString;
use std::sync::Mutex;
use std::sync::atomic::{AtomicUsize, Ordering};

use super::locks::{Held, Rank, lock};

/// One open IPC key: the key and the address of the allocation it names.
pub(crate) struct IpcKeyEntry {
    pub(crate) key: CString,
    pub(crate) addr: usize,
}

static IPC: Mutex<Vec<IpcKeyEntry>> = Mutex::new(Vec::new());
/// The IPC event keys this process gave out (`Event::ipc_handle`), never
/// removed (a key is 64 bytes; a process exports few events).
static EVENT_KEYS: Mutex<Vec<[u8; 64]>> = Mutex::new(Vec::new());
static SHAREABLE: Mutex<Vec<u64>> = Mutex::new(Vec::new());

/// The open IPC keys, one entry per export (the runtime answers a buffer
/// exported again with the key it has: the key is closed when its last
/// entry goes).
pub(crate) fn ipc() -> Held<'static, Vec<IpcKeyEntry>> {
    lock(&IPC, Rank::IpcExports)
}

/// How many entries [`IPC`] holds, stored by [`ipc_changed`] under its
/// lock: every free of device memory reads it, and takes the lock only
/// while some key is open. An export of a buffer ends (or is forgotten)
/// before the buffer can be freed (the export borrows it), so a free never
/// races with the entry of its own key.
static IPC_OPEN: AtomicUsize = AtomicUsize::new(0);

/// After a change of the list `list` (still held): records its length.
pub(crate) fn ipc_changed(list: &[IpcKeyEntry]) {
    IPC_OPEN.store(list.len(), Ordering::Release);
}

/// How many open exports name the allocation at `addr`.
#[inline]
pub(crate) fn ipc_exports_of(addr: usize) -> usize {
    if IPC_OPEN.load(Ordering::Acquire) == 0 {
        return 0;
    }
    ipc().iter().filter(|e| e.addr == addr).count()
}

/// The shareable handles of physical memory this process exported.
pub(crate) fn shareable() -> Held<'static, Vec<u64>> {
    lock(&SHAREABLE, Rank::ShareableExports)
}

/// This process gave out the IPC event key `key`.
pub(crate) fn event_key_given(key: [u8; 64]) {
    let mut keys = lock(&EVENT_KEYS, Rank::IpcEventKeys);
    if !keys.contains(&key) {
        keys.push(key);
    }
}

/// Whether this process gave out the IPC event key `key` (an event opened
/// from it may be recorded here, through the exporting event).
pub(crate) fn event_key_is_ours(key: &[u8; 64]) -> bool {
    lock(&EVENT_KEYS, Rank::IpcEventKeys).contains(key)
}
