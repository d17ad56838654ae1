//! The simulator's Rust control API: configuration, fault injection, task
//! delays, call counting, the audit, and test isolation.
//!
//! Other crates code against these names and signatures; change them only
//! together with their users.

use std::cell::Cell;
use std::path::PathBuf;
use std::sync::Mutex;
use std::time::Duration;

use crate::diag::{self, Api};
use crate::rt::{self, lock};
use crate::stream;

/// Where the simulated application runs (`aclrtGetRunMode`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum RunMode {
    /// `ACL_HOST`: the app runs on a host next to a PCIe card (default).
    Host,
    /// `ACL_DEVICE`: the app runs on the device's own CPU; "host" memory is
    /// device memory and host<->device copies behave as device-to-device.
    Device,
}

/// Settings read at `aclInit`.
#[derive(Clone, Debug, PartialEq)]
pub struct SimConfig {
    /// Number of devices (`ACLRT_SIM_DEVICES`, default 2).
    pub devices: u32,
    /// Bytes of memory per device (`ACLRT_SIM_MEMORY`, default 4 GiB).
    pub memory_per_device: u64,
    /// Run mode (`ACLRT_SIM_RUN_MODE` = `host` | `device`, default host).
    pub run_mode: RunMode,
    /// Chrome-trace JSON written at `aclFinalize` (`ACLRT_SIM_TRACE`).
    pub trace_path: Option<PathBuf>,
    /// Extra latency added before every queued task runs (default zero).
    pub task_delay: Duration,
}

impl Default for SimConfig {
    /// Two devices of 4 GiB, host run mode, no trace, no task delay.
    fn default() -> Self {
        SimConfig {
            devices: 2,
            memory_per_device: 4 << 30,
            run_mode: RunMode::Host,
            trace_path: None,
            task_delay: Duration::ZERO,
        }
    }
}

impl SimConfig {
    /// The defaults overridden by the `ACLRT_SIM_*` environment variables.
    ///
    /// | variable | value |
    /// | --- | --- |
    /// | `ACLRT_SIM_DEVICES` | device count (integer, 1..=64) |
    /// | `ACLRT_SIM_MEMORY` | bytes per device; suffixes `K`, `M`, `G` (and `KiB`, `MiB`, `GiB`) are binary |
    /// | `ACLRT_SIM_RUN_MODE` | `host` or `device` |
    /// | `ACLRT_SIM_TRACE` | path of the Chrome-trace JSON written at finalize |
    /// | `ACLRT_SIM_TASK_DELAY` | delay before every task: `250us`, `2ms`, `1s`, `100ns`, or a plain number of microseconds |
    ///
    /// An unparsable value is reported on stderr and the default is kept.
    pub fn from_env() -> Self {
        let mut c = SimConfig::default();
        let var = |name: &str| std::env::var(name).ok().filter(|v| !v.trim().is_empty());
        if let Some(v) = var("ACLRT_SIM_DEVICES") {
            match v.trim().parse::<u32>() {
                Ok(n) if (1..=64).contains(&n) => c.devices = n,
                _ => warn("ACLRT_SIM_DEVICES", &v),
            }
        }
        if let Some(v) = var("ACLRT_SIM_MEMORY") {
            match parse_bytes(&v) {
                Some(n) if n > 0 => c.memory_per_device = n,
                _ => warn("ACLRT_SIM_MEMORY", &v),
            }
        }
        if let Some(v) = var("ACLRT_SIM_RUN_MODE") {
            match v.trim().to_ascii_lowercase().as_str() {
                "host" => c.run_mode = RunMode::Host,
                "device" => c.run_mode = RunMode::Device,
                _ => warn("ACLRT_SIM_RUN_MODE", &v),
            }
        }
        if let Some(v) = var("ACLRT_SIM_TRACE") {
            c.trace_path = Some(PathBuf::from(v));
        }
        if let Some(v) = var("ACLRT_SIM_TASK_DELAY") {
            match parse_duration(&v) {
                Some(d) => c.task_delay = d,
                None => warn("ACLRT_SIM_TASK_DELAY", &v),
            }
        }
        c
    }
}

