//! Errors: every fallible call returns [`Result<T>`](crate::Result).

use aclrt_sys as sys;

/// The result type of this crate.
pub type Result<T, E = Error> = core::result::Result<T, E>;

/// What went wrong, coarse enough to match on.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum ErrorKind {
    /// The runtime rejected a parameter (100000, 107000, ...).
    InvalidParam,
    /// No such device (107001, 200002).
    InvalidDevice,
    /// No current context on the calling thread (107002).
    NoContext,
    /// A stream was used outside its context (107003). Safe code never sees
    /// this: the library makes the right context current before each call.
    WrongContext,
    /// A handle the runtime does not know (107017, 200005).
    InvalidHandle,
    /// Out of device or host memory (207001, 207018, 200000).
    OutOfMemory,
    /// No more streams or events can be created (207007, 207008, 207005).
    ResourceExhausted,
    /// A synchronisation or wait timed out (507046, 507047, 107019, 107020, 507012).
    Timeout,
    /// The feature is not supported here (207000, 200001, 200006).
    NotSupported,
    /// The device reported a fault while executing queued work (507015, 507001,
    /// 507018, 507014, 507035, ...).
    DeviceFault,
    /// The runtime was initialised or finalised twice (100002, 100037).
    Lifecycle,
    /// Releasing a resource failed (507007, 207002).
    ReleaseFailed,
    /// Any other failure of the runtime.
    Internal,
    /// Queued work was discarded by a stream abort (107023, or
    /// [`Error::WorkAborted`]).
    Aborted,
}

impl ErrorKind {
    /// Classify an ACL error code.
    pub fn from_code(code: i32) -> ErrorKind {
        match code {
            sys::ACL_ERROR_INVALID_PARAM
            | sys::ACL_ERROR_RT_PARAM_INVALID
            | sys::ACL_ERROR_RT_ADDR_UNALIGNED
            | sys::ACL_ERROR_MEMORY_ADDRESS_UNALIGNED
            | sys::ACL_ERROR_RT_INVALID_MEMORY_TYPE
            | sys::ACL_ERROR_RT_INVALID_MALLOC_TYPE
            | sys::ACL_ERROR_RT_EVENT_TIMESTAMP_INVALID
            | sys::ACL_ERROR_RT_EVENT_TIMESTAMP_REVERSAL
            | sys::ACL_ERROR_HOST_MEMORY_ALREADY_REGISTERED
            | sys::ACL_ERROR_HOST_MEMORY_NOT_REGISTERED
            | sys::ACL_ERROR_INVALID_FILE => ErrorKind::InvalidParam,
            sys::ACL_ERROR_RT_INVALID_DEVICEID
            | sys::ACL_ERROR_INVALID_DEVICE
            | sys::ACL_ERROR_RT_NO_DEVICE => ErrorKind::InvalidDevice,
            sys::ACL_ERROR_RT_CONTEXT_NULL => ErrorKind::NoContext,
            sys::ACL_ERROR_RT_STREAM_CONTEXT => ErrorKind::WrongContext,
            sys::ACL_ERROR_RT_INVALID_HANDLE | sys::ACL_ERROR_INVALID_RESOURCE_HANDLE => {
                ErrorKind::InvalidHandle
            }
            sys::ACL_ERROR_RT_MEMORY_ALLOCATION
            | sys::ACL_ERROR_RT_DEVICE_OOM
            | sys::ACL_ERROR_BAD_ALLOC
            | sys::ACL_ERROR_STORAGE_OVER_LIMIT => ErrorKind::OutOfMemory,
            sys::ACL_ERROR_RT_NO_EVENT_RESOURCE
            | sys::ACL_ERROR_RT_NO_STREAM_RESOURCE
            | sys::ACL_ERROR_RT_RESOURCE_ALLOC_FAIL
            | sys::ACL_ERROR_RT_OVER_LIMIT
            | sys::ACL_ERROR_RT_STREAM_TASK_FULL => ErrorKind::ResourceExhausted,
            sys::ACL_ERROR_RT_STREAM_SYNC_TIMEOUT
            | sys::ACL_ERROR_RT_EVENT_SYNC_TIMEOUT
            | sys::ACL_ERROR_RT_WAIT_TIMEOUT
            | sys::ACL_ERROR_RT_TASK_TIMEOUT
            | sys::ACL_ERROR_RT_REPORT_TIMEOUT
            | sys::ACL_ERROR_WAIT_CALLBACK_TIMEOUT => ErrorKind::Timeout,
            sys::ACL_ERROR_RT_FEATURE_NOT_SUPPORT
            | sys::ACL_ERROR_API_NOT_SUPPORT
            | sys::ACL_ERROR_FEATURE_UNSUPPORTED
            | sys::ACL_ERROR_RT_NO_PERMISSION => ErrorKind::NotSupported,
            sys::ACL_ERROR_RT_AICORE_EXCEPTION
            | sys::ACL_ERROR_RT_TS_ERROR
            | sys::ACL_ERROR_RT_DEV_SETUP_ERROR
            | sys::ACL_ERROR_RT_DRV_INTERNAL_ERROR => ErrorKind::DeviceFault,
            // The other errors of a task the device ran, as a stream's or
            // the device's synchronisation returns them from the stream's
            // error (the runtime's `Stream::GetError`). The classification
            // is for matching only: the failure rule (SAFETY.md) treats every
            // code a synchronisation returns as a failure.
            code if TASK_FAULT_CODES.contains(&code) => ErrorKind::DeviceFault,
            sys::ACL_ERROR_REPEAT_INITIALIZE
            | sys::ACL_ERROR_REPEAT_FINALIZE
            | sys::ACL_ERROR_UNINITIALIZE
            | sys::ACL_ERROR_RT_REPEATED_INIT => ErrorKind::Lifecycle,
            sys::ACL_ERROR_RT_STREAM_ABORT => ErrorKind::Aborted,
            sys::ACL_ERROR_RT_CONTEXT_RELEASE_ERROR | sys::ACL_ERROR_RT_MEMORY_FREE => {
                ErrorKind::ReleaseFailed
            }
            _ => ErrorKind::Internal,
        }
    }
}

