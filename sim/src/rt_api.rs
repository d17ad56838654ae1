//! The runtime's C API and its argument-checking layer: the second floor.
//!
//! The real runtime answers a call in layers (`sim/FIDELITY.md`, "How the
//! real behaviour was found"): the ACL layer ([`acl_layer`]) checks its own
//! arguments, then calls the runtime's C API (`src/runtime/api/api_c*.cc`),
//! which
//!
//! 1. validates every stream and event handle first (the handle guard,
//!    `RT_VALIDATE_AND_UNWRAP_OBJECT`: NULL passes, a destroyed or foreign
//!    handle is 107017), before any count, timeout, flag or function
//!    pointer is looked at;
//! 2. hands the call to the argument-checking decorator
//!    (`src/runtime/api/impl/api_error.cc`, "E"), whose checks come in the
//!    order of each function below;
//! 3. which calls the implementation (`api_impl.cc` → `src/runtime/core/`,
//!    the modules [`stream`], [`event`], [`context`], [`memory`],
//!    [`callback`]: their checks need the runtime's state: the current
//!    context, a stream's context, ...).
//!
//! Every failure that leaves this layer is stored as the calling thread's
//! last error (`aclrtPeekAtLastError`), as the C API's error conversion
//! does; the few "special state" answers it returns without storing are
//! marked where they are made. Which check answers first is decided by
//! this structure: each function here runs its guard, then its E checks,
//! then the implementation.
//!
//! [`acl_layer`]: crate::acl_layer
//! [`stream`]: crate::stream
//! [`event`]: crate::event
//! [`context`]: crate::context
//! [`memory`]: crate::memory
//! [`callback`]: crate::callback

use std::ffi::c_void;

use crate::diag::{Error, Res, Stored, rt_param};
use crate::ffi;
use crate::memory::{self, Kind, MallocFn};
use crate::prim::{HostCall, Out, UserMem};
use crate::rt::exec::EventApi;
use crate::rt::mem::AllocKind;
use crate::rt::{self, rt};
use crate::{callback, context, device, event, hostreg, stream};

mod ext;
pub(crate) use ext::*;

/// A failure as the runtime's C API returns it: stored as the thread's last
/// error (unless marked otherwise below).
fn answer<T>(r: Res<T>) -> Res<T> {
    r.map_err(Error::answered_by_runtime)
}

/// The handle guard for a stream: NULL (the default stream) passes; a
/// handle that is not a live stream (destroyed, foreign, another kind) is
/// 107017 (`api_handle_guard.cc`, `runtime_handle_guard.cc`).
fn guard_stream(h: usize) -> Res<()> {
    if h != 0 {
        rt().stream(h)?;
    }
    Ok(())
}

/// The handle guard for an event (as [`guard_stream`]).
fn guard_event(h: usize) -> Res<()> {
    if h != 0 {
        rt().event(h)?;
    }
    Ok(())
}

/// "Not supported" (207000), which many of the C API's functions return
/// without storing it as the thread's last error.
const NOT_SUPPORTED: i32 = ffi::ACL_ERROR_RT_FEATURE_NOT_SUPPORT;

/// [`answer`], except that a failure with `special` is returned without
/// being stored as the thread's last error: the C API's "special state"
/// answers (`COND_RETURN_WITH_NOLOG` in `api_c*.cc`).
fn answer_nolog<T>(special: i32, r: Res<T>) -> Res<T> {
    answer(r.map_err(|e| {
        if e.code == special {
            Error {
                stored: Stored::No,
                ..e
            }
        } else {
            e
        }
    }))
}

/// A function pointer the decorator requires: 107000 when NULL.
fn require_fn(
    f: Option<unsafe extern "C" fn(*mut c_void)>,
) -> Res<unsafe extern "C" fn(*mut c_void)> {
    f.ok_or_else(|| rt_param("fn is NULL"))
}

// ------------------------------------------------------------- devices ---

/// `rtDeviceSynchronize[WithTimeout]` → E `DeviceSynchronize`: a timeout of
/// 0 (or below −1) 107000; then I `DeviceSynchronize` (the current context,
/// its streams).
pub(crate) fn device_synchronize(timeout: Option<i32>) -> Res<()> {
    answer((|| {
        let deadline = rt::deadline_of(timeout)?;
        device::synchronize_device(deadline, timeout)
    })())
}

/// `rtSetDevice` → E `SetDevice` (the id: 107001) → I.
pub(crate) fn set_device(id: i32) -> Res<()> {
    answer(device::set_device(id))
}

/// `rtDeviceReset` → E `DeviceReset` → I; `rtDeviceResetForce`, whose
/// failures are not stored as the thread's last error.
pub(crate) fn reset_device(id: i32, force: bool) -> Res<()> {
    // The last reset releases the default context: its streams' state
    // callbacks hear of it first.
    let last = rt()
        .device(id)
        .ok()
        .filter(|d| d.refcount == 1 || (force && d.refcount > 0))
        .and_then(|d| d.default_ctx);
    if let Some(ctx) = last {
        crate::stream_state::destroying(&streams_of(ctx));
    }
    let r = device::reset_device(id, force);
    if force {
        r.map_err(|e| Error {
            stored: Stored::No,
            ..e
        })
    } else {
        answer(r)
    }
}

/// `rtGetDevice`: no device on this thread is a special state (107002, not
/// stored).
pub(crate) fn get_device(out: Out<i32>) -> Res<()> {
    answer_nolog(ffi::ACL_ERROR_RT_CONTEXT_NULL, device::get_device(out))
}

