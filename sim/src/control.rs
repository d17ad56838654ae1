//! The simulator's Rust control API: configuration, fault injection, task
//! delays, call counting, the audit, and test isolation.
//!
//! Other crates code against these names and signatures; change them only
//! together with their users.

use std::cell::Cell;
use std::sync::Mutex;
use std::time::Duration;

use crate::diag::{self, Api};
pub use crate::model::{
    Audit, HostFuncThreads, Leak, PeerTopology, ResourceKind, RunMode, SimConfig, Soc, Strictness,
    UnservedCallback, Violation, ViolationKind, rule_name,
};
pub use crate::report::ReportOutput;
use crate::rt;
use crate::rt::exec;
use crate::sync;

/// Use `config` instead of the environment from the next `aclInit` on.
///
/// A runtime already initialized keeps its configuration until it is
/// finalized (or [`reset`]).
pub fn configure(config: SimConfig) {
    rt::set_pending_config(Some(config));
}

/// The configuration in force (or that the next `aclInit` will use).
pub fn config() -> SimConfig {
    rt::config_in_force().unwrap_or_else(rt::pending_config)
}

/// Make the `nth` (1-based) call, counted from now, of the C function
/// `function` (e.g. `"aclrtMalloc"`) fail with `code` without doing anything.
///
/// The failed call counts in [`call_counts`] and leaves its message for
/// `aclGetRecentErrMsg`; it is not a violation.
///
/// # Panics
/// If `function` is not a C function of this crate or `nth` is 0 (a typo in
/// a test must not silently inject nothing).
pub fn inject_fault(function: &str, nth: u64, code: i32) {
    let api = Api::by_name(function).unwrap_or_else(|| {
        panic!("aclrt_sim::inject_fault: {function:?} is not a C function of the simulator")
    });
    assert!(nth > 0, "aclrt_sim::inject_fault: nth is 1-based");
    diag::inject_call_fault(api, nth, code);
}

/// Make the `nth` (1-based) queued task, counted from now over all streams,
/// fail on the device with `code` (e.g. 507015, an AI Core exception): the
/// task does nothing and the error is reported by the next synchronisation of
/// its stream (stream/event/device synchronize), as a device fault would be.
///
/// Every queued task counts: copies, memsets, host functions, callbacks,
/// event records, resets and waits (a record on an idle stream, which
/// completes at once, counts too). A wait for a record that has already
/// executed is no task (as on the runtime) and does not count: to number
/// the tasks of a stream that waits for another, hold the other stream
/// (a host function at a gate) until the wait is queued.
///
/// # Panics
/// If `nth` is 0.
pub fn inject_task_fault(nth: u64, code: i32) {
    assert!(nth > 0, "aclrt_sim::inject_task_fault: nth is 1-based");
    exec::inject_task_fault(nth, code);
}

/// Make the `nth` (1-based) task queued on `stream` from now (an
/// `aclrtStream` handle, null for the current context's default stream)
/// fail on the device with `code`, as [`inject_task_fault`] does; tasks of
/// other streams do not count. `nth == 1`: the next task queued there.
///
/// # Panics
/// If `nth` is 0, or `stream` is not a live stream (or null without a
/// current context).
pub fn inject_stream_task_fault(stream: *mut core::ffi::c_void, nth: u64, code: i32) {
    assert!(
        nth > 0,
        "aclrt_sim::inject_stream_task_fault: nth is 1-based"
    );
    let id = rt::stream_id(stream.addr())
        .unwrap_or_else(|e| panic!("aclrt_sim::inject_stream_task_fault: {}", e.msg));
    exec::inject_targeted_task_fault(Some(id), false, nth, code);
}

/// Make the `nth` (1-based) kernel launched from now fail on the device
/// with `code` (e.g. [`KERNEL_FAULT_CODE`](crate::KERNEL_FAULT_CODE)),
/// without running: on `stream` only (an `aclrtStream` handle, null for the
/// current context's default stream) or, with `None`, on any stream. Other
/// tasks (copies, memsets, events, host functions) do not count: `nth == 1`
/// is the next kernel, whatever else is queued before it. The fault is
/// reported by the next synchronisation that covers the kernel, naming
/// the launching function (`queued by aclrtLaunchKernelWithConfig`).
///
/// # Panics
/// If `nth` is 0, or `stream` is not a live stream.
pub fn inject_kernel_fault(stream: Option<*mut core::ffi::c_void>, nth: u64, code: i32) {
    assert!(nth > 0, "aclrt_sim::inject_kernel_fault: nth is 1-based");
    let id = stream.map(|s| {
        rt::stream_id(s.addr())
            .unwrap_or_else(|e| panic!("aclrt_sim::inject_kernel_fault: {}", e.msg))
    });
    exec::inject_targeted_task_fault(id, true, nth, code);
}

