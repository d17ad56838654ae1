//! The basement of the runtime's newer resources: device information,
//! stream attributes, notifies, IPC memory and events, virtual memory and
//! value tasks. One C call per function, as in [`crate::ffi`], whose
//! module docs state the common argument ("pyACL's contract"): the
//! integers are the script's, handed to the runtime, which checks every
//! handle and address it owns; out-parameters are locals of these
//! functions; strings and arrays passed in are Rust-owned and outlive the
//! call.
#![allow(unsafe_code)]

use aclrt_sys as sys;
use core::ffi::{CStr, c_char, c_void};

/// A handle or address as the C functions take it.
fn p(v: u64) -> *mut c_void {
    v as usize as *mut c_void
}

/// A returned handle or address as Python sees it.
fn n<T>(v: *mut T) -> u64 {
    v as usize as u64
}

/// The longest key buffer handed to the runtime (a key is far shorter).
pub const KEY_MAX: usize = 4096;

/// The text of a key buffer the runtime filled (up to its first NUL).
fn key_text(buf: &[u8]) -> String {
    let end = buf.iter().position(|&b| b == 0).unwrap_or(buf.len());
    String::from_utf8_lossy(&buf[..end]).into_owned()
}

// ---- device information and control --------------------------------------

/// `aclrtGetDeviceInfo(device, attr, &value)`.
pub fn get_device_info(device: u32, attr: u32) -> (i64, i32) {
    let mut v = 0i64;
    // SAFETY: `v` is a local the C function may write; the rest are plain
    // integers the runtime checks.
    let ret = unsafe { sys::aclrtGetDeviceInfo(device, attr as sys::aclrtDevAttr, &mut v) };
    (v, ret)
}

/// `aclrtGetDeviceCapability(device, feature, &value)`.
pub fn get_device_capability(device: i32, feature: u32) -> (i32, i32) {
    let mut v = 0i32;
    // SAFETY: `v` is a local the C function may write.
    let ret = unsafe {
        sys::aclrtGetDeviceCapability(device, feature as sys::aclrtDevFeatureType, &mut v)
    };
    (v, ret)
}

/// `aclrtQueryDeviceStatus(device, &status)`.
pub fn query_device_status(device: i32) -> (u32, i32) {
    let mut s: sys::aclrtDeviceStatus = 0;
    // SAFETY: `s` is a local the C function may write.
    let ret = unsafe { sys::aclrtQueryDeviceStatus(device, &mut s) };
    (s as u32, ret)
}

/// `aclrtGetDeviceUtilizationRate(device, &info)` with no extension
/// record: (cube, vector, AI CPU, memory) in percent, -1 where unknown.
pub fn get_device_utilization_rate(device: i32) -> ([i32; 4], i32) {
    let mut info = sys::aclrtUtilizationInfo {
        cubeUtilization: 0,
        vectorUtilization: 0,
        aicpuUtilization: 0,
        memoryUtilization: 0,
        utilizationExtend: core::ptr::null_mut(),
    };
    // SAFETY: `info` is a local the C function may write; its reserved
    // extension pointer is NULL, as the runtime requires.
    let ret = unsafe { sys::aclrtGetDeviceUtilizationRate(device, &mut info) };
    (
        [
            info.cubeUtilization,
            info.vectorUtilization,
            info.aicpuUtilization,
            info.memoryUtilization,
        ],
        ret,
    )
}

/// `aclrtGetDeviceResLimit(device, type, &value)`.
pub fn get_device_res_limit(device: i32, kind: u32) -> (u32, i32) {
    let mut v = 0u32;
    // SAFETY: `v` is a local the C function may write.
    let ret =
        unsafe { sys::aclrtGetDeviceResLimit(device, kind as sys::aclrtDevResLimitType, &mut v) };
    (v, ret)
}

/// `aclrtSetDeviceResLimit(device, type, value)`.
pub fn set_device_res_limit(device: i32, kind: u32, value: u32) -> i32 {
    // SAFETY: plain integers the runtime checks.
    unsafe { sys::aclrtSetDeviceResLimit(device, kind as sys::aclrtDevResLimitType, value) }
}

/// `aclrtResetDeviceResLimit(device)`.
pub fn reset_device_res_limit(device: i32) -> i32 {
    // SAFETY: a plain integer the runtime checks.
    unsafe { sys::aclrtResetDeviceResLimit(device) }
}

