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

// ------------------------------- devices, streams and threads (2) ---

/// `aclrtGetDeviceInfoImpl`: NULL output 100000.
pub(crate) fn get_device_info(id: u32, attr: u32, out: Out<i64>) -> Res<()> {
    not_null(out.is_null(), "value")?;
    rt_api::device_get_info(id, attr, out)
}

/// `aclrtGetDeviceCapabilityImpl`: NULL output 100000.
pub(crate) fn get_device_capability(id: i32, feature: i32, out: Out<i32>) -> Res<()> {
    not_null(out.is_null(), "value")?;
    rt_api::device_get_capability(id, feature, out)
}

/// `aclrtQueryDeviceStatusImpl`: NULL output 100000.
pub(crate) fn query_device_status(id: i32, out: Out<u32>) -> Res<()> {
    not_null(out.is_null(), "deviceStatus")?;
    rt_api::device_status_query(id, out)
}

/// What `aclrtGetDeviceUtilizationRateImpl` writes: cube, vector and AI
/// CPU utilisation (each −1 when the runtime cannot tell), memory always
/// −1 (not supported).
pub(crate) struct Utilization {
    pub cube: i32,
    pub vector: i32,
    pub aicpu: i32,
    pub memory: i32,
}

/// `aclrtGetDeviceUtilizationRateImpl`: NULL output 100000, a non-NULL
/// reserved `utilizationExtend` 100000; then one runtime query per kind,
/// whose failure is the kind's −1 (never an error of the call).
pub(crate) fn get_device_utilization(
    id: i32,
    out_null: bool,
    extend_null: bool,
) -> Res<Utilization> {
    not_null(out_null, "utilizationInfo")?;
    if !extend_null {
        return refuse(param(
            "utilizationInfo->utilizationExtend is reserved and must be NULL",
        ));
    }
    let rate = || rt_api::utilization(id).unwrap_or(-1);
    Ok(Utilization {
        cube: rate(),
        vector: rate(),
        aicpu: rate(),
        memory: -1,
    })
}

/// `aclrtGetDeviceResLimitImpl`: NULL output 100000.
pub(crate) fn get_device_res_limit(id: i32, kind: u32, out: Out<u32>) -> Res<()> {
    not_null(out.is_null(), "value")?;
    rt_api::get_device_res_limit(id, kind, out)
}

/// `aclrtSetDeviceResLimitImpl` (no check of its own).
pub(crate) fn set_device_res_limit(id: i32, kind: u32, value: u32) -> Res<()> {
    rt_api::set_device_res_limit(id, kind, value)
}

/// `aclrtResetDeviceResLimitImpl` (no check of its own).
pub(crate) fn reset_device_res_limit(id: i32) -> Res<()> {
    rt_api::reset_device_res_limit(id)
}

/// `aclrtGetResInCurrentThreadImpl`: NULL output 100000.
pub(crate) fn get_res_in_current_thread(kind: u32, out: Out<u32>) -> Res<()> {
    not_null(out.is_null(), "value")?;
    rt_api::res_in_current_thread(kind, out)
}

/// `aclrtSetDeviceSatModeImpl` (no check of its own).
pub(crate) fn set_device_sat_mode(mode: u32) -> Res<()> {
    rt_api::set_device_sat_mode(mode)
}

/// `aclrtGetDeviceSatModeImpl`: NULL output 100000.
pub(crate) fn get_device_sat_mode(out: Out<u32>) -> Res<()> {
    not_null(out.is_null(), "mode")?;
    rt_api::get_device_sat_mode(out)
}

/// `aclrtCheckArchCompatibilityImpl` (no check of its own).
pub(crate) fn check_arch_compatibility(om_soc: Option<&str>, out: Out<i32>) -> Res<()> {
    rt_api::check_arch_compatibility(om_soc, out)
}

/// `aclrtDeviceGetBareTgidImpl`: NULL output 100000.
pub(crate) fn device_get_bare_tgid(out: Out<i32>) -> Res<()> {
    not_null(out.is_null(), "pid")?;
    rt_api::device_get_bare_tgid(out)
}

