//! The safe half of [`Mem`] and [`MemMut`]: making one from a plain-data
//! slice, its length, address and [`Region`], and its reborrows. Each
//! keeps the borrow it describes (the invariant in the parent module's
//! docs). No `unsafe`: the sub-regions (`slice`, `MemMut::split_at`) and
//! the runtime calls are in the parent module.
#![deny(unsafe_code)]

use core::ffi::c_void;
use core::marker::PhantomData;
use core::ptr::NonNull;

use super::{Mem, MemMut, Region};

impl<'a> Mem<'a> {
    /// The bytes of a plain-data slice.
    pub(crate) fn from_slice<T: bytemuck::Pod>(s: &'a [T]) -> Self {
        let bytes: &'a [u8] = bytemuck::cast_slice(s);
        Mem {
            ptr: NonNull::from(bytes).cast(),
            bytes: bytes.len(),
            _borrow: PhantomData,
        }
    }

    /// Length in bytes.
    pub(crate) fn len(&self) -> usize {
        self.bytes
    }

    /// The address and size, without the borrow.
    pub(crate) fn region(&self) -> Region {
        Region {
            ptr: self.ptr,
            bytes: self.bytes,
        }
    }

    /// The start address, for diagnostics and the runtime.
    pub(crate) fn as_ptr(&self) -> *const c_void {
        self.ptr.as_ptr().cast()
    }
}

impl<'a> Mem<'a> {
    /// The bytes `[0, at)` and `[at, len)`; the caller checked `at <= len`.
    pub(crate) fn split_at(self, at: usize) -> (Mem<'a>, Mem<'a>) {
        (self.slice(0, at), self.slice(at, self.bytes - at))
    }
}

impl<'a> MemMut<'a> {
    /// The bytes of a mutable plain-data slice.
    pub(crate) fn from_slice<T: bytemuck::Pod>(s: &'a mut [T]) -> Self {
        let bytes: &'a mut [u8] = bytemuck::cast_slice_mut(s);
        MemMut {
            bytes: bytes.len(),
            ptr: NonNull::from(bytes).cast(),
            _borrow: PhantomData,
        }
    }

    /// Length in bytes.
    pub(crate) fn len(&self) -> usize {
        self.bytes
    }

    /// A shorter-lived copy of this region.
    pub(crate) fn reborrow_mut(&mut self) -> MemMut<'_> {
        MemMut {
            ptr: self.ptr,
            bytes: self.bytes,
            _borrow: PhantomData,
        }
    }

    /// The same region, read-only, for as long as `self` is borrowed.
    pub(crate) fn reborrow(&self) -> Mem<'_> {
        Mem {
            ptr: self.ptr,
            bytes: self.bytes,
            _borrow: PhantomData,
        }
    }

    /// The start address, for the runtime.
    pub(crate) fn as_mut_ptr(&mut self) -> *mut c_void {
        self.ptr.as_ptr().cast()
    }
}
