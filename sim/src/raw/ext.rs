//! The exported C functions of the newer objects: notifies, host-function
//! threads, virtual memory and shareable handles, IPC memory and events,
//! allocators on streams (`acl_rt_allocator.h`), exception callbacks and
//! their getters, value writes and waits, event operation flags, random
//! numbers and reductions. Each wraps its raw arguments into the types of
//! [`prim`](crate::prim) and calls the ACL layer through [`call`].

use core::ffi::{CStr, c_char, c_void};

use super::{c_str, h, handle_ptr, handle_slot};
use crate::acl_layer;
use crate::allocator;
use crate::diag::{self, Api, Res, call};
use crate::dsa;
use crate::ffi::{
    aclDataType, aclError, aclrtAllocator, aclrtAllocatorAllocAdviseFunc, aclrtAllocatorAllocFunc,
    aclrtAllocatorDesc, aclrtAllocatorFreeFunc, aclrtAllocatorGetAddrFromBlockFunc,
    aclrtDrvMemHandle, aclrtEvent, aclrtExceptionInfo, aclrtExceptionInfoCallback, aclrtFuncHandle,
    aclrtIpcEventHandle, aclrtIpcMemAttrType, aclrtLabel, aclrtLabelList, aclrtMemAccessDesc,
    aclrtMemGranularityOptions, aclrtMemHandleType, aclrtMemLinkType, aclrtMemLocation,
    aclrtMemSharedHandleType, aclrtNotify, aclrtPhysicalMemProp, aclrtRandomNumTaskInfo,
    aclrtRandomParaInfo, aclrtReduceKind, aclrtServerPid, aclrtStream,
};
use crate::prim::{ExceptionHook, ExceptionInfo, Out, OutBuf, UserMem};
use crate::rt_api;
use crate::vmm;

/// A C string argument: `None` for NULL, `Some(None)` when not UTF-8.
///
/// # Safety
/// `p` is NULL or a NUL-terminated string valid for the call.
unsafe fn key_arg<'a>(p: *const c_char) -> Option<Option<&'a str>> {
    // SAFETY: the contract of this function.
    unsafe { c_str(p) }.map(|s| CStr::to_str(s).ok())
}

/// An array argument of `num` elements: `None` for NULL.
///
/// # Safety
/// `p` is NULL or valid for reads of `num` elements for the call.
unsafe fn slice_arg<'a, T>(p: *const T, num: usize) -> Option<&'a [T]> {
    // SAFETY: non-null `p` is valid for `num` reads (contract); a zero
    // count makes an empty slice (a dangling but aligned pointer is fine).
    (!p.is_null()).then(|| unsafe { core::slice::from_raw_parts(p, num) })
}

/// The properties of `*prop` (NULL: `None`).
///
/// # Safety
/// `prop` is NULL or points to a readable `aclrtPhysicalMemProp`.
unsafe fn prop_arg(prop: *const aclrtPhysicalMemProp) -> Option<vmm::Prop> {
    // SAFETY: the contract of this function.
    unsafe { prop.as_ref() }.map(|p| vmm::Prop {
        handle_type: p.handleType,
        allocation_type: p.allocationType,
        mem_attr: p.memAttr,
        loc_id: p.location.id,
        loc_type: p.location.type_,
    })
}

/// A handle output: the runtime writes a local slot, the caller's pointer
/// receives the handle on success.
fn with_handle_out(out: Out<*mut c_void>, f: impl FnOnce(Out<usize>) -> Res<()>) -> Res<()> {
    let mut v = 0;
    f(handle_slot(&out, &mut v))?;
    out.write(handle_ptr(v));
    Ok(())
}

// --------------------------------------------------------------- labels ---

/// `aclrtCreateLabel`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn aclrtCreateLabel(label: *mut aclrtLabel) -> aclError {
    // SAFETY: C contract: `label` is NULL or writable.
    let out = unsafe { Out::new(label) };
    call(Api::aclrtCreateLabel, || {
        with_handle_out(out, acl_layer::create_label)
    })
}

/// `aclrtSetLabel`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn aclrtSetLabel(label: aclrtLabel, stream: aclrtStream) -> aclError {
    call(Api::aclrtSetLabel, || {
        acl_layer::set_label(h(label), h(stream))
    })
}

/// `aclrtDestroyLabel`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn aclrtDestroyLabel(label: aclrtLabel) -> aclError {
    call(Api::aclrtDestroyLabel, || {
        acl_layer::destroy_label(h(label))
    })
}

/// `aclrtCreateLabelList`: the array is read only when `num` is one the
/// runtime accepts (1..=65535), as the runtime reads it only then.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn aclrtCreateLabelList(
    labels: *mut aclrtLabel,
    num: usize,
    label_list: *mut aclrtLabelList,
) -> aclError {
    let readable = (1..=crate::label::LIST_MAX).contains(&num);
    // SAFETY: C contract: a non-NULL `labels` is valid for reads of `num`
    // handles; it is read only for a count the runtime reads it with.
    let arr = unsafe { slice_arg(labels.cast_const(), if readable { num } else { 0 }) };
    let handles: Option<Vec<usize>> = arr.map(|a| a.iter().map(|&p| h(p)).collect());
    // SAFETY: C contract: `labelList` is NULL or writable.
    let out = unsafe { Out::new(label_list) };
    call(Api::aclrtCreateLabelList, || {
        with_handle_out(out, |o| {
            acl_layer::create_label_list(handles.as_deref(), num, o)
        })
    })
}

