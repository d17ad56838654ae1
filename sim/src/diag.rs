//! Errors, per-thread error messages, the violation and leak records, call
//! counting and injected call faults.

use std::cell::{Cell, RefCell};
use std::ffi::{CString, c_char};
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::sync::Mutex;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};

use crate::ffi;
use crate::model::{Leak, Violation, ViolationKind};
use crate::sync::lock;

/// A failed call: the code it returns, the reason (without the function
/// name, which [`call`] prepends), and the strict-check violation it is, if
/// any.
#[derive(Debug)]
pub(crate) struct Error {
    pub code: i32,
    pub msg: String,
    pub kind: Option<ViolationKind>,
    /// The handle or address a violation is about (its report names it).
    pub handle: Option<usize>,
    /// Whether the failure is stored as the thread's last error
    /// (`aclrtPeekAtLastError`): decided by the layer that answered.
    pub stored: Stored,
}

/// Whether a failure becomes the thread's last error. The real runtime
/// stores it where its C API returns an error through its error-code
/// conversion (the handle guard, the argument-checking layer's and the
/// implementation's failures); the ACL layer's own refusals never reach it,
/// and a few "special state" answers are returned without it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Stored {
    /// Not decided by a layer (entry points not yet in the layered rooms):
    /// by the code (`stores_last_code`).
    ByCode,
    /// Answered by the runtime's C API: stored.
    Yes,
    /// Answered by the ACL layer, or a special state: not stored.
    No,
}

/// The result of an internal operation.
pub(crate) type Res<T> = Result<T, Error>;

impl Error {
    /// A plain error (documented runtime behaviour, not a strict check).
    pub(crate) fn new(code: i32, msg: impl Into<String>) -> Error {
        Error {
            code,
            msg: msg.into(),
            kind: None,
            handle: None,
            stored: Stored::ByCode,
        }
    }

    /// A strict-check violation: returned with `code` and recorded.
    pub(crate) fn violation(kind: ViolationKind, code: i32, msg: impl Into<String>) -> Error {
        Error {
            code,
            msg: msg.into(),
            kind: Some(kind),
            handle: None,
            stored: Stored::ByCode,
        }
    }

    /// The same error as the runtime's C API returns it (stored as the
    /// thread's last error unless a layer below already decided).
    pub(crate) fn answered_by_runtime(self) -> Error {
        let stored = match self.stored {
            Stored::ByCode => Stored::Yes,
            decided => decided,
        };
        Error { stored, ..self }
    }

    /// The same error as the ACL layer returns it on its own (never stored
    /// as the thread's last error).
    pub(crate) fn answered_by_acl(self) -> Error {
        Error {
            stored: Stored::No,
            ..self
        }
    }

    /// The same error about `handle` (a context, stream or event handle, a
    /// memory address, a device id), which the violation's report names.
    pub(crate) fn on(self, handle: usize) -> Error {
        Error {
            handle: Some(handle),
            ..self
        }
    }

    /// The same error (message, violation) answered with `code`: for calls
    /// whose real counterpart reports a shared failure with its own code.
    pub(crate) fn with_code(self, code: i32) -> Error {
        Error { code, ..self }
    }
}

/// `ACL_ERROR_INVALID_PARAM` (100000): the ACL layer's parameter check.
pub(crate) fn param(msg: impl Into<String>) -> Error {
    Error::new(ffi::ACL_ERROR_INVALID_PARAM, msg)
}

/// `ACL_ERROR_RT_PARAM_INVALID` (107000): the runtime layer's value check.
pub(crate) fn rt_param(msg: impl Into<String>) -> Error {
    Error::new(ffi::ACL_ERROR_RT_PARAM_INVALID, msg)
}

/// The answer of a function of the runtime's surface that the simulator
/// does not model: the runtime's own "feature not supported" code (207000
/// `ACL_ERROR_RT_FEATURE_NOT_SUPPORT`, what its C API returns where a chip
/// lacks a feature), stored as the thread's last error as that answer is,
/// and recorded and reported under the rule `UNSUPPORTED` so that a test or
/// a user sees which function their program needs.
pub(crate) fn unsupported() -> Error {
    Error::violation(
        ViolationKind::Unsupported,
        ffi::ACL_ERROR_RT_FEATURE_NOT_SUPPORT,
        "not modelled by the simulator: answered with 207000 \
         (ACL_ERROR_RT_FEATURE_NOT_SUPPORT), as the runtime answers a feature the chip lacks",
    )
    .answered_by_runtime()
}

/// [`unsupported`] for a C function of `api` that returns `fallback` (a
/// NULL pointer, a zero) instead of an error code: counted, recorded and
/// reported like the others, its message left for `aclGetRecentErrMsg`.
pub(crate) fn unsupported_value<R>(api: Api, fallback: R) -> R {
    let _ = call(api, || Err(unsupported()));
    fallback
}