/// The calling thread's device, as `rtGetDevice` answers it.
pub(crate) fn current_device() -> Res<i32> {
    answer_nolog(ffi::ACL_ERROR_RT_CONTEXT_NULL, device::current_device())
}

/// `rtGetDeviceCount`.
pub(crate) fn device_count(out: Out<u32>) -> Res<()> {
    answer(device::device_count(out))
}

/// `rtGetRunMode`.
pub(crate) fn run_mode(out: Out<u32>) -> Res<()> {
    answer(device::run_mode(out))
}

/// `rtGetDevicePhyIdByIndex(peer)` (107001 for an unknown peer), then
/// `rtEnableP2P`/`rtDisableP2P` → E (the ids) → I.
pub(crate) fn peer_access(cur: i32, peer: i32, enable: bool) -> Res<()> {
    answer((|| {
        device::check_id(peer)?;
        device::peer_access(cur, peer, enable)
    })())
}

/// `rtGetDevicePhyIdByIndex(peer)` (107001 for an unknown peer), then
/// `rtDeviceCanAccessPeer` → E `DeviceCanAccessPeer`: the device id
/// (107001), then the output pointer (NULL: 107000); then I.
pub(crate) fn device_can_access_peer(out: Out<i32>, dev: i32, peer: i32) -> Res<()> {
    answer((|| {
        device::check_id(peer)?;
        device::check_id(dev)?;
        if out.is_null() {
            return Err(rt_param("canAccessPeer is NULL"));
        }
        device::can_access_peer(out, dev, peer)
    })())
}

// ------------------------------------------------------------ contexts ---

/// `rtCtxSetCurrent` → E `ContextSetCurrent`: a context that is not tracked
/// (destroyed, unknown, foreign) or is being deleted is refused by
/// `CheckContextIsValid` with 107000 before the implementation is reached.
pub(crate) fn ctx_set_current(h: usize) -> Res<()> {
    answer((|| {
        rt().context(h)
            .map_err(|e| e.with_code(ffi::ACL_ERROR_RT_PARAM_INVALID))?;
        context::set_current_context(h)
    })())
}

/// `rtCtxCreate` → I `ContextCreate`.
pub(crate) fn ctx_create(out: Out<usize>, device: i32) -> Res<()> {
    answer(context::create_context(out, device))
}

/// `rtCtxDestroy` → I `ContextDestroy` (the stream state callbacks hear
/// of each of its streams first).
pub(crate) fn ctx_destroy(h: usize) -> Res<()> {
    let explicit = rt().contexts.get(&h).is_some_and(|c| !c.is_default);
    if explicit {
        crate::stream_state::destroying(&streams_of(h));
    }
    answer(context::destroy_context(h))
}

/// `rtCtxGetCurrent` → I `ContextGetCurrent`.
pub(crate) fn ctx_get_current(out: Out<usize>) -> Res<()> {
    answer_nolog(
        ffi::ACL_ERROR_RT_CONTEXT_NULL,
        context::get_current_context(out),
    )
}

/// `rtsCtxGetCurrentDefaultStream`.
pub(crate) fn ctx_current_default_stream(out: Out<usize>) -> Res<()> {
    answer(context::current_default_stream(out))
}

// ------------------------------------------------------------- streams ---

/// `rtStreamSynchronize[WithTimeout]`: the handle guard; E
/// `StreamSynchronize`: a timeout of 0 or below −1 is 107000, then the
/// streams that return at once (persistent, device-only, CPU-scheduled);
/// I `StreamSynchronize`: no current context 107002, then the wait.
pub(crate) fn stream_synchronize(h: usize, timeout: Option<i32>) -> Res<()> {
    answer((|| {
        guard_stream(h)?;
        let deadline = rt::deadline_of(timeout)?;
        stream::synchronize_stream(h, deadline, timeout)
    })())
}

/// `rtStreamQuery`: the handle guard, then I `StreamQuery`. "Not complete"
/// is a special state the C API returns without storing it; the ACL layer
/// turns it into a status.
pub(crate) fn stream_query(h: usize) -> Res<bool> {
    answer((|| {
        guard_stream(h)?;
        stream::stream_query(h)
    })())
}

/// `rtStreamWaitEvent`: the handle guard (stream, then event); E
/// `StreamWaitEvent`: a device-only event 107000, an event that carries no
/// wait task 207000; then I (the stream's context, the event's device).
pub(crate) fn stream_wait_event(stream: usize, ev: usize) -> Res<()> {
    answer_nolog(
        NOT_SUPPORTED,
        (|| {
            guard_stream(stream)?;
            guard_event(ev)?;
            event::check_host_wait(ev)?;
            plain_wait_flag(ev)?;
            event::stream_wait(stream, ev)
        })(),
    )
}

/// `rtStreamCreate` / `rtsStreamCreate` → E `StreamCreate`
/// (`CheckStreamFlags`), then I; the priority is clamped into 0..=7 after
/// (`aclrtCreateStreamWithConfig`).
pub(crate) fn stream_create(out: Out<usize>, flags: u32, priority: Option<u32>) -> Res<()> {
    answer_nolog(
        NOT_SUPPORTED,
        (|| {
            let soc = rt().cfg.soc;
            stream::check_flags(flags, soc)?;
            let h = stream::create_stream(flags)?;
            if let Some(p) = priority {
                stream::set_created_priority(h, p);
            }
            out.write(h);
            Ok(())
        })(),
    )
}

/// `rtStreamGetPriority`: the handle guard, then I.
pub(crate) fn stream_get_priority(h: usize, out: Out<u32>) -> Res<()> {
    answer((|| {
        guard_stream(h)?;
        stream::get_priority(h, out)
    })())
}

