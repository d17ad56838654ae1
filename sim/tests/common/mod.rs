//! The one test-support module of the simulator's integration tests.
//!
//! The tests call the exported C ABI exactly as a C program would (through
//! the declarations of [`aclrt_sim::ffi`], the bindgen output of the
//! project's header that aclrt-sys uses too), and inspect the runtime with
//! the control API (`configure`, `audit`, `inject_fault`, ...).
//!
//! Every test file includes this module with `mod common;` and uses only a
//! part of it, hence the `dead_code` allowance.
//!
//! The shape of most tests:
//!
//! ```ignore
//! #[test]
//! fn something_on_device_0() {
//!     let session = device0(); // exclusive + aclInit + aclrtSetDevice(0)
//!     // ... calls ...
//!     session.finish(); // aclrtResetDevice(0) + aclFinalize + clean audit
//! }
//! ```
//!
//! and, for a rule that must hold in both run modes, [`in_both_run_modes`].
#![allow(dead_code, unused_imports, unused_macros)]

pub use aclrt_sim::ffi::*;
pub use aclrt_sim::{ResourceKind, RunMode, SimConfig, Violation, ViolationKind};
pub use std::ffi::c_void;
pub use std::ptr::{null, null_mut};
pub use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
pub use std::time::{Duration, Instant};

// ------------------------------------------------------------ calling C

/// Calls one function of the C ABI (`aclrt_sim::ffi::name(args...)`).
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
        unsafe { $crate::common::$f($($arg),*) }
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

// ------------------------------------------------------------ setup and teardown

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

/// A test's session on device 0: holds [`aclrt_sim::exclusive`] (so the
/// test has a fresh simulator to itself) and has run `aclInit` +
/// `aclrtSetDevice(0)`. End it with [`Session::finish`]; a test that panics
/// drops it instead, and the next test's `exclusive` resets the simulator.
#[must_use = "end the test with session.finish()"]
pub struct Session {
    _sim: aclrt_sim::Exclusive,
}

/// Starts a [`Session`] on device 0 with the default configuration.
pub fn device0() -> Session {
    let sim = aclrt_sim::exclusive();
    init_device0();
    Session { _sim: sim }
}

impl Session {
    /// `aclrtResetDevice(0)` + `aclFinalize`, then asserts that the audit is
    /// clean (no violations, no leaks, nothing live).
    #[track_caller]
    pub fn finish(self) {
        teardown_device0();
        assert_clean();
    }
}

/// Runs `f` once in each run mode, each time on a fresh simulator
/// configured for that mode (before `aclInit`). The caller holds
/// [`aclrt_sim::exclusive`].
pub fn in_both_run_modes(mut f: impl FnMut(RunMode)) {
    for mode in [RunMode::Host, RunMode::Device] {
        aclrt_sim::reset();
        configure(|c| c.run_mode = mode);
        f(mode);
    }
}

/// Configures the simulator (before `aclInit`) with `f` applied to the
/// defaults.
pub fn configure(f: impl FnOnce(&mut SimConfig)) {
    let mut cfg = SimConfig::default();
    f(&mut cfg);
    aclrt_sim::configure(cfg);
}

// ------------------------------------------------------------ the audit

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

// ------------------------------------------------------------ resources

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

/// Sets the extra latency of every task queued on `stream` from now on.
pub fn stream_delay(stream: aclrtStream, ms: u64) {
    aclrt_sim::set_stream_delay(stream, Duration::from_millis(ms));
}

// ------------------------------------------------------------ data

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

// ------------------------------------------------------------ host functions

/// Host function: sleeps for the number of milliseconds behind `arg` (see
/// [`ms_arg`]).
pub unsafe extern "C" fn sleep_ms(arg: *mut c_void) {
    std::thread::sleep(Duration::from_millis(arg.addr() as u64));
}

/// `ms` as the argument of [`sleep_ms`].
pub fn ms_arg(ms: usize) -> *mut c_void {
    std::ptr::without_provenance_mut(ms)
}

