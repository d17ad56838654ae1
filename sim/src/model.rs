//! The model every layer shares: the public types of the simulator's
//! configuration ([`SimConfig`], [`RunMode`], [`Soc`], [`Strictness`],
//! [`PeerTopology`]) and of its audit ([`Audit`],
//! [`Violation`], [`ViolationKind`], [`Leak`], [`ResourceKind`]), re-exported
//! at the crate root. No dependency on any other module of the crate.

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

/// The simulated chip (`ACLRT_SIM_SOC`): its feature list decides some
/// answers, as the real runtime's per-chip feature table does
/// (`src/runtime/config/*/dev_info_reg.cc` in the runtime's source; see
/// `sim/FIDELITY.md`, rows SOC-*).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum Soc {
    /// Atlas A2 training/inference (`aclrtGetSocName` "Ascend910B-sim"):
    /// huge streams, the control submission queue (a NULL stream means the
    /// default stream everywhere), stream abort. The default.
    #[default]
    Ascend910B,
    /// The Atlas inference series (the runtime's `dc` chip configuration;
    /// "Ascend310P-sim"): no huge streams (`ACL_STREAM_HUGE` 207000), no
    /// control submission queue (a NULL stream in `aclrtSetStreamFailureMode`,
    /// `aclrtStreamAbort` and `aclrtMemcpy2dAsync` is 107000), no stream
    /// abort (207000).
    Ascend310P,
}

impl Soc {
    /// `ACL_STREAM_HUGE` streams can be created.
    pub fn huge_streams(self) -> bool {
        self == Soc::Ascend910B
    }
    /// The control submission queue: calls that resolve a NULL stream at
    /// the runtime layer (failure mode, abort, async 2-D copy) accept it.
    pub fn control_sq(self) -> bool {
        self == Soc::Ascend910B
    }
    /// `aclrtStreamAbort` is supported.
    pub fn stream_abort(self) -> bool {
        self == Soc::Ascend910B
    }
    /// `ACL_EVENT_IPC` events can be created (the chip configuration's IPC
    /// event feature: 910B, not the inference series).
    pub fn ipc_events(self) -> bool {
        self == Soc::Ascend910B
    }
}

/// What the simulator does where a named rule of `sim/FIDELITY.md` finds a
/// misuse that the hardware lets through (`ACLRT_SIM_STRICTNESS`).
///
/// The manners of the checking tools users already trust (valgrind's
/// memcheck, compute-sanitizer): a checker must not change the program's
/// path. By default ([`Strictness::Report`]) every call answers exactly as
/// the hardware does; the misuse is recorded where it happens (a
/// [`Violation`] with the rule's name, the C call and the handle, in
/// [`audit`](crate::audit)), reported once per rule and call on stderr, and
/// summed up at process exit (`ACLRT_SIM_ERROR_EXITCODE=N` then makes the
/// exit status `N`, as valgrind's `--error-exitcode`). Refusing at the call
/// is the explicit setting [`Strictness::Refuse`].
///
/// Rules whose hardware answer is memory corruption, a hang or an unknown
/// driver code (STRICT-BOUNDS, STRICT-UAF-MEM, STRICT-DOUBLE-FREE,
/// STRICT-FOREIGN-FREE, STRICT-MEMSET-PAGEABLE, STRICT-PEER,
/// STRICT-FORCE-DESTROY-DEPENDED, STRICT-UNLOAD-BUSY, STRICT-SELF-WAIT)
/// refuse in both settings: the simulator cannot answer like the hardware
/// without corrupting its own memory or hanging. They are reported all the
/// same.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum Strictness {
    /// Answer as the hardware does and record (and report) the
    /// [`Violation`], so an existing program runs unchanged and the audit,
    /// stderr and the exit status show what would be a bug (default;
    /// `ACLRT_SIM_STRICTNESS=report`, alias `hardware`).
    #[default]
    Report,
    /// Refuse the call with the rule's code and record the [`Violation`]
    /// (`ACLRT_SIM_STRICTNESS=refuse`, alias `strict`): the misuse fails at
    /// the call that made it.
    Refuse,
}

