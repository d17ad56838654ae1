//! Compute on a stream: device binaries ([`Binary`]), typed kernels
//! ([`Kernel`]), safe launches ([`Lane::launch`]), hand-built argument lists
//! ([`KernelArgs`]) and work of other libraries ([`Lane::foreign`]).
//!
//! * [`Context::load_binary`] (`aclrtBinaryLoadFromData`) and
//!   [`Context::load_binary_file`] (`aclrtBinaryLoadFromFile`) give a
//!   [`Binary`] that borrows its context and carries its brand `'id`; it is
//!   unloaded (`aclrtBinaryUnLoad`) on drop or by [`Binary::unload`].
//! * [`Binary::kernel`] looks a kernel up (`aclrtBinaryGetFunction`, with
//!   the binary's context current, so the code lands on that context's
//!   device) and **declares its signature**: a tuple of markers
//!   ([`In`], [`Out`], [`InOut`], [`Scalar`], [`Count`]). That declaration
//!   is the single `unsafe` step: the caller asserts what the device code
//!   reads and writes.
//! * [`Lane::launch`] is safe and checked like a copy: buffers are device
//!   memory of the lane's context, borrowed for the rest of the scope (read
//!   arguments shared, written ones exclusively, coming back as
//!   [`InFlight`]s of the lane), scalars by value ([`DeviceRepr`] only),
//!   element types as declared, a [`Count`] no larger than any buffer. It
//!   packs the arguments with `aclrtKernelArgsInit/Append/Finalize` and
//!   queues `aclrtLaunchKernelWithConfig`.
//!
//! ```
//! # let _sim = aclrt::sim::exclusive();
//! use aclrt::kernel::{Count, In, Out};
//! use aclrt::{Acl, make_guard};
//!
//! // The simulator's stand-in for device code (see `aclrt::sim::register_kernel`).
//! aclrt::sim::register_kernel("doc_add", |block, blocks, args| {
//!     let (a, b, c, n) = (args.u64(0)?, args.u64(1)?, args.u64(2)?, args.u64(3)?);
//!     for i in (block as usize..n as usize).step_by(blocks as usize) {
//!         args.write_f32(c, i, args.read_f32(a, i)? + args.read_f32(b, i)?)?;
//!     }
//!     Ok(())
//! });
//!
//! let acl = Acl::init()?;
//! let rt = acl.require::<aclrt::HostMode>()?;
//! let device = rt.device(0)?;
//! make_guard!(g);
//! let ctx = device.create_context(g)?;
//! let stream = ctx.create_stream()?;
//! let binary = ctx.load_binary(&aclrt::sim::binary_image(&["doc_add"]))?;
//! // SAFETY: doc_add reads a and b, writes c, each below n.
//! let add = unsafe { binary.kernel::<(In<f32>, In<f32>, Out<f32>, Count)>(c"doc_add")? };
//!
//! let a = ctx.alloc_from(&[1.0f32, 2.0, 3.0])?;
//! let b = ctx.alloc_from(&[10.0f32, 20.0, 30.0])?;
//! let mut c = ctx.alloc::<f32>(3)?;
//! let mut out = ctx.alloc_host_zeroed::<f32>(3)?;
//! ctx.scope(|s| {
//!     make_guard!(l);
//!     let lane = s.lane(&stream, l);
//!     let (_, _, c, _) = lane.launch(&add, 2, (&a, &b, &mut c, 3))?;
//!     lane.copy(&c, &mut out)?;
//!     Ok(())
//! })?;
//! assert_eq!(&out[..], &[11.0, 22.0, 33.0]);
//! # Ok::<(), aclrt::Error>(())
//! ```
//!
//! # Where the memory must lie
//! `In`, `Out` and `InOut` arguments must be memory the device can address:
//! [`DeviceBuffer`](crate::DeviceBuffer)s and their views in every run mode,
//! and in device run mode ([`DeviceMode`]) also
//! [`HostBuffer`](crate::HostBuffer)s, whose memory from `aclrtMallocHost`
//! *is* device memory there. In host run mode a `HostBuffer` is pinned host
//! memory, which device code cannot read: a compile error
//! ([`KernelPlace`]).
//!
//! # The argument list is per thread
//! The runtime keeps **one** argument list per thread and
//! `aclrtKernelArgsInit` re-initialises it (acl-facts K.6). A typed launch
//! builds and stages its list within the call; a [`KernelArgs`] builder
//! holds the thread's list for its whole life, is `!Send`, and while it
//! lives every other launch or builder **on that thread** fails with
//! [`Error::KernelArgsBusy`](crate::Error::KernelArgsBusy). Host functions
//! run on the runtime's thread, which has its own list.
//!
//! # Unloading
//! A launch needs its [`Kernel`] borrowed for the whole scope, and a kernel
//! borrows its [`Binary`]; scopes synchronise every lane before they return.
//! So whenever a binary can be unloaded (dropped, or [`Binary::unload`]),
//! no launch of it is pending — `aclrtBinaryUnLoad` itself does not wait
//! (K.5).
//!
//! # Real device binaries (the `system` backend)
//! The `system` backend declares and links the same functions; it is not
//! tested on hardware here. What this module assumes about a real binary:
//! * it is an AI Core / Vector Core object produced by the Ascend C toolchain
//!   for the **same SoC** as the device (K.3), loaded from file (the docs pair
//!   `aclrtBinaryLoadFromFile` with `aclrtLaunchKernelWithConfig`), or from
//!   memory with an explicit [`BinaryMagic`];
//! * its kernels take their parameters as the runtime appends them: each
//!   buffer as an 8-byte device address (`GM_ADDR`), each scalar by value,
//!   each 8-byte aligned, in declaration order, with the runtime's hidden
//!   system slots in front (added by `aclrtKernelArgsInit`);
//! * the declared signature matches the kernel's C++ signature and the
//!   kernel honours it (the `# Safety` of [`Binary::kernel`]) — nothing on
//!   the host can check that;
//! * AI CPU kernels (`CPU_KERNEL_MODE`, `aclrtRegisterCpuFunc`) are not
//!   supported by this API.
//!
//! # Design notes
//! Deliberately *not* encoded: the kernel's arity and types are not read
//! from the binary (they are declared); the block count is a run-time value
//! (0 is the runtime's error); `aclrtLaunchKernel` with a device-side
//! argument block is not offered (the block would have to outlive the
//! kernel; the args-handle path stages the arguments during the call);
//! `aclrtKernelArgsParaUpdate` is not bound.

use core::ffi::CStr;
use core::marker::PhantomData;

use aclrt_sys as sys;
use generativity::Id;

use crate::context::Context;
use crate::error::Result;
use crate::ffi::kernel::{self as fk, ArgsClaim, RawArgs, Staged};
use crate::ffi::protocol::failure::Origin;
use crate::ffi::scope::LaneCore;
use crate::ffi::{HandleOwner, Raw};
use crate::memory::{DeviceRepr, Memory, OnDevice, OnHost, Place};
use crate::mode::{DeviceMode, RunMode};
use crate::scope::{AsyncDest, AsyncSource, InFlight, Lane};

// ------------------------------------------------------------ binaries ---

/// The magic number of a binary loaded from memory
/// (`ACL_RT_BINARY_LOAD_OPT_MAGIC`): which cores its kernels run on.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum BinaryMagic {
    /// `ACL_RT_BINARY_MAGIC_ELF_AICORE`.
    AiCore,
    /// `ACL_RT_BINARY_MAGIC_ELF_VECTOR_CORE`.
    VectorCore,
    /// `ACL_RT_BINARY_MAGIC_ELF_CUBE_CORE`.
    CubeCore,
}

impl BinaryMagic {
    fn value(self) -> u32 {
        (match self {
            BinaryMagic::AiCore => sys::ACL_RT_BINARY_MAGIC_ELF_AICORE,
            BinaryMagic::VectorCore => sys::ACL_RT_BINARY_MAGIC_ELF_VECTOR_CORE,
            BinaryMagic::CubeCore => sys::ACL_RT_BINARY_MAGIC_ELF_CUBE_CORE,
        }) as u32
    }
}

