//! The ACL layer of the newer objects (`notify.cpp`, `memory.cpp`,
//! `callback.cpp`, `event.cpp`, `allocator.cpp`, `dfx.cpp` of
//! `src/acl/aclrt_impl/`): each function's own checks (100000), in the
//! order of its `aclrt…Impl`, then the runtime's C API. A refusal made here
//! is never the thread's last error.

use crate::diag::{Res, param};
use crate::ffi;
use crate::prim::{ExceptionHook, ExceptionInfo, Out, OutBuf, UserMem};
use crate::rt::mem::AllocKind;
use crate::{dsa, rt_api, vmm};

use super::{not_null, refuse};

// --------------------------------------------------------------- labels ---
// `label.cpp`: every pointer argument NULL is 100000, in the order of the
// signature; the rest is the runtime's.

/// `aclrtCreateLabelImpl`: NULL output 100000.
pub(crate) fn create_label(out: Out<usize>) -> Res<()> {
    not_null(out.is_null(), "label")?;
    rt_api::label_create(out)
}

/// `aclrtSetLabelImpl`: NULL label, then NULL stream 100000 (the default
/// stream cannot be named here).
pub(crate) fn set_label(h: usize, stream: usize) -> Res<()> {
    not_null(h == 0, "label")?;
    not_null(stream == 0, "stream")?;
    rt_api::label_set(h, stream)
}

/// `aclrtDestroyLabelImpl`: NULL 100000.
pub(crate) fn destroy_label(h: usize) -> Res<()> {
    not_null(h == 0, "label")?;
    rt_api::label_destroy(h)
}

/// `aclrtCreateLabelListImpl`: NULL array, then NULL output 100000.
pub(crate) fn create_label_list(labels: Option<&[usize]>, num: usize, out: Out<usize>) -> Res<()> {
    not_null(labels.is_none(), "labels")?;
    not_null(out.is_null(), "labelList")?;
    rt_api::label_list_create(labels, num, out)
}

/// `aclrtDestroyLabelListImpl`: NULL 100000; the list is device memory
/// the runtime frees like `aclrtFree` does (`rtsFree`).
pub(crate) fn destroy_label_list(list: usize) -> Res<()> {
    not_null(list == 0, "labelList")?;
    rt_api::free(list, AllocKind::Device, false)
}

/// `aclrtSwitchLabelByIndexImpl`: NULL `ptr`, list, stream 100000 in that
/// order; `maxValue` is not checked here (nor before the runtime's stream
/// refusal).
pub(crate) fn switch_label_by_index(ptr: usize, _max: u32, list: usize, stream: usize) -> Res<()> {
    not_null(ptr == 0, "ptr")?;
    not_null(list == 0, "labelList")?;
    not_null(stream == 0, "stream")?;
    rt_api::label_switch_by_index(ptr, list, stream)
}

// ------------------------------------------------------------- notifies ---

/// `aclrtCreateNotifyImpl`: NULL output 100000.
pub(crate) fn create_notify(out: Out<usize>, flag: u64) -> Res<()> {
    not_null(out.is_null(), "notify")?;
    rt_api::notify_create(out, flag)
}

/// `aclrtDestroyNotifyImpl`: NULL 100000.
pub(crate) fn destroy_notify(h: usize) -> Res<()> {
    not_null(h == 0, "notify")?;
    rt_api::notify_destroy(h)
}

/// `aclrtRecordNotifyImpl`: NULL notify 100000.
pub(crate) fn record_notify(h: usize, stream: usize) -> Res<()> {
    not_null(h == 0, "notify")?;
    rt_api::notify_record(h, stream)
}

/// `aclrtWaitAndResetNotifyImpl`: NULL notify 100000.
pub(crate) fn wait_and_reset_notify(h: usize, stream: usize, timeout: u32) -> Res<()> {
    not_null(h == 0, "notify")?;
    rt_api::notify_wait(h, stream, timeout)
}