/// Runs one C call that returns a value instead of a code (a pointer, a
/// size) as [`call`] does: `f`'s value, or `fallback` when it fails (its
/// message, violation and last error recorded as for any call).
pub(crate) fn value_call<R>(api: Api, fallback: R, f: impl FnOnce() -> Res<R>) -> R {
    let mut value = None;
    let _ = call(api, || {
        value = Some(f()?);
        Ok(())
    });
    value.unwrap_or(fallback)
}

/// 100000 unless `ok`.
pub(crate) fn require(ok: bool, msg: impl FnOnce() -> String) -> Res<()> {
    if ok { Ok(()) } else { Err(param(msg())) }
}

/// Calls `f(list of every exported function)`; the single list of the C
/// functions this crate exports (signature check, call counting).
macro_rules! with_api_list {
    ($m:ident) => {
        $m! {
            aclGetRecentErrMsg, aclrtGetSocName, aclInit, aclFinalize, aclFinalizeReference,
            aclrtSetDevice, aclrtResetDevice, aclrtResetDeviceForce, aclrtGetDevice,
            aclrtGetDeviceCount, aclrtGetRunMode, aclrtSynchronizeDevice,
            aclrtSynchronizeDeviceWithTimeout, aclrtDeviceCanAccessPeer,
            aclrtDeviceEnablePeerAccess, aclrtDeviceDisablePeerAccess, aclrtCreateContext,
            aclrtDestroyContext, aclrtSetCurrentContext, aclrtGetCurrentContext,
            aclrtCtxGetCurrentDefaultStream, aclrtCreateStream, aclrtCreateStreamWithConfig,
            aclrtDestroyStream, aclrtDestroyStreamForce, aclrtSynchronizeStream,
            aclrtSynchronizeStreamWithTimeout, aclrtStreamQuery, aclrtStreamWaitEvent,
            aclrtGetStreamAvailableNum, aclrtStreamAbort, aclrtCreateEvent, aclrtCreateEventWithFlag,
            aclrtCreateEventExWithFlag, aclrtDestroyEvent, aclrtRecordEvent, aclrtResetEvent,
            aclrtQueryEvent, aclrtQueryEventStatus, aclrtQueryEventWaitStatus,
            aclrtSynchronizeEvent, aclrtSynchronizeEventWithTimeout, aclrtEventElapsedTime,
            aclrtGetEventAvailNum, aclrtMalloc, aclrtMallocAlign32, aclrtMallocCached, aclrtFree,
            aclrtFreeWithDevSync, aclrtMallocHost, aclrtFreeHost, aclrtFreeHostWithDevSync,
            aclrtMemset, aclrtMemsetAsync, aclrtMemcpy, aclrtMemcpyAsync, aclrtMemcpy2d,
            aclrtMemcpy2dAsync, aclrtGetMemInfo, aclrtLaunchCallback, aclrtSubscribeReport,
            aclrtProcessReport, aclrtUnSubscribeReport, aclrtLaunchHostFunc,
            aclrtSetOpWaitTimeout, aclrtSetOpExecuteTimeOut, aclrtBinaryLoadFromFile, aclrtBinaryLoadFromData,
            aclrtBinaryUnLoad, aclrtBinaryGetFunction, aclrtLaunchKernel,
            aclrtLaunchKernelWithConfig, aclrtKernelArgsInit, aclrtKernelArgsAppend,
            aclrtKernelArgsAppendPlaceHolder, aclrtKernelArgsGetPlaceHolderBuffer,
            aclrtKernelArgsFinalize, aclrtGetVersion, aclsysGetVersionStr, aclsysGetVersionNum,
            aclsysGetCANNVersion,
            aclrtEventGetTimestamp, aclrtStreamGetPriority, aclrtDeviceGetStreamPriorityRange,
            aclrtSetStreamFailureMode, aclrtPeekAtLastError, aclrtGetLastError,
            aclrtHostRegister, aclrtHostRegisterV2, aclrtHostGetDevicePointer,
            aclrtHostUnregister, aclrtMemAllocManaged,
            // Notifies, host-function threads, virtual and IPC memory, allocators,
            // exception callbacks, value writes and waits, event operation flags,
            // random numbers, reductions.
            aclrtAllocatorCreateDesc, aclrtAllocatorDestroyDesc, aclrtAllocatorGetByStream,
            aclrtAllocatorRegister, aclrtAllocatorSetAllocAdviseFuncToDesc,
            aclrtAllocatorSetAllocFuncToDesc, aclrtAllocatorSetFreeFuncToDesc,
            aclrtAllocatorSetGetAddrFromBlockFuncToDesc, aclrtAllocatorSetObjToDesc,
            aclrtAllocatorUnregister, aclrtCreateNotify, aclrtDestroyNotify,
            aclrtExceptionInfoCallbackRegister, aclrtExceptionInfoCallbackUnregister,
            aclrtFreePhysical, aclrtGetArgsFromExceptionInfo, aclrtGetDeviceIdFromExceptionInfo,
            aclrtGetErrorCodeFromExceptionInfo, aclrtGetFuncHandleFromExceptionInfo,
            aclrtGetNotifyId, aclrtGetStreamIdFromExceptionInfo, aclrtGetTaskIdFromExceptionInfo,
            aclrtGetThreadIdFromExceptionInfo, aclrtIpcGetEventHandle, aclrtIpcMemClose,
            aclrtIpcMemGetExportKey, aclrtIpcMemImportByKey, aclrtIpcMemImportPidInterServer,
            aclrtIpcMemSetAttr, aclrtIpcMemSetImportPid, aclrtIpcOpenEventHandle,
            aclrtMallocPhysical, aclrtMapMem, aclrtMemExportToShareableHandle,
            aclrtMemExportToShareableHandleV2, aclrtMemGetAccess, aclrtMemGetAddressRange,
            aclrtMemGetAllocationGranularity, aclrtMemGetAllocationPropertiesFromHandle,
            aclrtMemImportFromShareableHandle, aclrtMemImportFromShareableHandleV2,
            aclrtMemMapNoAccess, aclrtMemMapSelectedLink, aclrtMemMapSetLink, aclrtMemP2PMap,
            aclrtMemRetainAllocationHandle, aclrtMemSetAccess, aclrtMemSetPidToShareableHandle,
            aclrtMemSetPidToShareableHandleV2, aclrtNotifyBatchReset, aclrtNotifyGetExportKey,
            aclrtNotifyImportByKey, aclrtNotifySetImportPid, aclrtNotifySetImportPidInterServer,
            aclrtProcessHostFunc, aclrtRandomNumAsync, aclrtRecordEventWithFlag, aclrtRecordNotify,
            aclrtReduceAsync, aclrtReleaseMemAddress, aclrtReserveMemAddress,
            aclrtReserveMemAddressNoUCMemory, aclrtSetExceptionInfoCallback,
            aclrtStreamWaitEventWithFlag, aclrtSubscribeHostFunc, aclrtUnSubscribeHostFunc,
            aclrtUnmapMem, aclrtValueWait, aclrtValueWrite, aclrtWaitAndResetNotify,
            // The rest of the surface (raw/surface.rs).
            aclCreateDataBuffer, aclDestroyDataBuffer, aclUpdateDataBuffer, aclGetDataBufferAddr,
            aclGetDataBufferSize, aclGetDataBufferSizeV2, aclGetCannAttributeList,
            aclGetCannAttribute, aclGetDeviceCapability, aclInitCallbackRegister,
            aclInitCallbackUnRegister, aclFinalizeCallbackRegister, aclFinalizeCallbackUnRegister,
            aclrtBinarySetExceptionCallback, aclrtGetThreadLastTaskId, aclrtGetMemUceInfo,
            aclrtDeviceTaskAbort, aclrtMemUceRepair, aclrtSetDeviceTaskAbortCallback,
            aclrtGetErrorVerbose, aclrtRepairError, aclrtCtxGetSysParamOpt, aclrtCtxSetSysParamOpt,
            aclrtGetSysParamOpt, aclrtSetSysParamOpt, aclrtGetPrimaryCtxState,
            aclrtCtxGetFloatOverflowAddr, aclrtSetDeviceSatMode, aclrtGetDeviceSatMode,
            aclrtGetOverflowStatus, aclrtResetOverflowStatus, aclrtGetFloatOverflowStatus,
            aclrtResetFloatOverflowStatus, aclrtNpuGetFloatOverFlowStatus,
            aclrtNpuClearFloatOverFlowStatus, aclrtStreamGetId, aclrtCreateStreamConfigHandle,
            aclrtDestroyStreamConfigHandle, aclrtSetStreamConfigOpt, aclrtCreateStreamV2,
            aclrtStreamGetFlags, aclrtStreamWaitEventWithTimeout, aclrtSetStreamOverflowSwitch,
            aclrtGetStreamOverflowSwitch, aclrtSetStreamAttribute, aclrtGetStreamAttribute,
            aclrtGetStreamResLimit, aclrtSetStreamResLimit, aclrtResetStreamResLimit,
            aclrtUseStreamResInCurrentThread, aclrtUnuseStreamResInCurrentThread, aclrtActiveStream,
            aclrtSwitchStream, aclrtRegStreamStateCallback, aclrtStreamStop,
            aclrtPersistentTaskClean, aclrtSetTsDevice, aclrtGetDeviceUtilizationRate,
            aclrtHostMemMapCapabilities, aclrtSetGroup, aclrtGetGroupCount, aclrtCreateGroupInfo,
            aclrtDestroyGroupInfo, aclrtGetAllGroupInfo, aclrtGetGroupInfoDetail,
            aclrtQueryDeviceStatus, aclrtDeviceGetBareTgid, aclrtGetDeviceInfo,
            aclrtGetDeviceCapability, aclrtDeviceGetUuid, aclrtDeviceSetLimit, aclrtDeviceGetLimit,
            aclrtDeviceGetPCIBusId, aclrtDeviceGetByPCIBusId, aclrtDeviceGetHostAtomicCapabilities,
            aclrtDeviceGetP2PAtomicCapabilities, aclrtGetDeviceResLimit, aclrtSetDeviceResLimit,
            aclrtResetDeviceResLimit, aclrtGetResInCurrentThread, aclrtGetDevicesTopo,
            aclrtGetLogicDevIdByUserDevId, aclrtGetUserDevIdByLogicDevId,
            aclrtGetLogicDevIdByPhyDevId, aclrtGetPhyDevIdByLogicDevId, aclrtGetUserDevIdByPhyDevId,
            aclrtGetPhyDevIdByUserDevId, aclrtRegDeviceStateCallback, aclrtDevicePeerAccessStatus,
            aclrtCheckArchCompatibility, aclrtDeviceL2CacheFlush, aclrtGetEventId,
            aclrtCntNotifyCreate, aclrtCntNotifyDestroy, aclrtCntNotifyRecord,
            aclrtCntNotifyWaitWithTimeout, aclrtCntNotifyReset, aclrtCntNotifyGetId,
            aclrtCreateLabel, aclrtSetLabel, aclrtDestroyLabel, aclrtCreateLabelList,
            aclrtDestroyLabelList, aclrtSwitchLabelByIndex, aclrtMemsetD32, aclrtMemsetD32Async,
            aclrtMemcpyAsyncWithCondition, aclrtMemcpyFromSymbol, aclrtMemcpyFromSymbolAsync,
            aclrtMemcpyToSymbol, aclrtMemcpyToSymbolAsync, aclrtCmoAsync, aclrtGetMemcpyDescSize,
            aclrtSetMemcpyDesc, aclrtMemcpyAsyncWithOffset, aclrtMemcpyAsyncWithDesc,
            aclrtCmoAsyncWithBarrier, aclrtCmoWaitBarrier, aclrtMemcpyBatch, aclrtMemcpyBatchV2,
            aclrtMemcpyBatchAsync, aclrtMemcpyBatchAsyncV2, aclrtCmoGetDescSize, aclrtCmoSetDesc,
            aclrtCmoAsyncWithDesc, aclrtMallocWithCfg, aclrtMallocForTaskScheduler,
            aclrtMallocHostWithCfg, aclrtPointerGetAttributes, aclrtMemManagedGetAttr,
            aclrtMemManagedGetAttrs, aclrtMemFlush, aclrtMemInvalidate, aclrtGetSymbolAddress,
            aclrtGetSymbolSize, aclrtMemManagedAdvise, aclrtGetMemUsageInfo, aclrtGetFuncBySymbol,
            aclrtFreeBuf, aclrtCheckMemType, aclrtMemManagedPrefetchAsync,
            aclrtMemManagedPrefetchBatchAsync, aclrtSetOpExecuteTimeOutWithMs,
            aclrtSetOpExecuteTimeOutV2, aclrtGetOpTimeOutInterval, aclrtGetOpExecuteTimeout,
            aclrtCreateBinary, aclrtDestroyBinary, aclrtBinaryLoad, aclrtBinaryGetDevAddress,
            aclrtBinaryGetFunctionByEntry, aclrtBinaryGetGlobal, aclrtGetFunctionAddr,
            aclrtGetFunctionSize, aclrtKernelArgsGetHandleMemSize, aclrtKernelArgsGetMemSize,
            aclrtKernelArgsInitByUserMem, aclrtKernelArgsParaUpdate, aclrtGetFunctionName,
            aclrtRegisterCpuFunc, aclrtProfTrace, aclrtLaunchKernelV2,
            aclrtLaunchKernelWithHostArgs, aclrtLaunchKernelWithArgsArray,
            aclrtLaunchSIMTKernelWithArgsArray, aclrtLaunchSIMTKernelWithHostArgs,
            aclrtGetHardwareSyncAddr, aclrtTaskUpdateAsync, aclrtCacheLastTaskOpInfo,
            aclrtCacheLastTaskExtendInfo, aclrtGetFunctionAttribute, aclrtFunctionGetBinary,
            aclrtFunctionGetParamCount, aclrtFunctionGetParamInfo,
            aclrtFunctionGetAvailDynUbufPerBlock, aclrtGetBufFromChain, aclrtGetBufChainNum,
            aclrtAppendBufChain, aclrtCopyBufRef, aclrtGetBufUserData, aclrtSetBufUserData,
            aclrtGetBufData, aclrtGetBufDataLen, aclrtSetBufDataLen, aclrtAllocBuf,
            aclrtSnapShotProcessLock, aclrtSnapShotProcessUnlock, aclrtSnapShotProcessBackup,
            aclrtSnapShotProcessRestore, aclrtSnapShotCallbackRegister,
            aclrtSnapShotCallbackUnregister, aclmdlRITaskGetParams, aclmdlRITaskSetParams,
            aclmdlRIKernelTaskGetAttribute, aclmdlRIUpdate, aclmdlRITaskDisable,
            aclmdlRICaptureBegin, aclmdlRICaptureGetInfo, aclmdlRICaptureEnd, aclmdlRIDebugPrint,
            aclmdlRIDebugJsonPrint, aclmdlRICaptureThreadExchangeMode, aclmdlRIExecuteAsync,
            aclmdlRIExecute, aclmdlRIDestroy, aclmdlRICaptureTaskGrpBegin,
            aclmdlRICaptureTaskGrpEnd, aclmdlRICaptureTaskUpdateBegin, aclmdlRICaptureTaskUpdateEnd,
            aclmdlRIBuildBegin, aclmdlRIBindStream, aclmdlRIEndTask, aclmdlRIBuildEnd,
            aclmdlRIUnbindStream, aclmdlRISetName, aclmdlRIGetName, aclmdlRIGetId,
            aclmdlRIDestroyRegisterCallback, aclmdlRIDestroyUnregisterCallback, aclmdlInitDump,
            aclmdlSetDump, aclmdlFinalizeDump, aclmdlRIGetStreams, aclmdlRIGetTasksByStream,
            aclmdlRITaskGetType, aclmdlRITaskGetSeqId, aclmdlRIAbort, aclmdlRICondHandleCreate,
            aclmdlRICondHandleGetCondPtr, aclmdlRIAddCondTask, aclmdlRICaptureToModelRIBegin,
        }
    };
}
pub(crate) use with_api_list;

