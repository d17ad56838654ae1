//! Events as typestate: [`Event`]`<'ctx, 'id, K, S>` with a kind `K` (how
//! it was created, so what it can do) and a state `S` ([`Unrecorded`] or
//! [`Recorded`]).
//!
//! | kind `K` | created with | waited on by a lane | timed | reset | wait status |
//! | --- | --- | --- | --- | --- | --- |
//! | [`Timing`] | `aclrtCreateEvent` (flags 0x2\|0x4\|0x8) | yes | yes | no (undefined) | yes |
//! | [`SyncOnly`] | `aclrtCreateEventWithFlag(ACL_EVENT_SYNC)` | yes | no | yes | yes |
//! | [`ExSync`] | `aclrtCreateEventExWithFlag(ACL_EVENT_SYNC)` | yes | no | no | no |
//! | [`ExSyncTimed`] | `…ExWithFlag(ACL_EVENT_SYNC \| ACL_EVENT_TIME_LINE)` | yes | yes | no | no |
//! | [`ExSyncProgress`] | `…ExWithFlag(ACL_EVENT_SYNC \| ACL_EVENT_CAPTURE_STREAM_PROGRESS)` | yes | no | no | no |
//! | [`ExSyncProgressTimed`] | `…ExWithFlag(SYNC \| CAPTURE_STREAM_PROGRESS \| TIME_LINE)` | yes | yes | no | no |
//! | [`ExProgress`] | `…ExWithFlag(ACL_EVENT_CAPTURE_STREAM_PROGRESS)` | no | no | no | no |
//! | [`ExProgressTimed`] | `…ExWithFlag(CAPTURE_STREAM_PROGRESS \| TIME_LINE)` | no | yes | no | no |
//! | [`ExTimeLine`] | `…ExWithFlag(ACL_EVENT_TIME_LINE)` | no | yes | no | no |
//! | [`ExIpc`] | `…ExWithFlag(ACL_EVENT_IPC)` (shared with other processes: [`Event::ipc_handle`]) | yes | no | no | no |
//!
//! Every kind can be recorded (again and again: each record replaces what
//! the event captured), synchronised on and queried
//! ([`Event::is_complete`]) once recorded, and destroyed. The columns are
//! capability traits, checked at compile time:
//! [`WaitableKind`] ([`Lane::wait_event`](crate::Lane::wait_event)),
//! [`TimingKind`] ([`Event::elapsed_since`], [`Event::timestamp`]),
//! [`ResettableKind`] ([`Stream::reset_event`]) and [`WaitStatusKind`]
//! ([`Event::waits_complete`]). The runtime refuses each of these calls on
//! the other kinds (207000, or 107006 for timing without
//! `ACL_EVENT_TIME_LINE`), so the types only move that error to compile time.
//!
//! * Only a [`Recorded`] event can be synchronised on, queried, waited for
//!   (inside a [`Scope`](crate::Scope)) or timed.
//! * An event waited on inside a scope is borrowed until the scope has
//!   synchronised, so it cannot be destroyed while a wait depends on it.
//! * Dropping a recorded event first waits for it (`aclrtSynchronizeEvent`),
//!   so no queued record outlives it.

use core::marker::PhantomData;
use core::mem::ManuallyDrop;

use generativity::Id;

use crate::error::Result;
use crate::ffi::{self, Raw};
use crate::stream::Stream;

mod sealed {
    pub trait Sealed {}
}

/// How an event is created, and so what it can do. Sealed.
#[diagnostic::on_unimplemented(
    message = "`{Self}` is not an event kind",
    note = "event kinds are `aclrt::Timing` (aclrtCreateEvent), `aclrt::SyncOnly` (aclrtCreateEventWithFlag(ACL_EVENT_SYNC)) and the `aclrt::Ex*` kinds (aclrtCreateEventExWithFlag)"
)]
pub trait EventKind: sealed::Sealed + Send + Sync + 'static {
    /// The flag for `aclrtCreateEventWithFlag` or `aclrtCreateEventExWithFlag`,
    /// or 0 for `aclrtCreateEvent`.
    const FLAG: u32;
    /// Whether the kind is created with `aclrtCreateEventExWithFlag`.
    const EX: bool;
}