/// `rtDeviceGetStreamPriorityRange`: no check.
pub(crate) fn stream_priority_range(least: Out<i32>, greatest: Out<i32>) -> Res<()> {
    answer(stream::priority_range(least, greatest))
}

/// `rtsStreamGetAvailableNum`, I.
pub(crate) fn streams_available(out: Out<u32>) -> Res<()> {
    answer(stream::streams_available(out))
}

/// `rtStreamSetMode`: the handle guard; E `StreamSetMode` (NULL without the
/// control queue 107000, a DEVICE_USE_ONLY stream 207000); then I. The C
/// API returns "not supported" (207000) without storing it.
pub(crate) fn stream_set_mode(h: usize, mode: u64) -> Res<()> {
    answer_nolog(
        NOT_SUPPORTED,
        (|| {
            guard_stream(h)?;
            crate::failmode::check_set_mode(h)?;
            crate::failmode::set_failure_mode(h, mode)
        })(),
    )
}

/// `rtStreamDestroy` / `rtStreamDestroyForce`: the handle guard, then I
/// (whose destruction tells the stream state callbacks first).
pub(crate) fn stream_destroy(h: usize, force: bool) -> Res<()> {
    answer((|| {
        guard_stream(h)?;
        let explicit = rt().stream(h).is_ok_and(|s| !s.is_default);
        if explicit {
            crate::stream_state::destroying(&[h]);
        }
        stream::destroy_stream(h, force)
    })())
}

/// The streams of context `ctx` (its default stream first), for the
/// stream state callbacks of a teardown.
fn streams_of(ctx: usize) -> Vec<usize> {
    let rt = rt();
    let mut all: Vec<(bool, usize)> = rt
        .streams
        .values()
        .filter(|s| s.ctx == ctx)
        .map(|s| (!s.is_default, s.handle))
        .collect();
    all.sort_unstable();
    all.into_iter().map(|(_, h)| h).collect()
}

/// `rtStreamAbort`: the handle guard, then E/I (`StreamAbort`).
pub(crate) fn stream_abort(h: usize) -> Res<()> {
    answer((|| {
        guard_stream(h)?;
        stream::stream_abort(h)
    })())
}

// -------------------------------------------------------------- events ---

/// `rtEventCreateExWithFlag` → E `EventCreateEx`: flags MC2, EXTERNAL and
/// IPC only alone (107000), IPC only where the chip has the feature
/// (207000), at least one of the known bits and none above them (107000);
/// then I.
pub(crate) fn event_create_ex(out: Out<usize>, flag: u32) -> Res<()> {
    answer_nolog(
        NOT_SUPPORTED,
        (|| {
            let soc = rt().cfg.soc;
            event::check_ex_flag(flag, soc)?;
            event::create(out, Some(flag), EventApi::Ex)
        })(),
    )
}

/// `rtEventCreateWithFlag` / `rtEventCreate` → E `EventCreate`, then I.
pub(crate) fn event_create(out: Out<usize>, flag: Option<u32>, api: EventApi) -> Res<()> {
    answer((|| {
        if let Some(f) = flag {
            event::check_with_flag(f)?;
        }
        event::create(out, flag, api)
    })())
}

/// `rtEventDestroy`: the handle guard, then I.
pub(crate) fn event_destroy(ev: usize) -> Res<()> {
    answer((|| {
        guard_event(ev)?;
        event::destroy(ev)
    })())
}

/// `rtsEventGetAvailNum`, I.
pub(crate) fn events_available(out: Out<u32>) -> Res<()> {
    answer(event::available(out))
}

/// `rtEventRecord`: the handle guard (event, then stream); E `EventRecord`:
/// a device-only event 107000; then I (the stream's context and device).
pub(crate) fn event_record(ev: usize, stream: usize) -> Res<()> {
    answer_nolog(
        NOT_SUPPORTED,
        (|| {
            guard_event(ev)?;
            guard_stream(stream)?;
            event::check_host_use(ev, "aclrtRecordEvent")?;
            plain_record_flag(ev)?;
            event::record(ev, stream)
        })(),
    )
}

/// `rtEventReset`: the handle guard (event, then stream); E `EventReset`: a
/// device-only event 107000; then I (the stream's context, then the events
/// that cannot be reset: 207000).
pub(crate) fn event_reset(ev: usize, stream: usize) -> Res<()> {
    answer_nolog(
        NOT_SUPPORTED,
        (|| {
            guard_event(ev)?;
            guard_stream(stream)?;
            event::check_host_use(ev, "aclrtResetEvent")?;
            event::reset(ev, stream)
        })(),
    )
}

/// `rtEventQuery`: the handle guard, E `EventQuery` (events of
/// `aclrtCreateEventExWithFlag`, external and IPC ones 207000), then I.
/// "Not ready" is a special state, not stored; the ACL layer turns it into
/// a status.
pub(crate) fn event_query(ev: usize) -> Res<bool> {
    answer_nolog(
        NOT_SUPPORTED,
        (|| {
            guard_event(ev)?;
            event::query(ev)
        })(),
    )
}

/// `rtEventQueryStatus`: the handle guard, E `EventQueryStatus`, I.
pub(crate) fn event_query_status(ev: usize) -> Res<bool> {
    answer_nolog(
        NOT_SUPPORTED,
        (|| {
            guard_event(ev)?;
            event::query_status(ev)
        })(),
    )
}

