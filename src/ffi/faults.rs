//! The failures the crate's synchronisations have seen: the record behind
//! the failure rule (SAFETY.md, "The failure rule").
//!
//! The runtime keeps a failure of a queued task (a device fault, an
//! op-wait or op-execute timeout of a wait task or a kernel, any code) on
//! the task's stream and reports it **once**, to the next
//! `aclrtSynchronizeStream[WithTimeout]` of that stream or
//! `aclrtSynchronizeDevice[WithTimeout]` of its context; the report clears
//! it, and `aclrtSynchronizeEvent` does not report it in the default
//! failure mode. Nothing says which task failed. So every synchronisation
//! and stream query the crate makes enters **whatever it returns other than
//! success** here, with the stream (or, for a device synchronisation, the
//! context) and the value of a clock that moves only when a failure is
//! entered; a host function of a scope that panics enters one too, before
//! its stream goes on. Scopes read the record (`super::scope`): a failure
//! on one of their keys after a point sticks to the scope.
//!
//! The synchronisations in flight are watched (`protocol::fault_watch`,
//! model-checked), so a checked wait does not read the record while
//! another thread's synchronisation holds a failure it took from the
//! runtime but has not entered yet.
//!
//! Failures seen by runtime calls the crate does not make (a C library of
//! the user's on the same streams) are not here.
//!
//! No `unsafe`; one lock, [`Rank::Faults`], the highest: nothing is taken,
//! called or dropped by user code while it is held.
#![deny(unsafe_code)]

use super::Raw;
use super::locks::{Rank, lock};
pub(crate) use super::protocol::failure::Log;
pub(crate) use super::protocol::fault_watch::Ticket;
use super::protocol::fault_watch::Watch;
use crate::error::{Error, ErrorKind, Result};
use std::sync::Mutex;

/// The key of `stream` in the record and the watch: its handle's address.
/// A failure is seen on a stream, by its synchronisation or query (or a
/// host function on it); a context's synchronisation is made stream by
/// stream ([`each_stream_of`]), so every failure has its stream.
#[inline(always)]
pub(crate) fn key(stream: Raw) -> usize {
    stream.as_ptr() as usize
}

/// The record (`protocol::failure`, model-checked): one entry per stream
/// that failed (its latest failure), until the stream is destroyed
/// ([`forget_stream`]) or the runtime is finalised ([`clear`]).
static LOG: Log<Error> = Log::new_static();

/// The record, for the scopes' [`Sticky`](super::protocol::failure::Sticky).
#[inline(always)]
pub(crate) fn log() -> &'static Log<Error> {
    &LOG
}

/// The synchronisations in flight (see the module docs).
static WATCH: Watch<64> = Watch::new_static();

/// A synchronisation of `key` is about to call the runtime: [`end`] it
/// once the call returned and its failure (if any) was entered.
#[inline]
pub(crate) fn begin(key: usize) -> Ticket {
    WATCH.begin(key)
}

/// The synchronisation of `ticket` is over (see [`begin`]).
#[inline]
pub(crate) fn end(ticket: Ticket) {
    WATCH.end(ticket);
}

/// Wait until every synchronisation of a key `on` accepts that is in
/// flight now has ended (and entered its failure). Two loads while none is
/// in flight.
#[inline]
pub(crate) fn quiesce(on: impl Fn(usize) -> bool) {
    WATCH.quiesce(on);
}

/// No synchronisation is in flight (two loads).
#[inline(always)]
pub(crate) fn watch_idle() -> bool {
    WATCH.idle()
}

/// The clock.
#[inline(always)]
pub(crate) fn now() -> u64 {
    LOG.now()
}

/// A synchronisation, query or host function of `key` failed with
/// `error`, whatever its code: entered.
#[cold]
#[inline(never)]
pub(crate) fn enter(key: usize, error: &Error) {
    LOG.enter(key, error, error.kind() == ErrorKind::DeviceFault);
}

/// `stream` was destroyed: a later stream with the same handle starts
/// clean (scopes that used it have ended: it was borrowed by them).
pub(crate) fn forget_stream(stream: Raw) {
    LOG.forget(|k| k == key(stream));
}

/// The runtime was finalised or re-initialised: no handle in the log (or
/// in the stream registry) is valid any more. The clock keeps running.
pub(crate) fn clear() {
    streams(Vec::clear);
    LOG.forget(|_| true);
}

