//! The rest of the runtime's public C surface (`sim/src/raw/surface.rs`):
//! the device, stream, error and thread queries the simulator models, in
//! both run modes and on both chips, and the answer of every function it
//! does not model (207000 with a report, never a missing symbol).

use crate::common;
use common::*;

/// The last recorded violation's rule and whether it was a refusal.
fn last_rule() -> Option<(&'static str, &'static str, bool)> {
    aclrt_sim::audit()
        .violations
        .last()
        .map(|v| (v.function, v.rule, v.refused))
}

// ------------------------------------------------------------ not modelled

#[test]
fn a_function_not_modelled_answers_207000_stored_and_reported() {
    let _sim = aclrt_sim::exclusive();
    in_both_run_modes(|_| {
        init_device0();
        let mut cnt: aclrtCntNotify = null_mut();
        assert_eq!(
            acl!(aclrtCntNotifyCreate(&mut cnt, 0)),
            ACL_ERROR_RT_FEATURE_NOT_SUPPORT
        );
        assert!(cnt.is_null(), "the output is left alone");
        // Stored as the thread's last error, as the runtime's C API stores
        // its own 207000.
        assert_eq!(
            acl!(aclrtPeekAtLastError(ACL_RT_THREAD_LEVEL)),
            ACL_ERROR_RT_FEATURE_NOT_SUPPORT
        );
        assert_eq!(
            acl!(aclrtGetLastError(ACL_RT_THREAD_LEVEL)),
            ACL_ERROR_RT_FEATURE_NOT_SUPPORT
        );
        let msg = recent_err_msg().expect("a message");
        assert!(
            msg.starts_with("aclrtCntNotifyCreate: not modelled"),
            "{msg}"
        );
        assert_eq!(
            last_rule(),
            Some(("aclrtCntNotifyCreate", "UNSUPPORTED", true))
        );
        // A model runtime instance function, and one that returns a pointer.
        let mut ri: aclmdlRI = null_mut();
        assert_eq!(
            acl!(aclmdlRIBuildBegin(&mut ri, 0)),
            ACL_ERROR_RT_FEATURE_NOT_SUPPORT
        );
        let bin = acl!(aclrtCreateBinary(null(), 0));
        assert!(bin.is_null());
        assert_eq!(
            last_rule(),
            Some(("aclrtCreateBinary", "UNSUPPORTED", true))
        );
        assert!(
            recent_err_msg()
                .unwrap()
                .starts_with("aclrtCreateBinary: not modelled")
        );
        let kinds = violation_kinds();
        assert_eq!(kinds, [ViolationKind::Unsupported; 3]);
        teardown_device0();
        aclrt_sim::reset();
    });
}

/// Runs `f` in both run modes on a fresh simulator of `soc`.
fn on_soc_in_both_run_modes(soc: aclrt_sim::Soc, mut f: impl FnMut(RunMode)) {
    for mode in [RunMode::Host, RunMode::Device] {
        aclrt_sim::reset();
        configure(|c| {
            c.run_mode = mode;
            c.soc = soc;
        });
        f(mode);
    }
}

fn peek() -> aclError {
    acl!(aclrtPeekAtLastError(ACL_RT_THREAD_LEVEL))
}

fn take() -> aclError {
    acl!(aclrtGetLastError(ACL_RT_THREAD_LEVEL))
}

// ------------------------------------------------------------ devices

#[test]
fn dev_info_1_attributes_are_the_chips_and_errors_follow_the_layers() {
    let _sim = aclrt_sim::exclusive();
    for (soc, aicore, vector, aicpu, l2, arch) in [
        (aclrt_sim::Soc::Ascend910B, 24, 48, 6, 201_326_592, 2201),
        (aclrt_sim::Soc::Ascend310P, 8, 7, 7, 16_777_216, 2002),
    ] {
        on_soc_in_both_run_modes(soc, |_| {
            init();
            // No device needs to be set.
            let get = |attr: aclrtDevAttr| {
                let mut v = -1i64;
                let code = acl!(aclrtGetDeviceInfo(1, attr, &mut v));
                (code, v)
            };
            assert_eq!(get(ACL_DEV_ATTR_AICORE_CORE_NUM), (0, aicore));
            assert_eq!(get(ACL_DEV_ATTR_VECTOR_CORE_NUM), (0, vector));
            assert_eq!(get(ACL_DEV_ATTR_AICPU_CORE_NUM), (0, aicpu));
            assert_eq!(get(ACL_DEV_ATTR_L2_CACHE_SIZE), (0, l2));
            assert_eq!(get(ACL_DEV_ATTR_NPU_ARCH), (0, arch));
            assert_eq!(get(ACL_DEV_ATTR_WARP_SIZE), (0, 0));
            let (code, total) = get(ACL_DEV_ATTR_TOTAL_GLOBAL_MEM_SIZE);
            assert_eq!(code, 0);
            assert_eq!(total as u64, soc.device_memory());
            // The 310P's platform file has no cube core count: 107000.
            let cube = get(ACL_DEV_ATTR_CUBE_CORE_NUM);
            if soc == aclrt_sim::Soc::Ascend910B {
                assert_eq!(cube, (0, 24));
            } else {
                assert_eq!(cube.0, ACL_ERROR_RT_PARAM_INVALID);
                assert_eq!(take(), ACL_ERROR_RT_PARAM_INVALID);
            }
            // An unknown attribute: 107000 from I, stored.
            assert_eq!(get(99).0, ACL_ERROR_RT_PARAM_INVALID);
            assert_eq!(take(), ACL_ERROR_RT_PARAM_INVALID);
            // A device beyond the count: E's own range check, 107000 (not
            // 107001).
            let mut v = 0i64;
            assert_eq!(
                acl!(aclrtGetDeviceInfo(2, ACL_DEV_ATTR_AICORE_CORE_NUM, &mut v)),
                ACL_ERROR_RT_PARAM_INVALID
            );
            assert_eq!(take(), ACL_ERROR_RT_PARAM_INVALID);
            // NULL output: the ACL layer's 100000, before the device id,
            // never stored.
            assert_eq!(
                acl!(aclrtGetDeviceInfo(
                    7,
                    ACL_DEV_ATTR_AICORE_CORE_NUM,
                    null_mut()
                )),
                ACL_ERROR_INVALID_PARAM
            );
            assert_eq!(peek(), 0);
            finalize();
            assert_clean();
        });
    }
}

