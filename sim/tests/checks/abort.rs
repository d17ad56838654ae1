//! `aclrtStreamAbort` (acl-facts §K.8): synchronous; the running task stops
//! at its next check point (a delay or a wait is cut, a host function is
//! waited for), queued tasks are dropped, waits in flight on the stream end
//! with 107023, and the stream is usable afterwards.

use crate::common;
use common::*;

/// `aclrtStreamAbort(s)`.
fn abort(s: aclrtStream) -> aclError {
    acl!(aclrtStreamAbort(s))
}

/// Host function: sleeps 300 ms, then counts its run in the `AtomicUsize`
/// behind `counter`.
unsafe extern "C" fn slow_count(counter: *mut c_void) {
    std::thread::sleep(Duration::from_millis(300));
    // SAFETY: as for `count_run`.
    unsafe { count_run(counter) };
}

#[test]
fn abort_drops_queued_tasks_and_leaves_the_stream_usable() {
    static RUNS: AtomicUsize = AtomicUsize::new(0);
    let _sim = aclrt_sim::exclusive();
    in_both_run_modes(|mode| {
        RUNS.store(0, Ordering::SeqCst);
        init_device0();
        let s = create_stream();
        let dev = malloc(256);
        let host = malloc_host(256);
        // SAFETY: a live 256-byte aclrtMallocHost block no task uses yet.
        unsafe { host_slice(host, 256) }.fill(0x11);
        let e = create_event();
        // Longer than the test: the memset can only end by being cut.
        stream_delay(s, HANG_GUARD.as_millis() as u64);
        ok!(aclrtMemsetAsync(dev, 256, 0xAA, 256, s));
        ok!(aclrtMemcpyAsync(
            dev,
            256,
            host,
            256,
            ACL_MEMCPY_HOST_TO_DEVICE,
            s
        ));
        ok!(aclrtLaunchHostFunc(s, Some(count_run), counter_arg(&RUNS)));
        ok!(aclrtRecordEvent(e, s));
        assert_eq!(stream_status(s), ACL_STREAM_STATUS_NOT_READY);

        ok!(aclrtStreamAbort(s));
        // The delayed memset was cut (counted as aborted, and it never
        // wrote), not waited for: see below.
        assert_eq!(aclrt_sim::audit().aborted_tasks, 4, "{mode:?}");
        // Nothing ran: the delayed memset was cut, the rest dropped.
        assert_eq!(read_device(dev, 256), vec![0; 256], "{mode:?}");
        assert_eq!(RUNS.load(Ordering::SeqCst), 0);
        assert_eq!(stream_status(s), ACL_STREAM_STATUS_COMPLETE);
        // The dropped record never completes.
        assert_eq!(event_status(e), ACL_EVENT_RECORDED_STATUS_NOT_READY);
        assert_eq!(acl!(aclrtSynchronizeEvent(e)), ACL_ERROR_RT_STREAM_ABORT);
        let mut ms = 0f32;
        assert_eq!(
            acl!(aclrtEventElapsedTime(&mut ms, e, e)),
            ACL_ERROR_RT_EVENT_TIMESTAMP_INVALID
        );
        // A synchronisation after the abort has nothing left to wait for.
        ok!(aclrtSynchronizeStream(s));

        // Usable again: new tasks run normally.
        stream_delay(s, 0);
        ok!(aclrtMemcpyAsync(
            dev,
            256,
            host,
            256,
            ACL_MEMCPY_HOST_TO_DEVICE,
            s
        ));
        ok!(aclrtLaunchHostFunc(s, Some(count_run), counter_arg(&RUNS)));
        ok!(aclrtRecordEvent(e, s));
        ok!(aclrtSynchronizeStream(s));
        ok!(aclrtSynchronizeEvent(e));
        assert_eq!(event_status(e), ACL_EVENT_RECORDED_STATUS_COMPLETE);
        assert_eq!(read_device(dev, 256), vec![0x11; 256]);
        assert_eq!(RUNS.load(Ordering::SeqCst), 1);
        assert_eq!(aclrt_sim::audit().aborted_tasks, 4);

        destroy_event(e);
        free(dev);
        free_host(host);
        destroy_stream(s);
        teardown_device0();
        assert_clean();
    });
}

