//! Device memory: [`DeviceBuffer`], its views and its chunks.

use core::marker::PhantomData;
use core::ops::{Bound, RangeBounds};

use generativity::Id;

use crate::error::{Error, Result};
use crate::ffi::access::{RawDest, RawSource, Stable};
use crate::ffi::{DeviceAlloc, Mem, MemMut};

use super::kinds::{
    DeviceMemory, DeviceRepr, Memory, MemoryMut, OnDevice, PinnedMemory, RuntimeMemory,
};

impl<'id, T: DeviceRepr> RuntimeMemory<'id> for DeviceBuffer<'_, 'id, T> {}
impl<'id, T: DeviceRepr> RuntimeMemory<'id> for DeviceView<'_, 'id, T> {}
impl<'id, T: DeviceRepr> RuntimeMemory<'id> for DeviceViewMut<'_, 'id, T> {}

/// Device memory (`aclrtMalloc`) of `len` elements of `T`, owned, belonging to
/// the context branded `'id` and borrowing it for `'ctx`.
///
/// The CPU never touches it: there is no slice view, no `Deref`, no indexing.
/// Move data in and out with the copy methods of [`Context`](crate::Context).
/// Freed with `aclrtFree` on drop (or [`free`](DeviceBuffer::free), which
/// reports the error `Drop` has to swallow). Its contents start unspecified
/// (but every bit pattern is a valid `T`).
#[doc(alias = "aclrtMalloc")]
#[doc(alias = "aclrtFree")]
pub struct DeviceBuffer<'ctx, 'id, T> {
    alloc: DeviceAlloc<'ctx>,
    _brand: PhantomData<Id<'id>>,
    _elem: PhantomData<T>,
}

impl<'ctx, 'id, T: DeviceRepr> DeviceBuffer<'ctx, 'id, T> {
    pub(crate) fn from_alloc(alloc: DeviceAlloc<'ctx>) -> Self {
        DeviceBuffer {
            alloc,
            _brand: PhantomData,
            _elem: PhantomData,
        }
    }

    /// Number of elements.
    pub fn len(&self) -> usize {
        self.alloc.len() / core::mem::size_of::<T>()
    }

    /// Whether the buffer has no elements (never true: zero-sized
    /// allocations are refused).
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The device address, for diagnostics and interop (never dereferenceable
    /// by the CPU).
    pub fn as_device_ptr(&self) -> *const core::ffi::c_void {
        self.alloc.as_ptr()
    }

    /// A read-only view of `range`.
    pub fn view(&self, range: impl RangeBounds<usize>) -> Result<DeviceView<'_, 'id, T>> {
        let (start, end) = bounds(range, self.len())?;
        let size = core::mem::size_of::<T>();
        Ok(DeviceView {
            mem: self.alloc.mem().slice(start * size, (end - start) * size),
            _brand: PhantomData,
            _elem: PhantomData,
        })
    }

    /// A writable view of `range`.
    pub fn view_mut(
        &mut self,
        range: impl RangeBounds<usize>,
    ) -> Result<DeviceViewMut<'_, 'id, T>> {
        let (start, end) = bounds(range, self.len())?;
        let size = core::mem::size_of::<T>();
        Ok(DeviceViewMut {
            mem: self
                .alloc
                .mem_mut()
                .slice(start * size, (end - start) * size),
            _brand: PhantomData,
            _elem: PhantomData,
        })
    }

    /// The elements `[0, mid)` and `[mid, len)` as two read-only views.
    ///
    /// Errors: [`Error::OutOfRange`] when `mid > len`.
    pub fn split_at(&self, mid: usize) -> Result<(DeviceView<'_, 'id, T>, DeviceView<'_, 'id, T>)> {
        self.view(..)?.split_at(mid)
    }

    /// The elements `[0, mid)` and `[mid, len)` as two writable views that
    /// do not overlap: different lanes may write them at the same time.
    ///
    /// ```
    /// # let _sim = aclrt::sim::exclusive();
    /// # let acl = aclrt::Acl::init()?;
    /// # let device = acl.require::<aclrt::HostMode>()?.device(0)?;
    /// # aclrt::make_guard!(guard);
    /// # let ctx = device.create_context(guard)?;
    /// let mut buf = ctx.alloc::<u32>(8)?;
    /// let (low, high) = buf.split_at_mut(3)?;
    /// assert_eq!((low.len(), high.len()), (3, 5));
    /// # Ok::<(), aclrt::Error>(())
    /// ```
    ///
    /// Errors: [`Error::OutOfRange`] when `mid > len`.
    pub fn split_at_mut(
        &mut self,
        mid: usize,
    ) -> Result<(DeviceViewMut<'_, 'id, T>, DeviceViewMut<'_, 'id, T>)> {
        self.view_mut(..)?.split_at_mut(mid)
    }

    /// Consecutive read-only views of `chunk_size` elements (the last may
    /// be shorter).
    ///
    /// Errors: [`Error::ZeroChunkSize`].
    pub fn chunks(&self, chunk_size: usize) -> Result<DeviceChunks<'_, 'id, T>> {
        self.view(..)?.into_chunks(chunk_size)
    }

    /// Consecutive writable views of `chunk_size` elements (the last may be
    /// shorter), which do not overlap: e.g. one per lane of a pipeline.
    ///
    /// Errors: [`Error::ZeroChunkSize`].
    pub fn chunks_mut(&mut self, chunk_size: usize) -> Result<DeviceChunksMut<'_, 'id, T>> {
        self.view_mut(..)?.into_chunks(chunk_size)
    }

    /// Free the memory now (`aclrtFree`), reporting the runtime's error.
    ///
    /// Errors: the runtime's; [`Error::LiveChildren`] (nothing called, the
    /// memory leaked) if an IPC key of it is still open (an
    /// [`IpcExport`](crate::IpcExport) that was forgotten).
    #[doc(alias = "aclrtFree")]
    pub fn free(self) -> Result<()> {
        self.alloc.free()
    }
}

impl<'b, 'id, T: DeviceRepr> DeviceView<'b, 'id, T> {
    /// Number of elements.
    pub fn len(&self) -> usize {
        self.mem.len() / core::mem::size_of::<T>()
    }

