//! One record per stream: what the crate knows about a stream besides the
//! failure rule's record, made with the stream (and with each context's
//! default stream, when the crate first hands it out), released with it
//! (`released`, on every path that releases a stream).
//!
//! A record holds the stream's context, how many context synchronisations
//! are using it now, the callback mechanism it used (a host function ran on
//! it; it is subscribed to a reporter: acl-facts 5.8, the two must not mix
//! on one stream), and whether an escalation's abort discarded work queued
//! on it outside scopes that its next synchronisation has not reported yet,
//! and which escalations aborted it (what a scope with one lane, which no
//! registry holds, asks to learn that its work was discarded).
//! A stream's destruction takes its record out in one step, once no context
//! synchronisation uses the handle, and puts it back whole if the runtime
//! refuses the destruction (the core, `protocol::records`, is
//! model-checked).
//!
//! No `unsafe`; one lock, [`Rank::Streams`](super::locks::Rank::Streams),
//! taken last: nothing else is taken, no runtime call is made and no user
//! code runs while it is held.
#![deny(unsafe_code)]

use core::sync::atomic::{AtomicBool, Ordering};

use super::Raw;
pub(crate) use super::protocol::records::Record;
use super::protocol::records::Records;

static RECORDS: Records = Records::new_static();

/// Whether an escalation ever noted an outside abort (set before the first
/// note): until then [`take_outside_aborted`] is one load.
static ANY_OUTSIDE_ABORTED: AtomicBool = AtomicBool::new(false);

#[inline(always)]
fn key(handle: Raw) -> usize {
    handle.as_ptr() as usize
}

/// The runtime's name of `stream` (of context `ctx`) in exception
/// reports: the context's device (from the live book) and the stream's id
/// (`aclrtStreamGetId`, asked with no crate lock held); `None` if either is
/// unknown. The id only names the stream in reports: without it a report
/// on the stream is not resolved to it (its synchronisation still reports
/// the failure). `stream` must be live (the caller counts itself on its
/// record, or borrows it).
fn runtime_id(stream: Raw, ctx: Raw) -> Option<(i32, i32)> {
    let device = super::live::device_of(ctx)?;
    let id = super::device_info::stream_id(stream).ok()?;
    Some((device, id))
}

/// [`runtime_id`] of the handles a record holds.
fn runtime_id_of_keys(stream: usize, ctx: usize) -> Option<(i32, i32)> {
    let stream = Raw::new(stream as *mut core::ffi::c_void)?;
    let ctx = Raw::new(ctx as *mut core::ffi::c_void)?;
    runtime_id(stream, ctx)
}

/// Whether a stream may have something in a book that only some features
/// fill: a report subscription, a stream wait outside a scope, an unscoped
/// host function, a host-function mark, an escalation's abort. Each sets
/// it ([`hooks_on`]) before the first such thing is made, and it is never
/// cleared; while it is `false` a release skips those books with one load.
static HOOKS: AtomicBool = AtomicBool::new(false);

/// Something [`HOOKS`] covers is about to be made.
pub(crate) fn hooks_on() {
    HOOKS.store(true, Ordering::Release);
}

/// Whether anything [`HOOKS`] covers was ever made.
#[inline(always)]
pub(crate) fn hooks() -> bool {
    HOOKS.load(Ordering::Acquire)
}

/// `stream` of context `ctx` was made (its runtime id is read the first
/// time a report needs it).
#[inline]
pub(crate) fn made(stream: Raw, ctx: Raw) {
    RECORDS.made(key(stream), key(ctx));
}

/// The default stream of `ctx` was handed out: its record, made once.
pub(crate) fn default_made(stream: Raw, ctx: Raw) {
    let id = runtime_id(stream, ctx);
    RECORDS.default_made(key(stream), key(ctx), id);
}

/// The stream the runtime names `id` on `device` in an exception report,
/// if the crate holds its record (a destroyed stream's record is gone with
/// it): kept from destruction until [`unpin`] (no runtime call, no user
/// code in between: the caller enters the failure and unpins). The ids of
/// records that have not read theirs yet are read on the way
/// (`aclrtStreamGetId`, each stream counted on its record meanwhile).
pub(crate) fn pin_by_id(device: i32, id: i32) -> Option<Raw> {
    let stream = RECORDS.pin_by_id(device, id, runtime_id_of_keys)?;
    let raw = Raw::new(stream as *mut core::ffi::c_void);
    if raw.is_none() {
        RECORDS.unpin(stream);
    }
    raw
}

/// The use [`pin_by_id`] counted is over.
pub(crate) fn unpin(stream: Raw) {
    RECORDS.unpin(key(stream));
}

