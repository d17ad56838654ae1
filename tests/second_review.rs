//! The reproducers of the second outside review of the trusted base
//! (issue 23), each turned into a regression test: report callbacks that
//! ran under the subscription lock and deadlocked, lost work reported as
//! `Ok`, an event whose discarded record answered "not yet" forever, a
//! forgotten registration; and the debug-build check of the lock
//! discipline, shown to fire when the discipline is broken on purpose.
//!
//! A test that could hang if the library regressed runs its scenario
//! through [`within`]: a deadlock fails the test binary (exit status 3,
//! with a message) instead of hanging CI.

mod common;

use std::sync::atomic::{AtomicBool, AtomicU32, Ordering};
use std::sync::{Arc, Mutex, mpsc};
use std::thread::{self, ThreadId};

use aclrt::{Acl, HostMode, Reporter, Result, Subscription, make_guard};
use common::*;

/// Run `f` on its own thread; if it has not finished within
/// [`HANG_GUARD`] (a hang guard, not a time bound on the property under
/// test), it deadlocked: say so and end the test process with status 3.
fn within<R: Send + 'static>(what: &'static str, f: impl FnOnce() -> R + Send + 'static) -> R {
    let (tx, rx) = mpsc::channel::<()>();
    let worker = thread::spawn(move || {
        let r = f();
        let _ = tx.send(());
        r
    });
    match rx.recv_timeout(HANG_GUARD) {
        // Finished, or panicked (the sender was dropped): join either way.
        Ok(()) | Err(mpsc::RecvTimeoutError::Disconnected) => match worker.join() {
            Ok(r) => r,
            Err(p) => std::panic::resume_unwind(p),
        },
        Err(mpsc::RecvTimeoutError::Timeout) => {
            eprintln!("DEADLOCK: {what}: not finished after {HANG_GUARD:?}");
            std::process::exit(3);
        }
    }
}

/// What a report callback saw: the thread it ran on and whether its action
/// finished.
#[derive(Clone, Default)]
struct Seen {
    thread: Arc<Mutex<Option<ThreadId>>>,
    done: Arc<AtomicBool>,
    /// The gate of the callback that holds the reporter.
    gate: HeldGate,
}

impl Seen {
    fn ran_on(&self) -> Option<ThreadId> {
        *self.thread.lock().unwrap()
    }
    fn done(&self) -> bool {
        self.done.load(Ordering::SeqCst)
    }
}

/// Leaves one callback queued behind a busy reporter: a callback that holds
/// the reporter thread (until the gate opens) is launched and entered, then
/// `action` is launched (`NO_BLOCK`) and the stream synchronised, so that
/// `action` waits in the reporter's queue. It opens the gate first (the
/// reporter's thread may have to end while it runs), then runs `action`.
fn queue_behind_busy_reporter(
    sub: &Subscription<'_, '_, '_, '_>,
    action: impl FnOnce() + Send + 'static,
) -> Result<Seen> {
    let gate = HeldGate::new();
    sub.launch(gate.body())?;
    assert!(
        wait_until(|| gate.entered()),
        "the reporter ran the first callback"
    );
    let seen = Seen {
        gate: gate.clone(),
        ..Seen::default()
    };
    let s = seen.clone();
    sub.launch(move || {
        *s.thread.lock().unwrap() = Some(thread::current().id());
        gate.open();
        action();
        s.done.store(true, Ordering::SeqCst);
    })?;
    sub.stream().synchronize()?;
    Ok(seen)
}

/// The queued callback ran to its end on this thread (the one that ended
/// the subscription).
#[track_caller]
fn ran_here(seen: &Seen) {
    assert_eq!(seen.ran_on(), Some(thread::current().id()));
    assert!(seen.done());
}

// ------------------------------------------------------------ item 1: deadlocks

/// Dropping a `Subscription` runs its stream's queued callbacks on the
/// dropping thread; one of them drops another `Reporter`, whose thread
/// takes the subscription book's lock as it exits. Before issue 23 the
/// drop held that lock around the callbacks: a deadlock.
#[test]
fn dropping_a_subscription_whose_queued_callback_drops_a_reporter() {
    within("drop(Subscription) -> callback drops a Reporter", || {
        in_host_context(|ctx| {
            let stream = ctx.create_stream()?;
            let r1 = Reporter::spawn()?;
            let r2 = Reporter::spawn()?;
            let sub = r1.subscribe(&stream)?;
            let seen = queue_behind_busy_reporter(&sub, move || drop(r2))?;
            drop(sub);
            ran_here(&seen);
            r1.stop()?;
            stream.destroy()
        })
    })
    .unwrap();
}

