//! The unsafe core of leak-safe asynchronous work: what makes
//! [`Scope`](crate::Scope), [`Lane`](crate::Lane) and
//! [`InFlight`](crate::InFlight) sound.
//!
//! This is part of the unsafe boundary because its soundness argument is
//! about time, not types: memory handed to an asynchronous runtime call must
//! stay alive and untouched by the CPU until the device is done with it. The
//! public types (in `src/scope.rs`) are thin wrappers of the types here,
//! which carry the argument themselves: nothing above this module can queue
//! work, or get an exclusive borrow back, except through them.
//!
//! # The argument
//! * **`'scope` outlives the work.** A [`ScopeCore<'scope>`](ScopeCore) is
//!   only made by [`run`], in its own stack frame; the code above gets it
//!   only as `&'scope ScopeCore<'scope>`, through [`ScopeBody::wrap`] and
//!   [`ScopeBody::call`], where `'scope` is a generic parameter. So the core
//!   cannot be leaked (`mem::forget`) or outlive `run`, and whatever is
//!   borrowed for `'scope` was alive before `run` was called and stays
//!   borrowed until `run` returns: a value made inside `call` cannot be
//!   borrowed for a lifetime that is a parameter of `call`, and `call`'s
//!   result type cannot name `'scope`. `ScopeCore` is invariant in
//!   `'scope`, so no such borrow can be shortened to fit a local.
//! * **`run` waits for the work.** Before it returns — after `call`
//!   returns, returns an error, or panics (a drop guard in its frame) —
//!   `run` synchronises every stream enlisted in the core, so no queued
//!   operation can touch memory after its borrow ends. A stream that the
//!   scope itself synchronised successfully after the last work it queued
//!   there ([`Parked::wait`], [`LaneCore::synchronize`]) is skipped: all
//!   that work has finished already. Every path that queues work takes the
//!   stream handle through [`LaneCore::stream`] (or its private twin
//!   `queue`), which marks the stream as to be synchronised again (see
//!   `Enlisted`); the scope's thread is the only one that queues for it
//!   (`ScopeCore` is neither `Send` nor `Sync`). If a stream does not
//!   finish (a deadline, repeated failures) it is aborted or synchronised
//!   without a limit ([`Escalation`]); if it can be neither, the process
//!   aborts rather than return.
//! * **Work is only queued on enlisted streams, on memory borrowed for
//!   `'scope`.** Every queueing operation is a method of a [`LaneCore`],
//!   which is made by enlisting a stream borrowed for `'scope` (so the
//!   stream outlives its work, and `run` synchronises it). Its memory
//!   operands are typed borrows: a [`Source`] (runtime memory shared for
//!   `'scope`, or a buffer parked on the same lane) and a [`Parked`]
//!   (runtime memory exclusively borrowed for `'scope`).
//! * **An exclusive borrow comes back only after its stream is idle.** A
//!   [`Parked`] holds the `&'scope mut D` as a pointer while the device may
//!   use it, and no reference to `*D` is made meanwhile: its address and
//!   size are taken once, from an exclusive reborrow, when it is parked
//!   (runtime allocations do not move with their owner). It is branded with
//!   its lane (`'sid`, from the `make_guard!` the lane consumed) and holds
//!   its stream; a brand names one lane, or one set of lanes made with one
//!   guard ([`LaneCore::in_set`]), and every queueing path checks the
//!   stream of each bound operand against the lane's
//!   ([`LaneCore::check_lane`], `Staged::check_lane` for launches),
//!   so all work on it is queued on its own stream. It moves to another
//!   lane only through [`LaneCore::signal`] (an event recorded on its stream
//!   after its last use) and [`LaneCore::wait_for`] (the other stream waits
//!   for that event), and it becomes `&'scope mut D` again only through
//!   [`Parked::wait`] and [`Parked::reuse_or_keep`], which synchronise its
//!   stream first (a device fault reported then means the stream finished
//!   only if a query says it is idle), or [`FenceCore::reuse_or_keep`],
//!   which waits for an event recorded on its stream after its last use
//!   ([`Parked::fence`] consumes it, so no later work can use it).
//! * **A checked wait is never `Ok` for work that faulted**, as far as the
//!   crate's synchronisations saw (`faults`): the runtime reports a fault
//!   once, to whichever stream synchronisation comes first, so every
//!   checked wait ([`Parked::wait_or_keep`], [`FenceCore::wait_or_keep`])
//!   also looks for faults seen since the buffer was parked, and the
//!   scope's end reports those that no checked wait did.
//! * **Host functions run before `'scope` ends, or never.** A host function
//!   may borrow for `'scope`; its lifetime is erased for the runtime, and
//!   its slot is kept by the core until after the final synchronisation,
//!   where one that never ran (skipped by a fault, discarded by an abort) is
//!   dropped on the scope's thread. [`LaneCore::host_fn_with`] hands it the
//!   elements of a parked buffer, which nothing else accesses while the lane
//!   runs it.
//!
//! What the argument takes from the rest of the crate: runtime handles stay
//! alive while their owner is borrowed ([`HandleOwner`]); the sealed memory
//! traits of `memory::access` are implemented only for what they claim
//! (`Stable`: pinned host or device memory whose address does not move with
//! its owner; `CpuVisible`: initialised memory the CPU may address as
//! elements of `Item`; `RawDest`: the buffer's own bytes); and the memcpy
//! kind given to [`LaneCore::copy`] describes where both operands lie.

mod open;

pub(crate) use open::{
    clear_outside_aborted, event_destroyed, host_fns_pending, record_discarded, record_made,
    record_ticket, take_outside_aborted, wait_event_outside, wait_not_aborting,
};

use core::cell::RefCell;
use core::marker::PhantomData;
use core::mem::ManuallyDrop;
use core::ptr::NonNull;
use core::sync::atomic::{AtomicBool, AtomicPtr, AtomicU64, Ordering};
use core::time::Duration;
use std::panic::resume_unwind;
use std::sync::Arc;
use std::time::Instant;

use aclrt_sys as sys;
use generativity::{Guard, Id};

use super::access::{CpuVisible, RawDest, RawSource, Stable};
use super::faults::{self, Key};
use super::host_fn::{self, HostFnSlot, Panic};
use super::{HandleOwner, Mem, Raw, Region, check};
use crate::error::{Error, ErrorKind, Escalation, Result};

/// What [`run`] runs: the typed layer's closure, and its view of the core.
///
/// `run` makes the [`ScopeCore`] in its own frame, wraps a borrow of it with
/// [`wrap`](Self::wrap) (the public [`Scope`](crate::Scope)) and hands the
/// wrapper to [`call`](Self::call). Both are generic over `'scope`, so the
/// implementation cannot choose it (see the module's argument).
pub(crate) trait ScopeBody: Sized {
    /// What the closure returns on success.
    type Output;
    /// What the closure returns on failure; the scope's own errors (of its
    /// final synchronisation) are converted into it.
    type Error: From<Error>;
    /// The typed layer's view of the core. Never dropped (it should hold no
    /// more than the borrow of the core).
    type Scope<'scope>
    where
        Self: 'scope;
    /// Wrap the core.
    fn wrap<'scope>(core: &'scope ScopeCore<'scope>) -> Self::Scope<'scope>
    where
        Self: 'scope;
    /// Run the closure.
    fn call<'scope>(
        self,
        scope: &'scope Self::Scope<'scope>,
    ) -> core::result::Result<Self::Output, Self::Error>
    where
        Self: 'scope;
}

/// Run `f` with a fresh brand: a `Guard<'sid>` whose lifetime is
/// higher-ranked, so no other brand can ever equal it (the closure must
/// work for every `'sid`). The closure form of `make_guard!`; a brand
/// mixed up inside `f` is reported at the call that mixed it.
pub(crate) fn with_fresh_guard<R>(f: impl for<'sid> FnOnce(Guard<'sid>) -> R) -> R {
    // SAFETY: `Guard::new` requires that `'sid` be a lifetime no other
    // guard has. `'sid` here is the closure's higher-ranked lifetime:
    // `f` must accept any `'sid`, so it cannot be equated with a lifetime
    // from outside (another brand) — the borrow checker refuses any use
    // that would need that.
    f(unsafe { Guard::new(Id::new()) })
}

