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

mod device;
mod host;
mod kinds;
mod pageable;
mod pinned;

pub(crate) use crate::ffi::access;

pub use self::device::{DeviceBuffer, DeviceChunks, DeviceChunksMut, DeviceView, DeviceViewMut};
pub use self::host::{HostBuffer, HostBufferUninit};
pub(crate) use self::kinds::byte_size;
pub use self::kinds::{
    AsyncDirection, CopyDirection, DeviceMemory, DeviceRepr, DeviceResident, DeviceToDevice,
    DeviceToHost, HostMemory, HostToDevice, HostToHost, Memory, MemoryMut, OnDevice, OnHost,
    PinnedMemory, Place, RuntimeMemory,
};
pub use self::pinned::{
    PageableRunMode, PinnedChunks, PinnedChunksMut, PinnedIter, PinnedIterMut, PinnedSlice,
};

mod assertions {
    use core::ops::{Deref, Index, IndexMut};

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
