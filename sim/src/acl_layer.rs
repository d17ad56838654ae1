//! The ACL layer: the first floor of the runtime's answer.
//!
//! Each function here is the real `aclrt…Impl` of `src/acl/aclrt_impl/`
//! (`context.cpp`, `stream.cpp`, `event.cpp`, `memory.cpp`,
//! `callback.cpp`): it checks the ACL layer's own arguments (NULL pointers
//! and the enum values it translates: 100000; a few value checks of its own,
//! e.g. a stream timeout below −1: 107000) in the order the real function
//! makes them, then calls the runtime's C API ([`rt_api`]), and turns the
//! runtime's special answers into statuses (a stream or event "not ready").
//!
//! A refusal made here never reaches the runtime, so it is never stored as
//! the thread's last error (`aclrtPeekAtLastError`); what the runtime
//! answers is.
//!
//! The entry points of [`raw`](crate::raw) call this layer for every device,
//! context, stream and event function, the report
//! functions, `aclrtLaunchKernel`, `aclrtLaunchKernelWithConfig` and the
//! other launches onto a stream (`aclrtMemsetAsync`, `aclrtMemcpyAsync`,
//! `aclrtMemcpy2dAsync`, `aclrtLaunchHostFunc`, `aclrtLaunchCallback`), the
//! synchronous memory functions (`aclrtMalloc*`, `aclrtMallocHost`,
//! `aclrtFree*`, `aclrtMemcpy`, `aclrtMemset`, `aclrtMemcpy2d`,
//! `aclrtGetMemInfo`), managed memory, host registration,
//! `aclrtBinaryUnLoad`, `aclrtBinaryGetFunction` and the argument-list
//! functions; the other entry points (loading a binary, the misc queries)
//! still call the implementation modules directly, which make the ACL and
//! runtime checks themselves in the same order (their conformance tests
//! pin it).
//!
//! `aclInit`, `aclFinalize` and `aclFinalizeReference` are the ACL
//! layer's alone (`acl.cpp` calls no runtime check that decides them):
//! their room is [`init`](crate::init).
//!
//! [`rt_api`]: crate::rt_api

use std::ffi::c_void;

use crate::diag::{Error, Res, param};
use crate::ffi;
use crate::memory::{self, MallocFn};
use crate::prim::{HostCall, Out, UserMem};
use crate::rt::exec::EventApi;
use crate::rt::mem::AllocKind;
use crate::rt_api;

mod ext;
pub(crate) use ext::*;

/// A refusal of the ACL layer itself (never the thread's last error).
fn refuse<T>(e: Error) -> Res<T> {
    Err(e.answered_by_acl())
}

/// 100000 for a NULL pointer argument (`ACL_REQUIRES_NOT_NULL`).
fn not_null(null: bool, what: &str) -> Res<()> {
    if null {
        return refuse(param(format!("{what} is NULL")));
    }
    Ok(())
}

// ------------------------------------------------------------ contexts ---

/// `aclrtCreateContextImpl`: NULL output 100000.
pub(crate) fn create_context(out: Out<usize>, device: i32) -> Res<()> {
    not_null(out.is_null(), "context")?;
    rt_api::ctx_create(out, device)
}

/// `aclrtDestroyContextImpl`: NULL 100000.
pub(crate) fn destroy_context(h: usize) -> Res<()> {
    not_null(h == 0, "context")?;
    rt_api::ctx_destroy(h)
}

/// `aclrtSetCurrentContextImpl`: NULL 100000.
pub(crate) fn set_current_context(h: usize) -> Res<()> {
    not_null(h == 0, "context")?;
    rt_api::ctx_set_current(h)
}

/// `aclrtGetCurrentContextImpl`: NULL output 100000.
pub(crate) fn get_current_context(out: Out<usize>) -> Res<()> {
    not_null(out.is_null(), "context")?;
    rt_api::ctx_get_current(out)
}

/// `aclrtCtxGetCurrentDefaultStreamImpl`: NULL output 100000.
pub(crate) fn current_default_stream(out: Out<usize>) -> Res<()> {
    not_null(out.is_null(), "stream")?;
    rt_api::ctx_current_default_stream(out)
}

