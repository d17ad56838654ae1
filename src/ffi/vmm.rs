//! Virtual memory: reserved address ranges, physical allocations and the
//! mappings between them (`aclrtReserveMemAddress`, `aclrtMallocPhysical`,
//! `aclrtMapMem`, ...). One thin function per C call; the typed layer
//! (`crate::vmm`) decides by lifetimes how long each handle may be used:
//! * a reserved range and a physical handle stay live while a mapping
//!   borrows them (a mapping is unmapped before either is released);
//! * a mapped span's bytes are only reached through [`Mem`]/[`MemMut`] made
//!   here, borrowed from the span's owner.

use core::ffi::c_void;
use core::ptr::NonNull;

use aclrt_sys as sys;

use super::{Mem, MemMut, Raw, check};
use crate::error::Result;

/// The properties of a pinned device allocation on `device`.
fn prop(device: i32) -> sys::aclrtPhysicalMemProp {
    // SAFETY: the struct is plain C data (integers and a nested struct of
    // integers); all-zero bytes is a valid value of it.
    let mut p: sys::aclrtPhysicalMemProp = unsafe { core::mem::zeroed() };
    p.handleType = sys::ACL_MEM_HANDLE_TYPE_NONE;
    p.allocationType = sys::ACL_MEM_ALLOCATION_TYPE_PINNED;
    p.memAttr = sys::ACL_HBM_MEM_HUGE;
    p.location.type_ = sys::ACL_MEM_LOCATION_TYPE_DEVICE;
    p.location.id = device as u32;
    p
}

/// `aclrtMemGetAllocationGranularity` (recommended) for pinned device memory
/// of `device`.
pub(crate) fn granularity(device: i32) -> Result<usize> {
    let mut p = prop(device);
    let mut g = 0usize;
    // SAFETY: `p` and `g` are valid, writable locals for the whole call.
    let code = unsafe {
        sys::aclrtMemGetAllocationGranularity(
            &mut p,
            sys::ACL_RT_MEM_ALLOC_GRANULARITY_RECOMMENDED,
            &mut g,
        )
    };
    check(code, "aclrtMemGetAllocationGranularity")?;
    Ok(g)
}

/// `aclrtReserveMemAddress(size)`: the start of a new reserved range.
pub(crate) fn reserve(bytes: usize) -> Result<Addr> {
    let mut va: *mut c_void = core::ptr::null_mut();
    // SAFETY: `va` is a valid, writable pointer slot; a null expected
    // address lets the runtime choose.
    let code = unsafe { sys::aclrtReserveMemAddress(&mut va, bytes, 0, core::ptr::null_mut(), 0) };
    check(code, "aclrtReserveMemAddress")?;
    Ok(Addr(super::raw(va, "aclrtReserveMemAddress")?.0.cast()))
}

/// `aclrtReleaseMemAddress(va)`.
pub(crate) fn release(va: Addr) -> Result<()> {
    // SAFETY: `va` starts a live reservation with no mapping left (every
    // mapping borrows its reservation), released once by its owner.
    let code = unsafe { sys::aclrtReleaseMemAddress(va.0.as_ptr().cast()) };
    check(code, "aclrtReleaseMemAddress")
}

/// `aclrtMallocPhysical(bytes)` on `device`.
pub(crate) fn malloc_physical(device: i32, bytes: usize) -> Result<Raw> {
    let p = prop(device);
    let mut h: sys::aclrtDrvMemHandle = core::ptr::null_mut();
    // SAFETY: `h` is a valid, writable handle slot; `p` is read for the call.
    let code = unsafe { sys::aclrtMallocPhysical(&mut h, bytes, &p, 0) };
    check(code, "aclrtMallocPhysical")?;
    super::raw(h, "aclrtMallocPhysical")
}

/// `aclrtFreePhysical(handle)`.
pub(crate) fn free_physical(handle: Raw) -> Result<()> {
    // SAFETY: `handle` is a live physical allocation with no mapping left
    // (every mapping borrows it), freed once by its owner.
    let code = unsafe { sys::aclrtFreePhysical(handle.as_ptr()) };
    check(code, "aclrtFreePhysical")
}

/// `aclrtMapMem(va, bytes, 0, handle)`.
pub(crate) fn map(va: Addr, bytes: usize, handle: Raw) -> Result<()> {
    // SAFETY: `va..va+bytes` lies inside a live reservation and `handle` is
    // a live allocation of `bytes` bytes (the typed layer checked both);
    // the runtime refuses an address already mapped.
    let code = unsafe { sys::aclrtMapMem(va.0.as_ptr().cast(), bytes, 0, handle.as_ptr(), 0) };
    check(code, "aclrtMapMem")
}

/// `aclrtUnmapMem(va)`.
pub(crate) fn unmap(va: Addr) -> Result<()> {
    // SAFETY: `va` starts a live mapping, unmapped once by its owner, whose
    // regions are no longer borrowed (the owner is being dropped).
    let code = unsafe { sys::aclrtUnmapMem(va.0.as_ptr().cast()) };
    check(code, "aclrtUnmapMem")
}

/// `aclrtMemSetAccess(va, bytes, {flags, device})`.
pub(crate) fn set_access(va: Addr, bytes: usize, device: i32, flags: u32) -> Result<()> {
    // SAFETY: plain C data; all-zero bytes is a valid value.
    let mut desc: sys::aclrtMemAccessDesc = unsafe { core::mem::zeroed() };
    desc.flags = flags as sys::aclrtMemAccessFlags;
    desc.location.type_ = sys::ACL_MEM_LOCATION_TYPE_DEVICE;
    desc.location.id = device as u32;
    // SAFETY: `va..va+bytes` is mapped (the caller owns the mapping);
    // `desc` is one valid descriptor, read for the call.
    let code = unsafe { sys::aclrtMemSetAccess(va.0.as_ptr().cast(), bytes, &mut desc, 1) };
    check(code, "aclrtMemSetAccess")
}