/// `aclrtSetDeviceSatMode(mode)`.
pub fn set_device_sat_mode(mode: u32) -> i32 {
    // SAFETY: a plain integer the runtime checks.
    unsafe { sys::aclrtSetDeviceSatMode(mode as sys::aclrtFloatOverflowMode) }
}

/// `aclrtGetDeviceSatMode(&mode)`.
pub fn get_device_sat_mode() -> (u32, i32) {
    let mut m: sys::aclrtFloatOverflowMode = 0;
    // SAFETY: `m` is a local the C function may write.
    let ret = unsafe { sys::aclrtGetDeviceSatMode(&mut m) };
    (m as u32, ret)
}

/// `aclrtDeviceGetBareTgid(&pid)`.
pub fn device_get_bare_tgid() -> (i32, i32) {
    let mut pid = 0i32;
    // SAFETY: `pid` is a local the C function may write.
    let ret = unsafe { sys::aclrtDeviceGetBareTgid(&mut pid) };
    (pid, ret)
}

// ---- stream attributes -----------------------------------------------------

/// `aclrtStreamGetId(stream, &id)`.
pub fn stream_get_id(s: u64) -> (i32, i32) {
    let mut id = 0i32;
    // SAFETY: `id` is a local the C function may write; the stream is
    // pyACL's contract (module docs of `ffi`).
    let ret = unsafe { sys::aclrtStreamGetId(p(s), &mut id) };
    (id, ret)
}

/// `aclrtStreamGetFlags(stream, &flags)`.
pub fn stream_get_flags(s: u64) -> (u32, i32) {
    let mut f = 0u32;
    // SAFETY: `f` is a local the C function may write; the stream is
    // pyACL's contract.
    let ret = unsafe { sys::aclrtStreamGetFlags(p(s), &mut f) };
    (f, ret)
}

/// `aclrtStreamGetPriority(stream, &priority)`.
pub fn stream_get_priority(s: u64) -> (u32, i32) {
    let mut v = 0u32;
    // SAFETY: `v` is a local the C function may write; the stream is
    // pyACL's contract.
    let ret = unsafe { sys::aclrtStreamGetPriority(p(s), &mut v) };
    (v, ret)
}

// ---- notifies --------------------------------------------------------------

/// `aclrtCreateNotify(&notify, flag)`.
pub fn create_notify(flag: u64) -> (u64, i32) {
    let mut h: sys::aclrtNotify = core::ptr::null_mut();
    // SAFETY: `h` is a local the C function may write.
    let ret = unsafe { sys::aclrtCreateNotify(&mut h, flag) };
    (n(h), ret)
}

/// `aclrtDestroyNotify(notify)`.
pub fn destroy_notify(h: u64) -> i32 {
    // SAFETY: pyACL's contract: the runtime checks the handle.
    unsafe { sys::aclrtDestroyNotify(p(h)) }
}

/// `aclrtRecordNotify(notify, stream)`.
pub fn record_notify(h: u64, s: u64) -> i32 {
    // SAFETY: pyACL's contract: the runtime checks both handles.
    unsafe { sys::aclrtRecordNotify(p(h), p(s)) }
}

/// `aclrtWaitAndResetNotify(notify, stream, timeout)`.
pub fn wait_and_reset_notify(h: u64, s: u64, timeout: u32) -> i32 {
    // SAFETY: pyACL's contract: the runtime checks both handles.
    unsafe { sys::aclrtWaitAndResetNotify(p(h), p(s), timeout) }
}

/// `aclrtGetNotifyId(notify, &id)`.
pub fn get_notify_id(h: u64) -> (u32, i32) {
    let mut id = 0u32;
    // SAFETY: `id` is a local the C function may write; the handle is
    // pyACL's contract.
    let ret = unsafe { sys::aclrtGetNotifyId(p(h), &mut id) };
    (id, ret)
}