/// Host function: counts its runs in the `AtomicUsize` behind `counter`
/// (see [`counter_arg`]).
pub unsafe extern "C" fn count_run(counter: *mut c_void) {
    // SAFETY: the tests pass `counter_arg(c)` of an `AtomicUsize` that
    // outlives the synchronisation of the stream the function runs on (or a
    // `static`).
    let c = unsafe { &*counter.cast::<AtomicUsize>() };
    c.fetch_add(1, Ordering::SeqCst);
}

/// `c` as the argument of [`count_run`].
pub fn counter_arg(c: &AtomicUsize) -> *mut c_void {
    std::ptr::from_ref(c).cast_mut().cast()
}

/// Host function or callback: waits until the `AtomicBool` behind `flag`
/// is set (at most 10 s, so that a broken runtime cannot hang the suite).
pub unsafe extern "C" fn block_until_set(flag: *mut c_void) {
    // SAFETY: the tests pass a pointer to an `AtomicBool` they keep alive
    // until the stream (or reporter thread) running this function has been
    // synchronised (joined).
    let flag = unsafe { &*flag.cast::<AtomicBool>() };
    let t0 = Instant::now();
    while !flag.load(Ordering::Acquire) && t0.elapsed() < Duration::from_secs(10) {
        std::thread::sleep(Duration::from_millis(1));
    }
}

/// `flag` as the argument of [`block_until_set`].
pub fn flag_arg(flag: &AtomicBool) -> *mut c_void {
    std::ptr::from_ref(flag).cast_mut().cast()
}

// ------------------------------------------------------------ traces

/// A fresh path for the Chrome-trace file of the test `name` (under cargo's
/// tmp dir, unique per process).
pub fn temp_trace_path(name: &str) -> std::path::PathBuf {
    let dir = std::path::Path::new(env!("CARGO_TARGET_TMPDIR")).join("aclrt-sim-trace");
    std::fs::create_dir_all(&dir).unwrap();
    let p = dir.join(format!("{name}-{}.trace.json", std::process::id()));
    let _ = std::fs::remove_file(&p);
    p
}

/// The events (`traceEvents`) of the Chrome-trace JSON file at `path`,
/// which must parse as JSON; the file is removed.
#[track_caller]
pub fn read_trace_events(path: &std::path::Path) -> Vec<serde_json::Value> {
    let text = std::fs::read_to_string(path)
        .unwrap_or_else(|e| panic!("no trace at {}: {e}", path.display()));
    std::fs::remove_file(path).unwrap();
    let doc: serde_json::Value =
        serde_json::from_str(&text).unwrap_or_else(|e| panic!("trace is not JSON: {e}\n{text}"));
    match doc.get("traceEvents") {
        Some(serde_json::Value::Array(events)) => events.clone(),
        _ => panic!("no traceEvents array in {text}"),
    }
}

// ------------------------------------------------------------ structural timing

/// How long the helpers below wait for another thread before they give up.
/// A hang guard only: a broken runtime fails the test after this instead
/// of hanging the suite. No test relies on anything finishing within it.
pub const HANG_GUARD: Duration = Duration::from_secs(30);

/// A host function that blocks its stream until the test opens the gate,
/// and records whether it is still inside and how it left.
#[derive(Default)]
pub struct Gate {
    open: AtomicBool,
    entered: AtomicBool,
    left: AtomicBool,
    /// Passes that returned because the gate was open.
    passes_opened: AtomicUsize,
}

impl Gate {
    pub fn new() -> Gate {
        Gate::default()
    }

    /// The argument of [`pass_gate`].
    pub fn arg(&self) -> *mut c_void {
        std::ptr::from_ref(self).cast_mut().cast()
    }

    /// Lets [`pass_gate`] return.
    pub fn open(&self) {
        self.open.store(true, Ordering::Release);
    }

    /// Whether the host function has started.
    pub fn entered(&self) -> bool {
        self.entered.load(Ordering::Acquire)
    }

    /// Whether the host function has returned.
    pub fn left(&self) -> bool {
        self.left.load(Ordering::Acquire)
    }

    /// Whether it returned because the gate was opened (not at the guard).
    pub fn left_opened(&self) -> bool {
        self.passes_opened() > 0
    }

    /// How many passes (several streams may wait at one gate) returned
    /// because the gate was opened.
    pub fn passes_opened(&self) -> usize {
        self.passes_opened.load(Ordering::Acquire)
    }

