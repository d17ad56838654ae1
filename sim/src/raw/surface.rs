//! The rest of the runtime's public C surface: every function the project's
//! header declares beyond the ones `mod.rs` and `base.rs` implement (and
//! beyond those still listed in `sys/tests/pending_exports.txt`), so that a
//! program written against the runtime's documentation links and runs.
//!
//! A function here either goes through the layers like the others (the
//! device, stream, error and thread queries near the top), or answers as
//! the runtime answers a feature the chip lacks: 207000
//! `ACL_ERROR_RT_FEATURE_NOT_SUPPORT`, stored as the thread's last error,
//! with its message for `aclGetRecentErrMsg`, and recorded and reported
//! under the rule `UNSUPPORTED` ([`diag::unsupported`]). Functions that
//! return a pointer or a number instead of a code answer NULL or 0 the same
//! way. Never a missing symbol.
//!
//! The not-modelled entry points take their arguments unread: they
//! dereference nothing, so they have no obligations to state.

#![allow(clippy::too_many_arguments)]

use core::ffi::{c_char, c_void};

use crate::acl_layer;
use crate::diag::{self, Api, call};
#[allow(clippy::wildcard_imports)]
use crate::ffi::*;
use crate::prim::{Out, UserMem};

// ------------------------------------------------------------ modelled ---

/// `aclrtGetDeviceInfo`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn aclrtGetDeviceInfo(
    device_id: u32,
    attr: aclrtDevAttr,
    value: *mut i64,
) -> aclError {
    // SAFETY: C contract: `value` is NULL or writable.
    let out = unsafe { Out::new(value) };
    call(Api::aclrtGetDeviceInfo, || {
        acl_layer::get_device_info(device_id, attr, out)
    })
}

/// `aclrtGetDeviceCapability`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn aclrtGetDeviceCapability(
    device_id: i32,
    dev_feature_type: aclrtDevFeatureType,
    value: *mut i32,
) -> aclError {
    // SAFETY: C contract: `value` is NULL or writable.
    let out = unsafe { Out::new(value) };
    call(Api::aclrtGetDeviceCapability, || {
        acl_layer::get_device_capability(device_id, dev_feature_type as i32, out)
    })
}

/// `aclrtQueryDeviceStatus`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn aclrtQueryDeviceStatus(
    device_id: i32,
    device_status: *mut aclrtDeviceStatus,
) -> aclError {
    // SAFETY: C contract: `deviceStatus` is NULL or writable.
    let out = unsafe { Out::new(device_status) };
    call(Api::aclrtQueryDeviceStatus, || {
        acl_layer::query_device_status(device_id, out)
    })
}

/// `aclrtGetDeviceUtilizationRate`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn aclrtGetDeviceUtilizationRate(
    device_id: i32,
    utilization_info: *mut aclrtUtilizationInfo,
) -> aclError {
    let info = utilization_info;
    let extend_null = info.is_null()
        // SAFETY: C contract: a non-NULL `utilizationInfo` points to a
        // readable and writable `aclrtUtilizationInfo`.
        || unsafe { core::ptr::read(&raw const (*info).utilizationExtend) }.is_null();
    call(Api::aclrtGetDeviceUtilizationRate, || {
        let u = acl_layer::get_device_utilization(device_id, info.is_null(), extend_null)?;
        // SAFETY: `info` is not NULL (checked by the ACL layer above) and
        // points to a writable `aclrtUtilizationInfo` (C contract).
        unsafe {
            (&raw mut (*info).cubeUtilization).write(u.cube);
            (&raw mut (*info).vectorUtilization).write(u.vector);
            (&raw mut (*info).aicpuUtilization).write(u.aicpu);
            (&raw mut (*info).memoryUtilization).write(u.memory);
        }
        Ok(())
    })
}

/// `aclrtGetDeviceResLimit`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn aclrtGetDeviceResLimit(
    device_id: i32,
    type_: aclrtDevResLimitType,
    value: *mut u32,
) -> aclError {
    // SAFETY: C contract: `value` is NULL or writable.
    let out = unsafe { Out::new(value) };
    call(Api::aclrtGetDeviceResLimit, || {
        acl_layer::get_device_res_limit(device_id, type_, out)
    })
}

/// `aclrtSetDeviceResLimit`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn aclrtSetDeviceResLimit(
    device_id: i32,
    type_: aclrtDevResLimitType,
    value: u32,
) -> aclError {
    call(Api::aclrtSetDeviceResLimit, || {
        acl_layer::set_device_res_limit(device_id, type_, value)
    })
}

/// `aclrtResetDeviceResLimit`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn aclrtResetDeviceResLimit(device_id: i32) -> aclError {
    call(Api::aclrtResetDeviceResLimit, || {
        acl_layer::reset_device_res_limit(device_id)
    })
}

/// `aclrtGetResInCurrentThread`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn aclrtGetResInCurrentThread(
    type_: aclrtDevResLimitType,
    value: *mut u32,
) -> aclError {
    // SAFETY: C contract: `value` is NULL or writable.
    let out = unsafe { Out::new(value) };
    call(Api::aclrtGetResInCurrentThread, || {
        acl_layer::get_res_in_current_thread(type_, out)
    })
}

/// `aclrtSetDeviceSatMode`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn aclrtSetDeviceSatMode(mode: aclrtFloatOverflowMode) -> aclError {
    call(Api::aclrtSetDeviceSatMode, || {
        acl_layer::set_device_sat_mode(mode)
    })
}

/// `aclrtGetDeviceSatMode`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn aclrtGetDeviceSatMode(mode: *mut aclrtFloatOverflowMode) -> aclError {
    // SAFETY: C contract: `mode` is NULL or writable.
    let out = unsafe { Out::new(mode) };
    call(Api::aclrtGetDeviceSatMode, || {
        acl_layer::get_device_sat_mode(out)
    })
}

/// `aclrtCheckArchCompatibility`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn aclrtCheckArchCompatibility(
    soc_version: *const c_char,
    can_compatible: *mut i32,
) -> aclError {
    // SAFETY: C contract: `socVersion` is NULL or a NUL-terminated string.
    let name = unsafe { super::c_str(soc_version) };
    // SAFETY: C contract: `canCompatible` is NULL or writable.
    let out = unsafe { Out::new(can_compatible) };
    call(Api::aclrtCheckArchCompatibility, || {
        // A name that is not UTF-8 is no SoC version the runtime knows.
        let name = name.map(|n| n.to_str().unwrap_or("\u{fffd}"));
        acl_layer::check_arch_compatibility(name, out)
    })
}

/// `aclrtDeviceGetBareTgid`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn aclrtDeviceGetBareTgid(pid: *mut i32) -> aclError {
    // SAFETY: C contract: `pid` is NULL or writable.
    let out = unsafe { Out::new(pid) };
    call(Api::aclrtDeviceGetBareTgid, || {
        acl_layer::device_get_bare_tgid(out)
    })
}

/// `aclrtGetErrorVerbose`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn aclrtGetErrorVerbose(
    device_id: i32,
    error_info: *mut aclrtErrorInfo,
) -> aclError {
    let info = error_info;
    call(Api::aclrtGetErrorVerbose, || {
        let (try_repair, has_detail, error_type, aicore) =
            acl_layer::get_error_verbose(device_id, info.is_null())?;
        // SAFETY: `info` is not NULL (checked by the ACL layer above) and
        // points to a writable `aclrtErrorInfo` (C contract); only the
        // fields the runtime writes are written.
        unsafe {
            (&raw mut (*info).tryRepair).write(try_repair);
            (&raw mut (*info).hasDetail).write(has_detail);
            (&raw mut (*info).errorType).write(error_type);
            (&raw mut (*info).detail.aicoreErrType).write(aicore);
        }
        Ok(())
    })
}

/// `aclrtGetThreadLastTaskId`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn aclrtGetThreadLastTaskId(task_id: *mut u32) -> aclError {
    // SAFETY: C contract: `taskId` is NULL or writable.
    let out = unsafe { Out::new(task_id) };
    call(Api::aclrtGetThreadLastTaskId, || {
        acl_layer::get_thread_last_task_id(out)
    })
}

/// `aclrtStreamGetId`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn aclrtStreamGetId(stream: aclrtStream, stream_id: *mut i32) -> aclError {
    // SAFETY: C contract: `streamId` is NULL or writable.
    let out = unsafe { Out::new(stream_id) };
    call(Api::aclrtStreamGetId, || {
        acl_layer::stream_get_id(super::h(stream), out)
    })
}

/// `aclrtStreamGetFlags`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn aclrtStreamGetFlags(stream: aclrtStream, flags: *mut u32) -> aclError {
    // SAFETY: C contract: `flags` is NULL or writable.
    let out = unsafe { Out::new(flags) };
    call(Api::aclrtStreamGetFlags, || {
        acl_layer::stream_get_flags(super::h(stream), out)
    })
}

/// `aclrtSetStreamOverflowSwitch`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn aclrtSetStreamOverflowSwitch(stream: aclrtStream, flag: u32) -> aclError {
    call(Api::aclrtSetStreamOverflowSwitch, || {
        acl_layer::set_stream_overflow_switch(super::h(stream), flag)
    })
}

/// `aclrtGetStreamOverflowSwitch`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn aclrtGetStreamOverflowSwitch(
    stream: aclrtStream,
    flag: *mut u32,
) -> aclError {
    // SAFETY: C contract: `flag` is NULL or writable.
    let out = unsafe { Out::new(flag) };
    call(Api::aclrtGetStreamOverflowSwitch, || {
        acl_layer::get_stream_overflow_switch(super::h(stream), out)
    })
}

/// `aclrtActiveStream`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn aclrtActiveStream(
    active_stream: aclrtStream,
    stream: aclrtStream,
) -> aclError {
    call(Api::aclrtActiveStream, || {
        acl_layer::active_stream(super::h(active_stream), super::h(stream))
    })
}

/// `aclrtSwitchStream`. The compared values are not read: no stream can
/// take the task (see `acl_layer::switch_stream`).
#[unsafe(no_mangle)]
pub unsafe extern "C" fn aclrtSwitchStream(
    left_value: *mut c_void,
    cond: aclrtCondition,
    right_value: *mut c_void,
    data_type: aclrtCompareDataType,
    true_stream: aclrtStream,
    false_stream: aclrtStream,
    stream: aclrtStream,
) -> aclError {
    call(Api::aclrtSwitchStream, || {
        acl_layer::switch_stream(
            left_value.is_null(),
            cond,
            right_value.is_null(),
            data_type,
            super::h(true_stream),
            super::h(false_stream),
            super::h(stream),
        )
    })
}

/// `aclrtStreamStop`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn aclrtStreamStop(stream: aclrtStream) -> aclError {
    call(Api::aclrtStreamStop, || {
        acl_layer::stream_stop(super::h(stream))
    })
}

/// `aclrtCreateStreamConfigHandle`: a zeroed configuration owned by the
/// caller until `aclrtDestroyStreamConfigHandle`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn aclrtCreateStreamConfigHandle() -> *mut aclrtStreamConfigHandle {
    diag::never_unwind(core::ptr::null_mut(), || {
        diag::count_only(Api::aclrtCreateStreamConfigHandle);
        let handle = Box::into_raw(Box::new(aclrtStreamConfigHandle {
            workptr: core::ptr::null_mut(),
            workSize: 0,
            flag: 0,
            priority: 0,
        }));
        acl_layer::config_handle_created(handle.addr());
        handle
    })
}

/// `aclrtDestroyStreamConfigHandle`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn aclrtDestroyStreamConfigHandle(
    handle: *mut aclrtStreamConfigHandle,
) -> aclError {
    call(Api::aclrtDestroyStreamConfigHandle, || {
        acl_layer::config_handle_destroyed(handle.addr())?;
        // SAFETY: `handle` came from `Box::into_raw` in
        // `aclrtCreateStreamConfigHandle` and was still registered, so it
        // is freed here exactly once (the registration is gone).
        drop(unsafe { Box::from_raw(handle) });
        Ok(())
    })
}

