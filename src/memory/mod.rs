//! Memory residency as types.
//!
//! | type | C allocation | CPU access | element bound |
//! | --- | --- | --- | --- |
//! | [`DeviceBuffer`] | `aclrtMalloc` | never (no slice, no `Deref`, no indexing) | [`DeviceRepr`] |
//! | [`HostBuffer`] (`M` = [`HostMode`](crate::HostMode)) | `aclrtMallocHost`, pinned host memory | `Deref<Target = PinnedSlice>`, which derefs to `[T]` (and indexes to `&T`) | [`DeviceRepr`] |
//! | [`HostBuffer`] (`M` = [`DeviceMode`](crate::DeviceMode)) | `aclrtMallocHost`, which returns device memory the app's CPU addresses | `Deref<Target = PinnedSlice>`: elements by value, never a `&[T]`, `&T` or `&mut T` | [`DeviceRepr`] |
//! | [`PinnedSlice`] | a part of a [`HostBuffer`], still branded | elements by value (`get`, `set`, `update`, `iter`, `to_vec`, ...); `[T]`, `[i]` in host run mode only | [`DeviceRepr`] |
//! | [`HostBufferUninit`] | `aclrtMallocHost`, not yet written | none until initialised | [`DeviceRepr`] |
//! | `[T]`, `Vec<T>`, `[T; N]` | pageable host memory of the program | ordinary Rust | [`DeviceRepr`] |
//!
//! Copies take a source implementing [`Memory`] and a destination
//! implementing [`MemoryMut`]; the memcpy kind is computed at compile time
//! from the [`Place`] of both types and the run mode.
//! Every buffer carries the brand `'id` of the context that allocated it, and
//! every copy method of `Context<'_, 'id, _>` only accepts memory with the
//! same brand (pageable slices carry any brand). In device run mode, where
//! pinned memory is device memory of its own context, no reference into it
//! is handed out, neither a brand-free `&[T]` nor a `&T` (which
//! `core::slice::from_ref` would turn into one): see [`PageableRunMode`] and
//! [`PinnedSlice`].

use core::marker::PhantomData;
use core::ops::{Bound, Deref, DerefMut, Index, IndexMut, RangeBounds};

use generativity::Id;

use crate::error::{Error, Result};
use crate::ffi::access::Residency;
use crate::ffi::{self, DeviceAlloc, HostAlloc, Mem, MemMut};
use crate::mode::RunMode;

/// Plain-data element types that may live in device or pinned memory.
///
/// Device and pinned memory hold raw bytes that the runtime copies around
/// without knowing Rust types, so an element must be valid for every bit
/// pattern, have no padding and no pointers: exactly [`bytemuck::Pod`]. This
/// trait adds nothing to `Pod` but a clear compile error. Implemented for the
/// primitive numbers and arrays of them; for your own `#[repr(C)]` type,
/// derive `bytemuck::Pod` and `bytemuck::Zeroable` and write
/// `impl aclrt::DeviceRepr for MyType {}`.
#[diagnostic::on_unimplemented(
    message = "`{Self}` is not a plain-data element type, so it cannot live in device or pinned memory",
    label = "`{Self}` does not implement `aclrt::DeviceRepr`",
    note = "the runtime copies raw bytes: elements must be `bytemuck::Pod` (no pointers, no padding, every bit pattern valid) and implement `aclrt::DeviceRepr`",
    note = "for your own `#[repr(C)]` struct: `#[derive(Clone, Copy, bytemuck::Pod, bytemuck::Zeroable)]` and `impl aclrt::DeviceRepr for MyType {{}}`"
)]
pub trait DeviceRepr: bytemuck::Pod + Send + Sync {}

macro_rules! device_repr {
    ($($t:ty),*) => { $(impl DeviceRepr for $t {})* };
}
device_repr!(
    u8, u16, u32, u64, u128, usize, i8, i16, i32, i64, i128, isize, f32, f64
);
impl<T: DeviceRepr, const N: usize> DeviceRepr for [T; N] where [T; N]: bytemuck::Pod {}

pub(crate) use crate::ffi::access;
use access::{CpuVisible, RawDest, RawSource, Stable};

/// Memory the runtime allocated, which asynchronous work and `aclrtMemset`
/// may use: pinned host memory ([`HostBuffer`]) or device memory
/// ([`DeviceBuffer`] and its views).
///
/// Pageable memory (`[T]`, `Vec<T>`) is not: the runtime copies it
/// synchronously (and may fail unpredictably otherwise), and a memset of host
/// memory it did not allocate is undefined, so pageable memory only takes
/// part in the synchronous copies of [`Context`](crate::Context).
#[diagnostic::on_unimplemented(
    message = "`{Self}` is not memory the runtime allocated (pinned host memory or device memory)",
    label = "runtime memory is required here",
    note = "asynchronous copies and `aclrtMemset` need memory the runtime allocated: a `HostBuffer` (`Context::alloc_host_*`, pinned) or a `DeviceBuffer`, or parts of them (`PinnedSlice`, device views); asynchronous copies also take registered host memory (`Context::register_host`)",
    note = "for pageable memory (`Vec`, slices) use the synchronous `Context::copy`, and `slice.fill(..)` instead of a memset",
    note = "a buffer shared by lanes (`Shared`) is read through `&lane.read(&shared)?`"
)]
pub trait PinnedMemory<'id>: Memory<'id> + Stable {}