/// Options of a binary load (`aclrtBinaryLoadOptions`), as plain data.
///
/// The default passes no options (NULL): the code is copied to the device
/// at the first kernel lookup, the magic comes from the image or the SoC.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct LoadOptions {
    /// `ACL_RT_BINARY_LOAD_OPT_LAZY_LOAD`: defer copying the code further.
    pub lazy: Option<bool>,
    /// `ACL_RT_BINARY_LOAD_OPT_MAGIC` (loads from memory only; a file load
    /// with a magic is the runtime's error 107000).
    pub magic: Option<BinaryMagic>,
}

impl LoadOptions {
    fn to_c(self) -> Vec<sys::aclrtBinaryLoadOption> {
        let mut v = Vec::new();
        if let Some(lazy) = self.lazy {
            v.push(sys::aclrtBinaryLoadOption {
                type_: sys::ACL_RT_BINARY_LOAD_OPT_LAZY_LOAD,
                value: sys::aclrtBinaryLoadOptionValue {
                    isLazyLoad: u32::from(lazy),
                },
            });
        }
        if let Some(m) = self.magic {
            v.push(sys::aclrtBinaryLoadOption {
                type_: sys::ACL_RT_BINARY_LOAD_OPT_MAGIC,
                value: sys::aclrtBinaryLoadOptionValue { magic: m.value() },
            });
        }
        v
    }
}

/// A loaded device binary, borrowed from its context (`'ctx`) and branded
/// `'id`: its kernels launch only on lanes of that context.
///
/// Unloaded (`aclrtBinaryUnLoad`) on drop, or by [`unload`](Self::unload),
/// which reports errors; never while a launch of it is pending (module
/// docs). `Send` and `Sync`: binaries are process-wide runtime objects and
/// lookups are thread-safe (acl-facts K.5).
#[doc(alias = "aclrtBinHandle")]
pub struct Binary<'ctx, 'id> {
    raw: Raw,
    ctx: Raw,
    /// Unique among the binaries of the process (a handle may be reused
    /// after an unload; this is not): what a [`KernelRef`] is checked
    /// against.
    serial: u64,
    _ctx: PhantomData<&'ctx ()>,
    _brand: PhantomData<Id<'id>>,
}

impl core::fmt::Debug for Binary<'_, '_> {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("Binary")
            .field("handle", &self.raw.as_ptr())
            .finish()
    }
}

impl<'dev, 'id, M: RunMode> Context<'dev, 'id, M> {
    /// Load a device binary from memory (`aclrtBinaryLoadFromData`, no
    /// options). The runtime copies `image`.
    #[doc(alias = "aclrtBinaryLoadFromData")]
    pub fn load_binary(&self, image: &[u8]) -> Result<Binary<'_, 'id>> {
        self.load_binary_with(image, LoadOptions::default())
    }

    /// Load a device binary from memory with `options`.
    #[doc(alias = "aclrtBinaryLoadFromData")]
    pub fn load_binary_with(&self, image: &[u8], options: LoadOptions) -> Result<Binary<'_, 'id>> {
        let raw = fk::load_from_data(self.raw(), image, &options.to_c())?;
        Ok(Binary::new(raw, self.raw()))
    }

    /// Load a device binary from a file (`aclrtBinaryLoadFromFile`); a
    /// missing file is the runtime's error 107000.
    #[doc(alias = "aclrtBinaryLoadFromFile")]
    pub fn load_binary_file(&self, path: &CStr) -> Result<Binary<'_, 'id>> {
        self.load_binary_file_with(path, LoadOptions::default())
    }

    /// Load a device binary from a file with `options`.
    #[doc(alias = "aclrtBinaryLoadFromFile")]
    pub fn load_binary_file_with(
        &self,
        path: &CStr,
        options: LoadOptions,
    ) -> Result<Binary<'_, 'id>> {
        let raw = fk::load_from_file(self.raw(), path, &options.to_c())?;
        Ok(Binary::new(raw, self.raw()))
    }
}

impl<'ctx, 'id> Binary<'ctx, 'id> {
    fn new(raw: Raw, ctx: Raw) -> Self {
        static SERIAL: core::sync::atomic::AtomicU64 = core::sync::atomic::AtomicU64::new(1);
        Binary {
            raw,
            ctx,
            serial: SERIAL.fetch_add(1, core::sync::atomic::Ordering::Relaxed),
            _ctx: PhantomData,
            _brand: PhantomData,
        }
    }

    pub(crate) fn handle(&self) -> Raw {
        self.raw
    }

    pub(crate) fn context(&self) -> Raw {
        self.ctx
    }

    pub(crate) fn serial(&self) -> u64 {
        self.serial
    }

    /// The C handle (`aclrtBinHandle`), for diagnostics and interop.
    pub fn as_raw(&self) -> *mut core::ffi::c_void {
        self.raw.as_ptr()
    }

    /// Unload the binary (`aclrtBinaryUnLoad`, with its context current),
    /// reporting the runtime's error. No kernel of it can be borrowed any
    /// more, so no launch of it is pending.
    #[doc(alias = "aclrtBinaryUnLoad")]
    pub fn unload(self) -> Result<()> {
        let this = core::mem::ManuallyDrop::new(self);
        fk::unload(this.ctx, this.raw)
    }
}

impl Drop for Binary<'_, '_> {
    fn drop(&mut self) {
        let _ = fk::unload(self.ctx, self.raw);
    }
}

// ------------------------------------------------------------- kernels ---

mod sealed {
    pub trait Param {}
    pub trait Params {}
    pub trait Stage {}
    pub trait KernelMemory {}
}

/// A buffer parameter the kernel only reads (`const T*` / `GM_ADDR`).
#[derive(Debug)]
pub struct In<T>(PhantomData<fn() -> T>);
/// A buffer parameter the kernel only writes.
#[derive(Debug)]
pub struct Out<T>(PhantomData<fn() -> T>);
/// A buffer parameter the kernel reads and writes.
#[derive(Debug)]
pub struct InOut<T>(PhantomData<fn() -> T>);
/// A scalar parameter passed by value; it must not decide which memory the
/// kernel touches (use [`Count`] for that).
#[derive(Debug)]
pub struct Scalar<T>(PhantomData<fn() -> T>);
/// An element count (`uint64_t` on the device, `usize` at the launch): the
/// launch checks it is no larger than any buffer argument, and the kernel
/// touches no element at or past it.
#[derive(Debug)]
pub struct Count;

impl<T: DeviceRepr> sealed::Param for In<T> {}
impl<T: DeviceRepr> sealed::Param for Out<T> {}
impl<T: DeviceRepr> sealed::Param for InOut<T> {}
impl<T: DeviceRepr> sealed::Param for Scalar<T> {}
impl sealed::Param for Count {}

/// One declared kernel parameter: [`In`], [`Out`], [`InOut`], [`Scalar`]
/// or [`Count`], each of a [`DeviceRepr`] element type. Sealed.
#[diagnostic::on_unimplemented(
    message = "`{Self}` is not a kernel parameter",
    label = "not a kernel parameter marker",
    note = "parameters are `In<T>`, `Out<T>`, `InOut<T>`, `Scalar<T>` (each with `T: DeviceRepr`: plain data, no pointers or references) and `Count`"
)]
pub trait Param: sealed::Param {}
impl<T: sealed::Param> Param for T {}

/// A kernel's declared parameter list: a tuple of [`Param`] markers (up to
/// 12). Sealed.
#[diagnostic::on_unimplemented(
    message = "`{Self}` is not a kernel signature",
    label = "declare the parameters as a tuple of markers",
    note = "a signature is a tuple of `In<T>`, `Out<T>`, `InOut<T>`, `Scalar<T>` and `Count`, e.g. `(In<f32>, In<f32>, Out<f32>, Count)`; one parameter is `(Out<f32>,)`"
)]
pub trait KernelParams: sealed::Params {}

/// A kernel of a [`Binary`] (`aclrtFuncHandle`) with its declared
/// signature `P`; borrows the binary (`'bin`), branded `'id`.
///
/// `Send` and `Sync` (a func handle is a process-wide object); launches
/// happen on lanes, which stay on their thread.
#[doc(alias = "aclrtFuncHandle")]
pub struct Kernel<'bin, 'id, P> {
    func: Raw,
    ctx: Raw,
    _bin: PhantomData<&'bin ()>,
    _brand: PhantomData<Id<'id>>,
    _sig: PhantomData<fn() -> P>,
}

