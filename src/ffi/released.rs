//! What the crate's books forget when the runtime releases a stream: the
//! one place every release path goes through, so that no book keyed by a
//! stream's handle can miss a path (a later stream may get the same
//! handle: it must start clean).
//!
//! The paths: [`super::destroy_stream`], `register::destroy_stream_force`,
//! and a context's default stream, released with its context
//! ([`super::destroy_context`]) or with the last reset of its device
//! ([`super::reset_device`], `register::reset_device_force`), and finalize
//! (every book cleared). Before the runtime call each path also forgets the
//! completion service's watches naming the stream or its context
//! (`completion::handle_gone`).
//!
//! Bookkeeping only: no runtime call and no `unsafe` here.
#![deny(unsafe_code)]

use super::Raw;

pub(crate) use super::record::{hooks, hooks_on};

/// The runtime destroyed `stream` (its record was taken out by
/// `record::destroying`): every book forgets it. `forced`: the stream was
/// force-destroyed, so its unscoped host functions may
/// still run and are parked until finalize instead of settled.
///
/// `hooks`: [`hooks`] as the destruction read it before the runtime call
/// (what it covers is made on a borrowed stream, so before that read).
#[inline(always)]
pub(crate) fn stream_released(stream: Raw, forced: bool, hooks: bool) {
    if hooks {
        // Its queued stream waits executed (or were dropped with it). (An
        // escalation's abort of it not reported yet went with its record.)
        super::waits::stream_destroyed(stream);
        if forced {
            super::host_fn::park_static_host_fns(stream);
        } else {
            drop(super::host_fn::settle_static_host_fns(Some(stream)));
        }
        super::mix::stream_destroyed(stream);
    }
    // One load while no failure was ever entered.
    super::faults::forget_stream(stream);
}

/// The runtime released context `ctx` (destroyed, or its device's last
/// reset): its default stream, if the crate ever handed it out, leaves the
/// books of marks (its record, its failures, an outside abort not reported,
/// report callbacks not run). Its outside waits were flushed before the
/// release (`waits::flush_context`); its unscoped host functions stay
/// parked until finalize, as they always were for default streams (nothing
/// here says their queue has run).
pub(crate) fn context_released(default_stream: Option<Raw>) {
    if let Some(stream) = default_stream {
        super::mix::stream_destroyed(stream);
        super::faults::forget_stream(stream);
        super::record::released(stream);
    }
}

/// How many entries keyed by `stream` the books hold now (a test hook:
/// after a release it is 0).
pub(crate) fn entries_of(stream: Raw) -> usize {
    usize::from(super::faults::holds(stream))
        + usize::from(super::record::holds(stream))
        + usize::from(super::mix::has_unrun(stream))
        + usize::from(super::host_fn::has_unsettled_static(stream))
        + super::completion::watches_naming(stream)
}
