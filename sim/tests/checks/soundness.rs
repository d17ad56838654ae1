//! Soundness of the control API at the edges: `reset` never frees memory a
//! stale handle can still reach, and `exclusive`/`reset` refuse to deadlock.

use crate::common;
use common::*;
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::sync::Mutex;

/// The text of a caught panic payload.
fn panic_text(p: &(dyn std::any::Any + Send)) -> String {
    p.downcast_ref::<String>()
        .cloned()
        .or_else(|| p.downcast_ref::<&str>().map(|s| (*s).to_owned()))
        .unwrap_or_default()
}

#[test]
fn memory_alive_at_a_reset_is_quarantined_not_freed() {
    let _sim = aclrt_sim::exclusive();
    init_device0();
    const LEN: usize = 256;
    let host = malloc_host(LEN).cast::<u8>();
    let dev = malloc(LEN);
    // SAFETY: `host` is a live 256-byte aclrtMallocHost block; nothing else
    // touches it.
    unsafe { std::ptr::write_bytes(host, 0xAB, LEN) };
    h2d(dev, &[0xCD; LEN]);

    aclrt_sim::reset();

    // The block outlived the reset: still mapped, still holding its bytes
    // (a freed block would have been reused or overwritten by allocator
    // metadata), and still writable.
    // SAFETY: the simulator guarantees that memory alive at a reset is
    // quarantined (never freed), so the 256 bytes at `host` stay valid.
    let bytes = unsafe { std::slice::from_raw_parts_mut(host, LEN) };
    assert!(bytes.iter().all(|&b| b == 0xAB), "{bytes:?}");
    bytes.fill(0x5A);
    assert!(bytes.iter().all(|&b| b == 0x5A));

    // A fresh runtime never hands out a quarantined address again.
    init_device0();
    let fresh: Vec<*mut c_void> = (0..64).map(|_| malloc_host(LEN)).collect();
    assert!(
        fresh.iter().all(|&p| p.cast::<u8>() != host && p != dev),
        "a new allocation aliases a quarantined block"
    );
    for p in fresh {
        ok!(aclrtFreeHost(p));
    }

    // Every call through the stale pointers is an error, never an access.
    let violations_before = aclrt_sim::audit().violations.len();
    assert_eq!(
        acl!(aclrtFreeHost(host.cast())),
        ACL_ERROR_RT_MEMORY_FREE,
        "{:?}",
        recent_err_msg()
    );
    assert!(recent_err_msg().unwrap().contains("reset"));
    assert_eq!(acl!(aclrtFree(dev)), ACL_ERROR_RT_MEMORY_FREE);
    let mut local = [0u8; LEN];
    assert_eq!(
        acl!(aclrtMemcpy(
            local.as_mut_ptr().cast(),
            LEN,
            host.cast(),
            LEN,
            ACL_MEMCPY_HOST_TO_HOST
        )),
        ACL_ERROR_RT_PARAM_INVALID
    );
    assert_eq!(
        acl!(aclrtMemset(dev, LEN, 0, LEN)),
        ACL_ERROR_RT_PARAM_INVALID
    );
    // An application range that runs into a quarantined block is refused too.
    assert_eq!(
        acl!(aclrtMemcpy(
            local.as_mut_ptr().cast(),
            LEN,
            host.wrapping_sub(16).cast(),
            32,
            ACL_MEMCPY_HOST_TO_HOST
        )),
        ACL_ERROR_RT_PARAM_INVALID
    );
    assert!(local.iter().all(|&b| b == 0), "nothing was copied");
    let kinds: Vec<ViolationKind> = aclrt_sim::audit().violations[violations_before..]
        .iter()
        .map(|v| v.kind)
        .collect();
    assert_eq!(
        kinds,
        [
            ViolationKind::DoubleFree,
            ViolationKind::DoubleFree,
            ViolationKind::UseAfterFree,
            ViolationKind::UseAfterFree,
            ViolationKind::UseAfterFree,
        ]
    );
    // SAFETY: still quarantined, still valid.
    let bytes = unsafe { std::slice::from_raw_parts(host, LEN) };
    assert!(bytes.iter().all(|&b| b == 0x5A));
    teardown_device0();
}