/// Open a scope on context `ctx`, run `body`, and synchronise every stream
/// it enlisted before returning (also on error and on panic). With a
/// `timeout`, the synchronisation is bounded: see [`Escalation`].
pub(crate) fn run<B: ScopeBody>(
    ctx: Raw,
    timeout: Option<Duration>,
    body: B,
) -> core::result::Result<B::Output, B::Error> {
    super::refuse_in_callback("Context::scope")?;
    // Not dropped: `finish` and `release_kept` (below, or the unwind guard)
    // leave it owning nothing (its book is taken out by them), so its drop
    // would only check that (issue 15).
    let core = ManuallyDrop::new(ScopeCore {
        book: CoreBook {
            ctx,
            id: open::register(),
            first: AtomicPtr::new(core::ptr::null_mut()),
            first_settled: AtomicBool::new(false),
            any_settled: AtomicBool::new(false),
            slotted: AtomicBool::new(false),
            opened_at: faults::now(),
            crossed: AtomicBool::new(false),
            fences: AtomicU64::new(0),
            first_synced: AtomicU64::new(0),
            inner: RefCell::new(ScopeBook(None)),
        },
        _scope: PhantomData,
        _thread: PhantomData,
    });
    let core: &ScopeCore<'_> = &core;
    // A deadline too far to represent is no deadline.
    let deadline = timeout.and_then(|t| Some((t, Instant::now().checked_add(t)?)));
    struct FinishOnUnwind<'a, 'scope>(&'a ScopeCore<'scope>, &'a Option<(Duration, Instant)>);
    impl Drop for FinishOnUnwind<'_, '_> {
        fn drop(&mut self) {
            // Only reached while unwinding: errors and panics of host
            // functions cannot be reported, but the synchronisation happens.
            let _ = self.0.finish(self.1);
            self.0.release_kept();
        }
    }
    let guard = FinishOnUnwind(core, &deadline);
    // Not dropped: a drop that could use `'scope` would keep `core` borrowed
    // past the end of this function (the wrapper holds only that borrow).
    let scope = ManuallyDrop::new(B::wrap(core));
    super::locks::user_code("a scope's body");
    let result = body.call(&scope);
    core::mem::forget(guard);
    // A device fault of the scope's work that only unchecked waits saw is
    // reported here (`faults`): one load while no fault was seen.
    let result = match core.book.owed_fault() {
        Some(fault) => result.and_then(|_| Err(fault.into())),
        None => result,
    };
    match core.end_settled() {
        // Nothing to synchronise or release (issue 15: a one-lane scope
        // that waited for its work).
        Some(false) => return result,
        // Another scope's deadline aborted a stream this one shares (or one
        // it depends on): some of this scope's work was discarded.
        Some(true) => return result.and_then(|_| Err(Error::WorkAborted.into())),
        None => {}
    }
    let (finished, panic) = core.finish(&deadline);
    core.release_kept();
    if let Some(payload) = panic {
        resume_unwind(payload);
    }
    match (result, finished) {
        (Err(e), Ok(())) => Err(e),
        // A timeout of the end wins: the caller must learn that the work
        // was stopped.
        (Err(e), Err(fin)) => Err(if matches!(fin, Error::ScopeTimeout { .. }) {
            fin.into()
        } else {
            e
        }),
        (Ok(_), Err(e)) => Err(e.into()),
        (Ok(r), Ok(())) => Ok(r),
    }
}

/// The part of a scope that owns what must be synchronised and released
/// when it ends. Only [`run`] makes one; see the module's argument.
///
/// Neither `Send` nor `Sync`: a scope is driven by the thread that opened it.
pub(crate) struct ScopeCore<'scope> {
    book: CoreBook,
    _scope: PhantomData<&'scope mut &'scope ()>,
    _thread: PhantomData<ScopeStaysOnItsThread>,
}

/// The scope's context and id, its first stream, and its book; whether any
/// lane is settled (see `Enlisted`) is readable without borrowing the book:
/// queueing work then costs one load while no lane of the scope was
/// synchronised (issue 15: kernel launches).
///
/// The first enlisted stream is held outside the book (most scopes enlist
/// one): enlisting it, settling it and the scope's end then borrow nothing
/// (issue 15: a one-lane scope). The atomics are only there so as not to
/// add more non-`Sync` fields to the scope (its `Send`/`Sync` errors name
/// the book); the scope's thread alone uses them, so `Relaxed`.
struct CoreBook {
    ctx: Raw,
    /// This scope's entry in the registry of open scopes ([`open`]).
    id: u64,
    /// The first enlisted stream; null until a lane enlists one. Never in
    /// `Book::streams`.
    first: AtomicPtr<core::ffi::c_void>,
    /// `Enlisted::settled` of `first`.
    first_settled: AtomicBool,
    /// Set by `settle`; never cleared (only a hint).
    any_settled: AtomicBool,
    /// Whether the scope is in its thread's slot (`open::enter_slot`)
    /// instead of the registry: it has one stream (`first`), no user event
    /// and no host function.
    slotted: AtomicBool,
    /// The fault clock when the scope opened ([`faults::now`]).
    opened_at: u64,
    /// Whether a buffer moved between lanes, or a lane read a buffer
    /// another lane produced ([`LaneCore::wait_for`], [`LaneCore::read_shared`],
    /// [`LaneCore::reclaim`]): a buffer's contents may then come from work
    /// on any stream of the scope, and a checked wait synchronises them all
    /// and looks for faults on all ([`CoreBook::fault_since`]). Only ever
    /// set. (Marks and user events order lanes but move no data: a buffer
    /// in flight is used on its own lane only, and memory shared for the
    /// scope is read-only.)
    crossed: AtomicBool,
    /// How many fences the scope recorded: a fence's ticket
    /// ([`FenceCore::ticket`]).
    fences: AtomicU64,
    /// `Enlisted::synced` of `first`.
    first_synced: AtomicU64,
    inner: RefCell<ScopeBook>,
}

impl CoreBook {
    /// The scope needs the registry (a second stream, a user event or a
    /// host function, or its own escalation): if it is in its thread's
    /// slot, it moves there.
    #[inline]
    fn promote(&self) {
        if self.slotted.swap(false, Ordering::Relaxed) {
            // A slotted scope has enlisted its first stream.
            if let Some(stream) = Raw::new(self.first.load(Ordering::Relaxed)) {
                open::promote(self.id, stream, self.ctx);
            }
        }
    }

    /// A buffer's contents may come from work on another lane.
    #[inline]
    fn cross(&self) {
        self.crossed.store(true, Ordering::Relaxed);
    }

    /// Whether [`cross`](Self::cross) was called.
    #[inline]
    fn crossed(&self) -> bool {
        self.crossed.load(Ordering::Relaxed)
    }

    /// The enlisted streams.
    fn streams(&self) -> Vec<Raw> {
        let first = Raw::new(self.first.load(Ordering::Relaxed));
        let book = self.inner.borrow();
        let rest = book
            .0
            .iter()
            .flat_map(|b| b.streams.iter().map(|e| e.stream));
        first.into_iter().chain(rest).collect()
    }

    /// The device fault a checked wait of a buffer parked on `stream` when
    /// the fault clock read `since` reports: the earliest fault seen after
    /// that (by any synchronisation, of any thread) on a stream the
    /// buffer's contents may come from — its own, or every stream of the
    /// scope once buffers crossed lanes — or by a device synchronisation
    /// of the scope's context. A few loads while no fault was seen since and no synchronisation is in flight.
    #[inline(always)]
    fn fault_since(&self, stream: Raw, since: u64) -> Option<Error> {
        if faults::quiet_since(since) {
            return None;
        }
        self.fault_since_slow(stream, since)
    }

    #[cold]
    #[inline(never)]
    fn fault_since_slow(&self, stream: Raw, since: u64) -> Option<Error> {
        // First the synchronisations of those keys in flight on other
        // threads: one may have taken a fault it has not entered yet.
        let ctx = Key::context(self.ctx);
        faults::quiesce(|k| {
            k == ctx
                || k == Key::stream(stream)
                || (self.crossed() && self.streams().iter().any(|&s| k == Key::stream(s)))
        });
        if faults::now() <= since {
            return None;
        }
        let streams = if self.crossed() {
            self.streams()
        } else {
            vec![stream]
        };
        let ctx = Key::context(self.ctx);
        faults::since(
            since,
            |k| k == ctx || streams.iter().any(|&s| k == Key::stream(s)),
            self.id,
        )
    }

    /// A device fault seen since the scope opened, on one of its streams or
    /// by a device synchronisation of its context, that no checked wait of
    /// this scope reported (only unchecked waits saw it, or a
    /// synchronisation of another caller took it: the scope's work may be
    /// what faulted). One load while no fault was seen.
    #[inline]
    fn owed_fault(&self) -> Option<Error> {
        if faults::now() <= self.opened_at {
            return None;
        }
        let streams = self.streams();
        let ctx = Key::context(self.ctx);
        faults::unreported(
            self.opened_at,
            |k| k == ctx || streams.iter().any(|&s| k == Key::stream(s)),
            self.id,
        )
    }

    /// A synchronisation of `stream` by this scope returns `e` to the
    /// scope's body: a device fault is noted as reported to this scope.
    #[inline]
    fn told(&self, stream: Raw, e: Error) -> Error {
        faults::told_scope(Key::stream(stream), &e, self.id);
        e
    }

    /// Whether an escalation aborted (some of) the scope's work.
    #[inline]
    fn aborted(&self) -> bool {
        if self.slotted.load(Ordering::Relaxed) {
            open::slot_aborted()
        } else {
            open::aborted(self.id)
        }
    }

    /// The scope, which enlisted a stream, leaves the registry (or its
    /// slot); returns whether an escalation aborted it.
    #[inline(always)]
    fn leave(&self, streams: usize) -> bool {
        if self.slotted.swap(false, Ordering::Relaxed) {
            open::leave_slot()
        } else {
            open::deregister(self.id, streams)
        }
    }

    /// The book, made on first use.
    fn book(&self) -> core::cell::RefMut<'_, Book> {
        core::cell::RefMut::map(self.inner.borrow_mut(), |b| {
            &mut **b.0.get_or_insert_with(Box::default)
        })
    }

    /// Work of this scope may be queued on `stream` from now on. On every
    /// queueing path: one relaxed load unless a lane was synchronised.
    #[inline(always)]
    fn unsettle(&self, stream: Raw) {
        if self.any_settled.load(Ordering::Relaxed) {
            self.unsettle_slow(stream);
        }
    }

    #[cold]
    #[inline(never)]
    fn unsettle_slow(&self, stream: Raw) {
        if self.first.load(Ordering::Relaxed) == stream.as_ptr() {
            self.first_settled.store(false, Ordering::Relaxed);
        } else {
            if let Some(book) = self.inner.borrow_mut().0.as_mut() {
                book.unsettle(stream);
            }
        }
    }

    /// A synchronisation of `stream` by this scope succeeded (see
    /// `Book::settle`).
    #[inline]
    fn settle(&self, stream: Raw) {
        self.any_settled.store(true, Ordering::Relaxed);
        // The scope's thread was blocked in the synchronisation: no fence
        // was recorded while it ran.
        let fences = self.fences.load(Ordering::Relaxed);
        if self.first.load(Ordering::Relaxed) == stream.as_ptr() {
            // A stream is enlisted once: it is not in the book too.
            self.first_settled.store(true, Ordering::Relaxed);
            self.first_synced.store(fences, Ordering::Relaxed);
        } else {
            if let Some(book) = self.inner.borrow_mut().0.as_mut() {
                book.settle(stream, fences);
            }
        }
    }

    /// A fence was recorded: its ticket.
    #[inline]
    fn fence_ticket(&self) -> u64 {
        self.fences.fetch_add(1, Ordering::Relaxed) + 1
    }

    /// Whether a synchronisation of `stream` by this scope that succeeded
    /// began after the fence with `ticket` was recorded (so the record, and
    /// the work before it, finished).
    fn synced_after(&self, stream: Raw, ticket: u64) -> bool {
        let synced = if self.first.load(Ordering::Relaxed) == stream.as_ptr() {
            self.first_synced.load(Ordering::Relaxed)
        } else {
            let book = self.inner.borrow();
            let entry = book.0.iter().flat_map(|b| b.streams.iter());
            entry
                .filter(|e| e.stream == stream)
                .map(|e| e.synced)
                .max()
                .unwrap_or(0)
        };
        synced >= ticket
    }
}

