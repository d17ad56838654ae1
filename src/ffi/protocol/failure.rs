//! The protocol core of the failure rule (SAFETY.md, "The failure rule"):
//! the record of failures, what sticks to a scope, and which streams a
//! give-back makes idle. `ffi::faults` and `ffi::scope` use it; the model
//! (`models/src/failure_model.rs`) runs it with its mutants.
//!
//! 1. **A failure is anything but success** that a synchronisation, query
//!    or wait of the crate returns for queued work — [`Log::enter`] takes
//!    every code — and every panic of a scope's host function
//!    ([`host_fn_panic_is_failure`]).
//! 2. **It sticks to the scope** ([`Sticky`]): every later checked wait of
//!    the scope fails, whoever saw it first (the record is shared by every
//!    thread, and a checked wait first waits for the synchronisations of its
//!    streams in flight: `fault_watch`), until the scope's recovery point
//!    ([`Sticky::recover`]); a buffer whose contents' work began before a
//!    failure keeps failing after it.
//! 3. **Nothing comes back on the strength of an event or a hand-off**:
//!    once buffers crossed lanes, a give-back makes every lane idle
//!    ([`give_back_set`], [`event_may_give_back`]); a failed wait task
//!    orders nothing.
#![deny(unsafe_code)]

use super::sync::{AtomicU64, Mutex, Ordering, Rank, lock, mutant};

/// The failures seen, one entry per key (a stream's handle): its latest
/// failure and the clock value its entry moved the clock to.
pub(crate) struct Log<E> {
    /// Moves (by one) only when a failure is entered.
    clock: AtomicU64,
    entries: Mutex<Vec<(usize, u64, E)>>,
}

impl<E: Clone> Log<E> {
    /// An empty log, for a `static`.
    #[cfg(not(any(loom, shuttle)))]
    pub(crate) const fn new_static() -> Self {
        Log {
            clock: AtomicU64::new(0),
            entries: Mutex::new(Vec::new()),
        }
    }

    /// An empty log.
    #[cfg(any(loom, shuttle))]
    pub(crate) fn new() -> Self {
        Log {
            clock: AtomicU64::new(0),
            entries: Mutex::new(Vec::new()),
        }
    }

    /// The clock.
    #[inline(always)]
    pub(crate) fn now(&self) -> u64 {
        self.clock.load(Ordering::SeqCst)
    }

    /// A failure of key `key`, whatever its code. `listed`: whether the
    /// code is one an older rule classified as a device fault (only the
    /// mutant looks at it).
    pub(crate) fn enter(&self, key: usize, error: &E, listed: bool) {
        if mutant("failure-listed-codes-only") && !listed {
            return;
        }
        let mut entries = lock(&self.entries, Rank::Faults);
        // Under the lock, so entries are made in clock order.
        let at = self.clock.fetch_add(1, Ordering::SeqCst) + 1;
        match entries.iter_mut().find(|e| e.0 == key) {
            Some(e) => *e = (key, at, error.clone()),
            None => entries.push((key, at, error.clone())),
        }
    }

    /// The earliest failure entered after clock value `since` on a key
    /// `on` accepts, and when. One load when nothing was entered since.
    pub(crate) fn since(&self, since: u64, on: impl Fn(usize) -> bool) -> Option<(u64, E)> {
        if self.now() <= since {
            return None;
        }
        let entries = lock(&self.entries, Rank::Faults);
        let e = entries
            .iter()
            .filter(|e| e.1 > since && on(e.0))
            .min_by_key(|e| e.1)?;
        Some((e.1, e.2.clone()))
    }

    /// Forget the entries of the keys `gone` accepts.
    pub(crate) fn forget(&self, gone: impl Fn(usize) -> bool) {
        if self.now() == 0 {
            return;
        }
        lock(&self.entries, Rank::Faults).retain(|e| !gone(e.0));
    }
}

/// What sticks to one scope: the clock when it opened or last recovered,
/// and the failure that every checked wait returns until it recovers.
pub(crate) struct Sticky<E> {
    base: u64,
    failure: Option<E>,
}

impl<E: Clone> Sticky<E> {
    /// A scope opened when the log's clock read `now`.
    pub(crate) fn new(now: u64) -> Self {
        Sticky {
            base: now,
            failure: None,
        }
    }

    /// Whether nothing can fail a checked wait of contents whose work began
    /// at `since` (no sticky failure, nothing entered since): one load.
    #[inline(always)]
    pub(crate) fn quiet(&self, log: &Log<E>, since: u64) -> bool {
        self.failure.is_none() && log.now() <= since.min(self.base)
    }

    /// The failure a checked wait reports for contents whose work began at
    /// clock value `since`, the scope's streams being those `mine`
    /// accepts: the sticky one, or the earliest entered after `since` or
    /// the base (whichever is earlier), which then sticks if it came after
    /// the base (one the scope recovered from fails only older contents).
    pub(crate) fn check(
        &mut self,
        log: &Log<E>,
        since: u64,
        mine: impl Fn(usize) -> bool,
    ) -> Option<E> {
        if let Some(e) = &self.failure {
            return Some(e.clone());
        }
        let (at, found) = log.since(since.min(self.base), mine)?;
        if at > self.base {
            self.failure = Some(found.clone());
        }
        Some(found)
    }

    /// The recovery point, once every stream of the scope is idle: the
    /// failure that stuck (or was entered since the base), which no longer
    /// sticks; the base moves to now.
    pub(crate) fn recover(&mut self, log: &Log<E>, mine: impl Fn(usize) -> bool) -> Option<E> {
        let now = log.now();
        let failure = self.check(log, u64::MAX, mine);
        self.base = now.max(self.base);
        self.failure = None;
        failure
    }
}

/// The streams a give-back of a buffer of stream `own` must make idle:
/// `own`, or every stream of the scope (`all`) once buffers crossed lanes.
pub(crate) fn give_back_set<S: Copy + PartialEq>(own: S, crossed: bool, all: &[S]) -> Vec<S> {
    if crossed && !mutant("failure-skip-source-lane") {
        let mut set = vec![own];
        set.extend(all.iter().copied().filter(|&s| s != own));
        set
    } else {
        vec![own]
    }
}

/// Whether a fence's event may give its buffer back (`aclrtSynchronizeEvent`
/// only): not once buffers crossed lanes, where a failed wait task orders
/// nothing ([`give_back_set`] instead).
#[inline(always)]
pub(crate) fn event_may_give_back(crossed: bool) -> bool {
    !crossed || mutant("failure-trust-hand-off")
}

/// Whether a panic of a scope's host function is entered as a failure of
/// its stream (always; the mutant ignores it).
#[inline(always)]
pub(crate) fn host_fn_panic_is_failure() -> bool {
    !mutant("failure-ignore-host-fn-panic")
}