impl<P> core::fmt::Debug for Kernel<'_, '_, P> {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("Kernel")
            .field("handle", &self.func.as_ptr())
            .field("signature", &core::any::type_name::<P>())
            .finish()
    }
}

impl<'bin, 'id, P> Kernel<'bin, 'id, P> {
    pub(crate) fn new(func: Raw, ctx: Raw) -> Self {
        Kernel {
            func,
            ctx,
            _bin: PhantomData,
            _brand: PhantomData,
            _sig: PhantomData,
        }
    }

    pub(crate) fn func(&self) -> Raw {
        self.func
    }

    pub(crate) fn context(&self) -> Raw {
        self.ctx
    }

    /// The C handle (`aclrtFuncHandle`), for diagnostics and interop.
    pub fn as_raw(&self) -> *mut core::ffi::c_void {
        self.func.as_ptr()
    }
}

/// A kernel of a [`Binary`] looked up with [`Binary::kernel_ref`], with its
/// declared signature `P`, branded `'id` but **not** borrowing the binary:
/// a `Binary` and its `KernelRef`s fit in one struct (a [`Kernel`] borrows
/// its binary, so it cannot sit next to it).
///
/// It launches with [`Lane::launch_in`], which borrows the binary for the
/// scope and checks that the reference was looked up in that very binary
/// ([`Error::ForeignKernel`](crate::Error::ForeignKernel) otherwise): the
/// binary cannot be unloaded while a launch of it is pending, and a
/// reference that outlived its binary is refused, never launched. `Copy`,
/// `Send` and `Sync`.
///
/// ```
/// # let _sim = aclrt::sim::exclusive();
/// use aclrt::kernel::{Binary, Count, In, KernelRef, Out};
/// use aclrt::{Context, HostMode};
///
/// struct Model<'ctx, 'id> {
///     binary: Binary<'ctx, 'id>,
///     copy: KernelRef<'id, (In<f32>, Out<f32>, Count)>,
/// }
///
/// # let acl = aclrt::Acl::init()?;
/// # let device = acl.require::<HostMode>()?.device(0)?;
/// # aclrt::make_guard!(guard);
/// # let ctx = device.create_context(guard)?;
/// aclrt::sim::register_kernel("doc_copy_f32", |block, blocks, args| {
///     let (x, y, n) = (args.u64(0)?, args.u64(1)?, args.u64(2)?);
///     for i in (block as usize..n as usize).step_by(blocks as usize) {
///         args.write_f32(y, i, args.read_f32(x, i)?)?;
///     }
///     Ok(())
/// });
/// let binary = ctx.load_binary(&aclrt::sim::binary_image(&["doc_copy_f32"]))?;
/// // SAFETY: `doc_copy_f32` reads `In`, writes `Out`, below `Count`, nothing else.
/// let copy = unsafe { binary.kernel_ref(c"doc_copy_f32")? };
/// let model = Model { binary, copy };
///
/// let stream = ctx.create_stream()?;
/// let input = ctx.alloc_from(&[2.5f32; 64])?;
/// let mut out = ctx.alloc_host_zeroed::<f32>(64)?;
/// let mut dev = ctx.alloc::<f32>(64)?;
/// ctx.scope(|s| {
///     s.with_lane(&stream, |lane| {
///         let (_, d, _) = lane.launch_in(&model.binary, model.copy, 1, (&input, &mut dev, 64))?;
///         lane.copy(&d, &mut out)?.wait()?;
///         Ok(())
///     })
/// })?;
/// assert_eq!(out.as_slice(), &[2.5f32; 64]);
/// # Ok::<(), aclrt::Error>(())
/// ```
pub struct KernelRef<'id, P> {
    func: Raw,
    binary: u64,
    _brand: PhantomData<Id<'id>>,
    _sig: PhantomData<fn() -> P>,
}

impl<P> Clone for KernelRef<'_, P> {
    fn clone(&self) -> Self {
        *self
    }
}
impl<P> Copy for KernelRef<'_, P> {}

impl<P> core::fmt::Debug for KernelRef<'_, P> {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("KernelRef")
            .field("handle", &self.func.as_ptr())
            .field("binary", &self.binary)
            .field("signature", &core::any::type_name::<P>())
            .finish()
    }
}

impl<'id, P> KernelRef<'id, P> {
    pub(crate) fn new(func: Raw, binary: u64) -> Self {
        KernelRef {
            func,
            binary,
            _brand: PhantomData,
            _sig: PhantomData,
        }
    }

    /// The kernel of `binary`, borrowing it, if this reference was looked
    /// up in it; [`Error::ForeignKernel`](crate::Error::ForeignKernel)
    /// otherwise.
    pub fn of<'bin>(&self, binary: &'bin Binary<'_, 'id>) -> Result<Kernel<'bin, 'id, P>> {
        if binary.serial() != self.binary {
            return Err(crate::Error::ForeignKernel);
        }
        Ok(Kernel::new(self.func, binary.context()))
    }

    /// The C handle (`aclrtFuncHandle`), for diagnostics and interop.
    pub fn as_raw(&self) -> *mut core::ffi::c_void {
        self.func.as_ptr()
    }
}

// --------------------------------------------------------- launch args ---

/// Places whose memory device code can address in run mode `M`: device
/// memory always, "host" memory from `aclrtMallocHost` only in device run
/// mode (where it is device memory).
#[diagnostic::on_unimplemented(
    message = "memory that lies `{Self}` is not device memory in run mode `{M}`: a kernel cannot address it",
    label = "kernel buffer arguments must be device memory",
    note = "in host run mode (`HostMode`) a `HostBuffer` is pinned HOST memory: copy it to a `DeviceBuffer` first (`lane.copy(&host, &mut dev)?`) and pass the device buffer",
    note = "in device run mode (`DeviceMode`) a `HostBuffer` is device memory and may be passed"
)]
pub trait KernelPlace<M: RunMode>: Place {}
impl<M: RunMode> KernelPlace<M> for OnDevice {}
impl KernelPlace<DeviceMode> for OnHost {}

/// Memory a kernel may be given by its own address: memory the runtime
/// allocated (device buffers and their views, managed buffers, and pinned
/// `HostBuffer`s / `PinnedSlice`s, which [`KernelPlace`] admits in device run
/// mode only). Registered host memory ([`HostRegistration`](crate::HostRegistration))
/// lies `OnHost` like a `HostBuffer` but is the program's own memory: the
/// device code reaches it only through the alias the runtime maps for it
/// ([`DeviceAlias`](crate::DeviceAlias), [`DeviceAliasMut`](crate::DeviceAliasMut)),
/// never by its host address. The operands of foreign device work
/// ([`Lane::foreign`](crate::Lane::foreign)) must be this memory too. Sealed.
#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot be passed to a kernel or foreign device work by its address: it is not memory of the runtime",
    label = "registered host memory reaches device code only through its device alias",
    note = "for a kernel, pass `reg.device_alias()` for an `In<T>` parameter and `reg.device_alias_mut()` for `Out<T>`/`InOut<T>`",
    note = "foreign work (`Lane::foreign`) is handed operand addresses: copy registered memory into a `DeviceBuffer` on the lane first (`lane.copy(&reg, &mut dev)`)"
)]
pub trait KernelMemory: sealed::KernelMemory {}
macro_rules! kernel_memory {
    ($([$($g:tt)*] $t:ty),+ $(,)?) => {$(
        impl<$($g)*> sealed::KernelMemory for $t {}
        impl<$($g)*> KernelMemory for $t {}
    )+};
}
kernel_memory!(
    [T] crate::DeviceBuffer<'_, '_, T>,
    [T] crate::DeviceView<'_, '_, T>,
    [T] crate::DeviceViewMut<'_, '_, T>,
    [T, M: crate::RunMode] crate::ManagedBuffer<'_, '_, T, M>,
    [T, M] crate::HostBuffer<'_, '_, T, M>,
    [T, M] crate::PinnedSlice<'_, T, M>,
);