/// `aclrtGetErrorVerboseImpl`: NULL output 100000; then the runtime's
/// answer, of which the ACL layer copies `tryRepair`, `hasDetail`,
/// `errorType` and the AI Core error kind (the detail of a memory error
/// only for one). Returns `(tryRepair, hasDetail, errorType,
/// aicoreErrType)` to write.
pub(crate) fn get_error_verbose(id: i32, out_null: bool) -> Res<(u8, u8, u32, u32)> {
    not_null(out_null, "errorInfo")?;
    rt_api::get_error_verbose(id)?;
    Ok((0, 0, ffi::ACL_RT_NO_ERROR, ffi::ACL_RT_AICORE_ERROR_UNKNOWN))
}

/// `aclrtGetThreadLastTaskIdImpl`: NULL output 100000.
pub(crate) fn get_thread_last_task_id(out: Out<u32>) -> Res<()> {
    not_null(out.is_null(), "taskId")?;
    rt_api::thread_last_task_id(out)
}

/// `aclrtStreamGetIdImpl`: NULL output 100000.
pub(crate) fn stream_get_id(h: usize, out: Out<i32>) -> Res<()> {
    not_null(out.is_null(), "streamId")?;
    rt_api::stream_get_id(h, out)
}

/// `aclrtStreamGetFlagsImpl`: NULL output 100000; the runtime's flags
/// translated to the ACL bits (the same values here).
pub(crate) fn stream_get_flags(h: usize, out: Out<u32>) -> Res<()> {
    not_null(out.is_null(), "flags")?;
    rt_api::stream_get_flags(h, out)
}

/// `aclrtSetStreamOverflowSwitchImpl`: a flag other than 0 or 1 100000.
pub(crate) fn set_stream_overflow_switch(h: usize, flag: u32) -> Res<()> {
    if flag > 1 {
        return refuse(param(format!("flag {flag} must be 0 or 1")));
    }
    rt_api::set_stream_overflow_switch(h, flag)
}

/// `aclrtGetStreamOverflowSwitchImpl`: NULL output 100000.
pub(crate) fn get_stream_overflow_switch(h: usize, out: Out<u32>) -> Res<()> {
    not_null(out.is_null(), "flag")?;
    rt_api::get_stream_overflow_switch(h, out)
}

/// `aclrtActiveStreamImpl`: NULL `activeStream`, then NULL `stream`,
/// 100000.
pub(crate) fn active_stream(active: usize, stream: usize) -> Res<()> {
    not_null(active == 0, "activeStream")?;
    not_null(stream == 0, "stream")?;
    rt_api::stream_active(active, stream)
}

/// `aclrtSwitchStreamImpl`: NULL `leftValue`, `rightValue`, `trueStream`,
/// `stream` 100000 (in that order), a non-NULL reserved `falseStream`
/// 100000.
pub(crate) fn switch_stream(
    left_null: bool,
    cond: u32,
    right_null: bool,
    data_type: u32,
    true_stream: usize,
    false_stream: usize,
    stream: usize,
) -> Res<()> {
    not_null(left_null, "leftValue")?;
    not_null(right_null, "rightValue")?;
    not_null(true_stream == 0, "trueStream")?;
    not_null(stream == 0, "stream")?;
    if false_stream != 0 {
        return refuse(param("falseStream is reserved and must be NULL"));
    }
    rt_api::stream_switch(cond, data_type, true_stream, stream)
}

/// `aclrtStreamStopImpl` (no check of its own).
pub(crate) fn stream_stop(h: usize) -> Res<()> {
    rt_api::stream_stop(h)
}

// ------------------------------------------- stream configuration handles ---
//
// `aclrtCreateStreamConfigHandle`, `aclrtSetStreamConfigOpt`,
// `aclrtDestroyStreamConfigHandle` and `aclrtCreateStreamV2` are the ACL
// layer's own (`src/acl/aclrt_c/runtime/stream.c` of the runtime's source,
// with the compact runtime's `rtStreamCreateWithConfig`): no check of the
// runtime's decides them, so none of their refusals is stored.