fn warn(name: &str, value: &str) {
    eprintln!("aclrt-sim: ignoring {name}={value:?} (unparsable); using the default");
}

fn parse_bytes(v: &str) -> Option<u64> {
    let v = v.trim();
    let split = v.find(|c: char| !c.is_ascii_digit()).unwrap_or(v.len());
    let (num, unit) = v.split_at(split);
    let n: u64 = num.parse().ok()?;
    let shift = match unit.trim().to_ascii_lowercase().as_str() {
        "" | "b" => 0,
        "k" | "kb" | "kib" => 10,
        "m" | "mb" | "mib" => 20,
        "g" | "gb" | "gib" => 30,
        "t" | "tb" | "tib" => 40,
        _ => return None,
    };
    n.checked_mul(1u64 << shift)
}

fn parse_duration(v: &str) -> Option<Duration> {
    let v = v.trim();
    let split = v.find(|c: char| !c.is_ascii_digit()).unwrap_or(v.len());
    let (num, unit) = v.split_at(split);
    let n: u64 = num.parse().ok()?;
    Some(match unit.trim() {
        "" | "us" | "µs" => Duration::from_micros(n),
        "ns" => Duration::from_nanos(n),
        "ms" => Duration::from_millis(n),
        "s" => Duration::from_secs(n),
        _ => return None,
    })
}

static OVERRIDE: Mutex<Option<SimConfig>> = Mutex::new(None);

/// The configuration the runtime takes when it (re)starts.
pub(crate) fn pending_config() -> SimConfig {
    lock(&OVERRIDE).clone().unwrap_or_else(SimConfig::from_env)
}

/// Use `config` instead of the environment from the next `aclInit` on.
///
/// A runtime already initialized keeps its configuration until it is
/// finalized (or [`reset`]).
pub fn configure(config: SimConfig) {
    *lock(&OVERRIDE) = Some(config);
}

/// The configuration in force (or that the next `aclInit` will use).
pub fn config() -> SimConfig {
    rt::config_in_force().unwrap_or_else(pending_config)
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
/// completes at once, counts too).
///
/// # Panics
/// If `nth` is 0.
pub fn inject_task_fault(nth: u64, code: i32) {
    assert!(nth > 0, "aclrt_sim::inject_task_fault: nth is 1-based");
    stream::inject_task_fault(nth, code);
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

/// Remove all injected faults and delays (per-stream delays; the configured
/// [`SimConfig::task_delay`] stays).
pub fn clear_faults() {
    diag::clear_call_faults();
    stream::clear_task_faults();
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

/// The kind of a strict-check violation.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum ViolationKind {
    /// A copy or memset reaching outside its allocation.
    OutOfBounds,
    /// A memcpy kind that contradicts where the memory lies.
    KindMismatch,
    /// Freeing memory that was already freed.
    DoubleFree,
    /// Freeing memory the runtime did not allocate (or the wrong free function).
    ForeignFree,
    /// Using memory or a handle after it was freed or destroyed.
    UseAfterFree,
    /// Freeing memory or destroying a handle a queued task still uses.
    ReleaseWhileInUse,
    /// Destroying a context whose streams, events or memory are alive.
    ReleaseWithLiveChildren,
    /// Resetting a device with live explicit contexts, streams, events or memory.
    ResetWithLiveResources,
    /// `aclFinalize` with resources alive (each is also a [`Leak`]).
    FinalizeWithLiveResources,
    /// A stream of another context than the current one (107003).
    WrongContext,
    /// Memory of another device used without peer access.
    CrossDeviceWithoutPeerAccess,
    /// A handle the runtime never created (or a handle of another kind).
    InvalidHandle,
    /// A host function or callback panicked (caught on the runtime thread).
    CallbackPanicked,
}

/// One strict-check violation, as recorded.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Violation {
    /// The C function that was called.
    pub function: &'static str,
    /// The error code it returned.
    pub code: i32,
    /// What went wrong.
    pub kind: ViolationKind,
    /// The same text `aclGetRecentErrMsg` gave.
    pub message: String,
}

/// The kind of a live runtime resource.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum ResourceKind {
    /// A device set with `aclrtSetDevice` (reference counted).
    Device,
    /// An explicit context.
    Context,
    /// An explicit stream.
    Stream,
    /// An event.
    Event,
    /// Device memory (`aclrtMalloc*`).
    DeviceMemory,
    /// Host memory (`aclrtMallocHost`).
    HostMemory,
}