/// `aclrtDestroyLabelList`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn aclrtDestroyLabelList(label_list: aclrtLabelList) -> aclError {
    call(Api::aclrtDestroyLabelList, || {
        acl_layer::destroy_label_list(h(label_list))
    })
}

/// `aclrtSwitchLabelByIndex`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn aclrtSwitchLabelByIndex(
    ptr: *mut c_void,
    max_value: u32,
    label_list: aclrtLabelList,
    stream: aclrtStream,
) -> aclError {
    call(Api::aclrtSwitchLabelByIndex, || {
        acl_layer::switch_label_by_index(h(ptr), max_value, h(label_list), h(stream))
    })
}

// ------------------------------------------------------------- notifies ---

/// `aclrtCreateNotify`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn aclrtCreateNotify(notify: *mut aclrtNotify, flag: u64) -> aclError {
    // SAFETY: C contract: `notify` is NULL or writable.
    let out = unsafe { Out::new(notify) };
    call(Api::aclrtCreateNotify, || {
        with_handle_out(out, |o| acl_layer::create_notify(o, flag))
    })
}

/// `aclrtDestroyNotify`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn aclrtDestroyNotify(notify: aclrtNotify) -> aclError {
    call(Api::aclrtDestroyNotify, || {
        acl_layer::destroy_notify(h(notify))
    })
}

/// `aclrtRecordNotify`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn aclrtRecordNotify(notify: aclrtNotify, stream: aclrtStream) -> aclError {
    call(Api::aclrtRecordNotify, || {
        acl_layer::record_notify(h(notify), h(stream))
    })
}

/// `aclrtWaitAndResetNotify`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn aclrtWaitAndResetNotify(
    notify: aclrtNotify,
    stream: aclrtStream,
    timeout: u32,
) -> aclError {
    call(Api::aclrtWaitAndResetNotify, || {
        acl_layer::wait_and_reset_notify(h(notify), h(stream), timeout)
    })
}

/// `aclrtGetNotifyId`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn aclrtGetNotifyId(notify: aclrtNotify, notify_id: *mut u32) -> aclError {
    // SAFETY: C contract: `notifyId` is NULL or writable.
    let out = unsafe { Out::new(notify_id) };
    call(Api::aclrtGetNotifyId, || {
        acl_layer::get_notify_id(h(notify), out)
    })
}

/// `aclrtNotifyBatchReset`: resetting a notify from the host needs the
/// STARS scheduler's MC2 feature, which neither modelled chip's runtime
/// offers here (I `NotifyReset`: 207000).
#[unsafe(no_mangle)]
pub unsafe extern "C" fn aclrtNotifyBatchReset(notifies: *mut aclrtNotify, num: usize) -> aclError {
    call(Api::aclrtNotifyBatchReset, || {
        if notifies.is_null() {
            return Err(diag::param("notifies is NULL").answered_by_acl());
        }
        rt_api::not_modelled(
            "aclrtNotifyBatchReset",
            &format!("resetting {num} notifies from the host is not supported"),
        )
    })
}

/// `aclrtNotifyGetExportKey`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn aclrtNotifyGetExportKey(
    notify: aclrtNotify,
    key: *mut c_char,
    len: usize,
    flags: u64,
) -> aclError {
    // SAFETY: C contract: `key` is NULL or writable for `len` bytes.
    let buf = unsafe { OutBuf::new(key, len) };
    call(Api::aclrtNotifyGetExportKey, || {
        acl_layer::notify_get_export_key(h(notify), buf, flags)
    })
}

/// `aclrtNotifyImportByKey`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn aclrtNotifyImportByKey(
    notify: *mut aclrtNotify,
    key: *const c_char,
    flags: u64,
) -> aclError {
    // SAFETY: C contract: `notify` is NULL or writable, `key` NULL or a
    // NUL-terminated string.
    let (out, key) = unsafe { (Out::new(notify), key_arg(key)) };
    call(Api::aclrtNotifyImportByKey, || {
        with_handle_out(out, |o| {
            acl_layer::notify_import_by_key(o, key.map(|k| k.ok_or(())), flags)
        })
    })
}

/// `aclrtNotifySetImportPid`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn aclrtNotifySetImportPid(
    notify: aclrtNotify,
    pid: *mut i32,
    num: usize,
) -> aclError {
    // SAFETY: C contract: `pid` is NULL or readable for `num` elements.
    let pids = unsafe { slice_arg(pid, num) };
    call(Api::aclrtNotifySetImportPid, || {
        acl_layer::notify_set_import_pid(h(notify), pids)
    })
}

/// `aclrtNotifySetImportPidInterServer`: trustlists across servers are
/// not modelled (207000).
#[unsafe(no_mangle)]
pub unsafe extern "C" fn aclrtNotifySetImportPidInterServer(
    notify: aclrtNotify,
    _server_pids: *mut aclrtServerPid,
    _num: usize,
) -> aclError {
    call(Api::aclrtNotifySetImportPidInterServer, || {
        let _ = h(notify);
        rt_api::not_modelled(
            "aclrtNotifySetImportPidInterServer",
            "the simulator models one server",
        )
    })
}

// ----------------------------------------------- host-function threads ---