// ------------------------------------------------------------- streams ---

/// The ACL layer's own timeout check of the `…WithTimeout` functions: below
/// −1 is 107000 here, before the runtime sees anything (0 is the runtime's
/// to refuse).
fn timeout_at_least_minus_one(timeout: Option<i32>) -> Res<()> {
    match timeout {
        Some(t) if t < -1 => refuse(crate::diag::rt_param(format!(
            "timeout {t} is invalid: use -1 (wait forever) or a positive number of ms"
        ))),
        _ => Ok(()),
    }
}

// ------------------------------------------------------------- devices ---

/// `aclrtSynchronizeDeviceImpl` and `aclrtSynchronizeDeviceWithTimeoutImpl`
/// (a timeout below −1: 107000 here).
pub(crate) fn synchronize_device(timeout: Option<i32>) -> Res<()> {
    timeout_at_least_minus_one(timeout)?;
    rt_api::device_synchronize(timeout)
}

/// `aclrtSetDeviceImpl` (no check of its own).
pub(crate) fn set_device(id: i32) -> Res<()> {
    rt_api::set_device(id)
}

/// `aclrtResetDeviceImpl` / `aclrtResetDeviceForceImpl` (no check of their
/// own).
pub(crate) fn reset_device(id: i32, force: bool) -> Res<()> {
    rt_api::reset_device(id, force)
}

/// `aclrtGetDeviceImpl`: NULL output 100000.
pub(crate) fn get_device(out: Out<i32>) -> Res<()> {
    not_null(out.is_null(), "deviceId")?;
    rt_api::get_device(out)
}

/// `aclrtGetDeviceCountImpl`: NULL output 100000.
pub(crate) fn device_count(out: Out<u32>) -> Res<()> {
    not_null(out.is_null(), "count")?;
    rt_api::device_count(out)
}

/// `aclrtGetRunModeImpl`: NULL output 100000.
pub(crate) fn run_mode(out: Out<u32>) -> Res<()> {
    not_null(out.is_null(), "runMode")?;
    rt_api::run_mode(out)
}

/// `aclrtDeviceEnablePeerAccessImpl` (flags other than 0: 200006, the
/// reserved-parameter check) and `aclrtDeviceDisablePeerAccessImpl`: the
/// current device (`rtGetDevice`), the peer not the current device
/// (100000), then the runtime.
pub(crate) fn peer_access(peer: i32, flags: u32, enable: bool) -> Res<()> {
    if flags != 0 {
        return refuse(Error::new(
            ffi::ACL_ERROR_FEATURE_UNSUPPORTED,
            format!("flags must be 0 (got {flags:#x})"),
        ));
    }
    let cur = rt_api::current_device()?;
    if cur == peer {
        return refuse(param(format!("peerDeviceId {peer} is the current device")));
    }
    rt_api::peer_access(cur, peer, enable)
}

/// `aclrtDeviceCanAccessPeerImpl`: the same id twice 100000, before any
/// other check (the output pointer is the runtime's to check).
pub(crate) fn device_can_access_peer(out: Out<i32>, dev: i32, peer: i32) -> Res<()> {
    if dev == peer {
        return refuse(param(format!("deviceId and peerDeviceId are both {dev}")));
    }
    rt_api::device_can_access_peer(out, dev, peer)
}

/// `aclrtSynchronizeStreamImpl` (no check of its own) and
/// `aclrtSynchronizeStreamWithTimeoutImpl` (a timeout below −1: 107000
/// here, before the runtime sees the stream).
pub(crate) fn synchronize_stream(h: usize, timeout: Option<i32>) -> Res<()> {
    timeout_at_least_minus_one(timeout)?;
    rt_api::stream_synchronize(h, timeout)
}

/// `aclrtStreamQueryImpl`: NULL status 100000 (before the stream); "not
/// complete" from the runtime becomes `ACL_STREAM_STATUS_NOT_READY`.
pub(crate) fn stream_query(h: usize, out: Out<u32>) -> Res<()> {
    not_null(out.is_null(), "status")?;
    let idle = rt_api::stream_query(h)?;
    out.write(if idle {
        ffi::ACL_STREAM_STATUS_COMPLETE
    } else {
        ffi::ACL_STREAM_STATUS_NOT_READY
    });
    Ok(())
}

