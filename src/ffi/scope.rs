//! Leak-safe asynchronous work: [`Scope`], [`Lane`], [`InFlight`], [`Signal`].
//!
//! This module is part of the unsafe boundary because its soundness argument
//! is about time, not types: memory handed to an asynchronous runtime call
//! must stay alive and untouched by the CPU until the device is done with it.
//!
//! # The argument
//! * A [`Scope`] is created, used and finished by [`run`], in one stack frame
//!   that the user never owns: the user only gets `&'scope Scope`, so the
//!   scope cannot be leaked (`mem::forget`) or outlive that frame.
//! * Every asynchronous operation borrows its memory for `'scope` (a shared
//!   `&'scope S`, or an exclusive `&'scope mut D` that lives on inside an
//!   [`InFlight`]). Such borrows end only when [`run`] returns.
//! * [`run`] synchronises every stream the scope queued work on before it
//!   returns — after the user's closure returns, returns an error, or panics
//!   (a drop guard in [`run`]'s own frame) — so no queued operation can touch
//!   memory after its borrow ends. If a stream cannot be synchronised even
//!   after retries, the process aborts rather than return.
//! * An exclusive buffer moves between streams only as an [`InFlight`] value
//!   branded with its stream (`'sid`, an invariant lifetime from
//!   `make_guard!`): [`Lane::signal`] records an event after its last use and
//!   [`Lane::wait_for`] makes the next stream wait for that event, so work on
//!   one buffer is ordered across streams. [`InFlight::wait`] synchronises
//!   the stream before it hands the `&mut` back to the CPU.
//! * While a buffer is in flight no reference to it is created: its address
//!   and size are cached at the first use (runtime allocations do not move
//!   with their owner), host functions see only `&mut [T]` built from that
//!   cache, and `&mut D` is rebuilt only after synchronisation.

use core::any::Any;
use core::cell::RefCell;
use core::ffi::c_void;
use core::marker::PhantomData;
use core::ptr::NonNull;
use std::panic::{AssertUnwindSafe, catch_unwind, resume_unwind};
use std::sync::{Arc, Mutex};

use aclrt_sys as sys;
use generativity::{Guard, Id};

use super::{Raw, Region, check};
use crate::error::Result;
use crate::event::{Event, EventKind, EventState, IsRecorded, Recorded};
use crate::memory::access::{CpuVisible, RawSource};
use crate::memory::{
    AsyncDirection, CopyDirection, DeviceRepr, Memory, MemoryMut, PinnedMemory, Place,
};
use crate::mode::{Residency, RunMode, memcpy_kind};
use crate::stream::Stream;

/// A host function queued on a stream, with room for its panic.
struct HostFnSlot {
    /// Taken by the trampoline when it runs, or by the scope after the final
    /// synchronisation if it never ran (a device fault skipped it).
    f: Mutex<Option<Box<dyn FnOnce() + Send + 'static>>>,
    panic: Mutex<Option<Box<dyn Any + Send + 'static>>>,
}