/// `aclrtSubscribeHostFunc`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn aclrtSubscribeHostFunc(
    host_func_thread_id: u64,
    exe_stream: aclrtStream,
) -> aclError {
    call(Api::aclrtSubscribeHostFunc, || {
        acl_layer::subscribe_host_func(host_func_thread_id, h(exe_stream))
    })
}

/// `aclrtProcessHostFunc`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn aclrtProcessHostFunc(timeout: i32) -> aclError {
    call(Api::aclrtProcessHostFunc, || {
        acl_layer::process_host_func(timeout)
    })
}

/// `aclrtUnSubscribeHostFunc`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn aclrtUnSubscribeHostFunc(
    host_func_thread_id: u64,
    exe_stream: aclrtStream,
) -> aclError {
    call(Api::aclrtUnSubscribeHostFunc, || {
        acl_layer::unsubscribe_host_func(host_func_thread_id, h(exe_stream))
    })
}

// --------------------------------------------------------- virtual memory ---

/// `aclrtReserveMemAddress`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn aclrtReserveMemAddress(
    vir_ptr: *mut *mut c_void,
    size: usize,
    alignment: usize,
    expect_ptr: *mut c_void,
    flags: u64,
) -> aclError {
    // SAFETY: C contract: `virPtr` is NULL or writable.
    let out = unsafe { Out::new(vir_ptr) };
    call(Api::aclrtReserveMemAddress, || {
        with_handle_out(out, |o| {
            acl_layer::reserve_mem_address(o, size, alignment, expect_ptr.addr(), flags)
        })
    })
}

/// `aclrtReserveMemAddressNoUCMemory`: reserving without the unified
/// cache is not modelled (207000).
#[unsafe(no_mangle)]
pub unsafe extern "C" fn aclrtReserveMemAddressNoUCMemory(
    _vir_ptr: *mut *mut c_void,
    _size: usize,
    _alignment: usize,
    _expect_ptr: *mut c_void,
    _flags: u64,
) -> aclError {
    call(Api::aclrtReserveMemAddressNoUCMemory, || {
        rt_api::not_modelled(
            "aclrtReserveMemAddressNoUCMemory",
            "reservations outside the unified cache are not simulated; use aclrtReserveMemAddress",
        )
    })
}

/// `aclrtReleaseMemAddress`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn aclrtReleaseMemAddress(vir_ptr: *mut c_void) -> aclError {
    call(Api::aclrtReleaseMemAddress, || {
        acl_layer::release_mem_address(vir_ptr.addr())
    })
}

/// `aclrtMallocPhysical`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn aclrtMallocPhysical(
    handle: *mut aclrtDrvMemHandle,
    size: usize,
    prop: *const aclrtPhysicalMemProp,
    flags: u64,
) -> aclError {
    // SAFETY: C contract: `handle` is NULL or writable, `prop` NULL or
    // readable.
    let (out, prop) = unsafe { (Out::new(handle), prop_arg(prop)) };
    call(Api::aclrtMallocPhysical, || {
        with_handle_out(out, |o| acl_layer::malloc_physical(o, size, prop, flags))
    })
}

/// `aclrtFreePhysical`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn aclrtFreePhysical(handle: aclrtDrvMemHandle) -> aclError {
    call(Api::aclrtFreePhysical, || {
        acl_layer::free_physical(h(handle))
    })
}

/// `aclrtMapMem`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn aclrtMapMem(
    vir_ptr: *mut c_void,
    size: usize,
    offset: usize,
    handle: aclrtDrvMemHandle,
    flags: u64,
) -> aclError {
    call(Api::aclrtMapMem, || {
        acl_layer::map_mem(vir_ptr.addr(), size, offset, h(handle), flags)
    })
}

/// `aclrtMemMapNoAccess`: a mapping without access is not modelled
/// (207000).
#[unsafe(no_mangle)]
pub unsafe extern "C" fn aclrtMemMapNoAccess(
    _vir_ptr: *mut c_void,
    _size: usize,
    _offset: usize,
    _handle: aclrtDrvMemHandle,
    _flags: u64,
) -> aclError {
    call(Api::aclrtMemMapNoAccess, || {
        rt_api::not_modelled(
            "aclrtMemMapNoAccess",
            "mappings without access are not simulated; use aclrtMapMem",
        )
    })
}

/// `aclrtUnmapMem`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn aclrtUnmapMem(vir_ptr: *mut c_void) -> aclError {
    call(Api::aclrtUnmapMem, || acl_layer::unmap_mem(vir_ptr.addr()))
}

/// `aclrtMemSetAccess`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn aclrtMemSetAccess(
    vir_ptr: *mut c_void,
    size: usize,
    desc: *mut aclrtMemAccessDesc,
    count: usize,
) -> aclError {
    // SAFETY: C contract: `desc` is NULL or readable for `count` elements.
    let descs = unsafe { slice_arg(desc.cast_const(), count) };
    let descs: Option<Vec<(u32, u32, u64)>> = descs.map(|d| {
        d.iter()
            .map(|x| (x.location.type_, x.location.id, u64::from(x.flags)))
            .collect()
    });
    call(Api::aclrtMemSetAccess, || {
        acl_layer::mem_set_access(vir_ptr.addr(), size, descs.as_deref())
    })
}