    /// Whether the view has no elements.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The elements `[0, mid)` and `[mid, len)` of this view.
    ///
    /// Errors: [`Error::OutOfRange`] when `mid > len`.
    pub fn split_at(self, mid: usize) -> Result<(Self, Self)> {
        let len = self.len();
        if mid > len {
            return Err(Error::OutOfRange {
                start: mid,
                end: mid,
                len,
            });
        }
        let (a, b) = self.mem.split_at(mid * core::mem::size_of::<T>());
        Ok((Self::from_mem(a), Self::from_mem(b)))
    }

    /// This view as consecutive views of `chunk_size` elements.
    ///
    /// Errors: [`Error::ZeroChunkSize`].
    pub fn into_chunks(self, chunk_size: usize) -> Result<DeviceChunks<'b, 'id, T>> {
        if chunk_size == 0 {
            return Err(Error::ZeroChunkSize);
        }
        Ok(DeviceChunks {
            rest: Some(self),
            chunk: chunk_size,
        })
    }

    fn from_mem(mem: Mem<'b>) -> Self {
        DeviceView {
            mem,
            _brand: PhantomData,
            _elem: PhantomData,
        }
    }
}

impl<T> Clone for DeviceView<'_, '_, T> {
    fn clone(&self) -> Self {
        *self
    }
}
impl<T> Copy for DeviceView<'_, '_, T> {}

impl<'b, 'id, T: DeviceRepr> DeviceViewMut<'b, 'id, T> {
    /// Number of elements.
    pub fn len(&self) -> usize {
        self.mem.len() / core::mem::size_of::<T>()
    }

    /// Whether the view has no elements.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The elements `[0, mid)` and `[mid, len)` of this view, both writable
    /// (they do not overlap).
    ///
    /// Errors: [`Error::OutOfRange`] when `mid > len`.
    pub fn split_at_mut(self, mid: usize) -> Result<(Self, Self)> {
        let len = self.len();
        if mid > len {
            return Err(Error::OutOfRange {
                start: mid,
                end: mid,
                len,
            });
        }
        let (a, b) = self.mem.split_at(mid * core::mem::size_of::<T>());
        Ok((Self::from_mem(a), Self::from_mem(b)))
    }

    /// This view as consecutive writable views of `chunk_size` elements.
    ///
    /// Errors: [`Error::ZeroChunkSize`].
    pub fn into_chunks(self, chunk_size: usize) -> Result<DeviceChunksMut<'b, 'id, T>> {
        if chunk_size == 0 {
            return Err(Error::ZeroChunkSize);
        }
        Ok(DeviceChunksMut {
            rest: Some(self),
            chunk: chunk_size,
        })
    }

    /// A read-only view of the same elements, for as long as this one is
    /// borrowed.
    pub fn as_view(&self) -> DeviceView<'_, 'id, T> {
        DeviceView::from_mem(self.mem.reborrow())
    }

