//! Stream failure mode (`aclrtSetStreamFailureMode`, fact F.2): a one-way,
//! per-context latch.
//!
//! Every context has one [`Latch`](crate::rt::latch::Latch), shared by all its streams. CONTINUE
//! (the default) changes nothing: a failed task's code is reported by the
//! next synchronisation of its stream and later tasks still run. Once any
//! stream of the context is set to STOP, the whole context is in STOP mode
//! (it cannot go back: 207000). The first task that fails in STOP mode
//! stores its code in the latch; from then on the failed stream skips its
//! remaining tasks (event records still fire, so waiters on other streams
//! are released), every submission on any stream of the context fails with
//! the stored code, and every synchronisation of a stream of the context
//! (and of the device) returns it, until the context is destroyed or its
//! device reset. Tasks already queued on the context's *other* streams still
//! run (the documentation only says that the failed stream stops).

use crate::diag::{Error, Res};
use crate::ffi;
use crate::rt::rt;

/// E `StreamSetMode`: NULL is the default stream only with the chip's
/// control submission queue (107000), a DEVICE_USE_ONLY stream 207000;
/// both before the implementation's context check.
pub(crate) fn check_set_mode(stream: usize) -> Res<()> {
    let rt = rt();
    crate::stream::null_stream_needs_control_sq(&rt, stream, "aclrtSetStreamFailureMode")?;
    let st = rt.stream(stream)?;
    if st.shared.flags & ffi::ACL_STREAM_DEVICE_USE_ONLY != 0 {
        return Err(Error::new(
            ffi::ACL_ERROR_RT_FEATURE_NOT_SUPPORT,
            format!(
                "stream {:#x} was created with ACL_STREAM_DEVICE_USE_ONLY; its failure mode \
                 cannot be set",
                st.handle
            ),
        ));
    }
    Ok(())
}

/// `aclrtSetStreamFailureMode`, I `StreamSetMode` (after [`check_set_mode`]).
pub(crate) fn set_failure_mode(stream: usize, mode: u64) -> Res<()> {
    let rt = rt();
    let (_, st) = rt.stream_in_current(stream)?;
    let sh = st.shared.clone();
    drop(rt);
    let Some(latch) = sh.fail.get() else {
        return Err(Error::new(
            ffi::ACL_ERROR_RT_INTERNAL_ERROR,
            "internal: stream without a failure-mode latch",
        ));
    };
    // Only bit 0 is read.
    latch.set_mode(
        sh.id,
        sh.handle,
        mode & ffi::ACL_STOP_ON_FAILURE as u64 != 0,
    )
}
