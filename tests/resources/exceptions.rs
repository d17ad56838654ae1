//! Exception-info callbacks through the safe API, in both run modes: the
//! report's facts, the failure rule (a reported exception is a failure of
//! the stream it names, entered for it and forgotten with it), and the
//! attacks from safe code: a panicking handler, a forgotten or leaked
//! guard, another thread, re-entry from a handler (registering and
//! unregistering there, a wait refused there, dropping its own guard), a stream destroyed while its
//! exception may be reported, process exit with a handler registered.

use crate::common;

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use aclrt::sim;
use aclrt::{Acl, Context, Error, ErrorKind, ExceptionInfo, Result, RunMode, make_guard};
use common::*;

const FAULT: i32 = aclrt::sys::ACL_ERROR_RT_AICORE_EXCEPTION;

fn both_modes(f: &dyn Fn(&Acl, bool) -> Result<()>) {
    for (base, device_mode) in [(host_config(), false), (device_config(), true)] {
        let _sim = take(base);
        let acl = Acl::init().expect("aclInit");
        f(&acl, device_mode).expect("flow");
        acl.finalize().expect("aclFinalize");
        let audit = sim::audit();
        assert!(audit.leaks.is_empty(), "{device_mode}: {:?}", audit.leaks);
    }
}

fn with_ctx<M: RunMode>(
    acl: &Acl,
    f: impl for<'id> FnOnce(&Context<'_, 'id, M>) -> Result<()>,
) -> Result<()> {
    let device = acl.require::<M>()?.device(0)?;
    make_guard!(g);
    let ctx = device.create_context(g)?;
    f(&ctx)?;
    ctx.destroy()?;
    device.reset()
}

macro_rules! in_mode {
    ($acl:expr, $device_mode:expr, |$ctx:ident| $body:expr) => {
        if $device_mode {
            with_ctx::<aclrt::DeviceMode>($acl, |$ctx| $body)
        } else {
            with_ctx::<aclrt::HostMode>($acl, |$ctx| $body)
        }
    };
}

/// Wait (bounded: a hang guard) until `n` reports arrived in `seen`.
fn wait_for(seen: &Mutex<Vec<ExceptionInfo>>, n: usize) -> Vec<ExceptionInfo> {
    let t0 = Instant::now();
    loop {
        let v = seen.lock().unwrap().clone();
        if v.len() >= n {
            return v;
        }
        assert!(
            t0.elapsed() < Duration::from_secs(30),
            "{} of {n} reports",
            v.len()
        );
        std::thread::sleep(Duration::from_millis(2));
    }
}

/// Queue one failing task on `stream` (an unscoped host function whose
/// task the simulator fails with [`FAULT`]) and synchronise: the fault.
/// The host function never ran: the next synchronisation reports that
/// (`WorkAborted`), and the stream is clean after it.
fn fail_once(stream: &aclrt::Stream<'_, '_>) -> Error {
    sim::inject_stream_task_fault(stream.as_raw(), 1, FAULT);
    stream.launch_host_fn(|| ()).expect("launch");
    let e = stream.synchronize().expect_err("the injected fault");
    match stream.synchronize() {
        Ok(()) => {}
        Err(e) => assert!(matches!(e, Error::WorkAborted), "{e}"),
    }
    e
}

#[test]
fn a_failed_task_reaches_the_handler_with_its_facts() {
    both_modes(&|acl, device_mode| {
        let seen = Arc::new(Mutex::new(Vec::new()));
        let sink = seen.clone();
        let handler = acl.on_exception(move |info| sink.lock().unwrap().push(*info))?;
        in_mode!(acl, device_mode, |ctx| {
            let stream = ctx.create_stream()?;
            let other = ctx.create_stream()?;
            let e = fail_once(&stream);
            assert_eq!(e.code(), Some(FAULT), "{e}");
            let infos = wait_for(&seen, 1);
            assert_eq!(infos.len(), 1, "one failed task, one report");
            let info = infos[0];
            assert_eq!(info.device(), 0);
            assert_eq!(info.error_code(), FAULT);
            assert_eq!(info.error().code(), Some(FAULT));
            assert_eq!(info.kind(), ErrorKind::from_code(FAULT));
            assert_eq!(info.stream_id() as i32, stream.id()?);
            assert!(info.names(&stream), "it names its stream");
            assert!(!info.names(&other), "and no other");
            assert!(info.entered(), "a stream the crate made: entered");
            assert_ne!(info.task_id(), u32::MAX);
            // The stream is clean after its synchronisation reported it.
            stream.launch_host_fn(|| ())?;
            stream.synchronize()?;
            assert_eq!(seen.lock().unwrap().len(), 1);
            other.destroy()?;
            stream.destroy()
        })?;
        handler.unregister()
    });
}