/// The handles `aclrtCreateStreamConfigHandle` gave out and
/// `aclrtDestroyStreamConfigHandle` has not taken back (by address).
static CONFIG_HANDLES: std::sync::Mutex<Vec<usize>> = std::sync::Mutex::new(Vec::new());

/// Records a handle made by `aclrtCreateStreamConfigHandle`.
pub(crate) fn config_handle_created(addr: usize) {
    crate::sync::lock(&CONFIG_HANDLES).push(addr);
}

/// `aclrtDestroyStreamConfigHandle`: NULL 100000; a handle this runtime did
/// not make (or already destroyed) would be freed blindly by the runtime
/// (`mmFree`): the simulator refuses it with 100000 and records it (rule
/// STRICT-FOREIGN-FREE). `Ok` means the caller frees it now.
pub(crate) fn config_handle_destroyed(addr: usize) -> Res<()> {
    not_null(addr == 0, "handle")?;
    let mut live = crate::sync::lock(&CONFIG_HANDLES);
    match live.iter().position(|&a| a == addr) {
        Some(i) => {
            live.swap_remove(i);
            Ok(())
        }
        None => refuse(
            Error::violation(
                crate::model::ViolationKind::ForeignFree,
                ffi::ACL_ERROR_INVALID_PARAM,
                format!(
                    "handle {addr:#x} was not made by aclrtCreateStreamConfigHandle, or was \
                     destroyed already"
                ),
            )
            .on(addr),
        ),
    }
}

/// The field of a stream configuration `aclrtSetStreamConfigOpt` sets.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum ConfigField {
    /// `workptr`: a pointer.
    WorkPtr,
    /// `workSize`: a `size_t`.
    WorkSize,
    /// `flag`: a `size_t`.
    Flag,
    /// `priority`: a `uint32_t` in 0..=7.
    Priority,
}

impl ConfigField {
    /// The bytes the value must have.
    pub(crate) fn size(self) -> usize {
        match self {
            ConfigField::Priority => size_of::<u32>(),
            ConfigField::WorkPtr => size_of::<*mut c_void>(),
            ConfigField::WorkSize | ConfigField::Flag => size_of::<usize>(),
        }
    }
}

/// `aclrtSetStreamConfigOpt`, before the value is read: NULL handle or
/// value 100000; an attribute beyond `ACL_RT_STREAM_PRIORITY` 100000; a
/// value of the wrong size 100000.
pub(crate) fn stream_config_field(
    handle_null: bool,
    value_null: bool,
    attr: u32,
    size: usize,
) -> Res<ConfigField> {
    if handle_null || value_null {
        return refuse(param(if handle_null {
            "handle is NULL"
        } else {
            "attrValue is NULL"
        }));
    }
    let field = match attr {
        ffi::ACL_RT_STREAM_WORK_ADDR_PTR => ConfigField::WorkPtr,
        ffi::ACL_RT_STREAM_WORK_SIZE => ConfigField::WorkSize,
        ffi::ACL_RT_STREAM_FLAG => ConfigField::Flag,
        ffi::ACL_RT_STREAM_PRIORITY => ConfigField::Priority,
        _ => {
            return refuse(param(format!(
                "attr {attr} is not a stream configuration attribute"
            )));
        }
    };
    if size != field.size() {
        return refuse(param(format!(
            "valueSize {size} is invalid for attr {attr}: it should be {}",
            field.size()
        )));
    }
    Ok(field)
}

/// `aclrtSetStreamConfigOpt` for the priority, once read: 0..=7 (100000).
pub(crate) fn stream_config_priority(value: u32) -> Res<()> {
    if value > crate::stream::LEAST_PRIORITY as u32 {
        return refuse(param(format!("priority {value} is not in [0, 7]")));
    }
    Ok(())
}

/// `aclrtCreateStreamV2`: NULL output 100000; then a stream of the current
/// context (107002 without one) with the configuration's priority (the
/// flags and the work area are not used by the stream it creates).
pub(crate) fn create_stream_v2(out: Out<usize>, priority: u32) -> Res<()> {
    not_null(out.is_null(), "stream")?;
    rt_api::stream_create(out, 0, Some(priority))
}