/// Memory the runtime allocated: device memory ([`DeviceBuffer`]
/// and its views), pinned host memory ([`HostBuffer`],
/// [`PinnedSlice`]) and managed memory
/// ([`ManagedBuffer`](crate::ManagedBuffer)): what `aclrtMemset` / `aclrtMemsetAsync` may fill.
///
/// Registered host memory ([`HostRegistration`](crate::HostRegistration)) is pinned memory for
/// copies but not this: the runtime documents a memset of host memory it
/// did not allocate as undefined behaviour. Sealed (through
/// [`PinnedMemory`]).
#[diagnostic::on_unimplemented(
    message = "`{Self}` is not memory the runtime allocated, so `aclrtMemset` cannot fill it",
    label = "not device, pinned or managed memory of the runtime",
    note = "memsets need a `DeviceBuffer`, `HostBuffer` or `ManagedBuffer`; a memset of host memory the runtime did not allocate (pageable `Vec`/slices, or registered memory: `HostRegistration`) is undefined",
    note = "fill host memory with `slice.fill(..)` (for a registration: `reg.as_mut_slice().fill(..)`, outside the scope that uses it)"
)]
pub trait RuntimeMemory<'id>: PinnedMemory<'id> {}

impl<'id, T: DeviceRepr> RuntimeMemory<'id> for DeviceBuffer<'_, 'id, T> {}
impl<'id, T: DeviceRepr> RuntimeMemory<'id> for DeviceView<'_, 'id, T> {}
impl<'id, T: DeviceRepr> RuntimeMemory<'id> for DeviceViewMut<'_, 'id, T> {}
impl<'id, T: DeviceRepr, M: RunMode> RuntimeMemory<'id> for HostBuffer<'_, 'id, T, M> {}
impl<'id, T: DeviceRepr, M: RunMode> RuntimeMemory<'id> for PinnedSlice<'id, T, M> {}

/// Memory a copy can read, belonging to the context branded `'id`.
///
/// Implemented by [`DeviceBuffer`], [`DeviceView`], [`DeviceViewMut`],
/// [`HostBuffer`], [`PinnedSlice`] (each only for the brand of the context
/// that allocated it)
/// and by pageable host memory (`[T]`, `Vec<T>`, `[T; N]`, for every brand).
/// Sealed.
#[diagnostic::on_unimplemented(
    message = "`{Self}` is not memory a copy can read in this context",
    label = "not a copy source of this context",
    note = "sources are `DeviceBuffer`, `DeviceView(Mut)`, `HostBuffer` of the same context, or pageable slices `[T]`, `Vec<T>`, `[T; N]`",
    note = "an uninitialised `HostBufferUninit` must be initialised first (`zeroed`, `init_from`, or `Context::copy_into_uninit`)"
)]
pub trait Memory<'id>: RawSource {
    /// The element type.
    type Elem: DeviceRepr;
    /// Where the memory lies, as a type ([`OnHost`] or [`OnDevice`]): with
    /// the run mode, it decides the memcpy kind of every copy.
    type Place: Place;
    /// Number of elements.
    fn len(&self) -> usize;
    /// Whether there are no elements.
    fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

/// Memory a copy or memset can write, belonging to the context branded `'id`.
#[diagnostic::on_unimplemented(
    message = "`{Self}` is not memory a copy can write in this context",
    label = "not a writable copy destination of this context",
    note = "destinations are `&mut` of `DeviceBuffer`, `DeviceViewMut`, `HostBuffer` of the same context, or pageable `[T]`, `Vec<T>`, `[T; N]`"
)]
pub trait MemoryMut<'id>: Memory<'id> + RawDest {}

/// Host memory (pageable or pinned) of the context branded `'id`.
#[diagnostic::on_unimplemented(
    message = "`{Self}` is not host memory",
    label = "expected host memory here",
    note = "host memory is a `HostBuffer` or a pageable slice `[T]`/`Vec<T>`; device memory (`DeviceBuffer`) lies on the NPU and cannot be the host side of a transfer",
    note = "a `HostBufferUninit` must be initialised first (`zeroed`, `init_from`, or `Context::copy_into_uninit`)",
    note = "to copy between two device buffers use `Context::copy_on_device` (or the generic `Context::copy`)"
)]
pub trait HostMemory<'id>: Memory<'id> {}

/// Device memory of the context branded `'id`.
#[diagnostic::on_unimplemented(
    message = "`{Self}` is not device memory",
    label = "expected device memory here",
    note = "device memory comes from `Context::alloc` (`DeviceBuffer`) or views of it; host memory cannot be the device side of a transfer",
    note = "to copy host memory to the device use the generic `Context::copy` (or, in host run mode, `Context::upload`)"
)]
pub trait DeviceMemory<'id>: Memory<'id> {}