#[test]
fn no_report_after_unregistration_and_two_handlers_both_hear() {
    both_modes(&|acl, device_mode| {
        let a = Arc::new(AtomicUsize::new(0));
        let b = Arc::new(Mutex::new(Vec::new()));
        let (a2, b2) = (a.clone(), b.clone());
        let ha = acl.on_exception(move |_| {
            a2.fetch_add(1, Ordering::SeqCst);
        })?;
        let hb = acl.on_exception(move |i| b2.lock().unwrap().push(*i))?;
        in_mode!(acl, device_mode, |ctx| {
            let stream = ctx.create_stream()?;
            fail_once(&stream);
            wait_for(&b, 1);
            assert_eq!(a.load(Ordering::SeqCst), 1);
            drop(ha);
            fail_once(&stream);
            wait_for(&b, 2);
            assert_eq!(a.load(Ordering::SeqCst), 1, "a dropped handler ran");
            hb.unregister()?;
            fail_once(&stream);
            // Give a wrong report time to arrive.
            std::thread::sleep(Duration::from_millis(50));
            assert_eq!(b.lock().unwrap().len(), 2, "an unregistered handler ran");
            stream.destroy()
        })
    });
}

#[test]
fn a_panicking_handler_is_contained_and_its_panic_resumed_by_unregister() {
    both_modes(&|acl, device_mode| {
        let calls = Arc::new(AtomicUsize::new(0));
        let c2 = calls.clone();
        let handler = acl.on_exception(move |_| {
            c2.fetch_add(1, Ordering::SeqCst);
            panic!("handler boom");
        })?;
        in_mode!(acl, device_mode, |ctx| {
            let stream = ctx.create_stream()?;
            // Twice: the runtime's thread survived the first panic.
            for n in 1..=2 {
                let e = fail_once(&stream);
                assert_eq!(e.code(), Some(FAULT));
                let t0 = Instant::now();
                while calls.load(Ordering::SeqCst) < n {
                    assert!(t0.elapsed() < Duration::from_secs(30));
                    std::thread::sleep(Duration::from_millis(2));
                }
            }
            stream.launch_host_fn(|| ())?;
            stream.synchronize()?;
            stream.destroy()
        })?;
        let r = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| handler.unregister()));
        let p = r.expect_err("the handler's panic is resumed");
        assert_eq!(p.downcast_ref::<&str>(), Some(&"handler boom"));
        Ok(())
    });
}

#[test]
fn a_forgotten_guard_leaves_the_closure_alive_and_registered() {
    both_modes(&|acl, device_mode| {
        let calls = Arc::new(AtomicUsize::new(0));
        let c2 = calls.clone();
        // The closure is the crate's from now on: forgetting the guard
        // leaks it (it keeps running), never frees it under the runtime.
        core::mem::forget(acl.on_exception(move |_| {
            c2.fetch_add(1, Ordering::SeqCst);
        })?);
        assert_eq!(Arc::strong_count(&calls), 2, "the closure is alive");
        in_mode!(acl, device_mode, |ctx| {
            let stream = ctx.create_stream()?;
            let before = calls.load(Ordering::SeqCst);
            fail_once(&stream);
            let t0 = Instant::now();
            while calls.load(Ordering::SeqCst) == before {
                assert!(t0.elapsed() < Duration::from_secs(30));
                std::thread::sleep(Duration::from_millis(2));
            }
            stream.destroy()
        })
    });
}

