//! The private FFI boundary: the only place in this crate with `unsafe` code.
//!
//! Everything above this module is safe Rust that encodes the rules of the
//! AscendCL runtime in types and lifetimes; the crate root denies
//! `unsafe_code` everywhere but here, so the compiler checks that. This
//! module turns each C call into a safe `pub(crate)` function returning
//! [`Result`], and owns the types whose invariants make the pointer-taking
//! calls sound:
//! * [`mem`]: owned runtime allocations and borrowed byte regions
//!   ([`Mem`]/[`MemMut`]), for the synchronous copies and fills;
//! * [`scope`]: the core of leak-safe asynchronous work (a scope that
//!   always synchronises before its borrows end, lanes, parked exclusive
//!   borrows), with its soundness argument;
//! * [`host_fn`]: host functions, their trampoline and the slots the runtime
//!   is given;
//! * [`pinned`]: `PinnedSlice` and the casts from `[T]` to it;
//! * [`access`]: the sealed traits through which memory types hand their
//!   bytes to the runtime;
//! * [`live`]: the book of live resources (no `unsafe`; it decides which
//!   releases may be attempted);
//! * [`record`]: one record per stream (its context, the context
//!   synchronisations using it, the callback mechanism it used, an outside
//!   abort not reported yet), made and released with the stream, and
//!   [`released`], what every path that releases a stream forgets (no
//!   `unsafe`);
//! * [`mix`]: the callback-mechanism rule over the records, and the report
//!   callbacks not run yet (no `unsafe`);
//! * [`locks`]: the crate's one lock order and the debug-build check of
//!   the lock discipline.
//!
//! # Locks
//! Every `Mutex` of the crate is taken through [`locks::lock`] with its
//! rank; the one lock table is the module docs of [`locks`].
//! A thread only takes a lock of a higher rank than every lock it holds.
//!
//! No user code runs while a crate lock is held: host functions, report
//! callbacks, a scope's body, a foreign operator's closure and the drops of
//! user closures and panic payloads are entered holding none (collect under
//! the lock, run after releasing it). The one runtime call that runs user
//! code on the calling thread, `aclrtUnSubscribeReport` (queued report
//! callbacks), is made holding no crate lock ([`report`]: the entry is
//! marked as being undone under `SUBS`, and a destruction of its stream
//! waits for it). Debug builds check both rules at run time
//! ([`locks::lock`] panics on an out-of-order lock, [`locks::user_code`] on
//! user code entered with a lock held); `tests/lock_discipline/trusted_base.rs` shows the
//! check firing when the discipline is broken on purpose.
//!
//! # Invariants the typed layer upholds for this module
//! * Every [`Raw`] handle passed to a function here was returned by the
//!   runtime (or is the documented NULL default stream) and has not been
//!   destroyed: the lifetimes of `Context`, `Stream` and `Event` guarantee it.
//!   Where a handle must outlive the call (a lane's stream, an event a
//!   stream waits for), the function takes its owner borrowed for that long
//!   ([`HandleOwner`]).
//! * Memory is only reached through [`Mem`]/[`MemMut`], which can only be made
//!   from a live Rust slice or a live runtime allocation owned by this module,
//!   and which borrow it for as long as they exist; asynchronous work reaches
//!   it only through the typed borrows of [`scope`].

use core::ffi::{CStr, c_void};
use core::ptr::NonNull;

use aclrt_sys as sys;

use crate::error::{Error, ErrorKind, Result};

pub(crate) mod access;
pub(crate) mod allocator;
pub(crate) mod base;
pub(crate) mod completion;
pub(crate) mod device_info;
pub(crate) mod exception;
pub(crate) mod faults;
pub(crate) mod host_fn;
#[cfg(unix)]
pub(crate) mod host_thread;
pub(crate) mod ipc;
pub(crate) mod ipc_event;
pub(crate) mod kernel;
mod kernel_unsafe;
pub(crate) mod live;
pub(crate) mod mem;
pub(crate) mod mix;
pub(crate) mod notify;
pub(crate) mod overflow;
mod pinned;
pub(crate) mod protocol;
pub(crate) mod record;
pub(crate) mod register;
pub(crate) mod released;
#[cfg(unix)]
pub(crate) mod report;
pub(crate) mod scope;
pub(crate) mod stream_config;
pub(crate) mod stream_ext;
pub(crate) mod value;
pub(crate) mod vmm;
pub(crate) mod waits;
/// The crate's one lock order, beside the basement (`crate::rule`).
pub(crate) use crate::rule::locks;
pub(crate) use mem::{DeviceAlloc, HostAlloc, Mem, MemMut, Region};
pub use pinned::PinnedSlice;
pub(crate) use pinned::{pinned_slice, pinned_slice_mut};

/// A non-null runtime handle (`aclrtContext`, `aclrtStream`, `aclrtEvent`).
///
/// A plain identifier: copying it copies no ownership; the typed layer owns
/// the resource and decides, by lifetimes, how long the handle may be used.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub(crate) struct Raw(NonNull<c_void>);

// SAFETY: a runtime handle is an opaque identifier that the AscendCL runtime
// accepts from any thread (its entry points are thread-safe and contexts may
// be used from several threads, acl-facts 5.3); this type gives no access to
// memory behind it.
unsafe impl Send for Raw {}
// SAFETY: see `Send`; `&Raw` only allows copying the identifier.
unsafe impl Sync for Raw {}

/// An owner of a runtime handle (`Stream`, `Event`): the handle stays valid
/// (not destroyed) for as long as the owner is borrowed.
///
/// Its implementations uphold that by construction: the owner destroys the
/// handle only in its `Drop` or in a `destroy(self)` that consumes it, and
/// never hands out a handle it does not own.
pub(crate) trait HandleOwner {
    /// The handle.
    fn handle(&self) -> Raw;
}

impl Raw {
    /// The C handle.
    #[inline]
    pub(crate) fn as_ptr(self) -> *mut c_void {
        self.0.as_ptr()
    }

    fn new(ptr: *mut c_void) -> Option<Raw> {
        NonNull::new(ptr).map(Raw)
    }