macro_rules! define_api {
    ($($name:ident),* $(,)?) => {
        /// One exported C function (index into the call counters).
        #[allow(non_camel_case_types, clippy::enum_variant_names)]
        #[derive(Clone, Copy, Debug, PartialEq, Eq)]
        pub(crate) enum Api { $($name),* }

        /// The names of the exported C functions, indexed by [`Api`].
        pub(crate) const API_NAMES: &[&str] = &[$(stringify!($name)),*];
    };
}
with_api_list!(define_api);

/// Number of exported C functions.
pub(crate) const API_COUNT: usize = API_NAMES.len();

impl Api {
    /// The C name.
    pub(crate) fn name(self) -> &'static str {
        API_NAMES[self as usize]
    }

    /// The function called `name`, if it is one of ours.
    pub(crate) fn by_name(name: &str) -> Option<Api> {
        API_NAMES
            .iter()
            .position(|n| *n == name)
            .map(Api::from_index)
    }

    fn from_index(i: usize) -> Api {
        macro_rules! pick {
            ($($name:ident),* $(,)?) => {{
                const ALL: &[Api] = &[$(Api::$name),*];
                ALL[i]
            }};
        }
        with_api_list!(pick)
    }
}

/// Calls since the last reset of the counters (what `call_counts` shows).
static COUNTS: [AtomicU64; API_COUNT] = [const { AtomicU64::new(0) }; API_COUNT];
/// Calls ever made (never cleared except by `reset`); fault targets count
/// on these, so clearing the visible counters does not move them.
static SEEN: [AtomicU64; API_COUNT] = [const { AtomicU64::new(0) }; API_COUNT];
/// Functions in the order of their first call since the counters were reset.
static ORDER: Mutex<Vec<Api>> = Mutex::new(Vec::new());

