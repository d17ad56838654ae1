//! The worker pool that runs every stream: a few workers serve
//! many streams, yet per-stream order holds and a stream blocked on an
//! event, a delay or a host function never holds up the others, however
//! many streams are blocked at once.

use crate::common;
use common::*;

use std::sync::{Condvar, Mutex};

/// More streams than any pool has workers on a test machine.
const MANY: usize = 64;

/// A rendezvous for host functions: each arrives and waits (at most 10 s)
/// until `expected` have arrived; `met` counts those that saw everyone.
struct Rendezvous {
    arrived: Mutex<usize>,
    cv: Condvar,
    expected: usize,
    met: AtomicUsize,
}

unsafe extern "C" fn meet(arg: *mut c_void) {
    // SAFETY: the tests pass a `Rendezvous` they keep alive until every
    // stream running this function has been synchronised.
    let r = unsafe { &*arg.cast::<Rendezvous>() };
    let mut n = r.arrived.lock().unwrap();
    *n += 1;
    r.cv.notify_all();
    let (n, _) =
        r.cv.wait_timeout_while(n, Duration::from_secs(10), |n| *n < r.expected)
            .unwrap();
    if *n >= r.expected {
        r.met.fetch_add(1, Ordering::SeqCst);
    }
}

#[test]
fn sixty_four_blocked_host_functions_all_run_at_the_same_time() {
    let _sim = aclrt_sim::exclusive();
    in_both_run_modes(|_| {
        init_device0();
        let streams: Vec<_> = (0..MANY).map(|_| create_stream()).collect();
        let r = Rendezvous {
            arrived: Mutex::new(0),
            cv: Condvar::new(),
            expected: MANY,
            met: AtomicUsize::new(0),
        };
        let arg = std::ptr::from_ref(&r).cast_mut().cast();
        for &s in &streams {
            ok!(aclrtLaunchHostFunc(s, Some(meet), arg));
        }
        for &s in &streams {
            ok!(aclrtSynchronizeStream(s));
        }
        // Each host function returns only once all 64 have started: with a
        // fixed pool of workers (or a blocked stream holding up others)
        // they would time out instead.
        assert_eq!(r.met.load(Ordering::SeqCst), MANY);
        for s in streams {
            destroy_stream(s);
        }
        teardown_device0();
        assert_clean();
    });
}

#[test]
fn host_functions_wait_for_a_later_task_of_another_stream() {
    let session = device0();
    let waiting: Vec<_> = (0..8).map(|_| create_stream()).collect();
    let setter = create_stream();
    let gate = Gate::new();
    let ran = AtomicUsize::new(0);
    for &s in &waiting {
        ok!(aclrtLaunchHostFunc(s, Some(pass_gate), gate.arg()));
        ok!(aclrtLaunchHostFunc(s, Some(count_run), counter_arg(&ran)));
    }
    // Queued after all eight blocked host functions, on another stream.
    ok!(aclrtLaunchHostFunc(setter, Some(open_gate), gate.arg()));
    for &s in &waiting {
        ok!(aclrtSynchronizeStream(s));
    }
    ok!(aclrtSynchronizeStream(setter));
    // Every blocked function was released by the setter, none gave up at
    // the hang guard: the setter ran while all eight were blocked.
    assert_eq!(
        gate.passes_opened(),
        8,
        "the setter stream was held up by blocked streams"
    );
    assert_eq!(ran.load(Ordering::SeqCst), 8);
    for s in waiting {
        destroy_stream(s);
    }
    destroy_stream(setter);
    session.finish();
}

