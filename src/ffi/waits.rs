//! The book of stream waits on events outside scopes ([`Stream::wait_event`](crate::Stream::wait_event)),
//! and the deferred destruction of events such a wait still depends on.
//! The wait itself is issued by the open-scope registry
//! ([`super::scope::wait_event_outside`]), which enters it here.
//!
//! `aclrtStreamWaitEvent(stream, event)` queues a wait task that refers to
//! the event until it executes. Outside a scope nothing synchronises the
//! stream for the user, and a guard whose `Drop` synchronises would not help
//! (`mem::forget` is safe), so the rule "do not destroy an event a pending
//! wait depends on" is kept here, by the library, whatever the user leaks:
//! * every wait issued outside a scope is entered in this book, with the
//!   stream, the stream's context and a sequence number;
//! * when the crate synchronises a stream, a context or a device
//!   successfully, the waits issued on it *before the synchronisation
//!   started* (sequence number below the ticket taken then) have executed,
//!   and are removed;
//! * destroying an event ([`super::destroy_event`]) with waits still in the
//!   book does not call `aclrtDestroyEvent`: the event is *deferred*, and
//!   destroyed by the synchronisation that removes its last wait;
//! * before its context is destroyed (or the device of a default context
//!   reset), the context is synchronised and its deferred events destroyed
//!   ([`flush_context`]), so a deferred event never outlives its context
//!   and never blocks the release order.
//!
//! Keeping an entry too long only delays a destruction; removing one too
//! early is what must never happen, hence the tickets: a synchronisation
//! that started before a wait was queued proves nothing about that wait.
//!
//! No `unsafe` here; the `aclrtDestroyEvent` calls go through
//! [`super::destroy_event`].
#![deny(unsafe_code)]

use std::sync::Mutex;
use std::sync::atomic::AtomicBool;

use super::Raw;
use super::protocol::wait_book::{self, Book};
use crate::error::Result;

/// The record a wait waits for, as tracked when it was queued: (stream,
/// ticket) from the open-scope registry's `LATEST`; `None` if not tracked
/// then.
type Rec = Option<(Raw, u64)>;

/// The book (the protocol core `protocol::wait_book`, model-checked in
/// `models/`, says why no wait leaves it before it executed).
static BOOK: Mutex<Book<Raw, Rec>> = Mutex::new(Book::new());

/// Whether the book may hold anything: the synchronisation paths skip the
/// lock when no wait was ever issued outside a scope (the common case).
static ANY: AtomicBool = AtomicBool::new(false);

/// A ticket to take *before* a synchronisation starts: the waits it proves
/// executed are those with a smaller sequence number.
pub(crate) fn ticket() -> u64 {
    wait_book::ticket(&ANY, &BOOK)
}

/// Enters the wait of `stream` (of context `ctx`) for `event` in the book,
/// which `queue` (`aclrtStreamWaitEvent`, `ctx` current) queues; `rec` is
/// the record it waits for, as tracked now. Called by the open-scope
/// registry's [`wait_event_outside`](super::scope::wait_event_outside),
/// under its lock (the order is: registry, then book).
///
/// The book stays locked across `queue` ([`wait_book::enter`]).
/// `aclrtStreamWaitEvent` does not block and calls back into nothing.
pub(crate) fn enter(
    stream: Raw,
    ctx: Raw,
    event: Raw,
    rec: Rec,
    queue: impl FnOnce() -> Result<()>,
) -> Result<()> {
    let key = (
        event.as_ptr() as usize,
        stream.as_ptr() as usize,
        ctx.as_ptr() as usize,
    );
    wait_book::enter(&ANY, &BOOK, key, rec, queue)?;
    super::stream_hooks_on();
    Ok(())
}

/// One wait in the book, for [`with_pending`]: the event, the waiting
/// stream, its context, and the record it waits for as tracked when it was
/// queued (stream, ticket).
pub(crate) type Pending = (Raw, Raw, Raw, Option<(Raw, u64)>);

