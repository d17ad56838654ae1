//! The runtime's C API for the newer objects (notifies, host-function
//! threads, virtual and IPC memory, value writes and waits, allocators,
//! exception callbacks, random numbers and reductions): the handle guard,
//! then the checking decorator E's checks in its order, then the
//! implementation modules. Every failure that leaves here is stored as the
//! thread's last error unless marked (see the parent module).

use std::sync::atomic::Ordering;
use std::time::Duration;

use crate::diag::{Error, Res, rt_param};
use crate::ffi;
use crate::model::Soc;
use crate::prim::{ExceptionHook, ExceptionInfo, Out, OutBuf, UserMem};
use crate::rt::exec::EventApi;
use crate::rt::rt;
use crate::{callback, dsa, event, ipc, label, notify, value, vmm};

use super::{NOT_SUPPORTED, answer, answer_nolog, current_device, guard_event, guard_stream};

// --------------------------------------------------------------- labels ---

/// E's NULL check of a label (after the guard let NULL through).
fn label_not_null(h: usize) -> Res<()> {
    if h == 0 {
        return Err(rt_param("label is NULL"));
    }
    Ok(())
}

/// `rtsLabelCreate`: E `LabelCreate` (NULL output 107000); I.
pub(crate) fn label_create(out: Out<usize>) -> Res<()> {
    answer((|| {
        if out.is_null() {
            return Err(rt_param("label is NULL"));
        }
        label::create(out)
    })())
}

/// `rtLabelDestroy`: the guard; E `LabelDestroy` (NULL 107000); I.
pub(crate) fn label_destroy(h: usize) -> Res<()> {
    answer((|| {
        label::guard(h)?;
        label_not_null(h)?;
        label::destroy(h)
    })())
}

/// `rtLabelSet`: the guard (label, then stream); E `LabelSet` (NULL label
/// 107000; the stream was refused NULL by the ACL layer); I.
pub(crate) fn label_set(h: usize, stream: usize) -> Res<()> {
    answer((|| {
        label::guard(h)?;
        guard_stream(stream)?;
        label_not_null(h)?;
        label::set(h, stream)
    })())
}

/// `rtsLabelSwitchListCreate`: the count (1..=65535, else 107000), the
/// array guard; E `LabelSwitchListCreate` (NULL array or output 107000); I.
/// `labels` is `None` for a NULL array.
pub(crate) fn label_list_create(labels: Option<&[usize]>, num: usize, out: Out<usize>) -> Res<()> {
    answer((|| {
        label::check_count(num)?;
        let Some(labels) = labels else {
            return Err(rt_param("labels is NULL"));
        };
        label::guard_all(labels)?;
        if out.is_null() {
            return Err(rt_param("labelList is NULL"));
        }
        label::create_list(
            labels,
            out,
            &label::DeviceMem {
                alloc_filled: crate::memory::alloc_device_filled,
                free: |a| crate::memory::free(a, crate::rt::mem::AllocKind::Device, false),
            },
        )
    })())
}

/// `rtLabelSwitchByIndex`: the stream guard; E `LabelSwitchByIndex` (NULL
/// `ptr` or list 107000; the stream was refused NULL by the ACL layer); I.
/// The index memory and the list are not read before the stream's refusal.
pub(crate) fn label_switch_by_index(ptr: usize, list: usize, stream: usize) -> Res<()> {
    answer((|| {
        guard_stream(stream)?;
        if ptr == 0 {
            return Err(rt_param("ptr is NULL"));
        }
        if list == 0 {
            return Err(rt_param("labelInfoPtr is NULL"));
        }
        label::switch_by_index(stream)
    })())
}

// ------------------------------------------------------------- notifies ---

/// `rtsNotifyCreate`: a flag other than DEFAULT or DOWNLOAD_TO_DEV 107000;
/// the thread's device (`rtGetDevice`: none is 107002, returned as is);
/// E `NotifyCreate` (NULL output 107000); I.
pub(crate) fn notify_create(out: Out<usize>, flag: u64) -> Res<()> {
    if flag != 0 && flag != notify::FLAG_DOWNLOAD_TO_DEV {
        return answer(Err(rt_param(format!(
            "flag {flag:#x} is neither RT_NOTIFY_FLAG_DEFAULT (0) nor \
             RT_NOTIFY_FLAG_DOWNLOAD_TO_DEV (1)"
        ))));
    }
    let device = current_device()?;
    answer_nolog(
        NOT_SUPPORTED,
        (|| {
            if out.is_null() {
                return Err(rt_param("notify is NULL"));
            }
            notify::create(device, out)
        })(),
    )
}

