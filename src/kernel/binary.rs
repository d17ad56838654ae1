//! Device binaries: [`Binary`], loaded by [`Context::load_binary`] and its
//! options.

use core::ffi::CStr;
use core::marker::PhantomData;

use aclrt_sys as sys;
use generativity::Id;

use crate::context::Context;
use crate::error::Result;
use crate::ffi::Raw;
use crate::ffi::kernel as fk;
use crate::mode::RunMode;

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
