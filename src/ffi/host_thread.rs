//! Host-function threads (`aclrtSubscribeHostFunc`, `aclrtProcessHostFunc`,
//! `aclrtUnSubscribeHostFunc`): one safe function per C call. The typed
//! layer ([`crate::host_thread`]) decides who may call them and when.

use core::cell::{Cell, RefCell};

use aclrt_sys as sys;

use super::{Raw, check};
use crate::error::{ErrorKind, Result};

std::thread_local! {
    /// The streams the calling thread serves (innermost last).
    static SERVING: RefCell<Vec<Raw>> = const { RefCell::new(Vec::new()) };
    /// Whether `SERVING` holds anything: the check every blocking
    /// synchronisation makes is one load of a thread-local without a
    /// destructor.
    static SERVES: Cell<bool> = const { Cell::new(false) };
}

/// The calling thread starts serving `stream`; `false` (nothing recorded)
/// once the thread's locals are destroyed (a thread-local destructor runs).
pub(crate) fn serving_begin(stream: Raw) -> bool {
    let pushed = SERVING.try_with(|s| s.borrow_mut().push(stream)).is_ok();
    if pushed {
        let _ = SERVES.try_with(|f| f.set(true));
    }
    pushed
}

/// The calling thread no longer serves `stream` (its innermost entry).
pub(crate) fn serving_end(stream: Raw) {
    let _ = SERVING.try_with(|s| {
        let mut s = s.borrow_mut();
        if let Some(i) = s.iter().rposition(|r| *r == stream) {
            s.remove(i);
        }
        let _ = SERVES.try_with(|f| f.set(!s.is_empty()));
    });
}

/// Whether the calling thread serves `stream`.
pub(crate) fn serves(stream: Raw) -> bool {
    SERVING
        .try_with(|s| s.borrow().contains(&stream))
        .unwrap_or(false)
}

/// Whether the calling thread serves any stream's host functions.
#[inline]
pub(crate) fn serves_any() -> bool {
    SERVES.try_with(Cell::get).unwrap_or(false)
}

/// Before a blocking wait: on a thread that serves host functions, runs
/// them ([`process_host_func`], so under no crate lock: the callers wait
/// for the device, which they never do holding one) while `pending` says
/// the awaited work has not finished. The wait may depend on a host
/// function only this thread can run (the awaited stream, directly or
/// through an event, waits for a served one): it would never end.
#[inline]
pub(crate) fn serve_while(pending: impl FnMut() -> bool) {
    if serves_any() {
        serve_while_serving(pending);
    }
}

#[cold]
#[inline(never)]
fn serve_while_serving(mut pending: impl FnMut() -> bool) {
    while pending() {
        match process_host_func(1) {
            Ok(()) => {}
            Err(e) if e.kind() == ErrorKind::Timeout => {}
            Err(_) => return,
        }
    }
}

/// The id the runtime knows the calling thread by: its `pthread_t`, which
/// the runtime's documentation has the program pass to the subscription.
pub(crate) fn this_thread_id() -> u64 {
    unsafe extern "C" {
        // SAFETY (of the declaration): POSIX `pthread_t pthread_self(void)`;
        // `RawPthread` is std's name for `pthread_t` on this target. It
        // takes no arguments, has no preconditions and cannot fail.
        safe fn pthread_self() -> std::os::unix::thread::RawPthread;
    }
    // `pthread_t` is `u64` on Linux but an integer of another width on
    // other Unix systems; the runtime takes it as `uint64_t`.
    #[allow(clippy::unnecessary_cast)]
    let id = pthread_self() as u64;
    id
}

/// `aclrtSubscribeHostFunc(tid, stream)`: host functions launched on
/// `stream` from now on run on the thread `tid` when it calls
/// [`process_host_func`].
pub(crate) fn subscribe_host_func(tid: u64, stream: Raw) -> Result<()> {
    // SAFETY: `stream` is live (module invariant); `tid` is a plain integer.
    let code = unsafe { sys::aclrtSubscribeHostFunc(tid, stream.as_ptr()) };
    check(code, "aclrtSubscribeHostFunc")
}

/// `aclrtProcessHostFunc(timeout_ms)`: runs at most one host function of a
/// stream subscribed to the calling thread, waiting up to `timeout_ms`
/// (−1: for ever). User code runs inside (the crate's trampoline, which
/// catches its panic): the caller holds no crate lock.
pub(crate) fn process_host_func(timeout_ms: i32) -> Result<()> {
    super::locks::user_code("aclrtProcessHostFunc (host functions)");
    // SAFETY: no pointer arguments; the host functions it runs are the
    // crate's trampoline with slots kept alive by their owners (see
    // `host_fn::enqueue`'s contract).
    let code = unsafe { sys::aclrtProcessHostFunc(timeout_ms) };
    check(code, "aclrtProcessHostFunc")
}

/// `aclrtUnSubscribeHostFunc(tid, stream)`: host functions of `stream`
/// still queued run inside it, on the calling thread (user code: the
/// caller holds no crate lock).
pub(crate) fn unsubscribe_host_func(tid: u64, stream: Raw) -> Result<()> {
    super::locks::user_code("aclrtUnSubscribeHostFunc (host functions still queued)");
    // SAFETY: `stream` is live (module invariant); `tid` is a plain integer;
    // the host functions it may run are as in `process_host_func`.
    let code = unsafe { sys::aclrtUnSubscribeHostFunc(tid, stream.as_ptr()) };
    check(code, "aclrtUnSubscribeHostFunc")
}
