//! Raw runtime memory: owned allocations and borrowed byte regions.
//!
//! The types here are the only way the rest of the crate reaches memory that
//! a C call reads or writes. Their invariants:
//! * [`DeviceAlloc`] / [`HostAlloc`] / [`HostAllocUninit`] own exactly one live
//!   runtime allocation of `bytes > 0` bytes, freed exactly once (on drop or
//!   by `free`).
//! * [`HostAlloc`] memory is fully initialised (it is only made by zeroing,
//!   by a full write, or by a completed full copy into a [`HostAllocUninit`]),
//!   and is CPU-addressable (pinned host memory, or in device run mode memory
//!   the application's CPU owns).
//! * [`Mem<'a>`] / [`MemMut<'a>`] describe `bytes` bytes that stay valid (and,
//!   for `MemMut`, exclusively borrowed) for `'a`.
//!
//! This file holds the types and the code that needs `unsafe` (the runtime
//! calls, the CPU accesses, the sub-regions); the safe methods beside them
//! are in child modules that deny `unsafe`: `region` (of [`Mem`] and
//! [`MemMut`]) and `owned` (of the allocations).

mod owned;
mod region;

use core::ffi::c_void;
use core::marker::PhantomData;
use core::ptr::NonNull;

use aclrt_sys as sys;

use super::check;
use crate::error::Result;

/// The address and size of memory whose address does not change when its
/// owner moves (a runtime allocation, or a view of one). Carries no borrow:
/// the async layer (`ffi::scope`) keeps the owner borrowed for the scope.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Region {
    pub(crate) ptr: NonNull<u8>,
    pub(crate) bytes: usize,
}

/// A borrowed, readable byte region (host slice or runtime allocation).
#[derive(Clone, Copy, Debug)]
pub struct Mem<'a> {
    ptr: NonNull<u8>,
    bytes: usize,
    _borrow: PhantomData<&'a [u8]>,
}

/// A borrowed, exclusively writable byte region.
#[derive(Debug)]
pub struct MemMut<'a> {
    ptr: NonNull<u8>,
    bytes: usize,
    _borrow: PhantomData<&'a mut [u8]>,
}

impl<'a> Mem<'a> {
    /// A sub-region `[offset, offset + bytes)`; the caller checked the range.
    pub(crate) fn slice(self, offset: usize, bytes: usize) -> Mem<'a> {
        assert!(
            offset
                .checked_add(bytes)
                .is_some_and(|end| end <= self.bytes)
        );
        Mem {
            // SAFETY: `offset <= self.bytes` (asserted above), so the result
            // stays inside (or one past the end of) the same region.
            ptr: unsafe { self.ptr.add(offset) },
            bytes,
            _borrow: PhantomData,
        }
    }
}

impl<'a> Mem<'a> {
    /// The region `[ptr, ptr + bytes)`.
    ///
    /// # Safety
    /// The bytes stay valid runtime memory, not written through another
    /// region, for `'a`.
    pub(super) unsafe fn from_raw_parts(ptr: NonNull<u8>, bytes: usize) -> Mem<'a> {
        Mem {
            ptr,
            bytes,
            _borrow: PhantomData,
        }
    }
}

impl<'a> MemMut<'a> {
    /// The region `[ptr, ptr + bytes)`, exclusively.
    ///
    /// # Safety
    /// The bytes stay valid runtime memory, reached through no other region,
    /// for `'a`.
    pub(super) unsafe fn from_raw_parts(ptr: NonNull<u8>, bytes: usize) -> MemMut<'a> {
        MemMut {
            ptr,
            bytes,
            _borrow: PhantomData,
        }
    }
}

impl<'a> MemMut<'a> {
    /// The bytes `[0, at)` and `[at, len)`, each exclusively borrowed for
    /// `'a` (they do not overlap); the caller checked `at <= len`.
    pub(crate) fn split_at(self, at: usize) -> (MemMut<'a>, MemMut<'a>) {
        assert!(at <= self.bytes);
        let rest = MemMut {
            // SAFETY: `at <= self.bytes` (asserted above), so the pointer
            // stays inside (or one past the end of) the same region.
            ptr: unsafe { self.ptr.add(at) },
            bytes: self.bytes - at,
            _borrow: PhantomData,
        };
        let head = MemMut {
            ptr: self.ptr,
            bytes: at,
            _borrow: PhantomData,
        };
        (head, rest)
    }

    /// A sub-region `[offset, offset + bytes)`; the caller checked the range.
    pub(crate) fn slice(self, offset: usize, bytes: usize) -> MemMut<'a> {
        assert!(
            offset
                .checked_add(bytes)
                .is_some_and(|end| end <= self.bytes)
        );
        MemMut {
            // SAFETY: `offset <= self.bytes` (asserted above), so the result
            // stays inside (or one past the end of) the same region.
            ptr: unsafe { self.ptr.add(offset) },
            bytes,
            _borrow: PhantomData,
        }
    }
}

