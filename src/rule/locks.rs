//! The crate's locks, their one order, and the debug-build check that no
//! user code runs while one of them is held.
//!
//! Every `Mutex` of the crate is taken through [`lock`], with its [`Rank`].
//! A thread takes locks in increasing rank only (never one whose rank is at
//! most the highest it holds), which rules out lock-order deadlocks among
//! them; and no user code — a host function, a report callback, a scope's
//! body, a foreign operator's closure, the `Drop` of a user closure or a
//! panic payload — is entered while the thread holds any of them (collect
//! under the lock, run after releasing it). In debug builds both rules are
//! checked at run time ([`lock`], [`user_code`]): a breach panics with the
//! names of the locks involved, so a test that reaches it fails. Release
//! builds compile the checks away ([`Held`] is then a plain `MutexGuard`).
//!
//! The order (lowest first; see `Rank` for what each guards):
//!
//! | rank | lock | where |
//! |-----:|------|-------|
//! | 10 | `Reporter` stop flag | `report.rs` (per reporter) |
//! | 12 | `REGISTERED`, the exception trampoline's registration | `ffi/exception.rs` |
//! | 13 | `HANDLERS`, the exception handlers | `ffi/exception.rs` |
//! | 14 | an exception handler's panic slot | `ffi/exception.rs` (per handler) |
//! | 16 | `IPC`, the IPC keys this process exported (a key is made and closed under it) | `rule/exports.rs` |
//! | 17 | `SHAREABLE`, the shareable handles this process exported (made under it) | `rule/exports.rs` |
//! | 20 | `SUBS`, the book of subscriptions | `ffi/report.rs` |
//! | 27 | `CALLBACKS`, launched report callbacks not run yet | `ffi/mix.rs` |
//! | 30 | a device's peer-access tokens | `device.rs` (per device) |
//! | 35 | `WATCHES`, awaited completions being watched | `ffi/completion.rs` |
//! | 40 | `OPEN`, the open-scope registry | `ffi/scope/open.rs` |
//! | 45 | the book of outside waits | `ffi/waits.rs` |
//! | 60 | `RECORDED` | `ffi/scope/open.rs` |
//! | 62 | `LATEST` | `ffi/scope/open.rs` |
//! | 70 | the live book | `ffi/live.rs` |
//! | 75 | `PENDING_STATIC`, unscoped host functions | `ffi/host_fn.rs` |
//! | 80 | `MANAGED`, live managed allocations | `ffi/register.rs` |
//! | 85 | a host-function slot's closure | `ffi/host_fn.rs` (per slot) |
//! | 86 | a host-function slot's panic | `ffi/host_fn.rs` (per slot) |
//! | 87 | a reporter's panic slot | `ffi/report.rs` (per reporter) |
//! | 88 | `LOG`, the failures seen | `ffi/faults.rs` |
//! | 89 | the overflow list of synchronisations in flight | `rule/fault_watch.rs` |
//! | 90 | `RECORDS`, one record per stream | `ffi/record.rs` |
//! | 91 | an awaited completion's wake slot | `rule/wake_slot.rs` (per wait) |
//! | 92 | an allocator's block pool (no runtime call under it) | `ffi/protocol/block_pool.rs` (per registration) |
//! | 93 | a reservation's map of mapped granules (a leaf: nothing is taken or called under it) | `vmm.rs` (per reservation) |
//! | 94 | a notify's book of the streams that waited for it (a leaf) | `notify.rs` (per notify) |
//! | 95 | `EVENT_KEYS`, the IPC event keys this process gave out (a leaf) | `rule/exports.rs` |
//!
//! Runtime calls are made under some of them (`aclrtSubscribeReport` under
//! `SUBS`, the exception trampoline's registration under `REGISTERED`, a stream wait under `OPEN` and the wait book, records under
//! `RECORDED`/`LATEST`); none of those calls runs user code. The two
//! runtime calls that do run user code on the calling thread,
//! `aclrtUnSubscribeReport` (queued report callbacks) and the scope's
//! closures, are made holding no crate lock.
#![deny(unsafe_code)]

use std::sync::{Condvar, Mutex, MutexGuard};

/// A lock's place in the crate's one lock order (see the module docs).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
#[repr(u8)]
pub(crate) enum Rank {
    ReporterStop = 10,
    ExcRegister = 12,
    ExcHandlers = 13,
    ExcPanic = 14,
    IpcExports = 16,
    ShareableExports = 17,
    Subs = 20,
    Callbacks = 27,
    PeerTokens = 30,
    Watches = 35,
    Open = 40,
    Waits = 45,
    Recorded = 60,
    Latest = 62,
    Live = 70,
    PendingStatic = 75,
    Managed = 80,
    SlotFn = 85,
    SlotPanic = 86,
    ReporterPanics = 87,
    Faults = 88,
    FaultWatch = 89,
    Streams = 90,
    WakeSlot = 91,
    BlockPool = 92,
    VmmMapped = 93,
    NotifyBook = 94,
    IpcEventKeys = 95,
}

#[cfg(debug_assertions)]
std::thread_local! {
    /// The ranks of the crate locks the calling thread holds, one bit each.
    static HELD: core::cell::Cell<u128> = const { core::cell::Cell::new(0) };
}

/// The ranks of the crate locks the calling thread holds (debug builds;
/// always 0 in release builds, and once the thread's locals are gone).
pub(crate) fn held() -> u128 {
    #[cfg(debug_assertions)]
    {
        HELD.try_with(|h| h.get()).unwrap_or(0)
    }
    #[cfg(not(debug_assertions))]
    {
        0
    }
}

