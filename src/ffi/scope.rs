//! The unsafe core of leak-safe asynchronous work: what makes
//! [`Scope`](crate::Scope), [`Lane`](crate::Lane) and
//! [`InFlight`](crate::InFlight) sound.
//!
//! This is part of the unsafe boundary because its soundness argument is
//! about time, not types: memory handed to an asynchronous runtime call must
//! stay alive and untouched by the CPU until the device is done with it. The
//! public types (in `src/scope/`) are thin wrappers of the types here,
//! which carry the argument themselves: nothing above this module can queue
//! work, or get an exclusive borrow back, except through them.
//!
//! # The argument
//! * **`'scope` outlives the work.** A [`ScopeCore<'scope>`](ScopeCore) is
//!   only made by [`run`](end::run), in its own stack frame; the code
//!   above gets it only as `&'scope ScopeCore<'scope>`, through
//!   [`ScopeBody::wrap`] and
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
//!   stream first — and every lane its contents came through or it was lent
//!   to (its `Origin`) — (a failure reported then means the stream
//!   finished only if a query says it is idle), or
//!   [`FenceCore::reuse_or_keep`], which, while the buffer never left its
//!   lane, waits for an event recorded on its stream after its last use
//!   ([`Parked::fence`] consumes it, so no later work can use it).
//! * **The failure rule** (SAFETY.md §4.1, core `protocol::failure`): the
//!   runtime reports a failure once, to whichever synchronisation comes
//!   first, so every synchronisation the crate makes enters any failure in
//!   `faults`; a failure on one of the scope's streams sticks to the scope
//!   (every checked wait, [`Parked::wait_or_keep`], [`FenceCore::wait_or_keep`],
//!   fails with it, and the scope's end reports it) until its recovery
//!   point ([`ScopeCore::recover`]); no buffer that left its lane comes
//!   back on the strength of an event or a hand-off: the give-backs make
//!   every lane of its origin idle (`CoreBook::idle_for_give_back`); and
//!   contents that came back unchecked keep their origin in the scope
//!   (`CoreBook::mark_suspect`).
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
//!
//! # Where it lives
//! This file holds the types and the calls that need `unsafe` (a fresh
//! brand, [`ScopeCore::keep`] and the release of what it kept); `lane`
//! holds the lanes and their queueing calls. The bookkeeping beside them
//! is in child modules that deny `unsafe`: `end` ([`run`](end::run) and
//! the final synchronisation), `enlisted` (the enlisted streams and the
//! recovery
//! point), `book` (the scope's book, failures and escalation), `open` (the
//! registry of open scopes), and the `flow`, `parked` and `awaited`
//! modules of `lane`.

mod book;
pub(crate) mod end;
mod enlisted;
mod lane;
mod notifies;
mod open;

pub(crate) use lane::{
    FenceCore, Handover, LaneCore, Parked, ScopeEvent, SharedCore, SharedReader, Source,
};

pub(crate) use notifies::{can_guard_waits, refuse_pending_notify};
pub(crate) use open::{
    event_destroyed, host_fns_pending, record_discarded, record_made, record_ticket,
    take_outside_aborted, wait_event_outside, wait_foreign_event_outside, wait_not_aborting,
};

use core::cell::RefCell;
use core::marker::PhantomData;
use core::ptr::NonNull;
use core::sync::atomic::{AtomicBool, AtomicPtr, AtomicU64};
use std::sync::Arc;

use generativity::{Guard, Id};

use super::Raw;
use super::host_fn::HostFnSlot;
use super::protocol::failure::{Sticky, Suspects};
use crate::error::Error;

/// What [`run`](end::run) runs: the typed layer's closure, and its view of
/// the core.
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