/// `aclrtStreamWaitEventImpl`: NULL event 100000.
pub(crate) fn stream_wait_event(stream: usize, ev: usize) -> Res<()> {
    not_null(ev == 0, "event")?;
    rt_api::stream_wait_event(stream, ev)
}

/// `aclrtDestroyStreamImpl` / `aclrtDestroyStreamForceImpl`: NULL 100000.
pub(crate) fn destroy_stream(h: usize, force: bool) -> Res<()> {
    if h == 0 {
        return refuse(param(
            "stream is NULL: the default stream cannot be destroyed (aclrtResetDevice releases it)",
        ));
    }
    rt_api::stream_destroy(h, force)
}

/// `aclrtCreateStreamImpl` / `aclrtCreateStreamWithConfigImpl`: NULL output
/// 100000; the configured flags translated (unknown bits dropped, fidelity
/// row STREAM-CFG-2).
pub(crate) fn create_stream(out: Out<usize>, config: Option<(u32, u32)>) -> Res<()> {
    not_null(out.is_null(), "stream")?;
    match config {
        None => rt_api::stream_create(out, 0, None),
        Some((priority, flags)) => {
            rt_api::stream_create(out, flags & crate::stream::KNOWN_FLAGS, Some(priority))
        }
    }
}

/// `aclrtStreamGetPriorityImpl`: NULL output 100000.
pub(crate) fn stream_get_priority(h: usize, out: Out<u32>) -> Res<()> {
    not_null(out.is_null(), "priority")?;
    rt_api::stream_get_priority(h, out)
}

/// `aclrtDeviceGetStreamPriorityRangeImpl`: either pointer may be NULL.
pub(crate) fn stream_priority_range(least: Out<i32>, greatest: Out<i32>) -> Res<()> {
    rt_api::stream_priority_range(least, greatest)
}

/// `aclrtGetStreamAvailableNumImpl`: NULL output 100000.
pub(crate) fn streams_available(out: Out<u32>) -> Res<()> {
    not_null(out.is_null(), "streamCount")?;
    rt_api::streams_available(out)
}

/// `aclrtSetStreamFailureModeImpl` (no check of its own).
pub(crate) fn set_stream_failure_mode(h: usize, mode: u64) -> Res<()> {
    rt_api::stream_set_mode(h, mode)
}

/// `aclrtStreamAbortImpl` (no check of its own).
pub(crate) fn stream_abort(h: usize) -> Res<()> {
    rt_api::stream_abort(h)
}

// -------------------------------------------------------------- events ---

/// `aclrtCreateEvent[WithFlag]Impl`: NULL output 100000.
pub(crate) fn create_event(out: Out<usize>, flag: Option<u32>, api: EventApi) -> Res<()> {
    not_null(out.is_null(), "event")?;
    match api {
        EventApi::Ex => rt_api::event_create_ex(out, flag.unwrap_or(0)),
        _ => rt_api::event_create(out, flag, api),
    }
}

/// `aclrtDestroyEventImpl`: NULL 100000.
pub(crate) fn destroy_event(ev: usize) -> Res<()> {
    not_null(ev == 0, "event")?;
    rt_api::event_destroy(ev)
}

/// `aclrtGetEventAvailNumImpl`: NULL output 100000.
pub(crate) fn events_available(out: Out<u32>) -> Res<()> {
    not_null(out.is_null(), "eventCount")?;
    rt_api::events_available(out)
}

/// `aclrtRecordEventImpl`: NULL event 100000.
pub(crate) fn record_event(ev: usize, stream: usize) -> Res<()> {
    not_null(ev == 0, "event")?;
    rt_api::event_record(ev, stream)
}

/// `aclrtResetEventImpl`: NULL event 100000.
pub(crate) fn reset_event(ev: usize, stream: usize) -> Res<()> {
    not_null(ev == 0, "event")?;
    rt_api::event_reset(ev, stream)
}

