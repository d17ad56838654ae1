//! Contexts: [`Context`] (`aclrtCreateContext` / `aclrtDestroyContext`) and the
//! device's [`DefaultContext`], with allocation and synchronous copies.

use core::marker::PhantomData;
use core::mem::ManuallyDrop;
use core::ops::Deref;

use generativity::{Guard, Id};

use crate::error::{Error, Result};
use crate::event::{Event, EventKind, Timing, Unrecorded};
use crate::ffi::{self, DeviceAlloc, Raw};
use crate::memory::{
    DeviceBuffer, DeviceMemory, DeviceRepr, HostBuffer, HostBufferUninit, HostMemory, Memory,
    MemoryMut, RuntimeMemory, byte_size,
};
use crate::mode::{HostRunMode, RunMode, memcpy_kind};

use crate::scope::{self, Scope};
use crate::stream::{DefaultStream, Destroyable, Stream, StreamFlags, StreamPriority};

/// Page policy of a device allocation (`aclrtMemMallocPolicy`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum MallocPolicy {
    /// `ACL_MEM_MALLOC_HUGE_FIRST`: huge pages above 1 MiB when available (default).
    #[default]
    HugeFirst,
    /// `ACL_MEM_MALLOC_HUGE_ONLY`: huge pages or failure.
    HugeOnly,
    /// `ACL_MEM_MALLOC_NORMAL_ONLY`: normal pages.
    NormalOnly,
    /// `ACL_MEM_MALLOC_HUGE_FIRST_P2P`: as `HugeFirst`, usable peer-to-peer.
    HugeFirstP2p,
    /// `ACL_MEM_MALLOC_HUGE_ONLY_P2P`.
    HugeOnlyP2p,
    /// `ACL_MEM_MALLOC_NORMAL_ONLY_P2P`.
    NormalOnlyP2p,
}

impl MallocPolicy {
    /// The C value.
    pub const fn to_raw(self) -> aclrt_sys::aclrtMemMallocPolicy {
        match self {
            MallocPolicy::HugeFirst => aclrt_sys::ACL_MEM_MALLOC_HUGE_FIRST,
            MallocPolicy::HugeOnly => aclrt_sys::ACL_MEM_MALLOC_HUGE_ONLY,
            MallocPolicy::NormalOnly => aclrt_sys::ACL_MEM_MALLOC_NORMAL_ONLY,
            MallocPolicy::HugeFirstP2p => aclrt_sys::ACL_MEM_MALLOC_HUGE_FIRST_P2P,
            MallocPolicy::HugeOnlyP2p => aclrt_sys::ACL_MEM_MALLOC_HUGE_ONLY_P2P,
            MallocPolicy::NormalOnlyP2p => aclrt_sys::ACL_MEM_MALLOC_NORMAL_ONLY_P2P,
        }
    }
}

/// An explicit context (`aclrtCreateContext`) on a device borrowed for
/// `'dev`, branded `'id`, in run mode `M`.
///
/// Streams, buffers and events made through it borrow it (so it cannot be
/// destroyed while they live) and carry its brand `'id` (so they cannot be
/// used with another context: the brand is an invariant lifetime made unique
/// by [`make_guard!`](crate::make_guard)). Destroyed on drop, or by
/// [`destroy`](Context::destroy), which reports errors.
///
/// Before each call that depends on the calling thread's current context,
/// the context is made current (a get/compare/set), so safe code never sees
/// error 107003 and a context can be used from any thread: `Context` is
/// `Send` and `Sync`. One pointer wide.
#[doc(alias = "aclrtContext")]
#[doc(alias = "aclrtCreateContext")]
#[doc(alias = "aclrtDestroyContext")]
pub struct Context<'dev, 'id, M: RunMode> {
    raw: Raw,
    _dev: PhantomData<&'dev ()>,
    _brand: PhantomData<Id<'id>>,
    _mode: PhantomData<M>,
}

impl<M: RunMode> core::fmt::Debug for Context<'_, '_, M> {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("Context")
            .field("handle", &self.raw.as_ptr())
            .field("mode", &M::KIND)
            .finish()
    }
}

