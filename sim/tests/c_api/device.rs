//! Devices: ids, per-thread binding, reference counting, synchronisation,
//! run mode, peer access, memory info (acl-facts §5.2).

use crate::common;
use common::*;

#[test]
fn device_count_reports_the_configured_devices() {
    let _sim = aclrt_sim::exclusive();
    configure(|c| c.devices = 3);
    init();
    let mut n = 0u32;
    ok!(aclrtGetDeviceCount(&mut n));
    assert_eq!(n, 3);
    finalize();
    assert_clean();
}

#[test]
fn default_config_has_two_devices() {
    let _sim = aclrt_sim::exclusive();
    init();
    let mut n = 0u32;
    ok!(aclrtGetDeviceCount(&mut n));
    assert_eq!(n, 2);
    finalize();
    assert_clean();
}

#[test]
fn get_device_count_null_returns_100000() {
    let _sim = aclrt_sim::exclusive();
    init();
    assert_eq!(
        acl!(aclrtGetDeviceCount(null_mut())),
        ACL_ERROR_INVALID_PARAM
    );
    finalize();
    assert_clean();
}

#[test]
fn set_device_out_of_range_returns_107001() {
    let _sim = aclrt_sim::exclusive();
    init();
    assert_eq!(acl!(aclrtSetDevice(2)), ACL_ERROR_RT_INVALID_DEVICEID);
    assert_eq!(acl!(aclrtSetDevice(-1)), ACL_ERROR_RT_INVALID_DEVICEID);
    assert_eq!(
        acl!(aclrtSetDevice(i32::MAX)),
        ACL_ERROR_RT_INVALID_DEVICEID
    );
    // Nothing was bound by the failed calls.
    let mut d = -7;
    assert_eq!(acl!(aclrtGetDevice(&mut d)), ACL_ERROR_RT_CONTEXT_NULL);
    finalize();
    assert_clean();
}

#[test]
fn get_device_without_set_device_returns_107002() {
    let _sim = aclrt_sim::exclusive();
    init();
    let mut d = -7;
    assert_eq!(acl!(aclrtGetDevice(&mut d)), ACL_ERROR_RT_CONTEXT_NULL);
    finalize();
    assert_clean();
}

#[test]
fn get_device_returns_the_device_set_on_this_thread() {
    let _sim = aclrt_sim::exclusive();
    init();
    ok!(aclrtSetDevice(1));
    let mut d = -7;
    ok!(aclrtGetDevice(&mut d));
    assert_eq!(d, 1);
    ok!(aclrtSetDevice(0));
    ok!(aclrtGetDevice(&mut d));
    assert_eq!(d, 0);
    ok!(aclrtResetDevice(0));
    ok!(aclrtResetDevice(1));
    finalize();
    assert_clean();
}

#[test]
fn set_device_binds_only_the_calling_thread() {
    let session = device0();
    let code = std::thread::spawn(|| {
        let mut d = -7;
        acl!(aclrtGetDevice(&mut d))
    })
    .join()
    .unwrap();
    assert_eq!(code, ACL_ERROR_RT_CONTEXT_NULL);
    session.finish();
}

#[test]
fn threads_setting_the_same_device_share_its_default_context() {
    let session = device0();
    let mine = current_context() as usize;
    let theirs = std::thread::spawn(|| {
        ok!(aclrtSetDevice(0));
        let c = current_context() as usize;
        ok!(aclrtResetDevice(0));
        c
    })
    .join()
    .unwrap();
    assert_ne!(mine, 0);
    assert_eq!(mine, theirs);
    session.finish();
}

#[test]
fn set_device_is_reference_counted() {
    let _sim = aclrt_sim::exclusive();
    init();
    ok!(aclrtSetDevice(0));
    ok!(aclrtSetDevice(0));
    let ctx = current_context();
    ok!(aclrtResetDevice(0));
    // One reference is left: the default context is still alive and usable.
    assert_eq!(live(ResourceKind::Device, 0), 1);
    assert_eq!(current_context(), ctx);
    let p = malloc(32);
    free(p);
    ok!(aclrtResetDevice(0));
    assert_eq!(live(ResourceKind::Device, 0), 0);
    finalize();
    assert_clean();
}