    /// A handle the typed layer stored earlier and knows to be non-null.
    pub(crate) fn from_live(ptr: *mut c_void) -> Raw {
        Raw(NonNull::new(ptr).expect("a live handle is never null"))
    }
}

std::thread_local! {
    /// The text `aclGetRecentErrMsg` returned last on this thread.
    static SEEN_MESSAGE: core::cell::RefCell<String> = const { core::cell::RefCell::new(String::new()) };
}

/// The text of the calling thread's failures since the last call here.
/// `aclGetRecentErrMsg` does not clear its text when read: it returns the
/// same text again until a new failure's message is put in front of it
/// (followed by a newline), so the part already seen is cut off here.
pub(crate) fn recent_error_message() -> String {
    // SAFETY: `aclGetRecentErrMsg` takes no arguments and has no
    // preconditions; it may be called at any time, even before `aclInit`.
    let ptr = unsafe { sys::aclGetRecentErrMsg() };
    if ptr.is_null() {
        return String::new();
    }
    // SAFETY: a non-null return is a NUL-terminated string that stays valid
    // until the next `aclGetRecentErrMsg` call on this thread; it is copied out
    // here before any other call can be made.
    let text = unsafe { CStr::from_ptr(ptr) }
        .to_string_lossy()
        .into_owned();
    SEEN_MESSAGE
        .try_with(|seen| {
            let mut seen = seen.borrow_mut();
            let new = if *seen == text {
                String::new()
            } else {
                match text.strip_suffix(seen.as_str()) {
                    Some(head) if !seen.is_empty() && head.ends_with('\n') => {
                        head[..head.len() - 1].to_owned()
                    }
                    _ => text.clone(),
                }
            };
            *seen = text.clone();
            new
        })
        .unwrap_or(text)
}

/// Turn an `aclError` into a `Result`, capturing the runtime's message.
#[inline]
pub(crate) fn check(code: sys::aclError, function: &'static str) -> Result<()> {
    if code == sys::ACL_SUCCESS {
        Ok(())
    } else {
        Err(acl_error(code, function))
    }
}

#[cold]
#[inline(never)]
pub(crate) fn acl_error(code: sys::aclError, function: &'static str) -> Error {
    Error::Acl {
        code,
        kind: ErrorKind::from_code(code),
        function,
        message: recent_error_message(),
    }
}

/// A timeout as the runtime's `int32_t` milliseconds (`1..=i32::MAX`), or
/// [`Error::InvalidTimeout`].
pub(crate) fn timeout_ms(timeout: core::time::Duration) -> Result<i32> {
    let millis = timeout.as_millis();
    match i32::try_from(millis) {
        Ok(ms) if ms > 0 => Ok(ms),
        _ => Err(Error::InvalidTimeout { millis }),
    }
}

#[inline]
fn raw(ptr: *mut c_void, function: &'static str) -> Result<Raw> {
    match Raw::new(ptr) {
        Some(raw) => Ok(raw),
        None => Err(null_handle(function)),
    }
}

/// The error of a null handle returned with success (off the hot path).
#[cold]
#[inline(never)]
fn null_handle(function: &'static str) -> Error {
    Error::Acl {
        code: sys::ACL_ERROR_INTERNAL_ERROR,
        kind: ErrorKind::Internal,
        function,
        message: "the runtime reported success but returned a null handle".into(),
    }
}

// ---------------------------------------------------------------- process

/// `aclInit(NULL)`; `Ok(true)` when the runtime was already initialised by
/// someone else (100002, which the documentation says to ignore).
pub(crate) fn init() -> Result<bool> {
    invalidate_current_contexts();
    // SAFETY: NULL is the documented "no configuration file" argument.
    let code = unsafe { sys::aclInit(core::ptr::null()) };
    if code == sys::ACL_ERROR_REPEAT_INITIALIZE {
        let _ = recent_error_message();
        return Ok(true);
    }
    check(code, "aclInit")?;
    live::clear();
    waits::clear();
    faults::clear();
    register::clear_managed();
    Ok(false)
}

/// `aclInit(path)` with a JSON configuration file.
pub(crate) fn init_with_config(path: &CStr) -> Result<bool> {
    invalidate_current_contexts();
    // SAFETY: `path` is a valid NUL-terminated string for the whole call.
    let code = unsafe { sys::aclInit(path.as_ptr()) };
    if code == sys::ACL_ERROR_REPEAT_INITIALIZE {
        let _ = recent_error_message();
        return Ok(true);
    }
    check(code, "aclInit")?;
    live::clear();
    waits::clear();
    faults::clear();
    register::clear_managed();
    Ok(false)
}

/// `aclFinalize()`, unless something this crate made is still alive
/// ([`Error::LiveChildren`]; the runtime then stays initialised).
pub(crate) fn finalize() -> Result<()> {
    refuse_in_callback("aclFinalize")?;
    live::check_finalize()?;
    invalidate_current_contexts();
    // A forgotten future's watch no longer queries anything.
    completion::all_gone();
    // SAFETY: no arguments; the typed layer calls this once, after every
    // device handle (and so every resource) has been released.
    let code = unsafe { sys::aclFinalize() };
    check(code, "aclFinalize")?;
    waits::clear();
    faults::clear();
    Ok(())
}

/// `aclrtGetDeviceCount`.
pub(crate) fn device_count() -> Result<u32> {
    let mut count = 0u32;
    // SAFETY: `count` is a valid, writable u32 for the whole call.
    let code = unsafe { sys::aclrtGetDeviceCount(&mut count) };
    check(code, "aclrtGetDeviceCount")?;
    Ok(count)
}

/// `aclrtGetRunMode`: `true` for `ACL_HOST`, `false` for `ACL_DEVICE`.
pub(crate) fn run_mode_is_host() -> Result<bool> {
    let mut mode: sys::aclrtRunMode = sys::ACL_HOST;
    // SAFETY: `mode` is a valid, writable aclrtRunMode for the whole call.
    let code = unsafe { sys::aclrtGetRunMode(&mut mode) };
    check(code, "aclrtGetRunMode")?;
    Ok(mode == sys::ACL_HOST)
}