#[test]
fn abort_of_an_idle_stream_and_of_the_default_stream_by_handle() {
    let session = device0();
    let s = create_stream();
    ok!(aclrtStreamAbort(s));
    ok!(aclrtStreamAbort(s));
    let mut ds: aclrtStream = null_mut();
    ok!(aclrtCtxGetCurrentDefaultStream(&mut ds));
    let p = malloc(64);
    stream_delay(ds, 2_000);
    ok!(aclrtMemsetAsync(p, 64, 9, 64, null_mut()));
    ok!(aclrtStreamAbort(ds));
    assert_eq!(read_device(p, 64), vec![0; 64]);
    assert_eq!(aclrt_sim::audit().aborted_tasks, 1);
    stream_delay(ds, 0);
    ok!(aclrtMemsetAsync(p, 64, 9, 64, null_mut()));
    ok!(aclrtSynchronizeStream(null_mut()));
    assert_eq!(read_device(p, 64), vec![9; 64]);
    free(p);
    destroy_stream(s);
    session.finish();
}

#[test]
fn waits_in_flight_on_other_threads_return_107023() {
    let _sim = aclrt_sim::exclusive();
    in_both_run_modes(|_| {
        init_device0();
        let s = create_stream();
        let p = malloc(64);
        let e = create_event();
        // Longer than the test: the waits can only end through the abort.
        stream_delay(s, HANG_GUARD.as_millis() as u64);
        ok!(aclrtMemsetAsync(p, 64, 1, 64, s));
        ok!(aclrtRecordEvent(e, s));
        ok!(aclrtMemsetAsync(p, 64, 2, 64, s));
        let (sa, ea, ca) = (s.addr(), e.addr(), current_context().addr());
        let stream_of = move || std::ptr::without_provenance_mut::<c_void>(sa);
        let event_of = move || std::ptr::without_provenance_mut::<c_void>(ea);
        // A stream synchronisation needs a current context on its thread.
        let in_ctx = move || ok!(aclrtSetCurrentContext(std::ptr::without_provenance_mut(ca)));
        let waiters = [
            std::thread::spawn(move || {
                in_ctx();
                acl!(aclrtSynchronizeStream(stream_of()))
            }),
            std::thread::spawn(move || {
                in_ctx();
                acl!(aclrtSynchronizeStreamWithTimeout(stream_of(), 20_000))
            }),
            std::thread::spawn(move || acl!(aclrtSynchronizeEvent(event_of()))),
            std::thread::spawn(move || acl!(aclrtSynchronizeEventWithTimeout(event_of(), 20_000))),
        ];
        // Not synchronisation: gives the waiters time to start waiting (they
        // would wait out the delay otherwise; the timeout variants would
        // end with a timeout code, not 107023).
        std::thread::sleep(Duration::from_millis(150));
        ok!(aclrtStreamAbort(s));
        // Each wait ended because of the abort (107023), not a timeout.
        for w in waiters {
            assert_eq!(w.join().unwrap(), ACL_ERROR_RT_STREAM_ABORT);
        }
        assert_eq!(read_device(p, 64), vec![0; 64]);
        // Waits that start afterwards: the stream is idle, the event's record
        // was dropped.
        ok!(aclrtSynchronizeStream(s));
        assert_eq!(acl!(aclrtSynchronizeEvent(e)), ACL_ERROR_RT_STREAM_ABORT);
        destroy_event(e);
        free(p);
        destroy_stream(s);
        teardown_device0();
        assert_clean();
    });
}

#[test]
fn abort_waits_for_a_running_host_function_and_drops_the_rest() {
    static RUNS: AtomicUsize = AtomicUsize::new(0);
    let _sim = aclrt_sim::exclusive();
    init_device0();
    let s = create_stream();
    ok!(aclrtLaunchHostFunc(s, Some(slow_count), counter_arg(&RUNS)));
    ok!(aclrtLaunchHostFunc(s, Some(count_run), counter_arg(&RUNS)));
    ok!(aclrtLaunchHostFunc(s, Some(count_run), counter_arg(&RUNS)));
    // Not synchronisation: lets the worker start the slow host function.
    std::thread::sleep(Duration::from_millis(50));
    let t0 = Instant::now();
    ok!(aclrtStreamAbort(s));
    assert!(
        t0.elapsed() >= Duration::from_millis(150),
        "{:?}",
        t0.elapsed()
    );
    // The running host function finished; the two queued ones never ran.
    assert_eq!(RUNS.load(Ordering::SeqCst), 1);
    assert_eq!(aclrt_sim::audit().aborted_tasks, 2);
    ok!(aclrtSynchronizeStream(s));
    assert_eq!(RUNS.load(Ordering::SeqCst), 1);
    destroy_stream(s);
    teardown_device0();
    assert_clean();
}

