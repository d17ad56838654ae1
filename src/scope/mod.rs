//! Asynchronous work that borrows memory: [`Scope`], [`Lane`], [`InFlight`],
//! [`Signal`], [`Mark`].
//!
//! Asynchronous work exists only inside [`Context::scope`](crate::Context::scope)
//! (or [`scope_with_timeout`](crate::Context::scope_with_timeout)), whose
//! closure gets a `&Scope`:
//! * [`Scope::lane`] enlists a stream of the context as a [`Lane`], branded
//!   with a fresh `make_guard!`. Work is queued on lanes: [`Lane::copy`]
//!   (`aclrtMemcpyAsync`), [`Lane::memset`], host functions
//!   ([`Lane::host_fn`], [`Lane::host_fn_with`]).
//! * Operands are pinned host memory or device memory of the context
//!   ([`AsyncSource`], [`AsyncDest`]), borrowed for the rest of the scope:
//!   `&buffer` to read, `&mut buffer` to write. A written buffer comes back
//!   as an [`InFlight`] of that lane: use it for more work on the lane, or
//!   get the `&mut` back with [`InFlight::wait`], which synchronises the
//!   lane first.
//! * [`Lane::park`] takes a buffer onto a lane without queuing work: a
//!   copy's source given as `&parked` (rather than `&buffer`, borrowed for
//!   the whole scope) comes back to the CPU like a destination, so a staging
//!   buffer is refilled inside one long scope. [`InFlight::fence`] records
//!   an event after a buffer's last use; [`Fence::wait`] waits for that
//!   event only (`aclrtSynchronizeEvent`), not for the whole lane.
//!   `wait_or_keep` ([`InFlight::wait_or_keep`], [`Fence::wait_or_keep`])
//!   gives the buffer back when a wait fails.
//! * [`Scope::lanes`] enlists a slice of streams under one brand, as a
//!   `Vec<Lane>` you index at run time; within such a set the stream of
//!   every operand is checked at run time ([`Error::WrongLane`](crate::Error::WrongLane)).
//! * A buffer moves to another lane with [`Lane::signal`] and
//!   [`Lane::wait_for`] (an event recorded after its last use, waited for by
//!   the next lane); [`Lane::mark`] / [`Lane::wait_mark`] order lanes without
//!   a buffer, and [`Lane::record`] / [`Lane::wait_event`] work with your own
//!   [`Event`](crate::Event)s.
//! * Pipelines that overlap on parts of one buffer: split device buffers
//!   into disjoint views ([`DeviceBuffer::split_at_mut`](crate::DeviceBuffer::split_at_mut),
//!   [`chunks_mut`](crate::DeviceBuffer::chunks_mut)) and pinned buffers
//!   into disjoint [`PinnedSlice`](crate::PinnedSlice)s (`split_at_mut`,
//!   `chunks_mut`); views made inside the scope are operands by value. One
//!   buffer read by several lanes at once: [`Lane::share`], [`Lane::read`],
//!   and [`Lane::reclaim`] to join the readers and write it again.
//! * Values made inside the scope that must live as long as it (a user
//!   event recorded on one lane and waited for by another, a buffer
//!   allocated inside): [`Scope::keep`].
//! * [`Context::try_scope`](crate::Context::try_scope): the closure returns
//!   your own error type (`E: From<aclrt::Error>`), so `?` works on both.
//! * When the closure returns (or fails, or panics) the scope synchronises
//!   every lane before `Context::scope` returns, so the borrows end only when
//!   the device is done with the memory. Forgetting an `InFlight`, a
//!   `Signal` or a `Mark` is therefore harmless. With a deadline, a scope
//!   whose work is late stops it instead ([`Escalation`](crate::Escalation)).
//!
//! Misuse is a compile error: a buffer declared inside the closure, a
//! buffer in flight on another lane, memory or streams of another context,
//! pageable memory, a lane or `InFlight` returned out of the scope, a scope
//! sent to another thread (the *Safety model* chapter lists each case).
//!
//! The types here are thin wrappers: what makes them sound (the scope that
//! always synchronises before its borrows end, the parked exclusive borrow,
//! the lifetime-erased host functions) is the private `ffi::scope` module,
//! next to the `unsafe` code it justifies.

use core::marker::PhantomData;
use core::time::Duration;

use generativity::{Guard, Id};

use crate::error::Result;
use crate::error::WaitFailed;
use crate::event::{Event, EventKind, EventState, IsRecorded, Recorded, WaitableKind};
use crate::ffi::scope::{
    FenceCore, Handover, LaneCore, Parked, ScopeBody, ScopeCore, ScopeEvent, SharedCore,
    SharedReader, Source,
};
use crate::ffi::{self, Raw};
use crate::memory::access::CpuVisible;
use crate::memory::{
    AsyncDirection, CopyDirection, DeviceRepr, Memory, MemoryMut, PinnedMemory, Place,
    RuntimeMemory,
};
use crate::mode::{RunMode, memcpy_kind};

use crate::stream::Stream;

/// A region in which asynchronous work may borrow memory; see
/// [`Context::scope`](crate::Context::scope).
///
/// Enlist streams with [`lane`](Self::lane) and queue work on the lanes;
/// everything the work borrows stays borrowed until the scope has
/// synchronised every lane, which it does before `Context::scope` returns.
///
/// Neither `Send` nor `Sync`: a scope is driven by the thread that opened it
/// (use one scope per thread; contexts and streams are shareable).
pub struct Scope<'scope, 'env: 'scope, 'id: 'env, M: RunMode> {
    core: &'scope ScopeCore<'scope>,
    _env: PhantomData<&'env mut &'env ()>,
    _brand: PhantomData<Id<'id>>,
    _mode: PhantomData<M>,
}

impl<M: RunMode> core::fmt::Debug for Scope<'_, '_, '_, M> {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("Scope")
            .field("context", &self.core.context().as_ptr())
            .field("streams", &self.core.stream_count())
            .finish()
    }
}

/// The closure of [`Context::scope`](crate::Context::scope), as
/// `ffi::scope::end::run` runs it.
/// What a [`Body`] produces, for its `PhantomData`.
type BodyOut<M, R, E> = (M, fn() -> (R, E));

struct Body<'env, 'id, M, R, E, F> {
    f: F,
    _env: PhantomData<&'env mut &'env ()>,
    _brand: PhantomData<Id<'id>>,
    _out: PhantomData<BodyOut<M, R, E>>,
}

