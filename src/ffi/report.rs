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

use core::ffi::c_void;
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, MutexGuard};

use aclrt_sys as sys;

use super::host_fn::Panic;
use super::{CallbackMark, Raw, check, make_current, refuse_in_callback};
use crate::error::Result;

/// Where the panics of a reporter's callbacks go.
pub(crate) type PanicSlot = Arc<Mutex<Option<Panic>>>;

/// What `userData` points to.
struct Payload {
    f: Box<dyn FnOnce() + Send + 'static>,
    panics: PanicSlot,
}

/// Runs a report callback; never unwinds.
extern "C" fn trampoline(user_data: *mut c_void) {
    // SAFETY: `user_data` is `Box::into_raw` of a `Payload` made by
    // `launch_callback`, which gave it to the runtime and kept no other
    // pointer to it; the runtime calls the callback at most once, so this
    // is the only owner and the box is not used after this call.
    let payload = unsafe { Box::from_raw(user_data as *mut Payload) };
    let Payload { f, panics } = *payload;
    // Blocking calls are refused on this thread while it runs (it may be the
    // stream's own worker, or hold up a BLOCK stream).
    let _mark = CallbackMark::enter();
    if let Err(p) = catch_unwind(AssertUnwindSafe(f)) {
        panics
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .get_or_insert(p);
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
    let user_data = Box::into_raw(Box::new(Payload { f, panics })) as *mut c_void;
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
        // SAFETY: the runtime refused the launch, so it holds no copy of
        // `user_data`, which came from `Box::into_raw` above.
        drop(unsafe { Box::from_raw(user_data as *mut Payload) });
    }
    launched
}

/// `aclrtProcessReport(ms)`: run one callback of the calling thread's
/// subscribed streams, waiting up to `ms`.
pub(crate) fn process_report(ms: i32) -> Result<()> {
    // SAFETY: plain integer argument (−1 or > 0, checked by the runtime).
    let code = unsafe { sys::aclrtProcessReport(ms) };
    check(code, "aclrtProcessReport")
}

struct Sub {
    stream: Raw,
    ctx: Raw,
    tid: u64,
}

/// The live subscriptions made through the crate. Held across runtime
/// calls (`aclrtUnSubscribeReport` may run queued callbacks on the calling
/// thread), so nothing a callback can reach takes it: the entry points that
/// do are refused inside callbacks first.
static SUBS: Mutex<Vec<Sub>> = Mutex::new(Vec::new());

/// The subscribed stream handles, a copy of `SUBS`'s kept in step with it
/// (locked only briefly, never across a call), for [`is_subscribed`], which
/// callbacks may reach (a host-function launch).
static SUBSCRIBED: Mutex<Vec<usize>> = Mutex::new(Vec::new());

fn set_subscribed(stream: Raw, on: bool) {
    let mut set = SUBSCRIBED.lock().unwrap_or_else(|e| e.into_inner());
    let key = stream.as_ptr() as usize;
    if on {
        set.push(key);
    } else if let Some(i) = set.iter().position(|&k| k == key) {
        set.swap_remove(i);
    }
}

/// Whether `SUBS` may be non-empty: set (holding `SUBS`'s lock) before the
/// first subscription is made, never cleared, so that destroying a stream
/// or a context skips the lock while no subscription was ever made
/// (issue 15). A subscription of a stream happens before the stream's
/// destruction (it borrows the stream), so the destruction then reads
/// `true`.
static ANY_SUB: AtomicBool = AtomicBool::new(false);

fn subs() -> MutexGuard<'static, Vec<Sub>> {
    SUBS.lock().unwrap_or_else(|e| e.into_inner())
}

/// `aclrtUnSubscribeReport(tid, stream)` with `ctx` made current. Queued
/// callbacks of the stream may run on this thread meanwhile.
fn unsubscribe_raw(sub: &Sub) -> Result<()> {
    make_current(sub.ctx)?;
    // SAFETY: `sub.stream` is live: a subscription leaves the book before
    // its stream is destroyed (`stream_destroying`); plain integer `tid`.
    let code = unsafe { sys::aclrtUnSubscribeReport(sub.tid, sub.stream.as_ptr()) };
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
        || super::host_fn::ever_had_host_fn(stream)
    {
        return Err(crate::error::Error::CallbackMix {
            operation: "aclrtSubscribeReport",
        });
    }
    let mut book = subs();
    ANY_SUB.store(true, Ordering::Release);
    super::stream_hooks_on();
    make_current(ctx)?;
    // SAFETY: `stream` is live (module invariant); plain integer `tid`.
    let code = unsafe { sys::aclrtSubscribeReport(tid, stream.as_ptr()) };
    check(code, "aclrtSubscribeReport")?;
    book.push(Sub { stream, ctx, tid });
    set_subscribed(stream, true);
    Ok(())
}

/// Undo the subscription of `stream` by `tid`, if it is still in the book
/// (it may have been undone already by a destruction).
pub(crate) fn unsubscribe(tid: u64, stream: Raw) -> Result<()> {
    refuse_in_callback("aclrtUnSubscribeReport")?;
    let mut book = subs();
    let Some(i) = book.iter().position(|s| s.stream == stream && s.tid == tid) else {
        return Ok(());
    };
    unsubscribe_raw(&book[i])?;
    book.swap_remove(i);
    set_subscribed(stream, false);
    Ok(())
}

/// Undo every subscription in the book matching `pred` (errors ignored: the
/// runtime forgets a stream's subscription when it is destroyed anyway).
fn undo_where(pred: impl Fn(&Sub) -> bool) {
    let mut book = subs();
    book.retain(|s| {
        if pred(s) {
            let _ = unsubscribe_raw(s);
            set_subscribed(s.stream, false);
            false
        } else {
            true
        }
    });
}

/// `stream` is about to be destroyed (not in a callback).
#[inline]
pub(crate) fn stream_destroying(stream: Raw) {
    if ANY_SUB.load(Ordering::Acquire) {
        undo_stream(stream);
    }
}

#[inline(never)]
fn undo_stream(stream: Raw) {
    if subs().is_empty() {
        return;
    }
    undo_where(|s| s.stream == stream);
}

/// `ctx` is about to be destroyed (not in a callback): its streams'
/// subscriptions go (the default stream's too, which only the context's
/// destruction releases).
pub(crate) fn context_destroying(ctx: Raw) {
    if !ANY_SUB.load(Ordering::Acquire) || subs().is_empty() {
        return;
    }
    undo_where(|s| s.ctx == ctx);
}

/// The reporting thread `tid` is about to stop calling `aclrtProcessReport`:
/// the subscriptions a leaked `Subscription` left are undone (their queued
/// callbacks run on this thread).
pub(crate) fn thread_exiting(tid: u64) {
    undo_where(|s| s.tid == tid);
}

/// Whether `stream` is subscribed (through the crate) to a reporter.
pub(crate) fn is_subscribed(stream: Raw) -> bool {
    let key = stream.as_ptr() as usize;
    SUBSCRIBED
        .lock()
        .unwrap_or_else(|e| e.into_inner())
        .contains(&key)
}

/// How many subscriptions `tid` has in the book.
pub(crate) fn count(tid: u64) -> usize {
    subs().iter().filter(|s| s.tid == tid).count()
}
