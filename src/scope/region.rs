//! The scope itself ([`Scope`]), the body `Context::scope` runs in it, and
//! the lanes it enlists ([`Lane`]) with the work queued on them: copies,
//! memsets, host functions, hand-overs between lanes, shared reads, marks
//! and the lane's waits.

use core::marker::PhantomData;
use core::time::Duration;

use generativity::{Guard, Id};

use crate::error::Result;
use crate::event::{Event, EventKind, EventState, IsRecorded, Recorded, WaitableKind};
use crate::ffi::scope::{Keep, LaneCore, ScopeBody, ScopeCore};
use crate::ffi::{self, Raw};
use crate::marker::ThreadBound;
use crate::memory::access::CpuVisible;
use crate::memory::{AsyncDirection, CopyDirection, DeviceRepr, Memory, RuntimeMemory};
use crate::mode::{RunMode, memcpy_kind};
use crate::stream::Stream;

use super::flight::{InFlight, Mark, Reading, Shared, Signal};
use super::operand::{AsyncDest, AsyncSource};

/// A region in which asynchronous work may borrow memory; see
/// [`Context::scope`](crate::Context::scope).
///
/// Enlist streams with [`lane`](Self::lane) and queue work on the lanes;
/// everything the work borrows stays borrowed until the scope has
/// synchronised every lane, which it does before `Context::scope` returns.
///
/// Neither `Send` nor `Sync`: a scope is driven by the thread that opened it
/// (use one scope per thread; contexts and streams are shareable). It holds a
/// [`ThreadBound`], which the compile errors of such a use name.
pub struct Scope<'scope, 'env: 'scope, 'id: 'env, M: RunMode> {
    _thread: ThreadBound,
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
            _thread: ThreadBound::NEW,
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
    /// Using an [`InFlight`](crate::InFlight) of another lane, or memory, streams or events
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
            _thread: ThreadBound::NEW,
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
                _thread: ThreadBound::NEW,
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
    /// when no work of the scope uses them any more (a kept [`Event`](crate::Event) is
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
    /// [`InFlight::reuse`](crate::InFlight::reuse) and was parked or read again — until work of the
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
    _thread: ThreadBound,
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
    /// when the scope opens, and keep an `InFlight` (or a [`Fence`](crate::Fence)) from
    /// then on. An `InFlight` of another lane of the same set
    /// ([`Scope::lanes`](crate::Scope::lanes)) is [`Error::WrongLane`](crate::Error::WrongLane).
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