/// `aclrtQueryEventImpl`: NULL event, then NULL status, 100000; "not
/// complete" becomes `ACL_EVENT_STATUS_NOT_READY`.
pub(crate) fn query_event(ev: usize, out: Out<u32>) -> Res<()> {
    not_null(ev == 0, "event")?;
    not_null(out.is_null(), "status")?;
    let done = rt_api::event_query(ev)?;
    out.write(if done {
        ffi::ACL_EVENT_STATUS_COMPLETE
    } else {
        ffi::ACL_EVENT_STATUS_NOT_READY
    });
    Ok(())
}

/// `aclrtQueryEventStatusImpl`: NULL event, then NULL status, 100000.
pub(crate) fn query_event_status(ev: usize, out: Out<u32>) -> Res<()> {
    not_null(ev == 0, "event")?;
    not_null(out.is_null(), "status")?;
    let recorded = rt_api::event_query_status(ev)?;
    out.write(if recorded {
        ffi::ACL_EVENT_RECORDED_STATUS_COMPLETE
    } else {
        ffi::ACL_EVENT_RECORDED_STATUS_NOT_READY
    });
    Ok(())
}

/// `aclrtQueryEventWaitStatusImpl`: NULL event, then NULL status, 100000.
pub(crate) fn query_event_wait_status(ev: usize, out: Out<u32>) -> Res<()> {
    not_null(ev == 0, "event")?;
    not_null(out.is_null(), "status")?;
    let done = rt_api::event_query_wait_status(ev)?;
    out.write(if done {
        ffi::ACL_EVENT_WAIT_STATUS_COMPLETE
    } else {
        ffi::ACL_EVENT_WAIT_STATUS_NOT_READY
    });
    Ok(())
}

/// `aclrtSynchronizeEvent[WithTimeout]Impl`: a timeout below −1 107000,
/// then NULL event 100000 (0 is the runtime's to refuse).
pub(crate) fn synchronize_event(ev: usize, timeout: Option<i32>) -> Res<()> {
    timeout_at_least_minus_one(timeout)?;
    not_null(ev == 0, "event")?;
    rt_api::event_synchronize(ev, timeout)
}

/// `aclrtEventElapsedTimeImpl`: NULL output, start, end: 100000, in that
/// order.
pub(crate) fn event_elapsed_time(out: Out<f32>, start: usize, end: usize) -> Res<()> {
    not_null(out.is_null(), "ms")?;
    not_null(start == 0, "startEvent")?;
    not_null(end == 0, "endEvent")?;
    rt_api::event_elapsed(out, start, end)
}

/// `aclrtEventGetTimestampImpl`: NULL output, then NULL event, 100000.
pub(crate) fn event_timestamp(ev: usize, out: Out<u64>) -> Res<()> {
    not_null(out.is_null(), "timestamp")?;
    not_null(ev == 0, "event")?;
    rt_api::event_timestamp(ev, out)
}

// -------------------------------------------------------------- memory ---

/// `aclrtMallocImpl` and `aclrtMallocAlign32Impl` (`aclMallocMemInner`),
/// `aclrtMallocCachedImpl`, `aclrtMallocHostImpl`: NULL output, then a
/// size of 0 (100000); for the device allocations the padded size
/// overflowing (100000, `GetAlignedAndPaddingSize`); any policy value is
/// translated (an unknown one to the default flags), never refused.
pub(crate) fn malloc(out: Out<*mut c_void>, size: usize, policy: u32, f: MallocFn) -> Res<()> {
    let what = if f == MallocFn::Host {
        "hostPtr"
    } else {
        "devPtr"
    };
    not_null(out.is_null(), what)?;
    if size == 0 {
        return refuse(param("size must not be 0"));
    }
    if memory::padded_size(size, f, policy).is_none() {
        return refuse(param(format!("size {size} overflows when padded")));
    }
    rt_api::malloc(out, size, policy, f)
}

/// `aclrtFreeImpl`, `aclrtFreeHostImpl` and their `WithDevSync` forms:
/// NULL 100000.
pub(crate) fn free(addr: usize, kind: AllocKind, dev_sync: bool) -> Res<()> {
    let what = if kind == AllocKind::Host {
        "hostPtr"
    } else {
        "devPtr"
    };
    not_null(addr == 0, what)?;
    rt_api::free(addr, kind, dev_sync)
}