/// `aclrtSetStreamConfigOpt`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn aclrtSetStreamConfigOpt(
    handle: *mut aclrtStreamConfigHandle,
    attr: aclrtStreamConfigAttr,
    attr_value: *const c_void,
    value_size: usize,
) -> aclError {
    call(Api::aclrtSetStreamConfigOpt, || {
        let field = acl_layer::stream_config_field(
            handle.is_null(),
            attr_value.is_null(),
            attr,
            value_size,
        )?;
        // The value is read and written in each arm. Every arm relies on:
        // `attrValue` is not NULL (checked above) and points to `valueSize`
        // readable bytes (C contract), the size of the type read (checked
        // above); `handle` is not NULL and points to a writable
        // `aclrtStreamConfigHandle` (C contract).
        match field {
            acl_layer::ConfigField::WorkPtr => {
                // SAFETY: see above the match.
                unsafe {
                    let v = attr_value.cast::<*mut c_void>().read_unaligned();
                    (&raw mut (*handle).workptr).write(v);
                }
            }
            acl_layer::ConfigField::WorkSize => {
                // SAFETY: see above the match.
                unsafe {
                    let v = attr_value.cast::<usize>().read_unaligned();
                    (&raw mut (*handle).workSize).write(v);
                }
            }
            acl_layer::ConfigField::Flag => {
                // SAFETY: see above the match.
                unsafe {
                    let v = attr_value.cast::<usize>().read_unaligned();
                    (&raw mut (*handle).flag).write(v);
                }
            }
            acl_layer::ConfigField::Priority => {
                // SAFETY: see above the match.
                let v = unsafe { attr_value.cast::<u32>().read_unaligned() };
                acl_layer::stream_config_priority(v)?;
                // SAFETY: see above the match.
                unsafe { (&raw mut (*handle).priority).write(v) };
            }
        }
        Ok(())
    })
}

/// `aclrtCreateStreamV2`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn aclrtCreateStreamV2(
    stream: *mut aclrtStream,
    handle: *const aclrtStreamConfigHandle,
) -> aclError {
    // SAFETY: C contract: `stream` is NULL or writable.
    let out = unsafe { Out::new(stream) };
    let priority = if handle.is_null() {
        0
    } else {
        // SAFETY: C contract: a non-NULL `handle` points to a readable
        // `aclrtStreamConfigHandle`.
        unsafe { (&raw const (*handle).priority).read() }
    };
    call(Api::aclrtCreateStreamV2, || {
        let mut v = 0;
        acl_layer::create_stream_v2(super::handle_slot(&out, &mut v), priority)?;
        out.write(super::handle_ptr(v));
        Ok(())
    })
}

/// `aclrtRegStreamStateCallback`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn aclrtRegStreamStateCallback(
    reg_name: *const c_char,
    callback: aclrtStreamStateCallback,
    args: *mut c_void,
) -> aclError {
    // SAFETY: C contract: `regName` is NULL or a NUL-terminated string.
    let name = unsafe { super::c_str(reg_name) };
    // SAFETY: the contract of aclrtRegStreamStateCallback: the runtime may
    // call `callback(stream, state, args)` whenever a stream is created or
    // destroyed, on the thread that does it.
    let callback = callback.map(|f| unsafe { crate::prim::StateCall::new(f, args) });
    call(Api::aclrtRegStreamStateCallback, || {
        acl_layer::reg_stream_state_callback(name.map(|n| n.to_bytes()), callback)
    })
}

/// `aclrtGetOverflowStatus`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn aclrtGetOverflowStatus(
    output_addr: *mut c_void,
    output_size: usize,
    stream: aclrtStream,
) -> aclError {
    // SAFETY: C contract: if `outputAddr` is not runtime memory it is
    // writable for `outputSize` bytes during the call (the runtime finishes
    // such a task before returning).
    let dst = unsafe { UserMem::new(output_addr, true) };
    call(Api::aclrtGetOverflowStatus, || {
        acl_layer::get_overflow_status(dst, output_size, super::h(stream))
    })
}

/// `aclrtResetOverflowStatus`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn aclrtResetOverflowStatus(stream: aclrtStream) -> aclError {
    call(Api::aclrtResetOverflowStatus, || {
        acl_layer::reset_overflow_status(super::h(stream))
    })
}

/// `aclCreateDataBuffer`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn aclCreateDataBuffer(data: *mut c_void, size: usize) -> *mut aclDataBuffer {
    diag::value_call(Api::aclCreateDataBuffer, core::ptr::null_mut(), || {
        let addr = acl_layer::create_data_buffer(data.expose_provenance(), size);
        Ok(core::ptr::without_provenance_mut(addr))
    })
}

/// `aclDestroyDataBuffer`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn aclDestroyDataBuffer(data_buffer: *const aclDataBuffer) -> aclError {
    call(Api::aclDestroyDataBuffer, || {
        acl_layer::destroy_data_buffer(data_buffer.addr())
    })
}

/// `aclUpdateDataBuffer`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn aclUpdateDataBuffer(
    data_buffer: *mut aclDataBuffer,
    data: *mut c_void,
    size: usize,
) -> aclError {
    call(Api::aclUpdateDataBuffer, || {
        acl_layer::update_data_buffer(data_buffer.addr(), data.expose_provenance(), size)
    })
}

/// `aclGetDataBufferAddr`. The address handed back is the caller's own,
/// exposed when it was given.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn aclGetDataBufferAddr(data_buffer: *const aclDataBuffer) -> *mut c_void {
    diag::value_call(Api::aclGetDataBufferAddr, core::ptr::null_mut(), || {
        let (data, _) = acl_layer::data_buffer(data_buffer.addr())?;
        Ok(core::ptr::with_exposed_provenance_mut(data))
    })
}

/// `aclGetDataBufferSize` (the length cut to 32 bits).
#[unsafe(no_mangle)]
pub unsafe extern "C" fn aclGetDataBufferSize(data_buffer: *const aclDataBuffer) -> u32 {
    diag::value_call(Api::aclGetDataBufferSize, 0, || {
        Ok(acl_layer::data_buffer(data_buffer.addr())?.1 as u32)
    })
}

/// `aclGetDataBufferSizeV2`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn aclGetDataBufferSizeV2(data_buffer: *const aclDataBuffer) -> usize {
    diag::value_call(Api::aclGetDataBufferSizeV2, 0, || {
        Ok(acl_layer::data_buffer(data_buffer.addr())?.1)
    })
}

// ------------------------------------------------- not modelled (207000) ---

/// `aclGetCannAttributeList`: not modelled (207000, rule `UNSUPPORTED`).
#[unsafe(no_mangle)]
pub unsafe extern "C" fn aclGetCannAttributeList(
    _cann_attr_list: *mut *const aclCannAttr,
    _num: *mut usize,
) -> aclError {
    call(Api::aclGetCannAttributeList, || Err(diag::unsupported()))
}

/// `aclGetCannAttribute`: not modelled (207000, rule `UNSUPPORTED`).
#[unsafe(no_mangle)]
pub unsafe extern "C" fn aclGetCannAttribute(
    _cann_attr: aclCannAttr,
    _value: *mut i32,
) -> aclError {
    call(Api::aclGetCannAttribute, || Err(diag::unsupported()))
}

/// `aclGetDeviceCapability`: not modelled (207000, rule `UNSUPPORTED`).
#[unsafe(no_mangle)]
pub unsafe extern "C" fn aclGetDeviceCapability(
    _device_id: u32,
    _device_info: aclDeviceInfo,
    _value: *mut i64,
) -> aclError {
    call(Api::aclGetDeviceCapability, || Err(diag::unsupported()))
}

/// `aclInitCallbackRegister`: not modelled (207000, rule `UNSUPPORTED`).
#[unsafe(no_mangle)]
pub unsafe extern "C" fn aclInitCallbackRegister(
    _type_: aclRegisterCallbackType,
    _cb_func: aclInitCallbackFunc,
    _user_data: *mut ::core::ffi::c_void,
) -> aclError {
    call(Api::aclInitCallbackRegister, || Err(diag::unsupported()))
}

/// `aclInitCallbackUnRegister`: not modelled (207000, rule `UNSUPPORTED`).
#[unsafe(no_mangle)]
pub unsafe extern "C" fn aclInitCallbackUnRegister(
    _type_: aclRegisterCallbackType,
    _cb_func: aclInitCallbackFunc,
) -> aclError {
    call(Api::aclInitCallbackUnRegister, || Err(diag::unsupported()))
}

/// `aclFinalizeCallbackRegister`: not modelled (207000, rule `UNSUPPORTED`).
#[unsafe(no_mangle)]
pub unsafe extern "C" fn aclFinalizeCallbackRegister(
    _type_: aclRegisterCallbackType,
    _cb_func: aclFinalizeCallbackFunc,
    _user_data: *mut ::core::ffi::c_void,
) -> aclError {
    call(
        Api::aclFinalizeCallbackRegister,
        || Err(diag::unsupported()),
    )
}

/// `aclFinalizeCallbackUnRegister`: not modelled (207000, rule `UNSUPPORTED`).
#[unsafe(no_mangle)]
pub unsafe extern "C" fn aclFinalizeCallbackUnRegister(
    _type_: aclRegisterCallbackType,
    _cb_func: aclFinalizeCallbackFunc,
) -> aclError {
    call(Api::aclFinalizeCallbackUnRegister, || {
        Err(diag::unsupported())
    })
}

/// `aclrtBinarySetExceptionCallback`: not modelled (207000, rule `UNSUPPORTED`).
#[unsafe(no_mangle)]
pub unsafe extern "C" fn aclrtBinarySetExceptionCallback(
    _bin_handle: aclrtBinHandle,
    _callback: aclrtOpExceptionCallback,
    _user_data: *mut ::core::ffi::c_void,
) -> aclError {
    call(Api::aclrtBinarySetExceptionCallback, || {
        Err(diag::unsupported())
    })
}

/// `aclrtGetMemUceInfo`: not modelled (207000, rule `UNSUPPORTED`).
#[unsafe(no_mangle)]
pub unsafe extern "C" fn aclrtGetMemUceInfo(
    _device_id: i32,
    _mem_uce_info_array: *mut aclrtMemUceInfo,
    _array_size: usize,
    _ret_size: *mut usize,
) -> aclError {
    call(Api::aclrtGetMemUceInfo, || Err(diag::unsupported()))
}

/// `aclrtDeviceTaskAbort`: not modelled (207000, rule `UNSUPPORTED`).
#[unsafe(no_mangle)]
pub unsafe extern "C" fn aclrtDeviceTaskAbort(_device_id: i32, _timeout: u32) -> aclError {
    call(Api::aclrtDeviceTaskAbort, || Err(diag::unsupported()))
}

/// `aclrtMemUceRepair`: not modelled (207000, rule `UNSUPPORTED`).
#[unsafe(no_mangle)]
pub unsafe extern "C" fn aclrtMemUceRepair(
    _device_id: i32,
    _mem_uce_info_array: *mut aclrtMemUceInfo,
    _array_size: usize,
) -> aclError {
    call(Api::aclrtMemUceRepair, || Err(diag::unsupported()))
}

/// `aclrtSetDeviceTaskAbortCallback`: not modelled (207000, rule `UNSUPPORTED`).
#[unsafe(no_mangle)]
pub unsafe extern "C" fn aclrtSetDeviceTaskAbortCallback(
    _reg_name: *const ::core::ffi::c_char,
    _callback: aclrtDeviceTaskAbortCallback,
    _args: *mut ::core::ffi::c_void,
) -> aclError {
    call(Api::aclrtSetDeviceTaskAbortCallback, || {
        Err(diag::unsupported())
    })
}

/// `aclrtRepairError`: not modelled (207000, rule `UNSUPPORTED`).
#[unsafe(no_mangle)]
pub unsafe extern "C" fn aclrtRepairError(
    _device_id: i32,
    _error_info: *const aclrtErrorInfo,
) -> aclError {
    call(Api::aclrtRepairError, || Err(diag::unsupported()))
}

/// `aclrtCtxGetSysParamOpt`: not modelled (207000, rule `UNSUPPORTED`).
#[unsafe(no_mangle)]
pub unsafe extern "C" fn aclrtCtxGetSysParamOpt(
    _opt: aclSysParamOpt,
    _value: *mut i64,
) -> aclError {
    call(Api::aclrtCtxGetSysParamOpt, || Err(diag::unsupported()))
}

/// `aclrtCtxSetSysParamOpt`: not modelled (207000, rule `UNSUPPORTED`).
#[unsafe(no_mangle)]
pub unsafe extern "C" fn aclrtCtxSetSysParamOpt(_opt: aclSysParamOpt, _value: i64) -> aclError {
    call(Api::aclrtCtxSetSysParamOpt, || Err(diag::unsupported()))
}

/// `aclrtGetSysParamOpt`: not modelled (207000, rule `UNSUPPORTED`).
#[unsafe(no_mangle)]
pub unsafe extern "C" fn aclrtGetSysParamOpt(_opt: aclSysParamOpt, _value: *mut i64) -> aclError {
    call(Api::aclrtGetSysParamOpt, || Err(diag::unsupported()))
}

/// `aclrtSetSysParamOpt`: not modelled (207000, rule `UNSUPPORTED`).
#[unsafe(no_mangle)]
pub unsafe extern "C" fn aclrtSetSysParamOpt(_opt: aclSysParamOpt, _value: i64) -> aclError {
    call(Api::aclrtSetSysParamOpt, || Err(diag::unsupported()))
}