#[test]
fn set_device_clears_the_explicit_current_context() {
    let session = device0();
    let default_ctx = current_context();
    let ctx = create_context(0);
    assert_eq!(current_context(), ctx);
    ok!(aclrtSetDevice(0));
    assert_eq!(current_context(), default_ctx);
    ok!(aclrtDestroyContext(ctx));
    ok!(aclrtResetDevice(0));
    session.finish();
}

#[test]
fn reset_device_force_releases_all_references() {
    let _sim = aclrt_sim::exclusive();
    init();
    ok!(aclrtSetDevice(0));
    ok!(aclrtSetDevice(0));
    ok!(aclrtSetDevice(0));
    ok!(aclrtResetDeviceForce(0));
    assert_eq!(live(ResourceKind::Device, 0), 0);
    let mut ctx: aclrtContext = null_mut();
    assert_eq!(
        acl!(aclrtGetCurrentContext(&mut ctx)),
        ACL_ERROR_RT_CONTEXT_NULL
    );
    finalize();
    assert_clean();
}

#[test]
fn reset_device_force_of_unset_device_returns_507007() {
    let _sim = aclrt_sim::exclusive();
    init();
    assert_eq!(
        acl!(aclrtResetDeviceForce(1)),
        ACL_ERROR_RT_CONTEXT_RELEASE_ERROR
    );
    finalize();
    assert_clean();
}

#[test]
fn reset_device_force_after_full_reset_returns_507007() {
    let _sim = aclrt_sim::exclusive();
    init_device0();
    ok!(aclrtResetDevice(0));
    assert_eq!(
        acl!(aclrtResetDeviceForce(0)),
        ACL_ERROR_RT_CONTEXT_RELEASE_ERROR
    );
    finalize();
    assert_clean();
}

#[test]
fn reset_device_invalid_id_returns_107001() {
    let _sim = aclrt_sim::exclusive();
    init();
    assert_eq!(acl!(aclrtResetDevice(5)), ACL_ERROR_RT_INVALID_DEVICEID);
    finalize();
    assert_clean();
}

#[test]
fn synchronize_device_without_context_returns_107002() {
    let _sim = aclrt_sim::exclusive();
    init();
    assert_eq!(acl!(aclrtSynchronizeDevice()), ACL_ERROR_RT_CONTEXT_NULL);
    assert_eq!(
        acl!(aclrtSynchronizeDeviceWithTimeout(-1)),
        ACL_ERROR_RT_CONTEXT_NULL
    );
    finalize();
    assert_clean();
}

#[test]
fn synchronize_device_waits_for_all_streams_of_the_current_context() {
    let session = device0();
    let s1 = create_stream();
    let s2 = create_stream();
    let a = malloc(256);
    let b = malloc(256);
    stream_delay(s1, 30);
    stream_delay(s2, 30);
    ok!(aclrtMemsetAsync(a, 256, 0x11, 256, s1));
    ok!(aclrtMemsetAsync(b, 256, 0x22, 256, s2));
    ok!(aclrtSynchronizeDevice());
    assert_eq!(stream_status(s1), ACL_STREAM_STATUS_COMPLETE);
    assert_eq!(stream_status(s2), ACL_STREAM_STATUS_COMPLETE);
    assert_eq!(read_device(a, 256), vec![0x11; 256]);
    assert_eq!(read_device(b, 256), vec![0x22; 256]);
    free(a);
    free(b);
    destroy_stream(s1);
    destroy_stream(s2);
    session.finish();
}

#[test]
fn synchronize_device_with_timeout_zero_returns_107000() {
    let session = device0();
    assert_eq!(
        acl!(aclrtSynchronizeDeviceWithTimeout(0)),
        ACL_ERROR_RT_PARAM_INVALID
    );
    session.finish();
}

#[test]
fn synchronize_device_with_timeout_below_minus_one_returns_107000() {
    let session = device0();
    assert_eq!(
        acl!(aclrtSynchronizeDeviceWithTimeout(-2)),
        ACL_ERROR_RT_PARAM_INVALID
    );
    session.finish();
}