/// Events that record timestamps (`aclrtCreateEvent`: flags SYNC-able,
/// stream progress and TIME_LINE). Can be waited for and timed.
#[derive(Clone, Copy, Debug)]
pub struct Timing;

/// Events without timestamps (`aclrtCreateEventWithFlag(ACL_EVENT_SYNC)`).
/// Can be waited for and reset, not timed.
#[derive(Clone, Copy, Debug)]
pub struct SyncOnly;

impl sealed::Sealed for Timing {}
impl sealed::Sealed for SyncOnly {}
impl EventKind for Timing {
    const FLAG: u32 = 0;
    const EX: bool = false;
}
impl EventKind for SyncOnly {
    const FLAG: u32 = aclrt_sys::ACL_EVENT_SYNC;
    const EX: bool = false;
}

macro_rules! ex_kinds {
    ($($(#[$doc:meta])* $name:ident = $flag:expr;)*) => {$(
        $(#[$doc])*
        #[derive(Clone, Copy, Debug)]
        pub struct $name;
        impl sealed::Sealed for $name {}
        impl EventKind for $name {
            const FLAG: u32 = $flag;
            const EX: bool = true;
        }
    )*};
}

const SYNC: u32 = aclrt_sys::ACL_EVENT_SYNC;
const PROGRESS: u32 = aclrt_sys::ACL_EVENT_CAPTURE_STREAM_PROGRESS;
const TIME_LINE: u32 = aclrt_sys::ACL_EVENT_TIME_LINE;

ex_kinds! {
    /// `aclrtCreateEventExWithFlag(ACL_EVENT_SYNC)`: for cross-stream waits
    /// ([`Lane::wait_event`](crate::Lane::wait_event)); not timed, never
    /// reset (re-record it instead). Its hardware event is taken at the
    /// first record.
    ExSync = SYNC;
    /// `aclrtCreateEventExWithFlag(ACL_EVENT_SYNC | ACL_EVENT_TIME_LINE)`:
    /// waitable and timed.
    ExSyncTimed = SYNC | TIME_LINE;
    /// `aclrtCreateEventExWithFlag(ACL_EVENT_SYNC | ACL_EVENT_CAPTURE_STREAM_PROGRESS)`:
    /// waitable, and tracks stream progress.
    ExSyncProgress = SYNC | PROGRESS;
    /// `aclrtCreateEventExWithFlag(ACL_EVENT_SYNC | ACL_EVENT_CAPTURE_STREAM_PROGRESS | ACL_EVENT_TIME_LINE)`:
    /// waitable, progress and timed.
    ExSyncProgressTimed = SYNC | PROGRESS | TIME_LINE;
    /// `aclrtCreateEventExWithFlag(ACL_EVENT_CAPTURE_STREAM_PROGRESS)`: watches
    /// how far a stream has got ([`Event::is_complete`],
    /// [`Event::synchronize`]); uses no hardware event and cannot be waited on.
    ExProgress = PROGRESS;
    /// `aclrtCreateEventExWithFlag(ACL_EVENT_CAPTURE_STREAM_PROGRESS | ACL_EVENT_TIME_LINE)`:
    /// progress and timing; cannot be waited on.
    ExProgressTimed = PROGRESS | TIME_LINE;
    /// `aclrtCreateEventExWithFlag(ACL_EVENT_TIME_LINE)`: timing only
    /// ([`Event::elapsed_since`], [`Event::timestamp`]); cheap, cannot be
    /// waited on.
    ExTimeLine = TIME_LINE;
    /// `aclrtCreateEventExWithFlag(ACL_EVENT_IPC)`: recorded here and
    /// waited for in other processes ([`Event::ipc_handle`],
    /// [`Context::open_ipc_event`](crate::Context::open_ipc_event)), and by
    /// this process's streams; not timed, never reset. Chips without IPC
    /// events (the 310P) refuse its creation (207000).
    ExIpc = aclrt_sys::ACL_EVENT_IPC;
}

/// Event kinds that carry timestamps (`ACL_EVENT_TIME_LINE`): [`Timing`],
/// [`ExSyncTimed`], [`ExSyncProgressTimed`], [`ExProgressTimed`],
/// [`ExTimeLine`].
#[diagnostic::on_unimplemented(
    message = "`{Self}` events carry no timestamps, so they cannot be timed",
    label = "this event was not created with the timing flag (ACL_EVENT_TIME_LINE)",
    note = "create the events with `Context::create_event()` (kind `aclrt::Timing`) or a timed `aclrtCreateEventExWithFlag` kind (`aclrt::ExTimeLine`, `aclrt::ExSyncTimed`, `aclrt::ExProgressTimed`, `aclrt::ExSyncProgressTimed`) to measure time"
)]
pub trait TimingKind: EventKind {}
impl TimingKind for Timing {}
impl TimingKind for ExSyncTimed {}
impl TimingKind for ExSyncProgressTimed {}
impl TimingKind for ExProgressTimed {}
impl TimingKind for ExTimeLine {}

