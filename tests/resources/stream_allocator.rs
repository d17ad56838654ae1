//! The crate's allocator registered on a stream
//! (`Stream::register_allocator`): what the operator libraries would do
//! with it — fetch it by stream (`aclrtAllocatorGetByStream`), allocate a
//! block, write it from the device on the stream, give it back — is done
//! here through the raw callbacks, in both run modes. Blocks are the
//! crate's device memory, reused in stream order, bounded by the budget,
//! never handed out after the registration ended, and freed then (the
//! simulator's audit is clean).

use crate::common;

use core::ffi::c_void;
use core::ptr::null_mut;

use aclrt::{Acl, Context, Result, RunMode, make_guard, sys};
use common::*;

fn both_modes(
    f: impl for<'id> Fn(&Context<'_, 'id, aclrt::HostMode>) -> Result<()> + Copy,
    g: impl for<'id> Fn(&Context<'_, 'id, aclrt::DeviceMode>) -> Result<()> + Copy,
) {
    for device_mode in [false, true] {
        let _sim = take(if device_mode {
            device_config()
        } else {
            host_config()
        });
        let acl = Acl::init().expect("aclInit");
        let device = if device_mode {
            with_ctx(&acl, g)
        } else {
            with_ctx(&acl, f)
        };
        device.expect("flow");
        acl.finalize().expect("aclFinalize");
        assert_clean();
    }
}

fn with_ctx<M: RunMode>(
    acl: &Acl,
    f: impl for<'id> FnOnce(&Context<'_, 'id, M>) -> Result<()>,
) -> Result<()> {
    let device = acl.require::<M>()?.device(0)?;
    make_guard!(g);
    let ctx = device.create_context(g)?;
    f(&ctx)?;
    ctx.destroy()?;
    device.reset()
}

/// The registration as the runtime's users see it.
struct Registered {
    /// The allocator object, as an address (shared with a thread).
    obj: usize,
    alloc: unsafe extern "C" fn(sys::aclrtAllocator, usize) -> *mut c_void,
    free: unsafe extern "C" fn(sys::aclrtAllocator, sys::aclrtAllocatorBlock),
    addr: unsafe extern "C" fn(sys::aclrtAllocatorBlock) -> *mut c_void,
}

fn registered(stream: *mut c_void) -> Option<Registered> {
    let (mut d, mut o) = (null_mut(), null_mut());
    let (mut af, mut ff, mut aa, mut ga) = (None, None, None, None);
    // SAFETY: every output is a valid, writable slot.
    let code = unsafe {
        sys::aclrtAllocatorGetByStream(stream, &mut d, &mut o, &mut af, &mut ff, &mut aa, &mut ga)
    };
    if code != sys::ACL_SUCCESS {
        return None;
    }
    assert!(aa.is_none(), "no advise callback is registered");
    Some(Registered {
        obj: o as usize,
        alloc: af?,
        free: ff?,
        addr: ga?,
    })
}

impl Registered {
    fn alloc(&self, size: usize) -> *mut c_void {
        // SAFETY: the callbacks the crate registered, with their object.
        unsafe { (self.alloc)(self.obj as sys::aclrtAllocator, size) }
    }
    fn free(&self, block: *mut c_void) {
        // SAFETY: as above; `block` came from `alloc`.
        unsafe { (self.free)(self.obj as sys::aclrtAllocator, block) }
    }
    fn addr(&self, block: *mut c_void) -> *mut c_void {
        // SAFETY: as above.
        unsafe { (self.addr)(block) }
    }
}

fn flow<M: RunMode>(ctx: &Context<'_, '_, M>) -> Result<()> {
    let s = ctx.create_stream()?;
    {
        let reg = s.register_allocator(4096)?;
        let r = registered(s.as_raw()).expect("registered on the stream");
        let block = r.alloc(1024);
        assert!(!block.is_null());
        assert_eq!(reg.bytes(), 1024);
        let addr = r.addr(block);
        // The device writes the block on the stream, as an operator would.
        // SAFETY: `addr` is 1024 bytes of device memory of this context.
        let code = unsafe { sys::aclrtMemsetAsync(addr, 1024, 7, 1024, s.as_raw()) };
        assert_eq!(code, sys::ACL_SUCCESS);
        s.synchronize()?;
        let mut back = [0u8; 1024];
        // SAFETY: `back` is 1024 writable bytes; `addr` 1024 device bytes.
        let code = unsafe {
            sys::aclrtMemcpy(
                back.as_mut_ptr().cast(),
                1024,
                addr,
                1024,
                sys::ACL_MEMCPY_DEVICE_TO_HOST,
            )
        };
        assert_eq!(code, sys::ACL_SUCCESS);
        assert!(back.iter().all(|&b| b == 7));
        // Given back: reused by the next allocation that fits.
        r.free(block);
        let again = r.alloc(512);
        assert_eq!(again, block, "a given-back block is reused");
        // The budget: 4096 bytes in all.
        let big = r.alloc(2048);
        assert!(!big.is_null());
        assert_eq!(reg.bytes(), 3072);
        assert!(r.alloc(2048).is_null(), "over the budget");
        assert_eq!(reg.bytes(), 3072, "a refused allocation holds nothing");
        reg.unregister()?;
        // Ended: the runtime finds no allocator on the stream, and a
        // caller that kept the callbacks gets no block.
        assert!(registered(s.as_raw()).is_none());
        assert!(r.alloc(16).is_null(), "a block after the end");
        r.free(again);
    }
    {
        // Dropping the guard ends the registration the same way.
        let reg = s.register_allocator(1 << 20)?;
        let r = registered(s.as_raw()).expect("registered");
        let b = r.alloc(64);
        assert!(!b.is_null());
        drop(reg);
        assert!(registered(s.as_raw()).is_none());
    }
    s.destroy()
}

