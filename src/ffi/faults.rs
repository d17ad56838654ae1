//! The failures the crate's synchronisations have seen: the record behind
//! the failure rule (SAFETY.md, "The failure rule").
//!
//! The runtime keeps a failure of a queued task (a device fault, an
//! op-wait or op-execute timeout of a wait task or a kernel, any code) on
//! the task's stream and reports it **once**, to the next
//! `aclrtSynchronizeStream[WithTimeout]` of that stream or
//! `aclrtSynchronizeDevice[WithTimeout]` of its context; the report clears
//! it, and `aclrtSynchronizeEvent` does not report it in the default
//! failure mode. Nothing says which task failed. So every synchronisation
//! and stream query the crate makes enters **whatever it returns other than
//! success** here, with the stream (or, for a device synchronisation, the
//! context) and the value of a clock that moves only when a failure is
//! entered; a host function of a scope that panics enters one too, before
//! its stream goes on. Scopes read the record (`super::scope`): a failure
//! on one of their keys after a point sticks to the scope.
//!
//! The synchronisations in flight are watched (`protocol::fault_watch`,
//! model-checked), so a checked wait does not read the record while
//! another thread's synchronisation holds a failure it took from the
//! runtime but has not entered yet.
//!
//! Failures seen by runtime calls the crate does not make (a C library of
//! the user's on the same streams) are not here.
//!
//! No `unsafe`; one lock, [`Rank::Faults`], the highest: nothing is taken,
//! called or dropped by user code while it is held.
#![deny(unsafe_code)]

use std::sync::Mutex;
use std::sync::atomic::{AtomicU64, Ordering};

use super::Raw;
use super::locks::{Rank, lock};
pub(crate) use super::protocol::fault_watch::Ticket;
use super::protocol::fault_watch::Watch;
use crate::error::Error;

/// What a failure was seen on.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Key {
    /// A stream, by its synchronisation or query (or a host function on it).
    Stream(usize),
    /// Some stream of a context, by a device synchronisation with the
    /// context current.
    Context(usize),
}

impl Key {
    /// The key as one non-zero word (handles are never null).
    fn word(self) -> usize {
        match self {
            Key::Stream(s) => s << 1,
            Key::Context(c) => (c << 1) | 1,
        }
    }

    /// The key of `stream`.
    pub(crate) fn stream(stream: Raw) -> Key {
        Key::Stream(stream.as_ptr() as usize)
    }

    /// The key of `ctx`.
    pub(crate) fn context(ctx: Raw) -> Key {
        Key::Context(ctx.as_ptr() as usize)
    }
}

/// Moves (by one) only when a failure is entered: [`now`] is 0 until then,
/// so the checks cost one load while nothing ever failed.
static CLOCK: AtomicU64 = AtomicU64::new(0);

/// One entry per key that ever failed (its latest failure and the clock
/// value its entry moved the clock to), until its stream is destroyed
/// ([`forget_stream`]) or the runtime is finalised ([`clear`]).
static LOG: Mutex<Vec<(Key, u64, Error)>> = Mutex::new(Vec::new());

/// The synchronisations in flight (see the module docs).
static WATCH: Watch<64> = Watch::new_static();

/// A synchronisation of `key` is about to call the runtime: [`end`] it
/// once the call returned and its failure (if any) was entered.
#[inline]
pub(crate) fn begin(key: Key) -> Ticket {
    WATCH.begin(key.word())
}

/// The synchronisation of `ticket` is over (see [`begin`]).
#[inline]
pub(crate) fn end(ticket: Ticket) {
    WATCH.end(ticket);
}

/// Wait until every synchronisation of a key `on` accepts that is in
/// flight now has ended (and entered its failure). Two loads while none is
/// in flight.
#[inline]
pub(crate) fn quiesce(on: impl Fn(Key) -> bool) {
    WATCH.quiesce(|word| {
        let handle = word >> 1;
        on(if word & 1 == 0 {
            Key::Stream(handle)
        } else {
            Key::Context(handle)
        })
    });
}

/// No synchronisation is in flight and nothing was entered after clock
/// value `since` (three loads).
#[inline(always)]
pub(crate) fn quiet_since(since: u64) -> bool {
    WATCH.idle() && now() <= since
}

/// The clock.
#[inline(always)]
pub(crate) fn now() -> u64 {
    CLOCK.load(Ordering::SeqCst)
}

/// A synchronisation, query or host function of `key` failed with
/// `error`, whatever its code: entered.
#[cold]
#[inline(never)]
pub(crate) fn enter(key: Key, error: &Error) {
    let mut log = lock(&LOG, Rank::Faults);
    // Under the lock, so entries are made in clock order.
    let at = CLOCK.fetch_add(1, Ordering::SeqCst) + 1;
    match log.iter_mut().find(|s| s.0 == key) {
        Some(s) => *s = (key, at, error.clone()),
        None => log.push((key, at, error.clone())),
    }
}

/// The earliest failure entered after clock value `since` on a key that
/// `on` accepts, and when; `None` if there is none. One load when nothing
/// was entered since.
#[inline]
pub(crate) fn since(since: u64, on: impl Fn(Key) -> bool) -> Option<(u64, Error)> {
    if now() <= since {
        return None;
    }
    let log = lock(&LOG, Rank::Faults);
    let seen = log
        .iter()
        .filter(|s| s.1 > since && on(s.0))
        .min_by_key(|s| s.1)?;
    Some((seen.1, seen.2.clone()))
}

/// `stream` was destroyed: a later stream with the same handle starts
/// clean (scopes that used it have ended: it was borrowed by them).
pub(crate) fn forget_stream(stream: Raw) {
    if now() == 0 {
        return;
    }
    let key = Key::stream(stream);
    lock(&LOG, Rank::Faults).retain(|s| s.0 != key);
}

/// The runtime was finalised or re-initialised: no handle in the log is
/// valid any more. The clock keeps running.
pub(crate) fn clear() {
    if now() == 0 {
        return;
    }
    lock(&LOG, Rank::Faults).clear();
}
