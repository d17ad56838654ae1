//! The simulator's strict checks (design §sim "Strict"): every misuse
//! returns its error code, is recorded in the audit with its kind, and
//! leaves the runtime state unchanged.
//!
//! Every test here runs with `Strictness::Refuse` (the explicit setting that
//! refuses at the call); `fidelity.rs` pins the default (`Report`: the
//! hardware's answer plus the recorded violation) for the rules the hardware
//! lets through, rule by rule.
//!
//! The first part checks one rule per test; the second walks through the
//! related misuses of one rule family in one runtime and checks after each
//! rejected call that nothing changed.

use crate::common;
use common::*;

// Codes of the strict checks. Where the facts fix none, these are the
// simulator's documented choices (see the "Strict checks" table in the
// aclrt-sim crate docs).
/// Copy/memset out of bounds, use of freed memory, foreign free: 107000.
const OOB: aclError = ACL_ERROR_RT_PARAM_INVALID;
/// Memcpy kind contradicting the residency (choice): 107016.
const KIND_MISMATCH: aclError = ACL_ERROR_RT_INVALID_MEMORY_TYPE;
/// Double free (choice): 207002.
const DOUBLE_FREE: aclError = ACL_ERROR_RT_MEMORY_FREE;
/// Freeing memory a queued task uses (choice): 507004.
const IN_USE: aclError = ACL_ERROR_RT_STREAM_NOT_COMPLETE;
/// Releasing a parent with live children / finalize with leaks: 507007.
const LIVE_CHILDREN: aclError = ACL_ERROR_RT_CONTEXT_RELEASE_ERROR;
/// Device memory of another device without peer access (choice): 207006.
const NO_PEER: aclError = ACL_ERROR_RT_NO_PERMISSION;

/// The simulator for this test, configured to refuse at the call.
fn refusing() -> aclrt_sim::Exclusive {
    let sim = aclrt_sim::exclusive();
    configure(|c| c.strictness = aclrt_sim::Strictness::Refuse);
    sim
}

/// The single violation recorded so far (panics unless exactly one).
#[track_caller]
fn only_violation() -> aclrt_sim::Violation {
    let v = aclrt_sim::audit().violations;
    assert_eq!(v.len(), 1, "{v:#?}");
    v[0].clone()
}

/// Asserts that exactly one violation was recorded, of `kind`, with `code`,
/// by `function`, with a message that names the function.
#[track_caller]
fn only(kind: ViolationKind, code: i32, function: &str) {
    let v = aclrt_sim::audit().violations;
    assert_eq!(v.len(), 1, "{v:#?}");
    assert_eq!(
        (v[0].kind, v[0].code, v[0].function),
        (kind, code, function)
    );
    assert!(v[0].message.starts_with(function), "{}", v[0].message);
}

#[test]
fn out_of_bounds_copy_is_rejected_and_recorded() {
    let _sim = refusing();
    init_device0();
    let dev = malloc(64);
    let src = vec![1u8; 4096];
    ok!(aclrtMemset(dev, 64, 0, 64));
    // destMax lies: the allocation has 64 bytes.
    let code = acl!(aclrtMemcpy(
        dev,
        4096,
        src.as_ptr().cast(),
        4096,
        ACL_MEMCPY_HOST_TO_DEVICE
    ));
    assert_eq!(code, OOB);
    let v = only_violation();
    assert_eq!(v.kind, ViolationKind::OutOfBounds);
    assert_eq!(v.function, "aclrtMemcpy");
    assert_eq!(v.code, code);
    // Nothing was written.
    assert_eq!(read_device(dev, 64), vec![0; 64]);
    free(dev);
    teardown_device0();
    expect_violations(&[ViolationKind::OutOfBounds]);
}