/// Memory that is device memory in run mode `M`, of the context branded
/// `'id`: what [`Context::copy_on_device`](crate::Context::copy_on_device)
/// accepts.
///
/// Every [`DeviceMemory`] ([`DeviceBuffer`], [`DeviceView`],
/// [`DeviceViewMut`]) in every run mode; and, in [`DeviceMode`](crate::DeviceMode) only, pinned
/// memory from `aclrtMallocHost` ([`HostBuffer`], [`PinnedSlice`]), which
/// the runtime returns as device memory when the application runs on the
/// device (acl-facts 5.6). Pageable memory (`[T]`, `Vec<T>`) never is.
/// Sealed (every implementing type is this crate's).
#[diagnostic::on_unimplemented(
    message = "`{Self}` is not device memory in run mode `{M}`",
    label = "not device memory in this run mode",
    note = "device memory is a `DeviceBuffer` or a view of one; `aclrtMallocHost` memory (`HostBuffer`) is device memory only in `DeviceMode` (the application runs on the device)",
    note = "to copy host memory to the device in `HostMode` use `Context::upload` (or the generic `Context::copy`)"
)]
pub trait DeviceResident<'id, M: RunMode>: Memory<'id> {}

// Device memory is device memory in every run mode (so code generic over
// `S: DeviceMemory<'id>` keeps calling `copy_on_device`).
impl<'id, M: RunMode, X: DeviceMemory<'id> + ?Sized> DeviceResident<'id, M> for X {}
impl<'id, T: DeviceRepr> DeviceResident<'id, crate::mode::DeviceMode>
    for HostBuffer<'_, 'id, T, crate::mode::DeviceMode>
{
}
impl<'id, T: DeviceRepr> DeviceResident<'id, crate::mode::DeviceMode>
    for PinnedSlice<'id, T, crate::mode::DeviceMode>
{
}

/// Where memory lies, as a type: [`OnHost`] or [`OnDevice`]. Sealed.
pub trait Place: access::PlaceSealed + 'static {}

/// Host memory (pageable or pinned) as a type.
#[derive(Clone, Copy, Debug)]
pub struct OnHost;

/// Device memory as a type.
#[derive(Clone, Copy, Debug)]
pub struct OnDevice;

impl access::PlaceSealed for OnHost {
    const RESIDENCY: Residency = Residency::Host;
}
impl access::PlaceSealed for OnDevice {
    const RESIDENCY: Residency = Residency::Device;
}
impl Place for OnHost {}
impl Place for OnDevice {}

/// The direction of a copy from a source [`Place`] to the destination
/// place `D`, as a type ([`HostToHost`], [`HostToDevice`], [`DeviceToHost`],
/// [`DeviceToDevice`]).
pub trait CopyDirection<D: Place>: Place {
    /// The direction.
    type Direction;
}
/// Host to host.
#[derive(Clone, Copy, Debug)]
pub struct HostToHost;
/// Host to device.
#[derive(Clone, Copy, Debug)]
pub struct HostToDevice;
/// Device to host.
#[derive(Clone, Copy, Debug)]
pub struct DeviceToHost;
/// Device to device.
#[derive(Clone, Copy, Debug)]
pub struct DeviceToDevice;
impl CopyDirection<OnHost> for OnHost {
    type Direction = HostToHost;
}
impl CopyDirection<OnDevice> for OnHost {
    type Direction = HostToDevice;
}
impl CopyDirection<OnHost> for OnDevice {
    type Direction = DeviceToHost;
}
impl CopyDirection<OnDevice> for OnDevice {
    type Direction = DeviceToDevice;
}

/// Copy directions that an asynchronous copy (`aclrtMemcpyAsync`) supports
/// in run mode `M`: everything except host-to-host in host run mode, which
/// the runtime refuses on a host (207000). In device run mode every copy is
/// device-to-device.
#[diagnostic::on_unimplemented(
    message = "asynchronous host-to-host copies are not supported by the runtime on a host (207000)",
    label = "both sides of this asynchronous copy are host memory",
    note = "copy between host buffers with the synchronous `Context::copy`, or with the slices themselves (`dst.copy_from_slice(&src)`)"
)]
pub trait AsyncDirection<M: RunMode> {}
impl<M: RunMode> AsyncDirection<M> for HostToDevice {}
impl<M: RunMode> AsyncDirection<M> for DeviceToHost {}
impl<M: RunMode> AsyncDirection<M> for DeviceToDevice {}
impl AsyncDirection<crate::DeviceMode> for HostToHost {}

// ------------------------------------------------------------ pageable memory

impl<T: DeviceRepr> RawSource for [T] {
    fn raw(&self) -> Mem<'_> {
        Mem::from_slice(self)
    }
}
impl<T: DeviceRepr> RawDest for [T] {
    fn raw_mut(&mut self) -> MemMut<'_> {
        MemMut::from_slice(self)
    }
}
impl<'id, T: DeviceRepr> Memory<'id> for [T] {
    type Elem = T;
    type Place = OnHost;
    fn len(&self) -> usize {
        <[T]>::len(self)
    }
}
impl<'id, T: DeviceRepr> MemoryMut<'id> for [T] {}
impl<'id, T: DeviceRepr> HostMemory<'id> for [T] {}

impl<T: DeviceRepr> RawSource for Vec<T> {
    fn raw(&self) -> Mem<'_> {
        Mem::from_slice(self)
    }
}
impl<T: DeviceRepr> RawDest for Vec<T> {
    fn raw_mut(&mut self) -> MemMut<'_> {
        MemMut::from_slice(self)
    }
}
impl<'id, T: DeviceRepr> Memory<'id> for Vec<T> {
    type Elem = T;
    type Place = OnHost;
    fn len(&self) -> usize {
        Vec::len(self)
    }
}
impl<'id, T: DeviceRepr> MemoryMut<'id> for Vec<T> {}
impl<'id, T: DeviceRepr> HostMemory<'id> for Vec<T> {}