/// `other.stop()` inside a callback is allowed (a reporter may stop another
/// one); on the unsubscribing thread it hung before issue 23.
#[test]
fn other_reporter_stopped_inside_a_callback_run_by_unsubscribe() {
    within(
        "Subscription::unsubscribe -> callback calls other.stop()",
        || {
            in_host_context(|ctx| {
                let stream = ctx.create_stream()?;
                let r1 = Reporter::spawn()?;
                let r2 = Reporter::spawn()?;
                let stopped = Arc::new(Mutex::new(None));
                let st = Arc::clone(&stopped);
                let sub = r1.subscribe(&stream)?;
                let seen = queue_behind_busy_reporter(&sub, move || {
                    *st.lock().unwrap() = Some(r2.stop().is_ok());
                })?;
                sub.unsubscribe()?;
                ran_here(&seen);
                assert_eq!(*stopped.lock().unwrap(), Some(true));
                r1.stop()?;
                stream.destroy()
            })
        },
    )
    .unwrap();
}

/// `Stream::destroy` undoes a leaked subscription of the stream and runs
/// its queued callbacks; one stops another reporter.
#[test]
fn stream_destroy_with_a_leaked_subscription_whose_callback_stops_a_reporter() {
    within("Stream::destroy -> callback calls other.stop()", || {
        in_host_context(|ctx| {
            let stream = ctx.create_stream()?;
            let r1 = Reporter::spawn()?;
            let r2 = Reporter::spawn()?;
            let sub = r1.subscribe(&stream)?;
            let seen = queue_behind_busy_reporter(&sub, move || r2.stop().unwrap())?;
            core::mem::forget(sub);
            stream.destroy()?;
            ran_here(&seen);
            r1.stop()
        })
    })
    .unwrap();
}

/// `Context::destroy` undoes a leaked subscription of the context's
/// default stream and runs its queued callbacks; one drops a reporter.
#[test]
fn context_destroy_with_a_leaked_subscription_whose_callback_drops_a_reporter() {
    within(
        "Context::destroy -> callback drops a Reporter",
        || -> Result<()> {
            let _sim = take(host_config());
            let acl = Acl::init()?;
            let r1 = Reporter::spawn()?;
            let seen;
            {
                let device = acl.require::<HostMode>()?.device(0)?;
                make_guard!(g);
                let ctx = device.create_context(g)?;
                {
                    let default = ctx.default_stream()?;
                    let r2 = Reporter::spawn()?;
                    let sub = r1.subscribe(&default)?;
                    seen = queue_behind_busy_reporter(&sub, move || drop(r2))?;
                    core::mem::forget(sub);
                }
                ctx.destroy()?;
                ran_here(&seen);
                device.reset()?;
            }
            r1.stop()?;
            acl.finalize()?;
            assert_clean();
            Ok(())
        },
    )
    .unwrap();
}

/// The last `Arc<Reporter>` is held by one of its own callbacks, which the
/// destruction of its stream runs on the destroying thread: dropping it
/// joins the reporter's thread, which undoes its subscriptions as it exits.
#[test]
fn last_reporter_handle_dropped_in_its_own_callback_on_the_unsubscribing_thread() {
    within(
        "Stream::destroy -> callback drops the last Arc<Reporter>",
        || {
            in_host_context(|ctx| {
                let stream = ctx.create_stream()?;
                let reporter = Arc::new(Reporter::spawn()?);
                let sub = reporter.subscribe(&stream)?;
                let last = Arc::clone(&reporter);
                let seen = queue_behind_busy_reporter(&sub, move || drop(last))?;
                core::mem::forget(sub);
                drop(reporter);
                stream.destroy()?;
                ran_here(&seen);
                Ok(())
            })
        },
    )
    .unwrap();
}

