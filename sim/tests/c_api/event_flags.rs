//! `aclrtCreateEventExWithFlag` flags and what each allows, event
//! timestamps, wait status, and stream priority (acl-facts F.6, F.7, F.8),
//! through the C ABI, in both run modes.

use crate::common;
use common::*;

const SYNC: u32 = ACL_EVENT_SYNC;
const PROGRESS: u32 = ACL_EVENT_CAPTURE_STREAM_PROGRESS;
const TIME_LINE: u32 = ACL_EVENT_TIME_LINE;
const HIDDEN: u32 = 0x4;

/// Every non-empty OR of SYNC, CAPTURE_STREAM_PROGRESS, the hidden 0x4 and
/// TIME_LINE.
fn valid_ex_flags() -> impl Iterator<Item = u32> {
    1..=0xFu32
}

#[test]
fn ex_flag_validation_matches_f6_for_every_byte_value() {
    let _sim = aclrt_sim::exclusive();
    in_both_run_modes(|_| {
        init_device0();
        for flag in 0..=0x1FFu32 {
            let mut e: aclrtEvent = null_mut();
            let code = acl!(aclrtCreateEventExWithFlag(&mut e, flag));
            // IPC alone: the default chip (910B) has IPC events (fidelity
            // row EVENT-IPC pins the 310P's 207000).
            let want = if (1..=0xF).contains(&flag) || flag == ACL_EVENT_IPC {
                ACL_SUCCESS
            } else {
                ACL_ERROR_RT_PARAM_INVALID
            };
            assert_eq!(code, want, "flag {flag:#x}");
            if code == ACL_SUCCESS {
                assert!(!e.is_null());
                destroy_event(e);
            } else {
                assert!(e.is_null(), "flag {flag:#x} wrote a handle");
            }
        }
        // High bits are rejected too.
        let mut e: aclrtEvent = null_mut();
        assert_eq!(
            acl!(aclrtCreateEventExWithFlag(&mut e, 0x8000_0001)),
            ACL_ERROR_RT_PARAM_INVALID
        );
        teardown_device0();
        assert_clean();
    });
}

#[test]
fn ex_event_without_current_context_returns_107002() {
    let _sim = aclrt_sim::exclusive();
    init();
    let mut e: aclrtEvent = null_mut();
    assert_eq!(
        acl!(aclrtCreateEventExWithFlag(&mut e, SYNC)),
        ACL_ERROR_RT_CONTEXT_NULL
    );
    finalize();
    assert_clean();
}

/// What each valid flag set allows, call by call; every refusal is a
/// violation of kind `EventFlagMismatch`.
#[test]
fn each_ex_flag_set_allows_exactly_its_capabilities() {
    let _sim = aclrt_sim::exclusive();
    in_both_run_modes(|mode| {
        init_device0();
        let a = create_stream();
        let b = create_stream();
        let mut expected = Vec::new();
        for flag in valid_ex_flags() {
            let e = create_event_ex(flag);
            // Before the first record an ExWithFlag event reports COMPLETE.
            assert_eq!(
                event_status(e),
                ACL_EVENT_RECORDED_STATUS_COMPLETE,
                "{mode:?} {flag:#x}"
            );
            ok!(aclrtRecordEvent(e, a));
            ok!(aclrtSynchronizeEvent(e));
            assert_eq!(event_status(e), ACL_EVENT_RECORDED_STATUS_COMPLETE);

            let waitable = flag & (SYNC | HIDDEN) != 0;
            let code = acl!(aclrtStreamWaitEvent(b, e));
            if waitable {
                assert_eq!(code, ACL_SUCCESS, "{mode:?} wait on {flag:#x}");
            } else {
                assert_eq!(code, ACL_ERROR_RT_FEATURE_NOT_SUPPORT, "wait on {flag:#x}");
                expected.push(ViolationKind::EventFlagMismatch);
            }

            let mut ts = 0u64;
            let code = acl!(aclrtEventGetTimestamp(e, &mut ts));
            let mut ms = 0f32;
            let code2 = acl!(aclrtEventElapsedTime(&mut ms, e, e));
            if flag & TIME_LINE != 0 {
                assert_eq!(code, ACL_SUCCESS, "timestamp of {flag:#x}");
                assert_eq!(code2, ACL_SUCCESS, "elapsed of {flag:#x}");
                assert_eq!(ms, 0.0);
            } else {
                assert_eq!(code, ACL_ERROR_RT_EVENT_TIMESTAMP_INVALID, "{flag:#x}");
                assert_eq!(code2, ACL_ERROR_RT_EVENT_TIMESTAMP_INVALID, "{flag:#x}");
                expected.push(ViolationKind::EventFlagMismatch);
                expected.push(ViolationKind::EventFlagMismatch);
            }

            // Never allowed on ExWithFlag events.
            assert_eq!(
                acl!(aclrtResetEvent(e, b)),
                ACL_ERROR_RT_FEATURE_NOT_SUPPORT
            );
            let mut ws: aclrtEventWaitStatus = 0xdead;
            assert_eq!(
                acl!(aclrtQueryEventWaitStatus(e, &mut ws)),
                ACL_ERROR_RT_FEATURE_NOT_SUPPORT
            );
            assert_eq!(ws, 0xdead);
            let mut qs: aclrtEventStatus = 0xdead;
            assert_eq!(
                acl!(aclrtQueryEvent(e, &mut qs)),
                ACL_ERROR_RT_FEATURE_NOT_SUPPORT
            );
            expected.extend([ViolationKind::EventFlagMismatch; 3]);

            ok!(aclrtSynchronizeStream(b));
            destroy_event(e);
        }
        destroy_stream(a);
        destroy_stream(b);
        teardown_device0();
        expect_violations(&expected);
    });
}

