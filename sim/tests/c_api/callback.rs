//! Host callbacks: aclrtSubscribeReport / aclrtProcessReport /
//! aclrtLaunchCallback and aclrtLaunchHostFunc (acl-facts §5.8).

use crate::common;
use common::*;
use std::os::unix::thread::JoinHandleExt;
use std::sync::Arc;
use std::sync::atomic::AtomicU64;

unsafe extern "C" {
    /// The POSIX id of the calling thread (the `threadId` of the ACL docs).
    fn pthread_self() -> std::os::unix::thread::RawPthread;
}

fn my_thread_id() -> u64 {
    // SAFETY: pthread_self has no preconditions and cannot fail.
    (unsafe { pthread_self() }) as u64
}

/// Spawns a thread that serves callbacks with `aclrtProcessReport(timeout)`
/// until `stop` is set; returns the join handle and its POSIX thread id.
fn spawn_reporter(
    stop: Arc<AtomicBool>,
    served: Arc<AtomicUsize>,
) -> (std::thread::JoinHandle<u64>, u64) {
    let handle = std::thread::spawn(move || {
        while !stop.load(Ordering::Acquire) {
            let code = acl!(aclrtProcessReport(10));
            if code == ACL_SUCCESS {
                served.fetch_add(1, Ordering::AcqRel);
            }
        }
        my_thread_id()
    });
    let tid = handle.as_pthread_t() as u64;
    (handle, tid)
}

/// Callback: stores the calling thread's POSIX id into the `AtomicU64`
/// behind `user`.
unsafe extern "C" fn record_thread(user: *mut c_void) {
    // SAFETY: `user` is an `&AtomicU64` that the test keeps alive until the
    // stream has been synchronised (after this callback ran).
    let slot = unsafe { &*user.cast::<AtomicU64>() };
    slot.store(my_thread_id(), Ordering::Release);
}

/// Callback: fills the 64-byte pinned host buffer behind `user` with 0x77.
unsafe extern "C" fn fill_77(user: *mut c_void) {
    // SAFETY: `user` is a live 64-byte aclrtMallocHost allocation that no
    // other task touches while this blocking callback runs.
    unsafe { std::ptr::write_bytes(user.cast::<u8>(), 0x77, 64) };
}

/// Host function arguments: a pinned input buffer and the place for its sum.
struct SumArgs {
    input: *const u8,
    len: usize,
    sum: AtomicU64,
}

/// Host function: sums the bytes of `SumArgs::input`.
unsafe extern "C" fn sum_bytes(args: *mut c_void) {
    // SAFETY: `args` is a `SumArgs` alive until the stream is synchronised;
    // `input` is a pinned buffer of `len` bytes that the earlier task on the
    // same stream has finished writing (stream order).
    let a = unsafe { &*args.cast::<SumArgs>() };
    // SAFETY: see above.
    let bytes = unsafe { std::slice::from_raw_parts(a.input, a.len) };
    let s: u64 = bytes.iter().map(|&b| u64::from(b)).sum();
    a.sum.store(s, Ordering::Release);
}

#[test]
fn process_report_timeout_zero_returns_100000() {
    let session = device0();
    assert_eq!(acl!(aclrtProcessReport(0)), ACL_ERROR_INVALID_PARAM);
    session.finish();
}

#[test]
fn process_report_timeout_below_minus_one_returns_100000() {
    let session = device0();
    assert_eq!(acl!(aclrtProcessReport(-2)), ACL_ERROR_INVALID_PARAM);
    session.finish();
}

#[test]
fn process_report_without_subscription_returns_107012() {
    let session = device0();
    assert_eq!(acl!(aclrtProcessReport(10)), ACL_ERROR_RT_THREAD_SUBSCRIBE);
    session.finish();
}

#[test]
fn process_report_expiry_returns_507012() {
    let session = device0();
    let s = create_stream();
    ok!(aclrtSubscribeReport(my_thread_id(), s));
    let t0 = Instant::now();
    assert_eq!(acl!(aclrtProcessReport(20)), ACL_ERROR_RT_REPORT_TIMEOUT);
    assert!(t0.elapsed() >= Duration::from_millis(15));
    ok!(aclrtUnSubscribeReport(my_thread_id(), s));
    destroy_stream(s);
    session.finish();
}