/// `rtEventQueryWaitStatus`: the handle guard, E, I.
pub(crate) fn event_query_wait_status(ev: usize) -> Res<bool> {
    answer_nolog(
        NOT_SUPPORTED,
        (|| {
            guard_event(ev)?;
            event::query_wait_status(ev)
        })(),
    )
}

/// `rtEventSynchronize[WithTimeout]`: the handle guard; E
/// `EventSynchronize`: a timeout of 0 or below −1 107000, external events
/// 207000; then I.
pub(crate) fn event_synchronize(ev: usize, timeout: Option<i32>) -> Res<()> {
    answer_nolog(
        NOT_SUPPORTED,
        (|| {
            guard_event(ev)?;
            let deadline = rt::deadline_of(timeout)?;
            event::synchronize(ev, deadline, timeout)
        })(),
    )
}

/// `rtEventElapsedTime`: the handle guard (start, then end), then E/I.
pub(crate) fn event_elapsed(out: Out<f32>, start: usize, end: usize) -> Res<()> {
    answer_nolog(
        NOT_SUPPORTED,
        (|| {
            guard_event(start)?;
            guard_event(end)?;
            event::elapsed(out, start, end)
        })(),
    )
}

/// `rtEventGetTimeStamp`: the handle guard, then E/I.
pub(crate) fn event_timestamp(ev: usize, out: Out<u64>) -> Res<()> {
    answer_nolog(
        NOT_SUPPORTED,
        (|| {
            guard_event(ev)?;
            event::timestamp(ev, out)
        })(),
    )
}

// ---------------------------------------------------- stream launches ---

/// `rtMemsetAsync`: a count of 0 succeeds before anything is checked; the
/// handle guard; E `MemsetAsync`: count above the maximum 107000; then I.
pub(crate) fn memset_async(
    dst: UserMem,
    max_count: usize,
    value: i32,
    count: usize,
    stream: usize,
) -> Res<()> {
    if count == 0 {
        return Ok(());
    }
    answer((|| {
        guard_stream(stream)?;
        memory::check_count(count, max_count)?;
        memory::memset(dst, max_count, value, count, Some(stream))
    })())
}

/// `rtMalloc` / `rtsMalloc` / `rtMallocHost`: E (`DevMalloc`: NULL;
/// `HostMalloc`: NULL, size 0), then I (the current context, 107002; the
/// device's memory, 207001).
pub(crate) fn malloc(out: Out<*mut c_void>, size: usize, policy: u32, f: MallocFn) -> Res<()> {
    answer(memory::malloc(out, size, policy, f))
}

/// `rtFree` / `rtFreeHost` and their `WithDevSync` forms: E (NULL), then I
/// (no current context needed; the allocation's kind and state).
pub(crate) fn free(addr: usize, kind: AllocKind, dev_sync: bool) -> Res<()> {
    answer(memory::free(addr, kind, dev_sync))
}

/// `rtMemGetInfoEx`: E `MemGetInfoEx` (NULL outputs; an attribute outside
/// `RT_MEMORYINFO_DDR..=RT_MEMORYINFO_P2P_HUGE1G`, 0..=17: 107016
/// `ACL_ERROR_RT_INVALID_MEMORY_TYPE`), then I (the current context,
/// 107002; the chip's answer per attribute).
pub(crate) fn get_mem_info(attr: u32, free: Out<usize>, total: Out<usize>) -> Res<()> {
    answer((|| {
        if attr > ffi::ACL_MEM_P2P_HUGE1G {
            return Err(Error::new(
                ffi::ACL_ERROR_RT_INVALID_MEMORY_TYPE,
                format!("attr {attr} is not an aclrtMemAttr value (0..=17)"),
            ));
        }
        memory::mem_info(attr, free, total)
    })())
}

/// `rtsHostRegister`: E `HostRegister` (NULL, size 0; a type outside the
/// IOMEMORY and READONLY bits 207000, stored; NULL devPtr), then I.
pub(crate) fn host_register(
    ptr: UserMem,
    size: u64,
    ty: u32,
    dev_ptr: Out<*mut c_void>,
) -> Res<()> {
    answer((|| {
        const TYPES: u32 = ffi::ACL_HOST_REGISTER_IOMEMORY | ffi::ACL_HOST_REGISTER_READONLY;
        if ty & !TYPES != 0 {
            return Err(Error::new(
                NOT_SUPPORTED,
                format!("type {ty:#x} is not an aclrtHostRegisterType"),
            ));
        }
        hostreg::host_register(ptr, size, ty, dev_ptr)
    })())
}

/// `rtHostRegisterV2`: E `HostRegisterV2` (NULL, size 0; a flag with no
/// valid bit or another bit: 107000), then I.
pub(crate) fn host_register_v2(ptr: UserMem, size: u64, flag: u32) -> Res<()> {
    answer((|| {
        if flag & hostreg::V2_FLAGS == 0 || flag & !hostreg::V2_FLAGS != 0 {
            return Err(rt_param(format!(
                "flag {flag:#x} must be a non-empty OR of ACL_HOST_REG_MAPPED, \
                 ACL_HOST_REG_IOMEMORY, ACL_HOST_REG_READONLY and ACL_HOST_REG_PINNED"
            )));
        }
        hostreg::host_register_v2(ptr, size, flag)
    })())
}

/// `rtHostGetDevicePointer`: E (NULL, the flag), then I; "not supported"
/// (207000) is returned without storing it.
pub(crate) fn host_get_device_pointer(p_host: UserMem, p_device: Out<*mut c_void>) -> Res<()> {
    answer_nolog(
        NOT_SUPPORTED,
        hostreg::host_get_device_pointer(p_host, p_device),
    )
}