#[test]
fn progress_event_tracks_how_far_a_stream_got() {
    let _sim = aclrt_sim::exclusive();
    in_both_run_modes(|_| {
        init_device0();
        let s = create_stream();
        let p = malloc(256);
        let progress = create_event_ex(PROGRESS);
        stream_delay(s, 60);
        ok!(aclrtMemsetAsync(p, 256, 7, 256, s));
        ok!(aclrtRecordEvent(progress, s));
        assert_eq!(event_status(progress), ACL_EVENT_RECORDED_STATUS_NOT_READY);
        ok!(aclrtSynchronizeEvent(progress));
        assert_eq!(event_status(progress), ACL_EVENT_RECORDED_STATUS_COMPLETE);
        // Re-recording replaces the captured set.
        ok!(aclrtMemsetAsync(p, 256, 8, 256, s));
        ok!(aclrtRecordEvent(progress, s));
        assert_eq!(event_status(progress), ACL_EVENT_RECORDED_STATUS_NOT_READY);
        ok!(aclrtSynchronizeStream(s));
        assert_eq!(event_status(progress), ACL_EVENT_RECORDED_STATUS_COMPLETE);
        free(p);
        destroy_event(progress);
        destroy_stream(s);
        teardown_device0();
        assert_clean();
    });
}

// ------------------------------------------------------------ timestamps

#[test]
fn timestamp_argument_and_state_errors() {
    let _sim = aclrt_sim::exclusive();
    in_both_run_modes(|_| {
        init_device0();
        let s = create_stream();
        let e = create_event_ex(SYNC | TIME_LINE);
        let mut ts = 0u64;
        assert_eq!(
            acl!(aclrtEventGetTimestamp(null_mut(), &mut ts)),
            ACL_ERROR_INVALID_PARAM
        );
        assert_eq!(
            acl!(aclrtEventGetTimestamp(e, null_mut())),
            ACL_ERROR_INVALID_PARAM
        );
        // Never recorded: "recorder null", 507000.
        assert_eq!(
            acl!(aclrtEventGetTimestamp(e, &mut ts)),
            ACL_ERROR_RT_INTERNAL_ERROR
        );
        // Recorded behind a slow task: no timestamp yet, 107006 (not a
        // violation: polling is allowed).
        let p = malloc(64);
        stream_delay(s, 80);
        ok!(aclrtMemsetAsync(p, 64, 0, 64, s));
        ok!(aclrtRecordEvent(e, s));
        assert_eq!(
            acl!(aclrtEventGetTimestamp(e, &mut ts)),
            ACL_ERROR_RT_EVENT_TIMESTAMP_INVALID
        );
        assert_eq!(ts, 0, "a failed call wrote the output");
        ok!(aclrtSynchronizeStream(s));
        ok!(aclrtEventGetTimestamp(e, &mut ts));
        assert!(ts > 0);
        // A destroyed event is a stale handle.
        destroy_event(e);
        assert_eq!(
            acl!(aclrtEventGetTimestamp(e, &mut ts)),
            ACL_ERROR_RT_INVALID_HANDLE
        );
        free(p);
        destroy_stream(s);
        teardown_device0();
        expect_violations(&[ViolationKind::EventNotRecorded, ViolationKind::UseAfterFree]);
    });
}