/// Runs a scoped host function on the runtime's thread; never unwinds.
extern "C" fn scoped_trampoline(args: *mut c_void) {
    // SAFETY: `args` is `Arc::as_ptr` of a `HostFnSlot` that the scope keeps
    // alive (it holds an `Arc`) until the stream has been synchronised, which
    // cannot complete before this call returns.
    let slot = unsafe { &*(args as *const HostFnSlot) };
    let f = slot.f.lock().unwrap_or_else(|e| e.into_inner()).take();
    if let Some(f) = f {
        // Blocking calls and scopes are refused on this thread meanwhile.
        let _mark = super::CallbackMark::enter();
        if let Err(payload) = catch_unwind(AssertUnwindSafe(f)) {
            *slot.panic.lock().unwrap_or_else(|e| e.into_inner()) = Some(payload);
        }
    }
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

/// Queue a `'static` host function on `stream` (`aclrtLaunchHostFunc`).
pub(crate) fn launch_static_host_fn(
    stream: Raw,
    f: Box<dyn FnOnce() + Send + 'static>,
) -> Result<()> {
    let slot = Arc::new(HostFnSlot {
        f: Mutex::new(Some(f)),
        panic: Mutex::new(None),
    });
    let args = Arc::as_ptr(&slot) as *mut c_void;
    let key = stream.as_ptr() as usize;
    PENDING_STATIC
        .lock()
        .unwrap_or_else(|e| e.into_inner())
        .push((key, Arc::clone(&slot)));
    ANY_PENDING_STATIC.store(true, core::sync::atomic::Ordering::Release);
    // SAFETY: `stream` is live; the trampoline matches `aclrtHostFunc`; `args`
    // points to a slot the registry keeps alive until the stream's work is
    // known to be finished.
    let code = unsafe { sys::aclrtLaunchHostFunc(stream.as_ptr(), Some(scoped_trampoline), args) };
    if code != sys::ACL_SUCCESS {
        // Not queued: the runtime never saw `args`, so the entry can go now.
        PENDING_STATIC
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .retain(|(_, s)| !Arc::ptr_eq(s, &slot));
    }
    check(code, "aclrtLaunchHostFunc")
}

/// Release the unscoped host functions of `stream` (`None`: of every
/// stream). Call only once every task queued there has finished (a
/// successful synchronisation or destruction of the stream, or finalize):
/// host functions that never ran are dropped here. Returns the payload of
/// the first one that panicked.
pub(crate) fn settle_static_host_fns(stream: Option<Raw>) -> Option<Box<dyn Any + Send + 'static>> {
    if !ANY_PENDING_STATIC.load(core::sync::atomic::Ordering::Acquire) {
        return None;
    }
    let settled: Vec<Arc<HostFnSlot>> = {
        let mut pending = PENDING_STATIC.lock().unwrap_or_else(|e| e.into_inner());
        if pending.is_empty() {
            return None;
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
    let mut panic = None;
    for slot in settled {
        drop(slot.f.lock().unwrap_or_else(|e| e.into_inner()).take());
        if let Some(p) = slot.panic.lock().unwrap_or_else(|e| e.into_inner()).take() {
            panic.get_or_insert(p);
        }
    }
    panic
}

/// A region in which asynchronous work may borrow memory; see the module
/// docs and [`Context::scope`](crate::Context::scope).
///
/// Neither `Send` nor `Sync`: a scope is driven by the thread that opened it
/// (use one scope per thread; contexts and streams are shareable).
pub struct Scope<'scope, 'env: 'scope, 'id: 'env, M: RunMode> {
    ctx: Raw,
    /// This scope's entry in the registry of open scopes ([`open`]).
    id: u64,
    book: RefCell<ScopeBook>,
    _scope: PhantomData<&'scope mut &'scope ()>,
    _env: PhantomData<&'env mut &'env ()>,
    _brand: PhantomData<Id<'id>>,
    _mode: PhantomData<M>,
    _thread: PhantomData<ScopeStaysOnItsThread>,
}

/// What a scope must synchronise and release when it ends.
#[derive(Default)]
struct ScopeBook {
    streams: Vec<Raw>,
    events: Vec<Raw>,
    host_fns: Vec<Arc<HostFnSlot>>,
}

/// Makes [`Scope`] (and so [`Lane`]) neither `Send` nor `Sync`: a scope is
/// driven by the thread that opened it; open one scope per thread.
struct ScopeStaysOnItsThread(#[allow(dead_code)] *mut ());

impl<M: RunMode> core::fmt::Debug for Scope<'_, '_, '_, M> {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("Scope")
            .field("context", &self.ctx.as_ptr())
            .field("streams", &self.book.borrow().streams.len())
            .finish()
    }
}

/// How the end of a scope made the memory it borrowed unused when its
/// streams did not finish normally (a deadline passed, or synchronisation
/// kept failing). Carried by [`Error::ScopeTimeout`](crate::Error::ScopeTimeout).
///
/// The scope only borrows its streams and device, so it cannot destroy or
/// reset them; and `aclrtDestroyStreamForce` would not help anyway: the
/// device may keep touching the memory of dropped tasks until a device
/// synchronisation (acl-facts F.9). The steps, in order:
/// 1. `aclrtStreamAbort` on **every** stream of the scope (streams waiting
///    on an aborted one may hang, so all are aborted): running tasks stop,
///    queued ones are discarded, and the call returns only when the stream is
///    idle.
/// 2. Where an abort fails (unsupported, or an error), an unbounded
///    `aclrtSynchronizeStream` of that stream: the deadline is missed, but
///    the memory is safe.
/// 3. Only if that fails three times too does the process abort (with a
///    message on stderr): returning would hand memory back to safe code
///    while the device may still write it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum Escalation {
    /// Every stream of the scope was aborted (`aclrtStreamAbort`).
    StreamAbort,
    /// At least one abort failed; those streams were synchronised without a
    /// time limit.
    UnboundedSynchronize,
    /// The runtime no longer knew the streams (their context or the runtime
    /// was torn down, e.g. by `sim::reset()`): nothing can run on them.
    StreamGone,
}

impl core::fmt::Display for Escalation {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.write_str(match self {
            Escalation::StreamAbort => "aborting every stream of the scope (aclrtStreamAbort)",
            Escalation::UnboundedSynchronize => {
                "an unbounded synchronisation (aclrtStreamAbort failed)"
            }
            Escalation::StreamGone => "nothing: the runtime no longer knew the streams",
        })
    }
}

