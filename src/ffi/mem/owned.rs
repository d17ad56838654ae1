//! The safe half of the owned allocations ([`DeviceAlloc`], [`HostAlloc`],
//! [`HostAllocUninit`]): their sizes and addresses, their regions
//! ([`Mem`], [`MemMut`] borrowed from the owner), the step from
//! uninitialised to initialised (`into_init`, and the runtime copy or
//! memset that makes it), and freeing host memory (`free`, `Drop`, through
//! `free_host`). No `unsafe`: the allocations, the CPU accesses and the
//! runtime frees are in the parent module, with the invariants.
#![deny(unsafe_code)]

use core::ffi::c_void;
use core::marker::PhantomData;

use aclrt_sys as sys;

use super::{DeviceAlloc, HostAlloc, HostAllocUninit, Mem, MemMut, free_host, memcpy, memset};
use crate::error::Result;

impl DeviceAlloc<'_> {
    /// Size in bytes.
    pub(crate) fn len(&self) -> usize {
        self.bytes
    }

    /// The device address (never dereferenced by Rust).
    pub(crate) fn as_ptr(&self) -> *const c_void {
        self.ptr.as_ptr().cast()
    }

    /// The whole allocation as a readable region.
    pub(crate) fn mem(&self) -> Mem<'_> {
        Mem {
            ptr: self.ptr,
            bytes: self.bytes,
            _borrow: PhantomData,
        }
    }

    /// The whole allocation as a writable region.
    pub(crate) fn mem_mut(&mut self) -> MemMut<'_> {
        MemMut {
            ptr: self.ptr,
            bytes: self.bytes,
            _borrow: PhantomData,
        }
    }
}

impl<'ctx> HostAllocUninit<'ctx> {
    /// Size in bytes.
    pub(crate) fn len(&self) -> usize {
        self.bytes
    }

    pub(super) fn into_init(self) -> HostAlloc<'ctx> {
        let this = core::mem::ManuallyDrop::new(self);
        HostAlloc {
            ptr: this.ptr,
            bytes: this.bytes,
            _ctx: PhantomData,
        }
    }

    /// Initialise by a synchronous runtime copy of all of `src` (which must
    /// have exactly `len()` bytes); on failure the memory stays uninitialised.
    pub(crate) fn copy_from(
        mut self,
        src: Mem<'_>,
        kind: sys::aclrtMemcpyKind,
    ) -> core::result::Result<HostAlloc<'ctx>, (Self, crate::Error)> {
        assert_eq!(src.len(), self.bytes, "full initialisation required");
        let dst = MemMut {
            ptr: self.ptr,
            bytes: self.bytes,
            _borrow: PhantomData,
        };
        match memcpy(dst, src, kind) {
            Ok(()) => Ok(self.into_init()),
            Err(e) => {
                let _ = &mut self;
                Err((self, e))
            }
        }
    }

    /// Initialise by a runtime memset of every byte.
    pub(crate) fn fill(
        self,
        value: u8,
    ) -> core::result::Result<HostAlloc<'ctx>, (Self, crate::Error)> {
        // The buffer is `Send`: this may run on a thread where another
        // context (or none) is current.
        if let Err(e) = super::super::make_current(self.owner) {
            return Err((self, e));
        }
        let dst = MemMut {
            ptr: self.ptr,
            bytes: self.bytes,
            _borrow: PhantomData,
        };
        match memset(dst, value) {
            Ok(()) => Ok(self.into_init()),
            Err(e) => Err((self, e)),
        }
    }

    /// `aclrtFreeHost`, reporting its error.
    pub(crate) fn free(self) -> Result<()> {
        let this = core::mem::ManuallyDrop::new(self);
        free_host(this.ptr)
    }
}

impl Drop for HostAllocUninit<'_> {
    fn drop(&mut self) {
        if free_host(self.ptr).is_err() {
            // Drop must not panic; the message was consumed by `check`.
        }
    }
}

impl HostAlloc<'_> {
    /// Size in bytes.
    pub(crate) fn len(&self) -> usize {
        self.bytes
    }

    /// The whole allocation as a readable region.
    pub(crate) fn mem(&self) -> Mem<'_> {
        Mem {
            ptr: self.ptr,
            bytes: self.bytes,
            _borrow: PhantomData,
        }
    }

    /// The whole allocation as a writable region.
    pub(crate) fn mem_mut(&mut self) -> MemMut<'_> {
        MemMut {
            ptr: self.ptr,
            bytes: self.bytes,
            _borrow: PhantomData,
        }
    }

    /// `aclrtFreeHost`, reporting its error.
    pub(crate) fn free(self) -> Result<()> {
        let this = core::mem::ManuallyDrop::new(self);
        free_host(this.ptr)
    }
}

impl Drop for HostAlloc<'_> {
    fn drop(&mut self) {
        if free_host(self.ptr).is_err() {
            // Drop must not panic; the message was consumed by `check`.
        }
    }
}