/// E's NULL check of a notify (after the guard let NULL through).
fn notify_not_null(h: usize) -> Res<()> {
    if h == 0 {
        return Err(rt_param("notify is NULL"));
    }
    Ok(())
}

/// `rtNotifyDestroy`: the guard; E `NotifyDestroy` (NULL 107000); I.
pub(crate) fn notify_destroy(h: usize) -> Res<()> {
    answer((|| {
        notify::guard(h)?;
        notify_not_null(h)?;
        notify::destroy(h)
    })())
}

/// `rtNotifyRecord`: the guard (notify, then stream); E `NotifyRecord`
/// (NULL 107000); I.
pub(crate) fn notify_record(h: usize, stream: usize) -> Res<()> {
    answer((|| {
        notify::guard(h)?;
        guard_stream(stream)?;
        notify_not_null(h)?;
        notify::record(h, stream)
    })())
}

/// `rtsNotifyWaitAndReset`: `UINT32_MAX` waits without a limit
/// (`rtNotifyWait`; the chip's NOTIFY_WAIT feature: no default limit),
/// other values are the limit (`rtNotifyWaitWithTimeOut`, both chips have
/// NOTIFY_WAIT_TIMEOUT; 0 is no limit); the guard (notify, then stream);
/// E `NotifyWait` (NULL 107000); I.
pub(crate) fn notify_wait(h: usize, stream: usize, timeout: u32) -> Res<()> {
    let limit = (timeout != u32::MAX).then_some(timeout);
    answer((|| {
        notify::guard(h)?;
        guard_stream(stream)?;
        notify_not_null(h)?;
        notify::wait(h, stream, limit)
    })())
}

/// `rtGetNotifyID`: the guard; E `GetNotifyID` (NULL notify or output
/// 107000); I.
pub(crate) fn notify_id(h: usize, out: Out<u32>) -> Res<()> {
    answer((|| {
        notify::guard(h)?;
        notify_not_null(h)?;
        if out.is_null() {
            return Err(rt_param("notifyId is NULL"));
        }
        notify::id(h, out)
    })())
}

/// `rtsNotifyGetExportKey`: the guard; E `IpcSetNotifyName` (NULL notify,
/// NULL key, `len` 0: 107000; the chip's IPC_NOTIFY feature, which both
/// modelled chips have; a flag other than 0 or DISABLE_PID_VALIDATION
/// 107000); I.
pub(crate) fn notify_export_key(h: usize, key: OutBuf, flags: u64) -> Res<()> {
    answer_nolog(
        NOT_SUPPORTED,
        (|| {
            notify::guard(h)?;
            notify_not_null(h)?;
            if key.is_null() {
                return Err(rt_param("key is NULL"));
            }
            if key.capacity() == 0 {
                return Err(rt_param("len is 0"));
            }
            if flags != 0 && flags != notify::EXPORT_DISABLE_PID_VALIDATION {
                return Err(rt_param(format!(
                    "flags {flags:#x}: expected 0 or \
                     RT_NOTIFY_EXPORT_FLAG_DISABLE_PID_VALIDATION (2)"
                )));
            }
            notify::export_key(h, key, flags)
        })(),
    )
}

/// `rtsNotifyImportByKey` → `rtIpcOpenNotifyWithFlag`: E `IpcOpenNotify`
/// (NULL output or key 107000; flags above DOWNLOAD_TO_DEV |
/// ENABLE_PEER_ACCESS 107000); I.
pub(crate) fn notify_import(out: Out<usize>, key: Option<&str>, flags: u64) -> Res<()> {
    answer_nolog(
        NOT_SUPPORTED,
        (|| {
            if out.is_null() {
                return Err(rt_param("notify is NULL"));
            }
            let Some(key) = key else {
                return Err(rt_param("key is NULL or not UTF-8"));
            };
            if flags > notify::IMPORT_FLAGS_MAX {
                return Err(rt_param(format!(
                    "flags {flags:#x}: expected at most {:#x}",
                    notify::IMPORT_FLAGS_MAX
                )));
            }
            notify::import(out, key)
        })(),
    )
}