/// `aclrtGetPrimaryCtxState`: not modelled (207000, rule `UNSUPPORTED`).
#[unsafe(no_mangle)]
pub unsafe extern "C" fn aclrtGetPrimaryCtxState(
    _device_id: i32,
    _flags: *mut u32,
    _active: *mut i32,
) -> aclError {
    call(Api::aclrtGetPrimaryCtxState, || Err(diag::unsupported()))
}

/// `aclrtCtxGetFloatOverflowAddr`: not modelled (207000, rule `UNSUPPORTED`).
#[unsafe(no_mangle)]
pub unsafe extern "C" fn aclrtCtxGetFloatOverflowAddr(
    _overflow_addr: *mut *mut ::core::ffi::c_void,
) -> aclError {
    call(Api::aclrtCtxGetFloatOverflowAddr, || {
        Err(diag::unsupported())
    })
}

/// `aclrtGetFloatOverflowStatus`: not modelled (207000, rule `UNSUPPORTED`).
#[unsafe(no_mangle)]
pub unsafe extern "C" fn aclrtGetFloatOverflowStatus(
    _output_addr: *mut ::core::ffi::c_void,
    _output_size: u64,
    _stream: aclrtStream,
) -> aclError {
    call(
        Api::aclrtGetFloatOverflowStatus,
        || Err(diag::unsupported()),
    )
}

/// `aclrtResetFloatOverflowStatus`: not modelled (207000, rule `UNSUPPORTED`).
#[unsafe(no_mangle)]
pub unsafe extern "C" fn aclrtResetFloatOverflowStatus(_stream: aclrtStream) -> aclError {
    call(Api::aclrtResetFloatOverflowStatus, || {
        Err(diag::unsupported())
    })
}

/// `aclrtNpuGetFloatOverFlowStatus`: not modelled (207000, rule `UNSUPPORTED`).
#[unsafe(no_mangle)]
pub unsafe extern "C" fn aclrtNpuGetFloatOverFlowStatus(
    _output_addr: *mut ::core::ffi::c_void,
    _output_size: u64,
    _check_mode: u32,
    _stream: aclrtStream,
) -> aclError {
    call(Api::aclrtNpuGetFloatOverFlowStatus, || {
        Err(diag::unsupported())
    })
}

/// `aclrtNpuClearFloatOverFlowStatus`: not modelled (207000, rule `UNSUPPORTED`).
#[unsafe(no_mangle)]
pub unsafe extern "C" fn aclrtNpuClearFloatOverFlowStatus(
    _check_mode: u32,
    _stream: aclrtStream,
) -> aclError {
    call(Api::aclrtNpuClearFloatOverFlowStatus, || {
        Err(diag::unsupported())
    })
}

/// `aclrtStreamWaitEventWithTimeout`: not modelled (207000, rule `UNSUPPORTED`).
#[unsafe(no_mangle)]
pub unsafe extern "C" fn aclrtStreamWaitEventWithTimeout(
    _stream: aclrtStream,
    _event: aclrtEvent,
    _timeout: i32,
) -> aclError {
    call(Api::aclrtStreamWaitEventWithTimeout, || {
        Err(diag::unsupported())
    })
}

/// `aclrtSetStreamAttribute`: not modelled (207000, rule `UNSUPPORTED`).
#[unsafe(no_mangle)]
pub unsafe extern "C" fn aclrtSetStreamAttribute(
    _stream: aclrtStream,
    _stm_attr_type: aclrtStreamAttr,
    _value: *mut aclrtStreamAttrValue,
) -> aclError {
    call(Api::aclrtSetStreamAttribute, || Err(diag::unsupported()))
}

/// `aclrtGetStreamAttribute`: not modelled (207000, rule `UNSUPPORTED`).
#[unsafe(no_mangle)]
pub unsafe extern "C" fn aclrtGetStreamAttribute(
    _stream: aclrtStream,
    _stm_attr_type: aclrtStreamAttr,
    _value: *mut aclrtStreamAttrValue,
) -> aclError {
    call(Api::aclrtGetStreamAttribute, || Err(diag::unsupported()))
}

/// `aclrtGetStreamResLimit`: not modelled (207000, rule `UNSUPPORTED`).
#[unsafe(no_mangle)]
pub unsafe extern "C" fn aclrtGetStreamResLimit(
    _stream: aclrtStream,
    _type_: aclrtDevResLimitType,
    _value: *mut u32,
) -> aclError {
    call(Api::aclrtGetStreamResLimit, || Err(diag::unsupported()))
}

/// `aclrtSetStreamResLimit`: not modelled (207000, rule `UNSUPPORTED`).
#[unsafe(no_mangle)]
pub unsafe extern "C" fn aclrtSetStreamResLimit(
    _stream: aclrtStream,
    _type_: aclrtDevResLimitType,
    _value: u32,
) -> aclError {
    call(Api::aclrtSetStreamResLimit, || Err(diag::unsupported()))
}

/// `aclrtResetStreamResLimit`: not modelled (207000, rule `UNSUPPORTED`).
#[unsafe(no_mangle)]
pub unsafe extern "C" fn aclrtResetStreamResLimit(_stream: aclrtStream) -> aclError {
    call(Api::aclrtResetStreamResLimit, || Err(diag::unsupported()))
}

/// `aclrtUseStreamResInCurrentThread`: not modelled (207000, rule `UNSUPPORTED`).
#[unsafe(no_mangle)]
pub unsafe extern "C" fn aclrtUseStreamResInCurrentThread(_stream: aclrtStream) -> aclError {
    call(Api::aclrtUseStreamResInCurrentThread, || {
        Err(diag::unsupported())
    })
}

/// `aclrtUnuseStreamResInCurrentThread`: not modelled (207000, rule `UNSUPPORTED`).
#[unsafe(no_mangle)]
pub unsafe extern "C" fn aclrtUnuseStreamResInCurrentThread(_stream: aclrtStream) -> aclError {
    call(Api::aclrtUnuseStreamResInCurrentThread, || {
        Err(diag::unsupported())
    })
}

/// `aclrtPersistentTaskClean`: not modelled (207000, rule `UNSUPPORTED`).
#[unsafe(no_mangle)]
pub unsafe extern "C" fn aclrtPersistentTaskClean(_stream: aclrtStream) -> aclError {
    call(Api::aclrtPersistentTaskClean, || Err(diag::unsupported()))
}

/// `aclrtSetTsDevice`: not modelled (207000, rule `UNSUPPORTED`).
#[unsafe(no_mangle)]
pub unsafe extern "C" fn aclrtSetTsDevice(_ts_id: aclrtTsId) -> aclError {
    call(Api::aclrtSetTsDevice, || Err(diag::unsupported()))
}

/// `aclrtHostMemMapCapabilities`: not modelled (207000, rule `UNSUPPORTED`).
#[unsafe(no_mangle)]
pub unsafe extern "C" fn aclrtHostMemMapCapabilities(
    _device_id: u32,
    _hac_type: aclrtHacType,
    _capabilities: *mut aclrtHostMemMapCapability,
) -> aclError {
    call(
        Api::aclrtHostMemMapCapabilities,
        || Err(diag::unsupported()),
    )
}

/// `aclrtSetGroup`: not modelled (207000, rule `UNSUPPORTED`).
#[unsafe(no_mangle)]
pub unsafe extern "C" fn aclrtSetGroup(_group_id: i32) -> aclError {
    call(Api::aclrtSetGroup, || Err(diag::unsupported()))
}

/// `aclrtGetGroupCount`: not modelled (207000, rule `UNSUPPORTED`).
#[unsafe(no_mangle)]
pub unsafe extern "C" fn aclrtGetGroupCount(_count: *mut u32) -> aclError {
    call(Api::aclrtGetGroupCount, || Err(diag::unsupported()))
}

/// `aclrtCreateGroupInfo`: not modelled (207000, rule `UNSUPPORTED`).
#[unsafe(no_mangle)]
pub unsafe extern "C" fn aclrtCreateGroupInfo() -> *mut aclrtGroupInfo {
    diag::unsupported_value(Api::aclrtCreateGroupInfo, core::ptr::null_mut())
}

/// `aclrtDestroyGroupInfo`: not modelled (207000, rule `UNSUPPORTED`).
#[unsafe(no_mangle)]
pub unsafe extern "C" fn aclrtDestroyGroupInfo(_group_info: *mut aclrtGroupInfo) -> aclError {
    call(Api::aclrtDestroyGroupInfo, || Err(diag::unsupported()))
}

/// `aclrtGetAllGroupInfo`: not modelled (207000, rule `UNSUPPORTED`).
#[unsafe(no_mangle)]
pub unsafe extern "C" fn aclrtGetAllGroupInfo(_group_info: *mut aclrtGroupInfo) -> aclError {
    call(Api::aclrtGetAllGroupInfo, || Err(diag::unsupported()))
}

/// `aclrtGetGroupInfoDetail`: not modelled (207000, rule `UNSUPPORTED`).
#[unsafe(no_mangle)]
pub unsafe extern "C" fn aclrtGetGroupInfoDetail(
    _group_info: *const aclrtGroupInfo,
    _group_index: i32,
    _attr: aclrtGroupAttr,
    _attr_value: *mut ::core::ffi::c_void,
    _value_len: usize,
    _param_ret_size: *mut usize,
) -> aclError {
    call(Api::aclrtGetGroupInfoDetail, || Err(diag::unsupported()))
}

/// `aclrtDeviceGetUuid`: not modelled (207000, rule `UNSUPPORTED`).
#[unsafe(no_mangle)]
pub unsafe extern "C" fn aclrtDeviceGetUuid(_device_id: i32, _uuid: *mut aclrtUuid) -> aclError {
    call(Api::aclrtDeviceGetUuid, || Err(diag::unsupported()))
}

/// `aclrtDeviceSetLimit`: not modelled (207000, rule `UNSUPPORTED`).
#[unsafe(no_mangle)]
pub unsafe extern "C" fn aclrtDeviceSetLimit(_limit: aclrtDeviceLimit, _value: usize) -> aclError {
    call(Api::aclrtDeviceSetLimit, || Err(diag::unsupported()))
}

/// `aclrtDeviceGetLimit`: not modelled (207000, rule `UNSUPPORTED`).
#[unsafe(no_mangle)]
pub unsafe extern "C" fn aclrtDeviceGetLimit(
    _limit: aclrtDeviceLimit,
    _value: *mut usize,
) -> aclError {
    call(Api::aclrtDeviceGetLimit, || Err(diag::unsupported()))
}

/// `aclrtDeviceGetPCIBusId`: not modelled (207000, rule `UNSUPPORTED`).
#[unsafe(no_mangle)]
pub unsafe extern "C" fn aclrtDeviceGetPCIBusId(
    _device_id: i32,
    _pci_bus_id: *mut ::core::ffi::c_char,
    _len: i32,
) -> aclError {
    call(Api::aclrtDeviceGetPCIBusId, || Err(diag::unsupported()))
}

/// `aclrtDeviceGetByPCIBusId`: not modelled (207000, rule `UNSUPPORTED`).
#[unsafe(no_mangle)]
pub unsafe extern "C" fn aclrtDeviceGetByPCIBusId(
    _pci_bus_id: *const ::core::ffi::c_char,
    _device_id: *mut i32,
) -> aclError {
    call(Api::aclrtDeviceGetByPCIBusId, || Err(diag::unsupported()))
}

/// `aclrtDeviceGetHostAtomicCapabilities`: not modelled (207000, rule `UNSUPPORTED`).
#[unsafe(no_mangle)]
pub unsafe extern "C" fn aclrtDeviceGetHostAtomicCapabilities(
    _capabilities: *mut u32,
    _operations: *const aclrtAtomicOperation,
    _count: u32,
    _device_id: i32,
) -> aclError {
    call(Api::aclrtDeviceGetHostAtomicCapabilities, || {
        Err(diag::unsupported())
    })
}

/// `aclrtDeviceGetP2PAtomicCapabilities`: not modelled (207000, rule `UNSUPPORTED`).
#[unsafe(no_mangle)]
pub unsafe extern "C" fn aclrtDeviceGetP2PAtomicCapabilities(
    _capabilities: *mut u32,
    _operations: *const aclrtAtomicOperation,
    _count: u32,
    _src_device_id: i32,
    _dst_device_id: i32,
) -> aclError {
    call(Api::aclrtDeviceGetP2PAtomicCapabilities, || {
        Err(diag::unsupported())
    })
}

/// `aclrtGetDevicesTopo`: not modelled (207000, rule `UNSUPPORTED`).
#[unsafe(no_mangle)]
pub unsafe extern "C" fn aclrtGetDevicesTopo(
    _device_id: u32,
    _other_device_id: u32,
    _value: *mut u64,
) -> aclError {
    call(Api::aclrtGetDevicesTopo, || Err(diag::unsupported()))
}

