//! The scope's book under the failure rule, and its escalation: what a
//! [`CoreBook`] records (streams, settled lanes, fences, what sticks to
//! the scope) and how a scope makes its streams idle. Bookkeeping beside
//! the basement: no `unsafe` here.
#![deny(unsafe_code)]

use core::sync::atomic::Ordering;
use std::time::Instant;

use super::super::Raw;
use super::super::faults::{self, Key};
use super::super::protocol::failure::give_back_set;
use super::lane::make_idle;
use super::{Book, CoreBook, open};
use crate::error::{Error, Escalation, Result};

impl CoreBook {
    /// The scope needs the registry (a second stream, a user event or a
    /// host function, or its own escalation): if it is in its thread's
    /// slot, it moves there.
    #[inline]
    pub(super) fn promote(&self) {
        if self.slotted.swap(false, Ordering::Relaxed) {
            // A slotted scope has enlisted its first stream.
            if let Some(stream) = Raw::new(self.first.load(Ordering::Relaxed)) {
                open::promote(self.id, stream, self.ctx);
            }
        }
    }

    /// A buffer's contents may come from work on another lane.
    #[inline]
    pub(super) fn cross(&self) {
        self.crossed.store(true, Ordering::Relaxed);
    }

    /// Whether [`cross`](Self::cross) was called.
    #[inline]
    pub(super) fn crossed(&self) -> bool {
        self.crossed.load(Ordering::Relaxed)
    }

    /// The enlisted streams.
    pub(super) fn streams(&self) -> Vec<Raw> {
        let first = Raw::new(self.first.load(Ordering::Relaxed));
        let book = self.inner.borrow();
        let rest = book
            .0
            .iter()
            .flat_map(|b| b.streams.iter().map(|e| e.stream));
        first.into_iter().chain(rest).collect()
    }

    /// The failure a checked wait of a buffer on lane `own` whose contents'
    /// work began at clock value `since` reports ([`Sticky::check`]): the
    /// scope's sticky failure, or one entered since on one of the scope's
    /// streams, by any synchronisation of any thread. A few loads while
    /// nothing failed since and no synchronisation is in flight.
    #[inline(always)]
    pub(super) fn failure(&self, since: u64, own: Option<Raw>) -> Option<Error> {
        if faults::watch_idle() && self.inner.borrow().1.quiet(faults::log(), since) {
            return None;
        }
        self.failure_on(since, &self.streams(), own)
    }

    /// [`failure`](Self::failure) on `streams` (the scope's: at its end,
    /// taken before `finish` empties the book). Synchronisations in flight
    /// on other threads are waited for on the streams the buffer's contents
    /// may come from: `own`, or every stream of the scope once buffers
    /// crossed lanes (or with no `own`: the scope's end). A failure of
    /// another lane that such a synchronisation holds is not waited for
    /// here: the scope's end reports it.
    #[cold]
    #[inline(never)]
    pub(super) fn failure_on(
        &self,
        since: u64,
        streams: &[Raw],
        own: Option<Raw>,
    ) -> Option<Error> {
        let mine = |k: usize| streams.iter().any(|&s| k == Key::stream(s).0);
        // First the synchronisations in flight on other threads: one may
        // have taken a failure it has not entered yet.
        match own {
            Some(own) if !self.crossed() => faults::quiesce(|k| k == Key::stream(own)),
            _ => faults::quiesce(|k| mine(k.0)),
        }
        self.inner.borrow_mut().1.check(faults::log(), since, mine)
    }

    /// The scope's result at its end: `result`, or the failure that sticks
    /// to the scope (on `streams`, its streams) if `result` is `Ok`.
    #[inline]
    pub(super) fn end_failure<T, E: From<Error>>(
        &self,
        result: core::result::Result<T, E>,
        streams: impl FnOnce() -> Vec<Raw>,
    ) -> core::result::Result<T, E> {
        if faults::watch_idle() && self.inner.borrow().1.quiet(faults::log(), u64::MAX) {
            return result;
        }
        match self.failure_on(u64::MAX, &streams(), None) {
            Some(e) => result.and_then(|_| Err(e.into())),
            None => result,
        }
    }

    /// Buffers crossed lanes: synchronise the streams of the scope other
    /// than `own` too (their failures are entered in `faults` by the
    /// wrapper); the first error is returned once all were synchronised.
    #[cold]
    #[inline(never)]
    pub(super) fn sync_other_lanes(&self, own: Raw) -> Result<()> {
        let mut first = None;
        for stream in self.streams() {
            if stream == own {
                continue;
            }
            match super::super::synchronize_stream(stream) {
                Ok(()) => self.settle(stream),
                Err(e) => {
                    first.get_or_insert(e);
                }
            }
        }
        first.map_or(Ok(()), Err)
    }