#[test]
fn handlers_come_and_go_on_other_threads_while_reports_run() {
    both_modes(&|acl, device_mode| {
        let total = Arc::new(AtomicUsize::new(0));
        in_mode!(acl, device_mode, |ctx| {
            let stream = ctx.create_stream()?;
            std::thread::scope(|t| {
                for _ in 0..3 {
                    let total = total.clone();
                    t.spawn(move || {
                        for _ in 0..20 {
                            let live = Arc::new(AtomicUsize::new(0));
                            let l2 = live.clone();
                            let h = acl
                                .on_exception(move |_| {
                                    l2.fetch_add(1, Ordering::SeqCst);
                                    std::thread::sleep(Duration::from_micros(200));
                                })
                                .expect("register");
                            std::thread::sleep(Duration::from_micros(300));
                            h.unregister().expect("unregister");
                            // Unregistered and waited for: the closure is
                            // dropped, and runs no more.
                            assert_eq!(Arc::strong_count(&live), 1);
                            let n = live.load(Ordering::SeqCst);
                            std::thread::sleep(Duration::from_micros(300));
                            assert_eq!(live.load(Ordering::SeqCst), n);
                            total.fetch_add(n, Ordering::SeqCst);
                        }
                    });
                }
                for _ in 0..20 {
                    let _ = fail_once(&stream);
                }
            });
            stream.destroy()
        })
    });
}

#[test]
fn a_destroyed_streams_report_leaves_nothing_in_the_books() {
    both_modes(&|acl, device_mode| {
        let seen = Arc::new(Mutex::new(Vec::new()));
        let sink = seen.clone();
        let handler = acl.on_exception(move |i| sink.lock().unwrap().push(*i))?;
        in_mode!(acl, device_mode, |ctx| {
            for round in 0..20 {
                let stream = ctx.create_stream()?;
                let raw = stream.as_raw();
                sim::inject_stream_task_fault(raw, 1, FAULT);
                stream.launch_host_fn(|| ())?;
                // Destroyed while its report may be on its way: either the
                // report resolves first (and the destruction waits for it,
                // then forgets the failure) or it finds no record.
                let _ = stream.destroy();
                wait_for(&seen, round + 1);
                assert_eq!(
                    aclrt::__books::entries_of(raw),
                    0,
                    "round {round}: a destroyed stream's failure stayed in the books"
                );
            }
            Ok(())
        })?;
        handler.unregister()
    });
}

// ------------------------------------------------------- process exit ---

/// Run in a child process by [`the_process_may_exit_with_handlers`]:
/// handlers registered and unregistered from inside a handler (re-entry),
/// a handler dropping its own guard from inside itself, then exit with a
/// handler registered and a report possibly running. Without its variable
/// it passes at once (the suite keeps 0 ignored tests).
#[test]
fn exit_with_handlers_child() {
    if std::env::var_os("ACLRT_TEST_EXIT_WITH_HANDLERS").is_none() {
        return;
    }
    let device_mode = std::env::var("ACLRT_SIM_RUN_MODE").as_deref() == Ok("device");
    let _sim = take(if device_mode {
        device_config()
    } else {
        host_config()
    });
    let acl: &'static Acl = Box::leak(Box::new(Acl::init().expect("aclInit")));
    static OWN: Mutex<Option<aclrt::ExceptionHandler<'static>>> = Mutex::new(None);
    let inner_ran = Arc::new(AtomicUsize::new(0));
    let ir = inner_ran.clone();
    let own = acl
        .on_exception(move |_| {
            // Re-entry: register and unregister from inside a handler.
            let ir = ir.clone();
            let inner = acl
                .on_exception(move |_| {
                    ir.fetch_add(1, Ordering::SeqCst);
                })
                .expect("register inside a handler");
            inner.unregister().expect("unregister inside a handler");
            // A wait for the device is refused on the report's thread.
            let r = if device_mode {
                acl.require::<aclrt::DeviceMode>()
                    .and_then(|m| m.device(0))
                    .and_then(|d| d.synchronize())
            } else {
                acl.require::<aclrt::HostMode>()
                    .and_then(|m| m.device(0))
                    .and_then(|d| d.synchronize())
            };
            match r {
                Err(Error::InCallback { .. }) => println!("child: wait refused"),
                other => println!("child: wait answered {other:?}"),
            }
            // Drop this handler's own guard from inside it (not waited for).
            drop(OWN.lock().unwrap().take());
            println!("child: re-entered");
        })
        .expect("register");
    *OWN.lock().unwrap() = Some(own);
    let flow = || -> Result<()> {
        in_mode!(acl, device_mode, |ctx| {
            let stream = ctx.create_stream()?;
            let _ = fail_once(&stream);
            let t0 = Instant::now();
            while OWN.lock().unwrap().is_some() {
                assert!(t0.elapsed() < Duration::from_secs(30));
                std::thread::sleep(Duration::from_millis(2));
            }
            // A handler left registered, a failing task queued: exit.
            std::mem::forget(acl.on_exception(|_| println!("child: late report"))?);
            sim::inject_stream_task_fault(stream.as_raw(), 1, FAULT);
            stream.launch_host_fn(|| ())?;
            println!("child: exiting");
            std::process::exit(0);
        })
    };
    flow().expect("flow");
}

