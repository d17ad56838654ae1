//! The basement: every `unsafe` of the module, one C call per function.
//!
//! Each function takes the plain integers pyACL's wrappers take (addresses and
//! handles as `u64`, `0` for NULL and the default stream), makes exactly one
//! call of `aclrt-sys`, and returns the outputs followed by the `aclError`,
//! which is how the Python functions above return them. Nothing here holds a
//! Python object or a lock, so the callers may run these with the GIL
//! released.
//!
//! The common safety argument, referred to as "pyACL's contract" below:
//! pyACL hands the integers a script passes straight to the runtime; so does
//! this module, on purpose (a script written for pyACL must behave the same).
//! Handles are checked by the runtime: the simulator resolves every handle in
//! its tables and every address in its allocation table (unknown handle →
//! 107017; freed, out-of-bounds or wrong-kind memory → an error code, never
//! touched); the real runtime documents the same preconditions for its
//! callers, which a pyACL script has to meet on Huawei's module too. The one
//! kind of address neither can check is *application* memory (an address
//! outside every runtime allocation): it is touched as the script asked, as
//! on pyACL. Out-pointers are always locals of these functions.
#![allow(unsafe_code)]

use aclrt_sys as sys;
use core::ffi::{CStr, c_char, c_void};

/// A handle or address as the C functions take it.
fn p(v: u64) -> *mut c_void {
    v as usize as *mut c_void
}

/// A returned handle or address as Python sees it.
fn n<T>(v: *mut T) -> u64 {
    v as usize as u64
}

/// A NUL-terminated string the runtime returned (or NULL), copied out.
fn string(s: *const c_char) -> Option<String> {
    if s.is_null() {
        return None;
    }
    // SAFETY: `s` is non-NULL and, per the AscendCL documentation of
    // aclGetRecentErrMsg / aclrtGetSocName (the only callers), points to a
    // NUL-terminated string the runtime keeps alive at least until the next
    // runtime call of this thread; it is copied before returning.
    Some(unsafe { CStr::from_ptr(s) }.to_string_lossy().into_owned())
}