/// Who serves the host-function threads (`aclrtSubscribeHostFunc`,
/// `aclrtProcessHostFunc`, `aclrtUnSubscribeHostFunc`;
/// `ACLRT_SIM_HOST_FUNC_THREADS`). The runtime documents them for IPV350
/// only: the modelled chips (Atlas A2, Atlas inference series) answer
/// 207000 (feature not supported).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum HostFuncThreads {
    /// The modelled chip's answer: each of the three calls fails with
    /// 207000 (stored as the thread's last error) and the subscription is
    /// reported under `UNSUPPORTED` (default; `chip`).
    #[default]
    Chip,
    /// Served with the compact runtime's behaviour (the runtime built for
    /// the chips that offer the feature), so that a program written for
    /// them can be tested; each subscription is still reported under
    /// `UNSUPPORTED` (`compact`).
    Compact,
}

/// Which ordered device pairs `aclrtDeviceCanAccessPeer` reports as able to
/// reach each other (`ACLRT_SIM_PEER`).
#[derive(Clone, Debug, Default, PartialEq, Eq, Hash)]
pub enum PeerTopology {
    /// Every pair of distinct devices (default).
    #[default]
    All,
    /// No pair: `aclrtDeviceCanAccessPeer` reports 0 and enabling fails.
    None,
    /// Only these pairs, each in both directions.
    Pairs(Vec<(i32, i32)>),
}

impl PeerTopology {
    /// Whether `dev` can access `peer` (distinct devices).
    pub fn allows(&self, dev: i32, peer: i32) -> bool {
        match self {
            PeerTopology::All => true,
            PeerTopology::None => false,
            PeerTopology::Pairs(p) => p
                .iter()
                .any(|&(a, b)| (a, b) == (dev, peer) || (b, a) == (dev, peer)),
        }
    }

    fn parse(v: &str) -> Option<PeerTopology> {
        match v.trim().to_ascii_lowercase().as_str() {
            "all" => Some(PeerTopology::All),
            "none" => Some(PeerTopology::None),
            list => list
                .split(',')
                .map(|pair| {
                    let (a, b) = pair.trim().split_once('-')?;
                    Some((a.trim().parse().ok()?, b.trim().parse().ok()?))
                })
                .collect::<Option<Vec<_>>>()
                .map(PeerTopology::Pairs),
        }
    }
}

/// Settings read at `aclInit`.
#[derive(Clone, Debug, PartialEq)]
pub struct SimConfig {
    /// Number of devices (`ACLRT_SIM_DEVICES`, default 2).
    pub devices: u32,
    /// Bytes of memory per device (`ACLRT_SIM_MEMORY`); `None` (the
    /// default): the chip's own size, [`Soc::device_memory`] (64 GiB on the
    /// 910B, 24 GiB on the 310P). Reserved lazily: untouched device memory
    /// costs no host memory.
    pub memory_per_device: Option<u64>,
    /// Run mode (`ACLRT_SIM_RUN_MODE` = `host` | `device`, default host).
    pub run_mode: RunMode,
    /// Chrome-trace JSON written at `aclFinalize` (`ACLRT_SIM_TRACE`).
    pub trace_path: Option<PathBuf>,
    /// Extra latency added before every queued task runs (default zero).
    pub task_delay: Duration,
    /// The simulated chip (`ACLRT_SIM_SOC` = `910b` | `310p`, default 910B).
    pub soc: Soc,
    /// Report the named rules' misuses and answer as the hardware does, or
    /// refuse them (`ACLRT_SIM_STRICTNESS` = `report` | `refuse`, default
    /// report; see [`Strictness`]).
    pub strictness: Strictness,
    /// Peer-access topology (`ACLRT_SIM_PEER` = `all` | `none` | `0-1,2-3`,
    /// default all).
    pub peer: PeerTopology,
    /// Host-function threads: the modelled chip's 207000, or the compact
    /// runtime's service (`ACLRT_SIM_HOST_FUNC_THREADS` = `chip` |
    /// `compact`, default chip; see [`HostFuncThreads`]).
    pub host_func_threads: HostFuncThreads,
}