/// An argument for parameter `P` of a kernel launched on the lane branded
/// `'sid` (context `'id`, run mode `M`).
///
/// | marker | accepted argument | launch returns |
/// | --- | --- | --- |
/// | [`In<T>`] | `&buffer` (device memory of this context, shared for the scope) or `&in_flight` of this lane | `()` |
/// | [`Out<T>`], [`InOut<T>`] | `&mut buffer` (borrowed for the scope) or an `InFlight` of this lane | `InFlight` |
/// | [`Scalar<T>`] | a `T: DeviceRepr`, by value | `()` |
/// | [`Count`] | a `usize` | `()` |
///
/// Sealed by its hidden method's types.
#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot be passed for a `{P}` kernel parameter on this lane",
    label = "wrong argument for `{P}`",
    note = "`In<T>`: `&buffer` of THIS context's device memory (element type `T`) or `&in_flight` of THIS lane; `Out<T>`/`InOut<T>`: `&mut buffer` or an `InFlight` of THIS lane, by value; `Scalar<T>`: a `T` by value (`T: DeviceRepr`); `Count`: a `usize`",
    note = "a buffer in flight on another lane must be handed over first: `let s = lane_a.signal(x)?; let x = lane_b.wait_for(s)?;`"
)]
pub trait KernelArg<'scope, 'id, 'sid, M: RunMode, P: Param> {
    /// What the launch gives back for this argument.
    type Output;
    #[doc(hidden)]
    fn stage(self, lane: &LaneCore<'scope, 'sid>, staged: &mut Staged<'sid>) -> Self::Output;
    /// Where the contents of what this argument reads came from
    /// (`Origin::OUTSIDE`: nothing of the scope's), taken before any
    /// argument is staged, so a launch's outputs know what all its inputs
    /// came from.
    #[doc(hidden)]
    fn reads_origin(&self, lane: &LaneCore<'scope, 'sid>) -> Origin {
        let _ = lane;
        Origin::OUTSIDE
    }
    /// The count this argument passes (a [`Count`]), taken before any
    /// argument is staged, so a launch knows how much of each `Out` it
    /// writes.
    #[doc(hidden)]
    fn passed_count(&self) -> Option<usize> {
        None
    }
}

impl<'scope, 'id, 'sid, M, T, S> KernelArg<'scope, 'id, 'sid, M, In<T>> for S
where
    M: RunMode,
    T: DeviceRepr,
    S: AsyncSource<'scope, 'id, 'sid, Elem = T>,
    S::Place: KernelPlace<M>,
    S::Memory: KernelMemory,
{
    type Output = ();
    fn stage(self, lane: &LaneCore<'scope, 'sid>, staged: &mut Staged<'sid>) {
        let (src, len) = self.source(lane);
        staged.read(src, len);
    }
    fn reads_origin(&self, lane: &LaneCore<'scope, 'sid>) -> Origin {
        self.source(lane).0.origin()
    }
}

/// Stage a buffer the launch writes; `overwrite`: every element the kernel
/// may touch is written (`Out`), so where that is the whole buffer its
/// contents come from what the launch reads only (`Parked::derive`).
fn stage_dest<'scope, 'id, 'sid, X>(
    x: X,
    lane: &LaneCore<'scope, 'sid>,
    staged: &mut Staged<'sid>,
    overwrite: bool,
) -> InFlight<'scope, 'sid, X::Target>
where
    X: AsyncDest<'scope, 'id, 'sid>,
{
    let (mut parked, len) = x.into_parked(lane);
    // An `Out` is written whole only where no count of the launch stops
    // short of its length (the kernel's contract: every element it may
    // touch).
    let whole = overwrite && staged.writes_whole(len);
    if staged.derives() {
        parked.derive(whole, staged.reads_origin());
    }
    staged.write(&parked, len);
    InFlight::from_parked(parked, len)
}

impl<'scope, 'id, 'sid, M, T, X> KernelArg<'scope, 'id, 'sid, M, Out<T>> for X
where
    M: RunMode,
    T: DeviceRepr,
    X: AsyncDest<'scope, 'id, 'sid>,
    X::Target: Memory<'id, Elem = T> + KernelMemory + 'scope,
    <X::Target as Memory<'id>>::Place: KernelPlace<M>,
{
    type Output = InFlight<'scope, 'sid, X::Target>;
    fn stage(self, lane: &LaneCore<'scope, 'sid>, staged: &mut Staged<'sid>) -> Self::Output {
        stage_dest(self, lane, staged, true)
    }
}

impl<'scope, 'id, 'sid, M, T, X> KernelArg<'scope, 'id, 'sid, M, InOut<T>> for X
where
    M: RunMode,
    T: DeviceRepr,
    X: AsyncDest<'scope, 'id, 'sid>,
    X::Target: Memory<'id, Elem = T> + KernelMemory + 'scope,
    <X::Target as Memory<'id>>::Place: KernelPlace<M>,
{
    type Output = InFlight<'scope, 'sid, X::Target>;
    fn stage(self, lane: &LaneCore<'scope, 'sid>, staged: &mut Staged<'sid>) -> Self::Output {
        stage_dest(self, lane, staged, false)
    }
}

/// The device alias of registered host memory, read by the kernel: it
/// borrows its [`HostRegistration`](crate::HostRegistration) for the whole
/// scope, so the memory stays registered and nobody writes it meanwhile.
impl<'scope, 'id, 'sid, M, T> KernelArg<'scope, 'id, 'sid, M, In<T>>
    for crate::register::DeviceAlias<'scope, 'id, T>
where
    M: RunMode,
    T: DeviceRepr,
{
    type Output = ();
    fn stage(self, _lane: &LaneCore<'scope, 'sid>, staged: &mut Staged<'sid>) {
        let (addr, len) = self.addr_len();
        staged.alias::<T>(addr, len);
    }
}

/// The device alias of registered host memory, written by the kernel: it
/// holds its [`HostRegistration`](crate::HostRegistration) exclusively for the
/// whole scope, so nothing else touches the memory until the scope ends.
impl<'scope, 'id, 'sid, M, T> KernelArg<'scope, 'id, 'sid, M, Out<T>>
    for crate::register::DeviceAliasMut<'scope, 'id, T>
where
    M: RunMode,
    T: DeviceRepr,
{
    type Output = ();
    fn stage(self, _lane: &LaneCore<'scope, 'sid>, staged: &mut Staged<'sid>) {
        let (addr, len) = self.addr_len();
        staged.alias::<T>(addr, len);
    }
}

/// As for `Out<T>`: the kernel reads and writes it.
impl<'scope, 'id, 'sid, M, T> KernelArg<'scope, 'id, 'sid, M, InOut<T>>
    for crate::register::DeviceAliasMut<'scope, 'id, T>
where
    M: RunMode,
    T: DeviceRepr,
{
    type Output = ();
    fn stage(self, _lane: &LaneCore<'scope, 'sid>, staged: &mut Staged<'sid>) {
        let (addr, len) = self.addr_len();
        staged.alias::<T>(addr, len);
    }
}

impl<'scope, 'id, 'sid, M: RunMode, T: DeviceRepr> KernelArg<'scope, 'id, 'sid, M, Scalar<T>>
    for T
{
    type Output = ();
    fn stage(self, _lane: &LaneCore<'scope, 'sid>, staged: &mut Staged<'sid>) {
        staged.value(self);
    }
}

impl<'scope, 'id, 'sid, M: RunMode> KernelArg<'scope, 'id, 'sid, M, Count> for usize {
    type Output = ();
    fn stage(self, _lane: &LaneCore<'scope, 'sid>, staged: &mut Staged<'sid>) {
        staged.count(self);
    }
    fn passed_count(&self) -> Option<usize> {
        Some(*self)
    }
}