/// `aclrtGetLogicDevIdByUserDevId`: not modelled (207000, rule `UNSUPPORTED`).
#[unsafe(no_mangle)]
pub unsafe extern "C" fn aclrtGetLogicDevIdByUserDevId(
    _user_devid: i32,
    _logic_dev_id: *mut i32,
) -> aclError {
    call(Api::aclrtGetLogicDevIdByUserDevId, || {
        Err(diag::unsupported())
    })
}

/// `aclrtGetUserDevIdByLogicDevId`: not modelled (207000, rule `UNSUPPORTED`).
#[unsafe(no_mangle)]
pub unsafe extern "C" fn aclrtGetUserDevIdByLogicDevId(
    _logic_dev_id: i32,
    _user_devid: *mut i32,
) -> aclError {
    call(Api::aclrtGetUserDevIdByLogicDevId, || {
        Err(diag::unsupported())
    })
}

/// `aclrtGetLogicDevIdByPhyDevId`: not modelled (207000, rule `UNSUPPORTED`).
#[unsafe(no_mangle)]
pub unsafe extern "C" fn aclrtGetLogicDevIdByPhyDevId(
    _phy_dev_id: i32,
    _logic_dev_id: *mut i32,
) -> aclError {
    call(Api::aclrtGetLogicDevIdByPhyDevId, || {
        Err(diag::unsupported())
    })
}

/// `aclrtGetPhyDevIdByLogicDevId`: not modelled (207000, rule `UNSUPPORTED`).
#[unsafe(no_mangle)]
pub unsafe extern "C" fn aclrtGetPhyDevIdByLogicDevId(
    _logic_dev_id: i32,
    _phy_dev_id: *mut i32,
) -> aclError {
    call(Api::aclrtGetPhyDevIdByLogicDevId, || {
        Err(diag::unsupported())
    })
}

/// `aclrtGetUserDevIdByPhyDevId`: not modelled (207000, rule `UNSUPPORTED`).
#[unsafe(no_mangle)]
pub unsafe extern "C" fn aclrtGetUserDevIdByPhyDevId(
    _phy_dev_id: i32,
    _user_dev_id: *mut i32,
) -> aclError {
    call(
        Api::aclrtGetUserDevIdByPhyDevId,
        || Err(diag::unsupported()),
    )
}

/// `aclrtGetPhyDevIdByUserDevId`: not modelled (207000, rule `UNSUPPORTED`).
#[unsafe(no_mangle)]
pub unsafe extern "C" fn aclrtGetPhyDevIdByUserDevId(
    _user_dev_id: i32,
    _phy_dev_id: *mut i32,
) -> aclError {
    call(
        Api::aclrtGetPhyDevIdByUserDevId,
        || Err(diag::unsupported()),
    )
}

/// `aclrtRegDeviceStateCallback`: not modelled (207000, rule `UNSUPPORTED`).
#[unsafe(no_mangle)]
pub unsafe extern "C" fn aclrtRegDeviceStateCallback(
    _reg_name: *const ::core::ffi::c_char,
    _callback: aclrtDeviceStateCallback,
    _args: *mut ::core::ffi::c_void,
) -> aclError {
    call(
        Api::aclrtRegDeviceStateCallback,
        || Err(diag::unsupported()),
    )
}

/// `aclrtDevicePeerAccessStatus`: not modelled (207000, rule `UNSUPPORTED`).
#[unsafe(no_mangle)]
pub unsafe extern "C" fn aclrtDevicePeerAccessStatus(
    _device_id: i32,
    _peer_device_id: i32,
    _status: *mut i32,
) -> aclError {
    call(
        Api::aclrtDevicePeerAccessStatus,
        || Err(diag::unsupported()),
    )
}

/// `aclrtDeviceL2CacheFlush`: not modelled (207000, rule `UNSUPPORTED`).
#[unsafe(no_mangle)]
pub unsafe extern "C" fn aclrtDeviceL2CacheFlush(_rsv: *mut ::core::ffi::c_void) -> aclError {
    call(Api::aclrtDeviceL2CacheFlush, || Err(diag::unsupported()))
}

/// `aclrtGetEventId`: not modelled (207000, rule `UNSUPPORTED`).
#[unsafe(no_mangle)]
pub unsafe extern "C" fn aclrtGetEventId(_event: aclrtEvent, _event_id: *mut u32) -> aclError {
    call(Api::aclrtGetEventId, || Err(diag::unsupported()))
}

/// `aclrtCntNotifyCreate`: not modelled (207000, rule `UNSUPPORTED`).
#[unsafe(no_mangle)]
pub unsafe extern "C" fn aclrtCntNotifyCreate(
    _cnt_notify: *mut aclrtCntNotify,
    _flag: u64,
) -> aclError {
    call(Api::aclrtCntNotifyCreate, || Err(diag::unsupported()))
}

/// `aclrtCntNotifyDestroy`: not modelled (207000, rule `UNSUPPORTED`).
#[unsafe(no_mangle)]
pub unsafe extern "C" fn aclrtCntNotifyDestroy(_cnt_notify: aclrtCntNotify) -> aclError {
    call(Api::aclrtCntNotifyDestroy, || Err(diag::unsupported()))
}

/// `aclrtCntNotifyRecord`: not modelled (207000, rule `UNSUPPORTED`).
#[unsafe(no_mangle)]
pub unsafe extern "C" fn aclrtCntNotifyRecord(
    _cnt_notify: aclrtCntNotify,
    _stream: aclrtStream,
    _info: *mut aclrtCntNotifyRecordInfo,
) -> aclError {
    call(Api::aclrtCntNotifyRecord, || Err(diag::unsupported()))
}

/// `aclrtCntNotifyWaitWithTimeout`: not modelled (207000, rule `UNSUPPORTED`).
#[unsafe(no_mangle)]
pub unsafe extern "C" fn aclrtCntNotifyWaitWithTimeout(
    _cnt_notify: aclrtCntNotify,
    _stream: aclrtStream,
    _info: *mut aclrtCntNotifyWaitInfo,
) -> aclError {
    call(Api::aclrtCntNotifyWaitWithTimeout, || {
        Err(diag::unsupported())
    })
}

/// `aclrtCntNotifyReset`: not modelled (207000, rule `UNSUPPORTED`).
#[unsafe(no_mangle)]
pub unsafe extern "C" fn aclrtCntNotifyReset(
    _cnt_notify: aclrtCntNotify,
    _stream: aclrtStream,
) -> aclError {
    call(Api::aclrtCntNotifyReset, || Err(diag::unsupported()))
}

/// `aclrtCntNotifyGetId`: not modelled (207000, rule `UNSUPPORTED`).
#[unsafe(no_mangle)]
pub unsafe extern "C" fn aclrtCntNotifyGetId(
    _cnt_notify: aclrtCntNotify,
    _notify_id: *mut u32,
) -> aclError {
    call(Api::aclrtCntNotifyGetId, || Err(diag::unsupported()))
}

/// `aclrtMemsetD32`: not modelled (207000, rule `UNSUPPORTED`).
#[unsafe(no_mangle)]
pub unsafe extern "C" fn aclrtMemsetD32(
    _ptr: *mut ::core::ffi::c_void,
    _mem_size: usize,
    _value: u32,
    _n: usize,
) -> aclError {
    call(Api::aclrtMemsetD32, || Err(diag::unsupported()))
}

/// `aclrtMemsetD32Async`: not modelled (207000, rule `UNSUPPORTED`).
#[unsafe(no_mangle)]
pub unsafe extern "C" fn aclrtMemsetD32Async(
    _ptr: *mut ::core::ffi::c_void,
    _mem_size: usize,
    _value: u32,
    _n: usize,
    _stream: aclrtStream,
) -> aclError {
    call(Api::aclrtMemsetD32Async, || Err(diag::unsupported()))
}

/// `aclrtMemcpyAsyncWithCondition`: not modelled (207000, rule `UNSUPPORTED`).
#[unsafe(no_mangle)]
pub unsafe extern "C" fn aclrtMemcpyAsyncWithCondition(
    _dst: *mut ::core::ffi::c_void,
    _dest_max: usize,
    _src: *const ::core::ffi::c_void,
    _count: usize,
    _kind: aclrtMemcpyKind,
    _stream: aclrtStream,
) -> aclError {
    call(Api::aclrtMemcpyAsyncWithCondition, || {
        Err(diag::unsupported())
    })
}

/// `aclrtMemcpyFromSymbol`: not modelled (207000, rule `UNSUPPORTED`).
#[unsafe(no_mangle)]
pub unsafe extern "C" fn aclrtMemcpyFromSymbol(
    _dst: *mut ::core::ffi::c_void,
    _dst_max: usize,
    _symbol: *const ::core::ffi::c_void,
    _count: usize,
    _offset: usize,
    _kind: aclrtMemcpyKind,
) -> aclError {
    call(Api::aclrtMemcpyFromSymbol, || Err(diag::unsupported()))
}

/// `aclrtMemcpyFromSymbolAsync`: not modelled (207000, rule `UNSUPPORTED`).
#[unsafe(no_mangle)]
pub unsafe extern "C" fn aclrtMemcpyFromSymbolAsync(
    _dst: *mut ::core::ffi::c_void,
    _dst_max: usize,
    _symbol: *const ::core::ffi::c_void,
    _count: usize,
    _offset: usize,
    _kind: aclrtMemcpyKind,
    _stream: aclrtStream,
) -> aclError {
    call(Api::aclrtMemcpyFromSymbolAsync, || Err(diag::unsupported()))
}

/// `aclrtMemcpyToSymbol`: not modelled (207000, rule `UNSUPPORTED`).
#[unsafe(no_mangle)]
pub unsafe extern "C" fn aclrtMemcpyToSymbol(
    _symbol: *const ::core::ffi::c_void,
    _src: *const ::core::ffi::c_void,
    _count: usize,
    _offset: usize,
    _kind: aclrtMemcpyKind,
) -> aclError {
    call(Api::aclrtMemcpyToSymbol, || Err(diag::unsupported()))
}

/// `aclrtMemcpyToSymbolAsync`: not modelled (207000, rule `UNSUPPORTED`).
#[unsafe(no_mangle)]
pub unsafe extern "C" fn aclrtMemcpyToSymbolAsync(
    _symbol: *const ::core::ffi::c_void,
    _src: *const ::core::ffi::c_void,
    _count: usize,
    _offset: usize,
    _kind: aclrtMemcpyKind,
    _stream: aclrtStream,
) -> aclError {
    call(Api::aclrtMemcpyToSymbolAsync, || Err(diag::unsupported()))
}

/// `aclrtCmoAsync`: not modelled (207000, rule `UNSUPPORTED`).
#[unsafe(no_mangle)]
pub unsafe extern "C" fn aclrtCmoAsync(
    _src: *mut ::core::ffi::c_void,
    _size: usize,
    _cmo_type: aclrtCmoType,
    _stream: aclrtStream,
) -> aclError {
    call(Api::aclrtCmoAsync, || Err(diag::unsupported()))
}

/// `aclrtGetMemcpyDescSize`: not modelled (207000, rule `UNSUPPORTED`).
#[unsafe(no_mangle)]
pub unsafe extern "C" fn aclrtGetMemcpyDescSize(
    _kind: aclrtMemcpyKind,
    _desc_size: *mut usize,
) -> aclError {
    call(Api::aclrtGetMemcpyDescSize, || Err(diag::unsupported()))
}

/// `aclrtSetMemcpyDesc`: not modelled (207000, rule `UNSUPPORTED`).
#[unsafe(no_mangle)]
pub unsafe extern "C" fn aclrtSetMemcpyDesc(
    _desc: *mut ::core::ffi::c_void,
    _kind: aclrtMemcpyKind,
    _src_addr: *mut ::core::ffi::c_void,
    _dst_addr: *mut ::core::ffi::c_void,
    _count: usize,
    _config: *mut ::core::ffi::c_void,
) -> aclError {
    call(Api::aclrtSetMemcpyDesc, || Err(diag::unsupported()))
}

/// `aclrtMemcpyAsyncWithOffset`: not modelled (207000, rule `UNSUPPORTED`).
#[unsafe(no_mangle)]
pub unsafe extern "C" fn aclrtMemcpyAsyncWithOffset(
    _dst: *mut *mut ::core::ffi::c_void,
    _dest_max: usize,
    _dst_data_offset: usize,
    _src: *mut *const ::core::ffi::c_void,
    _count: usize,
    _src_data_offset: usize,
    _kind: aclrtMemcpyKind,
    _stream: aclrtStream,
) -> aclError {
    call(Api::aclrtMemcpyAsyncWithOffset, || Err(diag::unsupported()))
}

/// `aclrtMemcpyAsyncWithDesc`: not modelled (207000, rule `UNSUPPORTED`).
#[unsafe(no_mangle)]
pub unsafe extern "C" fn aclrtMemcpyAsyncWithDesc(
    _desc: *mut ::core::ffi::c_void,
    _kind: aclrtMemcpyKind,
    _stream: aclrtStream,
) -> aclError {
    call(Api::aclrtMemcpyAsyncWithDesc, || Err(diag::unsupported()))
}