/// Event kinds a stream can wait on (`aclrtStreamWaitEvent`): those with
/// `ACL_EVENT_SYNC` (or, for [`Timing`], the runtime's hidden equivalent):
/// [`Timing`], [`SyncOnly`], [`ExSync`], [`ExSyncTimed`], [`ExSyncProgress`],
/// [`ExSyncProgressTimed`], and [`ExIpc`] (an IPC event is waited for as a
/// synchronising one).
#[diagnostic::on_unimplemented(
    message = "`{Self}` events cannot be waited on by a stream: they were created without ACL_EVENT_SYNC",
    label = "`aclrtStreamWaitEvent` refuses this event kind (207000)",
    note = "events made only with ACL_EVENT_TIME_LINE or ACL_EVENT_CAPTURE_STREAM_PROGRESS watch or time a stream; for a cross-stream wait create the event with `create_event_of::<aclrt::ExSync>()` (or `ExSyncTimed` to time it too)"
)]
pub trait WaitableKind: EventKind {}
impl WaitableKind for Timing {}
impl WaitableKind for SyncOnly {}
impl WaitableKind for ExSync {}
impl WaitableKind for ExSyncTimed {}
impl WaitableKind for ExSyncProgress {}
impl WaitableKind for ExSyncProgressTimed {}
impl WaitableKind for ExIpc {}

/// Event kinds `aclrtQueryEventWaitStatus` is defined for: those of
/// `aclrtCreateEvent` and `aclrtCreateEventWithFlag` ([`Timing`],
/// [`SyncOnly`]), never `aclrtCreateEventExWithFlag` kinds.
#[diagnostic::on_unimplemented(
    message = "`aclrtQueryEventWaitStatus` is not defined for `{Self}` events (made by aclrtCreateEventExWithFlag)",
    label = "the runtime refuses the wait status of this event kind (207000)",
    note = "query the event itself with `is_complete()`, or create it with `Context::create_event()` (`aclrt::Timing`) or `create_event_of::<aclrt::SyncOnly>()`"
)]
pub trait WaitStatusKind: EventKind {}
impl WaitStatusKind for Timing {}
impl WaitStatusKind for SyncOnly {}

/// Event kinds `aclrtResetEvent` is defined for: only [`SyncOnly`].
#[diagnostic::on_unimplemented(
    message = "`aclrtResetEvent` is defined only for `SyncOnly` events, not for `{Self}` events",
    label = "this event cannot be reset",
    note = "re-record the event instead (`stream.record(event)?` replaces what it captured), or create a `SyncOnly` event with `Context::create_event_of::<aclrt::SyncOnly>()`"
)]
pub trait ResettableKind: EventKind {}
impl ResettableKind for SyncOnly {}