impl Default for SimConfig {
    /// Two 910B devices (64 GiB each), host run mode, no trace, no task delay.
    fn default() -> Self {
        SimConfig {
            devices: 2,
            memory_per_device: None,
            run_mode: RunMode::Host,
            trace_path: None,
            task_delay: Duration::ZERO,
            soc: Soc::Ascend910B,
            strictness: Strictness::Report,
            peer: PeerTopology::All,
            host_func_threads: HostFuncThreads::Chip,
        }
    }
}

impl SimConfig {
    /// The defaults overridden by the `ACLRT_SIM_*` environment variables.
    ///
    /// | variable | value |
    /// | --- | --- |
    /// | `ACLRT_SIM_DEVICES` | device count (integer, 1..=64) |
    /// | `ACLRT_SIM_MEMORY` | bytes per device (default: the chip's, [`Soc::device_memory`]); suffixes `K`, `M`, `G`, `T` (and `KiB`, `MiB`, `GiB`, `TiB`) are binary |
    /// | `ACLRT_SIM_RUN_MODE` | `host` or `device` |
    /// | `ACLRT_SIM_TRACE` | path of the Chrome-trace JSON written at finalize |
    /// | `ACLRT_SIM_TASK_DELAY` | delay before every task: `250us`, `2ms`, `1s`, `100ns`, or a plain number of microseconds |
    /// | `ACLRT_SIM_SOC` | `910b` or `310p` ([`Soc`]) |
    /// | `ACLRT_SIM_STRICTNESS` | `report` (alias `hardware`) or `refuse` (alias `strict`) ([`Strictness`]) |
    /// | `ACLRT_SIM_PEER` | `all`, `none`, or pairs `0-1,2-3` ([`PeerTopology`]) |
    /// | `ACLRT_SIM_HOST_FUNC_THREADS` | `chip` or `compact` ([`HostFuncThreads`]) |
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
                Some(n) if n > 0 => c.memory_per_device = Some(n),
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
        if let Some(v) = var("ACLRT_SIM_SOC") {
            match v.trim().to_ascii_lowercase().as_str() {
                "910b" | "ascend910b" => c.soc = Soc::Ascend910B,
                "310p" | "ascend310p" => c.soc = Soc::Ascend310P,
                _ => warn("ACLRT_SIM_SOC", &v),
            }
        }
        if let Some(v) = var("ACLRT_SIM_STRICTNESS") {
            match v.trim().to_ascii_lowercase().as_str() {
                "report" | "hardware" => c.strictness = Strictness::Report,
                "refuse" | "strict" => c.strictness = Strictness::Refuse,
                _ => warn("ACLRT_SIM_STRICTNESS", &v),
            }
        }
        if let Some(v) = var("ACLRT_SIM_PEER") {
            match PeerTopology::parse(&v) {
                Some(t) => c.peer = t,
                None => warn("ACLRT_SIM_PEER", &v),
            }
        }
        if let Some(v) = var("ACLRT_SIM_HOST_FUNC_THREADS") {
            match v.trim().to_ascii_lowercase().as_str() {
                "chip" => c.host_func_threads = HostFuncThreads::Chip,
                "compact" => c.host_func_threads = HostFuncThreads::Compact,
                _ => warn("ACLRT_SIM_HOST_FUNC_THREADS", &v),
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
    /// A kernel name that no registered kernel (or no name in the binary)
    /// matches.
    UnknownKernel,
    /// A kernel touched memory through a pointer argument that is not device
    /// memory of its stream's device, or out of bounds, or freed.
    KernelBadAccess,
    /// An event used for something its creation flags do not allow: a
    /// stream wait on an event without `ACL_EVENT_SYNC` (207000), timing one
    /// without `ACL_EVENT_TIME_LINE` (107006), resetting or querying the
    /// wait status of an `aclrtCreateEventExWithFlag` event (207000).
    EventFlagMismatch,
    /// Timing an event (elapsed time, timestamp) that was never recorded
    /// (507000).
    EventNotRecorded,
    /// A runtime epoch reaching into the next: resources created after
    /// `aclFinalize` and still alive at the next `aclInit` (torn down by
    /// it, each also a [`Leak`]), or a call from a host function or
    /// callback queued before a teardown (`aclFinalize`: 100037; any other
    /// function: 107002).
    UseAfterFinalize,
    /// A function of the runtime's surface the simulator does not model:
    /// answered with the runtime's own "feature not supported" code
    /// (207000), so that a program that depends on it learns so at once.
    Unsupported,
    /// A thread waits for a stream subscribed to it (`aclrtSubscribeReport`)
    /// while a blocking callback of that stream, which only this thread can
    /// run (`aclrtProcessReport`), is due before the wait ends: it never
    /// ends, on the hardware as here.
    SelfServedWait,
}

/// One misuse found by a named rule, as recorded.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Violation {
    /// The C function that was called.
    pub function: &'static str,
    /// The rule's error code: what the call returned when [`refused`],
    /// what it would have returned with [`Strictness::Refuse`] otherwise.
    ///
    /// [`refused`]: Violation::refused
    pub code: i32,
    /// What went wrong.
    pub kind: ViolationKind,
    /// The same text `aclGetRecentErrMsg` gave (for a refusal).
    pub message: String,
    /// The rule's name in `sim/FIDELITY.md` (`STRICT-CTX-LIVE`, ...; see
    /// [`rule_name`]).
    pub rule: &'static str,
    /// The handle or address the rule was about (a context, stream or event
    /// handle, a memory address, a device id for a reset), when there is
    /// one.
    pub handle: Option<usize>,
    /// Whether the call was refused with [`code`](Violation::code); `false`
    /// when it answered as the hardware does ([`Strictness::Report`]).
    pub refused: bool,
}

/// Whether C function `function` takes memory pointers (a use after free
/// there is of memory, not of a handle).
fn takes_memory(function: &str) -> bool {
    [
        "aclrtMemcpy",
        "aclrtMemset",
        "aclrtFree",
        "aclrtHost",
        "aclrtLaunchKernel",
        "aclrtKernelArgs",
    ]
    .iter()
    .any(|p| function.starts_with(p))
}

/// The name of the rule that finds `kind` in `function`: the named strict
/// rules of `sim/FIDELITY.md` (`STRICT-*`), or, for misuses the hardware
/// refuses as well (a foreign handle, a wrong context, ...), a name of the
/// same form for the report.
pub fn rule_name(kind: ViolationKind, function: &str, code: i32) -> &'static str {
    use ViolationKind as K;
    match kind {
        // A destroyed handle rather than freed memory.
        K::UseAfterFree if code == 107_017 || !takes_memory(function) => "STALE-HANDLE",
        K::OutOfBounds => "STRICT-BOUNDS",
        K::KindMismatch if function.starts_with("aclrtMemset") => "STRICT-MEMSET-PAGEABLE",
        K::KindMismatch => "STRICT-KIND",
        K::DoubleFree => "STRICT-DOUBLE-FREE",
        K::ForeignFree => "STRICT-FOREIGN-FREE",
        K::UseAfterFree => "STRICT-UAF-MEM",
        K::ReleaseWhileInUse => match function {
            "aclrtDestroyEvent" => "STRICT-EVENT-IN-USE",
            "aclrtDestroyStreamForce" => "STRICT-FORCE-DESTROY-DEPENDED",
            "aclrtBinaryUnLoad" => "STRICT-UNLOAD-BUSY",
            "aclrtHostUnregister" => "STRICT-UNREGISTER-IN-USE",
            _ => "STRICT-FREE-IN-USE",
        },
        K::ReleaseWithLiveChildren => "STRICT-CTX-LIVE",
        K::ResetWithLiveResources => "STRICT-RESET-LIVE",
        K::FinalizeWithLiveResources => "STRICT-FINALIZE-LIVE",
        K::CrossDeviceWithoutPeerAccess => "STRICT-PEER",
        K::WrongContext => "WRONG-CONTEXT",
        K::InvalidHandle => "INVALID-HANDLE",
        K::CallbackPanicked => "CALLBACK-PANICKED",
        K::UnknownKernel => "UNKNOWN-KERNEL",
        K::KernelBadAccess => "KERNEL-BAD-ACCESS",
        K::EventFlagMismatch => "EVENT-FLAGS",
        K::EventNotRecorded => "EVENT-NOT-RECORDED",
        K::UseAfterFinalize => "USE-AFTER-FINALIZE",
        K::Unsupported => "UNSUPPORTED",
        K::SelfServedWait => "STRICT-SELF-SERVE",
    }
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
    /// Managed memory (`aclrtMemAllocManaged`).
    ManagedMemory,
    /// A host registration (`aclrtHostRegister*`; its address is the
    /// registered start).
    HostRegistration,
    /// A notify (`aclrtCreateNotify`, `aclrtNotifyImportByKey`; its address
    /// is the handle).
    Notify,
    /// A reserved virtual address range (`aclrtReserveMemAddress`; its
    /// address is the start).
    Reservation,
    /// Physical memory (`aclrtMallocPhysical`, or an import of a shareable
    /// handle; its address is the handle).
    PhysicalMemory,
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
    /// Every violation since the last [`reset`](crate::reset), in order.
    pub violations: Vec<Violation>,
    /// Resources that were alive at an `aclFinalize` since the last [`reset`](crate::reset).
    pub leaks: Vec<Leak>,
    /// Whether `aclInit` is in force.
    pub initialized: bool,
    /// Tasks dropped (queued, never started) or cut short (a delay or a
    /// wait) by `aclrtStreamAbort` since the last [`reset`](crate::reset). Not a sign of
    /// misuse: [`Audit::is_clean`] ignores it.
    pub aborted_tasks: u64,
    /// Streams blocked on an unserved callback: a blocking
    /// `aclrtLaunchCallback` queued for its subscribed thread that no
    /// `aclrtProcessReport` has taken yet. `aclrtSubscribeReport` accepts
    /// any thread id (as the real runtime does: thread 0, an id nobody
    /// serves, a finished thread), so such a stream waits for ever, and
    /// every synchronisation of it with it; the audit names it, so that a
    /// test (or its watchdog) can fail with this reason instead of hanging.
    pub unserved_callbacks: Vec<UnservedCallback>,
}

