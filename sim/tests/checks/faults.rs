//! Fault injection: failing the Nth call of a function, device faults of
//! queued tasks reported at synchronisation, out of memory, task latency.

use crate::common;
use common::*;

#[test]
fn inject_fault_fails_exactly_the_nth_call() {
    let session = device0();
    aclrt_sim::inject_fault("aclrtMalloc", 2, ACL_ERROR_RT_MEMORY_ALLOCATION);
    let first = malloc(64);
    let mut p: *mut c_void = null_mut();
    assert_eq!(
        acl!(aclrtMalloc(&mut p, 64, ACL_MEM_MALLOC_HUGE_FIRST)),
        ACL_ERROR_RT_MEMORY_ALLOCATION
    );
    assert!(p.is_null(), "a failed call must not allocate");
    assert_eq!(live(ResourceKind::DeviceMemory, 0), 1);
    let third = malloc(64);
    free(first);
    free(third);
    session.finish();
}

#[test]
fn injected_fault_does_nothing_and_sets_the_error_message() {
    let session = device0();
    let dev = malloc(64);
    ok!(aclrtMemset(dev, 64, 0, 64));
    aclrt_sim::inject_fault("aclrtMemset", 1, ACL_ERROR_RT_INTERNAL_ERROR);
    assert_eq!(
        acl!(aclrtMemset(dev, 64, 0xff, 64)),
        ACL_ERROR_RT_INTERNAL_ERROR
    );
    let msg = recent_err_msg();
    assert!(msg.is_some_and(|m| !m.is_empty()));
    assert_eq!(read_device(dev, 64), vec![0; 64]);
    free(dev);
    session.finish();
}

#[test]
fn inject_fault_counts_calls_from_now() {
    let _sim = aclrt_sim::exclusive();
    init();
    let mut n = 0u32;
    ok!(aclrtGetDeviceCount(&mut n));
    ok!(aclrtGetDeviceCount(&mut n));
    aclrt_sim::inject_fault("aclrtGetDeviceCount", 1, 500_001);
    assert_eq!(acl!(aclrtGetDeviceCount(&mut n)), 500_001);
    ok!(aclrtGetDeviceCount(&mut n));
    finalize();
    assert_clean();
}

#[test]
fn injected_set_device_fault_leaves_nothing_bound() {
    let _sim = aclrt_sim::exclusive();
    init();
    aclrt_sim::inject_fault("aclrtSetDevice", 1, ACL_ERROR_RT_DEV_SETUP_ERROR);
    assert_eq!(acl!(aclrtSetDevice(0)), ACL_ERROR_RT_DEV_SETUP_ERROR);
    assert_eq!(live(ResourceKind::Device, 0), 0);
    let mut d = -1;
    assert_eq!(acl!(aclrtGetDevice(&mut d)), ACL_ERROR_RT_CONTEXT_NULL);
    finalize();
    assert_clean();
}

#[test]
fn clear_faults_removes_pending_injections() {
    let session = device0();
    aclrt_sim::inject_fault("aclrtMalloc", 1, ACL_ERROR_RT_MEMORY_ALLOCATION);
    aclrt_sim::inject_task_fault(1, ACL_ERROR_RT_AICORE_EXCEPTION);
    aclrt_sim::clear_faults();
    let p = malloc(64);
    ok!(aclrtMemsetAsync(p, 64, 1, 64, null_mut()));
    ok!(aclrtSynchronizeStream(null_mut()));
    assert_eq!(read_device(p, 64), vec![1; 64]);
    free(p);
    session.finish();
}

#[test]
fn task_fault_surfaces_at_stream_synchronize() {
    let session = device0();
    let s = create_stream();
    let p = malloc(64);
    ok!(aclrtMemset(p, 64, 0, 64));
    aclrt_sim::inject_task_fault(1, ACL_ERROR_RT_AICORE_EXCEPTION);
    // Enqueueing succeeds: the fault happens on the device.
    ok!(aclrtMemsetAsync(p, 64, 0xee, 64, s));
    assert_eq!(
        acl!(aclrtSynchronizeStream(s)),
        ACL_ERROR_RT_AICORE_EXCEPTION
    );
    // The faulted task did nothing.
    assert_eq!(read_device(p, 64), vec![0; 64]);
    // Reported once.
    ok!(aclrtSynchronizeStream(s));
    free(p);
    destroy_stream(s);
    session.finish();
}

