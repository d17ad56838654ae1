//! A runtime epoch (aclInit .. aclFinalize) never
//! reaches into the next, and a stream blocked on a callback nobody serves
//! is reported instead of hanging the teardown.

use crate::common;
use common::*;
use std::sync::Arc;
use std::sync::atomic::AtomicI32;

/// Runs `f` on another thread; `Some(result)` if it returned within `secs`.
fn within<T: Send + 'static>(secs: u64, f: impl FnOnce() -> T + Send + 'static) -> Option<T> {
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        let _ = tx.send(f());
    });
    rx.recv_timeout(Duration::from_secs(secs)).ok()
}

/// One complete, valid program on device 0: every call must succeed.
fn valid_program() {
    init();
    ok!(aclrtSetDevice(0));
    let s = create_stream();
    let d = malloc(256);
    ok!(aclrtMemsetAsync(d, 256, 1, 256, s));
    ok!(aclrtSynchronizeStream(s));
    free(d);
    destroy_stream(s);
    ok!(aclrtResetDevice(0));
    finalize();
}

#[test]
fn calls_after_finalize_leave_nothing_for_the_next_program() {
    let _sim = aclrt_sim::exclusive();
    init_device0();
    teardown_device0();
    // As in the real runtime, the device layer does not check aclInit:
    // these succeed, and a second aclFinalize is a repeated finalize.
    ok!(aclrtSetDevice(1));
    let mut ctx: aclrtContext = null_mut();
    ok!(aclrtCreateContext(&mut ctx, 1));
    assert_eq!(acl!(aclFinalize()), ACL_ERROR_REPEAT_FINALIZE);
    // The next valid program runs and finalizes cleanly.
    valid_program();
    let audit = aclrt_sim::audit();
    assert!(audit.live.values().all(|&n| n == 0), "{audit:#?}");
    let kinds: Vec<ResourceKind> = audit.leaks.iter().map(|l| l.kind).collect();
    assert!(
        kinds.contains(&ResourceKind::Device) && kinds.contains(&ResourceKind::Context),
        "{audit:#?}"
    );
    let v: Vec<_> = audit
        .violations
        .iter()
        .map(|v| (v.function, v.kind))
        .collect();
    assert_eq!(v, [("aclInit", ViolationKind::UseAfterFinalize)]);
    // The context of the old epoch is a stale handle now.
    assert_ne!(acl!(aclrtDestroyContext(ctx)), ACL_SUCCESS);
    aclrt_sim::reset();
    // And after a reset, the program is clean.
    valid_program();
    assert_clean();
}

static STALE_FINALIZE: AtomicI32 = AtomicI32::new(-1);
static STALE_CREATE: AtomicI32 = AtomicI32::new(-1);
static STALE_GO: AtomicBool = AtomicBool::new(false);
static STALE_STARTED: AtomicBool = AtomicBool::new(false);

/// Host function: waits for `STALE_GO`, then calls aclFinalize and
/// aclrtCreateStream and stores their codes.
unsafe extern "C" fn finalize_later(_: *mut c_void) {
    STALE_STARTED.store(true, Ordering::SeqCst);
    let t0 = Instant::now();
    while !STALE_GO.load(Ordering::SeqCst) && t0.elapsed() < Duration::from_secs(30) {
        std::thread::sleep(Duration::from_millis(1));
    }
    // SAFETY: plain C calls with no pointer arguments.
    STALE_FINALIZE.store(unsafe { aclFinalize() }, Ordering::SeqCst);
    let mut s: aclrtStream = null_mut();
    // SAFETY: `s` is a writable local of the C type.
    STALE_CREATE.store(unsafe { aclrtCreateStream(&mut s) }, Ordering::SeqCst);
}