/// `rtsHostUnregister`: E (NULL), then I; "not supported" (207000) is
/// returned without storing it.
pub(crate) fn host_unregister(ptr: UserMem) -> Res<()> {
    answer_nolog(NOT_SUPPORTED, hostreg::host_unregister(ptr))
}

/// `rtMemAllocManaged`: E `ManagedMemAlloc` (NULL; a size of 0: 107000),
/// then I.
pub(crate) fn alloc_managed(out: Out<*mut c_void>, size: u64) -> Res<()> {
    answer((|| {
        if size == 0 {
            return Err(rt_param("size must not be 0"));
        }
        hostreg::alloc_managed(out, size)
    })())
}

/// `rtMemset`: a count of 0 succeeds at once; E `MemSetSync`: NULL, count
/// 0 (no count check); I `MemSetSync`: the current context (107002), then
/// the driver's count check (above maxCount: 107000) and the memory.
pub(crate) fn memset(dst: UserMem, max_count: usize, value: i32, count: usize) -> Res<()> {
    if count == 0 {
        return Ok(());
    }
    answer(memory::memset(dst, max_count, value, count, None))
}

/// `rtMemcpy`: a count of 0 succeeds at once; E `MemCopySync`: NULL dst and
/// src, destMax 0, count above destMax (107000), the kind's range, then the
/// same address as source and destination succeeds without a copy, before
/// I (`ApiImpl::MemCopySync`: the current context, 107002; the memory and
/// the kind).
pub(crate) fn memcpy(
    dst: UserMem,
    dest_max: usize,
    src: UserMem,
    count: usize,
    kind: Kind,
) -> Res<()> {
    if count == 0 {
        return Ok(());
    }
    answer((|| {
        if dest_max == 0 {
            return Err(rt_param("destMax is 0"));
        }
        memory::check_count(count, dest_max)?;
        if dst.addr() == src.addr() {
            return Ok(());
        }
        memory::memcpy(dst, src, count, kind)
    })())
}

/// `rtMemcpyAsync`: a count of 0 succeeds at once; the handle guard; E
/// `MemcpyAsync`: count above destMax 107000, then the kind and location
/// checks; then I. "Not supported" (207000) is returned without storing it.
pub(crate) fn memcpy_async(
    dst: UserMem,
    dest_max: usize,
    src: UserMem,
    count: usize,
    kind: Kind,
    stream: usize,
) -> Res<()> {
    if count == 0 {
        return Ok(());
    }
    answer_nolog(
        NOT_SUPPORTED,
        (|| {
            guard_stream(stream)?;
            memory::check_count(count, dest_max)?;
            memory::queue_copy(stream, kind, (dst, count), (src, count), None)
        })(),
    )
}

/// `rtMemcpy2d`: E `MemCopy2DSync` (the width and height limits, only
/// host-to-device and device-to-host: 207000, stored, unlike the
/// asynchronous form's), then I (the current context, the memory).
pub(crate) fn memcpy_2d(
    dst: UserMem,
    dpitch: usize,
    src: UserMem,
    spitch: usize,
    width: usize,
    height: usize,
    kind: Kind,
) -> Res<()> {
    answer(memory::copy_2d_checked(
        dst, dpitch, src, spitch, width, height, kind, None,
    ))
}

/// `rtMemcpy2dAsync`: the handle guard; E `MemCopy2DAsync` (a NULL stream
/// without the control queue, the width and height limits, the
/// directions); then I. "Not supported" (207000) is not stored.
#[allow(clippy::too_many_arguments)]
pub(crate) fn memcpy_2d_async(
    dst: UserMem,
    dpitch: usize,
    src: UserMem,
    spitch: usize,
    width: usize,
    height: usize,
    kind: Kind,
    stream: usize,
) -> Res<()> {
    answer_nolog(
        NOT_SUPPORTED,
        (|| {
            guard_stream(stream)?;
            memory::copy_2d_checked(dst, dpitch, src, spitch, width, height, kind, Some(stream))
        })(),
    )
}

/// `rtsLaunchHostFunc`: the handle guard; E `LaunchHostFunc`: a NULL
/// function 107000, then the callback-mechanism checks; then I.
/// "Not supported" (207000) is returned without storing it.
pub(crate) fn launch_host_func(
    stream: usize,
    f: Option<unsafe extern "C" fn(*mut c_void)>,
    make: impl FnOnce(unsafe extern "C" fn(*mut c_void)) -> HostCall,
) -> Res<()> {
    answer_nolog(
        NOT_SUPPORTED,
        (|| {
            guard_stream(stream)?;
            let f = require_fn(f)?;
            callback::launch_host_func(stream, f, make)
        })(),
    )
}

/// `rtLaunchKernelByFuncHandleV3`: the handle guard (the function, then the
/// stream); E `LaunchKernel` (numBlocks 0, the argument block: 107000);
/// then I. The implementation's "invalid kernel" (a function whose binary
/// is not placed on the stream's device) is returned without storing it.
pub(crate) fn launch_kernel(
    func: usize,
    num_blocks: u32,
    args: usize,
    size: usize,
    stream: usize,
) -> Res<()> {
    answer((|| {
        crate::kernel::guard_func(func)?;
        guard_stream(stream)
    })())?;
    answer_nolog(
        ffi::ACL_ERROR_RT_INVALID_HANDLE,
        crate::kernel::launch(func, num_blocks, args, size, stream),
    )
}