/// `aclrtMemGetAccess`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn aclrtMemGetAccess(
    vir_ptr: *mut c_void,
    location: *mut aclrtMemLocation,
    flag: *mut u64,
) -> aclError {
    // SAFETY: C contract: `location` and `flag` are NULL or writable.
    let (loc, fl) = unsafe { (Out::new(location), Out::new(flag)) };
    call(Api::aclrtMemGetAccess, || {
        let (ty, id, flags) =
            acl_layer::mem_get_access(vir_ptr.addr(), loc.is_null(), fl.is_null())?;
        loc.write(aclrtMemLocation { id, type_: ty });
        fl.write(flags);
        Ok(())
    })
}

/// `aclrtMemGetAllocationGranularity`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn aclrtMemGetAllocationGranularity(
    prop: *mut aclrtPhysicalMemProp,
    option: aclrtMemGranularityOptions,
    granularity: *mut usize,
) -> aclError {
    // SAFETY: C contract: `prop` is NULL or readable, `granularity` NULL or
    // writable.
    let (prop, out) = unsafe { (prop_arg(prop), Out::new(granularity)) };
    call(Api::aclrtMemGetAllocationGranularity, || {
        acl_layer::allocation_granularity(prop, option, out)
    })
}

/// `aclrtMemGetAllocationPropertiesFromHandle`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn aclrtMemGetAllocationPropertiesFromHandle(
    handle: aclrtDrvMemHandle,
    prop: *mut aclrtPhysicalMemProp,
) -> aclError {
    // SAFETY: C contract: `prop` is NULL or writable.
    let out = unsafe { Out::new(prop) };
    call(Api::aclrtMemGetAllocationPropertiesFromHandle, || {
        let p = acl_layer::allocation_properties(h(handle), out.is_null())?;
        out.write(aclrtPhysicalMemProp {
            handleType: p.handle_type,
            allocationType: p.allocation_type,
            memAttr: p.mem_attr,
            location: aclrtMemLocation {
                id: p.loc_id,
                type_: p.loc_type,
            },
            reserve: 0,
        });
        Ok(())
    })
}

/// `aclrtMemRetainAllocationHandle`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn aclrtMemRetainAllocationHandle(
    vir_ptr: *mut c_void,
    handle: *mut aclrtDrvMemHandle,
) -> aclError {
    // SAFETY: C contract: `handle` is NULL or writable.
    let out = unsafe { Out::new(handle) };
    call(Api::aclrtMemRetainAllocationHandle, || {
        with_handle_out(out, |o| {
            acl_layer::retain_allocation_handle(vir_ptr.addr(), o)
        })
    })
}

/// `aclrtMemGetAddressRange`: the allocation (runtime, mapped or IPC)
/// holding `ptr`: its start and size (107000 outside every allocation).
#[unsafe(no_mangle)]
pub unsafe extern "C" fn aclrtMemGetAddressRange(
    ptr: *mut c_void,
    pbase: *mut *mut c_void,
    psize: *mut usize,
) -> aclError {
    // SAFETY: C contract: `pbase` and `psize` are NULL or writable.
    let (base, size) = unsafe { (Out::new(pbase), Out::new(psize)) };
    call(Api::aclrtMemGetAddressRange, || {
        let (b, s) = acl_layer::mem_address_range(ptr.addr())?;
        base.write(handle_ptr(b));
        size.write(s);
        Ok(())
    })
}

/// `aclrtMemMapSelectedLink`: link selection is not modelled (207000).
#[unsafe(no_mangle)]
pub unsafe extern "C" fn aclrtMemMapSelectedLink(
    _vir_ptr_dst: *mut c_void,
    _size: usize,
    _vir_ptr_src: *mut c_void,
    _link_idx: u32,
) -> aclError {
    call(Api::aclrtMemMapSelectedLink, || {
        rt_api::not_modelled("aclrtMemMapSelectedLink", "the simulator models no links")
    })
}

/// `aclrtMemMapSetLink`: link selection is not modelled (207000).
#[unsafe(no_mangle)]
pub unsafe extern "C" fn aclrtMemMapSetLink(
    _handle: aclrtDrvMemHandle,
    _advice_link: aclrtMemLinkType,
) -> aclError {
    call(Api::aclrtMemMapSetLink, || {
        rt_api::not_modelled("aclrtMemMapSetLink", "the simulator models no links")
    })
}

/// `aclrtMemP2PMap`: peer mappings are not modelled (207000; peer access
/// is `aclrtDeviceEnablePeerAccess`).
#[unsafe(no_mangle)]
pub unsafe extern "C" fn aclrtMemP2PMap(
    _dev_ptr: *mut c_void,
    _size: usize,
    _dst_dev_id: i32,
    _flags: u64,
) -> aclError {
    call(Api::aclrtMemP2PMap, || {
        rt_api::not_modelled(
            "aclrtMemP2PMap",
            "peer mappings are not simulated; use aclrtDeviceEnablePeerAccess",
        )
    })
}

/// `aclrtMemExportToShareableHandle`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn aclrtMemExportToShareableHandle(
    handle: aclrtDrvMemHandle,
    handle_type: aclrtMemHandleType,
    flags: u64,
    shareable_handle: *mut u64,
) -> aclError {
    // SAFETY: C contract: `shareableHandle` is NULL or writable.
    let out = unsafe { Out::new(shareable_handle) };
    call(Api::aclrtMemExportToShareableHandle, || {
        acl_layer::export_shareable(h(handle), handle_type, flags, out)
    })
}