#[test]
fn a_host_function_of_a_finalized_runtime_cannot_reach_the_next_one() {
    let _sim = aclrt_sim::exclusive();
    // The host function below runs until the test lets it go, so the
    // finalize leaves it behind whatever its bounded wait; a short one (not
    // the default 5 s) ends the same way, sooner.
    aclrt_sim::set_teardown_wait(Duration::from_millis(500));
    init_device0();
    let s = create_stream();
    ok!(aclrtLaunchHostFunc(s, Some(finalize_later), null_mut()));
    assert!(wait_until(|| STALE_STARTED.load(Ordering::SeqCst)));
    // The host function is still running: finalize leaves it behind (after
    // its bounded wait) and reports the stream (success, as the hardware's
    // teardown answers; the leak is in the audit).
    assert_eq!(acl!(aclFinalize()), ACL_SUCCESS);
    assert!(
        aclrt_sim::audit()
            .violations
            .iter()
            .any(|v| v.rule == "STRICT-FINALIZE-LIVE" && !v.refused)
    );
    // The next program starts; then the old host function calls in.
    init_device0();
    let mine = create_stream();
    STALE_GO.store(true, Ordering::SeqCst);
    assert!(wait_until(|| STALE_CREATE.load(Ordering::SeqCst) != -1));
    assert_eq!(
        STALE_FINALIZE.load(Ordering::SeqCst),
        ACL_ERROR_REPEAT_FINALIZE
    );
    assert_eq!(
        STALE_CREATE.load(Ordering::SeqCst),
        ACL_ERROR_RT_CONTEXT_NULL
    );
    // This program's resources are untouched.
    let d = malloc(64);
    ok!(aclrtMemsetAsync(d, 64, 9, 64, mine));
    ok!(aclrtSynchronizeStream(mine));
    assert_eq!(read_device(d, 64), vec![9u8; 64]);
    free(d);
    destroy_stream(mine);
    teardown_device0();
    let audit = aclrt_sim::audit();
    let stale: Vec<_> = audit
        .violations
        .iter()
        .filter(|v| v.kind == ViolationKind::UseAfterFinalize)
        .map(|v| v.function)
        .collect();
    assert_eq!(stale, ["aclFinalize", "aclrtCreateStream"], "{audit:#?}");
    assert!(audit.live.values().all(|&n| n == 0), "{audit:#?}");
    aclrt_sim::reset();
}

/// Subscribes `stream` to `tid` (a thread that never serves it) and
/// launches a blocking callback on it.
fn block_on_unserved(tid: u64, stream: aclrtStream) {
    ok!(aclrtSubscribeReport(tid, stream));
    ok!(aclrtLaunchCallback(
        Some(count_run),
        counter_arg(&SERVED),
        ACL_CALLBACK_BLOCK,
        stream
    ));
}

static SERVED: AtomicUsize = AtomicUsize::new(0);

fn finished_thread_id() -> u64 {
    use std::os::unix::thread::JoinHandleExt;
    let h = std::thread::spawn(|| {});
    let tid = h.as_pthread_t() as u64;
    h.join().unwrap();
    tid
}

#[test]
fn an_unserved_callback_is_reported_and_teardown_never_hangs() {
    let _sim = aclrt_sim::exclusive();
    for tid in [0u64, 0x5EED_1234_5678, finished_thread_id()] {
        for teardown in [
            "finalize",
            "force-reset",
            "reset",
            "destroy",
            "destroy-force",
        ] {
            aclrt_sim::reset();
            init_device0();
            // A forced reset refuses to run with explicit streams alive
            // (507007): there, the default stream is the blocked one.
            let s = if teardown == "force-reset" {
                null_mut()
            } else {
                create_stream()
            };
            // Accepted, as the real runtime accepts any thread id.
            block_on_unserved(tid, s);
            let sh = s as usize;
            let ctx = current_context() as usize;
            let (tx, rx) = std::sync::mpsc::channel();
            std::thread::spawn(move || {
                ok!(aclrtSetCurrentContext(ctx as aclrtContext));
                let _ = tx.send(acl!(aclrtSynchronizeStream(sh as aclrtStream)));
            });
            // The audit names the blocked stream (and the test fails with
            // this reason instead of hanging), once the worker handed it on.
            assert!(wait_until(|| !aclrt_sim::audit()
                .unserved_callbacks
                .is_empty()));
            let audit = aclrt_sim::audit();
            assert!(!audit.is_clean());
            let u = &audit.unserved_callbacks;
            assert_eq!(u.len(), 1, "{audit:#?}");
            assert_eq!((u[0].device, u[0].thread), (0, tid));
            if !s.is_null() {
                assert_eq!(u[0].stream, sh);
            }
            // The synchronisation stays blocked (a wait that ignored the
            // callback would return within microseconds of its start).
            assert!(rx.recv_timeout(Duration::from_millis(100)).is_err());
            // Every teardown path returns, and releases the waiter.
            let done = match teardown {
                "finalize" => within(20, || acl!(aclFinalize())).map(|_| ()),
                "force-reset" => within(20, || acl!(aclrtResetDeviceForce(0)))
                    .map(|code| assert_eq!(code, ACL_SUCCESS, "{}", recent_err_msg().unwrap())),
                // Found by the fuzzer: the destroy joined the blocked worker
                // before running the orphaned callback that releases it.
                "destroy" | "destroy-force" => {
                    let force = teardown == "destroy-force";
                    within(20, move || {
                        ok!(aclrtSetCurrentContext(ctx as aclrtContext));
                        let code = if force {
                            acl!(aclrtDestroyStreamForce(sh as aclrtStream))
                        } else {
                            acl!(aclrtDestroyStream(sh as aclrtStream))
                        };
                        assert_eq!(code, ACL_SUCCESS, "{:?}", recent_err_msg());
                    })
                }
                _ => within(20, aclrt_sim::reset),
            };
            assert!(done.is_some(), "{teardown} hung on an unserved callback");
            assert!(
                rx.recv_timeout(Duration::from_secs(20)).is_ok(),
                "the synchronisation stayed blocked after {teardown}"
            );
            assert!(aclrt_sim::audit().unserved_callbacks.is_empty());
        }
    }
    aclrt_sim::reset();
}

