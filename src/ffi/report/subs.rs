//! The safe half of the book of live subscriptions (`SUBS`, in the parent
//! module): undoing the entries a destruction, an unsubscription or a
//! reporter's exit concerns, and counting a thread's entries, through the
//! protocol core `protocol::sub_book`. Bookkeeping with no `unsafe`: the
//! runtime calls (`subscribe`, `unsubscribe_raw`) are in the parent module.
#![deny(unsafe_code)]

use std::sync::atomic::Ordering;

use super::super::protocol::sub_book::{self, Sub};
use super::super::record;
use super::super::{Raw, refuse_in_callback};
use super::{ANY_SUB, SUBS, UNDONE, unsubscribe_raw};
use crate::error::Result;

/// Undo the subscription of `stream` by `tid`, if it is still in the book
/// (it may have been undone already by a destruction, or be being undone
/// by the reporter's exit). Queued callbacks run on this thread, holding no
/// crate lock.
pub(crate) fn unsubscribe(tid: u64, stream: Raw) -> Result<()> {
    refuse_in_callback("aclrtUnSubscribeReport")?;
    sub_book::unsubscribe(&SUBS, &UNDONE, (stream, tid), unsubscribe_raw, |s| {
        record::set_subscribed(s, false)
    })
}

/// Undo every subscription in the book matching `pred` (errors ignored: the
/// runtime forgets a stream's subscription when it is destroyed anyway),
/// holding no lock while the runtime runs their queued callbacks. With
/// `wait`, first waits until no matching entry is being undone by another
/// thread (a destruction must not free a handle that thread still uses).
fn undo_where(pred: impl Fn(&Sub<Raw>) -> bool, wait: bool) {
    sub_book::undo_where(&SUBS, &UNDONE, pred, wait, unsubscribe_raw, |s| {
        record::set_subscribed(s, false)
    });
}

/// `stream` is about to be destroyed (not in a callback).
#[inline]
pub(crate) fn stream_destroying(stream: Raw) {
    if ANY_SUB.load(Ordering::Acquire) {
        undo_stream(stream);
    }
}

#[inline(never)]
fn undo_stream(stream: Raw) {
    if sub_book::is_empty(&SUBS) {
        return;
    }
    undo_where(|s| s.stream == stream, true);
}

/// `ctx` is about to be destroyed (not in a callback): its streams'
/// subscriptions go (the default stream's too, which only the context's
/// destruction releases).
pub(crate) fn context_destroying(ctx: Raw) {
    if !ANY_SUB.load(Ordering::Acquire) || sub_book::is_empty(&SUBS) {
        return;
    }
    undo_where(|s| s.ctx == ctx, true);
}

/// The reporting thread `tid` is about to stop calling `aclrtProcessReport`:
/// the subscriptions a leaked `Subscription` left are undone (their queued
/// callbacks run on this thread). Entries another thread is undoing are
/// left to it, without waiting: that thread may be running a callback that
/// waits for this one to exit (it stops or drops this reporter).
pub(crate) fn thread_exiting(tid: u64) {
    undo_where(|s| s.tid == tid, false);
}

/// How many subscriptions `tid` has in the book (not counting those being
/// undone).
pub(crate) fn count(tid: u64) -> usize {
    sub_book::count(&SUBS, tid)
}
