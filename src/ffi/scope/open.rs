//! The registry of open scopes with more than one stream, a user event or
//! a host function: which streams each has enlisted, which user events it
//! recorded and waits for.
//!
//! A scope's own book (`ScopeBook`) says what *it* must synchronise; this
//! registry is what lets the escalation of one scope reach the others: a
//! scope that aborts a stream aborts every stream of every open scope
//! sharing it (work there may wait for what the abort discards). Every
//! scope learns that its work was discarded from its streams' records
//! ([`aborted_since`]), which every escalation marks before it aborts and
//! numbers once the aborts returned ([`abort_group`], [`abort_done`]), so
//! that its end reports [`Error::WorkAborted`](crate::Error::WorkAborted)
//! instead of a result that was never computed; that question (asked at
//! every `Parked::wait` and at the scope's end) is answered without a lock
//! until some escalation has ever run ([`ANY_ABORTED`]).
//!
//! Cost: the commonest scope (one lane, no user events, no host functions)
//! never takes the registry's lock; an entry is one flat (scope, stream,
//! context) triple, so entering and leaving is a push and a swap-remove
//! under the lock, with nothing allocated per scope once the vectors have
//! grown.
#![deny(unsafe_code)]

use std::sync::Mutex;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};

use crate::ffi::Raw;
use crate::ffi::locks::{Held, Rank, lock};
use crate::ffi::protocol::abort_log::{self, AbortLog};

/// One stream enlisted by one open scope.
#[derive(Clone, Copy)]
struct Entry {
    id: u64,
    stream: Raw,
    ctx: Raw,
    /// Whether the scope queued host functions on the stream: until it
    /// ends, the stream cannot be subscribed to a reporter
    /// ([`host_fns_pending`]).
    host_fns: bool,
}

/// The open scopes, as the streams they enlisted, and what an escalation
/// needs to know about them.
struct Registry {
    /// One entry per (open scope, stream it enlisted).
    entries: Vec<Entry>,
    /// (scope, event, stream it was recorded on, context): the user events
    /// recorded by open scopes.
    events: Vec<(u64, Raw, Raw, Raw)>,
    /// (scope, stream, context): an open scope's lane waits for a user
    /// event whose latest record, when the wait was queued, was on `stream`
    /// (`None`: not known, any stream of `context`). An escalation that
    /// aborts that stream may discard the record, and a stream wait for a
    /// discarded record never ends: it aborts the waiting scope too
    /// ([`abort_group`], [`wait_for_event`]).
    waits: Vec<(u64, Option<Raw>, Raw)>,
    /// The streams finished escalations aborted, numbered by [`DONE`]
    /// ([`abort_done`]): a record with ticket `t` ([`record_ticket`]) may
    /// have been discarded by an entry `c >= t` of its stream. Bounded
    /// ([`DROPPED_KEPT`]). The protocol core `protocol::abort_log`,
    /// model-checked in `models/`.
    dropped: AbortLog<Raw>,
    /// Escalations between [`abort_group`] and [`abort_done`]. The streams
    /// each is aborting are marked in their records meanwhile
    /// (`record::is_aborting`), both changed under this lock: a wait for a
    /// record on one of them is refused unless the record executed
    /// ([`wait_for_event`]), and a stream's destruction waits for them
    /// ([`wait_not_aborting`]).
    active: usize,
}

/// How many [`Registry::dropped`] entries are kept.
const DROPPED_KEPT: usize = 1024;

/// Escalations finished so far ([`abort_done`]): a record takes it as its
/// ticket before it is queued ([`record_ticket`]).
static DONE: AtomicU64 = AtomicU64::new(0);