#[test]
fn a_served_callback_is_not_reported() {
    let _sim = aclrt_sim::exclusive();
    init_device0();
    let s = create_stream();
    let stop = Arc::new(AtomicBool::new(false));
    let stop2 = stop.clone();
    let server = std::thread::spawn(move || {
        while !stop2.load(Ordering::Acquire) {
            let _ = acl!(aclrtProcessReport(10));
        }
    });
    use std::os::unix::thread::JoinHandleExt;
    let tid = server.as_pthread_t() as u64;
    let before = SERVED.load(Ordering::SeqCst);
    block_on_unserved(tid, s);
    ok!(aclrtSynchronizeStream(s));
    assert_eq!(SERVED.load(Ordering::SeqCst), before + 1);
    assert!(aclrt_sim::audit().unserved_callbacks.is_empty());
    ok!(aclrtUnSubscribeReport(tid, s));
    stop.store(true, Ordering::Release);
    server.join().unwrap();
    destroy_stream(s);
    teardown_device0();
    assert_clean();
}

static LATE_CODE: AtomicI32 = AtomicI32::new(-1);
static LATE_IN_FINALIZE: AtomicBool = AtomicBool::new(false);
static LATE_RELEASE: AtomicBool = AtomicBool::new(false);

/// Host function: calls aclFinalize (which waits for the other stream's
/// running host function) and stores its code.
unsafe extern "C" fn finalize_from_host_function(_: *mut c_void) {
    LATE_IN_FINALIZE.store(true, Ordering::SeqCst);
    // SAFETY: no arguments.
    LATE_CODE.store(unsafe { aclFinalize() }, Ordering::SeqCst);
}

/// Found by aclrt-fuzz: a finalize that waited for running tasks while
/// another teardown (here a reset) happened recorded its leaks and its
/// violation in the audit of the runtime in force after that teardown.
#[test]
fn a_finalize_finishing_after_a_reset_records_nothing_in_the_new_audit() {
    let _sim = aclrt_sim::exclusive();
    init_device0();
    let a = create_stream();
    let b = create_stream();
    // B runs a host function that blocks until released: the finalize
    // below waits for it.
    ok!(aclrtLaunchHostFunc(
        b,
        Some(block_until_set),
        flag_arg(&LATE_RELEASE)
    ));
    ok!(aclrtLaunchHostFunc(
        a,
        Some(finalize_from_host_function),
        null_mut()
    ));
    assert!(wait_until(|| LATE_IN_FINALIZE.load(Ordering::SeqCst)));
    // Time for the host function to get from the flag into aclFinalize's
    // wait (no observable marks that point; a wide margin for a loaded
    // machine: if the reset came first the code below would differ).
    std::thread::sleep(Duration::from_millis(500));
    // The application resets and starts over while that finalize waits.
    aclrt_sim::reset();
    LATE_RELEASE.store(true, Ordering::SeqCst);
    assert!(wait_until(|| LATE_CODE.load(Ordering::SeqCst) != -1));
    // The finalize answers as the hardware's teardown does (success); its
    // records belong to the runtime that is gone.
    assert_eq!(LATE_CODE.load(Ordering::SeqCst), ACL_SUCCESS);
    // Nothing of the old runtime lands in the new audit.
    let audit = aclrt_sim::audit();
    assert!(
        audit.violations.is_empty() && audit.leaks.is_empty(),
        "{audit:#?}"
    );
    valid_program();
    assert_clean();
}