/// Delay every task subsequently queued on `stream` (an `aclrtStream` handle,
/// null for the current context's default stream) by `delay` before it runs.
///
/// This replaces [`SimConfig::task_delay`] for that stream.
///
/// # Panics
/// If `stream` is not a live stream (or null without a current context).
pub fn set_stream_delay(stream: *mut core::ffi::c_void, delay: Duration) {
    if let Err(e) = rt::set_stream_delay(stream.addr(), delay) {
        panic!("aclrt_sim::set_stream_delay: {}", e.msg);
    }
}

/// How long a host thread that synchronises with a stream (stream, event
/// and device synchronisation, their timeout variants, drains, aborts)
/// watches the stream's progress before it parks; 20 µs by default, at most
/// 10 ms (longer values are taken as 10 ms). With `Duration::ZERO` it parks
/// at once. Process-wide, kept across [`reset`].
///
/// Watching first saves a futex wake-up and a reschedule when the awaited
/// work finishes within microseconds (an async 4 KiB copy on an awake pool
/// worker). `benches/icount.rs` sets zero: callgrind counts the calling
/// thread's instructions, and how long the watch lasts depends on when the
/// worker runs, so it is not deterministic.
pub fn set_sync_spin(spin: Duration) {
    exec::set_sync_spin(spin);
}

/// How long a teardown (`aclFinalize`, [`reset`]) waits for a stream's
/// running task, a host function that has not returned, before it leaves
/// the stream's worker behind (the teardown then returns); 5 s by default.
/// Process-wide, until the next [`reset`] (which restores the default after
/// its own teardown). A test of that rule sets a short wait: the task it
/// leaves behind is blocked until the test releases it, so any wait ends the
/// same way.
pub fn set_teardown_wait(wait: Duration) {
    exec::set_wait_limits(None, Some(wait));
}

/// How long a blocking callback waits for the thread it is queued for
/// (`aclrtSubscribeReport`) before a synchronisation waiting for its stream
/// says so on stderr, naming the function that queued it; 5 s by default.
/// Waits look every second, or every `after` where that is shorter.
/// Process-wide, until the next [`reset`] (which restores the default).
pub fn set_unserved_warning_after(after: Duration) {
    exec::set_wait_limits(Some(after), None);
}

/// Remove all injected faults and delays (per-stream delays; the configured
/// [`SimConfig::task_delay`] stays).
pub fn clear_faults() {
    diag::clear_call_faults();
    exec::clear_task_faults();
    rt::clear_stream_delays();
}

/// How many times each C function was called since the last [`reset`]
/// (or [`reset_call_counts`]), in first-call order.
pub fn call_counts() -> Vec<(&'static str, u64)> {
    diag::call_counts()
}

/// The total number of C-ABI calls since the last [`reset`] or
/// [`reset_call_counts`].
pub fn total_calls() -> u64 {
    diag::total_calls()
}

/// Start counting calls from zero.
pub fn reset_call_counts() {
    diag::reset_call_counts();
}

/// Start recording every C-ABI call in order (clearing an earlier record),
/// or stop (`false`). Off by default and after [`reset`]; read it with
/// [`call_log`]. For fault sweeps: run a flow once with recording on, then
/// make its k-th call fail with [`inject_fault`]`(log[k], n, code)`, where `n`
/// counts the earlier occurrences of `log[k]` plus one.
pub fn record_calls(on: bool) {
    diag::record_calls(on);
}

/// The C functions called since [`record_calls`]`(true)`, in call order
/// (including calls that failed).
pub fn call_log() -> Vec<&'static str> {
    diag::call_log()
}

/// The bookkeeping now: live resources, and every [`Violation`] (with its
/// rule's name, the C call and the handle) and [`Leak`] recorded since the
/// last [`reset`]. The same records are reported on stderr as they happen
/// and summed up at process exit (see [`ReportOutput`]); with
/// `ACLRT_SIM_ERROR_EXITCODE=N` a process that recorded any exits with `N`.
pub fn audit() -> Audit {
    // Lines of violations found on runtime threads since the last C call.
    crate::report::flush();
    rt::audit()
}

/// What the simulator prints on stderr about violations from now on: each
/// rule and call once where it happens and a summary at exit
/// ([`ReportOutput::All`], the default unless `ACLRT_SIM_REPORT` says
/// otherwise), only the summary, also a clean summary, or nothing. The
/// records ([`audit`]) and `ACLRT_SIM_ERROR_EXITCODE` do not depend on it.
pub fn set_report_output(output: ReportOutput) {
    crate::report::set_output(output);
}

