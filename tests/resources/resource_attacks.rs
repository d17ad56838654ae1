//! An independent review's attacks on the runtime resources of the safe API
//! (virtual memory, IPC memory, notifies, host-function threads, exception
//! handlers, value slots, device information and stream control), from safe
//! code only, in both run modes. Each attack asserts the typed outcome the
//! crate promises; one that may hang runs in a child process with a hang
//! guard, so that a regression fails the test instead of hanging the suite.

use crate::common;

use std::process::{Command, Stdio};
use std::sync::Mutex;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use aclrt::sim::{self, HostFuncThreads, SimConfig};
use aclrt::{Acl, Context, Error, ErrorKind, ExceptionHandler, Result, RunMode, make_guard};
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
    if attack == "serve_in_tls_destructor" {
        serve_in_tls_destructor(device_mode);
        println!("child: attack held");
        println!("child: clean end");
        return;
    }
    if attack == "forgotten_ipc_export" {
        forgotten_ipc_export(device_mode);
        println!("child: attack held");
        println!("child: clean end");
        return;
    }
    if attack == "exception_reentry" {
        exception_reentry(device_mode);
        println!("child: clean end");
        return;
    }
    let _sim = take(compact(mode_config(device_mode)));
    let acl = Acl::init().expect("aclInit");
    let flow = |acl: &Acl| -> Result<()> {
        in_mode!(acl, device_mode, |ctx| child_flow(acl, &attack, ctx))
    };
    flow(&acl).expect("flow");
    acl.finalize().expect("aclFinalize");
    // The subscription is reported as a feature the modelled chips lack
    // (one report per subscription); nothing else.
    let audit = sim::audit();
    assert!(audit.leaks.is_empty(), "{:?}", audit.leaks);
    for kind in violation_kinds(&audit) {
        assert_eq!(
            kind,
            sim::ViolationKind::Unsupported,
            "{:?}",
            audit.violations
        );
    }
    println!("child: clean end");
}

fn child_flow<M: RunMode>(_acl: &Acl, attack: &str, ctx: &Context<'_, '_, M>) -> Result<()> {
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
                println!("child: attack held");
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
                println!("child: attack held");
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
                println!("child: attack held");
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
                println!("child: attack held");
                Ok(())
            })??;
        }
        // A value waited for and never written, in a scope with a time
        // limit: the scope ends with a typed failure once the limit runs
        // out, no hang.
        "value_never_written" => {
            let slot = ctx.value_slot(0)?;
            let t0 = Instant::now();
            let r = ctx.scope_with_timeout(Duration::from_secs(1), |s| {
                make_guard!(l);
                let lane = s.lane(&stream, l);
                lane.value_wait(&slot, 1, aclrt::ValueWait::Equal)?;
                Ok(())
            });
            let took = t0.elapsed();
            println!("child: value wait ended after {took:?}: {r:?}");
            let e = r.expect_err("the value never came");
            assert_eq!(e.kind(), ErrorKind::Timeout, "{e:?}");
            assert!(took < HANG_GUARD, "{took:?}");
            let r = stream.synchronize();
            println!("child: then {r:?}");
            println!("child: attack held");
        }
        // A host function run while the serving thread waits panics: the
        // panic never unwinds through the runtime nor out of the wait; the
        // stream's next synchronisation resumes it. The next host function
        // still runs, on the serving thread.
        "serve_panic_while_waiting" => {
            let me = std::thread::current().id();
            let ran_on = std::sync::Arc::new(Mutex::new(None));
            let sink = ran_on.clone();
            stream.serve_host_fns(|_server| -> Result<()> {
                stream.launch_host_fn(|| panic!("host fn panics"))?;
                stream.launch_host_fn(move || {
                    *sink.lock().unwrap() = Some(std::thread::current().id());
                })?;
                ctx.synchronize()
            })??;
            assert_eq!(*ran_on.lock().unwrap(), Some(me));
            let resumed =
                std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| stream.synchronize()))
                    .expect_err("the host function's panic is resumed");
            assert_eq!(panic_message(&*resumed), "host fn panics");
            println!("child: attack held");
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
    let name = common::test_name(module_path!(), "attack_child");
    let mut child = Command::new(&exe)
        .args([name.as_str(), "--exact", "--nocapture", "--test-threads=1"])
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