impl<'env, 'id: 'env, M, R, E, F> ScopeBody for Body<'env, 'id, M, R, E, F>
where
    M: RunMode,
    E: From<crate::Error>,
    F: for<'scope> FnOnce(&'scope Scope<'scope, 'env, 'id, M>) -> core::result::Result<R, E>,
{
    type Output = R;
    type Error = E;
    type Scope<'scope>
        = Scope<'scope, 'env, 'id, M>
    where
        Self: 'scope;

    fn wrap<'scope>(core: &'scope ScopeCore<'scope>) -> Scope<'scope, 'env, 'id, M>
    where
        Self: 'scope,
    {
        Scope {
            core,
            _env: PhantomData,
            _brand: PhantomData,
            _mode: PhantomData,
        }
    }

    fn call<'scope>(self, scope: &'scope Scope<'scope, 'env, 'id, M>) -> core::result::Result<R, E>
    where
        Self: 'scope,
    {
        // Futures of the body that were forgotten stop being watched
        // before the end synchronises (also on a panic).
        let _done = crate::ffi::completion::ScopeDone(scope.core.id());
        (self.f)(scope)
    }
}

/// Open a scope on context `ctx`, run `f`, and synchronise every stream it
/// used before returning (also on error and on panic). With a `timeout`, the
/// synchronisation is bounded: see [`Escalation`](crate::Escalation).
pub(crate) fn run<'env, 'id: 'env, M, R, E, F>(
    ctx: Raw,
    timeout: Option<Duration>,
    f: F,
) -> core::result::Result<R, E>
where
    M: RunMode,
    E: From<crate::Error>,
    F: for<'scope> FnOnce(&'scope Scope<'scope, 'env, 'id, M>) -> core::result::Result<R, E>,
{
    ffi::scope::end::run(
        ctx,
        timeout,
        Body {
            f,
            _env: PhantomData,
            _brand: PhantomData,
            _out: PhantomData,
        },
    )
}

impl<'scope, 'env, 'id, M: RunMode> Scope<'scope, 'env, 'id, M> {
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
    /// `lane_b.wait_for(lane_a.signal(x)?)?`. The closure forms
    /// [`with_lane`](Self::with_lane) and [`with_lanes`](Self::with_lanes)
    /// report it at the call; [`lanes`](Self::lanes) makes several lanes
    /// under one guard, checked against each other at run time.
    pub fn lane<'sid>(
        &'scope self,
        stream: &'scope Stream<'_, 'id>,
        guard: Guard<'sid>,
    ) -> Lane<'scope, 'env, 'id, 'sid, M> {
        Lane {
            core: LaneCore::new(self.core, stream, guard),
            _scope: PhantomData,
        }
    }

    /// Enlist `stream` as a lane branded by the closure instead of a
    /// `make_guard!`, and run `f` with it: the closure form of
    /// [`lane`](Self::lane). The brand is higher-ranked, so a buffer of
    /// another lane used here without a hand-off is reported **at the call
    /// that mixed them** ("borrowed data escapes outside of closure"),
    /// where with `make_guard!` Rust reports the guard's line. What `f`
    /// returns cannot name the lane (its `InFlight`s stay inside; the scope
    /// still synchronises them). Nest calls for several lanes.
    ///
    /// ```
    /// # let _sim = aclrt::sim::exclusive();
    /// # let acl = aclrt::Acl::init()?;
    /// # let device = acl.require::<aclrt::HostMode>()?.device(0)?;
    /// # aclrt::make_guard!(guard);
    /// # let ctx = device.create_context(guard)?;
    /// let stream = ctx.create_stream()?;
    /// let input = ctx.alloc_host_from(&[5u8; 32])?;
    /// let mut dev = ctx.alloc::<u8>(32)?;
    /// let mut out = ctx.alloc_host_zeroed::<u8>(32)?;
    /// ctx.scope(|s| {
    ///     s.with_lane(&stream, |lane| {
    ///         let d = lane.copy(&input, &mut dev)?;
    ///         lane.copy(&d, &mut out)?.wait()?;
    ///         Ok(())
    ///     })
    /// })?;
    /// assert_eq!(out.as_slice(), &[5u8; 32]);
    /// # Ok::<(), aclrt::Error>(())
    /// ```
    pub fn with_lane<R>(
        &'scope self,
        stream: &'scope Stream<'_, 'id>,
        f: impl for<'sid> FnOnce(Lane<'scope, 'env, 'id, 'sid, M>) -> R,
    ) -> R {
        ffi::scope::with_fresh_guard(|guard| f(self.lane(stream, guard)))
    }

    /// Enlist every stream of `streams` as a lane, all branded `'sid` by
    /// one `guard`: lanes you keep in a `Vec` and pick at run time
    /// (`&lanes[k % lanes.len()]`), one lifetime for all of them.
    ///
    /// Lanes of one set share a brand, so the compiler cannot tell their
    /// buffers apart: a buffer in flight on one of them (or a shared buffer
    /// read there) used by work on another is refused at run time with
    /// [`Error::WrongLane`](crate::Error::WrongLane) before anything is
    /// queued — never run without the event hand-off. The hand-off is the
    /// same as between any lanes ([`Lane::signal`], [`Lane::wait_for`]).
    /// Lanes of different sets, and memory of other contexts, are still
    /// kept apart by the compiler.
    ///
    /// ```
    /// # let _sim = aclrt::sim::exclusive();
    /// # let acl = aclrt::Acl::init()?;
    /// # let device = acl.require::<aclrt::HostMode>()?.device(0)?;
    /// # aclrt::make_guard!(guard);
    /// # let ctx = device.create_context(guard)?;
    /// let streams = (0..3).map(|_| ctx.create_stream()).collect::<aclrt::Result<Vec<_>>>()?;
    /// let mut outs = (0..6).map(|_| ctx.alloc_host_zeroed::<u32>(64)).collect::<aclrt::Result<Vec<_>>>()?;
    /// let mut devs = (0..6).map(|_| ctx.alloc::<u32>(64)).collect::<aclrt::Result<Vec<_>>>()?;
    /// ctx.scope(|s| {
    ///     aclrt::make_guard!(g);
    ///     let lanes = s.lanes(&streams, g);
    ///     let mut pending = Vec::new();
    ///     for (k, (out, dev)) in outs.iter_mut().zip(devs.iter_mut()).enumerate() {
    ///         let lane = &lanes[k % lanes.len()];
    ///         let d = lane.memset(dev, k as u8)?;
    ///         pending.push(lane.copy(&d, out)?.fence()?);
    ///     }
    ///     for (k, p) in pending.into_iter().enumerate() {
    ///         assert_eq!(p.wait()?[0], u32::from_ne_bytes([k as u8; 4]));
    ///     }
    ///     Ok(())
    /// })?;
    /// # Ok::<(), aclrt::Error>(())
    /// ```
    pub fn lanes<'s, 'sid>(
        &'scope self,
        streams: &'scope [Stream<'s, 'id>],
        guard: Guard<'sid>,
    ) -> Vec<Lane<'scope, 'env, 'id, 'sid, M>> {
        // One guard brands the whole set; the stream of each operand is
        // checked at run time (`LaneCore::check_lane`).
        let brand = Id::from(guard);
        streams
            .iter()
            .map(|stream| Lane {
                core: LaneCore::in_set(self.core, stream, brand),
                _scope: PhantomData,
            })
            .collect()
    }

    /// The closure form of [`lanes`](Self::lanes): the set's brand is
    /// higher-ranked, so an operand of another set or lane used here is
    /// reported at the call that mixed them.
    pub fn with_lanes<'s, R>(
        &'scope self,
        streams: &'scope [Stream<'s, 'id>],
        f: impl for<'sid> FnOnce(&[Lane<'scope, 'env, 'id, 'sid, M>]) -> R,
    ) -> R {
        ffi::scope::with_fresh_guard(|guard| f(&self.lanes(streams, guard)))
    }
}

