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
//!    a give-back makes idle every lane the buffer's contents came through
//!    or it was lent to ([`Origin`], [`give_back_lanes`],
//!    [`event_may_give_back`]), since a failed wait task orders nothing;
//!    and contents that came back unchecked keep their origin while they
//!    stay in the scope ([`Suspects`]).
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
    /// clock value `since` on the streams `from` accepts, the scope's
    /// streams being those `mine` accepts: the sticky one, or one entered
    /// on any of the scope's streams after the base (which then sticks), or
    /// — for contents older than the base — one entered on a stream of
    /// their own after `since` (a failure the scope recovered from fails
    /// only the contents it may concern).
    pub(crate) fn check(
        &mut self,
        log: &Log<E>,
        since: u64,
        from: impl Fn(usize) -> bool,
        mine: impl Fn(usize) -> bool,
    ) -> Option<E> {
        if let Some(e) = &self.failure {
            return Some(e.clone());
        }
        if let Some((_, found)) = log.since(self.base, &mine) {
            self.failure = Some(found.clone());
            return Some(found);
        }
        if since >= self.base {
            return None;
        }
        if mutant("failure-older-contents-any-lane") {
            return log.since(since, mine).map(|f| f.1);
        }
        log.since(since, |k| from(k) && mine(k)).map(|f| f.1)
    }

    /// The recovery point, once every stream of the scope is idle: the
    /// failure that stuck (or was entered since the base), which no longer
    /// sticks; the base moves to now.
    pub(crate) fn recover(&mut self, log: &Log<E>, mine: impl Fn(usize) -> bool) -> Option<E> {
        let now = log.now();
        let failure = self.check(log, u64::MAX, |_| false, mine);
        self.base = now.max(self.base);
        self.failure = None;
        failure
    }
}

/// A set of a scope's lanes: bit `i` for its `i`th enlisted stream
/// ([`lane_bit`]).
pub(crate) type Lanes = u32;

/// The lane of a scope's `index`th enlisted stream, as a bit of a
/// [`Lanes`] set; a scope's lanes from the 31st on share [`EVERY_LANE`]
/// (so a buffer of one of them synchronises all of them, never one of
/// the first 31 it did not meet).
#[inline(always)]
pub(crate) const fn lane_bit(index: usize) -> Lanes {
    if index < 31 { 1 << index } else { EVERY_LANE }
}

/// The scope's lanes from the 31st on, one bit for all of them.
pub(crate) const EVERY_LANE: Lanes = 1 << 31;

/// Where a buffer's contents came from: when the work behind them began
/// (`since`, a value of the [`Log`]'s clock) and two sets of lanes.
/// `lanes`: those a checked wait or a give-back makes idle — its own,
/// every lane the memory passed through (a hand-off) or was lent to (a
/// shared read), which may still touch it when a wait task failed, and
/// every lane whose work its contents come from that may not have been
/// synchronised yet (a copy or a kernel reading another lane's buffer).
/// `from`: lanes whose failures concern the contents but whose work on
/// them is known to be over (contents given back unchecked by a give-back
/// that made them idle, `mark_origin`): a checked wait looks their
/// failures up, and waits for other threads' synchronisations of them in
/// flight, but does not synchronise them. `lanes` only grows.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Origin {
    pub(crate) since: u64,
    pub(crate) lanes: Lanes,
    pub(crate) from: Lanes,
}

impl Origin {
    /// Memory no work of the scope writes (shared for the whole scope).
    pub(crate) const OUTSIDE: Origin = Origin {
        since: u64::MAX,
        lanes: 0,
        from: 0,
    };

    /// Contents whose work begins at clock value `since` on lane `lane`.
    #[inline(always)]
    pub(crate) const fn new(since: u64, lane: Lanes) -> Origin {
        Origin {
            since,
            lanes: lane,
            from: 0,
        }
    }

    /// Contents that come from both.
    #[inline(always)]
    pub(crate) fn join(self, other: Origin) -> Origin {
        Origin {
            since: self.since.min(other.since),
            lanes: self.lanes | other.lanes,
            from: self.from | other.from,
        }
    }