/// `rtsNotifySetImportPid`: the guard; E `SetIpcNotifyPid` (NULL pid,
/// `num` 0 or above `INT32_MAX`: 107000); I.
pub(crate) fn notify_set_import_pid(h: usize, pids: Option<&[i32]>) -> Res<()> {
    answer((|| {
        notify::guard(h)?;
        notify_not_null(h)?;
        let Some(pids) = pids else {
            return Err(rt_param("pid is NULL"));
        };
        if pids.is_empty() || pids.len() > i32::MAX as usize {
            return Err(rt_param(format!(
                "num {} is outside (0, {}]",
                pids.len(),
                i32::MAX
            )));
        }
        notify::set_import_pid(h, pids)
    })())
}

// ------------------------------------------------- event operation flags ---

/// `ACL_EVENT_RECORD_EXTERNAL` / `ACL_EVENT_WAIT_EXTERNAL`.
pub(crate) const EVENT_OP_EXTERNAL: u32 = 1;

/// `ACL_ERROR_RT_STREAM_NOT_CAPTURED` (107029): an EXTERNAL record or wait
/// outside a stream capture.
const STREAM_NOT_CAPTURED: i32 = 107_029;

/// E's operation-flag checks of `EventRecord` (`record`) or
/// `StreamWaitEvent`: the flag is DEFAULT or EXTERNAL (107000); EXTERNAL
/// needs an `aclrtCreateEventExWithFlag(ACL_EVENT_SYNC)` event (207000);
/// the flag must be the one the event's first record (wait) used (107000),
/// which it then keeps.
fn check_op_flag(ev: usize, flag: u32, record: bool) -> Res<()> {
    let what = if record { "record" } else { "wait" };
    if flag > EVENT_OP_EXTERNAL {
        return Err(rt_param(format!(
            "{what} flag {flag} is neither DEFAULT (0) nor EXTERNAL (1)"
        )));
    }
    let shared = rt().event(ev)?.shared.clone();
    if flag == EVENT_OP_EXTERNAL
        && !(shared.api == EventApi::Ex && shared.flags == ffi::ACL_EVENT_SYNC)
    {
        return Err(Error::new(
            NOT_SUPPORTED,
            format!(
                "EXTERNAL {what} of event {ev:#x}, which was not created by \
                 aclrtCreateEventExWithFlag(ACL_EVENT_SYNC)"
            ),
        ));
    }
    let slot = &shared.op_flags[usize::from(!record)];
    match slot.compare_exchange(u32::MAX, flag, Ordering::AcqRel, Ordering::Acquire) {
        Ok(_) => Ok(()),
        Err(f) if f == flag => Ok(()),
        Err(f) => Err(rt_param(format!(
            "the {what} flag of event {ev:#x} must stay {f}; {flag} was passed"
        ))),
    }
}

/// The record flag of a plain `aclrtRecordEvent` (DEFAULT), checked and
/// kept as E `EventRecord` does.
pub(crate) fn plain_record_flag(ev: usize) -> Res<()> {
    check_op_flag(ev, 0, true)
}

/// The wait flag of a plain `aclrtStreamWaitEvent` (DEFAULT).
pub(crate) fn plain_wait_flag(ev: usize) -> Res<()> {
    check_op_flag(ev, 0, false)
}

/// I's EXTERNAL branch: a current context (107002), the stream of it
/// (107003), and a stream capture, which the simulator does not model
/// (107029).
fn external_outside_capture(stream: usize, what: &str) -> Res<()> {
    let rt = rt();
    let (_, st) = rt.stream_in_current(stream)?;
    Err(Error::new(
        STREAM_NOT_CAPTURED,
        format!(
            "{what} EXTERNAL on stream {:#x}, which is not capturing (the simulator models no \
             stream capture)",
            st.handle
        ),
    ))
}