#[test]
fn task_fault_hits_only_the_nth_task() {
    let session = device0();
    let s = create_stream();
    let p = malloc(64);
    let q = malloc(64);
    let r = malloc(64);
    aclrt_sim::inject_task_fault(2, ACL_ERROR_RT_AICORE_EXCEPTION);
    ok!(aclrtMemsetAsync(p, 64, 1, 64, s));
    ok!(aclrtMemsetAsync(q, 64, 2, 64, s));
    ok!(aclrtMemsetAsync(r, 64, 3, 64, s));
    assert_eq!(
        acl!(aclrtSynchronizeStream(s)),
        ACL_ERROR_RT_AICORE_EXCEPTION
    );
    assert_eq!(read_device(p, 64), vec![1; 64]);
    assert_ne!(read_device(q, 64), vec![2; 64]);
    for x in [p, q, r] {
        free(x);
    }
    destroy_stream(s);
    session.finish();
}

#[test]
fn task_fault_is_not_reported_by_event_synchronize_but_by_the_next_stream_sync() {
    // FIDELITY EVENT-S-4: the runtime's event synchronisation waits for the
    // record task and returns success; the fault stays on the stream.
    let session = device0();
    let s = create_stream();
    let e = create_event();
    let p = malloc(64);
    aclrt_sim::inject_task_fault(1, ACL_ERROR_RT_AICORE_EXCEPTION);
    ok!(aclrtMemsetAsync(p, 64, 1, 64, s));
    ok!(aclrtRecordEvent(e, s));
    ok!(aclrtSynchronizeEvent(e));
    ok!(aclrtSynchronizeEventWithTimeout(e, 1000));
    assert_eq!(
        acl!(aclrtSynchronizeStream(s)),
        ACL_ERROR_RT_AICORE_EXCEPTION
    );
    // Reported once: the stream synchronises cleanly afterwards.
    ok!(aclrtSynchronizeStream(s));
    free(p);
    destroy_event(e);
    destroy_stream(s);
    session.finish();
}

#[test]
fn task_fault_surfaces_at_device_synchronize() {
    let session = device0();
    let s = create_stream();
    let p = malloc(64);
    aclrt_sim::inject_task_fault(1, ACL_ERROR_RT_AICORE_EXCEPTION);
    ok!(aclrtMemsetAsync(p, 64, 1, 64, s));
    assert_eq!(
        acl!(aclrtSynchronizeDevice()),
        ACL_ERROR_RT_AICORE_EXCEPTION
    );
    free(p);
    destroy_stream(s);
    session.finish();
}

#[test]
fn task_fault_counts_tasks_over_all_streams() {
    let session = device0();
    let a = create_stream();
    let b = create_stream();
    let p = malloc(64);
    let q = malloc(64);
    aclrt_sim::inject_task_fault(2, ACL_ERROR_RT_AICORE_EXCEPTION);
    ok!(aclrtMemsetAsync(p, 64, 1, 64, a));
    ok!(aclrtMemsetAsync(q, 64, 2, 64, b));
    ok!(aclrtSynchronizeStream(a));
    assert_eq!(
        acl!(aclrtSynchronizeStream(b)),
        ACL_ERROR_RT_AICORE_EXCEPTION
    );
    assert_eq!(read_device(p, 64), vec![1; 64]);
    free(p);
    free(q);
    destroy_stream(a);
    destroy_stream(b);
    session.finish();
}

