//! Events: creation flags, record/query semantics, waits, elapsed time
//! (acl-facts §3 event flags, §5.5).

use crate::common;
use common::*;

#[test]
fn create_event_null_output_returns_100000() {
    let session = device0();
    assert_eq!(acl!(aclrtCreateEvent(null_mut())), ACL_ERROR_INVALID_PARAM);
    assert_eq!(
        acl!(aclrtCreateEventWithFlag(null_mut(), ACL_EVENT_SYNC)),
        ACL_ERROR_INVALID_PARAM
    );
    assert_eq!(
        acl!(aclrtCreateEventExWithFlag(null_mut(), ACL_EVENT_SYNC)),
        ACL_ERROR_INVALID_PARAM
    );
    session.finish();
}

#[test]
fn create_event_tracks_live_events() {
    let session = device0();
    let e = create_event();
    assert_eq!(live(ResourceKind::Event, 0), 1);
    destroy_event(e);
    assert_eq!(live(ResourceKind::Event, 0), 0);
    session.finish();
}

#[test]
fn create_event_with_flag_zero_returns_107000() {
    let session = device0();
    let mut e: aclrtEvent = null_mut();
    assert_eq!(
        acl!(aclrtCreateEventWithFlag(&mut e, 0)),
        ACL_ERROR_RT_PARAM_INVALID
    );
    assert!(e.is_null());
    session.finish();
}

#[test]
fn create_event_with_flag_above_0x3f_returns_107000() {
    let session = device0();
    let mut e: aclrtEvent = null_mut();
    assert_eq!(
        acl!(aclrtCreateEventWithFlag(&mut e, ACL_EVENT_SYNC | 0x80)),
        ACL_ERROR_RT_PARAM_INVALID
    );
    assert_eq!(
        acl!(aclrtCreateEventWithFlag(&mut e, ACL_EVENT_IPC)),
        ACL_ERROR_RT_PARAM_INVALID
    );
    session.finish();
}

#[test]
fn create_event_with_flag_external_not_alone_returns_107000() {
    let session = device0();
    let mut e: aclrtEvent = null_mut();
    assert_eq!(
        acl!(aclrtCreateEventWithFlag(
            &mut e,
            ACL_EVENT_EXTERNAL | ACL_EVENT_SYNC
        )),
        ACL_ERROR_RT_PARAM_INVALID
    );
    assert_eq!(
        acl!(aclrtCreateEventWithFlag(
            &mut e,
            ACL_EVENT_DEVICE_USE_ONLY | ACL_EVENT_TIME_LINE
        )),
        ACL_ERROR_RT_PARAM_INVALID
    );
    // Alone they are accepted.
    let ext = create_event_with_flag(ACL_EVENT_EXTERNAL);
    let dev_only = create_event_with_flag(ACL_EVENT_DEVICE_USE_ONLY);
    destroy_event(ext);
    destroy_event(dev_only);
    session.finish();
}

#[test]
fn create_event_ex_with_flag_zero_returns_107000() {
    let session = device0();
    let mut e: aclrtEvent = null_mut();
    assert_eq!(
        acl!(aclrtCreateEventExWithFlag(&mut e, 0)),
        ACL_ERROR_RT_PARAM_INVALID
    );
    session.finish();
}

#[test]
fn create_event_ex_with_flag_external_returns_107000() {
    let session = device0();
    let mut e: aclrtEvent = null_mut();
    assert_eq!(
        acl!(aclrtCreateEventExWithFlag(&mut e, ACL_EVENT_EXTERNAL)),
        ACL_ERROR_RT_PARAM_INVALID
    );
    assert_eq!(
        acl!(aclrtCreateEventExWithFlag(
            &mut e,
            ACL_EVENT_DEVICE_USE_ONLY
        )),
        ACL_ERROR_RT_PARAM_INVALID
    );
    session.finish();
}

#[test]
fn unrecorded_event_reports_not_ready() {
    let session = device0();
    let e = create_event();
    assert_eq!(event_status(e), ACL_EVENT_RECORDED_STATUS_NOT_READY);
    assert_eq!(ACL_EVENT_RECORDED_STATUS_NOT_READY, 0);
    let f = create_event_with_flag(ACL_EVENT_SYNC);
    assert_eq!(event_status(f), ACL_EVENT_RECORDED_STATUS_NOT_READY);
    destroy_event(e);
    destroy_event(f);
    session.finish();
}