#[test]
fn submissions_during_an_abort_return_107023() {
    let session = device0();
    let ctx = current_context();
    let s = create_stream();
    let p = malloc(64);
    let e = create_event();
    static RUNS: AtomicUsize = AtomicUsize::new(0);
    ok!(aclrtLaunchHostFunc(s, Some(slow_count), counter_arg(&RUNS)));
    // Not synchronisation: lets the worker start the slow host function, so
    // that the abort below waits for it.
    std::thread::sleep(Duration::from_millis(50));
    let (sa, ca) = (s.addr(), ctx.addr());
    let aborter = std::thread::spawn(move || {
        ok!(aclrtSetCurrentContext(std::ptr::without_provenance_mut(ca)));
        acl!(aclrtStreamAbort(std::ptr::without_provenance_mut(sa)))
    });
    // Not synchronisation: the abort is now waiting for the host function.
    std::thread::sleep(Duration::from_millis(100));
    assert_eq!(
        acl!(aclrtMemsetAsync(p, 64, 1, 64, s)),
        ACL_ERROR_RT_STREAM_ABORT
    );
    assert_eq!(acl!(aclrtRecordEvent(e, s)), ACL_ERROR_RT_STREAM_ABORT);
    assert_eq!(aborter.join().unwrap(), ACL_SUCCESS);
    ok!(aclrtMemsetAsync(p, 64, 1, 64, s));
    ok!(aclrtRecordEvent(e, s));
    ok!(aclrtSynchronizeEvent(e));
    assert_eq!(read_device(p, 64), vec![1; 64]);
    destroy_event(e);
    free(p);
    destroy_stream(s);
    session.finish();
}

#[test]
fn a_stream_waiting_on_a_dropped_record_is_released_by_aborting_it_too() {
    let _sim = aclrt_sim::exclusive();
    in_both_run_modes(|_| {
        init_device0();
        let (a, b) = (create_stream(), create_stream());
        let p = malloc(64);
        let e = create_event();
        stream_delay(a, 5_000);
        ok!(aclrtMemsetAsync(p, 64, 1, 64, a));
        ok!(aclrtRecordEvent(e, a));
        ok!(aclrtStreamWaitEvent(b, e));
        ok!(aclrtMemsetAsync(p, 64, 2, 64, b));
        ok!(aclrtStreamAbort(a));
        // The record of `e` was dropped: `b`'s wait never ends by itself (as
        // on the device).
        std::thread::sleep(Duration::from_millis(100));
        assert_eq!(stream_status(b), ACL_STREAM_STATUS_NOT_READY);
        assert_eq!(
            acl!(aclrtSynchronizeStreamWithTimeout(b, 50)),
            ACL_ERROR_RT_STREAM_SYNC_TIMEOUT
        );
        // The wait never ends by itself: only cutting it lets the abort
        // return successfully (waiting for it would end in 107019).
        ok!(aclrtStreamAbort(b));
        assert_eq!(stream_status(b), ACL_STREAM_STATUS_COMPLETE);
        assert_eq!(read_device(p, 64), vec![0; 64]);
        // memset, record on `a`; wait (cut), memset on `b`.
        assert_eq!(aclrt_sim::audit().aborted_tasks, 4);
        // A wait issued later on the dropped record hangs as well, until
        // aborted.
        ok!(aclrtStreamWaitEvent(b, e));
        assert_eq!(stream_status(b), ACL_STREAM_STATUS_NOT_READY);
        ok!(aclrtStreamAbort(b));
        // Both streams work again; re-recording the event makes it usable.
        stream_delay(a, 0);
        ok!(aclrtMemsetAsync(p, 64, 3, 64, a));
        ok!(aclrtRecordEvent(e, a));
        ok!(aclrtStreamWaitEvent(b, e));
        ok!(aclrtMemsetAsync(p, 32, 4, 32, b));
        ok!(aclrtSynchronizeStream(b));
        let mut want = vec![4; 32];
        want.extend([3; 32]);
        assert_eq!(read_device(p, 64), want);
        destroy_event(e);
        free(p);
        destroy_stream(a);
        destroy_stream(b);
        teardown_device0();
        assert_clean();
    });
}

