//! The control API: faults, delays, call counts, trace, reset, callbacks.

use crate::common;
use common::*;
use std::sync::Arc;

#[test]
fn injected_call_fault_fails_the_nth_call_only() {
    let session = device0();
    aclrt_sim::inject_fault("aclrtMalloc", 2, ACL_ERROR_RT_MEMORY_ALLOCATION);
    let a = malloc(64);
    let mut p = null_mut();
    assert_eq!(
        acl!(aclrtMalloc(&mut p, 64, 0)),
        ACL_ERROR_RT_MEMORY_ALLOCATION
    );
    assert!(p.is_null());
    assert!(recent_err_msg().unwrap().contains("injected"));
    let b = malloc(64);
    ok!(aclrtFree(a));
    ok!(aclrtFree(b));
    assert_eq!(
        aclrt_sim::call_counts()
            .iter()
            .find(|(n, _)| *n == "aclrtMalloc"),
        Some(&("aclrtMalloc", 3))
    );
    session.finish();
}

#[test]
fn task_fault_is_a_no_op_reported_once_by_the_next_sync() {
    let session = device0();
    let s = create_stream();
    let p = malloc(64);
    ok!(aclrtMemset(p, 64, 0, 64));
    aclrt_sim::inject_task_fault(2, ACL_ERROR_RT_AICORE_EXCEPTION);
    ok!(aclrtMemsetAsync(p, 64, 1, 64, s));
    ok!(aclrtMemsetAsync(p, 64, 2, 64, s));
    let e = create_event();
    ok!(aclrtRecordEvent(e, s));
    // The event's synchronisation does not report the fault (FIDELITY
    // EVENT-S-4); the stream's next synchronisation does, once.
    ok!(aclrtSynchronizeEvent(e));
    assert_eq!(
        read_device(p, 64),
        vec![1; 64],
        "the faulted task did nothing"
    );
    assert_eq!(
        acl!(aclrtSynchronizeStream(s)),
        ACL_ERROR_RT_AICORE_EXCEPTION
    );
    assert!(recent_err_msg().unwrap().contains("task #2"));
    ok!(aclrtSynchronizeStream(s));
    // Device sync reports faults of the current context's streams.
    aclrt_sim::inject_task_fault(1, 507_899);
    ok!(aclrtMemsetAsync(p, 64, 3, 64, s));
    assert_eq!(acl!(aclrtSynchronizeDevice()), 507_899);
    ok!(aclrtSynchronizeDevice());
    ok!(aclrtDestroyEvent(e));
    ok!(aclrtFree(p));
    ok!(aclrtDestroyStream(s));
    session.finish();
}

#[test]
fn configured_and_per_stream_delays() {
    let _sim = aclrt_sim::exclusive();
    // A configured delay far longer than the test: no stream's task ends
    // by itself while the test looks (it is cut by an abort at the end).
    aclrt_sim::configure(SimConfig {
        task_delay: HANG_GUARD,
        ..SimConfig::default()
    });
    init_device0();
    let (d, s) = (create_stream(), create_stream());
    let (pd, ps) = (malloc(64), malloc(64));
    ok!(aclrtMemset(pd, 64, 0, 64));
    ok!(aclrtMemsetAsync(pd, 64, 1, 64, d));
    assert_eq!(stream_status(d), ACL_STREAM_STATUS_NOT_READY);
    // A per-stream zero delay overrides the configured one.
    aclrt_sim::set_stream_delay(s, Duration::ZERO);
    ok!(aclrtMemsetAsync(ps, 64, 2, 64, s));
    ok!(aclrtSynchronizeStream(s));
    assert_eq!(read_device(ps, 64), vec![2; 64]);
    // `s` finished while `d`, queued first, still waits out the configured
    // delay (had `s` had that delay too, `d` would have finished first).
    assert_eq!(stream_status(d), ACL_STREAM_STATUS_NOT_READY);
    ok!(aclrtStreamAbort(d));
    // The abort cut the delay: the memset never ran.
    assert_eq!(aclrt_sim::audit().aborted_tasks, 1);
    assert_eq!(read_device(pd, 64), vec![0; 64]);
    ok!(aclrtFree(pd));
    ok!(aclrtFree(ps));
    ok!(aclrtDestroyStream(d));
    ok!(aclrtDestroyStream(s));
    teardown_device0();
    assert_clean();
}

