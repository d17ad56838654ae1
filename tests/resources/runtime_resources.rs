//! Host functions served by a thread the program owns, device information
//! and control, and stream attributes, through the safe API in both run
//! modes; and the attacks on them from safe code (a panic in a host
//! function or in the serving closure, work left unserved, another thread,
//! a synchronisation from the serving thread, re-subscription).

use crate::common;

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, mpsc};
use std::time::Duration;

use aclrt::sim::{self, HostFuncThreads, SimConfig, ViolationKind};
use aclrt::{
    Acl, Context, DeviceAttr, DeviceFeature, DeviceStatus, Error, ErrorKind, Processed,
    ResourceLimit, Result, RunMode, SaturationMode, StreamFlags, make_guard,
};
use common::*;

fn compact(mut c: SimConfig) -> SimConfig {
    c.host_func_threads = HostFuncThreads::Compact;
    c
}

/// Runs `f` on a context of device 0 in both run modes, with `config`
/// applied to each mode's settings; finalises and hands back the audit.
fn both_modes(
    config: impl Fn(SimConfig) -> SimConfig,
    f: &dyn Fn(&Acl, bool) -> Result<()>,
    check: impl Fn(&sim::Audit, bool),
) {
    for (base, device_mode) in [(host_config(), false), (device_config(), true)] {
        let _sim = take(config(base));
        let acl = Acl::init().expect("aclInit");
        f(&acl, device_mode).expect("flow");
        acl.finalize().expect("aclFinalize");
        check(&sim::audit(), device_mode);
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

fn clean(audit: &sim::Audit, device_mode: bool) {
    audit.assert_clean();
    let _ = device_mode;
}

/// The only violations are the `UNSUPPORTED` reports of the host-function
/// threads (the modelled chips do not offer them), `n` of them.
fn only_unsupported(n: usize) -> impl Fn(&sim::Audit, bool) {
    move |audit, device_mode| {
        assert!(audit.leaks.is_empty(), "{device_mode}: {:?}", audit.leaks);
        let kinds = violation_kinds(audit);
        assert_eq!(
            kinds,
            vec![ViolationKind::Unsupported; n],
            "device mode {device_mode}"
        );
    }
}

// ------------------------------------------------ host-function threads ---

#[test]
fn by_default_the_chips_answer_not_supported_and_the_closure_never_runs() {
    both_modes(
        |c| c,
        &|acl, device_mode| {
            in_mode!(acl, device_mode, |ctx| {
                let stream = ctx.create_stream()?;
                let ran = AtomicUsize::new(0);
                let err = stream
                    .serve_host_fns(|_| ran.fetch_add(1, Ordering::SeqCst))
                    .unwrap_err();
                assert_eq!(err.kind(), ErrorKind::NotSupported, "{err}");
                assert!(matches!(err, Error::Acl { code: 207000, .. }), "{err:?}");
                assert_eq!(ran.load(Ordering::SeqCst), 0);
                // Host functions still run, on the runtime's thread.
                let (tx, rx) = mpsc::channel();
                stream.launch_host_fn(move || tx.send(std::thread::current().id()).unwrap())?;
                stream.synchronize()?;
                assert_ne!(rx.recv().unwrap(), std::thread::current().id());
                stream.destroy()
            })
        },
        only_unsupported(1),
    );
}

#[test]
fn host_functions_run_in_order_on_the_serving_thread() {
    both_modes(
        compact,
        &|acl, device_mode| {
            in_mode!(acl, device_mode, |ctx| {
                let stream = ctx.create_stream()?;
                let order = Arc::new(std::sync::Mutex::new(Vec::new()));
                let served = std::thread::scope(|scope| {
                    stream.serve_host_fns(|server| {
                        let me = std::thread::current().id();
                        let launcher = scope.spawn(|| -> Result<()> {
                            for i in 0..5 {
                                let order = Arc::clone(&order);
                                stream.launch_host_fn(move || {
                                    order.lock().unwrap().push((i, std::thread::current().id()));
                                })?;
                            }
                            Ok(())
                        });
                        let mut ran = 0;
                        while ran < 5 {
                            if server.process(Duration::from_millis(20))? == Processed::Ran {
                                ran += 1;
                            }
                        }
                        launcher.join().unwrap()?;
                        // Nothing more is queued: the wait times out.
                        assert_eq!(
                            server.process(Duration::from_millis(5))?,
                            Processed::TimedOut
                        );
                        Ok::<_, Error>((ran, me))
                    })
                })??;
                stream.synchronize()?;
                let order = order.lock().unwrap();
                assert_eq!(
                    order.iter().map(|(i, _)| *i).collect::<Vec<_>>(),
                    vec![0, 1, 2, 3, 4]
                );
                assert!(order.iter().all(|(_, t)| *t == served.1));
                assert_eq!(served.0, 5);
                stream.destroy()
            })
        },
        only_unsupported(1),
    );
}

#[test]
fn a_panicking_host_function_fails_the_streams_work_not_the_server() {
    both_modes(
        compact,
        &|acl, device_mode| {
            in_mode!(acl, device_mode, |ctx| {
                let stream = ctx.create_stream()?;
                let after = Arc::new(AtomicUsize::new(0));
                stream.serve_host_fns(|server| -> Result<()> {
                    stream.launch_host_fn(|| panic!("host function failed"))?;
                    let a = Arc::clone(&after);
                    stream.launch_host_fn(move || {
                        a.fetch_add(1, Ordering::SeqCst);
                    })?;
                    // The panic is caught on this thread: processing goes on.
                    let ran = server.serve_until(Duration::from_millis(10), || {
                        after.load(Ordering::SeqCst) == 1
                    })?;
                    assert_eq!(ran, 2);
                    Ok(())
                })??;
                // The failure belongs to the stream's work: its next
                // synchronisation resumes the panic.
                let caught =
                    std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| stream.synchronize()))
                        .unwrap_err();
                assert_eq!(panic_message(&*caught), "host function failed");
                stream.synchronize()?;
                stream.destroy()
            })
        },
        only_unsupported(1),
    );
}