/// What a scope must synchronise and release when it ends, beyond its
/// first stream (`CoreBook::first`): made on first use
/// ([`CoreBook::book`]), so a scope with one lane and no events, host
/// functions or kept values allocates, and later drops, nothing.
#[derive(Default)]
struct ScopeBook(Option<Box<Book>>);

/// The contents of a [`ScopeBook`].
#[derive(Default)]
struct Book {
    /// The enlisted streams after the first (`CoreBook::first`).
    streams: Vec<Enlisted>,
    events: Vec<Raw>,
    /// Events of `events` that a fence ([`Parked::fence`]) may record
    /// again: their last record completed and was waited for (or the fence
    /// was resumed, which leaves nothing waiting for that record).
    free_fences: Vec<Raw>,
    host_fns: Vec<Arc<HostFnSlot>>,
    /// Values kept for the rest of the scope ([`ScopeCore::keep`]), dropped
    /// by [`ScopeCore::release_kept`] after the final synchronisation.
    kept: Vec<Kept>,
}

/// A stream enlisted in a scope, and whether the scope's end may skip its
/// synchronisation.
struct Enlisted {
    stream: Raw,
    /// Set when a synchronisation of the stream by this scope
    /// ([`Parked::wait`], [`LaneCore::synchronize`]) succeeded; cleared
    /// whenever the scope takes the stream to queue work on it
    /// ([`LaneCore::stream`], `LaneCore::queue`, and the reader streams of
    /// [`LaneCore::reclaim`]). While it is set, everything this scope queued
    /// on the stream has finished, so [`ScopeCore::finish`] need not
    /// synchronise it again (issue 15: that second synchronisation was a
    /// sixth of a one-copy scope).
    settled: bool,
    /// `CoreBook::fences` when a synchronisation of the stream by this
    /// scope last succeeded: fences with a ticket up to it finished.
    synced: u64,
}

impl Book {
    /// Work of this scope may be queued on `stream` from now on.
    fn unsettle(&mut self, stream: Raw) {
        for e in self.streams.iter_mut() {
            if e.stream == stream {
                e.settled = false;
            }
        }
    }

    /// A synchronisation of `stream` by this scope succeeded, and nothing
    /// was queued on it since the synchronisation began (the scope's thread
    /// was blocked in it; nothing else queues for the scope).
    fn settle(&mut self, stream: Raw, fences: u64) {
        for e in self.streams.iter_mut() {
            if e.stream == stream {
                e.settled = true;
                e.synced = fences;
            }
        }
    }
}

/// What [`Scope::keep`](crate::Scope::keep) accepts: aclrt's events,
/// streams, buffers and views.
///
/// Kept values are dropped together at the scope's end, last kept first.
/// The `Drop` of these types (if any) releases the value itself, reaching
/// only what it borrows, so that order is sound; a type of yours could
/// reach, through interior mutability, a value kept after it (dropped
/// first). Implemented next to each type; not for other crates.
#[diagnostic::on_unimplemented(
    message = "a scope cannot keep `{Self}`",
    label = "not one of aclrt's events, streams, buffers or views",
    note = "`Scope::keep` takes aclrt's own values (`Event`, `Stream`, `DeviceBuffer`, `HostBuffer`, `DeviceView`, `DeviceViewMut`): their drop at the scope's end touches nothing else the scope keeps",
    note = "keep your own data outside the scope and borrow it (anything made before `Context::scope` outlives the scope)"
)]
pub trait Keep: keep_seal::Sealed {}

pub(crate) mod keep_seal {
    /// Seals [`Keep`](super::Keep): only this crate implements it.
    pub trait Sealed {}
}

/// A value moved to the heap by [`ScopeCore::keep`], type- and
/// lifetime-erased: its address and the function that drops it.
///
/// Held as a raw pointer, not a `Box`: moving a `Box` (when the book's
/// vector grows) would assert its uniqueness and invalidate the `&mut` the
/// scope handed out.
struct Kept {
    ptr: NonNull<()>,
    drop: unsafe fn(NonNull<()>),
}

/// Drops the `T` that [`ScopeCore::keep`] moved to the heap at `ptr`.
///
/// # Safety
/// `ptr` came from `Box::<T>::into_raw` and is dropped only once; no
/// reference to the value is used afterwards.
unsafe fn drop_kept<T>(ptr: NonNull<()>) {
    // SAFETY: the caller's contract: `ptr` is a leaked `Box<T>`, dropped once.
    drop(unsafe { Box::from_raw(ptr.cast::<T>().as_ptr()) });
}