#[test]
fn out_of_bounds_read_from_device_is_rejected_and_recorded() {
    let _sim = refusing();
    init_device0();
    let dev = malloc(100);
    let mut out = vec![0u8; 200];
    let code = acl!(aclrtMemcpy(
        out.as_mut_ptr().cast(),
        200,
        dev,
        200,
        ACL_MEMCPY_DEVICE_TO_HOST
    ));
    assert_eq!(code, OOB);
    assert_eq!(out, vec![0u8; 200], "a rejected copy writes nothing");
    free(dev);
    teardown_device0();
    expect_violations(&[ViolationKind::OutOfBounds]);
}

#[test]
fn out_of_bounds_memset_at_an_offset_is_rejected() {
    let _sim = refusing();
    init_device0();
    let dev = malloc(256);
    // SAFETY: offset 200 is inside the 256-byte allocation.
    let at = unsafe { dev.cast::<u8>().add(200) }.cast::<c_void>();
    let code = acl!(aclrtMemset(at, 100, 0, 100));
    assert_eq!(code, OOB);
    free(dev);
    teardown_device0();
    expect_violations(&[ViolationKind::OutOfBounds]);
}

#[test]
fn out_of_bounds_async_copy_is_rejected_at_enqueue() {
    let _sim = refusing();
    init_device0();
    let a = malloc(64);
    let b = malloc(1024);
    let code = acl!(aclrtMemcpyAsync(
        a,
        1024,
        b,
        1024,
        ACL_MEMCPY_DEVICE_TO_DEVICE,
        null_mut()
    ));
    assert_eq!(code, OOB);
    ok!(aclrtSynchronizeStream(null_mut()));
    free(a);
    free(b);
    teardown_device0();
    expect_violations(&[ViolationKind::OutOfBounds]);
}

#[test]
fn host_to_device_with_device_source_is_a_kind_mismatch() {
    let _sim = refusing();
    init_device0();
    let a = malloc(64);
    let b = malloc(64);
    let code = acl!(aclrtMemcpy(b, 64, a, 64, ACL_MEMCPY_HOST_TO_DEVICE));
    assert_eq!(code, KIND_MISMATCH);
    let v = only_violation();
    assert_eq!(v.kind, ViolationKind::KindMismatch);
    assert_eq!(v.code, code);
    free(a);
    free(b);
    teardown_device0();
    expect_violations(&[ViolationKind::KindMismatch]);
}

#[test]
fn device_to_host_into_device_memory_is_a_kind_mismatch() {
    let _sim = refusing();
    init_device0();
    let a = malloc(64);
    let b = malloc(64);
    let code = acl!(aclrtMemcpy(b, 64, a, 64, ACL_MEMCPY_DEVICE_TO_HOST));
    assert_eq!(code, KIND_MISMATCH);
    free(a);
    free(b);
    teardown_device0();
    expect_violations(&[ViolationKind::KindMismatch]);
}

#[test]
fn device_to_device_from_host_memory_is_a_kind_mismatch() {
    let _sim = refusing();
    init_device0();
    let dev = malloc(64);
    let host = [0u8; 64];
    let code = acl!(aclrtMemcpy(
        dev,
        64,
        host.as_ptr().cast(),
        64,
        ACL_MEMCPY_DEVICE_TO_DEVICE
    ));
    assert_eq!(code, KIND_MISMATCH);
    free(dev);
    teardown_device0();
    expect_violations(&[ViolationKind::KindMismatch]);
}

#[test]
fn async_copy_with_wrong_kind_is_a_kind_mismatch() {
    let _sim = refusing();
    init_device0();
    let dev = malloc(64);
    let host = malloc_host(64);
    let code = acl!(aclrtMemcpyAsync(
        dev,
        64,
        host,
        64,
        ACL_MEMCPY_DEVICE_TO_HOST,
        null_mut()
    ));
    assert_eq!(code, KIND_MISMATCH);
    ok!(aclrtSynchronizeStream(null_mut()));
    free(dev);
    free_host(host);
    teardown_device0();
    expect_violations(&[ViolationKind::KindMismatch]);
}

