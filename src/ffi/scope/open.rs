//! The registry of open scopes: which streams each has enlisted, which user
//! events it recorded, and whether another scope's escalation aborted it.
//!
//! A scope's own book (`ScopeBook`) says what *it* must synchronise; this
//! registry is what lets the escalation of one scope reach the others: a
//! scope that aborts a stream aborts every open scope sharing it (their
//! work there is discarded too) and tells them, so that their end reports
//! [`Error::WorkAborted`](crate::Error::WorkAborted) instead of a result
//! that was never computed.
//!
//! Cost (issue 15): a scope enters the registry when it enlists its first
//! stream (a scope without lanes never takes its lock); an entry is one
//! flat (scope, stream, context) triple, so entering and leaving is a push
//! and a swap-remove under the lock, with nothing allocated per scope once
//! the vectors have grown; and the question "was this scope aborted?"
//! (asked at every `Parked::wait` and at the scope's end) is answered
//! without the lock until some escalation has ever run ([`ANY_ABORTED`]).

use std::sync::Mutex;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};

use crate::ffi::Raw;

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
    /// Open scopes that an escalation aborted (see [`aborted`]).
    aborted: Vec<u64>,
    /// (scope, event, stream it was recorded on, context): the user events
    /// recorded by open scopes.
    events: Vec<(u64, Raw, Raw, Raw)>,
}

static OPEN: Mutex<Registry> = Mutex::new(Registry {
    entries: Vec::new(),
    aborted: Vec::new(),
    events: Vec::new(),
});

/// Streams an escalation is aborting right now (one entry per escalation
/// that includes the stream): a scope that enlists one of them in the
/// meantime may have queued work there that the abort discards, so it is
/// marked aborted too. Guarded by `OPEN`'s lock.
static ABORTING: Mutex<Vec<Raw>> = Mutex::new(Vec::new());

/// Whether any escalation has ever started ([`abort_group`]). Set, holding
/// `OPEN`'s lock, before the first scope is marked aborted and before
/// anything enters `ABORTING`; never cleared. While it reads `false`, no
/// scope is marked aborted and `ABORTING` is empty, so [`aborted`] and
/// [`enlist`] skip the locks: reading `false` is the same answer a reader
/// holding the lock before the first escalation would get (sequentially
/// consistent: the store and the loads are in one total order).
static ANY_ABORTED: AtomicBool = AtomicBool::new(false);

/// Which scope recorded each user event last (0: a record outside any
/// scope). An escalation records again only the events whose last record
/// was made by a scope it aborted, never one a later record has replaced.
static LATEST: Mutex<Vec<(Raw, u64)>> = Mutex::new(Vec::new());

fn latest() -> std::sync::MutexGuard<'static, Vec<(Raw, u64)>> {
    LATEST.lock().unwrap_or_else(|e| e.into_inner())
}

/// `event` was recorded by scope `id` (0: outside any scope).
///
/// Inlined: a record outside any scope, while no scope ever recorded a
/// user event, costs one atomic load (issue 15, `Stream::record`).
#[inline]
pub(crate) fn record_made(event: Raw, id: u64) {
    if id == 0 && !ANY_RECORDED.load(Ordering::Acquire) {
        return;
    }
    note_record(event, id);
}

#[inline(never)]
fn note_record(event: Raw, id: u64) {
    let mut l = latest();
    match l.iter_mut().find(|(e, _)| *e == event) {
        Some(entry) => entry.1 = id,
        None if id != 0 => l.push((event, id)),
        None => {}
    }
}
static NEXT: AtomicU64 = AtomicU64::new(1);

#[inline]
fn open() -> std::sync::MutexGuard<'static, Registry> {
    OPEN.lock().unwrap_or_else(|e| e.into_inner())
}

/// The user events recorded in some scope and not destroyed since. An
/// escalation re-records only these, and holds this lock while it does;
/// [`event_destroyed`] removes an event, under the same lock, before the
/// event is destroyed. So no handle is recorded after its destruction, even
/// when the user drops the event inside the scope or on another thread.
static RECORDED: Mutex<Vec<Raw>> = Mutex::new(Vec::new());

/// Whether `RECORDED` may be non-empty: lets event destruction skip the lock
/// when no user event was ever recorded in a scope.
static ANY_RECORDED: AtomicBool = AtomicBool::new(false);

fn recorded_events() -> std::sync::MutexGuard<'static, Vec<Raw>> {
    RECORDED.lock().unwrap_or_else(|e| e.into_inner())
}

/// `event` is about to be destroyed (`aclrtDestroyEvent`): no escalation may
/// record it any more.
pub(crate) fn event_destroyed(event: Raw) {
    if ANY_RECORDED.load(Ordering::Acquire) {
        recorded_events().retain(|e| *e != event);
        latest().retain(|(e, _)| *e != event);
    }
}