#[test]
fn the_serving_thread_cannot_synchronise_the_stream_it_serves() {
    both_modes(
        compact,
        &|acl, device_mode| {
            in_mode!(acl, device_mode, |ctx| {
                let stream = ctx.create_stream()?;
                let other = ctx.create_stream()?;
                stream.serve_host_fns(|server| -> Result<()> {
                    stream.launch_host_fn(|| {})?;
                    // Would wait for a host function only this thread runs.
                    let err = stream.synchronize().unwrap_err();
                    assert!(matches!(err, Error::InCallback { .. }), "{err:?}");
                    // Another stream is not served here: allowed.
                    other.synchronize()?;
                    while server.process(Duration::from_millis(10))? != Processed::Ran {}
                    Ok(())
                })??;
                stream.synchronize()?;
                other.destroy()?;
                stream.destroy()
            })
        },
        only_unsupported(1),
    );
}

#[test]
fn a_panic_in_the_serving_closure_unsubscribes_and_unserved_work_still_runs() {
    both_modes(
        compact,
        &|acl, device_mode| {
            in_mode!(acl, device_mode, |ctx| {
                let stream = ctx.create_stream()?;
                let ran_on = Arc::new(std::sync::Mutex::new(None));
                let r = Arc::clone(&ran_on);
                let caught = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
                    stream.serve_host_fns(|_server| {
                        // Queued while subscribed, never processed here.
                        stream
                            .launch_host_fn(move || {
                                *r.lock().unwrap() = Some(std::thread::current().id());
                            })
                            .unwrap();
                        panic!("closure failed");
                    })
                }))
                .unwrap_err();
                assert_eq!(panic_message(&*caught), "closure failed");
                // Unsubscribed by the unwinding: the host function is not
                // lost (the unsubscription ran it on this thread if it was
                // due, else the runtime's own thread did afterwards).
                stream.synchronize()?;
                assert!(ran_on.lock().unwrap().is_some(), "the host function ran");
                // The stream can be served again, and a panic in the closure
                // did not leave this thread marked as serving it.
                stream.serve_host_fns(|_| ())?;
                stream.synchronize()?;
                stream.destroy()
            })
        },
        only_unsupported(2),
    );
}

