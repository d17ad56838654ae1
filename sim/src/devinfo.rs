//! Device queries and device-wide settings beyond binding a device
//! (`device.rs`): attributes and capabilities, health and utilisation, the
//! resource limits, the floating-point overflow mode, architecture
//! compatibility, and the process id. The implementation's (I) part of each
//! answer; the argument checks of the ACL layer and of the checking
//! decorator are in [`acl_layer`](crate::acl_layer) and
//! [`rt_api`](crate::rt_api).

use crate::diag::{Error, Res, rt_param};
use crate::ffi;
use crate::profile::NPU_ARCHS;
use crate::rt::rt;

/// The device resource kinds (`aclrtDevResLimitType`): 107000 for another
/// value (E: "`type` in [0, 2)").
pub(crate) fn res_kind(kind: u32) -> Res<usize> {
    match kind {
        ffi::ACL_RT_DEV_RES_CUBE_CORE | ffi::ACL_RT_DEV_RES_VECTOR_CORE => Ok(kind as usize),
        _ => Err(rt_param(format!(
            "type {kind} is not a device resource kind (ACL_RT_DEV_RES_CUBE_CORE 0 or \
             ACL_RT_DEV_RES_VECTOR_CORE 1)"
        ))),
    }
}

/// The whole count of resource `kind` on the simulated chip (what the
/// device starts with: `RawDevice::InitResource`, the driver's core counts).
fn res_total(kind: usize) -> u32 {
    let facts = rt().cfg.soc.facts();
    if kind == ffi::ACL_RT_DEV_RES_CUBE_CORE as usize {
        facts.ai_cores
    } else {
        facts.vector_cores
    }
}

/// 507033 `ACL_ERROR_RT_DEV_SETUP_ERROR` for a device that is not set: I
/// finds no device object (`Runtime::GetDevice`, "device pointer null").
fn not_set(id: i32) -> Error {
    Error::new(
        ffi::ACL_ERROR_RT_DEV_SETUP_ERROR,
        format!("device {id} is not set on any thread (call aclrtSetDevice first)"),
    )
}

/// `aclrtGetDeviceInfo`, I `GetDeviceInfoByAttr` (`id` is valid): the
/// driver's and the platform file's figures of the chip.
pub(crate) fn device_info(id: i32, attr: u32) -> Res<i64> {
    let rt = rt();
    let soc = rt.cfg.soc;
    let facts = soc.facts();
    let dev = rt.device(id)?;
    Ok(match attr {
        ffi::ACL_DEV_ATTR_AICPU_CORE_NUM => i64::from(facts.ai_cpus),
        ffi::ACL_DEV_ATTR_AICORE_CORE_NUM => i64::from(facts.ai_cores),
        ffi::ACL_DEV_ATTR_VECTOR_CORE_NUM => i64::from(facts.vector_cores),
        ffi::ACL_DEV_ATTR_CUBE_CORE_NUM => match facts.cube_cores {
            Some(n) => i64::from(n),
            // The platform file has no `cube_core_cnt`.
            None => {
                return Err(rt_param(format!(
                    "the platform information of {} has no cube_core_cnt",
                    facts.soc_version
                )));
            }
        },
        // The SIMT figures are 0 on both chips (their properties).
        ffi::ACL_DEV_ATTR_WARP_SIZE..=ffi::ACL_DEV_ATTR_MAX_BLOCK_DIM_Z => 0,
        ffi::ACL_DEV_ATTR_TOTAL_GLOBAL_MEM_SIZE => dev.mem_total as i64,
        ffi::ACL_DEV_ATTR_L2_CACHE_SIZE => facts.l2_size,
        ffi::ACL_DEV_ATTR_NPU_ARCH => facts.npu_arch,
        // Driver figures: one chip per device, no super pod, no split.
        ffi::ACL_DEV_ATTR_PHY_CHIP_ID => i64::from(id),
        ffi::ACL_DEV_ATTR_SMP_ID
        | ffi::ACL_DEV_ATTR_CUST_OP_PRIVILEGE
        | ffi::ACL_DEV_ATTR_MAINBOARD_ID
        | ffi::ACL_DEV_ATTR_IS_VIRTUAL => 0,
        ffi::ACL_DEV_ATTR_HD_CONNECT_TYPE => i64::from(ffi::ACL_HOST_DEVICE_CONNECT_TYPE_PCIE),
        ffi::ACL_DEV_ATTR_DEVICE_FORM_FACTOR => i64::from(ffi::ACL_DEVICE_FORM_FACTOR_PCIE_CARD),
        ffi::ACL_DEV_ATTR_SUPER_POD_DEVICE_ID
        | ffi::ACL_DEV_ATTR_SUPER_POD_SERVER_ID
        | ffi::ACL_DEV_ATTR_SUPER_POD_ID => {
            return Err(Error::new(
                ffi::ACL_ERROR_RT_FEATURE_NOT_SUPPORT,
                format!("device {id} is not part of a super pod"),
            ));
        }
        _ => return Err(rt_param(format!("attr {attr} is not a device attribute"))),
    })
}