impl<'dev, 'id, M: RunMode> Context<'dev, 'id, M> {
    pub(crate) fn owned(raw: Raw, guard: Guard<'id>) -> Self {
        let _ = Id::from(guard);
        Context {
            raw,
            _dev: PhantomData,
            _brand: PhantomData,
            _mode: PhantomData,
        }
    }

    /// The C handle (`aclrtContext`), for interop and diagnostics.
    pub fn as_raw(&self) -> *mut core::ffi::c_void {
        self.raw.as_ptr()
    }

    pub(crate) fn raw(&self) -> Raw {
        self.raw
    }

    /// Make this context current on the calling thread (`aclrtSetCurrentContext`).
    ///
    /// Never needed by safe code (every method does it). Call it before
    /// calling C code of your own that relies on the current context, and
    /// after raw calls that changed it (`aclrtSetCurrentContext`,
    /// `aclrtSetDevice`, ...): the crate remembers per thread which context
    /// it made current and trusts that until its own calls change it.
    #[doc(alias = "aclrtSetCurrentContext")]
    pub fn make_current(&self) -> Result<()> {
        ffi::force_current(self.raw)
    }

    /// Whether this context is the calling thread's current context
    /// (`aclrtGetCurrentContext`, compared with this handle).
    ///
    /// It asks the runtime, not the crate's per-thread memory of what it
    /// made current, so it also sees raw calls (`aclrtSetCurrentContext`,
    /// `aclrtSetDevice`) made behind the crate's back. A thread with no
    /// current context answers `false`. Safe code never needs it (each
    /// call makes its context current); it is for code that mixes in raw C
    /// calls relying on the current context, and for diagnostics.
    ///
    /// ```
    /// # let _sim = aclrt::sim::exclusive();
    /// let acl = aclrt::Acl::init()?;
    /// let device = acl.require::<aclrt::HostMode>()?.device(0)?;
    /// aclrt::make_guard!(a);
    /// aclrt::make_guard!(b);
    /// let first = device.create_context(a)?;
    /// let second = device.create_context(b)?;   // aclrtCreateContext makes it current
    /// assert!(second.is_current()?);
    /// first.make_current()?;
    /// assert!(first.is_current()? && !second.is_current()?);
    /// # Ok::<(), aclrt::Error>(())
    /// ```
    #[doc(alias = "aclrtGetCurrentContext")]
    pub fn is_current(&self) -> Result<bool> {
        Ok(ffi::current_context()? == Some(self.raw))
    }

    /// The id of this context's device (`aclrtGetDevice` with this context current).
    #[doc(alias = "aclrtGetDevice")]
    pub fn device_id(&self) -> Result<u32> {
        ffi::make_current(self.raw)?;
        ffi::current_device().map(|id| id as u32)
    }

    // ------------------------------------------------------------ streams

    /// Create a stream in this context (`aclrtCreateStream`).
    #[doc(alias = "aclrtCreateStream")]
    #[inline]
    pub fn create_stream(&self) -> Result<Stream<'_, 'id>> {
        let raw = ffi::create_stream(self.raw)?;
        Ok(Stream::owned(raw, self.raw))
    }

    /// Create a stream with a priority and flags (`aclrtCreateStreamWithConfig`).
    ///
    /// The priority is a [`StreamPriority`], always in the runtime's range
    /// 0..=7 (smaller is higher; [`StreamPriority::HIGHEST`], 0, is what
    /// [`create_stream`](Self::create_stream) and default streams get), so
    /// the runtime's silent clamp of out-of-range values never applies;
    /// [`Stream::priority`] reads it back. The documentation calls the
    /// priority "reserved"; whether a device schedules by it is not
    /// documented.
    ///
    /// ```
    /// # let _sim = aclrt::sim::exclusive();
    /// use aclrt::{Acl, HostMode, StreamFlags, StreamPriority, make_guard};
    ///
    /// let acl = Acl::init()?;
    /// let device = acl.require::<HostMode>()?.device(0)?;
    /// make_guard!(guard);
    /// let ctx = device.create_context(guard)?;
    /// let low = StreamPriority::new(6).expect("0..=7");
    /// let stream = ctx.create_stream_with_config(low, StreamFlags::NONE)?;
    /// assert_eq!(stream.priority()?, low);
    /// assert_eq!(ctx.create_stream()?.priority()?, StreamPriority::HIGHEST);
    /// # Ok::<(), aclrt::Error>(())
    /// ```
    #[doc(alias = "aclrtCreateStreamWithConfig")]
    pub fn create_stream_with_config(
        &self,
        priority: StreamPriority,
        flags: StreamFlags,
    ) -> Result<Stream<'_, 'id>> {
        let raw = ffi::create_stream_with_config(self.raw, priority.get(), flags.bits())?;
        Ok(Stream::owned(raw, self.raw))
    }

