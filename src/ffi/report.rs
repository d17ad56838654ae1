//! The report-callback flow (`aclrtSubscribeReport`, `aclrtLaunchCallback`,
//! `aclrtProcessReport`, `aclrtUnSubscribeReport`): the trampoline the
//! runtime calls, and the book of live subscriptions.
//!
//! # Callback payloads
//! A callback's closure is `Send + 'static` and boxed; the box's pointer is
//! the `userData` of `aclrtLaunchCallback`, and the trampoline takes the box
//! back and frees it after the call. The runtime calls each launched
//! callback at most once (on the reporting thread, on the thread that
//! unsubscribes the stream, or on the stream's worker when no thread is
//! subscribed any more). A callback that is never called (its task skipped
//! by a device fault or a stream abort, or the runtime torn down) leaks its
//! box: memory, never a dangling pointer, because nothing else frees it.
//!
//! # Subscriptions
//! Every subscription made through the crate is in [`SUBS`] until it is
//! undone, whichever comes first: the `Subscription` is dropped, its stream
//! is destroyed ([`stream_destroying`]), its context is destroyed
//! ([`context_destroying`]) or its reporter's thread exits
//! ([`thread_exiting`], which undoes the ones a leaked `Subscription` left).
//! So a stream is never left subscribed to a thread that no longer calls
//! `aclrtProcessReport` (a blocking callback would block the stream
//! forever), and the runtime never sees a subscription of a destroyed
//! stream.
//!
//! This file holds the runtime calls (each in its `unsafe` block) and the
//! book's statics; the bookkeeping beside them is in child modules that
//! deny `unsafe`: `subs` (undoing and counting subscriptions), re-exported
//! here, and beside the basement `rule::panic_slot` (where the callbacks'
//! panics go).

mod subs;

pub(crate) use crate::rule::panic_slot::{PanicSlot, keep_panic, take_panic};
pub(crate) use subs::{context_destroying, count, stream_destroying, thread_exiting, unsubscribe};

use core::ffi::c_void;
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Condvar, Mutex};

use aclrt_sys as sys;

use super::locks::{self, Rank, lock};
use super::mix;
use super::protocol::sub_book::{self, SubBook, Undo};
use super::{CallbackMark, Raw, check, make_current, refuse_in_callback};
use crate::error::Result;

/// What `userData` points to.
struct Payload {
    f: Box<dyn FnOnce() + Send + 'static>,
    panics: PanicSlot,
    /// Its entry in the book of callbacks not run yet ([`mix::take_unrun`]).
    id: u64,
}

/// Runs a report callback; never unwinds.
extern "C" fn trampoline(user_data: *mut c_void) {
    // SAFETY: `user_data` is `Box::into_raw` of a `Payload` made by
    // `launch_callback`, which gave it to the runtime and kept no other
    // pointer to it; the runtime calls the callback at most once, so this
    // is the only owner and the box is not used after this call.
    let payload = unsafe { Box::from_raw(user_data as *mut Payload) };
    let Payload { f, panics, id } = *payload;
    // Blocking calls are refused on this thread while it runs (it may be the
    // stream's own worker, or hold up a BLOCK stream).
    let _mark = CallbackMark::enter();
    // Inside the guard: the debug checks' panics never cross `extern "C"`.
    if let Err(p) = catch_unwind(AssertUnwindSafe(|| {
        mix::forget_callback(id);
        locks::user_code("a report callback");
        f()
    })) {
        keep_panic(&panics, p);
    }
}

/// `aclrtLaunchCallback(trampoline, f, block, stream)`; the stream's context
/// must be current and the stream subscribed.
pub(crate) fn launch_callback(
    stream: Raw,
    block: bool,
    f: Box<dyn FnOnce() + Send + 'static>,
    panics: PanicSlot,
) -> Result<()> {
    let id = mix::enter_callback(stream);
    let user_data = Box::into_raw(Box::new(Payload { f, panics, id })) as *mut c_void;
    let block_type = if block {
        sys::ACL_CALLBACK_BLOCK
    } else {
        sys::ACL_CALLBACK_NO_BLOCK
    };
    // SAFETY:
    // * `stream` is live (module invariant) and its context current (the
    //   caller's contract);
    // * `trampoline` has the `aclrtCallback` signature and never unwinds;
    // * `user_data` is an owned `Payload` box handed to the runtime, which
    //   calls `trampoline` with it at most once (see the module docs); a
    //   failing `aclrtLaunchCallback` queues nothing (its documented
    //   contract: the error is returned before the task is submitted), so
    //   the runtime never calls it then and it is freed below.
    let code = unsafe {
        sys::aclrtLaunchCallback(Some(trampoline), user_data, block_type, stream.as_ptr())
    };
    let launched = check(code, "aclrtLaunchCallback");
    if launched.is_err() {
        mix::forget_callback(id);
        // SAFETY: the runtime refused the launch, so it holds no copy of
        // `user_data`, which came from `Box::into_raw` above.
        let payload = unsafe { Box::from_raw(user_data as *mut Payload) };
        // The user's closure is dropped holding no crate lock.
        locks::user_code("the drop of a report callback");
        drop(payload);
    }
    launched
}

