//! The failure-mode latch of a context (`crate::failmode` sets its mode;
//! the executor trips it, submissions and synchronisations read it).

use std::collections::BTreeSet;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, OnceLock};

use crate::diag::{Error, Res};
use crate::ffi;
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

    /// Sets the mode of the context from stream `stream_id` (handle
    /// `stream`): STOP is one-way, and cannot be set from a stream that
    /// already had a failed task.
    pub(crate) fn set_mode(&self, stream_id: u64, stream: usize, stop: bool) -> Res<()> {
        let mut state = lock(&self.state);
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
        if state.failed_streams.contains(&stream_id) && !state.stop {
            return Err(Error::new(
                ffi::ACL_ERROR_RT_FEATURE_NOT_SUPPORT,
                format!(
                    "stream {:#x} already had a failed task; ACL_STOP_ON_FAILURE cannot be set on a \
                     stream that has failed",
                    stream
                ),
            ));
        }
        state.stop = true;
        Ok(())
    }
}
