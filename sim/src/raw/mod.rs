//! The C entry layer: the exported C ABI, one thin `extern "C"` function per
//! declaration of the project's header. Each wraps its raw arguments
//! (out-pointers, application pointers, callbacks, C strings) into the types
//! of [`prim`](crate::prim),
//! stating the C caller's obligations, and calls the safe runtime through
//! [`call`], which counts the call, applies injected faults and turns errors
//! into codes, messages and violations.
//!
//! Handles (`aclrtContext`, `aclrtStream`, `aclrtEvent`) are opaque integers
//! to the runtime: they are looked up in its tables and never dereferenced.

use core::ffi::{CStr, c_char, c_void};

use crate::diag::{self, Api, call, with_api_list};
use crate::ffi::{
    aclCANNPackageName, aclCANNPackageVersion, aclError, aclrtArgsHandle, aclrtBinHandle,
    aclrtBinaryLoadOptions, aclrtCallback, aclrtCallbackBlockType, aclrtContext, aclrtEvent,
    aclrtEventRecordedStatus, aclrtEventStatus, aclrtEventWaitStatus, aclrtFuncHandle,
    aclrtHostFunc, aclrtHostRegisterType, aclrtLastErrLevel, aclrtLaunchKernelCfg, aclrtMemAttr,
    aclrtMemMallocPolicy, aclrtMemcpyKind, aclrtParamHandle, aclrtRunMode, aclrtStream,
    aclrtStreamStatus,
};
use crate::memory::MallocFn;
use crate::prim::{HostCall, Out, OutBuf, UserMem};
use crate::rt::exec::EventApi;
use crate::rt::mem::AllocKind;
use crate::{acl_layer, init, kernel, misc, stream};

mod base;
mod ext;
pub use ext::*;
mod surface;
#[allow(clippy::wildcard_imports, unused_imports)]
use surface::*;

/// Reads an optional C string argument.
///
/// # Safety
/// `p` is null or points to a NUL-terminated string valid for the call.
unsafe fn c_str<'a>(p: *const c_char) -> Option<&'a CStr> {
    // SAFETY: non-null `p` is a valid NUL-terminated string (contract of
    // this function, i.e. of the C function that received it).
    (!p.is_null()).then(|| unsafe { CStr::from_ptr(p) })
}

/// A handle's integer value (handles are never dereferenced).
fn h(p: *mut c_void) -> usize {
    p.addr()
}

/// An integer handle as the opaque pointer the C API hands out.
fn handle_ptr(v: usize) -> *mut c_void {
    core::ptr::without_provenance_mut(v)
}

// ------------------------------------------------------------- process ---

/// `aclInit`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn aclInit(config_path: *const c_char) -> aclError {
    // SAFETY: the C contract of aclInit: `configPath` is NULL or a
    // NUL-terminated path.
    let path = unsafe { c_str(config_path) };
    call(Api::aclInit, || match path.map(CStr::to_str) {
        None => init::init(None),
        Some(Ok(p)) => init::init(Some(p)),
        Some(Err(_)) => Err(diag::param("configPath is not valid UTF-8")),
    })
}

/// `aclFinalize`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn aclFinalize() -> aclError {
    call(Api::aclFinalize, init::finalize)
}

/// `aclFinalizeReference`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn aclFinalizeReference(ref_count: *mut u64) -> aclError {
    // SAFETY: C contract: `refCount` is NULL or writable.
    let out = unsafe { Out::new(ref_count) };
    call(Api::aclFinalizeReference, || init::finalize_reference(out))
}

/// `aclGetRecentErrMsg`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn aclGetRecentErrMsg() -> *const c_char {
    diag::count_only(Api::aclGetRecentErrMsg);
    diag::take_recent_message()
}

/// `aclrtGetSocName`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn aclrtGetSocName() -> *const c_char {
    diag::count_only(Api::aclrtGetSocName);
    misc::soc_name().as_ptr()
}

// ------------------------------------------------------------- devices ---

/// `aclrtSetDevice`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn aclrtSetDevice(device_id: i32) -> aclError {
    call(Api::aclrtSetDevice, || acl_layer::set_device(device_id))
}

/// `aclrtResetDevice`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn aclrtResetDevice(device_id: i32) -> aclError {
    call(Api::aclrtResetDevice, || {
        acl_layer::reset_device(device_id, false)
    })
}

/// `aclrtResetDeviceForce`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn aclrtResetDeviceForce(device_id: i32) -> aclError {
    call(Api::aclrtResetDeviceForce, || {
        acl_layer::reset_device(device_id, true)
    })
}

/// `aclrtGetDevice`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn aclrtGetDevice(device_id: *mut i32) -> aclError {
    // SAFETY: C contract: `deviceId` is NULL or writable.
    let out = unsafe { Out::new(device_id) };
    call(Api::aclrtGetDevice, || acl_layer::get_device(out))
}

/// `aclrtGetDeviceCount`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn aclrtGetDeviceCount(count: *mut u32) -> aclError {
    // SAFETY: C contract: `count` is NULL or writable.
    let out = unsafe { Out::new(count) };
    call(Api::aclrtGetDeviceCount, || acl_layer::device_count(out))
}

/// `aclrtGetRunMode`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn aclrtGetRunMode(run_mode: *mut aclrtRunMode) -> aclError {
    // SAFETY: C contract: `runMode` is NULL or writable.
    let out = unsafe { Out::new(run_mode) };
    call(Api::aclrtGetRunMode, || acl_layer::run_mode(out))
}