/// `aclrtGetSocName`; NULL (its documented failure) becomes an error with
/// `ACL_ERROR_FAILURE` and the runtime's message.
pub(crate) fn soc_name() -> Result<String> {
    // SAFETY: no arguments and no preconditions.
    let ptr = unsafe { sys::aclrtGetSocName() };
    if ptr.is_null() {
        return Err(acl_error(sys::ACL_ERROR_FAILURE, "aclrtGetSocName"));
    }
    // SAFETY: a non-null return is a NUL-terminated string owned by the
    // runtime that lives until finalize; it is copied out at once.
    Ok(unsafe { CStr::from_ptr(ptr) }
        .to_string_lossy()
        .into_owned())
}

/// `aclrtGetVersion`.
pub(crate) fn version() -> Result<(i32, i32, i32)> {
    let (mut a, mut b, mut c) = (0, 0, 0);
    // SAFETY: three valid, writable i32 for the whole call.
    let code = unsafe { sys::aclrtGetVersion(&mut a, &mut b, &mut c) };
    check(code, "aclrtGetVersion")?;
    Ok((a, b, c))
}

/// `aclrtSetOpWaitTimeout(secs)`: a wait task (an event wait) that waits
/// longer fails (107020); 0: no limit.
pub(crate) fn set_op_wait_timeout(secs: u32) -> Result<()> {
    // SAFETY: a plain integer argument.
    let code = unsafe { sys::aclrtSetOpWaitTimeout(secs) };
    check(code, "aclrtSetOpWaitTimeout")
}

/// `aclrtSetOpExecuteTimeOut(secs)`: a kernel running longer fails
/// (507014); 0: the chip's default.
pub(crate) fn set_op_execute_timeout(secs: u32) -> Result<()> {
    // SAFETY: a plain integer argument.
    let code = unsafe { sys::aclrtSetOpExecuteTimeOut(secs) };
    check(code, "aclrtSetOpExecuteTimeOut")
}

// ---------------------------------------------------------------- devices

/// `aclrtSetDevice(id)`: takes one reference on the device and makes its
/// default context current on the calling thread.
/// Refused while a forced reset of `id` is in flight
/// ([`Error::DeviceResetting`]).
pub(crate) fn set_device(id: i32) -> Result<()> {
    live::device_open_begin(id)?;
    invalidate_current_contexts();
    // SAFETY: plain integer argument; the runtime validates the id.
    let code = unsafe { sys::aclrtSetDevice(id) };
    let opened = check(code, "aclrtSetDevice");
    live::device_open_end(id, opened.is_ok());
    opened
}

/// `aclrtResetDevice(id)`: drops one reference, unless it is the last one
/// and something made on the device is still alive ([`Error::LiveChildren`]).
pub(crate) fn reset_device(id: i32) -> Result<()> {
    refuse_in_callback("aclrtResetDevice")?;
    // The contexts the reset releases, if it is the last reference.
    let gone = live::check_device_reset(id)?;
    for &(ctx, _) in &gone {
        // A forgotten future's watch no longer queries their streams.
        completion::handle_gone(ctx);
    }
    invalidate_current_contexts();
    // SAFETY: plain integer argument; the typed layer only resets devices it
    // set, after everything created through them is gone.
    let code = unsafe { sys::aclrtResetDevice(id) };
    check(code, "aclrtResetDevice")?;
    live::device_reset(id);
    for (_, default) in gone {
        released::context_released(default);
    }
    Ok(())
}

/// `aclrtDeviceCanAccessPeer`.
pub(crate) fn can_access_peer(device: i32, peer: i32) -> Result<bool> {
    let mut can = 0i32;
    // SAFETY: `can` is a valid, writable i32 for the whole call.
    let code = unsafe { sys::aclrtDeviceCanAccessPeer(&mut can, device, peer) };
    check(code, "aclrtDeviceCanAccessPeer")?;
    Ok(can == 1)
}

/// `aclrtDeviceEnablePeerAccess(peer, 0)` from the current device.
pub(crate) fn enable_peer_access(peer: i32) -> Result<()> {
    // SAFETY: plain integer arguments; flags must be 0.
    let code = unsafe { sys::aclrtDeviceEnablePeerAccess(peer, 0) };
    check(code, "aclrtDeviceEnablePeerAccess")
}

/// `aclrtDeviceDisablePeerAccess(peer)` from the current device.
pub(crate) fn disable_peer_access(peer: i32) -> Result<()> {
    // SAFETY: plain integer argument.
    let code = unsafe { sys::aclrtDeviceDisablePeerAccess(peer) };
    check(code, "aclrtDeviceDisablePeerAccess")
}

/// `aclrtGetMemInfo(attr)` on the current device: `(free, total)`.
pub(crate) fn mem_info(attr: sys::aclrtMemAttr) -> Result<(usize, usize)> {
    let (mut free, mut total) = (0usize, 0usize);
    // SAFETY: two valid, writable usize for the whole call.
    let code = unsafe { sys::aclrtGetMemInfo(attr, &mut free, &mut total) };
    check(code, "aclrtGetMemInfo")?;
    Ok((free, total))
}

/// `aclrtGetDevice`: the calling thread's current device.
pub(crate) fn current_device() -> Result<i32> {
    let mut id = 0i32;
    // SAFETY: `id` is a valid, writable i32 for the whole call.
    let code = unsafe { sys::aclrtGetDevice(&mut id) };
    check(code, "aclrtGetDevice")?;
    Ok(id)
}

// ---------------------------------------------------------------- contexts

/// `aclrtGetCurrentContext`; `None` when the thread has none (107002).
pub(crate) fn current_context() -> Result<Option<Raw>> {
    let mut ctx: sys::aclrtContext = core::ptr::null_mut();
    // SAFETY: `ctx` is a valid, writable handle slot for the whole call.
    let code = unsafe { sys::aclrtGetCurrentContext(&mut ctx) };
    if code == sys::ACL_ERROR_RT_CONTEXT_NULL {
        let _ = recent_error_message();
        return Ok(None);
    }
    check(code, "aclrtGetCurrentContext")?;
    Ok(Raw::new(ctx))
}