/// Open a scope on context `ctx`, run `f`, and synchronise every stream it
/// used before returning (also on error and on panic). With a `timeout`, the
/// synchronisation is bounded: see [`Escalation`].
pub(crate) fn run<'env, 'id: 'env, M, R, F>(
    ctx: Raw,
    timeout: Option<core::time::Duration>,
    f: F,
) -> Result<R>
where
    M: RunMode,
    F: for<'scope> FnOnce(&'scope Scope<'scope, 'env, 'id, M>) -> Result<R>,
{
    super::refuse_in_callback("Context::scope")?;
    let scope = Scope {
        ctx,
        id: open::register(),
        book: RefCell::new(ScopeBook::default()),
        _scope: PhantomData,
        _env: PhantomData,
        _brand: PhantomData,
        _mode: PhantomData,
        _thread: PhantomData,
    };
    // A deadline too far to represent is no deadline.
    let deadline = timeout.and_then(|t| Some((t, std::time::Instant::now().checked_add(t)?)));
    struct FinishOnUnwind<'a, 'scope, 'env, 'id, M: RunMode>(
        &'a Scope<'scope, 'env, 'id, M>,
        Option<(core::time::Duration, std::time::Instant)>,
    );
    impl<M: RunMode> Drop for FinishOnUnwind<'_, '_, '_, '_, M> {
        fn drop(&mut self) {
            // Only reached while unwinding: errors and panics of host
            // functions cannot be reported, but the synchronisation happens.
            let _ = self.0.finish(self.1);
        }
    }
    let guard = FinishOnUnwind(&scope, deadline);
    let result = f(&scope);
    core::mem::forget(guard);
    let (finished, panic) = scope.finish(deadline);
    if let Some(payload) = panic {
        resume_unwind(payload);
    }
    match (result, finished) {
        (Err(e), Ok(())) => Err(e),
        // A timeout of the end wins: the caller must learn that the work
        // was stopped.
        (Err(e), Err(fin)) => Err(if matches!(fin, crate::Error::ScopeTimeout { .. }) {
            fin
        } else {
            e
        }),
        (Ok(_), Err(e)) => Err(e),
        (Ok(r), Ok(())) => Ok(r),
    }
}

/// Whether an error says the runtime no longer knows the stream (its
/// context or the whole runtime was torn down, e.g. by `sim::reset`): then
/// no task of it can run any more.
fn stream_is_gone(e: &crate::Error) -> bool {
    use crate::ErrorKind as K;
    matches!(e.kind(), K::InvalidHandle | K::NoContext | K::Lifecycle)
}

/// Make every stream of scope `id` idle without waiting for its work — and
/// every stream of every other open scope that shares one of them, since
/// work there may wait on what the abort discards: abort them all, and
/// synchronise without a limit those whose abort failed. The scopes
/// concerned learn it ([`open::aborted`]); the user events recorded in them
/// are recorded again on their now idle streams, so that no later wait on
/// them hangs. Aborts the process only when a stream can neither be aborted
/// nor synchronised and still exists.
fn escalate(id: u64) -> Escalation {
    let (streams, events) = open::abort_group(id);
    let mut escalation = Escalation::StreamAbort;
    for &(stream, ctx) in &streams {
        let mut gone = false;
        let aborted = (0..3).any(|_| match super::abort_stream(ctx, stream) {
            Ok(()) => true,
            Err(e) => {
                gone |= stream_is_gone(&e);
                gone
            }
        });
        if aborted {
            if gone && escalation == Escalation::StreamAbort {
                escalation = Escalation::StreamGone;
            }
            continue;
        }
        escalation = Escalation::UnboundedSynchronize;
        let synced = (0..3).any(|_| {
            let _ = super::make_current(ctx);
            match super::synchronize_stream(stream) {
                Ok(()) => true,
                Err(e) => stream_is_gone(&e),
            }
        });
        if !synced {
            eprintln!(
                "aclrt: a stream of a Scope can neither be aborted nor synchronised; \
                 aborting the process because borrowed memory may still be in use by \
                 the device"
            );
            std::process::abort();
        }
    }
    for (event, stream, ctx) in events {
        if super::make_current(ctx).is_ok() {
            let _ = super::record_event(event, stream);
        }
    }
    escalation
}

/// The registry of open scopes: which streams each has enlisted, which user
/// events it recorded, and whether another scope's escalation aborted it.
mod open {
    use std::sync::Mutex;
    use std::sync::atomic::{AtomicU64, Ordering};

    use super::Raw;

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
}

/// Milliseconds left until `deadline`, at least 1 (0 would mean "forever"
/// to the runtime), or `None` when it has passed.
fn millis_left(deadline: std::time::Instant) -> Option<i32> {
    let left = deadline.checked_duration_since(std::time::Instant::now())?;
    if left.is_zero() {
        return None;
    }
    Some(i32::try_from(left.as_millis().max(1)).unwrap_or(i32::MAX))
}

impl<'scope, 'env, 'id, M: RunMode> Scope<'scope, 'env, 'id, M> {
    fn enlist(&self, stream: Raw) {
        let streams = &mut self.book.borrow_mut().streams;
        if !streams.contains(&stream) {
            streams.push(stream);
            open::enlist(self.id, stream, self.ctx);
        }
    }

