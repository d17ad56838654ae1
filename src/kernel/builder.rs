//! Hand-built argument lists ([`KernelArgs`]) through their stages.

use core::marker::PhantomData;

use crate::error::Result;
use crate::ffi::Raw;
use crate::ffi::kernel::{ArgsClaim, RawArgs};
use crate::marker::ThreadBound;
use crate::memory::DeviceRepr;

use super::params::{Kernel, KernelParams, sealed};

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
/// (`aclrtKernelArgsFinalize`), then [`Lane::launch_args`](crate::Lane::launch_args) (`unsafe`: the
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
    _thread: ThreadBound,
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
    _thread: ThreadBound,
    serial: u64,
    param: Raw,
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
            _thread: ThreadBound::NEW,
            raw: RawArgs::init(claim, self.context(), self.func())?,
            func: self.func(),
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
            _thread: ThreadBound::NEW,
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
            _thread: ThreadBound::NEW,
            serial: self.raw.serial(),
            param: self.raw.append_placeholder()?,
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
