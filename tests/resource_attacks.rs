//! An independent review's attacks on the runtime resources of the safe API
//! (virtual memory, IPC memory, notifies, host-function threads, exception
//! handlers, value slots, device information and stream control), from safe
//! code only, in both run modes. Each attack asserts the typed outcome the
//! crate promises; one that may hang runs in a child process with a hang
//! guard, so that a regression fails the test instead of hanging the suite.

mod common;

use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use aclrt::sim::{self, HostFuncThreads, SimConfig};
use aclrt::{Acl, Context, Result, RunMode, make_guard};
use common::*;

fn compact(mut c: SimConfig) -> SimConfig {
    c.host_func_threads = HostFuncThreads::Compact;
    c
}

fn mode_config(device_mode: bool) -> SimConfig {
    if device_mode {
        device_config()
    } else {
        host_config()
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

// ------------------------------------------------------------ children ---

/// The attacks that may hang or end the process, run in a child process
/// by [`run_child`]: which one its variable says. Without it, it passes at
/// once (the suite keeps 0 ignored tests).
#[test]
fn attack_child() {
    let Some(attack) = std::env::var_os("ACLRT_TEST_RESOURCE_ATTACK") else {
        return;
    };
    let attack = attack.into_string().expect("an attack's name");
    let device_mode = std::env::var("ACLRT_SIM_RUN_MODE").as_deref() == Ok("device");
    let _sim = take(compact(mode_config(device_mode)));
    let acl = Acl::init().expect("aclInit");
    let flow = |acl: &Acl| -> Result<()> {
        in_mode!(acl, device_mode, |ctx| child_flow(&attack, ctx))
    };
    flow(&acl).expect("flow");
    acl.finalize().expect("aclFinalize");
    // The subscription is reported as a feature the modelled chips lack
    // (one report per subscription); nothing else.
    let audit = sim::audit();
    assert!(audit.leaks.is_empty(), "{:?}", audit.leaks);
    for kind in violation_kinds(&audit) {
        assert_eq!(kind, sim::ViolationKind::Unsupported, "{:?}", audit.violations);
    }
    println!("child: clean end");
}

fn child_flow<M: RunMode>(attack: &str, ctx: &Context<'_, '_, M>) -> Result<()> {
    let stream = ctx.create_stream()?;
    let other = ctx.create_stream()?;
    match attack {
        // Waits that only the serving thread could end, from that thread:
        // the thread serves while it waits, so each ends, with the host
        // function run on it.
        "serve_then_context_sync" => {
            stream.serve_host_fns(|_server| -> Result<()> {
                let me = std::thread::current().id();
                let (tx, rx) = std::sync::mpsc::channel();
                stream.launch_host_fn(move || tx.send(std::thread::current().id()).unwrap())?;
                ctx.synchronize()?;
                assert_eq!(rx.try_recv().expect("the host function ran"), me);
                println!("child: served while synchronising");
                Ok(())
            })??;
        }
        "serve_then_event_sync" => {
            stream.serve_host_fns(|_server| -> Result<()> {
                let me = std::thread::current().id();
                let (tx, rx) = std::sync::mpsc::channel();
                stream.launch_host_fn(move || tx.send(std::thread::current().id()).unwrap())?;
                let ev = stream.record(ctx.create_event()?)?;
                ev.synchronize()?;
                assert_eq!(rx.try_recv().expect("the host function ran"), me);
                // Dropping a recorded event synchronises it too.
                stream.launch_host_fn(|| println!("child: second host fn"))?;
                let ev = stream.record(ev)?;
                drop(ev);
                println!("child: served while synchronising");
                Ok(())
            })??;
        }
        "serve_then_other_stream_sync" => {
            stream.serve_host_fns(|_server| -> Result<()> {
                let me = std::thread::current().id();
                let (tx, rx) = std::sync::mpsc::channel();
                stream.launch_host_fn(move || tx.send(std::thread::current().id()).unwrap())?;
                let ev = stream.record(ctx.create_event()?)?;
                other.wait_event(&ev)?;
                other.synchronize()?;
                assert_eq!(rx.try_recv().expect("the host function ran"), me);
                println!("child: served while synchronising");
                Ok(())
            })??;
        }
        "serve_then_scope" => {
            stream.serve_host_fns(|_server| -> Result<()> {
                let me = std::thread::current().id();
                let ran = std::sync::Mutex::new(None);
                ctx.scope(|s| {
                    make_guard!(l);
                    let lane = s.lane(&stream, l);
                    lane.host_fn(|| *ran.lock().unwrap() = Some(std::thread::current().id()))?;
                    Ok(())
                })?;
                assert_eq!(ran.into_inner().unwrap(), Some(me));
                println!("child: served while synchronising");
                Ok(())
            })??;
        }
        other => panic!("unknown attack {other}"),
    }
    stream.synchronize()?;
    other.destroy()?;
    stream.destroy()
}

/// Runs [`attack_child`] with `attack` in `mode`; a child that runs longer
/// than a minute is killed and the test fails (a hang guard only).
fn run_child(attack: &str, mode: &str) -> (std::process::ExitStatus, String, String) {
    let exe = std::env::current_exe().expect("the test binary's path");
    let mut child = Command::new(&exe)
        .args(["attack_child", "--exact", "--nocapture", "--test-threads=1"])
        .env("ACLRT_TEST_RESOURCE_ATTACK", attack)
        .env("ACLRT_SIM_RUN_MODE", mode)
        .env_remove("ACLRT_SIM_ERROR_EXITCODE")
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("the test binary runs");
    let t0 = Instant::now();
    while child.try_wait().expect("the child's status").is_none() {
        if t0.elapsed() > Duration::from_secs(60) {
            let _ = child.kill();
            let out = child.wait_with_output().expect("the child's output");
            panic!(
                "{attack} ({mode}): the child hangs\n{}\n{}",
                String::from_utf8_lossy(&out.stdout),
                String::from_utf8_lossy(&out.stderr)
            );
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    let out = child.wait_with_output().expect("the child's output");
    (
        out.status,
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

/// The child ran `attack` to its clean end in both run modes.
fn child_holds(attack: &str) {
    for mode in ["host", "device"] {
        let (status, out, err) = run_child(attack, mode);
        assert!(status.success(), "{attack} ({mode}): {status}\n{out}\n{err}");
        assert!(out.contains("child: clean end"), "{attack} ({mode}): {out}");
        assert!(
            out.contains("child: served while synchronising"),
            "{attack} ({mode}): {out}"
        );
    }
}

// ------------------------------------------------ host-function threads ---

// A wait on the serving thread that depends on a host function only that
// thread runs hung for ever: the context's synchronisation (which takes the
// served stream), an event recorded behind the host function (its
// synchronisation, and its drop), another stream waiting for that event,
// a scope with a lane on the served stream.

#[test]
fn serving_thread_synchronising_its_context_serves_meanwhile() {
    child_holds("serve_then_context_sync");
}

#[test]
fn serving_thread_synchronising_an_event_behind_its_stream_serves_meanwhile() {
    child_holds("serve_then_event_sync");
}

#[test]
fn serving_thread_synchronising_a_stream_that_waits_for_its_stream_serves_meanwhile() {
    child_holds("serve_then_other_stream_sync");
}

#[test]
fn serving_thread_ending_a_scope_on_its_stream_serves_meanwhile() {
    child_holds("serve_then_scope");
}