impl<T: DeviceRepr, const N: usize> RawSource for [T; N] {
    fn raw(&self) -> Mem<'_> {
        Mem::from_slice(self)
    }
}
impl<T: DeviceRepr, const N: usize> RawDest for [T; N] {
    fn raw_mut(&mut self) -> MemMut<'_> {
        MemMut::from_slice(self)
    }
}
impl<'id, T: DeviceRepr, const N: usize> Memory<'id> for [T; N] {
    type Elem = T;
    type Place = OnHost;
    fn len(&self) -> usize {
        N
    }
}
impl<'id, T: DeviceRepr, const N: usize> MemoryMut<'id> for [T; N] {}
impl<'id, T: DeviceRepr, const N: usize> HostMemory<'id> for [T; N] {}

// ------------------------------------------------------------ device memory

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
impl<T, M> crate::ffi::scope::keep_seal::Sealed for HostBuffer<'_, '_, T, M> {}
impl<T, M> crate::ffi::scope::Keep for HostBuffer<'_, '_, T, M> {}
impl<T, M> crate::ffi::scope::keep_seal::Sealed for HostBufferUninit<'_, '_, T, M> {}
impl<T, M> crate::ffi::scope::Keep for HostBufferUninit<'_, '_, T, M> {}

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

// ------------------------------------------------------------ pinned host memory

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

/// Run modes in which pinned memory is ordinary host RAM, so that it may
/// also serve as pageable memory (`&[T]`, `&T`): only
/// [`HostMode`](crate::HostMode).
///
/// Bounds every view of pinned or managed memory by reference: the
/// plain-slice views ([`HostBuffer::as_slice`], [`PinnedSlice::as_slice`],
/// `Deref<Target = [T]>` of [`PinnedSlice`],
/// [`ManagedBuffer::as_slice`](crate::ManagedBuffer::as_slice)) and the
/// element references (`buf[i]` through `Index<usize>`,
/// [`PinnedSlice::iter_mut`]). In device run mode pinned and managed memory
/// are device memory of the device of their own context; pageable memory
/// carries no brand, so a `&[T]` of it could be copied by any context,
/// e.g. one of another device without peer access.
/// A `&T` is as good as a `&[T]` (`core::slice::from_ref`; and with an
/// array element type `T = [U; N]`, `&T` is itself pageable memory), so
/// device run mode hands out elements by value only.
#[diagnostic::on_unimplemented(
    message = "pinned or managed memory cannot be borrowed as a plain slice `&[T]` or element `&T` in run mode `{Self}`",
    label = "plain reference into pinned or managed memory, which needs `HostMode`",
    note = "in device run mode pinned and managed memory are device memory of their own context; a reference into them (`&**buf`, `buf.as_slice()`, `&buf[i]`) would pass for brand-free pageable memory of any context (a `&T` through `core::slice::from_ref`)",
    note = "use the buffer itself as a copy operand of its own context (`ctx.copy(&buf, ..)`, `&buf[a..b]`, `buf.split_at(..)`), or its element API by value, which works in every run mode (`buf.get(i)`, `buf.set(i, v)`, `buf.update(i, |v| ..)`, `buf.iter()`, `buf.to_vec()`, `buf.copy_from_slice(..)`, `buf.copy_to_slice(..)`, `*buf == [..]`)"
)]
pub trait PageableRunMode: RunMode {}
impl PageableRunMode for crate::HostMode {}

pub use crate::ffi::PinnedSlice;

impl<'id, T: DeviceRepr, M: RunMode> PinnedSlice<'id, T, M> {
    /// Number of elements.
    pub fn len(&self) -> usize {
        self.data.len()
    }

    /// Whether there are no elements.
    pub fn is_empty(&self) -> bool {
        self.data.is_empty()
    }

    /// The element at `index` (a copy), or `None` when out of bounds.
    pub fn get(&self, index: usize) -> Option<T> {
        self.data.get(index).copied()
    }

    /// Set the element at `index` to `value`.
    ///
    /// # Errors
    /// [`Error::OutOfRange`] when `index >= len` (nothing is written).
    pub fn set(&mut self, index: usize, value: T) -> Result<()> {
        let len = self.data.len();
        match self.data.get_mut(index) {
            Some(slot) => {
                *slot = value;
                Ok(())
            }
            None => Err(out_of_range(index, len)),
        }
    }

    /// Replace the element at `index` by `f(element)` and return the new
    /// value. `f` gets and returns a value, never a reference into the
    /// memory.
    ///
    /// # Errors
    /// [`Error::OutOfRange`] when `index >= len` (`f` is not called).
    pub fn update(&mut self, index: usize, f: impl FnOnce(T) -> T) -> Result<T> {
        let len = self.data.len();
        match self.data.get_mut(index) {
            Some(slot) => {
                *slot = f(*slot);
                Ok(*slot)
            }
            None => Err(out_of_range(index, len)),
        }
    }

    /// Replace every element by `f(element)`, in order. `f` gets and
    /// returns values, never references into the memory.
    pub fn update_all(&mut self, mut f: impl FnMut(T) -> T) {
        for slot in &mut self.data {
            *slot = f(*slot);
        }
    }