    /// Synchronise every enlisted stream (within the deadline, if any);
    /// where that fails, escalate (see [`Escalation`]) so that no borrow can
    /// end while the device may still use it; then destroy the scope's
    /// events and release the host functions.
    fn finish(
        &self,
        deadline: Option<(core::time::Duration, std::time::Instant)>,
    ) -> (Result<()>, Option<Box<dyn Any + Send + 'static>>) {
        let mut first_err = None;
        let streams = core::mem::take(&mut self.book.borrow_mut().streams);
        let mut stuck = false;
        let mut timed_out = false;
        for &stream in &streams {
            let mut tries = 0;
            loop {
                // aclrtSynchronizeStream switches to the stream's context by
                // itself; making it current first is a courtesy.
                let _ = super::make_current(self.ctx);
                let synced = match deadline {
                    None => super::synchronize_stream(stream),
                    Some((_, at)) => match millis_left(at) {
                        Some(ms) => super::synchronize_stream_timeout(stream, ms),
                        // The deadline has passed: only a stream already idle
                        // is done.
                        None => match super::stream_is_complete(stream) {
                            Ok(true) => super::synchronize_stream(stream),
                            _ => {
                                timed_out = true;
                                break;
                            }
                        },
                    },
                };
                match synced {
                    Ok(()) => break,
                    Err(e) if deadline.is_some() && e.is_timeout() => {
                        timed_out = true;
                        break;
                    }
                    Err(e) => {
                        // A device fault is reported once, then cleared.
                        first_err.get_or_insert(e);
                        tries += 1;
                        if tries >= 3 {
                            stuck = true;
                            break;
                        }
                    }
                }
            }
            if timed_out || stuck {
                break;
            }
        }
        if timed_out || stuck {
            let escalation = escalate(self.id);
            if timed_out {
                let millis = deadline.map_or(0, |(t, _)| t.as_millis());
                first_err = Some(crate::Error::ScopeTimeout { millis, escalation });
            }
        } else if open::aborted(self.id) {
            // Another scope's deadline aborted a stream this one shares (or
            // one it depends on): some of this scope's work was discarded.
            first_err = Some(crate::Error::WorkAborted);
        }
        open::deregister(self.id);
        let events = core::mem::take(&mut self.book.borrow_mut().events);
        for event in events {
            if let Err(e) = super::destroy_event(event) {
                first_err.get_or_insert(e);
            }
        }
        let mut panic = None;
        let host_fns = core::mem::take(&mut self.book.borrow_mut().host_fns);
        for slot in host_fns {
            // A host function skipped by a device fault or discarded by an
            // abort is dropped here, on this thread, after the streams are idle.
            drop(slot.f.lock().unwrap_or_else(|e| e.into_inner()).take());
            if let Some(p) = slot.panic.lock().unwrap_or_else(|e| e.into_inner()).take() {
                panic.get_or_insert(p);
            }
        }
        (first_err.map_or(Ok(()), Err), panic)
    }

    /// Enlist `stream` in this scope as a lane, branded `'sid` by `guard`
    /// (from [`make_guard!`](crate::make_guard)). Buffers in flight on one lane
    /// can reach another only through [`Lane::signal`] / [`Lane::wait_for`].
    ///
    /// # Compile errors
    /// Using an [`InFlight`] of another lane, or memory, streams or events
    /// of another context, makes two brands meet. Rust reports that as
    /// `E0716 temporary value dropped while borrowed` (or "lifetime may not
    /// live long enough") **at one of the `make_guard!` lines**, not at the
    /// call that mixed them: look for the call that uses operands of two
    /// lanes (or contexts), and hand the buffer over with
    /// `lane_b.wait_for(lane_a.signal(x)?)?`.
    pub fn lane<'sid>(
        &'scope self,
        stream: &'scope Stream<'_, 'id>,
        guard: Guard<'sid>,
    ) -> Lane<'scope, 'env, 'id, 'sid, M> {
        let _ = Id::from(guard);
        self.enlist(stream.raw());
        Lane {
            scope: self,
            stream: stream.raw(),
            _sid: PhantomData,
        }
    }
}

/// A stream enlisted in a [`Scope`], branded `'sid`: the place where
/// asynchronous work is queued.
pub struct Lane<'scope, 'env, 'id, 'sid, M: RunMode> {
    scope: &'scope Scope<'scope, 'env, 'id, M>,
    stream: Raw,
    _sid: PhantomData<Id<'sid>>,
}

impl<M: RunMode> core::fmt::Debug for Lane<'_, '_, '_, '_, M> {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("Lane")
            .field("stream", &self.stream.as_ptr())
            .finish()
    }
}