#[test]
fn synchronize_device_timeout_expiry_returns_507046() {
    let session = device0();
    let s = create_stream();
    let a = malloc(64);
    stream_delay(s, 50);
    ok!(aclrtMemsetAsync(a, 64, 1, 64, s));
    assert_eq!(
        acl!(aclrtSynchronizeDeviceWithTimeout(1)),
        ACL_ERROR_RT_STREAM_SYNC_TIMEOUT
    );
    // -1 waits for ever, i.e. until the task is done.
    ok!(aclrtSynchronizeDeviceWithTimeout(-1));
    assert_eq!(read_device(a, 64), vec![1; 64]);
    free(a);
    destroy_stream(s);
    session.finish();
}

#[test]
fn run_mode_defaults_to_acl_host() {
    let _sim = aclrt_sim::exclusive();
    init();
    let mut mode: aclrtRunMode = 77;
    ok!(aclrtGetRunMode(&mut mode));
    assert_eq!(mode, ACL_HOST);
    assert_eq!(ACL_HOST, 1);
    finalize();
    assert_clean();
}

#[test]
fn get_run_mode_null_returns_100000() {
    let _sim = aclrt_sim::exclusive();
    init();
    assert_eq!(acl!(aclrtGetRunMode(null_mut())), ACL_ERROR_INVALID_PARAM);
    finalize();
    assert_clean();
}

#[test]
fn can_access_peer_with_itself_returns_100000() {
    let _sim = aclrt_sim::exclusive();
    init();
    let mut can = -1;
    assert_eq!(
        acl!(aclrtDeviceCanAccessPeer(&mut can, 1, 1)),
        ACL_ERROR_INVALID_PARAM
    );
    finalize();
    assert_clean();
}

#[test]
fn can_access_peer_reports_one_or_zero() {
    let _sim = aclrt_sim::exclusive();
    init();
    let mut can = -1;
    ok!(aclrtDeviceCanAccessPeer(&mut can, 0, 1));
    assert!(can == 0 || can == 1, "canAccessPeer = {can}");
    finalize();
    assert_clean();
}

#[test]
fn can_access_peer_invalid_device_returns_107001() {
    let _sim = aclrt_sim::exclusive();
    init();
    let mut can = -1;
    assert_eq!(
        acl!(aclrtDeviceCanAccessPeer(&mut can, 0, 9)),
        ACL_ERROR_RT_INVALID_DEVICEID
    );
    finalize();
    assert_clean();
}

#[test]
fn enable_peer_access_nonzero_flags_returns_200006() {
    let session = device0();
    assert_eq!(
        acl!(aclrtDeviceEnablePeerAccess(1, 1)),
        ACL_ERROR_FEATURE_UNSUPPORTED
    );
    session.finish();
}

#[test]
fn enable_peer_access_without_current_device_returns_107002() {
    let _sim = aclrt_sim::exclusive();
    init();
    assert_eq!(
        acl!(aclrtDeviceEnablePeerAccess(1, 0)),
        ACL_ERROR_RT_CONTEXT_NULL
    );
    finalize();
    assert_clean();
}

#[test]
fn enable_then_disable_peer_access_succeeds() {
    let session = device0();
    ok!(aclrtDeviceEnablePeerAccess(1, 0));
    ok!(aclrtDeviceDisablePeerAccess(1));
    session.finish();
}

#[test]
fn soc_name_is_a_non_empty_string() {
    let _sim = aclrt_sim::exclusive();
    init();
    let p = acl!(aclrtGetSocName());
    assert!(!p.is_null());
    // SAFETY: aclrtGetSocName returns a NUL-terminated static string.
    let name = unsafe { std::ffi::CStr::from_ptr(p) };
    assert!(!name.to_bytes().is_empty());
    finalize();
    assert_clean();
}