/// The error codes (`rt_error_codes.h`) of a task that failed on the
/// device, besides the four named in [`ErrorKind::from_code`]: lost
/// heartbeat 507010, model execution 507011, system DMA 507013, AI Core
/// timeout / trap 507014 / 507016, AI CPU timeout / exception 507017 /
/// 507018, vector core timeout / exception / trap 507034–507036, AI Core
/// and vector core trap read / write overflows 507042–507045, FFTS+
/// timeout / exception / trap 507048–507050, device memory errors
/// 507053–507055, link and remote errors 507056–507057.
const TASK_FAULT_CODES: [i32; 22] = [
    507_010, 507_011, 507_013, 507_014, 507_016, 507_017, 507_018, 507_034, 507_035, 507_036,
    507_042, 507_043, 507_044, 507_045, 507_048, 507_049, 507_050, 507_053, 507_054, 507_055,
    507_056, 507_057,
];

/// An error of this crate: either a failed ACL call, or a rule checked in Rust
/// before any C call was made.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// A C function of the runtime returned a non-zero code.
    #[error(
        "{function} failed with ACL error {code} ({kind:?}){}",
        display_message(function, message)
    )]
    Acl {
        /// The ACL error code (`aclError`).
        code: i32,
        /// Its classification.
        kind: ErrorKind,
        /// The C function that failed, e.g. `"aclrtMalloc"`.
        function: &'static str,
        /// The runtime's own text (`aclGetRecentErrMsg`), or an empty string.
        message: String,
    },
    /// [`Acl::init`](crate::Acl::init) while another [`Acl`](crate::Acl) is alive.
    #[error("the ACL runtime is already initialised by a live `Acl` in this process")]
    AlreadyInitialized,
    /// A device id outside `0..count`.
    #[error("no device {id}: the runtime has {count} device(s)")]
    NoSuchDevice {
        /// The id asked for.
        id: u32,
        /// How many devices there are.
        count: u32,
    },
    /// The runtime runs in another mode than the one the code demanded.
    #[error("run mode mismatch: the code needs {expected:?} but the runtime reports {actual:?}")]
    WrongRunMode {
        /// The mode the code asked for.
        expected: crate::RunModeKind,
        /// The mode the runtime reports.
        actual: crate::RunModeKind,
    },
    /// Source and destination of a copy have different lengths.
    #[error("length mismatch: source has {src} element(s), destination has {dst}")]
    LengthMismatch {
        /// Elements in the source.
        src: usize,
        /// Elements in the destination.
        dst: usize,
    },
    /// An allocation of zero bytes, or one whose byte size overflows `usize`.
    #[error("invalid allocation size: {len} element(s) of {elem_size} byte(s)")]
    InvalidAllocationSize {
        /// Elements asked for.
        len: usize,
        /// Size of one element.
        elem_size: usize,
    },
    /// A range outside a buffer.
    #[error("range {start}..{end} is outside a buffer of {len} element(s)")]
    OutOfRange {
        /// Start of the range.
        start: usize,
        /// End of the range.
        end: usize,
        /// Length of the buffer.
        len: usize,
    },
    /// A chunk size of zero ([`DeviceBuffer::chunks`](crate::DeviceBuffer::chunks)
    /// and friends).
    #[error("chunk size must be at least 1")]
    ZeroChunkSize,
    /// Peer access from a device to itself, or a [`PeerAccess`](crate::PeerAccess)
    /// that does not go from the source's device to the destination's.
    #[error("peer access from device {from} to device {to}: {reason}")]
    PeerAccess {
        /// The device that accesses.
        from: u32,
        /// The device whose memory is accessed.
        to: u32,
        /// What is wrong.
        reason: &'static str,
    },
    /// The runtime returned memory not aligned for the element type (possible
    /// for `aclrtMallocHost` in device run mode, which does not promise 64 bytes).
    #[error("the runtime returned address {address:#x}, not aligned to {align} bytes")]
    Misaligned {
        /// The address returned.
        address: usize,
        /// The alignment the element type needs.
        align: usize,
    },
    /// A timeout value the runtime cannot express (more than `i32::MAX` ms, or zero).
    #[error("invalid timeout: {millis} ms (must be 1..=i32::MAX)")]
    InvalidTimeout {
        /// The timeout in milliseconds.
        millis: u128,
    },
    /// An explicit release (`Context::destroy`, `Device::reset`,
    /// `Acl::finalize`) refused because resources made through the parent
    /// are still alive: they were leaked (`mem::forget`, `Box::leak`, an `Rc`
    /// cycle) or their own release failed. Leaking is safe, but it keeps the
    /// parent alive: the C function was not called, so the runtime's
    /// release-order rule is never broken.
    #[error(
        "{function} was not called: {live} resource(s) made through this parent are still alive \
         (leaked, or their release failed); a leaked resource keeps its parent alive"
    )]
    LiveChildren {
        /// The release function that was not called.
        function: &'static str,
        /// How many resources made through the parent are still alive.
        live: usize,
    },
    /// A call that waits for the device (a synchronisation, a scope's end,
    /// [`InFlight::wait`](crate::InFlight::wait)) or opens a scope, made from
    /// inside a host function or callback running on the runtime's thread.
    /// It could wait for the very stream the callback runs on (a deadlock),
    /// so it is refused.
    #[error(
        "{operation} cannot be called from inside a host function or callback: it could wait \
         for the stream the callback is running on"
    )]
    InCallback {
        /// What was refused.
        operation: &'static str,
    },
    /// A scope did not finish within its deadline
    /// ([`Context::scope_with_timeout`](crate::Context::scope_with_timeout)).
    /// The scope's streams were aborted (or, where that failed, escalated as
    /// [`Escalation`] says) so that no borrowed memory is
    /// in use any more when this error is returned.
    #[error("a scope did not finish within {millis} ms; its streams were stopped by {escalation}")]
    ScopeTimeout {
        /// The deadline in milliseconds.
        millis: u128,
        /// The step that made the borrowed memory unused.
        escalation: Escalation,
    },
    /// Queued work was discarded: a stream it was queued on (or one it
    /// waited on) was aborted by a scope's deadline
    /// ([`Context::scope_with_timeout`](crate::Context::scope_with_timeout)).
    /// From a scope: results of its asynchronous work must not be trusted.
    /// From [`Stream::synchronize`](crate::Stream::synchronize): work queued
    /// on the stream outside scopes was lost (a wait, a host function,
    /// report callbacks). From an [`Event`](crate::Event)'s queries and
    /// synchronisations: the record it holds was discarded before it ran,
    /// so it will never complete (record the event again).
    #[error(
        "work was discarded: a stream it was queued on (or waited on) was aborted by a scope's \
         deadline"
    )]
    WorkAborted,
    /// A host function queued in a scope panicked
    /// ([`Lane::host_fn`](crate::Lane::host_fn),
    /// [`Lane::host_fn_with`](crate::Lane::host_fn_with)): data it was to
    /// write may be partly written. Every later checked wait of the scope
    /// reports it until [`Scope::recover`](crate::Scope::recover); the panic
    /// itself is resumed once, by `Scope::recover` or the scope's end.
    #[error("a host function of the scope panicked: data it wrote may be incomplete")]
    HostFnPanicked,
    /// A buffer in flight on one lane (or a shared buffer read on one lane)
    /// was used by work on another lane of the same brand — lanes made
    /// together by [`Scope::lanes`](crate::Scope::lanes) — without a
    /// hand-off. Nothing was queued. Hand it over first:
    /// `let s = lane_a.signal(x)?; let x = lane_b.wait_for(s)?;`.
    #[error(
        "a buffer in flight on the lane of stream {buffer:#x} was used on the lane of stream \
         {lane:#x} without a hand-off (nothing was queued): hand it over with \
         `lane_b.wait_for(lane_a.signal(x)?)?`"
    )]
    WrongLane {
        /// The stream of the lane the work was queued on (its address).
        lane: usize,
        /// The stream the buffer is in flight on (its address).
        buffer: usize,
    },
    /// A [`KernelRef`](crate::kernel::KernelRef) launched with a binary it
    /// was not looked up in ([`Lane::launch_in`](crate::Lane::launch_in)).
    /// Nothing was queued.
    #[error(
        "the kernel reference was looked up in another binary than the one given to the launch"
    )]
    ForeignKernel,
    /// This thread's kernel argument list is already being built: the
    /// runtime keeps one per thread (`aclrtKernelArgsInit` re-initialises
    /// it), so a launch or a [`KernelArgs`](crate::kernel::KernelArgs)
    /// builder waits until the live builder of this thread is dropped (a
    /// forgotten one blocks the thread's launches for good); also a
    /// [`Placeholder`](crate::kernel::Placeholder) of another list.
    #[error(
        "this thread's kernel argument list is in use by a live `KernelArgs` builder (the \
         runtime keeps one list per thread): drop it first, or launch from another thread"
    )]
    KernelArgsBusy,
    /// A kernel's `Count` argument is larger than the shortest buffer
    /// passed to the same launch; nothing was queued.
    #[error("kernel count {count} exceeds the length {len} of a buffer argument")]
    KernelCount {
        /// The count passed.
        count: usize,
        /// The shortest buffer's length in elements.
        len: usize,
    },
    /// A host function (`aclrtLaunchHostFunc`) queued on a stream that is
    /// subscribed to a [`Reporter`](crate::Reporter), or a subscription of a
    /// stream that ever had a host function: the real runtime binds a stream
    /// to one callback mechanism and refuses the other (107011). Use
    /// [`Subscription::launch_blocking`](crate::Subscription::launch_blocking)
    /// there, or another stream.
    #[error(
        "{operation} on a stream subscribed to a report thread: the two callback mechanisms \
         must not be mixed on one stream"
    )]
    CallbackMix {
        /// What was refused.
        operation: &'static str,
    },
    /// The operating system refused to spawn a thread the library needs
    /// (the [`Reporter`](crate::Reporter)'s).
    #[error("could not spawn {what}: {message}")]
    Spawn {
        /// The thread.
        what: &'static str,
        /// The operating system's message.
        message: String,
    },
    /// Host memory to register ([`Context::register_host`](crate::Context::register_host))
    /// does not start on a 4 KiB page boundary, as `aclrtHostRegister`
    /// requires. [`PageAlignedBuf`](crate::PageAlignedBuf) gives memory that does.
    #[error(
        "host memory at {address:#x} is not 4 KiB page-aligned ({offset} bytes past a page \
         boundary); aclrtHostRegister maps whole pages: use `aclrt::PageAlignedBuf`"
    )]
    NotPageAligned {
        /// The start address.
        address: usize,
        /// Bytes past the last page boundary.
        offset: usize,
    },
    /// [`Device::reset_force`](crate::Device::reset_force) while other
    /// `Device` handles of the same device are open: a forced reset releases
    /// the device for every holder, so it is only offered to the last one.
    #[error(
        "aclrtResetDeviceForce was not called: {others} other `Device` handle(s) of device {id} \
         are open; a forced reset releases the device for every holder, so only the last may \
         call it"
    )]
    DeviceInUse {
        /// The device.
        id: i32,
        /// Other open `Device` handles of it (or being opened).
        others: usize,
    },
    /// Opening a device ([`Runtime::device`](crate::Runtime::device)) while
    /// its last holder's [`Device::reset_force`](crate::Device::reset_force)
    /// is in flight: the forced reset would release the new handle's
    /// reference too. Not waited for (the reset waits for the device's
    /// tasks, which may be the caller); open it again once the reset has
    /// returned.
    #[error(
        "aclrtSetDevice was not called: a forced reset of device {id} (aclrtResetDeviceForce) \
         is in flight"
    )]
    DeviceResetting {
        /// The device.
        id: i32,
    },
    /// A lane of a scope waited for a notify
    /// ([`Lane::wait_notify`](crate::Lane::wait_notify)) that no record
    /// queued by the scope can end: the lane that was to record it failed
    /// first (the body returned or panicked before the record, the record
    /// failed, or it was queued behind the wait on the same lane). A
    /// synchronisation of that lane is refused with it (it could only
    /// hang); the scope's end and [`Scope::recover`](crate::Scope::recover)
    /// abort the scope's streams (as a deadline's escalation does) and
    /// report it: results of the scope's work must not be trusted.
    #[error(
        "a lane waited for a notify that the scope did not record ({waits} waits, {records} \
         records): the scope's streams were aborted so that the wait cannot hang"
    )]
    NotifyNotRecorded {
        /// Waits without a time limit the scope queued on the notify.
        waits: usize,
        /// Records the scope queued on it.
        records: usize,
    },
    /// [`Scope::notify`](crate::Scope::notify) was given a notify imported
    /// from, or exported to, another process: records and waits there are
    /// outside the scope's count, so the scope could neither tell a wait
    /// that no record will end nor keep one from hanging.
    #[error("a notify shared with another process cannot be a scope's hand-off")]
    NotifyShared,
}