/// `aclrtSynchronizeDevice`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn aclrtSynchronizeDevice() -> aclError {
    call(Api::aclrtSynchronizeDevice, || {
        acl_layer::synchronize_device(None)
    })
}

/// `aclrtSynchronizeDeviceWithTimeout`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn aclrtSynchronizeDeviceWithTimeout(timeout: i32) -> aclError {
    call(Api::aclrtSynchronizeDeviceWithTimeout, || {
        acl_layer::synchronize_device(Some(timeout))
    })
}

/// `aclrtDeviceCanAccessPeer`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn aclrtDeviceCanAccessPeer(
    can_access_peer: *mut i32,
    device_id: i32,
    peer_device_id: i32,
) -> aclError {
    // SAFETY: C contract: `canAccessPeer` is NULL or writable.
    let out = unsafe { Out::new(can_access_peer) };
    call(Api::aclrtDeviceCanAccessPeer, || {
        acl_layer::device_can_access_peer(out, device_id, peer_device_id)
    })
}

/// `aclrtDeviceEnablePeerAccess`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn aclrtDeviceEnablePeerAccess(peer_device_id: i32, flags: u32) -> aclError {
    call(Api::aclrtDeviceEnablePeerAccess, || {
        acl_layer::peer_access(peer_device_id, flags, true)
    })
}

/// `aclrtDeviceDisablePeerAccess`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn aclrtDeviceDisablePeerAccess(peer_device_id: i32) -> aclError {
    call(Api::aclrtDeviceDisablePeerAccess, || {
        acl_layer::peer_access(peer_device_id, 0, false)
    })
}

// ------------------------------------------------------------ contexts ---

/// `aclrtCreateContext`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn aclrtCreateContext(
    context: *mut aclrtContext,
    device_id: i32,
) -> aclError {
    // SAFETY: C contract: `context` is NULL or writable.
    let out = unsafe { Out::new(context) };
    call(Api::aclrtCreateContext, || {
        let mut v = 0;
        acl_layer::create_context(handle_slot(&out, &mut v), device_id)?;
        out.write(handle_ptr(v));
        Ok(())
    })
}

/// `aclrtDestroyContext`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn aclrtDestroyContext(context: aclrtContext) -> aclError {
    call(Api::aclrtDestroyContext, || {
        acl_layer::destroy_context(h(context))
    })
}

/// `aclrtSetCurrentContext`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn aclrtSetCurrentContext(context: aclrtContext) -> aclError {
    call(Api::aclrtSetCurrentContext, || {
        acl_layer::set_current_context(h(context))
    })
}

/// `aclrtGetCurrentContext`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn aclrtGetCurrentContext(context: *mut aclrtContext) -> aclError {
    // SAFETY: C contract: `context` is NULL or writable.
    let out = unsafe { Out::new(context) };
    call(Api::aclrtGetCurrentContext, || {
        let mut v = 0;
        acl_layer::get_current_context(handle_slot(&out, &mut v))?;
        out.write(handle_ptr(v));
        Ok(())
    })
}

/// `aclrtCtxGetCurrentDefaultStream`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn aclrtCtxGetCurrentDefaultStream(stream: *mut aclrtStream) -> aclError {
    // SAFETY: C contract: `stream` is NULL or writable.
    let out = unsafe { Out::new(stream) };
    call(Api::aclrtCtxGetCurrentDefaultStream, || {
        let mut v = 0;
        acl_layer::current_default_stream(handle_slot(&out, &mut v))?;
        out.write(handle_ptr(v));
        Ok(())
    })
}

// ------------------------------------------------------------- streams ---

/// `aclrtCreateStream`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn aclrtCreateStream(stream: *mut aclrtStream) -> aclError {
    // SAFETY: C contract: `stream` is NULL or writable.
    let out = unsafe { Out::new(stream) };
    call(Api::aclrtCreateStream, || {
        let mut v = 0;
        acl_layer::create_stream(handle_slot(&out, &mut v), None)?;
        out.write(handle_ptr(v));
        Ok(())
    })
}

/// `aclrtCreateStreamWithConfig`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn aclrtCreateStreamWithConfig(
    stream: *mut aclrtStream,
    priority: u32,
    flag: u32,
) -> aclError {
    // SAFETY: C contract: `stream` is NULL or writable.
    let out = unsafe { Out::new(stream) };
    call(Api::aclrtCreateStreamWithConfig, || {
        let mut v = 0;
        acl_layer::create_stream(handle_slot(&out, &mut v), Some((priority, flag)))?;
        out.write(handle_ptr(v));
        Ok(())
    })
}

/// `aclrtStreamGetPriority`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn aclrtStreamGetPriority(
    stream: aclrtStream,
    priority: *mut u32,
) -> aclError {
    // SAFETY: C contract: `priority` is NULL or writable.
    let out = unsafe { Out::new(priority) };
    call(Api::aclrtStreamGetPriority, || {
        acl_layer::stream_get_priority(h(stream), out)
    })
}

/// `aclrtDeviceGetStreamPriorityRange`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn aclrtDeviceGetStreamPriorityRange(
    least_priority: *mut i32,
    greatest_priority: *mut i32,
) -> aclError {
    // SAFETY: C contract: each pointer is NULL or writable.
    let (least, greatest) = unsafe { (Out::new(least_priority), Out::new(greatest_priority)) };
    call(Api::aclrtDeviceGetStreamPriorityRange, || {
        acl_layer::stream_priority_range(least, greatest)
    })
}