/// A stream blocked on a blocking callback that its subscribed thread has
/// not taken (see [`Audit::unserved_callbacks`]).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct UnservedCallback {
    /// The stream's handle.
    pub stream: usize,
    /// Its device.
    pub device: i32,
    /// The thread id it was subscribed to (`aclrtSubscribeReport`).
    pub thread: u64,
    /// How long the oldest such callback has been queued, in milliseconds.
    pub waiting_ms: u64,
}

impl Audit {
    /// No violations, no leaks, nothing alive, no stream blocked on an
    /// unserved callback.
    pub fn is_clean(&self) -> bool {
        self.violations.is_empty()
            && self.leaks.is_empty()
            && self.live.values().all(|&n| n == 0)
            && self.unserved_callbacks.is_empty()
    }

    /// Asserts [`Audit::is_clean`], for tests.
    ///
    /// # Panics
    /// Unless [`Audit::is_clean`], with a readable report of the violations,
    /// leaks and live resources.
    #[track_caller]
    pub fn assert_clean(&self) {
        assert!(self.is_clean(), "simulator audit is not clean:\n{self:#?}");
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
        assert_eq!((c.devices, c.memory_per_device), (2, None));
        assert_eq!(c.device_memory(), 64 << 30);
        assert_eq!(c.run_mode, RunMode::Host);
        assert!(c.trace_path.is_none() && c.task_delay.is_zero());
    }
}