/// Makes [`ScopeCore`] (and so `Scope` and `Lane`) neither `Send` nor
/// `Sync`: a scope is driven by the thread that opened it; open one scope
/// per thread.
struct ScopeStaysOnItsThread(#[allow(dead_code)] *mut ());

/// Whether an error says the runtime no longer knows the stream (its
/// context or the whole runtime was torn down, e.g. by `sim::reset`): then
/// no task of it can run any more.
fn stream_is_gone(e: &Error) -> bool {
    use crate::ErrorKind as K;
    matches!(e.kind(), K::InvalidHandle | K::NoContext | K::Lifecycle)
}

/// The error of an operand bound to `buffer`'s stream used on the lane of
/// stream `lane`.
#[cold]
#[inline(never)]
fn wrong_lane(lane: Raw, buffer: Raw) -> Error {
    Error::WrongLane {
        lane: lane.as_ptr() as usize,
        buffer: buffer.as_ptr() as usize,
    }
}

/// Make every stream of scope `id` idle without waiting for its work — and
/// every stream of every other open scope that shares one of them, since
/// work there may wait on what the abort discards: abort them all, and
/// synchronise without a limit those whose abort failed. The scopes
/// concerned learn it ([`open::aborted`]); the user events recorded in them
/// (and not destroyed since) are recorded again on their now idle streams,
/// so that no later wait on them hangs. Aborts the process only when a stream can neither be aborted
/// nor synchronised and still exists.
fn escalate(id: u64) -> Escalation {
    let open::AbortGroup {
        streams,
        events,
        ids,
        outside,
    } = open::abort_group(id);
    let mut escalation = Escalation::StreamAbort;
    for &(stream, ctx) in &streams {
        let mut gone = false;
        let ticket = super::waits::ticket();
        let aborted = (0..3).any(|_| match super::abort_stream(ctx, stream) {
            Ok(()) => true,
            Err(e) => {
                gone |= stream_is_gone(&e);
                gone
            }
        });
        if aborted {
            // Outside waits queued there before the abort are discarded.
            super::waits::synchronized_stream_since(stream, ticket);
            note_lost_callbacks(stream);
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
    // Streams outside scopes whose waits the abort may leave hanging
    // (`open::abort_group`): aborted too, best effort (no borrowed memory
    // depends on them; one that cannot be aborted is left as it was); the
    // next `Stream::synchronize` reports `WorkAborted`.
    for &(stream, ctx) in &outside {
        let ticket = super::waits::ticket();
        if (0..3).any(|_| super::abort_stream(ctx, stream).is_ok()) {
            super::waits::synchronized_stream_since(stream, ticket);
            note_lost_callbacks(stream);
        } else {
            // Nothing was discarded: nothing to report.
            let _ = open::take_outside_aborted(stream);
        }
    }
    // Scopes that enlist these streams from now on record their own work
    // after the abort: they are not marked any more.
    let done: Vec<(Raw, Raw)> = streams.iter().chain(outside.iter()).copied().collect();
    open::abort_done(&done);
    // Only events not destroyed since they were recorded (the user may have
    // dropped one inside the scope, or on another thread), and whose last
    // record is one of the aborted scopes': see `open`.
    open::rerecord(&events, &ids, |event, stream, ctx| {
        super::make_current(ctx).is_ok() && super::record_event(event, stream).is_ok()
    });
    escalation
}

/// An escalation's abort of `stream` returned: report callbacks launched
/// there and not run yet are lost (or, `NO_BLOCK` ones already handed to
/// the reporter, about to run), so the stream's next synchronisation
/// reports [`Error::WorkAborted`] (issue 23).
fn note_lost_callbacks(stream: Raw) {
    if super::mix::take_unrun(stream) {
        open::note_work_lost(stream);
    }
}

/// Milliseconds left until `deadline`, at least 1 (0 would mean "forever"
/// to the runtime), or `None` when it has passed.
fn millis_left(deadline: Instant) -> Option<i32> {
    let left = deadline.checked_duration_since(Instant::now())?;
    if left.is_zero() {
        return None;
    }
    Some(i32::try_from(left.as_millis().max(1)).unwrap_or(i32::MAX))
}

impl<'scope> ScopeCore<'scope> {
    /// The scope's context.
    pub(crate) fn context(&self) -> Raw {
        self.book.ctx
    }

    /// How many streams are enlisted.
    pub(crate) fn stream_count(&self) -> usize {
        usize::from(!self.book.first.load(Ordering::Relaxed).is_null())
            + self
                .book
                .inner
                .borrow()
                .0
                .as_ref()
                .map_or(0, |b| b.streams.len())
    }

    /// Move `value` to the heap until the scope ends, and lend it for
    /// `'scope`: the way to give a value made inside the scope (a view, an
    /// event recorded there) the scope's lifetime.
    ///
    /// `T` is one of the crate's own handles or views ([`Keep`], sealed):
    /// values are dropped in reverse order of keeping (a value can borrow
    /// only values kept before it), and the `Drop` of those types touches
    /// nothing but the value itself and what it borrows. A user type could
    /// reach, through interior mutability, a value kept *after* it, which
    /// is dropped first; so user types are not accepted.
    // Each call lends a fresh heap allocation: the `&mut` is unique.
    #[allow(clippy::mut_from_ref)]
    pub(crate) fn keep<T: Keep + 'scope>(&'scope self, value: T) -> &'scope mut T {
        let ptr = NonNull::from(Box::leak(Box::new(value)));
        self.book.book().kept.push(Kept {
            ptr: ptr.cast(),
            drop: drop_kept::<T>,
        });
        // SAFETY:
        // * `ptr` is a fresh heap allocation holding `value`, and the only
        //   other copy of the pointer is in the book, which is not
        //   dereferenced (the `Kept` holds it raw, so growing the book moves
        //   no `Box`) until `release_kept`;
        // * `release_kept` runs in `run` after `call` has returned (or
        //   unwound) and after the final synchronisation: a `&'scope`
        //   reference cannot be used after `call` (module argument), and no
        //   work queued in the scope still uses the value then;
        // * `T: 'scope`, so everything the value borrows outlives the
        //   reference; what it borrows among the kept values was kept
        //   before it, and is dropped after it (`release_kept` goes in
        //   reverse, and `T: Keep` has no `Drop` that reaches other kept
        //   values otherwise).
        unsafe { &mut *ptr.as_ptr() }
    }

    /// Drop the kept values, last kept first, and the book. Called by `run`
    /// after `finish` (on both its paths), when no reference to them can be
    /// used any more.
    #[inline(always)]
    fn release_kept(&self) {
        if self.book.inner.borrow().0.is_some() {
            self.release_book();
        }
    }

    #[inline(never)]
    fn release_book(&self) {
        let Some(book) = self.book.inner.borrow_mut().0.take() else {
            return;
        };
        for k in book.kept.into_iter().rev() {
            // SAFETY: `k.ptr` is the `Box<T>` leaked by `keep` with
            // `k.drop == drop_kept::<T>`, taken out of the book here, so it is
            // dropped once; its `&'scope mut` is dead (see `keep`), and the
            // values it borrows (kept before it) are still alive.
            unsafe { (k.drop)(k.ptr) };
        }
    }

    #[inline(always)]
    fn enlist(&self, stream: Raw) {
        let first = self.book.first.load(Ordering::Relaxed);
        if first.is_null() {
            self.book.first.store(stream.as_ptr(), Ordering::Relaxed);
            if open::enter_slot(self.book.id, stream, self.book.ctx) {
                self.book.slotted.store(true, Ordering::Relaxed);
            } else {
                open::enlist(self.book.id, stream, self.book.ctx);
            }
        } else if first != stream.as_ptr() {
            let streams = &mut self.book.book().streams;
            if !streams.iter().any(|e| e.stream == stream) {
                streams.push(Enlisted {
                    stream,
                    settled: false,
                    synced: 0,
                });
                self.book.promote();
                open::enlist(self.book.id, stream, self.book.ctx);
            }
        }
    }

    /// The common end of a scope, where [`finish`](Self::finish) would
    /// have nothing to do but leave the registry: one stream, which the
    /// scope synchronised after its last work there (`Parked::wait`,
    /// `LaneCore::synchronize`), and no book (no more streams, events, host
    /// functions or kept values). Then it leaves the registry (which it
    /// entered with that stream) and says whether an escalation aborted it;
    /// otherwise it does nothing and returns `None`.
    #[inline(always)]
    fn end_settled(&self) -> Option<bool> {
        if self.book.first_settled.load(Ordering::Relaxed) && self.book.inner.borrow().0.is_none() {
            Some(self.book.leave(1))
        } else {
            None
        }
    }

    /// Synchronise every enlisted stream (within the deadline, if any);
    /// where that fails, escalate (see [`Escalation`]) so that no borrow can
    /// end while the device may still use it; then destroy the scope's
    /// events and release the host functions.
    #[inline(never)]
    fn finish(&self, deadline: &Option<(Duration, Instant)>) -> (Result<()>, Option<Panic>) {
        let deadline = *deadline;
        let mut first_err = None;
        let first = self.book.first.load(Ordering::Relaxed);
        let mut book = self.book.inner.borrow_mut().0.take().unwrap_or_default();
        let streams = core::mem::take(&mut book.streams);
        let first = Raw::new(first).map(|stream| Enlisted {
            stream,
            synced: 0,
            settled: self.book.first_settled.load(Ordering::Relaxed),
        });
        let mut end = Synced::Done;
        for e in first.iter().chain(streams.iter()) {
            if e.settled {
                // Synchronised by the scope after its last work there.
                continue;
            }
            end = self.synchronize_at_end(e.stream, deadline, &mut first_err);
            if end != Synced::Done {
                break;
            }
        }
        if end != Synced::Done {
            // The escalation starts from the scope's entries.
            self.book.promote();
            let escalation = escalate(self.book.id);
            if end == Synced::TimedOut {
                let millis = deadline.map_or(0, |(t, _)| t.as_millis());
                first_err = Some(Error::ScopeTimeout { millis, escalation });
            }
        }
        // Only a scope that enlisted a stream entered the registry.
        if first.is_some() && self.book.leave(1 + streams.len()) && end == Synced::Done {
            // Another scope's deadline aborted a stream this one shares (or
            // one it depends on): some of this scope's work was discarded.
            first_err = Some(Error::WorkAborted);
        }
        let mut panic = None;
        let events = core::mem::take(&mut book.events);
        let host_fns = core::mem::take(&mut book.host_fns);
        // The kept values are released by `release_kept`, after this.
        if !book.kept.is_empty() {
            self.book.inner.borrow_mut().0 = Some(book);
        }
        for event in events {
            if let Err(e) = super::destroy_event(event) {
                first_err.get_or_insert(e);
            }
        }
        for slot in host_fns {
            // A host function skipped by a device fault or discarded by an
            // abort is dropped here, on this thread, after the streams are idle.
            if let (Some(p), _) = slot.settle() {
                panic.get_or_insert(p);
            }
        }
        (first_err.map_or(Ok(()), Err), panic)
    }

    /// Synchronise `stream` at the scope's end, within the deadline if any;
    /// the first error goes to `first_err`.
    fn synchronize_at_end(
        &self,
        stream: Raw,
        deadline: Option<(Duration, Instant)>,
        first_err: &mut Option<Error>,
    ) -> Synced {
        let mut tries = 0;
        loop {
            // aclrtSynchronizeStream switches to the stream's context by
            // itself; making it current first is a courtesy.
            let _ = super::make_current(self.book.ctx);
            let synced = match deadline {
                None => super::synchronize_stream(stream),
                Some((_, at)) => match millis_left(at) {
                    Some(ms) => super::synchronize_stream_timeout(stream, ms),
                    // The deadline has passed: only a stream already idle
                    // is done.
                    None => match super::stream_is_complete(stream) {
                        Ok(true) => super::synchronize_stream(stream),
                        _ => return Synced::TimedOut,
                    },
                },
            };
            match synced {
                Ok(()) => return Synced::Done,
                Err(e) if deadline.is_some() && e.is_timeout() => return Synced::TimedOut,
                Err(e) => {
                    // A device fault is reported once, then cleared.
                    first_err.get_or_insert(e);
                    tries += 1;
                    if tries >= 3 {
                        return Synced::Stuck;
                    }
                }
            }
        }
    }
}

/// How the end of a scope left one stream.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Synced {
    /// Idle: synchronised.
    Done,
    /// Not idle by the deadline.
    TimedOut,
    /// Its synchronisation failed repeatedly.
    Stuck,
}

/// A stream enlisted in a scope, branded `'sid`: the only place where
/// asynchronous work is queued.
///
/// One per brand: it consumes the `Guard<'sid>` it is branded with.
pub struct LaneCore<'scope, 'sid> {
    core: &'scope ScopeCore<'scope>,
    stream: Raw,
    _sid: PhantomData<Id<'sid>>,
}

/// A buffer exclusively borrowed for `'scope` and parked while the device
/// may use it; all its work is queued on the lane branded `'sid`.
///
/// Holds the `&'scope mut D` as a pointer, and its address and size, taken
/// once from an exclusive reborrow; no reference to `*D` is made while it
/// is parked. The only way back to `&'scope mut D` is [`Parked::wait`].
/// Forgetting it is harmless: the buffer stays borrowed until the scope has
/// synchronised.
pub struct Parked<'scope, 'sid, D: ?Sized> {
    ptr: NonNull<D>,
    region: Region,
    stream: Raw,
    /// The fault clock when the work behind its *contents* began: when it
    /// was parked, or earlier, when its contents come from other buffers'
    /// (a copy or a kernel reading them: [`Parked::derive`]). A fault seen
    /// later may be that work's ([`faults`]).
    since: u64,
    /// The scope's book: its context and id, and where a successful
    /// [`wait`](Self::wait) is noted.
    book: &'scope CoreBook,
    _borrow: PhantomData<&'scope mut D>,
    _sid: PhantomData<Id<'sid>>,
}