struct CallFault {
    api: Api,
    at: u64,
    code: i32,
}

static CALL_FAULTS: Mutex<Vec<CallFault>> = Mutex::new(Vec::new());
static ANY_CALL_FAULT: AtomicBool = AtomicBool::new(false);

/// Whether every call is appended to `CALL_LOG` (off by default: the log
/// costs a lock per call).
static CALL_LOG_ON: AtomicBool = AtomicBool::new(false);
static CALL_LOG: Mutex<Vec<Api>> = Mutex::new(Vec::new());

/// Start (clearing it) or stop recording every call in order.
pub(crate) fn record_calls(on: bool) {
    let mut log = lock(&CALL_LOG);
    if on {
        log.clear();
    }
    CALL_LOG_ON.store(on, Ordering::Release);
}

/// The calls recorded since `record_calls(true)`, in call order.
pub(crate) fn call_log() -> Vec<&'static str> {
    lock(&CALL_LOG).iter().map(|api| api.name()).collect()
}

/// Counts a call of `api`; returns the injected code if this call must fail.
fn enter(api: Api) -> Option<i32> {
    let i = api as usize;
    if CALL_LOG_ON.load(Ordering::Relaxed) {
        lock(&CALL_LOG).push(api);
    }
    if COUNTS[i].fetch_add(1, Ordering::Relaxed) == 0 {
        let mut order = lock(&ORDER);
        if !order.contains(&api) {
            order.push(api);
        }
    }
    let n = SEEN[i].fetch_add(1, Ordering::Relaxed) + 1;
    if !ANY_CALL_FAULT.load(Ordering::Acquire) {
        return None;
    }
    let mut faults = lock(&CALL_FAULTS);
    let pos = faults.iter().position(|f| f.api == api && f.at == n)?;
    let fault = faults.swap_remove(pos);
    if faults.is_empty() {
        ANY_CALL_FAULT.store(false, Ordering::Release);
    }
    drop(faults);
    set_last_error(format!(
        "{}: injected fault: call #{n} fails with {} (aclrt_sim::inject_fault)",
        api.name(),
        fault.code
    ));
    store_last_code(api, fault.code);
    Some(fault.code)
}

