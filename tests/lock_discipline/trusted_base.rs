//! The reproducers of the second outside review of the trusted base,
//! each turned into a regression test: report callbacks that
//! ran under the subscription lock and deadlocked, lost work reported as
//! `Ok`, an event whose discarded record answered "not yet" forever, a
//! forgotten registration; and the debug-build check of the lock
//! discipline, shown to fire when the discipline is broken on purpose.
//!
//! A test that could hang if the library regressed runs its scenario
//! through [`within`]: a deadlock fails the test binary (exit status 3,
//! with a message) instead of hanging CI.

use crate::common;

use std::sync::atomic::{AtomicBool, AtomicU32, Ordering};
use std::sync::{Arc, Mutex, mpsc};
use std::thread::{self, ThreadId};
use std::time::Duration;

use aclrt::sim;
use aclrt::{Acl, HostMode, Reporter, Result, Stream, Subscription, make_guard};
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
/// takes the subscription book's lock as it exits. Before the fix the
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
/// one); on the unsubscribing thread it hung before the fix.
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

/// `Stream::destroy_force` undoes a leaked subscription first too (its
/// queued callback, which stops another reporter, runs on this thread), so
/// the reporter's exit never unsubscribes the destroyed handle: the audit
/// records no use of a stale handle.
#[test]
#[allow(clippy::mem_forget)]
fn destroy_force_with_a_leaked_subscription() {
    within(
        "Stream::destroy_force -> callback calls other.stop()",
        || {
            in_host_context(|ctx| {
                let stream = ctx.create_stream()?;
                let r1 = Reporter::spawn()?;
                let r2 = Reporter::spawn()?;
                let sub = r1.subscribe(&stream)?;
                let seen = queue_behind_busy_reporter(&sub, move || r2.stop().unwrap())?;
                core::mem::forget(sub);
                stream.destroy_force()?;
                ran_here(&seen);
                r1.stop()?;
                let audit = sim::audit();
                assert!(audit.violations.is_empty(), "{audit:?}");
                Ok(())
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
/// the fix), the callback run there panics with the check's message
/// instead of running, and `Reporter::stop` resumes that panic. With the
/// discipline restored, the same flow runs the callback.
#[test]
#[cfg(debug_assertions)]
fn lock_check_fires_when_user_code_runs_under_a_crate_lock() {
    const { assert!(aclrt::__lock_check::ENFORCED) };
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

/// The order check bites: two locks taken against the crate's order panic
/// with the check's message (debug builds), and the thread holds no crate
/// lock afterwards.
#[test]
#[cfg(debug_assertions)]
fn lock_order_check_fires_on_locks_taken_out_of_order() {
    let r = std::panic::catch_unwind(aclrt::__lock_check::out_of_order_on_purpose);
    let payload = r.expect_err("the order check panics");
    let message = panic_message(&*payload);
    assert!(message.contains("aclrt lock order: Subs"), "{message}");
    assert_eq!(aclrt::__lock_check::held_here(), 0);
}

/// The check counts the locks of this thread only, and none is held
/// between calls, on any path these tests take (debug builds: release
/// builds count nothing).
#[cfg(debug_assertions)]
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

// ------------------------------------------------------------ item 2: TLS destructors

std::thread_local! {
    /// An application that keeps its runtime in a thread-local and cleans
    /// up when the thread ends.
    static APP: std::cell::RefCell<Option<TlsApp>> = const { std::cell::RefCell::new(None) };
}

struct TlsApp {
    acl: Acl,
}

/// `ok`, or `err <code>` and whether the runtime's message came with it.
fn outcome<T>(r: Result<T>) -> String {
    match r {
        Ok(_) => "ok".to_owned(),
        Err(e) => {
            let said = matches!(&e, aclrt::Error::Acl { message, .. } if !message.is_empty());
            format!("err {} message={said}", e.code().unwrap_or(-1))
        }
    }
}

impl TlsApp {
    /// An oversized allocation, a kernel launch and a device fault, in the
    /// run mode the runtime reports; prints each outcome as
    /// `<when>: <what>: ok|err <code>`.
    fn work(&self, when: &str) -> Result<()> {
        match self.acl.run_mode() {
            aclrt::RunModeKind::Host => self.work_in::<HostMode>(when),
            aclrt::RunModeKind::Device => self.work_in::<aclrt::DeviceMode>(when),
        }
    }

    fn work_in<M: aclrt::RunMode>(&self, when: &str) -> Result<()> {
        use aclrt::kernel::{Count, Out};
        let device = self.acl.require::<M>()?.device(0)?;
        make_guard!(g);
        let ctx = device.create_context(g)?;
        let stream = ctx.create_stream()?;
        println!(
            "{when}: oversized alloc: {}",
            outcome(ctx.alloc::<u8>(1 << 50))
        );
        let binary = ctx.load_binary(&sim::binary_image(&["tls_fill"]))?;
        // SAFETY: tls_fill writes x below n and reads nothing.
        let fill = unsafe { binary.kernel::<(Out<f32>, Count)>(c"tls_fill")? };
        let mut x = ctx.alloc_zeroed::<f32>(16)?;
        let launched = ctx.scope(|s| {
            make_guard!(l);
            let lane = s.lane(&stream, l);
            let _ = lane.launch(&fill, 2, (&mut x, 16))?;
            Ok(())
        });
        println!("{when}: kernel launch: {}", outcome(launched));
        sim::inject_task_fault(1, 507_015);
        stream.launch_host_fn(|| {})?;
        println!("{when}: device fault: {}", outcome(stream.synchronize()));
        drop(x);
        binary.unload()?;
        stream.destroy()?;
        ctx.destroy()?;
        device.reset()
    }
}

impl Drop for TlsApp {
    fn drop(&mut self) {
        let r = self.work("tls-dtor");
        println!("tls-dtor: work: {}", outcome(r));
    }
}

/// The child half of [`runtime_calls_in_a_thread_local_destructor_return_errors`]:
/// runs only in the child process it spawns.
#[test]
fn tls_destructor_child() {
    if std::env::var_os("ACLRT_TLS_CHILD").is_none() {
        return;
    }
    sim::register_kernel("tls_fill", |block, nb, args| {
        let (x, n) = (args.u64(0)?, args.u64(1)?);
        let mut i = block as usize;
        while i < n as usize {
            args.write_f32(x, i, i as f32)?;
            i += nb as usize;
        }
        Ok(())
    });
    let t = thread::spawn(|| {
        APP.with(|a| {
            *a.borrow_mut() = Some(TlsApp {
                acl: Acl::init().expect("init"),
            })
        });
        // The same work once now: the per-thread state it creates (the
        // simulator's last error, its kernel argument list, the crate's
        // scope slot) is destroyed before APP, whose destructor repeats it.
        APP.with(|a| {
            let r = a.borrow().as_ref().map(|app| app.work("live"));
            println!("live: work: {}", outcome(r.expect("set above")));
        });
    });
    t.join().expect("the thread ends normally");
    println!("child: thread ended");
}

/// An application keeps its `Acl` in a thread-local and uses the runtime in
/// that thread-local's destructor, after the simulator's per-thread state
/// is gone: each call returns (an error where one is due), the process
/// exits normally. Before the fix the first failing call aborted the
/// process (a panic crossing `extern "C"`).
///
/// The child reads its configuration from the environment; it runs once in
/// each run mode, named explicitly, whatever mode the parent runs in.
#[test]
fn runtime_calls_in_a_thread_local_destructor_return_errors() {
    let exe = std::env::current_exe().expect("the test binary");
    for mode in ["host", "device"] {
        let out = std::process::Command::new(&exe)
            .args([
                "--exact",
                test_name(module_path!(), "tls_destructor_child").as_str(),
                "--nocapture",
                "--test-threads=1",
            ])
            .env("ACLRT_TLS_CHILD", "1")
            .env("ACLRT_SIM_RUN_MODE", mode)
            .output()
            .expect("spawn the child");
        let stdout = String::from_utf8_lossy(&out.stdout);
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(
            out.status.success(),
            "{mode} child: {:?}\n--- stdout\n{stdout}\n--- stderr\n{stderr}",
            out.status
        );
        // The same answers in the destructor as while the thread lived: the
        // errors with their code and the runtime's message (the simulator's
        // per-thread state has a fallback once it is destroyed), the kernel
        // launched (its argument list too).
        for when in ["live", "tls-dtor"] {
            for what in [
                "oversized alloc: err 207001 message=true",
                "kernel launch: ok",
                "device fault: err 507015 message=true",
                "work: ok",
            ] {
                let line = format!("{when}: {what}");
                assert!(
                    stdout.contains(&line),
                    "{mode} child: {line:?} missing:\n{stdout}\n{stderr}"
                );
            }
        }
        assert!(stdout.contains("child: thread ended"), "{mode}: {stdout}");
    }
}

// ------------------------------------------------------------ item 3: lost work

/// Holds stream `x` on a wait outside any scope: `w` runs a gated host
/// function, an event is recorded behind it, and `x` waits for that record.
/// What is queued on `x` afterwards waits until the gate opens, and a
/// stream abort can cut the wait short (a running host function could not
/// be).
fn hold_on_a_wait<'a, 'id>(
    ctx: &'a aclrt::Context<'_, 'id, HostMode>,
    w: &Stream<'_, 'id>,
    x: &Stream<'_, 'id>,
) -> Result<(
    HeldGate,
    aclrt::Event<'a, 'id, aclrt::SyncOnly, aclrt::Recorded>,
)> {
    let gate = HeldGate::new();
    w.launch_host_fn(gate.body())?;
    let held = w.record(ctx.create_event_of::<aclrt::SyncOnly>()?)?;
    x.wait_event(&held)?;
    Ok((gate, held))
}

/// Another thread's timed scope enlists `x` and passes its deadline: the
/// escalation aborts `x`.
fn abort_by_a_timed_scope_on_another_thread<'c>(
    ctx: &aclrt::Context<'_, 'c, HostMode>,
    x: &Stream<'_, 'c>,
) -> Result<()> {
    thread::scope(|t| {
        t.spawn(|| {
            let mut dev = ctx.alloc_zeroed::<u8>(64)?;
            let r = ctx.scope_with_timeout(Duration::from_millis(10), |s| {
                make_guard!(l);
                let lane = s.lane(x, l);
                let _ = lane.memset(&mut dev, 7)?;
                Ok(())
            });
            assert!(matches!(r, Err(aclrt::Error::ScopeTimeout { .. })), "{r:?}");
            Ok(())
        })
        .join()
        .expect("no panic")
    })
}

/// A host function queued with `Stream::launch_host_fn` on a stream that
/// another thread's timed scope aborts is thrown away; the stream's next
/// synchronisation says so (`WorkAborted`, once) — it returned `Ok(())`
/// before the fix — and the stream works afterwards.
#[test]
fn host_fn_discarded_by_another_threads_escalation_is_reported() -> Result<()> {
    in_host_context(|ctx| {
        let (w, x) = (ctx.create_stream()?, ctx.create_stream()?);
        let (gate, held) = hold_on_a_wait(ctx, &w, &x)?;
        let ran = Arc::new(AtomicBool::new(false));
        let r = Arc::clone(&ran);
        x.launch_host_fn(move || r.store(true, Ordering::SeqCst))?;
        abort_by_a_timed_scope_on_another_thread(ctx, &x)?;
        let first = x.synchronize();
        assert!(matches!(first, Err(aclrt::Error::WorkAborted)), "{first:?}");
        assert!(!ran.load(Ordering::SeqCst), "discarded, never run");
        // Reported once; the stream works afterwards.
        x.synchronize()?;
        let again = Arc::new(AtomicBool::new(false));
        let a = Arc::clone(&again);
        x.launch_host_fn(move || a.store(true, Ordering::SeqCst))?;
        x.synchronize()?;
        assert!(again.load(Ordering::SeqCst));
        gate.open();
        w.synchronize()?;
        drop(held);
        drop((w, x));
        Ok(())
    })
}

/// Report callbacks launched on a stream that another thread's timed scope
/// aborts are thrown away; the stream's next synchronisation says so
/// (`WorkAborted`, once) — `Ok(())` before the fix.
#[test]
fn report_callbacks_discarded_by_another_threads_escalation_are_reported() -> Result<()> {
    in_host_context(|ctx| {
        let (w, x) = (ctx.create_stream()?, ctx.create_stream()?);
        let reporter = Reporter::spawn()?;
        let sub = reporter.subscribe(&x)?;
        let (gate, held) = hold_on_a_wait(ctx, &w, &x)?;
        let ran = Arc::new(AtomicU32::new(0));
        for block in [false, true] {
            let r = Arc::clone(&ran);
            let f = move || {
                r.fetch_add(1, Ordering::SeqCst);
            };
            if block {
                sub.launch_blocking(f)?;
            } else {
                sub.launch(f)?;
            }
        }
        abort_by_a_timed_scope_on_another_thread(ctx, &x)?;
        let first = x.synchronize();
        assert!(matches!(first, Err(aclrt::Error::WorkAborted)), "{first:?}");
        // Reported once; callbacks launched now run.
        x.synchronize()?;
        assert_eq!(ran.load(Ordering::SeqCst), 0, "both discarded");
        sub.launch_blocking({
            let r = Arc::clone(&ran);
            move || {
                r.fetch_add(10, Ordering::SeqCst);
            }
        })?;
        x.synchronize()?;
        assert_eq!(ran.load(Ordering::SeqCst), 10);
        drop(sub);
        reporter.stop()?;
        gate.open();
        w.synchronize()?;
        drop(held);
        drop((w, x));
        Ok(())
    })
}

/// No false alarm: a timed scope that finishes in time, and report
/// callbacks that all ran before an escalation of the stream, leave the
/// next synchronisation `Ok`.
#[test]
fn callbacks_that_ran_before_an_escalation_are_not_reported() -> Result<()> {
    in_host_context(|ctx| {
        let (w, x) = (ctx.create_stream()?, ctx.create_stream()?);
        let reporter = Reporter::spawn()?;
        let sub = reporter.subscribe(&x)?;
        let ran = Arc::new(AtomicU32::new(0));
        let r = Arc::clone(&ran);
        sub.launch_blocking(move || {
            r.fetch_add(1, Ordering::SeqCst);
        })?;
        x.synchronize()?;
        assert_eq!(ran.load(Ordering::SeqCst), 1);
        let (gate, held) = hold_on_a_wait(ctx, &w, &x)?;
        abort_by_a_timed_scope_on_another_thread(ctx, &x)?;
        x.synchronize()?;
        drop(sub);
        reporter.stop()?;
        gate.open();
        w.synchronize()?;
        drop(held);
        drop((w, x));
        Ok(())
    })
}

// ------------------------------------------------------------ item 5: discarded records

/// An event recorded (outside any scope) on a stream that a timed scope's
/// escalation aborts before the record ran: typed `Recorded`, but its
/// record was discarded. Its queries say so (`WorkAborted`) instead of
/// `is_complete() == Ok(false)` for ever and an `elapsed_since` that
/// advises a synchronisation that cannot help; recorded again, it works.
#[test]
fn event_whose_record_an_escalation_discarded_says_so() -> Result<()> {
    in_host_context(|ctx| {
        let (w, x) = (ctx.create_stream()?, ctx.create_stream()?);
        let (gate, held) = hold_on_a_wait(ctx, &w, &x)?;
        let start = x.record(ctx.create_event()?)?;
        let end = x.record(ctx.create_event()?)?;
        assert!(!end.is_complete()?, "queued behind the held wait");
        abort_by_a_timed_scope_on_another_thread(ctx, &x)?;
        let done = end.is_complete();
        assert!(matches!(done, Err(aclrt::Error::WorkAborted)), "{done:?}");
        let elapsed = end.elapsed_since(&start);
        assert!(
            matches!(elapsed, Err(aclrt::Error::WorkAborted)),
            "{elapsed:?}"
        );
        let synced = end.synchronize_timeout(Duration::from_millis(50));
        assert!(
            matches!(synced, Err(aclrt::Error::WorkAborted)),
            "{synced:?}"
        );
        let synced = end.synchronize();
        assert!(
            matches!(synced, Err(aclrt::Error::WorkAborted)),
            "{synced:?}"
        );
        // Recorded again on the (now idle) stream, both work.
        let start = x.record(start)?;
        let end = x.record(end)?;
        x.synchronize()?;
        assert!(end.is_complete()?);
        assert!(end.elapsed_since(&start)? >= 0.0);
        // A record the escalation did not reach (another stream) is not
        // reported.
        let other = w.record(ctx.create_event()?)?;
        assert!(!other.is_complete()?, "w is held at the gate");
        gate.open();
        w.synchronize()?;
        assert!(other.is_complete()?);
        drop((held, start, end, other));
        drop((w, x));
        Ok(())
    })
}

// ------------------------------------------------------------ item 6: forgotten registrations

/// What a forgotten `HostRegistration` is (settled by the review): a
/// leak of the runtime's registration entry, not an access to freed
/// memory. `mem::forget` ends the borrow, so the owner may free the memory
/// while the runtime still lists it as registered; nothing can reach it
/// then: the scope that used it has synchronised (the registration was
/// borrowed by it), the device alias borrowed the registration, and no
/// further work can name it. The stale entry stays, leaked like any
/// forgotten handle: registering the same pages again is refused (507910),
/// the context, the device and the runtime cannot be released
/// (`LiveChildren`), and the audit lists the live registration; no rule
/// violation is recorded.
#[test]
#[allow(clippy::mem_forget)]
fn forgotten_registration_is_a_leak_of_the_runtime_entry() -> Result<()> {
    use aclrt::PageAlignedBuf;
    use aclrt::sim::ResourceKind;
    let _sim = take(host_config());
    let acl = Acl::init()?;
    let device = acl.require::<HostMode>()?.device(0)?;
    make_guard!(g);
    let ctx = device.create_context(g)?;
    let stream = ctx.create_stream()?;
    let mut dev = ctx.alloc::<f32>(1024)?;
    let mut buf = PageAlignedBuf::from_slice(&[2.5f32; 1024])?;
    let address = buf.as_ptr() as usize;
    // Allocated while `buf` lives, so not in its pages: pageable memory
    // that straddles the stale registration's edge is refused by a
    // synchronous copy (107000), which is documented, not tested here.
    let mut back = vec![0f32; 1024];
    {
        let reg = ctx.register_host(&mut buf)?;
        ctx.scope(|s| {
            make_guard!(l);
            let lane = s.lane(&stream, l);
            let _ = lane.copy(&reg, &mut dev)?;
            Ok(())
        })?;
        core::mem::forget(reg);
    }
    // The borrow ended: the owner frees the memory (it could not while the
    // registration lived). The runtime still lists the range.
    drop(buf);
    assert_eq!(live(&sim::audit(), ResourceKind::HostRegistration), 1);
    // The copy had finished before: the device holds the data, and no
    // access to the freed memory was recorded.
    ctx.download(&dev, &mut back)?;
    assert_eq!(back, vec![2.5f32; 1024]);
    // New memory at the same pages (if the allocator hands them out again)
    // cannot be registered while the stale entry stays.
    let mut again = PageAlignedBuf::<f32>::zeroed(1024)?;
    if again.as_ptr() as usize == address {
        let err = ctx.register_host(&mut again).unwrap_err();
        assert_eq!(err.code(), Some(507_910), "{err}");
    }
    drop(again);
    drop((dev, stream));
    // Leaked like any forgotten handle: the registration keeps its
    // context, the device and the runtime from being released.
    let destroyed = ctx.destroy();
    assert!(
        matches!(destroyed, Err(aclrt::Error::LiveChildren { live: 1, .. })),
        "{destroyed:?}"
    );
    let reset = device.reset();
    assert!(
        matches!(reset, Err(aclrt::Error::LiveChildren { .. })),
        "{reset:?}"
    );
    let finalized = acl.finalize();
    assert!(
        matches!(finalized, Err(aclrt::Error::LiveChildren { .. })),
        "{finalized:?}"
    );
    // The audit shows the stale entry (and what it keeps), and no rule
    // violation: nothing touched the freed memory.
    let audit = sim::audit();
    assert_eq!(live(&audit, ResourceKind::HostRegistration), 1, "{audit:?}");
    assert!(audit.violations.is_empty(), "{audit:?}");
    Ok(())
}