/// The operand that an asynchronous copy on the lane branded `'sid` reads,
/// borrowed for `'a`: runtime memory shared for the whole scope
/// ([`Source::shared`]), or a buffer parked on the same lane
/// ([`Source::in_flight`]).
pub struct Source<'a, 'sid> {
    region: Region,
    /// The stream whose work this read must follow: the lane a parked
    /// buffer or a shared read is on; `None` for memory shared for the
    /// whole scope, which any lane may read.
    stream: Option<Raw>,
    /// The fault clock when the work behind its contents began
    /// (`Parked::since`); `u64::MAX` for memory shared for the whole scope,
    /// which no work of the scope writes.
    since: u64,
    _borrow: PhantomData<&'a [u8]>,
    _sid: PhantomData<Id<'sid>>,
}

/// A parked buffer on its way from the lane branded `'sid` to another: an
/// event recorded on its stream after its last use there.
pub struct Handover<'scope, 'sid, D: ?Sized> {
    event: Raw,
    item: Parked<'scope, 'sid, D>,
}

/// A parked buffer shared by lanes of one scope for reading (fan-out):
/// an event recorded on the producing stream after its last use there,
/// and the streams that waited for it and may read the buffer.
///
/// Still holds the exclusive borrow; no lane can write the buffer, and it
/// comes back to one lane only through [`LaneCore::reclaim`], which makes
/// that lane wait for every reader. Invariant in `'scope`.
pub struct SharedCore<'scope, D: ?Sized> {
    ptr: NonNull<D>,
    region: Region,
    /// `Parked::since` of the buffer.
    since: u64,
    event: Raw,
    readers: RefCell<Vec<Raw>>,
    _borrow: PhantomData<&'scope mut D>,
    _invariant: PhantomData<fn(&'scope ()) -> &'scope ()>,
}

/// Proof that the lane branded `'sid` waited for the producer of a
/// [`SharedCore`] and is one of its readers: made only by
/// [`LaneCore::read_shared`].
pub struct SharedReader<'a, 'scope, 'sid, D: ?Sized> {
    shared: &'a SharedCore<'scope, D>,
    /// The stream that waited for the producer.
    stream: Raw,
    _sid: PhantomData<Id<'sid>>,
}

impl<'a, 'scope, 'sid, D: ?Sized> SharedReader<'a, 'scope, 'sid, D> {
    /// The shared buffer.
    pub(crate) fn shared(&self) -> &'a SharedCore<'scope, D> {
        self.shared
    }
}

impl<D: ?Sized> SharedCore<'_, D> {
    /// The start address.
    pub(crate) fn address(&self) -> NonNull<u8> {
        self.region.ptr
    }

    /// How many lanes read it so far.
    pub(crate) fn reader_count(&self) -> usize {
        self.readers.borrow().len()
    }
}

/// An event the scope recorded on one of its lanes (a point others may
/// wait for); the scope destroys it after its final synchronisation.
///
/// Invariant in `'scope`, so only lanes of the same scope wait for it: an
/// abort of the scope's streams (its deadline, or another scope's) discards
/// the record and aborts every lane of the scope with it, whereas a lane of
/// another scope would wait for the discarded record for ever.
#[derive(Clone, Copy)]
pub struct ScopeEvent<'scope> {
    event: Raw,
    _scope: PhantomData<fn(&'scope ()) -> &'scope ()>,
}

impl core::fmt::Debug for ScopeEvent<'_> {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        self.event.fmt(f)
    }
}

/// A `Region` moved into a host function.
struct SendRegion(Region);
// SAFETY: the region is only dereferenced inside the host function, under
// the exclusive-borrow argument given there; moving the address between
// threads is harmless.
unsafe impl Send for SendRegion {}

impl<'scope, 'sid> LaneCore<'scope, 'sid> {
    /// Enlist `stream` in the scope, branded `'sid` by `guard`. The stream is
    /// borrowed for `'scope`, so it outlives the scope's final
    /// synchronisation.
    pub(crate) fn new(
        core: &'scope ScopeCore<'scope>,
        stream: &'scope impl HandleOwner,
        guard: Guard<'sid>,
    ) -> Self {
        Self::in_set(core, stream, Id::from(guard))
    }

    /// Enlist `stream` as one lane of a set branded `'sid` by one guard
    /// ([`Scope::lanes`](crate::Scope::lanes)): the brand then names the set,
    /// not one stream, and every operand bound to a stream (a [`Parked`],
    /// a shared read) is checked against the lane's stream before work on
    /// it is queued ([`check_lane`](Self::check_lane)).
    pub(crate) fn in_set(
        core: &'scope ScopeCore<'scope>,
        stream: &'scope impl HandleOwner,
        brand: Id<'sid>,
    ) -> Self {
        let _ = brand;
        let stream = stream.handle();
        core.enlist(stream);
        LaneCore {
            core,
            stream,
            _sid: PhantomData,
        }
    }

    /// The stream, to queue work on it: every path that queues work of the
    /// scope on a lane's stream takes the handle through this (or
    /// [`queue`](Self::queue)), which notes that the scope's end must
    /// synchronise the stream again (see `Enlisted::settled`).
    #[inline(always)]
    pub(crate) fn stream(&self) -> Raw {
        self.queue()
    }

    /// The stream, about to have work queued on it: the scope's end must
    /// synchronise it (see `Enlisted::settled`).
    #[inline(always)]
    fn queue(&self) -> Raw {
        self.core.book.unsettle(self.stream);
        self.stream
    }

    /// [`Error::WrongLane`] unless an operand bound to `stream` (a buffer
    /// parked there, or a shared read made there) may be used by work on
    /// this lane: only on its own stream. Lanes made together
    /// ([`Scope::lanes`](crate::Scope::lanes)) share one brand, so the brand
    /// alone does not tell their streams apart; every path that queues work
    /// on a bound operand checks it here, before anything is queued.
    #[inline(always)]
    pub(crate) fn check_lane(&self, stream: Raw) -> Result<()> {
        if stream == self.stream {
            Ok(())
        } else {
            Err(wrong_lane(self.stream, stream))
        }
    }

    /// [`check_lane`](Self::check_lane) of a source bound to a stream.
    #[inline(always)]
    pub(crate) fn check_source(&self, src: &Source<'_, 'sid>) -> Result<()> {
        match src.stream {
            Some(stream) => self.check_lane(stream),
            None => Ok(()),
        }
    }

    /// The scope this lane belongs to.
    pub(crate) fn scope(&self) -> &'scope ScopeCore<'scope> {
        self.core
    }

    #[inline]
    pub(super) fn bind(&self) -> Result<()> {
        super::make_current(self.core.book.ctx)
    }

    /// The scope's context.
    pub(super) fn context(&self) -> Raw {
        self.core.book.ctx
    }

    /// Park `dst` on this lane; nothing is queued yet.
    pub(crate) fn park<D: RawDest + ?Sized>(&self, dst: &'scope mut D) -> Parked<'scope, 'sid, D> {
        let mut ptr = NonNull::from(dst);
        // SAFETY: `ptr` was made from an exclusive borrow, live for `'scope`,
        // that the returned `Parked` takes over; this reborrow is the only
        // access to `*ptr` and ends with the statement. The region is derived
        // from it (an exclusive reborrow, not a shared one), so the runtime
        // and `host_fn_with` may write through it while the buffer is parked.
        let region = unsafe { ptr.as_mut() }.raw_mut().reborrow().region();
        Parked {
            ptr,
            region,
            stream: self.stream,
            since: faults::now(),
            book: &self.core.book,
            _borrow: PhantomData,
            _sid: PhantomData,
        }
    }

    /// Queue a copy of all of `src` into `dst` (`aclrtMemcpyAsync`); `kind`
    /// must describe where both lie. The caller checked that the lengths
    /// match.
    #[inline]
    pub(crate) fn copy<D: Stable + ?Sized>(
        &self,
        src: Source<'_, 'sid>,
        dst: Parked<'scope, 'sid, D>,
        kind: sys::aclrtMemcpyKind,
    ) -> Result<Parked<'scope, 'sid, D>> {
        self.check_source(&src)?;
        self.check_lane(dst.stream)?;
        self.bind()?;
        // The whole of `dst` is overwritten from `src`.
        let mut dst = dst;
        dst.derive(true, src.since);
        // SAFETY:
        // * `dst.region` is runtime memory (`D: Stable`) exclusively borrowed
        //   for `'scope` by `dst` (returned, so it stays parked), writable
        //   for `dst.region.bytes` bytes, and its earlier work is queued on
        //   this stream (brand `'sid`), so it runs first;
        // * `src.region` is runtime memory readable for `src.region.bytes`
        //   bytes until this stream's work is done: shared for `'scope`, or
        //   parked on this lane (whose release waits for this stream);
        // * `run` synchronises this stream (enlisted by `new`) before either
        //   borrow ends (module argument);
        // * `count` = the source's size; the runtime rejects
        //   `count > destMax` (the destination's size);
        // * `kind` describes where both lie (crate contract); the stream is
        //   live (borrowed for `'scope`) and its context current (`bind`).
        let code = unsafe {
            sys::aclrtMemcpyAsync(
                dst.region.ptr.as_ptr().cast(),
                dst.region.bytes,
                src.region.ptr.as_ptr().cast(),
                src.region.bytes,
                kind,
                self.queue().as_ptr(),
            )
        };
        check(code, "aclrtMemcpyAsync")?;
        Ok(dst)
    }