#[test]
fn double_free_is_rejected_and_recorded() {
    let _sim = refusing();
    init_device0();
    let p = malloc(64);
    free(p);
    let code = acl!(aclrtFree(p));
    assert_eq!(code, DOUBLE_FREE);
    let v = only_violation();
    assert_eq!(v.kind, ViolationKind::DoubleFree);
    assert_eq!(v.function, "aclrtFree");
    teardown_device0();
    expect_violations(&[ViolationKind::DoubleFree]);
}

#[test]
fn double_free_host_is_rejected_and_recorded() {
    let _sim = refusing();
    init_device0();
    let p = malloc_host(64);
    free_host(p);
    assert_eq!(acl!(aclrtFreeHost(p)), DOUBLE_FREE);
    teardown_device0();
    expect_violations(&[ViolationKind::DoubleFree]);
}

#[test]
fn freeing_a_foreign_address_is_rejected_and_recorded() {
    let _sim = refusing();
    init_device0();
    let mut mine = vec![0u8; 64];
    let code = acl!(aclrtFree(mine.as_mut_ptr().cast()));
    assert_eq!(code, OOB);
    assert_eq!(mine, vec![0u8; 64]);
    teardown_device0();
    expect_violations(&[ViolationKind::ForeignFree]);
}

#[test]
fn freeing_host_memory_with_aclrt_free_is_a_foreign_free() {
    let _sim = refusing();
    init_device0();
    let host = malloc_host(64);
    assert_eq!(acl!(aclrtFree(host)), OOB);
    assert_eq!(live(ResourceKind::HostMemory, 0), 1);
    free_host(host);
    teardown_device0();
    expect_violations(&[ViolationKind::ForeignFree]);
}

#[test]
fn freeing_an_interior_pointer_is_a_foreign_free() {
    let _sim = refusing();
    init_device0();
    let p = malloc(256);
    // SAFETY: offset 64 is inside the 256-byte allocation.
    let inner = unsafe { p.cast::<u8>().add(64) }.cast::<c_void>();
    assert_eq!(acl!(aclrtFree(inner)), OOB);
    assert_eq!(live(ResourceKind::DeviceMemory, 0), 1);
    free(p);
    teardown_device0();
    expect_violations(&[ViolationKind::ForeignFree]);
}

#[test]
fn copy_from_freed_memory_is_a_use_after_free() {
    let _sim = refusing();
    init_device0();
    let p = malloc(64);
    free(p);
    let mut out = vec![0u8; 64];
    let code = acl!(aclrtMemcpy(
        out.as_mut_ptr().cast(),
        64,
        p,
        64,
        ACL_MEMCPY_DEVICE_TO_HOST
    ));
    assert_eq!(code, OOB);
    teardown_device0();
    expect_violations(&[ViolationKind::UseAfterFree]);
}

#[test]
fn memset_of_freed_memory_is_a_use_after_free() {
    let _sim = refusing();
    init_device0();
    let p = malloc(64);
    free(p);
    assert_eq!(acl!(aclrtMemset(p, 64, 0, 64)), OOB);
    teardown_device0();
    expect_violations(&[ViolationKind::UseAfterFree]);
}

