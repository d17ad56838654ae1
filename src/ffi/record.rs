//! One record per stream: what the crate knows about a stream that is not
//! the failure rule's clock, made with the stream (and with each context's
//! default stream, when the crate first hands it out), released with it
//! (`released::stream_released`, on every path that releases a stream).
//!
//! A record holds the stream's context, how many context synchronisations
//! are synchronising it now, the callback mechanism it used (a host
//! function ran on it; it is subscribed to a reporter: acl-facts 5.8, the
//! two must not mix on one stream), and whether an escalation's abort
//! discarded work queued on it outside scopes that its next
//! synchronisation has not reported yet. A stream's destruction takes its
//! record out in one step, once no context synchronisation uses the handle,
//! and puts it back whole if the runtime refuses the destruction.
//!
//! No `unsafe`; one lock, [`Rank::Streams`], taken last: nothing else is
//! taken, no runtime call is made and no user code runs while it is held.
#![deny(unsafe_code)]

use core::sync::atomic::{AtomicBool, Ordering};
use std::sync::Mutex;

use super::Raw;
use super::locks::{Rank, lock};

/// What the crate knows about one stream.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Record {
    stream: usize,
    ctx: usize,
    /// A context's default stream (synchronised by the context's own pass,
    /// released with the context).
    default: bool,
    /// How many context synchronisations are synchronising it now.
    syncing: u32,
    /// `aclrtLaunchHostFunc` succeeded on it: the runtime then serves it
    /// with its own callback thread for the rest of its life and refuses
    /// `aclrtSubscribeReport` on it (107011, fidelity row CB-MIX-2).
    host_fn_used: bool,
    /// Subscribed (through the crate) to a reporter.
    subscribed: bool,
    /// An escalation's abort discarded work queued on it outside scopes;
    /// its next synchronisation reports it.
    outside_aborted: bool,
}

impl Record {
    fn new(stream: Raw, ctx: usize, default: bool) -> Record {
        Record {
            stream: stream.as_ptr() as usize,
            ctx,
            default,
            syncing: 0,
            host_fn_used: false,
            subscribed: false,
            outside_aborted: false,
        }
    }
}

static RECORDS: Mutex<Vec<Record>> = Mutex::new(Vec::new());

/// Whether an escalation ever noted an outside abort (set before the first
/// note): until then [`take_outside_aborted`] is one load.
static ANY_OUTSIDE_ABORTED: AtomicBool = AtomicBool::new(false);

/// Run `f` on the records, under their lock (`f` is the crate's own
/// bookkeeping: no runtime call, no user code).
fn records<R>(f: impl FnOnce(&mut Vec<Record>) -> R) -> R {
    f(&mut lock(&RECORDS, Rank::Streams))
}

/// Run `f` on the record of `stream`; one is made (with no context, like a
/// default stream's) if the crate has none, so that a mark is never lost.
fn with_record<R>(stream: Raw, f: impl FnOnce(&mut Record) -> R) -> R {
    let key = stream.as_ptr() as usize;
    records(|r| {
        let i = match r.iter().position(|e| e.stream == key) {
            Some(i) => i,
            None => {
                r.push(Record::new(stream, 0, true));
                r.len() - 1
            }
        };
        f(&mut r[i])
    })
}

/// Read `f` of the record of `stream`; `None` without one.
fn read<R>(stream: Raw, f: impl FnOnce(&Record) -> R) -> Option<R> {
    let key = stream.as_ptr() as usize;
    records(|r| r.iter().find(|e| e.stream == key).map(f))
}

/// `stream` of context `ctx` was made.
pub(crate) fn made(stream: Raw, ctx: Raw) {
    let rec = Record::new(stream, ctx.as_ptr() as usize, false);
    records(|r| r.push(rec));
}

/// The default stream of `ctx` was handed out: its record, made once.
pub(crate) fn default_made(stream: Raw, ctx: Raw) {
    let key = stream.as_ptr() as usize;
    records(|r| {
        if !r.iter().any(|e| e.stream == key) {
            r.push(Record::new(stream, ctx.as_ptr() as usize, true));
        }
    });
}

