//! Stream failure mode (F.2), the per-thread last error (F.3) and forced
//! release (F.9), through the C ABI.

use crate::common;
use common::*;

const STOP: u64 = ACL_STOP_ON_FAILURE as u64;
const CONTINUE: u64 = ACL_CONTINUE_ON_FAILURE as u64;

#[test]
fn continue_mode_keeps_running_after_a_failed_task() {
    let _sim = aclrt_sim::exclusive();
    in_both_run_modes(|_| {
        init_device0();
        let s = create_stream();
        let p = malloc(64);
        ok!(aclrtMemset(p, 64, 0, 64));
        ok!(aclrtSetStreamFailureMode(s, CONTINUE));
        aclrt_sim::inject_task_fault(1, ACL_ERROR_RT_AICORE_EXCEPTION);
        ok!(aclrtMemsetAsync(p, 32, 1, 32, s)); // faults
        ok!(aclrtMemsetAsync(p, 64, 2, 64, s)); // still runs
        assert_eq!(
            acl!(aclrtSynchronizeStream(s)),
            ACL_ERROR_RT_AICORE_EXCEPTION
        );
        assert_eq!(read_device(p, 64), vec![2; 64]);
        // New submissions are accepted; the fault was reported once.
        ok!(aclrtMemsetAsync(p, 64, 3, 64, s));
        ok!(aclrtSynchronizeStream(s));
        assert_eq!(read_device(p, 64), vec![3; 64]);
        free(p);
        destroy_stream(s);
        teardown_device0();
        assert_clean();
    });
}

#[test]
fn stop_mode_latches_the_whole_context() {
    let _sim = aclrt_sim::exclusive();
    in_both_run_modes(|_| {
        init_device0();
        let s = create_stream();
        let other = create_stream();
        let p = malloc(64);
        ok!(aclrtMemset(p, 64, 0, 64));
        ok!(aclrtSetStreamFailureMode(s, STOP));
        // Same mode again: 0. Back to CONTINUE, on this or another stream
        // of the context: 207000 (one-way, context-wide).
        ok!(aclrtSetStreamFailureMode(s, STOP));
        assert_eq!(
            acl!(aclrtSetStreamFailureMode(s, CONTINUE)),
            ACL_ERROR_RT_FEATURE_NOT_SUPPORT
        );
        assert_eq!(
            acl!(aclrtSetStreamFailureMode(other, CONTINUE)),
            ACL_ERROR_RT_FEATURE_NOT_SUPPORT
        );
        // Only bit 0 is read: 2 acts as CONTINUE (rejected), 3 as STOP.
        assert_eq!(
            acl!(aclrtSetStreamFailureMode(s, 2)),
            ACL_ERROR_RT_FEATURE_NOT_SUPPORT
        );
        ok!(aclrtSetStreamFailureMode(s, 3));

        let ev = create_event();
        stream_delay(s, 20);
        aclrt_sim::inject_task_fault(1, ACL_ERROR_RT_AICORE_EXCEPTION);
        ok!(aclrtMemsetAsync(p, 32, 1, 32, s)); // faults
        ok!(aclrtMemsetAsync(p, 64, 2, 64, s)); // skipped
        ok!(aclrtRecordEvent(ev, s)); // still fires
        ok!(aclrtStreamWaitEvent(other, ev)); // the waiter is released
        // An event synchronisation reports the context's stored failure in
        // this mode (`Context::CheckStatus`; FIDELITY EVENT-S-4).
        assert_eq!(
            acl!(aclrtSynchronizeEvent(ev)),
            ACL_ERROR_RT_AICORE_EXCEPTION
        );
        // (It does not hang; it reports the context's stored failure.)
        assert_eq!(
            acl!(aclrtSynchronizeStream(other)),
            ACL_ERROR_RT_AICORE_EXCEPTION
        );
        assert_eq!(
            acl!(aclrtSynchronizeStream(s)),
            ACL_ERROR_RT_AICORE_EXCEPTION
        );
        assert_eq!(read_device(p, 64), vec![0; 64], "later tasks did not run");
        // From now on: every submission on any stream of the context fails
        // with the stored code, every synchronisation returns it.
        assert_eq!(
            acl!(aclrtMemsetAsync(p, 64, 4, 64, s)),
            ACL_ERROR_RT_AICORE_EXCEPTION
        );
        assert_eq!(
            acl!(aclrtMemsetAsync(p, 64, 4, 64, other)),
            ACL_ERROR_RT_AICORE_EXCEPTION
        );
        assert_eq!(
            acl!(aclrtMemsetAsync(p, 64, 4, 64, null_mut())),
            ACL_ERROR_RT_AICORE_EXCEPTION
        );
        assert!(recent_err_msg().unwrap().contains("stop-on-failure"));
        // An event record is a submission too, even on an idle stream.
        assert_eq!(
            acl!(aclrtRecordEvent(ev, other)),
            ACL_ERROR_RT_AICORE_EXCEPTION
        );
        assert_eq!(
            acl!(aclrtSynchronizeStream(s)),
            ACL_ERROR_RT_AICORE_EXCEPTION
        );
        assert_eq!(
            acl!(aclrtSynchronizeStream(other)),
            ACL_ERROR_RT_AICORE_EXCEPTION
        );
        assert_eq!(
            acl!(aclrtSynchronizeDevice()),
            ACL_ERROR_RT_AICORE_EXCEPTION
        );
        assert_eq!(read_device(p, 64), vec![0; 64]);
        // The failed streams can still be destroyed; a new context is clean.
        destroy_event(ev);
        destroy_stream(s);
        destroy_stream(other);
        free(p);
        let ctx = create_context(0);
        let q = malloc(64);
        ok!(aclrtMemsetAsync(q, 64, 6, 64, null_mut()));
        ok!(aclrtSynchronizeStream(null_mut()));
        free(q);
        ok!(aclrtDestroyContext(ctx));
        // Resetting the device clears the latch of its default context.
        teardown_device0();
        assert_clean();
    });
}