/// A buffer with asynchronous work queued on the lane branded `'sid`.
///
/// Holds the exclusive borrow of the buffer for the rest of the scope. Use it
/// as the operand of more work on the same lane, hand it to another lane
/// ([`Lane::signal`], [`Lane::wait_for`]), or get the `&mut` back with
/// [`InFlight::wait`], which synchronises the lane first. Forgetting it is
/// harmless: the buffer stays borrowed until the scope has synchronised.
#[must_use = "a buffer in flight stays borrowed until the scope ends; `wait()` gives it back"]
pub struct InFlight<'scope, 'sid, D: ?Sized> {
    ptr: NonNull<D>,
    region: Region,
    len: usize,
    stream: Raw,
    ctx: Raw,
    scope: u64,
    _borrow: PhantomData<&'scope mut D>,
    _sid: PhantomData<Id<'sid>>,
}

impl<D: ?Sized> core::fmt::Debug for InFlight<'_, '_, D> {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("InFlight")
            .field("address", &self.region.ptr)
            .field("len", &self.len)
            .field("stream", &self.stream.as_ptr())
            .finish()
    }
}

impl<'scope, 'sid, D: ?Sized> InFlight<'scope, 'sid, D> {
    /// Number of elements.
    pub fn len(&self) -> usize {
        self.len
    }

    /// Whether there are no elements.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// Synchronise the lane (`aclrtSynchronizeStream`) and give the buffer
    /// back to the CPU for the rest of the scope.
    ///
    /// On error (e.g. a device fault reported by the synchronisation) the
    /// buffer stays borrowed until the scope ends.
    #[doc(alias = "aclrtSynchronizeStream")]
    pub fn wait(self) -> Result<&'scope mut D> {
        let _ = super::make_current(self.ctx);
        super::synchronize_stream(self.stream)?;
        if open::aborted(self.scope) {
            // The work was (partly) discarded: its result is not there.
            return Err(crate::Error::WorkAborted);
        }
        // SAFETY: `ptr` came from a `&'scope mut D` whose borrow this value
        // carries (`_borrow`), and no other reference to `*ptr` exists while
        // it is in flight (module invariant). All work that used the region
        // ran on this lane's stream — or on streams this lane waited for
        // through events, which the lane's tasks follow — and the stream has
        // just been synchronised, so no asynchronous access remains. `self`
        // is consumed, so the pointer is turned back into `&mut` once.
        Ok(unsafe { &mut *self.ptr.as_ptr() })
    }
}

/// A buffer handed from one lane to others: an event recorded on the
/// source lane after the buffer's last use there. Consume it with
/// [`Lane::wait_for`] on the lane that continues.
#[must_use = "a signal does nothing until a lane waits for it"]
pub struct Signal<'scope, 'id, 'sid, D: ?Sized> {
    event: Raw,
    item: InFlight<'scope, 'sid, D>,
    _brand: PhantomData<Id<'id>>,
}

impl<D: ?Sized> core::fmt::Debug for Signal<'_, '_, '_, D> {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("Signal")
            .field("event", &self.event.as_ptr())
            .field("item", &self.item)
            .finish()
    }
}

/// A point on a lane that several other lanes of the same context may wait
/// for ([`Lane::mark`], [`Lane::wait_mark`]).
#[derive(Clone, Copy, Debug)]
pub struct Mark<'scope, 'id, 'sid> {
    event: Raw,
    _p: PhantomData<(&'scope (), Id<'id>, Id<'sid>)>,
}

mod sealed {
    pub trait Operand {}
}

/// A source operand of asynchronous work on the lane branded `'sid`.
///
/// Implemented by `&'scope S` for pinned or device memory `S` of the same
/// context (shared for the rest of the scope), and by `&InFlight` of the
/// same lane. Sealed.
#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot be read by asynchronous work on this lane",
    label = "not a source for this lane",
    note = "sources are `&buffer` (a `HostBuffer` or `DeviceBuffer` of this context, borrowed for the whole scope) or `&in_flight` of THIS lane",
    note = "a buffer in flight on another lane must be handed over first: `let s = lane_a.signal(x)?; let x = lane_b.wait_for(s)?;`",
    note = "pageable memory (`Vec`, slices) cannot be used asynchronously: use the synchronous `Context::copy`"
)]
pub trait AsyncSource<'scope, 'id, 'sid>: sealed::Operand {
    /// The element type.
    type Elem: DeviceRepr;
    /// Where the source lies.
    type Place: Place;
    #[doc(hidden)]
    const RESIDENCY: Residency;
    #[doc(hidden)]
    fn source(&self) -> (Region, usize);
}

impl<S: ?Sized> sealed::Operand for &S {}
impl<'scope, 'id, 'sid, S> AsyncSource<'scope, 'id, 'sid> for &'scope S
where
    S: PinnedMemory<'id> + ?Sized,
{
    type Elem = S::Elem;
    type Place = S::Place;
    const RESIDENCY: Residency = S::RESIDENCY;
    fn source(&self) -> (Region, usize) {
        (RawSource::raw(*self).region(), Memory::len(*self))
    }
}