#[test]
fn a_chain_of_waits_across_sixty_four_streams_keeps_the_order() {
    let _sim = aclrt_sim::exclusive();
    in_both_run_modes(|_| {
        init_device0();
        let streams: Vec<_> = (0..MANY).map(|_| create_stream()).collect();
        let events: Vec<_> = (0..MANY).map(|_| create_event()).collect();
        let bufs: Vec<_> = (0..MANY).map(|_| malloc(256)).collect();
        for &p in &bufs {
            ok!(aclrtMemset(p, 256, 0, 256));
        }
        // Stream 0 writes late (a delay); every other stream waits for its
        // predecessor's event, copies the predecessor's buffer and records.
        // All 63 waits block at once while stream 0 sleeps.
        stream_delay(streams[0], 30);
        ok!(aclrtMemsetAsync(bufs[0], 256, 7, 256, streams[0]));
        ok!(aclrtRecordEvent(events[0], streams[0]));
        for i in 1..MANY {
            ok!(aclrtStreamWaitEvent(streams[i], events[i - 1]));
            ok!(aclrtMemcpyAsync(
                bufs[i],
                256,
                bufs[i - 1],
                256,
                ACL_MEMCPY_DEVICE_TO_DEVICE,
                streams[i]
            ));
            ok!(aclrtRecordEvent(events[i], streams[i]));
        }
        ok!(aclrtSynchronizeStream(streams[MANY - 1]));
        assert_eq!(read_device(bufs[MANY - 1], 256), vec![7; 256]);
        for &s in &streams {
            ok!(aclrtSynchronizeStream(s));
        }
        for p in bufs {
            free(p);
        }
        for e in events {
            destroy_event(e);
        }
        for s in streams {
            destroy_stream(s);
        }
        teardown_device0();
        assert_clean();
    });
}

#[test]
fn round_robin_over_sixty_four_streams_keeps_per_stream_order() {
    let session = device0();
    const ROUNDS: usize = 40;
    let streams: Vec<_> = (0..MANY).map(|_| create_stream()).collect();
    let scratch: Vec<_> = (0..MANY).map(|_| malloc(1)).collect();
    let logs: Vec<_> = (0..MANY).map(|_| malloc(ROUNDS)).collect();
    // Round r on stream i: scratch_i := r + i, then log_i[r] := scratch_i.
    // Any reordering within a stream leaves a wrong byte in its log.
    for r in 0..ROUNDS {
        for (i, &s) in streams.iter().enumerate() {
            ok!(aclrtMemsetAsync(scratch[i], 1, (r + i) as i32, 1, s));
            // SAFETY (pointer arithmetic only): `r < ROUNDS`, inside log_i.
            let dst = logs[i].cast::<u8>().wrapping_add(r).cast();
            ok!(aclrtMemcpyAsync(
                dst,
                1,
                scratch[i],
                1,
                ACL_MEMCPY_DEVICE_TO_DEVICE,
                s
            ));
        }
    }
    for &s in &streams {
        ok!(aclrtSynchronizeStream(s));
    }
    for (i, &log) in logs.iter().enumerate() {
        let want: Vec<u8> = (0..ROUNDS).map(|r| (r + i) as u8).collect();
        assert_eq!(read_device(log, ROUNDS), want, "stream {i}");
    }
    for p in scratch.into_iter().chain(logs) {
        free(p);
    }
    for s in streams {
        destroy_stream(s);
    }
    session.finish();
}

/// What a host function that synchronises another stream saw.
struct SyncOther {
    stream: aclrtStream,
    /// The context to make current on the runtime's thread first (a stream
    /// synchronisation needs one: 107002 otherwise).
    ctx: aclrtContext,
    code: AtomicUsize,
}

unsafe extern "C" fn synchronize_other(arg: *mut c_void) {
    // SAFETY: the test keeps the `SyncOther` alive until the stream running
    // this function has been synchronised.
    let a = unsafe { &*arg.cast::<SyncOther>() };
    // SAFETY: `a.ctx` is the live context of the test's streams.
    let code = match unsafe { aclrtSetCurrentContext(a.ctx) } {
        0 => {
            // SAFETY: `a.stream` is a live stream of the test.
            unsafe { aclrtSynchronizeStream(a.stream) }
        }
        code => code,
    };
    a.code.store(code as usize, Ordering::SeqCst);
}

