//! Real concurrency: per-stream workers, overlap, event capture, waits,
//! timeouts, destroy semantics.

mod common;
use common::*;
use std::sync::atomic::{AtomicUsize, Ordering};

#[test]
fn two_streams_overlap_in_time() {
    let _g = sim::exclusive();
    init_device0();
    let (a, b) = (create_stream(), create_stream());
    let t0 = Instant::now();
    ok!(aclrtLaunchHostFunc(a, Some(sleep_ms), ms_arg(150)));
    ok!(aclrtLaunchHostFunc(b, Some(sleep_ms), ms_arg(150)));
    assert!(
        t0.elapsed() < Duration::from_millis(100),
        "launch must not block"
    );
    ok!(aclrtSynchronizeStream(a));
    ok!(aclrtSynchronizeStream(b));
    let took = t0.elapsed();
    assert!(took >= Duration::from_millis(150), "{took:?}");
    assert!(
        took < Duration::from_millis(280),
        "streams did not overlap: {took:?}"
    );
    ok!(aclrtDestroyStream(a));
    ok!(aclrtDestroyStream(b));
    teardown_device0();
    sim::audit().assert_clean();
}

#[test]
fn not_ready_right_after_queuing_a_64_mib_copy() {
    let _g = sim::exclusive();
    init_device0();
    let s = create_stream();
    let n = 64 << 20;
    let (src, dst) = (malloc(n), malloc(n));
    ok!(aclrtMemset(src, n, 0x5c, n));
    let e = create_event();
    ok!(aclrtMemcpyAsync(
        dst,
        n,
        src,
        n,
        ACL_MEMCPY_DEVICE_TO_DEVICE,
        s
    ));
    ok!(aclrtRecordEvent(e, s));
    assert_eq!(stream_status(s), ACL_STREAM_STATUS_NOT_READY);
    assert_eq!(event_status(e), ACL_EVENT_RECORDED_STATUS_NOT_READY);
    ok!(aclrtSynchronizeEvent(e));
    assert_eq!(event_status(e), ACL_EVENT_RECORDED_STATUS_COMPLETE);
    assert_eq!(stream_status(s), ACL_STREAM_STATUS_COMPLETE);
    // SAFETY: in-bounds offset of the allocation.
    let tail = unsafe { dst.cast::<u8>().add(n - 64) }.cast::<c_void>();
    assert_eq!(read_device(tail, 64), vec![0x5c; 64]);
    ok!(aclrtDestroyEvent(e));
    ok!(aclrtFree(src));
    ok!(aclrtFree(dst));
    ok!(aclrtDestroyStream(s));
    teardown_device0();
    sim::audit().assert_clean();
}

#[test]
fn tasks_of_a_stream_run_in_order() {
    let _g = sim::exclusive();
    init_device0();
    let s = create_stream();
    let p = malloc(64);
    for v in 0..1000 {
        ok!(aclrtMemsetAsync(p, 64, v, 64, s));
    }
    ok!(aclrtSynchronizeStream(s));
    assert_eq!(read_device(p, 64), vec![(999 % 256) as u8; 64]);
    ok!(aclrtFree(p));
    ok!(aclrtDestroyStream(s));
    teardown_device0();
    sim::audit().assert_clean();
}

#[test]
fn a_record_captures_exactly_the_earlier_tasks() {
    let _g = sim::exclusive();
    init_device0();
    let s = create_stream();
    let (e1, e2) = (create_event(), create_event());
    ok!(aclrtLaunchHostFunc(s, Some(sleep_ms), ms_arg(50)));
    ok!(aclrtRecordEvent(e1, s));
    ok!(aclrtLaunchHostFunc(s, Some(sleep_ms), ms_arg(200)));
    ok!(aclrtRecordEvent(e2, s));
    ok!(aclrtSynchronizeEvent(e1));
    assert_eq!(event_status(e1), ACL_EVENT_RECORDED_STATUS_COMPLETE);
    assert_eq!(event_status(e2), ACL_EVENT_RECORDED_STATUS_NOT_READY);
    assert_eq!(stream_status(s), ACL_STREAM_STATUS_NOT_READY);
    ok!(aclrtSynchronizeEvent(e2));
    let mut ms = 0f32;
    ok!(aclrtEventElapsedTime(&mut ms, e1, e2));
    assert!((150.0..1000.0).contains(&ms), "{ms}");
    ok!(aclrtDestroyEvent(e1));
    ok!(aclrtDestroyEvent(e2));
    ok!(aclrtDestroyStream(s));
    teardown_device0();
    sim::audit().assert_clean();
}