#[test]
fn unsubscribed_thread_gets_107012_again() {
    let session = device0();
    let s = create_stream();
    ok!(aclrtSubscribeReport(my_thread_id(), s));
    ok!(aclrtUnSubscribeReport(my_thread_id(), s));
    assert_eq!(acl!(aclrtProcessReport(10)), ACL_ERROR_RT_THREAD_SUBSCRIBE);
    destroy_stream(s);
    session.finish();
}

#[test]
fn launch_callback_invalid_block_type_returns_100000() {
    let session = device0();
    let s = create_stream();
    ok!(aclrtSubscribeReport(my_thread_id(), s));
    let slot = AtomicU64::new(0);
    assert_eq!(
        acl!(aclrtLaunchCallback(
            Some(record_thread),
            (&slot as *const AtomicU64).cast_mut().cast(),
            7,
            s
        )),
        ACL_ERROR_INVALID_PARAM
    );
    ok!(aclrtUnSubscribeReport(my_thread_id(), s));
    destroy_stream(s);
    session.finish();
}

#[test]
fn launched_callback_runs_on_the_subscribed_thread() {
    let session = device0();
    let s = create_stream();
    let stop = Arc::new(AtomicBool::new(false));
    let served = Arc::new(AtomicUsize::new(0));
    let (reporter, tid) = spawn_reporter(stop.clone(), served.clone());
    ok!(aclrtSubscribeReport(tid, s));
    let slot = AtomicU64::new(0);
    ok!(aclrtLaunchCallback(
        Some(record_thread),
        (&slot as *const AtomicU64).cast_mut().cast(),
        ACL_CALLBACK_BLOCK,
        s
    ));
    ok!(aclrtSynchronizeStream(s));
    assert_eq!(slot.load(Ordering::Acquire), tid);
    assert_ne!(tid, my_thread_id());
    ok!(aclrtUnSubscribeReport(tid, s));
    stop.store(true, Ordering::Release);
    assert_eq!(reporter.join().unwrap(), tid);
    assert!(served.load(Ordering::Acquire) >= 1);
    destroy_stream(s);
    session.finish();
}

#[test]
fn blocking_callback_holds_later_tasks_of_the_stream() {
    let session = device0();
    let s = create_stream();
    let host = malloc_host(64);
    let dev = malloc(64);
    // SAFETY: live pinned allocation, no task queued yet.
    unsafe { host_slice(host, 64) }.fill(0);
    let stop = Arc::new(AtomicBool::new(false));
    let served = Arc::new(AtomicUsize::new(0));
    let (reporter, tid) = spawn_reporter(stop.clone(), served.clone());
    ok!(aclrtSubscribeReport(tid, s));
    ok!(aclrtLaunchCallback(
        Some(fill_77),
        host,
        ACL_CALLBACK_BLOCK,
        s
    ));
    // Runs only after the callback wrote the host buffer.
    ok!(aclrtMemcpyAsync(
        dev,
        64,
        host,
        64,
        ACL_MEMCPY_HOST_TO_DEVICE,
        s
    ));
    ok!(aclrtSynchronizeStream(s));
    assert_eq!(read_device(dev, 64), vec![0x77; 64]);
    ok!(aclrtUnSubscribeReport(tid, s));
    stop.store(true, Ordering::Release);
    reporter.join().unwrap();
    free(dev);
    free_host(host);
    destroy_stream(s);
    session.finish();
}

#[test]
fn subscribing_a_second_thread_to_a_stream_returns_107011() {
    let session = device0();
    let s = create_stream();
    ok!(aclrtSubscribeReport(my_thread_id(), s));
    // Any other thread id is refused: one stream, one reporting thread.
    let other = my_thread_id().wrapping_add(1);
    assert_eq!(
        acl!(aclrtSubscribeReport(other, s)),
        ACL_ERROR_RT_STREAM_SUBSCRIBE
    );
    ok!(aclrtUnSubscribeReport(my_thread_id(), s));
    destroy_stream(s);
    session.finish();
}

