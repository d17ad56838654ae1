//! Streams: [`Stream`] (`aclrtCreateStream` / `aclrtDestroyStream`) and the
//! context's [`DefaultStream`].

use core::marker::PhantomData;
use core::mem::ManuallyDrop;
use core::ops::Deref;

use generativity::Id;

use crate::error::Result;
use crate::ffi::{self, Raw};

/// Flags of [`Context::create_stream_with_config`](crate::Context::create_stream_with_config)
/// (`ACL_STREAM_*`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct StreamFlags(u32);

impl StreamFlags {
    /// No flags: a plain stream.
    pub const NONE: StreamFlags = StreamFlags(0);
    /// `ACL_STREAM_FAST_LAUNCH`.
    pub const FAST_LAUNCH: StreamFlags = StreamFlags(aclrt_sys::ACL_STREAM_FAST_LAUNCH);
    /// `ACL_STREAM_FAST_SYNC`.
    pub const FAST_SYNC: StreamFlags = StreamFlags(aclrt_sys::ACL_STREAM_FAST_SYNC);

    /// The C bit mask.
    pub const fn bits(self) -> u32 {
        self.0
    }

    /// The flags of a C bit mask (as the runtime reports them).
    pub const fn from_bits(bits: u32) -> StreamFlags {
        StreamFlags(bits)
    }

    /// Both sets of flags.
    pub const fn union(self, other: StreamFlags) -> StreamFlags {
        StreamFlags(self.0 | other.0)
    }
}

/// A stream priority (`aclrtCreateStreamWithConfig`, `aclrtStreamGetPriority`):
/// 0 ([`HIGHEST`](Self::HIGHEST), the default of every stream) to 7
/// ([`LOWEST`](Self::LOWEST)); **a smaller number is a higher priority**.
///
/// The runtime clamps out-of-range values into 0..=7 without an error (and
/// reads values of 2^31 or more as negative, so they become 0); this type
/// only holds values in range, so what you ask for is what the stream gets.
/// It deliberately implements no `Ord`: "less" would read as "lower
/// priority"; compare with [`is_higher_than`](Self::is_higher_than).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct StreamPriority(u8);

impl StreamPriority {
    /// 0, the highest priority and the default.
    pub const HIGHEST: StreamPriority = StreamPriority(0);
    /// 7, the lowest priority.
    pub const LOWEST: StreamPriority = StreamPriority(7);

    /// `Some` for 0..=7, `None` otherwise.
    pub const fn new(priority: u32) -> Option<StreamPriority> {
        if priority <= 7 {
            Some(StreamPriority(priority as u8))
        } else {
            None
        }
    }

    /// What the runtime makes of `priority`: values above 7 become 7, and
    /// values of 2^31 or more (negative as the runtime's `int32_t`) become 0.
    pub const fn clamped(priority: u32) -> StreamPriority {
        let p = priority as i32;
        if p < 0 {
            StreamPriority(0)
        } else if p > 7 {
            StreamPriority(7)
        } else {
            StreamPriority(p as u8)
        }
    }

    /// The number, 0..=7.
    pub const fn get(self) -> u32 {
        self.0 as u32
    }

    /// Whether `self` is a higher priority than `other` (a smaller number).
    pub const fn is_higher_than(self, other: StreamPriority) -> bool {
        self.0 < other.0
    }
}

/// The range `aclrtDeviceGetStreamPriorityRange` reports, as the runtime's
/// raw numbers ([`Device::stream_priority_range`](crate::Device::stream_priority_range)):
/// `least` (the lowest priority, the largest number: 7) and `greatest` (the
/// highest, the smallest number: 0).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct StreamPriorityRange {
    /// The lowest priority (numerically largest).
    pub least: i32,
    /// The highest priority (numerically smallest).
    pub greatest: i32,
}

impl StreamPriorityRange {
    /// Whether `priority` lies in the range.
    pub fn contains(&self, priority: StreamPriority) -> bool {
        let p = priority.get() as i32;
        self.greatest <= p && p <= self.least
    }
}

/// A stream (`aclrtCreateStream`): an in-order queue of asynchronous work in
/// the context branded `'id`, borrowing it for `'ctx`.
///
/// Destroyed on drop (`aclrtDestroyStream`, which waits for queued work), or
/// by [`destroy`](Stream::destroy), which reports errors. Two pointers wide:
/// the stream handle and its context's handle, which every call makes current
/// first so that safe code never sees error 107003 (`Option<Stream>` has the
/// same size).
///
/// `Send` and `Sync`: the runtime accepts work for a stream from any thread
/// once its context is current, which every method ensures.
#[doc(alias = "aclrtStream")]
#[doc(alias = "aclrtCreateStream")]
#[doc(alias = "aclrtDestroyStream")]
pub struct Stream<'ctx, 'id> {
    raw: Raw,
    ctx: Raw,
    _ctx: PhantomData<&'ctx ()>,
    _brand: PhantomData<Id<'id>>,
}