/// `rtsLaunchKernelWithConfig`: the handle guard (the function, the
/// argument list, the stream: 107017, stored) before E's configuration
/// checks and I (fidelity row HANDLE-FIRST). The implementation's "invalid
/// kernel" (107017: a function whose binary is not placed on the stream's
/// device) and "not supported" (207000) are returned without storing them.
pub(crate) fn launch_kernel_with_config(
    func: usize,
    num_blocks: u32,
    stream: usize,
    cfg: crate::kernel::LaunchCfg,
    args: usize,
) -> Res<()> {
    answer((|| {
        crate::kernel::guard_func(func)?;
        crate::kernel::guard_args(args)?;
        guard_stream(stream)
    })())?;
    answer_nolog(
        ffi::ACL_ERROR_RT_INVALID_HANDLE,
        answer_nolog(
            NOT_SUPPORTED,
            crate::kernel::launch_with_config(func, num_blocks, stream, cfg, args),
        ),
    )
}

/// `rtBinaryUnLoad`: E (NULL), then I (107017 for a stale handle).
pub(crate) fn binary_unload(bin: usize) -> Res<()> {
    answer(crate::kernel::binary_unload(bin))
}

/// `rtsFuncGetByName`: the handle guard of the binary, then I.
pub(crate) fn get_function(bin: usize, name: &str) -> Res<usize> {
    answer(crate::kernel::get_function(bin, Some(name)))
}

/// `rtsKernelArgsInit`: the handle guard of the function, then I.
pub(crate) fn args_init(func: usize) -> Res<usize> {
    answer(crate::kernel::args_init(func))
}

/// `rtsKernelArgsAppend` / `rtsKernelArgsAppendPlaceHolder` (`value`
/// `None`): the handle guard of the list, then E and I.
pub(crate) fn args_append(args: usize, value: Option<&[u8]>) -> Res<usize> {
    answer(crate::kernel::args_append(args, value))
}

/// `rtsKernelArgsGetPlaceHolderBuffer`: the handle guards of the list and
/// the placeholder, then E and I.
pub(crate) fn args_placeholder_buffer(
    args: usize,
    placeholder: usize,
    size: usize,
) -> Res<*mut u8> {
    answer(crate::kernel::args_placeholder_buffer(
        args,
        placeholder,
        size,
    ))
}

/// `rtsKernelArgsFinalize`: the handle guard of the list, then I.
pub(crate) fn args_finalize(args: usize) -> Res<()> {
    answer(crate::kernel::args_finalize(args))
}

/// `rtSubscribeReport`: the handle guard; E `SubscribeReport`: a stream
/// served by the host-function thread 107011; then I.
pub(crate) fn subscribe_report(tid: u64, stream: usize) -> Res<()> {
    answer((|| {
        guard_stream(stream)?;
        callback::check_not_host_func_stream(stream, "aclrtSubscribeReport")?;
        callback::subscribe(tid, stream)
    })())
}

/// `rtUnSubscribeReport`: the handle guard; E `UnSubscribeReport` (as
/// [`subscribe_report`]); then I.
pub(crate) fn unsubscribe_report(tid: u64, stream: usize) -> Res<()> {
    answer((|| {
        guard_stream(stream)?;
        callback::check_not_host_func_stream(stream, "aclrtUnSubscribeReport")?;
        callback::unsubscribe(tid, stream)
    })())
}

/// `rtProcessReport` → E `ProcessReport` (its timeout check repeats the ACL
/// layer's), then I.
pub(crate) fn process_report(timeout: i32) -> Res<()> {
    answer(callback::process(timeout))
}

/// `rtCallbackLaunch`: the handle guard; E `CallbackLaunch`: a NULL
/// function 107000; then I.
pub(crate) fn callback_launch(
    f: Option<unsafe extern "C" fn(*mut c_void)>,
    block: bool,
    stream: usize,
    make: impl FnOnce(unsafe extern "C" fn(*mut c_void)) -> HostCall,
) -> Res<()> {
    answer((|| {
        guard_stream(stream)?;
        let f = require_fn(f)?;
        callback::launch_callback(f, block, stream, make)
    })())
}

// ------------------------------------- devices, streams and threads (2) ---

/// `rtsDeviceGetInfo` → E `GetDeviceInfoByAttr`: a NULL output 107000; a
/// device id beyond the count 107000 (not 107001: E's own range check);
/// then I.
pub(crate) fn device_get_info(id: u32, attr: u32, out: Out<i64>) -> Res<()> {
    answer((|| {
        if out.is_null() {
            return Err(rt_param("value is NULL"));
        }
        let count = rt().devices.len();
        let dev = i32::try_from(id)
            .ok()
            .filter(|&d| (d as usize) < count)
            .ok_or_else(|| {
                rt_param(format!(
                    "deviceId {id} is not in [0, {count}) (querying device information)"
                ))
            })?;
        out.write(crate::devinfo::device_info(dev, attr)?);
        Ok(())
    })())
}

/// `rtsDeviceGetCapability`: a feature type outside [0, max) 107000
/// (stored); a feature type inside but unknown to the C API 107000 returned
/// without being stored (its last branch); then E `GetDeviceCapability`
/// (a NULL output 107000, the device id 107001) and I.
pub(crate) fn device_get_capability(id: i32, feature: i32, out: Out<i32>) -> Res<()> {
    const FEATURE_MAX: i32 = 20_002;
    answer((|| {
        if !(0..FEATURE_MAX).contains(&feature) {
            return Err(rt_param(format!(
                "devFeatureType {feature} is not in [0, {FEATURE_MAX})"
            )));
        }
        let known = crate::devinfo::device_capability(feature)?;
        let Some(value) = known else {
            return Err(Error {
                stored: Stored::No,
                ..rt_param(format!("devFeatureType {feature} is not a device feature"))
            });
        };
        if out.is_null() {
            return Err(rt_param("value is NULL"));
        }
        rt().check_device(id)?;
        out.write(value);
        Ok(())
    })())
}