/// The child ran `attack` to its end in both run modes.
fn child_holds_plain(attack: &str) {
    for mode in ["host", "device"] {
        let (status, out, err) = run_child(attack, mode);
        assert!(
            status.success(),
            "{attack} ({mode}): {status}\n{out}\n{err}"
        );
        assert!(out.contains("child: clean end"), "{attack} ({mode}): {out}");
    }
}

/// The child ran `attack` to its clean end in both run modes.
fn child_holds(attack: &str) {
    for mode in ["host", "device"] {
        let (status, out, err) = run_child(attack, mode);
        assert!(
            status.success(),
            "{attack} ({mode}): {status}\n{out}\n{err}"
        );
        assert!(out.contains("child: clean end"), "{attack} ({mode}): {out}");
        assert!(
            out.contains("child: attack held"),
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
fn a_host_function_panicking_while_the_serving_thread_waits_is_kept_for_its_stream() {
    child_holds("serve_panic_while_waiting");
}

#[test]
fn serving_thread_ending_a_scope_on_its_stream_serves_meanwhile() {
    child_holds("serve_then_scope");
}

#[test]
fn value_wait_never_written_ends_typed_in_a_scope_with_a_limit() {
    child_holds("value_never_written");
}

/// An application keeps its runtime in a thread-local and serves a stream
/// in its destructor, after the crate's per-thread state is gone (the
/// thread served once before, so that state was made after the
/// application's and is destroyed before it).
fn serve_in_tls_destructor(device_mode: bool) {
    let _sim = take(compact(mode_config(device_mode)));
    struct App(Option<Acl>, std::sync::mpsc::Sender<String>);
    impl App {
        fn serve(&self, when: &str) -> String {
            let acl = self.0.as_ref().expect("set");
            let r = in_mode!(
                acl,
                std::env::var("ACLRT_SIM_RUN_MODE").as_deref() == Ok("device"),
                |ctx| {
                    let stream = ctx.create_stream()?;
                    let inner = stream.serve_host_fns(|_server| -> Result<()> {
                        stream.launch_host_fn(|| ())?;
                        // Only this thread runs the host function: refused,
                        // never a hang.
                        let r = stream.synchronize();
                        assert!(matches!(r, Err(Error::InCallback { .. })), "{when}: {r:?}");
                        ctx.synchronize()
                    });
                    // Served, or refused (typed) before the closure ran.
                    match inner {
                        Ok(inner) => inner?,
                        Err(Error::InCallback { .. }) => println!("child: {when}: refused"),
                        Err(e) => return Err(e),
                    }
                    stream.synchronize()?;
                    stream.destroy()
                }
            );
            format!("{when}: {r:?}")
        }
    }
    impl Drop for App {
        fn drop(&mut self) {
            let out = self.serve("tls-dtor");
            let _ = self.1.send(out);
            if let Some(acl) = self.0.take() {
                let _ = acl.finalize();
            }
        }
    }
    std::thread_local! {
        static APP: std::cell::RefCell<Option<App>> = const { std::cell::RefCell::new(None) };
    }
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        APP.with(|a| *a.borrow_mut() = Some(App(Some(Acl::init().expect("aclInit")), tx)));
        APP.with(|a| {
            let live = a.borrow().as_ref().expect("set").serve("live");
            assert_eq!(live, "live: Ok(())");
        });
    })
    .join()
    .expect("the thread ends normally");
    let out = rx.recv_timeout(HANG_GUARD).expect("the destructor ran");
    println!("child: {out}");
    assert_eq!(out, "tls-dtor: Ok(())");
}

#[test]
fn serving_in_a_thread_local_destructor_is_refused_typed() {
    for mode in ["host", "device"] {
        let (status, out, err) = run_child("serve_in_tls_destructor", mode);
        assert!(status.success(), "{mode}: {status}\n{out}\n{err}");
        assert!(out.contains("child: tls-dtor: refused"), "{mode}: {out}");
        assert!(out.contains("child: clean end"), "{mode}: {out}");
    }
}

// ------------------------------------------------- exception handlers ---

static SELF_HANDLER: Mutex<Option<ExceptionHandler<'static>>> = Mutex::new(None);
static INNER_HANDLERS: Mutex<Vec<ExceptionHandler<'static>>> = Mutex::new(Vec::new());
static OUTER_RUNS: AtomicUsize = AtomicUsize::new(0);
static INNER_RUNS: AtomicUsize = AtomicUsize::new(0);

/// Run by [`attack_child`] (the runtime is leaked for `'static` guards):
/// a handler registers another handler and unregisters itself from inside;
/// a thread-local destructor registers and unregisters one on a thread's
/// exit.
fn exception_reentry(device_mode: bool) {
    let _sim = take(mode_config(device_mode));
    let acl: &'static Acl = Box::leak(Box::new(Acl::init().expect("aclInit")));
    let outer = acl
        .on_exception(move |_info| {
            OUTER_RUNS.fetch_add(1, Ordering::SeqCst);
            let inner = acl
                .on_exception(|_| {
                    INNER_RUNS.fetch_add(1, Ordering::SeqCst);
                })
                .expect("registered from inside a handler");
            INNER_HANDLERS.lock().unwrap().push(inner);
            let me = SELF_HANDLER.lock().unwrap().take();
            if let Some(me) = me {
                me.unregister().expect("unregistered from inside itself");
            }
        })
        .expect("on_exception");
    *SELF_HANDLER.lock().unwrap() = Some(outer);
    let flow = |acl: &Acl| -> Result<()> {
        in_mode!(acl, device_mode, |ctx| {
            let stream = ctx.create_stream()?;
            for round in 1..=2 {
                sim::inject_stream_task_fault(stream.as_raw(), 1, 507015);
                stream.launch_host_fn(|| ())?;
                let e = stream.synchronize().expect_err("the injected fault");
                assert_eq!(e.code(), Some(507015), "{e}");
                let _ = stream.synchronize();
                assert!(wait_until(|| INNER_RUNS.load(Ordering::SeqCst) + 1 >= round));
            }
            stream.destroy()
        })
    };
    flow(acl).expect("flow");
    // The outer handler ran once (it removed itself), the one it
    // registered heard the second report.
    assert_eq!(OUTER_RUNS.load(Ordering::SeqCst), 1);
    assert_eq!(INNER_RUNS.load(Ordering::SeqCst), 1);
    for h in INNER_HANDLERS.lock().unwrap().drain(..) {
        h.unregister().expect("unregister");
    }
    // A thread-local destructor registers and unregisters a handler.
    struct OnExit(&'static Acl, std::sync::mpsc::Sender<Result<()>>);
    impl Drop for OnExit {
        fn drop(&mut self) {
            let r = self.0.on_exception(|_| {}).and_then(|h| h.unregister());
            let _ = self.1.send(r);
        }
    }
    std::thread_local! {
        static ON_EXIT: std::cell::RefCell<Option<OnExit>> = const { std::cell::RefCell::new(None) };
    }
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || ON_EXIT.with(|s| *s.borrow_mut() = Some(OnExit(acl, tx))))
        .join()
        .expect("thread");
    let r = rx.recv_timeout(HANG_GUARD).expect("the destructor ran");
    r.expect("a handler from a thread-local destructor");
}

#[test]
fn exception_handlers_registered_and_unregistered_from_inside_a_handler() {
    child_holds_plain("exception_reentry");
}

// ------------------------------------------------ in-process attacks ---

/// Runs `flow` on a fresh context of device 0 in both run modes (the
/// context destroyed, the device reset and the runtime finalised after),
/// then hands the audit to `check`.
macro_rules! both_modes {
    ($config:expr, $flow:ident, $check:expr) => {
        for device_mode in [false, true] {
            let _sim = take($config(mode_config(device_mode)));
            let acl = Acl::init().expect("aclInit");
            let r = in_mode!(&acl, device_mode, |ctx| $flow(&acl, ctx));
            r.unwrap_or_else(|e| panic!("device mode {device_mode}: {e:?}"));
            acl.finalize().expect("aclFinalize");
            let check: &dyn Fn(&sim::Audit, bool) = &$check;
            check(&sim::audit(), device_mode);
        }
    };
}

fn plain(c: SimConfig) -> SimConfig {
    c
}

fn clean(audit: &sim::Audit, device_mode: bool) {
    assert!(
        audit.violations.is_empty() && audit.leaks.is_empty(),
        "device mode {device_mode}: {audit:#?}"
    );
}

fn only_unsupported(audit: &sim::Audit, device_mode: bool) {
    assert!(
        audit.leaks.is_empty(),
        "device mode {device_mode}: {audit:#?}"
    );
    for v in &audit.violations {
        assert_eq!(
            v.kind,
            sim::ViolationKind::Unsupported,
            "device mode {device_mode}: {audit:#?}"
        );
    }
}

fn code_of(e: &Error) -> i32 {
    match e {
        Error::Acl { code, .. } => *code,
        other => panic!("not a runtime error: {other:?}"),
    }
}

// --- notifies

/// A notify waited for with a limit and never recorded: the stream's
/// synchronisation reports a typed timeout once the limit (rounded up to a
/// second) runs out, not later; the notify is then destroyed.
fn notify_never_recorded_timed<M: RunMode>(_acl: &Acl, ctx: &Context<'_, '_, M>) -> Result<()> {
    let s = ctx.create_stream()?;
    let n = ctx.create_notify()?;
    let t0 = Instant::now();
    s.wait_notify_timeout(&n, Duration::from_millis(10))?;
    let e = s.synchronize().expect_err("no record came");
    let took = t0.elapsed();
    assert_eq!(e.kind(), ErrorKind::Timeout, "{e:?}");
    assert!(took >= Duration::from_millis(900), "{took:?}");
    assert!(took < HANG_GUARD, "{took:?}");
    drop(n);
    s.destroy()
}

#[test]
fn notify_waited_with_a_limit_but_never_recorded_times_out_typed() {
    both_modes!(plain, notify_never_recorded_timed, clean);
}

/// The same, the notify dropped after its wait failed but before the
/// stream is synchronised: the wait has ended, the notify is destroyed
/// (not leaked with its context), and the stream's synchronisation still
/// reports the timeout.
fn notify_dropped_after_its_wait_failed<M: RunMode>(
    _acl: &Acl,
    ctx: &Context<'_, '_, M>,
) -> Result<()> {
    let s = ctx.create_stream()?;
    let n = ctx.create_notify()?;
    s.wait_notify_timeout(&n, Duration::from_millis(10))?;
    std::thread::sleep(Duration::from_millis(1500));
    drop(n);
    let e = s.synchronize().expect_err("no record came");
    assert_eq!(e.kind(), ErrorKind::Timeout, "{e:?}");
    s.destroy()
}

#[test]
fn notify_dropped_after_its_wait_failed_is_destroyed() {
    both_modes!(plain, notify_dropped_after_its_wait_failed, clean);
}

/// A wait without limit, never recorded yet: a bounded synchronisation
/// answers a typed timeout (no hang); a record from another stream then
/// releases the wait.
fn notify_unbounded_then_bounded_sync<M: RunMode>(
    _acl: &Acl,
    ctx: &Context<'_, '_, M>,
) -> Result<()> {
    let s = ctx.create_stream()?;
    let r = ctx.create_stream()?;
    let n = ctx.create_notify()?;
    s.wait_notify(&n)?;
    let e = s
        .synchronize_timeout(Duration::from_millis(100))
        .expect_err("no record yet");
    assert_eq!(e.kind(), ErrorKind::Timeout, "{e:?}");
    r.record_notify(&n)?;
    s.synchronize()?;
    r.synchronize()?;
    drop(n);
    r.destroy()?;
    s.destroy()
}

#[test]
fn notify_unbounded_wait_synchronised_with_a_limit() {
    both_modes!(plain, notify_unbounded_then_bounded_sync, clean);
}

// --- IPC memory

/// Pids the runtime cannot take, a closed key, a forged key, one buffer
/// exported twice.
fn ipc_misuse<M: RunMode>(_acl: &Acl, ctx: &Context<'_, '_, M>) -> Result<()> {
    let me = std::process::id();
    let buf = ctx.alloc_from(&[1u32, 2, 3, 4])?;
    // A pid the runtime cannot take: refused, named as the IPC call.
    let e = ctx.export_ipc(&buf, &[u32::MAX]).expect_err("pid");
    assert_eq!(e.kind(), ErrorKind::InvalidParam, "{e:?}");
    assert!(
        matches!(
            e,
            Error::Acl {
                function: "aclrtIpcMemSetImportPid",
                ..
            }
        ),
        "{e:?}"
    );
    // A closed key (its export dropped): the runtime's refusal.
    let key = {
        let export = ctx.export_ipc(&buf, &[me])?;
        export.key().clone()
    };
    let e = ctx.import_ipc::<u32>(&key).expect_err("closed");
    assert_eq!(code_of(&e), 107000, "{e:?}");
    // A forged key.
    let forged = aclrt::IpcKey::new("aclsim_ipc_1_1_16").expect("no NUL");
    let e = ctx.import_ipc::<u32>(&forged).expect_err("forged");
    assert_eq!(e.kind(), ErrorKind::InvalidParam, "{e:?}");
    // One buffer exported twice: the runtime answers with one key. The
    // first export's drop leaves the second's key open: importing it here
    // is still refused as this process's own (100000, before any runtime
    // call), not as a closed key (107000).
    let a = ctx.export_ipc(&buf, &[me])?;
    let b = ctx.export_ipc(&buf, &[me])?;
    drop(a);
    let e = ctx.import_ipc::<u32>(b.key()).expect_err("own key");
    assert_eq!(code_of(&e), 100000, "{e:?}");
    let key = b.key().clone();
    drop(b);
    // The last export gone: the key is closed.
    let e = ctx.import_ipc::<u32>(&key).expect_err("closed");
    assert_eq!(code_of(&e), 107000, "{e:?}");
    buf.free()
}

#[test]
fn ipc_misuse_is_typed_and_a_second_export_keeps_its_key() {
    both_modes!(plain, ipc_misuse, clean);
}

// --- virtual memory

/// Sizes that overflow, offsets past the end, two threads mapping the same
/// granule, a forged shareable handle.
fn vmm_misuse<M: RunMode>(_acl: &Acl, ctx: &Context<'_, '_, M>) -> Result<()> {
    let gran = ctx.granularity()?;
    let e = gran.granules(usize::MAX).expect_err("overflows");
    assert!(matches!(e, Error::InvalidAllocationSize { .. }), "{e:?}");
    let e = gran.granules_for(usize::MAX).expect_err("overflows");
    assert!(matches!(e, Error::InvalidAllocationSize { .. }), "{e:?}");
    let huge = gran.granules(usize::MAX / gran.bytes())?;
    let e = ctx.reserve(huge).map(|_| ()).expect_err("huge");
    assert_eq!(e.kind(), ErrorKind::OutOfMemory, "{e:?}");
    let e = ctx.alloc_physical(huge).map(|_| ()).expect_err("huge");
    assert_eq!(e.kind(), ErrorKind::OutOfMemory, "{e:?}");
    let range = ctx.reserve(gran.granules(2)?)?;
    let mut a = ctx.alloc_physical(gran.granules(1)?)?;
    let mut b = ctx.alloc_physical(gran.granules(1)?)?;
    let e = range
        .map(usize::MAX, &mut a)
        .map(|_| ())
        .expect_err("past the end");
    assert!(matches!(e, Error::OutOfRange { .. }), "{e:?}");
    // Two threads map at the same granule, each keeping its mapping until
    // both have tried: exactly one wins.
    let both_tried = std::sync::Barrier::new(2);
    let (ra, rb) = std::thread::scope(|s| {
        let (range, both_tried) = (&range, &both_tried);
        let ta = s.spawn(|| {
            let m = range.map(0, &mut a);
            both_tried.wait();
            m.map(|m| m.unmap())
        });
        let tb = s.spawn(|| {
            let m = range.map(0, &mut b);
            both_tried.wait();
            m.map(|m| m.unmap())
        });
        (ta.join().unwrap(), tb.join().unwrap())
    });
    let ok = [&ra, &rb].iter().filter(|r| r.is_ok()).count();
    assert_eq!(ok, 1, "{ra:?} {rb:?}");
    for r in [ra, rb] {
        match r {
            Ok(unmapped) => unmapped?,
            Err(e) => assert!(matches!(e, Error::OutOfRange { .. }), "{e:?}"),
        }
    }
    // A forged shareable handle: the runtime's refusal.
    let forged = aclrt::ShareableHandle {
        handle: 12345,
        granules: 1,
    };
    let e = ctx.import_physical(forged).map(|_| ()).expect_err("forged");
    assert_eq!(e.kind(), ErrorKind::InvalidParam, "{e:?}");
    a.free()?;
    b.free()?;
    range.release()
}

#[test]
fn vmm_misuse_is_typed() {
    both_modes!(plain, vmm_misuse, clean);
}

// --- device information and stream control

fn device_control<M: RunMode>(_acl: &Acl, ctx: &Context<'_, '_, M>) -> Result<()> {
    let mut s = ctx.create_stream()?;
    // The modelled chips have no stream clearing: typed, nothing stopped.
    let e = s.stop().expect_err("not modelled");
    assert_eq!(e.kind(), ErrorKind::NotSupported, "{e:?}");
    s.set_overflow_detection(true)?;
    assert!(s.overflow_detection()?);
    s.set_overflow_detection(false)?;
    assert!(!s.overflow_detection()?);
    assert!(s.id()? >= 0);
    s.synchronize()?;
    s.destroy()
}

#[test]
fn device_control_is_typed() {
    both_modes!(plain, device_control, only_unsupported);
}

/// A notify imported by its own process: a second handle sharing the
/// flag (a record of one releases a wait of the other); dropping the import
/// destroys only its handle, the original stays usable.
fn notify_import_own<M: RunMode>(_acl: &Acl, ctx: &Context<'_, '_, M>) -> Result<()> {
    let s = ctx.create_stream()?;
    let r = ctx.create_stream()?;
    let n = ctx.create_notify()?;
    let key = n.export(&[std::process::id()])?;
    let imported = ctx.import_notify(&key)?;
    assert_ne!(imported.as_raw(), n.as_raw());
    s.wait_notify(&imported)?;
    r.record_notify(&n)?;
    s.synchronize()?;
    drop(imported);
    s.wait_notify(&n)?;
    r.record_notify(&n)?;
    s.synchronize()?;
    r.synchronize()?;
    drop(n);
    r.destroy()?;
    s.destroy()
}

#[test]
fn a_notify_imported_by_its_own_process_is_a_second_handle() {
    both_modes!(plain, notify_import_own, clean);
}

// --- forgotten guards

/// Every guard of the new resources forgotten (`mem::forget`): nothing is
/// released under a live use; the context's destruction and the device's
/// reset answer a typed `LiveChildren` instead of destroying what the leaked
/// guards still name.
#[test]
fn forgotten_guards_leave_typed_live_children() {
    for device_mode in [false, true] {
        let _sim = take(mode_config(device_mode));
        let acl = Acl::init().expect("aclInit");
        let r: Result<()> = in_mode!(&acl, device_mode, |ctx| {
            let gran = ctx.granularity()?;
            let range = ctx.reserve(gran.granules(2)?)?;
            let mut phys = ctx.alloc_physical(gran.granules(1)?)?;
            let mapping = range.map(0, &mut phys)?;
            std::mem::forget(mapping);
            std::mem::forget(range);
            std::mem::forget(phys);
            std::mem::forget(ctx.value_slot(7)?);
            let n = ctx.create_notify()?;
            let s = ctx.create_stream()?;
            s.record_notify(&n)?;
            s.synchronize()?;
            std::mem::forget(n);
            s.destroy()?;
            Ok(())
        });
        let e = r.expect_err("the context outlives its leaked children");
        assert!(
            matches!(e, Error::LiveChildren { .. }),
            "device mode {device_mode}: {e:?}"
        );
        let audit = sim::audit();
        assert!(audit.violations.is_empty(), "{audit:#?}");
        drop(acl);
        sim::reset();
        assert_clean();
    }
}

/// A forgotten `IpcExport` leaves its key open in the runtime: the buffer
/// it names is then never freed (another process could still import it),
/// by `free` (typed `LiveChildren`, nothing called) or by its drop (leaked);
/// a buffer whose export was dropped frees as usual. The leaked buffers
/// keep their context alive. Run in a child: it leaks its runtime.
fn forgotten_ipc_export(device_mode: bool) {
    let _sim = take(mode_config(device_mode));
    let acl: &'static Acl = Box::leak(Box::new(Acl::init().expect("aclInit")));
    let flow = |acl: &Acl| -> Result<()> {
        in_mode!(acl, device_mode, |ctx| {
            let me = std::process::id();
            let plain = ctx.alloc_from(&[9u32; 4])?;
            let exported = ctx.alloc_from(&[1u32, 2, 3, 4])?;
            let dropped = ctx.alloc_from(&[5u32; 8])?;
            // An export dropped as usual: its buffer frees.
            drop(ctx.export_ipc(&plain, &[me])?);
            plain.free()?;
            // Two exports forgotten: the keys stay open.
            let key = {
                let export = ctx.export_ipc(&exported, &[me])?;
                let key = export.key().clone();
                std::mem::forget(export);
                key
            };
            std::mem::forget(ctx.export_ipc(&dropped, &[me])?);
            let e = exported.free().expect_err("an open key names the buffer");
            assert!(
                matches!(
                    e,
                    Error::LiveChildren {
                        function: "aclrtFree",
                        live: 1
                    }
                ),
                "{e:?}"
            );
            drop(dropped);
            // The key still names this process's memory: importing it here
            // is refused as this process's own, not as a closed key.
            let e = ctx.import_ipc::<u32>(&key).expect_err("own key");
            assert_eq!(code_of(&e), 100000, "{e:?}");
            // The two leaked buffers keep the context alive.
            Ok(())
        })
    };
    let e = flow(acl).expect_err("the context keeps its leaked buffers");
    assert!(matches!(e, Error::LiveChildren { live: 2, .. }), "{e:?}");
    let audit = sim::audit();
    assert!(
        !violation_kinds(&audit).contains(&sim::ViolationKind::UseAfterFree),
        "{:?}",
        audit.violations
    );
}

#[test]
fn a_forgotten_ipc_export_keeps_its_buffer_allocated() {
    child_holds("forgotten_ipc_export");
}
