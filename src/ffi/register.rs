//! Raw calls of host registration (`aclrtHostRegister`,
//! `aclrtHostUnregister`), page-aligned host memory to register, managed
//! memory (`aclrtMemAllocManaged`), the stream failure mode, the per-thread
//! last error, and the forced releases.
//!
//! Invariants of the owners here:
//! * [`PageAlloc`] owns `bytes > 0` zero-initialised heap bytes starting on
//!   a 4 KiB page boundary, freed exactly once on drop.
//! * [`Registration<'a>`] holds the exclusive borrow (`MemMut<'a>`) of the
//!   memory it registered for all of `'a`, and unregisters it (with the same
//!   base address) before that borrow can end normally. If it is leaked
//!   (`mem::forget`), the borrow ends while the runtime still lists the
//!   range as registered; the runtime then never touches the range again by
//!   itself (only work queued on it does, and the typed layer synchronises
//!   every scope before the registration can be moved or forgotten), and
//!   the device alias is only reachable through a borrow of the
//!   registration. So a forgotten registration is a leak of the runtime's
//!   registration entry (a later registration of the same pages fails with
//!   507910; its context stays counted as having a live child), never an
//!   access to freed memory. Assumption of use: a registration entry by
//!   itself makes neither the runtime nor the device touch the range (see
//!   `HostRegistration`'s "Leaks").
//! * [`ManagedAlloc`] owns one live `aclrtMemAllocManaged` allocation of
//!   `bytes > 0` initialised bytes (zeroed at allocation), CPU-addressable,
//!   freed with `aclrtFree` exactly once.
//!
//! This file holds the types and the code that needs `unsafe`; the safe
//! methods beside them are in child modules that deny `unsafe`: `owned`
//! (of the registration and the managed allocation) and `book` (the live
//! managed ranges and the registration key, which need nothing of this
//! file).

mod book;
mod owned;

pub(crate) use book::clear_managed;
use book::{managed, managed_overlaps, reg_key};

use core::ffi::c_void;
use core::marker::PhantomData;
use core::ptr::NonNull;
use std::alloc::{Layout, alloc_zeroed, dealloc};

use aclrt_sys as sys;

use super::mem::MemMut;
use super::{Raw, check, live, make_current, refuse_in_callback};
use crate::error::{Error, Result};

/// The page size registrations must be aligned to.
pub(crate) const PAGE: usize = 4096;

// ------------------------------------------------------------ page memory

/// Zeroed heap memory starting on a page boundary.
#[derive(Debug)]
pub(crate) struct PageAlloc {
    ptr: NonNull<u8>,
    layout: Layout,
}

// SAFETY: a `PageAlloc` exclusively owns its heap allocation (like a
// `Box<[u8]>`): reads need `&self`, writes `&mut self`.
unsafe impl Send for PageAlloc {}
// SAFETY: `&PageAlloc` only exposes shared reads.
unsafe impl Sync for PageAlloc {}

impl PageAlloc {
    /// `bytes` zeroed bytes (`bytes > 0`) aligned to [`PAGE`]; `None` if
    /// the size is not representable or the allocator fails.
    pub(crate) fn new(bytes: usize) -> Option<PageAlloc> {
        if bytes == 0 {
            return None;
        }
        let layout = Layout::from_size_align(bytes, PAGE).ok()?;
        // SAFETY: `layout` has a non-zero size (checked above) and a valid
        // power-of-two alignment, as `alloc_zeroed` requires.
        let ptr = NonNull::new(unsafe { alloc_zeroed(layout) })?;
        Some(PageAlloc { ptr, layout })
    }

    /// The bytes.
    pub(crate) fn as_bytes(&self) -> &[u8] {
        // SAFETY: `ptr` is a live allocation of `layout.size()` initialised
        // (zeroed) bytes, shared-borrowed through `&self`.
        unsafe { core::slice::from_raw_parts(self.ptr.as_ptr(), self.layout.size()) }
    }

    /// The bytes, mutably.
    pub(crate) fn as_bytes_mut(&mut self) -> &mut [u8] {
        // SAFETY: as in `as_bytes`, exclusively borrowed through `&mut self`.
        unsafe { core::slice::from_raw_parts_mut(self.ptr.as_ptr(), self.layout.size()) }
    }
}

impl Drop for PageAlloc {
    fn drop(&mut self) {
        // SAFETY: allocated by `alloc_zeroed` with exactly `self.layout`;
        // drop runs once, and no borrow of the bytes outlives `self`.
        unsafe { dealloc(self.ptr.as_ptr(), self.layout) }
    }
}