    /// The one give-back primitive after which an unchecked path
    /// (`reuse`, a fence's `reuse` once buffers crossed lanes) hands memory
    /// back: every stream that could still touch a buffer of lane `own` is
    /// idle. That is `own` — or every stream of the scope once buffers
    /// crossed lanes, because an event or a hand-off orders nothing when
    /// the wait task behind it failed — each synchronised, or, where the
    /// synchronisation fails (any code; it sticks to the scope), queried
    /// idle. `WorkAborted` if an escalation aborted the scope.
    pub(super) fn idle_for_give_back(&self, own: Raw) -> Result<()> {
        for stream in give_back_set(own, self.crossed(), &self.streams()) {
            make_idle(stream)?;
            self.settle(stream);
        }
        if self.aborted() {
            return Err(Error::WorkAborted);
        }
        Ok(())
    }

    /// Whether an escalation aborted (some of) the scope's work.
    #[inline]
    pub(super) fn aborted(&self) -> bool {
        if self.slotted.load(Ordering::Relaxed) {
            open::slot_aborted()
        } else {
            open::aborted(self.id)
        }
    }

    /// The scope, which enlisted a stream, leaves the registry (or its
    /// slot); returns whether an escalation aborted it.
    #[inline(always)]
    pub(super) fn leave(&self, streams: usize) -> bool {
        if self.slotted.swap(false, Ordering::Relaxed) {
            open::leave_slot()
        } else {
            open::deregister(self.id, streams)
        }
    }

    /// The book, made on first use.
    pub(super) fn book(&self) -> core::cell::RefMut<'_, Book> {
        core::cell::RefMut::map(self.inner.borrow_mut(), |b| {
            &mut **b.0.get_or_insert_with(Box::default)
        })
    }

    /// Work of this scope may be queued on `stream` from now on. On every
    /// queueing path: one relaxed load unless a lane was synchronised.
    #[inline(always)]
    pub(super) fn unsettle(&self, stream: Raw) {
        if self.any_settled.load(Ordering::Relaxed) {
            self.unsettle_slow(stream);
        }
    }

    #[cold]
    #[inline(never)]
    pub(super) fn unsettle_slow(&self, stream: Raw) {
        if self.first.load(Ordering::Relaxed) == stream.as_ptr() {
            self.first_settled.store(false, Ordering::Relaxed);
        } else {
            if let Some(book) = self.inner.borrow_mut().0.as_mut() {
                book.unsettle(stream);
            }
        }
    }

    /// A synchronisation of `stream` by this scope succeeded (see
    /// `Book::settle`).
    #[inline]
    pub(super) fn settle(&self, stream: Raw) {
        self.any_settled.store(true, Ordering::Relaxed);
        // The scope's thread was blocked in the synchronisation: no fence
        // was recorded while it ran.
        let fences = self.fences.load(Ordering::Relaxed);
        if self.first.load(Ordering::Relaxed) == stream.as_ptr() {
            // A stream is enlisted once: it is not in the book too.
            self.first_settled.store(true, Ordering::Relaxed);
            self.first_synced.store(fences, Ordering::Relaxed);
        } else {
            if let Some(book) = self.inner.borrow_mut().0.as_mut() {
                book.settle(stream, fences);
            }
        }
    }

    /// A fence was recorded: its ticket.
    #[inline]
    pub(super) fn fence_ticket(&self) -> u64 {
        self.fences.fetch_add(1, Ordering::Relaxed) + 1
    }

    /// Whether a synchronisation of `stream` by this scope that succeeded
    /// began after the fence with `ticket` was recorded (so the record, and
    /// the work before it, finished).
    pub(super) fn synced_after(&self, stream: Raw, ticket: u64) -> bool {
        let synced = if self.first.load(Ordering::Relaxed) == stream.as_ptr() {
            self.first_synced.load(Ordering::Relaxed)
        } else {
            let book = self.inner.borrow();
            let entry = book.0.iter().flat_map(|b| b.streams.iter());
            entry
                .filter(|e| e.stream == stream)
                .map(|e| e.synced)
                .max()
                .unwrap_or(0)
        };
        synced >= ticket
    }
}

