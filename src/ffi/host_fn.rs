//! Host functions (`aclrtLaunchHostFunc`): the trampoline the runtime calls,
//! the slot it is given, and the registry of unscoped (`'static`) ones.
//!
//! The runtime calls [`trampoline`] with the pointer it was given at launch,
//! on its callback thread, after the work queued before it; a device fault
//! or a stream abort may skip the call. So the slot behind that pointer
//! must stay alive until every task of the stream is known to have
//! finished, and only then may a host function that never ran be dropped.
//! Two owners keep slots that long: a scope (`ScopeCore`, until its final
//! synchronisation) and, for [`Stream::launch_host_fn`](crate::Stream::launch_host_fn),
//! the registry below (until the stream is synchronised, destroyed or the
//! runtime finalised).

use core::ffi::c_void;
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::sync::{Arc, Mutex};

use aclrt_sys as sys;

use super::locks::{Rank, lock};
use super::{CallbackMark, Raw, check};
use crate::error::Result;

/// The payload of a panic caught in a host function.
pub(crate) use crate::rule::panic_slot::Panic;

/// A host function queued on a stream, with room for its panic: the
/// protocol core [`protocol::host_fn_slot`](super::protocol::host_fn_slot)
/// (model-checked in `models/`), which says why it runs at most once and
/// never after [`settle`](super::protocol::host_fn_slot::HostFnSlot::settle)
/// returned.
pub(super) type HostFnSlot =
    super::protocol::host_fn_slot::HostFnSlot<Box<dyn FnOnce() + Send + 'static>, Panic>;

/// Runs a host function on the runtime's thread; never unwinds.
extern "C" fn trampoline(args: *mut c_void) {
    // SAFETY: `args` is `Arc::as_ptr` of a `HostFnSlot` given to `enqueue`,
    // whose caller keeps an `Arc` of it alive until every task queued on the
    // stream is known to have finished (its `# Safety`), which cannot happen
    // before this call returns; the slot is only accessed through `&`.
    let slot = unsafe { &*(args as *const HostFnSlot) };
    if let Some(f) = slot.begin_run() {
        let panic = {
            // Blocking calls and scopes are refused on this thread meanwhile.
            let _mark = CallbackMark::enter();
            catch_unwind(AssertUnwindSafe(|| {
                super::locks::user_code("a host function");
                f()
            }))
            .err()
        };
        // The last access to the slot: its owner may free it from now on.
        slot.end_run(panic);
    }
}

/// `aclrtLaunchHostFunc(stream, trampoline, slot)`; the stream's context
/// must be current.
///
/// # Safety
/// The caller keeps an `Arc` of `slot` alive until every task queued on
/// `stream` so far is known to have finished (a successful synchronisation,
/// an abort that returned, the stream's destruction, or finalisation); if
/// this returns an error the runtime never saw the slot.
pub(super) unsafe fn enqueue(stream: Raw, slot: &Arc<HostFnSlot>) -> Result<()> {
    // The documentation: do not mix `aclrtLaunchHostFunc` with the
    // `aclrtLaunchCallback` mechanism on one stream (acl-facts 5.8).
    if super::record::is_subscribed(stream) {
        return Err(crate::error::Error::CallbackMix {
            operation: "aclrtLaunchHostFunc",
        });
    }
    let args = Arc::as_ptr(slot) as *mut c_void;
    // SAFETY:
    // * `stream` is live (module invariant) and its context current (this
    //   function's contract with its callers in this module);
    // * `trampoline` has the `aclrtHostFunc` signature and never unwinds
    //   (it catches the host function's panic);
    // * `args` points to a `HostFnSlot` that stays alive until the runtime
    //   can no longer call `trampoline` with it (`# Safety` above).
    let code = unsafe { sys::aclrtLaunchHostFunc(stream.as_ptr(), Some(trampoline), args) };
    check(code, "aclrtLaunchHostFunc")?;
    super::mix::mark_host_fn_stream(stream);
    Ok(())
}

/// Unscoped (`'static`) host functions queued with
/// [`Stream::launch_host_fn`](crate::Stream::launch_host_fn), by stream.
///
/// The registry owns each slot until every task queued on its stream is known
/// to have finished ([`settle_static_host_fns`]); only then is a host
/// function that never ran (skipped by a device fault) dropped, and the slot
/// freed. Until then the runtime may still call the trampoline with it.
static PENDING_STATIC: Mutex<Vec<(usize, Arc<HostFnSlot>)>> = Mutex::new(Vec::new());

