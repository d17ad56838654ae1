//! Stream configuration handles (`aclrtCreateStreamConfigHandle`,
//! `aclrtSetStreamConfigOpt`, `aclrtDestroyStreamConfigHandle`) and streams
//! made from them (`aclrtCreateStreamV2`).
//!
//! A [`StreamConfig`] owns its handle (destroyed on drop) and sets what a
//! stream may be made with: a [`StreamPriority`] (always in the runtime's
//! 0..=7) and [`StreamFlags`]. The runtime's configuration also has a work
//! area (`ACL_RT_STREAM_WORK_ADDR_PTR`, `ACL_RT_STREAM_WORK_SIZE`): device
//! memory the stream would use for its own work, which no lifetime of the
//! crate could tie to the stream's; it is not offered.

use crate::context::Context;
use crate::error::Result;
use crate::ffi;
use crate::ffi::stream_config::ConfigHandle;
use crate::mode::RunMode;
use crate::stream::{Stream, StreamFlags, StreamPriority};

/// A stream configuration (`aclrtCreateStreamConfigHandle`), destroyed on
/// drop (`aclrtDestroyStreamConfigHandle`); [`Context::create_stream_from`]
/// makes streams from it.
#[doc(alias = "aclrtStreamConfigHandle")]
#[doc(alias = "aclrtCreateStreamConfigHandle")]
pub struct StreamConfig {
    handle: ConfigHandle,
}

impl core::fmt::Debug for StreamConfig {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("StreamConfig").finish_non_exhaustive()
    }
}

impl StreamConfig {
    /// A configuration with the runtime's defaults (priority 0, no flags).
    pub fn new() -> Result<StreamConfig> {
        Ok(StreamConfig {
            handle: ffi::stream_config::create()?,
        })
    }

    /// Set the priority (`aclrtSetStreamConfigOpt(ACL_RT_STREAM_PRIORITY)`).
    #[doc(alias = "aclrtSetStreamConfigOpt")]
    pub fn set_priority(&mut self, priority: StreamPriority) -> Result<&mut Self> {
        ffi::stream_config::set_priority(&mut self.handle, priority.get())?;
        Ok(self)
    }

    /// Set the flags (`aclrtSetStreamConfigOpt(ACL_RT_STREAM_FLAG)`).
    #[doc(alias = "aclrtSetStreamConfigOpt")]
    pub fn set_flags(&mut self, flags: StreamFlags) -> Result<&mut Self> {
        ffi::stream_config::set_flags(&mut self.handle, flags.bits() as usize)?;
        Ok(self)
    }
}

impl<'dev, 'id, M: RunMode> Context<'dev, 'id, M> {
    /// Create a stream of this context from `config` (`aclrtCreateStreamV2`);
    /// the configuration can be changed or dropped afterwards.
    #[doc(alias = "aclrtCreateStreamV2")]
    pub fn create_stream_from(&self, config: &StreamConfig) -> Result<Stream<'_, 'id>> {
        let raw = ffi::stream_config::create_stream(self.raw(), &config.handle)?;
        Ok(Stream::owned(raw, self.raw()))
    }
}