    /// Every lane whose failures concern the contents.
    #[inline(always)]
    pub(crate) fn concern(self) -> Lanes {
        self.lanes | self.from
    }

    /// Work queued now (clock value `now`) writes the buffer from memory of
    /// origin `reads`. `overwrite`: every byte is written, so the old
    /// contents no longer matter (their lanes still do: the memory passed
    /// through them).
    #[inline(always)]
    pub(crate) fn derive(self, overwrite: bool, now: u64, reads: Origin) -> Origin {
        let (own, from) = if overwrite {
            (now, 0)
        } else {
            (self.since, self.from)
        };
        Origin {
            since: own.min(reads.since),
            lanes: self.lanes | reads.lanes,
            from: from | reads.from,
        }
    }
}

/// The origin a mark keeps for contents of origin `origin`, given back
/// unchecked by a give-back that made every lane of `origin.lanes` idle
/// (`synced`), or at an event of lane `own` (a fence's `reuse` of a buffer
/// that never left it). Memory parked or read again from the mark joins
/// it. After a synchronisation no lane of the origin touches the memory
/// any more and the failures of its work are in the record (or in a
/// synchronisation of another thread in flight): they move to `from`, so
/// that nothing waits for those lanes again (one may be waiting for this
/// thread). After an event, lane `own`'s failure may not be known to
/// anyone yet: it stays a lane to synchronise.
#[inline(always)]
pub(crate) fn mark_origin(origin: Origin, synced: bool, own: Lanes) -> Origin {
    if mutant("failure-mark-keeps-lanes") {
        return origin;
    }
    let lanes = if synced { 0 } else { own };
    Origin {
        since: origin.since,
        lanes,
        from: origin.concern() & !lanes,
    }
}

/// The lanes whose synchronisations in flight on other threads a checked
/// wait of contents of origin `origin` waits for before it looks failures
/// up: those it synchronises (`lanes`), not `from`, whose synchronisations
/// in flight were waited for when they moved there (at the give-back that
/// made them idle, or the scope's synchronisation of the lane:
/// [`quiesce_when_marked`]); a `from` lane may since run a host function
/// that waits for the checking thread, with another thread's
/// synchronisation of it in flight.
#[inline(always)]
pub(crate) fn check_quiesces(origin: Origin) -> Lanes {
    if mutant("failure-quiesce-from") {
        origin.concern()
    } else {
        origin.lanes
    }
}

/// Whether a give-back (or the scope's synchronisation of a lane) that
/// moves lanes to a mark's `from` first waits for the synchronisations of
/// those lanes in flight on other threads (always: they are idle then, so
/// those end; after it, every failure of the marked work is in the record).
#[inline(always)]
pub(crate) fn quiesce_when_marked() -> bool {
    !mutant("failure-no-quiesce-at-mark")
}

/// The lanes a checked wait or a give-back of a buffer of lane `own` and
/// origin lanes `lanes` makes idle: all of them, and only them, since an
/// event or a hand-off orders nothing when the wait task behind it failed
/// — and a lane the buffer never met may be waiting for this very thread.
#[inline(always)]
pub(crate) fn give_back_lanes(own: Lanes, lanes: Lanes) -> Lanes {
    if mutant("failure-skip-source-lane") {
        own
    } else if mutant("failure-idle-every-lane") {
        Lanes::MAX
    } else {
        own | lanes
    }
}

/// Whether the buffer's contents and memory never left lane `own`: then
/// its own stream (or a fence's event on it) is all a wait needs.
#[inline(always)]
pub(crate) fn own_lane_only(own: Lanes, lanes: Lanes) -> bool {
    own != EVERY_LANE && lanes & !own == 0
}

/// Whether a fence's event may give its buffer back (`aclrtSynchronizeEvent`
/// only): not once the buffer left its lane, where a failed wait task
/// orders nothing ([`give_back_lanes`] instead).
#[inline(always)]
pub(crate) fn event_may_give_back(own: Lanes, lanes: Lanes) -> bool {
    own_lane_only(own, lanes) || mutant("failure-trust-hand-off")
}

