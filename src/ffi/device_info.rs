//! Device information and control, and stream attributes: one safe
//! function per C call (`aclrtGetDeviceInfo`, `aclrtGetDeviceCapability`,
//! `aclrtQueryDeviceStatus`, `aclrtGetDeviceUtilizationRate`, the resource
//! limits per device and per stream, the saturation mode, the stream id and
//! flags). The typed layer is [`crate::device_info`].

use aclrt_sys as sys;

use super::{Raw, check};
use crate::error::Result;

/// `aclrtGetDeviceInfo(device, attr, &value)`.
pub(crate) fn device_info(device: u32, attr: sys::aclrtDevAttr) -> Result<i64> {
    let mut value = 0i64;
    // SAFETY: `value` is a valid, writable i64 for the whole call.
    let code = unsafe { sys::aclrtGetDeviceInfo(device, attr, &mut value) };
    check(code, "aclrtGetDeviceInfo")?;
    Ok(value)
}

/// `aclrtGetDeviceCapability(device, feature, &value)`.
pub(crate) fn device_capability(device: i32, feature: sys::aclrtDevFeatureType) -> Result<i32> {
    let mut value = 0i32;
    // SAFETY: `value` is a valid, writable i32 for the whole call.
    let code = unsafe { sys::aclrtGetDeviceCapability(device, feature, &mut value) };
    check(code, "aclrtGetDeviceCapability")?;
    Ok(value)
}

/// `aclrtQueryDeviceStatus(device, &status)`.
pub(crate) fn device_status(device: i32) -> Result<sys::aclrtDeviceStatus> {
    let mut status: sys::aclrtDeviceStatus = 0;
    // SAFETY: `status` is a valid, writable enum slot for the whole call.
    let code = unsafe { sys::aclrtQueryDeviceStatus(device, &mut status) };
    check(code, "aclrtQueryDeviceStatus")?;
    Ok(status)
}

/// `aclrtGetDeviceUtilizationRate(device, &info)` without the extended
/// part (its pointer is NULL): (cube, vector, AI CPU, memory) in percent,
/// −1 where the chip does not report one.
pub(crate) fn utilization(device: i32) -> Result<[i32; 4]> {
    let mut info = sys::aclrtUtilizationInfo {
        cubeUtilization: 0,
        vectorUtilization: 0,
        aicpuUtilization: 0,
        memoryUtilization: 0,
        utilizationExtend: core::ptr::null_mut(),
    };
    // SAFETY: `info` is a valid, writable `aclrtUtilizationInfo` for the
    // whole call; its extension pointer is NULL, which the runtime reads as
    // "no extended information asked for".
    let code = unsafe { sys::aclrtGetDeviceUtilizationRate(device, &mut info) };
    check(code, "aclrtGetDeviceUtilizationRate")?;
    Ok([
        info.cubeUtilization,
        info.vectorUtilization,
        info.aicpuUtilization,
        info.memoryUtilization,
    ])
}

/// `aclrtGetDeviceResLimit(device, kind, &value)`.
pub(crate) fn device_res_limit(device: i32, kind: sys::aclrtDevResLimitType) -> Result<u32> {
    let mut value = 0u32;
    // SAFETY: `value` is a valid, writable u32 for the whole call.
    let code = unsafe { sys::aclrtGetDeviceResLimit(device, kind, &mut value) };
    check(code, "aclrtGetDeviceResLimit")?;
    Ok(value)
}

/// `aclrtSetDeviceResLimit(device, kind, value)`.
pub(crate) fn set_device_res_limit(
    device: i32,
    kind: sys::aclrtDevResLimitType,
    value: u32,
) -> Result<()> {
    // SAFETY: plain integer arguments only.
    let code = unsafe { sys::aclrtSetDeviceResLimit(device, kind, value) };
    check(code, "aclrtSetDeviceResLimit")
}

/// `aclrtResetDeviceResLimit(device)`.
pub(crate) fn reset_device_res_limit(device: i32) -> Result<()> {
    // SAFETY: a plain integer argument only.
    let code = unsafe { sys::aclrtResetDeviceResLimit(device) };
    check(code, "aclrtResetDeviceResLimit")
}

/// `aclrtGetStreamResLimit(stream, kind, &value)`.
pub(crate) fn stream_res_limit(stream: Raw, kind: sys::aclrtDevResLimitType) -> Result<u32> {
    let mut value = 0u32;
    // SAFETY: `stream` is live (module invariant); `value` is a valid,
    // writable u32 for the whole call.
    let code = unsafe { sys::aclrtGetStreamResLimit(stream.as_ptr(), kind, &mut value) };
    check(code, "aclrtGetStreamResLimit")?;
    Ok(value)
}

/// `aclrtSetStreamResLimit(stream, kind, value)`.
pub(crate) fn set_stream_res_limit(
    stream: Raw,
    kind: sys::aclrtDevResLimitType,
    value: u32,
) -> Result<()> {
    // SAFETY: `stream` is live (module invariant); the rest are integers.
    let code = unsafe { sys::aclrtSetStreamResLimit(stream.as_ptr(), kind, value) };
    check(code, "aclrtSetStreamResLimit")
}

/// `aclrtResetStreamResLimit(stream)`.
pub(crate) fn reset_stream_res_limit(stream: Raw) -> Result<()> {
    // SAFETY: `stream` is live (module invariant).
    let code = unsafe { sys::aclrtResetStreamResLimit(stream.as_ptr()) };
    check(code, "aclrtResetStreamResLimit")
}

/// `aclrtSetDeviceSatMode(mode)` (the current device's).
pub(crate) fn set_sat_mode(mode: sys::aclrtFloatOverflowMode) -> Result<()> {
    // SAFETY: a plain integer argument only.
    let code = unsafe { sys::aclrtSetDeviceSatMode(mode) };
    check(code, "aclrtSetDeviceSatMode")
}

/// `aclrtGetDeviceSatMode(&mode)` (the current device's).
pub(crate) fn sat_mode() -> Result<sys::aclrtFloatOverflowMode> {
    let mut mode: sys::aclrtFloatOverflowMode = 0;
    // SAFETY: `mode` is a valid, writable enum slot for the whole call.
    let code = unsafe { sys::aclrtGetDeviceSatMode(&mut mode) };
    check(code, "aclrtGetDeviceSatMode")?;
    Ok(mode)
}

/// `aclrtStreamGetId(stream, &id)`.
pub(crate) fn stream_id(stream: Raw) -> Result<i32> {
    let mut id = 0i32;
    // SAFETY: `stream` is live (module invariant); `id` is a valid,
    // writable i32 for the whole call.
    let code = unsafe { sys::aclrtStreamGetId(stream.as_ptr(), &mut id) };
    check(code, "aclrtStreamGetId")?;
    Ok(id)
}

/// `aclrtStreamGetFlags(stream, &flags)`.
pub(crate) fn stream_flags(stream: Raw) -> Result<u32> {
    let mut flags = 0u32;
    // SAFETY: `stream` is live (module invariant); `flags` is a valid,
    // writable u32 for the whole call.
    let code = unsafe { sys::aclrtStreamGetFlags(stream.as_ptr(), &mut flags) };
    check(code, "aclrtStreamGetFlags")?;
    Ok(flags)
}