/// `stream` is about to be destroyed: its record is taken out once no
/// context synchronisation is synchronising it (which waits only for the
/// stream's own work, as its destruction does); give it back with
/// [`restore`] if the destruction fails.
pub(crate) fn destroying(stream: Raw) -> Option<Record> {
    let key = stream.as_ptr() as usize;
    loop {
        let taken = records(|r| match r.iter().position(|e| e.stream == key) {
            Some(i) if r[i].syncing == 0 => Some(Some(r.swap_remove(i))),
            Some(_) => None,
            None => Some(None),
        });
        match taken {
            Some(rec) => return rec,
            None => std::thread::yield_now(),
        }
    }
}

/// The runtime refused to destroy the stream of `rec`: it is still alive.
pub(crate) fn restore(rec: Option<Record>) {
    if let Some(rec) = rec {
        records(|r| r.push(rec));
    }
}

/// The runtime released `stream` (destroyed, or a default stream with its
/// context): its record goes.
pub(crate) fn released(stream: Raw) {
    let key = stream.as_ptr() as usize;
    records(|r| r.retain(|e| e.stream != key));
}

/// The runtime was finalised or re-initialised: no stream lives.
pub(crate) fn clear() {
    records(Vec::clear);
}

/// Whether the crate holds a record of `stream` (a test hook's).
pub(crate) fn holds(stream: Raw) -> bool {
    read(stream, |_| ()).is_some()
}

/// Call `f` with each explicit stream of context `ctx` (made during the
/// pass too), one at a time, each kept from destruction while `f` runs;
/// stops when `f` says so (`false`).
pub(crate) fn each_stream_of(ctx: Raw, mut f: impl FnMut(Raw) -> bool) {
    let ctx = ctx.as_ptr() as usize;
    let mut done = Vec::new();
    loop {
        let next = records(|r| {
            let e = r
                .iter_mut()
                .find(|e| e.ctx == ctx && !e.default && !done.contains(&e.stream));
            e.map(|e| {
                e.syncing += 1;
                e.stream
            })
        });
        let Some(stream) = next else { return };
        done.push(stream);
        let go_on = Raw::new(stream as *mut _).is_some_and(&mut f);
        records(|r| {
            if let Some(e) = r.iter_mut().find(|e| e.stream == stream) {
                e.syncing -= 1;
            }
        });
        if !go_on {
            return;
        }
    }
}

/// `aclrtLaunchHostFunc` succeeded on `stream`.
pub(crate) fn mark_host_fn(stream: Raw) {
    with_record(stream, |r| r.host_fn_used = true);
}

/// Whether `aclrtLaunchHostFunc` ever succeeded on `stream`.
pub(crate) fn ever_had_host_fn(stream: Raw) -> bool {
    read(stream, |r| r.host_fn_used).unwrap_or(false)
}

/// `stream` was subscribed to a reporter (`on`) or unsubscribed.
pub(crate) fn set_subscribed(stream: Raw, on: bool) {
    with_record(stream, |r| r.subscribed = on);
}

/// Whether `stream` is subscribed (through the crate) to a reporter.
pub(crate) fn is_subscribed(stream: Raw) -> bool {
    read(stream, |r| r.subscribed).unwrap_or(false)
}

/// An escalation's abort discarded work queued on `stream` outside
/// scopes.
pub(crate) fn note_outside_aborted(stream: Raw) {
    ANY_OUTSIDE_ABORTED.store(true, Ordering::SeqCst);
    with_record(stream, |r| r.outside_aborted = true);
}

/// Whether an escalation's abort discarded work queued on `stream` outside
/// scopes since this was last asked; forgets it.
#[inline]
pub(crate) fn take_outside_aborted(stream: Raw) -> bool {
    if !ANY_OUTSIDE_ABORTED.load(Ordering::Acquire) {
        return false;
    }
    let key = stream.as_ptr() as usize;
    records(|r| match r.iter_mut().find(|e| e.stream == key) {
        Some(e) => core::mem::replace(&mut e.outside_aborted, false),
        None => false,
    })
}
