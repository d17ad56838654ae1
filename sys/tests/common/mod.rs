//! Helpers shared by the conformance tests of the simulator backend.
//!
//! Every test file includes this module with `mod common;` and uses only a
//! part of it, hence the `dead_code` allowance.
#![allow(dead_code, unused_imports, unused_macros)]

pub use aclrt_sim::{ResourceKind, RunMode, SimConfig, ViolationKind};
pub use aclrt_sys::*;
pub use std::ffi::c_void;
pub use std::ptr::{null, null_mut};
pub use std::time::{Duration, Instant};

/// Calls one function of the C ABI (`aclrt_sys::name(args...)`).
///
/// The tests deliberately pass wrong arguments (foreign handles, freed
/// pointers, lengths beyond an allocation) to check the simulator's strict
/// mode; the simulator validates every handle and address against its own
/// tables before it dereferences anything, so these calls stay defined.
macro_rules! acl {
    ($f:ident ( $($arg:expr),* $(,)? )) => {{
        // SAFETY:
        // - every pointer argument is either null, a live allocation or
        //   local of at least the size passed with it, or a deliberately
        //   invalid value that the simulator rejects after looking it up in
        //   its allocation/handle tables, before any access;
        // - output pointers point to locals of the exact C type;
        // - the simulator is process-global and the test holds
        //   `aclrt_sim::exclusive()`, so no other test races with the call.
        unsafe { ::aclrt_sys::$f($($arg),*) }
    }};
}
pub(crate) use acl;

/// Calls a C function and asserts that it returned `ACL_SUCCESS`, showing the
/// recent error text otherwise.
macro_rules! ok {
    ($f:ident ( $($arg:expr),* $(,)? )) => {{
        let code = $crate::common::acl!($f($($arg),*));
        $crate::common::check(code, stringify!($f));
    }};
}
pub(crate) use ok;

/// Panics unless `code` is `ACL_SUCCESS`.
#[track_caller]
pub fn check(code: aclError, what: &str) {
    if code != ACL_SUCCESS {
        let msg = recent_err_msg();
        panic!("{what} returned {code} (expected 0); recent error message: {msg:?}");
    }
}

/// `aclGetRecentErrMsg()` as an owned string (`None` for NULL).
pub fn recent_err_msg() -> Option<String> {
    let p = acl!(aclGetRecentErrMsg());
    if p.is_null() {
        return None;
    }
    // SAFETY: a non-null result of aclGetRecentErrMsg is a NUL-terminated
    // string that stays valid until the next call on this thread; it is
    // copied out at once.
    let text = unsafe { std::ffi::CStr::from_ptr(p) };
    Some(text.to_string_lossy().into_owned())
}

/// `aclInit(NULL)`, asserting success.
pub fn init() {
    ok!(aclInit(null()));
}

/// `aclFinalize()`, asserting success.
pub fn finalize() {
    ok!(aclFinalize());
}

/// `aclInit` + `aclrtSetDevice(0)`.
pub fn init_device0() {
    init();
    ok!(aclrtSetDevice(0));
}

/// `aclrtResetDevice(0)` + `aclFinalize`.
pub fn teardown_device0() {
    ok!(aclrtResetDevice(0));
    finalize();
}

/// Configures the simulator (before `aclInit`) with `f` applied to the
/// defaults.
pub fn configure(f: impl FnOnce(&mut SimConfig)) {
    let mut cfg = SimConfig::default();
    f(&mut cfg);
    aclrt_sim::configure(cfg);
}

/// Asserts that the audit is clean (no violations, no leaks, nothing live).
#[track_caller]
pub fn assert_clean() {
    aclrt_sim::audit().assert_clean();
}

/// The kinds of the violations recorded so far, in order.
pub fn violation_kinds() -> Vec<ViolationKind> {
    aclrt_sim::audit()
        .violations
        .iter()
        .map(|v| v.kind)
        .collect()
}

/// Asserts that exactly `kinds` were recorded (in this order), that each
/// violation carries a non-zero code and a message, then resets the
/// simulator.
#[track_caller]
pub fn expect_violations(kinds: &[ViolationKind]) {
    let audit = aclrt_sim::audit();
    let got: Vec<ViolationKind> = audit.violations.iter().map(|v| v.kind).collect();
    assert_eq!(got, kinds, "violations: {:#?}", audit.violations);
    for v in &audit.violations {
        assert_ne!(v.code, ACL_SUCCESS, "violation without error code: {v:?}");
        assert!(!v.message.is_empty(), "violation without message: {v:?}");
    }
    aclrt_sim::reset();
}

/// The live count of `kind` on `device` in the audit.
pub fn live(kind: ResourceKind, device: i32) -> usize {
    aclrt_sim::audit()
        .live
        .get(&(kind, device))
        .copied()
        .unwrap_or(0)
}

/// `aclrtMalloc(size, HUGE_FIRST)`, asserting success.
#[track_caller]
pub fn malloc(size: usize) -> *mut c_void {
    let mut p: *mut c_void = null_mut();
    ok!(aclrtMalloc(&mut p, size, ACL_MEM_MALLOC_HUGE_FIRST));
    assert!(!p.is_null());
    p
}