/// Streams outside every scope that an escalation aborted because a wait
/// queued on them ([`Stream::wait_event`](crate::Stream::wait_event)) was
/// for a record the escalation may discard: such a wait never ends unless
/// its stream is aborted too (K.8). Noted in the stream's record
/// (`record::note_outside_aborted`); the next synchronisation of the stream
/// through the crate reports it ([`take_outside_aborted`]).
///
/// Whether an escalation aborted `stream` (a stream outside scopes) since
/// this was last asked; forgets it. One atomic load until that has ever
/// happened.
#[inline]
pub(crate) fn take_outside_aborted(stream: Raw) -> bool {
    super::super::record::take_outside_aborted(stream)
}

static OPEN: Mutex<Registry> = Mutex::new(Registry {
    entries: Vec::new(),
    events: Vec::new(),
    waits: Vec::new(),
    dropped: AbortLog::new(),
    active: 0,
});

/// Whether any escalation has ever started ([`abort_group`]). Set, holding
/// `OPEN`'s lock, before the first record is marked aborted and before
/// any escalation is active; never cleared. While it reads `false`, no
/// record is marked and none is active, so [`aborted_since`] and the
/// event checks skip the locks: reading `false` is the same answer a
/// reader holding the lock before the first escalation would get
/// (sequentially consistent: the store and the loads are in one total
/// order).
static ANY_ABORTED: AtomicBool = AtomicBool::new(false);

/// The latest record of a user event, as far as it is tracked (see
/// [`TRACKING`]).
struct Latest {
    event: Raw,
    /// The scope that made it (0: outside any scope).
    by: u64,
    /// The stream it was queued on.
    stream: Raw,
    /// Its [`record_ticket`].
    ticket: u64,
}

/// The latest record of each user event recorded since [`TRACKING`] was
/// set. An escalation records again only the events whose last record was
/// made by a scope it aborted, never one a later record has replaced; a
/// lane's wait for a user event learns from it which stream the record it
/// waits for is on ([`wait_for_event`]).
///
/// An event without an entry has not been recorded since `TRACKING` was
/// set: the records of one event are ordered (each takes the event by
/// value), so once one of them saw the flag, every later one does too.
static LATEST: Mutex<Vec<Latest>> = Mutex::new(Vec::new());

fn latest() -> Held<'static, Vec<Latest>> {
    lock(&LATEST, Rank::Latest)
}

/// To take before `aclrtRecordEvent` queues a record: `None` while records
/// are not tracked ([`TRACKING`]), else the ticket to pass to
/// [`record_made`].
///
/// Inlined: while no scope ever recorded or waited for a user event, it
/// costs one atomic load (`Stream::record`).
#[inline]
pub(crate) fn record_ticket() -> Option<u64> {
    if !TRACKING.load(Ordering::Acquire) {
        return None;
    }
    Some(abort_log::ticket(&DONE))
}

/// `event` was recorded on `stream` outside any scope, with the ticket
/// [`record_ticket`] gave before.
#[inline]
pub(crate) fn record_made(event: Raw, stream: Raw, ticket: Option<u64>) {
    if let Some(t) = ticket {
        note_record(event, 0, stream, t);
    }
}

#[inline(never)]
fn note_record(event: Raw, by: u64, stream: Raw, ticket: u64) {
    let mut l = latest();
    let entry = Latest {
        event,
        by,
        stream,
        ticket,
    };
    match l.iter_mut().find(|e| e.event == event) {
        Some(e) => *e = entry,
        None => l.push(entry),
    }
}
static NEXT: AtomicU64 = AtomicU64::new(1);

// A scope learns that an escalation aborted one of its streams from the
// stream's record (`record::aborted_since`), against a ticket it took when
// it enlisted the stream, before it queued anything there; the protocol
// core is `protocol::records`, model-checked in `models/`. A scope with one
// stream, no user event and no host function is in no registry: it needs
// nothing else. It enters the registry when it needs more ([`promote`]).

/// The ticket a scope takes when it enlists a stream, before it queues
/// anything there: the number of escalations finished.
#[inline]
pub(super) fn ticket() -> u64 {
    abort_log::ticket(&DONE)
}

