//! The strict checks: code, violation kind, and an unchanged state.

mod common;
use common::*;

fn only(kind: ViolationKind, code: i32, function: &str) {
    let v = sim::audit().violations;
    assert_eq!(v.len(), 1, "{v:#?}");
    assert_eq!(
        (v[0].kind, v[0].code, v[0].function),
        (kind, code, function)
    );
    assert!(v[0].message.starts_with(function), "{}", v[0].message);
}

#[test]
fn out_of_bounds_copy_and_memset() {
    let _g = sim::exclusive();
    init_device0();
    let d = malloc(64);
    let host = [1u8; 128];
    ok!(aclrtMemset(d, 64, 0, 64));
    let code = acl!(aclrtMemcpy(
        d,
        128,
        host.as_ptr().cast(),
        128,
        ACL_MEMCPY_HOST_TO_DEVICE
    ));
    assert_eq!(code, ACL_ERROR_RT_PARAM_INVALID);
    only(ViolationKind::OutOfBounds, code, "aclrtMemcpy");
    assert_eq!(
        read_device(d, 64),
        vec![0; 64],
        "a rejected call changes nothing"
    );
    // SAFETY: offset 32 is inside the allocation.
    let mid = unsafe { d.cast::<u8>().add(32) }.cast::<c_void>();
    assert_eq!(
        acl!(aclrtMemsetAsync(mid, 64, 1, 64, null_mut())),
        ACL_ERROR_RT_PARAM_INVALID
    );
    assert_eq!(kinds().len(), 2);
    ok!(aclrtFree(d));
    teardown_device0();
}

#[test]
fn kind_mismatches_in_host_mode() {
    let _g = sim::exclusive();
    init_device0();
    let (a, b) = (malloc(64), malloc(64));
    let pinned = malloc_host(64);
    let mut pageable = vec![0u8; 64];
    let code = acl!(aclrtMemcpy(b, 64, a, 64, ACL_MEMCPY_HOST_TO_DEVICE));
    assert_eq!(code, ACL_ERROR_RT_INVALID_MEMORY_TYPE);
    only(ViolationKind::KindMismatch, code, "aclrtMemcpy");
    assert_eq!(
        acl!(aclrtMemcpy(
            pageable.as_mut_ptr().cast(),
            64,
            pinned,
            64,
            ACL_MEMCPY_DEVICE_TO_HOST
        )),
        ACL_ERROR_RT_INVALID_MEMORY_TYPE
    );
    // Right kinds and DEFAULT work.
    ok!(aclrtMemcpy(pinned, 64, a, 64, ACL_MEMCPY_DEVICE_TO_HOST));
    ok!(aclrtMemcpy(
        pageable.as_mut_ptr().cast(),
        64,
        pinned,
        64,
        ACL_MEMCPY_HOST_TO_HOST
    ));
    ok!(aclrtMemcpy(b, 64, a, 64, ACL_MEMCPY_DEFAULT));
    // Memset of application memory is undefined on the real runtime.
    assert_eq!(
        acl!(aclrtMemset(pageable.as_mut_ptr().cast(), 64, 0, 64)),
        ACL_ERROR_RT_INVALID_MEMORY_TYPE
    );
    assert_eq!(kinds(), vec![ViolationKind::KindMismatch; 3]);
    ok!(aclrtFree(a));
    ok!(aclrtFree(b));
    ok!(aclrtFreeHost(pinned));
    teardown_device0();
}

#[test]
fn device_run_mode_accepts_every_kind() {
    let _g = sim::exclusive();
    sim::configure(SimConfig {
        run_mode: RunMode::Device,
        ..SimConfig::default()
    });
    init_device0();
    let mut mode = 7;
    ok!(aclrtGetRunMode(&mut mode));
    assert_eq!(mode, ACL_DEVICE);
    let d = malloc(64);
    let h = malloc_host(64);
    let mut app = vec![3u8; 64];
    ok!(aclrtMemcpy(
        d,
        64,
        app.as_ptr().cast(),
        64,
        ACL_MEMCPY_DEVICE_TO_DEVICE
    ));
    ok!(aclrtMemcpy(h, 64, d, 64, ACL_MEMCPY_HOST_TO_HOST));
    ok!(aclrtMemcpyAsync(
        d,
        64,
        h,
        64,
        ACL_MEMCPY_HOST_TO_HOST,
        null_mut()
    ));
    ok!(aclrtMemset(app.as_mut_ptr().cast(), 64, 9, 64));
    assert_eq!(app, vec![9; 64]);
    ok!(aclrtSynchronizeStream(null_mut()));
    assert_eq!(read_device(d, 64), vec![3; 64]);
    // MallocHost memory is device memory (charged to the device).
    let (mut free, mut total) = (0usize, 0usize);
    ok!(aclrtGetMemInfo(ACL_HBM_MEM, &mut free, &mut total));
    assert_eq!(total - free, 2 * (64 + 32) - 32);
    ok!(aclrtFree(d));
    ok!(aclrtFreeHost(h));
    teardown_device0();
    sim::audit().assert_clean();
}