#[test]
fn stop_cannot_be_set_on_a_stream_that_already_failed() {
    let session = device0();
    let s = create_stream();
    let p = malloc(64);
    aclrt_sim::inject_task_fault(1, ACL_ERROR_RT_AICORE_EXCEPTION);
    ok!(aclrtMemsetAsync(p, 64, 1, 64, s));
    assert_eq!(
        acl!(aclrtSynchronizeStream(s)),
        ACL_ERROR_RT_AICORE_EXCEPTION
    );
    assert_eq!(
        acl!(aclrtSetStreamFailureMode(s, STOP)),
        ACL_ERROR_RT_FEATURE_NOT_SUPPORT
    );
    free(p);
    destroy_stream(s);
    session.finish();
}

#[test]
fn failure_mode_handle_and_context_checks() {
    let _sim = aclrt_sim::exclusive();
    init();
    assert_eq!(
        acl!(aclrtSetStreamFailureMode(null_mut(), STOP)),
        ACL_ERROR_RT_CONTEXT_NULL
    );
    ok!(aclrtSetDevice(0));
    let s = create_stream();
    let use_only = {
        let mut st = null_mut();
        ok!(aclrtCreateStreamWithConfig(
            &mut st,
            0,
            ACL_STREAM_DEVICE_USE_ONLY
        ));
        st
    };
    assert_eq!(
        acl!(aclrtSetStreamFailureMode(use_only, STOP)),
        ACL_ERROR_RT_FEATURE_NOT_SUPPORT
    );
    destroy_stream(use_only);
    let ctx = create_context(1);
    assert_eq!(
        acl!(aclrtSetStreamFailureMode(s, STOP)),
        ACL_ERROR_RT_STREAM_CONTEXT
    );
    ok!(aclrtDestroyContext(ctx));
    ok!(aclrtSetDevice(0));
    destroy_stream(s);
    assert_eq!(
        acl!(aclrtSetStreamFailureMode(s, STOP)),
        ACL_ERROR_RT_INVALID_HANDLE
    );
    // NULL is the default stream (allowed on the simulated A2).
    ok!(aclrtSetStreamFailureMode(null_mut(), STOP));
    ok!(aclrtResetDevice(0));
    ok!(aclrtResetDevice(0));
    finalize();
    expect_violations(&[ViolationKind::WrongContext, ViolationKind::UseAfterFree]);
}