impl Error {
    /// The classification of this error; Rust-side errors are `InvalidParam`,
    /// except [`Error::NoSuchDevice`] (`InvalidDevice`),
    /// [`Error::AlreadyInitialized`], [`Error::InCallback`], [`Error::KernelArgsBusy`]
    /// and [`Error::DeviceResetting`] (`Lifecycle`), [`Error::LiveChildren`] (`ReleaseFailed`), [`Error::ScopeTimeout`]
    /// (`Timeout`) and [`Error::Spawn`] (`ResourceExhausted`).
    pub fn kind(&self) -> ErrorKind {
        match self {
            Error::Acl { kind, .. } => *kind,
            Error::AlreadyInitialized => ErrorKind::Lifecycle,
            Error::NoSuchDevice { .. } => ErrorKind::InvalidDevice,
            Error::LiveChildren { .. } => ErrorKind::ReleaseFailed,
            Error::InCallback { .. } => ErrorKind::Lifecycle,
            Error::ScopeTimeout { .. } => ErrorKind::Timeout,
            Error::WorkAborted => ErrorKind::Aborted,
            Error::HostFnPanicked => ErrorKind::Internal,
            Error::KernelArgsBusy => ErrorKind::Lifecycle,
            Error::Spawn { .. } => ErrorKind::ResourceExhausted,
            Error::DeviceInUse { .. } => ErrorKind::ReleaseFailed,
            Error::DeviceResetting { .. } => ErrorKind::Lifecycle,
            Error::NotifyNotRecorded { .. } => ErrorKind::Aborted,
            _ => ErrorKind::InvalidParam,
        }
    }