#[test]
fn frees_double_foreign_interior_wrong_function() {
    let _g = sim::exclusive();
    init_device0();
    let p = malloc(256);
    let h = malloc_host(64);
    let mut mine = [0u8; 16];
    assert_eq!(acl!(aclrtFree(h)), ACL_ERROR_RT_PARAM_INVALID);
    assert_eq!(acl!(aclrtFreeHost(p)), ACL_ERROR_RT_PARAM_INVALID);
    // SAFETY: in-bounds offset.
    let inner = unsafe { p.cast::<u8>().add(64) }.cast::<c_void>();
    assert_eq!(acl!(aclrtFree(inner)), ACL_ERROR_RT_PARAM_INVALID);
    assert_eq!(
        acl!(aclrtFree(mine.as_mut_ptr().cast())),
        ACL_ERROR_RT_PARAM_INVALID
    );
    assert_eq!(kinds(), vec![ViolationKind::ForeignFree; 4]);
    ok!(aclrtFree(p));
    ok!(aclrtFreeHost(h));
    assert_eq!(acl!(aclrtFree(p)), ACL_ERROR_RT_MEMORY_FREE);
    assert_eq!(sim::audit().violations[4].kind, ViolationKind::DoubleFree);
    // Use after free: a copy from the freed block.
    let mut out = [0u8; 8];
    assert_eq!(
        acl!(aclrtMemcpy(
            out.as_mut_ptr().cast(),
            8,
            inner,
            8,
            ACL_MEMCPY_DEVICE_TO_HOST
        )),
        ACL_ERROR_RT_PARAM_INVALID
    );
    assert_eq!(sim::audit().violations[5].kind, ViolationKind::UseAfterFree);
    teardown_device0();
}

#[test]
fn free_while_a_queued_task_uses_the_memory() {
    let _g = sim::exclusive();
    init_device0();
    let s = create_stream();
    let (a, b) = (malloc(4096), malloc(4096));
    sim::set_stream_delay(s, Duration::from_millis(50));
    ok!(aclrtMemcpyAsync(
        b,
        4096,
        a,
        4096,
        ACL_MEMCPY_DEVICE_TO_DEVICE,
        s
    ));
    let code = acl!(aclrtFree(a));
    assert_eq!(code, ACL_ERROR_RT_STREAM_NOT_COMPLETE);
    only(ViolationKind::ReleaseWhileInUse, code, "aclrtFree");
    assert_eq!(sim::audit().live[&(ResourceKind::DeviceMemory, 0)], 2);
    ok!(aclrtSynchronizeStream(s));
    ok!(aclrtFree(a));
    // aclrtFreeWithDevSync waits for the device first.
    ok!(aclrtMemcpyAsync(
        a.wrapping_add(0).cast(),
        0,
        b,
        0,
        ACL_MEMCPY_DEVICE_TO_DEVICE,
        s
    ));
    ok!(aclrtMemsetAsync(b, 4096, 1, 4096, s));
    ok!(aclrtFreeWithDevSync(b));
    ok!(aclrtDestroyStream(s));
    teardown_device0();
    assert_eq!(kinds().len(), 1);
}

#[test]
fn release_order_checks_leave_state_unchanged() {
    let _g = sim::exclusive();
    init_device0();
    let mut ctx = null_mut();
    ok!(aclrtCreateContext(&mut ctx, 0));
    let s = create_stream();
    let code = acl!(aclrtDestroyContext(ctx));
    assert_eq!(code, ACL_ERROR_RT_CONTEXT_RELEASE_ERROR);
    only(
        ViolationKind::ReleaseWithLiveChildren,
        code,
        "aclrtDestroyContext",
    );
    assert_eq!(
        stream_status(s),
        ACL_STREAM_STATUS_COMPLETE,
        "the stream is intact"
    );
    // Resetting the device with the explicit context alive is refused.
    assert_eq!(
        acl!(aclrtResetDevice(0)),
        ACL_ERROR_RT_CONTEXT_RELEASE_ERROR
    );
    assert_eq!(
        sim::audit().violations[1].kind,
        ViolationKind::ResetWithLiveResources
    );
    assert_eq!(
        sim::audit().live[&(ResourceKind::Device, 0)],
        1,
        "refcount unchanged"
    );
    ok!(aclrtDestroyStream(s));
    ok!(aclrtDestroyContext(ctx));
    teardown_device0();
    assert_eq!(kinds().len(), 2);
}