#[test]
fn reset_works_from_a_dirty_state() {
    let session = device0();
    let s = create_stream();
    let p = malloc(1 << 20);
    let _h = malloc_host(64);
    // A running task and pending tasks.
    static RUNS: AtomicUsize = AtomicUsize::new(0);
    ok!(aclrtLaunchHostFunc(s, Some(sleep_ms), ms_arg(100)));
    ok!(aclrtMemsetAsync(p, 1 << 20, 1, 1 << 20, s));
    ok!(aclrtLaunchHostFunc(s, Some(count_run), counter_arg(&RUNS)));
    let mut ctx = null_mut();
    ok!(aclrtCreateContext(&mut ctx, 1));
    let mut other = null_mut();
    ok!(aclrtCtxGetCurrentDefaultStream(&mut other));
    // A subscription, a violation, an injected fault.
    ok!(aclrtSubscribeReport(aclrt_sim::thread_report_id(), other));
    let _ = acl!(aclrtFree(std::ptr::without_provenance_mut(8)));
    aclrt_sim::inject_fault("aclrtMalloc", 1, 1);
    aclrt_sim::reset();
    // The reset discarded the pending tasks instead of running them.
    assert_eq!(RUNS.load(Ordering::SeqCst), 0, "a pending task ran");
    let audit = aclrt_sim::audit();
    assert!(audit.is_clean(), "{audit:#?}");
    assert!(!audit.initialized);
    assert_eq!(aclrt_sim::total_calls(), 0);
    // Stale handles are rejected, a fresh runtime works.
    assert_eq!(
        acl!(aclrtSetCurrentContext(ctx)),
        ACL_ERROR_RT_PARAM_INVALID
    );
    aclrt_sim::reset();
    init_device0();
    let q = malloc(64);
    ok!(aclrtFree(q));
    session.finish();
}

unsafe extern "C" fn flag_thread(arg: *mut c_void) {
    // SAFETY: the test passes a pointer to an `AtomicUsize` that outlives the
    // stream synchronisation after which the callback has run.
    let slot = unsafe { &*arg.cast::<AtomicUsize>() };
    slot.store(aclrt_sim::thread_report_id() as usize, Ordering::SeqCst);
}

#[test]
fn callbacks_run_on_the_subscribed_thread() {
    let session = device0();
    let s = create_stream();
    let stop = Arc::new(AtomicBool::new(false));
    let (tx, rx) = std::sync::mpsc::channel();
    let reporter = {
        let stop = stop.clone();
        std::thread::spawn(move || {
            tx.send(aclrt_sim::thread_report_id()).unwrap();
            let mut served = 0;
            while !stop.load(Ordering::SeqCst) {
                match acl!(aclrtProcessReport(10)) {
                    0 => served += 1,
                    ACL_ERROR_RT_REPORT_TIMEOUT | ACL_ERROR_RT_THREAD_SUBSCRIBE => {}
                    other => panic!("aclrtProcessReport: {other}"),
                }
            }
            served
        })
    };
    let tid = rx.recv().unwrap();
    let slot = AtomicUsize::new(0);
    let arg = (&slot as *const AtomicUsize).cast_mut().cast::<c_void>();
    assert_eq!(
        acl!(aclrtLaunchCallback(
            Some(flag_thread),
            arg,
            ACL_CALLBACK_BLOCK,
            s
        )),
        ACL_ERROR_RT_STREAM_NO_CB_REG
    );
    ok!(aclrtSubscribeReport(tid, s));
    assert_eq!(
        acl!(aclrtSubscribeReport(tid + 1, s)),
        ACL_ERROR_RT_STREAM_SUBSCRIBE
    );
    ok!(aclrtLaunchCallback(
        Some(flag_thread),
        arg,
        ACL_CALLBACK_BLOCK,
        s
    ));
    ok!(aclrtSynchronizeStream(s));
    assert_eq!(slot.load(Ordering::SeqCst) as u64, tid);
    assert_eq!(
        acl!(aclrtUnSubscribeReport(tid + 1, s)),
        ACL_ERROR_RT_THREAD_SUBSCRIBE
    );
    ok!(aclrtUnSubscribeReport(tid, s));
    assert_eq!(
        acl!(aclrtUnSubscribeReport(tid, s)),
        ACL_ERROR_RT_STREAM_SUBSCRIBE
    );
    stop.store(true, Ordering::SeqCst);
    assert_eq!(reporter.join().unwrap(), 1);
    assert_eq!(acl!(aclrtProcessReport(0)), ACL_ERROR_INVALID_PARAM);
    assert_eq!(acl!(aclrtProcessReport(5)), ACL_ERROR_RT_THREAD_SUBSCRIBE);
    ok!(aclrtDestroyStream(s));
    session.finish();
}

#[test]
fn host_func_blocks_its_stream_until_it_returns() {
    let session = device0();
    let s = create_stream();
    let hits = AtomicUsize::new(0);
    let arg = counter_arg(&hits);
    ok!(aclrtLaunchHostFunc(s, Some(sleep_ms), ms_arg(50)));
    ok!(aclrtLaunchHostFunc(s, Some(count_run), arg));
    assert_eq!(hits.load(Ordering::SeqCst), 0);
    assert_eq!(stream_status(s), ACL_STREAM_STATUS_NOT_READY);
    ok!(aclrtSynchronizeStream(s));
    assert_eq!(hits.load(Ordering::SeqCst), 1);
    assert_eq!(
        acl!(aclrtLaunchHostFunc(s, None, null_mut())),
        ACL_ERROR_RT_PARAM_INVALID
    );
    ok!(aclrtDestroyStream(s));
    session.finish();
}