/// A free of memory a queued copy still reads: refused, the block kept and
/// the misuse recorded once (by `aclrtFree`), the copy's data intact; after
/// the synchronisation the same free is fine, and `aclrtFreeWithDevSync`
/// waits for the device first.
#[test]
fn free_while_a_queued_task_uses_the_memory_is_recorded() {
    let _sim = refusing();
    init_device0();
    let s = create_stream();
    let src = malloc(4096);
    let dst = malloc(4096);
    let data = pattern(4096, 41);
    h2d(src, &data);
    stream_delay(s, 50);
    ok!(aclrtMemcpyAsync(
        dst,
        4096,
        src,
        4096,
        ACL_MEMCPY_DEVICE_TO_DEVICE,
        s
    ));
    // aclrtFree does not wait for the queued copy: on real hardware a use
    // after free. The simulator refuses, keeps the block and records it.
    let code = acl!(aclrtFree(src));
    assert_eq!(code, IN_USE);
    only(ViolationKind::ReleaseWhileInUse, code, "aclrtFree");
    assert_eq!(live(ResourceKind::DeviceMemory, 0), 2);
    ok!(aclrtSynchronizeStream(s));
    assert_eq!(read_device(dst, 4096), data);
    // After the synchronisation the same free is fine.
    free(src);
    // aclrtFreeWithDevSync waits for the device first.
    ok!(aclrtMemcpyAsync(
        src.wrapping_add(0).cast(),
        0,
        dst,
        0,
        ACL_MEMCPY_DEVICE_TO_DEVICE,
        s
    ));
    ok!(aclrtMemsetAsync(dst, 4096, 1, 4096, s));
    ok!(aclrtFreeWithDevSync(dst));
    destroy_stream(s);
    teardown_device0();
    expect_violations(&[ViolationKind::ReleaseWhileInUse]);
}

#[test]
fn free_host_while_a_queued_task_uses_it_is_recorded() {
    let _sim = refusing();
    init_device0();
    let s = create_stream();
    let host = malloc_host(4096);
    let dev = malloc(4096);
    let data = pattern(4096, 42);
    // SAFETY: live 4096-byte pinned allocation, no task queued yet.
    unsafe { host_slice(host, 4096) }.copy_from_slice(&data);
    stream_delay(s, 50);
    ok!(aclrtMemcpyAsync(
        dev,
        4096,
        host,
        4096,
        ACL_MEMCPY_HOST_TO_DEVICE,
        s
    ));
    assert_eq!(acl!(aclrtFreeHost(host)), IN_USE);
    assert_eq!(violation_kinds(), vec![ViolationKind::ReleaseWhileInUse]);
    ok!(aclrtSynchronizeStream(s));
    assert_eq!(read_device(dev, 4096), data);
    free_host(host);
    free(dev);
    destroy_stream(s);
    teardown_device0();
    expect_violations(&[ViolationKind::ReleaseWhileInUse]);
}

#[test]
fn destroying_an_event_a_queued_wait_depends_on_is_recorded() {
    let _sim = refusing();
    init_device0();
    let a = create_stream();
    let b = create_stream();
    let e = create_event();
    let p = malloc(64);
    stream_delay(a, 40);
    ok!(aclrtMemsetAsync(p, 64, 1, 64, a));
    ok!(aclrtRecordEvent(e, a));
    // B's queue: a memset held back by its own delay, then the wait.
    stream_delay(b, 40);
    ok!(aclrtMemsetAsync(p, 64, 1, 64, b));
    ok!(aclrtStreamWaitEvent(b, e));
    assert_eq!(acl!(aclrtDestroyEvent(e)), ACL_ERROR_RT_EVENT_NOT_COMPLETE);
    assert_eq!(live(ResourceKind::Event, 0), 1);
    ok!(aclrtSynchronizeStream(b));
    ok!(aclrtSynchronizeStream(a));
    destroy_event(e);
    free(p);
    destroy_stream(a);
    destroy_stream(b);
    teardown_device0();
    expect_violations(&[ViolationKind::ReleaseWhileInUse]);
}

#[test]
fn force_destroying_a_stream_other_streams_wait_for_is_recorded() {
    let _sim = refusing();
    init_device0();
    let a = create_stream();
    let b = create_stream();
    let e = create_event();
    let p = malloc(64);
    stream_delay(a, 50);
    ok!(aclrtMemsetAsync(p, 64, 1, 64, a));
    ok!(aclrtRecordEvent(e, a));
    ok!(aclrtStreamWaitEvent(b, e));
    assert_eq!(acl!(aclrtDestroyStreamForce(a)), IN_USE);
    assert_eq!(live(ResourceKind::Stream, 0), 2);
    ok!(aclrtSynchronizeStream(b));
    ok!(aclrtSynchronizeStream(a));
    destroy_event(e);
    free(p);
    destroy_stream(a);
    destroy_stream(b);
    teardown_device0();
    expect_violations(&[ViolationKind::ReleaseWhileInUse]);
}