    fn from_mem(mem: MemMut<'b>) -> Self {
        DeviceViewMut {
            mem,
            _brand: PhantomData,
            _elem: PhantomData,
        }
    }
}

/// The read-only views of [`DeviceBuffer::chunks`] / [`DeviceView::into_chunks`].
pub struct DeviceChunks<'b, 'id, T> {
    rest: Option<DeviceView<'b, 'id, T>>,
    chunk: usize,
}

impl<T: DeviceRepr> core::fmt::Debug for DeviceChunks<'_, '_, T> {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("DeviceChunks")
            .field("rest", &self.rest)
            .field("chunk", &self.chunk)
            .finish()
    }
}

impl<'b, 'id, T: DeviceRepr> Iterator for DeviceChunks<'b, 'id, T> {
    type Item = DeviceView<'b, 'id, T>;
    fn next(&mut self) -> Option<Self::Item> {
        let rest = self.rest.take().filter(|r| !r.is_empty())?;
        let at = self.chunk.min(rest.len());
        let (head, tail) = rest.split_at(at).ok()?;
        self.rest = Some(tail);
        Some(head)
    }
}

/// The writable views of [`DeviceBuffer::chunks_mut`] /
/// [`DeviceViewMut::into_chunks`]; they do not overlap.
pub struct DeviceChunksMut<'b, 'id, T> {
    rest: Option<DeviceViewMut<'b, 'id, T>>,
    chunk: usize,
}

impl<T: DeviceRepr> core::fmt::Debug for DeviceChunksMut<'_, '_, T> {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("DeviceChunksMut")
            .field("rest", &self.rest)
            .field("chunk", &self.chunk)
            .finish()
    }
}

impl<'b, 'id, T: DeviceRepr> Iterator for DeviceChunksMut<'b, 'id, T> {
    type Item = DeviceViewMut<'b, 'id, T>;
    fn next(&mut self) -> Option<Self::Item> {
        let rest = self.rest.take().filter(|r| !r.is_empty())?;
        let at = self.chunk.min(rest.len());
        let (head, tail) = rest.split_at_mut(at).ok()?;
        self.rest = Some(tail);
        Some(head)
    }
}

impl<T: DeviceRepr> core::fmt::Debug for DeviceBuffer<'_, '_, T> {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("DeviceBuffer")
            .field("address", &self.alloc.as_ptr())
            .field("len", &self.len())
            .field("elem", &core::any::type_name::<T>())
            .finish()
    }
}

fn bounds(range: impl RangeBounds<usize>, len: usize) -> Result<(usize, usize)> {
    let start = match range.start_bound() {
        Bound::Included(&s) => s,
        Bound::Excluded(&s) => s.saturating_add(1),
        Bound::Unbounded => 0,
    };
    let end = match range.end_bound() {
        Bound::Included(&e) => e.saturating_add(1),
        Bound::Excluded(&e) => e,
        Bound::Unbounded => len,
    };
    if start > end || end > len {
        return Err(Error::OutOfRange { start, end, len });
    }
    Ok((start, end))
}

impl<T: DeviceRepr> RawSource for DeviceBuffer<'_, '_, T> {
    fn raw(&self) -> Mem<'_> {
        self.alloc.mem()
    }
}
impl<T: DeviceRepr> RawDest for DeviceBuffer<'_, '_, T> {
    fn raw_mut(&mut self) -> MemMut<'_> {
        self.alloc.mem_mut()
    }
}
impl<'id, T: DeviceRepr> Memory<'id> for DeviceBuffer<'_, 'id, T> {
    type Elem = T;
    type Place = OnDevice;
    fn len(&self) -> usize {
        DeviceBuffer::len(self)
    }
}
impl<'id, T: DeviceRepr> MemoryMut<'id> for DeviceBuffer<'_, 'id, T> {}
impl<'id, T: DeviceRepr> DeviceMemory<'id> for DeviceBuffer<'_, 'id, T> {}
impl<T: DeviceRepr> Stable for DeviceBuffer<'_, '_, T> {}
impl<'id, T: DeviceRepr> PinnedMemory<'id> for DeviceBuffer<'_, 'id, T> {}

/// A read-only view of part of a [`DeviceBuffer`].
pub struct DeviceView<'b, 'id, T> {
    mem: Mem<'b>,
    _brand: PhantomData<Id<'id>>,
    _elem: PhantomData<T>,
}