    /// The first element (a copy), or `None` when empty.
    pub fn first(&self) -> Option<T> {
        self.data.first().copied()
    }

    /// The last element (a copy), or `None` when empty.
    pub fn last(&self) -> Option<T> {
        self.data.last().copied()
    }

    /// Swap the elements at `a` and `b`.
    ///
    /// # Panics
    /// When `a` or `b` is out of bounds (as `<[T]>::swap`).
    pub fn swap(&mut self, a: usize, b: usize) {
        self.data.swap(a, b);
    }

    /// Reverse the order of the elements, in place.
    pub fn reverse(&mut self) {
        self.data.reverse();
    }

    /// An iterator over the elements, by value (copies; also what
    /// `for x in &buf` gives).
    pub fn iter(&self) -> PinnedIter<'_, T> {
        PinnedIter(self.data.iter())
    }

    /// The elements, copied into a `Vec`.
    #[allow(
        clippy::iter_cloned_collect,
        reason = "bitwise copies (`copied`): `<[T]>::to_vec` may call the element type's `Clone` (user code) with a reference into the memory"
    )]
    pub fn to_vec(&self) -> Vec<T> {
        self.data.iter().copied().collect()
    }

    /// Overwrite every element with the elements of `src`.
    ///
    /// # Panics
    /// When `src.len() != self.len()` (as `<[T]>::copy_from_slice`).
    pub fn copy_from_slice(&mut self, src: &[T]) {
        self.data.copy_from_slice(src);
    }

    /// Copy every element into `dst`.
    ///
    /// # Panics
    /// When `dst.len() != self.len()` (as `<[T]>::copy_from_slice`).
    pub fn copy_to_slice(&self, dst: &mut [T]) {
        dst.copy_from_slice(&self.data);
    }

    /// Set every element to `value`.
    pub fn fill(&mut self, value: T) {
        self.data.fill(value);
    }

    /// The elements `[0, mid)` and `[mid, len)`, both still pinned memory of
    /// this context.
    ///
    /// # Panics
    /// When `mid > len` (as `<[T]>::split_at`).
    pub fn split_at(&self, mid: usize) -> (&Self, &Self) {
        let (a, b) = self.data.split_at(mid);
        (ffi::pinned_slice(a), ffi::pinned_slice(b))
    }

    /// As [`split_at`](Self::split_at), mutably.
    ///
    /// # Panics
    /// When `mid > len` (as `<[T]>::split_at_mut`).
    pub fn split_at_mut(&mut self, mid: usize) -> (&mut Self, &mut Self) {
        let (a, b) = self.data.split_at_mut(mid);
        (ffi::pinned_slice_mut(a), ffi::pinned_slice_mut(b))
    }

    /// Consecutive parts of `chunk_size` elements (the last may be shorter),
    /// each still pinned memory of this context.
    ///
    /// # Panics
    /// When `chunk_size` is 0 (as `<[T]>::chunks`).
    pub fn chunks(&self, chunk_size: usize) -> PinnedChunks<'_, 'id, T, M> {
        PinnedChunks {
            inner: self.data.chunks(chunk_size),
            _marker: PhantomData,
        }
    }

    /// As [`chunks`](Self::chunks), mutably.
    ///
    /// # Panics
    /// When `chunk_size` is 0 (as `<[T]>::chunks_mut`).
    pub fn chunks_mut(&mut self, chunk_size: usize) -> PinnedChunksMut<'_, 'id, T, M> {
        PinnedChunksMut {
            inner: self.data.chunks_mut(chunk_size),
            _marker: PhantomData,
        }
    }

    /// The elements as a plain slice: pageable memory, usable with any
    /// context. Host run mode only ([`PageableRunMode`]), where pinned memory
    /// is ordinary host RAM; in device run mode it is device memory of its
    /// own context and has no plain-slice view.
    pub fn as_slice(&self) -> &[T]
    where
        M: PageableRunMode,
    {
        &self.data
    }

    /// As [`as_slice`](Self::as_slice), mutably. Host run mode only.
    pub fn as_mut_slice(&mut self) -> &mut [T]
    where
        M: PageableRunMode,
    {
        &mut self.data
    }

    /// The element at `index` by mutable reference, or `None` when out of
    /// bounds. Host run mode only ([`PageableRunMode`]): in device run mode
    /// a `&mut T` into pinned memory would be a writable pageable
    /// destination of any context (`core::slice::from_mut`); use
    /// [`set`](Self::set) or [`update`](Self::update) there.
    pub fn get_mut(&mut self, index: usize) -> Option<&mut T>
    where
        M: PageableRunMode,
    {
        self.data.get_mut(index)
    }

    /// An iterator over the elements by mutable reference. Host run mode
    /// only ([`PageableRunMode`]): in device run mode a `&mut T` into pinned
    /// memory would be a writable pageable destination of any context
    /// (`core::slice::from_mut`); use [`update_all`](Self::update_all),
    /// [`update`](Self::update) or [`set`](Self::set) there.
    pub fn iter_mut(&mut self) -> PinnedIterMut<'_, T>
    where
        M: PageableRunMode,
    {
        PinnedIterMut(self.data.iter_mut())
    }
}

