//! The element bound ([`DeviceRepr`]) and the traits that say what memory
//! is: the copy operand traits, where memory lies ([`Place`]) and the copy
//! directions between places.

use crate::error::{Error, Result};
use crate::ffi::access::{self, RawDest, RawSource, Residency, Stable};
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

/// Memory the runtime allocated, which asynchronous work and `aclrtMemset`
/// may use: pinned host memory ([`HostBuffer`](crate::HostBuffer)) or device memory
/// ([`DeviceBuffer`](crate::DeviceBuffer) and its views).
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

/// Memory the runtime allocated: device memory ([`DeviceBuffer`](crate::DeviceBuffer)
/// and its views), pinned host memory ([`HostBuffer`](crate::HostBuffer),
/// [`PinnedSlice`](crate::PinnedSlice)) and managed memory
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

/// Memory a copy can read, belonging to the context branded `'id`.
///
/// Implemented by [`DeviceBuffer`](crate::DeviceBuffer), [`DeviceView`](crate::DeviceView), [`DeviceViewMut`](crate::DeviceViewMut),
/// [`HostBuffer`](crate::HostBuffer), [`PinnedSlice`](crate::PinnedSlice) (each only for the brand of the context
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
/// Every [`DeviceMemory`] ([`DeviceBuffer`](crate::DeviceBuffer), [`DeviceView`](crate::DeviceView),
/// [`DeviceViewMut`](crate::DeviceViewMut)) in every run mode; and, in [`DeviceMode`](crate::DeviceMode) only, pinned
/// memory from `aclrtMallocHost` ([`HostBuffer`](crate::HostBuffer), [`PinnedSlice`](crate::PinnedSlice)), which
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

/// Byte size of `len` elements of `T`, refusing zero and overflow.
pub(crate) fn byte_size<T>(len: usize) -> Result<usize> {
    let elem_size = core::mem::size_of::<T>();
    match len.checked_mul(elem_size) {
        Some(bytes) if bytes > 0 => Ok(bytes),
        _ => Err(Error::InvalidAllocationSize { len, elem_size }),
    }
}