#[test]
fn dev_cap_1_capabilities_range_and_unknown_features() {
    let _sim = aclrt_sim::exclusive();
    in_both_run_modes(|_| {
        init();
        let mut v = -1;
        ok!(aclrtGetDeviceCapability(
            0,
            ACL_FEATURE_TSCPU_TASK_UPDATE_SUPPORT_AIC_AIV,
            &mut v
        ));
        assert_eq!(v, ACL_DEV_FEATURE_SUPPORT);
        ok!(aclrtGetDeviceCapability(
            0,
            ACL_FEATURE_SYSTEM_MEMQ_EVENT_CROSS_DEV,
            &mut v
        ));
        assert_eq!(v, ACL_DEV_FEATURE_NOT_SUPPORT);
        // Inside the C API's range but no feature it knows: 107000, not
        // stored (its last branch returns without the error conversion).
        assert_eq!(
            acl!(aclrtGetDeviceCapability(0, 5, &mut v)),
            ACL_ERROR_RT_PARAM_INVALID
        );
        assert_eq!(peek(), 0);
        // Outside the range: 107000, stored.
        assert_eq!(
            acl!(aclrtGetDeviceCapability(0, 30_000, &mut v)),
            ACL_ERROR_RT_PARAM_INVALID
        );
        assert_eq!(take(), ACL_ERROR_RT_PARAM_INVALID);
        // A known feature of an unknown device: E, 107001.
        assert_eq!(
            acl!(aclrtGetDeviceCapability(
                9,
                ACL_FEATURE_TSCPU_TASK_UPDATE_SUPPORT_AIC_AIV,
                &mut v
            )),
            ACL_ERROR_RT_INVALID_DEVICEID
        );
        assert_eq!(take(), ACL_ERROR_RT_INVALID_DEVICEID);
        assert_eq!(
            acl!(aclrtGetDeviceCapability(0, 1, null_mut())),
            ACL_ERROR_INVALID_PARAM
        );
        finalize();
        assert_clean();
    });
}

#[test]
fn dev_status_1_status_and_utilization() {
    let _sim = aclrt_sim::exclusive();
    in_both_run_modes(|_| {
        init();
        let mut st: aclrtDeviceStatus = 77;
        ok!(aclrtQueryDeviceStatus(1, &mut st));
        assert_eq!(st, ACL_RT_DEVICE_STATUS_NORMAL);
        assert_eq!(
            acl!(aclrtQueryDeviceStatus(5, &mut st)),
            ACL_ERROR_RT_INVALID_DEVICEID
        );
        assert_eq!(take(), ACL_ERROR_RT_INVALID_DEVICEID);
        assert_eq!(
            acl!(aclrtQueryDeviceStatus(0, null_mut())),
            ACL_ERROR_INVALID_PARAM
        );
        let mut u = aclrtUtilizationInfo {
            cubeUtilization: 55,
            vectorUtilization: 55,
            aicpuUtilization: 55,
            memoryUtilization: 55,
            utilizationExtend: null_mut(),
        };
        ok!(aclrtGetDeviceUtilizationRate(0, &mut u));
        assert_eq!(
            (
                u.cubeUtilization,
                u.vectorUtilization,
                u.aicpuUtilization,
                u.memoryUtilization
            ),
            (0, 0, 0, -1)
        );
        // An unknown device: each query fails and reads as -1, the call
        // itself succeeds (the ACL layer keeps only the values).
        ok!(aclrtGetDeviceUtilizationRate(8, &mut u));
        assert_eq!(u.cubeUtilization, -1);
        assert_eq!(peek(), 0);
        // The reserved extension must be NULL.
        u.utilizationExtend = std::ptr::NonNull::dangling().as_ptr();
        assert_eq!(
            acl!(aclrtGetDeviceUtilizationRate(0, &mut u)),
            ACL_ERROR_INVALID_PARAM
        );
        assert_eq!(
            acl!(aclrtGetDeviceUtilizationRate(0, null_mut())),
            ACL_ERROR_INVALID_PARAM
        );
        finalize();
        assert_clean();
    });
}

