//! Stream attributes and control beyond the basics: the per-stream
//! overflow-detection switch, and stopping a stream.

use crate::error::Result;
use crate::ffi::stream_ext as raw;
use crate::stream::Stream;

impl Stream<'_, '_> {
    /// Turn overflow detection of this stream's tasks on or off
    /// (`aclrtSetStreamOverflowSwitch`). On chips without a per-stream
    /// switch (the 310P) the runtime accepts it and detection stays as the
    /// chip has it.
    #[doc(alias = "aclrtSetStreamOverflowSwitch")]
    pub fn set_overflow_detection(&self, on: bool) -> Result<()> {
        self.bind()?;
        raw::set_overflow_switch(self.raw(), on)
    }

    /// Whether overflow detection is on for this stream
    /// (`aclrtGetStreamOverflowSwitch`; always on for chips without a
    /// per-stream switch).
    #[doc(alias = "aclrtGetStreamOverflowSwitch")]
    pub fn overflow_detection(&self) -> Result<bool> {
        self.bind()?;
        raw::overflow_switch(self.raw())
    }

    /// Discard the tasks queued on this stream that have not run yet
    /// (`aclrtStreamStop`); the stream stays usable.
    ///
    /// Takes the stream by `&mut`: no scope has it as a lane (a lane
    /// borrows the stream for the whole scope, whose buffers and hand-offs
    /// count on its tasks running), no other thread is queueing on it or
    /// synchronising it, and no thread is serving its host functions. Work
    /// queued on it outside scopes (unscoped host functions) may be
    /// discarded: its next [`synchronize`](Self::synchronize) reports that
    /// once with [`Error::WorkAborted`](crate::Error::WorkAborted).
    ///
    /// Errors: 207000 ([`ErrorKind::NotSupported`](crate::ErrorKind::NotSupported))
    /// where the chip's firmware cannot clear a stream (the simulator's
    /// 910B and 310P); [`Error::InCallback`](crate::Error::InCallback)
    /// inside a host function; the runtime's otherwise.
    #[doc(alias = "aclrtStreamStop")]
    pub fn stop(&mut self) -> Result<()> {
        crate::ffi::refuse_in_callback("Stream::stop")?;
        self.bind()?;
        raw::stream_stop(self.raw())?;
        crate::ffi::record::note_outside_aborted(self.raw());
        Ok(())
    }
}