#[test]
fn null_stream_aborts_the_default_stream_on_910b() {
    // The runtime layer resolves NULL to the default stream on chips with
    // the control submission queue (the 910B); see fidelity.rs for the
    // 310P profile, where it is 107000.
    let session = device0();
    let ran = AtomicUsize::new(0);
    stream_delay(null_mut(), 200);
    ok!(aclrtLaunchHostFunc(
        null_mut(),
        Some(count_up),
        counter_arg(&ran)
    ));
    ok!(aclrtStreamAbort(null_mut()));
    ok!(aclrtSynchronizeStream(null_mut()));
    assert_eq!(
        ran.load(Ordering::SeqCst),
        0,
        "the queued host function was dropped"
    );
    session.finish();
}

unsafe extern "C" fn count_up(user: *mut c_void) {
    // SAFETY: the test passes a counter that outlives the stream's work.
    unsafe { &*user.cast::<AtomicUsize>() }.fetch_add(1, Ordering::SeqCst);
}

#[test]
fn stream_of_another_context_returns_107003() {
    let _sim = aclrt_sim::exclusive();
    init_device0();
    let s = create_stream();
    let other = create_context(0);
    assert_eq!(abort(s), ACL_ERROR_RT_STREAM_CONTEXT);
    ok!(aclrtDestroyContext(other));
    // The destroyed context was current: the thread has none now.
    rebind(0);
    ok!(aclrtStreamAbort(s));
    destroy_stream(s);
    teardown_device0();
    expect_violations(&[ViolationKind::WrongContext]);
}

#[test]
fn without_a_current_context_returns_107002() {
    let session = device0();
    let s = create_stream();
    let sa = s.addr();
    let code =
        std::thread::spawn(move || acl!(aclrtStreamAbort(std::ptr::without_provenance_mut(sa))))
            .join()
            .unwrap();
    assert_eq!(code, ACL_ERROR_RT_CONTEXT_NULL);
    destroy_stream(s);
    session.finish();
}

#[test]
fn stale_and_foreign_handles_return_107017() {
    let _sim = aclrt_sim::exclusive();
    init_device0();
    let s = create_stream();
    destroy_stream(s);
    assert_eq!(abort(s), ACL_ERROR_RT_INVALID_HANDLE);
    let e = create_event();
    assert_eq!(abort(e), ACL_ERROR_RT_INVALID_HANDLE);
    destroy_event(e);
    teardown_device0();
    expect_violations(&[ViolationKind::UseAfterFree, ViolationKind::InvalidHandle]);
}

static OWN_ABORT: AtomicUsize = AtomicUsize::new(0);
static OWN_STREAM: AtomicUsize = AtomicUsize::new(0);

/// Host function: aborts the stream in `OWN_STREAM` (the one running it)
/// after making the context behind `ctx` current; stores the code.
unsafe extern "C" fn abort_running_stream(ctx: *mut c_void) {
    ok!(aclrtSetCurrentContext(ctx));
    let s = std::ptr::without_provenance_mut(OWN_STREAM.load(Ordering::SeqCst));
    OWN_ABORT.store(acl!(aclrtStreamAbort(s)) as usize, Ordering::SeqCst);
}

#[test]
fn abort_from_a_host_function_on_the_same_stream_returns_107000() {
    let session = device0();
    let ctx = current_context();
    let s = create_stream();
    OWN_STREAM.store(s.addr(), Ordering::SeqCst);
    OWN_ABORT.store(0, Ordering::SeqCst);
    ok!(aclrtLaunchHostFunc(s, Some(abort_running_stream), ctx));
    ok!(aclrtSynchronizeStream(s));
    assert_eq!(
        OWN_ABORT.load(Ordering::SeqCst) as aclError,
        ACL_ERROR_RT_PARAM_INVALID
    );
    destroy_stream(s);
    session.finish();
}

#[test]
fn injected_fault_fails_the_abort_without_effect() {
    static RUNS: AtomicUsize = AtomicUsize::new(0);
    let _sim = aclrt_sim::exclusive();
    init_device0();
    let s = create_stream();
    stream_delay(s, 100);
    ok!(aclrtLaunchHostFunc(s, Some(count_run), counter_arg(&RUNS)));
    aclrt_sim::inject_fault("aclrtStreamAbort", 1, ACL_ERROR_RT_WAIT_TIMEOUT);
    assert_eq!(abort(s), ACL_ERROR_RT_WAIT_TIMEOUT);
    assert!(recent_err_msg().unwrap().contains("injected"));
    ok!(aclrtSynchronizeStream(s));
    assert_eq!(RUNS.load(Ordering::SeqCst), 1, "the task still ran");
    assert_eq!(aclrt_sim::audit().aborted_tasks, 0);
    assert!(
        aclrt_sim::call_counts().contains(&("aclrtStreamAbort", 1)),
        "{:?}",
        aclrt_sim::call_counts()
    );
    destroy_stream(s);
    teardown_device0();
    assert_clean();
}