/// The runtime's handle out-parameter for the C caller's `out`: NULL where
/// `out` is NULL (for the ACL layer to refuse), else the local `v` (copied
/// into `out` as a handle pointer once the call succeeded).
fn handle_slot<T>(out: &Out<T>, v: &mut usize) -> Out<usize> {
    let p: *mut usize = if out.is_null() {
        core::ptr::null_mut()
    } else {
        v
    };
    // SAFETY: `p` is NULL or points to the caller's local `v`, valid for
    // one write for the duration of the call.
    unsafe { Out::new(p) }
}

fn require_out<T>(out: &Out<T>, name: &str) -> diag::Res<()> {
    diag::require(!out.is_null(), || format!("{name} is NULL"))
}

/// `aclrtDestroyStream`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn aclrtDestroyStream(stream: aclrtStream) -> aclError {
    call(Api::aclrtDestroyStream, || {
        acl_layer::destroy_stream(h(stream), false)
    })
}

/// `aclrtDestroyStreamForce`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn aclrtDestroyStreamForce(stream: aclrtStream) -> aclError {
    call(Api::aclrtDestroyStreamForce, || {
        acl_layer::destroy_stream(h(stream), true)
    })
}

/// `aclrtSynchronizeStream`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn aclrtSynchronizeStream(stream: aclrtStream) -> aclError {
    call(Api::aclrtSynchronizeStream, || {
        acl_layer::synchronize_stream(h(stream), None)
    })
}

/// `aclrtSynchronizeStreamWithTimeout`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn aclrtSynchronizeStreamWithTimeout(
    stream: aclrtStream,
    timeout: i32,
) -> aclError {
    call(Api::aclrtSynchronizeStreamWithTimeout, || {
        acl_layer::synchronize_stream(h(stream), Some(timeout))
    })
}

/// `aclrtStreamQuery`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn aclrtStreamQuery(
    stream: aclrtStream,
    status: *mut aclrtStreamStatus,
) -> aclError {
    // SAFETY: C contract: `status` is NULL or writable.
    let out = unsafe { Out::new(status) };
    call(Api::aclrtStreamQuery, || {
        acl_layer::stream_query(h(stream), out)
    })
}

/// `aclrtStreamWaitEvent`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn aclrtStreamWaitEvent(stream: aclrtStream, event: aclrtEvent) -> aclError {
    call(Api::aclrtStreamWaitEvent, || {
        acl_layer::stream_wait_event(h(stream), h(event))
    })
}

/// `aclrtGetStreamAvailableNum`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn aclrtGetStreamAvailableNum(stream_count: *mut u32) -> aclError {
    // SAFETY: C contract: `streamCount` is NULL or writable.
    let out = unsafe { Out::new(stream_count) };
    call(Api::aclrtGetStreamAvailableNum, || {
        acl_layer::streams_available(out)
    })
}

/// `aclrtStreamAbort`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn aclrtStreamAbort(stream: aclrtStream) -> aclError {
    call(Api::aclrtStreamAbort, || acl_layer::stream_abort(h(stream)))
}

// -------------------------------------------------------------- events ---

fn create_event(api: Api, out: Out<aclrtEvent>, flag: Option<u32>, kind: EventApi) -> aclError {
    call(api, || {
        let mut v = 0;
        acl_layer::create_event(handle_slot(&out, &mut v), flag, kind)?;
        out.write(handle_ptr(v));
        Ok(())
    })
}

/// `aclrtCreateEvent`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn aclrtCreateEvent(event: *mut aclrtEvent) -> aclError {
    // SAFETY: C contract: `event` is NULL or writable.
    let out = unsafe { Out::new(event) };
    create_event(Api::aclrtCreateEvent, out, None, EventApi::Plain)
}

/// `aclrtCreateEventWithFlag`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn aclrtCreateEventWithFlag(event: *mut aclrtEvent, flag: u32) -> aclError {
    // SAFETY: C contract: `event` is NULL or writable.
    let out = unsafe { Out::new(event) };
    create_event(
        Api::aclrtCreateEventWithFlag,
        out,
        Some(flag),
        EventApi::WithFlag,
    )
}

/// `aclrtCreateEventExWithFlag`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn aclrtCreateEventExWithFlag(event: *mut aclrtEvent, flag: u32) -> aclError {
    // SAFETY: C contract: `event` is NULL or writable.
    let out = unsafe { Out::new(event) };
    create_event(
        Api::aclrtCreateEventExWithFlag,
        out,
        Some(flag),
        EventApi::Ex,
    )
}

/// `aclrtDestroyEvent`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn aclrtDestroyEvent(event: aclrtEvent) -> aclError {
    call(Api::aclrtDestroyEvent, || {
        acl_layer::destroy_event(h(event))
    })
}

/// `aclrtRecordEvent`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn aclrtRecordEvent(event: aclrtEvent, stream: aclrtStream) -> aclError {
    call(Api::aclrtRecordEvent, || {
        acl_layer::record_event(h(event), h(stream))
    })
}

/// `aclrtResetEvent`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn aclrtResetEvent(event: aclrtEvent, stream: aclrtStream) -> aclError {
    call(Api::aclrtResetEvent, || {
        acl_layer::reset_event(h(event), h(stream))
    })
}

/// `aclrtQueryEvent`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn aclrtQueryEvent(
    event: aclrtEvent,
    status: *mut aclrtEventStatus,
) -> aclError {
    // SAFETY: C contract: `status` is NULL or writable.
    let out = unsafe { Out::new(status) };
    call(Api::aclrtQueryEvent, || {
        acl_layer::query_event(h(event), out)
    })
}