impl<'scope, 'env, 'id, M: RunMode> Scope<'scope, 'env, 'id, M> {
    /// Keep `value` until the scope ends and lend it for the rest of the
    /// scope: the way to use a value made *inside* the scope where the
    /// scope's lifetime is needed, e.g. a user event recorded on one lane
    /// and waited for by another ([`Lane::wait_event`] borrows the event
    /// for the whole scope, so that it cannot be destroyed while the wait
    /// is pending).
    ///
    /// Kept values are dropped after the scope's final synchronisation,
    /// when no work of the scope uses them any more (a kept [`Event`] is
    /// destroyed then), last kept first, so a value may borrow values kept
    /// before it. What can be kept: the crate's events, streams, buffers and
    /// views ([`Keep`](crate::bounds::Keep)). One heap allocation per call.
    ///
    /// ```
    /// # let _sim = aclrt::sim::exclusive();
    /// # let acl = aclrt::Acl::init()?;
    /// # let device = acl.require::<aclrt::HostMode>()?.device(0)?;
    /// # aclrt::make_guard!(guard);
    /// # let ctx = device.create_context(guard)?;
    /// let (a, b) = (ctx.create_stream()?, ctx.create_stream()?);
    /// let mut dev = ctx.alloc::<u8>(1 << 20)?;
    /// ctx.scope(|s| {
    ///     aclrt::make_guard!(ga);
    ///     aclrt::make_guard!(gb);
    ///     let (la, lb) = (s.lane(&a, ga), s.lane(&b, gb));
    ///     let _dev = la.memset(&mut dev, 1)?;
    ///     // An event made and recorded inside the scope, waited for by lane b:
    ///     // work queued on b from now on runs after the memset.
    ///     let done = s.keep(la.record(ctx.create_event_of::<aclrt::SyncOnly>()?)?);
    ///     lb.wait_event(done)?;
    ///     lb.synchronize()?;
    ///     assert!(done.is_complete()?);
    ///     Ok(())
    /// })?;
    /// # Ok::<(), aclrt::Error>(())
    /// ```
    #[allow(clippy::mut_from_ref)] // a fresh allocation each call
    pub fn keep<T: Keep + 'scope>(&'scope self, value: T) -> &'scope mut T {
        self.core.keep(value)
    }

    /// The recovery point of a service loop: synchronise every lane of the
    /// scope (each until it is idle, even where its synchronisation fails),
    /// collect every failure seen since the scope opened or last recovered,
    /// and return the first (`Ok(None)`: there was none). From then on the failure no longer sticks to the scope: checked
    /// waits of work queued after this call, and the scope's end, are
    /// judged on failures seen after it. A buffer whose contents come from
    /// work of a failed lane queued before the failure keeps failing its
    /// checked waits, and so does what is derived from it — also after it came back with
    /// [`InFlight::reuse`] and was parked or read again — until work of the
    /// scope overwrites it whole (a copy into it, a memset, a kernel's
    /// `Out`).
    ///
    /// The host functions queued so far are released; if one panicked, its
    /// panic is resumed here (once). If a lane cannot be made idle, its
    /// error is returned, and so is [`Error::WorkAborted`](crate::Error::WorkAborted)
    /// once an escalation aborted the scope's work: then nothing is
    /// recovered. See the *Structuring an application* chapter for the
    /// pattern.
    #[doc(alias = "aclrtSynchronizeStream")]
    pub fn recover(&self) -> Result<Option<crate::Error>> {
        self.core.recover()
    }

    /// What [`recover`](Self::recover) waits for (`crate::future`).
    pub(crate) fn watch_all(&self) -> crate::ffi::completion::Watch {
        self.core.watch_all()
    }
}

/// A stream enlisted in a [`Scope`], branded `'sid`: the place where
/// asynchronous work is queued.
pub struct Lane<'scope, 'env, 'id, 'sid, M: RunMode> {
    core: LaneCore<'scope, 'sid>,
    _scope: PhantomData<&'scope Scope<'scope, 'env, 'id, M>>,
}

impl<M: RunMode> core::fmt::Debug for Lane<'_, '_, '_, '_, M> {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("Lane")
            .field("stream", &self.core.stream().as_ptr())
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
    parked: Parked<'scope, 'sid, D>,
    len: usize,
}

/// The `Debug` of an [`InFlight`] (also inside a [`Signal`]).
fn fmt_in_flight<D: ?Sized>(
    parked: &Parked<'_, '_, D>,
    len: usize,
    f: &mut core::fmt::Formatter<'_>,
) -> core::fmt::Result {
    f.debug_struct("InFlight")
        .field("address", &parked.address())
        .field("len", &len)
        .field("stream", &parked.stream().as_ptr())
        .finish()
}

impl<D: ?Sized> core::fmt::Debug for InFlight<'_, '_, D> {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        fmt_in_flight(&self.parked, self.len, f)
    }
}

impl<'scope, 'sid, D: ?Sized> InFlight<'scope, 'sid, D> {
    /// A buffer parked on its lane, as the kernel launch returns it.
    pub(crate) fn from_parked(parked: Parked<'scope, 'sid, D>, len: usize) -> Self {
        InFlight { parked, len }
    }

    /// What its checked wait waits for (`crate::future`).
    pub(crate) fn watch(&self) -> crate::ffi::completion::Watch {
        self.parked.watch()
    }

    /// Number of elements.
    pub fn len(&self) -> usize {
        self.len
    }

