//! The scope itself ([`Scope`]), the body `Context::scope` runs in it, and
//! the lanes it enlists ([`Lane`]).

use core::marker::PhantomData;
use core::time::Duration;

use generativity::{Guard, Id};

use crate::error::Result;
use crate::ffi::scope::{Keep, LaneCore, ScopeBody, ScopeCore};
use crate::ffi::{self, Raw};
use crate::mode::RunMode;
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
    pub(super) core: LaneCore<'scope, 'sid>,
    _scope: PhantomData<&'scope Scope<'scope, 'env, 'id, M>>,
}

impl<M: RunMode> core::fmt::Debug for Lane<'_, '_, '_, '_, M> {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("Lane")
            .field("stream", &self.core.stream().as_ptr())
            .finish()
    }
}