/// Whether an error says the runtime no longer knows the stream (its
/// context or the whole runtime was torn down, e.g. by `sim::reset`): then
/// no task of it can run any more.
pub(super) fn stream_is_gone(e: &Error) -> bool {
    use crate::ErrorKind as K;
    matches!(e.kind(), K::InvalidHandle | K::NoContext | K::Lifecycle)
}

/// The error of an operand bound to `buffer`'s stream used on the lane of
/// stream `lane`.
#[cold]
#[inline(never)]
pub(super) fn wrong_lane(lane: Raw, buffer: Raw) -> Error {
    Error::WrongLane {
        lane: lane.as_ptr() as usize,
        buffer: buffer.as_ptr() as usize,
    }
}

/// Make every stream of scope `id` idle without waiting for its work — and
/// every stream of every other open scope that shares one of them, since
/// work there may wait on what the abort discards: abort them all, and
/// synchronise without a limit those whose abort failed. The scopes
/// concerned learn it ([`open::aborted`]); the user events recorded in them
/// (and not destroyed since) are recorded again on their now idle streams,
/// so that no later wait on them hangs. Aborts the process only when a stream can neither be aborted
/// nor synchronised and still exists.
pub(super) fn escalate(id: u64) -> Escalation {
    let open::AbortGroup {
        streams,
        events,
        ids,
        outside,
    } = open::abort_group(id);
    let mut escalation = Escalation::StreamAbort;
    for &(stream, ctx) in &streams {
        let mut gone = false;
        let ticket = super::super::waits::ticket();
        let aborted = (0..3).any(|_| match super::super::abort_stream(ctx, stream) {
            Ok(()) => true,
            Err(e) => {
                gone |= stream_is_gone(&e);
                gone
            }
        });
        if aborted {
            // Outside waits queued there before the abort are discarded.
            super::super::waits::synchronized_stream_since(stream, ticket);
            note_lost_callbacks(stream);
            if gone && escalation == Escalation::StreamAbort {
                escalation = Escalation::StreamGone;
            }
            continue;
        }
        escalation = Escalation::UnboundedSynchronize;
        let synced = (0..3).any(|_| {
            let _ = super::super::make_current(ctx);
            match super::super::synchronize_stream(stream) {
                Ok(()) => true,
                Err(e) => stream_is_gone(&e),
            }
        });
        if !synced {
            eprintln!(
                "aclrt: a stream of a Scope can neither be aborted nor synchronised; \
                 aborting the process because borrowed memory may still be in use by \
                 the device"
            );
            std::process::abort();
        }
    }
    // Streams outside scopes whose waits the abort may leave hanging
    // (`open::abort_group`): aborted too, best effort (no borrowed memory
    // depends on them; one that cannot be aborted is left as it was); the
    // next `Stream::synchronize` reports `WorkAborted`.
    for &(stream, ctx) in &outside {
        let ticket = super::super::waits::ticket();
        if (0..3).any(|_| super::super::abort_stream(ctx, stream).is_ok()) {
            super::super::waits::synchronized_stream_since(stream, ticket);
            note_lost_callbacks(stream);
        } else {
            // Nothing was discarded: nothing to report.
            let _ = open::take_outside_aborted(stream);
        }
    }
    // Scopes that enlist these streams from now on record their own work
    // after the abort: they are not marked any more.
    let done: Vec<(Raw, Raw)> = streams.iter().chain(outside.iter()).copied().collect();
    open::abort_done(&done);
    // Only events not destroyed since they were recorded (the user may have
    // dropped one inside the scope, or on another thread), and whose last
    // record is one of the aborted scopes': see `open`.
    open::rerecord(&events, &ids, |event, stream, ctx| {
        super::super::make_current(ctx).is_ok() && super::super::record_event(event, stream).is_ok()
    });
    escalation
}

/// An escalation's abort of `stream` returned: report callbacks launched
/// there and not run yet are lost (or, `NO_BLOCK` ones already handed to
/// the reporter, about to run), so the stream's next synchronisation
/// reports [`Error::WorkAborted`] (issue 23).
pub(super) fn note_lost_callbacks(stream: Raw) {
    if super::super::mix::take_unrun(stream) {
        open::note_work_lost(stream);
    }
}

/// Milliseconds left until `deadline`, at least 1 (0 would mean "forever"
/// to the runtime), or `None` when it has passed.
pub(super) fn millis_left(deadline: Instant) -> Option<i32> {
    let left = deadline.checked_duration_since(Instant::now())?;
    if left.is_zero() {
        return None;
    }
    Some(i32::try_from(left.as_millis().max(1)).unwrap_or(i32::MAX))
}