/// `aclrtGetMemInfoImpl`: NULL free, then total (100000); the attribute
/// is passed on untranslated.
pub(crate) fn get_mem_info(attr: u32, free: Out<usize>, total: Out<usize>) -> Res<()> {
    not_null(free.is_null(), "free")?;
    not_null(total.is_null(), "total")?;
    rt_api::get_mem_info(attr, free, total)
}

// ---------------------------------------------------- host registration ---

/// `aclrtHostRegisterImpl`: NULL ptr, NULL devPtr, size 0 (100000).
pub(crate) fn host_register(
    ptr: UserMem,
    size: u64,
    ty: u32,
    dev_ptr: Out<*mut c_void>,
) -> Res<()> {
    not_null(ptr.is_null(), "ptr")?;
    not_null(dev_ptr.is_null(), "devPtr")?;
    if size == 0 {
        return refuse(param("size must not be 0"));
    }
    rt_api::host_register(ptr, size, ty, dev_ptr)
}

/// `aclrtHostRegisterV2Impl`: NULL ptr, size 0 (100000).
pub(crate) fn host_register_v2(ptr: UserMem, size: u64, flag: u32) -> Res<()> {
    not_null(ptr.is_null(), "ptr")?;
    if size == 0 {
        return refuse(param("size must not be 0"));
    }
    rt_api::host_register_v2(ptr, size, flag)
}

/// `aclrtHostGetDevicePointerImpl`: NULL pHost, NULL pDevice, a flag other
/// than 0 (the reserved-parameter check): 100000.
pub(crate) fn host_get_device_pointer(
    p_host: UserMem,
    p_device: Out<*mut c_void>,
    flag: u32,
) -> Res<()> {
    not_null(p_host.is_null(), "pHost")?;
    not_null(p_device.is_null(), "pDevice")?;
    if flag != 0 {
        return refuse(param(format!("flag must be 0 (got {flag:#x})")));
    }
    rt_api::host_get_device_pointer(p_host, p_device)
}

/// `aclrtHostUnregisterImpl`: NULL 100000.
pub(crate) fn host_unregister(ptr: UserMem) -> Res<()> {
    not_null(ptr.is_null(), "ptr")?;
    rt_api::host_unregister(ptr)
}

/// `aclrtMemAllocManagedImpl`: NULL 100000, a flag other than
/// `ACL_RT_MEM_ATTACH_GLOBAL` 100000 (the size is the runtime's).
pub(crate) fn alloc_managed(out: Out<*mut c_void>, size: u64, flag: u32) -> Res<()> {
    not_null(out.is_null(), "ptr")?;
    if flag != crate::hostreg::ACL_RT_MEM_ATTACH_GLOBAL {
        return refuse(param(format!(
            "flag must be ACL_RT_MEM_ATTACH_GLOBAL (1), got {flag:#x}"
        )));
    }
    rt_api::alloc_managed(out, size)
}

// ---------------------------------------------------- stream launches ---

/// `aclrtMemsetImpl`: a count of 0 succeeds at once; NULL 100000.
pub(crate) fn memset(dst: UserMem, max_count: usize, value: i32, count: usize) -> Res<()> {
    if count == 0 {
        return Ok(());
    }
    not_null(dst.is_null(), "devPtr")?;
    rt_api::memset(dst, max_count, value, count)
}

/// `aclrtMemcpyImpl`: a count of 0 succeeds at once (even with NULL
/// pointers); NULL dst, then src, 100000; the kind translated (100000).
pub(crate) fn memcpy(
    dst: UserMem,
    dest_max: usize,
    src: UserMem,
    count: usize,
    kind: u32,
) -> Res<()> {
    if count == 0 {
        return Ok(());
    }
    not_null(dst.is_null(), "dst")?;
    not_null(src.is_null(), "src")?;
    let kind = memory::kind_1d(kind).map_err(Error::answered_by_acl)?;
    rt_api::memcpy(dst, dest_max, src, count, kind)
}

/// `aclrtMemsetAsyncImpl`: a count of 0 succeeds at once; NULL 100000.
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
    not_null(dst.is_null(), "devPtr")?;
    rt_api::memset_async(dst, max_count, value, count, stream)
}

