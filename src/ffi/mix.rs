//! Which callback mechanism each stream has used (marks in the stream's
//! record, `record`), and the report callbacks not run yet: what keeps
//! `aclrtLaunchHostFunc` and the report-callback mechanism
//! (`aclrtSubscribeReport` / `aclrtLaunchCallback`) apart on one stream
//! (acl-facts 5.8: do not mix them), read by both [`super::host_fn`] and
//! [`super::report`] and written by each for its own mechanism; and the
//! report callbacks an escalation's abort may have discarded
//! ([`take_unrun`]).
//!
//! Bookkeeping only: no runtime call and no `unsafe` here.
#![deny(unsafe_code)]

use std::sync::Mutex;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};

use super::Raw;
use super::locks::{Held, Rank, lock};

// ---------------------------------------------------------------- marks

/// `aclrtLaunchHostFunc` succeeded on `stream`: the runtime then serves the
/// stream with its own callback thread for the rest of the stream's life
/// and refuses `aclrtSubscribeReport` on it (107011, fidelity row
/// CB-MIX-2), so [`super::report::subscribe`] refuses first with
/// [`Error::CallbackMix`](crate::error::Error::CallbackMix). The mark is in
/// the stream's record (`record`), released with the stream.
pub(super) fn mark_host_fn_stream(stream: Raw) {
    if !super::record::hooks() {
        // The destruction hook must run for such streams from now on.
        super::stream_hooks_on();
    }
    super::record::mark_host_fn(stream);
}

// ---------------------------------------------------------------- report callbacks

/// Report callbacks launched through the crate that have not run yet:
/// (stream, id). A callback leaves when the trampoline starts it; an
/// escalation that aborts a stream takes the stream's entries
/// ([`take_unrun`]): their callbacks were discarded (or, launched
/// `NO_BLOCK` and already handed to the reporter, are about to run), and
/// the stream's next synchronisation reports
/// [`Error::WorkAborted`](crate::Error::WorkAborted).
static CALLBACKS: Mutex<Vec<(Raw, u64)>> = Mutex::new(Vec::new());

/// Whether `CALLBACKS` may be non-empty (set before the first push).
static ANY_CALLBACK: AtomicBool = AtomicBool::new(false);

static NEXT_CALLBACK: AtomicU64 = AtomicU64::new(1);

fn callbacks() -> Held<'static, Vec<(Raw, u64)>> {
    lock(&CALLBACKS, Rank::Callbacks)
}

pub(super) fn forget_callback(id: u64) {
    let mut c = callbacks();
    if let Some(i) = c.iter().position(|&(_, k)| k == id) {
        c.swap_remove(i);
    }
}

/// An escalation aborted `stream`: whether report callbacks launched on it
/// had not run yet (they are forgotten here; see [`CALLBACKS`]).
pub(crate) fn take_unrun(stream: Raw) -> bool {
    if !ANY_CALLBACK.load(Ordering::Acquire) {
        return false;
    }
    let mut c = callbacks();
    let before = c.len();
    c.retain(|&(s, _)| s != stream);
    c.len() != before
}

/// Whether report callbacks launched on `stream` have not run yet.
pub(crate) fn has_unrun(stream: Raw) -> bool {
    ANY_CALLBACK.load(Ordering::Acquire) && callbacks().iter().any(|&(s, _)| s == stream)
}

/// `stream` was destroyed: callbacks launched on it that never ran (a
/// fault skipped them) are forgotten, so that a later stream with the same
/// handle is not taken for it ([`take_unrun`]).
pub(crate) fn stream_destroyed(stream: Raw) {
    let _ = take_unrun(stream);
}

/// Enters a report callback about to be launched on `stream` in
/// [`CALLBACKS`]; returns its id (for [`forget_callback`]).
#[cfg_attr(not(unix), allow(dead_code))]
pub(super) fn enter_callback(stream: Raw) -> u64 {
    let id = NEXT_CALLBACK.fetch_add(1, Ordering::Relaxed);
    ANY_CALLBACK.store(true, Ordering::Release);
    callbacks().push((stream, id));
    id
}