    /// Whether there are no elements.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// Synchronise the lane (`aclrtSynchronizeStream`) and give the buffer
    /// back to the CPU for the rest of the scope, if its work succeeded.
    ///
    /// A *checked* wait, under the failure rule (SAFETY.md): it fails if a
    /// failure sticks to the scope — anything but success that any
    /// synchronisation or query (of any thread: another buffer's wait, a
    /// [`Stream::synchronize`](crate::Stream::synchronize), a
    /// [`Context::synchronize`](crate::Context::synchronize)) returned for
    /// a lane of the scope or its context, a host function of the scope
    /// that panicked ([`Error::HostFnPanicked`](crate::Error::HostFnPanicked)),
    /// since the scope opened or last [recovered](Scope::recover) — or was
    /// seen since the work behind the buffer's contents began (a copy or a
    /// kernel output derived from a buffer produced before a failure fails
    /// too, until that buffer is written afresh). The runtime reports a
    /// failure once, to whichever synchronisation comes first, and does
    /// not say which task failed: conservative, never the other way round.
    /// It fails again on every later wait; use [`reuse`](Self::reuse) to
    /// get the buffer back anyway, and [`Scope::recover`] to go on.
    ///
    /// A synchronisation of one of the scope's streams that another thread
    /// has in progress may hold a failure: the wait also waits for it to
    /// return.
    ///
    /// On error the buffer stays borrowed until the scope ends;
    /// [`wait_or_keep`](Self::wait_or_keep) gives it back instead.
    #[doc(alias = "aclrtSynchronizeStream")]
    pub fn wait(self) -> Result<&'scope mut D> {
        self.parked.wait()
    }

    /// [`wait`](Self::wait), which on error gives the buffer back, still in
    /// flight on its lane ([`WaitFailed::into_item`]): queue more work on
    /// it, or take it back with [`reuse`](Self::reuse) — the scope goes on.
    /// See the *Structuring an application* chapter.
    #[doc(alias = "aclrtSynchronizeStream")]
    pub fn wait_or_keep(self) -> core::result::Result<&'scope mut D, WaitFailed<Self>> {
        let len = self.len;
        self.parked
            .wait_or_keep()
            .map_err(|(e, parked)| WaitFailed::new(e, InFlight { parked, len }))
    }

    /// Synchronise the lane (`aclrtSynchronizeStream`) and give the buffer
    /// back to the CPU whatever its work did: for a buffer about to be
    /// overwritten (a staging buffer), or after a failed [`wait`](Self::wait).
    /// If the work faulted, the contents are whatever it left.
    ///
    /// Every lane the buffer's contents came through or it was lent to (a
    /// hand-off, a copy or kernel reading another lane's buffer, a shared
    /// read) is made idle first, and no other: a hand-off whose wait task
    /// failed orders nothing. A failure is not returned here: it sticks to
    /// the scope (checked waits and the scope's end report it until
    /// [`Scope::recover`]). Contents given back this way stay suspect in
    /// the scope: parked again or read again (`&buffer`, a view), what is
    /// derived from them fails its checked wait if a failure may concern
    /// them, also after [`Scope::recover`], until work of the scope
    /// overwrites them whole (a copy into them, a memset, a kernel's
    /// `Out`); a host write through the returned `&mut` is not seen. Other errors ([`Error::WorkAborted`](crate::Error::WorkAborted),
    /// a failed synchronisation) leave the buffer borrowed until the scope
    /// ends; [`reuse_or_keep`](Self::reuse_or_keep) gives it back instead.
    #[doc(alias = "aclrtSynchronizeStream")]
    pub fn reuse(self) -> Result<&'scope mut D> {
        self.parked.reuse_or_keep().map_err(|(e, _)| e)
    }

    /// [`reuse`](Self::reuse), which on error gives the buffer back, still
    /// in flight on its lane.
    #[doc(alias = "aclrtSynchronizeStream")]
    pub fn reuse_or_keep(self) -> core::result::Result<&'scope mut D, WaitFailed<Self>> {
        let len = self.len;
        self.parked
            .reuse_or_keep()
            .map_err(|(e, parked)| WaitFailed::new(e, InFlight { parked, len }))
    }

    /// Record an event on the buffer's lane after the work queued so far
    /// (`aclrtRecordEvent`), which is its last use: the [`Fence`] gives the
    /// buffer back when that event completes ([`Fence::reuse`],
    /// `aclrtSynchronizeEvent`), while work queued on the lane later still
    /// runs — "queue batch k, then refill batch k−1's staging buffer" on one
    /// stream — or once its work is known to have succeeded
    /// ([`Fence::wait`], a checked wait).
    ///
    /// Events are reused: a fence whose wait succeeded gives its event back
    /// to the scope, so a loop of fences makes as many events as it has
    /// fences pending at once. On error the buffer stays borrowed until the
    /// scope ends.
    #[doc(alias = "aclrtRecordEvent")]
    pub fn fence(self) -> Result<Fence<'scope, 'sid, D>> {
        let len = self.len;
        match self.parked.fence() {
            Ok(core) => Ok(Fence { core, len }),
            Err((e, _)) => Err(e),
        }
    }
}

/// A buffer whose last use on its lane is followed by an event (from
/// [`InFlight::fence`]).
///
/// Two ways back to the CPU:
/// * [`reuse`](Self::reuse) waits for that event only
///   (`aclrtSynchronizeEvent`), not for work queued on the lane later, and
///   gives the buffer back whatever the work before the event did: for a
///   buffer about to be overwritten, such as a staging buffer;
/// * [`wait`](Self::wait) gives it back only if that work succeeded. The
///   runtime reports a device fault to a stream synchronisation only —
///   `aclrtSynchronizeEvent` returns success after a faulted task (the
///   default failure mode), and no call tells which task faulted — so this
///   synchronises the whole lane (`aclrtSynchronizeStream`), as
///   [`InFlight::wait`] does, and fails with any fault seen on the lane since
///   the buffer was parked (see there).
///
/// Forgetting it is harmless: the buffer stays borrowed until the scope has
/// synchronised.
#[must_use = "a fenced buffer stays borrowed until the scope ends; `wait()` gives it back"]
pub struct Fence<'scope, 'sid, D: ?Sized> {
    core: FenceCore<'scope, 'sid, D>,
    len: usize,
}

impl<D: ?Sized> core::fmt::Debug for Fence<'_, '_, D> {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("Fence")
            .field("address", &self.core.item().address())
            .field("len", &self.len)
            .field("stream", &self.core.item().stream().as_ptr())
            .finish()
    }
}

impl<'scope, 'sid, D: ?Sized> Fence<'scope, 'sid, D> {
    /// Number of elements.
    pub fn len(&self) -> usize {
        self.len
    }

    /// Whether there are no elements.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// What its checked wait waits for (`crate::future`).
    pub(crate) fn watch_wait(&self) -> crate::ffi::completion::Watch {
        self.core.item().watch()
    }