impl<'scope, 'id, 'sid, D> AsyncSource<'scope, 'id, 'sid> for &InFlight<'scope, 'sid, D>
where
    D: PinnedMemory<'id> + ?Sized,
{
    type Elem = D::Elem;
    type Place = D::Place;
    const RESIDENCY: Residency = D::RESIDENCY;
    fn source(&self) -> (Region, usize) {
        (self.region, self.len)
    }
}

/// A destination operand of asynchronous work on the lane branded `'sid`.
///
/// Implemented by `&'scope mut D` (pinned or device memory of the same
/// context, not yet in flight) and by an [`InFlight`] of the same lane. Sealed.
#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot be written by asynchronous work on this lane",
    label = "not a destination for this lane",
    note = "destinations are `&mut buffer` (a `HostBuffer` or `DeviceBuffer` of this context, borrowed for the whole scope) or an `InFlight` of THIS lane, by value",
    note = "a buffer in flight on another lane must be handed over first: `let s = lane_a.signal(x)?; let x = lane_b.wait_for(s)?;`"
)]
pub trait AsyncDest<'scope, 'id, 'sid>: sealed::Operand + Sized {
    /// The buffer type.
    type Target: PinnedMemory<'id> + MemoryMut<'id> + ?Sized;
    #[doc(hidden)]
    fn into_parts(self) -> (NonNull<Self::Target>, Region, usize);
}

impl<S: ?Sized> sealed::Operand for &mut S {}
impl<'scope, 'id, 'sid, D> AsyncDest<'scope, 'id, 'sid> for &'scope mut D
where
    D: PinnedMemory<'id> + MemoryMut<'id> + ?Sized,
{
    type Target = D;
    fn into_parts(self) -> (NonNull<D>, Region, usize) {
        let region = RawSource::raw(&*self).region();
        let len = Memory::len(&*self);
        (NonNull::from(self), region, len)
    }
}

impl<'scope, 'sid, D: ?Sized> sealed::Operand for InFlight<'scope, 'sid, D> {}
impl<'scope, 'id, 'sid, D> AsyncDest<'scope, 'id, 'sid> for InFlight<'scope, 'sid, D>
where
    D: PinnedMemory<'id> + MemoryMut<'id> + ?Sized,
{
    type Target = D;
    fn into_parts(self) -> (NonNull<D>, Region, usize) {
        (self.ptr, self.region, self.len)
    }
}

impl<'scope, 'env, 'id, 'sid, M: RunMode> Lane<'scope, 'env, 'id, 'sid, M> {
    fn bind(&self) -> Result<()> {
        super::make_current(self.scope.ctx)
    }

    fn in_flight<D: ?Sized>(
        &self,
        (ptr, region, len): (NonNull<D>, Region, usize),
    ) -> InFlight<'scope, 'sid, D> {
        InFlight {
            ptr,
            region,
            len,
            stream: self.stream,
            ctx: self.scope.ctx,
            scope: self.scope.id,
            _borrow: PhantomData,
            _sid: PhantomData,
        }
    }

