//! The twin of `safe.rs`: the same work (every memory kind, views,
//! events of both kinds, streams, two-stream hand-offs with host functions,
//! default contexts, peer copies, nine element types, both run modes)
//! written with raw `aclrt::sys` calls only, so that
//! `benches/compile_time.sh` can compare what the typestates cost the
//! compiler. It also runs: `cargo run --manifest-path benches/Cargo.toml --example compile_cost_raw`.

use core::ffi::c_void;
use core::fmt::Debug;
use std::ptr::{null, null_mut};
use std::sync::atomic::{AtomicUsize, Ordering};

use aclrt::sys;

type Res = Result<(), String>;

fn chk(code: sys::aclError, what: &str) -> Res {
    if code == 0 {
        Ok(())
    } else {
        Err(format!("{what} failed with {code}"))
    }
}

/// Calls a raw function and turns its code into a `Res`.
macro_rules! acl {
    ($f:ident ( $($arg:expr),* $(,)? )) => {
        // SAFETY: every call passes live handles of the current context,
        // out-pointers to locals of the right type, and memory regions the
        // program allocated with at least the sizes passed along.
        chk(unsafe { sys::$f($($arg),*) }, stringify!($f))
    };
}

trait Elem: Copy + PartialEq + Debug + Send + Sync + 'static {
    fn of(i: usize) -> Self;
}

macro_rules! elem_int {
    ($($t:ty),*) => { $(impl Elem for $t { fn of(i: usize) -> Self { (i % 100) as $t } })* };
}
elem_int!(u8, u16, u32, u64, i32, i64);

impl Elem for f32 {
    fn of(i: usize) -> Self {
        (i % 1000) as f32 * 0.5
    }
}

impl Elem for f64 {
    fn of(i: usize) -> Self {
        (i % 1000) as f64 * 0.25
    }
}

impl Elem for [f32; 4] {
    fn of(i: usize) -> Self {
        [i as f32, 1.0, 2.0, (i % 7) as f32]
    }
}

fn pattern<T: Elem>(n: usize) -> Vec<T> {
    (0..n).map(T::of).collect()
}

/// The memcpy kind for a copy, from the run mode and where both sides lie.
#[derive(Clone, Copy)]
struct Env {
    host_mode: bool,
}

impl Env {
    fn kind(self, src_dev: bool, dst_dev: bool) -> sys::aclrtMemcpyKind {
        match (self.host_mode, src_dev, dst_dev) {
            (false, _, _) | (true, true, true) => sys::ACL_MEMCPY_DEVICE_TO_DEVICE,
            (true, false, false) => sys::ACL_MEMCPY_HOST_TO_HOST,
            (true, false, true) => sys::ACL_MEMCPY_HOST_TO_DEVICE,
            (true, true, false) => sys::ACL_MEMCPY_DEVICE_TO_HOST,
        }
    }
}

fn dev_alloc<T>(n: usize, policy: sys::aclrtMemMallocPolicy) -> Result<*mut c_void, String> {
    let mut p = null_mut();
    acl!(aclrtMalloc(&mut p, n * size_of::<T>(), policy))?;
    Ok(p)
}

fn host_alloc<T>(n: usize) -> Result<*mut T, String> {
    let mut p = null_mut();
    acl!(aclrtMallocHost(&mut p, n * size_of::<T>()))?;
    Ok(p.cast())
}

fn host_slice<'a, T>(p: *mut T, n: usize) -> &'a mut [T] {
    // SAFETY: `p` is pinned host memory of `n` initialised `T`s that the
    // caller does not free or alias while the slice is in use.
    unsafe { std::slice::from_raw_parts_mut(p, n) }
}

fn copy<T>(env: Env, dst: *mut c_void, dd: bool, src: *const c_void, sd: bool, n: usize) -> Res {
    let b = n * size_of::<T>();
    acl!(aclrtMemcpy(dst, b, src, b, env.kind(sd, dd)))
}

// ---------------------------------------------------------------- memory

fn round_trip<T: Elem>(env: Env, n: usize) -> Res {
    let data = pattern::<T>(n);
    let host = host_alloc::<T>(n)?;
    host_slice(host, n).copy_from_slice(&data);
    let dev = dev_alloc::<T>(n, sys::ACL_MEM_MALLOC_HUGE_FIRST)?;
    copy::<T>(env, dev, true, host.cast(), false, n)?;
    let mut back = vec![T::of(0); n];
    copy::<T>(env, back.as_mut_ptr().cast(), false, dev, true, n)?;
    assert_eq!(back, data);
    let other = host_alloc::<T>(n)?;
    copy::<T>(env, other.cast(), false, dev, true, n)?;
    assert_eq!(host_slice(other, n), &data[..]);
    acl!(aclrtFreeHost(other.cast()))?;
    acl!(aclrtFree(dev))?;
    acl!(aclrtFreeHost(host.cast()))
}

