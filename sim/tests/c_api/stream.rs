//! Streams: creation, the NULL default stream, context binding, query,
//! synchronisation with timeouts, handle validation (acl-facts §5.4).

use crate::common;
use common::*;

#[test]
fn create_stream_without_context_returns_107002() {
    let _sim = aclrt_sim::exclusive();
    init();
    let mut s: aclrtStream = null_mut();
    assert_eq!(acl!(aclrtCreateStream(&mut s)), ACL_ERROR_RT_CONTEXT_NULL);
    assert!(s.is_null());
    finalize();
    assert_clean();
}

#[test]
fn create_stream_null_output_returns_100000() {
    let session = device0();
    assert_eq!(acl!(aclrtCreateStream(null_mut())), ACL_ERROR_INVALID_PARAM);
    session.finish();
}

#[test]
fn create_and_destroy_stream_tracks_live_streams() {
    let session = device0();
    let s1 = create_stream();
    let s2 = create_stream();
    assert_ne!(s1, s2);
    assert_eq!(live(ResourceKind::Stream, 0), 2);
    destroy_stream(s1);
    assert_eq!(live(ResourceKind::Stream, 0), 1);
    destroy_stream(s2);
    assert_eq!(live(ResourceKind::Stream, 0), 0);
    session.finish();
}

#[test]
fn destroy_default_stream_null_returns_100000() {
    let session = device0();
    assert_eq!(
        acl!(aclrtDestroyStream(null_mut())),
        ACL_ERROR_INVALID_PARAM
    );
    // The default stream still works.
    let p = malloc(64);
    ok!(aclrtMemsetAsync(p, 64, 3, 64, null_mut()));
    ok!(aclrtSynchronizeStream(null_mut()));
    assert_eq!(read_device(p, 64), vec![3; 64]);
    free(p);
    session.finish();
}

#[test]
fn null_stream_is_the_default_stream() {
    let session = device0();
    let host = malloc_host(4096);
    let dev = malloc(4096);
    let data = pattern(4096, 1);
    // SAFETY: `host` is a live 4096-byte pinned allocation, no task uses it.
    unsafe { host_slice(host, 4096) }.copy_from_slice(&data);
    ok!(aclrtMemcpyAsync(
        dev,
        4096,
        host,
        4096,
        ACL_MEMCPY_HOST_TO_DEVICE,
        null_mut()
    ));
    ok!(aclrtSynchronizeStream(null_mut()));
    assert_eq!(stream_status(null_mut()), ACL_STREAM_STATUS_COMPLETE);
    assert_eq!(read_device(dev, 4096), data);
    free(dev);
    free_host(host);
    session.finish();
}

#[test]
fn stream_of_other_context_returns_107003() {
    let _sim = aclrt_sim::exclusive();
    init_device0();
    let s_default_ctx = create_stream();
    let a = malloc(64);
    let b = malloc(64);
    let ctx = create_context(0);
    // ctx is current now; s_default_ctx belongs to the default context.
    assert_eq!(
        acl!(aclrtMemcpyAsync(
            b,
            64,
            a,
            64,
            ACL_MEMCPY_DEVICE_TO_DEVICE,
            s_default_ctx
        )),
        ACL_ERROR_RT_STREAM_CONTEXT
    );
    assert_eq!(ACL_ERROR_RT_STREAM_CONTEXT, 107003);
    ok!(aclrtDestroyContext(ctx));
    // The destroyed context was current: the thread has none now.
    rebind(0);
    free(a);
    free(b);
    destroy_stream(s_default_ctx);
    expect_violations(&[ViolationKind::WrongContext]);
}

#[test]
fn destroy_stream_of_other_context_returns_107003() {
    let _sim = aclrt_sim::exclusive();
    init_device0();
    let s = create_stream();
    let ctx = create_context(0);
    assert_eq!(acl!(aclrtDestroyStream(s)), ACL_ERROR_RT_STREAM_CONTEXT);
    ok!(aclrtDestroyContext(ctx));
    // The destroyed context was current: the thread has none now.
    rebind(0);
    // Back in the default context the stream can be destroyed.
    destroy_stream(s);
    teardown_device0();
    expect_violations(&[ViolationKind::WrongContext]);
}