/// Contents that scope work wrote and that came back to the user unchecked
/// (a give-back: `reuse`, a fence's `reuse`), one mark per memory span
/// (`start..end`) with the origin of the contents: memory parked or read
/// again in the same scope keeps that origin, so work derived from it
/// fails its checked wait after the scope's recovery point as the contents
/// themselves would. A mark ends where scope work overwrites it (the bytes
/// of its span not written keep it), when memory holding its whole span is
/// parked again (its origin moves into the parked buffer), or at the
/// recovery point if no failure followed its work on its lanes.
#[derive(Default)]
pub(crate) struct Suspects {
    marks: Vec<(usize, usize, Origin)>,
}

impl Suspects {
    /// Mark `start..end` as holding contents of origin `origin`.
    pub(crate) fn mark(&mut self, start: usize, end: usize, origin: Origin) {
        if mutant("failure-trust-reused-contents") {
            return;
        }
        match self.marks.iter_mut().find(|m| m.0 == start && m.1 == end) {
            Some(m) => m.2 = m.2.join(origin),
            None => self.marks.push((start, end, origin)),
        }
    }

    /// The origin of what memory `start..end` holds, as far as marks say
    /// (`None`: unmarked); with `take`, the marks it covers whole end (the
    /// caller carries their origin on).
    pub(crate) fn origin(&mut self, start: usize, end: usize, take: bool) -> Option<Origin> {
        let mut found: Option<Origin> = None;
        self.marks.retain(|m| {
            if m.0 < end && start < m.1 {
                found = Some(found.map_or(m.2, |f| f.join(m.2)));
                !(take && start <= m.0 && m.1 <= end)
            } else {
                true
            }
        });
        found
    }

    /// Scope work overwrites all of `start..end`: those bytes are no longer
    /// marked (their new origin is the writer's); the rest of a mark that
    /// overlaps them keeps its origin, so memory written afresh in parts
    /// is clean once every part was written.
    pub(crate) fn overwritten(&mut self, start: usize, end: usize) {
        let mut rest = Vec::new();
        self.marks.retain(|m| {
            if m.0 >= end || start >= m.1 {
                return true;
            }
            if m.0 < start {
                rest.push((m.0, start, m.2));
            }
            if end < m.1 {
                rest.push((end, m.1, m.2));
            }
            false
        });
        self.marks.extend(rest);
    }

    /// The scope synchronised lane `bit` (a synchronisation that began
    /// after every mark was made: the scope's thread makes both): the work
    /// of every mark on it is over and its failures are in the record (or
    /// in a synchronisation of another thread in flight, which a check
    /// waits for), as after a synchronising give-back ([`mark_origin`]):
    /// the lane moves from the marks' `lanes` to their `from`, so that no
    /// later wait synchronises it again for them. Not [`EVERY_LANE`],
    /// which one synchronisation does not cover.
    pub(crate) fn lane_synced(&mut self, bit: Lanes) {
        if bit == EVERY_LANE || mutant("failure-mark-keeps-lanes") {
            return;
        }
        for m in &mut self.marks {
            if m.2.lanes & bit != 0 {
                m.2.lanes &= !bit;
                if !mutant("failure-sweep-drops-lane") {
                    m.2.from |= bit;
                }
            }
        }
    }

    /// The recovery point, every lane idle: marks whose work no failure
    /// followed (`failed` says whether one did) end.
    pub(crate) fn settle(&mut self, failed: impl Fn(Origin) -> bool) {
        self.marks.retain(|m| failed(m.2));
    }

    /// Whether there is no mark.
    pub(crate) fn is_empty(&self) -> bool {
        self.marks.is_empty()
    }
}

/// Whether a panic of a scope's host function is entered as a failure of
/// its stream (always; the mutant ignores it).
#[inline(always)]
pub(crate) fn host_fn_panic_is_failure() -> bool {
    !mutant("failure-ignore-host-fn-panic")
}