/// The last `Arc<Reporter>` dropped by a callback on the reporter's own
/// thread, with a leaked subscription whose other queued callback stops a
/// second reporter: the reporter's thread ends after the callback and
/// undoes the subscription on its way out, running that callback.
#[test]
fn last_reporter_handle_dropped_on_its_own_thread_with_a_leaked_subscription() {
    within(
        "reporter thread exit -> callback calls other.stop()",
        || {
            in_host_context(|ctx| {
                let stream = ctx.create_stream()?;
                let reporter = Arc::new(Reporter::spawn()?);
                let r2 = Reporter::spawn()?;
                let sub = reporter.subscribe(&stream)?;
                let last = Arc::clone(&reporter);
                let (tx, rx) = mpsc::channel::<()>();
                let stopped = Arc::new(AtomicU32::new(0));
                let st = Arc::clone(&stopped);
                // First: drops the last handle on the reporter's own thread once
                // the test has let go of its own.
                sub.launch(move || {
                    rx.recv().unwrap();
                    drop(last);
                })?;
                // Then: waits in the queue; runs when the thread exits.
                sub.launch(move || {
                    r2.stop().unwrap();
                    st.fetch_add(1, Ordering::SeqCst);
                })?;
                stream.synchronize()?;
                core::mem::forget(sub);
                drop(reporter);
                tx.send(()).unwrap();
                assert!(wait_until(|| stopped.load(Ordering::SeqCst) == 1));
                stream.destroy()
            })
        },
    )
    .unwrap();
}

// ------------------------------------------------------------ item 8: the check

/// Restores the discipline when dropped (also when the test fails).
struct BreakOnPurpose;

impl BreakOnPurpose {
    fn on() -> BreakOnPurpose {
        aclrt::__lock_check::break_on_purpose(true);
        BreakOnPurpose
    }
}

impl Drop for BreakOnPurpose {
    fn drop(&mut self) {
        aclrt::__lock_check::break_on_purpose(false);
    }
}

/// The debug-build check bites: with the discipline broken on purpose
/// (the subscription lock held across `aclrtUnSubscribeReport`, as before
/// issue 23), the callback run there panics with the check's message
/// instead of running, and `Reporter::stop` resumes that panic. With the
/// discipline restored, the same flow runs the callback.
#[test]
#[cfg(debug_assertions)]
fn lock_check_fires_when_user_code_runs_under_a_crate_lock() {
    assert!(aclrt::__lock_check::ENFORCED);
    within("the lock check", || {
        in_host_context(|ctx| {
            let stream = ctx.create_stream()?;
            for broken in [true, false] {
                let r1 = Reporter::spawn()?;
                let sub = r1.subscribe(&stream)?;
                let seen = queue_behind_busy_reporter(&sub, || {})?;
                {
                    let _breach = broken.then(BreakOnPurpose::on);
                    drop(sub);
                }
                assert_eq!(aclrt::__lock_check::held_here(), 0);
                if broken {
                    seen.gate.open();
                }
                let stopped = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| r1.stop()));
                if broken {
                    // The check fired before the callback's body (which
                    // would have opened the gate).
                    assert!(!seen.done());
                    let payload = stopped.expect_err("the check's panic is resumed by stop");
                    let message = panic_message(&*payload);
                    assert!(
                        message.contains("lock discipline")
                            && message.contains("a report callback"),
                        "{message}"
                    );
                } else {
                    stopped.expect("no panic")?;
                    ran_here(&seen);
                }
            }
            stream.destroy()
        })
    })
    .unwrap();
}

/// The check counts the locks of this thread only, and none is held
/// between calls, on any path these tests take.
#[test]
fn no_crate_lock_is_held_between_calls() -> Result<()> {
    in_host_context(|ctx| {
        let stream = ctx.create_stream()?;
        let reporter = Reporter::spawn()?;
        let sub = reporter.subscribe(&stream)?;
        sub.launch_blocking(|| assert_eq!(aclrt::__lock_check::held_here(), 0))?;
        stream.synchronize()?;
        assert_eq!(aclrt::__lock_check::held_here(), 0);
        drop(sub);
        reporter.stop()?;
        stream.launch_host_fn(|| assert_eq!(aclrt::__lock_check::held_here(), 0))?;
        stream.synchronize()?;
        assert_eq!(aclrt::__lock_check::held_here(), 0);
        stream.destroy()
    })
}