#[test]
fn synchronize_stream_switches_to_the_streams_context() {
    let session = device0();
    let s = create_stream();
    let p = malloc(128);
    stream_delay(s, 20);
    ok!(aclrtMemsetAsync(p, 128, 9, 128, s));
    let ctx = create_context(0);
    // The stream belongs to the default context, ctx is current: allowed.
    ok!(aclrtSynchronizeStream(s));
    // The current context was not changed by the call.
    assert_eq!(current_context(), ctx);
    ok!(aclrtDestroyContext(ctx));
    // The destroyed context was current: the thread has none now.
    rebind(0);
    assert_eq!(stream_status(s), ACL_STREAM_STATUS_COMPLETE);
    assert_eq!(read_device(p, 128), vec![9; 128]);
    free(p);
    destroy_stream(s);
    session.finish();
}

#[test]
fn destroy_stream_waits_for_pending_tasks() {
    let session = device0();
    let s = create_stream();
    let p = malloc(1024);
    ok!(aclrtMemset(p, 1024, 0, 1024));
    stream_delay(s, 30);
    ok!(aclrtMemsetAsync(p, 1024, 0x5a, 1024, s));
    destroy_stream(s);
    // The queued memset ran before the destroy returned.
    assert_eq!(read_device(p, 1024), vec![0x5a; 1024]);
    free(p);
    session.finish();
}

#[test]
fn stream_query_reports_complete_on_an_idle_stream() {
    let session = device0();
    let s = create_stream();
    assert_eq!(stream_status(s), ACL_STREAM_STATUS_COMPLETE);
    assert_eq!(ACL_STREAM_STATUS_COMPLETE, 0);
    destroy_stream(s);
    session.finish();
}

#[test]
fn stream_query_reports_not_ready_while_a_task_is_pending() {
    let session = device0();
    let s = create_stream();
    let p = malloc(64);
    stream_delay(s, 50);
    ok!(aclrtMemsetAsync(p, 64, 1, 64, s));
    // Query returns success and reports NOT_READY (1).
    assert_eq!(stream_status(s), ACL_STREAM_STATUS_NOT_READY);
    ok!(aclrtSynchronizeStream(s));
    assert_eq!(stream_status(s), ACL_STREAM_STATUS_COMPLETE);
    free(p);
    destroy_stream(s);
    session.finish();
}

#[test]
fn stream_query_null_status_returns_100000() {
    let session = device0();
    let s = create_stream();
    assert_eq!(
        acl!(aclrtStreamQuery(s, null_mut())),
        ACL_ERROR_INVALID_PARAM
    );
    destroy_stream(s);
    session.finish();
}

#[test]
fn destroyed_stream_handle_returns_107017() {
    let _sim = aclrt_sim::exclusive();
    init_device0();
    let s = create_stream();
    destroy_stream(s);
    assert_eq!(acl!(aclrtSynchronizeStream(s)), ACL_ERROR_RT_INVALID_HANDLE);
    teardown_device0();
    expect_violations(&[ViolationKind::UseAfterFree]);
}

#[test]
fn foreign_stream_handle_returns_107017() {
    let _sim = aclrt_sim::exclusive();
    init_device0();
    let mut not_a_stream = [0u64; 8];
    let fake: aclrtStream = not_a_stream.as_mut_ptr().cast();
    assert_eq!(
        acl!(aclrtSynchronizeStream(fake)),
        ACL_ERROR_RT_INVALID_HANDLE
    );
    assert_eq!(not_a_stream, [0u64; 8], "the runtime must not write to it");
    teardown_device0();
    expect_violations(&[ViolationKind::InvalidHandle]);
}

#[test]
fn create_stream_with_config_clamps_priority_and_drops_unknown_flags() {
    let session = device0();
    let mut s: aclrtStream = null_mut();
    ok!(aclrtCreateStreamWithConfig(&mut s, 1000, 0x8000_0000));
    assert!(!s.is_null());
    let p = malloc(64);
    ok!(aclrtMemsetAsync(p, 64, 0x42, 64, s));
    ok!(aclrtSynchronizeStream(s));
    assert_eq!(read_device(p, 64), vec![0x42; 64]);
    free(p);
    destroy_stream(s);
    session.finish();
}

