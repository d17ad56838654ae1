//! Value writes and waits (`aclrtValueWrite`, `aclrtValueWait`) queued on
//! a scope's lane: one safe function per C call. The word they use is a
//! [`DeviceWord`]: 8 bytes of device memory the crate allocated (so
//! 8-byte aligned), which the typed layer (`crate::value`) owns and never
//! hands out, so the device's writes and waits are its only accesses while
//! a scope has it.

use core::ffi::c_void;

use aclrt_sys as sys;

use super::check;
use super::scope::LaneCore;
use crate::error::Result;

/// The address of a device word the typed layer owns (an allocation of
/// one `u64` made by `aclrtMalloc`, live as long as this). An address
/// only: the CPU never dereferences it.
pub(crate) struct DeviceWord(usize);

impl DeviceWord {
    /// The word at `ptr`: the start of a live device allocation of at
    /// least 8 bytes, owned by the caller for as long as this lives.
    pub(crate) fn new(ptr: *const c_void) -> DeviceWord {
        DeviceWord(ptr as usize)
    }

    fn ptr(&self) -> *mut c_void {
        self.0 as *mut c_void
    }
}

/// `aclrtValueWrite(word, value, 0, lane's stream)`, borrowing `word` for
/// the scope.
pub(crate) fn value_write<'scope>(
    lane: &LaneCore<'scope, '_>,
    word: &'scope DeviceWord,
    value: u64,
) -> Result<()> {
    lane.bind()?;
    // SAFETY: `word.ptr()` is 8 bytes of live device memory (`DeviceWord`'s
    // contract), 8-byte aligned (an allocation's start), borrowed for
    // `'scope`, whose end synchronises the lane's stream before the borrow
    // ends; the stream is live and its context current; flag 0.
    let code = unsafe { sys::aclrtValueWrite(word.ptr(), value, 0, lane.stream().as_ptr()) };
    check(code, "aclrtValueWrite")
}

/// `aclrtValueWait(word, value, mode, lane's stream)`, borrowing `word`
/// for the scope.
pub(crate) fn value_wait<'scope>(
    lane: &LaneCore<'scope, '_>,
    word: &'scope DeviceWord,
    value: u64,
    mode: u32,
) -> Result<()> {
    lane.bind()?;
    // SAFETY: as in `value_write`; the wait task only reads the word;
    // `mode` is one of the four wait modes.
    let code = unsafe { sys::aclrtValueWait(word.ptr(), value, mode, lane.stream().as_ptr()) };
    check(code, "aclrtValueWait")
}