#[test]
fn a_host_function_cannot_start_serving_nor_synchronise() {
    both_modes(
        compact,
        &|acl, device_mode| {
            in_mode!(acl, device_mode, |ctx| {
                let stream = ctx.create_stream()?;
                let other = ctx.create_stream()?;
                let refused = std::sync::Mutex::new(Vec::new());
                ctx.scope(|s| {
                    make_guard!(l);
                    let lane = s.lane(&stream, l);
                    // Re-entering from a host function: serving (it would
                    // subscribe the runtime's callback thread) is refused.
                    lane.host_fn(|| {
                        refused
                            .lock()
                            .unwrap()
                            .push(other.serve_host_fns(|_| ()).unwrap_err());
                    })?;
                    Ok(())
                })?;
                let refused = refused.into_inner().unwrap();
                assert_eq!(refused.len(), 1);
                assert!(
                    matches!(refused[0], Error::InCallback { .. }),
                    "{:?}",
                    refused[0]
                );
                other.destroy()?;
                stream.destroy()
            })
        },
        clean,
    );
}

#[test]
fn a_stream_is_served_by_one_thread_at_a_time() {
    both_modes(
        compact,
        &|acl, device_mode| {
            in_mode!(acl, device_mode, |ctx| {
                let stream = ctx.create_stream()?;
                stream.serve_host_fns(|_| -> Result<()> {
                    // Another thread subscribing the same stream: the
                    // runtime's refusal, typed.
                    let err = std::thread::scope(|s| {
                        s.spawn(|| stream.serve_host_fns(|_| ())).join().unwrap()
                    })
                    .unwrap_err();
                    assert!(matches!(err, Error::Acl { .. }), "{err:?}");
                    Ok(())
                })??;
                stream.destroy()
            })
        },
        // Both subscriptions are reported (the second one then refused by
        // the runtime's own rule, which is not a violation).
        |audit, device_mode| {
            assert!(audit.leaks.is_empty());
            let kinds = violation_kinds(audit);
            assert!(
                !kinds.is_empty() && kinds.iter().all(|k| *k == ViolationKind::Unsupported),
                "{device_mode}: {kinds:?}"
            );
        },
    );
}

// ------------------------------------------ device information and control ---

#[test]
fn device_information_status_and_utilisation() {
    both_modes(
        |c| c,
        &|acl, device_mode| {
            in_mode!(acl, device_mode, |ctx| {
                let _ = ctx;
                Ok(())
            })?;
            let check = |cores: i64, mem: i64| {
                assert!(cores > 0 && mem > 0, "{cores} {mem}");
            };
            if device_mode {
                let device = acl.require::<aclrt::DeviceMode>()?.device(0)?;
                check(
                    device.info(DeviceAttr::AICORE_CORES)?,
                    device.info(DeviceAttr::TOTAL_GLOBAL_MEMORY)?,
                );
                device.reset()
            } else {
                let device = acl.require::<aclrt::HostMode>()?.device(0)?;
                let cores = device.info(DeviceAttr::AICORE_CORES)?;
                let mem = device.info(DeviceAttr::TOTAL_GLOBAL_MEMORY)?;
                check(cores, mem);
                assert_eq!(mem as usize, device.memory_info()?.total);
                assert_eq!(device.status()?, DeviceStatus::Normal);
                let u = device.utilization()?;
                assert!(u.cube.is_none_or(|p| p <= 100));
                assert_eq!(device.capability(DeviceFeature::TASK_UPDATE)?, 1);
                // An attribute the runtime does not know: its error, typed.
                let err = device.info(DeviceAttr::from_raw(9999)).unwrap_err();
                assert_eq!(err.kind(), ErrorKind::InvalidParam, "{err}");
                device.reset()
            }
        },
        clean,
    );
}