/// `rtEventRecordWithFlag` (EXTERNAL; DEFAULT is `aclrtRecordEvent`'s
/// path): the guard (event, then stream); E `EventRecord` (device-only
/// event 107000, the flag checks); I.
pub(crate) fn event_record_external(ev: usize, stream: usize) -> Res<()> {
    answer_nolog(
        NOT_SUPPORTED,
        (|| {
            guard_event(ev)?;
            guard_stream(stream)?;
            event::check_host_use(ev, "aclrtRecordEventWithFlag")?;
            check_op_flag(ev, EVENT_OP_EXTERNAL, true)?;
            external_outside_capture(stream, "aclrtRecordEventWithFlag")
        })(),
    )
}

/// `rtStreamWaitEventWithFlag`: DEFAULT is `rtStreamWaitEventWithTimeout`
/// (the guard, E `StreamWaitEvent`, I with the wait task's limit in
/// seconds; 0: the op-wait timeout); EXTERNAL: the guard (stream, then
/// event), a timeout other than 0 107000, E, I.
pub(crate) fn stream_wait_event_with_flag(
    stream: usize,
    ev: usize,
    timeout: u32,
    flag: u32,
) -> Res<()> {
    answer_nolog(
        NOT_SUPPORTED,
        (|| {
            guard_stream(stream)?;
            guard_event(ev)?;
            if flag == EVENT_OP_EXTERNAL && timeout != 0 {
                return Err(rt_param(format!(
                    "timeout {timeout}: only 0 is supported with ACL_EVENT_WAIT_EXTERNAL"
                )));
            }
            event::check_host_wait(ev)?;
            check_op_flag(ev, flag, false)?;
            if flag == EVENT_OP_EXTERNAL {
                return external_outside_capture(stream, "aclrtStreamWaitEventWithFlag");
            }
            let limit =
                (timeout != 0 && timeout != u32::MAX).then(|| Duration::from_secs(timeout.into()));
            event::stream_wait_within(stream, ev, limit)
        })(),
    )
}

// ------------------------------------------------ value writes and waits ---

/// The chip's TASK_VALUE_WAIT feature (`910_B_93` has it, `dc` not):
/// `rtsValueWrite`/`rtsValueWait` return 207000 without it (stored).
fn check_value_feature(call: &str) -> Res<()> {
    if rt().cfg.soc == Soc::Ascend310P {
        return Err(Error::new(
            NOT_SUPPORTED,
            format!("{call}: the chip has no TASK_VALUE_WAIT feature"),
        ));
    }
    Ok(())
}

/// `rtsValueWrite`: the chip feature; the guard; E `MemWriteValue` (NULL
/// address, a flag other than 0: 107000; the address must be device
/// memory: 107000); I.
pub(crate) fn value_write(addr: UserMem, value: u64, flag: u32, stream: usize) -> Res<()> {
    answer((|| {
        check_value_feature("aclrtValueWrite")?;
        guard_stream(stream)?;
        if addr.is_null() {
            return Err(rt_param("devAddr is NULL"));
        }
        if flag != 0 {
            return Err(rt_param(format!("flag {flag}: must be 0")));
        }
        value::write(addr, value, stream)
    })())
}

/// `rtsValueWait`: the chip feature; the guard; E `MemWaitValue` (NULL
/// address, a flag of `MEM_WAIT_VALUE_TYPE_MAX` (4) or more: 107000; the
/// address must be device memory: 107000); I.
pub(crate) fn value_wait(addr: UserMem, value: u64, flag: u32, stream: usize) -> Res<()> {
    answer((|| {
        check_value_feature("aclrtValueWait")?;
        guard_stream(stream)?;
        if addr.is_null() {
            return Err(rt_param("devAddr is NULL"));
        }
        if flag >= value::WAIT_MODES {
            return Err(rt_param(format!(
                "flag {flag}: expected a wait mode in [0, {})",
                value::WAIT_MODES
            )));
        }
        value::wait(addr, value, flag, stream)
    })())
}

// ----------------------------------------------- host-function threads ---