    /// This context's default stream, as a view that cannot be destroyed
    /// (`aclrtCtxGetCurrentDefaultStream`).
    #[doc(alias = "aclrtCtxGetCurrentDefaultStream")]
    pub fn default_stream(&self) -> Result<DefaultStream<'_, 'id>> {
        ffi::make_current(self.raw)?;
        let raw = ffi::current_default_stream()?;
        ffi::live::note_default_stream(self.raw, raw);
        ffi::record::default_made(raw, self.raw);
        Ok(DefaultStream::new(raw, self.raw))
    }

    /// Wait until all work queued in this context has finished: every
    /// stream this crate made in it, one after another
    /// (`aclrtSynchronizeStream`), then its default stream. The first error
    /// is returned. Stream by stream rather than `aclrtSynchronizeDevice`,
    /// so that a failure it takes is known for its stream (the failure rule,
    /// SAFETY.md) and a checked wait on another thread never waits for this
    /// synchronisation of streams that are not its scope's.
    #[doc(alias = "aclrtSynchronizeDevice")]
    pub fn synchronize(&self) -> Result<()> {
        let ticket = ffi::waits::ticket();
        ffi::faults::synchronize_context(self.raw, None)?;
        ffi::waits::synchronized_context_since(self.raw, ticket);
        Ok(())
    }

    /// As [`synchronize`](Self::synchronize), giving up after `timeout` in
    /// all (`aclrtSynchronizeStreamWithTimeout` with what is left of it); a
    /// timeout is an error whose [`kind`](Error::kind) is
    /// [`Timeout`](crate::ErrorKind::Timeout).
    #[doc(alias = "aclrtSynchronizeDeviceWithTimeout")]
    pub fn synchronize_timeout(&self, timeout: core::time::Duration) -> Result<()> {
        let ms = ffi::timeout_ms(timeout)?;
        let ticket = ffi::waits::ticket();
        ffi::faults::synchronize_context(self.raw, Some(ms))?;
        ffi::waits::synchronized_context_since(self.raw, ticket);
        Ok(())
    }

    /// Run `f` in a [`Scope`] in which asynchronous work may borrow buffers,
    /// and synchronise every stream it used before returning — also when `f`
    /// returns an error or panics. See the [`Scope`] docs.
    ///
    /// ```
    /// # let _sim = aclrt::sim::exclusive();
    /// use aclrt::{Acl, HostMode, make_guard};
    /// let acl = Acl::init()?;
    /// let device = acl.require::<HostMode>()?.device(0)?;
    /// make_guard!(g);
    /// let ctx = device.create_context(g)?;
    /// let stream = ctx.create_stream()?;
    /// let input = ctx.alloc_host_from(&[1u32, 2, 3])?;
    /// let mut on_device = ctx.alloc::<u32>(3)?;
    /// let mut output = ctx.alloc_host_zeroed::<u32>(3)?;
    /// ctx.scope(|s| {
    ///     make_guard!(l);
    ///     let lane = s.lane(&stream, l);
    ///     let d = lane.copy(&input, &mut on_device)?;       // aclrtMemcpyAsync H2D
    ///     let out = lane.copy(&d, &mut output)?;            // aclrtMemcpyAsync D2H
    ///     let out = out.wait()?;                            // synchronise, get it back
    ///     assert_eq!(out.as_slice(), [1, 2, 3]);
    ///     Ok(())
    /// })?;
    /// # Ok::<(), aclrt::Error>(())
    /// ```
    ///
    /// # Host functions
    /// A scope cannot be opened inside a host function (it would wait for
    /// streams from the runtime's callback thread): that returns
    /// [`Error::InCallback`].
    pub fn scope<'env, R, F>(&self, f: F) -> Result<R>
    where
        'id: 'env,
        F: for<'scope> FnOnce(&'scope Scope<'scope, 'env, 'id, M>) -> Result<R>,
    {
        scope::run(self.raw, None, f)
    }