/// `aclrtGetNotifyIdImpl`: NULL notify, then NULL output 100000.
pub(crate) fn get_notify_id(h: usize, out: Out<u32>) -> Res<()> {
    not_null(h == 0, "notify")?;
    not_null(out.is_null(), "notifyId")?;
    rt_api::notify_id(h, out)
}

/// `aclrtNotifyGetExportKeyImpl`: NULL notify, then NULL key 100000.
pub(crate) fn notify_get_export_key(h: usize, key: OutBuf, flags: u64) -> Res<()> {
    not_null(h == 0, "notify")?;
    not_null(key.is_null(), "key")?;
    rt_api::notify_export_key(h, key, flags)
}

/// `aclrtNotifyImportByKeyImpl`: NULL output, then NULL key 100000.
pub(crate) fn notify_import_by_key(
    out: Out<usize>,
    key: Option<Result<&str, ()>>,
    flags: u64,
) -> Res<()> {
    not_null(out.is_null(), "notify")?;
    let Some(key) = key else {
        return refuse(param("key is NULL"));
    };
    rt_api::notify_import(out, key.ok(), flags)
}

/// `aclrtNotifySetImportPidImpl`: NULL notify, then NULL pid 100000.
pub(crate) fn notify_set_import_pid(h: usize, pids: Option<&[i32]>) -> Res<()> {
    not_null(h == 0, "notify")?;
    not_null(pids.is_none(), "pid")?;
    rt_api::notify_set_import_pid(h, pids)
}

// ------------------------------------------------- event operation flags ---

/// `aclrtRecordEventWithFlagImpl`: NULL event 100000, a flag other than
/// DEFAULT or EXTERNAL 100000; DEFAULT is `aclrtRecordEventImpl`.
pub(crate) fn record_event_with_flag(ev: usize, stream: usize, flag: u32) -> Res<()> {
    not_null(ev == 0, "event")?;
    if flag > rt_api::EVENT_OP_EXTERNAL {
        return refuse(param(format!(
            "flag {flag}: expected ACL_EVENT_RECORD_DEFAULT or ACL_EVENT_RECORD_EXTERNAL"
        )));
    }
    if flag == 0 {
        return super::record_event(ev, stream);
    }
    rt_api::event_record_external(ev, stream)
}

/// `aclrtStreamWaitEventWithFlagImpl`: NULL event 100000, a flag other
/// than DEFAULT or EXTERNAL 100000, EXTERNAL with a timeout other than 0
/// 100000.
pub(crate) fn stream_wait_event_with_flag(
    stream: usize,
    ev: usize,
    timeout: u32,
    flag: u32,
) -> Res<()> {
    not_null(ev == 0, "event")?;
    if flag > rt_api::EVENT_OP_EXTERNAL {
        return refuse(param(format!(
            "flag {flag}: expected ACL_EVENT_WAIT_DEFAULT or ACL_EVENT_WAIT_EXTERNAL"
        )));
    }
    if flag == rt_api::EVENT_OP_EXTERNAL && timeout != 0 {
        return refuse(param(format!(
            "timeout {timeout}: must be 0 when flag is ACL_EVENT_WAIT_EXTERNAL"
        )));
    }
    rt_api::stream_wait_event_with_flag(stream, ev, timeout, flag)
}

// ------------------------------------------------ value writes and waits ---

/// `aclrtValueWriteImpl`: NULL address 100000.
pub(crate) fn value_write(addr: UserMem, value: u64, flag: u32, stream: usize) -> Res<()> {
    not_null(addr.is_null(), "devAddr")?;
    rt_api::value_write(addr, value, flag, stream)
}

/// `aclrtValueWaitImpl`: NULL address 100000.
pub(crate) fn value_wait(addr: UserMem, value: u64, flag: u32, stream: usize) -> Res<()> {
    not_null(addr.is_null(), "devAddr")?;
    rt_api::value_wait(addr, value, flag, stream)
}

// ----------------------------------------------- host-function threads ---

/// `aclrtSubscribeHostFunc` (no check of its own: the compact ACL face
/// calls `rtSubscribeHostFunc`).
pub(crate) fn subscribe_host_func(tid: u64, stream: usize) -> Res<()> {
    rt_api::subscribe_host_func(tid, stream)
}