    /// What its reuse waits for (`crate::future`).
    pub(crate) fn watch_reuse(&self) -> crate::ffi::completion::Watch {
        self.core.watch_reuse()
    }

    /// Whether the work before the fence has finished
    /// (`aclrtQueryEventStatus`); never blocks.
    #[doc(alias = "aclrtQueryEventStatus")]
    pub fn is_complete(&self) -> Result<bool> {
        self.core.is_complete()
    }

    /// Synchronise the buffer's lane (`aclrtSynchronizeStream`) and give the
    /// buffer back to the CPU for the rest of the scope, if the work before
    /// the fence succeeded: a checked wait, as [`InFlight::wait`] (a device
    /// fault seen since the buffer was parked on its lane fails it, every
    /// time). Work queued on the lane after the fence is waited for too: the
    /// runtime reports failures to stream synchronisations only. Like
    /// [`InFlight::wait`], it also waits for another thread's
    /// synchronisation of one of the scope's streams in progress.
    ///
    /// On error (a device fault, [`Error::WorkAborted`](crate::Error::WorkAborted))
    /// the buffer stays borrowed until the scope ends; [`wait_or_keep`](Self::wait_or_keep)
    /// gives it back instead.
    #[doc(alias = "aclrtSynchronizeStream")]
    pub fn wait(self) -> Result<&'scope mut D> {
        self.core.wait_or_keep().map_err(|(e, _)| e)
    }

    /// [`wait`](Self::wait), which on error gives the fence back
    /// ([`WaitFailed::into_item`]): take the buffer back with
    /// [`reuse`](Self::reuse), or [`resume`](Self::resume) it for more work
    /// on its lane.
    #[doc(alias = "aclrtSynchronizeStream")]
    pub fn wait_or_keep(self) -> core::result::Result<&'scope mut D, WaitFailed<Self>> {
        let len = self.len;
        self.core
            .wait_or_keep()
            .map_err(|(e, core)| WaitFailed::new(e, Fence { core, len }))
    }

    /// Wait until the work queued on the buffer's lane before the fence has
    /// finished (`aclrtSynchronizeEvent`) and give the buffer back to the
    /// CPU for the rest of the scope, whatever that work did. Work queued on
    /// the lane after the fence is not waited for.
    ///
    /// For a buffer about to be overwritten (a staging buffer the CPU
    /// refills), or after a failed [`wait`](Self::wait). A failure is
    /// not reported by this wait (nor by `aclrtSynchronizeEvent`, on the
    /// hardware): it sticks to the scope, and checked waits and the scope's
    /// end report it until [`Scope::recover`]. Once the buffer left its
    /// lane (a hand-off, a copy or kernel reading another lane's buffer, a
    /// shared read), an event orders nothing a failed wait task should have
    /// ordered: then this synchronises every lane the buffer's contents came
    /// through instead. The contents stay suspect in the scope as after
    /// [`InFlight::reuse`].
    ///
    /// On error ([`Error::WorkAborted`](crate::Error::WorkAborted), a failed
    /// synchronisation) the buffer stays borrowed until the scope ends;
    /// [`reuse_or_keep`](Self::reuse_or_keep) gives it back instead.
    #[doc(alias = "aclrtSynchronizeEvent")]
    pub fn reuse(self) -> Result<&'scope mut D> {
        self.core.reuse_or_keep().map_err(|(e, _)| e)
    }

    /// [`reuse`](Self::reuse), which on error gives the fence back.
    #[doc(alias = "aclrtSynchronizeEvent")]
    pub fn reuse_or_keep(self) -> core::result::Result<&'scope mut D, WaitFailed<Self>> {
        let len = self.len;
        self.core
            .reuse_or_keep()
            .map_err(|(e, core)| WaitFailed::new(e, Fence { core, len }))
    }

    /// Back to an [`InFlight`] on its lane, for more work there (the event
    /// is left to be recorded again by another fence).
    pub fn resume(self) -> InFlight<'scope, 'sid, D> {
        InFlight {
            parked: self.core.resume(),
            len: self.len,
        }
    }
}

/// A buffer handed from one lane to others: an event recorded on the
/// source lane after the buffer's last use there. Consume it with
/// [`Lane::wait_for`] on the lane that continues.
#[must_use = "a signal does nothing until a lane waits for it"]
pub struct Signal<'scope, 'id, 'sid, D: ?Sized> {
    handover: Handover<'scope, 'sid, D>,
    len: usize,
    _brand: PhantomData<Id<'id>>,
    /// Invariant in `'scope`: only a lane of the same scope takes it over
    /// (see [`Mark`]).
    _scope: PhantomData<fn(&'scope ()) -> &'scope ()>,
}

impl<D: ?Sized> core::fmt::Debug for Signal<'_, '_, '_, D> {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        struct Item<'a, 'scope, 'sid, D: ?Sized>(&'a Parked<'scope, 'sid, D>, usize);
        impl<D: ?Sized> core::fmt::Debug for Item<'_, '_, '_, D> {
            fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
                fmt_in_flight(self.0, self.1, f)
            }
        }
        f.debug_struct("Signal")
            .field("event", &self.handover.event().as_ptr())
            .field("item", &Item(self.handover.item(), self.len))
            .finish()
    }
}

/// A buffer shared for reading by any number of lanes of its scope (fan-out):
/// made by [`Lane::share`] from an [`InFlight`]. Each lane that reads it
/// first calls [`Lane::read`] (which makes the lane wait for the producer);
/// [`Lane::reclaim`] gives it back to one lane for writing, after every
/// read. No lane can write it while it is shared.
#[must_use = "a shared buffer stays borrowed until the scope ends; `Lane::reclaim` gives it back"]
pub struct Shared<'scope, 'id, D: ?Sized> {
    core: SharedCore<'scope, D>,
    len: usize,
    _brand: PhantomData<Id<'id>>,
}

impl<D: ?Sized> core::fmt::Debug for Shared<'_, '_, D> {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("Shared")
            .field("address", &self.core.address())
            .field("len", &self.len)
            .field("readers", &self.core.reader_count())
            .finish()
    }
}

impl<D: ?Sized> Shared<'_, '_, D> {
    /// Number of elements.
    pub fn len(&self) -> usize {
        self.len
    }

    /// Whether there are no elements.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }
}

/// A [`Shared`] buffer as read by the lane branded `'sid` (from
/// [`Lane::read`]): `&reading` is a source of work on that lane.
pub struct Reading<'a, 'scope, 'id, 'sid, D: ?Sized> {
    reader: SharedReader<'a, 'scope, 'sid, D>,
    len: usize,
    _brand: PhantomData<Id<'id>>,
}