/// `aclrtSetCurrentContext(ctx)`.
pub(crate) fn set_current_context(ctx: Raw) -> Result<()> {
    // SAFETY: `ctx` is a live context (module invariant).
    let code = unsafe { sys::aclrtSetCurrentContext(ctx.as_ptr()) };
    check(code, "aclrtSetCurrentContext")
}

// ---------------------------------------------------------------- callbacks

std::thread_local! {
    /// How many host functions of this crate are running on this thread
    /// (the runtime's callback thread while one runs).
    static IN_CALLBACK: core::cell::Cell<u32> = const { core::cell::Cell::new(0) };
}

/// Marks the calling thread as running a host function until dropped.
pub(crate) struct CallbackMark(());

impl CallbackMark {
    pub(crate) fn enter() -> CallbackMark {
        IN_CALLBACK.with(|c| c.set(c.get() + 1));
        // The cached counter also says "not in a host function"
        // (`make_current_counted_refusing`).
        CURRENT.with(|c| {
            c.set(Current {
                counter: None,
                ..c.get()
            })
        });
        CallbackMark(())
    }
}

impl Drop for CallbackMark {
    fn drop(&mut self) {
        IN_CALLBACK.with(|c| c.set(c.get().saturating_sub(1)));
    }
}

/// Whether the calling thread is running a host function of this crate.
#[inline]
pub(crate) fn in_callback() -> bool {
    IN_CALLBACK.with(|c| c.get()) != 0
}

/// Refuse `operation` (a call that waits for the device, or opens a scope)
/// on a thread that is running a host function: it could wait for the very
/// stream the host function runs on, which never finishes while it waits.
#[inline]
pub(crate) fn refuse_in_callback(operation: &'static str) -> Result<()> {
    if IN_CALLBACK.with(|c| c.get()) == 0 {
        Ok(())
    } else {
        Err(Error::InCallback { operation })
    }
}

/// Bumped by every call that can change or invalidate some thread's current
/// context behind the per-thread cache below (device set/reset, context
/// create/destroy, init/finalize). A cache entry from an older epoch is
/// ignored.
static CONTEXT_EPOCH: core::sync::atomic::AtomicU64 = core::sync::atomic::AtomicU64::new(1);

/// What the calling thread's cache knows: the context this crate made
/// current on it, the epoch it did so in, and, once a stream create or
/// destroy asked, that context's live-children counter in the book.
///
/// `counter` is `Some` only while the thread is not running a host function
/// (it is cleared when one starts, and not set while one runs), so a hit
/// also answers [`refuse_in_callback`].
#[derive(Clone, Copy)]
struct Current {
    ctx: *mut c_void,
    epoch: u64,
    counter: Option<live::Counter>,
}

std::thread_local! {
    static CURRENT: core::cell::Cell<Current> = const {
        core::cell::Cell::new(Current {
            ctx: core::ptr::null_mut(),
            epoch: 0,
            counter: None,
        })
    };
}

/// Forget every thread's cached current context.
pub(crate) fn invalidate_current_contexts() {
    CONTEXT_EPOCH.fetch_add(1, core::sync::atomic::Ordering::AcqRel);
}

/// Make `ctx` current on the calling thread unless this crate already made
/// it current here (and nothing that could change that happened since):
/// keeps safe code from ever seeing error 107003 at the cost of a
/// thread-local read and an atomic load when nothing changed.
///
/// Only safe code is covered: `unsafe` raw calls that change the current
/// context must be followed by [`Context::make_current`](crate::Context::make_current).
#[inline]
pub(crate) fn make_current(ctx: Raw) -> Result<()> {
    let epoch = CONTEXT_EPOCH.load(core::sync::atomic::Ordering::Acquire);
    let c = CURRENT.with(|c| c.get());
    if (c.ctx, c.epoch) == (ctx.as_ptr(), epoch) {
        return Ok(());
    }
    make_current_slow(ctx, epoch)
}

/// [`make_current`] when the cache misses: out of line, so that the inlined
/// fast path is a load, a thread-local read and a compare.
#[cold]
#[inline(never)]
fn make_current_slow(ctx: Raw, epoch: u64) -> Result<()> {
    set_current_context(ctx)?;
    remember_current(ctx, epoch, None);
    Ok(())
}

fn remember_current(ctx: Raw, epoch: u64, counter: Option<live::Counter>) {
    CURRENT.with(|c| {
        c.set(Current {
            ctx: ctx.as_ptr(),
            epoch,
            counter,
        })
    });
}

/// [`make_current`], also returning `ctx`'s counter of live children in
/// the book ([`live::Counter`], for streams). Cached with the current
/// context: a stream create or destroy in a context already current on
/// this thread costs two thread-local reads, an atomic load and the
/// counter's atomic add, and takes no lock.
#[inline]
pub(crate) fn make_current_counted(ctx: Raw) -> Result<live::Counter> {
    match cached_counter(ctx) {
        Some(counter) => Ok(counter),
        None => make_current_counted_slow(ctx),
    }
}

/// [`make_current_counted`] for a release that may not run inside a host
/// function: `operation` is refused there ([`refuse_in_callback`]), which
/// a cache hit answers for free (see [`Current`]).
#[inline]
pub(crate) fn make_current_counted_refusing(
    ctx: Raw,
    operation: &'static str,
) -> Result<live::Counter> {
    match cached_counter(ctx) {
        Some(counter) => Ok(counter),
        None => {
            refuse_in_callback(operation)?;
            make_current_counted_slow(ctx)
        }
    }
}

/// The cached counter of `ctx`, if `ctx` is current on this thread (made so
/// by this crate in this epoch), the counter was looked up, and no host
/// function is running on this thread.
#[inline]
fn cached_counter(ctx: Raw) -> Option<live::Counter> {
    let epoch = CONTEXT_EPOCH.load(core::sync::atomic::Ordering::Acquire);
    let c = CURRENT.with(|c| c.get());
    if c.ctx != ctx.as_ptr() || c.epoch != epoch {
        return None;
    }
    c.counter
}