// ------------------------------------------------------------ registration

/// A live host registration of the memory behind `mem` (see the module
/// invariants).
#[derive(Debug)]
pub(crate) struct Registration<'a> {
    mem: MemMut<'a>,
    /// The device alias (`devPtr`), an address only device code may use.
    alias: usize,
    /// The context whose device the memory was registered for.
    ctx: Raw,
}

// SAFETY: the registration holds an exclusive borrow of host memory (as a
// `&mut [u8]` would) and two plain identifiers; the runtime's unregister may
// run on any thread (the context is made current first).
unsafe impl Send for Registration<'_> {}
// SAFETY: `&Registration` only hands out shared `Mem` reads and the alias
// number.
unsafe impl Sync for Registration<'_> {}

impl<'a> Registration<'a> {
    /// `aclrtHostRegister(mem, len, ACL_HOST_REGISTER_MAPPED, &devPtr)` for
    /// the device of `ctx` (made current here). `mem` must be non-empty and
    /// start on a page boundary (checked, with clear errors).
    pub(crate) fn new(ctx: Raw, mut mem: MemMut<'a>) -> Result<Registration<'a>> {
        let address = mem.reborrow().as_ptr() as usize;
        if mem.len() == 0 {
            return Err(Error::InvalidAllocationSize {
                len: 0,
                elem_size: 1,
            });
        }
        if address % PAGE != 0 {
            return Err(Error::NotPageAligned {
                address,
                offset: address % PAGE,
            });
        }
        // `ManagedBuffer::as_mut_slice` lends managed memory as a plain
        // `&mut [T]`; only host memory can be registered.
        if managed_overlaps(address, mem.len()) {
            let code = sys::ACL_ERROR_RT_INVALID_MEMORY_TYPE;
            return Err(Error::Acl {
                code,
                kind: crate::error::ErrorKind::from_code(code),
                function: "aclrtHostRegister",
                message: format!(
                    "{address:#x}..{:#x} is managed memory (Context::alloc_managed); only host \
                     memory can be registered",
                    address + mem.len()
                ),
            });
        }
        make_current(ctx)?;
        let mut dev: *mut c_void = core::ptr::null_mut();
        // SAFETY:
        // - `mem` is an exclusive borrow of `mem.len()` bytes of host memory
        //   for `'a`, and this registration (which owns that borrow) is
        //   unregistered before `'a` ends (`unregister`, or its `Drop` in
        //   `owned`), unless leaked (module invariant: then the runtime
        //   never accesses the range by itself);
        // - `dev` is a valid, writable pointer slot for the whole call.
        let code = unsafe {
            sys::aclrtHostRegister(
                mem.as_mut_ptr(),
                mem.len() as u64,
                sys::ACL_HOST_REGISTER_MAPPED,
                &mut dev,
            )
        };
        check(code, "aclrtHostRegister")?;
        live::child_created(reg_key(address), ctx);
        let reg = Registration {
            mem,
            alias: dev as usize,
            ctx,
        };
        // A kernel argument is staged from the alias: a NULL one (success
        // with no address) would be no argument at all. Refused, and the
        // range unregistered again (by `drop`).
        if let Err(e) = super::raw(dev, "aclrtHostRegister") {
            drop(reg);
            return Err(e);
        }
        Ok(reg)
    }

    /// The registered bytes as a host slice.
    pub(crate) fn as_bytes(&self) -> &[u8] {
        let m = self.mem.reborrow();
        // SAFETY: `m` describes `len` bytes of initialised host memory that
        // `self` borrows exclusively for `'a`; the slice is a shared borrow
        // of `self`, so no writer exists while it lives (asynchronous users
        // borrow `self` too).
        unsafe { core::slice::from_raw_parts(m.as_ptr().cast::<u8>(), m.len()) }
    }

    /// The registered bytes as a mutable host slice.
    pub(crate) fn as_bytes_mut(&mut self) -> &mut [u8] {
        let len = self.mem.len();
        let p = self.mem.as_mut_ptr();
        // SAFETY: as in `as_bytes`, exclusively borrowed through `&mut self`.
        unsafe { core::slice::from_raw_parts_mut(p.cast::<u8>(), len) }
    }

    fn unregister_raw(&mut self) -> Result<()> {
        make_current(self.ctx)?;
        let base = self.mem.as_mut_ptr();
        // SAFETY: `base` is the exact start address this registration
        // registered; no asynchronous work uses the range any more (the
        // typed layer synchronises every scope that borrowed it before the
        // registration can be dropped or consumed).
        let code = unsafe { sys::aclrtHostUnregister(base) };
        check(code, "aclrtHostUnregister")?;
        live::child_released(reg_key(base as usize));
        Ok(())
    }

    /// `aclrtHostUnregister`, reporting its error. On success the memory
    /// is given back (the exclusive borrow for `'a`); on failure the
    /// registration is returned with the error.
    pub(crate) fn unregister(self) -> core::result::Result<&'a mut [u8], (Self, Error)> {
        let mut this = self;
        match this.unregister_raw() {
            Ok(()) => {
                let mut this = core::mem::ManuallyDrop::new(this);
                let len = this.mem.len();
                let p = this.mem.as_mut_ptr().cast::<u8>();
                // SAFETY: `this.mem` was an exclusive borrow of `len`
                // initialised host bytes for `'a` (a `&'a mut [T]` of plain
                // data, see `Context::register_host`); `this` is never used
                // or dropped again (`ManuallyDrop`), so the borrow moves
                // into the returned slice without being duplicated.
                Ok(unsafe { core::slice::from_raw_parts_mut(p, len) })
            }
            Err(e) => Err((this, e)),
        }
    }
}