impl<D: ?Sized> core::fmt::Debug for Reading<'_, '_, '_, '_, D> {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("Reading")
            .field("address", &self.reader.shared().address())
            .field("len", &self.len)
            .finish()
    }
}

/// A point on a lane that several other lanes of the same scope may wait
/// for ([`Lane::mark`], [`Lane::wait_mark`]).
///
/// Only lanes of the scope that made it: a `Mark` (like a [`Signal`]) is
/// invariant in `'scope`. An abort of the scope's streams (a deadline of
/// this scope or of another one sharing a stream) discards the mark's
/// record and aborts every lane of the scope with it; a lane of another
/// scope would wait for the discarded record for ever.
#[derive(Clone, Copy, Debug)]
pub struct Mark<'scope, 'id, 'sid> {
    event: ScopeEvent<'scope>,
    _p: PhantomData<(&'scope (), Id<'id>, Id<'sid>)>,
}

mod sealed {
    pub trait Operand {}
}

pub use crate::ffi::scope::Keep;

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
    note = "a buffer shared for reading (`Lane::share`) is read on a lane through `&lane.read(&shared)?`",
    note = "pageable memory (`Vec`, slices) cannot be used asynchronously: use the synchronous `Context::copy`"
)]
pub trait AsyncSource<'scope, 'id, 'sid>: sealed::Operand {
    /// The element type.
    type Elem: DeviceRepr;
    /// Where the source lies.
    type Place: Place;
    /// The memory read (the buffer or view behind the operand), for the
    /// bounds of kernel arguments ([`KernelMemory`](crate::bounds::KernelMemory)).
    type Memory: ?Sized;
    #[doc(hidden)]
    fn source(&self, lane: &LaneCore<'scope, 'sid>) -> (Source<'_, 'sid>, usize);
}

impl<S: ?Sized> sealed::Operand for &S {}
impl<'scope, 'id, 'sid, S> AsyncSource<'scope, 'id, 'sid> for &'scope S
where
    S: PinnedMemory<'id> + ?Sized,
{
    type Elem = S::Elem;
    type Place = S::Place;
    type Memory = S;
    fn source(&self, lane: &LaneCore<'scope, 'sid>) -> (Source<'_, 'sid>, usize) {
        (Source::shared(lane, *self), Memory::len(*self))
    }
}

impl<'a, 'scope, 'id, 'sid, D> AsyncSource<'scope, 'id, 'sid> for &Reading<'a, 'scope, 'id, 'sid, D>
where
    D: PinnedMemory<'id> + ?Sized,
{
    type Elem = D::Elem;
    type Place = D::Place;
    type Memory = D;
    fn source(&self, _lane: &LaneCore<'scope, 'sid>) -> (Source<'_, 'sid>, usize) {
        (Source::shared_read(&self.reader), self.len)
    }
}

impl<'scope, 'id, 'sid, D> AsyncSource<'scope, 'id, 'sid> for &InFlight<'scope, 'sid, D>
where
    D: PinnedMemory<'id> + ?Sized,
{
    type Elem = D::Elem;
    type Place = D::Place;
    type Memory = D;
    fn source(&self, _lane: &LaneCore<'scope, 'sid>) -> (Source<'_, 'sid>, usize) {
        (Source::in_flight(&self.parked), self.len)
    }
}

impl<T> sealed::Operand for crate::memory::DeviceView<'_, '_, T> {}
/// A read-only device view made inside the scope (e.g. by
/// [`DeviceBuffer::split_at`](crate::DeviceBuffer::split_at)), by value: it
/// borrows its buffer for the whole scope.
impl<'scope, 'id, 'sid, T: DeviceRepr> AsyncSource<'scope, 'id, 'sid>
    for crate::memory::DeviceView<'scope, 'id, T>
{
    type Elem = T;
    type Place = crate::memory::OnDevice;
    type Memory = Self;
    fn source(&self, lane: &LaneCore<'scope, 'sid>) -> (Source<'_, 'sid>, usize) {
        (Source::view(lane, self.mem()), self.len())
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
    note = "a buffer in flight on another lane must be handed over first: `let s = lane_a.signal(x)?; let x = lane_b.wait_for(s)?;`",
    note = "a buffer shared for reading (`Lane::share`) is written again only after `let x = lane.reclaim(shared)?;`",
    note = "a kernel writes registered host memory through `reg.device_alias_mut()` (exclusive), not the shared `reg.device_alias()`"
)]
pub trait AsyncDest<'scope, 'id, 'sid>: sealed::Operand + Sized {
    /// The buffer type.
    type Target: PinnedMemory<'id> + MemoryMut<'id> + ?Sized;
    #[doc(hidden)]
    fn into_parked(
        self,
        lane: &LaneCore<'scope, 'sid>,
    ) -> (Parked<'scope, 'sid, Self::Target>, usize);
}

impl<S: ?Sized> sealed::Operand for &mut S {}
impl<'scope, 'id, 'sid, D> AsyncDest<'scope, 'id, 'sid> for &'scope mut D
where
    D: PinnedMemory<'id> + MemoryMut<'id> + ?Sized,
{
    type Target = D;
    fn into_parked(self, lane: &LaneCore<'scope, 'sid>) -> (Parked<'scope, 'sid, D>, usize) {
        let len = Memory::len(&*self);
        (lane.park(self), len)
    }
}

impl<T> sealed::Operand for crate::memory::DeviceViewMut<'_, '_, T> {}
/// A writable device view made inside the scope (e.g. by
/// [`DeviceBuffer::split_at_mut`](crate::DeviceBuffer::split_at_mut) or
/// [`chunks_mut`](crate::DeviceBuffer::chunks_mut)), by value: it borrows its
/// buffer exclusively for the whole scope, and is kept by the scope
/// ([`Scope::keep`]) while in flight.
impl<'scope, 'id, 'sid, T: DeviceRepr> AsyncDest<'scope, 'id, 'sid>
    for crate::memory::DeviceViewMut<'scope, 'id, T>
{
    type Target = Self;
    fn into_parked(self, lane: &LaneCore<'scope, 'sid>) -> (Parked<'scope, 'sid, Self>, usize) {
        let len = self.len();
        (lane.park(lane.scope().keep(self)), len)
    }
}

impl<'scope, 'sid, D: ?Sized> sealed::Operand for InFlight<'scope, 'sid, D> {}
impl<'scope, 'id, 'sid, D> AsyncDest<'scope, 'id, 'sid> for InFlight<'scope, 'sid, D>
where
    D: PinnedMemory<'id> + MemoryMut<'id> + ?Sized,
{
    type Target = D;
    fn into_parked(self, _lane: &LaneCore<'scope, 'sid>) -> (Parked<'scope, 'sid, D>, usize) {
        (self.parked, self.len)
    }
}