#[test]
fn dev_res_1_resource_limits_per_device_and_thread() {
    let _sim = aclrt_sim::exclusive();
    for (soc, cube, vector) in [
        (aclrt_sim::Soc::Ascend910B, 24, 48),
        (aclrt_sim::Soc::Ascend310P, 8, 7),
    ] {
        on_soc_in_both_run_modes(soc, |_| {
            init();
            let mut v = 0u32;
            // A device that is not set: I finds no device, 507033.
            assert_eq!(
                acl!(aclrtGetDeviceResLimit(0, ACL_RT_DEV_RES_CUBE_CORE, &mut v)),
                ACL_ERROR_RT_DEV_SETUP_ERROR
            );
            assert_eq!(take(), ACL_ERROR_RT_DEV_SETUP_ERROR);
            // No current context: 107002.
            assert_eq!(
                acl!(aclrtGetResInCurrentThread(ACL_RT_DEV_RES_CUBE_CORE, &mut v)),
                ACL_ERROR_RT_CONTEXT_NULL
            );
            ok!(aclrtSetDevice(0));
            ok!(aclrtGetDeviceResLimit(0, ACL_RT_DEV_RES_CUBE_CORE, &mut v));
            assert_eq!(v, cube);
            ok!(aclrtGetDeviceResLimit(
                0,
                ACL_RT_DEV_RES_VECTOR_CORE,
                &mut v
            ));
            assert_eq!(v, vector);
            ok!(aclrtSetDeviceResLimit(0, ACL_RT_DEV_RES_CUBE_CORE, 4));
            ok!(aclrtGetDeviceResLimit(0, ACL_RT_DEV_RES_CUBE_CORE, &mut v));
            assert_eq!(v, 4);
            ok!(aclrtGetResInCurrentThread(ACL_RT_DEV_RES_CUBE_CORE, &mut v));
            assert_eq!(v, 4);
            // More than the chip has: 107000; a wrong kind: 107000 (E).
            assert_eq!(
                acl!(aclrtSetDeviceResLimit(
                    0,
                    ACL_RT_DEV_RES_CUBE_CORE,
                    cube + 1
                )),
                ACL_ERROR_RT_PARAM_INVALID
            );
            assert_eq!(
                acl!(aclrtSetDeviceResLimit(0, 2, 1)),
                ACL_ERROR_RT_PARAM_INVALID
            );
            assert_eq!(
                acl!(aclrtGetResInCurrentThread(2, &mut v)),
                ACL_ERROR_RT_PARAM_INVALID
            );
            assert_eq!(take(), ACL_ERROR_RT_PARAM_INVALID);
            assert_eq!(
                acl!(aclrtSetDeviceResLimit(9, ACL_RT_DEV_RES_CUBE_CORE, 1)),
                ACL_ERROR_RT_INVALID_DEVICEID
            );
            assert_eq!(
                acl!(aclrtGetResInCurrentThread(
                    ACL_RT_DEV_RES_CUBE_CORE,
                    null_mut()
                )),
                ACL_ERROR_INVALID_PARAM
            );
            ok!(aclrtResetDeviceResLimit(0));
            ok!(aclrtGetDeviceResLimit(0, ACL_RT_DEV_RES_CUBE_CORE, &mut v));
            assert_eq!(v, cube);
            // A limit lasts while the device is set.
            ok!(aclrtSetDeviceResLimit(0, ACL_RT_DEV_RES_VECTOR_CORE, 3));
            ok!(aclrtResetDevice(0));
            ok!(aclrtSetDevice(0));
            ok!(aclrtGetDeviceResLimit(
                0,
                ACL_RT_DEV_RES_VECTOR_CORE,
                &mut v
            ));
            assert_eq!(v, vector);
            teardown_device0();
            assert_clean();
        });
    }
}

#[test]
fn dev_sat_1_overflow_mode_per_chip() {
    let _sim = aclrt_sim::exclusive();
    on_soc_in_both_run_modes(aclrt_sim::Soc::Ascend910B, |_| {
        init();
        let mut m: aclrtFloatOverflowMode = 9;
        ok!(aclrtGetDeviceSatMode(&mut m));
        assert_eq!(m, ACL_RT_OVERFLOW_MODE_INFNAN, "the 910B's default");
        ok!(aclrtSetDeviceSatMode(ACL_RT_OVERFLOW_MODE_SATURATION));
        ok!(aclrtGetDeviceSatMode(&mut m));
        assert_eq!(m, ACL_RT_OVERFLOW_MODE_SATURATION);
        assert_eq!(
            acl!(aclrtSetDeviceSatMode(ACL_RT_OVERFLOW_MODE_UNDEF)),
            ACL_ERROR_RT_PARAM_INVALID
        );
        assert_eq!(take(), ACL_ERROR_RT_PARAM_INVALID);
        assert_eq!(
            acl!(aclrtGetDeviceSatMode(null_mut())),
            ACL_ERROR_INVALID_PARAM
        );
        finalize();
        assert_clean();
    });
    on_soc_in_both_run_modes(aclrt_sim::Soc::Ascend310P, |_| {
        init();
        let mut m: aclrtFloatOverflowMode = 9;
        ok!(aclrtGetDeviceSatMode(&mut m));
        assert_eq!(m, ACL_RT_OVERFLOW_MODE_SATURATION, "the 310P's only mode");
        assert_eq!(
            acl!(aclrtSetDeviceSatMode(ACL_RT_OVERFLOW_MODE_INFNAN)),
            ACL_ERROR_RT_FEATURE_NOT_SUPPORT
        );
        assert_eq!(take(), ACL_ERROR_RT_FEATURE_NOT_SUPPORT);
        ok!(aclrtSetDeviceSatMode(ACL_RT_OVERFLOW_MODE_SATURATION));
        finalize();
        assert_clean();
    });
}