#[test]
fn timestamps_are_monotonic_and_agree_with_elapsed_time() {
    let _sim = aclrt_sim::exclusive();
    in_both_run_modes(|_| {
        init_device0();
        let s = create_stream();
        let p = malloc(64);
        // Plain aclrtCreateEvent events carry TIME_LINE too.
        let start = create_event();
        let end = create_event_ex(TIME_LINE);
        let mid = create_event_ex(SYNC | TIME_LINE | PROGRESS);
        ok!(aclrtRecordEvent(start, s));
        stream_delay(s, 20);
        ok!(aclrtMemsetAsync(p, 64, 1, 64, s));
        ok!(aclrtRecordEvent(mid, s));
        ok!(aclrtMemsetAsync(p, 64, 2, 64, s));
        ok!(aclrtRecordEvent(end, s));
        ok!(aclrtSynchronizeStream(s));
        let ts = |e| {
            let mut t = 0u64;
            ok!(aclrtEventGetTimestamp(e, &mut t));
            t
        };
        let (t0, t1, t2) = (ts(start), ts(mid), ts(end));
        assert!(t0 <= t1 && t1 <= t2, "{t0} {t1} {t2}");
        // Two delayed tasks of 20 ms between start and end.
        assert!(t2 - t0 >= 35_000, "{} us", t2 - t0);
        let mut ms = 0f32;
        ok!(aclrtEventElapsedTime(&mut ms, start, end));
        let diff_ms = (t2 - t0) as f64 / 1e3;
        assert!(
            (f64::from(ms) - diff_ms).abs() < 0.01,
            "elapsed {ms} ms, timestamps {diff_ms} ms"
        );
        // A later record gets a later timestamp (monotonic across records).
        ok!(aclrtRecordEvent(start, s));
        ok!(aclrtSynchronizeEvent(start));
        assert!(ts(start) >= t2);
        free(p);
        for e in [start, mid, end] {
            destroy_event(e);
        }
        destroy_stream(s);
        teardown_device0();
        assert_clean();
    });
}

#[test]
fn timestamp_after_reset_of_a_with_flag_event_returns_507000() {
    let session = device0();
    let s = create_stream();
    let e = create_event_with_flag(SYNC | TIME_LINE);
    ok!(aclrtRecordEvent(e, s));
    ok!(aclrtSynchronizeEvent(e));
    let mut ts = 0u64;
    ok!(aclrtEventGetTimestamp(e, &mut ts));
    ok!(aclrtResetEvent(e, s));
    ok!(aclrtSynchronizeStream(s));
    assert_eq!(
        acl!(aclrtEventGetTimestamp(e, &mut ts)),
        ACL_ERROR_RT_INTERNAL_ERROR
    );
    destroy_event(e);
    destroy_stream(s);
    teardown_device0();
    expect_violations(&[ViolationKind::EventNotRecorded]);
    drop(session);
}

// ------------------------------------------------------------ wait status

#[test]
fn wait_status_of_with_flag_events_follows_the_issued_waits() {
    let _sim = aclrt_sim::exclusive();
    in_both_run_modes(|_| {
        init_device0();
        let a = create_stream();
        let b = create_stream();
        let c = create_stream();
        let e = create_event_with_flag(SYNC);
        let release = AtomicBool::new(false);
        let mut st: aclrtEventWaitStatus = 0xdead;
        ok!(aclrtLaunchHostFunc(
            a,
            Some(block_until_set),
            flag_arg(&release)
        ));
        ok!(aclrtRecordEvent(e, a));
        ok!(aclrtQueryEventWaitStatus(e, &mut st));
        assert_eq!(st, ACL_EVENT_WAIT_STATUS_COMPLETE, "no wait issued yet");
        // Two streams wait; both are blocked until `a` passes the record.
        ok!(aclrtStreamWaitEvent(b, e));
        ok!(aclrtStreamWaitEvent(c, e));
        std::thread::sleep(Duration::from_millis(20));
        ok!(aclrtQueryEventWaitStatus(e, &mut st));
        assert_eq!(st, ACL_EVENT_WAIT_STATUS_NOT_READY);
        release.store(true, Ordering::SeqCst);
        ok!(aclrtSynchronizeStream(b));
        ok!(aclrtSynchronizeStream(c));
        ok!(aclrtQueryEventWaitStatus(e, &mut st));
        assert_eq!(st, ACL_EVENT_WAIT_STATUS_COMPLETE);
        // NULL arguments.
        assert_eq!(
            acl!(aclrtQueryEventWaitStatus(e, null_mut())),
            ACL_ERROR_INVALID_PARAM
        );
        assert_eq!(
            acl!(aclrtQueryEventWaitStatus(null_mut(), &mut st)),
            ACL_ERROR_INVALID_PARAM
        );
        ok!(aclrtSynchronizeStream(a));
        destroy_event(e);
        for s in [a, b, c] {
            destroy_stream(s);
        }
        teardown_device0();
        assert_clean();
    });
}