/// `aclrtMemExportToShareableHandleV2`: the typed shareable handles
/// (DEFAULT, FABRIC) are not modelled (207000; the V1 function is).
#[unsafe(no_mangle)]
pub unsafe extern "C" fn aclrtMemExportToShareableHandleV2(
    _handle: aclrtDrvMemHandle,
    _flags: u64,
    _share_type: aclrtMemSharedHandleType,
    _shareable_handle: *mut c_void,
) -> aclError {
    call(Api::aclrtMemExportToShareableHandleV2, || {
        rt_api::not_modelled(
            "aclrtMemExportToShareableHandleV2",
            "typed shareable handles are not simulated; use aclrtMemExportToShareableHandle",
        )
    })
}

/// `aclrtMemImportFromShareableHandle`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn aclrtMemImportFromShareableHandle(
    shareable_handle: u64,
    device_id: i32,
    handle: *mut aclrtDrvMemHandle,
) -> aclError {
    // SAFETY: C contract: `handle` is NULL or writable.
    let out = unsafe { Out::new(handle) };
    call(Api::aclrtMemImportFromShareableHandle, || {
        with_handle_out(out, |o| {
            acl_layer::import_shareable(shareable_handle, device_id, o)
        })
    })
}

/// `aclrtMemImportFromShareableHandleV2`: not modelled (207000).
#[unsafe(no_mangle)]
pub unsafe extern "C" fn aclrtMemImportFromShareableHandleV2(
    _shareable_handle: *mut c_void,
    _share_type: aclrtMemSharedHandleType,
    _flags: u64,
    _handle: *mut aclrtDrvMemHandle,
) -> aclError {
    call(Api::aclrtMemImportFromShareableHandleV2, || {
        rt_api::not_modelled(
            "aclrtMemImportFromShareableHandleV2",
            "typed shareable handles are not simulated; use aclrtMemImportFromShareableHandle",
        )
    })
}

/// `aclrtMemSetPidToShareableHandle`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn aclrtMemSetPidToShareableHandle(
    shareable_handle: u64,
    pid: *mut i32,
    pid_num: usize,
) -> aclError {
    // SAFETY: C contract: `pid` is NULL or readable for `pidNum` elements.
    let pids = unsafe { slice_arg(pid, pid_num) };
    call(Api::aclrtMemSetPidToShareableHandle, || {
        acl_layer::set_pid_to_shareable(shareable_handle, pids)
    })
}

/// `aclrtMemSetPidToShareableHandleV2`: not modelled (207000).
#[unsafe(no_mangle)]
pub unsafe extern "C" fn aclrtMemSetPidToShareableHandleV2(
    _shareable_handle: *mut c_void,
    _share_type: aclrtMemSharedHandleType,
    _pid: *mut i32,
    _pid_num: usize,
) -> aclError {
    call(Api::aclrtMemSetPidToShareableHandleV2, || {
        rt_api::not_modelled(
            "aclrtMemSetPidToShareableHandleV2",
            "typed shareable handles are not simulated; use aclrtMemSetPidToShareableHandle",
        )
    })
}

// ------------------------------------------------------------ IPC memory ---

/// `aclrtIpcMemGetExportKey`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn aclrtIpcMemGetExportKey(
    dev_ptr: *mut c_void,
    size: usize,
    key: *mut c_char,
    len: usize,
    flags: u64,
) -> aclError {
    // SAFETY: C contract: `key` is NULL or writable for `len` bytes.
    let buf = unsafe { OutBuf::new(key, len) };
    call(Api::aclrtIpcMemGetExportKey, || {
        acl_layer::ipc_mem_get_export_key(dev_ptr.addr(), size, buf, flags)
    })
}

/// `aclrtIpcMemSetImportPid`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn aclrtIpcMemSetImportPid(
    key: *const c_char,
    pid: *mut i32,
    num: usize,
) -> aclError {
    // SAFETY: C contract: `key` is NULL or a NUL-terminated string, `pid`
    // NULL or readable for `num` elements.
    let (key, pids) = unsafe { (key_arg(key), slice_arg(pid, num)) };
    call(Api::aclrtIpcMemSetImportPid, || {
        acl_layer::ipc_mem_set_import_pid(key, pids)
    })
}

/// `aclrtIpcMemImportByKey`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn aclrtIpcMemImportByKey(
    dev_ptr: *mut *mut c_void,
    key: *const c_char,
    flags: u64,
) -> aclError {
    // SAFETY: C contract: `devPtr` is NULL or writable, `key` NULL or a
    // NUL-terminated string.
    let (out, key) = unsafe { (Out::new(dev_ptr), key_arg(key)) };
    call(Api::aclrtIpcMemImportByKey, || {
        with_handle_out(out, |o| acl_layer::ipc_mem_import_by_key(o, key, flags))
    })
}

/// `aclrtIpcMemClose`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn aclrtIpcMemClose(key: *const c_char) -> aclError {
    // SAFETY: C contract: `key` is NULL or a NUL-terminated string.
    let key = unsafe { key_arg(key) };
    call(Api::aclrtIpcMemClose, || acl_layer::ipc_mem_close(key))
}