// ------------------------------------------------------------ managed memory

/// Managed memory from `aclrtMemAllocManaged`, freed with `aclrtFree`;
/// `'ctx` as for `DeviceAlloc`.
#[derive(Debug)]
pub(crate) struct ManagedAlloc<'ctx> {
    ptr: NonNull<u8>,
    bytes: usize,
    _ctx: PhantomData<&'ctx ()>,
}

// SAFETY: exclusively owns its allocation; reads need `&self`, writes
// `&mut self`; `aclrtFree` may run on any thread.
unsafe impl Send for ManagedAlloc<'_> {}
// SAFETY: `&ManagedAlloc` only exposes shared reads.
unsafe impl Sync for ManagedAlloc<'_> {}

impl ManagedAlloc<'_> {
    /// `aclrtMemAllocManaged(bytes, ACL_RT_MEM_ATTACH_GLOBAL)`, zeroed on the
    /// host; `owner` must be current; `bytes > 0`.
    pub(crate) fn new(owner: Raw, bytes: usize) -> Result<Self> {
        let mut p: *mut c_void = core::ptr::null_mut();
        // SAFETY: `p` is a valid, writable pointer slot for the whole call.
        let code = unsafe {
            sys::aclrtMemAllocManaged(&mut p, bytes as u64, sys::ACL_RT_MEM_ATTACH_GLOBAL as u32)
        };
        check(code, "aclrtMemAllocManaged")?;
        let ptr: NonNull<u8> = super::raw(p, "aclrtMemAllocManaged")?.0.cast();
        live::child_created(ptr.as_ptr() as usize, owner);
        managed().push((ptr.as_ptr() as usize, bytes));
        // The runtime does not initialise it; a first touch from the host
        // places the pages on the host.
        // SAFETY: a fresh managed allocation of at least `bytes` bytes,
        // accessible from the host (ACL_RT_MEM_ATTACH_GLOBAL), exclusively
        // owned here, with no device work queued on it yet.
        unsafe { ptr.as_ptr().write_bytes(0, bytes) };
        Ok(ManagedAlloc {
            ptr,
            bytes,
            _ctx: PhantomData,
        })
    }

    /// The bytes as a host slice.
    pub(crate) fn as_bytes(&self) -> &[u8] {
        // SAFETY: host-accessible (ATTACH_GLOBAL), initialised (zeroed at
        // allocation), `bytes` long; device work that writes it borrows the
        // owner mutably (typed layer), so none runs while `&self` is lent.
        unsafe { core::slice::from_raw_parts(self.ptr.as_ptr(), self.bytes) }
    }

    /// The bytes as a mutable host slice.
    pub(crate) fn as_bytes_mut(&mut self) -> &mut [u8] {
        // SAFETY: as in `as_bytes`, exclusively borrowed through `&mut self`
        // (so no device work reads or writes it meanwhile).
        unsafe { core::slice::from_raw_parts_mut(self.ptr.as_ptr(), self.bytes) }
    }

    fn free_raw(&self) -> Result<()> {
        // SAFETY: allocated by aclrtMemAllocManaged (freed with aclrtFree,
        // per the header), freed exactly once by the callers (`free`
        // consumes, `drop` runs once; both in `owned`), not borrowed, no
        // async use in flight (scopes are synchronised before their borrows
        // end).
        let code = unsafe { sys::aclrtFree(self.ptr.as_ptr().cast()) };
        check(code, "aclrtFree")?;
        live::child_released(self.ptr.as_ptr() as usize);
        let at = self.ptr.as_ptr() as usize;
        managed().retain(|&(start, _)| start != at);
        Ok(())
    }
}