#[test]
fn memory_alive_at_finalize_is_quarantined_too() {
    let _sim = aclrt_sim::exclusive();
    init_device0();
    let host = malloc_host(64).cast::<u8>();
    // SAFETY: a live 64-byte aclrtMallocHost block.
    unsafe { std::ptr::write_bytes(host, 7, 64) };
    // Success, as the hardware's teardown (the leak is recorded).
    assert_eq!(acl!(aclFinalize()), ACL_SUCCESS);
    // SAFETY: leaked memory is quarantined at finalize, not freed.
    let bytes = unsafe { std::slice::from_raw_parts(host, 64) };
    assert!(bytes.iter().all(|&b| b == 7));
}

#[test]
#[should_panic(expected = "already holds aclrt_sim::exclusive()")]
fn exclusive_twice_on_one_thread_panics_instead_of_deadlocking() {
    let _sim = aclrt_sim::exclusive();
    let _again = aclrt_sim::exclusive();
}

#[test]
fn exclusive_works_again_after_a_reentrant_attempt() {
    let _sim = aclrt_sim::exclusive();
    let err = catch_unwind(AssertUnwindSafe(|| drop(aclrt_sim::exclusive()))).unwrap_err();
    assert!(
        panic_text(&*err).contains("re-entrant"),
        "{}",
        panic_text(&*err)
    );
    // Still held by `_g`; reset from the holder is fine.
    aclrt_sim::reset();
    init_device0();
    teardown_device0();
    assert_clean();
}

static CAUGHT: Mutex<Vec<String>> = Mutex::new(Vec::new());

/// Host function: calls `reset` and then `exclusive`, recording the panics.
unsafe extern "C" fn reset_from_host_func(_: *mut c_void) {
    for f in [aclrt_sim::reset as fn(), || drop(aclrt_sim::exclusive())] {
        let text = match catch_unwind(f) {
            Ok(()) => "returned".to_owned(),
            Err(p) => panic_text(&*p),
        };
        CAUGHT.lock().unwrap().push(text);
    }
}

#[test]
fn reset_and_exclusive_from_a_host_function_panic() {
    let _sim = aclrt_sim::exclusive();
    CAUGHT.lock().unwrap().clear();
    init_device0();
    let s = create_stream();
    let p = malloc(64);
    ok!(aclrtLaunchHostFunc(
        s,
        Some(reset_from_host_func),
        null_mut()
    ));
    ok!(aclrtMemsetAsync(p, 64, 3, 64, s));
    // The stream, the runtime and this thread's lock are intact.
    ok!(aclrtSynchronizeStream(s));
    let caught = CAUGHT.lock().unwrap().clone();
    assert_eq!(caught.len(), 2, "{caught:?}");
    for text in &caught {
        assert!(
            text.contains("from a simulator thread") && text.contains("callback"),
            "{text}"
        );
    }
    assert!(caught[0].starts_with("aclrt_sim::reset"), "{caught:?}");
    assert!(caught[1].starts_with("aclrt_sim::exclusive"), "{caught:?}");
    // The host function caught the panics itself (an `extern "C"` function
    // cannot unwind), so no CallbackPanicked violation is recorded.
    assert_eq!(read_device(p, 64), vec![3; 64]);
    ok!(aclrtFree(p));
    ok!(aclrtDestroyStream(s));
    teardown_device0();
    assert_clean();
}

/// Callback: calls `reset`, recording the panic.
unsafe extern "C" fn reset_from_callback(_: *mut c_void) {
    let text = match catch_unwind(aclrt_sim::reset) {
        Ok(()) => "returned".to_owned(),
        Err(p) => panic_text(&*p),
    };
    CAUGHT.lock().unwrap().push(text);
}