#[test]
fn mem_info_total_is_the_configured_memory_and_free_drops_on_malloc() {
    let _sim = aclrt_sim::exclusive();
    configure(|c| c.memory_per_device = Some(256 << 20));
    init_device0();
    let (mut free0, mut total) = (0usize, 0usize);
    ok!(aclrtGetMemInfo(ACL_HBM_MEM, &mut free0, &mut total));
    assert!(total > 0 && total <= 256 << 20, "total {total}");
    assert!(free0 <= total);
    let p = malloc(1 << 20);
    let (mut free1, mut total1) = (0usize, 0usize);
    ok!(aclrtGetMemInfo(ACL_HBM_MEM, &mut free1, &mut total1));
    assert_eq!(total1, total);
    assert!(
        free0 - free1 >= 1 << 20,
        "free went from {free0} to {free1}"
    );
    free(p);
    let (mut free2, mut total2) = (0usize, 0usize);
    ok!(aclrtGetMemInfo(ACL_HBM_MEM, &mut free2, &mut total2));
    assert_eq!(free2, free0);
    teardown_device0();
    assert_clean();
}

#[test]
fn mem_info_null_output_returns_100000() {
    let session = device0();
    let mut v = 0usize;
    assert_eq!(
        acl!(aclrtGetMemInfo(ACL_HBM_MEM, null_mut(), &mut v)),
        ACL_ERROR_INVALID_PARAM
    );
    assert_eq!(
        acl!(aclrtGetMemInfo(ACL_HBM_MEM, &mut v, null_mut())),
        ACL_ERROR_INVALID_PARAM
    );
    session.finish();
}

#[test]
fn mem_info_without_device_returns_107002() {
    let _sim = aclrt_sim::exclusive();
    init();
    let (mut f, mut t) = (0usize, 0usize);
    assert_eq!(
        acl!(aclrtGetMemInfo(ACL_HBM_MEM, &mut f, &mut t)),
        ACL_ERROR_RT_CONTEXT_NULL
    );
    finalize();
    assert_clean();
}

#[test]
fn reset_device_of_unset_device_returns_507007() {
    let _sim = aclrt_sim::exclusive();
    init();
    // The facts fix 507007 for the force variant; the simulator uses it for
    // the plain reset of a device that is not set, too.
    assert_eq!(
        acl!(aclrtResetDevice(1)),
        ACL_ERROR_RT_CONTEXT_RELEASE_ERROR
    );
    finalize();
    assert_clean();
}

#[test]
fn synchronize_device_waits_only_for_the_current_context() {
    let session = device0();
    let s = create_stream();
    let p = malloc(64);
    let gate = Gate::new();
    ok!(aclrtLaunchHostFunc(s, Some(pass_gate), gate.arg()));
    ok!(aclrtMemsetAsync(p, 64, 1, 64, s));
    let ctx = create_context(0);
    ok!(aclrtSynchronizeDevice());
    // Returned while the other context's stream was still held.
    assert!(!gate.left(), "waited for another context's stream");
    ok!(aclrtDestroyContext(ctx));
    // The destroyed context was current: the thread has none now.
    rebind(0);
    // Back in the default context: its stream was still busy.
    assert_eq!(stream_status(s), ACL_STREAM_STATUS_NOT_READY);
    gate.open();
    ok!(aclrtSynchronizeDevice());
    assert_eq!(stream_status(s), ACL_STREAM_STATUS_COMPLETE);
    free(p);
    destroy_stream(s);
    session.finish();
}

#[test]
fn mem_info_unknown_attribute_returns_107016() {
    let session = device0();
    let (mut f, mut t) = (0usize, 0usize);
    ok!(aclrtGetMemInfo(ACL_MEM_P2P_HUGE1G, &mut f, &mut t));
    assert!(t > 0);
    assert_eq!(
        acl!(aclrtGetMemInfo(18, &mut f, &mut t)),
        ACL_ERROR_RT_INVALID_MEMORY_TYPE
    );
    session.finish();
}

#[test]
fn plain_reset_after_force_reset_returns_507007() {
    let _sim = aclrt_sim::exclusive();
    init();
    ok!(aclrtSetDevice(0));
    ok!(aclrtSetDevice(0));
    // Force must come after the plain resets; the other order errors.
    ok!(aclrtResetDeviceForce(0));
    assert_eq!(
        acl!(aclrtResetDevice(0)),
        ACL_ERROR_RT_CONTEXT_RELEASE_ERROR
    );
    finalize();
    assert_clean();
}
