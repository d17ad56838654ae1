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

use core::cell::{Cell, RefCell};

use std::time::Instant;

use super::super::faults;
use super::super::protocol::notify_ledger as ledger;
use super::super::{Raw, stream_is_complete, synchronize_stream, synchronize_stream_timeout};
use super::CoreBook;
use super::book::escalate;
use crate::error::{Error, Result};

/// The notify records and waits a scope queued, matched
/// (`protocol::notify_ledger`).
pub(super) type NotifyLedger = ledger::NotifyLedger<Raw, Raw>;

/// How long one bounded synchronisation of a lane lasts, in
/// [`CoreBook::confirm_matched`], before the scope looks at the lanes
/// whose records its waits need.
const SLICE_MS: i32 = 50;

fn not_recorded((waits, records): (usize, usize)) -> Error {
    Error::NotifyNotRecorded { waits, records }
}

/// An unmatched notify wait of a scope open on this thread: the scope's
/// id, the waiting stream, the notify's `(waits, records)`.
type PendingWait = (u64, Raw, (usize, usize));

std::thread_local! {
    /// The streams where a scope open on this thread queued a notify wait
    /// no record of it matched yet (scope id, stream, the notify's
    /// `(waits, records)`): only this thread can queue the record, so a
    /// synchronisation of one of them made on this thread (a nested
    /// scope's, the stream's own, the context's) could only hang.
    static PENDING: RefCell<Vec<PendingWait>> = const { RefCell::new(Vec::new()) };
    /// Whether `PENDING` holds anything: the check on every blocking
    /// synchronisation is one thread-local load.
    static ANY_PENDING: Cell<bool> = const { Cell::new(false) };
}

/// Whether this thread can keep the list of its unmatched notify waits:
/// not once its thread-locals are destroyed (a thread-local destructor
/// runs later), when a wait could no longer be guarded and is refused.
pub(crate) fn can_guard_waits() -> bool {
    PENDING.try_with(|_| ()).is_ok()
}

/// [`Error::NotifyNotRecorded`] for a blocking synchronisation of `stream`
/// on this thread while a scope open on it waits there for a notify that
/// no record matched yet: the synchronisation could only hang.
#[inline(always)]
pub(crate) fn refuse_pending_notify(stream: Raw) -> Result<()> {
    if ANY_PENDING.try_with(Cell::get).unwrap_or(false) {
        return refuse_pending_slow(stream);
    }
    Ok(())
}

#[cold]
#[inline(never)]
fn refuse_pending_slow(stream: Raw) -> Result<()> {
    let found = PENDING
        .try_with(|p| {
            p.borrow()
                .iter()
                .find(|&&(_, s, _)| s == stream)
                .map(|&(_, _, n)| n)
        })
        .ok()
        .flatten();
    found.map_or(Ok(()), |n| Err(not_recorded(n)))
}

impl CoreBook {
    /// [`Error::NotifyNotRecorded`] if a wait queued on one of `streams`
    /// is unmatched: synchronising that stream could only hang. One
    /// borrow of the book while the scope has none.
    #[inline(always)]
    pub(super) fn refuse_unmatched(&self, streams: &[Raw]) -> Result<()> {
        if self.any_unconfirmed() {
            self.confirm_matched(streams, None);
        }
        let book = self.inner.borrow();
        match book.0.as_ref() {
            Some(b) if streams.iter().any(|&s| b.notifies.pending_on(s)) => {
                Err(not_recorded(b.notifies.unmatched().unwrap_or((0, 0))))
            }
            _ => Ok(()),
        }
    }

    /// Whether a wait of the scope was matched by a record not yet known
    /// to have run.
    #[inline(always)]
    pub(super) fn any_unconfirmed(&self) -> bool {
        matches!(self.inner.borrow().0.as_ref(), Some(b) if b.notifies.any_unconfirmed())
    }

    /// Before the scope synchronises `streams` without a limit: for each
    /// one with a wait that a record of another lane matched, learn
    /// whether that record ran. The lane is synchronised in slices of
    /// [`SLICE_MS`]; between them, each recording lane that is idle is
    /// synchronised (at once) and its failures since the record read from
    /// the record of failures (after the synchronisations in flight on
    /// other threads). A record on a lane that failed after it was queued
    /// may have set nothing (a failed task does nothing): its wait could
    /// hang, so it goes back to the unmatched ones, which the callers
    /// refuse to synchronise and the scope's end aborts. A record on a
    /// lane idle without a failure ran: its wait ends. Stops at
    /// `deadline` (the end's own bound then decides).
    #[cold]
    #[inline(never)]
    pub(super) fn confirm_matched(&self, streams: &[Raw], deadline: Option<Instant>) {
        for &lane in streams {
            loop {
                let records = match self.inner.borrow().0.as_ref() {
                    Some(b) if !b.notifies.pending_on(lane) => b.notifies.unconfirmed_on(lane),
                    _ => Vec::new(),
                };
                if records.is_empty() || deadline.is_some_and(|d| Instant::now() >= d) {
                    break;
                }
                match synchronize_stream_timeout(lane, SLICE_MS) {
                    Ok(()) => {
                        self.book().notifies.lane_idle(lane);
                        break;
                    }
                    Err(e) if e.is_timeout() => {}
                    // A failure of the lane itself: entered; its callers'
                    // synchronisation reports it.
                    Err(_) => break,
                }
                for (k, clock) in records {
                    if !matches!(stream_is_complete(k), Ok(true)) {
                        continue;
                    }
                    if let Err(Error::NotifyNotRecorded { .. }) = synchronize_stream(k) {
                        continue;
                    }
                    faults::quiesce(|key| key == faults::key(k));
                    let failed = faults::log().since(clock, |key| key == faults::key(k));
                    let mut book = self.book();
                    match failed {
                        Some((at, _)) => {
                            book.notifies.record_failed(k, at);
                        }
                        None => book.notifies.record_ran(k),
                    }
                }
                self.publish_pending();
            }
        }
    }

    /// At the scope's end or its recovery point, when no record can come
    /// any more from this thread without one: if a wait is unmatched,
    /// abort every stream of the scope (the escalation), forget the
    /// ledger and return the error to report.
    pub(super) fn abort_unmatched(&self) -> Option<Error> {
        let err = not_recorded(self.inner.borrow().0.as_ref()?.notifies.unmatched()?);
        self.promote();
        let _ = escalate(self.id);
        if let Some(b) = self.inner.borrow_mut().0.as_mut() {
            b.notifies.clear();
        }
        self.publish_pending();
        Some(err)
    }

    /// Publish this scope's unmatched notify waits to the thread's
    /// `PENDING` (after every change of the ledger), so that a blocking
    /// synchronisation of their streams on this thread is refused.
    pub(super) fn publish_pending(&self) {
        let id = self.id;
        let book = self.inner.borrow();
        let _ = PENDING.try_with(|p| {
            let mut p = p.borrow_mut();
            p.retain(|&(s, _, _)| s != id);
            if let Some(b) = book.0.as_ref() {
                p.extend(b.notifies.pending().map(|(l, n)| (id, l, n)));
            }
            let _ = ANY_PENDING.try_with(|a| a.set(!p.is_empty()));
        });
    }
}