/// `aclrtUnSubscribeHostFunc` (no check of its own).
pub(crate) fn unsubscribe_host_func(tid: u64, stream: usize) -> Res<()> {
    rt_api::unsubscribe_host_func(tid, stream)
}

/// `aclrtProcessHostFunc` (no check of its own: the timeout is the
/// runtime's to check).
pub(crate) fn process_host_func(timeout: i32) -> Res<()> {
    rt_api::process_host_func(timeout)
}

// ---------------------------------------------------- exception callbacks ---

/// What the exception-info getters return for a NULL info
/// (`ACL_ERROR_INVALID_EXCEPTION_INFO` of `callback.cpp`: `0xFFFFFFFF`).
pub(crate) const INVALID_EXCEPTION_INFO: u32 = u32::MAX;

/// `aclrtSetExceptionInfoCallbackImpl`: registers (NULL: removes) the
/// callback under the ACL module's name; no check of its own.
pub(crate) fn set_exception_info_callback(hook: Option<ExceptionHook>) -> Res<()> {
    rt_api::set_exception_callback(hook)
}

/// The `aclrtGet…FromExceptionInfoImpl` getters: a field of the info, or
/// [`INVALID_EXCEPTION_INFO`] for NULL.
pub(crate) fn exception_info_field(
    info: Option<&ExceptionInfo>,
    field: impl FnOnce(&ExceptionInfo) -> u32,
) -> u32 {
    info.map_or(INVALID_EXCEPTION_INFO, field)
}

/// `aclrtGetArgsFromExceptionInfoImpl`: NULL info → `0xFFFFFFFF`, NULL
/// outputs 100000; only AI Core, AI CPU and fused AI Core failures carry
/// arguments, and the simulator's failures carry no expanded information:
/// `0xFFFFFFFF` (as the real function answers any other failure type).
pub(crate) fn args_from_exception_info(
    info: Option<&ExceptionInfo>,
    args_null: bool,
    len_null: bool,
) -> Res<()> {
    if info.is_none() {
        return refuse(crate::diag::Error::new(
            INVALID_EXCEPTION_INFO as i32,
            "info is NULL",
        ));
    }
    not_null(args_null, "devArgsPtr")?;
    not_null(len_null, "devArgsLen")?;
    refuse(crate::diag::Error::new(
        INVALID_EXCEPTION_INFO as i32,
        "the failure carries no AI Core or AI CPU argument information",
    ))
}

/// `aclrtGetFuncHandleFromExceptionInfoImpl`: NULL info → `0xFFFFFFFF`,
/// NULL output 100000; then the runtime.
pub(crate) fn func_handle_from_exception_info(
    info: Option<&ExceptionInfo>,
    func_null: bool,
) -> Res<()> {
    if info.is_none() {
        return refuse(crate::diag::Error::new(
            INVALID_EXCEPTION_INFO as i32,
            "info is NULL",
        ));
    }
    not_null(func_null, "func")?;
    rt_api::func_handle_from_exception_info(info)
}

// --------------------------------------------------------- virtual memory ---

/// `aclrtReserveMemAddressImpl`: NULL output 100000, size 0 100000, flags
/// other than 0 or 1 100000.
pub(crate) fn reserve_mem_address(
    out: Out<usize>,
    size: usize,
    alignment: usize,
    expect: usize,
    flags: u64,
) -> Res<()> {
    not_null(out.is_null(), "virPtr")?;
    if size == 0 {
        return refuse(param("size is 0"));
    }
    if flags > 1 {
        return refuse(param(format!("flags {flags}: expected 0")));
    }
    rt_api::reserve_mem_address(out, size, alignment, expect)
}

/// `aclrtReleaseMemAddressImpl`: NULL 100000.
pub(crate) fn release_mem_address(addr: usize) -> Res<()> {
    not_null(addr == 0, "virPtr")?;
    rt_api::release_mem_address(addr)
}

