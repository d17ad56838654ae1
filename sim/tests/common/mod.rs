//! Helpers for the simulator's own integration tests (calls through the
//! exported C ABI, as a C program would make them).
#![allow(dead_code, unused_imports, unused_macros)]

pub use ascendcl as sim;
pub use ascendcl::ffi::*;
pub use ascendcl::{ResourceKind, RunMode, SimConfig, ViolationKind};
pub use std::ffi::c_void;
pub use std::ptr::{null, null_mut};
pub use std::time::{Duration, Instant};

/// Calls one C function of the simulator.
macro_rules! acl {
    ($f:ident ( $($arg:expr),* $(,)? )) => {{
        // SAFETY: the tests pass null, live runtime allocations, locals of
        // at least the size passed with them, or deliberately invalid values
        // that the simulator rejects after a table lookup and before any
        // access; output pointers point to locals of the exact C type.
        unsafe { $crate::common::sim::ffi::$f($($arg),*) }
    }};
}
pub(crate) use acl;

/// Calls a C function and panics (with the recent error message) unless it
/// returned `ACL_SUCCESS`.
macro_rules! ok {
    ($f:ident ( $($arg:expr),* $(,)? )) => {{
        let code = $crate::common::acl!($f($($arg),*));
        if code != 0 {
            panic!(
                "{} returned {code}: {:?}",
                stringify!($f),
                $crate::common::recent_err_msg()
            );
        }
    }};
}
pub(crate) use ok;

/// `aclGetRecentErrMsg` as an owned string.
pub fn recent_err_msg() -> Option<String> {
    let p = acl!(aclGetRecentErrMsg());
    if p.is_null() {
        return None;
    }
    // SAFETY: a non-null result is a NUL-terminated string valid until the
    // next call on this thread; it is copied at once.
    Some(
        unsafe { std::ffi::CStr::from_ptr(p) }
            .to_string_lossy()
            .into_owned(),
    )
}

/// `aclInit(NULL)` + `aclrtSetDevice(0)`.
pub fn init_device0() {
    ok!(aclInit(null()));
    ok!(aclrtSetDevice(0));
}

/// `aclrtResetDevice(0)` + `aclFinalize()`.
pub fn teardown_device0() {
    ok!(aclrtResetDevice(0));
    ok!(aclFinalize());
}

pub fn malloc(size: usize) -> *mut c_void {
    let mut p = null_mut();
    ok!(aclrtMalloc(&mut p, size, ACL_MEM_MALLOC_HUGE_FIRST));
    p
}

pub fn malloc_host(size: usize) -> *mut c_void {
    let mut p = null_mut();
    ok!(aclrtMallocHost(&mut p, size));
    p
}

pub fn create_stream() -> aclrtStream {
    let mut s = null_mut();
    ok!(aclrtCreateStream(&mut s));
    s
}

pub fn create_event() -> aclrtEvent {
    let mut e = null_mut();
    ok!(aclrtCreateEvent(&mut e));
    e
}

pub fn h2d(dst: *mut c_void, data: &[u8]) {
    ok!(aclrtMemcpy(
        dst,
        data.len(),
        data.as_ptr().cast(),
        data.len(),
        ACL_MEMCPY_HOST_TO_DEVICE
    ));
}

pub fn read_device(src: *const c_void, len: usize) -> Vec<u8> {
    let mut out = vec![0u8; len];
    ok!(aclrtMemcpy(
        out.as_mut_ptr().cast(),
        len,
        src,
        len,
        ACL_MEMCPY_DEVICE_TO_HOST
    ));
    out
}

pub fn stream_status(s: aclrtStream) -> aclrtStreamStatus {
    let mut st = 0xdead;
    ok!(aclrtStreamQuery(s, &mut st));
    st
}

pub fn event_status(e: aclrtEvent) -> aclrtEventRecordedStatus {
    let mut st = 0xdead;
    ok!(aclrtQueryEventStatus(e, &mut st));
    st
}

pub fn kinds() -> Vec<ViolationKind> {
    sim::audit().violations.iter().map(|v| v.kind).collect()
}

/// Host function: sleeps for the number of milliseconds behind `arg`.
pub unsafe extern "C" fn sleep_ms(arg: *mut c_void) {
    std::thread::sleep(Duration::from_millis(arg.addr() as u64));
}

/// Host function: increments the `AtomicUsize` behind `arg`.
pub unsafe extern "C" fn bump(arg: *mut c_void) {
    // SAFETY: the tests pass a pointer to an `AtomicUsize` that outlives the
    // synchronisation of the stream the function was launched on.
    let c = unsafe { &*arg.cast::<std::sync::atomic::AtomicUsize>() };
    c.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
}

/// `ms` as the argument of [`sleep_ms`].
pub fn ms_arg(ms: usize) -> *mut c_void {
    std::ptr::without_provenance_mut(ms)
}
