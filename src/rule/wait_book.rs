//! The protocol core of the book of outside waits (`waits`, model-checked):
//! stream waits queued outside scopes, and the events whose
//! destruction waits for them.
//!
//! The rule kept: an event is destroyed only once no queued wait refers to
//! it. A synchronisation proves executed only the waits queued before it
//! started, hence the tickets:
//! * a wait is entered holding the book's lock *across* the runtime call
//!   that queues it ([`enter`]), with the next sequence number;
//! * a synchronisation takes a [`ticket`] (the next sequence number, under
//!   the lock) *before* it starts, and afterwards removes only the waits
//!   below it ([`settle`]).
//!
//! So a ticket is taken either before the wait is entered (its number is
//! not below the ticket: that synchronisation removes nothing of it) or
//! after the runtime queued it (the synchronisation, which starts later,
//! covers it). Destroying an event with waits in the book defers it
//! ([`defer_destroy`]); [`settle`] hands back the deferred events left
//! without waits, to destroy after the lock is released.
//!
//! `any` says whether the book was ever written (set, release, after the
//! first entry): until then every path skips the lock. A path that reads
//! `false` cannot concern a wait: `enter` returns before its caller can
//! destroy the event or synchronise for it.
#![deny(unsafe_code)]

use super::sync::{AtomicBool, Mutex, Ordering, Rank, lock, mutant};

/// One wait: the event, the waiting stream and its context (as addresses),
/// its sequence number, and what the caller tracks with it (`R`).
pub(crate) struct Wait<R> {
    pub(crate) event: usize,
    pub(crate) stream: usize,
    pub(crate) ctx: usize,
    seq: u64,
    pub(crate) rec: R,
}

/// The book: waits, and deferred events `E` with their context.
pub(crate) struct Book<E, R> {
    next: u64,
    waits: Vec<Wait<R>>,
    deferred: Vec<(E, usize)>,
}

impl<E, R> Book<E, R> {
    /// An empty book.
    pub(crate) const fn new() -> Book<E, R> {
        Book {
            next: 1,
            waits: Vec::new(),
            deferred: Vec::new(),
        }
    }
}

/// A ticket to take *before* a synchronisation starts: the waits it proves
/// executed are those numbered below it.
pub(crate) fn ticket<E, R>(any: &AtomicBool, book: &Mutex<Book<E, R>>) -> u64 {
    if !any.load(Ordering::Acquire) {
        return 0;
    }
    lock(book, Rank::Waits).next
}

/// Enter a wait: `queue` queues it with the runtime (it must not block nor
/// call back into the library); on success it is booked, under one hold of
/// the lock across both.
pub(crate) fn enter<E, R, T>(
    any: &AtomicBool,
    book: &Mutex<Book<E, R>>,
    (event, stream, ctx): (usize, usize, usize),
    rec: R,
    queue: impl FnOnce() -> Result<(), T>,
) -> Result<(), T> {
    let mut b = lock(book, Rank::Waits);
    let seq = b.next;
    b.next += 1;
    if mutant("waits-queue-unlocked") {
        // The runtime call outside the lock: a ticket taken meanwhile is
        // above this wait's number though its synchronisation may miss it.
        drop(b);
        queue()?;
        b = lock(book, Rank::Waits);
    } else {
        // An error: not queued, the runtime holds no wait on the event.
        queue()?;
    }
    b.waits.push(Wait {
        event,
        stream,
        ctx,
        seq,
        rec,
    });
    any.store(true, Ordering::Release);
    Ok(())
}

/// Runs `f` on the waits in the book, holding its lock (while a wait is in
/// the book its event is alive: its destruction is deferred).
pub(crate) fn with_waits<E, R, O>(
    any: &AtomicBool,
    book: &Mutex<Book<E, R>>,
    f: impl FnOnce(&[Wait<R>]) -> O,
) -> O {
    if !any.load(Ordering::Acquire) {
        return f(&[]);
    }
    let b = lock(book, Rank::Waits);
    f(&b.waits)
}

/// Whether the event (`event`, its address `key`) has waits in the book;
/// if so it is deferred, and the caller must not destroy it now.
pub(crate) fn defer_destroy<E: Copy + PartialEq, R>(
    any: &AtomicBool,
    book: &Mutex<Book<E, R>>,
    event: E,
    key: usize,
) -> bool {
    if !any.load(Ordering::Acquire) {
        return false;
    }
    let mut b = lock(book, Rank::Waits);
    let Some(ctx) = b.waits.iter().find(|w| w.event == key).map(|w| w.ctx) else {
        return false;
    };
    if !b.deferred.iter().any(|(e, _)| *e == event) {
        b.deferred.push((event, ctx));
    }
    true
}

/// Remove the waits matching `pred` numbered below `ticket` (a
/// synchronisation that started when the ticket was taken has executed
/// them); returns the deferred events left without waits, which the caller
/// destroys (after the lock is released: it is released on return).
/// `key` gives a deferred event's address.
pub(crate) fn settle<E: Copy, R>(
    any: &AtomicBool,
    book: &Mutex<Book<E, R>>,
    ticket: u64,
    pred: impl Fn(&Wait<R>) -> bool,
    key: impl Fn(E) -> usize,
) -> Vec<E> {
    if !any.load(Ordering::Acquire) {
        return Vec::new();
    }
    let mut b = lock(book, Rank::Waits);
    let ignore_ticket = mutant("waits-settle-ignores-ticket");
    b.waits
        .retain(|w| !((ignore_ticket || w.seq < ticket) && pred(w)));
    let Book {
        waits, deferred, ..
    } = &mut *b;
    let mut ready = Vec::new();
    deferred.retain(|(e, _)| {
        let k = key(*e);
        if waits.iter().any(|w| w.event == k) {
            true
        } else {
            ready.push(*e);
            false
        }
    });
    ready
}

/// Whether the book holds waits or deferred events of context `ctx`.
pub(crate) fn has_ctx<E, R>(any: &AtomicBool, book: &Mutex<Book<E, R>>, ctx: usize) -> bool {
    if !any.load(Ordering::Acquire) {
        return false;
    }
    let b = lock(book, Rank::Waits);
    b.waits.iter().any(|w| w.ctx == ctx) || b.deferred.iter().any(|(_, c)| *c == ctx)
}

/// Empty the book (the runtime was finalised or re-initialised).
pub(crate) fn clear<E, R>(book: &Mutex<Book<E, R>>) {
    let mut b = lock(book, Rank::Waits);
    b.waits.clear();
    b.deferred.clear();
}