    /// The ACL error code, for errors that come from the runtime.
    pub fn code(&self) -> Option<i32> {
        match self {
            Error::Acl { code, .. } => Some(*code),
            _ => None,
        }
    }

    /// The C function that failed, for errors that come from the runtime
    /// (for [`Error::LiveChildren`], the release function that was refused).
    ///
    /// For a fault of queued work reported by a synchronisation, this is the
    /// function that **queued the failing task** (`aclrtLaunchKernelWithConfig`,
    /// `aclrtMemcpyAsync`, ...) where the runtime's message says which
    /// (the simulator's does: "queued by ..."); otherwise, and for the
    /// synchronising call itself, see [`call`](Self::call).
    pub fn function(&self) -> Option<&'static str> {
        match self {
            Error::Acl {
                function, message, ..
            } => Some(task_function(message).unwrap_or(function)),
            Error::LiveChildren { function, .. } => Some(function),
            _ => None,
        }
    }

    /// The C function whose call returned the error (for a device fault,
    /// the synchronisation that reported it), for errors that come from the
    /// runtime.
    pub fn call(&self) -> Option<&'static str> {
        match self {
            Error::Acl { function, .. } => Some(function),
            Error::LiveChildren { function, .. } => Some(function),
            _ => None,
        }
    }

    /// Whether this is a timeout of a synchronisation.
    pub fn is_timeout(&self) -> bool {
        self.kind() == ErrorKind::Timeout
    }
}