#[test]
fn memset_of_pageable_memory_is_a_kind_mismatch() {
    let _sim = refusing();
    init_device0();
    let mut mine = vec![7u8; 64];
    assert_eq!(
        acl!(aclrtMemset(mine.as_mut_ptr().cast(), 64, 0, 64)),
        KIND_MISMATCH
    );
    assert_eq!(mine, vec![7u8; 64]);
    teardown_device0();
    expect_violations(&[ViolationKind::KindMismatch]);
}

#[test]
fn destroying_a_context_with_a_live_stream_is_recorded() {
    let _sim = refusing();
    init_device0();
    let ctx = create_context(0);
    let s = create_stream();
    let code = acl!(aclrtDestroyContext(ctx));
    assert_eq!(code, LIVE_CHILDREN);
    let v = only_violation();
    assert_eq!(v.kind, ViolationKind::ReleaseWithLiveChildren);
    assert_eq!(v.function, "aclrtDestroyContext");
    // Proper order works.
    destroy_stream(s);
    ok!(aclrtDestroyContext(ctx));
    teardown_device0();
    expect_violations(&[ViolationKind::ReleaseWithLiveChildren]);
}

#[test]
fn destroying_a_context_with_live_memory_is_recorded() {
    let _sim = refusing();
    init_device0();
    let ctx = create_context(0);
    let p = malloc(64);
    assert_eq!(acl!(aclrtDestroyContext(ctx)), LIVE_CHILDREN);
    free(p);
    ok!(aclrtDestroyContext(ctx));
    teardown_device0();
    expect_violations(&[ViolationKind::ReleaseWithLiveChildren]);
}

#[test]
fn destroying_a_context_with_a_live_event_is_recorded() {
    let _sim = refusing();
    init_device0();
    let ctx = create_context(0);
    let e = create_event();
    assert_eq!(acl!(aclrtDestroyContext(ctx)), LIVE_CHILDREN);
    destroy_event(e);
    ok!(aclrtDestroyContext(ctx));
    teardown_device0();
    expect_violations(&[ViolationKind::ReleaseWithLiveChildren]);
}

#[test]
fn reset_device_with_live_memory_is_recorded() {
    let _sim = refusing();
    init_device0();
    let p = malloc(64);
    let code = acl!(aclrtResetDevice(0));
    assert_eq!(code, LIVE_CHILDREN);
    let v = only_violation();
    assert_eq!(v.kind, ViolationKind::ResetWithLiveResources);
    assert_eq!(v.function, "aclrtResetDevice");
    assert_eq!(v.code, code);
    // Rejected: the device is still set and the memory usable.
    assert_eq!(live(ResourceKind::Device, 0), 1);
    ok!(aclrtMemset(p, 64, 1, 64));
    free(p);
    teardown_device0();
    expect_violations(&[ViolationKind::ResetWithLiveResources]);
}

#[test]
fn reset_device_with_live_stream_is_recorded() {
    let _sim = refusing();
    init_device0();
    let s = create_stream();
    assert_eq!(acl!(aclrtResetDevice(0)), LIVE_CHILDREN);
    destroy_stream(s);
    teardown_device0();
    expect_violations(&[ViolationKind::ResetWithLiveResources]);
}

#[test]
fn reset_device_with_live_context_is_recorded() {
    let _sim = refusing();
    init_device0();
    let c = create_context(0);
    assert_eq!(acl!(aclrtResetDevice(0)), LIVE_CHILDREN);
    ok!(aclrtDestroyContext(c));
    teardown_device0();
    expect_violations(&[ViolationKind::ResetWithLiveResources]);
}

