//! Branded views of pinned memory: the casts from `[T]` to
//! [`PinnedSlice<'id, T, M>`](crate::memory::PinnedSlice).
//!
//! `PinnedSlice` is `#[repr(transparent)]` over `[T]` (its only other field
//! is a zero-sized `PhantomData`), so a pointer to one is a pointer to the
//! other with the same address and the same length metadata. The casts are
//! therefore memory-safe for any slice. What they add is a claim, carried by
//! the type, that the memory is pinned memory (`aclrtMallocHost`) of the
//! context branded `'id` in run mode `M`; the typed layer relies on that
//! claim (a `PinnedSlice` is a copy operand of its own context only, and an
//! operand of asynchronous copies and `aclrtMemset`). Its public API never
//! turns the slice back into a `&[T]`, `&T` or `&mut T` except where
//! `M: PageableRunMode` (host run mode): in device run mode the memory is
//! device memory of its context, and such a reference would be brand-free
//! pageable memory (`core::slice::from_ref`).
//!
//! # Crate contract
//! Call these only with (a part of) the elements of a
//! [`HostBuffer<'_, 'id, T, M>`](crate::HostBuffer), or a part of a
//! `PinnedSlice<'id, T, M>`, and return them with that same `'id` and `M`
//! (in `memory.rs` the caller's own type fixes both).

use crate::memory::PinnedSlice;

/// `s` (pinned memory of the context branded `'id`, see the module's crate
/// contract) as a [`PinnedSlice`], borrowed for as long as `s` is.
#[inline]
pub(crate) fn pinned_slice<'a, 'id, T, M>(s: &'a [T]) -> &'a PinnedSlice<'id, T, M> {
    // SAFETY: `PinnedSlice<'id, T, M>` is `#[repr(transparent)]` over its
    // `[T]` field (the other field is a 1-ZST `PhantomData`), so the cast
    // keeps the address, the length metadata, the alignment and the validity
    // of every element; the result is a shared reference with the same
    // lifetime `'a` as `s`, so no new aliasing and no longer borrow are
    // created. The brand `'id` and the mode `M` are the caller's, taken from
    // the owning `HostBuffer` or parent `PinnedSlice` (crate contract).
    unsafe { &*(s as *const [T] as *const PinnedSlice<'id, T, M>) }
}

/// `s` (pinned memory of the context branded `'id`, see the module's crate
/// contract) as a mutable [`PinnedSlice`], borrowed for as long as `s` is.
#[inline]
pub(crate) fn pinned_slice_mut<'a, 'id, T, M>(s: &'a mut [T]) -> &'a mut PinnedSlice<'id, T, M> {
    // SAFETY: same layout argument as in `pinned_slice` (`repr(transparent)`
    // over `[T]`, same address and length metadata); `s` is consumed, so the
    // result is the only reference to these elements for the same lifetime
    // `'a` (exclusivity carried over, not duplicated). The brand `'id` and
    // the mode `M` are the caller's, taken from the owning `HostBuffer` or
    // parent `PinnedSlice` (crate contract).
    unsafe { &mut *(s as *mut [T] as *mut PinnedSlice<'id, T, M>) }
}