fn out_of_range(index: usize, len: usize) -> Error {
    Error::OutOfRange {
        start: index,
        end: index.saturating_add(1),
        len,
    }
}

impl<T: DeviceRepr, M: PageableRunMode> Deref for PinnedSlice<'_, T, M> {
    type Target = [T];
    fn deref(&self) -> &[T] {
        &self.data
    }
}

impl<T: DeviceRepr, M: PageableRunMode> DerefMut for PinnedSlice<'_, T, M> {
    fn deref_mut(&mut self) -> &mut [T] {
        &mut self.data
    }
}

/// `&buf[i]`: host run mode only ([`PageableRunMode`]); in every run mode
/// use [`PinnedSlice::get`].
impl<T: DeviceRepr, M: PageableRunMode> Index<usize> for PinnedSlice<'_, T, M> {
    type Output = T;
    fn index(&self, index: usize) -> &T {
        &self.data[index]
    }
}

/// `buf[i] = v`: host run mode only ([`PageableRunMode`]); in every run
/// mode use [`PinnedSlice::set`] or [`PinnedSlice::update`].
impl<T: DeviceRepr, M: PageableRunMode> IndexMut<usize> for PinnedSlice<'_, T, M> {
    fn index_mut(&mut self, index: usize) -> &mut T {
        &mut self.data[index]
    }
}

macro_rules! pinned_range_index {
    ($($range:ty),*) => {$(
        impl<T: DeviceRepr, M: RunMode> Index<$range> for PinnedSlice<'_, T, M> {
            type Output = Self;
            fn index(&self, range: $range) -> &Self {
                ffi::pinned_slice(&self.data[range])
            }
        }
        impl<T: DeviceRepr, M: RunMode> IndexMut<$range> for PinnedSlice<'_, T, M> {
            fn index_mut(&mut self, range: $range) -> &mut Self {
                ffi::pinned_slice_mut(&mut self.data[range])
            }
        }
    )*};
}
pinned_range_index!(
    core::ops::Range<usize>,
    core::ops::RangeFrom<usize>,
    core::ops::RangeTo<usize>,
    core::ops::RangeFull,
    core::ops::RangeInclusive<usize>,
    core::ops::RangeToInclusive<usize>
);

// `Debug` and the comparisons call the element type's own `Debug` /
// `PartialEq`, which are user code: they get copies, never a reference into
// the pinned memory (see "Elements by value" on `PinnedSlice`).

impl<T: DeviceRepr + core::fmt::Debug, M: RunMode> core::fmt::Debug for PinnedSlice<'_, T, M> {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_list().entries(self.data.iter().copied()).finish()
    }
}

/// `a == b` element by element, each compared as a copy.
fn eq_by_value<A: Copy + PartialEq<B>, B: Copy>(a: &[A], b: &[B]) -> bool {
    a.len() == b.len()
        && a.iter().zip(b).all(|(x, y)| {
            let (x, y) = (*x, *y);
            x == y
        })
}

impl<T, M, T2, M2> PartialEq<PinnedSlice<'_, T2, M2>> for PinnedSlice<'_, T, M>
where
    T: DeviceRepr + PartialEq<T2>,
    M: RunMode,
    T2: DeviceRepr,
    M2: RunMode,
{
    fn eq(&self, other: &PinnedSlice<'_, T2, M2>) -> bool {
        eq_by_value(&self.data, &other.data)
    }
}
impl<T: DeviceRepr + Eq, M: RunMode> Eq for PinnedSlice<'_, T, M> {}

macro_rules! pinned_eq {
    ($([$($gen:tt)*] $other:ty),* $(,)?) => {$(
        impl<T: DeviceRepr + PartialEq, M: RunMode, $($gen)*> PartialEq<$other> for PinnedSlice<'_, T, M> {
            fn eq(&self, other: &$other) -> bool {
                eq_by_value(&self.data, &other[..])
            }
        }
        impl<T: DeviceRepr + PartialEq, M: RunMode, $($gen)*> PartialEq<PinnedSlice<'_, T, M>> for $other {
            fn eq(&self, other: &PinnedSlice<'_, T, M>) -> bool {
                eq_by_value(&self[..], &other.data)
            }
        }
    )*};
}
pinned_eq!([] [T], [const N: usize] [T; N], [] Vec<T>);

impl<T: DeviceRepr + PartialEq, M: RunMode> PartialEq<&[T]> for PinnedSlice<'_, T, M> {
    fn eq(&self, other: &&[T]) -> bool {
        eq_by_value(&self.data, other)
    }
}

/// `for x in &slice`: the elements by value, in every run mode (as
/// [`PinnedSlice::iter`]).
impl<'a, 'id, T: DeviceRepr, M: RunMode> IntoIterator for &'a PinnedSlice<'id, T, M> {
    type Item = T;
    type IntoIter = PinnedIter<'a, T>;
    fn into_iter(self) -> PinnedIter<'a, T> {
        self.iter()
    }
}