#[test]
fn dev_arch_1_arch_compatibility_and_process_id() {
    let _sim = aclrt_sim::exclusive();
    for (soc, same, other) in [
        (aclrt_sim::Soc::Ascend910B, c"Ascend910B3", c"Ascend310P3"),
        (aclrt_sim::Soc::Ascend310P, c"Ascend310P1", c"Ascend910B2"),
    ] {
        on_soc_in_both_run_modes(soc, |_| {
            init();
            let mut c = -1;
            ok!(aclrtCheckArchCompatibility(same.as_ptr(), &mut c));
            assert_eq!(c, 1);
            ok!(aclrtCheckArchCompatibility(other.as_ptr(), &mut c));
            assert_eq!(c, 0);
            for bad in [c"", c"Ascend999"] {
                assert_eq!(
                    acl!(aclrtCheckArchCompatibility(bad.as_ptr(), &mut c)),
                    ACL_ERROR_RT_PARAM_INVALID
                );
                assert_eq!(take(), ACL_ERROR_RT_PARAM_INVALID);
            }
            // The ACL layer checks nothing: NULLs are E's 107000.
            assert_eq!(
                acl!(aclrtCheckArchCompatibility(null(), &mut c)),
                ACL_ERROR_RT_PARAM_INVALID
            );
            assert_eq!(
                acl!(aclrtCheckArchCompatibility(same.as_ptr(), null_mut())),
                ACL_ERROR_RT_PARAM_INVALID
            );
            let mut pid = 0;
            ok!(aclrtDeviceGetBareTgid(&mut pid));
            assert_eq!(pid as u32, std::process::id());
            assert_eq!(
                acl!(aclrtDeviceGetBareTgid(null_mut())),
                ACL_ERROR_INVALID_PARAM
            );
            finalize();
            assert_clean();
        });
    }
}

// ------------------------------------------------ errors and threads

#[test]
fn err_verbose_1_no_fault_on_the_910b_not_supported_on_the_310p() {
    let _sim = aclrt_sim::exclusive();
    on_soc_in_both_run_modes(aclrt_sim::Soc::Ascend910B, |_| {
        init_device0();
        // SAFETY: all-zero bytes are a valid `aclrtErrorInfo` (integers
        // and a union of integers).
        let mut info: aclrtErrorInfo = unsafe { std::mem::zeroed() };
        info.tryRepair = 9;
        info.hasDetail = 9;
        info.errorType = ACL_RT_ERROR_OTHERS;
        ok!(aclrtGetErrorVerbose(0, &mut info));
        assert_eq!((info.tryRepair, info.hasDetail), (0, 0));
        assert_eq!(info.errorType, ACL_RT_NO_ERROR);
        // A device never set answers "no error" too.
        ok!(aclrtGetErrorVerbose(1, &mut info));
        assert_eq!(
            acl!(aclrtGetErrorVerbose(4, &mut info)),
            ACL_ERROR_RT_INVALID_DEVICEID
        );
        assert_eq!(take(), ACL_ERROR_RT_INVALID_DEVICEID);
        assert_eq!(
            acl!(aclrtGetErrorVerbose(0, null_mut())),
            ACL_ERROR_INVALID_PARAM
        );
        teardown_device0();
        assert_clean();
    });
    on_soc_in_both_run_modes(aclrt_sim::Soc::Ascend310P, |_| {
        init_device0();
        // SAFETY: as above.
        let mut info: aclrtErrorInfo = unsafe { std::mem::zeroed() };
        assert_eq!(
            acl!(aclrtGetErrorVerbose(0, &mut info)),
            ACL_ERROR_RT_FEATURE_NOT_SUPPORT
        );
        assert_eq!(take(), ACL_ERROR_RT_FEATURE_NOT_SUPPORT);
        teardown_device0();
        assert_clean();
    });
}