#[test]
fn trace_has_one_lane_per_stream_with_waits() {
    let _sim = aclrt_sim::exclusive();
    let path = temp_trace_path("control");
    aclrt_sim::configure(SimConfig {
        trace_path: Some(path.clone()),
        ..SimConfig::default()
    });
    init_device0();
    let (a, b) = (create_stream(), create_stream());
    let e = create_event();
    let p = malloc(4096);
    ok!(aclrtLaunchHostFunc(a, Some(sleep_ms), ms_arg(30)));
    ok!(aclrtMemsetAsync(p, 4096, 1, 4096, a));
    ok!(aclrtRecordEvent(e, a));
    ok!(aclrtStreamWaitEvent(b, e));
    ok!(aclrtMemcpyAsync(
        p,
        2048,
        p.wrapping_byte_add(2048),
        2048,
        ACL_MEMCPY_DEVICE_TO_DEVICE,
        b
    ));
    ok!(aclrtSynchronizeStream(b));
    ok!(aclrtDestroyEvent(e));
    ok!(aclrtFree(p));
    ok!(aclrtDestroyStream(a));
    ok!(aclrtDestroyStream(b));
    teardown_device0();
    let events = read_trace_events(&path);
    let lane_names: Vec<&str> = events
        .iter()
        .filter(|e| e["name"] == "thread_name")
        .filter_map(|e| e["args"]["name"].as_str())
        .collect();
    for stream in [a, b] {
        let name = format!("device 0 stream {}", stream.addr() >> 4);
        assert!(
            lane_names.contains(&name.as_str()),
            "{name}: {lane_names:?}"
        );
    }
    let task = |name: &str| {
        events
            .iter()
            .find(|e| e["ph"] == "X" && e["name"] == name)
            .unwrap_or_else(|| panic!("no {name} task in {events:#?}"))
    };
    for name in ["host func", "memset", "memcpy D2D", "record event"] {
        task(name);
    }
    // The wait lasted about as long as the host function before the record.
    let wait = task("wait event");
    assert!(wait["dur"].as_f64().unwrap() > 10_000.0, "{wait}");
    assert_clean();
}

#[test]
fn config_from_env_and_configure() {
    let _sim = aclrt_sim::exclusive();
    assert_eq!(aclrt_sim::config(), SimConfig::from_env());
    let cfg = SimConfig {
        devices: 3,
        ..SimConfig::default()
    };
    aclrt_sim::configure(cfg.clone());
    assert_eq!(aclrt_sim::config(), cfg);
    ok!(aclInit(null()));
    let mut n = 0u32;
    ok!(aclrtGetDeviceCount(&mut n));
    assert_eq!(n, 3);
    aclrt_sim::configure(SimConfig::default());
    assert_eq!(aclrt_sim::config(), cfg, "in force until finalize");
    ok!(aclFinalize());
    assert_eq!(aclrt_sim::config(), SimConfig::default());
}

/// The control API's documented panics (`# Panics`; SAFETY.md section 2):
/// a typo in a test must not silently inject nothing, and a delay needs a
/// live stream. Each panics with its message and changes nothing.
#[test]
fn control_api_misuse_panics_with_its_reason() {
    use std::panic::{AssertUnwindSafe, catch_unwind};
    let session = device0();
    let message = |f: &mut dyn FnMut()| -> String {
        let payload = catch_unwind(AssertUnwindSafe(f)).expect_err("must panic");
        payload
            .downcast_ref::<String>()
            .cloned()
            .or_else(|| payload.downcast_ref::<&str>().map(|s| s.to_string()))
            .unwrap_or_default()
    };
    let m = message(&mut || aclrt_sim::inject_fault("aclrtMallocc", 1, 1));
    assert!(m.contains("is not a C function of the simulator"), "{m}");
    let m = message(&mut || aclrt_sim::inject_fault("aclrtMalloc", 0, 1));
    assert!(m.contains("nth is 1-based"), "{m}");
    let m = message(&mut || aclrt_sim::inject_task_fault(0, 1));
    assert!(m.contains("nth is 1-based"), "{m}");
    let bogus = std::ptr::without_provenance_mut::<core::ffi::c_void>(0x5eed);
    let m =
        message(&mut || aclrt_sim::set_stream_delay(bogus, std::time::Duration::from_millis(1)));
    assert!(m.starts_with("aclrt_sim::set_stream_delay"), "{m}");
    // Nothing was injected: the next allocation succeeds.
    let p = malloc(64);
    free(p);
    session.finish();
}
