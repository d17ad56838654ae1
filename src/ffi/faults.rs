//! The device faults the crate's synchronisations have seen, so that every
//! buffer whose work a fault may belong to learns it (issue 25).
//!
//! The runtime keeps a device fault of a task (an AI Core exception, a
//! fault injected into the simulator) on the task's stream and reports it
//! **once**, to the next `aclrtSynchronizeStream[WithTimeout]` of that stream
//! or `aclrtSynchronizeDevice[WithTimeout]` of its context; the report
//! clears it. `aclrtSynchronizeEvent` does not report it in the default
//! failure mode (the runtime's `ApiImpl::EventSynchronize` →
//! `Event::Synchronize` → `Stream::SynchronizeImpl` waits for the record
//! task and returns without reading the stream's error; only
//! `Stream::Synchronize` ends in `GetSynchronizeError`), and no query says
//! which task faulted. So a fault reaches whichever synchronisation of the
//! stream comes first — another thread's, a later batch's — and the work it
//! belongs to cannot be told apart from the other work that
//! synchronisation covered.
//!
//! Every synchronisation the crate makes goes through `super::synchronize_*`,
//! which enter each fault they see here, with the stream (or, for a device
//! synchronisation, the context) and the value of a clock that only moves
//! when a fault is entered. A buffer in a scope notes the clock when it is
//! parked, before any of its work is queued; a *checked* wait of it
//! ([`super::scope`]) fails with any fault entered later on a stream its
//! work may have run on (its lane, or every stream of its scope once lanes
//! waited for each other). A fault entered before the buffer was parked
//! cannot be its work's: that work was not queued yet. Conservative: a
//! fault of later work on the same stream, seen by the same
//! synchronisation, fails the buffer too; never the other way round.
//!
//! Each entry also says to whom the fault was reported (`told`): nobody
//! (only unchecked waits saw it), a caller outside any scope's waits (a
//! `Stream::synchronize`, a device synchronisation, a scope's end), or a
//! scope's checked wait. A scope's end reports the faults of its streams
//! (and of device synchronisations of its context) seen since it opened
//! that no checked wait of its own reported — also those another thread's
//! synchronisation took — so a scope is never `Ok` for its work that
//! faulted.
//!
//! Faults seen by runtime calls the crate does not make (a C library of the
//! user's on the same streams) are not here.
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
use crate::error::{Error, ErrorKind};

/// What a fault was seen on.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Key {
    /// A stream, by its synchronisation.
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

/// The latest fault seen on one key.
struct Seen {
    key: Key,
    /// The clock value its entry moved the clock to.
    at: u64,
    error: Error,
    /// To whom it was reported (see the module docs).
    told: Told,
}

/// To whom a fault in the log was reported.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Told {
    /// Nobody: only unchecked waits saw it.
    Nobody,
    /// The caller of a synchronisation outside a scope's waits.
    Caller,
    /// A checked wait (or a lane synchronisation) of the scope with this id.
    Scope(u64),
}

/// Moves (by one) only when a fault is entered: [`now`] is 0 until then,
/// so the checks cost one load while no fault was ever seen.
static CLOCK: AtomicU64 = AtomicU64::new(0);

/// One entry per key that ever faulted (the latest fault), until its
/// stream is destroyed ([`forget_stream`]) or the runtime is finalised
/// ([`clear`]).
static LOG: Mutex<Vec<Seen>> = Mutex::new(Vec::new());

/// The synchronisations in flight (`protocol::fault_watch`, model-checked
/// in `models/`): a checked wait waits for those of its keys before it
/// reads the log ([`quiesce`]), so a fault another thread's
/// synchronisation took from the runtime but has not entered yet is not
/// missed.
static WATCH: Watch<64> = Watch::new_static();

/// A synchronisation of `key` is about to call the runtime: [`end`] it
/// once the call returned and its fault (if any) was entered.
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
/// flight now has ended (and entered its fault). Two loads while none is
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

/// No synchronisation is in flight and no fault was entered after clock
/// value `since`: then nothing can fail a checked wait of a buffer parked
/// at `since` (three loads).
#[inline(always)]
pub(crate) fn quiet_since(since: u64) -> bool {
    WATCH.idle() && now() <= since
}