impl<'scope, 'env, 'id, 'sid, M: RunMode> Lane<'scope, 'env, 'id, 'sid, M> {
    /// The sound core, for kernel launches and foreign work (`crate::kernel`).
    pub(crate) fn core(&self) -> &LaneCore<'scope, 'sid> {
        &self.core
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
        let kind = const { memcpy_kind::<M, S::Place, <X::Target as Memory<'id>>::Place>() };
        let (source, src_len) = src.source(&self.core);
        let (parked, len) = dst.into_parked(&self.core);
        if src_len != len {
            return Err(crate::Error::LengthMismatch {
                src: src_len,
                dst: len,
            });
        }
        let parked = self.core.copy(source, parked, kind)?;
        Ok(InFlight { parked, len })
    }

    /// Take `dst` onto this lane without queuing anything: an [`InFlight`]
    /// like the one a copy into it returns, so that a buffer read by work
    /// of the scope can come back to the CPU. A copy's *source* given as
    /// `&buffer` stays borrowed for the whole scope; given as
    /// `&lane.park(&mut buffer)?`, it comes back with [`InFlight::wait`] or
    /// [`InFlight::fence`] once the work reading it is done — a staging
    /// buffer the CPU refills, batch after batch, in one scope:
    ///
    /// ```
    /// # let _sim = aclrt::sim::exclusive();
    /// # let acl = aclrt::Acl::init()?;
    /// # let device = acl.require::<aclrt::HostMode>()?.device(0)?;
    /// # aclrt::make_guard!(guard);
    /// # let ctx = device.create_context(guard)?;
    /// let stream = ctx.create_stream()?;
    /// let mut staging = ctx.alloc_host_zeroed::<u32>(256)?;
    /// let mut dev = ctx.alloc::<u32>(256)?;
    /// let mut out = ctx.alloc_host_zeroed::<u32>(256)?;
    /// ctx.scope(|s| {
    ///     s.with_lane(&stream, |lane| {
    ///         let (mut staging, mut dev, mut out) = (lane.park(&mut staging)?, lane.park(&mut dev)?, lane.park(&mut out)?);
    ///         for batch in 0..4u32 {
    ///             let host = staging.wait()?; // the CPU has it back
    ///             host.fill(batch);
    ///             staging = lane.park(host)?;
    ///             dev = lane.copy(&staging, dev)?;
    ///             let done = lane.copy(&dev, out)?.fence()?;
    ///             let result = done.wait()?;
    ///             assert_eq!(result[0], batch);
    ///             out = lane.park(result)?;
    ///         }
    ///         Ok(())
    ///     })
    /// })?;
    /// # Ok::<(), aclrt::Error>(())
    /// ```
    ///
    /// Also the one field type for a buffer's first and later uses: park it
    /// when the scope opens, and keep an `InFlight` (or a [`Fence`]) from
    /// then on. An `InFlight` of another lane of the same set
    /// ([`Scope::lanes`]) is [`Error::WrongLane`](crate::Error::WrongLane).
    pub fn park<X>(&self, dst: X) -> Result<InFlight<'scope, 'sid, X::Target>>
    where
        X: AsyncDest<'scope, 'id, 'sid>,
    {
        let (parked, len) = dst.into_parked(&self.core);
        self.core.check_lane(parked.stream())?;
        Ok(InFlight { parked, len })
    }

    /// Queue setting every byte of `dst` to `byte` (`aclrtMemsetAsync`).
    #[doc(alias = "aclrtMemsetAsync")]
    pub fn memset<X>(&self, dst: X, byte: u8) -> Result<InFlight<'scope, 'sid, X::Target>>
    where
        X: AsyncDest<'scope, 'id, 'sid>,
        X::Target: RuntimeMemory<'id>,
    {
        let (parked, len) = dst.into_parked(&self.core);
        let parked = self.core.memset(parked, byte)?;
        Ok(InFlight { parked, len })
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
        self.core.host_fn(Box::new(f))
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
        let (parked, len) = target.into_parked(&self.core);
        // The elements are pinned memory of this context (`X::Target` is a
        // `HostBuffer` or `PinnedSlice` branded `'id`, in run mode `M`).
        let parked = self
            .core
            .host_fn_with(parked, move |items| f(ffi::pinned_slice_mut(items)))?;
        Ok(InFlight { parked, len })
    }

    /// Record an event after the last use of `item` on this lane, to hand
    /// it to another lane ([`Lane::wait_for`]). `item` must be in flight on
    /// this lane ([`Error::WrongLane`](crate::Error::WrongLane) for another
    /// lane of the same set).
    #[doc(alias = "aclrtRecordEvent")]
    pub fn signal<D: ?Sized>(
        &self,
        item: InFlight<'scope, 'sid, D>,
    ) -> Result<Signal<'scope, 'id, 'sid, D>> {
        let len = item.len;
        Ok(Signal {
            handover: self.core.signal(item.parked)?,
            len,
            _brand: PhantomData,
            _scope: PhantomData,
        })
    }

