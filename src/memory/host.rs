//! Host memory from `aclrtMallocHost`: [`HostBuffer`] and
//! [`HostBufferUninit`].

use core::marker::PhantomData;
use core::ops::{Deref, DerefMut};

use generativity::Id;

use crate::error::{Error, Result};
use crate::ffi::access::{CpuVisible, RawDest, RawSource, Stable};
use crate::ffi::{self, HostAlloc, Mem, MemMut};
use crate::mode::RunMode;

use super::kinds::{
    DeviceRepr, DeviceResident, HostMemory, Memory, MemoryMut, OnHost, PinnedMemory, RuntimeMemory,
};
use super::pinned::{PageableRunMode, PinnedIter, PinnedSlice};

impl<'id, T: DeviceRepr, M: RunMode> RuntimeMemory<'id> for HostBuffer<'_, 'id, T, M> {}

impl<'id, T: DeviceRepr> DeviceResident<'id, crate::mode::DeviceMode>
    for HostBuffer<'_, 'id, T, crate::mode::DeviceMode>
{
}

impl<T, M> crate::ffi::scope::keep_seal::Sealed for HostBuffer<'_, '_, T, M> {}
impl<T, M> crate::ffi::scope::Keep for HostBuffer<'_, '_, T, M> {}
impl<T, M> crate::ffi::scope::keep_seal::Sealed for HostBufferUninit<'_, '_, T, M> {}
impl<T, M> crate::ffi::scope::Keep for HostBufferUninit<'_, '_, T, M> {}

/// Host memory from `aclrtMallocHost` holding `len` initialised elements of
/// `T`, belonging to the context branded `'id`, in run mode `M`.
///
/// In [`HostMode`](crate::HostMode) it is pinned (page-locked) host memory,
/// the memory the runtime can copy asynchronously. In
/// [`DeviceMode`](crate::DeviceMode) the runtime returns device memory that
/// the application's CPU addresses directly. It is always initialised:
/// allocate it zeroed, from a slice, or as a [`HostBufferUninit`] that must
/// be written before it can be read.
///
/// It dereferences to a [`PinnedSlice<'id, T, M>`](PinnedSlice), which keeps
/// the brand and the run mode, so sub-slices (`split_at`, `chunks`,
/// `&buf[a..b]`) are still pinned memory of this context. Elements are read
/// and written by value through the [`PinnedSlice`] API (`buf.get(i)`,
/// `buf.set(i, v)`, `buf.update(i, |v| ..)`, `buf.iter()`, `to_vec`,
/// `copy_from_slice`, ...) in both run modes. Only in host run mode is it
/// also a plain `&[T]` ([`as_slice`](Self::as_slice), `&**buf`) with element
/// references (`&buf[i]`, `buf[i] = v`): in device run mode pinned memory is
/// device memory of its own context, and neither a slice nor an element
/// reference of it may pass for pageable memory of another.
#[doc(alias = "aclrtMallocHost")]
#[doc(alias = "aclrtFreeHost")]
pub struct HostBuffer<'ctx, 'id, T, M> {
    alloc: HostAlloc<'ctx>,
    _brand: PhantomData<Id<'id>>,
    _elem: PhantomData<T>,
    _mode: PhantomData<M>,
}

impl<'ctx, 'id, T: DeviceRepr, M: RunMode> HostBuffer<'ctx, 'id, T, M> {
    fn from_alloc(alloc: HostAlloc<'ctx>) -> Self {
        HostBuffer {
            alloc,
            _brand: PhantomData,
            _elem: PhantomData,
            _mode: PhantomData,
        }
    }

    /// The elements, as pinned memory of this context (what `&*buf` gives).
    pub fn as_pinned(&self) -> &PinnedSlice<'id, T, M> {
        ffi::pinned_slice(bytemuck::cast_slice(self.alloc.as_bytes()))
    }

    /// The elements, mutably, as pinned memory of this context (what
    /// `&mut *buf` gives).
    pub fn as_pinned_mut(&mut self) -> &mut PinnedSlice<'id, T, M> {
        ffi::pinned_slice_mut(bytemuck::cast_slice_mut(self.alloc.as_bytes_mut()))
    }

    /// The elements as a plain slice. Host run mode only: see
    /// [`PinnedSlice::as_slice`].
    pub fn as_slice(&self) -> &[T]
    where
        M: PageableRunMode,
    {
        &self.as_pinned().data
    }

    /// The elements as a plain mutable slice. Host run mode only: see
    /// [`PinnedSlice::as_slice`].
    pub fn as_mut_slice(&mut self) -> &mut [T]
    where
        M: PageableRunMode,
    {
        &mut self.as_pinned_mut().data
    }

    /// Free the memory now (`aclrtFreeHost`), reporting the runtime's error.
    #[doc(alias = "aclrtFreeHost")]
    pub fn free(self) -> Result<()> {
        self.alloc.free()
    }
}

impl<'id, T: DeviceRepr, M: RunMode> Deref for HostBuffer<'_, 'id, T, M> {
    type Target = PinnedSlice<'id, T, M>;
    fn deref(&self) -> &PinnedSlice<'id, T, M> {
        self.as_pinned()
    }
}