    /// Queue setting every byte of `dst` to `byte` (`aclrtMemsetAsync`).
    pub(crate) fn memset<D: Stable + ?Sized>(
        &self,
        dst: Parked<'scope, 'sid, D>,
        byte: u8,
    ) -> Result<Parked<'scope, 'sid, D>> {
        self.check_lane(dst.stream)?;
        self.bind()?;
        let mut dst = dst;
        dst.derive(true, u64::MAX);
        let region = dst.region;
        // SAFETY: `region` is runtime memory (`D: Stable`, the memory
        // `aclrtMemsetAsync` is defined for) exclusively borrowed for
        // `'scope` by `dst`, whose earlier work is queued on this stream;
        // `run` synchronises the stream before the borrow ends;
        // count == maxCount == its size; the stream is live and its context
        // current.
        let code = unsafe {
            sys::aclrtMemsetAsync(
                region.ptr.as_ptr().cast(),
                region.bytes,
                i32::from(byte),
                region.bytes,
                self.queue().as_ptr(),
            )
        };
        check(code, "aclrtMemsetAsync")?;
        Ok(dst)
    }

    /// Queue `f` as a host function (`aclrtLaunchHostFunc`).
    pub(crate) fn host_fn(&self, f: Box<dyn FnOnce() + Send + 'scope>) -> Result<()> {
        // SAFETY: this only erases a lifetime. The closure may borrow data for
        // `'scope`. It is called by the trampoline before the stream's
        // synchronisation in `ScopeCore::finish` completes, or dropped by
        // `finish` after it (the slot is in the book, below); both happen
        // before `'scope` ends (module argument). The slot is dropped earlier
        // only if `bind` fails, when the runtime never saw it.
        let f: Box<dyn FnOnce() + Send + 'static> = unsafe { core::mem::transmute(f) };
        let slot = HostFnSlot::new(f);
        self.bind()?;
        self.core.book.book().host_fns.push(Arc::clone(&slot));
        // The stream cannot be subscribed to a reporter until the scope
        // ends (the two callback mechanisms must not mix on one stream).
        self.core.book.promote();
        open::host_fns_on(self.core.book.id, self.stream);
        // SAFETY: the book holds an `Arc` of `slot` (pushed above) until
        // after the final synchronisation of this stream (enlisted by `new`),
        // or its abort, in `ScopeCore::finish`; the stream's context is
        // current.
        unsafe { host_fn::enqueue(self.queue(), &slot) }
    }

    /// Queue a host function that gets the elements of `target` once the
    /// work queued on this lane before it is done (`aclrtLaunchHostFunc`).
    pub(crate) fn host_fn_with<D, F>(
        &self,
        target: Parked<'scope, 'sid, D>,
        f: F,
    ) -> Result<Parked<'scope, 'sid, D>>
    where
        D: CpuVisible + ?Sized,
        D::Item: bytemuck::Pod,
        F: FnOnce(&mut [D::Item]) + Send + 'scope,
    {
        self.check_lane(target.stream)?;
        let region = SendRegion(target.region);
        self.host_fn(Box::new(move || {
            let region = region;
            let bytes = region.0.bytes;
            // SAFETY:
            // * the region is CPU-visible, initialised memory of `bytes`
            //   bytes (`D: CpuVisible`: pinned memory), taken from an
            //   exclusive reborrow when `target` was parked;
            // * it is exclusively borrowed for `'scope` by the `Parked`
            //   returned below, and no reference to it exists while it is
            //   parked;
            // * the lane runs this after the work queued before it and
            //   before any queued after it, and a parked buffer is handed to
            //   another lane only after an event recorded behind this task;
            //   so nothing else accesses it while the slice lives (it ends
            //   with this closure).
            let data: &mut [u8] =
                unsafe { core::slice::from_raw_parts_mut(region.0.ptr.as_ptr(), bytes) };
            f(bytemuck::cast_slice_mut(data));
        }))?;
        Ok(target)
    }

    fn record_scope_event(&self) -> Result<Raw> {
        self.bind()?;
        let event = super::create_event_with_flag(self.core.book.ctx, sys::ACL_EVENT_SYNC)?;
        self.core.book.book().events.push(event);
        super::record_event(event, self.queue())?;
        Ok(event)
    }

    /// Record an event after the last use of `item` on this lane (its
    /// stream: the brand `'sid` says so), to hand it to another lane.
    pub(crate) fn signal<D: ?Sized>(
        &self,
        item: Parked<'scope, 'sid, D>,
    ) -> Result<Handover<'scope, 'sid, D>> {
        self.check_lane(item.stream)?;
        let event = self.record_scope_event()?;
        Ok(Handover { event, item })
    }

    /// Make this lane wait for `handover` (`aclrtStreamWaitEvent`) and park
    /// its buffer here: work queued here afterwards, and [`Parked::wait`] on
    /// this lane, come after the work queued on the other lane before it.
    pub(crate) fn wait_for<'other, D: ?Sized>(
        &self,
        handover: Handover<'scope, 'other, D>,
    ) -> Result<Parked<'scope, 'sid, D>> {
        self.bind()?;
        super::stream_wait_event(self.queue(), handover.event)?;
        self.core.book.cross();
        self.after_scope_wait(&[handover.event])?;
        let item = handover.item;
        Ok(Parked {
            ptr: item.ptr,
            region: item.region,
            stream: self.stream,
            since: item.since,
            book: item.book,
            _borrow: PhantomData,
            _sid: PhantomData,
        })
    }

    /// Record an event after the last use of `item` on this lane, so that
    /// any lane of the scope may read it ([`read_shared`](Self::read_shared)).
    pub(crate) fn share<D: ?Sized>(
        &self,
        item: Parked<'scope, 'sid, D>,
    ) -> Result<SharedCore<'scope, D>> {
        self.check_lane(item.stream)?;
        let event = self.record_scope_event()?;
        Ok(SharedCore {
            ptr: item.ptr,
            region: item.region,
            since: item.since,
            event,
            readers: RefCell::new(Vec::new()),
            _borrow: PhantomData,
            _invariant: PhantomData,
        })
    }

    /// Make this lane wait for the producer of `shared` (once per lane) and
    /// note it as a reader; the token lets work queued here read the buffer
    /// ([`Source::shared_read`]).
    pub(crate) fn read_shared<'a, D: ?Sized>(
        &self,
        shared: &'a SharedCore<'scope, D>,
    ) -> Result<SharedReader<'a, 'scope, 'sid, D>> {
        if !shared.readers.borrow().contains(&self.stream) {
            self.bind()?;
            super::stream_wait_event(self.queue(), shared.event)?;
            self.core.book.cross();
            shared.readers.borrow_mut().push(self.stream);
            self.after_scope_wait(&[shared.event])?;
        }
        Ok(SharedReader {
            shared,
            stream: self.stream,
            _sid: PhantomData,
        })
    }

    /// Take `shared` back to this lane for writing: this lane waits for its
    /// producer and for an event recorded on every reader's stream after
    /// the reads queued there.
    pub(crate) fn reclaim<D: ?Sized>(
        &self,
        shared: SharedCore<'scope, D>,
    ) -> Result<Parked<'scope, 'sid, D>> {
        self.bind()?;
        super::stream_wait_event(self.queue(), shared.event)?;
        self.core.book.cross();
        let mut waited = vec![shared.event];
        for &reader in shared.readers.borrow().iter() {
            if reader == self.stream {
                continue;
            }
            let event = super::create_event_with_flag(self.core.book.ctx, sys::ACL_EVENT_SYNC)?;
            self.core.book.book().events.push(event);
            self.core.book.unsettle(reader);
            // `reader` is the stream of a lane of this scope (enlisted), so
            // it is live until the scope's end.
            super::record_event(event, reader)?;
            super::stream_wait_event(self.queue(), event)?;
            waited.push(event);
        }
        self.after_scope_wait(&waited)?;
        Ok(Parked {
            ptr: shared.ptr,
            region: shared.region,
            stream: self.stream,
            since: shared.since,
            book: &self.core.book,
            _borrow: PhantomData,
            _sid: PhantomData,
        })
    }

    /// Record a point on this lane that other lanes may wait for.
    pub(crate) fn mark(&self) -> Result<ScopeEvent<'scope>> {
        Ok(ScopeEvent {
            event: self.record_scope_event()?,
            _scope: PhantomData,
        })
    }

    /// Make this lane wait for `mark` (`aclrtStreamWaitEvent`).
    pub(crate) fn wait_mark(&self, mark: ScopeEvent<'scope>) -> Result<()> {
        self.bind()?;
        super::stream_wait_event(self.queue(), mark.event)?;
        self.after_scope_wait(&[mark.event])
    }

    /// This lane was just made to wait for `events`, events of this scope
    /// recorded on its lanes. A stream wait for a record that an abort
    /// discarded never ends (acl-facts K.8), and the escalation of another
    /// scope may have discarded these records: it aborts a stream of this
    /// scope only after marking this scope aborted, so if the scope is not
    /// marked now, any such abort comes after the wait was queued, and it
    /// aborts this lane's stream too (enlisted before: the scope's streams
    /// join the escalation's group, see `open::abort_group`), dropping the
    /// wait. If it is marked and a record has not executed, the wait may
    /// have been queued after the abort and never end: the scope escalates
    /// itself, which aborts this stream (and the wait) and every stream of
    /// the scope, and the wait reports [`Error::WorkAborted`]. One load
    /// while no escalation ever ran (or, in the registry, an escalation's
    /// lock after one did).
    #[inline]
    fn after_scope_wait(&self, events: &[Raw]) -> Result<()> {
        if self.core.book.aborted() {
            return self.scope_wait_aborted(events);
        }
        Ok(())
    }

    #[cold]
    #[inline(never)]
    fn scope_wait_aborted(&self, events: &[Raw]) -> Result<()> {
        // An error asking counts as not executed.
        if events
            .iter()
            .all(|&e| super::event_is_complete(e).unwrap_or(false))
        {
            // Executed records cannot be discarded: the wait ends.
            return Ok(());
        }
        // The escalation starts from the scope's entries.
        self.core.book.promote();
        let _ = escalate(self.core.book.id);
        Err(Error::WorkAborted)
    }

    /// Make this lane wait for a recorded user event (`aclrtStreamWaitEvent`),
    /// borrowed until the scope has synchronised. An escalation that aborts
    /// the stream of the record waited for aborts this scope too, and a
    /// record such an escalation may have discarded is not waited for
    /// ([`Error::WorkAborted`]): see [`open::wait_for_event`].
    pub(crate) fn wait_event(&self, event: &'scope impl HandleOwner) -> Result<()> {
        self.bind()?;
        let event = event.handle();
        let stream = self.queue();
        self.core.book.promote();
        open::wait_for_event(
            self.core.book.id,
            self.core.book.ctx,
            event,
            || super::event_is_complete(event),
            || super::stream_wait_event(stream, event),
        )
    }

    /// Record a user event on this lane (`aclrtRecordEvent`); an escalation
    /// records it again once the stream is idle.
    pub(crate) fn record(&self, event: &impl HandleOwner) -> Result<()> {
        self.bind()?;
        let event = event.handle();
        self.core.book.promote();
        let ticket = open::scope_record_ticket();
        super::record_event(event, self.queue())?;
        open::recorded(
            self.core.book.id,
            event,
            self.stream,
            self.core.book.ctx,
            ticket,
        );
        Ok(())
    }

    /// Block until all work queued on this lane has finished; an abort by
    /// another scope's deadline is [`Error::WorkAborted`].
    pub(crate) fn synchronize(&self) -> Result<()> {
        self.bind()?;
        super::synchronize_stream(self.stream).map_err(|e| self.core.book.told(self.stream, e))?;
        self.core.book.settle(self.stream);
        if self.core.book.aborted() {
            return Err(Error::WorkAborted);
        }
        Ok(())
    }

    /// Whether all work queued on this lane has finished.
    pub(crate) fn is_complete(&self) -> Result<bool> {
        self.bind()?;
        super::stream_is_complete(self.stream)
    }
}

