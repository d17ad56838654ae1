//! Stream attributes beyond the basics: the per-stream overflow-detection
//! switch.

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
}