#[test]
fn unrecorded_ex_event_reports_complete() {
    let session = device0();
    let e = create_event_ex(ACL_EVENT_SYNC);
    assert_eq!(event_status(e), ACL_EVENT_RECORDED_STATUS_COMPLETE);
    assert_eq!(ACL_EVENT_RECORDED_STATUS_COMPLETE, 1);
    destroy_event(e);
    session.finish();
}

#[test]
fn recorded_event_reports_complete_after_synchronize_event() {
    let session = device0();
    let s = create_stream();
    let e = create_event();
    let p = malloc(256);
    stream_delay(s, 30);
    ok!(aclrtMemsetAsync(p, 256, 0x33, 256, s));
    ok!(aclrtRecordEvent(e, s));
    assert_eq!(event_status(e), ACL_EVENT_RECORDED_STATUS_NOT_READY);
    ok!(aclrtSynchronizeEvent(e));
    assert_eq!(event_status(e), ACL_EVENT_RECORDED_STATUS_COMPLETE);
    // The captured memset is done.
    assert_eq!(read_device(p, 256), vec![0x33; 256]);
    free(p);
    destroy_event(e);
    destroy_stream(s);
    session.finish();
}

#[test]
fn record_captures_only_tasks_already_submitted() {
    let session = device0();
    let s = create_stream();
    let e = create_event();
    let p = malloc(64);
    ok!(aclrtRecordEvent(e, s));
    ok!(aclrtSynchronizeEvent(e));
    stream_delay(s, 50);
    ok!(aclrtMemsetAsync(p, 64, 1, 64, s));
    // The event captured nothing pending, the later task does not count.
    assert_eq!(event_status(e), ACL_EVENT_RECORDED_STATUS_COMPLETE);
    assert_eq!(stream_status(s), ACL_STREAM_STATUS_NOT_READY);
    ok!(aclrtSynchronizeStream(s));
    free(p);
    destroy_event(e);
    destroy_stream(s);
    session.finish();
}

#[test]
fn record_on_null_stream_uses_the_default_stream() {
    let session = device0();
    let e = create_event();
    let p = malloc(64);
    stream_delay(null_mut(), 30);
    ok!(aclrtMemsetAsync(p, 64, 7, 64, null_mut()));
    ok!(aclrtRecordEvent(e, null_mut()));
    assert_eq!(event_status(e), ACL_EVENT_RECORDED_STATUS_NOT_READY);
    ok!(aclrtSynchronizeEvent(e));
    assert_eq!(event_status(e), ACL_EVENT_RECORDED_STATUS_COMPLETE);
    assert_eq!(read_device(p, 64), vec![7; 64]);
    free(p);
    destroy_event(e);
    session.finish();
}

#[test]
fn rerecording_an_ex_event_overwrites_the_captured_set() {
    let session = device0();
    let s = create_stream();
    let e = create_event_ex(ACL_EVENT_SYNC);
    let p = malloc(64);
    ok!(aclrtRecordEvent(e, s));
    ok!(aclrtSynchronizeEvent(e));
    assert_eq!(event_status(e), ACL_EVENT_RECORDED_STATUS_COMPLETE);
    stream_delay(s, 40);
    ok!(aclrtMemsetAsync(p, 64, 1, 64, s));
    ok!(aclrtRecordEvent(e, s));
    assert_eq!(event_status(e), ACL_EVENT_RECORDED_STATUS_NOT_READY);
    ok!(aclrtSynchronizeEvent(e));
    assert_eq!(event_status(e), ACL_EVENT_RECORDED_STATUS_COMPLETE);
    free(p);
    destroy_event(e);
    destroy_stream(s);
    session.finish();
}

#[test]
fn record_event_on_stream_of_other_context_returns_107003() {
    let _sim = aclrt_sim::exclusive();
    init_device0();
    let s = create_stream();
    let ctx = create_context(0);
    let e = create_event();
    assert_eq!(acl!(aclrtRecordEvent(e, s)), ACL_ERROR_RT_STREAM_CONTEXT);
    destroy_event(e);
    ok!(aclrtDestroyContext(ctx));
    // The destroyed context was current: the thread has none now.
    rebind(0);
    destroy_stream(s);
    teardown_device0();
    expect_violations(&[ViolationKind::WrongContext]);
}