#[test]
fn finalize_with_live_resources_tears_down_and_reports_leaks() {
    let _g = sim::exclusive();
    init_device0();
    let p = malloc(100);
    let s = create_stream();
    let e = create_event();
    ok!(aclrtLaunchHostFunc(s, Some(sleep_ms), ms_arg(20)));
    let code = acl!(aclFinalize());
    assert_eq!(code, ACL_ERROR_RT_CONTEXT_RELEASE_ERROR);
    let audit = sim::audit();
    assert_eq!(audit.violations.len(), 1);
    assert_eq!(
        audit.violations[0].kind,
        ViolationKind::FinalizeWithLiveResources
    );
    let mut leaks: Vec<(ResourceKind, usize)> =
        audit.leaks.iter().map(|l| (l.kind, l.address)).collect();
    leaks.sort();
    assert_eq!(
        leaks,
        vec![
            (ResourceKind::Device, 0),
            (ResourceKind::Stream, s.addr()),
            (ResourceKind::Event, e.addr()),
            (ResourceKind::DeviceMemory, p.addr()),
        ]
    );
    assert!(audit.live.is_empty() && !audit.initialized);
    // The process can go on.
    init_device0();
    teardown_device0();
}

#[test]
fn handles_wrong_context_invalid_destroyed() {
    let _g = sim::exclusive();
    init_device0();
    let s = create_stream();
    let e = create_event();
    let mut ctx = null_mut();
    ok!(aclrtCreateContext(&mut ctx, 0));
    let code = acl!(aclrtRecordEvent(e, s));
    assert_eq!(code, ACL_ERROR_RT_STREAM_CONTEXT);
    only(ViolationKind::WrongContext, code, "aclrtRecordEvent");
    // Synchronize switches context temporarily: allowed.
    ok!(aclrtSynchronizeStream(s));
    ok!(aclrtDestroyContext(ctx));
    // An event handle passed as a stream.
    assert_eq!(acl!(aclrtSynchronizeStream(e)), ACL_ERROR_RT_INVALID_HANDLE);
    let mut junk = [0u64; 2];
    assert_eq!(
        acl!(aclrtSynchronizeEvent(junk.as_mut_ptr().cast())),
        ACL_ERROR_RT_INVALID_HANDLE
    );
    ok!(aclrtDestroyEvent(e));
    assert_eq!(acl!(aclrtSynchronizeEvent(e)), ACL_ERROR_RT_INVALID_HANDLE);
    assert_eq!(
        kinds(),
        vec![
            ViolationKind::WrongContext,
            ViolationKind::InvalidHandle,
            ViolationKind::InvalidHandle,
            ViolationKind::UseAfterFree
        ]
    );
    ok!(aclrtDestroyStream(s));
    teardown_device0();
}

#[test]
fn cross_device_copies_need_peer_access() {
    let _g = sim::exclusive();
    ok!(aclInit(null()));
    ok!(aclrtSetDevice(1));
    let on1 = malloc(64);
    ok!(aclrtSetDevice(0));
    let on0 = malloc(64);
    let code = acl!(aclrtMemcpy(on0, 64, on1, 64, ACL_MEMCPY_DEVICE_TO_DEVICE));
    assert_eq!(code, ACL_ERROR_RT_NO_PERMISSION);
    only(
        ViolationKind::CrossDeviceWithoutPeerAccess,
        code,
        "aclrtMemcpy",
    );
    let mut can = 0;
    ok!(aclrtDeviceCanAccessPeer(&mut can, 0, 1));
    assert_eq!(can, 1);
    assert_eq!(
        acl!(aclrtDeviceEnablePeerAccess(1, 1)),
        ACL_ERROR_FEATURE_UNSUPPORTED
    );
    assert_eq!(
        acl!(aclrtDeviceEnablePeerAccess(0, 0)),
        ACL_ERROR_INVALID_PARAM
    );
    ok!(aclrtDeviceEnablePeerAccess(1, 0));
    ok!(aclrtMemcpy(on0, 64, on1, 64, ACL_MEMCPY_DEVICE_TO_DEVICE));
    ok!(aclrtDeviceDisablePeerAccess(1));
    assert_eq!(
        acl!(aclrtMemcpy(on0, 64, on1, 64, ACL_MEMCPY_DEVICE_TO_DEVICE)),
        ACL_ERROR_RT_NO_PERMISSION
    );
    ok!(aclrtFree(on0));
    ok!(aclrtFree(on1));
    ok!(aclrtResetDevice(0));
    ok!(aclrtResetDevice(1));
    ok!(aclFinalize());
    assert_eq!(kinds().len(), 2);
}