/// `aclrtNotifyGetExportKey(notify, key, len, flags)` into a buffer of
/// `len` bytes (at most [`KEY_MAX`]).
pub fn notify_get_export_key(h: u64, len: usize, flags: u64) -> (String, i32) {
    let mut buf = vec![0u8; len.min(KEY_MAX)];
    // SAFETY: `buf` is a writable local of `buf.len()` bytes, the length
    // passed; the handle is pyACL's contract.
    let ret = unsafe {
        sys::aclrtNotifyGetExportKey(p(h), buf.as_mut_ptr().cast::<c_char>(), buf.len(), flags)
    };
    (key_text(&buf), ret)
}

/// `aclrtNotifySetImportPid(notify, pids, num)`.
pub fn notify_set_import_pid(h: u64, pids: &mut [i32]) -> i32 {
    // SAFETY: `pids` is a live Rust slice of `pids.len()` elements (the
    // runtime only reads it); the handle is pyACL's contract.
    unsafe { sys::aclrtNotifySetImportPid(p(h), pids.as_mut_ptr(), pids.len()) }
}

/// `aclrtNotifyImportByKey(&notify, key, flags)`.
pub fn notify_import_by_key(key: &CStr, flags: u64) -> (u64, i32) {
    let mut h: sys::aclrtNotify = core::ptr::null_mut();
    // SAFETY: `h` is a local the C function may write; `key` is
    // NUL-terminated and outlives the call.
    let ret = unsafe { sys::aclrtNotifyImportByKey(&mut h, key.as_ptr(), flags) };
    (n(h), ret)
}

// ---- IPC memory and events -------------------------------------------------

/// `aclrtIpcMemGetExportKey(ptr, size, key, len, flags)` into a buffer of
/// `len` bytes (at most [`KEY_MAX`]).
pub fn ipc_mem_get_export_key(ptr: u64, size: u64, len: usize, flags: u64) -> (String, i32) {
    let mut buf = vec![0u8; len.min(KEY_MAX)];
    // SAFETY: `buf` is a writable local of `buf.len()` bytes, the length
    // passed; the address is pyACL's contract (checked by the runtime).
    let ret = unsafe {
        sys::aclrtIpcMemGetExportKey(
            p(ptr),
            size as usize,
            buf.as_mut_ptr().cast::<c_char>(),
            buf.len(),
            flags,
        )
    };
    (key_text(&buf), ret)
}

/// `aclrtIpcMemSetImportPid(key, pids, num)`.
pub fn ipc_mem_set_import_pid(key: &CStr, pids: &mut [i32]) -> i32 {
    // SAFETY: `key` is NUL-terminated and `pids` a live slice of
    // `pids.len()` elements; both outlive the call.
    unsafe { sys::aclrtIpcMemSetImportPid(key.as_ptr(), pids.as_mut_ptr(), pids.len()) }
}

/// `aclrtIpcMemImportByKey(&ptr, key, flags)`.
pub fn ipc_mem_import_by_key(key: &CStr, flags: u64) -> (u64, i32) {
    let mut ptr: *mut c_void = core::ptr::null_mut();
    // SAFETY: `ptr` is a local the C function may write; `key` is
    // NUL-terminated and outlives the call.
    let ret = unsafe { sys::aclrtIpcMemImportByKey(&mut ptr, key.as_ptr(), flags) };
    (n(ptr), ret)
}

/// `aclrtIpcMemClose(key)`.
pub fn ipc_mem_close(key: &CStr) -> i32 {
    // SAFETY: `key` is NUL-terminated and outlives the call.
    unsafe { sys::aclrtIpcMemClose(key.as_ptr()) }
}

/// `aclrtMemGetAddressRange(ptr, &base, &size)`.
pub fn mem_get_address_range(ptr: u64) -> (u64, u64, i32) {
    let mut base: *mut c_void = core::ptr::null_mut();
    let mut size = 0usize;
    // SAFETY: `base` and `size` are locals the C function may write; the
    // address is only looked up in the runtime's tables.
    let ret = unsafe { sys::aclrtMemGetAddressRange(p(ptr), &mut base, &mut size) };
    (n(base), size as u64, ret)
}

/// `aclrtIpcGetEventHandle(event, &handle)`: the handle's bytes.
pub fn ipc_get_event_handle(e: u64) -> (Vec<u8>, i32) {
    let mut h = sys::aclrtIpcEventHandle {
        reserved: [0; sys::ACL_IPC_EVENT_HANDLE_SIZE],
    };
    // SAFETY: `h` is a local the C function may write; the event is
    // pyACL's contract.
    let ret = unsafe { sys::aclrtIpcGetEventHandle(p(e), &mut h) };
    (h.reserved.iter().map(|&b| b as u8).collect(), ret)
}