fn windows<T: Elem>(env: Env, n: usize) -> Res {
    let data = pattern::<T>(n);
    let b = n * size_of::<T>();
    let src = dev_alloc::<T>(n, sys::ACL_MEM_MALLOC_HUGE_FIRST)?;
    copy::<T>(env, src, true, data.as_ptr().cast(), false, n)?;
    let dst = dev_alloc::<T>(n, sys::ACL_MEM_MALLOC_HUGE_FIRST)?;
    acl!(aclrtMemset(dst, b, 0, b))?;
    let half = n / 2;
    // SAFETY: `half * size_of::<T>()` bytes past `dst` is inside its block.
    let target = unsafe { dst.cast::<u8>().add(half * size_of::<T>()) }.cast::<c_void>();
    copy::<T>(env, target, true, src, true, half)?;
    let mut back = vec![T::of(0); n];
    copy::<T>(env, back.as_mut_ptr().cast(), false, dst, true, n)?;
    assert_eq!(back[half..half * 2], data[..half]);
    acl!(aclrtFree(dst))?;
    acl!(aclrtFree(src))
}

fn uninit_paths<T: Elem>(env: Env, n: usize) -> Res {
    let b = n * size_of::<T>();
    let a = host_alloc::<T>(n)?;
    // SAFETY: `a` is `b` bytes of pinned host memory.
    unsafe { a.cast::<u8>().write_bytes(0, b) };
    let c = host_alloc::<T>(n)?;
    acl!(aclrtMemset(c.cast(), b, 0, b))?;
    assert_eq!(host_slice(a, n), host_slice(c, n));
    host_slice(c, n).copy_from_slice(&pattern::<T>(n));
    let d = host_alloc::<T>(n)?;
    copy::<T>(env, d.cast(), false, c.cast(), false, n)?;
    assert_eq!(host_slice(d, n), host_slice(c, n));
    for p in [a, c, d] {
        acl!(aclrtFreeHost(p.cast()))?;
    }
    Ok(())
}

fn policies<T: Elem>(n: usize) -> Res {
    for policy in [
        sys::ACL_MEM_MALLOC_HUGE_FIRST,
        sys::ACL_MEM_MALLOC_HUGE_ONLY,
        sys::ACL_MEM_MALLOC_NORMAL_ONLY,
    ] {
        let p = dev_alloc::<T>(n, policy)?;
        let b = n * size_of::<T>();
        acl!(aclrtMemset(p, b, 0, b))?;
        acl!(aclrtFree(p))?;
    }
    Ok(())
}

// ---------------------------------------------------------------- events

fn record_and_wait(stream: sys::aclrtStream, event: sys::aclrtEvent) -> Res {
    acl!(aclrtRecordEvent(event, stream))?;
    wait_recorded(event)
}

fn wait_recorded(event: sys::aclrtEvent) -> Res {
    acl!(aclrtSynchronizeEvent(event))?;
    acl!(aclrtSynchronizeEventWithTimeout(event, 5000))?;
    let mut status = 0;
    acl!(aclrtQueryEventStatus(event, &mut status))?;
    assert_eq!(status, sys::ACL_EVENT_RECORDED_STATUS_COMPLETE);
    Ok(())
}

fn events() -> Res {
    let mut stream = null_mut();
    acl!(aclrtCreateStream(&mut stream))?;
    let (mut start, mut end, mut sync) = (null_mut(), null_mut(), null_mut());
    acl!(aclrtCreateEvent(&mut start))?;
    record_and_wait(stream, start)?;
    acl!(aclrtCreateEvent(&mut end))?;
    record_and_wait(stream, end)?;
    let mut ms = 0.0f32;
    acl!(aclrtEventElapsedTime(&mut ms, start, end))?;
    assert!(ms >= 0.0);
    acl!(aclrtCreateEventWithFlag(&mut sync, sys::ACL_EVENT_SYNC))?;
    record_and_wait(stream, sync)?;
    acl!(aclrtResetEvent(sync, stream))?;
    acl!(aclrtSynchronizeStream(stream))?;
    record_and_wait(stream, sync)?;
    let mut avail = 0;
    acl!(aclrtGetEventAvailNum(&mut avail))?;
    for e in [sync, start, end] {
        acl!(aclrtDestroyEvent(e))?;
    }
    acl!(aclrtDestroyStream(stream))
}