impl ffi::HandleOwner for Stream<'_, '_> {
    fn handle(&self) -> Raw {
        self.raw
    }
}

impl core::fmt::Debug for Stream<'_, '_> {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("Stream")
            .field("handle", &self.raw.as_ptr())
            .field("context", &self.ctx.as_ptr())
            .finish()
    }
}

impl<'ctx, 'id> Stream<'ctx, 'id> {
    pub(crate) fn owned(raw: Raw, ctx: Raw) -> Self {
        Stream {
            raw,
            ctx,
            _ctx: PhantomData,
            _brand: PhantomData,
        }
    }

    /// The C handle (`aclrtStream`), for interop and diagnostics.
    pub fn as_raw(&self) -> *mut core::ffi::c_void {
        self.raw.as_ptr()
    }

    pub(crate) fn raw(&self) -> Raw {
        self.raw
    }

    /// The handle of this stream's context.
    pub(crate) fn ctx_raw(&self) -> Raw {
        self.ctx
    }

    /// Make this stream's context current on the calling thread.
    #[inline]
    pub(crate) fn bind(&self) -> Result<()> {
        ffi::make_current(self.ctx)
    }

    /// Block until every task queued on the stream has finished
    /// (`aclrtSynchronizeStream`); reports a device fault of queued work.
    ///
    /// If a host function queued with [`launch_host_fn`](Self::launch_host_fn)
    /// panicked, its panic is resumed here, on the calling thread.
    ///
    /// [`Error::WorkAborted`](crate::Error::WorkAborted) if a scope's
    /// escalation aborted this stream since its last synchronisation and
    /// work queued here outside that scope was lost with it (reported once):
    /// a [`wait_event`](Self::wait_event) queued here was for a record the
    /// escalation discarded, and would never have ended; a host function of
    /// [`launch_host_fn`](Self::launch_host_fn) never ran (it is dropped
    /// here); or report callbacks launched on the stream
    /// ([`Subscription::launch`](crate::Subscription::launch)) had not run
    /// when the abort came (discarded; one launched `NO_BLOCK` that the
    /// stream had already handed to its reporter still runs, so this is
    /// reported when callbacks *may* have been lost).
    #[doc(alias = "aclrtSynchronizeStream")]
    pub fn synchronize(&self) -> Result<()> {
        #[cfg(unix)]
        crate::serving::refuse_if_serving(
            self.raw,
            "Stream::synchronize of a stream this thread serves",
        )?;
        self.bind()?;
        let ticket = ffi::waits::ticket();
        let synced = ffi::synchronize_stream(self.raw);
        let aborted = ffi::scope::take_outside_aborted(self.raw);
        synced?;
        ffi::waits::synchronized_stream_since(self.raw, ticket);
        let settled = ffi::host_fn::settle_static_host_fns(Some(self.raw));
        if let Some(payload) = settled.panic {
            std::panic::resume_unwind(payload);
        }
        // A host function that never ran although the stream completed: an
        // escalation's abort discarded it.
        if aborted || settled.lost {
            return Err(crate::Error::WorkAborted);
        }
        Ok(())
    }

    /// As [`synchronize`](Self::synchronize), giving up after `timeout`
    /// (`aclrtSynchronizeStreamWithTimeout`); a timeout is an error whose
    /// [`kind`](crate::Error::kind) is [`Timeout`](crate::ErrorKind::Timeout).
    #[doc(alias = "aclrtSynchronizeStreamWithTimeout")]
    pub fn synchronize_timeout(&self, timeout: core::time::Duration) -> Result<()> {
        let ms = ffi::timeout_ms(timeout)?;
        self.bind()?;
        let ticket = ffi::waits::ticket();
        ffi::synchronize_stream_timeout(self.raw, ms)?;
        ffi::waits::synchronized_stream_since(self.raw, ticket);
        if ffi::scope::take_outside_aborted(self.raw) {
            return Err(crate::Error::WorkAborted);
        }
        Ok(())
    }

    /// Whether every queued task has finished (`aclrtStreamQuery`).
    #[doc(alias = "aclrtStreamQuery")]
    pub fn is_complete(&self) -> Result<bool> {
        self.bind()?;
        ffi::stream_is_complete(self.raw)
    }