/// `aclrtIpcMemSetAttr`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn aclrtIpcMemSetAttr(
    key: *const c_char,
    type_: aclrtIpcMemAttrType,
    attr: u64,
) -> aclError {
    // SAFETY: C contract: `key` is NULL or a NUL-terminated string.
    let key = unsafe { key_arg(key) };
    call(Api::aclrtIpcMemSetAttr, || {
        acl_layer::ipc_mem_set_attr(key, type_, attr)
    })
}

/// `aclrtIpcMemImportPidInterServer`: trustlists across servers are not
/// modelled (207000).
#[unsafe(no_mangle)]
pub unsafe extern "C" fn aclrtIpcMemImportPidInterServer(
    _key: *const c_char,
    _server_pids: *mut aclrtServerPid,
    _num: usize,
) -> aclError {
    call(Api::aclrtIpcMemImportPidInterServer, || {
        rt_api::not_modelled(
            "aclrtIpcMemImportPidInterServer",
            "the simulator models one server",
        )
    })
}

/// `aclrtIpcGetEventHandle`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn aclrtIpcGetEventHandle(
    event: aclrtEvent,
    handle: *mut aclrtIpcEventHandle,
) -> aclError {
    // SAFETY: C contract: `handle` is NULL or writable.
    let out = unsafe { Out::new(handle) };
    call(Api::aclrtIpcGetEventHandle, || {
        let bytes = acl_layer::ipc_get_event_handle(h(event), out.is_null())?;
        out.write(aclrtIpcEventHandle {
            reserved: bytes.map(|b| b as c_char),
        });
        Ok(())
    })
}

/// `aclrtIpcOpenEventHandle`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn aclrtIpcOpenEventHandle(
    handle: aclrtIpcEventHandle,
    event: *mut aclrtEvent,
) -> aclError {
    // SAFETY: C contract: `event` is NULL or writable.
    let out = unsafe { Out::new(event) };
    let bytes = handle.reserved.map(|c| c as u8);
    call(Api::aclrtIpcOpenEventHandle, || {
        with_handle_out(out, |o| acl_layer::ipc_open_event_handle(&bytes, o))
    })
}

// ------------------------------------------------------------ allocators ---

/// `aclrtAllocatorCreateDesc`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn aclrtAllocatorCreateDesc() -> aclrtAllocatorDesc {
    diag::count_only(Api::aclrtAllocatorCreateDesc);
    diag::never_unwind(core::ptr::null_mut(), || {
        handle_ptr(allocator::create_desc())
    })
}

/// `aclrtAllocatorDestroyDesc`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn aclrtAllocatorDestroyDesc(allocator_desc: aclrtAllocatorDesc) -> aclError {
    call(Api::aclrtAllocatorDestroyDesc, || {
        allocator::destroy_desc(h(allocator_desc))
    })
}

/// `aclrtAllocatorSetObjToDesc`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn aclrtAllocatorSetObjToDesc(
    allocator_desc: aclrtAllocatorDesc,
    obj: aclrtAllocator,
) -> aclError {
    call(Api::aclrtAllocatorSetObjToDesc, || {
        allocator::set(h(allocator_desc), obj.is_null(), "allocator", |d| {
            d.obj = obj.expose_provenance();
        })
    })
}

/// `aclrtAllocatorSetAllocFuncToDesc`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn aclrtAllocatorSetAllocFuncToDesc(
    allocator_desc: aclrtAllocatorDesc,
    func: aclrtAllocatorAllocFunc,
) -> aclError {
    call(Api::aclrtAllocatorSetAllocFuncToDesc, || {
        allocator::set(h(allocator_desc), func.is_none(), "func", |d| {
            d.alloc = func
        })
    })
}

/// `aclrtAllocatorSetFreeFuncToDesc`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn aclrtAllocatorSetFreeFuncToDesc(
    allocator_desc: aclrtAllocatorDesc,
    func: aclrtAllocatorFreeFunc,
) -> aclError {
    call(Api::aclrtAllocatorSetFreeFuncToDesc, || {
        allocator::set(h(allocator_desc), func.is_none(), "func", |d| d.free = func)
    })
}

/// `aclrtAllocatorSetAllocAdviseFuncToDesc`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn aclrtAllocatorSetAllocAdviseFuncToDesc(
    allocator_desc: aclrtAllocatorDesc,
    func: aclrtAllocatorAllocAdviseFunc,
) -> aclError {
    call(Api::aclrtAllocatorSetAllocAdviseFuncToDesc, || {
        allocator::set(h(allocator_desc), func.is_none(), "func", |d| {
            d.alloc_advise = func;
        })
    })
}

/// `aclrtAllocatorSetGetAddrFromBlockFuncToDesc`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn aclrtAllocatorSetGetAddrFromBlockFuncToDesc(
    allocator_desc: aclrtAllocatorDesc,
    func: aclrtAllocatorGetAddrFromBlockFunc,
) -> aclError {
    call(Api::aclrtAllocatorSetGetAddrFromBlockFuncToDesc, || {
        allocator::set(h(allocator_desc), func.is_none(), "func", |d| {
            d.get_addr = func;
        })
    })
}

/// `aclrtAllocatorRegister`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn aclrtAllocatorRegister(
    stream: aclrtStream,
    allocator_desc: aclrtAllocatorDesc,
) -> aclError {
    call(Api::aclrtAllocatorRegister, || {
        allocator::register(h(stream), h(allocator_desc))
    })
}