/// `aclrtMemcpyAsyncImpl`: a count of 0 succeeds at once (even with NULL
/// pointers); NULL dst, then src, 100000; the kind translated (100000 for
/// one the runtime does not take).
pub(crate) fn memcpy_async(
    dst: UserMem,
    dest_max: usize,
    src: UserMem,
    count: usize,
    kind: u32,
    stream: usize,
) -> Res<()> {
    if count == 0 {
        return Ok(());
    }
    not_null(dst.is_null(), "dst")?;
    not_null(src.is_null(), "src")?;
    let kind = memory::kind_1d(kind).map_err(Error::answered_by_acl)?;
    rt_api::memcpy_async(dst, dest_max, src, count, kind, stream)
}

/// `aclrtMemcpy2dImpl`: a width or height of 0 succeeds at once; then
/// `CheckMemcpy2dParam` (NULL, a width above a pitch, the kind: 100000).
pub(crate) fn memcpy_2d(
    dst: UserMem,
    dpitch: usize,
    src: UserMem,
    spitch: usize,
    width: usize,
    height: usize,
    kind: u32,
) -> Res<()> {
    if width == 0 || height == 0 {
        return Ok(());
    }
    let kind = memory::check_2d_args(&dst, dpitch, &src, spitch, width, kind)
        .map_err(Error::answered_by_acl)?;
    rt_api::memcpy_2d(dst, dpitch, src, spitch, width, height, kind)
}

/// `aclrtMemcpy2dAsyncImpl`: a width or height of 0 succeeds at once; then
/// `CheckMemcpy2dParam` (NULL, a width above a pitch, the kind: 100000).
#[allow(clippy::too_many_arguments)]
pub(crate) fn memcpy_2d_async(
    dst: UserMem,
    dpitch: usize,
    src: UserMem,
    spitch: usize,
    width: usize,
    height: usize,
    kind: u32,
    stream: usize,
) -> Res<()> {
    if width == 0 || height == 0 {
        return Ok(());
    }
    let kind = memory::check_2d_args(&dst, dpitch, &src, spitch, width, kind)
        .map_err(Error::answered_by_acl)?;
    rt_api::memcpy_2d_async(dst, dpitch, src, spitch, width, height, kind, stream)
}

/// `aclrtLaunchHostFuncImpl` (no check of its own: a NULL function is the
/// runtime's to refuse).
pub(crate) fn launch_host_func(
    stream: usize,
    f: Option<unsafe extern "C" fn(*mut c_void)>,
    make: impl FnOnce(unsafe extern "C" fn(*mut c_void)) -> HostCall,
) -> Res<()> {
    rt_api::launch_host_func(stream, f, make)
}

/// `aclrtLaunchKernelImpl`: NULL function, then NULL argument block,
/// 100000.
pub(crate) fn launch_kernel(
    func: usize,
    num_blocks: u32,
    args: usize,
    size: usize,
    stream: usize,
) -> Res<()> {
    not_null(func == 0, "funcHandle")?;
    not_null(args == 0, "argsData")?;
    rt_api::launch_kernel(func, num_blocks, args, size, stream)
}

/// `aclrtLaunchKernelWithConfigImpl`: NULL function, numBlocks 0, NULL
/// argument list, a reserve that is not NULL (100000, in that order).
pub(crate) fn launch_kernel_with_config(
    func: usize,
    num_blocks: u32,
    stream: usize,
    cfg: crate::kernel::LaunchCfg,
    args: usize,
    reserve_null: bool,
) -> Res<()> {
    not_null(func == 0, "funcHandle")?;
    if num_blocks == 0 {
        return refuse(param("numBlocks is 0"));
    }
    not_null(args == 0, "argsHandle")?;
    if !reserve_null {
        return refuse(param("reserve must be NULL"));
    }
    rt_api::launch_kernel_with_config(func, num_blocks, stream, cfg, args)
}

/// `aclrtBinaryUnLoadImpl`: NULL 100000.
pub(crate) fn binary_unload(bin: usize) -> Res<()> {
    not_null(bin == 0, "binHandle")?;
    rt_api::binary_unload(bin)
}