/// `aclrtQueryEventStatus`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn aclrtQueryEventStatus(
    event: aclrtEvent,
    status: *mut aclrtEventRecordedStatus,
) -> aclError {
    // SAFETY: C contract: `status` is NULL or writable.
    let out = unsafe { Out::new(status) };
    call(Api::aclrtQueryEventStatus, || {
        acl_layer::query_event_status(h(event), out)
    })
}

/// `aclrtQueryEventWaitStatus`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn aclrtQueryEventWaitStatus(
    event: aclrtEvent,
    status: *mut aclrtEventWaitStatus,
) -> aclError {
    // SAFETY: C contract: `status` is NULL or writable.
    let out = unsafe { Out::new(status) };
    call(Api::aclrtQueryEventWaitStatus, || {
        acl_layer::query_event_wait_status(h(event), out)
    })
}

/// `aclrtSynchronizeEvent`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn aclrtSynchronizeEvent(event: aclrtEvent) -> aclError {
    call(Api::aclrtSynchronizeEvent, || {
        acl_layer::synchronize_event(h(event), None)
    })
}

/// `aclrtSynchronizeEventWithTimeout`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn aclrtSynchronizeEventWithTimeout(
    event: aclrtEvent,
    timeout: i32,
) -> aclError {
    call(Api::aclrtSynchronizeEventWithTimeout, || {
        acl_layer::synchronize_event(h(event), Some(timeout))
    })
}

/// `aclrtEventElapsedTime`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn aclrtEventElapsedTime(
    ms: *mut f32,
    start_event: aclrtEvent,
    end_event: aclrtEvent,
) -> aclError {
    // SAFETY: C contract: `ms` is NULL or writable.
    let out = unsafe { Out::new(ms) };
    call(Api::aclrtEventElapsedTime, || {
        acl_layer::event_elapsed_time(out, h(start_event), h(end_event))
    })
}

/// `aclrtEventGetTimestamp`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn aclrtEventGetTimestamp(
    event: aclrtEvent,
    timestamp: *mut u64,
) -> aclError {
    // SAFETY: C contract: `timestamp` is NULL or writable.
    let out = unsafe { Out::new(timestamp) };
    call(Api::aclrtEventGetTimestamp, || {
        acl_layer::event_timestamp(h(event), out)
    })
}

/// `aclrtGetEventAvailNum`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn aclrtGetEventAvailNum(event_count: *mut u32) -> aclError {
    // SAFETY: C contract: `eventCount` is NULL or writable.
    let out = unsafe { Out::new(event_count) };
    call(Api::aclrtGetEventAvailNum, || {
        acl_layer::events_available(out)
    })
}

// -------------------------------------------------------------- memory ---

/// `aclrtMalloc`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn aclrtMalloc(
    dev_ptr: *mut *mut c_void,
    size: usize,
    policy: aclrtMemMallocPolicy,
) -> aclError {
    // SAFETY: C contract: `devPtr` is NULL or writable.
    let out = unsafe { Out::new(dev_ptr) };
    call(Api::aclrtMalloc, || {
        acl_layer::malloc(out, size, policy, MallocFn::Malloc)
    })
}

/// `aclrtMallocAlign32`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn aclrtMallocAlign32(
    dev_ptr: *mut *mut c_void,
    size: usize,
    policy: aclrtMemMallocPolicy,
) -> aclError {
    // SAFETY: C contract: `devPtr` is NULL or writable.
    let out = unsafe { Out::new(dev_ptr) };
    call(Api::aclrtMallocAlign32, || {
        acl_layer::malloc(out, size, policy, MallocFn::Align32)
    })
}

/// `aclrtMallocCached`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn aclrtMallocCached(
    dev_ptr: *mut *mut c_void,
    size: usize,
    policy: aclrtMemMallocPolicy,
) -> aclError {
    // SAFETY: C contract: `devPtr` is NULL or writable.
    let out = unsafe { Out::new(dev_ptr) };
    call(Api::aclrtMallocCached, || {
        acl_layer::malloc(out, size, policy, MallocFn::Cached)
    })
}

/// `aclrtFree`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn aclrtFree(dev_ptr: *mut c_void) -> aclError {
    call(Api::aclrtFree, || {
        acl_layer::free(dev_ptr.addr(), AllocKind::Device, false)
    })
}

/// `aclrtFreeWithDevSync`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn aclrtFreeWithDevSync(dev_ptr: *mut c_void) -> aclError {
    call(Api::aclrtFreeWithDevSync, || {
        acl_layer::free(dev_ptr.addr(), AllocKind::Device, true)
    })
}

/// `aclrtMallocHost`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn aclrtMallocHost(host_ptr: *mut *mut c_void, size: usize) -> aclError {
    // SAFETY: C contract: `hostPtr` is NULL or writable.
    let out = unsafe { Out::new(host_ptr) };
    call(Api::aclrtMallocHost, || {
        acl_layer::malloc(out, size, 0, MallocFn::Host)
    })
}

/// `aclrtFreeHost`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn aclrtFreeHost(host_ptr: *mut c_void) -> aclError {
    call(Api::aclrtFreeHost, || {
        acl_layer::free(host_ptr.addr(), AllocKind::Host, false)
    })
}

/// `aclrtFreeHostWithDevSync`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn aclrtFreeHostWithDevSync(host_ptr: *mut c_void) -> aclError {
    call(Api::aclrtFreeHostWithDevSync, || {
        acl_layer::free(host_ptr.addr(), AllocKind::Host, true)
    })
}