/// The arguments of a launch of a kernel with signature `P`: a tuple with
/// one [`KernelArg`] per parameter. The launch returns the tuple of their
/// outputs (an [`InFlight`] for each written buffer, `()` otherwise).
#[diagnostic::on_unimplemented(
    message = "these arguments do not match the kernel signature `{P}`",
    label = "one argument per declared parameter, in order, as a tuple",
    note = "e.g. for `(In<f32>, In<f32>, Out<f32>, Count)`: `(&a, &b, &mut c, n)`; a single parameter is `(&mut c,)`"
)]
pub trait LaunchArgs<'scope, 'id, 'sid, M: RunMode, P: KernelParams> {
    /// The outputs, one per argument.
    type Output;
    #[doc(hidden)]
    fn stage(self, lane: &LaneCore<'scope, 'sid>, staged: &mut Staged<'sid>) -> Self::Output;
}

macro_rules! tuples {
    ($(($($P:ident $A:ident $a:ident),+))+) => {$(
        impl<$($P: Param),+> sealed::Params for ($($P,)+) {}
        impl<$($P: Param),+> KernelParams for ($($P,)+) {}
        impl<'scope, 'id, 'sid, M: RunMode, $($P: Param, $A),+>
            LaunchArgs<'scope, 'id, 'sid, M, ($($P,)+)> for ($($A,)+)
        where
            $($A: KernelArg<'scope, 'id, 'sid, M, $P>),+
        {
            type Output = ($($A::Output,)+);
            fn stage(self, lane: &LaneCore<'scope, 'sid>, staged: &mut Staged<'sid>) -> Self::Output {
                let ($($a,)+) = self;
                // What every input's contents came from, before any output
                // is staged (outputs may come first in the parameter order).
                $(staged.reads($a.reads_origin(lane));)+
                $(if let Some(n) = <$A as KernelArg<'scope, 'id, 'sid, M, $P>>::passed_count(&$a) { staged.counted(n); })+
                ($($a.stage(lane, staged),)+)
            }
        }
    )+};
}

tuples! {
    (P0 A0 a0)
    (P0 A0 a0, P1 A1 a1)
    (P0 A0 a0, P1 A1 a1, P2 A2 a2)
    (P0 A0 a0, P1 A1 a1, P2 A2 a2, P3 A3 a3)
    (P0 A0 a0, P1 A1 a1, P2 A2 a2, P3 A3 a3, P4 A4 a4)
    (P0 A0 a0, P1 A1 a1, P2 A2 a2, P3 A3 a3, P4 A4 a4, P5 A5 a5)
    (P0 A0 a0, P1 A1 a1, P2 A2 a2, P3 A3 a3, P4 A4 a4, P5 A5 a5, P6 A6 a6)
    (P0 A0 a0, P1 A1 a1, P2 A2 a2, P3 A3 a3, P4 A4 a4, P5 A5 a5, P6 A6 a6, P7 A7 a7)
    (P0 A0 a0, P1 A1 a1, P2 A2 a2, P3 A3 a3, P4 A4 a4, P5 A5 a5, P6 A6 a6, P7 A7 a7, P8 A8 a8)
    (P0 A0 a0, P1 A1 a1, P2 A2 a2, P3 A3 a3, P4 A4 a4, P5 A5 a5, P6 A6 a6, P7 A7 a7, P8 A8 a8, P9 A9 a9)
    (P0 A0 a0, P1 A1 a1, P2 A2 a2, P3 A3 a3, P4 A4 a4, P5 A5 a5, P6 A6 a6, P7 A7 a7, P8 A8 a8, P9 A9 a9, P10 A10 a10)
    (P0 A0 a0, P1 A1 a1, P2 A2 a2, P3 A3 a3, P4 A4 a4, P5 A5 a5, P6 A6 a6, P7 A7 a7, P8 A8 a8, P9 A9 a9, P10 A10 a10, P11 A11 a11)
}

// ------------------------------------------------------- launch config ---

/// Which engine a kernel runs on (`aclrtEngineType`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Engine {
    /// `ACL_RT_ENGINE_TYPE_AIC`.
    AiCore,
    /// `ACL_RT_ENGINE_TYPE_AIV`.
    AiVector,
}

/// How a launch starts its blocks (`ACL_RT_LAUNCH_KERNEL_ATTR_SCHEM_MODE`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ScheduleMode {
    /// 0: start when any core is free.
    Normal,
    /// 1: start only when all `blocks` cores are free.
    Batch,
}

/// The block count and the plain-data attributes of a launch
/// (`aclrtLaunchKernelCfg`). A `u32` converts into a config with that many
/// blocks and no attributes (cfg NULL).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct LaunchConfig {
    blocks: u32,
    schedule: Option<ScheduleMode>,
    dyn_ubuf_size: Option<u32>,
    engine: Option<Engine>,
    block_offset: Option<u32>,
    prefetch: Option<bool>,
    data_dump: Option<bool>,
    timeout_us: Option<u64>,
    profiling: Option<bool>,
    /// Whether any attribute above is set (kept by the setters, so a launch
    /// without attributes tests one flag).
    any: bool,
}

impl From<u32> for LaunchConfig {
    fn from(blocks: u32) -> Self {
        LaunchConfig::blocks(blocks)
    }
}

impl LaunchConfig {
    /// Its C attributes (see [`c_attrs`]).
    #[inline]
    pub(crate) fn c_attrs(&self) -> Vec<sys::aclrtLaunchKernelAttr> {
        c_attrs(self)
    }

    /// `blocks` blocks (cores; 0 is the runtime's error 100000), no attributes.
    pub fn blocks(blocks: u32) -> Self {
        LaunchConfig {
            blocks,
            schedule: None,
            dyn_ubuf_size: None,
            engine: None,
            block_offset: None,
            prefetch: None,
            data_dump: None,
            timeout_us: None,
            profiling: None,
            any: false,
        }
    }
    /// The block count.
    pub fn block_count(&self) -> u32 {
        self.blocks
    }
    /// `ACL_RT_LAUNCH_KERNEL_ATTR_SCHEM_MODE`.
    pub fn schedule(mut self, mode: ScheduleMode) -> Self {
        self.schedule = Some(mode);
        self.any = true;
        self
    }
    /// `ACL_RT_LAUNCH_KERNEL_ATTR_DYN_UBUF_SIZE` (SIMT kernels on 950).
    pub fn dyn_ubuf_size(mut self, bytes: u32) -> Self {
        self.dyn_ubuf_size = Some(bytes);
        self.any = true;
        self
    }
    /// `ACL_RT_LAUNCH_KERNEL_ATTR_ENGINE_TYPE` (Atlas inference series).
    pub fn engine(mut self, engine: Engine) -> Self {
        self.engine = Some(engine);
        self.any = true;
        self
    }
    /// `ACL_RT_LAUNCH_KERNEL_ATTR_BLOCKDIM_OFFSET` (Atlas inference series).
    pub fn block_offset(mut self, offset: u32) -> Self {
        self.block_offset = Some(offset);
        self.any = true;
        self
    }
    /// `ACL_RT_LAUNCH_KERNEL_ATTR_BLOCK_TASK_PREFETCH`.
    pub fn prefetch(mut self, on: bool) -> Self {
        self.prefetch = Some(on);
        self.any = true;
        self
    }
    /// `ACL_RT_LAUNCH_KERNEL_ATTR_DATA_DUMP`.
    pub fn data_dump(mut self, on: bool) -> Self {
        self.data_dump = Some(on);
        self.any = true;
        self
    }
    /// `ACL_RT_LAUNCH_KERNEL_ATTR_TIMEOUT_US`: the kernel's time limit
    /// (microseconds; zero waits forever). Only the µs attribute is used,
    /// so the forbidden pair TIMEOUT + TIMEOUT_US (K.7) cannot be written.
    pub fn timeout(mut self, limit: core::time::Duration) -> Self {
        self.timeout_us = Some(u64::try_from(limit.as_micros()).unwrap_or(u64::MAX));
        self.any = true;
        self
    }
    /// `ACL_RT_LAUNCH_KERNEL_ATTR_ENABLE_PROFILING`.
    pub fn profiling(mut self, on: bool) -> Self {
        self.profiling = Some(on);
        self.any = true;
        self
    }

    /// Whether any launch attribute is set (else only the block count).
    #[inline]
    pub(crate) fn has_attributes(&self) -> bool {
        self.any
    }