/// The documentation lists the host-function threads for IPV350 only: the
/// Atlas A2 and inference series (the modelled chips) do not offer them,
/// and their full runtime has no implementation (only the compact
/// runtime, `runtime_compact/feature/src/host_func.c`, serves them). By
/// default ([`HostFuncThreads::Chip`]) each call answers 207000 as those
/// chips do, reported under `UNSUPPORTED`. With
/// [`HostFuncThreads::Compact`] the simulator serves them with the compact
/// runtime's behaviour, so that a program written for the chips that offer
/// them can be tested, and reports the rule at each subscription (`report`:
/// not at every serving call); `Strictness::Refuse` still refuses them.
///
/// [`HostFuncThreads::Chip`]: crate::model::HostFuncThreads::Chip
/// [`HostFuncThreads::Compact`]: crate::model::HostFuncThreads::Compact
fn host_func_threads_on_this_chip(function: &'static str, report: bool) -> Res<()> {
    let cfg = &rt().cfg;
    let unsupported = || {
        Error::violation(
            crate::model::ViolationKind::Unsupported,
            NOT_SUPPORTED,
            "the runtime's documentation lists the host-function threads \
             (aclrtSubscribeHostFunc, aclrtProcessHostFunc, aclrtUnSubscribeHostFunc) for \
             IPV350 only; the Atlas A2 and inference series answer that the feature is not \
             supported (set ACLRT_SIM_HOST_FUNC_THREADS=compact to have the simulator serve \
             them as the compact runtime does)",
        )
    };
    if cfg.host_func_threads == crate::model::HostFuncThreads::Chip {
        return Err(unsupported());
    }
    let strictness = cfg.strictness;
    if !report && strictness != crate::model::Strictness::Refuse {
        return Ok(());
    }
    crate::diag::strict_rule(strictness, function, unsupported())
}

/// `rtSubscribeHostFunc` (`aclrt_c/runtime/host_func.c`: the ACL face
/// calls it directly): the chip ([`host_func_threads_on_this_chip`]); the
/// handle guard; the subscription checks of `SubscribeReport` (a stream
/// served by the runtime's own host-function thread 107011); then I.
pub(crate) fn subscribe_host_func(tid: u64, stream: usize) -> Res<()> {
    answer((|| {
        host_func_threads_on_this_chip("aclrtSubscribeHostFunc", true)?;
        guard_stream(stream)?;
        callback::check_not_host_func_stream(stream, "aclrtSubscribeHostFunc")?;
        callback::subscribe_host_func(tid, stream)
    })())
}

/// `rtUnSubscribeHostFunc`: as [`subscribe_host_func`].
pub(crate) fn unsubscribe_host_func(tid: u64, stream: usize) -> Res<()> {
    answer((|| {
        host_func_threads_on_this_chip("aclrtUnSubscribeHostFunc", false)?;
        guard_stream(stream)?;
        callback::check_not_host_func_stream(stream, "aclrtUnSubscribeHostFunc")?;
        callback::unsubscribe_host_func(tid, stream)
    })())
}

/// `rtProcessHostFunc`: the chip; its timeout check (107000), the
/// thread's subscription (107012), the wait.
pub(crate) fn process_host_func(timeout: i32) -> Res<()> {
    answer((|| {
        host_func_threads_on_this_chip("aclrtProcessHostFunc", false)?;
        callback::process_host_func(timeout)
    })())
}

// ---------------------------------------------------- exception callbacks ---

/// `rtRegTaskFailCallbackByModule` (the ACL module's registration): sets
/// the process's exception callback (NULL clears it); no check decides it.
pub(crate) fn set_exception_callback(hook: Option<ExceptionHook>) -> Res<()> {
    crate::rt::ext::set_exception_hook(hook);
    Ok(())
}

/// `rtGetFuncHandleFromExceptionInfo`: E `GetFuncHandleFromExceptionInfo`
/// (NULL info 107000); I: only an AI Core or AI CPU failure names a kernel,
/// and the simulator's failures carry no such expanded information (107000).
pub(crate) fn func_handle_from_exception_info(info: Option<&ExceptionInfo>) -> Res<()> {
    answer((|| {
        let Some(info) = info else {
            return Err(rt_param("info is NULL"));
        };
        Err(rt_param(format!(
            "the failure of task {} on stream {} carries no kernel information",
            info.task_id, info.stream_id
        )))
    })())
}