impl<'scope, 'sid, D: ?Sized> Parked<'scope, 'sid, D> {
    /// The parked memory: exclusively borrowed for `'scope`, its work
    /// queued on the lane branded `'sid`.
    pub(super) fn region(&self) -> Region {
        self.region
    }

    /// The start address.
    pub(crate) fn address(&self) -> NonNull<u8> {
        self.region.ptr
    }

    /// Work about to be queued writes it, from memory whose contents'
    /// work began at fault clock `reads` (the earliest over what it reads;
    /// `u64::MAX`: nothing of the scope's). `overwrite`: every byte is
    /// written (a copy, a memset, a kernel's `Out`), so its old contents
    /// no longer matter: its contents' work begins now (before the work is
    /// queued) or at `reads`, whichever is earlier. Otherwise (`InOut`,
    /// foreign work) the old contents may stay: the earlier of its own
    /// time and `reads`.
    #[inline]
    pub(crate) fn derive(&mut self, overwrite: bool, reads: u64) {
        let own = if overwrite { faults::now() } else { self.since };
        self.since = own.min(reads);
    }

    /// The stream its work is queued on.
    pub(crate) fn stream(&self) -> Raw {
        self.stream
    }

    /// Synchronise its stream (`aclrtSynchronizeStream`) and give the
    /// exclusive borrow back for the rest of the scope, if its work did not
    /// fault. On error the buffer stays borrowed until the scope ends.
    #[inline]
    pub(crate) fn wait(self) -> Result<&'scope mut D> {
        self.wait_or_keep().map_err(|(e, _)| e)
    }

    /// [`wait`](Self::wait), which on error gives the buffer back, still
    /// parked on its lane (nothing about it changed: it may be waited for
    /// again, or used by more work on its lane).
    ///
    /// A *checked* wait: a device fault seen by any synchronisation since
    /// the buffer was parked, on a stream its work may have run on, fails
    /// it ([`CoreBook::fault_since`]) — every time: the work's outcome does
    /// not change. [`reuse_or_keep`](Self::reuse_or_keep) gives the buffer
    /// back whatever its work did.
    #[inline]
    pub(crate) fn wait_or_keep(self) -> core::result::Result<&'scope mut D, (Error, Self)> {
        match self.sync_checked() {
            // SAFETY: the stream was synchronised without an abort of the
            // scope (`sync_checked`), so no asynchronous access remains.
            Ok(()) => Ok(unsafe { self.into_mut() }),
            Err(e) => Err((e, self)),
        }
    }

    /// Synchronise the stream and give the buffer back even if a device
    /// fault of its work (or of other work of the stream) is reported: its
    /// contents are then whatever the work left. The fault is not returned:
    /// a checked wait that it may concern reports it, or else the scope's
    /// end. Other errors (an abort, a synchronisation that failed) give the
    /// buffer back still parked.
    pub(crate) fn reuse_or_keep(self) -> core::result::Result<&'scope mut D, (Error, Self)> {
        let synced = match super::synchronize_stream(self.stream) {
            Ok(()) => Ok(()),
            Err(e) => {
                fault_of_finished_work(e, self.stream, || super::stream_is_complete(self.stream))
            }
        };
        if let Err(e) = synced {
            return Err((e, self));
        }
        self.book.settle(self.stream);
        if self.book.aborted() {
            return Err((Error::WorkAborted, self));
        }
        // SAFETY: the stream was synchronised — the synchronisation
        // succeeded, or reported a device fault and the stream is idle
        // (`fault_of_finished_work`) — without an abort of the scope, so no
        // asynchronous access remains.
        Ok(unsafe { self.into_mut() })
    }

    /// The checked synchronisation of [`wait_or_keep`](Self::wait_or_keep):
    /// `Ok` when the stream was synchronised, no abort of the scope
    /// discarded work, and no device fault its work may have had was seen.
    #[inline]
    fn sync_checked(&self) -> Result<()> {
        // No context is made current: `aclrtSynchronizeStream` switches to
        // the stream's context by itself (acl-facts 5.4).
        super::synchronize_stream(self.stream).map_err(|e| self.book.told(self.stream, e))?;
        self.book.settle(self.stream);
        if self.book.crossed() {
            self.sync_other_lanes()?;
        }
        self.check_after_sync()
    }

    /// The rest of a checked wait once the stream was synchronised after
    /// the buffer's last work: no abort discarded work, and no fault the
    /// work may have had was seen.
    #[inline]
    fn check_after_sync(&self) -> Result<()> {
        if self.book.aborted() {
            // The work was (partly) discarded: its result is not there.
            return Err(Error::WorkAborted);
        }
        match self.book.fault_since(self.stream, self.since) {
            Some(fault) => Err(fault),
            None => Ok(()),
        }
    }

    /// Buffers crossed lanes: the contents may come from work of any lane,
    /// whose faults only that lane's synchronisation reports. Synchronise
    /// the other streams of the scope too (their faults are entered in
    /// `faults`; a fault fails the wait through `fault_since`, any other
    /// error is returned).
    #[cold]
    #[inline(never)]
    fn sync_other_lanes(&self) -> Result<()> {
        for stream in self.book.streams() {
            if stream == self.stream {
                continue;
            }
            match super::synchronize_stream(stream) {
                Ok(()) => self.book.settle(stream),
                Err(e) if e.kind() == ErrorKind::DeviceFault => {}
                Err(e) => return Err(e),
            }
        }
        Ok(())
    }

    /// The exclusive borrow back, once.
    ///
    /// # Safety
    /// No asynchronous access to the region remains: the stream was
    /// synchronised (or an event recorded on it after the buffer's last use
    /// there completed) after all the buffer's work was queued, and no
    /// abort of the scope discarded any of it.
    #[inline]
    unsafe fn into_mut(self) -> &'scope mut D {
        // SAFETY:
        // * `ptr` came from a `&'scope mut D` whose borrow this value carries
        //   (`_borrow`), and no other reference to `*ptr` exists while it is
        //   parked (`park` made none that outlives it);
        // * all work that used the region ran on `stream` — or on streams
        //   `stream` waited for through events, which its tasks follow —
        //   and the caller's contract says that work is over;
        // * `self` is consumed, so the pointer becomes `&mut` once.
        unsafe { &mut *self.ptr.as_ptr() }
    }
}

/// A synchronisation failed with `e`: if `e` is a device fault and
/// `finished` says the work it waited for is over (a stream or event
/// query), the fault is one of finished work — the buffer may come back —
/// and it is left owed to a checked wait or the scope's end
/// ([`faults::owe`]). Any other error, or a query that fails or says
/// not finished, is returned.
#[cold]
#[inline(never)]
fn fault_of_finished_work(
    e: Error,
    stream: Raw,
    finished: impl FnOnce() -> Result<bool>,
) -> Result<()> {
    if e.kind() == ErrorKind::DeviceFault && finished().unwrap_or(false) {
        faults::owe(Key::stream(stream), &e);
        Ok(())
    } else {
        Err(e)
    }
}

impl<'scope, 'sid, D: ?Sized> Parked<'scope, 'sid, D> {
    /// Record an event on its stream after the work queued there so far
    /// (`aclrtRecordEvent`): the last use of the buffer, since the fence
    /// takes it over and nothing can queue more work on it.
    pub(crate) fn fence(self) -> core::result::Result<FenceCore<'scope, 'sid, D>, (Error, Self)> {
        match self.record_fence() {
            Ok(event) => Ok(FenceCore {
                ticket: self.book.fence_ticket(),
                item: self,
                event,
            }),
            Err(e) => Err((e, self)),
        }
    }