#[test]
fn create_stream_with_config_fast_launch_and_fast_sync_works() {
    let session = device0();
    let mut s: aclrtStream = null_mut();
    ok!(aclrtCreateStreamWithConfig(
        &mut s,
        0,
        ACL_STREAM_FAST_LAUNCH | ACL_STREAM_FAST_SYNC
    ));
    let p = malloc(64);
    ok!(aclrtMemsetAsync(p, 64, 0x43, 64, s));
    ok!(aclrtSynchronizeStream(s));
    assert_eq!(read_device(p, 64), vec![0x43; 64]);
    free(p);
    destroy_stream(s);
    session.finish();
}

#[test]
fn stream_available_num_counts_down_on_create() {
    let session = device0();
    let mut before = 0u32;
    ok!(aclrtGetStreamAvailableNum(&mut before));
    assert!(before > 0);
    let s = create_stream();
    let mut during = 0u32;
    ok!(aclrtGetStreamAvailableNum(&mut during));
    assert_eq!(during, before - 1);
    destroy_stream(s);
    let mut after = 0u32;
    ok!(aclrtGetStreamAvailableNum(&mut after));
    assert_eq!(after, before);
    session.finish();
}

#[test]
fn synchronize_stream_with_timeout_zero_returns_107000() {
    let session = device0();
    let s = create_stream();
    assert_eq!(
        acl!(aclrtSynchronizeStreamWithTimeout(s, 0)),
        ACL_ERROR_RT_PARAM_INVALID
    );
    assert_eq!(
        acl!(aclrtSynchronizeStreamWithTimeout(s, -5)),
        ACL_ERROR_RT_PARAM_INVALID
    );
    destroy_stream(s);
    session.finish();
}

#[test]
fn synchronize_stream_timeout_expiry_returns_507046() {
    let session = device0();
    let s = create_stream();
    let p = malloc(64);
    stream_delay(s, 50);
    ok!(aclrtMemsetAsync(p, 64, 2, 64, s));
    assert_eq!(
        acl!(aclrtSynchronizeStreamWithTimeout(s, 1)),
        ACL_ERROR_RT_STREAM_SYNC_TIMEOUT
    );
    ok!(aclrtSynchronizeStreamWithTimeout(s, -1));
    assert_eq!(read_device(p, 64), vec![2; 64]);
    free(p);
    destroy_stream(s);
    session.finish();
}

#[test]
fn default_stream_does_not_wait_for_explicit_streams() {
    let session = device0();
    let s = create_stream();
    let a = malloc(64);
    let b = malloc(64);
    stream_delay(s, 50);
    ok!(aclrtMemsetAsync(a, 64, 1, 64, s));
    ok!(aclrtMemsetAsync(b, 64, 2, 64, null_mut()));
    ok!(aclrtSynchronizeStream(null_mut()));
    // The default stream finished while the explicit one is still delayed.
    assert_eq!(stream_status(s), ACL_STREAM_STATUS_NOT_READY);
    assert_eq!(read_device(b, 64), vec![2; 64]);
    ok!(aclrtSynchronizeStream(s));
    free(a);
    free(b);
    destroy_stream(s);
    session.finish();
}

#[test]
fn destroy_stream_force_does_not_wait() {
    static RUNS: AtomicUsize = AtomicUsize::new(0);
    let _sim = aclrt_sim::exclusive();
    init_device0();
    let s = create_stream();
    let gate = Gate::new();
    ok!(aclrtLaunchHostFunc(s, Some(pass_gate), gate.arg()));
    let counter = counter_arg(&RUNS);
    ok!(aclrtLaunchHostFunc(s, Some(count_run), counter));
    ok!(aclrtLaunchHostFunc(s, Some(count_run), counter));
    assert!(gate.wait_until(Gate::entered));
    ok!(aclrtDestroyStreamForce(s));
    // Returned while the running task was still held: it did not wait.
    assert!(!gate.left(), "DestroyStreamForce blocked");
    assert_eq!(live(ResourceKind::Stream, 0), 0);
    // Nothing ran before the destroy returned (both tasks were queued
    // behind the gate).
    assert_eq!(RUNS.load(Ordering::Acquire), 0);
    gate.open();
    assert!(gate.wait_until(Gate::left));
    assert_eq!(acl!(aclrtSynchronizeStream(s)), ACL_ERROR_RT_INVALID_HANDLE);
    teardown_device0();
    expect_violations(&[ViolationKind::UseAfterFree]);
}