/// `aclrtCmoAsyncWithBarrier`: not modelled (207000, rule `UNSUPPORTED`).
#[unsafe(no_mangle)]
pub unsafe extern "C" fn aclrtCmoAsyncWithBarrier(
    _src: *mut ::core::ffi::c_void,
    _size: usize,
    _cmo_type: aclrtCmoType,
    _barrier_id: u32,
    _stream: aclrtStream,
) -> aclError {
    call(Api::aclrtCmoAsyncWithBarrier, || Err(diag::unsupported()))
}

/// `aclrtCmoWaitBarrier`: not modelled (207000, rule `UNSUPPORTED`).
#[unsafe(no_mangle)]
pub unsafe extern "C" fn aclrtCmoWaitBarrier(
    _task_info: *mut aclrtBarrierTaskInfo,
    _stream: aclrtStream,
    _flag: u32,
) -> aclError {
    call(Api::aclrtCmoWaitBarrier, || Err(diag::unsupported()))
}

/// `aclrtMemcpyBatch`: not modelled (207000, rule `UNSUPPORTED`).
#[unsafe(no_mangle)]
pub unsafe extern "C" fn aclrtMemcpyBatch(
    _dsts: *mut *mut ::core::ffi::c_void,
    _dest_maxs: *mut usize,
    _srcs: *mut *mut ::core::ffi::c_void,
    _sizes: *mut usize,
    _num_batches: usize,
    _attrs: *mut aclrtMemcpyBatchAttr,
    _attrs_indexes: *mut usize,
    _num_attrs: usize,
    _fail_index: *mut usize,
) -> aclError {
    call(Api::aclrtMemcpyBatch, || Err(diag::unsupported()))
}

/// `aclrtMemcpyBatchV2`: not modelled (207000, rule `UNSUPPORTED`).
#[unsafe(no_mangle)]
pub unsafe extern "C" fn aclrtMemcpyBatchV2(
    _dsts: *mut *mut ::core::ffi::c_void,
    _dest_maxs: *mut usize,
    _srcs: *mut *mut ::core::ffi::c_void,
    _sizes: *mut usize,
    _num_batches: usize,
    _attrs: *mut aclrtMemcpyBatchAttr,
    _attrs_indexes: *mut usize,
    _num_attrs: usize,
) -> aclError {
    call(Api::aclrtMemcpyBatchV2, || Err(diag::unsupported()))
}

/// `aclrtMemcpyBatchAsync`: not modelled (207000, rule `UNSUPPORTED`).
#[unsafe(no_mangle)]
pub unsafe extern "C" fn aclrtMemcpyBatchAsync(
    _dsts: *mut *mut ::core::ffi::c_void,
    _dest_maxs: *mut usize,
    _srcs: *mut *mut ::core::ffi::c_void,
    _sizes: *mut usize,
    _num_batches: usize,
    _attrs: *mut aclrtMemcpyBatchAttr,
    _attrs_indexes: *mut usize,
    _num_attrs: usize,
    _fail_index: *mut usize,
    _stream: aclrtStream,
) -> aclError {
    call(Api::aclrtMemcpyBatchAsync, || Err(diag::unsupported()))
}

/// `aclrtMemcpyBatchAsyncV2`: not modelled (207000, rule `UNSUPPORTED`).
#[unsafe(no_mangle)]
pub unsafe extern "C" fn aclrtMemcpyBatchAsyncV2(
    _dsts: *mut *mut ::core::ffi::c_void,
    _dest_maxs: *mut usize,
    _srcs: *mut *mut ::core::ffi::c_void,
    _sizes: *mut usize,
    _num_batches: usize,
    _attrs: *mut aclrtMemcpyBatchAttr,
    _attrs_indexes: *mut usize,
    _num_attrs: usize,
    _stream: aclrtStream,
) -> aclError {
    call(Api::aclrtMemcpyBatchAsyncV2, || Err(diag::unsupported()))
}

/// `aclrtCmoGetDescSize`: not modelled (207000, rule `UNSUPPORTED`).
#[unsafe(no_mangle)]
pub unsafe extern "C" fn aclrtCmoGetDescSize(_size: *mut usize) -> aclError {
    call(Api::aclrtCmoGetDescSize, || Err(diag::unsupported()))
}

/// `aclrtCmoSetDesc`: not modelled (207000, rule `UNSUPPORTED`).
#[unsafe(no_mangle)]
pub unsafe extern "C" fn aclrtCmoSetDesc(
    _cmo_desc: *mut ::core::ffi::c_void,
    _src: *mut ::core::ffi::c_void,
    _size: usize,
) -> aclError {
    call(Api::aclrtCmoSetDesc, || Err(diag::unsupported()))
}

/// `aclrtCmoAsyncWithDesc`: not modelled (207000, rule `UNSUPPORTED`).
#[unsafe(no_mangle)]
pub unsafe extern "C" fn aclrtCmoAsyncWithDesc(
    _cmo_desc: *mut ::core::ffi::c_void,
    _cmo_type: aclrtCmoType,
    _stream: aclrtStream,
    _reserve: *const ::core::ffi::c_void,
) -> aclError {
    call(Api::aclrtCmoAsyncWithDesc, || Err(diag::unsupported()))
}

/// `aclrtMallocWithCfg`: not modelled (207000, rule `UNSUPPORTED`).
#[unsafe(no_mangle)]
pub unsafe extern "C" fn aclrtMallocWithCfg(
    _dev_ptr: *mut *mut ::core::ffi::c_void,
    _size: usize,
    _policy: aclrtMemMallocPolicy,
    _cfg: *mut aclrtMallocConfig,
) -> aclError {
    call(Api::aclrtMallocWithCfg, || Err(diag::unsupported()))
}

/// `aclrtMallocForTaskScheduler`: not modelled (207000, rule `UNSUPPORTED`).
#[unsafe(no_mangle)]
pub unsafe extern "C" fn aclrtMallocForTaskScheduler(
    _dev_ptr: *mut *mut ::core::ffi::c_void,
    _size: usize,
    _policy: aclrtMemMallocPolicy,
    _cfg: *mut aclrtMallocConfig,
) -> aclError {
    call(
        Api::aclrtMallocForTaskScheduler,
        || Err(diag::unsupported()),
    )
}

/// `aclrtMallocHostWithCfg`: not modelled (207000, rule `UNSUPPORTED`).
#[unsafe(no_mangle)]
pub unsafe extern "C" fn aclrtMallocHostWithCfg(
    _ptr: *mut *mut ::core::ffi::c_void,
    _size: u64,
    _cfg: *mut aclrtMallocConfig,
) -> aclError {
    call(Api::aclrtMallocHostWithCfg, || Err(diag::unsupported()))
}

/// `aclrtPointerGetAttributes`: not modelled (207000, rule `UNSUPPORTED`).
#[unsafe(no_mangle)]
pub unsafe extern "C" fn aclrtPointerGetAttributes(
    _ptr: *const ::core::ffi::c_void,
    _attributes: *mut aclrtPtrAttributes,
) -> aclError {
    call(Api::aclrtPointerGetAttributes, || Err(diag::unsupported()))
}

/// `aclrtMemManagedGetAttr`: not modelled (207000, rule `UNSUPPORTED`).
#[unsafe(no_mangle)]
pub unsafe extern "C" fn aclrtMemManagedGetAttr(
    _attribute: aclrtMemManagedRangeAttribute,
    _ptr: *const ::core::ffi::c_void,
    _size: usize,
    _data: *mut ::core::ffi::c_void,
    _data_size: usize,
) -> aclError {
    call(Api::aclrtMemManagedGetAttr, || Err(diag::unsupported()))
}

/// `aclrtMemManagedGetAttrs`: not modelled (207000, rule `UNSUPPORTED`).
#[unsafe(no_mangle)]
pub unsafe extern "C" fn aclrtMemManagedGetAttrs(
    _attributes: *mut aclrtMemManagedRangeAttribute,
    _num_attributes: usize,
    _ptr: *const ::core::ffi::c_void,
    _size: usize,
    _data: *mut *mut ::core::ffi::c_void,
    _data_sizes: *mut usize,
) -> aclError {
    call(Api::aclrtMemManagedGetAttrs, || Err(diag::unsupported()))
}

/// `aclrtMemFlush`: not modelled (207000, rule `UNSUPPORTED`).
#[unsafe(no_mangle)]
pub unsafe extern "C" fn aclrtMemFlush(
    _dev_ptr: *mut ::core::ffi::c_void,
    _size: usize,
) -> aclError {
    call(Api::aclrtMemFlush, || Err(diag::unsupported()))
}

/// `aclrtMemInvalidate`: not modelled (207000, rule `UNSUPPORTED`).
#[unsafe(no_mangle)]
pub unsafe extern "C" fn aclrtMemInvalidate(
    _dev_ptr: *mut ::core::ffi::c_void,
    _size: usize,
) -> aclError {
    call(Api::aclrtMemInvalidate, || Err(diag::unsupported()))
}

/// `aclrtGetSymbolAddress`: not modelled (207000, rule `UNSUPPORTED`).
#[unsafe(no_mangle)]
pub unsafe extern "C" fn aclrtGetSymbolAddress(
    _symbol: *const ::core::ffi::c_void,
    _dev_ptr: *mut *mut ::core::ffi::c_void,
) -> aclError {
    call(Api::aclrtGetSymbolAddress, || Err(diag::unsupported()))
}

/// `aclrtGetSymbolSize`: not modelled (207000, rule `UNSUPPORTED`).
#[unsafe(no_mangle)]
pub unsafe extern "C" fn aclrtGetSymbolSize(
    _symbol: *const ::core::ffi::c_void,
    _size: *mut usize,
) -> aclError {
    call(Api::aclrtGetSymbolSize, || Err(diag::unsupported()))
}

/// `aclrtMemManagedAdvise`: not modelled (207000, rule `UNSUPPORTED`).
#[unsafe(no_mangle)]
pub unsafe extern "C" fn aclrtMemManagedAdvise(
    _ptr: *const ::core::ffi::c_void,
    _size: u64,
    _advise: aclrtMemManagedAdviseType,
    _location: aclrtMemManagedLocation,
) -> aclError {
    call(Api::aclrtMemManagedAdvise, || Err(diag::unsupported()))
}

/// `aclrtGetMemUsageInfo`: not modelled (207000, rule `UNSUPPORTED`).
#[unsafe(no_mangle)]
pub unsafe extern "C" fn aclrtGetMemUsageInfo(
    _device_id: i32,
    _mem_usage_info: *mut aclrtMemUsageInfo,
    _input_num: usize,
    _output_num: *mut usize,
) -> aclError {
    call(Api::aclrtGetMemUsageInfo, || Err(diag::unsupported()))
}

/// `aclrtGetFuncBySymbol`: not modelled (207000, rule `UNSUPPORTED`).
#[unsafe(no_mangle)]
pub unsafe extern "C" fn aclrtGetFuncBySymbol(
    _symbol: *const ::core::ffi::c_void,
    _func_handle: *mut aclrtFuncHandle,
) -> aclError {
    call(Api::aclrtGetFuncBySymbol, || Err(diag::unsupported()))
}

/// `aclrtFreeBuf`: not modelled (207000, rule `UNSUPPORTED`).
#[unsafe(no_mangle)]
pub unsafe extern "C" fn aclrtFreeBuf(_buf: aclrtMbuf) -> aclError {
    call(Api::aclrtFreeBuf, || Err(diag::unsupported()))
}

/// `aclrtCheckMemType`: not modelled (207000, rule `UNSUPPORTED`).
#[unsafe(no_mangle)]
pub unsafe extern "C" fn aclrtCheckMemType(
    _addr_list: *mut *mut ::core::ffi::c_void,
    _size: u32,
    _mem_type: u32,
    _check_result: *mut u32,
    _reserve: u32,
) -> aclError {
    call(Api::aclrtCheckMemType, || Err(diag::unsupported()))
}

/// `aclrtMemManagedPrefetchAsync`: not modelled (207000, rule `UNSUPPORTED`).
#[unsafe(no_mangle)]
pub unsafe extern "C" fn aclrtMemManagedPrefetchAsync(
    _ptr: *const ::core::ffi::c_void,
    _size: usize,
    _location: aclrtMemManagedLocation,
    _flags: u32,
    _stream: aclrtStream,
) -> aclError {
    call(Api::aclrtMemManagedPrefetchAsync, || {
        Err(diag::unsupported())
    })
}

/// `aclrtMemManagedPrefetchBatchAsync`: not modelled (207000, rule `UNSUPPORTED`).
#[unsafe(no_mangle)]
pub unsafe extern "C" fn aclrtMemManagedPrefetchBatchAsync(
    _ptrs: *mut *const ::core::ffi::c_void,
    _sizes: *mut usize,
    _count: usize,
    _prefetch_locs: *mut aclrtMemManagedLocation,
    _prefetch_loc_idxs: *mut usize,
    _num_prefetch_locs: usize,
    _flags: u64,
    _stream: aclrtStream,
) -> aclError {
    call(Api::aclrtMemManagedPrefetchBatchAsync, || {
        Err(diag::unsupported())
    })
}

