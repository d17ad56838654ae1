//! Which callback mechanism each stream has used, and the report callbacks
//! not run yet: the books that keep `aclrtLaunchHostFunc` and the
//! report-callback mechanism (`aclrtSubscribeReport` /
//! `aclrtLaunchCallback`) apart on one stream (acl-facts 5.8: do not mix
//! them), read by both [`super::host_fn`] and [`super::report`] and
//! written by each for its own mechanism; and the report callbacks an
//! escalation's abort may have discarded ([`take_unrun`]).
//!
//! Bookkeeping only: no runtime call and no `unsafe` here.
#![deny(unsafe_code)]

use std::sync::Mutex;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};

use super::Raw;
use super::locks::{Held, Rank, lock};

// ---------------------------------------------------------------- host functions

/// Streams on which `aclrtLaunchHostFunc` succeeded at least once: the
/// runtime then serves the stream with its own callback thread for the rest
/// of the stream's life and refuses `aclrtSubscribeReport` on it (107011,
/// fidelity row CB-MIX-2), so [`super::report::subscribe`] refuses first
/// with [`Error::CallbackMix`](crate::error::Error::CallbackMix). An entry
/// leaves when its stream is released (`released::stream_released`: a
/// destroy, or a default stream with its context) or the runtime is
/// finalized ([`forget_host_fn_streams`]).
static HOST_FN_STREAMS: Mutex<Vec<usize>> = Mutex::new(Vec::new());

pub(super) fn mark_host_fn_stream(stream: Raw) {
    let key = stream.as_ptr() as usize;
    let mut set = lock(&HOST_FN_STREAMS, Rank::HostFnStreams);
    if !set.contains(&key) {
        // The destruction hook must run for this stream from now on.
        super::stream_hooks_on();
        set.push(key);
    }
}

/// Whether `aclrtLaunchHostFunc` was ever used on `stream` (see
/// [`HOST_FN_STREAMS`]).
#[cfg_attr(not(unix), allow(dead_code))]
pub(crate) fn ever_had_host_fn(stream: Raw) -> bool {
    let key = stream.as_ptr() as usize;
    lock(&HOST_FN_STREAMS, Rank::HostFnStreams).contains(&key)
}

/// `stream` is being destroyed (a later stream may get its address), or,
/// with `None`, the runtime was finalized: every stream is gone (default
/// streams included, which are never destroyed one by one).
pub(crate) fn forget_host_fn_streams(stream: Option<Raw>) {
    let key = stream.map(|s| s.as_ptr() as usize);
    let mut set = lock(&HOST_FN_STREAMS, Rank::HostFnStreams);
    set.retain(|&k| key.is_some_and(|key| k != key));
}

// ---------------------------------------------------------------- report callbacks

/// The subscribed stream handles, a copy of those in the book of
/// subscriptions (`report::SUBS`), kept in step with it by [`super::report`]
/// (locked only briefly, never across a call), for [`is_subscribed`], which
/// callbacks may reach (a host-function launch).
static SUBSCRIBED: Mutex<Vec<usize>> = Mutex::new(Vec::new());

#[cfg_attr(not(unix), allow(dead_code))]
pub(super) fn set_subscribed(stream: Raw, on: bool) {
    let mut set = lock(&SUBSCRIBED, Rank::Subscribed);
    let key = stream.as_ptr() as usize;
    if on {
        set.push(key);
    } else if let Some(i) = set.iter().position(|&k| k == key) {
        set.swap_remove(i);
    }
}

/// Whether `stream` is subscribed (through the crate) to a reporter.
pub(crate) fn is_subscribed(stream: Raw) -> bool {
    let key = stream.as_ptr() as usize;
    lock(&SUBSCRIBED, Rank::Subscribed).contains(&key)
}

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