#[test]
fn the_trace_shows_the_abort_and_the_cut_task() {
    let _sim = aclrt_sim::exclusive();
    let path = temp_trace_path("abort");
    configure(|c| c.trace_path = Some(path.clone()));
    init_device0();
    let (a, b) = (create_stream(), create_stream());
    let p = malloc(64);
    let e = create_event();
    stream_delay(a, 5_000);
    ok!(aclrtMemsetAsync(p, 64, 1, 64, a));
    ok!(aclrtRecordEvent(e, a));
    ok!(aclrtStreamWaitEvent(b, e));
    ok!(aclrtStreamAbort(a));
    // Not synchronisation: lets `b` start its (now endless) wait.
    std::thread::sleep(Duration::from_millis(100));
    ok!(aclrtStreamAbort(b));
    destroy_event(e);
    free(p);
    destroy_stream(a);
    destroy_stream(b);
    teardown_device0();
    let events = read_trace_events(&path);
    let aborts: Vec<&serde_json::Value> = events
        .iter()
        .filter(|e| e["name"] == "stream abort")
        .collect();
    assert_eq!(aborts.len(), 2, "{events:#?}");
    assert_eq!(aborts[0]["args"]["dropped"], 2, "{events:#?}");
    assert_eq!(aborts[1]["args"]["dropped"], 1, "{events:#?}");
    let wait = events
        .iter()
        .find(|e| e["name"] == "wait event")
        .unwrap_or_else(|| panic!("no wait in {events:#?}"));
    assert_eq!(wait["args"]["aborted"], true, "{wait}");
    // The same in memory.
    let trace = aclrt_sim::trace::last().unwrap();
    let (la, lb) = (trace.lane(a).unwrap(), trace.lane(b).unwrap());
    let dropped = |l: &aclrt_sim::trace::Lane| {
        l.tasks
            .iter()
            .filter(|t| t.category == "abort")
            .map(|t| t.dropped)
            .collect::<Vec<_>>()
    };
    assert_eq!((dropped(la), dropped(lb)), (vec![Some(2)], vec![Some(1)]));
    assert!(lb.tasks.iter().any(|t| t.name == "wait event" && t.aborted));
    assert_clean();
}

#[test]
fn abort_racing_a_busy_worker_keeps_the_books_consistent() {
    // Whatever the worker had done when the abort came: the tasks that ran
    // are a prefix of the queue, exactly the others are counted as dropped,
    // and the event completes only if its record (the last task) ran.
    let _sim = aclrt_sim::exclusive();
    init_device0();
    let s = create_stream();
    let p = malloc(4096);
    let e = create_event();
    const K: u8 = 40;
    for round in 0..200u32 {
        ok!(aclrtMemset(p, 4096, 0, 4096));
        let before = aclrt_sim::audit().aborted_tasks;
        for v in 1..=K {
            ok!(aclrtMemsetAsync(p, 4096, i32::from(v), 4096, s));
        }
        ok!(aclrtRecordEvent(e, s));
        if round % 4 != 0 {
            // Not synchronisation: varies how far the worker got.
            std::thread::sleep(Duration::from_micros(u64::from(round % 97) * 7));
        }
        ok!(aclrtStreamAbort(s));
        let dropped = aclrt_sim::audit().aborted_tasks - before;
        let bytes = read_device(p, 4096);
        let v = bytes[0];
        assert!(bytes.iter().all(|&b| b == v), "round {round}: torn memset");
        let complete = event_status(e) == ACL_EVENT_RECORDED_STATUS_COMPLETE;
        assert!(!complete || v == K, "round {round}: event complete at {v}");
        assert_eq!(
            dropped,
            u64::from(K - v) + u64::from(!complete),
            "round {round}: value {v}, event complete {complete}"
        );
        let sync = acl!(aclrtSynchronizeEvent(e));
        assert_eq!(
            sync,
            if complete {
                ACL_SUCCESS
            } else {
                ACL_ERROR_RT_STREAM_ABORT
            },
            "round {round}"
        );
        ok!(aclrtSynchronizeStream(s));
        assert_eq!(stream_status(s), ACL_STREAM_STATUS_COMPLETE);
    }
    destroy_event(e);
    free(p);
    destroy_stream(s);
    teardown_device0();
    assert_clean();
}