/// `aclrtSetOpExecuteTimeOutWithMs`: not modelled (207000, rule `UNSUPPORTED`).
#[unsafe(no_mangle)]
pub unsafe extern "C" fn aclrtSetOpExecuteTimeOutWithMs(_timeout: u32) -> aclError {
    call(Api::aclrtSetOpExecuteTimeOutWithMs, || {
        Err(diag::unsupported())
    })
}

/// `aclrtSetOpExecuteTimeOutV2`: not modelled (207000, rule `UNSUPPORTED`).
#[unsafe(no_mangle)]
pub unsafe extern "C" fn aclrtSetOpExecuteTimeOutV2(
    _timeout: u64,
    _actual_timeout: *mut u64,
) -> aclError {
    call(Api::aclrtSetOpExecuteTimeOutV2, || Err(diag::unsupported()))
}

/// `aclrtGetOpTimeOutInterval`: not modelled (207000, rule `UNSUPPORTED`).
#[unsafe(no_mangle)]
pub unsafe extern "C" fn aclrtGetOpTimeOutInterval(_interval: *mut u64) -> aclError {
    call(Api::aclrtGetOpTimeOutInterval, || Err(diag::unsupported()))
}

/// `aclrtGetOpExecuteTimeout`: not modelled (207000, rule `UNSUPPORTED`).
#[unsafe(no_mangle)]
pub unsafe extern "C" fn aclrtGetOpExecuteTimeout(_timeout_ms: *mut u32) -> aclError {
    call(Api::aclrtGetOpExecuteTimeout, || Err(diag::unsupported()))
}

/// `aclrtCreateBinary`: not modelled (207000, rule `UNSUPPORTED`).
#[unsafe(no_mangle)]
pub unsafe extern "C" fn aclrtCreateBinary(
    _data: *const ::core::ffi::c_void,
    _data_len: usize,
) -> aclrtBinary {
    diag::unsupported_value(Api::aclrtCreateBinary, core::ptr::null_mut())
}

/// `aclrtDestroyBinary`: not modelled (207000, rule `UNSUPPORTED`).
#[unsafe(no_mangle)]
pub unsafe extern "C" fn aclrtDestroyBinary(_binary: aclrtBinary) -> aclError {
    call(Api::aclrtDestroyBinary, || Err(diag::unsupported()))
}

/// `aclrtBinaryLoad`: not modelled (207000, rule `UNSUPPORTED`).
#[unsafe(no_mangle)]
pub unsafe extern "C" fn aclrtBinaryLoad(
    _binary: aclrtBinary,
    _bin_handle: *mut aclrtBinHandle,
) -> aclError {
    call(Api::aclrtBinaryLoad, || Err(diag::unsupported()))
}

/// `aclrtBinaryGetDevAddress`: not modelled (207000, rule `UNSUPPORTED`).
#[unsafe(no_mangle)]
pub unsafe extern "C" fn aclrtBinaryGetDevAddress(
    _bin_handle: aclrtBinHandle,
    _bin_addr: *mut *mut ::core::ffi::c_void,
    _bin_size: *mut usize,
) -> aclError {
    call(Api::aclrtBinaryGetDevAddress, || Err(diag::unsupported()))
}

/// `aclrtBinaryGetFunctionByEntry`: not modelled (207000, rule `UNSUPPORTED`).
#[unsafe(no_mangle)]
pub unsafe extern "C" fn aclrtBinaryGetFunctionByEntry(
    _bin_handle: aclrtBinHandle,
    _func_entry: u64,
    _func_handle: *mut aclrtFuncHandle,
) -> aclError {
    call(Api::aclrtBinaryGetFunctionByEntry, || {
        Err(diag::unsupported())
    })
}

/// `aclrtBinaryGetGlobal`: not modelled (207000, rule `UNSUPPORTED`).
#[unsafe(no_mangle)]
pub unsafe extern "C" fn aclrtBinaryGetGlobal(
    _bin_handle: aclrtBinHandle,
    _name: *const ::core::ffi::c_char,
    _dptr: *mut *mut ::core::ffi::c_void,
    _size: *mut usize,
) -> aclError {
    call(Api::aclrtBinaryGetGlobal, || Err(diag::unsupported()))
}

/// `aclrtGetFunctionAddr`: not modelled (207000, rule `UNSUPPORTED`).
#[unsafe(no_mangle)]
pub unsafe extern "C" fn aclrtGetFunctionAddr(
    _func_handle: aclrtFuncHandle,
    _aic_addr: *mut *mut ::core::ffi::c_void,
    _aiv_addr: *mut *mut ::core::ffi::c_void,
) -> aclError {
    call(Api::aclrtGetFunctionAddr, || Err(diag::unsupported()))
}

/// `aclrtGetFunctionSize`: not modelled (207000, rule `UNSUPPORTED`).
#[unsafe(no_mangle)]
pub unsafe extern "C" fn aclrtGetFunctionSize(
    _func_handle: aclrtFuncHandle,
    _aic_size: *mut usize,
    _aiv_size: *mut usize,
) -> aclError {
    call(Api::aclrtGetFunctionSize, || Err(diag::unsupported()))
}

/// `aclrtKernelArgsGetHandleMemSize`: not modelled (207000, rule `UNSUPPORTED`).
#[unsafe(no_mangle)]
pub unsafe extern "C" fn aclrtKernelArgsGetHandleMemSize(
    _func_handle: aclrtFuncHandle,
    _mem_size: *mut usize,
) -> aclError {
    call(Api::aclrtKernelArgsGetHandleMemSize, || {
        Err(diag::unsupported())
    })
}

/// `aclrtKernelArgsGetMemSize`: not modelled (207000, rule `UNSUPPORTED`).
#[unsafe(no_mangle)]
pub unsafe extern "C" fn aclrtKernelArgsGetMemSize(
    _func_handle: aclrtFuncHandle,
    _user_args_size: usize,
    _actual_args_size: *mut usize,
) -> aclError {
    call(Api::aclrtKernelArgsGetMemSize, || Err(diag::unsupported()))
}

/// `aclrtKernelArgsInitByUserMem`: not modelled (207000, rule `UNSUPPORTED`).
#[unsafe(no_mangle)]
pub unsafe extern "C" fn aclrtKernelArgsInitByUserMem(
    _func_handle: aclrtFuncHandle,
    _args_handle: aclrtArgsHandle,
    _user_host_mem: *mut ::core::ffi::c_void,
    _actual_args_size: usize,
) -> aclError {
    call(Api::aclrtKernelArgsInitByUserMem, || {
        Err(diag::unsupported())
    })
}

/// `aclrtKernelArgsParaUpdate`: not modelled (207000, rule `UNSUPPORTED`).
#[unsafe(no_mangle)]
pub unsafe extern "C" fn aclrtKernelArgsParaUpdate(
    _args_handle: aclrtArgsHandle,
    _param_handle: aclrtParamHandle,
    _param: *mut ::core::ffi::c_void,
    _param_size: usize,
) -> aclError {
    call(Api::aclrtKernelArgsParaUpdate, || Err(diag::unsupported()))
}

/// `aclrtGetFunctionName`: not modelled (207000, rule `UNSUPPORTED`).
#[unsafe(no_mangle)]
pub unsafe extern "C" fn aclrtGetFunctionName(
    _func_handle: aclrtFuncHandle,
    _max_len: u32,
    _name: *mut ::core::ffi::c_char,
) -> aclError {
    call(Api::aclrtGetFunctionName, || Err(diag::unsupported()))
}

/// `aclrtRegisterCpuFunc`: not modelled (207000, rule `UNSUPPORTED`).
#[unsafe(no_mangle)]
pub unsafe extern "C" fn aclrtRegisterCpuFunc(
    _handle: aclrtBinHandle,
    _func_name: *const ::core::ffi::c_char,
    _kernel_name: *const ::core::ffi::c_char,
    _func_handle: *mut aclrtFuncHandle,
) -> aclError {
    call(Api::aclrtRegisterCpuFunc, || Err(diag::unsupported()))
}

/// `aclrtProfTrace`: not modelled (207000, rule `UNSUPPORTED`).
#[unsafe(no_mangle)]
pub unsafe extern "C" fn aclrtProfTrace(
    _userdata: *mut ::core::ffi::c_void,
    _length: i32,
    _stream: aclrtStream,
) -> aclError {
    call(Api::aclrtProfTrace, || Err(diag::unsupported()))
}

/// `aclrtLaunchKernelV2`: not modelled (207000, rule `UNSUPPORTED`).
#[unsafe(no_mangle)]
pub unsafe extern "C" fn aclrtLaunchKernelV2(
    _func_handle: aclrtFuncHandle,
    _num_blocks: u32,
    _args_data: *const ::core::ffi::c_void,
    _args_size: usize,
    _cfg: *mut aclrtLaunchKernelCfg,
    _stream: aclrtStream,
) -> aclError {
    call(Api::aclrtLaunchKernelV2, || Err(diag::unsupported()))
}

/// `aclrtLaunchKernelWithHostArgs`: not modelled (207000, rule `UNSUPPORTED`).
#[unsafe(no_mangle)]
pub unsafe extern "C" fn aclrtLaunchKernelWithHostArgs(
    _func_handle: aclrtFuncHandle,
    _num_blocks: u32,
    _stream: aclrtStream,
    _cfg: *mut aclrtLaunchKernelCfg,
    _host_args: *mut ::core::ffi::c_void,
    _args_size: usize,
    _place_holder_array: *mut aclrtPlaceHolderInfo,
    _place_holder_num: usize,
) -> aclError {
    call(Api::aclrtLaunchKernelWithHostArgs, || {
        Err(diag::unsupported())
    })
}

/// `aclrtLaunchKernelWithArgsArray`: not modelled (207000, rule `UNSUPPORTED`).
#[unsafe(no_mangle)]
pub unsafe extern "C" fn aclrtLaunchKernelWithArgsArray(
    _func: *mut ::core::ffi::c_void,
    _num_blocks: u32,
    _stream: aclrtStream,
    _cfg: *mut aclrtLaunchKernelCfg,
    _args: *mut *mut ::core::ffi::c_void,
) -> aclError {
    call(Api::aclrtLaunchKernelWithArgsArray, || {
        Err(diag::unsupported())
    })
}

/// `aclrtLaunchSIMTKernelWithArgsArray`: not modelled (207000, rule `UNSUPPORTED`).
#[unsafe(no_mangle)]
pub unsafe extern "C" fn aclrtLaunchSIMTKernelWithArgsArray(
    _func: *mut ::core::ffi::c_void,
    _grid_dim: dim3,
    _block_dim: dim3,
    _dyn_ubuf_size: usize,
    _stream: aclrtStream,
    _cfg: *mut aclrtLaunchKernelCfg,
    _args: *mut *mut ::core::ffi::c_void,
) -> aclError {
    call(Api::aclrtLaunchSIMTKernelWithArgsArray, || {
        Err(diag::unsupported())
    })
}

/// `aclrtLaunchSIMTKernelWithHostArgs`: not modelled (207000, rule `UNSUPPORTED`).
#[unsafe(no_mangle)]
pub unsafe extern "C" fn aclrtLaunchSIMTKernelWithHostArgs(
    _func: *mut ::core::ffi::c_void,
    _grid_dim: dim3,
    _block_dim: dim3,
    _dyn_ubuf_size: usize,
    _stream: aclrtStream,
    _cfg: *mut aclrtLaunchKernelCfg,
    _host_args: *mut ::core::ffi::c_void,
    _args_size: usize,
    _place_holder_array: *mut aclrtPlaceHolderInfo,
    _place_holder_num: usize,
) -> aclError {
    call(Api::aclrtLaunchSIMTKernelWithHostArgs, || {
        Err(diag::unsupported())
    })
}

/// `aclrtGetHardwareSyncAddr`: not modelled (207000, rule `UNSUPPORTED`).
#[unsafe(no_mangle)]
pub unsafe extern "C" fn aclrtGetHardwareSyncAddr(
    _addr: *mut *mut ::core::ffi::c_void,
) -> aclError {
    call(Api::aclrtGetHardwareSyncAddr, || Err(diag::unsupported()))
}

/// `aclrtTaskUpdateAsync`: not modelled (207000, rule `UNSUPPORTED`).
#[unsafe(no_mangle)]
pub unsafe extern "C" fn aclrtTaskUpdateAsync(
    _task_stream: aclrtStream,
    _task_id: u32,
    _info: *mut aclrtTaskUpdateInfo,
    _exec_stream: aclrtStream,
) -> aclError {
    call(Api::aclrtTaskUpdateAsync, || Err(diag::unsupported()))
}