    /// [`scope`](Self::scope) with a deadline for its end, for integrators
    /// with watchdogs: the closure's work must be finished `timeout` after
    /// the scope opened.
    ///
    /// If a stream of the scope is not idle by then, the scope stops the
    /// work instead of waiting: it aborts every stream of the scope
    /// (`aclrtStreamAbort`: the running task stops, queued tasks are
    /// discarded), so the memory the scope borrowed is provably unused, and
    /// returns [`Error::ScopeTimeout`] saying which [`Escalation`](crate::Escalation) step did
    /// it. Discarded host functions are dropped without running. Where an
    /// abort fails, that stream is synchronised without a limit (the deadline
    /// is missed rather than memory handed back early); only if that fails
    /// too does the process abort. The streams stay usable afterwards.
    ///
    /// ```
    /// # let _sim = aclrt::sim::exclusive();
    /// use std::time::Duration;
    /// use aclrt::{Acl, Error, Escalation, HostMode, make_guard};
    /// let acl = Acl::init()?;
    /// let device = acl.require::<HostMode>()?.device(0)?;
    /// make_guard!(g);
    /// let ctx = device.create_context(g)?;
    /// let stream = ctx.create_stream()?;
    /// let mut on_device = ctx.alloc::<u8>(1024)?;
    /// // A stream that takes far too long (the simulator delays each task).
    /// aclrt::sim::set_stream_delay(stream.as_raw(), Duration::from_secs(5));
    /// let result = ctx.scope_with_timeout(Duration::from_millis(50), |s| {
    ///     make_guard!(l);
    ///     let lane = s.lane(&stream, l);
    ///     let _ = lane.memset(&mut on_device, 0)?;
    ///     Ok(())
    /// });
    /// assert!(matches!(
    ///     result,
    ///     Err(Error::ScopeTimeout { escalation: Escalation::StreamAbort, .. })
    /// ));
    /// # aclrt::sim::clear_faults();
    /// # Ok::<(), aclrt::Error>(())
    /// ```
    #[doc(alias = "aclrtStreamAbort")]
    #[doc(alias = "aclrtSynchronizeStreamWithTimeout")]
    pub fn scope_with_timeout<'env, R, F>(&self, timeout: core::time::Duration, f: F) -> Result<R>
    where
        'id: 'env,
        F: for<'scope> FnOnce(&'scope Scope<'scope, 'env, 'id, M>) -> Result<R>,
    {
        scope::run(self.raw, Some(timeout), f)
    }