// --------------------------------------------------------- virtual memory ---

/// `rtReserveMemAddress`: E `ReserveMemAddress` (NULL output 107000); I.
/// "Not supported" is returned without storing it.
pub(crate) fn reserve_mem_address(
    out: Out<usize>,
    size: usize,
    alignment: usize,
    expect: usize,
) -> Res<()> {
    answer_nolog(
        NOT_SUPPORTED,
        (|| {
            if out.is_null() {
                return Err(rt_param("virPtr is NULL"));
            }
            vmm::reserve(out, size, alignment, expect)
        })(),
    )
}

/// `rtReleaseMemAddress`: E `ReleaseMemAddress` (no check); I.
pub(crate) fn release_mem_address(addr: usize) -> Res<()> {
    answer(vmm::release(addr))
}

/// `rtMallocPhysical`: E `MallocPhysical` (a device location: the device
/// id, 107001); I.
pub(crate) fn malloc_physical(out: Out<usize>, size: usize, prop: vmm::Prop) -> Res<()> {
    answer_nolog(
        NOT_SUPPORTED,
        (|| {
            if prop.loc_type == ffi::ACL_MEM_LOCATION_TYPE_DEVICE {
                rt().check_device(prop.loc_id as i32)?;
            }
            vmm::malloc_physical(out, size, prop)
        })(),
    )
}

/// `rtFreePhysical`: E `FreePhysical` (no check); I.
pub(crate) fn free_physical(h: usize) -> Res<()> {
    answer(vmm::free_physical(h))
}

/// `rtMapMem`: E `MapMem` (no check); I (flags were the ACL layer's).
pub(crate) fn map_mem(addr: usize, size: usize, offset: usize, h: usize) -> Res<()> {
    answer(vmm::map(addr, size, offset, h))
}

/// `rtUnmapMem`: E `UnmapMem` (no check); I.
pub(crate) fn unmap_mem(addr: usize) -> Res<()> {
    answer(vmm::unmap(addr))
}

/// `rtMemSetAccess`: E `MemSetAccess` (NULL address or descriptors
/// 107000); I. "Not supported" unstored.
pub(crate) fn mem_set_access(
    addr: usize,
    size: usize,
    descs: Option<&[(u32, u32, u64)]>,
) -> Res<()> {
    answer_nolog(
        NOT_SUPPORTED,
        (|| {
            if addr == 0 {
                return Err(rt_param("virPtr is NULL"));
            }
            let Some(descs) = descs else {
                return Err(rt_param("desc is NULL"));
            };
            vmm::set_access(addr, size, descs)
        })(),
    )
}

/// `rtMemGetAccess`: E `MemGetAccess` (NULLs 107000, the ACL layer's
/// already); I.
pub(crate) fn mem_get_access(addr: usize) -> Res<(u32, u32, u64)> {
    answer(vmm::get_access(addr))
}

/// `rtMemGetAllocationGranularity`: E `GetAllocationGranularity` (a device
/// location: the device id 107001); I.
pub(crate) fn allocation_granularity(prop: vmm::Prop, option: u32) -> Res<usize> {
    answer((|| {
        if prop.loc_type == ffi::ACL_MEM_LOCATION_TYPE_DEVICE {
            rt().check_device(prop.loc_id as i32)?;
        }
        vmm::granularity(prop, option)
    })())
}

/// `rtsMemExportToShareableHandle`: I.
pub(crate) fn export_shareable(h: usize, flags: u64, out: Out<u64>) -> Res<()> {
    answer(vmm::export(h, flags, out))
}

/// `rtMemImportFromShareableHandle`: E (the device id 107001); I.
pub(crate) fn import_shareable(s: u64, device: i32, out: Out<usize>) -> Res<()> {
    answer_nolog(NOT_SUPPORTED, vmm::import(s, device, out))
}

/// `rtMemSetPidToShareableHandle`: I.
pub(crate) fn set_pid_to_shareable(s: u64, pids: &[i32]) -> Res<()> {
    answer(vmm::set_pids(s, pids))
}