// ------------------------------------------------------------ last error

#[test]
fn last_error_is_per_thread_sticky_and_taken_by_get() {
    let session = device0();
    let level = ACL_RT_THREAD_LEVEL;
    assert_eq!(acl!(aclrtPeekAtLastError(level)), ACL_SUCCESS);
    // An rt-layer failure is stored ...
    let mut p = null_mut();
    assert_eq!(acl!(aclrtSetDevice(99)), ACL_ERROR_RT_INVALID_DEVICEID);
    assert_eq!(
        acl!(aclrtPeekAtLastError(level)),
        ACL_ERROR_RT_INVALID_DEVICEID
    );
    // ... and sticky: successes do not clear it, ACL-layer checks (100000)
    // do not overwrite it.
    ok!(aclrtMalloc(&mut p, 64, 0));
    assert_eq!(
        acl!(aclrtMalloc(null_mut(), 64, 0)),
        ACL_ERROR_INVALID_PARAM
    );
    assert_eq!(
        acl!(aclrtPeekAtLastError(level)),
        ACL_ERROR_RT_INVALID_DEVICEID
    );
    // A bad level: 100000, the stored value stays.
    assert_eq!(acl!(aclrtPeekAtLastError(1)), ACL_ERROR_INVALID_PARAM);
    assert_eq!(acl!(aclrtGetLastError(7)), ACL_ERROR_INVALID_PARAM);
    // Later rt failures overwrite it.
    assert_eq!(
        acl!(aclrtHostUnregister(p)),
        ACL_ERROR_HOST_MEMORY_NOT_REGISTERED
    );
    assert_eq!(
        acl!(aclrtPeekAtLastError(level)),
        ACL_ERROR_HOST_MEMORY_NOT_REGISTERED
    );
    // Per thread: another thread sees 0.
    let other = std::thread::spawn(|| {
        // SAFETY: reads a thread-local value; no pointer arguments.
        unsafe { aclrtPeekAtLastError(ACL_RT_THREAD_LEVEL) }
    })
    .join()
    .unwrap();
    assert_eq!(other, ACL_SUCCESS);
    // Get returns and clears.
    assert_eq!(
        acl!(aclrtGetLastError(level)),
        ACL_ERROR_HOST_MEMORY_NOT_REGISTERED
    );
    assert_eq!(acl!(aclrtGetLastError(level)), ACL_SUCCESS);
    // A device fault reported by a synchronisation is stored.
    aclrt_sim::inject_task_fault(1, ACL_ERROR_RT_AICORE_EXCEPTION);
    ok!(aclrtMemsetAsync(p, 64, 1, 64, null_mut()));
    assert_eq!(
        acl!(aclrtSynchronizeStream(null_mut())),
        ACL_ERROR_RT_AICORE_EXCEPTION
    );
    assert_eq!(
        acl!(aclrtGetLastError(level)),
        ACL_ERROR_RT_AICORE_EXCEPTION
    );
    // Query "not ready" answers are not failures; ResetDeviceForce failures
    // are not stored.
    assert_eq!(
        acl!(aclrtResetDeviceForce(1)),
        ACL_ERROR_RT_CONTEXT_RELEASE_ERROR
    );
    assert_eq!(acl!(aclrtPeekAtLastError(level)), ACL_SUCCESS);
    free(p);
    session.finish();
}

// ------------------------------------------------------------ forced release