/// The runtime's (device, id) of the live `stream`, from its record (read
/// from the runtime the first time it is needed); `None` without a record.
pub(crate) fn runtime_id_of(stream: Raw) -> Option<(i32, i32)> {
    RECORDS.runtime_id(key(stream), runtime_id_of_keys)
}

/// `stream` is about to be destroyed: its record is taken out once no
/// context synchronisation uses the handle ([`restore`] it if the
/// destruction fails).
#[inline]
pub(crate) fn destroying(stream: Raw) -> Option<Record> {
    RECORDS.destroying(key(stream))
}

/// The runtime refused to destroy the stream of `rec`.
pub(crate) fn restore(rec: Option<Record>) {
    RECORDS.restore(rec);
}

/// The runtime released `stream` (a default stream with its context).
pub(crate) fn released(stream: Raw) {
    RECORDS.released(key(stream));
}

/// The runtime was finalised or re-initialised: no stream lives.
pub(crate) fn clear() {
    RECORDS.clear();
}

/// The context of `stream`, if the crate made the stream (or handed it
/// out as a context's default stream).
pub(crate) fn context_of(stream: Raw) -> Option<Raw> {
    let ctx = RECORDS.read(key(stream), |r| r.context())?;
    Raw::new(ctx as *mut core::ffi::c_void)
}

/// Whether the crate holds a record of `stream` (a test hook's).
pub(crate) fn holds(stream: Raw) -> bool {
    RECORDS.read(key(stream), |_| ()).is_some()
}

/// Call `f` with each explicit stream of context `ctx`, each kept from
/// destruction while `f` runs; stops when `f` says so (`false`).
pub(crate) fn each_stream_of(ctx: Raw, mut f: impl FnMut(Raw) -> bool) {
    RECORDS.each_stream_of(key(ctx), |s| {
        Raw::new(s as *mut core::ffi::c_void).is_some_and(&mut f)
    });
}

/// `aclrtLaunchHostFunc` succeeded on `stream`.
pub(crate) fn mark_host_fn(stream: Raw) {
    RECORDS.mark(key(stream), |r| r.host_fn_used = true);
}

/// Whether `aclrtLaunchHostFunc` ever succeeded on `stream`.
pub(crate) fn ever_had_host_fn(stream: Raw) -> bool {
    RECORDS
        .read(key(stream), |r| r.host_fn_used)
        .unwrap_or(false)
}

/// `stream` was subscribed to a reporter (`on`) or unsubscribed.
pub(crate) fn set_subscribed(stream: Raw, on: bool) {
    if on {
        RECORDS.mark(key(stream), |r| r.subscribed = true);
    } else {
        RECORDS.update(key(stream), |r| r.subscribed = false);
    }
}

/// Whether `stream` is subscribed (through the crate) to a reporter.
pub(crate) fn is_subscribed(stream: Raw) -> bool {
    RECORDS.read(key(stream), |r| r.subscribed).unwrap_or(false)
}

/// An escalation's abort discarded work queued on `stream` outside scopes.
pub(crate) fn note_outside_aborted(stream: Raw) {
    ANY_OUTSIDE_ABORTED.store(true, Ordering::SeqCst);
    RECORDS.mark(key(stream), |r| r.outside_aborted = true);
}

/// Whether an escalation's abort discarded work queued on `stream` outside
/// scopes since this was last asked; forgets it.
#[inline]
pub(crate) fn take_outside_aborted(stream: Raw) -> bool {
    if !ANY_OUTSIDE_ABORTED.load(Ordering::Acquire) {
        return false;
    }
    RECORDS
        .update(key(stream), |r| {
            core::mem::replace(&mut r.outside_aborted, false)
        })
        .unwrap_or(false)
}

/// An escalation is about to abort `streams` (until [`abort_ends`]).
pub(crate) fn abort_begins(streams: impl Iterator<Item = Raw>) {
    let keys: Vec<usize> = streams.map(key).collect();
    RECORDS.abort_begins(&keys);
}

/// Every abort of the escalation numbered `n` of `streams` returned.
pub(crate) fn abort_ends(streams: impl Iterator<Item = Raw>, n: u64) {
    let keys: Vec<usize> = streams.map(key).collect();
    RECORDS.abort_ends(&keys, n);
}

/// Whether an escalation may have discarded work queued on `stream` after
/// `ticket` (the number of escalations finished then) was taken.
pub(crate) fn aborted_since(stream: Raw, ticket: u64) -> bool {
    RECORDS.aborted_since(key(stream), ticket)
}

/// Whether an escalation is aborting `stream` now.
pub(crate) fn is_aborting(stream: Raw) -> bool {
    RECORDS.is_aborting(key(stream))
}
