//! The ACL layer of the newer objects (`notify.cpp`, `memory.cpp`,
//! `callback.cpp`, `event.cpp`, `allocator.cpp`, `dfx.cpp` of
//! `src/acl/aclrt_impl/`): each function's own checks (100000), in the
//! order of its `aclrt…Impl`, then the runtime's C API. A refusal made here
//! is never the thread's last error.

use crate::diag::{Res, param};
use crate::prim::{ExceptionHook, ExceptionInfo, Out, OutBuf, UserMem};
use crate::rt_api;

use super::{not_null, refuse};

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
        return refuse(crate::diag::Error::new(INVALID_EXCEPTION_INFO as i32, "info is NULL"));
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
        return refuse(crate::diag::Error::new(INVALID_EXCEPTION_INFO as i32, "info is NULL"));
    }
    not_null(func_null, "func")?;
    rt_api::func_handle_from_exception_info(info)
}