#[test]
fn wait_status_of_an_external_event_returns_207000() {
    let session = device0();
    let e = create_event_with_flag(ACL_EVENT_EXTERNAL);
    let mut st: aclrtEventWaitStatus = 0xdead;
    assert_eq!(
        acl!(aclrtQueryEventWaitStatus(e, &mut st)),
        ACL_ERROR_RT_FEATURE_NOT_SUPPORT
    );
    destroy_event(e);
    session.finish();
}

// ------------------------------------------------------------ priority

fn priority_of(s: aclrtStream) -> u32 {
    let mut p = 0xdead_u32;
    ok!(aclrtStreamGetPriority(s, &mut p));
    p
}

fn create_stream_with_priority(priority: u32) -> aclrtStream {
    let mut s: aclrtStream = null_mut();
    ok!(aclrtCreateStreamWithConfig(&mut s, priority, 0));
    assert!(!s.is_null());
    s
}

#[test]
fn stream_priority_is_clamped_into_0_to_7_and_read_back() {
    let _sim = aclrt_sim::exclusive();
    in_both_run_modes(|_| {
        init_device0();
        // Default stream (NULL) and aclrtCreateStream: 0, the highest.
        assert_eq!(priority_of(null_mut()), 0);
        let plain = create_stream();
        assert_eq!(priority_of(plain), 0);
        destroy_stream(plain);
        for (asked, got) in [
            (0, 0),
            (1, 1),
            (5, 5),
            (7, 7),
            (8, 7),
            (1000, 7),
            (0x7FFF_FFFF, 7),
            // Read as int32_t: negative, clamped to 0.
            (0x8000_0000, 0),
            (u32::MAX, 0),
        ] {
            let s = create_stream_with_priority(asked);
            assert_eq!(priority_of(s), got, "asked {asked:#x}");
            destroy_stream(s);
        }
        // Flags and priority together.
        let mut s: aclrtStream = null_mut();
        ok!(aclrtCreateStreamWithConfig(
            &mut s,
            3,
            ACL_STREAM_FAST_LAUNCH
        ));
        assert_eq!(priority_of(s), 3);
        destroy_stream(s);
        teardown_device0();
        assert_clean();
    });
}

#[test]
fn stream_priority_errors() {
    let _sim = aclrt_sim::exclusive();
    init_device0();
    let s = create_stream_with_priority(4);
    assert_eq!(
        acl!(aclrtStreamGetPriority(s, null_mut())),
        ACL_ERROR_INVALID_PARAM
    );
    // The stream's context is not checked: it reads from another context.
    let mut dflt: aclrtContext = null_mut();
    ok!(aclrtGetCurrentContext(&mut dflt));
    let ctx = create_context(0);
    assert_eq!(priority_of(s), 4);
    ok!(aclrtDestroyContext(ctx));
    ok!(aclrtSetCurrentContext(dflt));
    // No current context: 107002.
    let addr = s as usize;
    std::thread::spawn(move || {
        let mut p = 0u32;
        let s = addr as aclrtStream;
        assert_eq!(
            acl!(aclrtStreamGetPriority(s, &mut p)),
            ACL_ERROR_RT_CONTEXT_NULL
        );
    })
    .join()
    .unwrap();
    let mut p = 0u32;
    destroy_stream(s);
    // A destroyed stream: 107017.
    assert_eq!(
        acl!(aclrtStreamGetPriority(s, &mut p)),
        ACL_ERROR_RT_INVALID_HANDLE
    );
    teardown_device0();
    expect_violations(&[ViolationKind::UseAfterFree]);
}

#[test]
fn stream_priority_range_is_7_to_0_and_accepts_null() {
    let _sim = aclrt_sim::exclusive();
    in_both_run_modes(|_| {
        init_device0();
        let (mut least, mut greatest) = (-1i32, -1i32);
        ok!(aclrtDeviceGetStreamPriorityRange(&mut least, &mut greatest));
        assert_eq!((least, greatest), (7, 0));
        let mut only = -1i32;
        ok!(aclrtDeviceGetStreamPriorityRange(&mut only, null_mut()));
        assert_eq!(only, 7);
        only = -1;
        ok!(aclrtDeviceGetStreamPriorityRange(null_mut(), &mut only));
        assert_eq!(only, 0);
        ok!(aclrtDeviceGetStreamPriorityRange(null_mut(), null_mut()));
        teardown_device0();
        assert_clean();
    });
}