#[test]
fn a_host_function_synchronises_a_delayed_stream_and_later_its_own_worker_is_free() {
    let session = device0();
    let (a, b) = (create_stream(), create_stream());
    let p = malloc(64);
    // b: a delayed memset; a's host function synchronises b, so a's
    // worker blocks until b's (other) worker has run it.
    stream_delay(b, 20);
    ok!(aclrtMemsetAsync(p, 64, 9, 64, b));
    let sync_b = SyncOther {
        stream: b,
        ctx: current_context(),
        code: AtomicUsize::new(usize::MAX),
    };
    ok!(aclrtLaunchHostFunc(
        a,
        Some(synchronize_other),
        std::ptr::from_ref(&sync_b).cast_mut().cast()
    ));
    ok!(aclrtSynchronizeStream(a));
    assert_eq!(sync_b.code.load(Ordering::SeqCst), 0);
    assert_eq!(read_device(p, 64), vec![9; 64]);
    // The pool worker that ran a's host function no longer passes for a's
    // worker: a host function on b may synchronise a (idle) ...
    stream_delay(b, 0);
    let sync_a = SyncOther {
        stream: a,
        ctx: current_context(),
        code: AtomicUsize::new(usize::MAX),
    };
    ok!(aclrtLaunchHostFunc(
        b,
        Some(synchronize_other),
        std::ptr::from_ref(&sync_a).cast_mut().cast()
    ));
    ok!(aclrtSynchronizeStream(b));
    assert_eq!(sync_a.code.load(Ordering::SeqCst), 0);
    // ... while a host function synchronising its own stream is still
    // refused (it would wait for itself).
    let sync_self = SyncOther {
        stream: a,
        ctx: current_context(),
        code: AtomicUsize::new(usize::MAX),
    };
    ok!(aclrtLaunchHostFunc(
        a,
        Some(synchronize_other),
        std::ptr::from_ref(&sync_self).cast_mut().cast()
    ));
    ok!(aclrtSynchronizeStream(a));
    assert_eq!(
        sync_self.code.load(Ordering::SeqCst),
        ACL_ERROR_RT_PARAM_INVALID as usize
    );
    free(p);
    destroy_stream(a);
    destroy_stream(b);
    session.finish();
}

#[test]
fn destroying_streams_with_queued_work_from_many_threads() {
    let session = device0();
    let ctx = current_context();
    let threads: Vec<_> = (0..8)
        .map(|t| {
            let ctx = ctx as usize;
            std::thread::spawn(move || {
                ok!(aclrtSetCurrentContext(ctx as aclrtContext));
                for round in 0..20 {
                    let s = create_stream();
                    let p = malloc(4096);
                    for v in 0..50 {
                        ok!(aclrtMemsetAsync(p, 4096, v + t + round, 4096, s));
                    }
                    // Destroy waits for the queued work, then the stream
                    // leaves the pool; the buffer is free to go after it.
                    destroy_stream(s);
                    assert_eq!(read_device(p, 4096), vec![(49 + t + round) as u8; 4096]);
                    free(p);
                }
            })
        })
        .collect();
    for t in threads {
        t.join().unwrap();
    }
    session.finish();
}

/// Threads of this process named like the pool's workers (Linux).
#[cfg(target_os = "linux")]
fn pool_threads() -> usize {
    std::fs::read_dir("/proc/self/task")
        .unwrap()
        .filter_map(|t| std::fs::read_to_string(t.ok()?.path().join("comm")).ok())
        .filter(|name| name.trim_end() == "aclrt-sim worke")
        .count()
}

#[cfg(target_os = "linux")]
#[test]
fn no_worker_thread_outlives_the_runtime_and_many_streams_share_few() {
    let session = device0();
    let streams: Vec<_> = (0..MANY).map(|_| create_stream()).collect();
    let p = malloc(64);
    for round in 0..20 {
        for &s in &streams {
            ok!(aclrtMemsetAsync(p, 64, round, 64, s));
        }
    }
    for &s in &streams {
        ok!(aclrtSynchronizeStream(s));
    }
    // Short tasks on 64 streams: a pool the size of the machine, not a
    // thread per stream.
    let running = pool_threads();
    let cores = std::thread::available_parallelism().map_or(2, |n| n.get().max(2));
    assert!(
        (1..=cores).contains(&running),
        "{running} worker threads for {MANY} streams of short tasks ({cores} cores)"
    );
    free(p);
    for s in streams {
        destroy_stream(s);
    }
    session.finish();
    // aclFinalize joined every worker (Miri and valgrind see no thread left).
    // A joined thread can stay listed for a moment while the kernel reaps
    // it: wait for that (bounded only by the hang guard).
    wait_until(|| pool_threads() == 0);
    assert_eq!(pool_threads(), 0);
}