/// Whether an escalation may have discarded work a scope queued on one of
/// `streams`, each with the ticket taken when the scope enlisted it
/// ([`ticket`]). One atomic load while no escalation has ever run: an
/// escalation sets [`ANY_ABORTED`] before it marks the records of the
/// streams it aborts, and before it aborts any.
#[inline]
pub(super) fn aborted_since(mut streams: impl Iterator<Item = (Raw, u64)>) -> bool {
    ANY_ABORTED.load(Ordering::SeqCst)
        && streams.any(|(s, t)| super::super::record::aborted_since(s, t))
}

#[inline]
fn open() -> Held<'static, Registry> {
    lock(&OPEN, Rank::Open)
}

/// The user events recorded in some scope and not destroyed since. An
/// escalation re-records only these, and holds this lock while it does;
/// [`event_destroyed`] removes an event, under the same lock, before the
/// event is destroyed. So no handle is recorded after its destruction, even
/// when the user drops the event inside the scope or on another thread.
static RECORDED: Mutex<Vec<Raw>> = Mutex::new(Vec::new());

/// Whether some scope ever recorded a user event or waited for one; never
/// cleared. Until then `RECORDED` and `LATEST` are empty: records outside
/// scopes and event destruction skip their locks.
static TRACKING: AtomicBool = AtomicBool::new(false);

fn recorded_events() -> Held<'static, Vec<Raw>> {
    lock(&RECORDED, Rank::Recorded)
}

/// `event` is about to be destroyed (`aclrtDestroyEvent`): no escalation may
/// record it any more.
pub(crate) fn event_destroyed(event: Raw) {
    if TRACKING.load(Ordering::Acquire) {
        recorded_events().retain(|e| *e != event);
        latest().retain(|l| l.event != event);
    }
}

/// Call `record` with each of `events` (event, stream, context) that has not
/// been destroyed, holding the lock that [`event_destroyed`] takes.
/// Only events whose last record was made by one of the scopes `ids` are
/// recorded: a later record by a scope that was not aborted stands.
pub(super) fn rerecord(
    events: &[(Raw, Raw, Raw)],
    ids: &[u64],
    mut record: impl FnMut(Raw, Raw, Raw) -> bool,
) {
    let live = recorded_events();
    let mut last = latest();
    for &(event, stream, ctx) in events {
        let ours = last
            .iter_mut()
            .find(|l| l.event == event && ids.contains(&l.by));
        if let (true, Some(l)) = (live.contains(&event), ours) {
            // After this escalation's `abort_done`: a later abort of the
            // stream has a number of at least this ticket.
            let ticket = abort_log::ticket(&DONE);
            if record(event, stream, ctx) {
                l.stream = stream;
                l.ticket = ticket;
            }
        }
    }
}

/// A fresh scope id. The scope enters the registry with its first stream
/// ([`enlist`]): until then no escalation can concern it (it shares no
/// stream, and records no event without a lane).
#[inline]
pub(super) fn register() -> u64 {
    NEXT.fetch_add(1, Ordering::Relaxed)
}

/// Scope `id`, which enlisted `streams` streams, ends; called only if it
/// entered the registry.
#[inline(always)]
pub(super) fn deregister(id: u64, streams: usize) {
    let mut all = open();
    // Its `streams` entries (one per stream it enlisted), usually last:
    // searched from the end.
    for _ in 0..streams {
        match all.entries.iter().rposition(|e| e.id == id) {
            Some(i) => {
                all.entries.swap_remove(i);
            }
            None => break,
        }
    }
    if !all.events.is_empty() {
        all.events.retain(|e| e.0 != id);
    }
    if !all.waits.is_empty() {
        all.waits.retain(|w| w.0 != id);
    }
}