/// The C functions that queue tasks on a stream: the names a fault's
/// message may give as the failing task's ("queued by NAME").
const QUEUEING_FUNCTIONS: &[&str] = &[
    "aclrtLaunchKernelWithConfig",
    "aclrtLaunchKernel",
    "aclrtMemcpyAsync",
    "aclrtMemcpy2dAsync",
    "aclrtMemsetAsync",
    "aclrtLaunchHostFunc",
    "aclrtLaunchCallback",
    "aclrtRecordEvent",
    "aclrtResetEvent",
    "aclrtStreamWaitEvent",
];

/// The function that queued the failing task, when `message` names one.
fn task_function(message: &str) -> Option<&'static str> {
    let (_, rest) = message.split_once("queued by ")?;
    let name = rest.split(|c: char| !c.is_ascii_alphanumeric()).next()?;
    QUEUEING_FUNCTIONS.iter().copied().find(|&f| f == name)
}

/// The runtime's message as `Display` shows it: without the function name
/// it repeats at its start (the message is `"aclrtMalloc: ..."`), and
/// nothing when it is empty.
fn display_message(function: &str, message: &str) -> String {
    let text = message
        .strip_prefix(function)
        .and_then(|m| m.strip_prefix(": "))
        .unwrap_or(message);
    if text.is_empty() {
        String::new()
    } else {
        format!(": {text}")
    }
}

