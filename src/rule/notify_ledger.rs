//! The protocol core of notifies as a scope's hand-off
//! (`scope::notifies`): the ledger that matches the notify records a
//! scope queued with its waits, so that the scope's end knows, before it
//! synchronises anything, whether a wait is queued that no record of the
//! scope can end (then it aborts the scope's streams instead of hanging).
//!
//! The ledger itself is the scope's, driven by the scope's one thread; the
//! concurrency is the runtime's: the streams execute the queued records
//! and waits while the body queues more and the end decides. The model
//! (`models/src/notify_model.rs`) runs this file against streams that
//! execute, and on abort discard, their tasks.
//!
//! Matching, per notify: a record queued on lane `L` ends the oldest
//! unmatched wait queued on another lane (a wait queued on `L` itself is
//! ahead of the record in `L`'s queue: the record can only run after it);
//! with none, it stays free, and the next wait queued (on any lane, after
//! it in the program) consumes it: the record is queued before that wait,
//! so it sets the notify in time. Only waits and records whose C call
//! succeeded are entered; waits with a time limit end by themselves and
//! are not. No unsafe, no FFI, no lock.
#![deny(unsafe_code)]

use super::sync::mutant;

/// The records and waits queued on notifies `N` by lanes `L`.
pub(crate) struct NotifyLedger<N, L> {
    entries: Vec<Entry<N, L>>,
}

impl<N, L> Default for NotifyLedger<N, L> {
    fn default() -> Self {
        NotifyLedger {
            entries: Vec::new(),
        }
    }
}

struct Entry<N, L> {
    notify: N,
    /// The lanes of the waits no record matched yet, oldest first.
    pending: Vec<L>,
    /// Records queued that no wait consumed yet.
    free: usize,
    /// Waits and records entered (for the error's text).
    waits: usize,
    records: usize,
}

impl<N: Copy + PartialEq, L: Copy + PartialEq> NotifyLedger<N, L> {
    fn entry(&mut self, notify: N) -> &mut Entry<N, L> {
        let at = match self.entries.iter().position(|e| e.notify == notify) {
            Some(at) => at,
            None => {
                self.entries.push(Entry {
                    notify,
                    pending: Vec::new(),
                    free: 0,
                    waits: 0,
                    records: 0,
                });
                self.entries.len() - 1
            }
        };
        &mut self.entries[at]
    }

    /// A wait without a time limit on `notify` was queued on `lane`.
    pub(crate) fn waited(&mut self, notify: N, lane: L) {
        let e = self.entry(notify);
        e.waits += 1;
        if e.free > 0 {
            e.free -= 1;
        } else {
            e.pending.push(lane);
        }
    }

    /// A record of `notify` was queued on `lane`.
    pub(crate) fn recorded(&mut self, notify: N, lane: L) {
        let e = self.entry(notify);
        e.records += 1;
        let own_lane_counts = mutant("notify-own-lane-matches");
        match e.pending.iter().position(|&w| own_lane_counts || w != lane) {
            Some(at) => {
                e.pending.remove(at);
            }
            None if mutant("notify-free-record-lost") => {}
            None => e.free += 1,
        }
    }

    /// Whether a wait queued on `lane` is unmatched.
    pub(crate) fn pending_on(&self, lane: L) -> bool {
        self.entries.iter().any(|e| e.pending.contains(&lane))
    }

    /// The lanes of the unmatched waits, each with its notify's
    /// `(waits, records)`.
    pub(crate) fn pending(&self) -> impl Iterator<Item = (L, (usize, usize))> + '_ {
        self.entries
            .iter()
            .flat_map(|e| e.pending.iter().map(move |&l| (l, (e.waits, e.records))))
    }

    /// `(waits, records)` of the first notify with an unmatched wait.
    pub(crate) fn unmatched(&self) -> Option<(usize, usize)> {
        self.entries
            .iter()
            .find(|e| !e.pending.is_empty())
            .map(|e| (e.waits, e.records))
    }

    /// Every queued record and wait was discarded (an abort of every
    /// stream of the scope) or has run.
    pub(crate) fn clear(&mut self) {
        self.entries.clear();
    }
}