#[test]
fn reset_device_force_drops_the_whole_count_and_enforces_its_order() {
    let _sim = aclrt_sim::exclusive();
    configure(|c| c.strictness = aclrt_sim::Strictness::Refuse); // the refusal is the point here
    init();
    // Never set: 507007.
    assert_eq!(
        acl!(aclrtResetDeviceForce(0)),
        ACL_ERROR_RT_CONTEXT_RELEASE_ERROR
    );
    assert_eq!(
        acl!(aclrtResetDeviceForce(99)),
        ACL_ERROR_RT_INVALID_DEVICEID
    );
    // Three sets from two threads; one Force releases them all.
    ok!(aclrtSetDevice(0));
    ok!(aclrtSetDevice(0));
    std::thread::spawn(|| {
        // SAFETY: no pointer arguments.
        assert_eq!(unsafe { aclrtSetDevice(0) }, ACL_SUCCESS);
    })
    .join()
    .unwrap();
    assert_eq!(live(ResourceKind::Device, 0), 3);
    // Pending work of the default stream is waited for.
    let flag = AtomicBool::new(false);
    ok!(aclrtLaunchHostFunc(
        null_mut(),
        Some(block_until_set),
        flag_arg(&flag)
    ));
    let t = std::thread::scope(|sc| {
        sc.spawn(|| {
            std::thread::sleep(Duration::from_millis(50));
            flag.store(true, Ordering::Release);
        });
        let t0 = Instant::now();
        ok!(aclrtResetDeviceForce(0));
        t0.elapsed()
    });
    assert!(
        t >= Duration::from_millis(40),
        "Force waited for pending tasks"
    );
    assert_eq!(live(ResourceKind::Device, 0), 0);
    // Force after Force, plain reset after Force: 507007.
    assert_eq!(
        acl!(aclrtResetDeviceForce(0)),
        ACL_ERROR_RT_CONTEXT_RELEASE_ERROR
    );
    assert_eq!(
        acl!(aclrtResetDevice(0)),
        ACL_ERROR_RT_CONTEXT_RELEASE_ERROR
    );
    // Plain resets down to 0, then Force: 507007.
    ok!(aclrtSetDevice(0));
    ok!(aclrtResetDevice(0));
    assert_eq!(
        acl!(aclrtResetDeviceForce(0)),
        ACL_ERROR_RT_CONTEXT_RELEASE_ERROR
    );
    // The valid mix: plain resets paired with sets, Force last.
    ok!(aclrtSetDevice(0));
    ok!(aclrtSetDevice(0));
    ok!(aclrtResetDevice(0));
    ok!(aclrtResetDeviceForce(0));
    // A failed Force (live explicit resources) restores nothing to do: the
    // count stays, and the device still works.
    ok!(aclrtSetDevice(0));
    ok!(aclrtSetDevice(0));
    let s = create_stream();
    assert_eq!(
        acl!(aclrtResetDeviceForce(0)),
        ACL_ERROR_RT_CONTEXT_RELEASE_ERROR
    );
    assert_eq!(live(ResourceKind::Device, 0), 2);
    destroy_stream(s);
    ok!(aclrtResetDeviceForce(0));
    finalize();
    expect_violations(&[ViolationKind::ResetWithLiveResources]);
}

#[test]
fn destroy_stream_force_drops_pending_tasks_without_waiting() {
    let session = device0();
    let s = create_stream();
    let p = malloc(64);
    ok!(aclrtMemset(p, 64, 0, 64));
    let gate = Gate::new();
    ok!(aclrtLaunchHostFunc(s, Some(pass_gate), gate.arg()));
    ok!(aclrtMemsetAsync(p, 64, 1, 64, s));
    ok!(aclrtMemsetAsync(p, 64, 2, 64, s));
    ok!(aclrtDestroyStreamForce(s));
    // Returned while the stream was still held at the gate: no wait.
    assert!(!gate.left(), "Force waited");
    gate.open();
    // The running task may still touch the memory until the device is
    // synchronised; after that, the dropped task never ran.
    ok!(aclrtSynchronizeDevice());
    let got = read_device(p, 64);
    assert!(got == vec![0; 64] || got == vec![1; 64], "{got:?}");
    assert_eq!(
        acl!(aclrtDestroyStreamForce(s)),
        ACL_ERROR_RT_INVALID_HANDLE
    );
    assert_eq!(
        acl!(aclrtDestroyStreamForce(null_mut())),
        ACL_ERROR_INVALID_PARAM
    );
    free(p);
    expect_violations(&[ViolationKind::UseAfterFree]);
    drop(session);
}