/// `rtDeviceStatusQuery` → E `DeviceStatusQuery`: a NULL output 107000,
/// the device id 107001; then I.
pub(crate) fn device_status_query(id: i32, out: Out<u32>) -> Res<()> {
    answer((|| {
        if out.is_null() {
            return Err(rt_param("deviceStatus is NULL"));
        }
        out.write(crate::devinfo::device_status(id)?);
        Ok(())
    })())
}

/// `rtGetAllUtilizations(kind)` → E (the kind, the output: never wrong
/// from the ACL layer) → I → the driver. The ACL layer keeps only the
/// value; a failure is its "not supported" (−1), never stored here.
pub(crate) fn utilization(id: i32) -> Option<i32> {
    crate::devinfo::utilization(id).ok()
}

/// `rtsGetDeviceResLimit` → E `GetDeviceResLimit`: the kind (107000), the
/// output (107000), the device id (107001); then I (the device must be
/// set: 507033).
pub(crate) fn get_device_res_limit(id: i32, kind: u32, out: Out<u32>) -> Res<()> {
    answer((|| {
        let kind = crate::devinfo::res_kind(kind)?;
        if out.is_null() {
            return Err(rt_param("value is NULL"));
        }
        rt().check_device(id)?;
        out.write(crate::devinfo::get_res_limit(id, kind)?);
        Ok(())
    })())
}

/// `rtsSetDeviceResLimit` → E `SetDeviceResLimit`: the kind (107000), the
/// device id (107001); then I (set device 507033, value ≤ the cores 107000).
pub(crate) fn set_device_res_limit(id: i32, kind: u32, value: u32) -> Res<()> {
    answer((|| {
        let kind = crate::devinfo::res_kind(kind)?;
        rt().check_device(id)?;
        crate::devinfo::set_res_limit(id, kind, value)
    })())
}

/// `rtsResetDeviceResLimit` → E `ResetDeviceResLimit`: the device id
/// (107001); then I.
pub(crate) fn reset_device_res_limit(id: i32) -> Res<()> {
    answer((|| {
        rt().check_device(id)?;
        crate::devinfo::reset_res_limit(id)
    })())
}

/// `rtsGetResInCurrentThread` → E `GetResInCurrentThread`: the kind
/// (107000), the output (107000); then I.
pub(crate) fn res_in_current_thread(kind: u32, out: Out<u32>) -> Res<()> {
    answer((|| {
        let kind = crate::devinfo::res_kind(kind)?;
        if out.is_null() {
            return Err(rt_param("value is NULL"));
        }
        out.write(crate::devinfo::res_in_current_thread(kind)?);
        Ok(())
    })())
}

/// `rtSetDeviceSatMode`: a valid mode the chip cannot take 207000 (a
/// saturation-only chip answers success to saturation without going
/// further); then E `SetDeviceSatMode` (a mode outside [0, 2): 107000) and
/// I.
pub(crate) fn set_device_sat_mode(mode: u32) -> Res<()> {
    answer((|| {
        let soc = rt().cfg.soc;
        if mode == ffi::ACL_RT_OVERFLOW_MODE_INFNAN && !soc.infnan_mode() {
            return Err(Error::new(
                NOT_SUPPORTED,
                "this chip supports only the saturation mode",
            ));
        }
        if mode == ffi::ACL_RT_OVERFLOW_MODE_SATURATION && !soc.infnan_mode() {
            return Ok(());
        }
        if mode >= ffi::ACL_RT_OVERFLOW_MODE_UNDEF {
            return Err(rt_param(format!(
                "floatOverflowMode {mode} is not in [0, 2)"
            )));
        }
        crate::devinfo::set_sat_mode(mode);
        Ok(())
    })())
}

/// `rtGetDeviceSatMode` → E (the output: never NULL from the ACL layer) →
/// I.
pub(crate) fn get_device_sat_mode(out: Out<u32>) -> Res<()> {
    out.write(crate::devinfo::sat_mode());
    Ok(())
}

/// `rtCheckArchCompatibility` → E `CheckArchCompatibility`: a NULL name
/// 107000, a NULL output 107000, an empty name 107000; then I.
pub(crate) fn check_arch_compatibility(om_soc: Option<&str>, out: Out<i32>) -> Res<()> {
    answer((|| {
        let Some(name) = om_soc else {
            return Err(rt_param("omSocVersion is NULL"));
        };
        if out.is_null() {
            return Err(rt_param("canCompatible is NULL"));
        }
        if name.is_empty() {
            return Err(rt_param("omSocVersion is empty"));
        }
        out.write(i32::from(crate::devinfo::arch_compatible(name)?));
        Ok(())
    })())
}

/// `rtDeviceGetBareTgid` → E (the output: never NULL from the ACL layer)
/// → I → the driver.
pub(crate) fn device_get_bare_tgid(out: Out<i32>) -> Res<()> {
    out.write(crate::devinfo::bare_tgid());
    Ok(())
}

/// `rtsGetErrorVerbose`: only where the chip supports error details
/// (207000, stored); then E `GetErrorVerbose` (the output 107000, the
/// device id 107001) and I: no device fault of a kind it reports (memory
/// UCE, link) is modelled, so the answer is "no error".
pub(crate) fn get_error_verbose(id: i32) -> Res<()> {
    answer((|| {
        if !rt().cfg.soc.error_verbose() {
            return Err(Error::new(
                NOT_SUPPORTED,
                "this chip does not report error details (aclrtGetErrorVerbose)",
            ));
        }
        rt().check_device(id)?;
        Ok(())
    })())
}