/// The ACL layer's checks of a physical allocation's properties
/// (`aclrtMallocPhysicalImpl`, `aclrtMemGetAllocationGranularityImpl`):
/// `check_types` adds those of `aclrtMallocPhysical` (handle type NONE,
/// allocation type PINNED, not an UNREGISTERED or MANAGED location); then a
/// device location with a DDR attribute, or an attribute the layer does not
/// translate: 100000.
fn check_prop(prop: vmm::Prop, check_types: bool) -> Res<()> {
    if check_types {
        if prop.handle_type != ffi::ACL_MEM_HANDLE_TYPE_NONE {
            return refuse(param(format!(
                "prop->handleType {}: expected ACL_MEM_HANDLE_TYPE_NONE",
                prop.handle_type
            )));
        }
        if prop.allocation_type != ffi::ACL_MEM_ALLOCATION_TYPE_PINNED {
            return refuse(param(format!(
                "prop->allocationType {}: expected ACL_MEM_ALLOCATION_TYPE_PINNED",
                prop.allocation_type
            )));
        }
        if prop.loc_type == ffi::ACL_MEM_LOCATION_TYPE_UNREGISTERED
            || prop.loc_type == ffi::ACL_MEM_LOCATION_TYPE_MANAGED
        {
            return refuse(param(format!(
                "prop->location.type {}: UNREGISTERED and MANAGED locations take no physical memory",
                prop.loc_type
            )));
        }
    }
    if prop.loc_type == ffi::ACL_MEM_LOCATION_TYPE_DEVICE && vmm::attr_host_only(prop.mem_attr) {
        return refuse(param(format!(
            "memAttr {} (DDR) is for host locations only",
            prop.mem_attr
        )));
    }
    if !vmm::attr_known(prop.mem_attr) {
        return refuse(param(format!(
            "memAttr {}: the physical memory attribute is not supported",
            prop.mem_attr
        )));
    }
    Ok(())
}

/// `aclrtMallocPhysicalImpl`: NULL handle or prop 100000, size 0 100000,
/// flags other than 0 100000, then the properties ([`check_prop`]).
pub(crate) fn malloc_physical(
    out: Out<usize>,
    size: usize,
    prop: Option<vmm::Prop>,
    flags: u64,
) -> Res<()> {
    not_null(out.is_null(), "handle")?;
    let Some(prop) = prop else {
        return refuse(param("prop is NULL"));
    };
    if size == 0 {
        return refuse(param("size is 0"));
    }
    if flags != 0 {
        return refuse(param(format!("flags {flags}: reserved, must be 0")));
    }
    check_prop(prop, true)?;
    rt_api::malloc_physical(out, size, prop)
}

/// `aclrtFreePhysicalImpl`: NULL 100000.
pub(crate) fn free_physical(h: usize) -> Res<()> {
    not_null(h == 0, "handle")?;
    rt_api::free_physical(h)
}

/// `aclrtMapMemImpl`: NULL address or handle 100000, size 0 100000, flags
/// other than 0 100000.
pub(crate) fn map_mem(addr: usize, size: usize, offset: usize, h: usize, flags: u64) -> Res<()> {
    not_null(addr == 0, "virPtr")?;
    not_null(h == 0, "handle")?;
    if size == 0 {
        return refuse(param("size is 0"));
    }
    if flags != 0 {
        return refuse(param(format!("flags {flags}: must be 0")));
    }
    rt_api::map_mem(addr, size, offset, h)
}

/// `aclrtUnmapMemImpl`: NULL 100000.
pub(crate) fn unmap_mem(addr: usize) -> Res<()> {
    not_null(addr == 0, "virPtr")?;
    rt_api::unmap_mem(addr)
}

/// `aclrtMemSetAccessImpl` (no check of its own).
pub(crate) fn mem_set_access(
    addr: usize,
    size: usize,
    descs: Option<&[(u32, u32, u64)]>,
) -> Res<()> {
    rt_api::mem_set_access(addr, size, descs)
}