/// The part of a scope that owns what must be synchronised and released
/// when it ends. Only [`run`](end::run) makes one; see the module's
/// argument.
///
/// Neither `Send` nor `Sync`: a scope is driven by the thread that opened it.
/// Its book (a `RefCell`, holding the kept values as raw pointers) makes it
/// so; the assertion below pins it. The handles that reach it (`Scope`,
/// `Lane`) hold [`ThreadBound`](crate::marker::ThreadBound), which their
/// compile errors name.
pub(crate) struct ScopeCore<'scope> {
    book: CoreBook,
    _scope: PhantomData<&'scope mut &'scope ()>,
}

static_assertions::assert_not_impl_any!(ScopeCore<'static>: Send, Sync);

/// The scope's context and id, its first stream, and its book; whether any
/// lane is settled (see `Enlisted`) is readable without borrowing the book:
/// queueing work then costs one load while no lane of the scope was
/// synchronised (kernel launches).
///
/// The first enlisted stream is held outside the book (most scopes enlist
/// one): enlisting it, settling it and the scope's end then borrow nothing
/// (a one-lane scope). The atomics are only there so as not to
/// add more non-`Sync` fields to the scope (each would add an error naming
/// it after the `ThreadBound` that `Send`/`Sync` errors of `Scope` and `Lane`
/// name first); the scope's thread alone uses them, so `Relaxed`.
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
    /// Whether the scope is in no registry: it has one stream (`first`),
    /// no user event and no host function.
    lone: AtomicBool,
    /// The ticket it took when it enlisted `first` (`open::ticket`).
    first_ticket: AtomicU64,
    /// Set when a lane's wait for a user event was refused because an
    /// escalation may have discarded the record (`open::wait_for_event`).
    refused: AtomicBool,
    /// Whether `Book::suspects` may hold a mark (contents that came back
    /// unchecked: [`Suspects`](super::protocol::failure::Suspects)), so that
    /// parking and shared reads look there. Set with the first mark,
    /// cleared when the marks are found empty.
    suspect: AtomicBool,
    /// How many fences the scope recorded: a fence's ticket
    /// ([`FenceCore::ticket`]).
    fences: AtomicU64,
    /// `Enlisted::synced` of `first`.
    first_synced: AtomicU64,
    inner: RefCell<ScopeBook>,
}

/// What a scope must synchronise and release when it ends, beyond its
/// first stream (`CoreBook::first`): made on first use
/// ([`CoreBook::book`]), so a scope with one lane and no events, host
/// functions or kept values allocates, and later drops, nothing; and what
/// sticks to the scope under the failure rule (the failure clock when it
/// opened or last recovered, [`ScopeCore::recover`], and the failure every
/// checked wait returns until then, [`CoreBook::failure`]). One cell, so
/// that the scope's `Send`/`Sync` errors name one field of it.
struct ScopeBook(Option<Box<Book>>, Sticky<Error>);

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
    /// Contents that came back unchecked ([`CoreBook::suspect`]).
    suspects: Suspects,
    /// Notify records and waits queued by the lanes (`notifies`).
    notifies: notifies::NotifyLedger,
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
    /// synchronise it again.
    settled: bool,
    /// `CoreBook::fences` when a synchronisation of the stream by this
    /// scope last succeeded: fences with a ticket up to it finished.
    synced: u64,
    /// The ticket taken when the scope enlisted the stream, before it
    /// queued anything there (`open::ticket`).
    ticket: u64,
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

impl<'scope> ScopeCore<'scope> {
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
        //   no `Box`) until `release_kept` (in `end`);
        // * `release_kept` runs in `run` (in `end`) after `call` has returned
        //   (or unwound) and after the final synchronisation: a `&'scope`
        //   reference cannot be used after `call` (module argument), and no
        //   work queued in the scope still uses the value then;
        // * `T: 'scope`, so everything the value borrows outlives the
        //   reference; what it borrows among the kept values was kept
        //   before it, and is dropped after it (`release_kept` goes in
        //   reverse, and `T: Keep` has no `Drop` that reaches other kept
        //   values otherwise).
        unsafe { &mut *ptr.as_ptr() }
    }

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
}