/// `rtMemGetAllocationPropertiesFromHandle`: I.
pub(crate) fn allocation_properties(h: usize) -> Res<vmm::Prop> {
    answer(vmm::properties(h))
}

/// `rtMemRetainAllocationHandle`: I.
pub(crate) fn retain_allocation_handle(addr: usize) -> Res<usize> {
    answer(vmm::retain(addr))
}

/// A function of the group the simulator does not model: the answer of
/// every function it does not model (`diag::unsupported`: 207000, stored,
/// reported under the rule UNSUPPORTED), with the reason.
pub(crate) fn not_modelled(call: &str, why: &str) -> Res<()> {
    let e = crate::diag::unsupported();
    let msg = format!("{call}: {why}; {}", e.msg);
    Err(Error { msg, ..e })
}

// ------------------------------------------------------------ IPC memory ---

/// `rtsIpcMemGetExportKey` → E `IpcSetMemoryName` (NULL pointer or key,
/// size 0, len 0: 107000; flags above DISABLE_PID_VALIDATION 107000); I.
pub(crate) fn ipc_mem_export(addr: usize, size: usize, key: OutBuf, flags: u64) -> Res<()> {
    answer_nolog(
        NOT_SUPPORTED,
        (|| {
            if addr == 0 {
                return Err(rt_param("devPtr is NULL"));
            }
            if key.is_null() {
                return Err(rt_param("key is NULL"));
            }
            if size == 0 {
                return Err(rt_param("size is 0"));
            }
            if key.capacity() == 0 {
                return Err(rt_param("len is 0"));
            }
            if flags > ipc::EXPORT_DISABLE_PID_VALIDATION {
                return Err(rt_param(format!("flags {flags:#x}: expected [0, 1]")));
            }
            ipc::export(addr, size, key, flags)
        })(),
    )
}

/// `rtsIpcMemSetImportPid` → E `SetIpcMemPid` (NULL key or pid, `num` 0 or
/// above `INT32_MAX`: 107000); I.
pub(crate) fn ipc_mem_set_import_pid(key: Option<&str>, pids: Option<&[i32]>) -> Res<()> {
    answer((|| {
        let Some(key) = key else {
            return Err(rt_param("key is NULL or not UTF-8"));
        };
        let Some(pids) = pids else {
            return Err(rt_param("pid is NULL"));
        };
        if pids.is_empty() || pids.len() > i32::MAX as usize {
            return Err(rt_param(format!(
                "num {} is outside (0, {}]",
                pids.len(),
                i32::MAX
            )));
        }
        ipc::set_import_pid(key, pids)
    })())
}

/// `rtsIpcMemImportByKey` → E `IpcOpenMemory` (NULL output or key; flags
/// above ENABLE_PEER_ACCESS: 107000); I. "Not supported" unstored.
pub(crate) fn ipc_mem_import(out: Out<usize>, key: Option<&str>, flags: u64) -> Res<()> {
    answer_nolog(
        NOT_SUPPORTED,
        (|| {
            if out.is_null() {
                return Err(rt_param("devPtr is NULL"));
            }
            let Some(key) = key else {
                return Err(rt_param("key is NULL or not UTF-8"));
            };
            if flags > ipc::IMPORT_ENABLE_PEER_ACCESS {
                return Err(rt_param(format!("flags {flags:#x}: expected [0, 1]")));
            }
            ipc::import(out, key)
        })(),
    )
}

/// `rtsIpcMemClose`: the chip's IPC_MEMORY feature (both chips); E
/// `IpcCloseMemoryByName` (NULL key 107000); I.
pub(crate) fn ipc_mem_close(key: Option<&str>) -> Res<()> {
    answer((|| {
        let Some(key) = key else {
            return Err(rt_param("key is NULL or not UTF-8"));
        };
        ipc::close(key)
    })())
}

/// `rtsIpcMemSetAttr` → E `IpcSetMemoryAttr` (NULL key; a type of
/// `RT_ATTR_TYPE_MAX` (1) or more; a value of `RT_IPC_MEM_ATTR_MAX` (4) or
/// more: 107000); I.
pub(crate) fn ipc_mem_set_attr(key: Option<&str>, ty: u32, attr: u64) -> Res<()> {
    answer((|| {
        let Some(key) = key else {
            return Err(rt_param("key is NULL or not UTF-8"));
        };
        if ty >= 1 {
            return Err(rt_param(format!("type {ty}: expected [0, 1)")));
        }
        if attr >= 4 {
            return Err(rt_param(format!("attr {attr}: expected [0, 4)")));
        }
        ipc::set_attr(key)
    })())
}

