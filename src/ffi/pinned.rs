//! Branded views of pinned memory: the casts from `[T]` to
//! [`PinnedSlice<'id, T, M>`] (defined here, next to the casts that make it).
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

use core::marker::PhantomData;

use generativity::Id;

/// Pinned memory (from `aclrtMallocHost`) of the context branded `'id`, in
/// run mode `M`: what a [`HostBuffer`](crate::HostBuffer) dereferences to, and what its
/// sub-slices are.
///
/// An unsized slice type, like `[T]`, but branded: it is a copy operand
/// ([`Memory`](crate::bounds::Memory), [`MemoryMut`](crate::bounds::MemoryMut), [`HostMemory`](crate::bounds::HostMemory), [`PinnedMemory`](crate::bounds::PinnedMemory)) of its own
/// context only, so a part of a pinned buffer can be the operand of a
/// synchronous copy, a memset or an asynchronous copy of that context
/// (`lane.copy(&left, &mut on_device)` after `let (left, right) = buf.split_at(n)`).
///
/// # Elements by value
///
/// Its CPU API works in every run mode and never hands out a reference into
/// the memory, neither a `&[T]` nor a `&T` or `&mut T`: elements go in and
/// out by value ([`get`](Self::get), [`set`](Self::set),
/// [`update`](Self::update), [`update_all`](Self::update_all),
/// [`iter`](Self::iter), [`first`](Self::first), [`last`](Self::last),
/// [`swap`](Self::swap), [`reverse`](Self::reverse), [`fill`](Self::fill),
/// [`to_vec`](Self::to_vec),
/// [`copy_from_slice`](Self::copy_from_slice),
/// [`copy_to_slice`](Self::copy_to_slice)), parts stay branded
/// ([`split_at`](Self::split_at), [`chunks`](Self::chunks), `&buf[a..b]`),
/// and comparisons and `Debug` look at the values. The closures of `update`
/// and `update_all` get and return values, so no reference escapes through
/// them either; `Debug` and the comparisons hand the element type's own
/// `Debug`/`PartialEq` copies too. Elements are [`DeviceRepr`](crate::DeviceRepr), hence
/// `Copy`.
///
/// The same code serves both run modes:
///
/// ```
/// use aclrt::{Acl, Detected, PinnedSlice, RunMode, make_guard};
///
/// /// Scales `buf` so that its elements sum to 1; returns the old sum.
/// fn normalise<M: RunMode>(buf: &mut PinnedSlice<'_, f32, M>) -> f32 {
///     let sum: f32 = buf.iter().sum(); // values, not references
///     buf.update_all(|v| v / sum);
///     sum
/// }
///
/// fn run<M: RunMode>(rt: aclrt::Runtime<'_, M>) -> aclrt::Result<()> {
///     let device = rt.device(0)?;
///     make_guard!(guard);
///     let ctx = device.create_context(guard)?;
///     let mut buf = ctx.alloc_host_from(&[1.0f32, 2.0, 3.0, 4.0])?;
///     buf.set(0, 2.0)?;
///     buf.update(3, |v| v + 1.0)?;
///     assert_eq!(buf.get(3), Some(5.0));
///     assert!(buf.set(4, 0.0).is_err()); // out of bounds
///     assert_eq!(normalise(&mut buf), 12.0);
///     assert_eq!(buf.first(), Some(2.0 / 12.0));
///     let (_, upper) = buf.split_at(2); // a part: still pinned memory of `ctx`
///     let mut on_device = ctx.alloc::<f32>(2)?;
///     ctx.copy(upper, &mut on_device)?;
///     on_device.free()?;
///     buf.free()?;
///     ctx.destroy()?;
///     device.reset()
/// }
///
/// # fn main() -> aclrt::Result<()> {
/// let acl = Acl::init()?;
/// match acl.detect() {
///     Detected::Host(rt) => run(rt)?,
///     Detected::Device(rt) => run(rt)?,
/// }
/// acl.finalize()
/// # }
/// ```
///
/// # References in host run mode only
///
/// In host run mode ([`PageableRunMode`](crate::bounds::PageableRunMode)) pinned memory is ordinary host
/// RAM, harmless as pageable memory: there `PinnedSlice` also dereferences
/// to `[T]` and implements `Index<usize>`/`IndexMut<usize>`, so `&buf[i]`,
/// `buf[i] = v`, `buf.as_slice()`, `buf.get_mut(i)`, `buf.iter_mut()` and
/// every slice method reached through `Deref` (`first_mut`, `sort`, ...)
/// hand out references as usual. (The by-value methods above keep their
/// by-value meaning there too: `buf.get(i)` is an `Option<T>`, `buf.iter()`
/// yields `T`; the slice's own are `buf.as_slice().get(i)` and
/// `buf.as_slice().iter()`.) In device run mode, and in code generic over
/// `M: RunMode`, none of these exist, because there pinned memory is device
/// memory of its own context: `core::slice::from_ref(&buf[i])` would be a
/// one-element `&[T]`, and with an array element type (`T = [U; N]`)
/// `&buf[i]` would itself be pageable memory, either one a brand-free copy
/// operand of any context.
#[repr(transparent)]
pub struct PinnedSlice<'id, T, M> {
    pub(crate) _marker: PhantomData<(Id<'id>, M)>,
    /// The elements; only `memory.rs` reads them, and hands out references
    /// only in host run mode.
    pub(crate) data: [T],
}

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