/// `aclrtCacheLastTaskOpInfo`: not modelled (207000, rule `UNSUPPORTED`).
#[unsafe(no_mangle)]
pub unsafe extern "C" fn aclrtCacheLastTaskOpInfo(
    _info_ptr: *const ::core::ffi::c_void,
    _info_size: usize,
) -> aclError {
    call(Api::aclrtCacheLastTaskOpInfo, || Err(diag::unsupported()))
}

/// `aclrtCacheLastTaskExtendInfo`: not modelled (207000, rule `UNSUPPORTED`).
#[unsafe(no_mangle)]
pub unsafe extern "C" fn aclrtCacheLastTaskExtendInfo(
    _extend_info_ptr: *const ::core::ffi::c_char,
    _info_size: usize,
) -> aclError {
    call(Api::aclrtCacheLastTaskExtendInfo, || {
        Err(diag::unsupported())
    })
}

/// `aclrtGetFunctionAttribute`: not modelled (207000, rule `UNSUPPORTED`).
#[unsafe(no_mangle)]
pub unsafe extern "C" fn aclrtGetFunctionAttribute(
    _func_handle: aclrtFuncHandle,
    _attr_type: aclrtFuncAttribute,
    _attr_value: *mut i64,
) -> aclError {
    call(Api::aclrtGetFunctionAttribute, || Err(diag::unsupported()))
}

/// `aclrtFunctionGetBinary`: not modelled (207000, rule `UNSUPPORTED`).
#[unsafe(no_mangle)]
pub unsafe extern "C" fn aclrtFunctionGetBinary(
    _func_handle: aclrtFuncHandle,
    _bin_handle: *mut aclrtBinHandle,
) -> aclError {
    call(Api::aclrtFunctionGetBinary, || Err(diag::unsupported()))
}

/// `aclrtFunctionGetParamCount`: not modelled (207000, rule `UNSUPPORTED`).
#[unsafe(no_mangle)]
pub unsafe extern "C" fn aclrtFunctionGetParamCount(
    _func: *const ::core::ffi::c_void,
    _param_count: *mut usize,
) -> aclError {
    call(Api::aclrtFunctionGetParamCount, || Err(diag::unsupported()))
}

/// `aclrtFunctionGetParamInfo`: not modelled (207000, rule `UNSUPPORTED`).
#[unsafe(no_mangle)]
pub unsafe extern "C" fn aclrtFunctionGetParamInfo(
    _func: *const ::core::ffi::c_void,
    _param_index: usize,
    _param_offset: *mut usize,
    _param_size: *mut usize,
) -> aclError {
    call(Api::aclrtFunctionGetParamInfo, || Err(diag::unsupported()))
}

/// `aclrtFunctionGetAvailDynUbufPerBlock`: not modelled (207000, rule `UNSUPPORTED`).
#[unsafe(no_mangle)]
pub unsafe extern "C" fn aclrtFunctionGetAvailDynUbufPerBlock(
    _func: *mut ::core::ffi::c_void,
    _flags: u32,
    _dynamic_ubuf_size: *mut usize,
) -> aclError {
    call(Api::aclrtFunctionGetAvailDynUbufPerBlock, || {
        Err(diag::unsupported())
    })
}

/// `aclrtGetBufFromChain`: not modelled (207000, rule `UNSUPPORTED`).
#[unsafe(no_mangle)]
pub unsafe extern "C" fn aclrtGetBufFromChain(
    _head_buf: aclrtMbuf,
    _index: u32,
    _buf: *mut aclrtMbuf,
) -> aclError {
    call(Api::aclrtGetBufFromChain, || Err(diag::unsupported()))
}

/// `aclrtGetBufChainNum`: not modelled (207000, rule `UNSUPPORTED`).
#[unsafe(no_mangle)]
pub unsafe extern "C" fn aclrtGetBufChainNum(_head_buf: aclrtMbuf, _num: *mut u32) -> aclError {
    call(Api::aclrtGetBufChainNum, || Err(diag::unsupported()))
}

/// `aclrtAppendBufChain`: not modelled (207000, rule `UNSUPPORTED`).
#[unsafe(no_mangle)]
pub unsafe extern "C" fn aclrtAppendBufChain(_head_buf: aclrtMbuf, _buf: aclrtMbuf) -> aclError {
    call(Api::aclrtAppendBufChain, || Err(diag::unsupported()))
}

/// `aclrtCopyBufRef`: not modelled (207000, rule `UNSUPPORTED`).
#[unsafe(no_mangle)]
pub unsafe extern "C" fn aclrtCopyBufRef(_buf: aclrtMbuf, _new_buf: *mut aclrtMbuf) -> aclError {
    call(Api::aclrtCopyBufRef, || Err(diag::unsupported()))
}

/// `aclrtGetBufUserData`: not modelled (207000, rule `UNSUPPORTED`).
#[unsafe(no_mangle)]
pub unsafe extern "C" fn aclrtGetBufUserData(
    _buf: aclrtMbuf,
    _data_ptr: *mut ::core::ffi::c_void,
    _size: usize,
    _offset: usize,
) -> aclError {
    call(Api::aclrtGetBufUserData, || Err(diag::unsupported()))
}

/// `aclrtSetBufUserData`: not modelled (207000, rule `UNSUPPORTED`).
#[unsafe(no_mangle)]
pub unsafe extern "C" fn aclrtSetBufUserData(
    _buf: aclrtMbuf,
    _data_ptr: *const ::core::ffi::c_void,
    _size: usize,
    _offset: usize,
) -> aclError {
    call(Api::aclrtSetBufUserData, || Err(diag::unsupported()))
}

/// `aclrtGetBufData`: not modelled (207000, rule `UNSUPPORTED`).
#[unsafe(no_mangle)]
pub unsafe extern "C" fn aclrtGetBufData(
    _buf: aclrtMbuf,
    _data_ptr: *mut *mut ::core::ffi::c_void,
    _size: *mut usize,
) -> aclError {
    call(Api::aclrtGetBufData, || Err(diag::unsupported()))
}

/// `aclrtGetBufDataLen`: not modelled (207000, rule `UNSUPPORTED`).
#[unsafe(no_mangle)]
pub unsafe extern "C" fn aclrtGetBufDataLen(_buf: aclrtMbuf, _len: *mut usize) -> aclError {
    call(Api::aclrtGetBufDataLen, || Err(diag::unsupported()))
}

/// `aclrtSetBufDataLen`: not modelled (207000, rule `UNSUPPORTED`).
#[unsafe(no_mangle)]
pub unsafe extern "C" fn aclrtSetBufDataLen(_buf: aclrtMbuf, _len: usize) -> aclError {
    call(Api::aclrtSetBufDataLen, || Err(diag::unsupported()))
}

/// `aclrtAllocBuf`: not modelled (207000, rule `UNSUPPORTED`).
#[unsafe(no_mangle)]
pub unsafe extern "C" fn aclrtAllocBuf(_buf: *mut aclrtMbuf, _size: usize) -> aclError {
    call(Api::aclrtAllocBuf, || Err(diag::unsupported()))
}

/// `aclrtSnapShotProcessLock`: not modelled (207000, rule `UNSUPPORTED`).
#[unsafe(no_mangle)]
pub unsafe extern "C" fn aclrtSnapShotProcessLock(
    _pid: ::core::ffi::c_int,
    _reserve: *mut ::core::ffi::c_void,
) -> aclError {
    call(Api::aclrtSnapShotProcessLock, || Err(diag::unsupported()))
}

/// `aclrtSnapShotProcessUnlock`: not modelled (207000, rule `UNSUPPORTED`).
#[unsafe(no_mangle)]
pub unsafe extern "C" fn aclrtSnapShotProcessUnlock(
    _pid: ::core::ffi::c_int,
    _reserve: *mut ::core::ffi::c_void,
) -> aclError {
    call(Api::aclrtSnapShotProcessUnlock, || Err(diag::unsupported()))
}

/// `aclrtSnapShotProcessBackup`: not modelled (207000, rule `UNSUPPORTED`).
#[unsafe(no_mangle)]
pub unsafe extern "C" fn aclrtSnapShotProcessBackup(
    _pid: ::core::ffi::c_int,
    _args: *mut aclrtSnapShotBackupArgs,
) -> aclError {
    call(Api::aclrtSnapShotProcessBackup, || Err(diag::unsupported()))
}

/// `aclrtSnapShotProcessRestore`: not modelled (207000, rule `UNSUPPORTED`).
#[unsafe(no_mangle)]
pub unsafe extern "C" fn aclrtSnapShotProcessRestore(
    _pid: ::core::ffi::c_int,
    _args: *mut aclrtSnapShotRestoreArgs,
) -> aclError {
    call(
        Api::aclrtSnapShotProcessRestore,
        || Err(diag::unsupported()),
    )
}

/// `aclrtSnapShotCallbackRegister`: not modelled (207000, rule `UNSUPPORTED`).
#[unsafe(no_mangle)]
pub unsafe extern "C" fn aclrtSnapShotCallbackRegister(
    _stage: aclrtSnapShotStage,
    _callback: aclrtSnapShotCallBack,
    _args: *mut ::core::ffi::c_void,
) -> aclError {
    call(Api::aclrtSnapShotCallbackRegister, || {
        Err(diag::unsupported())
    })
}

/// `aclrtSnapShotCallbackUnregister`: not modelled (207000, rule `UNSUPPORTED`).
#[unsafe(no_mangle)]
pub unsafe extern "C" fn aclrtSnapShotCallbackUnregister(
    _stage: aclrtSnapShotStage,
    _callback: aclrtSnapShotCallBack,
) -> aclError {
    call(Api::aclrtSnapShotCallbackUnregister, || {
        Err(diag::unsupported())
    })
}

/// `aclmdlRITaskGetParams`: not modelled (207000, rule `UNSUPPORTED`).
#[unsafe(no_mangle)]
pub unsafe extern "C" fn aclmdlRITaskGetParams(
    _task: aclmdlRITask,
    _params: *mut aclmdlRITaskParams,
) -> aclError {
    call(Api::aclmdlRITaskGetParams, || Err(diag::unsupported()))
}

/// `aclmdlRITaskSetParams`: not modelled (207000, rule `UNSUPPORTED`).
#[unsafe(no_mangle)]
pub unsafe extern "C" fn aclmdlRITaskSetParams(
    _task: aclmdlRITask,
    _params: *mut aclmdlRITaskParams,
) -> aclError {
    call(Api::aclmdlRITaskSetParams, || Err(diag::unsupported()))
}

/// `aclmdlRIKernelTaskGetAttribute`: not modelled (207000, rule `UNSUPPORTED`).
#[unsafe(no_mangle)]
pub unsafe extern "C" fn aclmdlRIKernelTaskGetAttribute(
    _task: aclmdlRITask,
    _attr_id: aclrtLaunchKernelAttrId,
    _attr_value: *mut aclrtLaunchKernelAttrValue,
) -> aclError {
    call(Api::aclmdlRIKernelTaskGetAttribute, || {
        Err(diag::unsupported())
    })
}

/// `aclmdlRIUpdate`: not modelled (207000, rule `UNSUPPORTED`).
#[unsafe(no_mangle)]
pub unsafe extern "C" fn aclmdlRIUpdate(_model_ri: aclmdlRI) -> aclError {
    call(Api::aclmdlRIUpdate, || Err(diag::unsupported()))
}

/// `aclmdlRITaskDisable`: not modelled (207000, rule `UNSUPPORTED`).
#[unsafe(no_mangle)]
pub unsafe extern "C" fn aclmdlRITaskDisable(_task: aclmdlRITask) -> aclError {
    call(Api::aclmdlRITaskDisable, || Err(diag::unsupported()))
}

/// `aclmdlRICaptureBegin`: not modelled (207000, rule `UNSUPPORTED`).
#[unsafe(no_mangle)]
pub unsafe extern "C" fn aclmdlRICaptureBegin(
    _stream: aclrtStream,
    _mode: aclmdlRICaptureMode,
) -> aclError {
    call(Api::aclmdlRICaptureBegin, || Err(diag::unsupported()))
}

/// `aclmdlRICaptureGetInfo`: not modelled (207000, rule `UNSUPPORTED`).
#[unsafe(no_mangle)]
pub unsafe extern "C" fn aclmdlRICaptureGetInfo(
    _stream: aclrtStream,
    _status: *mut aclmdlRICaptureStatus,
    _model_ri: *mut aclmdlRI,
) -> aclError {
    call(Api::aclmdlRICaptureGetInfo, || Err(diag::unsupported()))
}

/// `aclmdlRICaptureEnd`: not modelled (207000, rule `UNSUPPORTED`).
#[unsafe(no_mangle)]
pub unsafe extern "C" fn aclmdlRICaptureEnd(
    _stream: aclrtStream,
    _model_ri: *mut aclmdlRI,
) -> aclError {
    call(Api::aclmdlRICaptureEnd, || Err(diag::unsupported()))
}