// ---------------------------------------------------------------- streams

unsafe extern "C" fn count_up(args: *mut c_void) {
    // SAFETY: `args` is a live `AtomicUsize` (the caller synchronises the
    // stream before it goes away).
    unsafe { &*args.cast::<AtomicUsize>() }.fetch_add(1, Ordering::SeqCst);
}

fn stream_basics() -> Res {
    let (mut plain, mut fast) = (null_mut(), null_mut());
    acl!(aclrtCreateStream(&mut plain))?;
    acl!(aclrtCreateStreamWithConfig(
        &mut fast,
        0,
        sys::ACL_STREAM_FAST_LAUNCH
    ))?;
    let hits = AtomicUsize::new(0);
    let arg = &hits as *const AtomicUsize as *mut c_void;
    for s in [plain, fast] {
        acl!(aclrtLaunchHostFunc(s, Some(count_up), arg))?;
        acl!(aclrtSynchronizeStream(s))?;
        acl!(aclrtSynchronizeStreamWithTimeout(s, 5000))?;
        let mut status = 1;
        acl!(aclrtStreamQuery(s, &mut status))?;
        assert_eq!(status, sys::ACL_STREAM_STATUS_COMPLETE);
    }
    assert_eq!(hits.load(Ordering::SeqCst), 2);
    let mut default = null_mut();
    acl!(aclrtCtxGetCurrentDefaultStream(&mut default))?;
    acl!(aclrtSynchronizeStream(default))?;
    acl!(aclrtDestroyStream(plain))?;
    acl!(aclrtDestroyStream(fast))
}

// ---------------------------------------------------------------- two streams

struct Reverse<T> {
    ptr: *mut T,
    len: usize,
}

unsafe extern "C" fn reverse_twice<T: Elem>(args: *mut c_void) {
    // SAFETY: `args` is a live `Reverse<T>` over pinned host memory that no
    // one else touches until the stream is synchronised.
    let r = unsafe { &*args.cast::<Reverse<T>>() };
    let v = host_slice(r.ptr, r.len);
    v.reverse();
    v.reverse();
}

fn pipeline<T: Elem>(env: Env, n: usize) -> Res {
    let b = n * size_of::<T>();
    let (mut a, mut s2) = (null_mut(), null_mut());
    acl!(aclrtCreateStream(&mut a))?;
    acl!(aclrtCreateStream(&mut s2))?;
    let input = host_alloc::<T>(n)?;
    host_slice(input, n).copy_from_slice(&pattern::<T>(n));
    let stage = dev_alloc::<T>(n, sys::ACL_MEM_MALLOC_HUGE_FIRST)?;
    let output = host_alloc::<T>(n)?;
    let scratch = dev_alloc::<T>(n, sys::ACL_MEM_MALLOC_HUGE_FIRST)?;
    let (mut user, mut mark, mut handoff) = (null_mut(), null_mut(), null_mut());
    acl!(aclrtCreateEvent(&mut user))?;
    acl!(aclrtCreateEventWithFlag(&mut mark, sys::ACL_EVENT_SYNC))?;
    acl!(aclrtCreateEventWithFlag(&mut handoff, sys::ACL_EVENT_SYNC))?;
    let h2d = env.kind(false, true);
    acl!(aclrtMemcpyAsync(stage, b, input.cast(), b, h2d, a))?;
    acl!(aclrtRecordEvent(mark, a))?;
    acl!(aclrtRecordEvent(user, a))?;
    acl!(aclrtRecordEvent(handoff, a))?;
    acl!(aclrtStreamWaitEvent(s2, handoff))?;
    acl!(aclrtStreamWaitEvent(s2, mark))?;
    acl!(aclrtMemsetAsync(scratch, b, 0, b, s2))?;
    let d2d = env.kind(true, true);
    acl!(aclrtMemcpyAsync(scratch, b, stage, b, d2d, s2))?;
    let d2h = env.kind(true, false);
    acl!(aclrtMemcpyAsync(output.cast(), b, stage, b, d2h, s2))?;
    let rev = Reverse {
        ptr: output,
        len: n,
    };
    let rev_arg = &rev as *const Reverse<T> as *mut c_void;
    acl!(aclrtLaunchHostFunc(s2, Some(reverse_twice::<T>), rev_arg))?;
    let seen = AtomicUsize::new(0);
    let seen_arg = &seen as *const AtomicUsize as *mut c_void;
    acl!(aclrtLaunchHostFunc(s2, Some(count_up), seen_arg))?;
    acl!(aclrtSynchronizeStream(s2))?;
    acl!(aclrtSynchronizeStream(a))?;
    acl!(aclrtSynchronizeEvent(user))?;
    assert_eq!(host_slice(output, n), host_slice(input, n));
    assert_eq!(seen.load(Ordering::SeqCst), 1);
    for e in [user, mark, handoff] {
        acl!(aclrtDestroyEvent(e))?;
    }
    acl!(aclrtFree(stage))?;
    acl!(aclrtFree(scratch))?;
    acl!(aclrtFreeHost(input.cast()))?;
    acl!(aclrtFreeHost(output.cast()))?;
    acl!(aclrtDestroyStream(a))?;
    acl!(aclrtDestroyStream(s2))
}

