//! The scope's book under the failure rule, and its escalation: what a
//! [`CoreBook`] records (streams, settled lanes, fences, what sticks to
//! the scope) and how a scope makes its streams idle. Bookkeeping beside
//! the basement: no `unsafe` here.
#![deny(unsafe_code)]

use core::sync::atomic::Ordering;
use std::time::Instant;

use super::super::faults;
use super::super::protocol::failure::{
    Lanes, Origin, check_quiesces, give_back_lanes, lane_bit, quiesce_when_marked,
};
use super::super::{Raw, Region};
use super::{Book, CoreBook, open};
use crate::error::{Error, ErrorKind, Escalation, Result};

impl CoreBook {
    /// The scope needs the registry (a second stream, a user event or a
    /// host function, or its own escalation): if it is in none, it enters
    /// it.
    #[inline]
    pub(super) fn promote(&self) {
        if self.lone.swap(false, Ordering::Relaxed) {
            // A scope in no registry has enlisted its first stream.
            if let Some(stream) = Raw::new(self.first.load(Ordering::Relaxed)) {
                open::enlist(self.id, stream, self.ctx);
            }
        }
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

    /// The streams of the lanes in `lanes` (bits of an `Origin`; with
    /// `EVERY_LANE`, every lane from the 31st on).
    pub(super) fn streams_of(&self, lanes: Lanes) -> Vec<Raw> {
        select(&self.streams(), lanes)
    }

    /// The failure a checked wait of contents of origin `origin` reports
    /// ([`Sticky::check`]): the scope's sticky failure, or one entered
    /// since on one of the scope's streams, by any synchronisation of any
    /// thread. A few loads while nothing failed since and no
    /// synchronisation is in flight.
    #[inline(always)]
    pub(super) fn failure(&self, origin: Origin) -> Option<Error> {
        if faults::watch_idle() && self.inner.borrow().1.quiet(faults::log(), origin.since) {
            return None;
        }
        self.failure_on(
            origin.since,
            &self.streams(),
            Some((check_quiesces(origin), origin.concern())),
        )
    }

    /// Wait for the synchronisations of the lanes `lanes` in flight on
    /// other threads (they were just made idle: those end), before the
    /// lanes move to a mark's `from` ([`quiesce_when_marked`]).
    #[cold]
    #[inline(never)]
    pub(super) fn quiesce_lanes(&self, lanes: Lanes) {
        if quiesce_when_marked() {
            let streams = self.streams_of(lanes);
            faults::quiesce(|k| streams.iter().any(|&s| k == faults::key(s)));
        }
    }

    /// [`failure`](Self::failure) on `streams` (the scope's: at its end,
    /// taken before `finish` empties the book), of contents whose failures
    /// are those of the lanes `concern` of `(quiesce, concern)` (`None`:
    /// every stream, the scope's end). Synchronisations in flight on other
    /// threads are waited for on the lanes `quiesce` only
    /// ([`check_quiesces`]). A failure of another lane that such a
    /// synchronisation holds is not waited for here: the scope's end
    /// reports it.
    #[cold]
    #[inline(never)]
    pub(super) fn failure_on(
        &self,
        since: u64,
        streams: &[Raw],
        concern: Option<(Lanes, Lanes)>,
    ) -> Option<Error> {
        let mine = |k: usize| streams.iter().any(|&s| k == faults::key(s));
        let sets = concern.map(|(q, c)| (self.streams_of(q), self.streams_of(c)));
        let among = |k: usize, set: &[Raw]| set.iter().any(|&s| k == faults::key(s));
        let from = |k: usize| match &sets {
            Some((_, from)) => among(k, from),
            None => mine(k),
        };
        // First the synchronisations in flight on other threads: one may
        // have taken a failure it has not entered yet.
        faults::quiesce(|k| match &sets {
            Some((quiesce, _)) => among(k, quiesce),
            None => mine(k),
        });
        self.inner
            .borrow_mut()
            .1
            .check(faults::log(), since, from, mine)
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

    /// The one give-back primitive after which a path hands memory back
    /// (`reuse`, a fence's `reuse`, a checked wait of a buffer that left
    /// its lane): every stream that could still touch a buffer of lane
    /// `own` and origin lanes `lanes` is idle
    /// ([`make_idle_all`](Self::make_idle_all)) — its own and every lane its
    /// contents came through or it was lent to ([`give_back_lanes`]),
    /// because an event or a hand-off orders nothing when the wait task
    /// behind it failed; and no other, since a lane the buffer never met
    /// may be running a host function that waits for this thread.
    /// `WorkAborted` if an escalation aborted the scope.
    pub(super) fn idle_for_give_back(&self, own: Lanes, lanes: Lanes) -> Result<()> {
        self.make_idle_all(self.streams_of(give_back_lanes(own, lanes)))?;
        if self.aborted() {
            return Err(Error::WorkAborted);
        }
        Ok(())
    }

    /// Contents of origin `origin`, written by scope work, came back
    /// unchecked (a give-back) as memory `region`: memory parked or read
    /// again in this scope keeps that origin ([`Suspects`]).
    #[cold]
    #[inline(never)]
    pub(super) fn mark_suspect(&self, region: Region, origin: Origin) {
        let (start, end) = span(region);
        self.book().suspects.mark(start, end, origin);
        self.suspect.store(true, Ordering::Relaxed);
    }

    /// The origin marks give memory `region` parked (`take`: the marks it
    /// covers move into the parked buffer) or read again, if any.
    #[inline(always)]
    pub(super) fn suspect_origin(&self, region: Region, take: bool) -> Option<Origin> {
        if !self.suspect.load(Ordering::Relaxed) {
            return None;
        }
        self.suspect_origin_slow(region, take)
    }

    #[cold]
    #[inline(never)]
    fn suspect_origin_slow(&self, region: Region, take: bool) -> Option<Origin> {
        let (start, end) = span(region);
        let mut inner = self.inner.borrow_mut();
        let suspects = &mut inner.0.as_mut()?.suspects;
        let found = suspects.origin(start, end, take);
        if suspects.is_empty() {
            self.suspect.store(false, Ordering::Relaxed);
        }
        found
    }

    /// Scope work about to be queued overwrites all of `region`: no mark
    /// covers its bytes any more (the rest of a mark it overlaps stays).
    #[inline(always)]
    pub(super) fn overwritten(&self, region: Region) {
        if self.suspect.load(Ordering::Relaxed) {
            let (start, end) = span(region);
            if let Some(book) = self.inner.borrow_mut().0.as_mut() {
                book.suspects.overwritten(start, end);
            }
        }
    }

    /// The recovery point, every lane idle and every failure entered: the
    /// marks whose work no failure followed end ([`Suspects::settle`]).
    pub(super) fn settle_suspects(&self) {
        if !self.suspect.load(Ordering::Relaxed) {
            return;
        }
        let log = faults::log();
        let streams = self.streams();
        let mut inner = self.inner.borrow_mut();
        if let Some(book) = inner.0.as_mut() {
            book.suspects.settle(|o| {
                let from = select(&streams, o.concern());
                log.since(o.since, |k| from.iter().any(|&s| k == faults::key(s)))
                    .is_some()
            });
        }
    }

    /// Make each of `streams` idle ([`make_idle`]) and settled; the first
    /// stream that cannot be made idle stops it with its error.
    pub(super) fn make_idle_all(&self, streams: Vec<Raw>) -> Result<()> {
        self.refuse_unmatched(&streams)?;
        for stream in streams {
            make_idle(stream)?;
            self.settle(stream);
        }
        Ok(())
    }

    /// Whether an escalation aborted (some of) the scope's work: one of its
    /// streams' records says so (see `open::aborted_since`), or a lane's
    /// wait for a record an escalation may have discarded was refused.
    #[inline]
    pub(super) fn aborted(&self) -> bool {
        match self.inner.borrow().0.as_ref() {
            Some(book) => self.aborted_with(&book.streams),
            None => self.aborted_with(&[]),
        }
    }

    /// [`aborted`](Self::aborted), with `rest` the streams after the first.
    #[inline]
    fn aborted_with(&self, rest: &[super::Enlisted]) -> bool {
        if self.refused.load(Ordering::Relaxed) {
            return true;
        }
        let first = Raw::new(self.first.load(Ordering::Relaxed))
            .map(|s| (s, self.first_ticket.load(Ordering::Relaxed)));
        open::aborted_since(
            first
                .into_iter()
                .chain(rest.iter().map(|e| (e.stream, e.ticket))),
        )
    }

    /// The scope, which enlisted a stream, leaves the registry (if it is in
    /// it); `rest` are its streams after the first (the book no longer
    /// holds them at the scope's end). Returns whether an escalation
    /// aborted it.
    #[inline(always)]
    pub(super) fn leave(&self, rest: &[super::Enlisted]) -> bool {
        let aborted = self.aborted_with(rest);
        if !self.lone.swap(false, Ordering::Relaxed) {
            open::deregister(self.id, 1 + rest.len());
        }
        aborted
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
        if self.suspect.load(Ordering::Relaxed) {
            self.lane_synced(stream);
        }
    }

    /// A synchronisation of `stream` by this scope returned, every failure
    /// it saw entered: marks stop making waits synchronise its lane
    /// ([`Suspects::lane_synced`](super::super::protocol::failure::Suspects::lane_synced)).
    #[cold]
    #[inline(never)]
    fn lane_synced(&self, stream: Raw) {
        if quiesce_when_marked() {
            faults::quiesce(|k| k == faults::key(stream));
        }
        let index = self.streams().iter().position(|&s| s == stream);
        if let (Some(index), Some(book)) = (index, self.inner.borrow_mut().0.as_mut()) {
            book.suspects.lane_synced(lane_bit(index));
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

/// Make `stream` idle for a give-back: a synchronisation, and if it fails
/// (whatever the code: entered in `faults` by the wrapper) a query that
/// says every task of the stream has finished. Any other outcome is
/// returned.
#[cold]
#[inline(never)]
fn make_idle(stream: Raw) -> Result<()> {
    match super::super::synchronize_stream(stream) {
        Ok(()) => Ok(()),
        Err(e) if e.kind() == ErrorKind::Lifecycle => Err(e),
        Err(e) => match super::super::stream_is_complete(stream) {
            Ok(true) => Ok(()),
            _ => Err(e),
        },
    }
}

/// After an escalation aborted `stream`: a fault of its aborted work that
/// no synchronisation reported yet would be handed by the runtime to the
/// stream's next synchronisation, a later scope's checked wait of correct
/// work among them. The stream is idle: one bounded synchronisation takes
/// it now, entered (as every failure a synchronisation reports) for the
/// aborted work, whose scopes learn of the abort anyway. Bounded (1 ms):
/// work another thread queued since the abort is not waited for.
fn take_pending_fault(ctx: Raw, stream: Raw) {
    let _ = super::super::make_current(ctx);
    let _ = super::super::synchronize_stream_timeout(stream, 1);
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
/// concerned learn it from the streams' records (`open::aborted_since`);
/// the user events recorded in them (and not destroyed since) are recorded
/// again on their now idle streams, so that no later wait on them hangs. Aborts the process only when a stream can neither be aborted
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
            if !gone {
                take_pending_fault(ctx, stream);
            }
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
/// reports [`Error::WorkAborted`].
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

/// The bytes of `region`, as addresses.
fn span(region: Region) -> (usize, usize) {
    let start = region.ptr.as_ptr() as usize;
    (start, start.saturating_add(region.bytes))
}

/// The streams of `all` (the scope's, in enlisting order) in the lanes
/// `lanes`; `EVERY_LANE` stands for every lane from the 31st on.
fn select(all: &[Raw], lanes: Lanes) -> Vec<Raw> {
    all.iter()
        .enumerate()
        .filter(|&(i, _)| lanes & lane_bit(i) != 0)
        .map(|(_, &s)| s)
        .collect()
}