/// Scope `id` enlisted `stream` (of context `ctx`), which it had not
/// enlisted before; the first call enters the scope in the registry. Also
/// the entry of a scope's first stream when the scope, in no registry so
/// far, needs it (a second stream, a user event, a host function, or its
/// own escalation: `CoreBook::promote`).
#[inline(always)]
pub(super) fn enlist(id: u64, stream: Raw, ctx: Raw) {
    open().entries.push(Entry {
        id,
        stream,
        ctx,
        host_fns: false,
    });
}

/// Scope `id` queued a host function on `stream` (an enlisted stream: the
/// lane bound it first, so its entry is here).
pub(super) fn host_fns_on(id: u64, stream: Raw) {
    let mut all = open();
    let entry = all
        .entries
        .iter_mut()
        .rev()
        .find(|e| e.id == id && e.stream == stream);
    debug_assert!(entry.is_some(), "a lane's stream is enlisted before use");
    if let Some(e) = entry {
        e.host_fns = true;
    }
}

/// Whether an open scope queued host functions (`aclrtLaunchHostFunc`) on
/// `stream`: they are settled only when that scope ends, so until then the
/// stream must not be subscribed to a reporter (the two callback mechanisms
/// must not mix on one stream, acl-facts 5.8).
pub(crate) fn host_fns_pending(stream: Raw) -> bool {
    open()
        .entries
        .iter()
        .any(|e| e.host_fns && e.stream == stream)
}

/// The escalation that aborted `streams` is done with them: their records
/// stop saying so and they enter the registry's `dropped` log, in one step
/// under `OPEN`'s lock (a wait checks both under it, [`wait_for_event`]).
pub(super) fn abort_done(streams: &[(Raw, Raw)]) {
    let mut all = open();
    all.active -= 1;
    // Every abort of this escalation has returned, so a record it
    // discarded was queued before, and its ticket taken before that: the
    // ticket is at most this number.
    let n = all.dropped.done(&DONE, streams, DROPPED_KEPT);
    super::super::record::abort_ends(streams.iter().map(|s| s.0), n);
}

/// To take before a lane records a user event: the ticket to pass to
/// [`recorded`].
pub(super) fn scope_record_ticket() -> u64 {
    TRACKING.store(true, Ordering::SeqCst);
    abort_log::ticket(&DONE)
}

/// A lane of scope `id` recorded `event` on `stream` (of context `ctx`),
/// with the ticket [`scope_record_ticket`] gave before.
pub(super) fn recorded(id: u64, event: Raw, stream: Raw, ctx: Raw, ticket: u64) {
    {
        let mut live = recorded_events();
        if !live.contains(&event) {
            live.push(event);
        }
    }
    note_record(event, id, stream, ticket);
    let mut all = open();
    if all.entries.iter().any(|e| e.id == id) {
        all.events.push((id, event, stream, ctx));
    }
}

/// Scope `id` (in the registry: its lane enlisted its stream) makes a lane
/// wait for the user event `event` of context `ctx`: `wait` queues the
/// stream wait, `complete` asks whether the event's latest record has
/// executed (`aclrtQueryEventStatus`).
///
/// The wait is for the record the event has when it is queued, and it never
/// ends if an escalation discards that record (K.8), whoever made it. So,
/// under `OPEN`'s lock, the wait is noted with the record's stream (from
/// `LATEST`; not known for a record made before tracking began), and an
/// escalation that starts later aborts this scope too ([`abort_group`]).
/// One that began earlier is seen here: the stream is being aborted
/// (its record says so) or was aborted after the record was queued (`dropped`, by
/// its ticket); then, unless the record has executed, no wait is queued and
/// the scope notes it in `refused` ([`Error::WorkAborted`](crate::Error::WorkAborted)).
///
/// The event cannot be recorded again meanwhile (the lane borrows it, and
/// records take it by value) except by an escalation's [`rerecord`], which
/// only replaces a discarded record.
pub(super) fn wait_for_event(
    id: u64,
    refused: &core::sync::atomic::AtomicBool,
    ctx: Raw,
    event: Raw,
    complete: impl FnOnce() -> crate::error::Result<bool>,
    wait: impl FnOnce() -> crate::error::Result<()>,
) -> crate::error::Result<()> {
    TRACKING.store(true, Ordering::SeqCst);
    let mut all = open();
    let (rec, maybe_dropped) = may_be_discarded(&all, ctx, event);
    if maybe_dropped && !complete()? {
        refused.store(true, Ordering::Relaxed);
        return Err(crate::error::Error::WorkAborted);
    }
    all.waits.push((id, rec.map(|r| r.0), ctx));
    let queued = wait();
    if queued.is_err() {
        all.waits.pop();
    }
    queued
}