    fn record_fence(&self) -> Result<Raw> {
        super::make_current(self.book.ctx)?;
        let reused = self
            .book
            .inner
            .borrow_mut()
            .0
            .as_mut()
            .and_then(|b| b.free_fences.pop());
        let event = match reused {
            Some(event) => event,
            None => {
                let event = super::create_event_with_flag(self.book.ctx, sys::ACL_EVENT_SYNC)?;
                // Destroyed by `finish`, after the final synchronisation.
                self.book.book().events.push(event);
                event
            }
        };
        // Work is queued on the stream: the scope's end synchronises it.
        self.book.unsettle(self.stream);
        if let Err(e) = super::record_event(event, self.stream) {
            self.book.book().free_fences.push(event);
            return Err(e);
        }
        Ok(event)
    }
}

/// A parked buffer and an event recorded on its stream after its last use
/// there ([`Parked::fence`]): the buffer comes back when that event
/// completes (`aclrtSynchronizeEvent`), while later work of the stream may
/// still run.
pub struct FenceCore<'scope, 'sid, D: ?Sized> {
    item: Parked<'scope, 'sid, D>,
    event: Raw,
    /// The scope's count of fences when this one was recorded
    /// (`CoreBook::fence_ticket`).
    ticket: u64,
}

impl<'scope, 'sid, D: ?Sized> FenceCore<'scope, 'sid, D> {
    /// The fenced buffer.
    pub(crate) fn item(&self) -> &Parked<'scope, 'sid, D> {
        &self.item
    }

    /// Whether the work before the fence has finished (`aclrtQueryEventStatus`).
    pub(crate) fn is_complete(&self) -> Result<bool> {
        super::event_is_complete(self.event)
    }

    /// Back to a parked buffer on its lane, for more work there; the event
    /// may be recorded again by another fence (nothing waits for this
    /// record: a fence is consumed by its wait).
    pub(crate) fn resume(self) -> Parked<'scope, 'sid, D> {
        self.free_event();
        self.item
    }

    fn free_event(&self) {
        if let Some(book) = self.item.book.inner.borrow_mut().0.as_mut() {
            book.free_fences.push(self.event);
        }
    }

    /// A checked wait ([`Parked::wait_or_keep`]): synchronise the stream
    /// (`aclrtSynchronizeStream`: the runtime reports a device fault to a
    /// stream synchronisation only, never to `aclrtSynchronizeEvent`, see
    /// [`faults`]) and give the exclusive borrow back if no fault the work
    /// before the fence may have had was seen; on error, the fence back.
    pub(crate) fn wait_or_keep(self) -> core::result::Result<&'scope mut D, (Error, Self)> {
        // A synchronisation of the lane by this scope that began after the
        // record already waited for it (a checked wait of a later fence of
        // the lane, typically): then only the faults are looked up. Not
        // when buffers crossed lanes (the other lanes are synchronised by
        // the checked wait).
        let book = self.item.book;
        let checked = if !book.crossed() && book.synced_after(self.item.stream, self.ticket) {
            self.item.check_after_sync()
        } else {
            self.item.sync_checked()
        };
        if let Err(e) = checked {
            return Err((e, self));
        }
        self.free_event();
        // SAFETY: the stream was synchronised (here, or by a
        // synchronisation of this scope that began after the record) after
        // every piece of work that used the region was queued (on the
        // item's stream before the record, or on a stream it waited for),
        // without an abort of the scope (`check_after_sync`).
        Ok(unsafe { self.item.into_mut() })
    }

    /// Wait for the event (`aclrtSynchronizeEvent`) only, and give the
    /// exclusive borrow back whatever the work before it did (a device
    /// fault is not reported by this wait: a checked wait or the scope's
    /// end reports it); on error, the fence back.
    pub(crate) fn reuse_or_keep(self) -> core::result::Result<&'scope mut D, (Error, Self)> {
        // A record that an abort discarded never completes, and a host wait
        // for it may never end (acl-facts K.8): once the scope is marked
        // aborted, an event that has not completed is not waited for.
        if self.item.book.aborted() && !super::event_is_complete(self.event).unwrap_or(false) {
            return Err((Error::WorkAborted, self));
        }
        if let Err(e) = super::synchronize_event(self.event) {
            // In the stop-on-failure mode the context's failure is reported
            // by every call, this one included.
            let event = self.event;
            if let Err(e) =
                fault_of_finished_work(e, self.item.stream, || super::event_is_complete(event))
            {
                return Err((e, self));
            }
        }
        if self.item.book.aborted() {
            // An abort may have discarded work before the record; a
            // discarded record is reported by the synchronisation, but the
            // scope's mark comes first (see `LaneCore::after_scope_wait`),
            // so this also covers the record that completed only because
            // the work before it was dropped.
            return Err((Error::WorkAborted, self));
        }
        self.free_event();
        // SAFETY: every piece of work that used the region was queued on
        // the item's stream before the event's record (the fence took the
        // item over, so nothing was queued on it since), or on a stream
        // that stream waited for (a hand-off) before the record; the stream
        // runs its tasks in order, and the record has completed without an
        // abort (checked above: an abort marks the scope before it discards
        // anything), so no asynchronous access remains.
        Ok(unsafe { self.item.into_mut() })
    }
}

impl<'a, 'sid> Source<'a, 'sid> {
    /// The memory read: readable until the lane branded `'sid` is idle.
    pub(super) fn region(&self) -> Region {
        self.region
    }

    /// The stream this read must be queued on, if it is bound to one.
    pub(super) fn stream(&self) -> Option<Raw> {
        self.stream
    }

    /// The fault clock when the work behind the memory's contents began
    /// (`u64::MAX`: memory no work of the scope writes).
    pub(crate) fn since(&self) -> u64 {
        self.since
    }

    /// `src`, runtime memory shared for the whole scope of `lane`.
    pub(crate) fn shared<S: Stable + ?Sized>(
        lane: &LaneCore<'a, 'sid>,
        src: &'a S,
    ) -> Source<'a, 'sid> {
        let _ = lane;
        Source {
            region: RawSource::raw(src).region(),
            stream: None,
            since: u64::MAX,
            _borrow: PhantomData,
            _sid: PhantomData,
        }
    }

    /// The memory of a read-only device view (its `Mem`, which borrows its
    /// buffer for the whole scope of `lane`).
    pub(crate) fn view(lane: &LaneCore<'a, 'sid>, view: Mem<'a>) -> Source<'a, 'sid> {
        let _ = lane;
        Source {
            region: view.region(),
            stream: None,
            since: u64::MAX,
            _borrow: PhantomData,
            _sid: PhantomData,
        }
    }

    /// A shared buffer, read on the lane branded `'sid`, which has waited
    /// for its producer and is one of its readers (the token says so), so
    /// [`LaneCore::reclaim`] waits for this read.
    pub(crate) fn shared_read<D: ?Sized>(
        reader: &'a SharedReader<'_, '_, 'sid, D>,
    ) -> Source<'a, 'sid> {
        Source {
            region: reader.shared.region,
            stream: Some(reader.stream),
            since: reader.shared.since,
            _borrow: PhantomData,
            _sid: PhantomData,
        }
    }

    /// A buffer parked on the lane branded `'sid`, read there: the read is
    /// queued on its stream, so its release waits for it.
    pub(crate) fn in_flight<D: Stable + ?Sized>(item: &'a Parked<'_, 'sid, D>) -> Source<'a, 'sid> {
        Source {
            region: item.region,
            stream: Some(item.stream),
            since: item.since,
            _borrow: PhantomData,
            _sid: PhantomData,
        }
    }
}

impl<'scope, 'sid, D: ?Sized> Handover<'scope, 'sid, D> {
    /// The event.
    pub(crate) fn event(&self) -> Raw {
        self.event
    }

    /// The buffer.
    pub(crate) fn item(&self) -> &Parked<'scope, 'sid, D> {
        &self.item
    }
}

// Awaited waits (`super::completion`, `crate::future`): what each wait
// waits for, so that its future is woken when that is over and its checked
// wait (the blocking form's own) then returns at once.
impl CoreBook {
    /// The streams a checked wait of a buffer on `stream` synchronises:
    /// its own, or every stream of the scope once buffers crossed lanes.
    fn watch(&self, stream: Raw) -> super::completion::Watch {
        use super::completion::{Target, Watch};
        let streams = if self.crossed() {
            let mut all = self.streams();
            if !all.contains(&stream) {
                all.push(stream);
            }
            all
        } else {
            vec![stream]
        };
        Watch::new(
            Some(self.ctx),
            self.id,
            streams.into_iter().map(Target::Stream).collect(),
        )
    }
}

impl ScopeCore<'_> {
    /// The scope's id in the registry of open scopes.
    pub(crate) fn id(&self) -> u64 {
        self.book.id
    }
}

impl LaneCore<'_, '_> {
    /// What [`synchronize`](Self::synchronize) waits for: its stream.
    pub(crate) fn watch(&self) -> super::completion::Watch {
        super::completion::Watch::new(
            Some(self.core.book.ctx),
            self.core.book.id,
            vec![super::completion::Target::Stream(self.stream)],
        )
    }
}

impl<D: ?Sized> Parked<'_, '_, D> {
    /// What a checked wait ([`wait_or_keep`](Self::wait_or_keep))
    /// synchronises.
    pub(crate) fn watch(&self) -> super::completion::Watch {
        self.book.watch(self.stream)
    }
}

impl<D: ?Sized> FenceCore<'_, '_, D> {
    /// What [`reuse_or_keep`](Self::reuse_or_keep) waits for: the event,
    /// or (an abort discarded its record) the stream idle.
    pub(crate) fn watch_reuse(&self) -> super::completion::Watch {
        super::completion::Watch::new(
            Some(self.item.book.ctx),
            self.item.book.id,
            vec![super::completion::Target::EventOrStream(
                self.event,
                self.item.stream,
            )],
        )
    }
}