#[test]
fn destroying_an_event_or_stream_a_queued_wait_depends_on() {
    let _g = sim::exclusive();
    init_device0();
    let (a, b) = (create_stream(), create_stream());
    let e = create_event();
    ok!(aclrtLaunchHostFunc(a, Some(sleep_ms), ms_arg(100)));
    ok!(aclrtRecordEvent(e, a));
    ok!(aclrtStreamWaitEvent(b, e));
    assert_eq!(acl!(aclrtDestroyEvent(e)), ACL_ERROR_RT_EVENT_NOT_COMPLETE);
    assert_eq!(
        acl!(aclrtDestroyStreamForce(a)),
        ACL_ERROR_RT_STREAM_NOT_COMPLETE
    );
    assert_eq!(kinds(), vec![ViolationKind::ReleaseWhileInUse; 2]);
    ok!(aclrtSynchronizeStream(b));
    ok!(aclrtDestroyEvent(e));
    ok!(aclrtDestroyStreamForce(a));
    ok!(aclrtDestroyStream(b));
    teardown_device0();
}

#[test]
fn event_rules() {
    let _g = sim::exclusive();
    init_device0();
    let mut e = null_mut();
    assert_eq!(
        acl!(aclrtCreateEventWithFlag(&mut e, 0)),
        ACL_ERROR_RT_PARAM_INVALID
    );
    assert_eq!(
        acl!(aclrtCreateEventWithFlag(&mut e, 0x80)),
        ACL_ERROR_RT_PARAM_INVALID
    );
    assert_eq!(
        acl!(aclrtCreateEventWithFlag(&mut e, 0x30)),
        ACL_ERROR_RT_PARAM_INVALID
    );
    assert_eq!(
        acl!(aclrtCreateEventExWithFlag(&mut e, 0x20)),
        ACL_ERROR_RT_PARAM_INVALID
    );
    let mut ex = null_mut();
    ok!(aclrtCreateEventExWithFlag(&mut ex, ACL_EVENT_SYNC));
    assert_eq!(
        event_status(ex),
        ACL_EVENT_RECORDED_STATUS_COMPLETE,
        "unrecorded Ex event"
    );
    let plain = create_event();
    assert_eq!(
        event_status(plain),
        ACL_EVENT_RECORDED_STATUS_NOT_READY,
        "unrecorded plain event"
    );
    let mut st = 0;
    assert_eq!(
        acl!(aclrtQueryEvent(ex, &mut st)),
        ACL_ERROR_RT_FEATURE_NOT_SUPPORT
    );
    assert_eq!(
        acl!(aclrtResetEvent(ex, null_mut())),
        ACL_ERROR_RT_FEATURE_NOT_SUPPORT
    );
    let mut tl = null_mut();
    ok!(aclrtCreateEventWithFlag(&mut tl, ACL_EVENT_TIME_LINE));
    ok!(aclrtRecordEvent(tl, null_mut()));
    assert_eq!(
        acl!(aclrtStreamWaitEvent(null_mut(), tl)),
        ACL_ERROR_RT_FEATURE_NOT_SUPPORT
    );
    let mut ms = 0f32;
    assert_eq!(
        acl!(aclrtEventElapsedTime(&mut ms, plain, tl)),
        ACL_ERROR_RT_INTERNAL_ERROR
    );
    ok!(aclrtRecordEvent(plain, null_mut()));
    ok!(aclrtEventElapsedTime(&mut ms, plain, tl));
    let mut sync = null_mut();
    ok!(aclrtCreateEventWithFlag(&mut sync, ACL_EVENT_SYNC));
    ok!(aclrtRecordEvent(sync, null_mut()));
    ok!(aclrtSynchronizeEvent(sync));
    ok!(aclrtResetEvent(sync, null_mut()));
    ok!(aclrtSynchronizeStream(null_mut()));
    assert_eq!(
        event_status(sync),
        ACL_EVENT_RECORDED_STATUS_NOT_READY,
        "reset"
    );
    let mut avail = 0u32;
    ok!(aclrtGetEventAvailNum(&mut avail));
    assert_eq!(avail, 65536 - 4);
    for ev in [ex, plain, tl, sync] {
        ok!(aclrtDestroyEvent(ev));
    }
    teardown_device0();
    sim::audit().assert_clean();
}