/// `rtIpcGetEventHandle`: the chip's IPC_EVENT feature (207000 on the
/// 310P, stored); the guard; I.
pub(crate) fn ipc_get_event_handle(ev: usize) -> Res<[u8; 64]> {
    answer((|| {
        ipc::ipc_event_feature("aclrtIpcGetEventHandle")?;
        guard_event(ev)?;
        ipc::event_handle(ev)
    })())
}

/// `rtIpcOpenEventHandle`: the chip feature; I.
pub(crate) fn ipc_open_event_handle(handle: &[u8; 64], out: Out<usize>) -> Res<()> {
    answer((|| {
        ipc::ipc_event_feature("aclrtIpcOpenEventHandle")?;
        ipc::open_event_handle(handle, out)
    })())
}

// ------------------------------------------- reductions, random numbers ---

/// `rtsLaunchReduceAsyncTask`: a non-NULL `reserve` 107000; the guard; E
/// `ReduceAsync` (NULL pointers, count 0, a kind outside [SUM, EQUAL], a
/// type outside the engine's: 107000); I.
pub(crate) fn reduce_async(
    dst: UserMem,
    src: UserMem,
    count: u64,
    kind: u32,
    ty: i32,
    stream: usize,
) -> Res<()> {
    answer_nolog(
        NOT_SUPPORTED,
        (|| {
            guard_stream(stream)?;
            if dst.is_null() || src.is_null() {
                return Err(rt_param("dst or src is NULL"));
            }
            if count == 0 {
                return Err(rt_param("count is 0"));
            }
            if !dsa::REDUCE_KINDS.contains(&kind) {
                return Err(rt_param(format!("kind {kind}: expected [10, 14)")));
            }
            let count = usize::try_from(count).map_err(|_| rt_param("count too large"))?;
            dsa::reduce(dst, src, count, kind, ty, stream)
        })(),
    )
}

/// `rtsLaunchRandomNumTask`: the chip's TASK_RAND_GENERATOR feature
/// (`910_B_93` only; 207000 returned without storing); the guard; E
/// `LaunchRandomNumTask` (NULL task, non-NULL reserve: 107000); I.
pub(crate) fn random_num(task: Option<dsa::RandomTask>, stream: usize, reserve: bool) -> Res<()> {
    answer_nolog(
        NOT_SUPPORTED,
        (|| {
            if rt().cfg.soc == Soc::Ascend310P {
                return Err(Error::new(
                    NOT_SUPPORTED,
                    "aclrtRandomNumAsync: the chip has no TASK_RAND_GENERATOR feature",
                ));
            }
            guard_stream(stream)?;
            let Some(task) = task else {
                return Err(rt_param("taskInfo is NULL"));
            };
            if reserve {
                return Err(rt_param("reserve must be NULL"));
            }
            dsa::random(task, stream)
        })(),
    )
}

/// `rtRegTaskFailCallbackByModule` under the callback's own name
/// (`aclrtExceptionInfoCallbackRegister` / `…Unregister`): no check
/// decides it.
pub(crate) fn register_exception_callback(hook: ExceptionHook, on: bool) -> Res<()> {
    crate::rt::ext::register_exception_hook(hook, on);
    Ok(())
}

/// `rtMemGetAddressRange`: I: the live allocation holding `addr` (107000
/// elsewhere).
pub(crate) fn mem_address_range(addr: usize) -> Res<(usize, usize)> {
    let found = {
        let rt = rt();
        rt.mem
            .live
            .range(..=addr)
            .next_back()
            .filter(|&(&s, a)| addr < s + a.size.max(1))
            .map(|(&s, a)| (s, a.size))
    };
    answer(found.ok_or_else(|| {
        rt_param(format!(
            "{addr:#x} is not inside an allocation of the runtime"
        ))
    }))
}