    pub(crate) fn schedule_mode_value(&self) -> Option<u8> {
        self.schedule.map(|m| match m {
            ScheduleMode::Normal => 0,
            ScheduleMode::Batch => 1,
        })
    }
    pub(crate) fn dyn_ubuf_size_value(&self) -> Option<u32> {
        self.dyn_ubuf_size
    }
    pub(crate) fn engine_value(&self) -> Option<sys::aclrtEngineType> {
        self.engine.map(|e| match e {
            Engine::AiCore => sys::ACL_RT_ENGINE_TYPE_AIC,
            Engine::AiVector => sys::ACL_RT_ENGINE_TYPE_AIV,
        })
    }
    pub(crate) fn block_offset_value(&self) -> Option<u32> {
        self.block_offset
    }
    pub(crate) fn prefetch_value(&self) -> Option<bool> {
        self.prefetch
    }
    pub(crate) fn data_dump_value(&self) -> Option<bool> {
        self.data_dump
    }
    pub(crate) fn timeout_us_value(&self) -> Option<u64> {
        self.timeout_us
    }
    pub(crate) fn profiling_value(&self) -> Option<bool> {
        self.profiling
    }
}

impl<'scope, 'env, 'id, 'sid, M: RunMode> Lane<'scope, 'env, 'id, 'sid, M> {
    /// Launch `kernel` on this lane (`aclrtKernelArgsInit`/`Append`/`Finalize`,
    /// then `aclrtLaunchKernelWithConfig`); returns once it is queued.
    ///
    /// `config` is a block count (`u32`) or a [`LaunchConfig`]; `args` is a
    /// tuple with one argument per declared parameter ([`KernelArg`]). The
    /// outputs come back in the same positions: an [`InFlight`] for every
    /// written buffer, `()` for the rest. Errors, before anything is
    /// queued: [`Error::KernelCount`](crate::Error::KernelCount),
    /// [`Error::KernelArgsBusy`](crate::Error::KernelArgsBusy); then the
    /// runtime's. A kernel that faults on the device is reported by the
    /// next synchronisation (507015 on the simulator), at the latest by the
    /// scope. The buffers stay borrowed until the scope ends either way.
    #[doc(alias = "aclrtLaunchKernelWithConfig")]
    #[doc(alias = "aclrtKernelArgsInit")]
    #[doc(alias = "aclrtKernelArgsAppend")]
    #[doc(alias = "aclrtKernelArgsFinalize")]
    pub fn launch<P, A>(
        &self,
        kernel: &'scope Kernel<'_, 'id, P>,
        config: impl Into<LaunchConfig>,
        args: A,
    ) -> Result<A::Output>
    where
        P: KernelParams,
        A: LaunchArgs<'scope, 'id, 'sid, M, P>,
    {
        let config = config.into();
        let mut staged = Staged::new();
        let output = args.stage(self.core(), &mut staged);
        launch_staged(self.core(), kernel, &config, &staged)?;
        Ok(output)
    }

    /// Launch the kernel `kernel` of `binary` on this lane: [`launch`](Self::launch)
    /// for a [`KernelRef`], which does not borrow its binary (so both can
    /// live in one struct). The binary is borrowed for the scope (it cannot
    /// be unloaded while the launch may run); a reference looked up in
    /// another binary is [`Error::ForeignKernel`](crate::Error::ForeignKernel),
    /// before anything is queued (the outputs stay borrowed until the scope
    /// ends; [`launch_in_or_keep`](Self::launch_in_or_keep) gives them back).
    #[doc(alias = "aclrtLaunchKernelWithConfig")]
    pub fn launch_in<P, A>(
        &self,
        binary: &'scope Binary<'_, 'id>,
        kernel: KernelRef<'id, P>,
        config: impl Into<LaunchConfig>,
        args: A,
    ) -> Result<A::Output>
    where
        P: KernelParams,
        A: LaunchArgs<'scope, 'id, 'sid, M, P>,
    {
        self.launch_in_staged(binary, kernel, config, args)
            .map_err(crate::Error::from)
    }

    /// [`launch_in`](Self::launch_in), which on error gives its operands
    /// back ([`WaitFailed::into_item`](crate::WaitFailed::into_item): the
    /// outputs, still in flight on this lane, unchanged by the launch), so a
    /// service loop can launch again, or take them back with `reuse`,
    /// without leaving the scope; `?` turns it into the [`Error`](crate::Error).
    ///
    /// A refusal before anything is queued (a kernel reference of another
    /// binary, [`Error::ForeignKernel`](crate::Error::ForeignKernel)) is no
    /// failure of work: the outputs come back holding what they held, and
    /// the same launch with the right kernel may follow at once. Any other
    /// error (the runtime's launch call failed) gives back outputs holding
    /// whatever they held before, which the launch was staged to replace:
    /// that error is entered as a failure of this lane (SAFETY.md, the
    /// failure rule), so their checked waits fail until they are written
    /// afresh, and the scope passes its recovery point
    /// ([`Scope::recover`](crate::Scope::recover)) before it goes on.
    #[doc(alias = "aclrtLaunchKernelWithConfig")]
    pub fn launch_in_or_keep<P, A>(
        &self,
        binary: &'scope Binary<'_, 'id>,
        kernel: KernelRef<'id, P>,
        config: impl Into<LaunchConfig>,
        args: A,
    ) -> core::result::Result<A::Output, crate::WaitFailed<A::Output>>
    where
        P: KernelParams,
        A: LaunchArgs<'scope, 'id, 'sid, M, P>,
    {
        self.launch_in_staged(binary, kernel, config, args)
            .inspect_err(|failed| {
                // A refusal that queued nothing judges no work.
                if *failed.error() != crate::Error::ForeignKernel {
                    self.core().failed(failed.error());
                }
            })
    }

    fn launch_in_staged<P, A>(
        &self,
        binary: &'scope Binary<'_, 'id>,
        kernel: KernelRef<'id, P>,
        config: impl Into<LaunchConfig>,
        args: A,
    ) -> core::result::Result<A::Output, crate::WaitFailed<A::Output>>
    where
        P: KernelParams,
        A: LaunchArgs<'scope, 'id, 'sid, M, P>,
    {
        let config = config.into();
        let kernel = kernel.of(binary);
        // A reference of another binary is refused before anything is
        // staged to run: its outputs come back as they were.
        let mut staged = if kernel.is_ok() {
            Staged::new()
        } else {
            Staged::refused()
        };
        let output = args.stage(self.core(), &mut staged);
        let launched =
            kernel.and_then(|kernel| launch_staged(self.core(), &kernel, &config, &staged));
        match launched {
            Ok(()) => Ok(output),
            Err(e) => Err(crate::WaitFailed::new(e, output)),
        }
    }
}

// ------------------------------------------------------- args builder ---

/// Builder stage: arguments and placeholder slots are appended.
#[derive(Debug)]
pub struct Appending;
/// Builder stage: placeholder data is written; nothing more is appended.
#[derive(Debug)]
pub struct Filling;
/// Builder stage: sealed (`aclrtKernelArgsFinalize`), ready to launch.
#[derive(Debug)]
pub struct Finalized;
impl sealed::Stage for Appending {}
impl sealed::Stage for Filling {}
impl sealed::Stage for Finalized {}

/// A stage of [`KernelArgs`]. Sealed.
pub trait ArgsStage: sealed::Stage {}
impl<S: sealed::Stage> ArgsStage for S {}

