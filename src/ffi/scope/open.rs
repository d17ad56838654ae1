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
use std::sync::atomic::{AtomicU64, Ordering};

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
static NEXT: AtomicU64 = AtomicU64::new(1);

fn open() -> std::sync::MutexGuard<'static, Vec<Open>> {
    OPEN.lock().unwrap_or_else(|e| e.into_inner())
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
    if let Some(o) = open().iter_mut().find(|o| o.id == id) {
        o.streams.push((stream, ctx));
    }
}

pub(super) fn recorded(id: u64, event: Raw, stream: Raw, ctx: Raw) {
    if let Some(o) = open().iter_mut().find(|o| o.id == id) {
        o.events.push((event, stream, ctx));
    }
}

pub(super) fn aborted(id: u64) -> bool {
    open().iter().any(|o| o.id == id && o.aborted)
}

/// Scope `id` and, transitively, every open scope sharing a stream with
/// one already in the group: mark them aborted and return their streams
/// (deduplicated) and user events.
#[allow(clippy::type_complexity)]
pub(super) fn abort_group(id: u64) -> (Vec<(Raw, Raw)>, Vec<(Raw, Raw, Raw)>) {
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
    for (o, g) in all.iter_mut().zip(&in_group) {
        if *g {
            o.aborted = true;
            for &s in &o.streams {
                if !streams.iter().any(|t| t.0 == s.0) {
                    streams.push(s);
                }
            }
            events.extend(o.events.iter().copied());
        }
    }
    (streams, events)
}