/// `aclrtAllocatorGetByStream`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn aclrtAllocatorGetByStream(
    stream: aclrtStream,
    allocator_desc: *mut aclrtAllocatorDesc,
    allocator: *mut aclrtAllocator,
    alloc_func: *mut aclrtAllocatorAllocFunc,
    free_func: *mut aclrtAllocatorFreeFunc,
    alloc_advise_func: *mut aclrtAllocatorAllocAdviseFunc,
    get_addr_from_block_func: *mut aclrtAllocatorGetAddrFromBlockFunc,
) -> aclError {
    // SAFETY: C contract: each output is NULL or writable.
    let (desc, obj, af, ff, aaf, gaf) = unsafe {
        (
            Out::new(allocator_desc),
            Out::new(allocator),
            Out::new(alloc_func),
            Out::new(free_func),
            Out::new(alloc_advise_func),
            Out::new(get_addr_from_block_func),
        )
    };
    call(Api::aclrtAllocatorGetByStream, || {
        let (dh, d) = allocator::get_by_stream(h(stream), desc.is_null())?;
        desc.write(handle_ptr(dh));
        obj.write(core::ptr::with_exposed_provenance_mut(d.obj));
        af.write(d.alloc);
        ff.write(d.free);
        aaf.write(d.alloc_advise);
        gaf.write(d.get_addr);
        Ok(())
    })
}

/// `aclrtAllocatorUnregister`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn aclrtAllocatorUnregister(stream: aclrtStream) -> aclError {
    call(Api::aclrtAllocatorUnregister, || {
        allocator::unregister(h(stream))
    })
}

// ---------------------------------------------------- exception callbacks ---

/// The callback as the runtime's hook.
///
/// # Safety
/// The C contract of the registering functions: the callback may be called
/// any number of times, on any thread, with an exception info valid for
/// the call.
unsafe fn hook_of(callback: aclrtExceptionInfoCallback) -> Option<ExceptionHook> {
    callback.map(|f| {
        // SAFETY: a function taking one `aclrtExceptionInfo*` is called with
        // one `void*` of the same representation (both are data pointers of
        // the C ABI); `ExceptionHook::call` passes a pointer to a live
        // `ExceptionInfo`, the opaque `aclrtExceptionInfo` of this runtime.
        let f: unsafe extern "C" fn(*mut c_void) = unsafe { core::mem::transmute(f) };
        // SAFETY: the contract of this function.
        unsafe { ExceptionHook::new(f) }
    })
}

/// `aclrtSetExceptionInfoCallback`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn aclrtSetExceptionInfoCallback(
    callback: aclrtExceptionInfoCallback,
) -> aclError {
    // SAFETY: the C contract of aclrtSetExceptionInfoCallback.
    let hook = unsafe { hook_of(callback) };
    call(Api::aclrtSetExceptionInfoCallback, || {
        acl_layer::set_exception_info_callback(hook)
    })
}

/// `aclrtExceptionInfoCallbackRegister`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn aclrtExceptionInfoCallbackRegister(
    callback: aclrtExceptionInfoCallback,
) -> aclError {
    // SAFETY: the C contract of aclrtExceptionInfoCallbackRegister.
    let hook = unsafe { hook_of(callback) };
    call(Api::aclrtExceptionInfoCallbackRegister, || {
        acl_layer::exception_callback_register(hook, true)
    })
}

/// `aclrtExceptionInfoCallbackUnregister`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn aclrtExceptionInfoCallbackUnregister(
    callback: aclrtExceptionInfoCallback,
) -> aclError {
    // SAFETY: only compared with the registered callbacks, never called
    // from here.
    let hook = unsafe { hook_of(callback) };
    call(Api::aclrtExceptionInfoCallbackUnregister, || {
        acl_layer::exception_callback_register(hook, false)
    })
}

/// The info behind an `aclrtExceptionInfo*`.
///
/// # Safety
/// `info` is NULL or the pointer this runtime passed to an exception
/// callback that is still running (a live [`ExceptionInfo`]).
unsafe fn info_arg<'a>(info: *const aclrtExceptionInfo) -> Option<&'a ExceptionInfo> {
    // SAFETY: the contract of this function.
    unsafe { info.cast::<ExceptionInfo>().as_ref() }
}

macro_rules! exception_getter {
    ($name:ident, $field:ident) => {
        #[doc = concat!("`", stringify!($name), "`.")]
        #[unsafe(no_mangle)]
        pub unsafe extern "C" fn $name(info: *const aclrtExceptionInfo) -> u32 {
            diag::count_only(Api::$name);
            // SAFETY: C contract: `info` is NULL or the info handed to the
            // exception callback that is calling this getter.
            let info = unsafe { info_arg(info) };
            diag::never_unwind(acl_layer::INVALID_EXCEPTION_INFO, || {
                acl_layer::exception_info_field(info, |i| i.$field)
            })
        }
    };
}

exception_getter!(aclrtGetTaskIdFromExceptionInfo, task_id);
exception_getter!(aclrtGetStreamIdFromExceptionInfo, stream_id);
exception_getter!(aclrtGetThreadIdFromExceptionInfo, thread_id);
exception_getter!(aclrtGetDeviceIdFromExceptionInfo, device_id);
exception_getter!(aclrtGetErrorCodeFromExceptionInfo, error_code);