#[test]
fn record_on_an_idle_stream_completes_at_once() {
    let _g = sim::exclusive();
    init_device0();
    let e = create_event();
    let t0 = Instant::now();
    for _ in 0..1000 {
        ok!(aclrtRecordEvent(e, null_mut()));
        ok!(aclrtSynchronizeEvent(e));
    }
    let per = t0.elapsed() / 1000;
    assert!(per < Duration::from_millis(1), "{per:?} per round trip");
    ok!(aclrtDestroyEvent(e));
    teardown_device0();
    sim::audit().assert_clean();
}

#[test]
fn stream_wait_event_really_holds_the_waiting_stream() {
    let _g = sim::exclusive();
    init_device0();
    let (a, b) = (create_stream(), create_stream());
    let e = create_event();
    let (x, y) = (malloc(4096), malloc(4096));
    ok!(aclrtMemset(x, 4096, 0, 4096));
    ok!(aclrtMemset(y, 4096, 0, 4096));
    ok!(aclrtLaunchHostFunc(a, Some(sleep_ms), ms_arg(100)));
    ok!(aclrtMemsetAsync(x, 4096, 7, 4096, a));
    ok!(aclrtRecordEvent(e, a));
    ok!(aclrtStreamWaitEvent(b, e));
    ok!(aclrtMemcpyAsync(
        y,
        4096,
        x,
        4096,
        ACL_MEMCPY_DEVICE_TO_DEVICE,
        b
    ));
    std::thread::sleep(Duration::from_millis(30));
    assert_eq!(
        stream_status(b),
        ACL_STREAM_STATUS_NOT_READY,
        "b must wait for a"
    );
    ok!(aclrtSynchronizeStream(b));
    assert_eq!(read_device(y, 4096), vec![7; 4096]);
    ok!(aclrtDestroyEvent(e));
    ok!(aclrtFree(x));
    ok!(aclrtFree(y));
    ok!(aclrtDestroyStream(a));
    ok!(aclrtDestroyStream(b));
    teardown_device0();
    sim::audit().assert_clean();
}

#[test]
fn a_wait_keeps_the_set_captured_when_it_was_issued() {
    let _g = sim::exclusive();
    init_device0();
    let (a, b) = (create_stream(), create_stream());
    let e = create_event();
    ok!(aclrtLaunchHostFunc(a, Some(sleep_ms), ms_arg(50)));
    ok!(aclrtRecordEvent(e, a));
    ok!(aclrtStreamWaitEvent(b, e));
    // Re-record after a long task: the issued wait must not see it.
    ok!(aclrtLaunchHostFunc(a, Some(sleep_ms), ms_arg(400)));
    ok!(aclrtRecordEvent(e, a));
    let t0 = Instant::now();
    ok!(aclrtSynchronizeStream(b));
    assert!(
        t0.elapsed() < Duration::from_millis(300),
        "{:?}",
        t0.elapsed()
    );
    assert_eq!(event_status(e), ACL_EVENT_RECORDED_STATUS_NOT_READY);
    ok!(aclrtSynchronizeStream(a));
    ok!(aclrtDestroyEvent(e));
    ok!(aclrtDestroyStream(a));
    ok!(aclrtDestroyStream(b));
    teardown_device0();
    sim::audit().assert_clean();
}