    /// [`scope`](Self::scope) whose closure returns the caller's error type
    /// `E`: `?` works on the application's own errors inside the scope, and
    /// on aclrt's (`E: From<aclrt::Error>`). The scope's own errors (of its
    /// final synchronisation) are converted with `E::from`. Annotate the
    /// closure's return type (`|s| -> Result<_, MyError> { … }`), since
    /// Rust cannot infer `E` from `?` alone.
    ///
    /// ```
    /// # let _sim = aclrt::sim::exclusive();
    /// # use aclrt::{Acl, HostMode, make_guard};
    /// #[derive(Debug)]
    /// enum AppError {
    ///     Npu(aclrt::Error),
    ///     BadInput(&'static str),
    /// }
    /// impl From<aclrt::Error> for AppError {
    ///     fn from(e: aclrt::Error) -> Self {
    ///         AppError::Npu(e)
    ///     }
    /// }
    /// fn check(v: &[u8]) -> Result<(), AppError> {
    ///     if v.is_empty() { Err(AppError::BadInput("empty")) } else { Ok(()) }
    /// }
    /// # let acl = Acl::init()?;
    /// # let device = acl.require::<HostMode>()?.device(0)?;
    /// # make_guard!(g);
    /// # let ctx = device.create_context(g)?;
    /// let stream = ctx.create_stream()?;
    /// let mut on_device = ctx.alloc::<u8>(16)?;
    /// let r = ctx.try_scope(|s| -> Result<(), AppError> {
    ///     make_guard!(l);
    ///     let lane = s.lane(&stream, l);
    ///     lane.memset(&mut on_device, 1)?; // aclrt::Error → AppError
    ///     check(&[])?;                     // the application's own error
    ///     Ok(())
    /// });
    /// assert!(matches!(r, Err(AppError::BadInput("empty"))));
    /// # Ok::<(), aclrt::Error>(())
    /// ```
    pub fn try_scope<'env, R, E, F>(&self, f: F) -> core::result::Result<R, E>
    where
        'id: 'env,
        E: From<Error>,
        F: for<'scope> FnOnce(&'scope Scope<'scope, 'env, 'id, M>) -> core::result::Result<R, E>,
    {
        scope::run(self.raw, None, f)
    }