/// `aclrtMemset`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn aclrtMemset(
    dev_ptr: *mut c_void,
    max_count: usize,
    value: i32,
    count: usize,
) -> aclError {
    // SAFETY: C contract: if `devPtr` is not runtime memory it is writable
    // for `count` bytes during the call.
    let dst = unsafe { UserMem::new(dev_ptr, true) };
    call(Api::aclrtMemset, || {
        acl_layer::memset(dst, max_count, value, count)
    })
}

/// `aclrtMemsetAsync`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn aclrtMemsetAsync(
    dev_ptr: *mut c_void,
    max_count: usize,
    value: i32,
    count: usize,
    stream: aclrtStream,
) -> aclError {
    // SAFETY: C contract: if `devPtr` is not runtime memory it is writable
    // for `count` bytes during the call (the runtime finishes such a task
    // before returning).
    let dst = unsafe { UserMem::new(dev_ptr, true) };
    call(Api::aclrtMemsetAsync, || {
        acl_layer::memset_async(dst, max_count, value, count, h(stream))
    })
}

/// `aclrtMemcpy`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn aclrtMemcpy(
    dst: *mut c_void,
    dest_max: usize,
    src: *const c_void,
    count: usize,
    kind: aclrtMemcpyKind,
) -> aclError {
    // SAFETY: C contract: application (non-runtime) memory is writable at
    // `dst` and readable at `src` for `count` bytes during the call.
    let (d, s) = unsafe { (UserMem::new(dst, true), UserMem::new(src, false)) };
    call(Api::aclrtMemcpy, || {
        acl_layer::memcpy(d, dest_max, s, count, kind)
    })
}

/// `aclrtMemcpyAsync`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn aclrtMemcpyAsync(
    dst: *mut c_void,
    dest_max: usize,
    src: *const c_void,
    count: usize,
    kind: aclrtMemcpyKind,
    stream: aclrtStream,
) -> aclError {
    // SAFETY: C contract: application (pageable) memory is writable at `dst`
    // and readable at `src` for `count` bytes during the call; the runtime
    // completes copies of such memory before returning.
    let (d, s) = unsafe { (UserMem::new(dst, true), UserMem::new(src, false)) };
    call(Api::aclrtMemcpyAsync, || {
        acl_layer::memcpy_async(d, dest_max, s, count, kind, h(stream))
    })
}

/// `aclrtMemcpy2d`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn aclrtMemcpy2d(
    dst: *mut c_void,
    dpitch: usize,
    src: *const c_void,
    spitch: usize,
    width: usize,
    height: usize,
    kind: aclrtMemcpyKind,
) -> aclError {
    // SAFETY: C contract: application memory covers the 2-D regions
    // (`(height - 1) * pitch + width` bytes) during the call.
    let (d, s) = unsafe { (UserMem::new(dst, true), UserMem::new(src, false)) };
    call(Api::aclrtMemcpy2d, || {
        acl_layer::memcpy_2d(d, dpitch, s, spitch, width, height, kind)
    })
}

/// `aclrtMemcpy2dAsync`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn aclrtMemcpy2dAsync(
    dst: *mut c_void,
    dpitch: usize,
    src: *const c_void,
    spitch: usize,
    width: usize,
    height: usize,
    kind: aclrtMemcpyKind,
    stream: aclrtStream,
) -> aclError {
    // SAFETY: C contract: application memory covers the 2-D regions during
    // the call; the runtime completes copies of such memory before returning.
    let (d, s) = unsafe { (UserMem::new(dst, true), UserMem::new(src, false)) };
    call(Api::aclrtMemcpy2dAsync, || {
        acl_layer::memcpy_2d_async(d, dpitch, s, spitch, width, height, kind, h(stream))
    })
}

/// `aclrtGetMemInfo`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn aclrtGetMemInfo(
    attr: aclrtMemAttr,
    free: *mut usize,
    total: *mut usize,
) -> aclError {
    // SAFETY: C contract: `free` and `total` are NULL or writable.
    let (f, t) = unsafe { (Out::new(free), Out::new(total)) };
    call(Api::aclrtGetMemInfo, || acl_layer::get_mem_info(attr, f, t))
}

// ----------------------------------------------------------- callbacks ---

/// `aclrtLaunchCallback`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn aclrtLaunchCallback(
    fn_: aclrtCallback,
    user_data: *mut c_void,
    block_type: aclrtCallbackBlockType,
    stream: aclrtStream,
) -> aclError {
    call(Api::aclrtLaunchCallback, || {
        acl_layer::launch_callback(fn_, block_type, h(stream), |f| {
            // SAFETY: C contract of aclrtLaunchCallback: `fn(userData)` may be
            // called once by the subscribed thread (or the runtime).
            unsafe { HostCall::new(f, user_data) }
        })
    })
}

/// `aclrtSubscribeReport`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn aclrtSubscribeReport(thread_id: u64, stream: aclrtStream) -> aclError {
    call(Api::aclrtSubscribeReport, || {
        acl_layer::subscribe_report(thread_id, h(stream))
    })
}

/// `aclrtProcessReport`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn aclrtProcessReport(timeout: i32) -> aclError {
    call(Api::aclrtProcessReport, || {
        acl_layer::process_report(timeout)
    })
}

/// `aclrtUnSubscribeReport`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn aclrtUnSubscribeReport(thread_id: u64, stream: aclrtStream) -> aclError {
    call(Api::aclrtUnSubscribeReport, || {
        acl_layer::unsubscribe_report(thread_id, h(stream))
    })
}

