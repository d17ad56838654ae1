//! Allocators registered on a stream (`aclrtAllocatorCreateDesc`,
//! `aclrtAllocatorSet*ToDesc`, `aclrtAllocatorRegister`,
//! `aclrtAllocatorUnregister`, `aclrtAllocatorDestroyDesc`), with the
//! crate's own callbacks: the blocks handed to the runtime are device
//! memory the crate allocates (`aclrtMalloc`) and keeps in a
//! [`BlockPool`], never an address from user code. One thin function per
//! C call, and the three callbacks.
//!
//! The pool is the allocator object the runtime passes back to the
//! callbacks. It is leaked (`&'static`): the runtime may call a callback on
//! one of its threads while the registration ends on another, so the
//! object stays valid for ever (a few words per registration). A block's
//! handle is its device address.

use core::ffi::c_void;

use aclrt_sys as sys;

use super::protocol::block_pool::{BlockPool, Take};
use super::{Raw, check};
use crate::error::Result;

/// The allocator object of a registration: its pool, and the context its
/// blocks count in (the crate's book of live children, so that the
/// context is not destroyed under blocks a forgotten registration kept).
pub(crate) struct PoolObj {
    pub(crate) pool: BlockPool,
    ctx: Raw,
}

/// A new allocator object for a registration in context `ctx`, for ever.
pub(crate) fn new_pool(budget: usize, ctx: Raw) -> &'static PoolObj {
    Box::leak(Box::new(PoolObj {
        pool: BlockPool::new(budget),
        ctx,
    }))
}

/// The allocation callback: a block of at least `size` bytes from the pool
/// (`obj`), or NULL (closed, over the budget, or no device memory).
unsafe extern "C" fn alloc_block(obj: sys::aclrtAllocator, size: usize) -> *mut c_void {
    // SAFETY: `obj` is the `&'static PoolObj` this module registered as
    // the allocator object (`set_obj`); the runtime passes it back as is.
    let obj = unsafe { &*obj.cast::<PoolObj>() };
    let pool = &obj.pool;
    let got = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        match pool.take(size)? {
            Take::Reuse(addr, _) => Some(addr),
            Take::New => {
                let mut p: *mut c_void = core::ptr::null_mut();
                // SAFETY: `p` is a valid, writable slot for the whole call;
                // the calling thread's current context is the stream's (the
                // runtime calls this while queueing work on it).
                let code = unsafe {
                    sys::aclrtMalloc(&mut p, size.max(1), sys::ACL_MEM_MALLOC_HUGE_FIRST)
                };
                if code != sys::ACL_SUCCESS || p.is_null() {
                    pool.not_added(size);
                    return None;
                }
                if pool.added(p as usize, size) {
                    super::live::child_created(p as usize, obj.ctx);
                    Some(p as usize)
                } else {
                    // SAFETY: `p` was just allocated here and never handed
                    // out.
                    let _ = unsafe { sys::aclrtFree(p) };
                    None
                }
            }
        }
    }));
    match got {
        Ok(Some(addr)) => addr as *mut c_void,
        _ => core::ptr::null_mut(),
    }
}

/// The release callback: the block goes back to the pool for reuse by
/// later work of the stream.
unsafe extern "C" fn free_block(obj: sys::aclrtAllocator, block: sys::aclrtAllocatorBlock) {
    // SAFETY: as in `alloc_block`.
    let obj = unsafe { &*obj.cast::<PoolObj>() };
    let _ = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        obj.pool.give_back(block as usize);
    }));
}

/// A block's device address: its handle.
unsafe extern "C" fn block_addr(block: sys::aclrtAllocatorBlock) -> *mut c_void {
    block
}

/// `aclrtAllocatorCreateDesc()`.
pub(crate) fn create_desc() -> Result<Raw> {
    // SAFETY: no arguments; the ACL layer allocates the descriptor.
    let d = unsafe { sys::aclrtAllocatorCreateDesc() };
    super::raw(d, "aclrtAllocatorCreateDesc")
}

/// `aclrtAllocatorDestroyDesc(d)`: once, by the typed layer's owner.
pub(crate) fn destroy_desc(d: Raw) -> Result<()> {
    // SAFETY: `d` came from `aclrtAllocatorCreateDesc` and is not used after
    // this (registering copied it).
    let code = unsafe { sys::aclrtAllocatorDestroyDesc(d.as_ptr()) };
    check(code, "aclrtAllocatorDestroyDesc")
}

/// `aclrtAllocatorSetObjToDesc(d, pool)`.
pub(crate) fn set_obj(d: Raw, pool: &'static PoolObj) -> Result<()> {
    // SAFETY: `d` is live; the object is a pool that lives for ever.
    let code = unsafe {
        sys::aclrtAllocatorSetObjToDesc(d.as_ptr(), core::ptr::from_ref(pool).cast_mut().cast())
    };
    check(code, "aclrtAllocatorSetObjToDesc")
}

/// `aclrtAllocatorSetAllocFuncToDesc(d, alloc_block)`.
pub(crate) fn set_alloc(d: Raw) -> Result<()> {
    // SAFETY: `d` is live; the function reads only its pool object.
    let code = unsafe { sys::aclrtAllocatorSetAllocFuncToDesc(d.as_ptr(), Some(alloc_block)) };
    check(code, "aclrtAllocatorSetAllocFuncToDesc")
}

/// `aclrtAllocatorSetFreeFuncToDesc(d, free_block)`.
pub(crate) fn set_free(d: Raw) -> Result<()> {
    // SAFETY: `d` is live; the function reads only its pool object.
    let code = unsafe { sys::aclrtAllocatorSetFreeFuncToDesc(d.as_ptr(), Some(free_block)) };
    check(code, "aclrtAllocatorSetFreeFuncToDesc")
}

/// `aclrtAllocatorSetGetAddrFromBlockFuncToDesc(d, block_addr)`.
pub(crate) fn set_get_addr(d: Raw) -> Result<()> {
    // SAFETY: `d` is live; the function touches no memory.
    let code =
        unsafe { sys::aclrtAllocatorSetGetAddrFromBlockFuncToDesc(d.as_ptr(), Some(block_addr)) };
    check(code, "aclrtAllocatorSetGetAddrFromBlockFuncToDesc")
}

/// `aclrtAllocatorRegister(stream, d)`.
pub(crate) fn register(stream: Raw, d: Raw) -> Result<()> {
    // SAFETY: both handles are live; the descriptor holds this module's
    // callbacks and a pool that lives for ever.
    let code = unsafe { sys::aclrtAllocatorRegister(stream.as_ptr(), d.as_ptr()) };
    check(code, "aclrtAllocatorRegister")
}

/// `aclrtAllocatorUnregister(stream)`.
pub(crate) fn unregister(stream: Raw) -> Result<()> {
    // SAFETY: the stream handle is live (the caller borrows its stream).
    let code = unsafe { sys::aclrtAllocatorUnregister(stream.as_ptr()) };
    check(code, "aclrtAllocatorUnregister")
}

/// `aclrtFree` of a block the pool took back at its close: called once
/// per block, after the stream is idle.
pub(crate) fn free_block_memory(addr: usize) -> Result<()> {
    // SAFETY: `addr` is a block this module allocated with `aclrtMalloc`,
    // taken out of its pool by `close` (so freed once), and the stream whose
    // work used it is idle.
    let code = unsafe { sys::aclrtFree(addr as *mut c_void) };
    check(code, "aclrtFree")?;
    super::live::child_released(addr);
    Ok(())
}