#[cold]
#[inline(never)]
fn make_current_counted_slow(ctx: Raw) -> Result<live::Counter> {
    let epoch = CONTEXT_EPOCH.load(core::sync::atomic::Ordering::Acquire);
    make_current(ctx)?;
    // Looked up after `epoch` was read: a change of the book that concerns
    // a context in use bumps the epoch (see `live::Counter`).
    let (counter, known) = live::counter(ctx);
    // Cached only outside host functions (see `Current`) and for contexts
    // the book knows.
    let in_callback = IN_CALLBACK.with(|c| c.get()) != 0;
    // `ctx` was current when `epoch` was read or was made current since.
    remember_current(ctx, epoch, (known && !in_callback).then_some(counter));
    Ok(counter)
}

/// Make `ctx` current unconditionally and remember it.
pub(crate) fn force_current(ctx: Raw) -> Result<()> {
    let epoch = CONTEXT_EPOCH.load(core::sync::atomic::Ordering::Acquire);
    set_current_context(ctx)?;
    remember_current(ctx, epoch, None);
    Ok(())
}

/// `aclrtCreateContext(&ctx, id)`; the new context becomes current.
pub(crate) fn create_context(device: i32) -> Result<Raw> {
    invalidate_current_contexts();
    let mut ctx: sys::aclrtContext = core::ptr::null_mut();
    // SAFETY: `ctx` is a valid, writable handle slot; the id is validated by
    // the runtime.
    let code = unsafe { sys::aclrtCreateContext(&mut ctx, device) };
    check(code, "aclrtCreateContext")?;
    let ctx = raw(ctx, "aclrtCreateContext")?;
    live::context_created(ctx, device);
    Ok(ctx)
}

/// `aclrtDestroyContext(ctx)`, unless something made in it is still alive
/// (leaked: [`Error::LiveChildren`]).
pub(crate) fn destroy_context(ctx: Raw) -> Result<()> {
    refuse_in_callback("aclrtDestroyContext")?;
    #[cfg(unix)]
    report::context_destroying(ctx);
    // Events whose destruction waits for a stream wait go first.
    waits::flush_context(ctx)?;
    live::check_context_destroy(ctx)?;
    let default = live::default_stream_of(ctx);
    // A forgotten future's watch no longer makes it current.
    completion::handle_gone(ctx);
    invalidate_current_contexts();
    // SAFETY: `ctx` is a live explicit context with no live children (the
    // typed layer's borrows and the check above guarantee both); it is not
    // used afterwards.
    let code = unsafe { sys::aclrtDestroyContext(ctx.as_ptr()) };
    check(code, "aclrtDestroyContext")?;
    live::context_destroyed(ctx);
    released::context_released(default);
    Ok(())
}

/// `aclrtCtxGetCurrentDefaultStream` for the current context.
pub(crate) fn current_default_stream() -> Result<Raw> {
    let mut stream: sys::aclrtStream = core::ptr::null_mut();
    // SAFETY: `stream` is a valid, writable handle slot for the whole call.
    let code = unsafe { sys::aclrtCtxGetCurrentDefaultStream(&mut stream) };
    check(code, "aclrtCtxGetCurrentDefaultStream")?;
    raw(stream, "aclrtCtxGetCurrentDefaultStream")
}

// ---------------------------------------------------------------- streams

/// `aclrtCreateStream` in context `owner`, made current first.
#[inline]
pub(crate) fn create_stream(owner: Raw) -> Result<Raw> {
    let counter = make_current_counted(owner)?;
    let mut stream: sys::aclrtStream = core::ptr::null_mut();
    // SAFETY: `stream` is a valid, writable handle slot for the whole call.
    let code = unsafe { sys::aclrtCreateStream(&mut stream) };
    check(code, "aclrtCreateStream")?;
    let stream = raw(stream, "aclrtCreateStream")?;
    counter.created();
    record::made(stream, owner);
    Ok(stream)
}

/// `aclrtCreateStreamWithConfig` in context `owner`, made current first.
pub(crate) fn create_stream_with_config(owner: Raw, priority: u32, flags: u32) -> Result<Raw> {
    let counter = make_current_counted(owner)?;
    let mut stream: sys::aclrtStream = core::ptr::null_mut();
    // SAFETY: `stream` is a valid, writable handle slot for the whole call.
    let code = unsafe { sys::aclrtCreateStreamWithConfig(&mut stream, priority, flags) };
    check(code, "aclrtCreateStreamWithConfig")?;
    let stream = raw(stream, "aclrtCreateStreamWithConfig")?;
    counter.created();
    record::made(stream, owner);
    Ok(stream)
}

/// `aclrtStreamGetPriority(stream)` (0 highest ..= 7 lowest).
pub(crate) fn stream_priority(stream: Raw) -> Result<u32> {
    let mut priority = 0u32;
    // SAFETY: `stream` is live (module invariant); `priority` is a valid,
    // writable u32 for the whole call.
    let code = unsafe { sys::aclrtStreamGetPriority(stream.as_ptr(), &mut priority) };
    check(code, "aclrtStreamGetPriority")?;
    Ok(priority)
}

/// `aclrtDeviceGetStreamPriorityRange`: (least, greatest).
pub(crate) fn stream_priority_range() -> Result<(i32, i32)> {
    let (mut least, mut greatest) = (0i32, 0i32);
    // SAFETY: both are valid, writable i32 slots for the whole call.
    let code = unsafe { sys::aclrtDeviceGetStreamPriorityRange(&mut least, &mut greatest) };
    check(code, "aclrtDeviceGetStreamPriorityRange")?;
    Ok((least, greatest))
}

/// Something a stream's destruction must settle is about to be made (a
/// report subscription, a stream wait outside a scope, an unscoped host
/// function): see [`released::hooks_on`]. Made on a borrowed stream, so
/// before the stream's destruction, which then reads it.
pub(crate) fn stream_hooks_on() {
    released::hooks_on();
}