/// Whether `PENDING_STATIC` may be non-empty: lets synchronisation and
/// destruction of streams skip the lock when no unscoped host function was
/// ever queued (the common case).
static ANY_PENDING_STATIC: core::sync::atomic::AtomicBool =
    core::sync::atomic::AtomicBool::new(false);

/// Queue a `'static` host function on `stream` (`aclrtLaunchHostFunc`); the
/// stream's context must be current.
pub(crate) fn launch_static_host_fn(
    stream: Raw,
    f: Box<dyn FnOnce() + Send + 'static>,
) -> Result<()> {
    let slot = HostFnSlot::new(f);
    let key = stream.as_ptr() as usize;
    lock(&PENDING_STATIC, Rank::PendingStatic).push((key, Arc::clone(&slot)));
    ANY_PENDING_STATIC.store(true, core::sync::atomic::Ordering::Release);
    super::stream_hooks_on();
    // SAFETY: the registry holds an `Arc` of `slot` (pushed above) until
    // `settle_static_host_fns` is called for this stream, which its callers
    // do only once every task queued there has finished.
    let queued = unsafe { enqueue(stream, &slot) };
    if queued.is_err() {
        // Not queued: the runtime never saw the slot, so the entry can go now.
        lock(&PENDING_STATIC, Rank::PendingStatic).retain(|(_, s)| !Arc::ptr_eq(s, &slot));
    }
    queued
}

/// Whether unscoped host functions queued on `stream` have not been
/// settled yet (the stream was not synchronised since they were queued).
pub(crate) fn has_unsettled_static(stream: Raw) -> bool {
    if !ANY_PENDING_STATIC.load(core::sync::atomic::Ordering::Acquire) {
        return false;
    }
    let key = stream.as_ptr() as usize;
    lock(&PENDING_STATIC, Rank::PendingStatic)
        .iter()
        .any(|(k, _)| *k == key)
}

/// Release the unscoped host functions of `stream` (`None`: of every
/// stream). Call only once every task queued there has finished (a
/// successful synchronisation or destruction of the stream, or finalize):
/// host functions that never ran are dropped here. Returns the payload of
/// the first one that panicked, and whether one never ran (an escalation's
/// abort of the stream discarded it, or a device fault skipped it).
///
/// Inlined: while no unscoped host function was ever queued it is one
/// atomic load (a stream destroy called it out of line).
#[inline]
pub(crate) fn settle_static_host_fns(stream: Option<Raw>) -> Settled {
    if !ANY_PENDING_STATIC.load(core::sync::atomic::Ordering::Acquire) {
        return Settled::default();
    }
    settle_pending(stream)
}

#[inline(never)]
fn settle_pending(stream: Option<Raw>) -> Settled {
    let settled: Vec<Arc<HostFnSlot>> = {
        let mut pending = lock(&PENDING_STATIC, Rank::PendingStatic);
        if pending.is_empty() {
            return Settled::default();
        }
        let key = stream.map(|s| s.as_ptr() as usize);
        let mut settled = Vec::new();
        pending.retain(|(k, slot)| {
            if key.is_none_or(|key| key == *k) {
                settled.push(Arc::clone(slot));
                false
            } else {
                true
            }
        });
        settled
    };
    let mut out = Settled::default();
    for slot in settled {
        let (p, lost) = slot.settle();
        out.lost |= lost;
        if let Some(p) = p {
            if out.panic.is_none() {
                out.panic = Some(p);
            }
        }
    }
    out
}

/// What [`settle_static_host_fns`] found.
#[derive(Default)]
pub(crate) struct Settled {
    /// The first panic of a host function.
    pub(crate) panic: Option<Panic>,
    /// Whether a host function never ran.
    pub(crate) lost: bool,
}

/// Key of unscoped host functions whose stream was force-destroyed: only
/// [`settle_static_host_fns(None)`](settle_static_host_fns) (finalize)
/// releases them, since one of them may still be running and the stream's
/// handle value may be reused by a new stream.
const PARKED: usize = 0;

/// Parks the unscoped host functions of a force-destroyed `stream` (see
/// [`PARKED`]).
pub(crate) fn park_static_host_fns(stream: Raw) {
    if !ANY_PENDING_STATIC.load(core::sync::atomic::Ordering::Acquire) {
        return;
    }
    let key = stream.as_ptr() as usize;
    for (k, _) in lock(&PENDING_STATIC, Rank::PendingStatic).iter_mut() {
        if *k == key {
            *k = PARKED;
        }
    }
}