/// The streams the crate made: (stream, its context, how many context
/// synchronisations are synchronising it now).
static STREAMS: Mutex<Vec<(usize, usize, u32)>> = Mutex::new(Vec::new());

/// Run `f` on the registry of streams, under its lock (`f` is the crate's
/// own bookkeeping: no runtime call, no user code).
fn streams<R>(f: impl FnOnce(&mut Vec<(usize, usize, u32)>) -> R) -> R {
    f(&mut lock(&STREAMS, Rank::Streams))
}

/// `stream` of context `ctx` was made.
pub(crate) fn stream_made(stream: Raw, ctx: Raw) {
    let entry = (stream.as_ptr() as usize, ctx.as_ptr() as usize, 0);
    streams(|s| s.push(entry));
}

/// The context of `stream`, if the crate made it.
pub(crate) fn context_of(stream: Raw) -> Option<Raw> {
    let key = stream.as_ptr() as usize;
    let ctx = streams(|s| s.iter().find(|e| e.0 == key).map(|e| e.1))?;
    Raw::new(ctx as *mut core::ffi::c_void)
}

/// `stream` is about to be destroyed: it leaves the registry once no
/// context synchronisation is synchronising it (which waits only for the
/// stream's own work, as its destruction does).
pub(crate) fn stream_destroying(stream: Raw) {
    let key = stream.as_ptr() as usize;
    while !streams(|s| match s.iter().position(|e| e.0 == key) {
        Some(i) if s[i].2 == 0 => {
            s.swap_remove(i);
            true
        }
        Some(_) => false,
        None => true,
    }) {
        std::thread::yield_now();
    }
}

/// Call `f` with each stream of context `ctx` the crate made (made during
/// the pass too), one at a time, each kept from destruction while `f`
/// runs; stops when `f` says so (`false`).
pub(crate) fn each_stream_of(ctx: Raw, mut f: impl FnMut(Raw) -> bool) {
    let ctx = ctx.as_ptr() as usize;
    let mut done = Vec::new();
    loop {
        let next = streams(|s| {
            let e = s.iter_mut().find(|e| e.1 == ctx && !done.contains(&e.0));
            e.map(|e| {
                e.2 += 1;
                e.0
            })
        });
        let Some(stream) = next else { return };
        done.push(stream);
        let go_on = Raw::new(stream as *mut _).is_some_and(&mut f);
        streams(|s| {
            if let Some(e) = s.iter_mut().find(|e| e.0 == stream) {
                e.2 -= 1;
            }
        });
        if !go_on {
            return;
        }
    }
}

/// Synchronise context `ctx`: every stream the crate made in it, one by
/// one ([`each_stream_of`]), then its default stream; within `ms`
/// milliseconds in all if given (the pass stops at the first stream that
/// does not finish in time). Stream by stream, so that every failure is
/// entered for its stream and a checked wait never waits for another
/// thread's synchronisation of a stream that is not its scope's. The first
/// error is returned.
pub(crate) fn synchronize_context(ctx: Raw, ms: Option<i32>) -> Result<()> {
    super::refuse_in_callback("aclrtSynchronizeDevice")?;
    super::make_current(ctx)?;
    let default = super::current_default_stream()?;
    let deadline = ms.map(|ms| {
        std::time::Instant::now() + core::time::Duration::from_millis(ms.unsigned_abs().into())
    });
    let mut first = None;
    let mut sync = |stream: Raw| {
        let left = deadline.map(|d| {
            let left = d.saturating_duration_since(std::time::Instant::now());
            i32::try_from(left.as_millis().max(1)).unwrap_or(i32::MAX)
        });
        let r = match left {
            None => super::synchronize_stream(stream),
            Some(ms) => super::synchronize_stream_timeout(stream, ms),
        };
        match r {
            Ok(()) => true,
            Err(e) => {
                let gave_up = e.code() == Some(aclrt_sys::ACL_ERROR_RT_STREAM_SYNC_TIMEOUT);
                first.get_or_insert(e);
                !gave_up
            }
        }
    };
    let mut go_on = true;
    each_stream_of(ctx, |stream| {
        go_on = sync(stream);
        go_on
    });
    if go_on {
        sync(default);
    }
    first.map_or(Ok(()), Err)
}