/// `aclrtLaunchHostFunc`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn aclrtLaunchHostFunc(
    stream: aclrtStream,
    fn_: aclrtHostFunc,
    args: *mut c_void,
) -> aclError {
    call(Api::aclrtLaunchHostFunc, || {
        acl_layer::launch_host_func(h(stream), fn_, |f| {
            // SAFETY: C contract of aclrtLaunchHostFunc: `fn(args)` is called
            // once on a runtime thread when the stream reaches it.
            unsafe { HostCall::new(f, args) }
        })
    })
}

/// `aclrtSetOpWaitTimeout`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn aclrtSetOpWaitTimeout(timeout: u32) -> aclError {
    call(Api::aclrtSetOpWaitTimeout, || {
        stream::set_op_wait_timeout(timeout)
    })
}

/// `aclrtSetOpExecuteTimeOut`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn aclrtSetOpExecuteTimeOut(timeout: u32) -> aclError {
    call(Api::aclrtSetOpExecuteTimeOut, || {
        stream::set_op_execute_timeout(timeout)
    })
}

// ------------------------------------------------------------ versions ---

/// `aclrtGetVersion`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn aclrtGetVersion(
    major_version: *mut i32,
    minor_version: *mut i32,
    patch_version: *mut i32,
) -> aclError {
    // SAFETY: C contract: each pointer is NULL or writable.
    let (a, b, c) = unsafe {
        (
            Out::new(major_version),
            Out::new(minor_version),
            Out::new(patch_version),
        )
    };
    call(Api::aclrtGetVersion, || misc::get_version(a, b, c))
}

/// `aclsysGetVersionStr`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn aclsysGetVersionStr(
    pkg_name: *mut c_char,
    version_str: *mut c_char,
) -> aclError {
    // SAFETY: C contract: `pkgName` is NULL or a NUL-terminated string;
    // `versionStr` is NULL or a buffer of ACL_PKG_VERSION_MAX_SIZE bytes.
    let (name, out) = unsafe {
        (
            c_str(pkg_name),
            OutBuf::new(version_str, crate::ffi::ACL_PKG_VERSION_MAX_SIZE),
        )
    };
    call(Api::aclsysGetVersionStr, || misc::version_str(name, out))
}

/// `aclsysGetVersionNum`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn aclsysGetVersionNum(
    pkg_name: *mut c_char,
    version_num: *mut i32,
) -> aclError {
    // SAFETY: C contract: `pkgName` is NULL or a NUL-terminated string;
    // `versionNum` is NULL or writable.
    let (name, out) = unsafe { (c_str(pkg_name), Out::new(version_num)) };
    call(Api::aclsysGetVersionNum, || misc::version_num(name, out))
}

/// `aclsysGetCANNVersion`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn aclsysGetCANNVersion(
    name: aclCANNPackageName,
    version: *mut aclCANNPackageVersion,
) -> aclError {
    // SAFETY: C contract: `version` is NULL or writable.
    let out = unsafe { Out::new(version) };
    call(Api::aclsysGetCANNVersion, || misc::cann_version(name, out))
}

// ------------------------------------------------ kernel load and launch ---

/// Reads load options.
///
/// # Safety
/// `options` is NULL or points to a readable `aclrtBinaryLoadOptions` whose
/// `options` is NULL or points to `numOpt` readable entries.
unsafe fn load_options(options: *const aclrtBinaryLoadOptions) -> kernel::LoadOptions {
    // SAFETY: non-null `options` is readable (contract of this function).
    let o = unsafe { options.as_ref() }?;
    if o.options.is_null() {
        return Some(None);
    }
    // SAFETY: `o.options` is non-null and points to `numOpt` readable
    // entries (contract of this function).
    let all = unsafe { core::slice::from_raw_parts(o.options, o.numOpt) };
    // SAFETY: every member of the union is plain integers of the same
    // storage; reading `magic` (u32 at offset 0) is defined for any value.
    Some(Some(
        all.iter()
            .map(|e| (e.type_, unsafe { e.value.magic }))
            .collect(),
    ))
}

/// `aclrtBinaryLoadFromFile`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn aclrtBinaryLoadFromFile(
    bin_path: *const c_char,
    options: *mut aclrtBinaryLoadOptions,
    bin_handle: *mut aclrtBinHandle,
) -> aclError {
    // SAFETY: C contract: `binPath` is NULL or a NUL-terminated path.
    let path = unsafe { c_str(bin_path) };
    // SAFETY: C contract: `options` is NULL or a valid options struct.
    let opts = unsafe { load_options(options) };
    // SAFETY: C contract: `binHandle` is NULL or writable.
    let out = unsafe { Out::new(bin_handle) };
    call(Api::aclrtBinaryLoadFromFile, || {
        let path = path.ok_or_else(|| diag::param("binPath is NULL"))?;
        require_out(&out, "binHandle")?;
        let path = path
            .to_str()
            .map_err(|_| diag::rt_param("binPath is not valid UTF-8"))?;
        let h = kernel::binary_load(Err(path), opts)?;
        out.write(handle_ptr(h));
        Ok(())
    })
}