/// `aclrtIpcOpenEventHandle(handle, &event)` of a handle's bytes (shorter
/// input is zero-padded, longer is cut by the caller).
pub fn ipc_open_event_handle(bytes: &[u8]) -> (u64, i32) {
    let mut h = sys::aclrtIpcEventHandle {
        reserved: [0; sys::ACL_IPC_EVENT_HANDLE_SIZE],
    };
    for (d, s) in h.reserved.iter_mut().zip(bytes) {
        *d = *s as c_char;
    }
    let mut e: sys::aclrtEvent = core::ptr::null_mut();
    // SAFETY: `e` is a local the C function may write; `h` is passed by
    // value.
    let ret = unsafe { sys::aclrtIpcOpenEventHandle(h, &mut e) };
    (n(e), ret)
}

// ---- virtual memory --------------------------------------------------------

/// The fields of an `aclrtPhysicalMemProp`.
#[derive(Clone, Copy, Debug, Default)]
pub struct PhysProp {
    /// `handleType`.
    pub handle_type: u32,
    /// `allocationType`.
    pub allocation_type: u32,
    /// `memAttr`.
    pub mem_attr: u32,
    /// `location.id`.
    pub location_id: u32,
    /// `location.type`.
    pub location_type: u32,
}

impl PhysProp {
    fn c(self) -> sys::aclrtPhysicalMemProp {
        sys::aclrtPhysicalMemProp {
            handleType: self.handle_type as sys::aclrtMemHandleType,
            allocationType: self.allocation_type as sys::aclrtMemAllocationType,
            memAttr: self.mem_attr as sys::aclrtMemAttr,
            location: sys::aclrtMemLocation {
                id: self.location_id,
                type_: self.location_type as sys::aclrtMemLocationType,
            },
            reserve: 0,
        }
    }
}

/// `aclrtReserveMemAddress(&ptr, size, alignment, expect, flags)`.
pub fn reserve_mem_address(size: u64, alignment: u64, expect: u64, flags: u64) -> (u64, i32) {
    let mut v: *mut c_void = core::ptr::null_mut();
    // SAFETY: `v` is a local the C function may write; `expect` is only a
    // hint the runtime compares (never dereferenced).
    let ret = unsafe {
        sys::aclrtReserveMemAddress(&mut v, size as usize, alignment as usize, p(expect), flags)
    };
    (n(v), ret)
}

/// `aclrtReleaseMemAddress(ptr)`.
pub fn release_mem_address(v: u64) -> i32 {
    // SAFETY: the runtime looks the address up in its reservations.
    unsafe { sys::aclrtReleaseMemAddress(p(v)) }
}

/// `aclrtMallocPhysical(&handle, size, &prop, flags)`.
pub fn malloc_physical(size: u64, prop: PhysProp, flags: u64) -> (u64, i32) {
    let mut h: sys::aclrtDrvMemHandle = core::ptr::null_mut();
    let prop = prop.c();
    // SAFETY: `h` is a local the C function may write; `prop` is a local
    // it reads.
    let ret = unsafe { sys::aclrtMallocPhysical(&mut h, size as usize, &prop, flags) };
    (n(h), ret)
}

/// `aclrtFreePhysical(handle)`.
pub fn free_physical(h: u64) -> i32 {
    // SAFETY: the runtime checks the handle.
    unsafe { sys::aclrtFreePhysical(p(h)) }
}

/// `aclrtMapMem(ptr, size, offset, handle, flags)`.
pub fn map_mem(v: u64, size: u64, offset: u64, h: u64, flags: u64) -> i32 {
    // SAFETY: the runtime checks the reservation and the handle.
    unsafe { sys::aclrtMapMem(p(v), size as usize, offset as usize, p(h), flags) }
}

/// `aclrtUnmapMem(ptr)`.
pub fn unmap_mem(v: u64) -> i32 {
    // SAFETY: the runtime looks the address up in its mappings.
    unsafe { sys::aclrtUnmapMem(p(v)) }
}