#[test]
fn stream_wait_event_null_event_returns_100000() {
    let session = device0();
    let s = create_stream();
    assert_eq!(
        acl!(aclrtStreamWaitEvent(s, null_mut())),
        ACL_ERROR_INVALID_PARAM
    );
    destroy_stream(s);
    session.finish();
}

#[test]
fn stream_wait_event_on_timeline_only_event_returns_207000() {
    let session = device0();
    let s = create_stream();
    let e = create_event_with_flag(ACL_EVENT_TIME_LINE);
    ok!(aclrtRecordEvent(e, s));
    assert_eq!(
        acl!(aclrtStreamWaitEvent(s, e)),
        ACL_ERROR_RT_FEATURE_NOT_SUPPORT
    );
    let f = create_event_with_flag(ACL_EVENT_CAPTURE_STREAM_PROGRESS);
    ok!(aclrtRecordEvent(f, s));
    assert_eq!(
        acl!(aclrtStreamWaitEvent(s, f)),
        ACL_ERROR_RT_FEATURE_NOT_SUPPORT
    );
    ok!(aclrtSynchronizeStream(s));
    destroy_event(e);
    destroy_event(f);
    destroy_stream(s);
    finish_with(
        session,
        &[
            ViolationKind::EventFlagMismatch,
            ViolationKind::EventFlagMismatch,
        ],
    );
}

#[test]
fn stream_wait_event_on_default_event_is_allowed() {
    let session = device0();
    let a = create_stream();
    let e = create_event();
    ok!(aclrtRecordEvent(e, a));
    // NULL stream = default stream waits.
    ok!(aclrtStreamWaitEvent(null_mut(), e));
    ok!(aclrtSynchronizeStream(null_mut()));
    assert_eq!(event_status(e), ACL_EVENT_RECORDED_STATUS_COMPLETE);
    destroy_event(e);
    destroy_stream(a);
    session.finish();
}

#[test]
fn stream_wait_event_of_other_context_stream_returns_107003() {
    let _sim = aclrt_sim::exclusive();
    init_device0();
    let s = create_stream();
    let e = create_event();
    ok!(aclrtRecordEvent(e, s));
    ok!(aclrtSynchronizeEvent(e));
    let ctx = create_context(0);
    assert_eq!(
        acl!(aclrtStreamWaitEvent(s, e)),
        ACL_ERROR_RT_STREAM_CONTEXT
    );
    ok!(aclrtDestroyContext(ctx));
    // The destroyed context was current: the thread has none now.
    rebind(0);
    destroy_event(e);
    destroy_stream(s);
    teardown_device0();
    expect_violations(&[ViolationKind::WrongContext]);
}

#[test]
fn query_event_deprecated_reports_complete_as_zero() {
    let session = device0();
    let e = create_event();
    ok!(aclrtRecordEvent(e, null_mut()));
    ok!(aclrtSynchronizeEvent(e));
    let mut st: aclrtEventStatus = 0xdead;
    ok!(aclrtQueryEvent(e, &mut st));
    assert_eq!(st, ACL_EVENT_STATUS_COMPLETE);
    assert_eq!(ACL_EVENT_STATUS_COMPLETE, 0);
    destroy_event(e);
    session.finish();
}

#[test]
fn query_event_on_ex_event_returns_207000() {
    let session = device0();
    let e = create_event_ex(ACL_EVENT_SYNC);
    let mut st: aclrtEventStatus = 0xdead;
    assert_eq!(
        acl!(aclrtQueryEvent(e, &mut st)),
        ACL_ERROR_RT_FEATURE_NOT_SUPPORT
    );
    destroy_event(e);
    finish_with(session, &[ViolationKind::EventFlagMismatch]);
}

#[test]
fn query_event_wait_status_on_ex_event_returns_207000() {
    let session = device0();
    let e = create_event_ex(ACL_EVENT_SYNC);
    let mut st: aclrtEventWaitStatus = 0xdead;
    assert_eq!(
        acl!(aclrtQueryEventWaitStatus(e, &mut st)),
        ACL_ERROR_RT_FEATURE_NOT_SUPPORT
    );
    destroy_event(e);
    finish_with(session, &[ViolationKind::EventFlagMismatch]);
}

#[test]
fn query_event_status_null_output_returns_100000() {
    let session = device0();
    let e = create_event();
    assert_eq!(
        acl!(aclrtQueryEventStatus(e, null_mut())),
        ACL_ERROR_INVALID_PARAM
    );
    destroy_event(e);
    session.finish();
}