#[test]
fn synchronize_device_after_destroy_stream_force_lets_its_memory_be_freed() {
    // aclrtDestroyStreamForce does not wait; the task that was already
    // running finishes on its own. Afterwards aclrtSynchronizeDevice must
    // cover that task too, or an application has no way to know when the
    // memory it touches may be freed. Repeated because whether the delayed
    // task was already running at the destroy is up to the worker.
    let _sim = aclrt_sim::exclusive();
    init_device0();
    for round in 0..10 {
        let s = create_stream();
        let p = malloc(64);
        stream_delay(s, 20);
        ok!(aclrtMemsetAsync(p, 64, 1, 64, s));
        // Not synchronisation: a correct runtime passes with or without this
        // pause; it only gives the worker time to start the task, which is
        // the case this test is about.
        std::thread::sleep(Duration::from_millis(2));
        ok!(aclrtDestroyStreamForce(s));
        ok!(aclrtSynchronizeDevice());
        let code = acl!(aclrtFree(p));
        assert_eq!(
            code,
            ACL_SUCCESS,
            "round {round}: aclrtFree after aclrtSynchronizeDevice: {:?}",
            recent_err_msg()
        );
    }
    teardown_device0();
    assert_clean();
}

#[test]
fn stream_exhaustion_returns_207008() {
    let session = device0();
    let mut avail = 0u32;
    ok!(aclrtGetStreamAvailableNum(&mut avail));
    assert!((1..=2048).contains(&avail), "available streams: {avail}");
    let streams: Vec<aclrtStream> = (0..avail).map(|_| create_stream()).collect();
    let mut extra: aclrtStream = null_mut();
    assert_eq!(
        acl!(aclrtCreateStream(&mut extra)),
        ACL_ERROR_RT_NO_STREAM_RESOURCE
    );
    let mut left = 99u32;
    ok!(aclrtGetStreamAvailableNum(&mut left));
    assert_eq!(left, 0);
    for s in streams {
        destroy_stream(s);
    }
    // After the release a stream can be made again.
    let s = create_stream();
    destroy_stream(s);
    session.finish();
}

#[test]
fn persistent_stream_synchronize_returns_at_once() {
    let session = device0();
    let mut s: aclrtStream = null_mut();
    ok!(aclrtCreateStreamWithConfig(
        &mut s,
        0,
        ACL_STREAM_PERSISTENT
    ));
    let p = malloc(64);
    let gate = Gate::new();
    ok!(aclrtLaunchHostFunc(s, Some(pass_gate), gate.arg()));
    ok!(aclrtMemsetAsync(p, 64, 1, 64, s));
    ok!(aclrtSynchronizeStream(s));
    // Returned while the stream's work was still held at the gate.
    assert!(!gate.left(), "synchronize of a PERSISTENT stream waited");
    assert_eq!(stream_status(s), ACL_STREAM_STATUS_NOT_READY);
    gate.open();
    // aclrtDestroyStream waits for the pending task.
    destroy_stream(s);
    assert_eq!(read_device(p, 64), vec![1; 64]);
    free(p);
    session.finish();
}

#[test]
fn stream_query_of_other_context_stream_is_answered() {
    // The real runtime queries a stream of any context (no 107003 here),
    // but needs a current context (107002).
    let _sim = aclrt_sim::exclusive();
    init_device0();
    let s = create_stream();
    let ctx = create_context(0);
    let mut st: aclrtStreamStatus = 0xdead;
    ok!(aclrtStreamQuery(s, &mut st));
    assert_eq!(st, ACL_STREAM_STATUS_COMPLETE);
    ok!(aclrtDestroyContext(ctx));
    // The destroyed context was current: the thread has none now.
    rebind(0);
    destroy_stream(s);
    teardown_device0();
    assert_clean();
}