/// `aclrtMemSetAccess(ptr, size, descs, count)`: each descriptor is
/// (flags, location id, location type).
pub fn mem_set_access(v: u64, size: u64, descs: &[(u32, u32, u32)]) -> i32 {
    let mut c: Vec<sys::aclrtMemAccessDesc> = descs
        .iter()
        .map(|&(flags, id, kind)| sys::aclrtMemAccessDesc {
            flags: flags as sys::aclrtMemAccessFlags,
            location: sys::aclrtMemLocation {
                id,
                type_: kind as sys::aclrtMemLocationType,
            },
            rsv: [0; 12],
        })
        .collect();
    // SAFETY: `c` is a live local array of `c.len()` descriptors; the
    // address is looked up in the runtime's mappings.
    unsafe { sys::aclrtMemSetAccess(p(v), size as usize, c.as_mut_ptr(), c.len()) }
}

/// `aclrtMemGetAllocationGranularity(&prop, option, &granularity)`.
pub fn mem_get_allocation_granularity(prop: PhysProp, option: u32) -> (u64, i32) {
    let mut prop = prop.c();
    let mut g = 0usize;
    // SAFETY: `prop` and `g` are locals (read and written respectively).
    let ret = unsafe {
        sys::aclrtMemGetAllocationGranularity(
            &mut prop,
            option as sys::aclrtMemGranularityOptions,
            &mut g,
        )
    };
    (g as u64, ret)
}

// ---- value tasks -----------------------------------------------------------

/// `aclrtValueWrite(addr, value, flag, stream)`.
pub fn value_write(addr: u64, value: u64, flag: u32, s: u64) -> i32 {
    // SAFETY: pyACL's contract: the runtime checks that the address is
    // device memory and the stream a live handle.
    unsafe { sys::aclrtValueWrite(p(addr), value, flag, p(s)) }
}

/// `aclrtValueWait(addr, value, flag, stream)`.
pub fn value_wait(addr: u64, value: u64, flag: u32, s: u64) -> i32 {
    // SAFETY: pyACL's contract, as `value_write`.
    unsafe { sys::aclrtValueWait(p(addr), value, flag, p(s)) }
}

// ---- exception reports -----------------------------------------------------

/// The facts of one exception report: device id, stream id, task id,
/// thread id, error code (`0xFFFFFFFF` where the report has none).
pub type ExceptionFacts = [u32; 5];

/// Where the module's trampoline hands each report's facts (set once).
static SINK: std::sync::OnceLock<fn(ExceptionFacts)> = std::sync::OnceLock::new();

/// The callback registered with the runtime: copies the report's facts
/// with the runtime's getters and hands them to the sink.
unsafe extern "C" fn exception_trampoline(info: *mut sys::aclrtExceptionInfo) {
    let info = info.cast_const();
    // SAFETY: the runtime passes a report that stays valid for the duration
    // of this call (or NULL, for which each getter answers 0xFFFFFFFF); the
    // getters only read it, and nothing keeps the pointer afterwards.
    let facts = unsafe {
        [
            sys::aclrtGetDeviceIdFromExceptionInfo(info),
            sys::aclrtGetStreamIdFromExceptionInfo(info),
            sys::aclrtGetTaskIdFromExceptionInfo(info),
            sys::aclrtGetThreadIdFromExceptionInfo(info),
            sys::aclrtGetErrorCodeFromExceptionInfo(info),
        ]
    };
    if let Some(sink) = SINK.get() {
        // A panic must not unwind into the runtime's C frames.
        let _ = std::panic::catch_unwind(|| sink(facts));
    }
}

/// `aclrtSetExceptionInfoCallback`: `Some(sink)` registers the module's
/// trampoline, which hands every report's facts to `sink` (the first sink
/// given is kept for the process); `None` removes the registration.
pub fn set_exception_info_callback(sink: Option<fn(ExceptionFacts)>) -> i32 {
    let cb: sys::aclrtExceptionInfoCallback = match sink {
        Some(s) => {
            let _ = SINK.set(s);
            Some(exception_trampoline)
        }
        None => None,
    };
    // SAFETY: `exception_trampoline` matches the callback type, is sound to
    // call on any thread at any time (it reads only the report it is given
    // and a set-once static), and is never freed (a plain function).
    unsafe { sys::aclrtSetExceptionInfoCallback(cb) }
}
