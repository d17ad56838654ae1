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
    /// Records queued that no wait consumed yet: their lanes and the
    /// failure clock when each was queued.
    free: Vec<(L, u64)>,
    /// Waits a record matched, not yet known to have ended: the wait's
    /// lane, the record's lane and the failure clock when the record was
    /// queued. A record that fails on the device sets nothing, so its
    /// wait stays queued for ever: [`NotifyLedger::record_failed`] puts it
    /// back with the unmatched ones.
    matched: Vec<Matched<L>>,
    /// Waits and records entered (for the error's text).
    waits: usize,
    records: usize,
}

/// A wait a record matched ([`Entry::matched`]).
#[derive(Clone, Copy)]
struct Matched<L> {
    wait: L,
    record: L,
    clock: u64,
}

impl<N: Copy + PartialEq, L: Copy + PartialEq> NotifyLedger<N, L> {
    fn entry(&mut self, notify: N) -> &mut Entry<N, L> {
        let at = match self.entries.iter().position(|e| e.notify == notify) {
            Some(at) => at,
            None => {
                self.entries.push(Entry {
                    notify,
                    pending: Vec::new(),
                    free: Vec::new(),
                    matched: Vec::new(),
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
        if e.free.is_empty() {
            e.pending.push(lane);
        } else {
            let (record, clock) = e.free.remove(0);
            e.matched.push(Matched {
                wait: lane,
                record,
                clock,
            });
        }
    }

    /// A record of `notify` was queued on `lane` at failure clock `clock`.
    pub(crate) fn recorded_at(&mut self, notify: N, lane: L, clock: u64) {
        let e = self.entry(notify);
        e.records += 1;
        let own_lane_counts = mutant("notify-own-lane-matches");
        match e.pending.iter().position(|&w| own_lane_counts || w != lane) {
            Some(at) => {
                let wait = e.pending.remove(at);
                e.matched.push(Matched {
                    wait,
                    record: lane,
                    clock,
                });
            }
            None if mutant("notify-free-record-lost") => {}
            None => e.free.push((lane, clock)),
        }
    }

    /// Whether a record matched a wait not yet known to have ended.
    pub(crate) fn any_unconfirmed(&self) -> bool {
        self.entries.iter().any(|e| !e.matched.is_empty())
    }

    /// The records that matched waits queued on `lane` and are not known
    /// to have run: their lanes and clocks (none on `lane` itself).
    pub(crate) fn unconfirmed_on(&self, lane: L) -> Vec<(L, u64)> {
        self.entries
            .iter()
            .flat_map(|e| e.matched.iter())
            .filter(|m| m.wait == lane)
            .map(|m| (m.record, m.clock))
            .collect()
    }

    /// `lane` was synchronised: every wait queued on it ended.
    pub(crate) fn lane_idle(&mut self, lane: L) {
        for e in &mut self.entries {
            e.matched.retain(|m| m.wait != lane);
        }
    }

    /// The records queued on `lane` ran (it was synchronised with no
    /// failure since they were queued): the waits they matched end.
    pub(crate) fn record_ran(&mut self, lane: L) {
        for e in &mut self.entries {
            e.matched.retain(|m| m.record != lane);
        }
    }

    /// The lane `lane` failed after a record queued there at a clock
    /// before `failed_at`: the record may have set nothing, so the waits
    /// it matched are unmatched again (the scope refuses to synchronise
    /// their lanes and aborts at its end). Whether any was.
    pub(crate) fn record_failed(&mut self, lane: L, failed_at: u64) -> bool {
        if mutant("notify-failed-record-trusted") {
            return false;
        }
        let mut any = false;
        for e in &mut self.entries {
            let (failed, kept): (Vec<_>, Vec<_>) = e
                .matched
                .iter()
                .partition(|m| m.record == lane && m.clock < failed_at);
            e.matched = kept;
            for m in failed {
                e.pending.push(m.wait);
                any = true;
            }
        }
        any
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
