//! The registry of open scopes: which streams each has enlisted, which user
//! events it recorded, and whether another scope's escalation aborted it.
//!
//! A scope's own book (`ScopeBook`) says what *it* must synchronise; this
//! registry is what lets the escalation of one scope reach the others: a
//! scope that aborts a stream aborts every open scope sharing it (their
//! work there is discarded too) and tells them, so that their end reports
//! [`Error::WorkAborted`](crate::Error::WorkAborted) instead of a result
//! that was never computed.

use std::sync::Mutex;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};

use crate::ffi::Raw;

struct Open {
    id: u64,
    /// (stream, its context).
    streams: Vec<(Raw, Raw)>,
    /// (event, stream it was recorded on, context).
    events: Vec<(Raw, Raw, Raw)>,
    aborted: bool,
}

static OPEN: Mutex<Vec<Open>> = Mutex::new(Vec::new());

/// Streams an escalation is aborting right now (one entry per escalation
/// that includes the stream): a scope that enlists one of them in the
/// meantime may have queued work there that the abort discards, so it is
/// marked aborted too. Guarded by `OPEN`'s lock.
static ABORTING: Mutex<Vec<Raw>> = Mutex::new(Vec::new());

/// Which scope recorded each user event last (0: a record outside any
/// scope). An escalation records again only the events whose last record
/// was made by a scope it aborted, never one a later record has replaced.
static LATEST: Mutex<Vec<(Raw, u64)>> = Mutex::new(Vec::new());

fn latest() -> std::sync::MutexGuard<'static, Vec<(Raw, u64)>> {
    LATEST.lock().unwrap_or_else(|e| e.into_inner())
}

/// `event` was recorded by scope `id` (0: outside any scope).
pub(crate) fn record_made(event: Raw, id: u64) {
    if id == 0 && !ANY_RECORDED.load(Ordering::Acquire) {
        return;
    }
    let mut l = latest();
    match l.iter_mut().find(|(e, _)| *e == event) {
        Some(entry) => entry.1 = id,
        None if id != 0 => l.push((event, id)),
        None => {}
    }
}
static NEXT: AtomicU64 = AtomicU64::new(1);

fn open() -> std::sync::MutexGuard<'static, Vec<Open>> {
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

pub(super) fn register() -> u64 {
    let id = NEXT.fetch_add(1, Ordering::Relaxed);
    open().push(Open {
        id,
        streams: Vec::new(),
        events: Vec::new(),
        aborted: false,
    });
    id
}

pub(super) fn deregister(id: u64) {
    open().retain(|o| o.id != id);
}

pub(super) fn enlist(id: u64, stream: Raw, ctx: Raw) {
    let mut all = open();
    let aborting = ABORTING
        .lock()
        .unwrap_or_else(|e| e.into_inner())
        .contains(&stream);
    if let Some(o) = all.iter_mut().find(|o| o.id == id) {
        o.streams.push((stream, ctx));
        if aborting {
            o.aborted = true;
        }
    }
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
    if let Some(o) = open().iter_mut().find(|o| o.id == id) {
        o.events.push((event, stream, ctx));
    }
}

pub(super) fn aborted(id: u64) -> bool {
    open().iter().any(|o| o.id == id && o.aborted)
}

/// Scope `id` and, transitively, every open scope sharing a stream with
/// one already in the group: mark them aborted, mark their streams as being
/// aborted (until [`abort_done`]), and return the streams (deduplicated),
/// the user events and the scopes' ids.
#[allow(clippy::type_complexity)]
pub(super) fn abort_group(id: u64) -> (Vec<(Raw, Raw)>, Vec<(Raw, Raw, Raw)>, Vec<u64>) {
    let mut all = open();
    let mut in_group: Vec<bool> = all.iter().map(|o| o.id == id).collect();
    loop {
        let streams: Vec<Raw> = all
            .iter()
            .zip(&in_group)
            .filter(|(_, g)| **g)
            .flat_map(|(o, _)| o.streams.iter().map(|s| s.0))
            .collect();
        let mut grew = false;
        for (o, g) in all.iter().zip(in_group.iter_mut()) {
            if !*g && o.streams.iter().any(|s| streams.contains(&s.0)) {
                *g = true;
                grew = true;
            }
        }
        if !grew {
            break;
        }
    }
    let mut streams: Vec<(Raw, Raw)> = Vec::new();
    let mut events = Vec::new();
    let mut ids = Vec::new();
    for (o, g) in all.iter_mut().zip(&in_group) {
        if *g {
            o.aborted = true;
            ids.push(o.id);
            for &s in &o.streams {
                if !streams.iter().any(|t| t.0 == s.0) {
                    streams.push(s);
                }
            }
            events.extend(o.events.iter().copied());
        }
    }
    ABORTING
        .lock()
        .unwrap_or_else(|e| e.into_inner())
        .extend(streams.iter().map(|s| s.0));
    (streams, events, ids)
}