    /// Queue a copy of all of `src` into `dst` (`aclrtMemcpyAsync`); returns
    /// at once. The memcpy kind is computed at compile time from the run mode
    /// and both residencies. Errors: [`Error::LengthMismatch`](crate::Error::LengthMismatch)
    /// before anything is queued; the runtime's error.
    #[doc(alias = "aclrtMemcpyAsync")]
    pub fn copy<S, X>(&self, src: S, dst: X) -> Result<InFlight<'scope, 'sid, X::Target>>
    where
        S: AsyncSource<'scope, 'id, 'sid>,
        X: AsyncDest<'scope, 'id, 'sid>,
        X::Target: Memory<'id, Elem = S::Elem>,
        S::Place: CopyDirection<<X::Target as Memory<'id>>::Place>,
        <S::Place as CopyDirection<<X::Target as Memory<'id>>::Place>>::Direction:
            AsyncDirection<M>,
    {
        let kind =
            const { memcpy_kind(M::KIND, S::RESIDENCY, <X::Target as Memory<'id>>::RESIDENCY) };
        let (src_region, src_len) = src.source();
        let parts = dst.into_parts();
        if src_len != parts.2 {
            return Err(crate::Error::LengthMismatch {
                src: src_len,
                dst: parts.2,
            });
        }
        self.bind()?;
        let (dst_region, stream) = (parts.1, self.stream);
        // SAFETY: both regions are runtime allocations (pinned host or device
        // memory, `PinnedMemory`) borrowed for `'scope` — `src` shared, `dst`
        // exclusively through the returned `InFlight` — and the scope
        // synchronises `stream` (enlisted by `Scope::lane`) before those
        // borrows end; `count` = `destMax` = the source's byte length (equal
        // lengths checked above); `stream` is live and its context current.
        let code = unsafe {
            sys::aclrtMemcpyAsync(
                dst_region.ptr.as_ptr().cast(),
                dst_region.bytes,
                src_region.ptr.as_ptr().cast(),
                src_region.bytes,
                kind,
                stream.as_ptr(),
            )
        };
        check(code, "aclrtMemcpyAsync")?;
        Ok(self.in_flight(parts))
    }

    /// Queue setting every byte of `dst` to `byte` (`aclrtMemsetAsync`).
    #[doc(alias = "aclrtMemsetAsync")]
    pub fn memset<X>(&self, dst: X, byte: u8) -> Result<InFlight<'scope, 'sid, X::Target>>
    where
        X: AsyncDest<'scope, 'id, 'sid>,
    {
        let parts = dst.into_parts();
        self.bind()?;
        let region = parts.1;
        // SAFETY: `region` is a runtime allocation exclusively borrowed for
        // `'scope` through the returned `InFlight`; the scope synchronises the
        // stream before the borrow ends; count == maxCount == its length.
        let code = unsafe {
            sys::aclrtMemsetAsync(
                region.ptr.as_ptr().cast(),
                region.bytes,
                i32::from(byte),
                region.bytes,
                self.stream.as_ptr(),
            )
        };
        check(code, "aclrtMemsetAsync")?;
        Ok(self.in_flight(parts))
    }

    fn launch(&self, f: Box<dyn FnOnce() + Send + 'scope>) -> Result<()> {
        // SAFETY: this only erases a lifetime. The closure may borrow data for
        // `'scope`. It is called by the trampoline before the stream's
        // synchronisation in `Scope::finish` completes, or dropped by
        // `finish` after it; both happen before `'scope` ends (module docs).
        let f: Box<dyn FnOnce() + Send + 'static> = unsafe { core::mem::transmute(f) };
        let slot = Arc::new(HostFnSlot {
            f: Mutex::new(Some(f)),
            panic: Mutex::new(None),
        });
        self.bind()?;
        let args = Arc::as_ptr(&slot) as *mut c_void;
        self.scope.book.borrow_mut().host_fns.push(slot);
        // SAFETY: the stream is live with its context current; the trampoline
        // matches `aclrtHostFunc`; `args` points to a slot the scope keeps
        // alive (pushed above) until after the final synchronisation.
        let code = unsafe {
            sys::aclrtLaunchHostFunc(self.stream.as_ptr(), Some(scoped_trampoline), args)
        };
        check(code, "aclrtLaunchHostFunc")
    }

    /// Queue a host function (`aclrtLaunchHostFunc`): `f` runs on a runtime
    /// thread after the work queued before it, and the lane waits for it.
    ///
    /// `f` may borrow anything that outlives the scope (`'scope`), because
    /// the scope synchronises before it returns. A panic in `f` is caught on
    /// the runtime thread (it never unwinds through C) and resumed on the
    /// scope's thread once the scope has synchronised.
    ///
    /// # Calling the runtime from `f`
    /// `f` runs on the runtime's callback thread while its stream waits for
    /// it. Calls that wait for the device there could wait for that very
    /// stream, so they are refused with [`Error::InCallback`](crate::Error::InCallback):
    /// stream, event and device synchronisation, [`InFlight::wait`],
    /// destroying a stream or context, resetting a device, finalising, and
    /// opening a scope. A `Device` or `Stream` dropped inside `f` therefore
    /// stays open (a leak, which keeps its parents alive). Non-blocking calls
    /// (allocation, synchronous copies) work. The refusal is per thread: a
    /// thread that `f` spawns and joins is not refused, and if it waits for
    /// `f`'s stream the two wait for each other, as a thread joining itself
    /// would; do not block `f` on such a thread.
    #[doc(alias = "aclrtLaunchHostFunc")]
    pub fn host_fn<F>(&self, f: F) -> Result<()>
    where
        F: FnOnce() + Send + 'scope,
    {
        self.launch(Box::new(f))
    }

    /// Queue a host function that works on a buffer in order with the other
    /// work of this lane (`aclrtLaunchHostFunc`): `f` gets the buffer's
    /// elements as a [`PinnedSlice`](crate::PinnedSlice) once the work queued
    /// before it is done — e.g. a compute step between a host-to-device and
    /// a device-to-host copy. In host run mode it dereferences to `&mut [T]`;
    /// in device run mode (where the memory is device memory of this
    /// context) it offers its element API only, so that it cannot pass for
    /// pageable memory of another context.
    #[doc(alias = "aclrtLaunchHostFunc")]
    pub fn host_fn_with<X, F>(&self, target: X, f: F) -> Result<InFlight<'scope, 'sid, X::Target>>
    where
        X: AsyncDest<'scope, 'id, 'sid>,
        X::Target: CpuVisible,
        <X::Target as CpuVisible>::Item: DeviceRepr,
        F: FnOnce(&mut crate::PinnedSlice<'id, <X::Target as CpuVisible>::Item, M>) + Send + 'scope,
    {
        let parts = target.into_parts();
        let region = SendRegion(parts.1);
        self.launch(Box::new(move || {
            let region = region;
            let bytes = region.0.bytes;
            // SAFETY: the region is CPU-visible, initialised memory
            // (`CpuVisible` is only implemented by `HostBuffer` and
            // `PinnedSlice`, i.e. pinned memory) of `bytes`
            // bytes, exclusively borrowed for `'scope` by the `InFlight`
            // returned below, and no reference to it exists while it is in
            // flight; the lane runs this after the work queued before it and
            // before any queued after it, so nothing else accesses it now.
            let data: &mut [u8] =
                unsafe { core::slice::from_raw_parts_mut(region.0.ptr.as_ptr(), bytes) };
            f(super::pinned_slice_mut(bytemuck::cast_slice_mut(data)));
        }))?;
        Ok(self.in_flight(parts))
    }

    /// Record an event after the last use of `item` on this lane, to hand
    /// it to another lane ([`Lane::wait_for`]).
    #[doc(alias = "aclrtRecordEvent")]
    pub fn signal<D: ?Sized>(
        &self,
        item: InFlight<'scope, 'sid, D>,
    ) -> Result<Signal<'scope, 'id, 'sid, D>> {
        let event = self.record_scope_event()?;
        Ok(Signal {
            event,
            item,
            _brand: PhantomData,
        })
    }

    fn record_scope_event(&self) -> Result<Raw> {
        self.bind()?;
        let event = super::create_event_with_flag(self.scope.ctx, sys::ACL_EVENT_SYNC)?;
        self.scope.book.borrow_mut().events.push(event);
        super::record_event(event, self.stream)?;
        Ok(event)
    }

    /// Make this lane wait for `signal` (`aclrtStreamWaitEvent`) and take over
    /// the buffer it carries: work queued here after this call runs after
    /// the work queued on the signalling lane before the signal.
    #[doc(alias = "aclrtStreamWaitEvent")]
    pub fn wait_for<'other, D: ?Sized>(
        &self,
        signal: Signal<'scope, 'id, 'other, D>,
    ) -> Result<InFlight<'scope, 'sid, D>> {
        self.bind()?;
        super::stream_wait_event(self.stream, signal.event)?;
        let item = signal.item;
        Ok(self.in_flight((item.ptr, item.region, item.len)))
    }

    /// Record a point on this lane that any number of lanes may wait for
    /// ([`Lane::wait_mark`]).
    #[doc(alias = "aclrtRecordEvent")]
    pub fn mark(&self) -> Result<Mark<'scope, 'id, 'sid>> {
        Ok(Mark {
            event: self.record_scope_event()?,
            _p: PhantomData,
        })
    }