#[test]
fn timeouts_expire_with_their_codes() {
    let _g = sim::exclusive();
    init_device0();
    let s = create_stream();
    let e = create_event();
    ok!(aclrtLaunchHostFunc(s, Some(sleep_ms), ms_arg(200)));
    ok!(aclrtRecordEvent(e, s));
    assert_eq!(
        acl!(aclrtSynchronizeStreamWithTimeout(s, 0)),
        ACL_ERROR_RT_PARAM_INVALID
    );
    assert_eq!(
        acl!(aclrtSynchronizeStreamWithTimeout(s, -2)),
        ACL_ERROR_RT_PARAM_INVALID
    );
    assert_eq!(
        acl!(aclrtSynchronizeStreamWithTimeout(s, 10)),
        ACL_ERROR_RT_STREAM_SYNC_TIMEOUT
    );
    assert_eq!(
        acl!(aclrtSynchronizeEventWithTimeout(e, 10)),
        ACL_ERROR_RT_EVENT_SYNC_TIMEOUT
    );
    assert_eq!(
        acl!(aclrtSynchronizeDeviceWithTimeout(10)),
        ACL_ERROR_RT_STREAM_SYNC_TIMEOUT
    );
    ok!(aclrtSynchronizeDeviceWithTimeout(-1));
    ok!(aclrtDestroyEvent(e));
    ok!(aclrtDestroyStream(s));
    teardown_device0();
    sim::audit().assert_clean();
}

#[test]
fn destroy_waits_and_force_destroy_drops() {
    let _g = sim::exclusive();
    init_device0();
    let hits = AtomicUsize::new(0);
    let arg = (&hits as *const AtomicUsize).cast_mut().cast::<c_void>();
    let s = create_stream();
    ok!(aclrtLaunchHostFunc(s, Some(sleep_ms), ms_arg(50)));
    ok!(aclrtLaunchHostFunc(s, Some(bump), arg));
    ok!(aclrtDestroyStream(s));
    assert_eq!(
        hits.load(Ordering::SeqCst),
        1,
        "destroy waits for pending tasks"
    );
    let f = create_stream();
    ok!(aclrtLaunchHostFunc(f, Some(sleep_ms), ms_arg(50)));
    ok!(aclrtLaunchHostFunc(f, Some(bump), arg));
    let t0 = Instant::now();
    ok!(aclrtDestroyStreamForce(f));
    assert!(t0.elapsed() < Duration::from_millis(40));
    std::thread::sleep(Duration::from_millis(100));
    assert_eq!(
        hits.load(Ordering::SeqCst),
        1,
        "force destroy drops pending tasks"
    );
    teardown_device0();
    sim::audit().assert_clean();
}

#[test]
fn synchronize_from_another_thread_and_shared_default_stream() {
    let _g = sim::exclusive();
    init_device0();
    let p = malloc(64);
    let mut ctx = null_mut();
    ok!(aclrtGetCurrentContext(&mut ctx));
    let (pa, ca) = (p.addr(), ctx.addr());
    std::thread::spawn(move || {
        let ctx = std::ptr::without_provenance_mut::<c_void>(ca);
        ok!(aclrtSetCurrentContext(ctx));
        let p = std::ptr::with_exposed_provenance_mut::<c_void>(pa);
        ok!(aclrtLaunchHostFunc(null_mut(), Some(sleep_ms), ms_arg(30)));
        ok!(aclrtMemsetAsync(p, 64, 4, 64, null_mut()));
    })
    .join()
    .unwrap();
    ok!(aclrtSynchronizeStream(null_mut()));
    assert_eq!(read_device(p, 64), vec![4; 64]);
    ok!(aclrtFree(p));
    teardown_device0();
    sim::audit().assert_clean();
}