#[test]
fn reset_from_a_callback_run_by_process_report_panics() {
    let _sim = aclrt_sim::exclusive();
    CAUGHT.lock().unwrap().clear();
    init_device0();
    let s = create_stream();
    ok!(aclrtSubscribeReport(aclrt_sim::thread_report_id(), s));
    ok!(aclrtLaunchCallback(
        Some(reset_from_callback),
        null_mut(),
        ACL_CALLBACK_NO_BLOCK,
        s
    ));
    ok!(aclrtProcessReport(5_000));
    ok!(aclrtSynchronizeStream(s));
    let caught = CAUGHT.lock().unwrap().clone();
    assert_eq!(caught.len(), 1, "{caught:?}");
    assert!(
        caught[0].starts_with("aclrt_sim::reset called from"),
        "{caught:?}"
    );
    ok!(aclrtUnSubscribeReport(aclrt_sim::thread_report_id(), s));
    ok!(aclrtDestroyStream(s));
    teardown_device0();
    assert_clean();
}

/// What [`late_writer`] writes to, and when it is done.
struct LateWrite {
    dst: *mut u8,
    started: AtomicBool,
    /// Set by the test once the reset has returned.
    release: AtomicBool,
    done: AtomicBool,
}

/// Host function: outlives the 5-s teardown limit, then writes 0xEE into
/// the block behind `dst` (as a host function holding a raw pointer may).
unsafe extern "C" fn late_writer(arg: *mut c_void) {
    // SAFETY: the test keeps the `LateWrite` alive until `done` is set.
    let w = unsafe { &*arg.cast::<LateWrite>() };
    w.started.store(true, Ordering::SeqCst);
    // Past the reset's wait, until the test releases it (the hang guard
    // only stops a broken runtime from hanging the suite).
    wait_until(|| w.release.load(Ordering::SeqCst));
    // SAFETY: `dst` is a 64-byte aclrtMallocHost block; the simulator
    // quarantines it at the reset that happens meanwhile.
    unsafe { std::ptr::write_bytes(w.dst, 0xEE, 64) };
    w.done.store(true, Ordering::SeqCst);
}

#[test]
fn a_detached_worker_writes_into_quarantined_memory_not_freed_memory() {
    let session = device0();
    // The host function runs until the test releases it, so the reset
    // leaves it behind whatever its wait; a short one (not the default
    // 5 s) ends the same way, sooner.
    aclrt_sim::set_teardown_wait(Duration::from_millis(500));
    let s = create_stream();
    let w = Box::new(LateWrite {
        dst: malloc_host(64).cast(),
        started: AtomicBool::new(false),
        release: AtomicBool::new(false),
        done: AtomicBool::new(false),
    });
    let arg = (&*w as *const LateWrite).cast_mut().cast::<c_void>();
    ok!(aclrtLaunchHostFunc(s, Some(late_writer), arg));
    while !w.started.load(Ordering::SeqCst) {
        std::thread::sleep(Duration::from_millis(1));
    }
    let t0 = Instant::now();
    aclrt_sim::reset(); // detaches the worker after the 500 ms wait
    // The wait set above is the one the reset used (not the default 5 s).
    assert!(t0.elapsed() < Duration::from_secs(4), "{:?}", t0.elapsed());
    // The reset returned while the host function was still running (had it
    // waited, the function would have finished at the hang guard first).
    assert!(!w.done.load(Ordering::SeqCst));
    // A fresh runtime allocates elsewhere while the detached worker runs.
    init_device0();
    let fresh = malloc_host(64);
    assert_ne!(fresh.cast::<u8>(), w.dst);
    w.release.store(true, Ordering::SeqCst);
    while !w.done.load(Ordering::SeqCst) {
        std::thread::sleep(Duration::from_millis(10));
    }
    // SAFETY: both blocks are valid: `fresh` is live, `w.dst` quarantined.
    let (old, new) = unsafe {
        (
            std::slice::from_raw_parts(w.dst, 64),
            std::slice::from_raw_parts(fresh.cast::<u8>(), 64),
        )
    };
    assert!(old.iter().all(|&b| b == 0xEE));
    assert!(
        new.iter().all(|&b| b == 0),
        "the late write hit only its own block"
    );
    ok!(aclrtFreeHost(fresh));
    session.finish();
}