macro_rules! call {
    // No outputs: `ret`.
    ($(#[$m:meta])* $name:ident => $c:ident($($a:ident: $t:ty => $conv:expr),*)) => {
        $(#[$m])*
        #[allow(clippy::too_many_arguments)] // one per C parameter
        pub fn $name($($a: $t),*) -> i32 {
            // SAFETY: pyACL's contract (module docs): the arguments are the
            // script's integers, validated by the runtime, which touches
            // application memory only where the script asked it to.
            unsafe { sys::$c($($conv),*) }
        }
    };
}

macro_rules! out1 {
    ($(#[$m:meta])* $name:ident -> $o:ty [$ot:ty, $init:expr, $ret:expr] => $c:ident($($a:ident: $t:ty => $conv:expr),*)) => {
        $(#[$m])*
        pub fn $name($($a: $t),*) -> ($o, i32) {
            let mut out: $ot = $init;
            // SAFETY: `out` is a local the C function may write once;
            // everything else is pyACL's contract (module docs).
            let ret = unsafe { sys::$c(&mut out, $($conv),*) };
            #[allow(clippy::redundant_closure_call)]
            (($ret)(out), ret)
        }
    };
}

// ---- process level -------------------------------------------------------

/// `aclInit(configPath)`; `None` passes NULL.
pub fn init(path: Option<&CStr>) -> i32 {
    let ptr = path.map_or(core::ptr::null(), CStr::as_ptr);
    // SAFETY: `ptr` is NULL or a NUL-terminated string alive for the call.
    unsafe { sys::aclInit(ptr) }
}
call!(
    /// `aclFinalize()`.
    finalize => aclFinalize()
);
out1!(
    /// `aclFinalizeReference(&refCount)`.
    finalize_reference -> u64 [u64, 0, |v| v] => aclFinalizeReference()
);
/// `aclGetRecentErrMsg()`.
pub fn recent_err_msg() -> Option<String> {
    // SAFETY: no arguments; the result is read by `string`.
    string(unsafe { sys::aclGetRecentErrMsg() })
}
/// `aclrtGetSocName()`.
pub fn soc_name() -> Option<String> {
    // SAFETY: no arguments; the result is read by `string`.
    string(unsafe { sys::aclrtGetSocName() })
}
/// `aclrtGetVersion(&major, &minor, &patch)`.
pub fn version() -> (i32, i32, i32, i32) {
    let (mut a, mut b, mut c) = (0, 0, 0);
    // SAFETY: three locals the C function may write.
    let ret = unsafe { sys::aclrtGetVersion(&mut a, &mut b, &mut c) };
    (a, b, c, ret)
}

// ---- device --------------------------------------------------------------

call!(
    /// `aclrtSetDevice`.
    set_device => aclrtSetDevice(d: i32 => d)
);
call!(
    /// `aclrtResetDevice`.
    reset_device => aclrtResetDevice(d: i32 => d)
);
call!(
    /// `aclrtResetDeviceForce`.
    reset_device_force => aclrtResetDeviceForce(d: i32 => d)
);
out1!(
    /// `aclrtGetDevice`.
    get_device -> i32 [i32, 0, |v| v] => aclrtGetDevice()
);
out1!(
    /// `aclrtGetDeviceCount`.
    get_device_count -> u32 [u32, 0, |v| v] => aclrtGetDeviceCount()
);
out1!(
    /// `aclrtGetRunMode`.
    get_run_mode -> u32 [sys::aclrtRunMode, 0, |v| v] => aclrtGetRunMode()
);
call!(
    /// `aclrtSynchronizeDevice`.
    synchronize_device => aclrtSynchronizeDevice()
);
call!(
    /// `aclrtSynchronizeDeviceWithTimeout`.
    synchronize_device_with_timeout => aclrtSynchronizeDeviceWithTimeout(t: i32 => t)
);

// ---- context -------------------------------------------------------------

out1!(
    /// `aclrtCreateContext`.
    create_context -> u64 [sys::aclrtContext, core::ptr::null_mut(), n] => aclrtCreateContext(d: i32 => d)
);
call!(
    /// `aclrtDestroyContext`.
    destroy_context => aclrtDestroyContext(c: u64 => p(c))
);
call!(
    /// `aclrtSetCurrentContext`.
    set_context => aclrtSetCurrentContext(c: u64 => p(c))
);
out1!(
    /// `aclrtGetCurrentContext`.
    get_context -> u64 [sys::aclrtContext, core::ptr::null_mut(), n] => aclrtGetCurrentContext()
);
out1!(
    /// `aclrtCtxGetCurrentDefaultStream`.
    ctx_get_current_default_stream -> u64 [sys::aclrtStream, core::ptr::null_mut(), n] => aclrtCtxGetCurrentDefaultStream()
);

// ---- stream --------------------------------------------------------------

out1!(
    /// `aclrtCreateStream`.
    create_stream -> u64 [sys::aclrtStream, core::ptr::null_mut(), n] => aclrtCreateStream()
);
out1!(
    /// `aclrtCreateStreamWithConfig`.
    create_stream_with_config -> u64 [sys::aclrtStream, core::ptr::null_mut(), n]
        => aclrtCreateStreamWithConfig(priority: u32 => priority, flag: u32 => flag)
);
call!(
    /// `aclrtDestroyStream`.
    destroy_stream => aclrtDestroyStream(s: u64 => p(s))
);
call!(
    /// `aclrtDestroyStreamForce`.
    destroy_stream_force => aclrtDestroyStreamForce(s: u64 => p(s))
);
call!(
    /// `aclrtSynchronizeStream`.
    synchronize_stream => aclrtSynchronizeStream(s: u64 => p(s))
);
call!(
    /// `aclrtSynchronizeStreamWithTimeout`.
    synchronize_stream_with_timeout => aclrtSynchronizeStreamWithTimeout(s: u64 => p(s), t: i32 => t)
);
/// `aclrtStreamQuery(stream, &status)`.
pub fn stream_query(s: u64) -> (u32, i32) {
    let mut status: sys::aclrtStreamStatus = 0;
    // SAFETY: `status` is a local; the stream is pyACL's contract.
    let ret = unsafe { sys::aclrtStreamQuery(p(s), &mut status) };
    (status, ret)
}
call!(
    /// `aclrtSetStreamFailureMode`.
    set_stream_failure_mode => aclrtSetStreamFailureMode(s: u64 => p(s), mode: u64 => mode)
);
out1!(
    /// `aclrtGetStreamAvailableNum`.
    get_stream_available_num -> u32 [u32, 0, |v| v] => aclrtGetStreamAvailableNum()
);

// ---- events --------------------------------------------------------------

out1!(
    /// `aclrtCreateEvent`.
    create_event -> u64 [sys::aclrtEvent, core::ptr::null_mut(), n] => aclrtCreateEvent()
);
out1!(
    /// `aclrtCreateEventWithFlag`.
    create_event_with_flag -> u64 [sys::aclrtEvent, core::ptr::null_mut(), n] => aclrtCreateEventWithFlag(f: u32 => f)
);
out1!(
    /// `aclrtCreateEventExWithFlag`.
    create_event_ex_with_flag -> u64 [sys::aclrtEvent, core::ptr::null_mut(), n] => aclrtCreateEventExWithFlag(f: u32 => f)
);
call!(
    /// `aclrtDestroyEvent`.
    destroy_event => aclrtDestroyEvent(e: u64 => p(e))
);
call!(
    /// `aclrtRecordEvent`.
    record_event => aclrtRecordEvent(e: u64 => p(e), s: u64 => p(s))
);
call!(
    /// `aclrtResetEvent`.
    reset_event => aclrtResetEvent(e: u64 => p(e), s: u64 => p(s))
);
/// `aclrtQueryEvent(event, &status)` (deprecated by the runtime).
pub fn query_event(e: u64) -> (u32, i32) {
    let mut status: sys::aclrtEventStatus = 0;
    // SAFETY: `status` is a local; the event is pyACL's contract.
    let ret = unsafe { sys::aclrtQueryEvent(p(e), &mut status) };
    (status, ret)
}
/// `aclrtQueryEventStatus(event, &status)`.
pub fn query_event_status(e: u64) -> (u32, i32) {
    let mut status: sys::aclrtEventRecordedStatus = 0;
    // SAFETY: `status` is a local; the event is pyACL's contract.
    let ret = unsafe { sys::aclrtQueryEventStatus(p(e), &mut status) };
    (status, ret)
}
/// `aclrtQueryEventWaitStatus(event, &status)`.
pub fn query_event_wait_status(e: u64) -> (u32, i32) {
    let mut status: sys::aclrtEventWaitStatus = 0;
    // SAFETY: `status` is a local; the event is pyACL's contract.
    let ret = unsafe { sys::aclrtQueryEventWaitStatus(p(e), &mut status) };
    (status, ret)
}
call!(
    /// `aclrtSynchronizeEvent`.
    synchronize_event => aclrtSynchronizeEvent(e: u64 => p(e))
);
call!(
    /// `aclrtSynchronizeEventWithTimeout`.
    synchronize_event_with_timeout => aclrtSynchronizeEventWithTimeout(e: u64 => p(e), t: i32 => t)
);
/// `aclrtEventElapsedTime(&ms, start, end)`.
pub fn event_elapsed_time(start: u64, end: u64) -> (f32, i32) {
    let mut ms = 0.0f32;
    // SAFETY: `ms` is a local; the events are pyACL's contract.
    let ret = unsafe { sys::aclrtEventElapsedTime(&mut ms, p(start), p(end)) };
    (ms, ret)
}
call!(
    /// `aclrtStreamWaitEvent`.
    stream_wait_event => aclrtStreamWaitEvent(s: u64 => p(s), e: u64 => p(e))
);
call!(
    /// `aclrtSetOpWaitTimeout`.
    set_op_wait_timeout => aclrtSetOpWaitTimeout(t: u32 => t)
);
/// `aclrtEventGetTimestamp(event, &timestamp)`.
pub fn event_get_timestamp(e: u64) -> (u64, i32) {
    let mut ts = 0u64;
    // SAFETY: `ts` is a local; the event is pyACL's contract.
    let ret = unsafe { sys::aclrtEventGetTimestamp(p(e), &mut ts) };
    (ts, ret)
}
out1!(
    /// `aclrtGetEventAvailNum`.
    get_event_avail_num -> u32 [u32, 0, |v| v] => aclrtGetEventAvailNum()
);

// ---- memory --------------------------------------------------------------

out1!(
    /// `aclrtMalloc`.
    malloc -> u64 [*mut c_void, core::ptr::null_mut(), n] => aclrtMalloc(size: u64 => size as usize, policy: u32 => policy)
);
out1!(
    /// `aclrtMallocCached`.
    malloc_cached -> u64 [*mut c_void, core::ptr::null_mut(), n] => aclrtMallocCached(size: u64 => size as usize, policy: u32 => policy)
);
out1!(
    /// `aclrtMallocAlign32`.
    malloc_align32 -> u64 [*mut c_void, core::ptr::null_mut(), n] => aclrtMallocAlign32(size: u64 => size as usize, policy: u32 => policy)
);
call!(
    /// `aclrtFree`.
    free => aclrtFree(ptr: u64 => p(ptr))
);
out1!(
    /// `aclrtMallocHost`.
    malloc_host -> u64 [*mut c_void, core::ptr::null_mut(), n] => aclrtMallocHost(size: u64 => size as usize)
);
call!(
    /// `aclrtFreeHost`.
    free_host => aclrtFreeHost(ptr: u64 => p(ptr))
);
call!(
    /// `aclrtMemset`.
    memset => aclrtMemset(ptr: u64 => p(ptr), max: u64 => max as usize, value: i32 => value, count: u64 => count as usize)
);
call!(
    /// `aclrtMemsetAsync`.
    memset_async => aclrtMemsetAsync(ptr: u64 => p(ptr), max: u64 => max as usize, value: i32 => value, count: u64 => count as usize, s: u64 => p(s))
);
call!(
    /// `aclrtMemcpy`.
    memcpy => aclrtMemcpy(dst: u64 => p(dst), max: u64 => max as usize, src: u64 => p(src), count: u64 => count as usize, kind: u32 => kind)
);
call!(
    /// `aclrtMemcpyAsync`.
    memcpy_async => aclrtMemcpyAsync(dst: u64 => p(dst), max: u64 => max as usize, src: u64 => p(src), count: u64 => count as usize, kind: u32 => kind, s: u64 => p(s))
);
/// `aclrtGetMemInfo(attr, &free, &total)`.
pub fn get_mem_info(attr: u32) -> (u64, u64, i32) {
    let (mut free, mut total) = (0usize, 0usize);
    // SAFETY: two locals the C function may write.
    let ret = unsafe { sys::aclrtGetMemInfo(attr, &mut free, &mut total) };
    (free as u64, total as u64, ret)
}
call!(
    /// `aclrtMemcpy2d`.
    memcpy2d => aclrtMemcpy2d(dst: u64 => p(dst), dpitch: u64 => dpitch as usize, src: u64 => p(src), spitch: u64 => spitch as usize, width: u64 => width as usize, height: u64 => height as usize, kind: u32 => kind)
);
call!(
    /// `aclrtMemcpy2dAsync`.
    memcpy2d_async => aclrtMemcpy2dAsync(dst: u64 => p(dst), dpitch: u64 => dpitch as usize, src: u64 => p(src), spitch: u64 => spitch as usize, width: u64 => width as usize, height: u64 => height as usize, kind: u32 => kind, s: u64 => p(s))
);

// ---- callbacks -----------------------------------------------------------

call!(
    /// `aclrtSubscribeReport`.
    subscribe_report => aclrtSubscribeReport(thread: u64 => thread, s: u64 => p(s))
);
call!(
    /// `aclrtUnSubscribeReport`.
    unsubscribe_report => aclrtUnSubscribeReport(thread: u64 => thread, s: u64 => p(s))
);
call!(
    /// `aclrtProcessReport`.
    process_report => aclrtProcessReport(t: i32 => t)
);

/// Queues `f` on `stream` with `aclrtLaunchCallback` (`block`: 0 NO_BLOCK,
/// 1 BLOCK); the runtime calls it at most once, on the thread subscribed
/// to the stream. Returns the `aclError`; on failure `f` is dropped here,
/// unrun. A callback the runtime never calls (its stream destroyed by force
/// first) is leaked, never freed twice.
pub fn launch_callback<F: FnOnce() + Send + 'static>(f: F, block: u32, s: u64) -> i32 {
    unsafe extern "C" fn trampoline<F: FnOnce() + Send + 'static>(user: *mut c_void) {
        // SAFETY: `user` is the `Box<F>` leaked below, and the runtime calls
        // a launched callback at most once (never, if its stream is destroyed
        // by force first: the box is then leaked), so the box is taken back
        // at most once, and never after `launch_callback` dropped it (only
        // a refused callback is dropped there, and it is never called).
        let f = unsafe { Box::from_raw(user.cast::<F>()) };
        // A panic must not unwind into the runtime's C frames.
        let _ = std::panic::catch_unwind(std::panic::AssertUnwindSafe(f));
    }
    let user = Box::into_raw(Box::new(f)).cast::<c_void>();
    // SAFETY: `trampoline::<F>` matches `void fn(void *)` and is sound to
    // call once with `user` on any thread (`F: Send + 'static`); `user` stays
    // valid until then (it is only freed by the trampoline or below).
    let ret = unsafe { sys::aclrtLaunchCallback(Some(trampoline::<F>), user, block, p(s)) };
    if ret != 0 {
        // SAFETY: the runtime refused the callback and will never call it,
        // so the box is still only ours.
        drop(unsafe { Box::from_raw(user.cast::<F>()) });
    }
    ret
}

// ---- raw memory of the application (acl.util) ----------------------------

/// A new writable `memoryview` over `ptr..ptr+size` (for
/// `acl.util.ptr_to_numpy`).
///
/// Nothing keeps the memory alive, exactly as pyACL's `ptr_to_numpy`: the
/// script vouches that it stays valid while the view is used (pyACL's
/// contract, module docs).
pub fn memoryview(
    py: pyo3::Python<'_>,
    ptr: u64,
    size: isize,
) -> pyo3::PyResult<pyo3::Bound<'_, pyo3::PyAny>> {
    const PYBUF_WRITE: core::ffi::c_int = 0x200;
    // SAFETY: the GIL is held (the `py` token); the function only records
    // the address and size (no access happens here); later accesses through
    // the view rest on pyACL's contract.
    let view = unsafe {
        pyo3::ffi::PyMemoryView_FromMemory(ptr as usize as *mut c_char, size, PYBUF_WRITE)
    };
    // SAFETY: `view` is a new (owned) reference or NULL with an exception
    // set, which is what `from_owned_ptr_or_err` takes; the GIL is held.
    unsafe { pyo3::Bound::from_owned_ptr_or_err(py, view) }
}

/// Copies `dst.len()` bytes at `ptr` into `dst` (`acl.util.ptr_to_bytes`,
/// whose output buffer the interpreter allocated: an impossible size fails
/// there with `MemoryError`, before this is called). `ptr` must be non-NULL.
///
/// pyACL's contract (module docs): like pyACL's `ptr_to_bytes`, this reads
/// the address the script passed, which the script vouches is readable host
/// memory of `dst.len()` bytes.
pub fn read_into(ptr: u64, dst: &mut [u8]) {
    if ptr == 0 || dst.is_empty() {
        return;
    }
    // SAFETY: `ptr` is non-NULL and readable for `dst.len()` bytes by
    // pyACL's contract; `dst` is a distinct, writable Rust slice (memory the
    // interpreter just allocated, so it cannot overlap the script's); `u8`
    // has no alignment or validity rule.
    unsafe {
        core::ptr::copy_nonoverlapping(ptr as usize as *const u8, dst.as_mut_ptr(), dst.len())
    }
}

// ---- peer access and last error ------------------------------------------

/// `aclrtDeviceCanAccessPeer(&can, device, peer)`.
pub fn device_can_access_peer(device: i32, peer: i32) -> (i32, i32) {
    let mut can = 0i32;
    // SAFETY: `can` is a local the C function may write; the ids are plain
    // integers the runtime checks.
    let ret = unsafe { sys::aclrtDeviceCanAccessPeer(&mut can, device, peer) };
    (can, ret)
}
call!(
    /// `aclrtDeviceEnablePeerAccess`.
    device_enable_peer_access => aclrtDeviceEnablePeerAccess(peer: i32 => peer, flags: u32 => flags)
);
call!(
    /// `aclrtDeviceDisablePeerAccess`.
    device_disable_peer_access => aclrtDeviceDisablePeerAccess(peer: i32 => peer)
);
call!(
    /// `aclrtGetLastError`.
    get_last_error => aclrtGetLastError(level: u32 => level)
);
call!(
    /// `aclrtPeekAtLastError`.
    peek_at_last_error => aclrtPeekAtLastError(level: u32 => level)
);
// ---- logging ---------------------------------------------------------------

/// `aclAppLog(level, func, file, line, "%s", message)`: one application log
/// record with the message as text (never as a format).
pub fn app_log(level: i32, func: &CStr, file: &CStr, line: u32, message: &CStr) {
    // SAFETY: every string is NUL-terminated and outlives the call; the
    // format is the literal "%s", matched by exactly one C string argument.
    // Any `level` is accepted by the runtime (unknown levels write nothing).
    unsafe {
        sys::aclAppLog(
            level as sys::aclLogLevel,
            func.as_ptr(),
            file.as_ptr(),
            line,
            c"%s".as_ptr(),
            message.as_ptr(),
        )
    }
}