#[test]
fn the_process_may_exit_with_handlers() {
    let exe = std::env::current_exe().expect("the test binary's path");
    for mode in ["host", "device"] {
        let mut child = std::process::Command::new(&exe)
            .args([
                test_name(module_path!(), "exit_with_handlers_child").as_str(),
                "--exact",
                "--nocapture",
                "--test-threads=1",
            ])
            .env("ACLRT_TEST_EXIT_WITH_HANDLERS", "1")
            .env("ACLRT_SIM_RUN_MODE", mode)
            .env_remove("ACLRT_SIM_ERROR_EXITCODE")
            .stdout(std::process::Stdio::piped())
            .stderr(std::process::Stdio::piped())
            .spawn()
            .expect("the test binary runs");
        // Hang guard, not a bound on the property under test.
        let t0 = Instant::now();
        while child.try_wait().expect("the child's status").is_none() {
            if t0.elapsed() > Duration::from_secs(60) {
                let _ = child.kill();
                panic!("{mode}: the child hangs");
            }
            std::thread::sleep(Duration::from_millis(20));
        }
        let out = child.wait_with_output().expect("the child's output");
        let stdout = String::from_utf8_lossy(&out.stdout);
        assert!(
            out.status.success(),
            "{mode}: {}\n{stdout}\n{}",
            out.status,
            String::from_utf8_lossy(&out.stderr)
        );
        assert!(stdout.contains("child: re-entered"), "{mode}: {stdout}");
        assert!(stdout.contains("child: wait refused"), "{mode}: {stdout}");
        assert!(stdout.contains("child: exiting"), "{mode}: {stdout}");
    }
}

// ------------------------------------------------- overflow detection ---

#[test]
fn a_streams_overflow_switch_per_chip() {
    for soc in [sim::Soc::Ascend910B, sim::Soc::Ascend310P] {
        for (base, device_mode) in [(host_config(), false), (device_config(), true)] {
            let _sim = take(sim::SimConfig { soc, ..base });
            let acl = Acl::init().expect("aclInit");
            in_mode!(&acl, device_mode, |ctx| {
                let stream = ctx.create_stream()?;
                let stars = soc == sim::Soc::Ascend910B;
                assert_eq!(stream.overflow_detection()?, !stars, "{soc:?}: default");
                stream.set_overflow_detection(true)?;
                assert!(stream.overflow_detection()?, "{soc:?}: on");
                stream.set_overflow_detection(false)?;
                // Chips without the per-stream switch keep detecting.
                assert_eq!(stream.overflow_detection()?, !stars, "{soc:?}: off");
                stream.destroy()
            })
            .expect("flow");
            acl.finalize().expect("aclFinalize");
            sim::audit().assert_clean();
        }
    }
}

// ------------------------------------------------------------- stop ---

