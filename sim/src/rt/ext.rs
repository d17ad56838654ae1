//! The state of the runtime's newer objects: notifies (and their export
//! keys), virtual-memory reservations and physical allocations (and their
//! shareable handles), IPC memory export keys, and the process's exception
//! callback. The object modules above
//! (`notify`, `vmm`, `ipc`, `callback`, `value`) implement their rules
//! on it; the runtime lock guards everything here except the exception
//! callback, which stream workers read (workers never take the runtime
//! lock).

use std::collections::{BTreeMap, BTreeSet};
use std::sync::atomic::{AtomicU32, Ordering};
use std::sync::{Arc, Condvar, Mutex, OnceLock};
use std::time::{Duration, Instant};

use crate::prim::{ExceptionHook, ExceptionInfo, HeapBlock, SharedWords};
use crate::sync::lock;

// ------------------------------------------------------------- notifies ---

/// Notify ids are per process and never reused.
static NEXT_NOTIFY_ID: AtomicU32 = AtomicU32::new(0);

/// The shared state of one notify: a one-bit flag on the device that a
/// record task sets and a wait task consumes (waits until set, then clears
/// it). Once exported (or when imported from another process) the flag
/// lives in a shared file instead ([`SharedWords`] word 0), where a record
/// in either process sets it; a wait then also looks at it every
/// millisecond (a record in another process wakes no waiter here).
pub(crate) struct NotifyShared {
    /// `aclrtGetNotifyId`.
    pub id: u32,
    /// The device it was created on.
    pub device: i32,
    set: Mutex<bool>,
    cv: Condvar,
    /// The shared flag, once the notify is shared between processes.
    shm: OnceLock<SharedWords>,
}

/// How a notify wait ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum NotifyWaitEnd {
    /// The notify was set (and is now reset).
    Set,
    /// The stream was aborted or torn down.
    Stopped,
    /// The timeout passed first.
    TimedOut,
}

/// The words of a notify's shared file: the flag, the device, the id.
const NOTIFY_FLAG: usize = 0;
const NOTIFY_DEVICE: usize = 1;
const NOTIFY_ID: usize = 2;

impl NotifyShared {
    pub(crate) fn new(device: i32) -> Arc<NotifyShared> {
        Arc::new(NotifyShared {
            id: NEXT_NOTIFY_ID.fetch_add(1, Ordering::Relaxed),
            device,
            set: Mutex::new(false),
            cv: Condvar::new(),
            shm: OnceLock::new(),
        })
    }

    /// The notify of another process, whose shared file `words` maps.
    pub(crate) fn imported(words: SharedWords) -> Arc<NotifyShared> {
        let device = words.word(NOTIFY_DEVICE).load(Ordering::SeqCst) as i32;
        let id = words.word(NOTIFY_ID).load(Ordering::SeqCst);
        let shm = OnceLock::new();
        let _ = shm.set(words);
        Arc::new(NotifyShared {
            id,
            device,
            set: Mutex::new(false),
            cv: Condvar::new(),
            shm,
        })
    }

    /// The export: the flag moves into the shared file `words` (a new,
    /// zero-filled one), which also names the device and the id. Once only
    /// (a notify exported again keeps its file).
    pub(crate) fn share(&self, words: SharedWords) {
        let mut set = lock(&self.set);
        if self.shm.get().is_some() {
            return;
        }
        words
            .word(NOTIFY_DEVICE)
            .store(self.device as u32, Ordering::SeqCst);
        words.word(NOTIFY_ID).store(self.id, Ordering::SeqCst);
        words
            .word(NOTIFY_FLAG)
            .store(u32::from(*set), Ordering::SeqCst);
        *set = false;
        let _ = self.shm.set(words);
    }

    /// Whether the flag lives in a shared file.
    pub(crate) fn is_shared(&self) -> bool {
        self.shm.get().is_some()
    }

    /// A record task executes: sets the flag and wakes the waiters.
    pub(crate) fn record(&self) {
        let mut set = lock(&self.set);
        match self.shm.get() {
            Some(w) => w.word(NOTIFY_FLAG).store(1, Ordering::SeqCst),
            None => *set = true,
        }
        drop(set);
        self.cv.notify_all();
    }