/// `rtsGetThreadLastTaskId` → E (the output: never NULL from the ACL
/// layer) → I: the calling thread's last task.
pub(crate) fn thread_last_task_id(out: Out<u32>) -> Res<()> {
    out.write(rt::exec::thread_last_task());
    Ok(())
}

/// `rtsStreamGetId`: the handle guard; E `GetStreamId` (the output: never
/// NULL from the ACL layer); I.
pub(crate) fn stream_get_id(h: usize, out: Out<i32>) -> Res<()> {
    answer((|| {
        guard_stream(h)?;
        out.write(stream::get_id(h)?);
        Ok(())
    })())
}

/// `rtStreamGetFlags`: the handle guard; E `StreamGetFlags`; I.
pub(crate) fn stream_get_flags(h: usize, out: Out<u32>) -> Res<()> {
    answer((|| {
        guard_stream(h)?;
        out.write(stream::get_flags(h)?);
        Ok(())
    })())
}

/// `rtSetStreamOverflowSwitch`: success at once on a chip without the
/// per-stream switch (no STARS); the handle guard; E (the value: never
/// wrong from the ACL layer); I.
pub(crate) fn set_stream_overflow_switch(h: usize, flag: u32) -> Res<()> {
    answer((|| {
        if !rt().cfg.soc.stars() {
            return Ok(());
        }
        guard_stream(h)?;
        stream::set_overflow_switch(h, flag)
    })())
}

/// `rtGetStreamOverflowSwitch`: the handle guard; E; I.
pub(crate) fn get_stream_overflow_switch(h: usize, out: Out<u32>) -> Res<()> {
    answer((|| {
        guard_stream(h)?;
        out.write(stream::overflow_switch(h)?);
        Ok(())
    })())
}

/// `rtStreamActive`: the handle guard (the active stream, then the
/// stream); E `StreamActive` (NULLs: never from the ACL layer); I.
pub(crate) fn stream_active(active: usize, stream: usize) -> Res<()> {
    answer((|| {
        guard_stream(active)?;
        guard_stream(stream)?;
        stream::active_stream(stream)
    })())
}

/// `rtsSwitchStream` → `rtStreamSwitchEx`: the handle guard (the true
/// stream, then the stream); E `StreamSwitchEx`: the condition outside
/// `ACL_RT_EQUAL..=ACL_RT_LESS_OR_EQUAL` 107000, the data type outside
/// `INT32..=INT64` 107000; then I.
pub(crate) fn stream_switch(
    cond: u32,
    data_type: u32,
    true_stream: usize,
    stream: usize,
) -> Res<()> {
    answer((|| {
        guard_stream(true_stream)?;
        guard_stream(stream)?;
        if cond > ffi::ACL_RT_LESS_OR_EQUAL {
            return Err(rt_param(format!("cond {cond} is not in [0, 5]")));
        }
        if data_type > ffi::ACL_RT_SWITCH_INT64 {
            return Err(rt_param(format!("dataType {data_type} is not in [0, 1]")));
        }
        stream::switch_stream(true_stream)
    })())
}

/// `rtsStreamStop`: the handle guard; E `StreamStop` (a NULL stream
/// 107000: not the default stream); then I.
pub(crate) fn stream_stop(h: usize) -> Res<()> {
    answer((|| {
        guard_stream(h)?;
        if h == 0 {
            return Err(rt_param("stream is NULL"));
        }
        stream::stream_stop()
    })())
}

/// `rtsRegStreamStateCallback` → E (the name: never NULL from the ACL
/// layer) → I `RegStreamStateCallback`.
pub(crate) fn reg_stream_state_callback(
    name: &[u8],
    callback: Option<crate::prim::StateCall>,
) -> Res<()> {
    answer(crate::stream_state::register(name, callback).map_err(rt_param))
}

/// Bytes of the overflow status `aclrtGetOverflowStatus` copies
/// (`OVERFLOW_OUTPUT_SIZE`).
pub(crate) const OVERFLOW_OUTPUT_SIZE: u64 = 64;

/// `rtGetDeviceSatStatus`: the handle guard; both chips have a status
/// (CFG `deviceSatStatusImpl`); E `GetDeviceSatStatus`: a size other than
/// 64 107000; I: the stream ([`stream::overflow_target`]), then an
/// asynchronous copy of the context's status area to `dst` on the stream.
/// No simulated operator overflows, so the area is zeros: the copy is a
/// memset of `dst` to 0 on the stream (with the checks of a device
/// write).
pub(crate) fn get_overflow_status(dst: UserMem, size: u64, stream: usize) -> Res<()> {
    answer((|| {
        guard_stream(stream)?;
        if size != OVERFLOW_OUTPUT_SIZE {
            return Err(rt_param(format!(
                "outputSize {size} is invalid: only {OVERFLOW_OUTPUT_SIZE} bytes are supported"
            )));
        }
        stream::overflow_target(stream)?;
        let n = OVERFLOW_OUTPUT_SIZE as usize;
        memory::memset(dst, n, 0, n, Some(stream))
    })())
}

/// `rtCleanDeviceSatStatus`: the handle guard; E (capture: not modelled);
/// I: the stream ([`stream::overflow_target`]); the context's status area
/// is cleared (nothing to clear: it stays zeros).
pub(crate) fn reset_overflow_status(stream: usize) -> Res<()> {
    answer((|| {
        guard_stream(stream)?;
        stream::overflow_target(stream)
    })())
}
