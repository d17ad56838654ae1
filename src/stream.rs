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

    /// Both sets of flags.
    pub const fn union(self, other: StreamFlags) -> StreamFlags {
        StreamFlags(self.0 | other.0)
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
    pub(crate) fn bind(&self) -> Result<()> {
        ffi::make_current(self.ctx)
    }

    /// Block until every task queued on the stream has finished
    /// (`aclrtSynchronizeStream`); reports a device fault of queued work.
    ///
    /// If a host function queued with [`launch_host_fn`](Self::launch_host_fn)
    /// panicked, its panic is resumed here, on the calling thread.
    #[doc(alias = "aclrtSynchronizeStream")]
    pub fn synchronize(&self) -> Result<()> {
        self.bind()?;
        let ticket = ffi::waits::ticket();
        ffi::synchronize_stream(self.raw)?;
        ffi::waits::synchronized_stream_since(self.raw, ticket);
        if let Some(payload) = ffi::host_fn::settle_static_host_fns(Some(self.raw)) {
            std::panic::resume_unwind(payload);
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
        Ok(())
    }

    /// Whether every queued task has finished (`aclrtStreamQuery`).
    #[doc(alias = "aclrtStreamQuery")]
    pub fn is_complete(&self) -> Result<bool> {
        self.bind()?;
        ffi::stream_is_complete(self.raw)
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
    pub fn destroy(self) -> Result<()> {
        let this = ManuallyDrop::new(self);
        this.bind()?;
        ffi::destroy_stream(this.raw)?;
        // aclrtDestroyStream waited for the queued work.
        drop(ffi::host_fn::settle_static_host_fns(Some(this.raw)));
        Ok(())
    }
}

impl Drop for Stream<'_, '_> {
    fn drop(&mut self) {
        // Drop cannot report; `destroy` does. A transient failure to make the
        // context current must not leak the stream: try a few times.
        let bound = (0..3).any(|_| self.bind().is_ok());
        if bound && ffi::destroy_stream(self.raw).is_ok() {
            drop(ffi::host_fn::settle_static_host_fns(Some(self.raw)));
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