/// `aclrtMemGetAccessImpl`: NULL address, location or flag 100000.
pub(crate) fn mem_get_access(addr: usize, loc_null: bool, flag_null: bool) -> Res<(u32, u32, u64)> {
    not_null(addr == 0, "virPtr")?;
    not_null(loc_null, "location")?;
    not_null(flag_null, "flag")?;
    rt_api::mem_get_access(addr)
}

/// `aclrtMemGetAllocationGranularityImpl`: NULL prop or output 100000,
/// then the properties' attribute ([`check_prop`]).
pub(crate) fn allocation_granularity(
    prop: Option<vmm::Prop>,
    option: u32,
    out: Out<usize>,
) -> Res<()> {
    let Some(prop) = prop else {
        return refuse(param("prop is NULL"));
    };
    not_null(out.is_null(), "granularity")?;
    check_prop(prop, false)?;
    out.write(rt_api::allocation_granularity(prop, option)?);
    Ok(())
}

/// `aclrtMemExportToShareableHandleImpl`: NULL handle, a handle type other
/// than NONE, NULL output: 100000.
pub(crate) fn export_shareable(h: usize, handle_type: u32, flags: u64, out: Out<u64>) -> Res<()> {
    not_null(h == 0, "handle")?;
    if handle_type != ffi::ACL_MEM_HANDLE_TYPE_NONE {
        return refuse(param(format!(
            "handleType {handle_type}: expected ACL_MEM_HANDLE_TYPE_NONE"
        )));
    }
    not_null(out.is_null(), "shareableHandle")?;
    rt_api::export_shareable(h, flags, out)
}

/// `aclrtMemImportFromShareableHandleImpl`: NULL output 100000.
pub(crate) fn import_shareable(s: u64, device: i32, out: Out<usize>) -> Res<()> {
    not_null(out.is_null(), "handle")?;
    rt_api::import_shareable(s, device, out)
}

/// `aclrtMemSetPidToShareableHandleImpl`: NULL pid, `pidNum` 0: 100000.
pub(crate) fn set_pid_to_shareable(s: u64, pids: Option<&[i32]>) -> Res<()> {
    let Some(pids) = pids else {
        return refuse(param("pid is NULL"));
    };
    if pids.is_empty() {
        return refuse(param("pidNum is 0"));
    }
    rt_api::set_pid_to_shareable(s, pids)
}

/// `aclrtMemGetAllocationPropertiesFromHandleImpl`: NULL handle or output
/// 100000.
pub(crate) fn allocation_properties(h: usize, out_null: bool) -> Res<vmm::Prop> {
    not_null(h == 0, "handle")?;
    not_null(out_null, "prop")?;
    rt_api::allocation_properties(h)
}

/// `aclrtMemRetainAllocationHandleImpl`: NULL address or output 100000.
pub(crate) fn retain_allocation_handle(addr: usize, out: Out<usize>) -> Res<()> {
    not_null(addr == 0, "virPtr")?;
    not_null(out.is_null(), "handle")?;
    out.write(rt_api::retain_allocation_handle(addr)?);
    Ok(())
}

// ------------------------------------------------------------ IPC memory ---

/// `aclrtIpcMemGetExportKeyImpl`: NULL pointer, then NULL key 100000.
pub(crate) fn ipc_mem_get_export_key(addr: usize, size: usize, key: OutBuf, flags: u64) -> Res<()> {
    not_null(addr == 0, "devPtr")?;
    not_null(key.is_null(), "key")?;
    rt_api::ipc_mem_export(addr, size, key, flags)
}

/// A C string argument: `None` for NULL, `Some(None)` when not UTF-8.
pub(crate) type CKey<'a> = Option<Option<&'a str>>;

/// `aclrtIpcMemSetImportPidImpl`: NULL key, then NULL pid 100000.
pub(crate) fn ipc_mem_set_import_pid(key: CKey<'_>, pids: Option<&[i32]>) -> Res<()> {
    let Some(key) = key else {
        return refuse(param("key is NULL"));
    };
    not_null(pids.is_none(), "pid")?;
    rt_api::ipc_mem_set_import_pid(key, pids)
}