#[test]
fn one_thread_may_serve_several_streams() {
    let session = device0();
    let s1 = create_stream();
    let s2 = create_stream();
    let stop = Arc::new(AtomicBool::new(false));
    let served = Arc::new(AtomicUsize::new(0));
    let (reporter, tid) = spawn_reporter(stop.clone(), served.clone());
    ok!(aclrtSubscribeReport(tid, s1));
    ok!(aclrtSubscribeReport(tid, s2));
    let a = AtomicU64::new(0);
    let b = AtomicU64::new(0);
    ok!(aclrtLaunchCallback(
        Some(record_thread),
        (&a as *const AtomicU64).cast_mut().cast(),
        ACL_CALLBACK_BLOCK,
        s1
    ));
    ok!(aclrtLaunchCallback(
        Some(record_thread),
        (&b as *const AtomicU64).cast_mut().cast(),
        ACL_CALLBACK_NO_BLOCK,
        s2
    ));
    ok!(aclrtSynchronizeStream(s1));
    ok!(aclrtSynchronizeStream(s2));
    assert_eq!(a.load(Ordering::Acquire), tid);
    // A NO_BLOCK callback may still be in flight after the sync; wait for it
    // through the reporter's count (bounded only by the hang guard).
    wait_until(|| b.load(Ordering::Acquire) != 0);
    assert_eq!(b.load(Ordering::Acquire), tid);
    ok!(aclrtUnSubscribeReport(tid, s1));
    ok!(aclrtUnSubscribeReport(tid, s2));
    stop.store(true, Ordering::Release);
    reporter.join().unwrap();
    destroy_stream(s1);
    destroy_stream(s2);
    session.finish();
}

#[test]
fn host_func_runs_in_stream_order() {
    let session = device0();
    let s = create_stream();
    let dev = malloc(1000);
    let host = malloc_host(1000);
    let data = pattern(1000, 21);
    h2d(dev, &data);
    // SAFETY: live pinned allocation, no task queued yet.
    unsafe { host_slice(host, 1000) }.fill(0);
    let args = SumArgs {
        input: host.cast::<u8>().cast_const(),
        len: 1000,
        sum: AtomicU64::new(u64::MAX),
    };
    stream_delay(s, 20);
    ok!(aclrtMemcpyAsync(
        host,
        1000,
        dev,
        1000,
        ACL_MEMCPY_DEVICE_TO_HOST,
        s
    ));
    ok!(aclrtLaunchHostFunc(
        s,
        Some(sum_bytes),
        (&args as *const SumArgs).cast_mut().cast()
    ));
    ok!(aclrtSynchronizeStream(s));
    let expected: u64 = data.iter().map(|&b| u64::from(b)).sum();
    assert_eq!(args.sum.load(Ordering::Acquire), expected);
    free(dev);
    free_host(host);
    destroy_stream(s);
    session.finish();
}

#[test]
fn host_func_on_stream_of_other_context_returns_107003() {
    let _sim = aclrt_sim::exclusive();
    init_device0();
    let s = create_stream();
    let dflt = current_context();
    let ctx = create_context(0);
    let args = SumArgs {
        input: null(),
        len: 0,
        sum: AtomicU64::new(0),
    };
    assert_eq!(
        acl!(aclrtLaunchHostFunc(
            s,
            Some(sum_bytes),
            (&args as *const SumArgs).cast_mut().cast()
        )),
        ACL_ERROR_RT_STREAM_CONTEXT
    );
    ok!(aclrtDestroyContext(ctx));
    // The destroyed context was current: the thread has none now.
    ok!(aclrtSetCurrentContext(dflt));
    destroy_stream(s);
    teardown_device0();
    expect_violations(&[ViolationKind::WrongContext]);
}