/// A resource alive at `aclFinalize`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Leak {
    /// What it is.
    pub kind: ResourceKind,
    /// Its device.
    pub device: i32,
    /// Its handle or address.
    pub address: usize,
    /// Bytes, for memory; 0 otherwise.
    pub bytes: usize,
}

/// A snapshot of the simulator's bookkeeping.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Audit {
    /// Live resources now: (kind, device) -> count.
    pub live: std::collections::BTreeMap<(ResourceKind, i32), usize>,
    /// Every violation since the last [`reset`], in order.
    pub violations: Vec<Violation>,
    /// Resources that were alive at an `aclFinalize` since the last [`reset`].
    pub leaks: Vec<Leak>,
    /// Whether `aclInit` is in force.
    pub initialized: bool,
    /// Tasks dropped (queued, never started) or cut short (a delay or a
    /// wait) by `aclrtStreamAbort` since the last [`reset`]. Not a sign of
    /// misuse: [`Audit::is_clean`] ignores it.
    pub aborted_tasks: u64,
}

impl Audit {
    /// No violations, no leaks, nothing alive.
    pub fn is_clean(&self) -> bool {
        self.violations.is_empty() && self.leaks.is_empty() && self.live.values().all(|&n| n == 0)
    }

    /// Panics with a readable report unless [`Audit::is_clean`].
    #[track_caller]
    pub fn assert_clean(&self) {
        assert!(self.is_clean(), "simulator audit is not clean:\n{self:#?}");
    }
}

/// The bookkeeping now.
pub fn audit() -> Audit {
    rt::audit()
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
/// dereferenced, so a stale one is rejected with 107017. The same holds for
/// `aclFinalize` (and the last `aclFinalizeReference`) with memory alive.
///
/// # Panics
/// When called from a thread of the simulator (a stream worker running a
/// host function or callback) or from inside an application callback run
/// by `aclrtProcessReport`: tearing the runtime down from under its own
/// running task would deadlock or pull the stream away from its worker.
/// Call `reset` from the test's own thread.
pub fn reset() {
    if stream::in_runtime_callback() {
        panic!(
            "aclrt_sim::reset called from a simulator thread or from inside a host function or \
             callback; the rule: reset (and exclusive) only from the application's own thread, \
             never from a callback, which the teardown would have to wait for"
        );
    }
    *lock(&OVERRIDE) = None;
    rt::reset();
    crate::trace::clear_last();
    diag::clear_records();
    diag::reset_calls();
    diag::clear_last_error();
    stream::reset_tasks();
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
    if stream::in_runtime_callback() {
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
    crate::raw::os_thread_id()
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn byte_and_duration_parsing() {
        assert_eq!(parse_bytes("4096"), Some(4096));
        assert_eq!(parse_bytes("64M"), Some(64 << 20));
        assert_eq!(parse_bytes("2 GiB"), Some(2 << 30));
        assert_eq!(parse_bytes("1k"), Some(1024));
        assert_eq!(parse_bytes("12 apples"), None);
        assert_eq!(parse_bytes("G"), None);
        assert_eq!(parse_duration("250"), Some(Duration::from_micros(250)));
        assert_eq!(parse_duration("2ms"), Some(Duration::from_millis(2)));
        assert_eq!(parse_duration("1 s"), Some(Duration::from_secs(1)));
        assert_eq!(parse_duration("100ns"), Some(Duration::from_nanos(100)));
        assert_eq!(parse_duration("fast"), None);
    }

    #[test]
    fn defaults() {
        let c = SimConfig::default();
        assert_eq!((c.devices, c.memory_per_device), (2, 4 << 30));
        assert_eq!(c.run_mode, RunMode::Host);
        assert!(c.trace_path.is_none() && c.task_delay.is_zero());
    }
}