/// `aclrtMallocHost(size)`, asserting success.
#[track_caller]
pub fn malloc_host(size: usize) -> *mut c_void {
    let mut p: *mut c_void = null_mut();
    ok!(aclrtMallocHost(&mut p, size));
    assert!(!p.is_null());
    p
}

/// `aclrtFree`, asserting success.
#[track_caller]
pub fn free(p: *mut c_void) {
    ok!(aclrtFree(p));
}

/// `aclrtFreeHost`, asserting success.
#[track_caller]
pub fn free_host(p: *mut c_void) {
    ok!(aclrtFreeHost(p));
}

/// `aclrtCreateStream`, asserting success.
#[track_caller]
pub fn create_stream() -> aclrtStream {
    let mut s: aclrtStream = null_mut();
    ok!(aclrtCreateStream(&mut s));
    assert!(!s.is_null());
    s
}

/// `aclrtDestroyStream`, asserting success.
#[track_caller]
pub fn destroy_stream(s: aclrtStream) {
    ok!(aclrtDestroyStream(s));
}

/// `aclrtCreateContext(device)`, asserting success.
#[track_caller]
pub fn create_context(device: i32) -> aclrtContext {
    let mut c: aclrtContext = null_mut();
    ok!(aclrtCreateContext(&mut c, device));
    assert!(!c.is_null());
    c
}

/// `aclrtGetCurrentContext`, asserting success.
#[track_caller]
pub fn current_context() -> aclrtContext {
    let mut c: aclrtContext = null_mut();
    ok!(aclrtGetCurrentContext(&mut c));
    c
}

/// `aclrtCreateEvent`, asserting success.
#[track_caller]
pub fn create_event() -> aclrtEvent {
    let mut e: aclrtEvent = null_mut();
    ok!(aclrtCreateEvent(&mut e));
    assert!(!e.is_null());
    e
}

/// `aclrtCreateEventWithFlag(flag)`, asserting success.
#[track_caller]
pub fn create_event_with_flag(flag: u32) -> aclrtEvent {
    let mut e: aclrtEvent = null_mut();
    ok!(aclrtCreateEventWithFlag(&mut e, flag));
    assert!(!e.is_null());
    e
}

/// `aclrtCreateEventExWithFlag(flag)`, asserting success.
#[track_caller]
pub fn create_event_ex(flag: u32) -> aclrtEvent {
    let mut e: aclrtEvent = null_mut();
    ok!(aclrtCreateEventExWithFlag(&mut e, flag));
    assert!(!e.is_null());
    e
}

/// `aclrtDestroyEvent`, asserting success.
#[track_caller]
pub fn destroy_event(e: aclrtEvent) {
    ok!(aclrtDestroyEvent(e));
}

/// `aclrtQueryEventStatus`, asserting success.
#[track_caller]
pub fn event_status(e: aclrtEvent) -> aclrtEventRecordedStatus {
    let mut st: aclrtEventRecordedStatus = 0xdead;
    ok!(aclrtQueryEventStatus(e, &mut st));
    st
}

/// `aclrtStreamQuery`, asserting success.
#[track_caller]
pub fn stream_status(s: aclrtStream) -> aclrtStreamStatus {
    let mut st: aclrtStreamStatus = 0xdead;
    ok!(aclrtStreamQuery(s, &mut st));
    st
}

/// Synchronous host-to-device copy of `src` to `dst`.
#[track_caller]
pub fn h2d(dst: *mut c_void, src: &[u8]) {
    ok!(aclrtMemcpy(
        dst,
        src.len(),
        src.as_ptr().cast(),
        src.len(),
        ACL_MEMCPY_HOST_TO_DEVICE
    ));
}

/// Synchronous device-to-host copy of `dst.len()` bytes from `src`.
#[track_caller]
pub fn d2h(dst: &mut [u8], src: *const c_void) {
    ok!(aclrtMemcpy(
        dst.as_mut_ptr().cast(),
        dst.len(),
        src,
        dst.len(),
        ACL_MEMCPY_DEVICE_TO_HOST
    ));
}

/// Reads `len` bytes of device memory back to the host.
#[track_caller]
pub fn read_device(src: *const c_void, len: usize) -> Vec<u8> {
    let mut out = vec![0u8; len];
    d2h(&mut out, src);
    out
}

/// A deterministic byte pattern that differs for each `seed`.
pub fn pattern(len: usize, seed: u8) -> Vec<u8> {
    (0..len)
        .map(|i| (i as u8).wrapping_mul(31).wrapping_add(seed))
        .collect()
}

/// Views `len` bytes of simulator host memory (`aclrtMallocHost`) as a slice.
///
/// # Safety
/// `p` must be a live `aclrtMallocHost` allocation of at least `len` bytes
/// that no queued task writes while the slice is alive.
pub unsafe fn host_slice<'a>(p: *mut c_void, len: usize) -> &'a mut [u8] {
    // SAFETY: guaranteed by the caller (live, large enough, not written
    // concurrently); host memory of the simulator is ordinary process memory.
    unsafe { std::slice::from_raw_parts_mut(p.cast::<u8>(), len) }
}

/// Sets the extra latency of every task queued on `stream` from now on.
pub fn stream_delay(stream: aclrtStream, ms: u64) {
    aclrt_sim::set_stream_delay(stream, Duration::from_millis(ms));
}