/// `aclrtBinaryLoadFromData`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn aclrtBinaryLoadFromData(
    data: *const c_void,
    length: usize,
    options: *const aclrtBinaryLoadOptions,
    bin_handle: *mut aclrtBinHandle,
) -> aclError {
    // SAFETY: C contract: `options` is NULL or a valid options struct.
    let opts = unsafe { load_options(options) };
    // SAFETY: C contract: `binHandle` is NULL or writable.
    let out = unsafe { Out::new(bin_handle) };
    // SAFETY: C contract: non-null `data` is host memory readable for
    // `length` bytes during the call; the memory table decides what it is
    // before anything is read (`kernel::host_data`).
    let data = (!data.is_null()).then(|| unsafe { UserMem::new(data, false) });
    call(Api::aclrtBinaryLoadFromData, || {
        let data = data.ok_or_else(|| diag::param("data is NULL"))?;
        require_out(&out, "binHandle")?;
        let bytes = kernel::host_data(data, length)?;
        let h = kernel::binary_load(Ok(&bytes), opts)?;
        out.write(handle_ptr(h));
        Ok(())
    })
}

/// `aclrtBinaryUnLoad`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn aclrtBinaryUnLoad(bin_handle: aclrtBinHandle) -> aclError {
    call(Api::aclrtBinaryUnLoad, || {
        acl_layer::binary_unload(h(bin_handle))
    })
}

/// `aclrtBinaryGetFunction`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn aclrtBinaryGetFunction(
    bin_handle: aclrtBinHandle,
    kernel_name: *const c_char,
    func_handle: *mut aclrtFuncHandle,
) -> aclError {
    // SAFETY: C contract: `kernelName` is NULL or NUL-terminated.
    let name = unsafe { c_str(kernel_name) };
    // SAFETY: C contract: `funcHandle` is NULL or writable.
    let out = unsafe { Out::new(func_handle) };
    call(Api::aclrtBinaryGetFunction, || {
        // A name that is not UTF-8 names no registered kernel: it is
        // looked up as the empty name.
        let name = name.map(|n| n.to_str().unwrap_or(""));
        let f = acl_layer::get_function(h(bin_handle), name, out.is_null())?;
        out.write(handle_ptr(f));
        Ok(())
    })
}

/// `aclrtLaunchKernel`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn aclrtLaunchKernel(
    func_handle: aclrtFuncHandle,
    num_blocks: u32,
    args_data: *const c_void,
    args_size: usize,
    stream: aclrtStream,
) -> aclError {
    // `argsData` is a device address: looked up in the allocation table,
    // never dereferenced as a host pointer.
    call(Api::aclrtLaunchKernel, || {
        acl_layer::launch_kernel(
            h(func_handle),
            num_blocks,
            args_data.addr(),
            args_size,
            h(stream),
        )
    })
}

/// `aclrtLaunchKernelWithConfig`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn aclrtLaunchKernelWithConfig(
    func_handle: aclrtFuncHandle,
    num_blocks: u32,
    stream: aclrtStream,
    cfg: *mut aclrtLaunchKernelCfg,
    args_handle: aclrtArgsHandle,
    reserve: *mut c_void,
) -> aclError {
    // SAFETY: C contract: `cfg` is NULL or a readable config.
    let c = unsafe { cfg.as_ref() };
    let cfg: kernel::LaunchCfg = c.map(|c| {
        (!c.attrs.is_null()).then(|| {
            // SAFETY: C contract: non-null `attrs` points to `numAttrs`
            // readable attributes.
            let all = unsafe { core::slice::from_raw_parts(c.attrs, c.numAttrs) };
            all.iter()
                .map(|a| {
                    // SAFETY: the union is 16 bytes of plain integers; its
                    // `rsv` view covers all of them and is defined for any
                    // bit pattern.
                    let rsv = unsafe { a.value.rsv };
                    let mut v = [0u8; 16];
                    for (k, w) in rsv.iter().enumerate() {
                        v[4 * k..4 * k + 4].copy_from_slice(&w.to_ne_bytes());
                    }
                    (a.id, v)
                })
                .collect()
        })
    });
    call(Api::aclrtLaunchKernelWithConfig, || {
        acl_layer::launch_kernel_with_config(
            h(func_handle),
            num_blocks,
            h(stream),
            cfg,
            h(args_handle),
            reserve.is_null(),
        )
    })
}

/// `aclrtKernelArgsInit`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn aclrtKernelArgsInit(
    func_handle: aclrtFuncHandle,
    args_handle: *mut aclrtArgsHandle,
) -> aclError {
    // SAFETY: C contract: `argsHandle` is NULL or writable.
    let out = unsafe { Out::new(args_handle) };
    call(Api::aclrtKernelArgsInit, || {
        let a = acl_layer::args_init(h(func_handle), out.is_null())?;
        out.write(handle_ptr(a));
        Ok(())
    })
}

/// `aclrtKernelArgsAppend`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn aclrtKernelArgsAppend(
    args_handle: aclrtArgsHandle,
    param: *mut c_void,
    param_size: usize,
    param_handle: *mut aclrtParamHandle,
) -> aclError {
    // SAFETY: C contract: `paramHandle` is NULL or writable.
    let out = unsafe { Out::new(param_handle) };
    let bytes = (!param.is_null()).then(|| {
        // SAFETY: C contract: non-null `param` is host memory readable for
        // `paramSize` bytes during the call (it is copied at once).
        unsafe { core::slice::from_raw_parts(param.cast::<u8>(), param_size) }
    });
    call(Api::aclrtKernelArgsAppend, || {
        let p = acl_layer::args_append(h(args_handle), bytes, out.is_null())?;
        out.write(handle_ptr(p));
        Ok(())
    })
}