/// Runs `f` on the waits in the book, holding the book's lock: while a wait
/// is in the book its event is alive (its destruction is deferred), so `f`
/// may query it. Some waits may have executed already (they leave the book
/// at the next synchronisation). Called under the open-scope registry's
/// lock (the order is: registry, then book).
pub(crate) fn with_pending<R>(f: impl FnOnce(&[Pending]) -> R) -> R {
    wait_book::with_waits(&ANY, &BOOK, |waits| {
        let waits: Vec<Pending> = waits
            .iter()
            .filter_map(|w| {
                Some((
                    Raw::new(w.event as *mut _)?,
                    Raw::new(w.stream as *mut _)?,
                    Raw::new(w.ctx as *mut _)?,
                    w.rec,
                ))
            })
            .collect();
        f(&waits)
    })
}

/// Whether `event` has waits in the book; if so it is deferred (the caller
/// must not destroy it now).
pub(crate) fn defer_destroy(event: Raw) -> bool {
    wait_book::defer_destroy(&ANY, &BOOK, event, event.as_ptr() as usize)
}

/// Remove the waits matching `pred` issued before `ticket`, and destroy the
/// deferred events left without waits.
fn settle(ticket: u64, pred: impl Fn(&wait_book::Wait<Rec>) -> bool) {
    let ready = wait_book::settle(&ANY, &BOOK, ticket, pred, |e| e.as_ptr() as usize);
    for event in ready {
        // The book held the event's last pending wait, now executed: it is
        // live and nothing depends on it. Drop cannot report; neither can a
        // synchronisation report a failure of another object.
        let _ = super::destroy_event(event);
    }
}

/// `stream` was synchronised successfully; the synchronisation started when
/// `ticket` was taken. Inlined: one atomic load while no wait was ever
/// issued outside a scope.
#[inline]
pub(crate) fn synchronized_stream_since(stream: Raw, ticket: u64) {
    if ANY.load(std::sync::atomic::Ordering::Acquire) {
        settle_stream(stream, ticket);
    }
}

#[inline(never)]
fn settle_stream(stream: Raw, ticket: u64) {
    let key = stream.as_ptr() as usize;
    settle(ticket, |w| w.stream == key);
}

/// `stream` was destroyed (`aclrtDestroyStream` waited for its queued work):
/// every wait on it has executed.
#[inline]
pub(crate) fn stream_destroyed(stream: Raw) {
    synchronized_stream_since(stream, u64::MAX);
}

/// Every stream of `ctx` was synchronised successfully (the device with
/// `ctx` current); it started when `ticket` was taken.
pub(crate) fn synchronized_context_since(ctx: Raw, ticket: u64) {
    let key = ctx.as_ptr() as usize;
    settle(ticket, |w| w.ctx == key);
}

/// Before `ctx` is destroyed (or its device reset): if events of `ctx` are
/// deferred, synchronise the context (every stream of it) and destroy them.
/// Errors of that synchronisation are returned (the release is then not
/// attempted: the deferred events keep the context alive, as a leak would).
pub(crate) fn flush_context(ctx: Raw) -> Result<()> {
    if !wait_book::has_ctx(&ANY, &BOOK, ctx.as_ptr() as usize) {
        return Ok(());
    }
    let ticket = ticket();
    // Stream by stream, entering every failure (`faults`): a scope may be
    // open on the default context while another reference on its device is
    // released, and a failure this synchronisation takes from the runtime
    // is then one of the scope's (SAFETY.md 4.1, rule 1).
    super::faults::synchronize_context(ctx, None)?;
    synchronized_context_since(ctx, ticket);
    Ok(())
}

/// The runtime was finalised or re-initialised: no handle in the book is
/// valid any more.
pub(crate) fn clear() {
    wait_book::clear(&BOOK);
}
