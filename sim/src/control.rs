//! The simulator's Rust control API: configuration, fault injection, task
//! delays, call counting, the audit, and test isolation.
//!
//! CONTRACT (written before the implementation; other crates code against
//! these names and signatures, so change them only together with their users).

use std::path::PathBuf;
use std::time::Duration;

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
    fn default() -> Self {
        unimplemented!()
    }
}

impl SimConfig {
    /// The defaults overridden by the `ACLRT_SIM_*` environment variables.
    pub fn from_env() -> Self {
        unimplemented!()
    }
}

/// Use `config` instead of the environment from the next `aclInit` on.
pub fn configure(config: SimConfig) {
    let _ = config;
    unimplemented!()
}

/// The configuration in force (or that the next `aclInit` will use).
pub fn config() -> SimConfig {
    unimplemented!()
}

/// Make the `nth` (1-based) call, counted from now, of the C function
/// `function` (e.g. `"aclrtMalloc"`) fail with `code` without doing anything.
pub fn inject_fault(function: &str, nth: u64, code: i32) {
    let _ = (function, nth, code);
    unimplemented!()
}

/// Make the `nth` (1-based) queued task, counted from now over all streams,
/// fail on the device with `code` (e.g. 507015, an AI Core exception): the
/// task does nothing and the error is reported by the next synchronisation of
/// its stream (stream/event/device synchronize), as a device fault would be.
pub fn inject_task_fault(nth: u64, code: i32) {
    let _ = (nth, code);
    unimplemented!()
}

/// Delay every task subsequently queued on `stream` (an `aclrtStream` handle,
/// null for the current context's default stream) by `delay` before it runs.
pub fn set_stream_delay(stream: *mut core::ffi::c_void, delay: Duration) {
    let _ = (stream, delay);
    unimplemented!()
}

/// Remove all injected faults and delays.
pub fn clear_faults() {
    unimplemented!()
}

/// How many times each C function was called since the last [`reset`]
/// (or [`reset_call_counts`]), in first-call order.
pub fn call_counts() -> Vec<(&'static str, u64)> {
    unimplemented!()
}

/// The total number of C-ABI calls since the last [`reset`] or
/// [`reset_call_counts`].
pub fn total_calls() -> u64 {
    unimplemented!()
}

/// Start counting calls from zero.
pub fn reset_call_counts() {
    unimplemented!()
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
    /// A handle the runtime never created.
    InvalidHandle,
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
    unimplemented!()
}

/// Tear everything down (finalize if needed, free all memory, stop all
/// workers), clear violations, leaks, faults, delays and call counts, and
/// return to the environment's configuration. For test isolation.
pub fn reset() {
    unimplemented!()
}

/// A process-wide lock for tests that share the simulator.
///
/// Tests in one binary run on several threads, but the runtime is process
/// global: a test holds this guard for its whole body. Taking it calls
/// [`reset`] first, so each test starts from a fresh simulator.
pub fn exclusive() -> Exclusive {
    unimplemented!()
}

/// Held by a test while it uses the simulator; see [`exclusive`].
#[must_use = "the lock is released when this guard is dropped"]
pub struct Exclusive {
    _guard: std::sync::MutexGuard<'static, ()>,
}