#[test]
fn reset_device_force_with_live_event_is_recorded() {
    let _sim = refusing();
    init_device0();
    let e = create_event();
    assert_eq!(acl!(aclrtResetDeviceForce(0)), LIVE_CHILDREN);
    destroy_event(e);
    ok!(aclrtResetDeviceForce(0));
    finalize();
    expect_violations(&[ViolationKind::ResetWithLiveResources]);
}

#[test]
fn non_final_reset_with_live_memory_is_fine() {
    let session = device0();
    ok!(aclrtSetDevice(0));
    let p = malloc(64);
    // Not the last reference: nothing is released, nothing to complain about.
    ok!(aclrtResetDevice(0));
    free(p);
    session.finish();
}

#[test]
fn stream_of_another_context_is_recorded_as_wrong_context() {
    let _sim = refusing();
    init_device0();
    let s = create_stream();
    let ctx = create_context(0);
    let code = acl!(aclrtSynchronizeStreamWithTimeout(s, -1));
    // Synchronize switches context (allowed); a memset does not.
    assert_eq!(code, ACL_SUCCESS);
    let p = malloc(64);
    assert_eq!(
        acl!(aclrtMemsetAsync(p, 64, 0, 64, s)),
        ACL_ERROR_RT_STREAM_CONTEXT
    );
    let v = only_violation();
    assert_eq!(v.kind, ViolationKind::WrongContext);
    assert_eq!(v.code, ACL_ERROR_RT_STREAM_CONTEXT);
    assert_eq!(v.function, "aclrtMemsetAsync");
    free(p);
    ok!(aclrtDestroyContext(ctx));
    // The destroyed context was current: the thread has none now.
    rebind(0);
    destroy_stream(s);
    teardown_device0();
    expect_violations(&[ViolationKind::WrongContext]);
}

#[test]
fn never_created_event_handle_is_an_invalid_handle() {
    let _sim = refusing();
    init_device0();
    let mut junk = [0u64; 4];
    let fake: aclrtEvent = junk.as_mut_ptr().cast();
    assert_eq!(
        acl!(aclrtRecordEvent(fake, null_mut())),
        ACL_ERROR_RT_INVALID_HANDLE
    );
    assert_eq!(junk, [0; 4]);
    teardown_device0();
    expect_violations(&[ViolationKind::InvalidHandle]);
}

#[test]
fn destroyed_event_is_a_use_after_free() {
    let _sim = refusing();
    init_device0();
    let e = create_event();
    destroy_event(e);
    assert_eq!(
        acl!(aclrtRecordEvent(e, null_mut())),
        ACL_ERROR_RT_INVALID_HANDLE
    );
    teardown_device0();
    expect_violations(&[ViolationKind::UseAfterFree]);
}

#[test]
fn cross_device_copy_without_peer_access_is_recorded() {
    let _sim = refusing();
    init();
    ok!(aclrtSetDevice(1));
    let on1 = malloc(64);
    ok!(aclrtSetDevice(0));
    let on0 = malloc(64);
    let code = acl!(aclrtMemcpy(on1, 64, on0, 64, ACL_MEMCPY_DEVICE_TO_DEVICE));
    assert_eq!(code, NO_PEER);
    free(on0);
    free(on1);
    ok!(aclrtResetDevice(0));
    ok!(aclrtResetDevice(1));
    finalize();
    expect_violations(&[ViolationKind::CrossDeviceWithoutPeerAccess]);
}

#[test]
fn correct_programs_record_no_violation() {
    let session = device0();
    let s = create_stream();
    let e = create_event();
    let dev = malloc(1 << 16);
    let host = malloc_host(1 << 16);
    ok!(aclrtMemsetAsync(dev, 1 << 16, 1, 1 << 16, s));
    ok!(aclrtMemcpyAsync(
        host,
        1 << 16,
        dev,
        1 << 16,
        ACL_MEMCPY_DEVICE_TO_HOST,
        s
    ));
    ok!(aclrtRecordEvent(e, s));
    ok!(aclrtSynchronizeEvent(e));
    // SAFETY: the event covered the copy, so the buffer is final.
    assert!(unsafe { host_slice(host, 1 << 16) }.iter().all(|&b| b == 1));
    destroy_event(e);
    destroy_stream(s);
    free(dev);
    free_host(host);
    session.finish();
}