    /// Make this lane wait for a [`Mark`] of another lane (`aclrtStreamWaitEvent`).
    #[doc(alias = "aclrtStreamWaitEvent")]
    pub fn wait_mark<'other>(&self, mark: Mark<'scope, 'id, 'other>) -> Result<()> {
        self.bind()?;
        super::stream_wait_event(self.stream, mark.event)
    }

    /// Make this lane wait for a recorded event of this context
    /// (`aclrtStreamWaitEvent`). The event is borrowed until the scope has
    /// synchronised, so it cannot be destroyed while the wait is pending.
    #[doc(alias = "aclrtStreamWaitEvent")]
    pub fn wait_event<K: EventKind, S: IsRecorded>(
        &self,
        event: &'scope Event<'_, 'id, K, S>,
    ) -> Result<()> {
        self.bind()?;
        super::stream_wait_event(self.stream, event.raw())
    }

    /// Record a user event on this lane (`aclrtRecordEvent`).
    #[doc(alias = "aclrtRecordEvent")]
    pub fn record<'e, K: EventKind, S: EventState>(
        &self,
        event: Event<'e, 'id, K, S>,
    ) -> Result<Event<'e, 'id, K, Recorded>> {
        self.bind()?;
        super::record_event(event.raw(), self.stream)?;
        open::recorded(self.scope.id, event.raw(), self.stream, self.scope.ctx);
        Ok(event.into_recorded())
    }

    /// Block until all work queued on this lane has finished
    /// (`aclrtSynchronizeStream`). Buffers stay in flight; use
    /// [`InFlight::wait`] to get one back.
    #[doc(alias = "aclrtSynchronizeStream")]
    pub fn synchronize(&self) -> Result<()> {
        self.bind()?;
        super::synchronize_stream(self.stream)?;
        if open::aborted(self.scope.id) {
            return Err(crate::Error::WorkAborted);
        }
        Ok(())
    }

    /// Whether all work queued on this lane has finished (`aclrtStreamQuery`).
    #[doc(alias = "aclrtStreamQuery")]
    pub fn is_complete(&self) -> Result<bool> {
        self.bind()?;
        super::stream_is_complete(self.stream)
    }
}

/// A `Region` moved into a host function.
struct SendRegion(Region);
// SAFETY: the region is only dereferenced inside the host function, under the
// exclusive-borrow argument given there; moving the address between threads
// is harmless.
unsafe impl Send for SendRegion {}