/// Whether an event has been recorded. Sealed.
pub trait EventState: sealed::Sealed + Send + Sync + 'static {
    #[doc(hidden)]
    const RECORDED: bool;
}

/// Created (or reset) but not recorded: nothing to wait for yet.
#[derive(Clone, Copy, Debug)]
pub struct Unrecorded;

/// Recorded on a stream: captures the work queued before the record.
#[derive(Clone, Copy, Debug)]
pub struct Recorded;

impl sealed::Sealed for Unrecorded {}
impl sealed::Sealed for Recorded {}
impl EventState for Unrecorded {
    const RECORDED: bool = false;
}
impl EventState for Recorded {
    const RECORDED: bool = true;
}

/// Event states that can be synchronised on, waited for and timed: only
/// [`Recorded`].
#[diagnostic::on_unimplemented(
    message = "this event has never been recorded, so there is nothing to wait for or time",
    label = "`Event<_, _, _, {Self}>` is not recorded",
    note = "record it on a stream first: `let event = stream.record(event)?;` gives an `Event<.., Recorded>`"
)]
pub trait IsRecorded: EventState {}
impl IsRecorded for Recorded {}

/// An event of the context branded `'id`, borrowing it for `'ctx`, of kind
/// `K` in state `S`. One pointer wide. `Send` and `Sync`: event calls are
/// thread-safe and take no current context.
#[doc(alias = "aclrtEvent")]
#[doc(alias = "aclrtCreateEvent")]
#[doc(alias = "aclrtDestroyEvent")]
pub struct Event<'ctx, 'id, K: EventKind, S: EventState> {
    raw: Raw,
    _ctx: PhantomData<&'ctx ()>,
    _brand: PhantomData<Id<'id>>,
    _kind: PhantomData<(K, S)>,
}

impl<K: EventKind, S: EventState> ffi::HandleOwner for Event<'_, '_, K, S> {
    fn handle(&self) -> Raw {
        self.raw
    }
}

impl<K: EventKind, S: EventState> core::fmt::Debug for Event<'_, '_, K, S> {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("Event")
            .field("handle", &self.raw.as_ptr())
            .field("kind", &core::any::type_name::<K>())
            .field("recorded", &S::RECORDED)
            .finish()
    }
}

impl<'ctx, 'id, K: EventKind, S: EventState> Event<'ctx, 'id, K, S> {
    pub(crate) fn from_raw(raw: Raw) -> Self {
        Event {
            raw,
            _ctx: PhantomData,
            _brand: PhantomData,
            _kind: PhantomData,
        }
    }

    fn into_state<S2: EventState>(self) -> Event<'ctx, 'id, K, S2> {
        let this = ManuallyDrop::new(self);
        Event::from_raw(this.raw)
    }

    pub(crate) fn into_recorded(self) -> Event<'ctx, 'id, K, Recorded> {
        self.into_state()
    }

    /// The C handle (`aclrtEvent`), for interop and diagnostics.
    pub fn as_raw(&self) -> *mut core::ffi::c_void {
        self.raw.as_ptr()
    }

    /// Destroy the event now (`aclrtDestroyEvent`; a recorded event is first
    /// synchronised), reporting the runtime's error. If a stream still has a
    /// pending wait on it ([`Stream::wait_event`]), the `aclrtDestroyEvent`
    /// is deferred to the synchronisation that retires that wait.
    #[doc(alias = "aclrtDestroyEvent")]
    pub fn destroy(self) -> Result<()> {
        let this = ManuallyDrop::new(self);
        // A record an escalation discarded never completes: nothing to
        // wait for.
        if S::RECORDED && not_discarded(this.raw).is_ok() {
            ffi::synchronize_event(this.raw)?;
        }
        ffi::destroy_event(this.raw)
    }
}