    /// [`try_scope`](Self::try_scope) with a deadline, as
    /// [`scope_with_timeout`](Self::scope_with_timeout): a missed deadline is
    /// `E::from(Error::ScopeTimeout { .. })`.
    #[doc(alias = "aclrtStreamAbort")]
    pub fn try_scope_with_timeout<'env, R, E, F>(
        &self,
        timeout: core::time::Duration,
        f: F,
    ) -> core::result::Result<R, E>
    where
        'id: 'env,
        E: From<Error>,
        F: for<'scope> FnOnce(&'scope Scope<'scope, 'env, 'id, M>) -> core::result::Result<R, E>,
    {
        scope::run(self.raw, Some(timeout), f)
    }

    // ------------------------------------------------------------ memory

    /// Allocate device memory for `len` elements (`aclrtMalloc`, policy
    /// `HUGE_FIRST`). Its contents are unspecified.
    ///
    /// Errors: [`Error::InvalidAllocationSize`] for zero bytes or overflow; an
    /// out-of-memory error of the runtime.
    #[doc(alias = "aclrtMalloc")]
    pub fn alloc<T: DeviceRepr>(&self, len: usize) -> Result<DeviceBuffer<'_, 'id, T>> {
        self.alloc_with_policy(len, MallocPolicy::HugeFirst)
    }

    /// Allocate device memory with a page policy (`aclrtMalloc`).
    #[doc(alias = "aclrtMalloc")]
    pub fn alloc_with_policy<T: DeviceRepr>(
        &self,
        len: usize,
        policy: MallocPolicy,
    ) -> Result<DeviceBuffer<'_, 'id, T>> {
        let bytes = byte_size::<T>(len)?;
        ffi::make_current(self.raw)?;
        Ok(DeviceBuffer::from_alloc(DeviceAlloc::new(
            self.raw,
            bytes,
            policy.to_raw(),
        )?))
    }

    /// Allocate device memory and set every byte to zero (`aclrtMalloc`, `aclrtMemset`).
    pub fn alloc_zeroed<T: DeviceRepr>(&self, len: usize) -> Result<DeviceBuffer<'_, 'id, T>> {
        let mut buf = self.alloc(len)?;
        self.memset(&mut buf, 0)?;
        Ok(buf)
    }

    /// Allocate device memory holding a copy of `src` (`aclrtMalloc`, `aclrtMemcpy`).
    pub fn alloc_from<T: DeviceRepr>(&self, src: &[T]) -> Result<DeviceBuffer<'_, 'id, T>> {
        let mut buf = self.alloc(src.len())?;
        self.copy(src, &mut buf)?;
        Ok(buf)
    }

    /// Allocate host memory (`aclrtMallocHost`) that must be initialised
    /// before it can be read.
    #[doc(alias = "aclrtMallocHost")]
    pub fn alloc_host_uninit<T: DeviceRepr>(
        &self,
        len: usize,
    ) -> Result<HostBufferUninit<'_, 'id, T, M>> {
        let bytes = byte_size::<T>(len)?;
        ffi::make_current(self.raw)?;
        let alloc = ffi::mem::HostAllocUninit::new(self.raw, bytes, core::mem::align_of::<T>())?;
        Ok(HostBufferUninit::from_alloc(alloc))
    }

    /// Allocate zeroed host memory (`aclrtMallocHost`).
    #[doc(alias = "aclrtMallocHost")]
    pub fn alloc_host_zeroed<T: DeviceRepr>(
        &self,
        len: usize,
    ) -> Result<HostBuffer<'_, 'id, T, M>> {
        Ok(self.alloc_host_uninit(len)?.zeroed())
    }

    /// Allocate host memory holding a copy of `src` (`aclrtMallocHost`).
    #[doc(alias = "aclrtMallocHost")]
    pub fn alloc_host_from<T: DeviceRepr>(&self, src: &[T]) -> Result<HostBuffer<'_, 'id, T, M>> {
        self.alloc_host_uninit(src.len())?.init_from(src)
    }

    // ------------------------------------------------------------ copies

    /// Copy all of `src` into `dst` (`aclrtMemcpy`), synchronously.
    ///
    /// Works in both run modes; the memcpy kind is computed at compile time
    /// from the run mode and the residency of both types. Both must belong to
    /// this context (or be pageable host memory) and have the same element
    /// type and length ([`Error::LengthMismatch`] otherwise).
    ///
    /// ```
    /// # let _sim = aclrt::sim::exclusive();
    /// let acl = aclrt::Acl::init()?;
    /// let device = acl.require::<aclrt::HostMode>()?.device(0)?;
    /// aclrt::make_guard!(guard);
    /// let ctx = device.create_context(guard)?;
    /// let mut on_device = ctx.alloc::<u32>(4)?;
    /// ctx.copy(&[1u32, 2, 3, 4], &mut on_device)?;    // host-to-device
    /// let mut back = vec![0u32; 4];
    /// ctx.copy(&on_device, &mut back)?;                // device-to-host
    /// assert_eq!(back, [1, 2, 3, 4]);
    /// # Ok::<(), aclrt::Error>(())
    /// ```
    #[doc(alias = "aclrtMemcpy")]
    #[inline]
    pub fn copy<S, D>(&self, src: &S, dst: &mut D) -> Result<()>
    where
        S: Memory<'id> + ?Sized,
        D: MemoryMut<'id, Elem = S::Elem> + ?Sized,
    {
        let kind = const { memcpy_kind::<M, S::Place, D::Place>() };
        check_len(src.len(), dst.len())?;
        ffi::make_current(self.raw)?;
        ffi::mem::memcpy(dst.raw_mut(), src.raw(), kind)
    }

    /// Copy host memory to device memory (`aclrtMemcpy`,
    /// `ACL_MEMCPY_HOST_TO_DEVICE`). Exists only in host run mode.
    #[doc(alias = "aclrtMemcpy")]
    pub fn upload<S, D>(&self, src: &S, dst: &mut D) -> Result<()>
    where
        M: HostRunMode,
        S: HostMemory<'id> + ?Sized,
        D: DeviceMemory<'id> + MemoryMut<'id, Elem = S::Elem> + ?Sized,
    {
        self.copy(src, dst)
    }

    /// Copy device memory to host memory (`aclrtMemcpy`,
    /// `ACL_MEMCPY_DEVICE_TO_HOST`). Exists only in host run mode.
    #[doc(alias = "aclrtMemcpy")]
    pub fn download<S, D>(&self, src: &S, dst: &mut D) -> Result<()>
    where
        M: HostRunMode,
        S: DeviceMemory<'id> + ?Sized,
        D: HostMemory<'id> + MemoryMut<'id, Elem = S::Elem> + ?Sized,
    {
        self.copy(src, dst)
    }

    /// Copy device memory to device memory of this context (`aclrtMemcpy`,
    /// `ACL_MEMCPY_DEVICE_TO_DEVICE`).
    ///
    /// Both sides must be [`DeviceResident`](crate::bounds::DeviceResident)
    /// in run mode `M`: device memory (buffers and their views) always; in
    /// [`DeviceMode`](crate::DeviceMode) also pinned memory from
    /// `aclrtMallocHost` ([`HostBuffer`]), which is device memory there.
    ///
    /// ```
    /// # let _sim = aclrt::sim::exclusive();
    /// # aclrt::sim::configure(aclrt::sim::SimConfig {
    /// #     run_mode: aclrt::sim::RunMode::Device, ..Default::default() });
    /// use aclrt::{Acl, DeviceMode, make_guard};
    /// let acl = Acl::init()?;
    /// let device = acl.require::<DeviceMode>()?.device(0)?;
    /// make_guard!(g);
    /// let ctx = device.create_context(g)?;
    /// let staged = ctx.alloc_host_from(&[1u8, 2, 3])?;   // aclrtMallocHost: device memory here
    /// let mut on_device = ctx.alloc::<u8>(3)?;
    /// ctx.copy_on_device(&staged, &mut on_device)?;      // ACL_MEMCPY_DEVICE_TO_DEVICE
    /// # Ok::<(), aclrt::Error>(())
    /// ```
    #[doc(alias = "aclrtMemcpy")]
    pub fn copy_on_device<S, D>(&self, src: &S, dst: &mut D) -> Result<()>
    where
        S: crate::memory::DeviceResident<'id, M> + ?Sized,
        D: crate::memory::DeviceResident<'id, M> + MemoryMut<'id, Elem = S::Elem> + ?Sized,
    {
        self.copy(src, dst)
    }

    /// Initialise `dst` by copying all of `src` into it (`aclrtMemcpy`).
    /// On error the uninitialised memory is freed.
    #[doc(alias = "aclrtMemcpy")]
    pub fn copy_into_uninit<'b, S>(
        &self,
        src: &S,
        dst: HostBufferUninit<'b, 'id, S::Elem, M>,
    ) -> Result<HostBuffer<'b, 'id, S::Elem, M>>
    where
        S: Memory<'id> + ?Sized,
    {
        let kind = const { memcpy_kind::<M, S::Place, crate::memory::OnHost>() };
        check_len(src.len(), dst.len())?;
        ffi::make_current(self.raw)?;
        dst.copy_init(src.raw(), kind)
    }

    /// Set every byte of `dst` to `byte` (`aclrtMemset`), synchronously.
    ///
    /// Only runtime memory (device or pinned host memory): `aclrtMemset` on
    /// host memory the runtime did not allocate is undefined behaviour, so
    /// pageable memory (`Vec`, slices) is refused at compile time — fill it
    /// with `slice.fill(..)`.
    #[doc(alias = "aclrtMemset")]
    #[inline]
    pub fn memset<D>(&self, dst: &mut D, byte: u8) -> Result<()>
    where
        D: RuntimeMemory<'id> + MemoryMut<'id> + ?Sized,
    {
        ffi::make_current(self.raw)?;
        ffi::mem::memset(dst.raw_mut(), byte)
    }

    /// Destroy the context now (`aclrtDestroyContext`), reporting the
    /// runtime's error.
    ///
    /// Takes `self`: the compiler refuses while a stream, buffer or event of
    /// this context lives.
    #[doc(alias = "aclrtDestroyContext")]
    pub fn destroy(self) -> Result<()> {
        let this = ManuallyDrop::new(self);
        ffi::destroy_context(this.raw)
    }

    // ------------------------------------------------------------ events

    /// Create a timing event (`aclrtCreateEvent`).
    #[doc(alias = "aclrtCreateEvent")]
    pub fn create_event(&self) -> Result<Event<'_, 'id, Timing, Unrecorded>> {
        self.create_event_of::<Timing>()
    }

    /// Create an event of kind `K`: `aclrtCreateEvent` for [`Timing`],
    /// `aclrtCreateEventWithFlag(ACL_EVENT_SYNC)` for [`SyncOnly`](crate::SyncOnly),
    /// `aclrtCreateEventExWithFlag(K::FLAG)` for the `Ex*` kinds
    /// ([`ExSync`](crate::ExSync), [`ExTimeLine`](crate::ExTimeLine),
    /// [`ExProgress`](crate::ExProgress), …). The kind decides at compile time
    /// what the event can do; the table in [`Event`]'s module docs lists it.
    ///
    /// ```
    /// # let _sim = aclrt::sim::exclusive();
    /// use aclrt::{Acl, ExProgress, HostMode, make_guard};
    ///
    /// let acl = Acl::init()?;
    /// let device = acl.require::<HostMode>()?.device(0)?;
    /// make_guard!(guard);
    /// let ctx = device.create_context(guard)?;
    /// let stream = ctx.create_stream()?;
    /// // aclrtCreateEventExWithFlag(&event, ACL_EVENT_CAPTURE_STREAM_PROGRESS)
    /// let progress = ctx.create_event_of::<ExProgress>()?;
    /// let progress = stream.record(progress)?;
    /// progress.synchronize()?;
    /// assert!(progress.is_complete()?);
    /// # Ok::<(), aclrt::Error>(())
    /// ```
    #[doc(alias = "aclrtCreateEventWithFlag")]
    #[doc(alias = "aclrtCreateEventExWithFlag")]
    pub fn create_event_of<K: EventKind>(&self) -> Result<Event<'_, 'id, K, Unrecorded>> {
        ffi::make_current(self.raw())?;
        let raw = if K::EX {
            ffi::create_event_ex_with_flag(self.raw(), K::FLAG)?
        } else if K::FLAG == 0 {
            ffi::create_event(self.raw())?
        } else {
            ffi::create_event_with_flag(self.raw(), K::FLAG)?
        };
        Ok(Event::from_raw(raw))
    }

    /// How many more events this context's device can create (`aclrtGetEventAvailNum`).
    #[doc(alias = "aclrtGetEventAvailNum")]
    pub fn events_available(&self) -> Result<u32> {
        ffi::make_current(self.raw())?;
        ffi::event_available()
    }
}