#[test]
fn stopping_a_stream_is_not_supported_by_the_modelled_chips_and_leaves_it_usable() {
    for soc in [sim::Soc::Ascend910B, sim::Soc::Ascend310P] {
        for (base, device_mode) in [(host_config(), false), (device_config(), true)] {
            let _sim = take(sim::SimConfig { soc, ..base });
            let acl = Acl::init().expect("aclInit");
            in_mode!(&acl, device_mode, |ctx| {
                let mut stream = ctx.create_stream()?;
                stream.launch_host_fn(|| ())?;
                let e = stream
                    .stop()
                    .expect_err("the modelled firmware cannot stop");
                assert_eq!(e.kind(), ErrorKind::NotSupported, "{soc:?}: {e}");
                // Refused: nothing was discarded, nothing is reported.
                let ran = Arc::new(AtomicUsize::new(0));
                let r2 = ran.clone();
                stream.launch_host_fn(move || {
                    r2.fetch_add(1, Ordering::SeqCst);
                })?;
                stream.synchronize()?;
                assert_eq!(ran.load(Ordering::SeqCst), 1);
                stream.destroy()
            })
            .expect("flow");
            acl.finalize().expect("aclFinalize");
            let audit = sim::audit();
            assert!(audit.leaks.is_empty());
            assert!(
                audit
                    .violations
                    .iter()
                    .all(|v| v.kind == sim::ViolationKind::Unsupported),
                "{:?}",
                audit.violations
            );
        }
    }
}

// ------------------------------------------------- value write / wait ---

/// Lane b waits for the slot to equal 5, then copies; lane a (held back by
/// a stream delay) writes 5. After the scope the copy is done and the slot
/// reads 5. The 310P has no value waits: 207000 when queued.
#[test]
fn a_value_wait_orders_two_lanes_and_the_310p_has_none() {
    for soc in [sim::Soc::Ascend910B, sim::Soc::Ascend310P] {
        for (base, device_mode) in [(host_config(), false), (device_config(), true)] {
            let _sim = take(sim::SimConfig { soc, ..base });
            let acl = Acl::init().expect("aclInit");
            in_mode!(&acl, device_mode, |ctx| {
                let a = ctx.create_stream()?;
                let b = ctx.create_stream()?;
                let mut slot = ctx.value_slot(0)?;
                let mut d = ctx.alloc::<u8>(64)?;
                ctx.memset(&mut d, 0)?;
                sim::set_stream_delay(a.as_raw(), Duration::from_millis(20));
                let a_before_write = std::sync::atomic::AtomicBool::new(false);
                let b_saw_it = std::sync::atomic::AtomicBool::new(false);
                let r = ctx.scope(|s| {
                    s.with_lane(&a, |la| {
                        s.with_lane(&b, |lb| {
                            lb.value_wait(&slot, 5, aclrt::ValueWait::Equal)?;
                            lb.host_fn(|| {
                                b_saw_it
                                    .store(a_before_write.load(Ordering::SeqCst), Ordering::SeqCst)
                            })?;
                            let _x = lb.memset(&mut d, 7)?;
                            la.host_fn(|| a_before_write.store(true, Ordering::SeqCst))?;
                            la.value_write(&slot, 5)
                        })
                    })
                });
                if soc == sim::Soc::Ascend910B {
                    r?;
                    assert!(
                        b_saw_it.load(Ordering::SeqCst),
                        "lane b's work ran before lane a's write"
                    );
                    assert_eq!(ctx.read_value(&mut slot)?, 5);
                    let mut host = [0u8; 64];
                    ctx.copy(&d, &mut host)?;
                    assert!(host.iter().all(|&v| v == 7));
                    ctx.write_value(&mut slot, 9)?;
                    assert_eq!(ctx.read_value(&mut slot)?, 9);
                } else {
                    let e = r.expect_err("the 310P has no value waits");
                    assert_eq!(e.kind(), ErrorKind::NotSupported, "{e}");
                }
                drop(slot);
                drop(d);
                b.destroy()?;
                a.destroy()
            })
            .expect("flow");
            acl.finalize().expect("aclFinalize");
            let audit = sim::audit();
            assert!(audit.leaks.is_empty(), "{:?}", audit.leaks);
        }
    }
}