/// `aclrtIpcMemImportByKeyImpl`: NULL output, then NULL key 100000.
pub(crate) fn ipc_mem_import_by_key(out: Out<usize>, key: CKey<'_>, flags: u64) -> Res<()> {
    not_null(out.is_null(), "devPtr")?;
    let Some(key) = key else {
        return refuse(param("key is NULL"));
    };
    rt_api::ipc_mem_import(out, key, flags)
}

/// `aclrtIpcMemCloseImpl`: NULL key 100000.
pub(crate) fn ipc_mem_close(key: CKey<'_>) -> Res<()> {
    let Some(key) = key else {
        return refuse(param("key is NULL"));
    };
    rt_api::ipc_mem_close(key)
}

/// `aclrtIpcMemSetAttrImpl`: NULL key 100000.
pub(crate) fn ipc_mem_set_attr(key: CKey<'_>, ty: u32, attr: u64) -> Res<()> {
    let Some(key) = key else {
        return refuse(param("key is NULL"));
    };
    rt_api::ipc_mem_set_attr(key, ty, attr)
}

/// `aclrtIpcGetEventHandleImpl`: NULL handle output, then NULL event
/// 100000.
pub(crate) fn ipc_get_event_handle(ev: usize, out_null: bool) -> Res<[u8; 64]> {
    not_null(out_null, "handle")?;
    not_null(ev == 0, "event")?;
    rt_api::ipc_get_event_handle(ev)
}

/// `aclrtIpcOpenEventHandleImpl`: NULL output 100000.
pub(crate) fn ipc_open_event_handle(handle: &[u8; 64], out: Out<usize>) -> Res<()> {
    not_null(out.is_null(), "event")?;
    rt_api::ipc_open_event_handle(handle, out)
}

// ------------------------------------------- reductions, random numbers ---

/// `aclrtReduceAsyncImpl`: NULL dst, then NULL src, a non-NULL reserve, a
/// type the layer does not translate: 100000.
pub(crate) fn reduce_async(
    dst: UserMem,
    src: UserMem,
    count: u64,
    kind: u32,
    ty: i32,
    stream: usize,
    reserve: bool,
) -> Res<()> {
    not_null(dst.is_null(), "dst")?;
    not_null(src.is_null(), "src")?;
    if reserve {
        return refuse(param("reserve is a reserved parameter and must be NULL"));
    }
    if dsa::reduce_elem(ty).is_none() {
        return refuse(param(format!("type {ty}: the data type is not supported")));
    }
    rt_api::reduce_async(dst, src, count, kind, ty, stream)
}

/// `aclrtRandomNumAsyncImpl`: NULL task 100000, a data type the layer does
/// not translate 100000.
pub(crate) fn random_num_async(
    task: Option<dsa::RandomTask>,
    stream: usize,
    reserve: bool,
) -> Res<()> {
    let Some(t) = task else {
        return refuse(param("taskInfo is NULL"));
    };
    if dsa::random_elem(t.ty).is_none() {
        return refuse(param(format!(
            "taskInfo->dataType {}: the data type is not supported",
            t.ty
        )));
    }
    rt_api::random_num(task, stream, reserve)
}

/// `aclrtExceptionInfoCallbackRegisterImpl` / `…UnregisterImpl`: a NULL
/// callback is refused by the ACL layer with 107000 (not stored).
pub(crate) fn exception_callback_register(hook: Option<ExceptionHook>, on: bool) -> Res<()> {
    let Some(hook) = hook else {
        return refuse(crate::diag::rt_param("callback is NULL"));
    };
    rt_api::register_exception_callback(hook, on)
}

/// `aclrtMemGetAddressRangeImpl`: NULL pointer 100000; then the runtime
/// (`rtMemGetAddressRange`): the allocation holding `ptr` (any runtime
/// memory: `aclrtMalloc*`, mappings, IPC imports), else 107000.
pub(crate) fn mem_address_range(addr: usize) -> Res<(usize, usize)> {
    not_null(addr == 0, "ptr")?;
    rt_api::mem_address_range(addr)
}