/// `aclrtDestroyStream(stream)` with its context, `owner`, made current
/// first; then its unscoped host functions are settled (their panics
/// dropped: a destruction reports only its own error).
#[inline]
pub(crate) fn destroy_stream(stream: Raw, owner: Raw) -> Result<()> {
    let counter = make_current_counted_refusing(owner, "aclrtDestroyStream")?;
    let hooks = released::hooks();
    // A subscription a leaked `Subscription` left goes first.
    #[cfg(unix)]
    if hooks {
        report::stream_destroying(stream);
    }
    if hooks {
        // An escalation that is aborting it (for an outside wait) still
        // holds its handle: the handle is freed only after that.
        scope::wait_not_aborting(stream);
    }
    // A forgotten future's watch no longer queries it.
    completion::handle_gone(stream);
    // Its record goes, once no context synchronisation uses the handle.
    let rec = record::destroying(stream);
    // SAFETY: `stream` is a live explicit stream of the current context with
    // no borrowed buffers in flight; it is not used afterwards.
    let code = unsafe { sys::aclrtDestroyStream(stream.as_ptr()) };
    if let Err(e) = check(code, "aclrtDestroyStream") {
        // Still alive: its record comes back whole.
        record::restore(rec);
        return Err(e);
    }
    counter.released();
    // It waited for its queued work, stream waits and host functions
    // included: every book forgets it.
    released::stream_released(stream, false, hooks);
    Ok(())
}

/// `call` (a synchronisation or query of `stream`), made again once with
/// a context current if it found none (107002). The runtime needs *a*
/// current context for these (any one: it switches to the stream's for the
/// wait), and the thread has none after its current context was destroyed
/// or a device's last reset dropped its binding; then the stream's context
/// (if the crate made the stream), else a live context of the book, is
/// made current. A thread with a context keeps it, as before.
#[inline]
fn with_some_context(stream: Raw, mut call: impl FnMut() -> sys::aclError) -> sys::aclError {
    let code = call();
    if code != sys::ACL_ERROR_RT_CONTEXT_NULL {
        return code;
    }
    with_some_context_again(stream, code, &mut call)
}

/// [`with_some_context`] after its call found no current context.
#[cold]
#[inline(never)]
fn with_some_context_again(
    stream: Raw,
    code: sys::aclError,
    call: &mut dyn FnMut() -> sys::aclError,
) -> sys::aclError {
    if !matches!(current_context(), Ok(None)) {
        return code;
    }
    let Some(ctx) = record::context_of(stream).or_else(live::any_context) else {
        return code;
    };
    if force_current(ctx).is_err() {
        return code;
    }
    // The first call's message is not this call's.
    let _ = recent_error_message();
    call()
}

/// `aclrtSynchronizeStream(stream)`; a failure it reports is entered
/// in [`faults`], and the call is watched while it runs
/// ([`faults::begin`]).
#[inline]
pub(crate) fn synchronize_stream(stream: Raw) -> Result<()> {
    refuse_in_callback("aclrtSynchronizeStream")?;
    // A notify wait of a scope open on this thread that no record matched
    // yet: only this thread could queue the record.
    scope::refuse_pending_notify(stream)?;
    #[cfg(unix)]
    host_thread::serve_while(|| matches!(stream_query(stream), Ok(false)));
    let watch = faults::begin(faults::key(stream));
    let code = with_some_context(stream, || {
        // SAFETY: `stream` is live (module invariant).
        unsafe { sys::aclrtSynchronizeStream(stream.as_ptr()) }
    });
    if code == sys::ACL_SUCCESS {
        faults::end(watch);
        return Ok(());
    }
    sync_failed(code, "aclrtSynchronizeStream", faults::key(stream), watch)
}

/// `aclrtSynchronizeStreamWithTimeout(stream, ms)` (as [`synchronize_stream`]).
pub(crate) fn synchronize_stream_timeout(stream: Raw, ms: i32) -> Result<()> {
    refuse_in_callback("aclrtSynchronizeStreamWithTimeout")?;
    #[cfg(unix)]
    let Some(ms) = serve_within(stream, ms) else {
        // The time ran out while this thread served: a bounded wait that
        // gave up, judging no work (no C call: it would wait for a host
        // function only this thread runs).
        return Err(acl_error(
            sys::ACL_ERROR_RT_STREAM_SYNC_TIMEOUT,
            "aclrtSynchronizeStreamWithTimeout",
        ));
    };
    let watch = faults::begin(faults::key(stream));
    let code = with_some_context(stream, || {
        // SAFETY: `stream` is live (module invariant); `ms` is a plain
        // integer.
        unsafe { sys::aclrtSynchronizeStreamWithTimeout(stream.as_ptr(), ms) }
    });
    if code == sys::ACL_SUCCESS {
        faults::end(watch);
        return Ok(());
    }
    sync_failed(
        code,
        "aclrtSynchronizeStreamWithTimeout",
        faults::key(stream),
        watch,
    )
}

/// Before a bounded wait of `stream` for `ms`: on a thread that serves
/// host functions, runs them while the stream is busy and the time lasts
/// (as [`synchronize_stream`] does without a limit). The milliseconds left
/// for the wait itself; `None` if the time ran out with the stream busy.
#[cfg(unix)]
fn serve_within(stream: Raw, ms: i32) -> Option<i32> {
    if !host_thread::serves_any() {
        return Some(ms);
    }
    let t0 = std::time::Instant::now();
    let limit = core::time::Duration::from_millis(u64::from(ms.unsigned_abs()));
    let busy = || matches!(stream_query(stream), Ok(false));
    host_thread::serve_while(|| t0.elapsed() < limit && busy());
    match limit.checked_sub(t0.elapsed()) {
        Some(left) if !left.is_zero() => Some(i32::try_from(left.as_millis()).unwrap_or(ms).max(1)),
        _ if busy() => None,
        _ => Some(1),
    }
}