/// Where the latest record of `event` (of context `ctx`) was queued, as far
/// as tracked (`LATEST`): (stream, ticket); and whether an escalation may
/// have discarded it: its stream is being aborted, or was aborted after the
/// record was queued (an unknown stream: any stream of `ctx`). Asked under
/// `OPEN`'s lock.
fn may_be_discarded(all: &Registry, ctx: Raw, event: Raw) -> (Option<(Raw, u64)>, bool) {
    let rec = latest()
        .iter()
        .find(|l| l.event == event)
        .map(|l| (l.stream, l.ticket));
    let maybe = ANY_ABORTED.load(Ordering::SeqCst)
        && match rec {
            Some((stream, ticket)) => {
                super::super::record::is_aborting(stream)
                    || all.dropped.may_have_discarded(stream, ticket)
            }
            None => all.active > 0 || all.dropped.may_have_discarded_in(ctx),
        };
    (rec, maybe)
}

/// Whether an escalation may have discarded the latest record of `event`
/// (see [`may_be_discarded`]; the event's context from the live book). One
/// atomic load while no escalation has ever run. A record made before the
/// crate tracked records (before the first escalation, the first scope that
/// recorded or waited for a user event, or the first outside wait) counts
/// as possibly discarded by any escalation in its context: the caller asks
/// only about records that have not completed.
#[inline]
pub(crate) fn record_discarded(event: Raw) -> bool {
    if !ANY_ABORTED.load(Ordering::SeqCst) {
        return false;
    }
    record_discarded_slow(event)
}

/// [`record_discarded`] once an escalation has run.
#[cold]
#[inline(never)]
fn record_discarded_slow(event: Raw) -> bool {
    let Some(ctx) = crate::ffi::live::owner_of(event.as_ptr() as usize) else {
        return false;
    };
    let all = open();
    may_be_discarded(&all, ctx, event).1
}

/// A stream wait outside any scope for `event` (of context `ctx`): `queue`
/// queues it (and enters it in the book of outside waits,
/// [`super::super::waits`]), under `OPEN`'s lock, so that an escalation
/// either sees the wait ([`abort_group`] aborts its stream too when the
/// record it waits for may be discarded) or has already run; in the
/// latter case, the wait is refused ([`Error::WorkAborted`](crate::Error::WorkAborted))
/// when that escalation may have discarded the record it would wait for and
/// that record has not executed (`complete`), since such a wait never ends.
/// From the first such wait on, records note their stream ([`TRACKING`]).
pub(crate) fn outside_wait(
    ctx: Raw,
    event: Raw,
    complete: impl FnOnce() -> crate::error::Result<bool>,
    queue: impl FnOnce(Option<(Raw, u64)>) -> crate::error::Result<()>,
) -> crate::error::Result<()> {
    TRACKING.store(true, Ordering::SeqCst);
    let all = open();
    let (rec, maybe_dropped) = may_be_discarded(&all, ctx, event);
    if maybe_dropped && !complete()? {
        return Err(crate::error::Error::WorkAborted);
    }
    queue(rec)
}

