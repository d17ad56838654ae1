//! Exception-info callbacks (`aclrtExceptionInfoCallbackRegister`,
//! `…Unregister`, the `aclrtGet*FromExceptionInfo` getters): one safe
//! function per C call, the crate's one trampoline, and the crate-owned
//! book of the user's handlers it runs.
//!
//! The runtime holds a plain function pointer: [`trampoline`]. It is
//! registered while the book holds a handler and unregistered when the
//! last one leaves (under [`Rank::ExcRegister`], which the trampoline never
//! takes). A report is handled in three steps, none under a crate lock
//! while user code runs:
//! 1. the failure rule: the stream it names (device and id) is resolved
//!    through the streams' records, pinned there while its failure is
//!    entered (`record::pin_by_id`: a destroyed stream's id resolves to
//!    nothing, and a stream is not destroyed meanwhile; a record reads its
//!    stream's id the first time a report needs it, counted on the record
//!    while it asks);
//! 2. the handlers are collected under [`Rank::ExcHandlers`], each counted
//!    as running, and the lock released (`protocol::handler_book`,
//!    model-checked: a removal waits until no report of another thread
//!    runs the handler, and a report does not run a removed one);
//! 3. each runs with the calling thread marked as in a callback (waits for
//!    the device are refused there), its panic caught and kept for its
//!    owner, and is uncounted after.

use std::any::Any;
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::sync::{Arc, Mutex};

use aclrt_sys as sys;

use super::locks::{Rank, lock, user_code};
use super::protocol::handler_book::{Entry, HandlerBook};
use super::{Raw, check};
use crate::error::{Error, ErrorKind, Result};

/// What a report says (read by the getters in the trampoline).
#[derive(Clone, Copy, Debug)]
pub(crate) struct Facts {
    pub(crate) device: u32,
    pub(crate) stream_id: u32,
    pub(crate) task_id: u32,
    pub(crate) thread_id: u32,
    pub(crate) code: u32,
    /// The stream it names is one the crate holds a record of: the failure
    /// was entered for it.
    pub(crate) entered: bool,
}

/// A handler the user registered, with the first panic it raised.
pub(crate) struct Handler {
    pub(crate) f: Box<dyn Fn(&Facts) + Send + Sync>,
    pub(crate) panic: Mutex<Option<Box<dyn Any + Send>>>,
}

/// A handler in the book.
pub(crate) type Registered = Arc<Entry<Handler>>;

/// The handlers registered now (`protocol::handler_book`, model-checked),
/// and whether the trampoline is registered with the runtime.
static HANDLERS: HandlerBook<Handler> = HandlerBook::new_static();
static REGISTERED: Mutex<bool> = Mutex::new(false);

std::thread_local! {
    /// The handlers a report on this thread collected and has not finished
    /// with (one removed from inside a handler is not waited for: it is
    /// marked gone and skipped).
    static RUNNING: core::cell::RefCell<Vec<u64>> = const { core::cell::RefCell::new(Vec::new()) };
}

/// A fresh handler id.
pub(crate) fn next_id() -> u64 {
    static NEXT: core::sync::atomic::AtomicU64 = core::sync::atomic::AtomicU64::new(1);
    NEXT.fetch_add(1, core::sync::atomic::Ordering::Relaxed)
}

/// Add `h` to the book under `id`, registering the trampoline with the
/// runtime if it is not yet; on the runtime's refusal `h` is taken out
/// again (and dropped, under no lock).
pub(crate) fn add(id: u64, h: Handler) -> Result<()> {
    let mut registered = lock(&REGISTERED, Rank::ExcRegister);
    HANDLERS.add(id, h);
    if !*registered {
        if let Err(e) = register() {
            drop(registered);
            drop(HANDLERS.remove(id, 0));
            return Err(e);
        }
        *registered = true;
    }
    Ok(())
}

/// Take handler `id` out of the book (unregistering the trampoline when
/// the book is empty), wait until no report of another thread runs it (a
/// report of this thread that collected it skips it from now on), and
/// hand it back. The runtime's error of the unregistration, if any, is
/// returned beside it (the handler is out of the book either way).
pub(crate) fn remove(id: u64) -> (Option<Registered>, Result<()>) {
    let own = RUNNING
        .try_with(|r| r.borrow().iter().filter(|&&x| x == id).count())
        .unwrap_or(0);
    // Waits for other threads' reports holding no crate lock (a handler
    // may register or remove handlers meanwhile).
    let mine = HANDLERS.remove(id, own);
    let mut registered = lock(&REGISTERED, Rank::ExcRegister);
    let mut result = Ok(());
    if HANDLERS.is_empty() && *registered {
        result = unregister();
        if result.is_ok() {
            *registered = false;
        }
    }
    drop(registered);
    (mine, result)
}

/// Take the first panic handler `h` raised, if any.
pub(crate) fn take_panic(h: &Registered) -> Option<Box<dyn Any + Send>> {
    lock(&h.h.panic, Rank::ExcPanic).take()
}