/// This thread's kernel argument list (`aclrtArgsHandle`), built by hand
/// for `kernel`, with the runtime's order as typestate: [`Appending`]
/// (`aclrtKernelArgsAppend`, `aclrtKernelArgsAppendPlaceHolder`) →
/// [`Filling`] (`aclrtKernelArgsGetPlaceHolderBuffer`) → [`Finalized`]
/// (`aclrtKernelArgsFinalize`), then [`Lane::launch_args`] (`unsafe`: the
/// list's contents are not typed).
///
/// The runtime keeps one list per thread, so at most one `KernelArgs` lives
/// per thread (a second, or a typed launch meanwhile, is
/// [`Error::KernelArgsBusy`](crate::Error::KernelArgsBusy)), and it is
/// neither `Send` nor `Sync`.
///
/// ```
/// # let _sim = aclrt::sim::exclusive();
/// # use aclrt::{Acl, make_guard, kernel::{Out, Scalar}};
/// # aclrt::sim::register_kernel("doc_fill", |_, _, _| Ok(()));
/// # let acl = Acl::init()?; let rt = acl.require::<aclrt::HostMode>()?; let device = rt.device(0)?;
/// # make_guard!(g); let ctx = device.create_context(g)?;
/// # let binary = ctx.load_binary(&aclrt::sim::binary_image(&["doc_fill"]))?;
/// // SAFETY: doc_fill writes nothing.
/// let k = unsafe { binary.kernel::<(Scalar<u32>,)>(c"doc_fill")? };
/// let mut args = k.args()?;
/// args.append(&7u32)?;
/// let table = args.append_placeholder()?;
/// let mut args = args.fill_placeholders();
/// args.fill(table, &[1.0f32, 2.0, 3.0])?;
/// let args = args.finalize()?;
/// assert!(k.args().is_err()); // one list per thread
/// drop(args);
/// # Ok::<(), aclrt::Error>(())
/// ```
pub struct KernelArgs<'k, 'id, P, S: ArgsStage> {
    raw: RawArgs,
    func: Raw,
    _p: PhantomData<(&'k Kernel<'k, 'id, P>, S)>,
}

impl<P, S: ArgsStage> core::fmt::Debug for KernelArgs<'_, '_, P, S> {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("KernelArgs")
            .field("kernel", &self.func.as_ptr())
            .field("stage", &core::any::type_name::<S>())
            .finish()
    }
}

/// A placeholder slot of a [`KernelArgs`] list
/// (`aclrtKernelArgsAppendPlaceHolder`); fill it in the [`Filling`] stage.
/// Only valid for the list that made it, on its thread.
#[derive(Debug)]
pub struct Placeholder {
    serial: u64,
    param: Raw,
    _thread: PhantomData<*mut ()>,
}

impl Placeholder {
    pub(crate) fn parts(&self) -> (u64, Raw) {
        (self.serial, self.param)
    }
}

impl<'bin, 'id, P: KernelParams> Kernel<'bin, 'id, P> {
    /// Start this thread's argument list for this kernel
    /// (`aclrtKernelArgsInit`, with the kernel's context current).
    /// [`Error::KernelArgsBusy`](crate::Error::KernelArgsBusy) while another
    /// list of this thread lives.
    #[doc(alias = "aclrtKernelArgsInit")]
    pub fn args(&self) -> Result<KernelArgs<'_, 'id, P, Appending>> {
        let claim = ArgsClaim::take()?;
        Ok(KernelArgs {
            raw: RawArgs::init(claim, self.ctx, self.func)?,
            func: self.func,
            _p: PhantomData,
        })
    }
}

impl<'k, 'id, P, S: ArgsStage> KernelArgs<'k, 'id, P, S> {
    pub(crate) fn raw(&self) -> &RawArgs {
        &self.raw
    }
    pub(crate) fn raw_mut(&mut self) -> &mut RawArgs {
        &mut self.raw
    }
    pub(crate) fn func(&self) -> Raw {
        self.func
    }
    fn into_stage<T: ArgsStage>(self) -> KernelArgs<'k, 'id, P, T> {
        KernelArgs {
            raw: self.raw,
            func: self.func,
            _p: PhantomData,
        }
    }
}

impl<'k, 'id, P> KernelArgs<'k, 'id, P, Appending> {
    /// Append `value`'s bytes (`aclrtKernelArgsAppend`; copied at once,
    /// 8-byte aligned by the runtime).
    #[doc(alias = "aclrtKernelArgsAppend")]
    pub fn append<T: DeviceRepr>(&mut self, value: &T) -> Result<()> {
        self.raw.append(bytemuck::bytes_of(value))
    }

    /// Append a device address (8 bytes), e.g. of
    /// [`DeviceBuffer::as_device_ptr`](crate::DeviceBuffer::as_device_ptr).
    #[doc(alias = "aclrtKernelArgsAppend")]
    pub fn append_address(&mut self, address: *const core::ffi::c_void) -> Result<()> {
        self.raw.append(&(address as usize as u64).to_le_bytes())
    }

    /// Append a placeholder slot (`aclrtKernelArgsAppendPlaceHolder`).
    #[doc(alias = "aclrtKernelArgsAppendPlaceHolder")]
    pub fn append_placeholder(&mut self) -> Result<Placeholder> {
        Ok(Placeholder {
            serial: self.raw.serial(),
            param: self.raw.append_placeholder()?,
            _thread: PhantomData,
        })
    }

    /// Stop appending; write placeholder data next.
    pub fn fill_placeholders(self) -> KernelArgs<'k, 'id, P, Filling> {
        self.into_stage()
    }

    /// Seal the list (`aclrtKernelArgsFinalize`).
    #[doc(alias = "aclrtKernelArgsFinalize")]
    pub fn finalize(mut self) -> Result<KernelArgs<'k, 'id, P, Finalized>> {
        self.raw.finalize()?;
        Ok(self.into_stage())
    }
}

impl<'k, 'id, P> KernelArgs<'k, 'id, P, Filling> {
    /// Seal the list (`aclrtKernelArgsFinalize`).
    #[doc(alias = "aclrtKernelArgsFinalize")]
    pub fn finalize(mut self) -> Result<KernelArgs<'k, 'id, P, Finalized>> {
        self.raw.finalize()?;
        Ok(self.into_stage())
    }
}

// ------------------------------------------------------- foreign work ---

/// A buffer handed to foreign work: its device pointer and size in bytes.
#[derive(Clone, Copy, Debug)]
pub struct ForeignOperand {
    ptr: *mut core::ffi::c_void,
    bytes: usize,
}

impl ForeignOperand {
    pub(crate) fn new(ptr: core::ptr::NonNull<u8>, bytes: usize) -> Self {
        ForeignOperand {
            ptr: ptr.as_ptr().cast(),
            bytes,
        }
    }
    /// The device pointer.
    pub fn ptr(&self) -> *mut core::ffi::c_void {
        self.ptr
    }
    /// The size in bytes.
    pub fn bytes(&self) -> usize {
        self.bytes
    }
}

/// What the closure of [`Lane::foreign`] gets: the raw stream and context,
/// the operands in the order given, and the workspace.
#[derive(Debug)]
pub struct ForeignWork<'a> {
    stream: *mut core::ffi::c_void,
    context: *mut core::ffi::c_void,
    reads: Vec<ForeignOperand>,
    writes: Vec<ForeignOperand>,
    workspace: Option<ForeignOperand>,
    _p: PhantomData<&'a ()>,
}

impl ForeignWork<'_> {
    pub(crate) fn new(
        stream: *mut core::ffi::c_void,
        context: *mut core::ffi::c_void,
        reads: Vec<ForeignOperand>,
        writes: Vec<ForeignOperand>,
        workspace: Option<ForeignOperand>,
    ) -> Self {
        ForeignWork {
            stream,
            context,
            reads,
            writes,
            workspace,
            _p: PhantomData,
        }
    }
    /// The lane's stream (`aclrtStream`): enqueue the work here only.
    pub fn stream(&self) -> *mut core::ffi::c_void {
        self.stream
    }
    /// The lane's context (`aclrtContext`), current while the closure runs.
    pub fn context(&self) -> *mut core::ffi::c_void {
        self.context
    }
    /// The operands the work may only read, in the order given.
    pub fn reads(&self) -> &[ForeignOperand] {
        &self.reads
    }
    /// The operands the work may read and write, in the order given.
    pub fn writes(&self) -> &[ForeignOperand] {
        &self.writes
    }
    /// The workspace (`None` when none was given): the work may use it as
    /// scratch; it stays borrowed until the scope ends.
    pub fn workspace(&self) -> Option<ForeignOperand> {
        self.workspace
    }
}