/// `aclrtStreamWaitEvent(stream, event)` outside a scope, entered in the
/// book of outside waits ([`super::super::waits`]); `stream`'s context
/// `ctx` must be current.
///
/// All of it runs under `OPEN`'s lock ([`outside_wait`]): an escalation of
/// a scope either sees this wait in the book ([`abort_group`] reads it
/// through [`with_pending`](super::super::waits::with_pending)) and aborts
/// `stream` too when the record it waits for may be discarded, or has
/// already run, and then a wait for a record it may have discarded is
/// refused.
pub(crate) fn wait_event_outside(stream: Raw, ctx: Raw, event: Raw) -> crate::error::Result<()> {
    outside_wait(
        ctx,
        event,
        || super::super::event_is_complete(event),
        |rec| {
            super::super::waits::enter(stream, ctx, event, rec, || {
                super::super::stream_wait_event(stream, event)
            })
        },
    )
}

/// As [`wait_event_outside`] for an event recorded only by another process
/// (an IPC event opened from its key): no escalation of this process
/// discards its records, so the wait is never refused for one.
pub(crate) fn wait_foreign_event_outside(
    stream: Raw,
    ctx: Raw,
    event: Raw,
) -> crate::error::Result<()> {
    outside_wait(
        ctx,
        event,
        || Ok(true),
        |_| {
            // Booked as waiting for a record on the waiting stream itself,
            // never discarded (ticket `u64::MAX`): an escalation aborts this
            // stream only when it aborts the stream for its own sake.
            let rec = Some((stream, u64::MAX));
            super::super::waits::enter(stream, ctx, event, rec, || {
                super::super::stream_wait_event(stream, event)
            })
        },
    )
}

/// Returns once no escalation is aborting `stream`: an escalation picks
/// streams outside scopes under `OPEN`'s lock and aborts them after
/// releasing it, so their destruction waits for [`abort_done`] before the
/// handle is freed (it could otherwise abort a freed or reused handle, or
/// mark a later stream with the same handle). Bounded: an escalation makes
/// at most three abort attempts per stream and holds no lock meanwhile. One
/// atomic load while no escalation has ever run.
pub(crate) fn wait_not_aborting(stream: Raw) {
    if !ANY_ABORTED.load(Ordering::SeqCst) {
        return;
    }
    loop {
        {
            // Under `OPEN`'s lock: an escalation that picked the stream
            // marked its record before it let go of the lock.
            let _all = open();
            if !super::super::record::is_aborting(stream) {
                return;
            }
        }
        std::thread::sleep(std::time::Duration::from_micros(50));
    }
}

/// Work queued on `stream` outside scopes was lost to an escalation's
/// abort: the stream's next synchronisation reports it, as for the streams
/// of the streams' records.
pub(super) fn note_work_lost(stream: Raw) {
    super::super::record::note_outside_aborted(stream);
}