// ------------------------------------------------------------ failure mode, last error

/// `aclrtSetStreamFailureMode(<default stream of ctx>, ACL_STOP_ON_FAILURE)`:
/// puts the whole context in stop-on-failure mode.
pub(crate) fn set_stop_on_failure(ctx: Raw) -> Result<()> {
    make_current(ctx)?;
    let stream = super::current_default_stream()?;
    // SAFETY: `stream` is the live default stream of the current context;
    // the mode is a plain integer.
    let code =
        unsafe { sys::aclrtSetStreamFailureMode(stream.as_ptr(), sys::ACL_STOP_ON_FAILURE as u64) };
    check(code, "aclrtSetStreamFailureMode")
}

/// `aclrtPeekAtLastError(ACL_RT_THREAD_LEVEL)` (`take == false`) or
/// `aclrtGetLastError` (`take == true`): the calling thread's stored code.
pub(crate) fn last_error(take: bool) -> i32 {
    // SAFETY: integer argument; the functions read (and for Get, reset) a
    // thread-local value and have no other preconditions.
    unsafe {
        if take {
            sys::aclrtGetLastError(sys::ACL_RT_THREAD_LEVEL)
        } else {
            sys::aclrtPeekAtLastError(sys::ACL_RT_THREAD_LEVEL)
        }
    }
}

// ------------------------------------------------------------ forced release

/// `aclrtDestroyStreamForce(stream)`: drops the queued tasks instead of
/// waiting for them. The stream's unscoped host functions are parked until
/// finalize (one may still be running).
/// `owner`: the stream's context, made current first.
pub(crate) fn destroy_stream_force(stream: Raw, owner: Raw) -> Result<()> {
    let counter = super::make_current_counted_refusing(owner, "aclrtDestroyStreamForce")?;
    // A subscription a leaked `Subscription` left goes first, as for
    // `aclrtDestroyStream`: otherwise the reporter's exit would later
    // unsubscribe a destroyed (or reused) handle.
    #[cfg(unix)]
    super::report::stream_destroying(stream);
    // An escalation aborting it (for an outside wait) still holds its handle.
    super::scope::wait_not_aborting(stream);
    // A forgotten future's watch no longer queries it.
    super::completion::handle_gone(stream);
    // Its record goes, once no context synchronisation uses the handle.
    let rec = super::record::destroying(stream);
    // SAFETY: `stream` is a live explicit stream of the current context,
    // consumed by the caller; no borrowed buffer has work queued on it (every
    // scope that lent buffers to it was synchronised before the stream could
    // be moved into `destroy_force`); the `'static` host functions it may
    // still run stay owned by the registry (parked below).
    let code = unsafe { sys::aclrtDestroyStreamForce(stream.as_ptr()) };
    if let Err(e) = check(code, "aclrtDestroyStreamForce") {
        super::record::restore(rec);
        return Err(e);
    }
    counter.released();
    // Its queued stream waits were dropped with it: they leave the book of
    // outside waits (no escalation may pick the dead handle), and events
    // deferred only for them are destroyed; its unscoped host functions
    // are parked; every book forgets it.
    super::released::stream_released(stream, true, super::released::hooks());
    Ok(())
}

/// `aclrtResetDeviceForce(id)` for the last open `Device` handle of `id`.
pub(crate) fn reset_device_force(id: i32) -> Result<()> {
    refuse_in_callback("aclrtResetDeviceForce")?;
    // Checks that this is the last handle and nothing of the device lives,
    // and refuses opens of the device until the reset has returned (no lock
    // is held across the call, which waits for the device's tasks: one of
    // them may open a device).
    let gone = live::force_reset_begin(id)?;
    for &(ctx, _) in &gone {
        // A forgotten future's watch no longer queries their streams.
        super::completion::handle_gone(ctx);
    }
    super::invalidate_current_contexts();
    // SAFETY: plain integer argument; the typed layer only force-resets a
    // device through its last `Device` handle, after everything created
    // through it is gone, with no other handle opened meanwhile.
    let code = unsafe { sys::aclrtResetDeviceForce(id) };
    let done = check(code, "aclrtResetDeviceForce");
    live::force_reset_end(id, done.is_ok());
    if done.is_ok() {
        for (_, default) in gone {
            super::released::context_released(default);
        }
    }
    done
}