/// Counts a call of a function that returns a pointer (no error code).
pub(crate) fn count_only(api: Api) {
    let _ = never_unwind(None, || enter(api));
}

/// Runs `f` for a C entry point, which must never unwind: a panic (a bug of
/// the simulator) gives `fallback` instead. Every `extern "C"` function of
/// the simulator runs its body through this or [`call`].
pub(crate) fn never_unwind<R>(fallback: R, f: impl FnOnce() -> R) -> R {
    catch_unwind(AssertUnwindSafe(f)).unwrap_or(fallback)
}

/// Runs one C call: counts it, applies injected faults, runs `f` (a panic
/// becomes `ACL_ERROR_INTERNAL_ERROR` instead of unwinding into C), and turns
/// an error into its code, its thread-local message and, for strict checks,
/// a recorded violation.
pub(crate) fn call(api: Api, f: impl FnOnce() -> Res<()>) -> i32 {
    let code = call_inner(api, f);
    // The reports of violations found during the call, with no lock of the
    // runtime held.
    never_unwind((), crate::report::flush);
    // The stream state callbacks of the streams the call created (no lock
    // held either).
    never_unwind((), crate::stream_state::flush_created);
    code
}

fn call_inner(api: Api, f: impl FnOnce() -> Res<()>) -> i32 {
    // Counting, fault injection and the recording of a failure are inside
    // the guard too: nothing of this call unwinds into C.
    never_unwind(ffi::ACL_ERROR_INTERNAL_ERROR, || {
        if let Some(code) = enter(api) {
            return code;
        }
        if let Some(generation) = crate::sync::stale_caller() {
            return fail(api, stale_generation(api, generation));
        }
        let _current = CurrentApi::enter(api);
        match catch_unwind(AssertUnwindSafe(f)) {
            Ok(Ok(())) => ffi::ACL_SUCCESS,
            Ok(Err(e)) => fail(api, e),
            Err(_) => fail(
                api,
                Error::new(
                    ffi::ACL_ERROR_INTERNAL_ERROR,
                    "internal error of the simulator (a panic was caught); please report it",
                ),
            ),
        }
    })
}