fn waits_on_event<T: Elem>(env: Env, n: usize) -> Res {
    let b = n * size_of::<T>();
    let (mut s1, mut s2, mut event) = (null_mut(), null_mut(), null_mut());
    acl!(aclrtCreateStream(&mut s1))?;
    acl!(aclrtCreateStream(&mut s2))?;
    acl!(aclrtCreateEventWithFlag(&mut event, sys::ACL_EVENT_SYNC))?;
    acl!(aclrtRecordEvent(event, s1))?;
    let host = host_alloc::<T>(n)?;
    host_slice(host, n).copy_from_slice(&pattern::<T>(n));
    let dev = dev_alloc::<T>(n, sys::ACL_MEM_MALLOC_HUGE_FIRST)?;
    acl!(aclrtStreamWaitEvent(s2, event))?;
    acl!(aclrtMemcpyAsync(
        dev,
        b,
        host.cast(),
        b,
        env.kind(false, true),
        s1
    ))?;
    acl!(aclrtSynchronizeStream(s1))?;
    acl!(aclrtSynchronizeStream(s2))?;
    acl!(aclrtDestroyEvent(event))?;
    acl!(aclrtFree(dev))?;
    acl!(aclrtFreeHost(host.cast()))?;
    acl!(aclrtDestroyStream(s1))?;
    acl!(aclrtDestroyStream(s2))
}

// ---------------------------------------------------------------- contexts

fn default_context_work<T: Elem>(env: Env, device: i32, n: usize) -> Res {
    acl!(aclrtSetDevice(device))?;
    round_trip::<T>(env, n)?;
    acl!(aclrtSynchronizeDevice())?;
    acl!(aclrtSynchronizeDeviceWithTimeout(5000))?;
    acl!(aclrtResetDevice(device))
}

fn context_info(ctx: sys::aclrtContext) -> Result<i32, String> {
    assert!(!ctx.is_null());
    acl!(aclrtSetCurrentContext(ctx))?;
    let mut id = -1;
    acl!(aclrtGetDevice(&mut id))?;
    Ok(id)
}

fn host_only<T: Elem>(env: Env, n: usize) -> Res {
    let data = pattern::<T>(n);
    let dev = dev_alloc::<T>(n, sys::ACL_MEM_MALLOC_HUGE_FIRST)?;
    copy::<T>(env, dev, true, data.as_ptr().cast(), false, n)?;
    let mut back = vec![T::of(0); n];
    copy::<T>(env, back.as_mut_ptr().cast(), false, dev, true, n)?;
    assert_eq!(back, data);
    acl!(aclrtFree(dev))
}

fn all_types(env: Env, n: usize) -> Res {
    macro_rules! each {
        ($($t:ty),*) => {$(
            round_trip::<$t>(env, n)?;
            windows::<$t>(env, n)?;
            uninit_paths::<$t>(env, n)?;
            policies::<$t>(n)?;
            pipeline::<$t>(env, n)?;
            waits_on_event::<$t>(env, n)?;
        )*};
    }
    each!(u8, u16, u32, u64, i32, i64, f32, f64, [f32; 4]);
    Ok(())
}

// ---------------------------------------------------------------- devices