/// Call `record` with each of `events` (event, stream, context) that has not
/// been destroyed, holding the lock that [`event_destroyed`] takes.
/// Only events whose last record was made by one of the scopes `ids` are
/// recorded: a later record by a scope that was not aborted stands.
pub(super) fn rerecord(
    events: &[(Raw, Raw, Raw)],
    ids: &[u64],
    mut record: impl FnMut(Raw, Raw, Raw),
) {
    let live = recorded_events();
    let last = latest();
    for &(event, stream, ctx) in events {
        let ours = last.iter().any(|&(e, by)| e == event && ids.contains(&by));
        if live.contains(&event) && ours {
            record(event, stream, ctx);
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
/// enlisted one (else it never entered the registry). Returns whether an escalation aborted it
/// ([`aborted`], asked under the same lock).
#[inline(always)]
pub(super) fn deregister(id: u64, streams: usize) -> bool {
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
    let mut aborted = false;
    if !all.aborted.is_empty() {
        all.aborted.retain(|a| {
            aborted |= *a == id;
            *a != id
        });
    }
    if !all.events.is_empty() {
        all.events.retain(|e| e.0 != id);
    }
    aborted
}

/// Scope `id` enlisted `stream` (of context `ctx`), which it had not
/// enlisted before; the first call enters the scope in the registry.
#[inline(always)]
pub(super) fn enlist(id: u64, stream: Raw, ctx: Raw) {
    let mut all = open();
    let aborting = ANY_ABORTED.load(Ordering::SeqCst)
        && ABORTING
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .contains(&stream);
    all.entries.push(Entry {
        id,
        stream,
        ctx,
        host_fns: false,
    });
    if aborting && !all.aborted.contains(&id) {
        all.aborted.push(id);
    }
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

/// The escalation that aborted `streams` is done with them.
pub(super) fn abort_done(streams: &[(Raw, Raw)]) {
    let _all = open();
    let mut aborting = ABORTING.lock().unwrap_or_else(|e| e.into_inner());
    for (s, _) in streams {
        if let Some(i) = aborting.iter().position(|a| a == s) {
            aborting.swap_remove(i);
        }
    }
}

pub(super) fn recorded(id: u64, event: Raw, stream: Raw, ctx: Raw) {
    {
        let mut live = recorded_events();
        if !live.contains(&event) {
            live.push(event);
        }
    }
    ANY_RECORDED.store(true, Ordering::Release);
    record_made(event, id);
    let mut all = open();
    if all.entries.iter().any(|e| e.id == id) {
        all.events.push((id, event, stream, ctx));
    }
}

/// Whether an escalation aborted (some of) scope `id`'s work.
#[inline]
pub(super) fn aborted(id: u64) -> bool {
    ANY_ABORTED.load(Ordering::SeqCst) && open().aborted.contains(&id)
}

/// Scope `id` and, transitively, every open scope sharing a stream with
/// one already in the group: mark them aborted, mark their streams as being
/// aborted (until [`abort_done`]), and return the streams (deduplicated),
/// the user events and the scopes' ids.
#[allow(clippy::type_complexity)]
pub(super) fn abort_group(id: u64) -> (Vec<(Raw, Raw)>, Vec<(Raw, Raw, Raw)>, Vec<u64>) {
    let mut all = open();
    // Before any scope is marked or any stream enters `ABORTING`, under the
    // lock (see `ANY_ABORTED`).
    ANY_ABORTED.store(true, Ordering::SeqCst);
    let mut ids = vec![id];
    loop {
        let streams: Vec<Raw> = all
            .entries
            .iter()
            .filter(|e| ids.contains(&e.id))
            .map(|e| e.stream)
            .collect();
        let mut grew = false;
        for e in &all.entries {
            if !ids.contains(&e.id) && streams.contains(&e.stream) {
                ids.push(e.id);
                grew = true;
            }
        }
        if !grew {
            break;
        }
    }
    // Only scopes in the registry are marked (a scope that enlisted nothing
    // is not there, and has nothing to abort).
    ids.retain(|i| all.entries.iter().any(|e| e.id == *i));
    let mut streams: Vec<(Raw, Raw)> = Vec::new();
    for e in all.entries.iter().filter(|e| ids.contains(&e.id)) {
        if !streams.iter().any(|t| t.0 == e.stream) {
            streams.push((e.stream, e.ctx));
        }
    }
    let events = all
        .events
        .iter()
        .filter(|e| ids.contains(&e.0))
        .map(|&(_, event, stream, ctx)| (event, stream, ctx))
        .collect();
    for &i in &ids {
        if !all.aborted.contains(&i) {
            all.aborted.push(i);
        }
    }
    ABORTING
        .lock()
        .unwrap_or_else(|e| e.into_inner())
        .extend(streams.iter().map(|s| s.0));
    (streams, events, ids)
}