thread_local! {
    /// The C function the calling thread is in (innermost), for the tasks
    /// it queues: a device fault names the function that queued its task.
    static CURRENT_API: Cell<Option<Api>> = const { Cell::new(None) };
}

/// Sets [`CURRENT_API`] for the length of a C call, restoring the outer
/// one after (a host function's own calls nest on its worker thread).
struct CurrentApi(Option<Api>);

impl CurrentApi {
    fn enter(api: Api) -> CurrentApi {
        CurrentApi(
            CURRENT_API
                .try_with(|c| c.replace(Some(api)))
                .ok()
                .flatten(),
        )
    }
}

/// The refusal of a call made by a host function or callback whose runtime
/// was torn down (`aclFinalize`, `aclrt_sim::reset`) after it was queued:
/// it must not reach the runtime that may have started since. The finalize
/// functions answer as for a repeated finalize (its runtime is finalized);
/// every other function as without a context (its context is gone).
fn stale_generation(api: Api, generation: u64) -> Error {
    let code = match api {
        Api::aclFinalize | Api::aclFinalizeReference => ffi::ACL_ERROR_REPEAT_FINALIZE,
        _ => ffi::ACL_ERROR_RT_CONTEXT_NULL,
    };
    Error::violation(
        ViolationKind::UseAfterFinalize,
        code,
        format!(
            "called from a host function or callback queued in runtime generation \
             {generation}, which was torn down (aclFinalize or aclrt_sim::reset) before the \
             call; it cannot reach the runtime of a later aclInit"
        ),
    )
}

impl Drop for CurrentApi {
    fn drop(&mut self) {
        let _ = CURRENT_API.try_with(|c| c.set(self.0));
    }
}

/// The C function the calling thread is in, if any.
pub(crate) fn current_api() -> Option<&'static str> {
    CURRENT_API
        .try_with(Cell::get)
        .ok()
        .flatten()
        .map(Api::name)
}

/// Records a failure of `api` and returns its code.
pub(crate) fn fail(api: Api, e: Error) -> i32 {
    let message = format!("{}: {}", api.name(), e.msg);
    if let Some(kind) = e.kind {
        record_violation(Violation {
            function: api.name(),
            code: e.code,
            kind,
            message: message.clone(),
            rule: crate::model::rule_name(kind, api.name(), e.code),
            handle: e.handle,
            refused: true,
        });
    }
    set_last_error(message);
    match e.stored {
        Stored::ByCode => store_last_code(api, e.code),
        Stored::Yes => store_code(e.code),
        Stored::No => {}
    }
    e.code
}

// ------------------------------------------------ last error code (F.3) ---

thread_local! {
    /// The calling thread's sticky error code (`aclrtPeekAtLastError`).
    static LAST_CODE: std::cell::Cell<i32> = const { std::cell::Cell::new(0) };
}

