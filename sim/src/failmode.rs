//! Stream failure mode (`aclrtSetStreamFailureMode`, fact F.2): a one-way,
//! per-context latch.
//!
//! Every context has one [`Latch`], shared by all its streams. CONTINUE
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

use std::collections::BTreeSet;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Mutex, OnceLock};

use crate::diag::{Error, Res};
use crate::ffi;
use crate::rt::rt;
use crate::sync::lock;

/// The first failure of a STOP-mode context.
#[derive(Clone, Copy, Debug)]
struct Failed {
    code: i32,
    stream_id: u64,
    stream: usize,
    seq: u64,
}

#[derive(Default)]
struct State {
    stop: bool,
    failed: Option<Failed>,
    /// Streams (lane ids) that had a failed task, in either mode.
    failed_streams: BTreeSet<u64>,
}

/// The failure-mode state of one context.
#[derive(Default)]
pub(crate) struct Latch {
    /// Fast path: a STOP-mode failure is stored.
    tripped: AtomicBool,
    state: Mutex<State>,
}

/// The latch slot of a stream (set once, when the stream is created).
pub(crate) type StreamLatch = OnceLock<Arc<Latch>>;

impl Latch {
    /// A task of stream `stream_id` (handle `stream`) failed with `code`.
    pub(crate) fn on_fault(&self, stream_id: u64, stream: usize, seq: u64, code: i32) {
        let mut st = lock(&self.state);
        st.failed_streams.insert(stream_id);
        if st.stop && st.failed.is_none() {
            st.failed = Some(Failed {
                code,
                stream_id,
                stream,
                seq,
            });
            self.tripped.store(true, Ordering::SeqCst);
        }
    }

    /// Whether stream `stream_id` must skip its remaining tasks.
    pub(crate) fn stops(&self, stream_id: u64) -> bool {
        self.tripped.load(Ordering::SeqCst)
            && lock(&self.state)
                .failed
                .is_some_and(|f| f.stream_id == stream_id)
    }

    /// `Err(stored code)` once a STOP-mode context has failed.
    pub(crate) fn check(&self, what: &str) -> Res<()> {
        if !self.tripped.load(Ordering::SeqCst) {
            return Ok(());
        }
        let Some(f) = lock(&self.state).failed else {
            return Ok(());
        };
        Err(Error::new(
            f.code,
            format!(
                "the context is in stop-on-failure mode (ACL_STOP_ON_FAILURE) and task #{} on \
                 stream {:#x} failed with {}; {what} (destroy the context or reset the device \
                 to recover)",
                f.seq, f.stream, f.code
            ),
        ))
    }
}

/// `aclrtSetStreamFailureMode`.
pub(crate) fn set_failure_mode(stream: usize, mode: u64) -> Res<()> {
    let rt = rt();
    crate::stream::null_stream_needs_control_sq(&rt, stream, "aclrtSetStreamFailureMode")?;
    let (_, st) = rt.stream_in_current(stream)?;
    let sh = st.shared.clone();
    drop(rt);
    if sh.flags & ffi::ACL_STREAM_DEVICE_USE_ONLY != 0 {
        return Err(Error::new(
            ffi::ACL_ERROR_RT_FEATURE_NOT_SUPPORT,
            format!(
                "stream {:#x} was created with ACL_STREAM_DEVICE_USE_ONLY; its failure mode \
                 cannot be set",
                sh.handle
            ),
        ));
    }
    let Some(latch) = sh.fail.get() else {
        return Err(Error::new(
            ffi::ACL_ERROR_RT_INTERNAL_ERROR,
            "internal: stream without a failure-mode latch",
        ));
    };
    // Only bit 0 is read.
    let stop = mode & ffi::ACL_STOP_ON_FAILURE as u64 != 0;
    let mut state = lock(&latch.state);
    if !stop {
        if state.stop {
            return Err(Error::new(
                ffi::ACL_ERROR_RT_FEATURE_NOT_SUPPORT,
                "the context of this stream is in stop-on-failure mode; that is one-way \
                 (ACL_STOP_ON_FAILURE cannot be changed back to ACL_CONTINUE_ON_FAILURE)",
            ));
        }
        return Ok(());
    }
    if state.failed_streams.contains(&sh.id) && !state.stop {
        return Err(Error::new(
            ffi::ACL_ERROR_RT_FEATURE_NOT_SUPPORT,
            format!(
                "stream {:#x} already had a failed task; ACL_STOP_ON_FAILURE cannot be set on a \
                 stream that has failed",
                sh.handle
            ),
        ));
    }
    state.stop = true;
    Ok(())
}