/// [`Error::WorkAborted`](crate::Error::WorkAborted) when an escalation
/// discarded the record of `ev` before it ran (it has not completed and
/// never will). One atomic load while no escalation has ever run.
#[inline]
fn not_discarded(ev: ffi::Raw) -> Result<()> {
    if ffi::scope::record_discarded(ev) && !ffi::event_is_complete(ev)? {
        return Err(crate::Error::WorkAborted);
    }
    Ok(())
}

impl<'ctx, 'id, K: EventKind, S: EventState> Event<'ctx, 'id, K, S> {
    /// Block until the work captured by the record has finished
    /// (`aclrtSynchronizeEvent`). A device fault of that work is *not*
    /// reported here — the runtime reports it to the stream's next
    /// synchronisation ([`Stream::synchronize`](crate::Stream::synchronize))
    /// only, except in the stop-on-failure mode, where this returns the
    /// context's failure. Only for [`Recorded`] events.
    ///
    /// [`Error::WorkAborted`](crate::Error::WorkAborted) if a scope's
    /// escalation discarded the record before it ran: it would never
    /// complete (record the event again).
    #[doc(alias = "aclrtSynchronizeEvent")]
    #[inline]
    pub fn synchronize(&self) -> Result<()>
    where
        S: IsRecorded,
    {
        not_discarded(self.raw)?;
        ffi::synchronize_event(self.raw)
    }

    /// As [`synchronize`](Self::synchronize), giving up after `timeout`
    /// (`aclrtSynchronizeEventWithTimeout`); a timeout is an error whose
    /// [`kind`](crate::Error::kind) is [`Timeout`](crate::ErrorKind::Timeout).
    #[doc(alias = "aclrtSynchronizeEventWithTimeout")]
    pub fn synchronize_timeout(&self, timeout: core::time::Duration) -> Result<()>
    where
        S: IsRecorded,
    {
        let ms = ffi::timeout_ms(timeout)?;
        not_discarded(self.raw)?;
        ffi::synchronize_event_timeout(self.raw, ms)
    }

    /// Whether the captured work has finished (`aclrtQueryEventStatus`).
    ///
    /// [`Error::WorkAborted`](crate::Error::WorkAborted) instead of
    /// `Ok(false)` if a scope's escalation discarded the record before it
    /// ran: it would answer `false` for ever (record the event again). The
    /// crate knows the stream of each record from the first escalation on
    /// (or from the first scope that records or waits for a user event, or
    /// the first [`Stream::wait_event`]); a record made before then that has
    /// not completed counts as discarded once an escalation has aborted a
    /// stream of its context.
    #[doc(alias = "aclrtQueryEventStatus")]
    pub fn is_complete(&self) -> Result<bool>
    where
        S: IsRecorded,
    {
        let done = ffi::event_is_complete(self.raw)?;
        if !done && ffi::scope::record_discarded(self.raw) {
            return Err(crate::Error::WorkAborted);
        }
        Ok(done)
    }

    /// Milliseconds from `start` to this event (`aclrtEventElapsedTime`).
    /// Both must be recorded events of timed kinds ([`TimingKind`]; the two
    /// kinds may differ); synchronise them first (or this errors while they
    /// are pending). Negative when `start` was recorded after this event.
    ///
    /// [`Error::WorkAborted`](crate::Error::WorkAborted) if a scope's
    /// escalation discarded the record of either event before it ran: no
    /// synchronisation would make it complete (record it again).
    #[doc(alias = "aclrtEventElapsedTime")]
    pub fn elapsed_since<K2: TimingKind, S2: IsRecorded>(
        &self,
        start: &Event<'_, 'id, K2, S2>,
    ) -> Result<f32>
    where
        K: TimingKind,
        S: IsRecorded,
    {
        ffi::event_elapsed_ms(start.raw, self.raw).or_else(|e| {
            not_discarded(start.raw)?;
            not_discarded(self.raw)?;
            Err(e)
        })
    }