#[test]
fn thread_task_1_last_task_id_is_per_thread() {
    let _sim = aclrt_sim::exclusive();
    in_both_run_modes(|_| {
        init_device0();
        let s = create_stream();
        let mut id = 0u32;
        let dst = malloc(64);
        ok!(aclrtMemsetAsync(dst, 64, 1, 64, s));
        ok!(aclrtGetThreadLastTaskId(&mut id));
        let first = id;
        assert_ne!(first, 0);
        ok!(aclrtMemsetAsync(dst, 64, 2, 64, s));
        ok!(aclrtGetThreadLastTaskId(&mut id));
        assert_eq!(id, first + 1, "the next task of the same stream");
        // Another thread has queued nothing.
        std::thread::scope(|t| {
            t.spawn(|| {
                let mut other = 7u32;
                ok!(aclrtGetThreadLastTaskId(&mut other));
                assert_eq!(other, 0);
            });
        });
        assert_eq!(
            acl!(aclrtGetThreadLastTaskId(null_mut())),
            ACL_ERROR_INVALID_PARAM
        );
        ok!(aclrtSynchronizeStream(s));
        free(dst);
        destroy_stream(s);
        teardown_device0();
        assert_clean();
    });
}

// ------------------------------------------------------------ streams

#[test]
fn stream_id_1_ids_and_flags() {
    let _sim = aclrt_sim::exclusive();
    in_both_run_modes(|_| {
        init();
        let mut id = -1;
        // No context: the default stream cannot be found, 107002.
        assert_eq!(
            acl!(aclrtStreamGetId(null_mut(), &mut id)),
            ACL_ERROR_RT_CONTEXT_NULL
        );
        let mut flags = 77u32;
        assert_eq!(
            acl!(aclrtStreamGetFlags(null_mut(), &mut flags)),
            ACL_ERROR_RT_CONTEXT_NULL
        );
        ok!(aclrtSetDevice(0));
        let a = create_stream();
        let mut b: aclrtStream = null_mut();
        ok!(aclrtCreateStreamWithConfig(
            &mut b,
            0,
            ACL_STREAM_FAST_LAUNCH
        ));
        let (mut ida, mut idb, mut idd) = (-1, -1, -1);
        ok!(aclrtStreamGetId(a, &mut ida));
        ok!(aclrtStreamGetId(b, &mut idb));
        ok!(aclrtStreamGetId(null_mut(), &mut idd));
        assert!(ida >= 0 && idb >= 0 && idd >= 0);
        assert!(ida != idb && ida != idd && idb != idd, "{ida} {idb} {idd}");
        ok!(aclrtStreamGetFlags(a, &mut flags));
        assert_eq!(flags, 0);
        ok!(aclrtStreamGetFlags(b, &mut flags));
        assert_eq!(flags, ACL_STREAM_FAST_LAUNCH);
        assert_eq!(
            acl!(aclrtStreamGetId(a, null_mut())),
            ACL_ERROR_INVALID_PARAM
        );
        destroy_stream(b);
        // A destroyed stream: the handle guard, 107017.
        assert_eq!(
            acl!(aclrtStreamGetId(b, &mut id)),
            ACL_ERROR_RT_INVALID_HANDLE
        );
        assert_eq!(take(), ACL_ERROR_RT_INVALID_HANDLE);
        destroy_stream(a);
        teardown_device0();
        aclrt_sim::reset();
    });
}

#[test]
fn stream_ovf_1_overflow_switch_per_chip() {
    let _sim = aclrt_sim::exclusive();
    on_soc_in_both_run_modes(aclrt_sim::Soc::Ascend910B, |_| {
        init_device0();
        let s = create_stream();
        let mut f = 9u32;
        ok!(aclrtGetStreamOverflowSwitch(s, &mut f));
        assert_eq!(f, 0);
        ok!(aclrtSetStreamOverflowSwitch(s, 1));
        ok!(aclrtGetStreamOverflowSwitch(s, &mut f));
        assert_eq!(f, 1);
        ok!(aclrtGetStreamOverflowSwitch(null_mut(), &mut f));
        assert_eq!(f, 0, "the default stream keeps its own switch");
        assert_eq!(
            acl!(aclrtSetStreamOverflowSwitch(s, 2)),
            ACL_ERROR_INVALID_PARAM
        );
        assert_eq!(peek(), 0, "the ACL layer's refusal is not stored");
        // A stream of another context: 107003.
        let ctx = create_context(1);
        assert_eq!(
            acl!(aclrtSetStreamOverflowSwitch(s, 0)),
            ACL_ERROR_RT_STREAM_CONTEXT
        );
        assert_eq!(take(), ACL_ERROR_RT_STREAM_CONTEXT);
        ok!(aclrtDestroyContext(ctx));
        ok!(aclrtSetDevice(0));
        destroy_stream(s);
        ok!(aclrtResetDevice(0));
        teardown_device0();
        aclrt_sim::reset();
    });
    on_soc_in_both_run_modes(aclrt_sim::Soc::Ascend310P, |_| {
        init_device0();
        let s = create_stream();
        // No per-stream switch on this chip: setting succeeds and changes
        // nothing, reading answers 1.
        ok!(aclrtSetStreamOverflowSwitch(s, 0));
        let mut f = 9u32;
        ok!(aclrtGetStreamOverflowSwitch(s, &mut f));
        assert_eq!(f, 1);
        destroy_stream(s);
        teardown_device0();
        assert_clean();
    });
}