fn peers(env: Env) -> Res {
    let mut can = 0;
    acl!(aclrtDeviceCanAccessPeer(&mut can, 0, 1))?;
    if can == 0 {
        println!("  peer access 0 -> 1 not available; skipped");
        return Ok(());
    }
    acl!(aclrtSetDevice(0))?;
    acl!(aclrtSetDevice(1))?;
    let (mut c0, mut c1) = (null_mut(), null_mut());
    acl!(aclrtCreateContext(&mut c0, 0))?;
    acl!(aclrtCreateContext(&mut c1, 1))?;
    acl!(aclrtSetCurrentContext(c0))?;
    acl!(aclrtDeviceEnablePeerAccess(1, 0))?;
    peer_copy::<u32>(env, c0, c1, 300)?;
    peer_copy::<f32>(env, c0, c1, 300)?;
    acl!(aclrtSetCurrentContext(c0))?;
    acl!(aclrtDeviceDisablePeerAccess(1))?;
    acl!(aclrtDestroyContext(c1))?;
    acl!(aclrtDestroyContext(c0))?;
    acl!(aclrtResetDevice(1))?;
    acl!(aclrtResetDevice(0))
}

fn peer_copy<T: Elem>(env: Env, c0: sys::aclrtContext, c1: sys::aclrtContext, n: usize) -> Res {
    let data = pattern::<T>(n);
    let b = n * size_of::<T>();
    acl!(aclrtSetCurrentContext(c0))?;
    let src = dev_alloc::<T>(n, sys::ACL_MEM_MALLOC_HUGE_FIRST)?;
    copy::<T>(env, src, true, data.as_ptr().cast(), false, n)?;
    acl!(aclrtSetCurrentContext(c1))?;
    let dst = dev_alloc::<T>(n, sys::ACL_MEM_MALLOC_HUGE_FIRST)?;
    acl!(aclrtSetCurrentContext(c0))?;
    acl!(aclrtMemcpy(
        dst,
        b,
        src,
        b,
        sys::ACL_MEMCPY_DEVICE_TO_DEVICE
    ))?;
    acl!(aclrtSetCurrentContext(c1))?;
    let mut back = vec![T::of(0); n];
    copy::<T>(env, back.as_mut_ptr().cast(), false, dst, true, n)?;
    assert_eq!(back, data);
    acl!(aclrtFree(dst))?;
    acl!(aclrtSetCurrentContext(c0))?;
    acl!(aclrtFree(src))
}

fn device_info() -> Res {
    let (mut free, mut total, mut streams) = (0, 0, 0);
    acl!(aclrtGetMemInfo(sys::ACL_HBM_MEM, &mut free, &mut total))?;
    assert!(free <= total);
    acl!(aclrtGetStreamAvailableNum(&mut streams))?;
    assert!(streams > 0);
    acl!(aclrtSynchronizeDevice())
}

fn run(env: Env) -> Res {
    let mut count = 0;
    acl!(aclrtGetDeviceCount(&mut count))?;
    acl!(aclrtSetDevice(0))?;
    device_info()?;
    let mut ctx = null_mut();
    acl!(aclrtCreateContext(&mut ctx, 0))?;
    assert_eq!(context_info(ctx)?, 0);
    all_types(env, 257)?;
    events()?;
    stream_basics()?;
    if env.host_mode {
        host_only::<u32>(env, 64)?;
        host_only::<f64>(env, 64)?;
    }
    acl!(aclrtDestroyContext(ctx))?;
    default_context_work::<u32>(env, 0, 100)?;
    default_context_work::<[f32; 4]>(env, 0, 100)?;
    if count > 1 {
        peers(env)?;
    }
    acl!(aclrtResetDevice(0))
}

fn main() -> Res {
    acl!(aclInit(null()))?;
    let mut mode = 0;
    acl!(aclrtGetRunMode(&mut mode))?;
    let (mut major, mut minor, mut patch) = (0, 0, 0);
    acl!(aclrtGetVersion(&mut major, &mut minor, &mut patch))?;
    // SAFETY: the runtime returns a static NUL-terminated string or null.
    let soc = unsafe { sys::aclrtGetSocName() };
    let soc = if soc.is_null() {
        String::new()
    } else {
        // SAFETY: non-null, NUL-terminated, static.
        unsafe { core::ffi::CStr::from_ptr(soc) }
            .to_string_lossy()
            .into_owned()
    };
    println!("compile_cost_raw: run mode {mode}, SoC {soc}, version {major}.{minor}.{patch}");
    run(Env {
        host_mode: mode == sys::ACL_HOST,
    })?;
    acl!(aclFinalize())?;
    aclrt::sim::audit().assert_clean();
    println!("compile_cost_raw: OK");
    Ok(())
}