    /// When the record of this event completed, as time since the device
    /// booted (`aclrtEventGetTimestamp`, microsecond resolution). Only for
    /// recorded events of timed kinds ([`TimingKind`]).
    ///
    /// Synchronise the event (or its stream) first: while the record is
    /// still queued there is no timestamp, and the runtime answers 107006
    /// (`ACL_ERROR_RT_EVENT_TIMESTAMP_INVALID`). The difference of two
    /// timestamps agrees with [`elapsed_since`](Self::elapsed_since).
    ///
    /// ```
    /// # let _sim = aclrt::sim::exclusive();
    /// use aclrt::{Acl, ExTimeLine, HostMode, make_guard};
    ///
    /// let acl = Acl::init()?;
    /// let device = acl.require::<HostMode>()?.device(0)?;
    /// make_guard!(guard);
    /// let ctx = device.create_context(guard)?;
    /// let stream = ctx.create_stream()?;
    /// let start = stream.record(ctx.create_event_of::<ExTimeLine>()?)?;
    /// let mut buf = ctx.alloc::<u8>(1 << 20)?;
    /// ctx.memset(&mut buf, 0)?;
    /// let end = stream.record(ctx.create_event_of::<ExTimeLine>()?)?;
    /// end.synchronize()?;
    /// let (t0, t1) = (start.timestamp()?, end.timestamp()?);
    /// assert!(t1 >= t0);
    /// let ms = end.elapsed_since(&start)?;
    /// assert!((ms as f64 - (t1 - t0).as_secs_f64() * 1e3).abs() < 0.01);
    /// # Ok::<(), aclrt::Error>(())
    /// ```
    #[doc(alias = "aclrtEventGetTimestamp")]
    pub fn timestamp(&self) -> Result<core::time::Duration>
    where
        K: TimingKind,
        S: IsRecorded,
    {
        ffi::event_timestamp_us(self.raw).map(core::time::Duration::from_micros)
    }

    /// Whether every stream wait issued on this event
    /// ([`Lane::wait_event`](crate::Lane::wait_event)) has executed
    /// (`aclrtQueryEventWaitStatus`); `true` when none was issued. Only for
    /// events of `aclrtCreateEvent`/`aclrtCreateEventWithFlag`
    /// ([`WaitStatusKind`]).
    #[doc(alias = "aclrtQueryEventWaitStatus")]
    pub fn waits_complete(&self) -> Result<bool>
    where
        K: WaitStatusKind,
    {
        ffi::event_waits_complete(self.raw)
    }
}

impl<K: EventKind, S: EventState> crate::ffi::scope::keep_seal::Sealed for Event<'_, '_, K, S> {}
impl<K: EventKind, S: EventState> crate::ffi::scope::Keep for Event<'_, '_, K, S> {}

impl<K: EventKind, S: EventState> Drop for Event<'_, '_, K, S> {
    fn drop(&mut self) {
        // Not for a record an escalation discarded: it never completes.
        if S::RECORDED && not_discarded(self.raw).is_ok() {
            let _ = ffi::synchronize_event(self.raw);
        }
        let _ = ffi::destroy_event(self.raw);
    }
}