#[test]
fn stream_model_1_active_and_switch_need_model_streams_stop_is_not_supported() {
    let _sim = aclrt_sim::exclusive();
    for soc in [aclrt_sim::Soc::Ascend910B, aclrt_sim::Soc::Ascend310P] {
        on_soc_in_both_run_modes(soc, |_| {
            init_device0();
            let a = create_stream();
            let b = create_stream();
            // No stream is bound to a model runtime instance: 107005.
            assert_eq!(acl!(aclrtActiveStream(a, b)), ACL_ERROR_RT_STREAM_MODEL);
            assert_eq!(take(), ACL_ERROR_RT_STREAM_MODEL);
            assert_eq!(
                acl!(aclrtActiveStream(null_mut(), b)),
                ACL_ERROR_INVALID_PARAM
            );
            assert_eq!(peek(), 0);
            let mut left = 1i32;
            let mut right = 1i32;
            let (l, r) = (
                (&raw mut left).cast::<c_void>(),
                (&raw mut right).cast::<c_void>(),
            );
            assert_eq!(
                acl!(aclrtSwitchStream(
                    l,
                    ACL_RT_EQUAL,
                    r,
                    ACL_RT_SWITCH_INT32,
                    a,
                    null_mut(),
                    b
                )),
                ACL_ERROR_RT_STREAM_MODEL
            );
            // E's value checks come before I's stream checks.
            assert_eq!(
                acl!(aclrtSwitchStream(
                    l,
                    6,
                    r,
                    ACL_RT_SWITCH_INT32,
                    a,
                    null_mut(),
                    b
                )),
                ACL_ERROR_RT_PARAM_INVALID
            );
            assert_eq!(
                acl!(aclrtSwitchStream(l, ACL_RT_EQUAL, r, 2, a, null_mut(), b)),
                ACL_ERROR_RT_PARAM_INVALID
            );
            // The ACL layer's: the reserved false stream, a NULL value.
            assert_eq!(
                acl!(aclrtSwitchStream(
                    l,
                    ACL_RT_EQUAL,
                    r,
                    ACL_RT_SWITCH_INT32,
                    a,
                    b,
                    b
                )),
                ACL_ERROR_INVALID_PARAM
            );
            assert_eq!(
                acl!(aclrtSwitchStream(
                    null_mut(),
                    ACL_RT_EQUAL,
                    r,
                    0,
                    a,
                    null_mut(),
                    b
                )),
                ACL_ERROR_INVALID_PARAM
            );
            // Stop: the NULL stream is E's 107000; a stream 207000 (no
            // stream clearing on either chip here).
            assert_eq!(
                acl!(aclrtStreamStop(null_mut())),
                ACL_ERROR_RT_PARAM_INVALID
            );
            assert_eq!(acl!(aclrtStreamStop(a)), ACL_ERROR_RT_FEATURE_NOT_SUPPORT);
            assert_eq!(take(), ACL_ERROR_RT_FEATURE_NOT_SUPPORT);
            destroy_stream(b);
            // A destroyed stream: the guard's 107017 first.
            assert_eq!(acl!(aclrtActiveStream(a, b)), ACL_ERROR_RT_INVALID_HANDLE);
            assert_eq!(acl!(aclrtStreamStop(b)), ACL_ERROR_RT_INVALID_HANDLE);
            destroy_stream(a);
            teardown_device0();
            aclrt_sim::reset();
        });
    }
}

#[test]
fn stream_cfg_v2_1_configuration_handles_and_streams_made_from_them() {
    let _sim = aclrt_sim::exclusive();
    in_both_run_modes(|_| {
        init();
        let h = acl!(aclrtCreateStreamConfigHandle());
        assert!(!h.is_null());
        // SAFETY: a live handle of the simulator, read on this thread.
        let fresh = unsafe { &*h };
        assert_eq!(
            (fresh.workSize, fresh.flag, fresh.priority),
            (0, 0, 0),
            "zeroed"
        );
        let prio = 5u32;
        let size = size_of::<u32>();
        let p = (&raw const prio).cast::<c_void>();
        ok!(aclrtSetStreamConfigOpt(h, ACL_RT_STREAM_PRIORITY, p, size));
        let flag = ACL_STREAM_FAST_SYNC as usize;
        ok!(aclrtSetStreamConfigOpt(
            h,
            ACL_RT_STREAM_FLAG,
            (&raw const flag).cast(),
            size_of::<usize>()
        ));
        // SAFETY: as above.
        assert_eq!(unsafe { ((*h).priority, (*h).flag) }, (5, flag));
        // The ACL layer's checks, none stored.
        let bad = 8u32;
        for (attr, value, len) in [
            (
                ACL_RT_STREAM_PRIORITY,
                (&raw const bad).cast::<c_void>(),
                size,
            ),
            (ACL_RT_STREAM_PRIORITY, p, 8),
            (4, p, size),
            (ACL_RT_STREAM_FLAG, p, size),
            (ACL_RT_STREAM_PRIORITY, null(), size),
        ] {
            assert_eq!(
                acl!(aclrtSetStreamConfigOpt(h, attr, value, len)),
                ACL_ERROR_INVALID_PARAM
            );
        }
        assert_eq!(
            acl!(aclrtSetStreamConfigOpt(
                null_mut(),
                ACL_RT_STREAM_PRIORITY,
                p,
                size
            )),
            ACL_ERROR_INVALID_PARAM
        );
        assert_eq!(peek(), 0);
        let mut s: aclrtStream = null_mut();
        // No context yet: 107002.
        assert_eq!(
            acl!(aclrtCreateStreamV2(&mut s, h)),
            ACL_ERROR_RT_CONTEXT_NULL
        );
        ok!(aclrtSetDevice(0));
        ok!(aclrtCreateStreamV2(&mut s, h));
        let mut got = 0u32;
        ok!(aclrtStreamGetPriority(s, &mut got));
        assert_eq!(got, 5);
        let mut plain: aclrtStream = null_mut();
        ok!(aclrtCreateStreamV2(&mut plain, null()));
        ok!(aclrtStreamGetPriority(plain, &mut got));
        assert_eq!(got, 0);
        assert_eq!(
            acl!(aclrtCreateStreamV2(null_mut(), h)),
            ACL_ERROR_INVALID_PARAM
        );
        destroy_stream(s);
        destroy_stream(plain);
        ok!(aclrtDestroyStreamConfigHandle(h));
        assert!(aclrt_sim::audit().violations.is_empty());
        // Twice, or a handle of the caller's own: refused and recorded.
        assert_eq!(
            acl!(aclrtDestroyStreamConfigHandle(h)),
            ACL_ERROR_INVALID_PARAM
        );
        assert_eq!(
            acl!(aclrtDestroyStreamConfigHandle(null_mut())),
            ACL_ERROR_INVALID_PARAM
        );
        assert_eq!(violation_kinds(), [ViolationKind::ForeignFree]);
        teardown_device0();
        aclrt_sim::reset();
    });
}