/// `aclrtBinaryGetFunctionImpl`: NULL binary, name, output (100000).
pub(crate) fn get_function(bin: usize, name: Option<&str>, out_null: bool) -> Res<usize> {
    not_null(bin == 0, "binHandle")?;
    let Some(name) = name else {
        return refuse(param("kernelName is NULL"));
    };
    not_null(out_null, "funcHandle")?;
    rt_api::get_function(bin, name)
}

/// `aclrtKernelArgsInitImpl`: NULL function, NULL output (100000).
pub(crate) fn args_init(func: usize, out_null: bool) -> Res<usize> {
    not_null(func == 0, "funcHandle")?;
    not_null(out_null, "argsHandle")?;
    rt_api::args_init(func)
}

/// `aclrtKernelArgsAppendImpl`: NULL list, NULL param, a size of 0, NULL
/// output (100000, in that order).
pub(crate) fn args_append(args: usize, value: Option<&[u8]>, out_null: bool) -> Res<usize> {
    not_null(args == 0, "argsHandle")?;
    let Some(value) = value else {
        return refuse(param("param is NULL"));
    };
    if value.is_empty() {
        return refuse(param("paramSize is 0"));
    }
    not_null(out_null, "paramHandle")?;
    rt_api::args_append(args, Some(value))
}

/// `aclrtKernelArgsAppendPlaceHolderImpl`: NULL list, NULL output (100000).
pub(crate) fn args_append_placeholder(args: usize, out_null: bool) -> Res<usize> {
    not_null(args == 0, "argsHandle")?;
    not_null(out_null, "paramHandle")?;
    rt_api::args_append(args, None)
}

/// `aclrtKernelArgsGetPlaceHolderBufferImpl`: NULL list, NULL placeholder,
/// a size of 0, NULL output (100000, in that order), before the runtime's
/// handle guard of the list.
pub(crate) fn args_placeholder_buffer(
    args: usize,
    placeholder: usize,
    size: usize,
    out_null: bool,
) -> Res<*mut u8> {
    not_null(args == 0, "argsHandle")?;
    not_null(placeholder == 0, "paramHandle")?;
    if size == 0 {
        return refuse(param("dataSize is 0"));
    }
    not_null(out_null, "bufferAddr")?;
    rt_api::args_placeholder_buffer(args, placeholder, size)
}

/// `aclrtKernelArgsFinalizeImpl`: NULL 100000.
pub(crate) fn args_finalize(args: usize) -> Res<()> {
    not_null(args == 0, "argsHandle")?;
    rt_api::args_finalize(args)
}

/// `aclrtSubscribeReportImpl` (no check of its own).
pub(crate) fn subscribe_report(tid: u64, stream: usize) -> Res<()> {
    rt_api::subscribe_report(tid, stream)
}

/// `aclrtUnSubscribeReportImpl` (no check of its own).
pub(crate) fn unsubscribe_report(tid: u64, stream: usize) -> Res<()> {
    rt_api::unsubscribe_report(tid, stream)
}

/// `aclrtProcessReportImpl`: a timeout of 0 or below −1 is 100000 here.
pub(crate) fn process_report(timeout: i32) -> Res<()> {
    if timeout == 0 || timeout < -1 {
        return refuse(param(format!(
            "timeout {timeout} is invalid: use -1 (wait forever) or a positive number of ms"
        )));
    }
    rt_api::process_report(timeout)
}

/// `aclrtLaunchCallbackImpl`: blockType other than NO_BLOCK (0) or BLOCK
/// (1) 100000; a NULL function is the runtime's to refuse.
pub(crate) fn launch_callback(
    f: Option<unsafe extern "C" fn(*mut c_void)>,
    block_type: u32,
    stream: usize,
    make: impl FnOnce(unsafe extern "C" fn(*mut c_void)) -> HostCall,
) -> Res<()> {
    let block = match block_type {
        ffi::ACL_CALLBACK_NO_BLOCK => false,
        ffi::ACL_CALLBACK_BLOCK => true,
        other => {
            return refuse(param(format!(
                "blockType {other} is neither ACL_CALLBACK_NO_BLOCK (0) nor ACL_CALLBACK_BLOCK (1)"
            )));
        }
    };
    rt_api::callback_launch(f, block, stream, make)
}