#[test]
fn two_64_mib_copies_run_in_parallel() {
    // Timing: informative only on loaded machines; it asserts just that the
    // concurrent run is not slower than 1.5x the serial one.
    let _g = sim::exclusive();
    init_device0();
    let n = 64 << 20;
    let bufs: Vec<*mut c_void> = (0..4).map(|_| malloc(n)).collect();
    for &b in &bufs {
        ok!(aclrtMemset(b, n, 1, n));
    }
    let (a, b) = (create_stream(), create_stream());
    let run = |streams: [aclrtStream; 2]| {
        let t0 = Instant::now();
        ok!(aclrtMemcpyAsync(
            bufs[1],
            n,
            bufs[0],
            n,
            ACL_MEMCPY_DEVICE_TO_DEVICE,
            streams[0]
        ));
        ok!(aclrtMemcpyAsync(
            bufs[3],
            n,
            bufs[2],
            n,
            ACL_MEMCPY_DEVICE_TO_DEVICE,
            streams[1]
        ));
        ok!(aclrtSynchronizeStream(streams[0]));
        ok!(aclrtSynchronizeStream(streams[1]));
        t0.elapsed()
    };
    let serial = run([a, a]);
    let parallel = run([a, b]);
    eprintln!("two 64 MiB copies: serial {serial:?}, parallel {parallel:?}");
    assert!(
        parallel < serial * 3 / 2,
        "serial {serial:?}, parallel {parallel:?}"
    );
    for b in bufs {
        ok!(aclrtFree(b));
    }
    ok!(aclrtDestroyStream(a));
    ok!(aclrtDestroyStream(b));
    teardown_device0();
    sim::audit().assert_clean();
}

#[test]
fn stress_sync_wait_and_events_across_threads() {
    // Many tiny enqueue/synchronise cycles on several threads, with
    // cross-stream waits: a lost wake-up in the completion protocol would
    // hang here.
    let _g = sim::exclusive();
    init_device0();
    let mut ctx = null_mut();
    ok!(aclrtGetCurrentContext(&mut ctx));
    let ctx_addr = ctx.addr();
    let shared_event = create_event();
    let ev_addr = shared_event.addr();
    let threads: Vec<_> = (0..4)
        .map(|t| {
            std::thread::spawn(move || {
                ok!(aclrtSetCurrentContext(std::ptr::without_provenance_mut(
                    ctx_addr
                )));
                let ev: aclrtEvent = std::ptr::without_provenance_mut(ev_addr);
                let s = create_stream();
                let mine = create_event();
                let p = malloc(256);
                let q = malloc(256);
                for i in 0..2000 {
                    ok!(aclrtMemsetAsync(p, 256, i, 256, s));
                    ok!(aclrtMemcpyAsync(
                        q,
                        256,
                        p,
                        256,
                        ACL_MEMCPY_DEVICE_TO_DEVICE,
                        s
                    ));
                    ok!(aclrtRecordEvent(mine, s));
                    if t == 0 {
                        ok!(aclrtRecordEvent(ev, s));
                    } else if i % 7 == 0 {
                        ok!(aclrtStreamWaitEvent(s, ev));
                    }
                    match i % 3 {
                        0 => ok!(aclrtSynchronizeEvent(mine)),
                        1 => ok!(aclrtSynchronizeStream(s)),
                        _ => {
                            let mut st = 0;
                            ok!(aclrtQueryEventStatus(mine, &mut st));
                            ok!(aclrtSynchronizeStreamWithTimeout(s, 10_000));
                        }
                    }
                    assert_eq!(read_device(q, 256), vec![(i % 256) as u8; 256]);
                }
                ok!(aclrtSynchronizeStream(s));
                ok!(aclrtDestroyEvent(mine));
                ok!(aclrtFree(p));
                ok!(aclrtFree(q));
                s.addr()
            })
        })
        .collect();
    let streams: Vec<usize> = threads.into_iter().map(|t| t.join().unwrap()).collect();
    for s in streams {
        ok!(aclrtDestroyStream(std::ptr::without_provenance_mut(s)));
    }
    ok!(aclrtDestroyEvent(shared_event));
    teardown_device0();
    sim::audit().assert_clean();
}