impl<M: RunMode> Drop for Context<'_, '_, M> {
    fn drop(&mut self) {
        // Drop cannot report; `destroy` does.
        let _ = ffi::destroy_context(self.raw);
    }
}

pub(crate) fn check_len(src: usize, dst: usize) -> Result<()> {
    if src == dst {
        Ok(())
    } else {
        Err(Error::LengthMismatch { src, dst })
    }
}

/// The default context of a device, as a view: everything a [`Context`] can
/// do (through `Deref`) except being destroyed.
///
/// There is no way to destroy it from Rust: its [`destroy`](Self::destroy)
/// cannot be called (it is bound by [`Destroyable`], a trait with no
/// implementation, so that the compiler says why), its `Drop` does nothing,
/// and `Deref` only lends `&Context`. It is released when the device is
/// reset.
pub struct DefaultContext<'dev, 'id, M: RunMode> {
    inner: ManuallyDrop<Context<'dev, 'id, M>>,
}

impl<'dev, 'id, M: RunMode> DefaultContext<'dev, 'id, M> {
    pub(crate) fn new(raw: Raw, guard: Guard<'id>) -> Self {
        DefaultContext {
            inner: ManuallyDrop::new(Context::owned(raw, guard)),
        }
    }

    /// Not callable: the default context cannot be destroyed
    /// (`aclrtDestroyContext` refuses it); `Device::reset` releases it. This
    /// method exists only so that the compiler explains that.
    pub fn destroy(self) -> Result<()>
    where
        Self: Destroyable,
    {
        unreachable!("Destroyable has no implementation")
    }
}

impl<'dev, 'id, M: RunMode> Deref for DefaultContext<'dev, 'id, M> {
    type Target = Context<'dev, 'id, M>;
    fn deref(&self) -> &Context<'dev, 'id, M> {
        &self.inner
    }
}

impl<M: RunMode> core::fmt::Debug for DefaultContext<'_, '_, M> {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_tuple("DefaultContext").field(&*self.inner).finish()
    }
}