/// Stream state events seen by [`record_state`], with the stream's id as
/// the callback read it (or -1 where the query failed).
type StateLog = std::sync::Mutex<Vec<(usize, aclrtStreamState, i32)>>;

unsafe extern "C" fn record_state(stm: aclrtStream, state: aclrtStreamState, args: *mut c_void) {
    // SAFETY: the tests register this callback with a `StateLog` that
    // outlives the registration.
    let log = unsafe { &*args.cast::<StateLog>() };
    let mut id = -1;
    // The callback may call the runtime: no lock of the simulator is held.
    // SAFETY: `id` is a local of the C type.
    if unsafe { aclrt_sim::ffi::aclrtStreamGetId(stm, &mut id) } != ACL_SUCCESS {
        id = -1;
    }
    log.lock().unwrap().push((stm as usize, state, id));
}

#[test]
fn stream_state_1_callbacks_hear_of_every_stream_created_and_destroyed() {
    let _sim = aclrt_sim::exclusive();
    in_both_run_modes(|_| {
        init();
        let log: StateLog = std::sync::Mutex::new(Vec::new());
        let arg = (&raw const log).cast_mut().cast::<c_void>();
        ok!(aclrtRegStreamStateCallback(
            c"test".as_ptr(),
            Some(record_state),
            arg
        ));
        // The name is taken: 107000, stored.
        assert_eq!(
            acl!(aclrtRegStreamStateCallback(
                c"test".as_ptr(),
                Some(record_state),
                arg
            )),
            ACL_ERROR_RT_PARAM_INVALID
        );
        assert_eq!(take(), ACL_ERROR_RT_PARAM_INVALID);
        assert_eq!(
            acl!(aclrtRegStreamStateCallback(null(), Some(record_state), arg)),
            ACL_ERROR_INVALID_PARAM
        );
        // The device's default context brings its default stream.
        ok!(aclrtSetDevice(0));
        let mut dflt: aclrtStream = null_mut();
        ok!(aclrtCtxGetCurrentDefaultStream(&mut dflt));
        let s = create_stream();
        let mut sid = -1;
        ok!(aclrtStreamGetId(s, &mut sid));
        destroy_stream(s);
        ok!(aclrtResetDevice(0));
        let seen = std::mem::take(&mut *log.lock().unwrap());
        assert_eq!(seen.len(), 4, "{seen:?}");
        assert_eq!(
            (seen[0].0, seen[0].1),
            (dflt as usize, ACL_RT_STREAM_STATE_CREATE_POST)
        );
        assert_eq!(seen[1], (s as usize, ACL_RT_STREAM_STATE_CREATE_POST, sid));
        assert_eq!(seen[2], (s as usize, ACL_RT_STREAM_STATE_DESTROY_PRE, sid));
        assert_eq!(
            (seen[3].0, seen[3].1),
            (dflt as usize, ACL_RT_STREAM_STATE_DESTROY_PRE)
        );
        assert!(
            seen[3].2 >= 0,
            "the stream still exists when told: {seen:?}"
        );
        // An explicit context: its default stream and its streams.
        let ctx = create_context(1);
        let t = create_stream();
        ok!(aclrtDestroyContext(ctx));
        let seen = std::mem::take(&mut *log.lock().unwrap());
        let states: Vec<_> = seen.iter().map(|e| e.1).collect();
        assert_eq!(
            states,
            [
                ACL_RT_STREAM_STATE_CREATE_POST,
                ACL_RT_STREAM_STATE_CREATE_POST,
                ACL_RT_STREAM_STATE_DESTROY_PRE,
                ACL_RT_STREAM_STATE_DESTROY_PRE
            ],
            "{seen:?}"
        );
        assert_eq!(seen[1].0, t as usize);
        assert_eq!(seen[3].0, t as usize);
        // Unregistered (a NULL callback): silent again; an unknown name too.
        ok!(aclrtRegStreamStateCallback(
            c"test".as_ptr(),
            None,
            null_mut()
        ));
        ok!(aclrtRegStreamStateCallback(
            c"other".as_ptr(),
            None,
            null_mut()
        ));
        ok!(aclrtSetDevice(0));
        let u = create_stream();
        destroy_stream(u);
        assert!(log.lock().unwrap().is_empty());
        teardown_device0();
        aclrt_sim::reset();
    });
}