#[test]
fn synchronize_event_on_external_event_returns_207000() {
    let session = device0();
    let e = create_event_with_flag(ACL_EVENT_EXTERNAL);
    assert_eq!(
        acl!(aclrtSynchronizeEvent(e)),
        ACL_ERROR_RT_FEATURE_NOT_SUPPORT
    );
    destroy_event(e);
    session.finish();
}

#[test]
fn synchronize_event_with_timeout_zero_returns_107000() {
    let session = device0();
    let e = create_event();
    ok!(aclrtRecordEvent(e, null_mut()));
    assert_eq!(
        acl!(aclrtSynchronizeEventWithTimeout(e, 0)),
        ACL_ERROR_RT_PARAM_INVALID
    );
    assert_eq!(
        acl!(aclrtSynchronizeEventWithTimeout(e, -2)),
        ACL_ERROR_RT_PARAM_INVALID
    );
    ok!(aclrtSynchronizeEvent(e));
    destroy_event(e);
    session.finish();
}

#[test]
fn synchronize_event_timeout_expiry_returns_507047() {
    let session = device0();
    let s = create_stream();
    let e = create_event();
    let p = malloc(64);
    stream_delay(s, 50);
    ok!(aclrtMemsetAsync(p, 64, 1, 64, s));
    ok!(aclrtRecordEvent(e, s));
    assert_eq!(
        acl!(aclrtSynchronizeEventWithTimeout(e, 1)),
        ACL_ERROR_RT_EVENT_SYNC_TIMEOUT
    );
    ok!(aclrtSynchronizeEventWithTimeout(e, -1));
    assert_eq!(event_status(e), ACL_EVENT_RECORDED_STATUS_COMPLETE);
    free(p);
    destroy_event(e);
    destroy_stream(s);
    session.finish();
}

#[test]
fn destroy_event_null_returns_100000() {
    let session = device0();
    assert_eq!(acl!(aclrtDestroyEvent(null_mut())), ACL_ERROR_INVALID_PARAM);
    session.finish();
}

#[test]
fn destroy_event_before_completion_does_not_block() {
    let session = device0();
    let s = create_stream();
    let e = create_event();
    let p = malloc(64);
    let gate = Gate::new();
    ok!(aclrtLaunchHostFunc(s, Some(pass_gate), gate.arg()));
    ok!(aclrtMemsetAsync(p, 64, 1, 64, s));
    ok!(aclrtRecordEvent(e, s));
    destroy_event(e);
    // Returned while the work before the record was still held at the gate
    // (had it waited, the gate would have given up first).
    assert!(!gate.left(), "aclrtDestroyEvent blocked");
    assert_eq!(live(ResourceKind::Event, 0), 0);
    gate.open();
    ok!(aclrtSynchronizeStream(s));
    assert!(gate.left_opened());
    assert_eq!(read_device(p, 64), vec![1; 64]);
    free(p);
    destroy_stream(s);
    session.finish();
}

#[test]
fn elapsed_time_with_unrecorded_event_returns_507000() {
    let session = device0();
    let start = create_event();
    let end = create_event();
    ok!(aclrtRecordEvent(start, null_mut()));
    ok!(aclrtSynchronizeEvent(start));
    let mut ms = -1.0f32;
    assert_eq!(
        acl!(aclrtEventElapsedTime(&mut ms, start, end)),
        ACL_ERROR_RT_INTERNAL_ERROR
    );
    destroy_event(start);
    destroy_event(end);
    finish_with(session, &[ViolationKind::EventNotRecorded]);
}

#[test]
fn elapsed_time_reports_end_minus_start_in_ms() {
    let session = device0();
    let s = create_stream();
    let start = create_event();
    let end = create_event();
    let p = malloc(64);
    let host = Instant::now();
    ok!(aclrtRecordEvent(start, s));
    stream_delay(s, 30);
    ok!(aclrtMemsetAsync(p, 64, 1, 64, s));
    ok!(aclrtRecordEvent(end, s));
    ok!(aclrtSynchronizeStream(s));
    let host_ms = host.elapsed().as_secs_f32() * 1e3;
    let mut ms = -1.0f32;
    ok!(aclrtEventElapsedTime(&mut ms, start, end));
    // At least the delay, and within the host's own measurement of the
    // same stretch (both records ran inside it): milliseconds, not another
    // unit. Not a speed claim.
    assert!(
        ms >= 25.0 && ms <= host_ms,
        "elapsed {ms} ms of {host_ms} ms"
    );
    // Reversed order gives a negative value (end - start).
    let mut back = 0.0f32;
    ok!(aclrtEventElapsedTime(&mut back, end, start));
    assert!(back < 0.0, "reversed elapsed {back}");
    free(p);
    destroy_event(start);
    destroy_event(end);
    destroy_stream(s);
    session.finish();
}