impl<'id, T: DeviceRepr, M: RunMode> DerefMut for HostBuffer<'_, 'id, T, M> {
    fn deref_mut(&mut self) -> &mut PinnedSlice<'id, T, M> {
        self.as_pinned_mut()
    }
}

impl<T: DeviceRepr + core::fmt::Debug, M: RunMode> core::fmt::Debug for HostBuffer<'_, '_, T, M> {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("HostBuffer")
            .field("mode", &M::KIND)
            .field("data", &self.as_pinned())
            .finish()
    }
}

impl<T: DeviceRepr, M: RunMode> RawSource for HostBuffer<'_, '_, T, M> {
    fn raw(&self) -> Mem<'_> {
        self.alloc.mem()
    }
}
impl<T: DeviceRepr, M: RunMode> RawDest for HostBuffer<'_, '_, T, M> {
    fn raw_mut(&mut self) -> MemMut<'_> {
        self.alloc.mem_mut()
    }
}
impl<'id, T: DeviceRepr, M: RunMode> Memory<'id> for HostBuffer<'_, 'id, T, M> {
    type Elem = T;
    type Place = OnHost;
    fn len(&self) -> usize {
        self.alloc.len() / core::mem::size_of::<T>()
    }
}
impl<'id, T: DeviceRepr, M: RunMode> MemoryMut<'id> for HostBuffer<'_, 'id, T, M> {}
impl<'id, T: DeviceRepr, M: RunMode> HostMemory<'id> for HostBuffer<'_, 'id, T, M> {}
impl<T: DeviceRepr, M: RunMode> Stable for HostBuffer<'_, '_, T, M> {}
impl<'id, T: DeviceRepr, M: RunMode> PinnedMemory<'id> for HostBuffer<'_, 'id, T, M> {}
impl<T: DeviceRepr, M: RunMode> CpuVisible for HostBuffer<'_, '_, T, M> {
    type Item = T;
}

/// `for x in &buf`: the elements by value, in every run mode (as
/// [`PinnedSlice::iter`]).
impl<'a, 'id, T: DeviceRepr, M: RunMode> IntoIterator for &'a HostBuffer<'_, 'id, T, M> {
    type Item = T;
    type IntoIter = PinnedIter<'a, T>;
    fn into_iter(self) -> PinnedIter<'a, T> {
        self.as_pinned().iter()
    }
}

/// Memory from `aclrtMallocHost` that has not been written yet.
///
/// It cannot be read, viewed as a slice, or used as a copy source. Turn it
/// into a [`HostBuffer`] by [`zeroed`](Self::zeroed), [`fill`](Self::fill),
/// [`init_from`](Self::init_from), or
/// [`Context::copy_into_uninit`](crate::Context::copy_into_uninit).
#[doc(alias = "aclrtMallocHost")]
pub struct HostBufferUninit<'ctx, 'id, T, M> {
    alloc: ffi::mem::HostAllocUninit<'ctx>,
    _brand: PhantomData<Id<'id>>,
    _elem: PhantomData<T>,
    _mode: PhantomData<M>,
}

impl<'ctx, 'id, T: DeviceRepr, M: RunMode> HostBufferUninit<'ctx, 'id, T, M> {
    pub(crate) fn from_alloc(alloc: ffi::mem::HostAllocUninit<'ctx>) -> Self {
        HostBufferUninit {
            alloc,
            _brand: PhantomData,
            _elem: PhantomData,
            _mode: PhantomData,
        }
    }

    /// Number of elements it will hold.
    pub fn len(&self) -> usize {
        self.alloc.len() / core::mem::size_of::<T>()
    }

    /// Whether it holds no elements (never true).
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Initialise every element to zero (all bits zero).
    pub fn zeroed(self) -> HostBuffer<'ctx, 'id, T, M> {
        HostBuffer::from_alloc(self.alloc.zeroed())
    }

    /// Initialise every byte to `byte` with `aclrtMemset`.
    #[doc(alias = "aclrtMemset")]
    pub fn fill(self, byte: u8) -> Result<HostBuffer<'ctx, 'id, T, M>> {
        self.alloc
            .fill(byte)
            .map(HostBuffer::from_alloc)
            .map_err(|(_, e)| e)
    }

    /// Initialise from `src`, which must have exactly [`len`](Self::len) elements.
    pub fn init_from(self, src: &[T]) -> Result<HostBuffer<'ctx, 'id, T, M>> {
        if src.len() != self.len() {
            return Err(Error::LengthMismatch {
                src: src.len(),
                dst: self.len(),
            });
        }
        Ok(HostBuffer::from_alloc(
            self.alloc.write(bytemuck::cast_slice(src)),
        ))
    }

    pub(crate) fn copy_init(
        self,
        src: Mem<'_>,
        kind: aclrt_sys::aclrtMemcpyKind,
    ) -> Result<HostBuffer<'ctx, 'id, T, M>> {
        self.alloc
            .copy_from(src, kind)
            .map(HostBuffer::from_alloc)
            .map_err(|(_, e)| e)
    }

    /// Free the memory now (`aclrtFreeHost`), reporting the runtime's error.
    pub fn free(self) -> Result<()> {
        self.alloc.free()
    }
}

impl<T: DeviceRepr, M: RunMode> core::fmt::Debug for HostBufferUninit<'_, '_, T, M> {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("HostBufferUninit")
            .field("len", &self.len())
            .finish_non_exhaustive()
    }
}