impl<T: DeviceRepr, M: RunMode> RawSource for PinnedSlice<'_, T, M> {
    fn raw(&self) -> Mem<'_> {
        Mem::from_slice(&self.data)
    }
}
impl<T: DeviceRepr, M: RunMode> RawDest for PinnedSlice<'_, T, M> {
    fn raw_mut(&mut self) -> MemMut<'_> {
        MemMut::from_slice(&mut self.data)
    }
}
impl<'id, T: DeviceRepr, M: RunMode> Memory<'id> for PinnedSlice<'id, T, M> {
    type Elem = T;
    type Place = OnHost;
    fn len(&self) -> usize {
        self.data.len()
    }
}
impl<'id, T: DeviceRepr, M: RunMode> MemoryMut<'id> for PinnedSlice<'id, T, M> {}
impl<'id, T: DeviceRepr, M: RunMode> HostMemory<'id> for PinnedSlice<'id, T, M> {}
impl<T: DeviceRepr, M: RunMode> Stable for PinnedSlice<'_, T, M> {}
impl<'id, T: DeviceRepr, M: RunMode> PinnedMemory<'id> for PinnedSlice<'id, T, M> {}
impl<T: DeviceRepr, M: RunMode> CpuVisible for PinnedSlice<'_, T, M> {
    type Item = T;
}

/// Iterator over the elements of a [`PinnedSlice`] by value
/// ([`PinnedSlice::iter`]), in every run mode.
///
/// It yields copies, never references into the memory, and unlike
/// `core::slice::Iter` it has no `as_slice`.
pub struct PinnedIter<'a, T>(core::slice::Iter<'a, T>);

impl<T> Clone for PinnedIter<'_, T> {
    fn clone(&self) -> Self {
        PinnedIter(self.0.clone())
    }
}

impl<T: Copy> Iterator for PinnedIter<'_, T> {
    type Item = T;
    #[inline]
    fn next(&mut self) -> Option<T> {
        self.0.next().copied()
    }
    #[inline]
    fn size_hint(&self) -> (usize, Option<usize>) {
        self.0.size_hint()
    }
    #[inline]
    fn nth(&mut self, n: usize) -> Option<T> {
        self.0.nth(n).copied()
    }
    #[inline]
    fn count(self) -> usize {
        self.0.count()
    }
    #[inline]
    fn last(self) -> Option<T> {
        self.0.last().copied()
    }
}
impl<T: Copy> DoubleEndedIterator for PinnedIter<'_, T> {
    #[inline]
    fn next_back(&mut self) -> Option<T> {
        self.0.next_back().copied()
    }
}
impl<T: Copy> ExactSizeIterator for PinnedIter<'_, T> {}
impl<T: Copy> core::iter::FusedIterator for PinnedIter<'_, T> {}
impl<T> core::fmt::Debug for PinnedIter<'_, T> {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("PinnedIter")
            .field("remaining", &self.0.len())
            .finish()
    }
}

/// Iterator over the elements of a [`PinnedSlice`] by mutable reference
/// ([`PinnedSlice::iter_mut`]): host run mode only. Has no `into_slice`.
pub struct PinnedIterMut<'a, T>(core::slice::IterMut<'a, T>);

impl<'a, T> Iterator for PinnedIterMut<'a, T> {
    type Item = &'a mut T;
    #[inline]
    fn next(&mut self) -> Option<&'a mut T> {
        self.0.next()
    }
    #[inline]
    fn size_hint(&self) -> (usize, Option<usize>) {
        self.0.size_hint()
    }
    #[inline]
    fn nth(&mut self, n: usize) -> Option<&'a mut T> {
        self.0.nth(n)
    }
    #[inline]
    fn count(self) -> usize {
        self.0.count()
    }
    #[inline]
    fn last(self) -> Option<&'a mut T> {
        self.0.last()
    }
}
impl<'a, T> DoubleEndedIterator for PinnedIterMut<'a, T> {
    #[inline]
    fn next_back(&mut self) -> Option<&'a mut T> {
        self.0.next_back()
    }
}
impl<T> ExactSizeIterator for PinnedIterMut<'_, T> {}
impl<T> core::iter::FusedIterator for PinnedIterMut<'_, T> {}
impl<T> core::fmt::Debug for PinnedIterMut<'_, T> {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("PinnedIterMut")
            .field("remaining", &self.0.len())
            .finish()
    }
}

/// Iterator over consecutive parts of a [`PinnedSlice`]
/// ([`PinnedSlice::chunks`]), each a `&PinnedSlice` of the same context.
pub struct PinnedChunks<'a, 'id, T, M> {
    inner: core::slice::Chunks<'a, T>,
    _marker: PhantomData<(Id<'id>, M)>,
}

impl<T, M> Clone for PinnedChunks<'_, '_, T, M> {
    fn clone(&self) -> Self {
        PinnedChunks {
            inner: self.inner.clone(),
            _marker: PhantomData,
        }
    }
}

/// Iterator over consecutive parts of a [`PinnedSlice`], mutably
/// ([`PinnedSlice::chunks_mut`]), each a `&mut PinnedSlice` of the same
/// context.
pub struct PinnedChunksMut<'a, 'id, T, M> {
    inner: core::slice::ChunksMut<'a, T>,
    _marker: PhantomData<(Id<'id>, M)>,
}

impl<'a, 'id: 'a, T: DeviceRepr, M: RunMode> Iterator for PinnedChunks<'a, 'id, T, M> {
    type Item = &'a PinnedSlice<'id, T, M>;
    fn next(&mut self) -> Option<Self::Item> {
        self.inner.next().map(ffi::pinned_slice)
    }
    fn size_hint(&self) -> (usize, Option<usize>) {
        self.inner.size_hint()
    }
}
impl<'a, 'id: 'a, T: DeviceRepr, M: RunMode> DoubleEndedIterator for PinnedChunks<'a, 'id, T, M> {
    fn next_back(&mut self) -> Option<Self::Item> {
        self.inner.next_back().map(ffi::pinned_slice)
    }
}
impl<'a, 'id: 'a, T: DeviceRepr, M: RunMode> ExactSizeIterator for PinnedChunks<'a, 'id, T, M> {}
impl<'a, 'id: 'a, T: DeviceRepr, M: RunMode> core::iter::FusedIterator
    for PinnedChunks<'a, 'id, T, M>
{
}