/// `aclrtGetArgsFromExceptionInfo`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn aclrtGetArgsFromExceptionInfo(
    info: *const aclrtExceptionInfo,
    dev_args_ptr: *mut *mut c_void,
    dev_args_len: *mut u32,
) -> aclError {
    // SAFETY: C contract: `info` is NULL or the info of a running exception
    // callback.
    let info = unsafe { info_arg(info) };
    call(Api::aclrtGetArgsFromExceptionInfo, || {
        acl_layer::args_from_exception_info(info, dev_args_ptr.is_null(), dev_args_len.is_null())
    })
}

/// `aclrtGetFuncHandleFromExceptionInfo`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn aclrtGetFuncHandleFromExceptionInfo(
    info: *const aclrtExceptionInfo,
    func: *mut aclrtFuncHandle,
) -> aclError {
    // SAFETY: C contract: `info` is NULL or the info of a running exception
    // callback.
    let info = unsafe { info_arg(info) };
    call(Api::aclrtGetFuncHandleFromExceptionInfo, || {
        acl_layer::func_handle_from_exception_info(info, func.is_null())
    })
}

// ------------------------------------------------- event operation flags ---

/// `aclrtRecordEventWithFlag`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn aclrtRecordEventWithFlag(
    event: aclrtEvent,
    stream: aclrtStream,
    flag: u32,
) -> aclError {
    call(Api::aclrtRecordEventWithFlag, || {
        acl_layer::record_event_with_flag(h(event), h(stream), flag)
    })
}

/// `aclrtStreamWaitEventWithFlag`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn aclrtStreamWaitEventWithFlag(
    stream: aclrtStream,
    event: aclrtEvent,
    timeout: u32,
    flag: u32,
) -> aclError {
    call(Api::aclrtStreamWaitEventWithFlag, || {
        acl_layer::stream_wait_event_with_flag(h(stream), h(event), timeout, flag)
    })
}

// ------------------------------------------------ value writes and waits ---

/// `aclrtValueWrite`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn aclrtValueWrite(
    dev_addr: *mut c_void,
    value: u64,
    flag: u32,
    stream: aclrtStream,
) -> aclError {
    // SAFETY: C contract: `devAddr` is device memory of the runtime (the
    // table refuses anything else before any access).
    let mem = unsafe { UserMem::new(dev_addr, true) };
    call(Api::aclrtValueWrite, || {
        acl_layer::value_write(mem, value, flag, h(stream))
    })
}

/// `aclrtValueWait`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn aclrtValueWait(
    dev_addr: *mut c_void,
    value: u64,
    flag: u32,
    stream: aclrtStream,
) -> aclError {
    // SAFETY: C contract: `devAddr` is device memory of the runtime (the
    // table refuses anything else before any access).
    let mem = unsafe { UserMem::new(dev_addr, false) };
    call(Api::aclrtValueWait, || {
        acl_layer::value_wait(mem, value, flag, h(stream))
    })
}

// ------------------------------------------- reductions, random numbers ---

/// `aclrtReduceAsync`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn aclrtReduceAsync(
    dst: *mut c_void,
    src: *const c_void,
    count: u64,
    kind: aclrtReduceKind,
    type_: aclDataType,
    stream: aclrtStream,
    reserve: *mut c_void,
) -> aclError {
    // SAFETY: C contract: `dst` and `src` are device memory of the runtime
    // (the table refuses anything else before any access).
    let (d, s) = unsafe { (UserMem::new(dst, true), UserMem::new(src, false)) };
    call(Api::aclrtReduceAsync, || {
        acl_layer::reduce_async(d, s, count, kind, type_, h(stream), !reserve.is_null())
    })
}

fn para(p: &aclrtRandomParaInfo) -> dsa::Param {
    dsa::Param {
        is_addr: p.isAddr != 0,
        bytes: p.valueOrAddr,
        size: p.size,
    }
}

/// `aclrtRandomNumAsync`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn aclrtRandomNumAsync(
    task_info: *const aclrtRandomNumTaskInfo,
    stream: aclrtStream,
    reserve: *mut c_void,
) -> aclError {
    // SAFETY: C contract: `taskInfo` is NULL or a readable task; the union
    // is read as the member its `funcType` names (each member is two (or
    // one) 16-byte parameter records of plain bytes, so any member reads
    // initialised bytes).
    let task = unsafe { task_info.as_ref() }.map(|t| {
        let f = &t.randomNumFuncParaInfo;
        // SAFETY: see above: every member of the union is plain bytes.
        let (p1, p2) = unsafe {
            match f.funcType {
                0 => (
                    para(&f.paramInfo.dropoutBitmaskInfo.dropoutRation),
                    dsa::Param::default(),
                ),
                1 => (
                    para(&f.paramInfo.uniformDisInfo.min),
                    para(&f.paramInfo.uniformDisInfo.max),
                ),
                _ => (
                    para(&f.paramInfo.normalDisInfo.mean),
                    para(&f.paramInfo.normalDisInfo.stddev),
                ),
            }
        };
        dsa::RandomTask {
            ty: t.dataType,
            func: f.funcType,
            p1,
            p2,
            result: t.randomResultAddr.addr(),
            seed: para(&t.randomSeed),
            num: para(&t.randomNum),
        }
    });
    call(Api::aclrtRandomNumAsync, || {
        acl_layer::random_num_async(task, h(stream), !reserve.is_null())
    })
}