#[test]
fn stream_ovf_2_overflow_status_reads_zeros_and_resets() {
    let _sim = aclrt_sim::exclusive();
    for soc in [aclrt_sim::Soc::Ascend910B, aclrt_sim::Soc::Ascend310P] {
        on_soc_in_both_run_modes(soc, |_| {
            init_device0();
            let s = create_stream();
            let out = malloc(64);
            h2d(out, &[0xAB; 64]);
            ok!(aclrtGetOverflowStatus(out, 64, s));
            ok!(aclrtSynchronizeStream(s));
            assert_eq!(read_device(out, 64), vec![0u8; 64], "no overflow happened");
            ok!(aclrtGetOverflowStatus(out, 64, null_mut()));
            ok!(aclrtSynchronizeStream(null_mut()));
            // E: only 64 bytes; the ACL layer: NULL output.
            assert_eq!(
                acl!(aclrtGetOverflowStatus(out, 32, s)),
                ACL_ERROR_RT_PARAM_INVALID
            );
            assert_eq!(take(), ACL_ERROR_RT_PARAM_INVALID);
            assert_eq!(
                acl!(aclrtGetOverflowStatus(null_mut(), 64, s)),
                ACL_ERROR_INVALID_PARAM
            );
            ok!(aclrtResetOverflowStatus(s));
            ok!(aclrtResetOverflowStatus(null_mut()));
            // Another context's stream: 107003.
            let ctx = create_context(1);
            assert_eq!(
                acl!(aclrtResetOverflowStatus(s)),
                ACL_ERROR_RT_STREAM_CONTEXT
            );
            assert_eq!(
                acl!(aclrtGetOverflowStatus(out, 64, s)),
                ACL_ERROR_RT_STREAM_CONTEXT
            );
            ok!(aclrtDestroyContext(ctx));
            ok!(aclrtSetDevice(0));
            free(out);
            destroy_stream(s);
            ok!(aclrtResetDevice(0));
            teardown_device0();
            aclrt_sim::reset();
        });
    }
}

#[test]
fn base_buf_1_data_buffers_describe_memory_and_refuse_strangers() {
    let _sim = aclrt_sim::exclusive();
    in_both_run_modes(|_| {
        // No runtime needed: the ACL layer's own objects.
        let mut bytes = [0u8; 100];
        let p = bytes.as_mut_ptr().cast::<c_void>();
        let b = acl!(aclCreateDataBuffer(p, 100));
        assert!(!b.is_null());
        assert_eq!(acl!(aclGetDataBufferAddr(b)), p);
        assert_eq!(acl!(aclGetDataBufferSizeV2(b)), 100);
        assert_eq!(acl!(aclGetDataBufferSize(b)), 100);
        // Any address and length, NULL and 0 included.
        let empty = acl!(aclCreateDataBuffer(null_mut(), 0));
        assert!(!empty.is_null() && empty != b);
        ok!(aclUpdateDataBuffer(b, null_mut(), (1usize << 33) + 5));
        assert!(acl!(aclGetDataBufferAddr(b)).is_null());
        assert_eq!(acl!(aclGetDataBufferSizeV2(b)), (1 << 33) + 5);
        assert_eq!(acl!(aclGetDataBufferSize(b)), 5, "cut to 32 bits");
        // NULL: 0 and NULL quietly, 100000 where the call returns a code.
        assert!(acl!(aclGetDataBufferAddr(null())).is_null());
        assert_eq!(acl!(aclGetDataBufferSizeV2(null())), 0);
        assert_eq!(acl!(aclDestroyDataBuffer(null())), ACL_ERROR_INVALID_PARAM);
        assert_eq!(
            acl!(aclUpdateDataBuffer(null_mut(), p, 1)),
            ACL_ERROR_INVALID_PARAM
        );
        ok!(aclDestroyDataBuffer(b));
        ok!(aclDestroyDataBuffer(empty));
        assert!(aclrt_sim::audit().violations.is_empty());
        // Destroyed: refused and recorded, never read.
        assert_eq!(acl!(aclDestroyDataBuffer(b)), ACL_ERROR_INVALID_PARAM);
        assert_eq!(acl!(aclGetDataBufferSizeV2(b)), 0);
        assert_eq!(peek(), 0, "the ACL layer's refusals are not stored");
        assert_eq!(violation_kinds(), [ViolationKind::InvalidHandle; 2]);
        aclrt_sim::reset();
    });
}
