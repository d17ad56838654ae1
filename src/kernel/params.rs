//! Kernels and their declared signatures: the parameter markers ([`In`],
//! [`Out`], [`InOut`], [`Scalar`], [`Count`]), [`Kernel`] and [`KernelRef`].

use core::marker::PhantomData;

use generativity::Id;

use crate::error::Result;
use crate::ffi::{HandleOwner, Raw};
use crate::memory::DeviceRepr;

use super::binary::Binary;

pub(super) mod sealed {
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
/// It launches with [`Lane::launch_in`](crate::Lane::launch_in), which borrows the binary for the
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

/// Kernels own no handle of their own to release; the func handle lives
/// as long as the binary.
impl<P> HandleOwner for Kernel<'_, '_, P> {
    fn handle(&self) -> Raw {
        self.func()
    }
}