/// A synchronisation of `key` (`function`) failed with `code`: the error,
/// entered in [`faults`] whatever its code (but the timeout of a bounded
/// wait's own limit), before the watch ends.
#[cold]
#[inline(never)]
fn sync_failed(
    code: sys::aclError,
    function: &'static str,
    key: usize,
    watch: faults::Ticket,
) -> Result<()> {
    let error = acl_error(code, function);
    // A bounded wait that gave up judged no work: the one outcome that is
    // not a failure.
    let gave_up =
        code == sys::ACL_ERROR_RT_STREAM_SYNC_TIMEOUT && function.ends_with("WithTimeout");
    if !gave_up {
        faults::enter(key, &error);
    }
    faults::end(watch);
    Err(error)
}

/// `aclrtStreamAbort(stream)`: stop the running task, discard the queued
/// ones, and return when the stream is idle; `ctx` (the stream's context)
/// is made current first.
pub(crate) fn abort_stream(ctx: Raw, stream: Raw) -> Result<()> {
    make_current(ctx)?;
    #[cfg(unix)]
    if host_thread::serves_any() {
        return abort_stream_serving(ctx, stream);
    }
    abort_stream_here(stream)
}

/// `aclrtStreamAbort(stream)` on the calling thread, whose current context
/// is the stream's.
fn abort_stream_here(stream: Raw) -> Result<()> {
    // SAFETY: `stream` is a live explicit stream of the current context
    // (module invariant; the callers made it current); the call is
    // synchronous and takes no pointers.
    let code = unsafe { sys::aclrtStreamAbort(stream.as_ptr()) };
    check(code, "aclrtStreamAbort")
}

/// [`abort_stream`] on a thread that serves host functions: the abort
/// returns once the stream's running task ends, and that task may be a
/// host function only this thread runs. So the abort runs on a helper
/// thread, which this one joins, serving meanwhile.
#[cfg(unix)]
#[cold]
#[inline(never)]
fn abort_stream_serving(ctx: Raw, stream: Raw) -> Result<()> {
    std::thread::scope(|t| {
        // The stream stays live: this thread owns it for the call and
        // joins the helper before returning.
        let helper = t.spawn(move || {
            force_current(ctx)?;
            abort_stream_here(stream)
        });
        host_thread::serve_while(|| !helper.is_finished());
        helper
            .join()
            .unwrap_or_else(|p| std::panic::resume_unwind(p))
    })
}

/// `aclrtStreamQuery`: `true` when every queued task has finished; a
/// failure it reports is entered in [`faults`], unless it describes the
/// calling thread ([`describes_caller`]).
pub(crate) fn stream_is_complete(stream: Raw) -> Result<bool> {
    stream_query(stream).inspect_err(|e| {
        if !describes_caller(e) {
            // A failure of queued work a query reports is one too.
            faults::enter(faults::key(stream), e);
        }
    })
}

/// `aclrtStreamQuery`, judging nothing: its error is returned, not entered
/// (the completion service's queries, whose future's checked wait judges).
pub(crate) fn stream_query(stream: Raw) -> Result<bool> {
    let mut status: sys::aclrtStreamStatus = sys::ACL_STREAM_STATUS_RESERVED;
    let code = with_some_context(stream, || {
        // SAFETY: `stream` is live; `status` is a valid, writable slot for
        // the whole call.
        unsafe { sys::aclrtStreamQuery(stream.as_ptr(), &mut status) }
    });
    check(code, "aclrtStreamQuery")?;
    Ok(status == sys::ACL_STREAM_STATUS_COMPLETE)
}

/// Whether `e` describes the calling thread rather than the stream's work:
/// no current context (107002), another context current (107003), or a
/// wait refused on a thread that runs a host function.
pub(crate) fn describes_caller(e: &Error) -> bool {
    match e {
        Error::Acl { code, .. } => {
            *code == sys::ACL_ERROR_RT_CONTEXT_NULL || *code == sys::ACL_ERROR_RT_STREAM_CONTEXT
        }
        Error::InCallback { .. } => true,
        _ => false,
    }
}

/// `aclrtGetStreamAvailableNum` for the current device.
pub(crate) fn stream_available() -> Result<u32> {
    let mut n = 0u32;
    // SAFETY: `n` is a valid, writable u32 for the whole call.
    let code = unsafe { sys::aclrtGetStreamAvailableNum(&mut n) };
    check(code, "aclrtGetStreamAvailableNum")?;
    Ok(n)
}

// ---------------------------------------------------------------- events

/// `aclrtCreateEvent` in the current context, `owner` (flags SYNC-able and
/// timing).
pub(crate) fn create_event(owner: Raw) -> Result<Raw> {
    let mut ev: sys::aclrtEvent = core::ptr::null_mut();
    // SAFETY: `ev` is a valid, writable handle slot for the whole call.
    let code = unsafe { sys::aclrtCreateEvent(&mut ev) };
    check(code, "aclrtCreateEvent")?;
    let ev = raw(ev, "aclrtCreateEvent")?;
    live::child_created(ev.as_ptr() as usize, owner);
    Ok(ev)
}

/// `aclrtCreateEventWithFlag(flags)` in the current context, `owner`.
pub(crate) fn create_event_with_flag(owner: Raw, flags: u32) -> Result<Raw> {
    let mut ev: sys::aclrtEvent = core::ptr::null_mut();
    // SAFETY: `ev` is a valid, writable handle slot for the whole call.
    let code = unsafe { sys::aclrtCreateEventWithFlag(&mut ev, flags) };
    check(code, "aclrtCreateEventWithFlag")?;
    let ev = raw(ev, "aclrtCreateEventWithFlag")?;
    live::child_created(ev.as_ptr() as usize, owner);
    Ok(ev)
}

/// `aclrtCreateEventExWithFlag(flags)` in the current context, `owner`.
pub(crate) fn create_event_ex_with_flag(owner: Raw, flags: u32) -> Result<Raw> {
    let mut ev: sys::aclrtEvent = core::ptr::null_mut();
    // SAFETY: `ev` is a valid, writable handle slot for the whole call.
    let code = unsafe { sys::aclrtCreateEventExWithFlag(&mut ev, flags) };
    check(code, "aclrtCreateEventExWithFlag")?;
    let ev = raw(ev, "aclrtCreateEventExWithFlag")?;
    live::child_created(ev.as_ptr() as usize, owner);
    Ok(ev)
}