#[test]
fn elapsed_time_null_output_returns_100000() {
    let session = device0();
    let e = create_event();
    ok!(aclrtRecordEvent(e, null_mut()));
    ok!(aclrtSynchronizeEvent(e));
    assert_eq!(
        acl!(aclrtEventElapsedTime(null_mut(), e, e)),
        ACL_ERROR_INVALID_PARAM
    );
    destroy_event(e);
    session.finish();
}

#[test]
fn event_avail_num_counts_down_on_create() {
    let session = device0();
    let mut before = 0u32;
    ok!(aclrtGetEventAvailNum(&mut before));
    assert!(before > 0);
    // Hardware events are allocated at the first record.
    let e = create_event();
    ok!(aclrtRecordEvent(e, null_mut()));
    ok!(aclrtSynchronizeEvent(e));
    let mut during = 0u32;
    ok!(aclrtGetEventAvailNum(&mut during));
    assert_eq!(during, before - 1);
    destroy_event(e);
    let mut after = 0u32;
    ok!(aclrtGetEventAvailNum(&mut after));
    assert_eq!(after, before);
    session.finish();
}

#[test]
fn reset_event_with_sync_flag_makes_it_not_ready() {
    let session = device0();
    let s = create_stream();
    let e = create_event_with_flag(ACL_EVENT_SYNC);
    ok!(aclrtRecordEvent(e, s));
    ok!(aclrtSynchronizeEvent(e));
    assert_eq!(event_status(e), ACL_EVENT_RECORDED_STATUS_COMPLETE);
    ok!(aclrtStreamWaitEvent(s, e));
    ok!(aclrtResetEvent(e, s));
    ok!(aclrtSynchronizeStream(s));
    assert_eq!(event_status(e), ACL_EVENT_RECORDED_STATUS_NOT_READY);
    destroy_event(e);
    destroy_stream(s);
    session.finish();
}

#[test]
fn elapsed_time_without_timeline_flag_returns_107006() {
    let session = device0();
    let a = create_event_ex(ACL_EVENT_SYNC);
    let b = create_event_ex(ACL_EVENT_SYNC);
    ok!(aclrtRecordEvent(a, null_mut()));
    ok!(aclrtRecordEvent(b, null_mut()));
    ok!(aclrtSynchronizeStream(null_mut()));
    let mut ms = -1.0f32;
    assert_eq!(
        acl!(aclrtEventElapsedTime(&mut ms, a, b)),
        ACL_ERROR_RT_EVENT_TIMESTAMP_INVALID
    );
    // With the timing flag it works.
    let c = create_event_ex(ACL_EVENT_SYNC | ACL_EVENT_TIME_LINE);
    let d = create_event_ex(ACL_EVENT_SYNC | ACL_EVENT_TIME_LINE);
    ok!(aclrtRecordEvent(c, null_mut()));
    ok!(aclrtRecordEvent(d, null_mut()));
    ok!(aclrtSynchronizeStream(null_mut()));
    ok!(aclrtEventElapsedTime(&mut ms, c, d));
    assert!(ms >= 0.0, "{ms}");
    for e in [a, b, c, d] {
        destroy_event(e);
    }
    finish_with(session, &[ViolationKind::EventFlagMismatch]);
}

#[test]
fn elapsed_time_of_an_incomplete_event_returns_107006() {
    let session = device0();
    let s = create_stream();
    let start = create_event();
    let end = create_event();
    let p = malloc(64);
    ok!(aclrtRecordEvent(start, s));
    stream_delay(s, 50);
    ok!(aclrtMemsetAsync(p, 64, 1, 64, s));
    ok!(aclrtRecordEvent(end, s));
    let mut ms = -1.0f32;
    assert_eq!(
        acl!(aclrtEventElapsedTime(&mut ms, start, end)),
        ACL_ERROR_RT_EVENT_TIMESTAMP_INVALID
    );
    ok!(aclrtSynchronizeStream(s));
    ok!(aclrtEventElapsedTime(&mut ms, start, end));
    free(p);
    destroy_event(start);
    destroy_event(end);
    destroy_stream(s);
    session.finish();
}