/// The buffers foreign work reads: a tuple (or `()`) of what
/// [`AsyncSource`] accepts whose memory a kernel may be given by its address
/// ([`KernelMemory`]: not registered host memory, whose host address device
/// code must not use).
#[diagnostic::on_unimplemented(
    message = "`{Self}` is not a tuple of sources for foreign work on this lane",
    label = "give the read buffers as a tuple of `&buffer` / `&in_flight`",
    note = "e.g. `(&a, &b)`; one buffer is `(&a,)`; none is `()`"
)]
pub trait ForeignReads<'scope, 'id, 'sid> {
    #[doc(hidden)]
    fn stage(self, lane: &LaneCore<'scope, 'sid>, staged: &mut Staged<'sid>);
}

/// The buffers foreign work writes: a tuple (or `()`) of what
/// [`AsyncDest`] accepts whose memory a kernel may be given by its address
/// ([`KernelMemory`]); each comes back as an [`InFlight`].
#[diagnostic::on_unimplemented(
    message = "`{Self}` is not a tuple of destinations for foreign work on this lane",
    label = "give the written buffers as a tuple of `&mut buffer` / `InFlight`",
    note = "e.g. `(&mut c,)`; none is `()`"
)]
pub trait ForeignWrites<'scope, 'id, 'sid> {
    /// The [`InFlight`]s, one per buffer.
    type Output;
    #[doc(hidden)]
    fn stage(self, lane: &LaneCore<'scope, 'sid>, staged: &mut Staged<'sid>) -> Self::Output;
}

impl<'scope, 'id, 'sid> ForeignReads<'scope, 'id, 'sid> for () {
    fn stage(self, _: &LaneCore<'scope, 'sid>, _: &mut Staged<'sid>) {}
}
impl<'scope, 'id, 'sid> ForeignWrites<'scope, 'id, 'sid> for () {
    type Output = ();
    fn stage(self, _: &LaneCore<'scope, 'sid>, _: &mut Staged<'sid>) {}
}

macro_rules! foreign_tuples {
    ($(($($A:ident $a:ident),+))+) => {$(
        impl<'scope, 'id, 'sid, $($A),+> ForeignReads<'scope, 'id, 'sid> for ($($A,)+)
        where
            $($A: AsyncSource<'scope, 'id, 'sid>, $A::Memory: KernelMemory),+
        {
            fn stage(self, lane: &LaneCore<'scope, 'sid>, staged: &mut Staged<'sid>) {
                let ($($a,)+) = self;
                $(
                    let (src, len) = $a.source(lane);
                    staged.read(src, len);
                )+
            }
        }
        impl<'scope, 'id, 'sid, $($A),+> ForeignWrites<'scope, 'id, 'sid> for ($($A,)+)
        where
            $($A: AsyncDest<'scope, 'id, 'sid>, $A::Target: 'scope + KernelMemory),+
        {
            type Output = ($(InFlight<'scope, 'sid, $A::Target>,)+);
            fn stage(self, lane: &LaneCore<'scope, 'sid>, staged: &mut Staged<'sid>) -> Self::Output {
                let ($($a,)+) = self;
                ($(stage_dest($a, lane, staged, false),)+)
            }
        }
    )+};
}

foreign_tuples! {
    (A0 a0)
    (A0 a0, A1 a1)
    (A0 a0, A1 a1, A2 a2)
    (A0 a0, A1 a1, A2 a2, A3 a3)
    (A0 a0, A1 a1, A2 a2, A3 a3, A4 a4)
    (A0 a0, A1 a1, A2 a2, A3 a3, A4 a4, A5 a5)
    (A0 a0, A1 a1, A2 a2, A3 a3, A4 a4, A5 a5, A6 a6)
    (A0 a0, A1 a1, A2 a2, A3 a3, A4 a4, A5 a5, A6 a6, A7 a7)
}

// ------------------------------------------------ launch attributes ---

/// The C attributes of `config` (`aclrtLaunchKernelAttr`), built only when
/// it has some: none (no allocation) makes the launch's config NULL (K.7).
#[inline]
pub(crate) fn c_attrs(config: &LaunchConfig) -> Vec<sys::aclrtLaunchKernelAttr> {
    if config.has_attributes() {
        build_attrs(config)
    } else {
        Vec::new()
    }
}

#[inline(never)]
fn build_attrs(config: &LaunchConfig) -> Vec<sys::aclrtLaunchKernelAttr> {
    let mut v = Vec::new();
    let mut push = |id, fill: &dyn Fn(&mut sys::aclrtLaunchKernelAttrValue)| {
        let mut value = sys::aclrtLaunchKernelAttrValue { rsv: [0; 4] };
        fill(&mut value);
        v.push(sys::aclrtLaunchKernelAttr { id, value });
    };
    if let Some(m) = config.schedule_mode_value() {
        push(sys::ACL_RT_LAUNCH_KERNEL_ATTR_SCHEM_MODE, &|x| {
            x.schemMode = m
        });
    }
    if let Some(b) = config.dyn_ubuf_size_value() {
        push(sys::ACL_RT_LAUNCH_KERNEL_ATTR_DYN_UBUF_SIZE, &|x| {
            x.dynUBufSize = b
        });
    }
    if let Some(e) = config.engine_value() {
        push(sys::ACL_RT_LAUNCH_KERNEL_ATTR_ENGINE_TYPE, &|x| {
            x.engineType = e
        });
    }
    if let Some(o) = config.block_offset_value() {
        push(sys::ACL_RT_LAUNCH_KERNEL_ATTR_BLOCKDIM_OFFSET, &|x| {
            x.blockDimOffset = o
        });
    }
    if let Some(p) = config.prefetch_value() {
        push(sys::ACL_RT_LAUNCH_KERNEL_ATTR_BLOCK_TASK_PREFETCH, &|x| {
            x.isBlockTaskPrefetch = u8::from(p)
        });
    }
    if let Some(d) = config.data_dump_value() {
        push(sys::ACL_RT_LAUNCH_KERNEL_ATTR_DATA_DUMP, &|x| {
            x.isDataDump = u8::from(d)
        });
    }
    if let Some(us) = config.timeout_us_value() {
        push(sys::ACL_RT_LAUNCH_KERNEL_ATTR_TIMEOUT_US, &|x| {
            x.timeoutUs = sys::aclrtTimeoutUs {
                timeoutLow: us as u32,
                timeoutHigh: (us >> 32) as u32,
            }
        });
    }
    if let Some(p) = config.profiling_value() {
        push(sys::ACL_RT_LAUNCH_KERNEL_ATTR_ENABLE_PROFILING, &|x| {
            x.enableProfiling = u8::from(p)
        });
    }
    v
}

/// Kernels own no handle of their own to release; the func handle lives
/// as long as the binary.
impl<P> HandleOwner for Kernel<'_, '_, P> {
    fn handle(&self) -> Raw {
        self.func()
    }
}

impl<'k, 'id, P: KernelParams> KernelArgs<'k, 'id, P, Filling> {
    /// Write `data` into `placeholder`'s host buffer
    /// (`aclrtKernelArgsGetPlaceHolderBuffer`); the runtime copies it to
    /// the device at launch. Errors: [`Error::KernelArgsBusy`](crate::Error::KernelArgsBusy) for a
    /// placeholder of another list; the runtime's error (e.g. an empty
    /// `data`: 100000).
    #[doc(alias = "aclrtKernelArgsGetPlaceHolderBuffer")]
    pub fn fill<T: DeviceRepr>(&mut self, placeholder: Placeholder, data: &[T]) -> Result<()> {
        let (serial, param) = placeholder.parts();
        if serial != self.raw().serial() {
            return Err(crate::error::Error::KernelArgsBusy);
        }
        self.raw_mut()
            .fill_placeholder(param, bytemuck::cast_slice(data))
    }
}

/// A typed launch of `kernel` on `lane` with the staged arguments: the
/// kernel's handles and `config`'s blocks and C attributes go down to the
/// raw launch.
#[inline(always)]
fn launch_staged<'sid, P: KernelParams>(
    lane: &LaneCore<'_, 'sid>,
    kernel: &Kernel<'_, '_, P>,
    config: &LaunchConfig,
    staged: &Staged<'sid>,
) -> Result<()> {
    let mut attrs = config.c_attrs();
    fk::launch(
        lane,
        fk::LaunchedKernel {
            func: kernel.func(),
            ctx: kernel.context(),
        },
        config.block_count(),
        &mut attrs,
        staged,
    )
}