/// `aclrtDestroyEvent(ev)`.
pub(crate) fn destroy_event(ev: Raw) -> Result<()> {
    // A stream wait issued outside a scope may still depend on it: then the
    // synchronisation that retires that wait destroys it (`waits`).
    if waits::defer_destroy(ev) {
        return Ok(());
    }
    // From here on no scope's escalation may record it again.
    scope::event_destroyed(ev);
    // A forgotten future's watch no longer queries it.
    completion::handle_gone(ev);
    // SAFETY: `ev` is a live event no pending wait depends on (a scope
    // borrows it for its waits; waits outside scopes are in `waits`, checked
    // above); it is not used afterwards.
    let code = unsafe { sys::aclrtDestroyEvent(ev.as_ptr()) };
    check(code, "aclrtDestroyEvent")?;
    live::child_released(ev.as_ptr() as usize);
    Ok(())
}

/// `aclrtRecordEvent(ev, stream)`; the stream's context must be current.
#[inline]
pub(crate) fn record_event(ev: Raw, stream: Raw) -> Result<()> {
    // SAFETY: both handles are live (module invariant).
    let code = unsafe { sys::aclrtRecordEvent(ev.as_ptr(), stream.as_ptr()) };
    check(code, "aclrtRecordEvent")
}

/// `aclrtResetEvent(ev, stream)`; the stream's context must be current.
pub(crate) fn reset_event(ev: Raw, stream: Raw) -> Result<()> {
    // SAFETY: both handles are live; the event was made with
    // aclrtCreateEventWithFlag(ACL_EVENT_SYNC), where reset is defined.
    let code = unsafe { sys::aclrtResetEvent(ev.as_ptr(), stream.as_ptr()) };
    check(code, "aclrtResetEvent")
}

/// `aclrtSynchronizeEvent(ev)`.
#[inline]
pub(crate) fn synchronize_event(ev: Raw) -> Result<()> {
    refuse_in_callback("aclrtSynchronizeEvent")?;
    #[cfg(unix)]
    host_thread::serve_while(|| matches!(event_is_complete(ev), Ok(false)));
    // SAFETY: `ev` is live (module invariant).
    let code = unsafe { sys::aclrtSynchronizeEvent(ev.as_ptr()) };
    check(code, "aclrtSynchronizeEvent")
}

/// `aclrtSynchronizeEventWithTimeout(ev, ms)`.
pub(crate) fn synchronize_event_timeout(ev: Raw, ms: i32) -> Result<()> {
    refuse_in_callback("aclrtSynchronizeEventWithTimeout")?;
    // SAFETY: `ev` is live (module invariant); `ms` is a plain integer.
    let code = unsafe { sys::aclrtSynchronizeEventWithTimeout(ev.as_ptr(), ms) };
    check(code, "aclrtSynchronizeEventWithTimeout")
}

/// `aclrtQueryEventStatus(ev)`: `true` when the captured work is complete.
pub(crate) fn event_is_complete(ev: Raw) -> Result<bool> {
    let mut status: sys::aclrtEventRecordedStatus = sys::ACL_EVENT_RECORDED_STATUS_NOT_READY;
    // SAFETY: `ev` is live; `status` is a valid, writable slot.
    let code = unsafe { sys::aclrtQueryEventStatus(ev.as_ptr(), &mut status) };
    check(code, "aclrtQueryEventStatus")?;
    Ok(status == sys::ACL_EVENT_RECORDED_STATUS_COMPLETE)
}

/// `aclrtEventElapsedTime(start, end)` in milliseconds.
pub(crate) fn event_elapsed_ms(start: Raw, end: Raw) -> Result<f32> {
    let mut ms = 0f32;
    // SAFETY: both handles are live recorded events; `ms` is writable.
    let code = unsafe { sys::aclrtEventElapsedTime(&mut ms, start.as_ptr(), end.as_ptr()) };
    check(code, "aclrtEventElapsedTime")?;
    Ok(ms)
}

/// `aclrtEventGetTimestamp(ev)`: µs since the device booted.
pub(crate) fn event_timestamp_us(ev: Raw) -> Result<u64> {
    let mut us = 0u64;
    // SAFETY: `ev` is live (module invariant); `us` is a valid, writable
    // u64 for the whole call.
    let code = unsafe { sys::aclrtEventGetTimestamp(ev.as_ptr(), &mut us) };
    check(code, "aclrtEventGetTimestamp")?;
    Ok(us)
}

/// `aclrtQueryEventWaitStatus(ev)`: `true` when every wait issued on the
/// event has executed.
pub(crate) fn event_waits_complete(ev: Raw) -> Result<bool> {
    let mut status: sys::aclrtEventWaitStatus = sys::ACL_EVENT_WAIT_STATUS_RESERVED;
    // SAFETY: `ev` is live (module invariant); `status` is a valid,
    // writable slot of the C enum type for the whole call.
    let code = unsafe { sys::aclrtQueryEventWaitStatus(ev.as_ptr(), &mut status) };
    check(code, "aclrtQueryEventWaitStatus")?;
    Ok(status == sys::ACL_EVENT_WAIT_STATUS_COMPLETE)
}

/// `aclrtStreamWaitEvent(stream, ev)`; the stream's context must be current.
///
/// Crate contract: the event stays alive until `stream` has been
/// synchronised (the scope borrows it, or owns it, for that long).
pub(crate) fn stream_wait_event(stream: Raw, ev: Raw) -> Result<()> {
    // SAFETY: both handles are live (module invariant and the contract above).
    let code = unsafe { sys::aclrtStreamWaitEvent(stream.as_ptr(), ev.as_ptr()) };
    check(code, "aclrtStreamWaitEvent")
}

/// `aclrtGetEventAvailNum` for the current device.
pub(crate) fn event_available() -> Result<u32> {
    let mut n = 0u32;
    // SAFETY: `n` is a valid, writable u32 for the whole call.
    let code = unsafe { sys::aclrtGetEventAvailNum(&mut n) };
    check(code, "aclrtGetEventAvailNum")?;
    Ok(n)
}