/// `aclrtProcessReport(ms)`: wait up to `ms` for the calling thread's
/// subscribed streams to report, then run every callback reported by then.
pub(crate) fn process_report(ms: i32) -> Result<()> {
    // SAFETY: plain integer argument (−1 or > 0, checked by the runtime).
    let code = unsafe { sys::aclrtProcessReport(ms) };
    check(code, "aclrtProcessReport")
}

/// The live subscriptions made through the crate: the protocol core
/// `protocol::sub_book` (model-checked in `models/`), which says who undoes
/// an entry and when a destruction may go on.
///
/// Never held across `aclrtUnSubscribeReport`, which runs the stream's
/// queued callbacks on the calling thread (user code, which may stop or
/// drop a reporter, whose thread then takes this lock as it exits): an
/// entry is claimed (`undoing`) under the lock, unsubscribed after
/// releasing it, and removed under it again. `aclrtSubscribeReport`,
/// which runs nothing, is called holding it.
static SUBS: Mutex<SubBook<Raw>> = Mutex::new(SubBook::new());

/// Notified (under `SUBS`' lock) whenever an entry stops being `undoing`.
static UNDONE: Condvar = Condvar::new();

/// Whether `SUBS` may be non-empty: set (holding `SUBS`'s lock) before the
/// first subscription is made, never cleared, so that destroying a stream
/// or a context skips the lock while no subscription was ever made.
/// A subscription of a stream happens before the stream's
/// destruction (it borrows the stream), so the destruction then reads
/// `true`.
static ANY_SUB: AtomicBool = AtomicBool::new(false);

/// `aclrtUnSubscribeReport(tid, stream)` of a claimed entry, with `ctx`
/// made current, called by the core holding no crate lock: queued
/// callbacks of the stream may run on this thread meanwhile.
fn unsubscribe_raw(u: &Undo<Raw>) -> Result<()> {
    // The breach the lock-discipline check must catch (tests only): the
    // book's lock held across the call, as the crate once did.
    // Debug builds only: a release build never holds the lock here.
    let _held = (cfg!(debug_assertions) && locks::BREAK_ON_PURPOSE.load(Ordering::Relaxed))
        .then(|| lock(&SUBS, Rank::Subs));
    make_current(u.ctx)?;
    // SAFETY: `u.stream` is live: its entry is in the book, claimed by
    // this thread, and a destruction of the stream (or its context) waits
    // until no entry of it is being undone (`sub_book::undo_where`) before
    // the handle is destroyed; plain integer `tid`.
    let code = unsafe { sys::aclrtUnSubscribeReport(u.tid, u.stream.as_ptr()) };
    check(code, "aclrtUnSubscribeReport")
}

/// `aclrtSubscribeReport(tid, stream)`, `ctx` (the stream's context)
/// current; entered in the book.
pub(crate) fn subscribe(tid: u64, stream: Raw, ctx: Raw) -> Result<()> {
    refuse_in_callback("aclrtSubscribeReport")?;
    // Host functions queued with `Stream::launch_host_fn` and not yet
    // settled by a synchronisation, or queued by a scope that is still
    // open (`Lane::host_fn`): the two mechanisms would mix.
    // And a stream that ever had a host function: the runtime keeps it on
    // its own callback thread for good (107011 on hardware).
    if super::host_fn::has_unsettled_static(stream)
        || super::scope::host_fns_pending(stream)
        || super::record::ever_had_host_fn(stream)
    {
        return Err(crate::error::Error::CallbackMix {
            operation: "aclrtSubscribeReport",
        });
    }
    // Waits for another thread's unsubscription of this stream first, as
    // the lock once made callers wait (the simulator forgets the
    // subscription before it runs the queued callbacks; a runtime that
    // lists it until the call returns would answer 100033 otherwise).
    sub_book::subscribe(
        &SUBS,
        &UNDONE,
        (stream, ctx, tid),
        || {
            ANY_SUB.store(true, Ordering::Release);
            super::stream_hooks_on();
            make_current(ctx)?;
            // SAFETY: `stream` is live (module invariant); plain integer `tid`.
            let code = unsafe { sys::aclrtSubscribeReport(tid, stream.as_ptr()) };
            check(code, "aclrtSubscribeReport")
        },
        |stream| super::record::set_subscribed(stream, true),
    )
}