/// `aclrtExceptionInfoCallbackRegister(trampoline)`.
fn register() -> Result<()> {
    // SAFETY: `trampoline` is a plain `extern "C"` function of the
    // callback's signature that never unwinds and lives for the program.
    let code = unsafe { sys::aclrtExceptionInfoCallbackRegister(Some(trampoline)) };
    check(code, "aclrtExceptionInfoCallbackRegister")
}

/// `aclrtExceptionInfoCallbackUnregister(trampoline)`.
fn unregister() -> Result<()> {
    // SAFETY: as in `register`: the function pointer is the one registered.
    let code = unsafe { sys::aclrtExceptionInfoCallbackUnregister(Some(trampoline)) };
    check(code, "aclrtExceptionInfoCallbackUnregister")
}

/// A report the runtime passed to [`trampoline`]: valid for the whole
/// callback, read only through the getters below.
#[derive(Clone, Copy)]
struct Report(*const sys::aclrtExceptionInfo);

/// `aclrtGetDeviceIdFromExceptionInfo(info)`.
fn device_id(info: Report) -> u32 {
    // SAFETY: `info.0` is the runtime's report, valid while the callback
    // runs (callers run inside it); the getter only reads it.
    unsafe { sys::aclrtGetDeviceIdFromExceptionInfo(info.0) }
}

/// `aclrtGetStreamIdFromExceptionInfo(info)`.
fn stream_id(info: Report) -> u32 {
    // SAFETY: as in `device_id`.
    unsafe { sys::aclrtGetStreamIdFromExceptionInfo(info.0) }
}

/// `aclrtGetTaskIdFromExceptionInfo(info)`.
fn task_id(info: Report) -> u32 {
    // SAFETY: as in `device_id`.
    unsafe { sys::aclrtGetTaskIdFromExceptionInfo(info.0) }
}

/// `aclrtGetThreadIdFromExceptionInfo(info)`.
fn thread_id(info: Report) -> u32 {
    // SAFETY: as in `device_id`.
    unsafe { sys::aclrtGetThreadIdFromExceptionInfo(info.0) }
}

/// `aclrtGetErrorCodeFromExceptionInfo(info)`.
fn error_code(info: Report) -> u32 {
    // SAFETY: as in `device_id`.
    unsafe { sys::aclrtGetErrorCodeFromExceptionInfo(info.0) }
}

/// The facts of the report `info`.
fn facts(info: Report) -> Facts {
    Facts {
        device: device_id(info),
        stream_id: stream_id(info),
        task_id: task_id(info),
        thread_id: thread_id(info),
        code: error_code(info),
        entered: false,
    }
}

/// The failure a report stands for.
pub(crate) fn error_of(code: u32) -> Error {
    let code = code as i32;
    Error::Acl {
        code,
        kind: ErrorKind::from_code(code),
        function: "aclrtExceptionInfoCallback",
        message: String::new(),
    }
}

/// The function the runtime calls with each report. Never unwinds.
unsafe extern "C" fn trampoline(info: *mut sys::aclrtExceptionInfo) {
    let _ = catch_unwind(AssertUnwindSafe(|| {
        handle(facts(Report(info.cast_const())))
    }));
}

fn handle(mut facts: Facts) {
    // 1. The failure rule (no user code; no runtime call while the stream
    // found is pinned).
    if let (Ok(device), Ok(id)) = (i32::try_from(facts.device), i32::try_from(facts.stream_id)) {
        if let Some(stream) = super::record::pin_by_id(device, id) {
            super::faults::enter(super::faults::key(stream), &error_of(facts.code));
            super::record::unpin(stream);
            facts.entered = true;
        }
    }
    // 2. The handlers, collected (and counted) under the book's lock.
    let handlers = HANDLERS.collect();
    // 3. Each run after its release.
    let _ = RUNNING.try_with(|r| r.borrow_mut().extend(handlers.iter().map(|e| e.id)));
    for e in handlers {
        if e.may_run() {
            user_code("an exception handler");
            let _mark = super::CallbackMark::enter();
            let out = catch_unwind(AssertUnwindSafe(|| (e.h.f)(&facts)));
            if let Err(p) = out {
                let mut slot = lock(&e.h.panic, Rank::ExcPanic);
                if slot.is_none() {
                    *slot = Some(p);
                } else {
                    drop(slot);
                    // A later panic's payload: dropped under no lock, its
                    // own panic contained.
                    let _ = catch_unwind(AssertUnwindSafe(move || drop(p)));
                }
            }
        }
        let _ = RUNNING.try_with(|r| {
            let mut r = r.borrow_mut();
            if let Some(i) = r.iter().rposition(|x| *x == e.id) {
                r.remove(i);
            }
        });
        // Its owner's removal waits for this.
        HandlerBook::done(&e);
        // If the owner removed it from inside a handler on this thread,
        // this clone may be the last: the closure is dropped here, under
        // no lock.
        drop(e);
    }
}

/// The runtime's (device, id) of the live `stream`, from its record (read
/// from the runtime once, the first time it is needed).
pub(crate) fn runtime_id_of(stream: Raw) -> Option<(i32, i32)> {
    super::record::runtime_id_of(stream)
}