#[test]
fn the_crates_allocator_serves_a_stream_from_its_own_blocks() {
    both_modes(flow, flow);
}

/// Attack: the runtime's thread allocates and releases blocks in a loop
/// while the program ends the registration. No block is handed out after
/// the end (every later allocation is NULL), the blocks are freed once,
/// and the simulator sees no use after free and no leak.
fn callbacks_on_another_thread_vs_end<M: RunMode>(ctx: &Context<'_, '_, M>) -> Result<()> {
    let s = ctx.create_stream()?;
    let ctx_raw = ctx.as_raw() as usize;
    for round in 0..20 {
        let reg = s.register_allocator(1 << 16)?;
        let r = registered(s.as_raw()).expect("registered");
        let ended = std::sync::atomic::AtomicBool::new(false);
        std::thread::scope(|t| {
            let (r, ended) = (&r, &ended);
            let worker = t.spawn(move || {
                // The runtime's thread works in the stream's context.
                // SAFETY: the context outlives this scope.
                let code = unsafe { sys::aclrtSetCurrentContext(ctx_raw as *mut c_void) };
                assert_eq!(code, sys::ACL_SUCCESS);
                let mut after_end = 0;
                for i in 0..200usize {
                    let was_ended = ended.load(std::sync::atomic::Ordering::SeqCst);
                    let b = r.alloc(64 + (i % 4) * 64);
                    if b.is_null() {
                        continue;
                    }
                    if was_ended {
                        after_end += 1;
                    }
                    r.free(b);
                }
                after_end
            });
            std::thread::sleep(std::time::Duration::from_micros(200 * (round % 5)));
            reg.unregister().expect("unregister");
            ended.store(true, std::sync::atomic::Ordering::SeqCst);
            assert_eq!(
                worker.join().expect("worker"),
                0,
                "a block handed out after the end"
            );
        });
    }
    s.destroy()
}

#[test]
fn callbacks_on_another_thread_race_the_end() {
    both_modes(
        callbacks_on_another_thread_vs_end,
        callbacks_on_another_thread_vs_end,
    );
}

/// Attack: `mem::forget` on the guard leaves the registration and its
/// blocks (a leak, never a dangling callback): the callbacks still answer
/// after the stream is destroyed, the blocks count as the context's live
/// children (its destruction is refused, `LiveChildren`, as for any leaked
/// child), and the simulator records no violation.
fn forgotten<M: RunMode>(ctx: &Context<'_, '_, M>) -> Result<()> {
    let s = ctx.create_stream()?;
    let raw = s.as_raw();
    let reg = s.register_allocator(4096)?;
    let r = registered(raw).expect("registered");
    let b = r.alloc(128);
    assert!(!b.is_null());
    std::mem::forget(reg);
    s.destroy()?;
    // The runtime's registry is keyed by the stream pointer and outlives
    // the stream: the callbacks and their pool are still there.
    let again = r.alloc(128);
    assert!(!again.is_null(), "the pool of a forgotten guard stays open");
    r.free(b);
    r.free(again);
    Ok(())
}

fn with_ctx_leaking<M: RunMode>(acl: &Acl) -> Result<()> {
    let device = acl.require::<M>()?.device(0)?;
    make_guard!(g);
    let ctx = device.create_context(g)?;
    forgotten(&ctx)?;
    let e = ctx.destroy().expect_err("a context under leaked blocks");
    assert!(matches!(e, aclrt::Error::LiveChildren { .. }), "{e:?}");
    std::mem::forget(device);
    Ok(())
}

#[test]
fn a_forgotten_registration_leaks_and_stays_callable() {
    for device_mode in [false, true] {
        let _sim = take(if device_mode {
            device_config()
        } else {
            host_config()
        });
        let acl = Acl::init().expect("aclInit");
        let r = if device_mode {
            with_ctx_leaking::<aclrt::DeviceMode>(&acl)
        } else {
            with_ctx_leaking::<aclrt::HostMode>(&acl)
        };
        r.expect("flow");
        let audit = aclrt::sim::audit();
        assert!(audit.violations.is_empty(), "{audit:#?}");
        drop(acl);
        aclrt::sim::reset();
        assert_clean();
    }
}
