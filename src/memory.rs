//! Memory residency as types.
//!
//! | type | C allocation | CPU access | element bound |
//! | --- | --- | --- | --- |
//! | [`DeviceBuffer`] | `aclrtMalloc` | never (no slice, no `Deref`, no indexing) | [`DeviceRepr`] |
//! | [`HostBuffer`] (`M` = [`HostMode`](crate::HostMode)) | `aclrtMallocHost`, pinned host memory | `Deref<Target = [T]>` | [`DeviceRepr`] |
//! | [`HostBuffer`] (`M` = [`DeviceMode`](crate::DeviceMode)) | `aclrtMallocHost`, which returns device memory the app's CPU addresses | `Deref<Target = [T]>` | [`DeviceRepr`] |
//! | [`HostBufferUninit`] | `aclrtMallocHost`, not yet written | none until initialised | [`DeviceRepr`] |
//! | `[T]`, `Vec<T>`, `[T; N]` | pageable host memory of the program | ordinary Rust | [`DeviceRepr`] |
//!
//! Copies take a source implementing [`Memory`] and a destination
//! implementing [`MemoryMut`]; the memcpy kind is computed at compile time
//! from both types and the run mode ([`memcpy_kind`](crate::memcpy_kind)).
//! Every buffer carries the brand `'id` of the context that allocated it, and
//! every copy method of `Context<'_, 'id, _>` only accepts memory with the
//! same brand (pageable slices carry any brand).

use core::marker::PhantomData;
use core::ops::{Bound, Deref, DerefMut, RangeBounds};

use generativity::Id;

use crate::error::{Error, Result};
use crate::ffi::{self, DeviceAlloc, HostAlloc, Mem, MemMut};
use crate::mode::{Residency, RunMode};

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

pub(crate) mod access {
    //! Sealed raw access: nameable only inside the crate, so nobody outside
    //! can claim that arbitrary memory is a valid copy operand.
    use crate::ffi::{Mem, MemMut};

    /// Gives the runtime the bytes of a source.
    pub trait RawSource {
        /// The whole region, borrowed for as long as `self` is.
        fn raw(&self) -> Mem<'_>;
    }

    /// Gives the runtime the bytes of a destination.
    pub trait RawDest: RawSource {
        /// The whole region, exclusively borrowed for as long as `self` is.
        fn raw_mut(&mut self) -> MemMut<'_>;
    }

    /// Memory whose address stays put when its owner moves, and which the
    /// runtime may access asynchronously (pinned host or device memory).
    pub trait Stable: RawSource {}

    /// Seals [`Place`](super::Place).
    pub trait PlaceSealed {}

    /// Memory the CPU may address as a slice of `Self::Item`.
    pub trait CpuVisible {
        /// The element type.
        type Item;
    }
}
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
    label = "pageable memory where runtime memory is required",
    note = "asynchronous copies and `aclrtMemset` need memory the runtime allocated: a `HostBuffer` (`Context::alloc_host_*`, pinned) or a `DeviceBuffer`",
    note = "for pageable memory (`Vec`, slices) use the synchronous `Context::copy`, and `slice.fill(..)` instead of a memset"
)]
pub trait PinnedMemory<'id>: Memory<'id> + Stable {}

/// Memory a copy can read, belonging to the context branded `'id`.
///
/// Implemented by [`DeviceBuffer`], [`DeviceView`], [`DeviceViewMut`],
/// [`HostBuffer`] (each only for the brand of the context that allocated it)
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
    /// Where the memory lies, as a type ([`OnHost`] or [`OnDevice`]).
    type Place: Place;
    /// Where the memory lies.
    const RESIDENCY: Residency;
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
    note = "to copy host memory to the device use `Context::upload` (or the generic `Context::copy`)"
)]
pub trait DeviceMemory<'id>: Memory<'id> {}

/// Where memory lies, as a type: [`OnHost`] or [`OnDevice`]. Sealed.
pub trait Place: access::PlaceSealed + 'static {}

/// Host memory (pageable or pinned) as a type.
#[derive(Clone, Copy, Debug)]
pub struct OnHost;

/// Device memory as a type.
#[derive(Clone, Copy, Debug)]
pub struct OnDevice;

impl access::PlaceSealed for OnHost {}
impl access::PlaceSealed for OnDevice {}
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
    const RESIDENCY: Residency = Residency::Host;
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
    const RESIDENCY: Residency = Residency::Host;
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
    const RESIDENCY: Residency = Residency::Host;
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

    /// Free the memory now (`aclrtFree`), reporting the runtime's error.
    #[doc(alias = "aclrtFree")]
    pub fn free(self) -> Result<()> {
        self.alloc.free()
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
    const RESIDENCY: Residency = Residency::Device;
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

impl<T: DeviceRepr> RawSource for DeviceView<'_, '_, T> {
    fn raw(&self) -> Mem<'_> {
        self.mem
    }
}
impl<'id, T: DeviceRepr> Memory<'id> for DeviceView<'_, 'id, T> {
    type Elem = T;
    type Place = OnDevice;
    const RESIDENCY: Residency = Residency::Device;
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
    const RESIDENCY: Residency = Residency::Device;
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
/// the application's CPU addresses directly. Either way it dereferences to
/// `[T]`. It is always initialised: allocate it zeroed, from a slice, or as a
/// [`HostBufferUninit`] that must be written before it can be read.
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

    /// The elements.
    pub fn as_slice(&self) -> &[T] {
        bytemuck::cast_slice(self.alloc.as_bytes())
    }

    /// The elements, mutably.
    pub fn as_mut_slice(&mut self) -> &mut [T] {
        bytemuck::cast_slice_mut(self.alloc.as_bytes_mut())
    }

    /// Free the memory now (`aclrtFreeHost`), reporting the runtime's error.
    #[doc(alias = "aclrtFreeHost")]
    pub fn free(self) -> Result<()> {
        self.alloc.free()
    }
}

impl<T: DeviceRepr, M: RunMode> Deref for HostBuffer<'_, '_, T, M> {
    type Target = [T];
    fn deref(&self) -> &[T] {
        self.as_slice()
    }
}

impl<T: DeviceRepr, M: RunMode> DerefMut for HostBuffer<'_, '_, T, M> {
    fn deref_mut(&mut self) -> &mut [T] {
        self.as_mut_slice()
    }
}

impl<T: DeviceRepr + core::fmt::Debug, M: RunMode> core::fmt::Debug for HostBuffer<'_, '_, T, M> {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("HostBuffer")
            .field("mode", &M::KIND)
            .field("data", &self.as_slice())
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
    const RESIDENCY: Residency = Residency::Host;
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
