//! The safe half of a [`Registration`] and a [`ManagedAlloc`]: their
//! regions ([`Mem`], [`MemMut`] borrowed from the owner), the alias and
//! context of a registration, the size and address of a managed
//! allocation, and their release (`free`, `Drop`, through the parent's
//! runtime calls). No `unsafe`: the registration, the CPU accesses and the
//! runtime calls are in the parent module, with the invariants.
#![deny(unsafe_code)]

use core::ffi::c_void;

use super::super::Raw;
use super::super::mem::{Mem, MemMut};
use super::{ManagedAlloc, Registration};
use crate::error::Result;

impl<'a> Registration<'a> {
    /// The registered bytes, readable.
    pub(crate) fn mem(&self) -> Mem<'_> {
        self.mem.reborrow()
    }

    /// The registered bytes, writable.
    pub(crate) fn mem_mut(&mut self) -> MemMut<'_> {
        self.mem.reborrow_mut()
    }

    /// The device alias.
    pub(crate) fn alias(&self) -> usize {
        self.alias
    }

    /// The context it was registered in.
    pub(crate) fn ctx(&self) -> Raw {
        self.ctx
    }
}

impl Drop for Registration<'_> {
    fn drop(&mut self) {
        // Drop cannot report; `unregister` does. If it fails (the runtime
        // was torn down meanwhile), the borrow ends anyway: see the module
        // invariants for why a stale registration entry is harmless.
        let _ = self.unregister_raw();
    }
}

impl ManagedAlloc<'_> {
    /// Size in bytes.
    pub(crate) fn len(&self) -> usize {
        self.bytes
    }

    /// The device address.
    pub(crate) fn as_ptr(&self) -> *const c_void {
        self.ptr.as_ptr().cast()
    }

    /// The whole allocation as a readable region.
    pub(crate) fn mem(&self) -> Mem<'_> {
        Mem::from_slice(self.as_bytes())
    }

    /// The whole allocation as a writable region.
    pub(crate) fn mem_mut(&mut self) -> MemMut<'_> {
        MemMut::from_slice(self.as_bytes_mut())
    }

    /// `aclrtFree`, reporting its error.
    pub(crate) fn free(self) -> Result<()> {
        let this = core::mem::ManuallyDrop::new(self);
        this.free_raw()
    }
}

impl Drop for ManagedAlloc<'_> {
    fn drop(&mut self) {
        // Drop cannot report; `free` does.
        let _ = self.free_raw();
    }
}
