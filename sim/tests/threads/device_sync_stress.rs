//! `aclrtSynchronizeDevice` waits for every task queued before it on every
//! stream of the current context (fidelity rows of
//! `aclrtSynchronizeDevice`), however often the sequence of the Python
//! suite's GIL test repeats: a fresh runtime, an explicit context and
//! stream, delayed tasks, then each blocking synchronisation in turn.
//!
//! The iteration count comes from `ACLRT_SIM_STRESS_ITERS` (default 20, so
//! the suite stays fast; a search for a rare failure sets thousands).

use crate::common;
use common::*;

/// Tasks queued before each synchronisation, and the delay of each.
const TASKS: u32 = 8;
const DELAY: Duration = Duration::from_millis(2);

fn iterations() -> u32 {
    std::env::var("ACLRT_SIM_STRESS_ITERS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(20)
}

/// Queues [`TASKS`] delayed memsets on `s`, runs `sync`, and returns how
/// long after the first submission `sync` returned. The tasks cannot all
/// have executed sooner than `TASKS * DELAY` after it, however the host
/// thread is scheduled, so a return before that is a synchronisation that
/// did not wait for them (a measure from the call itself would also fail
/// when the host thread is descheduled between the submissions and the
/// call, long enough for the work to finish).
fn queued_then(s: aclrtStream, dev: *mut c_void, sync: impl FnOnce() -> aclError) -> Duration {
    let t0 = Instant::now();
    for i in 0..TASKS {
        ok!(aclrtMemsetAsync(dev, 64, i as i32, 64, s));
    }
    check(sync(), "the synchronisation");
    t0.elapsed()
}

/// One run of the Python test's sequence; the failures found, by name.
fn one_round(failures: &mut Vec<String>, i: u32, mode: RunMode) {
    init();
    ok!(aclrtSetDevice(0));
    let ctx = create_context(0);
    let s = create_stream();
    let dev = malloc(64);
    let least = DELAY * TASKS;
    // Meanwhile another thread works in the device's default context: it
    // binds with aclrtSetDevice, queues on a stream of its own and
    // synchronises the device, the same checks applying.
    let (stop, other_failures) = (AtomicBool::new(false), std::sync::Mutex::new(Vec::new()));
    std::thread::scope(|scope| {
        scope.spawn(|| {
            ok!(aclrtSetDevice(0));
            let s2 = create_stream();
            let dev2 = malloc(64);
            let mut round = 0;
            while !stop.load(Ordering::SeqCst) {
                let since_first = queued_then(s2, dev2, || acl!(aclrtSynchronizeDevice()));
                if since_first < least || stream_status(s2) != ACL_STREAM_STATUS_COMPLETE {
                    other_failures.lock().unwrap().push(format!(
                        "{mode:?} round {i}.{round}: the default context's aclrtSynchronizeDevice \
                         returned {since_first:?} after the first task"
                    ));
                }
                round += 1;
            }
            free(dev2);
            destroy_stream(s2);
            ok!(aclrtResetDevice(0));
        });
        main_thread_round(failures, i, mode, s, dev, least);
        stop.store(true, Ordering::SeqCst);
    });
    failures.extend(other_failures.into_inner().unwrap());
    free(dev);
    ok!(aclrtSetCurrentContext(ctx));
    destroy_stream(s);
    ok!(aclrtDestroyContext(ctx));
    ok!(aclrtResetDevice(0));
    finalize();
}

/// The main thread's part of [`one_round`]: the Python test's sequence.
fn main_thread_round(
    failures: &mut Vec<String>,
    i: u32,
    mode: RunMode,
    s: aclrtStream,
    dev: *mut c_void,
    least: Duration,
) {
    let calls: [(&str, &dyn Fn() -> aclError); 3] = [
        ("aclrtSynchronizeStreamWithTimeout", &|| {
            acl!(aclrtSynchronizeStreamWithTimeout(s, 10_000))
        }),
        ("aclrtSynchronizeDevice", &|| acl!(aclrtSynchronizeDevice())),
        ("aclrtSynchronizeDeviceWithTimeout", &|| {
            acl!(aclrtSynchronizeDeviceWithTimeout(10_000))
        }),
    ];
    for (name, call) in calls {
        let since_first = queued_then(s, dev, call);
        // Every task had executed when the call returned: the stream is
        // complete and holds the last task's value.
        let complete = stream_status(s) == ACL_STREAM_STATUS_COMPLETE;
        let last = read_device(dev, 64) == vec![(TASKS - 1) as u8; 64];
        if since_first < least || !complete || !last {
            failures.push(format!(
                "{mode:?} round {i}: {name} returned {since_first:?} after the first of \
                 {TASKS} tasks of {DELAY:?} (stream complete: {complete}, last value written: \
                 {last})"
            ));
        }
    }
}

#[test]
fn synchronize_device_waits_for_queued_tasks_every_time() {
    let _sim = aclrt_sim::exclusive();
    let n = iterations();
    let mut failures = Vec::new();
    in_both_run_modes(|mode| {
        configure(|c| {
            c.run_mode = mode;
            c.task_delay = DELAY;
        });
        for i in 0..n {
            one_round(&mut failures, i, mode);
        }
    });
    assert!(
        failures.is_empty(),
        "{} synchronisation(s) returned before their work was done ({} rounds of 3 on the \
         main thread per run mode):\n{}",
        failures.len(),
        n,
        failures.join("\n")
    );
    assert_clean();
}