/// `aclrtMemcpy(dst, dst.len(), src, src.len(), kind)`: synchronous copy of all
/// of `src` into the start of `dst`. Needs a current context.
#[inline]
pub(crate) fn memcpy(mut dst: MemMut<'_>, src: Mem<'_>, kind: sys::aclrtMemcpyKind) -> Result<()> {
    // SAFETY: `dst` is exclusively borrowed and writable for `dst.len()` bytes
    // and `src` readable for `src.len()` bytes for the whole (synchronous)
    // call (Mem/MemMut invariant); `count` = `src.len()`; the runtime rejects
    // `count > destMax`; `kind` is derived from where both regions lie.
    let code =
        unsafe { sys::aclrtMemcpy(dst.as_mut_ptr(), dst.len(), src.as_ptr(), src.len(), kind) };
    check(code, "aclrtMemcpy")
}

/// `aclrtMemset(dst, len, value, len)`: synchronous byte fill.
#[inline]
pub(crate) fn memset(mut dst: MemMut<'_>, value: u8) -> Result<()> {
    let len = dst.len();
    // SAFETY: `dst` is exclusively borrowed and writable for `len` bytes for
    // the whole (synchronous) call (MemMut invariant); count == maxCount.
    let code = unsafe { sys::aclrtMemset(dst.as_mut_ptr(), len, i32::from(value), len) };
    check(code, "aclrtMemset")
}

/// Device memory from `aclrtMalloc`, freed with `aclrtFree`.
///
/// `'ctx` is the borrow of the context it was allocated in: because this
/// type has a `Drop` impl that mentions `'ctx`, the borrow checker keeps the
/// context borrowed until the allocation is dropped, even implicitly.
#[derive(Debug)]
pub(crate) struct DeviceAlloc<'ctx> {
    ptr: NonNull<u8>,
    bytes: usize,
    _ctx: PhantomData<&'ctx ()>,
}

// SAFETY: a DeviceAlloc exclusively owns its allocation (no aliasing handle
// exists), the runtime's free may be called from any thread, and the memory
// is only ever accessed through the runtime, never through this pointer.
unsafe impl Send for DeviceAlloc<'_> {}
// SAFETY: `&DeviceAlloc` only hands out `Mem` (read) regions; all writes go
// through `&mut DeviceAlloc`.
unsafe impl Sync for DeviceAlloc<'_> {}

impl DeviceAlloc<'_> {
    /// `aclrtMalloc(bytes, policy)`; needs `owner` to be the current
    /// context; `bytes > 0`.
    pub(crate) fn new(
        owner: super::Raw,
        bytes: usize,
        policy: sys::aclrtMemMallocPolicy,
    ) -> Result<Self> {
        let mut p: *mut c_void = core::ptr::null_mut();
        // SAFETY: `p` is a valid, writable pointer slot for the whole call.
        let code = unsafe { sys::aclrtMalloc(&mut p, bytes, policy) };
        check(code, "aclrtMalloc")?;
        let ptr: NonNull<u8> = super::raw(p, "aclrtMalloc")?.0.cast();
        super::live::child_created(ptr.as_ptr() as usize, owner);
        Ok(DeviceAlloc {
            ptr,
            bytes,
            _ctx: PhantomData,
        })
    }

    /// `aclrtFree`, reporting its error.
    ///
    /// An allocation an open IPC key names (`rule::exports`: a forgotten
    /// `IpcExport`) is not freed: another process may still import it. It
    /// is leaked and stays a live child of its context.
    pub(crate) fn free(self) -> Result<()> {
        let this = core::mem::ManuallyDrop::new(self);
        let exports = crate::rule::exports::ipc_exports_of(this.ptr.as_ptr() as usize);
        if exports != 0 {
            return Err(crate::error::Error::LiveChildren {
                function: "aclrtFree",
                live: exports,
            });
        }
        // SAFETY: the allocation came from aclrtMalloc and is freed exactly
        // once (ManuallyDrop suppresses the Drop impl); no region borrows it
        // (`self` is owned); the typed layer has synchronised any async use.
        let code = unsafe { sys::aclrtFree(this.ptr.as_ptr().cast()) };
        check(code, "aclrtFree")?;
        super::live::child_released(this.ptr.as_ptr() as usize);
        Ok(())
    }
}

impl Drop for DeviceAlloc<'_> {
    fn drop(&mut self) {
        if crate::rule::exports::ipc_exports_of(self.ptr.as_ptr() as usize) != 0 {
            // Named by an open IPC key: leaked, as `free` does.
            return;
        }
        // SAFETY: as in `free`: allocated by aclrtMalloc, freed exactly once
        // (drop runs once), not borrowed, no async use in flight.
        let code = unsafe { sys::aclrtFree(self.ptr.as_ptr().cast()) };
        if code == sys::ACL_SUCCESS {
            super::live::child_released(self.ptr.as_ptr() as usize);
        } else {
            // Drop must not panic; the error text is consumed so that it does
            // not leak into an unrelated later error.
            let _ = super::recent_error_message();
        }
    }
}

