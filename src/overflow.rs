//! The device's overflow status (`aclrtGetOverflowStatus`,
//! `aclrtResetOverflowStatus`), read into device memory the crate owns.
//!
//! `aclrtGetOverflowStatus` queues, on a stream, a copy of the device's
//! 64-byte overflow status into device memory. [`Context::overflow_status`]
//! allocates those 64 bytes itself, queues the copy on the stream, waits
//! for the stream (a synchronisation through the crate, so a failure of
//! its work is reported as always) and reads them back: no address of the
//! caller's goes to the device, and the area is freed only once the stream
//! is idle past the copy (kept, never freed, if the stream cannot be made
//! idle). On the A2 and A3 series (and the 950) the status is the
//! process's, not the stream's (the runtime's documentation).

use crate::context::Context;
use crate::error::Result;
use crate::ffi;
use crate::ffi::overflow::{STATUS_LEN, StatusArea};
use crate::mode::RunMode;
use crate::stream::Stream;

/// The 64 bytes of the device's overflow status
/// ([`Context::overflow_status`]). The runtime documents no layout:
/// [`is_clear`](Self::is_clear) says whether every byte is zero, the state
/// after [`Stream::reset_overflow_status`] with no overflow since.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub struct OverflowStatus([u8; STATUS_LEN]);

impl OverflowStatus {
    /// The bytes as the device wrote them.
    pub fn bytes(&self) -> &[u8; STATUS_LEN] {
        &self.0
    }

    /// Whether every byte is zero (no overflow recorded).
    pub fn is_clear(&self) -> bool {
        self.0.iter().all(|&b| b == 0)
    }
}

impl<'dev, 'id, M: RunMode> Context<'dev, 'id, M> {
    /// Read the device's overflow status on `stream`
    /// (`aclrtGetOverflowStatus`): the copy is queued after the stream's
    /// work, which this call waits for.
    ///
    /// Errors: a failure of the stream's work (its synchronisation's
    /// error); the runtime's for the call.
    #[doc(alias = "aclrtGetOverflowStatus")]
    pub fn overflow_status(&self, stream: &Stream<'_, 'id>) -> Result<OverflowStatus> {
        let area = self.alloc::<u8>(STATUS_LEN)?;
        ffi::make_current(self.raw())?;
        ffi::overflow::get_status(&StatusArea::new(area.as_device_ptr()), stream.raw())?;
        if let Err(e) = stream.synchronize() {
            if !matches!(stream.is_complete(), Ok(true)) {
                // The copy may still be queued: the area stays allocated.
                core::mem::forget(area);
            }
            return Err(e);
        }
        let mut out = [0u8; STATUS_LEN];
        self.copy(&area, &mut out[..])?;
        Ok(OverflowStatus(out))
    }
}

impl Stream<'_, '_> {
    /// Clear the device's overflow status (`aclrtResetOverflowStatus`),
    /// on this stream.
    #[doc(alias = "aclrtResetOverflowStatus")]
    pub fn reset_overflow_status(&self) -> Result<()> {
        self.bind()?;
        ffi::overflow::reset_status(self.raw())
    }
}