/// Scope `id` and, transitively, every open scope sharing a stream with
/// one already in the group: mark their streams as being aborted in their
/// records (until [`abort_done`]), and
/// return the streams (deduplicated), the user events and the scopes' ids.
///
/// Also the streams outside scopes whose waits (queued with
/// `Stream::wait_event`, still in the book of outside waits) are for a
/// record on one of those streams that has not executed (or, not knowing
/// where, on one of their contexts): returned last, and noted in
/// the streams' records. Their own waits may pull in more scopes and streams.
#[allow(clippy::type_complexity)]
pub(super) fn abort_group(id: u64) -> AbortGroup {
    let mut all = open();
    // Before any record is marked, under the lock (see `ANY_ABORTED`).
    ANY_ABORTED.store(true, Ordering::SeqCst);
    // From now on records note their stream, so that a query of an event
    // can tell whether this or a later escalation discarded its record
    // ([`record_discarded`]).
    TRACKING.store(true, Ordering::SeqCst);
    // Lock order: OPEN, then the book of outside waits (as in
    // `outside_wait`).
    let mut outside: Vec<(Raw, Raw)> = Vec::new();
    let mut ids = vec![id];
    // Held for the whole search: a booked wait's event is alive.
    super::super::waits::with_pending(|outside_waits| {
        loop {
            let group: Vec<(Raw, Raw)> = all
                .entries
                .iter()
                .filter(|e| ids.contains(&e.id))
                .map(|e| (e.stream, e.ctx))
                .chain(outside.iter().copied())
                .collect();
            let mut grew = false;
            for &(event, stream, ctx, rec) in outside_waits {
                if group.iter().any(|g| g.0 == stream) {
                    continue;
                }
                // The record the wait is for, as tracked when it was queued
                // (not known: any stream of its context).
                let hit = match rec {
                    Some((s, _)) => group.iter().any(|g| g.0 == s),
                    None => group.iter().any(|g| g.1 == ctx),
                };
                if !hit {
                    continue;
                }
                // That record has executed, and cannot be discarded any more,
                // if the event's status says so and no record replaced it
                // since (then the status is another record's). An error asking
                // counts as not executed.
                let now = latest()
                    .iter()
                    .find(|l| l.event == event)
                    .map(|l| (l.stream, l.ticket));
                let executed =
                    now == rec && super::super::event_is_complete(event).unwrap_or(false);
                if !executed {
                    outside.push((stream, ctx));
                    grew = true;
                }
            }
            for e in &all.entries {
                if !ids.contains(&e.id) && group.iter().any(|g| g.0 == e.stream) {
                    ids.push(e.id);
                    grew = true;
                }
            }
            // A scope whose lane waits for a record on one of these streams
            // (or, not knowing where, on one of their contexts): the abort may
            // discard the record, and then only an abort of the waiting stream
            // ends the wait (acl-facts K.8).
            for &(w, stream, ctx) in &all.waits {
                let hit = match stream {
                    Some(s) => group.iter().any(|g| g.0 == s),
                    None => group.iter().any(|g| g.1 == ctx),
                };
                if hit && !ids.contains(&w) {
                    ids.push(w);
                    grew = true;
                }
            }
            if !grew {
                break;
            }
        }
    });
    // Only scopes in the registry have streams to abort (a scope that
    // enlisted nothing is not there, and has nothing to abort).
    ids.retain(|i| all.entries.iter().any(|e| e.id == *i));
    let mut streams: Vec<(Raw, Raw)> = Vec::new();
    for e in all.entries.iter().filter(|e| ids.contains(&e.id)) {
        if !streams.iter().any(|t| t.0 == e.stream) {
            streams.push((e.stream, e.ctx));
        }
    }
    // Outside streams that a scope of the group also enlisted are aborted
    // as the scope's.
    outside.retain(|o| !streams.iter().any(|t| t.0 == o.0));
    for o in &outside {
        super::super::record::note_outside_aborted(o.0);
    }
    // Scopes in no registry have one stream each: on one of these, their
    // work is discarded too; they learn it from the streams' records.
    super::super::record::abort_begins(streams.iter().chain(outside.iter()).map(|t| t.0));
    let events = all
        .events
        .iter()
        .filter(|e| ids.contains(&e.0))
        .map(|&(_, event, stream, ctx)| (event, stream, ctx))
        .collect();
    all.active += 1;
    AbortGroup {
        streams,
        events,
        ids,
        outside,
    }
}

/// What [`abort_group`] found.
pub(super) struct AbortGroup {
    /// The group's scopes' streams, deduplicated, with their contexts.
    pub(super) streams: Vec<(Raw, Raw)>,
    /// The user events the group's scopes recorded: (event, stream, context).
    pub(super) events: Vec<(Raw, Raw, Raw)>,
    /// The group's scopes.
    pub(super) ids: Vec<u64>,
    /// Streams outside the group's scopes whose waits may be for a record
    /// the abort discards, with their contexts.
    pub(super) outside: Vec<(Raw, Raw)>,
}