/// `aclrtRegStreamStateCallbackImpl`: NULL name 100000.
pub(crate) fn reg_stream_state_callback(
    name: Option<&[u8]>,
    callback: Option<crate::prim::StateCall>,
) -> Res<()> {
    let Some(name) = name else {
        return refuse(param("regName is NULL"));
    };
    rt_api::reg_stream_state_callback(name, callback)
}

/// `aclrtGetOverflowStatusImpl`: NULL `outputAddr` 100000.
pub(crate) fn get_overflow_status(dst: UserMem, size: usize, stream: usize) -> Res<()> {
    not_null(dst.is_null(), "outputAddr")?;
    rt_api::get_overflow_status(dst, size as u64, stream)
}

/// `aclrtResetOverflowStatusImpl` (no check of its own).
pub(crate) fn reset_overflow_status(stream: usize) -> Res<()> {
    rt_api::reset_overflow_status(stream)
}

// -------------------------------------------------------- data buffers ---
//
// `aclCreateDataBuffer` and its kin are the ACL layer's alone
// (`data_buffer.cpp`): a buffer is an address and a length, nothing the
// runtime checks. The simulator keeps every buffer it made in a table and
// answers through it, never through the caller's pointer: a pointer it did
// not make (or destroyed) is refused and recorded (the runtime would read
// or free it blindly).

/// One `aclDataBuffer`.
struct DataBuffer {
    data: usize,
    length: usize,
}

/// The live buffers by the address handed out (each box's own address).
static DATA_BUFFERS: std::sync::Mutex<std::collections::BTreeMap<usize, Box<DataBuffer>>> =
    std::sync::Mutex::new(std::collections::BTreeMap::new());

/// The refusal of a data buffer pointer this runtime did not make.
fn not_a_data_buffer(addr: usize) -> Error {
    Error::violation(
        crate::model::ViolationKind::InvalidHandle,
        ffi::ACL_ERROR_INVALID_PARAM,
        format!("{addr:#x} is not a data buffer made by aclCreateDataBuffer (or it was destroyed)"),
    )
    .on(addr)
    .answered_by_acl()
}

/// `aclCreateDataBufferImpl`: any address and length (NULL and 0 too);
/// returns the buffer's address.
pub(crate) fn create_data_buffer(data: usize, length: usize) -> usize {
    let b = Box::new(DataBuffer { data, length });
    let addr = core::ptr::from_ref::<DataBuffer>(&b).addr();
    crate::sync::lock(&DATA_BUFFERS).insert(addr, b);
    addr
}

/// `aclDestroyDataBufferImpl`: NULL 100000.
pub(crate) fn destroy_data_buffer(addr: usize) -> Res<()> {
    not_null(addr == 0, "dataBuffer")?;
    match crate::sync::lock(&DATA_BUFFERS).remove(&addr) {
        Some(_) => Ok(()),
        None => Err(not_a_data_buffer(addr)),
    }
}

/// `aclUpdateDataBufferImpl`: NULL 100000; the new address and length.
pub(crate) fn update_data_buffer(addr: usize, data: usize, length: usize) -> Res<()> {
    not_null(addr == 0, "dataBuffer")?;
    match crate::sync::lock(&DATA_BUFFERS).get_mut(&addr) {
        Some(b) => {
            b.data = data;
            b.length = length;
            Ok(())
        }
        None => Err(not_a_data_buffer(addr)),
    }
}

/// `aclGetDataBufferAddrImpl` / `aclGetDataBufferSize[V2]Impl`: `(address,
/// length)`; NULL answers `(0, 0)` without a message.
pub(crate) fn data_buffer(addr: usize) -> Res<(usize, usize)> {
    if addr == 0 {
        return Ok((0, 0));
    }
    crate::sync::lock(&DATA_BUFFERS)
        .get(&addr)
        .map(|b| (b.data, b.length))
        .ok_or_else(|| not_a_data_buffer(addr))
}