/// Pinned host memory (`aclrtMallocHost`) that is not yet initialised;
/// `'ctx` as for [`DeviceAlloc`].
#[derive(Debug)]
pub struct HostAllocUninit<'ctx> {
    ptr: NonNull<u8>,
    bytes: usize,
    /// The context that allocated it: made current before [`Self::fill`]'s
    /// `aclrtMemset`, which may run on any thread.
    owner: super::Raw,
    _ctx: PhantomData<&'ctx ()>,
}

/// Pinned host memory (`aclrtMallocHost`), fully initialised; `'ctx` as for
/// [`DeviceAlloc`].
#[derive(Debug)]
pub(crate) struct HostAlloc<'ctx> {
    ptr: NonNull<u8>,
    bytes: usize,
    _ctx: PhantomData<&'ctx ()>,
}

// SAFETY: both types exclusively own their allocation; reads need `&self`
// and writes `&mut self`, so the usual borrow rules make sharing sound; the
// runtime's free may run on any thread.
unsafe impl Send for HostAllocUninit<'_> {}
// SAFETY: see above; `&HostAllocUninit` exposes nothing.
unsafe impl Sync for HostAllocUninit<'_> {}
// SAFETY: see above.
unsafe impl Send for HostAlloc<'_> {}
// SAFETY: `&HostAlloc` only exposes shared reads.
unsafe impl Sync for HostAlloc<'_> {}

fn free_host(ptr: NonNull<u8>) -> Result<()> {
    // SAFETY: `ptr` came from aclrtMallocHost and the callers (`free` and
    // `Drop` of the host allocations, in `owned`) free it exactly once; no
    // borrow of it is alive (they consume or drop the owner).
    let code = unsafe { sys::aclrtFreeHost(ptr.as_ptr().cast()) };
    check(code, "aclrtFreeHost")?;
    super::live::child_released(ptr.as_ptr() as usize);
    Ok(())
}

impl<'ctx> HostAllocUninit<'ctx> {
    /// `aclrtMallocHost(bytes)`; needs a current context; `bytes > 0`.
    /// `align` is the element alignment the typed layer needs.
    pub(crate) fn new(owner: super::Raw, bytes: usize, align: usize) -> Result<Self> {
        let mut p: *mut c_void = core::ptr::null_mut();
        // SAFETY: `p` is a valid, writable pointer slot for the whole call.
        let code = unsafe { sys::aclrtMallocHost(&mut p, bytes) };
        check(code, "aclrtMallocHost")?;
        let ptr: NonNull<u8> = super::raw(p, "aclrtMallocHost")?.0.cast();
        super::live::child_created(ptr.as_ptr() as usize, owner);
        let this = HostAllocUninit {
            ptr,
            bytes,
            owner,
            _ctx: PhantomData,
        };
        if ptr.as_ptr().align_offset(align) != 0 {
            drop(this);
            return Err(crate::Error::Misaligned {
                address: ptr.as_ptr() as usize,
                align,
            });
        }
        Ok(this)
    }

    /// Fill with zero bytes.
    pub(crate) fn zeroed(self) -> HostAlloc<'ctx> {
        // SAFETY: the allocation is CPU-addressable and writable for
        // `self.bytes` bytes and exclusively owned by `self`.
        unsafe { self.ptr.as_ptr().write_bytes(0, self.bytes) };
        self.into_init()
    }

    /// Initialise from `src`, which must have exactly `len()` bytes.
    pub(crate) fn write(self, src: &[u8]) -> HostAlloc<'ctx> {
        assert_eq!(src.len(), self.bytes, "full initialisation required");
        // SAFETY: destination writable for `bytes` bytes and exclusively
        // owned; `src` readable for the same length (asserted); a fresh
        // runtime allocation cannot overlap a live Rust slice.
        unsafe {
            core::ptr::copy_nonoverlapping(src.as_ptr(), self.ptr.as_ptr(), self.bytes);
        }
        self.into_init()
    }
}

impl HostAlloc<'_> {
    /// The bytes, for typed views.
    pub(crate) fn as_bytes(&self) -> &[u8] {
        // SAFETY: the allocation is CPU-addressable, initialised (type
        // invariant), `bytes` long, and immutably borrowed through `&self`.
        unsafe { core::slice::from_raw_parts(self.ptr.as_ptr(), self.bytes) }
    }

    /// The bytes, mutably.
    pub(crate) fn as_bytes_mut(&mut self) -> &mut [u8] {
        // SAFETY: as in `as_bytes`, and exclusively borrowed through `&mut self`.
        unsafe { core::slice::from_raw_parts_mut(self.ptr.as_ptr(), self.bytes) }
    }
}