    /// Takes the flag if it is set (clearing it).
    fn take(&self, set: &mut bool) -> bool {
        match self.shm.get() {
            Some(w) => w
                .word(NOTIFY_FLAG)
                .compare_exchange(1, 0, Ordering::SeqCst, Ordering::SeqCst)
                .is_ok(),
            None => std::mem::take(set),
        }
    }

    /// A wait task executes: waits until the flag is set, then clears it;
    /// `stopped` is asked between slices of at most 50 ms (1 ms while the
    /// flag is shared with another process, which wakes nobody here).
    pub(crate) fn wait_and_reset(
        &self,
        stopped: &dyn Fn() -> bool,
        deadline: Option<Instant>,
    ) -> NotifyWaitEnd {
        let mut set = lock(&self.set);
        loop {
            if self.take(&mut set) {
                return NotifyWaitEnd::Set;
            }
            if stopped() {
                return NotifyWaitEnd::Stopped;
            }
            let now = Instant::now();
            if deadline.is_some_and(|d| now >= d) {
                return NotifyWaitEnd::TimedOut;
            }
            let slice = if self.is_shared() {
                Duration::from_millis(1)
            } else {
                Duration::from_millis(50)
            };
            let wait = deadline.map_or(slice, |d| (d - now).min(slice));
            set = self
                .cv
                .wait_timeout(set, wait)
                .unwrap_or_else(std::sync::PoisonError::into_inner)
                .0;
        }
    }
}

/// Registry entry of a notify handle.
pub(crate) struct NotifyRec {
    pub shared: Arc<NotifyShared>,
    /// The export key when it came from `aclrtNotifyImportByKey`.
    pub imported: Option<String>,
}

/// An exported notify (`aclrtNotifyGetExportKey`).
pub(crate) struct NotifyExport {
    pub shared: Arc<NotifyShared>,
    /// The exporting handle.
    pub owner: usize,
    /// `aclrtNotifySetImportPid`'s trustlist.
    pub pids: BTreeSet<i32>,
    /// Exported with the flag that disables the trustlist.
    pub any_pid: bool,
}

// --------------------------------------------------------- virtual memory ---

/// A reserved virtual address range (`aclrtReserveMemAddress`); its own
/// block holds the bytes of whatever is mapped into it.
pub(crate) struct Reservation {
    pub block: Arc<HeapBlock>,
    pub size: usize,
    /// The device of the context current at the reservation.
    pub device: i32,
    /// Mappings by start address: (size, physical handle, offset).
    pub maps: BTreeMap<usize, (usize, usize, usize)>,
}

/// A physical allocation (`aclrtMallocPhysical`, or an import of a
/// shareable handle): its bytes while unmapped.
pub(crate) struct Physical {
    pub store: Arc<HeapBlock>,
    pub size: usize,
    pub device: i32,
    /// Bytes charged to the device (0 for an import).
    pub charged: u64,
    /// The granularity of its page type (mappings are multiples of it).
    pub granularity: usize,
    /// Live mappings of it.
    pub mapped: u32,
    /// The shareable handle it was exported as.
    pub shareable: Option<u64>,
    /// The handle it was imported from (an import shares the exporter's
    /// store).
    pub imported_from: Option<u64>,
}

/// An exported physical allocation (`aclrtMemExportToShareableHandle`).
pub(crate) struct Shareable {
    /// Its shared file (`aclsim_vmm_<pid>_<n>`), which holds the bytes.
    pub name: String,
    pub store: Arc<HeapBlock>,
    /// Whether `store` is the shared file's mapping (where the platform has
    /// no shared mapping, the handle serves this process only).
    pub in_file: bool,
    pub size: usize,
    pub device: i32,
    pub granularity: usize,
    pub pids: BTreeSet<i32>,
    pub any_pid: bool,
}

/// `aclrtMemSetAccess` of a mapping: (location type, location id, flags).
pub(crate) type AccessDesc = (u32, u32, u64);

// ------------------------------------------------------------ IPC memory ---

/// Memory exported by key (`aclrtIpcMemGetExportKey`).
pub(crate) struct IpcExport {
    pub addr: usize,
    pub pids: BTreeSet<i32>,
    pub any_pid: bool,
    /// Addresses this process imported it at (closed by `aclrtIpcMemClose`).
    pub imports: u32,
}