#[test]
fn waiting_on_an_event_of_another_device_is_a_wrong_context() {
    let _sim = refusing();
    init();
    ok!(aclrtSetDevice(1));
    let e1 = create_event();
    ok!(aclrtRecordEvent(e1, null_mut()));
    ok!(aclrtSynchronizeEvent(e1));
    ok!(aclrtSetDevice(0));
    let s0 = create_stream();
    assert_eq!(
        acl!(aclrtStreamWaitEvent(s0, e1)),
        ACL_ERROR_RT_STREAM_CONTEXT
    );
    destroy_stream(s0);
    ok!(aclrtSetDevice(1));
    destroy_event(e1);
    for d in [1, 1, 0] {
        ok!(aclrtResetDevice(d));
    }
    finalize();
    expect_violations(&[ViolationKind::WrongContext]);
}

#[test]
fn finalize_with_a_busy_stream_tears_down_and_reports_leaks() {
    let _sim = refusing();
    init_device0();
    let s = create_stream();
    let p = malloc(4096);
    stream_delay(s, 30);
    for v in 0..4 {
        ok!(aclrtMemsetAsync(p, 4096, v, 4096, s));
    }
    assert_eq!(acl!(aclFinalize()), LIVE_CHILDREN);
    let audit = aclrt_sim::audit();
    assert!(!audit.initialized);
    assert!(audit.live.values().all(|&n| n == 0), "{:?}", audit.live);
    let kinds: Vec<ResourceKind> = audit.leaks.iter().map(|l| l.kind).collect();
    for k in [
        ResourceKind::Device,
        ResourceKind::Stream,
        ResourceKind::DeviceMemory,
    ] {
        assert!(kinds.contains(&k), "{k:?} not among the leaks {kinds:?}");
    }
    assert_eq!(
        violation_kinds(),
        vec![ViolationKind::FinalizeWithLiveResources]
    );
    // A fresh runtime works after such a teardown.
    aclrt_sim::reset();
    init_device0();
    let q = malloc(64);
    free(q);
    teardown_device0();
    assert_clean();
}

// ------------------------------------------------------------ rule families, one runtime each

#[test]
fn out_of_bounds_copy_and_memset() {
    let _sim = refusing();
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
    assert_eq!(violation_kinds().len(), 2);
    ok!(aclrtFree(d));
    teardown_device0();
}

#[test]
fn kind_mismatches_in_host_mode() {
    let _sim = refusing();
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
    assert_eq!(violation_kinds(), vec![ViolationKind::KindMismatch; 3]);
    ok!(aclrtFree(a));
    ok!(aclrtFree(b));
    ok!(aclrtFreeHost(pinned));
    teardown_device0();
}