/// The clock: a buffer notes it before its first work is queued.
#[inline(always)]
pub(crate) fn now() -> u64 {
    CLOCK.load(Ordering::SeqCst)
}

/// A synchronisation of `key` failed with `error`: if it is a device fault
/// it is entered, as reported to the caller (the caller returns it; see
/// [`owe`]).
#[inline]
pub(crate) fn observed(key: Key, error: &Error) {
    if error.kind() == ErrorKind::DeviceFault {
        enter(key, error, Told::Caller);
    }
}

#[cold]
#[inline(never)]
fn enter(key: Key, error: &Error, told: Told) {
    let mut log = lock(&LOG, Rank::Faults);
    // Under the lock, so entries are made in clock order.
    let at = CLOCK.fetch_add(1, Ordering::SeqCst) + 1;
    match log.iter_mut().find(|s| s.key == key) {
        // A fault nobody was told of stays owed (the newer error is
        // reported in its place).
        Some(s) => {
            s.at = at;
            s.error = error.clone();
            if s.told != Told::Nobody {
                s.told = told;
            }
        }
        None => log.push(Seen {
            key,
            at,
            error: error.clone(),
            told,
        }),
    }
}

/// A synchronisation of `key` failed with `error`, a device fault of work
/// that finished, and the caller does not return it (an unchecked wait,
/// which gives a buffer back whatever its work did): it is entered (again,
/// if the synchronisation's wrapper did) as owed — a checked wait it may
/// concern reports it, or else a scope's end ([`unreported`]).
pub(crate) fn owe(key: Key, error: &Error) {
    if error.kind() != ErrorKind::DeviceFault {
        return;
    }
    enter(key, error, Told::Nobody);
    if let Some(s) = lock(&LOG, Rank::Faults).iter_mut().find(|s| s.key == key) {
        s.told = Told::Nobody;
    }
}

/// The synchronisation of `key` that a scope with id `scope` made (a
/// checked wait, a lane synchronisation) returned the device fault `error`
/// to that scope's body: the fault is entered (by the synchronisation's
/// wrapper) as told to that scope.
pub(crate) fn told_scope(key: Key, error: &Error, scope: u64) {
    if error.kind() != ErrorKind::DeviceFault {
        return;
    }
    if let Some(s) = lock(&LOG, Rank::Faults).iter_mut().find(|s| s.key == key) {
        s.told = Told::Scope(scope);
    }
}

/// The earliest fault entered after clock value `since` on a key that
/// `on` accepts, now reported to the scope with id `scope`; `None` if
/// there is none. One load when no fault was entered since.
#[inline]
pub(crate) fn since(since: u64, on: impl Fn(Key) -> bool, scope: u64) -> Option<Error> {
    if now() <= since {
        return None;
    }
    find(since, &on, scope, false)
}

/// As [`since`], only faults not reported to the scope with id `scope`
/// yet (by its checked waits): nobody's, or another caller's.
pub(crate) fn unreported(since: u64, on: impl Fn(Key) -> bool, scope: u64) -> Option<Error> {
    if now() <= since {
        return None;
    }
    find(since, &on, scope, true)
}

#[cold]
#[inline(never)]
fn find(since: u64, on: &dyn Fn(Key) -> bool, scope: u64, unreported: bool) -> Option<Error> {
    let mut log = lock(&LOG, Rank::Faults);
    let seen = log
        .iter_mut()
        .filter(|s| s.at > since && on(s.key) && !(unreported && s.told == Told::Scope(scope)))
        .min_by_key(|s| s.at)?;
    seen.told = Told::Scope(scope);
    Some(seen.error.clone())
}

/// `stream` was destroyed: a later stream with the same handle starts
/// clean (its buffers are parked after this, so an entry left would not
/// fail them either; this only bounds the log).
pub(crate) fn forget_stream(stream: Raw) {
    if now() == 0 {
        return;
    }
    let key = Key::stream(stream);
    lock(&LOG, Rank::Faults).retain(|s| s.key != key);
}

/// The runtime was finalised or re-initialised: no handle in the log is
/// valid any more. The clock keeps running.
pub(crate) fn clear() {
    if now() == 0 {
        return;
    }
    lock(&LOG, Rank::Faults).clear();
}