    /// This stream's priority (`aclrtStreamGetPriority`): what
    /// [`Context::create_stream_with_config`](crate::Context::create_stream_with_config)
    /// set, or [`StreamPriority::HIGHEST`] for other and default streams.
    #[doc(alias = "aclrtStreamGetPriority")]
    pub fn priority(&self) -> Result<StreamPriority> {
        self.bind()?;
        // The runtime stores the priority clamped into 0..=7.
        ffi::stream_priority(self.raw).map(StreamPriority::clamped)
    }

    /// Queue a host function that owns everything it uses
    /// (`aclrtLaunchHostFunc`): `f` runs on a runtime thread after the work
    /// queued before it. A panic in `f` is caught there (it never unwinds
    /// through C) and resumed by the next [`synchronize`](Self::synchronize)
    /// of this stream. If a device fault skips the task, `f` is dropped
    /// unrun once the stream is synchronised or destroyed; so is one that a
    /// stream abort discards (a scope's deadline,
    /// [`Context::scope_with_timeout`](crate::Context::scope_with_timeout)). For host functions
    /// that borrow data, use [`Lane::host_fn`](crate::Lane::host_fn) in a scope.
    ///
    /// Calls that wait for the device are refused inside `f` with
    /// [`Error::InCallback`](crate::Error::InCallback), as
    /// [`Lane::host_fn`](crate::Lane::host_fn) explains.
    #[doc(alias = "aclrtLaunchHostFunc")]
    pub fn launch_host_fn<F>(&self, f: F) -> Result<()>
    where
        F: FnOnce() + Send + 'static,
    {
        self.bind()?;
        ffi::host_fn::launch_static_host_fn(self.raw, Box::new(f))
    }

    /// Destroy the stream now (`aclrtDestroyStream`, which waits for queued
    /// work), reporting the runtime's error.
    #[doc(alias = "aclrtDestroyStream")]
    #[inline]
    pub fn destroy(self) -> Result<()> {
        let this = ManuallyDrop::new(self);
        // Makes the context current; settles the host functions.
        ffi::destroy_stream(this.raw, this.ctx)
    }
}

impl crate::ffi::scope::keep_seal::Sealed for Stream<'_, '_> {}
impl crate::ffi::scope::Keep for Stream<'_, '_> {}

impl Drop for Stream<'_, '_> {
    fn drop(&mut self) {
        // Drop cannot report; `destroy` does. A transient failure to make the
        // context current must not leak the stream: try a few times. The
        // release makes the context current again when another thread
        // created or destroyed a context in between (the per-thread cache
        // of the current context is then stale), so a refusal of that
        // call is retried too; any other refusal leaks the stream.
        for _ in 0..3 {
            if self.bind().is_err() {
                continue;
            }
            match ffi::destroy_stream(self.raw, self.ctx) {
                Err(e) if e.call() == Some("aclrtSetCurrentContext") => continue,
                _ => return,
            }
        }
    }
}

/// The default stream of a context, as a view: everything a [`Stream`] can
/// do (through `Deref`) except being destroyed.
///
/// Its [`destroy`](Self::destroy) cannot be called (it is bound by
/// [`Destroyable`], a trait with no implementation, so
/// that the compiler says why), its `Drop` does nothing, and `Deref` only
/// lends `&Stream`. The runtime releases it with its context.
pub struct DefaultStream<'ctx, 'id> {
    inner: ManuallyDrop<Stream<'ctx, 'id>>,
}

impl<'ctx, 'id> DefaultStream<'ctx, 'id> {
    pub(crate) fn new(raw: Raw, ctx: Raw) -> Self {
        DefaultStream {
            inner: ManuallyDrop::new(Stream::owned(raw, ctx)),
        }
    }

    /// Not callable: the default stream cannot be destroyed (`aclrtDestroyStream`
    /// refuses it); it is released with its context. This method exists only
    /// so that the compiler explains that, instead of a bare "cannot move
    /// out of a dereference".
    pub fn destroy(self) -> Result<()>
    where
        Self: Destroyable,
    {
        unreachable!("Destroyable has no implementation")
    }
}

/// Implemented by nothing: bounds the `destroy` methods of
/// [`DefaultContext`](crate::DefaultContext) and [`DefaultStream`], which the
/// runtime never lets you destroy.
#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot be destroyed: the runtime owns the default context and the default stream",
    label = "the default context and stream are views, not owners",
    note = "`Device::reset` (or dropping the `Device`) releases them; destroy only what you created (`create_context`, `create_stream`)"
)]
pub trait Destroyable {}

impl<'ctx, 'id> Deref for DefaultStream<'ctx, 'id> {
    type Target = Stream<'ctx, 'id>;
    fn deref(&self) -> &Stream<'ctx, 'id> {
        &self.inner
    }
}

impl core::fmt::Debug for DefaultStream<'_, '_> {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_tuple("DefaultStream").field(&*self.inner).finish()
    }
}