#[test]
fn configured_task_delay_applies_to_every_task() {
    let _sim = aclrt_sim::exclusive();
    configure(|c| c.task_delay = Duration::from_millis(30));
    init_device0();
    let s = create_stream();
    let p = malloc(64);
    let t0 = Instant::now();
    ok!(aclrtMemsetAsync(p, 64, 1, 64, s));
    assert_eq!(stream_status(s), ACL_STREAM_STATUS_NOT_READY);
    ok!(aclrtSynchronizeStream(s));
    assert!(
        t0.elapsed() >= Duration::from_millis(25),
        "{:?}",
        t0.elapsed()
    );
    free(p);
    destroy_stream(s);
    teardown_device0();
    assert_clean();
}

#[test]
fn out_of_memory_injection_surfaces_as_malloc_error() {
    let _sim = aclrt_sim::exclusive();
    configure(|c| c.memory_per_device = Some(1 << 20));
    init_device0();
    let mut ptrs = Vec::new();
    let mut code = ACL_SUCCESS;
    for _ in 0..64 {
        let mut p: *mut c_void = null_mut();
        code = acl!(aclrtMalloc(&mut p, 64 << 10, ACL_MEM_MALLOC_NORMAL_ONLY));
        if code != ACL_SUCCESS {
            break;
        }
        ptrs.push(p);
    }
    assert_eq!(code, ACL_ERROR_RT_MEMORY_ALLOCATION);
    assert!(
        (1..=16).contains(&ptrs.len()),
        "{} allocations of 64 KiB fit in 1 MiB",
        ptrs.len()
    );
    for p in ptrs {
        free(p);
    }
    teardown_device0();
    assert_clean();
}

/// `aclrtStreamWaitEvent` for a record that has already executed queues no
/// task (the runtime's `Event::WaitSendCheck`: "record has been execute,
/// wait return suc"), so it takes no number of `inject_stream_task_fault`:
/// the fault meant for "the next task" lands on the task after the wait.
/// For a record still pending, the wait is a task and takes the fault.
/// Tests that number a lane's tasks across a hand-off must hold the
/// recording stream (a gate) until the wait is queued.
#[test]
fn a_wait_for_an_executed_record_is_no_task_and_takes_no_fault_number() {
    let _sim = aclrt_sim::exclusive();
    in_both_run_modes(|mode| {
        init_device0();
        let (a, b) = (create_stream(), create_stream());
        let e = create_event();
        let (p, q) = (malloc(64), malloc(64));
        ok!(aclrtMemset(p, 64, 0, 64));
        ok!(aclrtMemset(q, 64, 0, 64));
        // Executed: the wait queues nothing; the memset is b's first task.
        ok!(aclrtRecordEvent(e, a));
        ok!(aclrtSynchronizeStream(a));
        aclrt_sim::inject_stream_task_fault(b, 1, ACL_ERROR_RT_AICORE_EXCEPTION);
        ok!(aclrtStreamWaitEvent(b, e));
        ok!(aclrtMemsetAsync(p, 64, 1, 64, b));
        assert_eq!(
            acl!(aclrtSynchronizeStream(b)),
            ACL_ERROR_RT_AICORE_EXCEPTION,
            "{mode:?}"
        );
        assert_eq!(read_device(p, 64), vec![0; 64], "{mode:?}: the memset ran");
        // Pending (a held at a gate): the wait is b's first task and fails;
        // the memset after it runs.
        let gate = Gate::new();
        ok!(aclrtLaunchHostFunc(a, Some(pass_gate), gate.arg()));
        ok!(aclrtRecordEvent(e, a));
        aclrt_sim::inject_stream_task_fault(b, 1, ACL_ERROR_RT_AICORE_EXCEPTION);
        ok!(aclrtStreamWaitEvent(b, e));
        ok!(aclrtMemsetAsync(q, 64, 2, 64, b));
        gate.open();
        assert_eq!(
            acl!(aclrtSynchronizeStream(b)),
            ACL_ERROR_RT_AICORE_EXCEPTION,
            "{mode:?}"
        );
        ok!(aclrtSynchronizeStream(a));
        assert!(gate.left_opened());
        assert_eq!(
            read_device(q, 64),
            vec![2; 64],
            "{mode:?}: the wait took the fault"
        );
        free(p);
        free(q);
        destroy_event(e);
        destroy_stream(a);
        destroy_stream(b);
        teardown_device0();
        assert_clean();
    });
}