#[test]
fn reset_event_on_ex_event_returns_207000() {
    let session = device0();
    let e = create_event_ex(ACL_EVENT_SYNC);
    assert_eq!(
        acl!(aclrtResetEvent(e, null_mut())),
        ACL_ERROR_RT_FEATURE_NOT_SUPPORT
    );
    destroy_event(e);
    finish_with(session, &[ViolationKind::EventFlagMismatch]);
}

#[test]
fn query_event_wait_status_reports_complete_once_the_waits_ran() {
    let session = device0();
    let a = create_stream();
    let b = create_stream();
    let e = create_event();
    let p = malloc(64);
    let mut st: aclrtEventWaitStatus = 0xdead;
    // No wait issued yet: COMPLETE, even before any record (F.7).
    ok!(aclrtQueryEventWaitStatus(e, &mut st));
    assert_eq!(st, ACL_EVENT_WAIT_STATUS_COMPLETE);
    stream_delay(a, 60);
    ok!(aclrtMemsetAsync(p, 64, 1, 64, a));
    ok!(aclrtRecordEvent(e, a));
    // Recorded, but no wait issued on it: still COMPLETE.
    st = 0xdead;
    ok!(aclrtQueryEventWaitStatus(e, &mut st));
    assert_eq!(st, ACL_EVENT_WAIT_STATUS_COMPLETE);
    // A wait on b that cannot run before the memset on a finished.
    ok!(aclrtStreamWaitEvent(b, e));
    ok!(aclrtQueryEventWaitStatus(e, &mut st));
    assert_eq!(st, ACL_EVENT_WAIT_STATUS_NOT_READY);
    ok!(aclrtSynchronizeStream(b));
    ok!(aclrtQueryEventWaitStatus(e, &mut st));
    assert_eq!(st, ACL_EVENT_WAIT_STATUS_COMPLETE);
    free(p);
    destroy_event(e);
    destroy_stream(a);
    destroy_stream(b);
    session.finish();
}

#[test]
fn event_exhaustion_returns_207007() {
    let session = device0();
    let mut avail = 0u32;
    ok!(aclrtGetEventAvailNum(&mut avail));
    assert!((1..=65536).contains(&avail), "available events: {avail}");
    let events: Vec<aclrtEvent> = (0..avail).map(|_| create_event()).collect();
    let mut extra: aclrtEvent = null_mut();
    assert_eq!(
        acl!(aclrtCreateEvent(&mut extra)),
        ACL_ERROR_RT_NO_EVENT_RESOURCE
    );
    for e in events {
        destroy_event(e);
    }
    let e = create_event();
    destroy_event(e);
    session.finish();
}

#[test]
fn wait_outliving_set_op_wait_timeout_faults_with_107020() {
    let session = device0();
    let a = create_stream();
    let b = create_stream();
    let e = create_event();
    let release = AtomicBool::new(false);
    // The timeout applies to waits issued after it (1 s, its unit).
    ok!(aclrtSetOpWaitTimeout(1));
    ok!(aclrtLaunchHostFunc(
        a,
        Some(block_until_set),
        flag_arg(&release)
    ));
    ok!(aclrtRecordEvent(e, a));
    ok!(aclrtStreamWaitEvent(b, e));
    let t0 = Instant::now();
    assert_eq!(acl!(aclrtSynchronizeStream(b)), ACL_ERROR_RT_TASK_TIMEOUT);
    assert!(
        t0.elapsed() >= Duration::from_millis(900),
        "{:?}",
        t0.elapsed()
    );
    release.store(true, Ordering::Release);
    ok!(aclrtSynchronizeStream(a));
    ok!(aclrtSetOpWaitTimeout(0));
    destroy_event(e);
    destroy_stream(a);
    destroy_stream(b);
    session.finish();
}

/// Ends a session whose test broke rules on purpose: tears down, then
/// asserts exactly these violations (and resets the audit).
#[track_caller]
fn finish_with(session: Session, kinds: &[ViolationKind]) {
    teardown_device0();
    expect_violations(kinds);
    drop(session);
}