/// `aclrtKernelArgsAppendPlaceHolder`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn aclrtKernelArgsAppendPlaceHolder(
    args_handle: aclrtArgsHandle,
    param_handle: *mut aclrtParamHandle,
) -> aclError {
    // SAFETY: C contract: `paramHandle` is NULL or writable.
    let out = unsafe { Out::new(param_handle) };
    call(Api::aclrtKernelArgsAppendPlaceHolder, || {
        let p = acl_layer::args_append_placeholder(h(args_handle), out.is_null())?;
        out.write(handle_ptr(p));
        Ok(())
    })
}

/// `aclrtKernelArgsGetPlaceHolderBuffer`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn aclrtKernelArgsGetPlaceHolderBuffer(
    args_handle: aclrtArgsHandle,
    param_handle: aclrtParamHandle,
    data_size: usize,
    buffer_addr: *mut *mut c_void,
) -> aclError {
    // SAFETY: C contract: `bufferAddr` is NULL or writable.
    let out = unsafe { Out::new(buffer_addr) };
    call(Api::aclrtKernelArgsGetPlaceHolderBuffer, || {
        let b = acl_layer::args_placeholder_buffer(
            h(args_handle),
            h(param_handle),
            data_size,
            out.is_null(),
        )?;
        out.write(b.cast());
        Ok(())
    })
}

/// `aclrtKernelArgsFinalize`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn aclrtKernelArgsFinalize(args_handle: aclrtArgsHandle) -> aclError {
    call(Api::aclrtKernelArgsFinalize, || {
        acl_layer::args_finalize(h(args_handle))
    })
}

// ----------------------------- failure mode, last error (F.2, F.3) ---

/// `aclrtSetStreamFailureMode`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn aclrtSetStreamFailureMode(stream: aclrtStream, mode: u64) -> aclError {
    call(Api::aclrtSetStreamFailureMode, || {
        acl_layer::set_stream_failure_mode(h(stream), mode)
    })
}

/// `aclrtPeekAtLastError`: returns the calling thread's stored code.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn aclrtPeekAtLastError(level: aclrtLastErrLevel) -> aclError {
    diag::last_code(Api::aclrtPeekAtLastError, level, false)
}

/// `aclrtGetLastError`: returns and clears the calling thread's stored code.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn aclrtGetLastError(level: aclrtLastErrLevel) -> aclError {
    diag::last_code(Api::aclrtGetLastError, level, true)
}

// ------------------- host registration, managed memory (F.4, F.5) ---

/// `aclrtHostRegister`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn aclrtHostRegister(
    ptr: *mut c_void,
    size: u64,
    type_: aclrtHostRegisterType,
    dev_ptr: *mut *mut c_void,
) -> aclError {
    // SAFETY: C contract of aclrtHostRegister: `ptr` is NULL or the start
    // of `size` bytes of host memory that the caller keeps valid (not freed,
    // moved or remapped) until aclrtHostUnregister; the runtime reads and
    // writes it only through copies queued while it is registered (and
    // unregistration is refused while such a copy is pending). `devPtr` is
    // NULL or writable.
    let (mem, out) = unsafe { (UserMem::new(ptr, true), Out::new(dev_ptr)) };
    call(Api::aclrtHostRegister, || {
        acl_layer::host_register(mem, size, type_, out)
    })
}

/// `aclrtHostRegisterV2`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn aclrtHostRegisterV2(ptr: *mut c_void, size: u64, flag: u32) -> aclError {
    // SAFETY: as for aclrtHostRegister: `ptr` is NULL or `size` bytes of
    // host memory kept valid until aclrtHostUnregister.
    let mem = unsafe { UserMem::new(ptr, true) };
    call(Api::aclrtHostRegisterV2, || {
        acl_layer::host_register_v2(mem, size, flag)
    })
}

/// `aclrtHostGetDevicePointer`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn aclrtHostGetDevicePointer(
    p_host: *mut c_void,
    p_device: *mut *mut c_void,
    flag: u32,
) -> aclError {
    // SAFETY: `pHost` is only compared against the registry (never
    // accessed: a zero-length resolution); `pDevice` is NULL or writable.
    let (mem, out) = unsafe { (UserMem::new(p_host, false), Out::new(p_device)) };
    call(Api::aclrtHostGetDevicePointer, || {
        acl_layer::host_get_device_pointer(mem, out, flag)
    })
}

/// `aclrtHostUnregister`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn aclrtHostUnregister(ptr: *mut c_void) -> aclError {
    // SAFETY: `ptr` is only looked up in the registry, never accessed.
    let mem = unsafe { UserMem::new(ptr, false) };
    call(Api::aclrtHostUnregister, || acl_layer::host_unregister(mem))
}

/// `aclrtMemAllocManaged`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn aclrtMemAllocManaged(
    ptr: *mut *mut c_void,
    size: u64,
    flag: u32,
) -> aclError {
    // SAFETY: C contract: `ptr` is NULL or writable.
    let out = unsafe { Out::new(ptr) };
    call(Api::aclrtMemAllocManaged, || {
        acl_layer::alloc_managed(out, size, flag)
    })
}

// ---------------------------------------------------- signature check ---

/// For every exported function, forms an array of the declaration in
/// [`crate::ffi`] (bindgen output of the project's header) and the
/// definition above. Array elements must unify to one function-pointer type,
/// so any difference in parameters, return type, ABI or safety fails to
/// compile.
macro_rules! check_signatures {
    ($($name:ident),* $(,)?) => {
        $(
            const _: () = {
                let _same_type = [crate::ffi::$name, $name];
            };
        )*
    };
}
with_api_list!(check_signatures);