impl<'ctx, 'id> Stream<'ctx, 'id> {
    /// Record `event` on this stream (`aclrtRecordEvent`): it captures the
    /// work queued so far. Re-recording a recorded event replaces what it
    /// captured.
    #[doc(alias = "aclrtRecordEvent")]
    #[inline]
    pub fn record<'e, K: EventKind, S: EventState>(
        &self,
        event: Event<'e, 'id, K, S>,
    ) -> Result<Event<'e, 'id, K, Recorded>> {
        self.bind()?;
        // Taken before the record is queued (see `ffi::scope::record_ticket`).
        let ticket = ffi::scope::record_ticket();
        ffi::record_event(event.raw, self.raw())?;
        // This record replaces any a scope made: a scope's escalation must
        // not record the event again over it, and a lane's wait for it must
        // know its stream.
        ffi::scope::record_made(event.raw, self.raw(), ticket);
        Ok(event.into_state())
    }

    /// Make work queued on this stream from now on wait until the work
    /// `event` captured has finished (`aclrtStreamWaitEvent`), without
    /// blocking the host: cross-stream ordering outside a scope.
    ///
    /// The same rules as [`Lane::wait_event`](crate::Lane::wait_event) in a
    /// scope: the event must be [`Recorded`] (an unrecorded one does not
    /// compile) and of this stream's context (the brand `'id`). What keeps
    /// the event alive while the wait is pending is different: nothing here
    /// synchronises for you, so the crate remembers the wait until a
    /// synchronisation proves it executed ([`Stream::synchronize`] or
    /// [`synchronize_timeout`](Stream::synchronize_timeout) of this stream,
    /// [`Context::synchronize`](crate::Context::synchronize),
    /// [`Device::synchronize`](crate::Device::synchronize), or destroying
    /// the stream). Dropping or destroying the event earlier is allowed and
    /// safe: its `aclrtDestroyEvent` is deferred to that synchronisation
    /// (at the latest, the destruction of its context, which synchronises the
    /// context first). Leaking anything (`mem::forget`) cannot make the
    /// runtime see an event destroyed under a pending wait.
    ///
    /// If a scope's deadline aborted the stream the event was last recorded
    /// on before that record ran, the record is discarded and a wait for it
    /// would never end: [`Error::WorkAborted`](crate::Error::WorkAborted),
    /// nothing queued. A wait queued *before* such an abort would never end
    /// either, so the abort reaches it: this stream is aborted too (its
    /// pending work is discarded, host functions dropped unrun), and its
    /// next [`synchronize`](Stream::synchronize) reports `WorkAborted`.
    ///
    /// ```
    /// # let _sim = aclrt::sim::exclusive();
    /// use aclrt::{Acl, HostMode, make_guard};
    /// let acl = Acl::init()?;
    /// let device = acl.require::<HostMode>()?.device(0)?;
    /// make_guard!(g);
    /// let ctx = device.create_context(g)?;
    /// let (producer, consumer) = (ctx.create_stream()?, ctx.create_stream()?);
    /// let ready = producer.record(ctx.create_event()?)?;   // after the producer's work
    /// consumer.wait_event(&ready)?;                         // consumer's later work waits for it
    /// drop(ready);                                          // allowed: destruction is deferred
    /// consumer.synchronize()?;                              // the wait has run; the event is destroyed
    /// # drop((producer, consumer));
    /// # drop(ctx);
    /// # drop(device);
    /// # acl.finalize()?;
    /// # aclrt::sim::audit().assert_clean();
    /// # Ok::<(), aclrt::Error>(())
    /// ```
    #[doc(alias = "aclrtStreamWaitEvent")]
    pub fn wait_event<K: WaitableKind, S: IsRecorded>(
        &self,
        event: &Event<'_, 'id, K, S>,
    ) -> Result<()> {
        self.bind()?;
        ffi::scope::wait_event_outside(self.raw(), self.ctx_raw(), event.raw)
    }

    /// Reset a recorded [`SyncOnly`] event on this stream (`aclrtResetEvent`)
    /// so that it can be recorded again; returns once the reset has run
    /// (the stream is synchronised), so the event is reusable at once.
    #[doc(alias = "aclrtResetEvent")]
    pub fn reset_event<'e, K: ResettableKind>(
        &self,
        event: Event<'e, 'id, K, Recorded>,
    ) -> Result<Event<'e, 'id, K, Unrecorded>> {
        self.bind()?;
        ffi::reset_event(event.raw, self.raw())?;
        ffi::synchronize_stream(self.raw())?;
        Ok(event.into_state())
    }
}