    /// Waits (up to [`HANG_GUARD`]) until `cond` holds for this gate.
    pub fn wait_until(&self, cond: impl Fn(&Gate) -> bool) -> bool {
        wait_until(|| cond(self))
    }
}

/// Host function: waits (up to [`HANG_GUARD`]) for the [`Gate`] behind
/// `arg` to open.
pub unsafe extern "C" fn pass_gate(arg: *mut c_void) {
    // SAFETY: the tests pass `Gate::arg` of a gate they keep alive until
    // the function has returned (`left`) or its stream was synchronised.
    let g = unsafe { &*arg.cast::<Gate>() };
    g.entered.store(true, Ordering::Release);
    if wait_until(|| g.open.load(Ordering::Acquire)) {
        g.passes_opened.fetch_add(1, Ordering::AcqRel);
    }
    g.left.store(true, Ordering::Release);
}

/// Host function: opens the [`Gate`] behind `arg`.
pub unsafe extern "C" fn open_gate(arg: *mut c_void) {
    // SAFETY: as for `pass_gate`.
    unsafe { &*arg.cast::<Gate>() }.open();
}

/// Polls `cond` until it holds (`true`) or [`HANG_GUARD`] passes (`false`).
pub fn wait_until(cond: impl Fn() -> bool) -> bool {
    let t0 = Instant::now();
    while !cond() {
        // Hang guard, not a time bound on the property under test.
        if t0.elapsed() > HANG_GUARD {
            return false;
        }
        std::thread::sleep(Duration::from_micros(200));
    }
    true
}

/// Two host functions ([`meet_first`], [`meet_second`]) that can both
/// return successfully only if they run at the same time: each marks its
/// arrival and waits for the other's (up to [`HANG_GUARD`]). Run one after
/// the other, the first gives up and is not counted as met.
#[derive(Default)]
pub struct Rendezvous {
    arrived: [AtomicBool; 2],
    met: [AtomicBool; 2],
}

impl Rendezvous {
    pub fn new() -> Rendezvous {
        Rendezvous::default()
    }

    /// The argument of [`meet_first`] and [`meet_second`].
    pub fn arg(&self) -> *mut c_void {
        std::ptr::from_ref(self).cast_mut().cast()
    }

    /// Whether both sides saw the other arrive while they waited.
    pub fn both_met(&self) -> bool {
        self.met.iter().all(|m| m.load(Ordering::Acquire))
    }
}

fn meet(arg: *mut c_void, side: usize) {
    // SAFETY: the tests pass `Rendezvous::arg` of a rendezvous they keep
    // alive until both streams running the functions are synchronised.
    let r = unsafe { &*arg.cast::<Rendezvous>() };
    r.arrived[side].store(true, Ordering::Release);
    if wait_until(|| r.arrived[1 - side].load(Ordering::Acquire)) {
        r.met[side].store(true, Ordering::Release);
    }
}

/// Host function: one side of a [`Rendezvous`].
pub unsafe extern "C" fn meet_first(arg: *mut c_void) {
    meet(arg, 0);
}

/// Host function: the other side of a [`Rendezvous`].
pub unsafe extern "C" fn meet_second(arg: *mut c_void) {
    meet(arg, 1);
}

/// Binds the calling thread to device `dev`'s default context again,
/// leaving the device's reference count as it was (`aclrtSetDevice` and a
/// reset that is not the last). A thread whose current context was
/// destroyed has none (the runtime does not fall back to the device's).
pub fn rebind(dev: i32) {
    ok!(aclrtSetDevice(dev));
    ok!(aclrtResetDevice(dev));
}

/// The name libtest gives the test `name` of the module whose
/// `module_path!()` is `module`: the path without the binary's crate name
/// (`threads::thread_state::x` is the test `thread_state::x`). A test that
/// runs one test of its own binary in a child process filters with this, so
/// the filter follows the test wherever its module sits.
pub fn test_name(module: &str, name: &str) -> String {
    match module.split_once("::") {
        Some((_, path)) => format!("{path}::{name}"),
        None => name.to_owned(),
    }
}