/// A label (`aclrtCreateLabel`).
pub(crate) struct LabelRec {
    /// The context current at its creation.
    pub ctx: usize,
    /// The device address of its slot in a label list, once a list holds it.
    pub list: Option<usize>,
}

/// Everything above, in the runtime's state.
#[derive(Default)]
pub(crate) struct ExtState {
    pub notifies: BTreeMap<usize, NotifyRec>,
    pub labels: BTreeMap<usize, LabelRec>,
    pub notify_keys: BTreeMap<String, NotifyExport>,
    pub reservations: BTreeMap<usize, Reservation>,
    pub physical: BTreeMap<usize, Physical>,
    pub shareable: BTreeMap<u64, Shareable>,
    pub access: BTreeMap<usize, AccessDesc>,
    pub ipc_mem: BTreeMap<String, IpcExport>,
    /// Imported IPC addresses: address -> key.
    pub ipc_imports: BTreeMap<usize, String>,
    /// Blocks whose addresses IPC memory occupies (an exporter's original
    /// block, an importer's placeholder): kept so no allocation reuses them.
    pub ipc_kept: Vec<Arc<HeapBlock>>,
    /// Streams subscribed with `aclrtSubscribeHostFunc` (their host
    /// functions are served by the subscribed thread).
    pub host_func_streams: BTreeSet<usize>,
}

// ---------------------------------------------------- exception callback ---

/// The process's exception callbacks, read by stream workers when a task
/// fails: the one of `aclrtSetExceptionInfoCallback` (the ACL module's
/// registration), then those of `aclrtExceptionInfoCallbackRegister` (one
/// registration per callback).
static EXCEPTION_HOOKS: Mutex<(Option<ExceptionHook>, Vec<ExceptionHook>)> =
    Mutex::new((None, Vec::new()));

/// Sets (or clears) the ACL module's exception callback.
pub(crate) fn set_exception_hook(hook: Option<ExceptionHook>) {
    lock(&EXCEPTION_HOOKS).0 = hook;
}

/// Registers (`true`) or unregisters a callback under its own name.
pub(crate) fn register_exception_hook(hook: ExceptionHook, on: bool) {
    let mut hooks = lock(&EXCEPTION_HOOKS);
    hooks.1.retain(|h| !h.same(hook));
    if on {
        hooks.1.push(hook);
    }
}

/// The exception callbacks in force.
fn exception_hooks() -> Vec<ExceptionHook> {
    let hooks = lock(&EXCEPTION_HOOKS);
    hooks.0.iter().chain(hooks.1.iter()).copied().collect()
}

/// A task failed on a stream worker: calls the exception callback (if one
/// is set) with the failure's facts, outside every lock.
pub(crate) fn task_failed(device: i32, stream_id: u64, seq: u64, code: i32) {
    let hooks = exception_hooks();
    if hooks.is_empty() {
        return;
    }
    let info = ExceptionInfo {
        task_id: seq as u32,
        stream_id: stream_id as u32,
        thread_id: crate::prim::os_thread_id() as u32,
        device_id: device as u32,
        error_code: code as u32,
    };
    for hook in hooks {
        crate::sync::as_callback(|| hook.call(info));
    }
}

/// Blocks of reservations and physical allocations alive at a teardown:
/// never released, like the allocation table's torn-down blocks (an
/// address of a reservation may still be in the application's hands, and
/// no later allocation may reuse it).
static TORN_DOWN: Mutex<Vec<Arc<HeapBlock>>> = Mutex::new(Vec::new());

/// Keeps the blocks of a torn-down state (see [`TORN_DOWN`]).
pub(crate) fn keep_torn_down(state: ExtState) {
    for key in state.ipc_mem.keys().chain(state.notify_keys.keys()) {
        crate::shared_files::remove_shared(key);
    }
    for s in state.shareable.values() {
        crate::shared_files::remove_shared(&s.name);
    }
    let mut kept = lock(&TORN_DOWN);
    kept.extend(state.reservations.into_values().map(|r| r.block));
    kept.extend(state.physical.into_values().map(|p| p.store));
    kept.extend(state.ipc_kept);
}
