//! Pinned host memory by parts: [`PinnedSlice`] (elements by value in every
//! run mode, slices and references in host run mode only) and its
//! iterators.

use core::marker::PhantomData;
use core::ops::{Deref, DerefMut, Index, IndexMut};

use generativity::Id;

use crate::error::{Error, Result};
use crate::ffi::access::{CpuVisible, RawDest, RawSource, Stable};
use crate::ffi::{self, Mem, MemMut};
use crate::mode::RunMode;

use super::kinds::{
    DeviceRepr, DeviceResident, HostMemory, Memory, MemoryMut, OnHost, PinnedMemory, RuntimeMemory,
};

impl<'id, T: DeviceRepr, M: RunMode> RuntimeMemory<'id> for PinnedSlice<'id, T, M> {}

impl<'id, T: DeviceRepr> DeviceResident<'id, crate::mode::DeviceMode>
    for PinnedSlice<'id, T, crate::mode::DeviceMode>
{
}

/// Run modes in which pinned memory is ordinary host RAM, so that it may
/// also serve as pageable memory (`&[T]`, `&T`): only
/// [`HostMode`](crate::HostMode).
///
/// Bounds every view of pinned or managed memory by reference: the
/// plain-slice views ([`HostBuffer::as_slice`](crate::HostBuffer::as_slice), [`PinnedSlice::as_slice`],
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