/// Tear everything down (finalize if needed, release all handles, stop all
/// workers), clear violations, leaks, faults, delays and call counts, and
/// return to the environment's configuration. For test isolation.
///
/// Works from any state: resources still alive are torn down without being
/// reported, pending tasks are dropped, and workers are stopped (a worker
/// stuck in an application callback for more than 5 s is detached). The
/// calling thread's current context and error message are cleared; other
/// threads' current contexts become stale (107002).
///
/// # Guarantee for handles that outlive a reset
///
/// Memory still allocated at a reset is quarantined (never freed, never
/// reused), so handles that outlive a reset see errors from every call,
/// never freed memory: the bytes behind an `aclrtMalloc`/`aclrtMallocHost`
/// pointer stay valid for the rest of the process (a safe wrapper's host
/// buffer may still read them, a detached worker's host function may still
/// write them), no later allocation gets their address, and every C call
/// that is handed such a pointer fails (`aclrtFree*` with 207002
/// `DoubleFree`, copies and memsets with 107000 `UseAfterFree`). Context,
/// stream and event handles are numbers that are never reused and never
/// dereferenced, so a stale one is rejected with 107017 (a stale context
/// by `aclrtSetCurrentContext` and `aclrtDestroyContext` with 107002, as
/// the real runtime answers). The same holds for
/// `aclFinalize` (and the last `aclFinalizeReference`) with memory alive.
///
/// # Panics
/// When called from a thread of the simulator (a stream worker running a
/// host function or callback) or from inside an application callback run
/// by `aclrtProcessReport`: tearing the runtime down from under its own
/// running task would deadlock or pull the stream away from its worker.
/// Call `reset` from the test's own thread.
pub fn reset() {
    if sync::in_runtime_callback() {
        panic!(
            "aclrt_sim::reset called from a simulator thread or from inside a host function or \
             callback; the rule: reset (and exclusive) only from the application's own thread, \
             never from a callback, which the teardown would have to wait for"
        );
    }
    rt::set_pending_config(None);
    rt::reset();
    crate::trace::clear_last();
    diag::clear_records();
    diag::reset_calls();
    diag::clear_last_error();
    diag::clear_last_code();
    exec::reset_tasks();
    exec::reset_wait_limits();
    crate::stream_state::clear();
}

thread_local! {
    /// Whether this thread holds the [`exclusive`] lock.
    static HOLDS_EXCLUSIVE: Cell<bool> = const { Cell::new(false) };
}

/// A process-wide lock for tests that share the simulator.
///
/// Tests in one binary run on several threads, but the runtime is process
/// global: a test holds this guard for its whole body. Taking it calls
/// [`reset`] first, so each test starts from a fresh simulator (with the
/// guarantee described there for handles of the previous test).
///
/// # Panics
/// Instead of deadlocking:
/// * when the calling thread already holds the lock (a re-entrant call:
///   take it once, as the first line of a test);
/// * when called from a thread of the simulator (a host function or
///   callback running on a stream worker) or from inside an application
///   callback run by `aclrtProcessReport`: the test thread holding the lock
///   may be waiting for that very callback.
pub fn exclusive() -> Exclusive {
    static LOCK: Mutex<()> = Mutex::new(());
    if HOLDS_EXCLUSIVE.with(Cell::get) {
        panic!(
            "aclrt_sim::exclusive: this thread already holds aclrt_sim::exclusive() (a \
             re-entrant call would deadlock); the rule: take it once per test, as its first line"
        );
    }
    if sync::in_runtime_callback() {
        panic!(
            "aclrt_sim::exclusive called from a simulator thread or from inside a host function \
             or callback; the rule: reset (and exclusive) only from the application's own \
             thread, never from a callback, which the lock holder may be waiting for"
        );
    }
    let guard = LOCK
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner);
    HOLDS_EXCLUSIVE.with(|h| h.set(true));
    let held = Exclusive { _guard: guard };
    reset();
    held
}

/// The id `aclrtSubscribeReport` expects for the calling thread: on Unix the
/// thread's `pthread_t` (what `pthread_self()` returns in C and
/// `JoinHandleExt::as_pthread_t` gives for a spawned thread).
pub fn thread_report_id() -> u64 {
    crate::prim::os_thread_id()
}

/// Held by a test while it uses the simulator; see [`exclusive`].
#[must_use = "the lock is released when this guard is dropped"]
pub struct Exclusive {
    _guard: std::sync::MutexGuard<'static, ()>,
}

impl Drop for Exclusive {
    fn drop(&mut self) {
        // The guard is `!Send`: this runs on the thread that took the lock.
        HOLDS_EXCLUSIVE.with(|h| h.set(false));
    }
}