impl<'a, 'id: 'a, T: DeviceRepr, M: RunMode> Iterator for PinnedChunksMut<'a, 'id, T, M> {
    type Item = &'a mut PinnedSlice<'id, T, M>;
    fn next(&mut self) -> Option<Self::Item> {
        self.inner.next().map(ffi::pinned_slice_mut)
    }
    fn size_hint(&self) -> (usize, Option<usize>) {
        self.inner.size_hint()
    }
}
impl<'a, 'id: 'a, T: DeviceRepr, M: RunMode> DoubleEndedIterator
    for PinnedChunksMut<'a, 'id, T, M>
{
    fn next_back(&mut self) -> Option<Self::Item> {
        self.inner.next_back().map(ffi::pinned_slice_mut)
    }
}
impl<'a, 'id: 'a, T: DeviceRepr, M: RunMode> ExactSizeIterator for PinnedChunksMut<'a, 'id, T, M> {}
impl<'a, 'id: 'a, T: DeviceRepr, M: RunMode> core::iter::FusedIterator
    for PinnedChunksMut<'a, 'id, T, M>
{
}

impl<T, M> core::fmt::Debug for PinnedChunks<'_, '_, T, M> {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("PinnedChunks")
            .field("remaining", &self.inner.len())
            .finish()
    }
}
impl<T, M> core::fmt::Debug for PinnedChunksMut<'_, '_, T, M> {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("PinnedChunksMut")
            .field("remaining", &self.inner.len())
            .finish()
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

/// Byte size of `len` elements of `T`, refusing zero and overflow.
pub(crate) fn byte_size<T>(len: usize) -> Result<usize> {
    let elem_size = core::mem::size_of::<T>();
    match len.checked_mul(elem_size) {
        Some(bytes) if bytes > 0 => Ok(bytes),
        _ => Err(Error::InvalidAllocationSize { len, elem_size }),
    }
}

mod assertions {
    use super::*;
    use crate::{DeviceMode, HostMode};
    use static_assertions::{assert_eq_size, assert_impl_all, assert_not_impl_any};

    // A reference to pinned memory is a slice reference: (address, length).
    assert_eq_size!(&PinnedSlice<'static, f32, HostMode>, &[f32]);
    assert_eq_size!(&mut PinnedSlice<'static, f32, DeviceMode>, &mut [f32]);
    assert_impl_all!(PinnedSlice<'static, f32, DeviceMode>: Send, Sync);
    assert_impl_all!(PinnedIter<'static, f32>: Send, Sync, Iterator<Item = f32>);
    assert_impl_all!(PinnedChunks<'static, 'static, f32, DeviceMode>: Send, Sync);
    // Only host run mode has a plain-slice view of pinned memory.
    assert_impl_all!(HostMode: PageableRunMode);
    assert_not_impl_any!(DeviceMode: PageableRunMode);
    assert_impl_all!(PinnedSlice<'static, f32, HostMode>: Deref<Target = [f32]>);
    assert_not_impl_any!(PinnedSlice<'static, f32, DeviceMode>: Deref);
    // Nor any element reference: `&T` is a one-element `&[T]` away
    // (`core::slice::from_ref`), and `&[U; N]` is pageable memory itself.
    assert_impl_all!(PinnedSlice<'static, f32, HostMode>: Index<usize, Output = f32>, IndexMut<usize>);
    assert_not_impl_any!(PinnedSlice<'static, f32, DeviceMode>: Index<usize>, IndexMut<usize>);
    assert_not_impl_any!(PinnedSlice<'static, [u8; 64], DeviceMode>: Index<usize>);
    assert_not_impl_any!(&'static PinnedSlice<'static, f32, DeviceMode>: IntoIterator<Item = &'static f32>);
    assert_impl_all!(&'static PinnedSlice<'static, f32, DeviceMode>: IntoIterator<Item = f32>);
    assert_impl_all!(&'static HostBuffer<'static, 'static, f32, DeviceMode>: IntoIterator<Item = f32>);
    assert_not_impl_any!(&'static mut HostBuffer<'static, 'static, f32, DeviceMode>: IntoIterator);
    assert_not_impl_any!(&'static mut PinnedSlice<'static, f32, DeviceMode>: IntoIterator);
    // Sub-slices stay branded in every run mode.
    assert_impl_all!(PinnedSlice<'static, f32, DeviceMode>: Index<core::ops::Range<usize>, Output = PinnedSlice<'static, f32, DeviceMode>>);
    assert_impl_all!(HostBuffer<'static, 'static, f32, DeviceMode>: Deref<Target = PinnedSlice<'static, f32, DeviceMode>>);
}