/// Whether a failure of `api` with `code` is stored as the thread's last
/// error: runtime-layer codes (1070xx, 2070xx, 5070xx and the 5079xx host
/// registration codes) only; never the ACL layer's argument checks
/// (1000xx), never the "not ready" answers of the query functions, never a
/// failure of `aclrtResetDeviceForce` (its path does not store).
fn stores_last_code(api: Api, code: i32) -> bool {
    let rt_layer = matches!(code, 107_000..=107_999 | 207_000..=207_999 | 507_000..=507_999);
    let query_not_ready = matches!(
        api,
        Api::aclrtStreamQuery
            | Api::aclrtQueryEvent
            | Api::aclrtQueryEventStatus
            | Api::aclrtQueryEventWaitStatus
    ) && matches!(
        code,
        ffi::ACL_ERROR_RT_STREAM_NOT_COMPLETE | ffi::ACL_ERROR_RT_EVENT_NOT_COMPLETE
    );
    rt_layer && !query_not_ready && api != Api::aclrtResetDeviceForce
}

fn store_last_code(api: Api, code: i32) {
    if stores_last_code(api, code) {
        store_code(code);
    }
}

fn store_code(code: i32) {
    // No destructor: readable even while the thread's locals are being
    // destroyed; `try_with` all the same (never a panic on a C path).
    let _ = LAST_CODE.try_with(|c| c.set(code));
}

/// `aclrtPeekAtLastError` (`take == false`) / `aclrtGetLastError` (`true`):
/// the stored code (0 if none); `Get` resets it. A `level` other than
/// `ACL_RT_THREAD_LEVEL` returns 100000 and leaves it alone.
pub(crate) fn last_code(api: Api, level: u32, take: bool) -> i32 {
    never_unwind(ffi::ACL_ERROR_INTERNAL_ERROR, || {
        last_code_of(api, level, take)
    })
}

fn last_code_of(api: Api, level: u32, take: bool) -> i32 {
    count_only(api);
    if level != ffi::ACL_RT_THREAD_LEVEL {
        set_last_error(format!(
            "{}: level {level} is not ACL_RT_THREAD_LEVEL (0)",
            api.name()
        ));
        return ffi::ACL_ERROR_INVALID_PARAM;
    }
    LAST_CODE
        .try_with(|c| if take { c.replace(0) } else { c.get() })
        .unwrap_or(0)
}

/// Forgets the calling thread's last error code (`aclrt_sim::reset`).
pub(crate) fn clear_last_code() {
    let _ = LAST_CODE.try_with(|c| c.set(0));
}

/// Injects a fault (see `control::inject_fault`).
pub(crate) fn inject_call_fault(api: Api, nth: u64, code: i32) {
    let at = SEEN[api as usize].load(Ordering::Relaxed) + nth;
    lock(&CALL_FAULTS).push(CallFault { api, at, code });
    ANY_CALL_FAULT.store(true, Ordering::Release);
}

/// Removes every injected call fault.
pub(crate) fn clear_call_faults() {
    lock(&CALL_FAULTS).clear();
    ANY_CALL_FAULT.store(false, Ordering::Release);
}

/// `(name, count)` of every function called since the counters were reset,
/// in first-call order.
pub(crate) fn call_counts() -> Vec<(&'static str, u64)> {
    let order = lock(&ORDER).clone();
    order
        .into_iter()
        .map(|api| (api.name(), COUNTS[api as usize].load(Ordering::Relaxed)))
        .filter(|&(_, n)| n > 0)
        .collect()
}

/// Total calls since the counters were reset.
pub(crate) fn total_calls() -> u64 {
    COUNTS.iter().map(|c| c.load(Ordering::Relaxed)).sum()
}

/// Clears the visible call counters.
pub(crate) fn reset_call_counts() {
    let mut order = lock(&ORDER);
    for c in &COUNTS {
        c.store(0, Ordering::Relaxed);
    }
    order.clear();
}

/// Clears everything (counters, fault targets, faults, the call log).
pub(crate) fn reset_calls() {
    reset_call_counts();
    record_calls(false);
    lock(&CALL_LOG).clear();
    for c in &SEEN {
        c.store(0, Ordering::Relaxed);
    }
    clear_call_faults();
}

thread_local! {
    static LAST_ERROR: RefCell<Option<String>> = const { RefCell::new(None) };
    static RETURNED: RefCell<Option<CString>> = const { RefCell::new(None) };
}

/// The recent error message and the last returned text of threads whose
/// thread-locals above are gone (a runtime call from a thread-local
/// destructor of the application, after the simulator's were destroyed),
/// by OS thread id: the fallback that keeps those calls answering.
/// Bounded by the number of threads that made such calls at once (an
/// entry is reused by the next thread with the same id).
struct Orphan {
    thread: u64,
    message: Option<String>,
    returned: Option<CString>,
}

static ORPHANS: Mutex<Vec<Orphan>> = Mutex::new(Vec::new());

fn with_orphan<R>(f: impl FnOnce(&mut Orphan) -> R) -> R {
    let thread = crate::prim::os_thread_id();
    let mut all = lock(&ORPHANS);
    let i = match all.iter().position(|o| o.thread == thread) {
        Some(i) => i,
        None => {
            all.push(Orphan {
                thread,
                message: None,
                returned: None,
            });
            all.len() - 1
        }
    };
    f(&mut all[i])
}