#[test]
fn set_op_wait_timeout_is_accepted() {
    let session = device0();
    ok!(aclrtSetOpWaitTimeout(5));
    ok!(aclrtSetOpWaitTimeout(0));
    session.finish();
}

#[test]
fn launch_callback_without_subscribed_thread_returns_107015() {
    let session = device0();
    let s = create_stream();
    let slot = AtomicU64::new(0);
    assert_eq!(
        acl!(aclrtLaunchCallback(
            Some(record_thread),
            (&slot as *const AtomicU64).cast_mut().cast(),
            ACL_CALLBACK_BLOCK,
            s
        )),
        ACL_ERROR_RT_STREAM_NO_CB_REG
    );
    ok!(aclrtSynchronizeStream(s));
    assert_eq!(slot.load(Ordering::Acquire), 0, "the callback must not run");
    destroy_stream(s);
    session.finish();
}

#[test]
fn unsubscribing_a_stream_that_is_not_subscribed_returns_107011() {
    let session = device0();
    let s = create_stream();
    assert_eq!(
        acl!(aclrtUnSubscribeReport(my_thread_id(), s)),
        ACL_ERROR_RT_STREAM_SUBSCRIBE
    );
    destroy_stream(s);
    session.finish();
}

#[test]
fn unsubscribing_with_another_thread_id_returns_107012() {
    let session = device0();
    let s = create_stream();
    ok!(aclrtSubscribeReport(my_thread_id(), s));
    assert_eq!(
        acl!(aclrtUnSubscribeReport(my_thread_id().wrapping_add(1), s)),
        ACL_ERROR_RT_THREAD_SUBSCRIBE
    );
    ok!(aclrtUnSubscribeReport(my_thread_id(), s));
    destroy_stream(s);
    session.finish();
}

#[test]
fn subscribe_uses_the_posix_thread_id() {
    let _sim = aclrt_sim::exclusive();
    assert_eq!(aclrt_sim::thread_report_id(), my_thread_id());
    assert_clean();
}

#[test]
fn one_thread_cannot_serve_two_devices() {
    let _sim = aclrt_sim::exclusive();
    init();
    ok!(aclrtSetDevice(1));
    let s1 = create_stream();
    ok!(aclrtSetDevice(0));
    let s0 = create_stream();
    ok!(aclrtSubscribeReport(my_thread_id(), s0));
    ok!(aclrtSetDevice(1));
    assert_eq!(
        acl!(aclrtSubscribeReport(my_thread_id(), s1)),
        ACL_ERROR_RT_THREAD_SUBSCRIBE
    );
    destroy_stream(s1);
    ok!(aclrtSetDevice(0));
    ok!(aclrtUnSubscribeReport(my_thread_id(), s0));
    destroy_stream(s0);
    for d in [0, 0, 1, 1] {
        ok!(aclrtResetDevice(d));
    }
    finalize();
    assert_clean();
}

#[test]
fn non_blocking_callback_does_not_hold_later_tasks() {
    let session = device0();
    let s = create_stream();
    let p = malloc(64);
    let stop = Arc::new(AtomicBool::new(false));
    let served = Arc::new(AtomicUsize::new(0));
    let (reporter, tid) = spawn_reporter(stop.clone(), served.clone());
    ok!(aclrtSubscribeReport(tid, s));
    let gate = Gate::new();
    ok!(aclrtLaunchCallback(
        Some(pass_gate),
        gate.arg(),
        ACL_CALLBACK_NO_BLOCK,
        s
    ));
    ok!(aclrtMemsetAsync(p, 64, 5, 64, s));
    // The memset behind a still-running NO_BLOCK callback completes: the
    // synchronisation returns while the callback is still held.
    ok!(aclrtSynchronizeStream(s));
    assert!(!gate.left(), "the stream waited for the NO_BLOCK callback");
    assert_eq!(read_device(p, 64), vec![5; 64]);
    gate.open();
    ok!(aclrtUnSubscribeReport(tid, s));
    stop.store(true, Ordering::Release);
    reporter.join().unwrap();
    free(p);
    destroy_stream(s);
    session.finish();
}