/// `aclrtGetDeviceCapability`, after the C API's range check: the feature
/// types the C API knows, each answered by I. The TS firmware supports task
/// updates (both chips carry the tiling-key sink feature); memory-queue
/// events across devices are not supported by the simulated driver; the
/// task id is 16 bits wide.
pub(crate) fn device_capability(feature: i32) -> Res<Option<i32>> {
    Ok(match feature {
        1 => Some(ffi::ACL_DEV_FEATURE_SUPPORT),
        21 => Some(ffi::ACL_DEV_FEATURE_NOT_SUPPORT),
        // RT_FEATURE_AICPU_SCHEDULE_TYPE: the AI CPU schedules on the
        // device (not the host) in both run modes here.
        10001 => Some(0),
        // RT_FEATURE_SYSTEM_TASKID_BIT_WIDTH.
        20001 => Some(16),
        _ => None,
    })
}

/// `aclrtQueryDeviceStatus`, I `DeviceStatusQuery`: the watchdog's view;
/// no simulated device hangs, so every device is normal.
pub(crate) fn device_status(id: i32) -> Res<u32> {
    rt().check_device(id)?;
    Ok(ffi::ACL_RT_DEVICE_STATUS_NORMAL)
}

/// One utilisation of `aclrtGetDeviceUtilizationRate` (the driver's
/// figure): an idle simulated device reports 0 %, an unknown device is an
/// error, which the ACL layer turns into "not supported" (−1).
pub(crate) fn utilization(id: i32) -> Res<i32> {
    rt().check_device(id)?;
    Ok(0)
}

/// `aclrtGetDeviceResLimit`, I `GetDeviceResLimit` (kind and id valid).
pub(crate) fn get_res_limit(id: i32, kind: usize) -> Res<u32> {
    let limit = {
        let rt = rt();
        let dev = rt.device(id)?;
        if dev.refcount == 0 {
            return Err(not_set(id));
        }
        dev.res_limit[kind]
    };
    Ok(limit.unwrap_or_else(|| res_total(kind)))
}

/// `aclrtSetDeviceResLimit`, I `SetDeviceResLimit`: at most the chip's
/// whole count (107000).
pub(crate) fn set_res_limit(id: i32, kind: usize, value: u32) -> Res<()> {
    let total = res_total(kind);
    let mut rt = rt();
    let dev = rt.device_mut(id)?;
    if dev.refcount == 0 {
        return Err(not_set(id));
    }
    if value > total {
        return Err(rt_param(format!(
            "value {value} exceeds the {total} cores of the device"
        )));
    }
    dev.res_limit[kind] = Some(value);
    Ok(())
}

/// `aclrtResetDeviceResLimit`, I `ResetDeviceResLimit`.
pub(crate) fn reset_res_limit(id: i32) -> Res<()> {
    let mut rt = rt();
    let dev = rt.device_mut(id)?;
    if dev.refcount == 0 {
        return Err(not_set(id));
    }
    dev.res_limit = [None; 2];
    Ok(())
}

/// `aclrtGetResInCurrentThread`, I `GetResInCurrentThread`: the limit of
/// the device of the calling thread's current context (107002 without
/// one). Stream limits are not modelled, so the device's answers.
pub(crate) fn res_in_current_thread(kind: usize) -> Res<u32> {
    let limit = {
        let rt = rt();
        let device = rt.current()?.device;
        rt.device(device)?.res_limit[kind]
    };
    Ok(limit.unwrap_or_else(|| res_total(kind)))
}

/// `aclrtSetDeviceSatMode` after the C API's chip check: the process's
/// mode (I `SetDeviceSatMode`: the current device's and the runtime's).
pub(crate) fn set_sat_mode(mode: u32) {
    rt().sat_mode = mode;
}

/// `aclrtGetDeviceSatMode`, I `GetDeviceSatMode`: the runtime's mode.
pub(crate) fn sat_mode() -> u32 {
    rt().sat_mode
}

/// `aclrtCheckArchCompatibility`, I `CheckArchCompatibility`: both names
/// must be known SoC versions (107000 otherwise); compatible when their
/// NPU architectures are equal.
pub(crate) fn arch_compatible(om_soc: &str) -> Res<bool> {
    let arch = |name: &str| NPU_ARCHS.iter().find(|(n, _)| *n == name).map(|&(_, a)| a);
    let Some(wanted) = arch(om_soc) else {
        return Err(rt_param(format!("SoC version {om_soc} is invalid")));
    };
    let ours = arch(rt().cfg.soc.facts().soc_version)
        .ok_or_else(|| rt_param("the device's SoC version is invalid"))?;
    Ok(wanted == ours)
}

/// `aclrtDeviceGetBareTgid`: the driver's id of the calling process as the
/// host sees it (no container here: the process id).
pub(crate) fn bare_tgid() -> i32 {
    std::process::id() as i32
}
