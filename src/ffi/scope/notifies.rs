//! Notifies as a hand-off between a scope's lanes (`aclrtRecordNotify`,
//! `aclrtWaitAndResetNotify` queued on lanes), under the failure rule.
//!
//! A notify wait, unlike an event wait, may be queued before the record
//! that ends it. If the lane that was to record fails first (the body
//! returns an error or panics before queueing the record, the record call
//! fails, or the record is queued on the waiting lane itself, behind the
//! wait), no task will ever end the wait, and a synchronisation of the
//! waiting lane would never return. The runtime offers no way to release a
//! queued notify wait but a record (which would also let the lane's later
//! work run as if the hand-off had happened) or an abort of the waiting
//! stream (acl-facts K.8). The scope takes the second, the escalation its
//! deadline takes for events:
//!
//! * every record and every wait without a time limit the scope queues is
//!   entered in its [`NotifyLedger`], after the C call succeeded. A record
//!   on lane `L` matches the oldest wait still unmatched on another lane;
//!   otherwise it stays free and matches the next wait queued on any lane
//!   (a record queued before a wait sets the notify in time). Waits with a
//!   time limit end by themselves and are not entered;
//! * a synchronisation the scope makes of a lane with an unmatched wait
//!   (a checked wait, `Lane::synchronize`, the recovery point) is refused
//!   with [`Error::NotifyNotRecorded`] before any C call: it could only
//!   hang;
//! * the scope's end (and its recovery point) with an unmatched wait aborts
//!   every stream of the scope and of the scopes sharing them (the
//!   escalation, `book::escalate`) before it synchronises any, and reports
//!   [`Error::NotifyNotRecorded`].
//!
//! The notify is held exclusively by the scope while it is open
//! (`crate::Scope::notify` borrows it `&mut`), and one that was imported or
//! exported is refused there: no record or wait outside the scope's ledger
//! can set or consume it meanwhile. The scope is driven by one thread (its
//! core is neither `Send` nor `Sync`), so the ledger needs no lock.
//!
//! Records the ledger matched may still coalesce on the device: a notify
//! is one flag, so two records that both run before a wait consumes the
//! first set it once, and the second wait then waits for a record that
//! already ran. That is the program's own deadlock, not a failure; a
//! scope with a deadline (`Context::scope_with_timeout`) ends it by the
//! same escalation. Bookkeeping with no `unsafe`.
#![deny(unsafe_code)]

use super::super::Raw;
use super::CoreBook;
use super::book::escalate;
use crate::error::{Error, Result};

/// The notify records and waits a scope queued, matched (see the module
/// docs).
#[derive(Default)]
pub(super) struct NotifyLedger {
    entries: Vec<Entry>,
}

struct Entry {
    notify: Raw,
    /// The lanes of the waits no record matched yet, oldest first.
    pending: Vec<Raw>,
    /// Records queued that no wait consumed yet.
    free: usize,
    /// Waits and records entered (for the error's text).
    waits: usize,
    records: usize,
}

impl NotifyLedger {
    fn entry(&mut self, notify: Raw) -> &mut Entry {
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
    pub(super) fn waited(&mut self, notify: Raw, lane: Raw) {
        let e = self.entry(notify);
        e.waits += 1;
        if e.free > 0 {
            e.free -= 1;
        } else {
            e.pending.push(lane);
        }
    }

    /// A record of `notify` was queued on `lane`: it matches the oldest
    /// unmatched wait of another lane (one of its own lane is queued
    /// before it, so it cannot end it), or stays free for the next wait.
    pub(super) fn recorded(&mut self, notify: Raw, lane: Raw) {
        let e = self.entry(notify);
        e.records += 1;
        match e.pending.iter().position(|&w| w != lane) {
            Some(at) => {
                e.pending.remove(at);
            }
            None => e.free += 1,
        }
    }

    /// Whether a wait queued on `lane` is unmatched.
    pub(super) fn pending_on(&self, lane: Raw) -> bool {
        self.entries.iter().any(|e| e.pending.contains(&lane))
    }

    /// The error for the first notify with an unmatched wait, if any.
    pub(super) fn unmatched(&self) -> Option<Error> {
        self.entries
            .iter()
            .find(|e| !e.pending.is_empty())
            .map(|e| Error::NotifyNotRecorded {
                waits: e.waits,
                records: e.records,
            })
    }

    /// An escalation aborted every stream of the scope: every queued
    /// record and wait was discarded or has run.
    pub(super) fn clear(&mut self) {
        self.entries.clear();
    }
}

impl CoreBook {
    /// [`Error::NotifyNotRecorded`] if a wait queued on one of `streams`
    /// is unmatched: synchronising that stream could only hang. One
    /// borrow of the book while the scope has none.
    #[inline(always)]
    pub(super) fn refuse_unmatched(&self, streams: &[Raw]) -> Result<()> {
        let book = self.inner.borrow();
        match book.0.as_ref() {
            Some(b) if streams.iter().any(|&s| b.notifies.pending_on(s)) => {
                Err(b.notifies.unmatched().unwrap_or(Error::NotifyNotRecorded {
                    waits: 0,
                    records: 0,
                }))
            }
            _ => Ok(()),
        }
    }

    /// At the scope's end or its recovery point, when no record can come
    /// any more from this thread without one: if a wait is unmatched,
    /// abort every stream of the scope (the escalation), forget the
    /// ledger and return the error to report.
    pub(super) fn abort_unmatched(&self) -> Option<Error> {
        let err = self.inner.borrow().0.as_ref()?.notifies.unmatched()?;
        self.promote();
        let _ = escalate(self.id);
        if let Some(b) = self.inner.borrow_mut().0.as_mut() {
            b.notifies.clear();
        }
        Some(err)
    }
}