/// A failed wait that gives its buffer back: the error of
/// [`InFlight::wait_or_keep`](crate::InFlight::wait_or_keep) and
/// [`Fence::wait_or_keep`](crate::Fence::wait_or_keep) — and of
/// [`Lane::launch_in_or_keep`](crate::Lane::launch_in_or_keep), whose item
/// is the launch's outputs.
///
/// The item is exactly what was waited for, still in flight on its lane:
/// take the buffer back whatever its work did (`reuse`: a checked wait of
/// work that faulted fails every time), wait again after another error, or
/// queue more work on it (e.g. a memset that clears the failed batch). `?`
/// turns it into an [`Error`] (dropping the item, which stays borrowed
/// until the scope ends).
pub struct WaitFailed<T> {
    error: Error,
    item: T,
}

impl<T> WaitFailed<T> {
    pub(crate) fn new(error: Error, item: T) -> Self {
        WaitFailed { error, item }
    }

    /// Why the wait failed.
    pub fn error(&self) -> &Error {
        &self.error
    }

    /// The item waited for, still in flight.
    pub fn into_item(self) -> T {
        self.item
    }

    /// The error and the item.
    pub fn into_parts(self) -> (Error, T) {
        (self.error, self.item)
    }
}

impl<T> core::fmt::Debug for WaitFailed<T> {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("WaitFailed")
            .field("error", &self.error)
            .finish_non_exhaustive()
    }
}