    /// Make this lane wait for `signal` (`aclrtStreamWaitEvent`) and take over
    /// the buffer it carries: work queued here after this call runs after
    /// the work queued on the signalling lane before the signal.
    ///
    /// If another scope's deadline has aborted a stream of this scope, the
    /// record waited for may have been discarded, and a wait for it would
    /// never end: then, unless it has run, this scope's streams are aborted
    /// at once and the call reports [`Error::WorkAborted`](crate::Error::WorkAborted).
    #[doc(alias = "aclrtStreamWaitEvent")]
    pub fn wait_for<'other, D: ?Sized>(
        &self,
        signal: Signal<'scope, 'id, 'other, D>,
    ) -> Result<InFlight<'scope, 'sid, D>> {
        let len = signal.len;
        Ok(InFlight {
            parked: self.core.wait_for(signal.handover)?,
            len,
        })
    }

    /// Share `item` for reading by any lanes of this scope (fan-out): records
    /// an event after its last use on this lane. Readers call
    /// [`Lane::read`]; [`Lane::reclaim`] joins them and gives the buffer
    /// back to one lane.
    ///
    /// ```
    /// # let _sim = aclrt::sim::exclusive();
    /// # let acl = aclrt::Acl::init()?;
    /// # let device = acl.require::<aclrt::HostMode>()?.device(0)?;
    /// # aclrt::make_guard!(guard);
    /// # let ctx = device.create_context(guard)?;
    /// let (p, r1, r2) = (ctx.create_stream()?, ctx.create_stream()?, ctx.create_stream()?);
    /// let input = ctx.alloc_host_from(&[3u16; 256])?;
    /// let mut dev = ctx.alloc::<u16>(256)?;
    /// let (mut out1, mut out2) = (ctx.alloc_host_zeroed(256)?, ctx.alloc_host_zeroed(256)?);
    /// ctx.scope(|s| {
    ///     aclrt::make_guard!(gp);
    ///     aclrt::make_guard!(g1);
    ///     aclrt::make_guard!(g2);
    ///     let (lp, l1, l2) = (s.lane(&p, gp), s.lane(&r1, g1), s.lane(&r2, g2));
    ///     let shared = lp.share(lp.copy(&input, &mut dev)?)?;
    ///     // Two consumers read the same device buffer at the same time.
    ///     let a = l1.copy(&l1.read(&shared)?, &mut out1)?;
    ///     let b = l2.copy(&l2.read(&shared)?, &mut out2)?;
    ///     // Back to the producer, after both reads: now it may be written.
    ///     let dev = lp.reclaim(shared)?;
    ///     lp.memset(dev, 0)?;
    ///     assert_eq!(a.wait()?.as_slice(), b.wait()?.as_slice());
    ///     Ok(())
    /// })?;
    /// assert_eq!(out1.as_slice(), &[3u16; 256]);
    /// # Ok::<(), aclrt::Error>(())
    /// ```
    #[doc(alias = "aclrtRecordEvent")]
    pub fn share<D: ?Sized>(
        &self,
        item: InFlight<'scope, 'sid, D>,
    ) -> Result<Shared<'scope, 'id, D>> {
        let len = item.len;
        Ok(Shared {
            core: self.core.share(item.parked)?,
            len,
            _brand: PhantomData,
        })
    }

    /// Read a [`Shared`] buffer on this lane: the lane waits for its
    /// producer (`aclrtStreamWaitEvent`, once per lane) and becomes one of
    /// its readers; `&reading` is then a source of work on this lane.
    ///
    /// If another scope's deadline has aborted a stream of this scope, the
    /// record waited for may have been discarded, and a wait for it would
    /// never end: then, unless it has run, this scope's streams are aborted
    /// at once and the call reports [`Error::WorkAborted`](crate::Error::WorkAborted).
    #[doc(alias = "aclrtStreamWaitEvent")]
    pub fn read<'a, D: ?Sized>(
        &self,
        shared: &'a Shared<'scope, 'id, D>,
    ) -> Result<Reading<'a, 'scope, 'id, 'sid, D>> {
        Ok(Reading {
            reader: self.core.read_shared(&shared.core)?,
            len: shared.len,
            _brand: PhantomData,
        })
    }

    /// Take a [`Shared`] buffer back to this lane for writing: the lane waits
    /// for its producer and for every lane that read it (an event recorded
    /// on each after the reads queued there), so the work queued here next
    /// runs after all of them. The `Reading`s must be gone (they borrow it).
    ///
    /// If another scope's deadline has aborted a stream of this scope, the
    /// record waited for may have been discarded, and a wait for it would
    /// never end: then, unless it has run, this scope's streams are aborted
    /// at once and the call reports [`Error::WorkAborted`](crate::Error::WorkAborted).
    #[doc(alias = "aclrtStreamWaitEvent")]
    pub fn reclaim<D: ?Sized>(
        &self,
        shared: Shared<'scope, 'id, D>,
    ) -> Result<InFlight<'scope, 'sid, D>> {
        let len = shared.len;
        Ok(InFlight {
            parked: self.core.reclaim(shared.core)?,
            len,
        })
    }

    /// Record a point on this lane that any number of lanes may wait for
    /// ([`Lane::wait_mark`]).
    #[doc(alias = "aclrtRecordEvent")]
    pub fn mark(&self) -> Result<Mark<'scope, 'id, 'sid>> {
        Ok(Mark {
            event: self.core.mark()?,
            _p: PhantomData,
        })
    }

    /// Make this lane wait for a [`Mark`] of another lane (`aclrtStreamWaitEvent`).
    ///
    /// If another scope's deadline has aborted a stream of this scope, the
    /// record waited for may have been discarded, and a wait for it would
    /// never end: then, unless it has run, this scope's streams are aborted
    /// at once and the call reports [`Error::WorkAborted`](crate::Error::WorkAborted).
    #[doc(alias = "aclrtStreamWaitEvent")]
    pub fn wait_mark<'other>(&self, mark: Mark<'scope, 'id, 'other>) -> Result<()> {
        self.core.wait_mark(mark.event)
    }

    /// Make this lane wait for a recorded event of this context
    /// (`aclrtStreamWaitEvent`). The event is borrowed until the scope has
    /// synchronised, so it cannot be destroyed while the wait is pending.
    /// Only kinds a stream can wait on ([`WaitableKind`]: created with
    /// `ACL_EVENT_SYNC`); an [`ExProgress`](crate::ExProgress) or
    /// [`ExTimeLine`](crate::ExTimeLine) event does not compile here.
    ///
    /// If another scope's deadline aborts the stream the event was last
    /// recorded on (in a scope or outside one) before that record ran, the
    /// record is discarded and a wait for it would never end: this scope is
    /// then aborted too, and reports [`Error::WorkAborted`](crate::Error::WorkAborted)
    /// (from this call, when the record was already discarded, or at its end).
    #[doc(alias = "aclrtStreamWaitEvent")]
    pub fn wait_event<K: WaitableKind, S: IsRecorded>(
        &self,
        event: &'scope Event<'_, 'id, K, S>,
    ) -> Result<()> {
        self.core.wait_event(event)
    }

    /// Record a user event on this lane (`aclrtRecordEvent`).
    #[doc(alias = "aclrtRecordEvent")]
    pub fn record<'e, K: EventKind, S: EventState>(
        &self,
        event: Event<'e, 'id, K, S>,
    ) -> Result<Event<'e, 'id, K, Recorded>> {
        self.core.record(&event)?;
        Ok(event.into_recorded())
    }

    /// Block until all work queued on this lane has finished
    /// (`aclrtSynchronizeStream`). Buffers stay in flight; use
    /// [`InFlight::wait`] to get one back.
    #[doc(alias = "aclrtSynchronizeStream")]
    pub fn synchronize(&self) -> Result<()> {
        self.core.synchronize()
    }

    /// What its synchronisation waits for (`crate::future`).
    pub(crate) fn watch(&self) -> crate::ffi::completion::Watch {
        self.core.watch()
    }

    /// Whether all work queued on this lane has finished (`aclrtStreamQuery`).
    #[doc(alias = "aclrtStreamQuery")]
    pub fn is_complete(&self) -> Result<bool> {
        self.core.is_complete()
    }
}