impl<T: DeviceRepr> core::fmt::Debug for DeviceView<'_, '_, T> {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("DeviceView")
            .field("address", &self.mem.as_ptr())
            .field("len", &(self.mem.len() / core::mem::size_of::<T>()))
            .finish()
    }
}

/// A writable view of part of a [`DeviceBuffer`].
pub struct DeviceViewMut<'b, 'id, T> {
    mem: MemMut<'b>,
    _brand: PhantomData<Id<'id>>,
    _elem: PhantomData<T>,
}

impl<T: DeviceRepr> core::fmt::Debug for DeviceViewMut<'_, '_, T> {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("DeviceViewMut")
            .field("address", &self.mem.reborrow().as_ptr())
            .field("len", &(self.mem.len() / core::mem::size_of::<T>()))
            .finish()
    }
}

impl<'b, 'id, T: DeviceRepr> DeviceView<'b, 'id, T> {
    /// A view of device memory of the context branded `'id` that stays
    /// valid for `'b` (a mapped span, an IPC import).
    pub(crate) fn from_mapped(mem: Mem<'b>) -> Self {
        let size = core::mem::size_of::<T>();
        DeviceView {
            mem: mem.slice(0, mem.len().checked_div(size).unwrap_or(0) * size),
            _brand: PhantomData,
            _elem: PhantomData,
        }
    }
}

impl<'b, 'id, T: DeviceRepr> DeviceViewMut<'b, 'id, T> {
    /// A writable view of device memory of the context branded `'id`,
    /// exclusively borrowed for `'b`.
    pub(crate) fn from_mapped(mem: MemMut<'b>) -> Self {
        let size = core::mem::size_of::<T>();
        let bytes = mem.len().checked_div(size).unwrap_or(0) * size;
        DeviceViewMut {
            mem: mem.slice(0, bytes),
            _brand: PhantomData,
            _elem: PhantomData,
        }
    }
}

impl<'b, T> DeviceView<'b, '_, T> {
    /// The memory, for as long as the buffer is borrowed.
    pub(crate) fn mem(&self) -> Mem<'b> {
        self.mem
    }
}

impl<T> crate::ffi::scope::keep_seal::Sealed for DeviceView<'_, '_, T> {}
impl<T> crate::ffi::scope::Keep for DeviceView<'_, '_, T> {}
impl<T> crate::ffi::scope::keep_seal::Sealed for DeviceViewMut<'_, '_, T> {}
impl<T> crate::ffi::scope::Keep for DeviceViewMut<'_, '_, T> {}
impl<T> crate::ffi::scope::keep_seal::Sealed for DeviceBuffer<'_, '_, T> {}
impl<T> crate::ffi::scope::Keep for DeviceBuffer<'_, '_, T> {}

impl<T: DeviceRepr> RawSource for DeviceView<'_, '_, T> {
    fn raw(&self) -> Mem<'_> {
        self.mem
    }
}
impl<'id, T: DeviceRepr> Memory<'id> for DeviceView<'_, 'id, T> {
    type Elem = T;
    type Place = OnDevice;
    fn len(&self) -> usize {
        self.mem.len() / core::mem::size_of::<T>()
    }
}
impl<'id, T: DeviceRepr> DeviceMemory<'id> for DeviceView<'_, 'id, T> {}
impl<T: DeviceRepr> Stable for DeviceView<'_, '_, T> {}
impl<'id, T: DeviceRepr> PinnedMemory<'id> for DeviceView<'_, 'id, T> {}

impl<T: DeviceRepr> RawSource for DeviceViewMut<'_, '_, T> {
    fn raw(&self) -> Mem<'_> {
        self.mem.reborrow()
    }
}
impl<T: DeviceRepr> RawDest for DeviceViewMut<'_, '_, T> {
    fn raw_mut(&mut self) -> MemMut<'_> {
        self.mem.reborrow_mut()
    }
}
impl<'id, T: DeviceRepr> Memory<'id> for DeviceViewMut<'_, 'id, T> {
    type Elem = T;
    type Place = OnDevice;
    fn len(&self) -> usize {
        self.mem.len() / core::mem::size_of::<T>()
    }
}
impl<'id, T: DeviceRepr> MemoryMut<'id> for DeviceViewMut<'_, 'id, T> {}
impl<'id, T: DeviceRepr> DeviceMemory<'id> for DeviceViewMut<'_, 'id, T> {}
impl<T: DeviceRepr> Stable for DeviceViewMut<'_, '_, T> {}
impl<'id, T: DeviceRepr> PinnedMemory<'id> for DeviceViewMut<'_, 'id, T> {}