#[test]
fn resource_limits_per_device_and_per_stream_and_the_saturation_mode() {
    both_modes(
        |c| c,
        &|acl, device_mode| {
            in_mode!(acl, device_mode, |ctx| {
                let stream = ctx.create_stream()?;
                let id = stream.id()?;
                assert!(id >= 0);
                assert_ne!(ctx.create_stream()?.id()?, id);
                assert_eq!(stream.flags()?, StreamFlags::NONE);
                // The simulator does not model per-stream limits: the
                // answer of a chip without the feature, typed.
                let err = stream
                    .resource_limit(ResourceLimit::VectorCores)
                    .unwrap_err();
                assert_eq!(err.kind(), ErrorKind::NotSupported, "{err}");
                stream.destroy()
            })?;
            let device = acl.require::<aclrt::HostMode>();
            if device_mode {
                assert!(device.is_err());
                return Ok(());
            }
            let device = device?.device(0)?;
            let whole = device.resource_limit(ResourceLimit::CubeCores)?;
            assert!(whole > 0);
            device.set_resource_limit(ResourceLimit::CubeCores, whole / 2)?;
            assert_eq!(device.resource_limit(ResourceLimit::CubeCores)?, whole / 2);
            let err = device
                .set_resource_limit(ResourceLimit::CubeCores, whole + 1)
                .unwrap_err();
            assert_eq!(err.kind(), ErrorKind::InvalidParam, "{err}");
            device.reset_resource_limits()?;
            assert_eq!(device.resource_limit(ResourceLimit::CubeCores)?, whole);
            device.set_saturation_mode(SaturationMode::InfNan)?;
            assert_eq!(device.saturation_mode()?, SaturationMode::InfNan);
            device.set_saturation_mode(SaturationMode::Saturation)?;
            assert_eq!(device.saturation_mode()?, SaturationMode::Saturation);
            device.reset()
        },
        only_unsupported(1),
    );
}

// ------------------------------------------------------- process exit ---

/// Run in a child process by
/// [`the_process_may_exit_while_a_thread_serves_a_stream`]: exits from
/// inside the serving closure, with a host function queued and another
/// running nothing, the stream still subscribed. Without its variable it
/// passes at once (no `#[ignore]`: the suite keeps 0 ignored tests).
#[test]
fn exit_while_serving_child() {
    if std::env::var_os("ACLRT_TEST_EXIT_WHILE_SERVING").is_none() {
        return;
    }
    let device_mode = std::env::var("ACLRT_SIM_RUN_MODE").as_deref() == Ok("device");
    let _sim = take(compact(if device_mode {
        device_config()
    } else {
        host_config()
    }));
    let acl = Acl::init().expect("aclInit");
    let flow = |acl: &Acl| -> Result<()> {
        in_mode!(acl, device_mode, |ctx| {
            let stream = ctx.create_stream()?;
            stream.serve_host_fns(|server| -> Result<()> {
                stream.launch_host_fn(|| println!("child: served"))?;
                while server.process(Duration::from_millis(10))? != Processed::Ran {}
                stream.launch_host_fn(|| println!("child: never served"))?;
                println!("child: exiting while serving");
                std::process::exit(0);
            })??;
            unreachable!("the process exited")
        })
    };
    flow(&acl).expect("flow");
}

#[test]
fn the_process_may_exit_while_a_thread_serves_a_stream() {
    let exe = std::env::current_exe().expect("the test binary's path");
    for mode in ["host", "device"] {
        let mut child = std::process::Command::new(&exe)
            .args([
                test_name(module_path!(), "exit_while_serving_child").as_str(),
                "--exact",
                "--nocapture",
                "--test-threads=1",
            ])
            .env("ACLRT_TEST_EXIT_WHILE_SERVING", "1")
            .env("ACLRT_SIM_RUN_MODE", mode)
            .env_remove("ACLRT_SIM_ERROR_EXITCODE")
            .stdout(std::process::Stdio::piped())
            .stderr(std::process::Stdio::piped())
            .spawn()
            .expect("the test binary runs");
        // Hang guard, not a bound on the property under test.
        let t0 = std::time::Instant::now();
        while child.try_wait().expect("the child's status").is_none() {
            if t0.elapsed() > Duration::from_secs(60) {
                let _ = child.kill();
                panic!("{mode}: the child hangs at exit");
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
        assert!(stdout.contains("child: served"), "{mode}: {stdout}");
        assert!(
            stdout.contains("child: exiting while serving"),
            "{mode}: {stdout}"
        );
    }
}