/// The number of crate locks the calling thread holds (debug builds).
pub(crate) fn held_count() -> u32 {
    held().count_ones()
}

/// A held crate lock: a `MutexGuard` that, in debug builds, is counted in
/// the calling thread's [`held`] set while it lives.
pub(crate) struct Held<'a, T> {
    guard: MutexGuard<'a, T>,
    /// Leaves the thread's set when dropped (after the guard: fields drop
    /// in order).
    #[cfg(debug_assertions)]
    counted: Counted,
}

/// A rank in the calling thread's [`held`] set, taken out when dropped.
#[cfg(debug_assertions)]
struct Counted(Rank);

#[cfg(debug_assertions)]
impl Drop for Counted {
    #[inline]
    fn drop(&mut self) {
        let bit = 1u128 << (self.0 as u8);
        let _ = HELD.try_with(|h| h.set(h.get() & !bit));
    }
}

/// Take `m`, a crate lock of rank `rank` (poisoning is ignored: no crate
/// lock guards state that a panic can leave half-updated). In debug
/// builds, panics if the thread already holds a lock of the same or a
/// higher rank.
#[inline]
#[track_caller]
pub(crate) fn lock<T>(m: &Mutex<T>, rank: Rank) -> Held<'_, T> {
    #[cfg(debug_assertions)]
    enter(rank);
    #[cfg(not(debug_assertions))]
    let _ = rank;
    Held {
        guard: m.lock().unwrap_or_else(|e| e.into_inner()),
        #[cfg(debug_assertions)]
        counted: Counted(rank),
    }
}

#[cfg(debug_assertions)]
#[track_caller]
fn enter(rank: Rank) {
    let bit = 1u128 << (rank as u8);
    let _ = HELD.try_with(|h| {
        let now = h.get();
        // Every held rank must be below this one.
        if now >> (rank as u8) != 0 {
            h.set(0);
            panic!(
                "aclrt lock order: {rank:?} taken while holding a lock of equal or higher \
                 rank (held ranks: {})",
                ranks(now)
            );
        }
        h.set(now | bit);
    });
}

#[cfg(debug_assertions)]
fn ranks(set: u128) -> String {
    (0..128u32)
        .filter(|r| set & (1u128 << r) != 0)
        .map(|r| r.to_string())
        .collect::<Vec<_>>()
        .join(", ")
}

impl<T> Held<'_, T> {
    /// `Condvar::wait_timeout` on this lock (it stays counted: the thread
    /// is blocked meanwhile and runs nothing).
    pub(crate) fn wait_timeout(self, cv: &Condvar, timeout: core::time::Duration) -> Self {
        let Held {
            guard,
            #[cfg(debug_assertions)]
            counted,
        } = self;
        let guard = cv
            .wait_timeout(guard, timeout)
            .unwrap_or_else(|e| e.into_inner())
            .0;
        Held {
            guard,
            #[cfg(debug_assertions)]
            counted,
        }
    }

    /// `Condvar::wait` on this lock (see [`wait_timeout`](Self::wait_timeout)).
    pub(crate) fn wait(self, cv: &Condvar) -> Self {
        let Held {
            guard,
            #[cfg(debug_assertions)]
            counted,
        } = self;
        Held {
            guard: cv.wait(guard).unwrap_or_else(|e| e.into_inner()),
            #[cfg(debug_assertions)]
            counted,
        }
    }
}

impl<T> core::ops::Deref for Held<'_, T> {
    type Target = T;
    #[inline]
    fn deref(&self) -> &T {
        &self.guard
    }
}

impl<T> core::ops::DerefMut for Held<'_, T> {
    #[inline]
    fn deref_mut(&mut self) -> &mut T {
        &mut self.guard
    }
}

/// A deliberate breach for the tests of the check itself
/// (`aclrt::__lock_check`): while set, the unsubscription of a report
/// stream holds the subscription book's lock across
/// `aclrtUnSubscribeReport` (what the crate once did), so the
/// callbacks it runs enter user code with a crate lock held.
pub(crate) static BREAK_ON_PURPOSE: core::sync::atomic::AtomicBool =
    core::sync::atomic::AtomicBool::new(false);

/// For `aclrt::__lock_check::out_of_order_on_purpose`: two private
/// mutexes taken with the ranks of the live book, then of `SUBS`.
pub(crate) fn out_of_order_on_purpose() {
    static HIGH: Mutex<()> = Mutex::new(());
    static LOW: Mutex<()> = Mutex::new(());
    let _high = lock(&HIGH, Rank::Live);
    let _low = lock(&LOW, Rank::Subs);
}

/// User code (`what`) is about to be entered on this thread: in debug
/// builds, panics if the thread holds a crate lock. Called inside the
/// `catch_unwind` of the trampolines, so the panic reaches the user as
/// the callback's own panic would (resumed by `synchronize`/`stop`).
#[inline]
#[track_caller]
pub(crate) fn user_code(what: &'static str) {
    #[cfg(debug_assertions)]
    {
        let now = held();
        if now != 0 {
            panic!(
                "aclrt lock discipline: {what} entered while holding {} crate lock(s) \
                 (ranks: {})",
                now.count_ones(),
                ranks(now)
            );
        }
    }
    #[cfg(not(debug_assertions))]
    let _ = what;
}