/// `aclrtMemGetAccess(va)`: the access flags.
pub(crate) fn get_access(va: Addr) -> Result<u64> {
    // SAFETY: plain C data; all-zero bytes is a valid value.
    let mut loc: sys::aclrtMemLocation = unsafe { core::mem::zeroed() };
    let mut flags = 0u64;
    // SAFETY: `va` is mapped; `loc` and `flags` are valid, writable locals.
    let code = unsafe { sys::aclrtMemGetAccess(va.0.as_ptr().cast(), &mut loc, &mut flags) };
    check(code, "aclrtMemGetAccess")?;
    Ok(flags)
}

/// `aclrtMemExportToShareableHandle(handle, NONE)`.
pub(crate) fn export(handle: Raw) -> Result<u64> {
    let mut out = 0u64;
    // SAFETY: `handle` is a live allocation; `out` is a valid, writable u64.
    let code = unsafe {
        sys::aclrtMemExportToShareableHandle(
            handle.as_ptr(),
            sys::ACL_MEM_HANDLE_TYPE_NONE,
            0,
            &mut out,
        )
    };
    check(code, "aclrtMemExportToShareableHandle")?;
    Ok(out)
}

/// `aclrtMemSetPidToShareableHandle(shared, pids)`.
pub(crate) fn set_pids(shared: u64, pids: &[i32]) -> Result<()> {
    let mut pids = pids.to_vec();
    // SAFETY: `pids` is a valid, writable array of `pids.len()` i32s for the
    // whole call (the runtime only reads it).
    let code =
        unsafe { sys::aclrtMemSetPidToShareableHandle(shared, pids.as_mut_ptr(), pids.len()) };
    check(code, "aclrtMemSetPidToShareableHandle")
}

/// `aclrtMemImportFromShareableHandle(shared, device)`: a new physical
/// handle, freed with `aclrtFreePhysical`.
pub(crate) fn import(shared: u64, device: i32) -> Result<Raw> {
    let mut h: sys::aclrtDrvMemHandle = core::ptr::null_mut();
    // SAFETY: `h` is a valid, writable handle slot for the whole call.
    let code = unsafe { sys::aclrtMemImportFromShareableHandle(shared, device, &mut h) };
    check(code, "aclrtMemImportFromShareableHandle")?;
    super::raw(h, "aclrtMemImportFromShareableHandle")
}

/// The address of a reserved range or of a granule in it: a plain
/// identifier (never dereferenced by the CPU).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Addr(NonNull<u8>);

// SAFETY: an address the runtime accepts from any thread; it gives no
// access to memory by itself.
unsafe impl Send for Addr {}
// SAFETY: as for `Send`.
unsafe impl Sync for Addr {}

impl Addr {
    /// The address `ptr`.
    pub(super) fn new(ptr: NonNull<u8>) -> Addr {
        Addr(ptr)
    }

    /// The address `bytes` further (computed, not dereferenced).
    pub(crate) fn offset(self, bytes: usize) -> Addr {
        Addr(
            NonNull::new(self.0.as_ptr().wrapping_add(bytes))
                .expect("a granule address is not null"),
        )
    }

    /// The raw pointer, for diagnostics.
    pub(crate) fn as_ptr(self) -> *mut u8 {
        self.0.as_ptr()
    }
}

/// The bytes of a mapped span `[start, start + bytes)`, owned by the typed
/// layer's mapping: its regions borrow the owner.
#[derive(Debug)]
pub(crate) struct Span {
    start: Addr,
    bytes: usize,
}

impl Span {
    /// A span the caller has mapped (`bytes > 0`) and keeps mapped for as
    /// long as the `Span` lives.
    pub(crate) fn new(start: Addr, bytes: usize) -> Span {
        Span { start, bytes }
    }

    /// The start address.
    pub(crate) fn start(&self) -> Addr {
        self.start
    }

    /// Its length in bytes.
    pub(crate) fn bytes(&self) -> usize {
        self.bytes
    }

    /// The span grows by `more` bytes mapped right after its end.
    pub(crate) fn grow(&mut self, more: usize) {
        self.bytes += more;
    }

    /// The address `offset` bytes in (`offset <= bytes`; asserted).
    pub(crate) fn at(&self, offset: usize) -> Addr {
        assert!(offset <= self.bytes);
        self.start.offset(offset)
    }

    /// The mapped bytes, readable for as long as the span is borrowed.
    pub(crate) fn mem(&self) -> Mem<'_> {
        // SAFETY: the span stays mapped while it lives (its owner unmaps it
        // only when dropped), and writes need `&mut self`, which this
        // shared borrow excludes for the region's lifetime.
        unsafe { Mem::from_raw_parts(self.start.0, self.bytes) }
    }

    /// The mapped bytes, exclusively writable for as long as the span is
    /// mutably borrowed.
    pub(crate) fn mem_mut(&mut self) -> MemMut<'_> {
        // SAFETY: the span stays mapped while it lives; `&mut self` is the
        // only way to its bytes for the region's lifetime, and its physical
        // memory is mapped nowhere else (the typed layer maps an allocation
        // once, borrowing it mutably).
        unsafe { MemMut::from_raw_parts(self.start.0, self.bytes) }
    }
}