/// `aclmdlRIDebugPrint`: not modelled (207000, rule `UNSUPPORTED`).
#[unsafe(no_mangle)]
pub unsafe extern "C" fn aclmdlRIDebugPrint(_model_ri: aclmdlRI) -> aclError {
    call(Api::aclmdlRIDebugPrint, || Err(diag::unsupported()))
}

/// `aclmdlRIDebugJsonPrint`: not modelled (207000, rule `UNSUPPORTED`).
#[unsafe(no_mangle)]
pub unsafe extern "C" fn aclmdlRIDebugJsonPrint(
    _model_ri: aclmdlRI,
    _path: *const ::core::ffi::c_char,
    _flags: u32,
) -> aclError {
    call(Api::aclmdlRIDebugJsonPrint, || Err(diag::unsupported()))
}

/// `aclmdlRICaptureThreadExchangeMode`: not modelled (207000, rule `UNSUPPORTED`).
#[unsafe(no_mangle)]
pub unsafe extern "C" fn aclmdlRICaptureThreadExchangeMode(
    _mode: *mut aclmdlRICaptureMode,
) -> aclError {
    call(Api::aclmdlRICaptureThreadExchangeMode, || {
        Err(diag::unsupported())
    })
}

/// `aclmdlRIExecuteAsync`: not modelled (207000, rule `UNSUPPORTED`).
#[unsafe(no_mangle)]
pub unsafe extern "C" fn aclmdlRIExecuteAsync(
    _model_ri: aclmdlRI,
    _stream: aclrtStream,
) -> aclError {
    call(Api::aclmdlRIExecuteAsync, || Err(diag::unsupported()))
}

/// `aclmdlRIExecute`: not modelled (207000, rule `UNSUPPORTED`).
#[unsafe(no_mangle)]
pub unsafe extern "C" fn aclmdlRIExecute(_model_ri: aclmdlRI, _timeout: i32) -> aclError {
    call(Api::aclmdlRIExecute, || Err(diag::unsupported()))
}

/// `aclmdlRIDestroy`: not modelled (207000, rule `UNSUPPORTED`).
#[unsafe(no_mangle)]
pub unsafe extern "C" fn aclmdlRIDestroy(_model_ri: aclmdlRI) -> aclError {
    call(Api::aclmdlRIDestroy, || Err(diag::unsupported()))
}

/// `aclmdlRICaptureTaskGrpBegin`: not modelled (207000, rule `UNSUPPORTED`).
#[unsafe(no_mangle)]
pub unsafe extern "C" fn aclmdlRICaptureTaskGrpBegin(_stream: aclrtStream) -> aclError {
    call(
        Api::aclmdlRICaptureTaskGrpBegin,
        || Err(diag::unsupported()),
    )
}

/// `aclmdlRICaptureTaskGrpEnd`: not modelled (207000, rule `UNSUPPORTED`).
#[unsafe(no_mangle)]
pub unsafe extern "C" fn aclmdlRICaptureTaskGrpEnd(
    _stream: aclrtStream,
    _handle: *mut aclrtTaskGrp,
) -> aclError {
    call(Api::aclmdlRICaptureTaskGrpEnd, || Err(diag::unsupported()))
}

/// `aclmdlRICaptureTaskUpdateBegin`: not modelled (207000, rule `UNSUPPORTED`).
#[unsafe(no_mangle)]
pub unsafe extern "C" fn aclmdlRICaptureTaskUpdateBegin(
    _stream: aclrtStream,
    _handle: aclrtTaskGrp,
) -> aclError {
    call(Api::aclmdlRICaptureTaskUpdateBegin, || {
        Err(diag::unsupported())
    })
}

/// `aclmdlRICaptureTaskUpdateEnd`: not modelled (207000, rule `UNSUPPORTED`).
#[unsafe(no_mangle)]
pub unsafe extern "C" fn aclmdlRICaptureTaskUpdateEnd(_stream: aclrtStream) -> aclError {
    call(Api::aclmdlRICaptureTaskUpdateEnd, || {
        Err(diag::unsupported())
    })
}

/// `aclmdlRIBuildBegin`: not modelled (207000, rule `UNSUPPORTED`).
#[unsafe(no_mangle)]
pub unsafe extern "C" fn aclmdlRIBuildBegin(_model_ri: *mut aclmdlRI, _flag: u32) -> aclError {
    call(Api::aclmdlRIBuildBegin, || Err(diag::unsupported()))
}

/// `aclmdlRIBindStream`: not modelled (207000, rule `UNSUPPORTED`).
#[unsafe(no_mangle)]
pub unsafe extern "C" fn aclmdlRIBindStream(
    _model_ri: aclmdlRI,
    _stream: aclrtStream,
    _flag: u32,
) -> aclError {
    call(Api::aclmdlRIBindStream, || Err(diag::unsupported()))
}

/// `aclmdlRIEndTask`: not modelled (207000, rule `UNSUPPORTED`).
#[unsafe(no_mangle)]
pub unsafe extern "C" fn aclmdlRIEndTask(_model_ri: aclmdlRI, _stream: aclrtStream) -> aclError {
    call(Api::aclmdlRIEndTask, || Err(diag::unsupported()))
}

/// `aclmdlRIBuildEnd`: not modelled (207000, rule `UNSUPPORTED`).
#[unsafe(no_mangle)]
pub unsafe extern "C" fn aclmdlRIBuildEnd(
    _model_ri: aclmdlRI,
    _reserve: *mut ::core::ffi::c_void,
) -> aclError {
    call(Api::aclmdlRIBuildEnd, || Err(diag::unsupported()))
}

/// `aclmdlRIUnbindStream`: not modelled (207000, rule `UNSUPPORTED`).
#[unsafe(no_mangle)]
pub unsafe extern "C" fn aclmdlRIUnbindStream(
    _model_ri: aclmdlRI,
    _stream: aclrtStream,
) -> aclError {
    call(Api::aclmdlRIUnbindStream, || Err(diag::unsupported()))
}

/// `aclmdlRISetName`: not modelled (207000, rule `UNSUPPORTED`).
#[unsafe(no_mangle)]
pub unsafe extern "C" fn aclmdlRISetName(
    _model_ri: aclmdlRI,
    _name: *const ::core::ffi::c_char,
) -> aclError {
    call(Api::aclmdlRISetName, || Err(diag::unsupported()))
}

/// `aclmdlRIGetName`: not modelled (207000, rule `UNSUPPORTED`).
#[unsafe(no_mangle)]
pub unsafe extern "C" fn aclmdlRIGetName(
    _model_ri: aclmdlRI,
    _max_len: u32,
    _name: *mut ::core::ffi::c_char,
) -> aclError {
    call(Api::aclmdlRIGetName, || Err(diag::unsupported()))
}

/// `aclmdlRIGetId`: not modelled (207000, rule `UNSUPPORTED`).
#[unsafe(no_mangle)]
pub unsafe extern "C" fn aclmdlRIGetId(_model_ri: aclmdlRI, _model_riid: *mut u32) -> aclError {
    call(Api::aclmdlRIGetId, || Err(diag::unsupported()))
}

/// `aclmdlRIDestroyRegisterCallback`: not modelled (207000, rule `UNSUPPORTED`).
#[unsafe(no_mangle)]
pub unsafe extern "C" fn aclmdlRIDestroyRegisterCallback(
    _model_ri: aclmdlRI,
    _func: aclrtCallback,
    _user_data: *mut ::core::ffi::c_void,
) -> aclError {
    call(Api::aclmdlRIDestroyRegisterCallback, || {
        Err(diag::unsupported())
    })
}

/// `aclmdlRIDestroyUnregisterCallback`: not modelled (207000, rule `UNSUPPORTED`).
#[unsafe(no_mangle)]
pub unsafe extern "C" fn aclmdlRIDestroyUnregisterCallback(
    _model_ri: aclmdlRI,
    _func: aclrtCallback,
) -> aclError {
    call(Api::aclmdlRIDestroyUnregisterCallback, || {
        Err(diag::unsupported())
    })
}

/// `aclmdlInitDump`: not modelled (207000, rule `UNSUPPORTED`).
#[unsafe(no_mangle)]
pub unsafe extern "C" fn aclmdlInitDump() -> aclError {
    call(Api::aclmdlInitDump, || Err(diag::unsupported()))
}

/// `aclmdlSetDump`: not modelled (207000, rule `UNSUPPORTED`).
#[unsafe(no_mangle)]
pub unsafe extern "C" fn aclmdlSetDump(_dump_cfg_path: *const ::core::ffi::c_char) -> aclError {
    call(Api::aclmdlSetDump, || Err(diag::unsupported()))
}

/// `aclmdlFinalizeDump`: not modelled (207000, rule `UNSUPPORTED`).
#[unsafe(no_mangle)]
pub unsafe extern "C" fn aclmdlFinalizeDump() -> aclError {
    call(Api::aclmdlFinalizeDump, || Err(diag::unsupported()))
}

/// `aclmdlRIGetStreams`: not modelled (207000, rule `UNSUPPORTED`).
#[unsafe(no_mangle)]
pub unsafe extern "C" fn aclmdlRIGetStreams(
    _model_ri: aclmdlRI,
    _streams: *mut aclrtStream,
    _num_streams: *mut u32,
) -> aclError {
    call(Api::aclmdlRIGetStreams, || Err(diag::unsupported()))
}

/// `aclmdlRIGetTasksByStream`: not modelled (207000, rule `UNSUPPORTED`).
#[unsafe(no_mangle)]
pub unsafe extern "C" fn aclmdlRIGetTasksByStream(
    _stream: aclrtStream,
    _tasks: *mut aclmdlRITask,
    _num_tasks: *mut u32,
) -> aclError {
    call(Api::aclmdlRIGetTasksByStream, || Err(diag::unsupported()))
}

/// `aclmdlRITaskGetType`: not modelled (207000, rule `UNSUPPORTED`).
#[unsafe(no_mangle)]
pub unsafe extern "C" fn aclmdlRITaskGetType(
    _task: aclmdlRITask,
    _type_: *mut aclmdlRITaskType,
) -> aclError {
    call(Api::aclmdlRITaskGetType, || Err(diag::unsupported()))
}

/// `aclmdlRITaskGetSeqId`: not modelled (207000, rule `UNSUPPORTED`).
#[unsafe(no_mangle)]
pub unsafe extern "C" fn aclmdlRITaskGetSeqId(_task: aclmdlRITask, _id: *mut u32) -> aclError {
    call(Api::aclmdlRITaskGetSeqId, || Err(diag::unsupported()))
}

/// `aclmdlRIAbort`: not modelled (207000, rule `UNSUPPORTED`).
#[unsafe(no_mangle)]
pub unsafe extern "C" fn aclmdlRIAbort(_model_ri: aclmdlRI) -> aclError {
    call(Api::aclmdlRIAbort, || Err(diag::unsupported()))
}

/// `aclmdlRICondHandleCreate`: not modelled (207000, rule `UNSUPPORTED`).
#[unsafe(no_mangle)]
pub unsafe extern "C" fn aclmdlRICondHandleCreate(
    _model_ri: aclmdlRI,
    _default_launch_value: u32,
    _flag: aclmdlRICondHandleFlag,
    _handle: *mut aclmdlRICondHandle,
) -> aclError {
    call(Api::aclmdlRICondHandleCreate, || Err(diag::unsupported()))
}

/// `aclmdlRICondHandleGetCondPtr`: not modelled (207000, rule `UNSUPPORTED`).
#[unsafe(no_mangle)]
pub unsafe extern "C" fn aclmdlRICondHandleGetCondPtr(
    _handle: aclmdlRICondHandle,
    _ptr: *mut *mut u64,
) -> aclError {
    call(Api::aclmdlRICondHandleGetCondPtr, || {
        Err(diag::unsupported())
    })
}

/// `aclmdlRIAddCondTask`: not modelled (207000, rule `UNSUPPORTED`).
#[unsafe(no_mangle)]
pub unsafe extern "C" fn aclmdlRIAddCondTask(
    _params: aclmdlRICondTaskParams,
    _stream: aclrtStream,
    _flags: u32,
) -> aclError {
    call(Api::aclmdlRIAddCondTask, || Err(diag::unsupported()))
}

/// `aclmdlRICaptureToModelRIBegin`: not modelled (207000, rule `UNSUPPORTED`).
#[unsafe(no_mangle)]
pub unsafe extern "C" fn aclmdlRICaptureToModelRIBegin(
    _stream: aclrtStream,
    _model_ri: aclmdlRI,
    _mode: aclmdlRICaptureMode,
) -> aclError {
    call(Api::aclmdlRICaptureToModelRIBegin, || {
        Err(diag::unsupported())
    })
}