#[test]
fn device_run_mode_accepts_every_kind() {
    let _sim = refusing();
    aclrt_sim::configure(SimConfig {
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
    assert_clean();
}

#[test]
fn frees_double_foreign_interior_wrong_function() {
    let _sim = refusing();
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
    assert_eq!(violation_kinds(), vec![ViolationKind::ForeignFree; 4]);
    ok!(aclrtFree(p));
    ok!(aclrtFreeHost(h));
    assert_eq!(acl!(aclrtFree(p)), ACL_ERROR_RT_MEMORY_FREE);
    assert_eq!(
        aclrt_sim::audit().violations[4].kind,
        ViolationKind::DoubleFree
    );
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
    assert_eq!(
        aclrt_sim::audit().violations[5].kind,
        ViolationKind::UseAfterFree
    );
    teardown_device0();
}

#[test]
fn release_order_checks_leave_state_unchanged() {
    let _sim = refusing();
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
        aclrt_sim::audit().violations[1].kind,
        ViolationKind::ResetWithLiveResources
    );
    assert_eq!(
        aclrt_sim::audit().live[&(ResourceKind::Device, 0)],
        1,
        "refcount unchanged"
    );
    ok!(aclrtDestroyStream(s));
    ok!(aclrtDestroyContext(ctx));
    teardown_device0();
    assert_eq!(violation_kinds().len(), 2);
}

/// `aclFinalize` with live resources (device memory, pinned host memory, a
/// stream whose host function still runs, an event): refused, recorded
/// once, every leak reported with its address (and the memory's size and
/// device), everything torn down; the process can go on, and a reset
/// leaves the simulator clean.
#[test]
fn finalize_with_live_resources_tears_down_and_reports_leaks() {
    let _sim = refusing();
    init_device0();
    let p = malloc(100);
    let h = malloc_host(200);
    let s = create_stream();
    let e = create_event();
    ok!(aclrtLaunchHostFunc(s, Some(sleep_ms), ms_arg(20)));
    let code = acl!(aclFinalize());
    assert_eq!(code, ACL_ERROR_RT_CONTEXT_RELEASE_ERROR);
    assert_eq!(code, LIVE_CHILDREN);
    let audit = aclrt_sim::audit();
    assert_eq!(audit.violations.len(), 1, "{:#?}", audit.violations);
    assert_eq!(
        (audit.violations[0].kind, audit.violations[0].function),
        (ViolationKind::FinalizeWithLiveResources, "aclFinalize")
    );
    let mut leaks: Vec<(ResourceKind, usize)> =
        audit.leaks.iter().map(|l| (l.kind, l.address)).collect();
    leaks.sort();
    let mut expected = vec![
        (ResourceKind::Device, 0),
        (ResourceKind::Stream, s.addr()),
        (ResourceKind::Event, e.addr()),
        (ResourceKind::DeviceMemory, p.addr()),
        (ResourceKind::HostMemory, h.addr()),
    ];
    expected.sort();
    assert_eq!(leaks, expected);
    let leak_of = |kind: ResourceKind| audit.leaks.iter().find(|l| l.kind == kind);
    let mem = leak_of(ResourceKind::DeviceMemory).expect("device memory leak");
    assert_eq!((mem.address, mem.device), (p as usize, 0));
    assert!(mem.bytes >= 100, "{mem:?}");
    let host = leak_of(ResourceKind::HostMemory).expect("host memory leak");
    assert!(host.bytes >= 200, "{host:?}");
    // Finalize tore everything down regardless.
    assert!(
        audit.live.is_empty() && !audit.initialized,
        "{:?}",
        audit.live
    );
    // The process can go on.
    init_device0();
    teardown_device0();
    aclrt_sim::reset();
    assert_clean();
}

#[test]
fn handles_wrong_context_invalid_destroyed() {
    let _sim = refusing();
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
    // The destroyed context was current: the thread has none now.
    rebind(0);
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
        violation_kinds(),
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
    let _sim = refusing();
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
    assert_eq!(violation_kinds().len(), 2);
}

#[test]
fn destroying_an_event_or_stream_a_queued_wait_depends_on() {
    let _sim = refusing();
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
    assert_eq!(violation_kinds(), vec![ViolationKind::ReleaseWhileInUse; 2]);
    ok!(aclrtSynchronizeStream(b));
    ok!(aclrtDestroyEvent(e));
    ok!(aclrtDestroyStreamForce(a));
    ok!(aclrtDestroyStream(b));
    teardown_device0();
}

#[test]
fn event_rules() {
    let session = device0();
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
    // Each refused use of an event's flags is a recorded violation: query
    // and reset of an Ex event, a wait on a time-line-only event, timing a
    // never-recorded event.
    teardown_device0();
    expect_violations(&[
        ViolationKind::EventFlagMismatch,
        ViolationKind::EventFlagMismatch,
        ViolationKind::EventFlagMismatch,
        ViolationKind::EventNotRecorded,
    ]);
    drop(session);
}