impl<T> core::fmt::Display for WaitFailed<T> {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        core::fmt::Display::fmt(&self.error, f)
    }
}

impl<T> std::error::Error for WaitFailed<T> {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        Some(&self.error)
    }
}

impl<T> From<WaitFailed<T>> for Error {
    fn from(failed: WaitFailed<T>) -> Error {
        failed.error
    }
}

/// How the end of a scope made the memory it borrowed unused when its
/// streams did not finish normally (a deadline passed, or synchronisation
/// kept failing). Carried by [`Error::ScopeTimeout`].
///
/// The scope only borrows its streams and device, so it cannot destroy or
/// reset them; and `aclrtDestroyStreamForce` would not help anyway: the
/// device may keep touching the memory of dropped tasks until a device
/// synchronisation (acl-facts F.9). The steps, in order:
/// 1. `aclrtStreamAbort` on **every** stream of the scope (streams waiting
///    on an aborted one may hang, so all are aborted): running tasks stop,
///    queued ones are discarded, and the call returns only when the stream is
///    idle.
/// 2. Where an abort fails (unsupported, or an error), an unbounded
///    `aclrtSynchronizeStream` of that stream: the deadline is missed, but
///    the memory is safe.
/// 3. Only if that fails three times too does the process abort (with a
///    message on stderr): returning would hand memory back to safe code
///    while the device may still write it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum Escalation {
    /// Every stream of the scope was aborted (`aclrtStreamAbort`).
    StreamAbort,
    /// At least one abort failed; those streams were synchronised without a
    /// time limit.
    UnboundedSynchronize,
    /// The runtime no longer knew the streams (their context or the runtime
    /// was torn down, e.g. by `sim::reset()`): nothing can run on them.
    StreamGone,
}

impl core::fmt::Display for Escalation {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.write_str(match self {
            Escalation::StreamAbort => "aborting every stream of the scope (aclrtStreamAbort)",
            Escalation::UnboundedSynchronize => {
                "an unbounded synchronisation (aclrtStreamAbort failed)"
            }
            Escalation::StreamGone => "nothing: the runtime no longer knew the streams",
        })
    }
}