/// Sets the calling thread's recent error message.
pub(crate) fn set_last_error(msg: String) {
    let mut msg = Some(msg);
    if LAST_ERROR
        .try_with(|e| *e.borrow_mut() = msg.take())
        .is_err()
    {
        with_orphan(|o| o.message = msg.take());
    }
}

/// Clears the calling thread's recent error message and the text
/// `aclGetRecentErrMsg` keeps (a fresh simulator, `aclrt_sim::reset`).
pub(crate) fn clear_last_error() {
    if LAST_ERROR.try_with(|e| *e.borrow_mut() = None).is_err() {
        with_orphan(|o| o.message = None);
    }
    if RETURNED.try_with(|r| *r.borrow_mut() = None).is_err() {
        with_orphan(|o| o.returned = None);
    }
}

/// `aclGetRecentErrMsg`, ACL `aclGetRecentErrMsgImpl` (row MISC-1): the
/// messages of failures since the last call are taken from the error
/// manager (which clears them, `ErrorManager::GetErrorMessage`) and put in
/// front of the thread's kept text (a thread-local string the call never
/// clears); the kept text is returned, so a second call without a new
/// failure returns the same text, and null only while nothing ever failed
/// on this thread. The pointer stays valid until the next call on this
/// thread.
pub(crate) fn take_recent_message() -> *const c_char {
    never_unwind(std::ptr::null(), || {
        let new = LAST_ERROR
            .try_with(|e| e.borrow_mut().take())
            .unwrap_or_else(|_| with_orphan(|o| o.message.take()));
        let kept = RETURNED
            .try_with(|r| {
                r.borrow()
                    .as_ref()
                    .map(|c| c.to_string_lossy().into_owned())
            })
            .unwrap_or_else(|_| {
                with_orphan(|o| {
                    o.returned
                        .as_ref()
                        .map(|c| c.to_string_lossy().into_owned())
                })
            });
        let text = match (new, kept) {
            (None, None) => return std::ptr::null(),
            (None, Some(_)) => None,
            (Some(n), None) => Some(n),
            (Some(n), Some(k)) => Some(format!("{n}\n{k}")),
        };
        let mut c = text.map(|t| CString::new(t.replace('\0', " ")).unwrap_or_default());
        RETURNED
            .try_with(|r| {
                let mut slot = r.borrow_mut();
                if c.is_some() {
                    *slot = c.take();
                }
                slot.as_ref().map_or(std::ptr::null(), |c| c.as_ptr())
            })
            .unwrap_or_else(|_| {
                // The text lives in the fallback until this thread's next
                // call replaces it (a `CString`'s buffer does not move).
                with_orphan(|o| {
                    if c.is_some() {
                        o.returned = c.take();
                    }
                    o.returned.as_ref().map_or(std::ptr::null(), |c| c.as_ptr())
                })
            })
    })
}

/// Upper bound of the recorded violations (later ones are dropped).
const MAX_VIOLATIONS: usize = 100_000;

static VIOLATIONS: Mutex<Vec<Violation>> = Mutex::new(Vec::new());
static LEAKS: Mutex<Vec<Leak>> = Mutex::new(Vec::new());

/// A named strict rule the hardware lets through: with
/// [`Strictness::Refuse`] the error `err` (its violation recorded by
/// [`fail`]); with [`Strictness::Report`] (the default) the violation is
/// recorded and reported all the same, and the call goes on as the
/// hardware's would (`sim/FIDELITY.md`, rules STRICT-*).
///
/// [`Strictness::Refuse`]: crate::model::Strictness::Refuse
/// [`Strictness::Report`]: crate::model::Strictness::Report
pub(crate) fn strict_rule(
    strictness: crate::model::Strictness,
    function: &'static str,
    err: Error,
) -> Res<()> {
    if strictness == crate::model::Strictness::Refuse {
        return Err(err);
    }
    if let Some(kind) = err.kind {
        record_violation(Violation {
            function,
            code: err.code,
            kind,
            message: format!("{function}: {}", err.msg),
            rule: crate::model::rule_name(kind, function, err.code),
            handle: err.handle,
            refused: false,
        });
    }
    Ok(())
}

/// Records a violation and reports it (once per rule and call on stderr,
/// see [`crate::report`]).
pub(crate) fn record_violation(v: Violation) {
    crate::report::on_violation(&v);
    let mut all = lock(&VIOLATIONS);
    if all.len() < MAX_VIOLATIONS {
        all.push(v);
    }
}

/// Records leaks found at finalize.
pub(crate) fn record_leaks(leaks: Vec<Leak>) {
    crate::report::on_leaks(&leaks);
    lock(&LEAKS).extend(leaks);
}

/// The violations so far.
pub(crate) fn violations() -> Vec<Violation> {
    lock(&VIOLATIONS).clone()
}

/// The leaks so far.
pub(crate) fn leaks() -> Vec<Leak> {
    lock(&LEAKS).clone()
}

/// Forgets violations and leaks.
pub(crate) fn clear_records() {
    lock(&VIOLATIONS).clear();
    lock(&LEAKS).clear();
    crate::report::clear_sites();
}
