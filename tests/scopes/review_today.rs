//! A second outside review of the day's features, attacked from safe code
//! in both run modes: notifies as a scope's hand-off (a failed, panicking,
//! aborted or doubled hand-off; the recovery point; nested scopes), IPC
//! events (dropped under a wait, waited by a lane whose scope times out),
//! allocators on a stream (forgotten, then the stream, context or device
//! gone), the serving thread (scope deadlines, awaited synchronisations)
//! and process exit. Every attack that could hang runs in a child process
//! with a time limit (`attack_child`, which returns at once unless the
//! parent names an attack), so no attack can hang the suite.

use crate::common;

use std::process::{Command, Stdio};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use aclrt::sim::{self, HostFuncThreads, SimConfig};
use aclrt::{Acl, Context, Error, ErrorKind, Result, RunMode, make_guard, sys};
use common::*;

const ATTACK_VAR: &str = "ACLRT_TEST_REVIEW_TODAY_ATTACK";

/// How long a child may run before it counts as hung.
const CHILD_LIMIT: Duration = Duration::from_secs(40);

fn mode_config(device_mode: bool) -> SimConfig {
    if device_mode {
        device_config()
    } else {
        host_config()
    }
}

fn compact(mut c: SimConfig) -> SimConfig {
    c.host_func_threads = HostFuncThreads::Compact;
    c
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

/// Runs `attack` in a child process (this binary, filtered to
/// `attack_child`) in both run modes; each child must print
/// `child: held` and exit 0 within [`CHILD_LIMIT`].
fn in_child(attack: &str) {
    for mode in ["host", "device"] {
        let mut child = Command::new(std::env::current_exe().expect("the test binary"))
            .args([
                "--exact",
                &common::test_name(module_path!(), "attack_child"),
                "--nocapture",
                "--test-threads=1",
            ])
            .env(ATTACK_VAR, attack)
            .env("ACLRT_SIM_RUN_MODE", mode)
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .expect("spawn the child");
        let t0 = Instant::now();
        let status = loop {
            if let Some(status) = child.try_wait().expect("wait for the child") {
                break Some(status);
            }
            if t0.elapsed() > CHILD_LIMIT {
                let _ = child.kill();
                break None;
            }
            std::thread::sleep(Duration::from_millis(20));
        };
        let out = child.wait_with_output().expect("the child's output");
        let stdout = String::from_utf8_lossy(&out.stdout);
        let stderr = String::from_utf8_lossy(&out.stderr);
        let Some(status) = status else {
            panic!("{attack} ({mode} run mode) hung\n{stdout}\n{stderr}");
        };
        assert!(
            status.success() && stdout.contains("child: held"),
            "{attack} ({mode} run mode): {status:?}\n{stdout}\n{stderr}"
        );
    }
}

/// The child half of [`in_child`]: returns at once unless a parent names
/// an attack.
#[test]
fn attack_child() {
    let Some(attack) = std::env::var_os(ATTACK_VAR) else {
        return;
    };
    let attack = attack.into_string().expect("an attack's name");
    let device_mode = std::env::var("ACLRT_SIM_RUN_MODE").as_deref() == Ok("device");
    if attack == "serve_exception_deadline" {
        serve_exception_deadline(device_mode);
        println!("child: held");
        return;
    }
    if attack == "allocator_forgotten_then_reset" {
        allocator_forgotten_then_reset(device_mode);
        println!("child: held");
        return;
    }
    if attack == "tls_destructor_notify" {
        tls_destructor_notify(device_mode);
        println!("child: held");
        return;
    }
    let config = if attack.starts_with("serve_") {
        compact(mode_config(device_mode))
    } else {
        mode_config(device_mode)
    };
    let _sim = take(config);
    let acl = Acl::init().expect("aclInit");
    let r = in_mode!(&acl, device_mode, |ctx| child_flow(&attack, ctx));
    r.expect("flow");
    acl.finalize().expect("aclFinalize");
    if !attack.starts_with("serve_") {
        assert_clean();
    } else {
        // The subscription is reported as a feature the modelled chips
        // lack; nothing else.
        let audit = sim::audit();
        assert!(audit.leaks.is_empty(), "{:?}", audit.leaks);
        for kind in violation_kinds(&audit) {
            assert_eq!(kind, sim::ViolationKind::Unsupported, "{audit:?}");
        }
    }
    println!("child: held");
}

fn child_flow<M: RunMode>(attack: &str, ctx: &Context<'_, '_, M>) -> Result<()> {
    match attack {
        "record_task_fails" => record_task_fails(ctx),
        "nested_scope_on_waiting_lane" => nested_scope_on_waiting_lane(ctx),
        "host_fn_panics_before_record" => host_fn_panics_before_record(ctx),
        "deadline_aborts_the_recorder" => deadline_aborts_the_recorder(ctx),
        "recover_then_more_work" => recover_then_more_work(ctx),
        "waited_twice_recorded_once" => waited_twice_recorded_once(ctx),
        "exit_with_unmatched_wait" => exit_with_unmatched_wait(ctx),
        "other_thread_scope_errors" => other_thread_scope_errors(ctx),
        "ipc_event_lane_deadline" => ipc_event_lane_deadline(ctx),
        "ipc_foreign_after_escalation" => ipc_foreign_after_escalation(ctx),
        "deadline_fault_then_new_scope" => deadline_fault_then_new_scope(ctx),
        "serve_scope_deadline" => serve_scope_deadline(ctx),
        "serve_awaited_sync" => serve_awaited_sync(ctx),
        other => panic!("unknown attack {other}"),
    }
}

/// The record task itself fails on the device (the fault is injected on
/// it): it sets nothing, so the waiting lane is never released by it. The
/// scope must end (with the fault, or its abort) instead of synchronising
/// the waiting lane for ever.
fn record_task_fails<M: RunMode>(ctx: &Context<'_, '_, M>) -> Result<()> {
    let (a, b) = (ctx.create_stream()?, ctx.create_stream()?);
    let mut n = ctx.create_notify()?;
    let mut db = ctx.alloc::<u8>(64)?;
    let r = ctx.scope(|s| {
        make_guard!(ga);
        make_guard!(gb);
        let (la, lb) = (s.lane(&a, ga), s.lane(&b, gb));
        let n = s.notify(&mut n)?;
        lb.wait_notify(n)?;
        let _y = lb.memset(&mut db, 3)?;
        sim::inject_stream_task_fault(a.as_raw(), 1, sys::ACL_ERROR_RT_AICORE_EXCEPTION);
        la.record_notify(n)?;
        Ok(())
    });
    println!("child: scope ended {r:?}");
    let e = r.expect_err("a failed record is a failure of the scope");
    assert!(
        e.code() == Some(sys::ACL_ERROR_RT_AICORE_EXCEPTION)
            || matches!(e, Error::WorkAborted | Error::NotifyNotRecorded { .. }),
        "{e:?}"
    );
    // The waiting lane is not left blocked: it is idle now.
    assert!(b.is_complete()?);
    // The same, learnt by a checked wait of the waiting lane's work in the
    // body: refused (typed) instead of hanging; the end aborts.
    let r = ctx.scope(|s| {
        make_guard!(ga);
        make_guard!(gb);
        let (la, lb) = (s.lane(&a, ga), s.lane(&b, gb));
        let n = s.notify(&mut n)?;
        lb.wait_notify(n)?;
        let y = lb.memset(&mut db, 5)?;
        sim::inject_stream_task_fault(a.as_raw(), 1, sys::ACL_ERROR_RT_AICORE_EXCEPTION);
        la.record_notify(n)?;
        let w = y.wait().map(|_| ());
        println!("child: checked wait behind the failed record {w:?}");
        assert!(matches!(w, Err(Error::NotifyNotRecorded { .. })), "{w:?}");
        Ok(())
    });
    println!("child: second scope ended {r:?}");
    assert!(matches!(r, Err(Error::NotifyNotRecorded { .. })), "{r:?}");
    assert!(b.is_complete()?);
    drop(n);
    let _ = a.synchronize();
    let _ = b.synchronize();
    a.destroy()?;
    b.destroy()
}

/// A nested scope enlists the stream an outer lane left waiting for a
/// notify no record matched yet, and waits for its own work there; the
/// stream itself and the context are synchronised from the body. Each of
/// those waits could only end once this thread records: each is refused
/// (`NotifyNotRecorded`) instead of hanging. The nested scope cannot end
/// with its work queued behind the wait (its borrows end): it aborts, as
/// a deadline does, and the outer scope learns that its work there was
/// discarded.
fn nested_scope_on_waiting_lane<M: RunMode>(ctx: &Context<'_, '_, M>) -> Result<()> {
    let (a, b) = (ctx.create_stream()?, ctx.create_stream()?);
    let mut n = ctx.create_notify()?;
    let mut d = ctx.alloc::<u8>(64)?;
    let outer = ctx.scope(|s| {
        make_guard!(ga);
        make_guard!(gb);
        let (la, lb) = (s.lane(&a, ga), s.lane(&b, gb));
        let n = s.notify(&mut n)?;
        lb.wait_notify(n)?;
        let own = b.synchronize();
        println!("child: the stream's own synchronisation {own:?}");
        assert!(
            matches!(own, Err(Error::NotifyNotRecorded { .. })),
            "{own:?}"
        );
        let all = ctx.synchronize();
        println!("child: the context's synchronisation {all:?}");
        assert!(
            matches!(all, Err(Error::NotifyNotRecorded { .. })),
            "{all:?}"
        );
        let t0 = Instant::now();
        let inner = ctx.scope(|s2| {
            make_guard!(gi);
            let li = s2.lane(&b, gi);
            li.memset(&mut d, 9)?.wait()?;
            Ok(())
        });
        println!("child: inner scope {inner:?} after {:?}", t0.elapsed());
        assert!(
            matches!(inner, Err(Error::NotifyNotRecorded { .. })),
            "{inner:?}"
        );
        // The outer scope goes on; its record comes too late for the wait
        // the nested scope's abort discarded.
        la.record_notify(n)?;
        let synced = lb.synchronize();
        println!("child: the outer lane then {synced:?}");
        assert!(matches!(synced, Err(Error::WorkAborted)), "{synced:?}");
        Ok(())
    });
    println!("child: outer scope {outer:?}");
    assert_eq!(outer.expect_err("the abort").kind(), ErrorKind::Aborted);
    // The notify's spare record (its wait was discarded) is the
    // program's; the streams are idle and usable.
    assert!(a.is_complete()? && b.is_complete()?);
    a.synchronize()?;
    b.synchronize()?;
    drop(n);
    a.destroy()?;
    b.destroy()
}

/// A host function of the recording lane panics before the record. The
/// panic is entered as a failure; the scope ends by resuming the panic,
/// never by hanging on the waiting lane.
fn host_fn_panics_before_record<M: RunMode>(ctx: &Context<'_, '_, M>) -> Result<()> {
    let (a, b) = (ctx.create_stream()?, ctx.create_stream()?);
    let mut n = ctx.create_notify()?;
    let caught = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        ctx.scope(|s| {
            make_guard!(ga);
            make_guard!(gb);
            let (la, lb) = (s.lane(&a, ga), s.lane(&b, gb));
            let n = s.notify(&mut n)?;
            lb.wait_notify(n)?;
            la.host_fn(|| panic!("producer's host function panicked"))?;
            la.record_notify(n)?;
            Ok(())
        })
    }));
    let payload = caught.expect_err("the host function's panic is resumed");
    assert!(panic_message(&*payload).contains("producer's host function"));
    assert!(a.is_complete()? && b.is_complete()?);
    drop(n);
    a.destroy()?;
    b.destroy()
}

/// The scope's deadline aborts the recording lane (held in a host
/// function) before its record runs; the waiting lane is aborted with it.
/// Then the notify, back whole, orders a correct hand-off.
fn deadline_aborts_the_recorder<M: RunMode>(ctx: &Context<'_, '_, M>) -> Result<()> {
    let (a, b) = (ctx.create_stream()?, ctx.create_stream()?);
    let mut n = ctx.create_notify()?;
    let gate = HeldGate::new();
    let t0 = Instant::now();
    // The held host function is running when the deadline's abort comes;
    // the abort returns once it does (a host function cannot be stopped):
    // another thread lets it go.
    let opener = {
        let gate = gate.clone();
        std::thread::spawn(move || {
            std::thread::sleep(Duration::from_millis(600));
            gate.open();
        })
    };
    let r = ctx.scope_with_timeout(Duration::from_millis(300), |s| {
        make_guard!(ga);
        make_guard!(gb);
        let (la, lb) = (s.lane(&a, ga), s.lane(&b, gb));
        let n = s.notify(&mut n)?;
        lb.wait_notify(n)?;
        la.host_fn(gate.body())?;
        la.record_notify(n)?;
        Ok(())
    });
    println!("child: deadline scope {r:?} after {:?}", t0.elapsed());
    assert!(matches!(r, Err(Error::ScopeTimeout { .. })), "{r:?}");
    assert!(t0.elapsed() < Duration::from_secs(10), "{:?}", t0.elapsed());
    opener.join().expect("the opener");
    // A correct hand-off after it: ordered, and the scope ends well.
    let (written, seen) = (AtomicBool::new(false), AtomicBool::new(false));
    ctx.scope(|s| {
        make_guard!(ga);
        make_guard!(gb);
        let (la, lb) = (s.lane(&a, ga), s.lane(&b, gb));
        let n = s.notify(&mut n)?;
        let (written, seen) = (&written, &seen);
        lb.wait_notify(n)?;
        lb.host_fn(move || seen.store(written.load(Ordering::SeqCst), Ordering::SeqCst))?;
        la.host_fn(move || {
            std::thread::sleep(Duration::from_millis(50));
            written.store(true, Ordering::SeqCst);
        })?;
        la.record_notify(n)
    })?;
    assert!(
        seen.load(Ordering::SeqCst),
        "the wait passed before its record"
    );
    drop(n);
    a.destroy()?;
    b.destroy()
}

/// The recovery point after an unmatched wait: it aborts and answers
/// `NotifyNotRecorded`; work queued after it is judged (typed), never
/// hangs, and the scope's end reports the abort.
fn recover_then_more_work<M: RunMode>(ctx: &Context<'_, '_, M>) -> Result<()> {
    let (a, b) = (ctx.create_stream()?, ctx.create_stream()?);
    let mut n = ctx.create_notify()?;
    let mut d = ctx.alloc::<u8>(64)?;
    let r = ctx.scope(|s| {
        make_guard!(ga);
        make_guard!(gb);
        let (la, lb) = (s.lane(&a, ga), s.lane(&b, gb));
        let n = s.notify(&mut n)?;
        lb.wait_notify(n)?;
        let rec = s.recover();
        assert!(
            matches!(rec, Err(Error::NotifyNotRecorded { .. })),
            "{rec:?}"
        );
        // A second recovery: the ledger was cleared, the abort stays.
        let rec2 = s.recover();
        println!("child: second recover {rec2:?}");
        assert!(matches!(rec2, Err(Error::WorkAborted)), "{rec2:?}");
        // More work, with a matched hand-off this time.
        la.record_notify(n)?;
        lb.wait_notify(n)?;
        let w = lb.memset(&mut d, 4)?.wait();
        println!("child: wait after the abort {w:?}");
        assert!(matches!(w, Err(Error::WorkAborted)), "{w:?}");
        Ok(())
    });
    println!("child: scope {r:?}");
    assert_eq!(r.expect_err("the abort sticks").kind(), ErrorKind::Aborted);
    assert!(b.is_complete()?);
    drop(n);
    a.destroy()?;
    b.destroy()
}

/// Two waits, one record: the second wait is unmatched; the end aborts
/// and reports it. Two records, one wait: the spare record leaves the
/// notify set, which the next scope's hand-off must not take for its own
/// record (the order is checked).
fn waited_twice_recorded_once<M: RunMode>(ctx: &Context<'_, '_, M>) -> Result<()> {
    let (a, b) = (ctx.create_stream()?, ctx.create_stream()?);
    let mut n = ctx.create_notify()?;
    let r = ctx.scope(|s| {
        make_guard!(ga);
        make_guard!(gb);
        let (la, lb) = (s.lane(&a, ga), s.lane(&b, gb));
        let n = s.notify(&mut n)?;
        lb.wait_notify(n)?;
        lb.wait_notify(n)?;
        la.record_notify(n)?;
        Ok(())
    });
    assert!(matches!(r, Err(Error::NotifyNotRecorded { .. })), "{r:?}");
    assert!(b.is_complete()?);
    // Recorded twice, waited once: the scope's work all ran.
    ctx.scope(|s| {
        make_guard!(ga);
        make_guard!(gb);
        let (la, lb) = (s.lane(&a, ga), s.lane(&b, gb));
        let n = s.notify(&mut n)?;
        la.record_notify(n)?;
        la.record_notify(n)?;
        lb.wait_notify(n)?;
        lb.synchronize()
    })?;
    drop(n);
    a.destroy()?;
    b.destroy()
}

/// The process exits inside a scope whose lane waits for a notify no
/// record matched: the exit is not held up.
fn exit_with_unmatched_wait<M: RunMode>(ctx: &Context<'_, '_, M>) -> Result<()> {
    let b = ctx.create_stream()?;
    let mut n = ctx.create_notify()?;
    ctx.scope(|s| {
        make_guard!(gb);
        let lb = s.lane(&b, gb);
        let n = s.notify(&mut n)?;
        lb.wait_notify(n)?;
        println!("child: held");
        std::process::exit(0);
    })
}

/// A scope on another thread, whose body fails before its record, while
/// this thread uses the same context: no hang, the error is typed.
fn other_thread_scope_errors<M: RunMode>(ctx: &Context<'_, '_, M>) -> Result<()> {
    let (a, b) = (ctx.create_stream()?, ctx.create_stream()?);
    let c = ctx.create_stream()?;
    std::thread::scope(|t| {
        let h = t.spawn(|| -> Result<()> {
            let mut n = ctx.create_notify()?;
            let r: Result<()> = ctx.scope(|s| {
                make_guard!(ga);
                make_guard!(gb);
                let (_la, lb) = (s.lane(&a, ga), s.lane(&b, gb));
                let n = s.notify(&mut n)?;
                lb.wait_notify(n)?;
                Err(Error::ZeroChunkSize)
            });
            assert!(matches!(r, Err(Error::NotifyNotRecorded { .. })), "{r:?}");
            Ok(())
        });
        for _ in 0..20 {
            c.launch_host_fn(|| std::thread::sleep(Duration::from_millis(1)))?;
            c.synchronize()?;
        }
        h.join().expect("the other thread")
    })?;
    ctx.synchronize()?;
    a.destroy()?;
    b.destroy()?;
    c.destroy()
}

/// An IPC event (opened by this process from its own key) is dropped
/// while a stream waits for it: the close is deferred, the wait ends with
/// the exporter's record. Then a lane waits for it, its record held
/// behind a host function of another stream, and the scope's deadline
/// passes: the scope ends with its timeout, the streams and the event are
/// released cleanly once the gate opens, and a later wait is typed.
fn ipc_event_lane_deadline<M: RunMode>(ctx: &Context<'_, '_, M>) -> Result<()> {
    let (a, b) = (ctx.create_stream()?, ctx.create_stream()?);
    let ev = ctx.create_event_of::<aclrt::ExIpc>()?;
    let key = ev.ipc_handle()?.key();
    // Dropped under a wait.
    let opened = ctx.open_ipc_event(&key)?;
    let gate = HeldGate::new();
    a.launch_host_fn(gate.body())?;
    let ev = a.record(ev)?;
    b.wait_ipc_event(&opened)?;
    let ran = Arc::new(AtomicBool::new(false));
    let r = ran.clone();
    b.launch_host_fn(move || r.store(true, Ordering::SeqCst))?;
    drop(opened);
    std::thread::sleep(Duration::from_millis(50));
    assert!(
        !ran.load(Ordering::SeqCst),
        "the wait ended with its handle"
    );
    gate.open();
    b.synchronize()?;
    a.synchronize()?;
    assert!(ran.load(Ordering::SeqCst));
    // A lane's wait past the scope's deadline.
    let opened = ctx.open_ipc_event(&key)?;
    let gate = HeldGate::new();
    a.launch_host_fn(gate.body())?;
    let ev = a.record(ev)?;
    let r = ctx.scope_with_timeout(Duration::from_millis(300), |s| {
        make_guard!(gb);
        let lb = s.lane(&b, gb);
        lb.wait_ipc_event(&opened)?;
        lb.host_fn(|| {})?;
        Ok(())
    });
    println!("child: ipc lane scope {r:?}");
    assert!(matches!(r, Err(Error::ScopeTimeout { .. })), "{r:?}");
    gate.open();
    let (ra, rb) = (a.synchronize(), b.synchronize());
    println!("child: then {ra:?} {rb:?}");
    assert!(matches!(ra, Ok(()) | Err(Error::WorkAborted)), "{ra:?}");
    rb?;
    // The key is this process's own, so the opened event may be recorded
    // here, and the escalation discarded work in this context: a wait
    // whose record has not run is refused (typed) or queued.
    let gate = HeldGate::new();
    a.launch_host_fn(gate.body())?;
    let ev = a.record(ev)?;
    let w = b.wait_ipc_event(&opened);
    println!("child: a wait after the escalation {w:?}");
    assert!(matches!(w, Ok(()) | Err(Error::WorkAborted)), "{w:?}");
    gate.open();
    let (rb, ra) = (b.synchronize(), a.synchronize());
    println!("child: at last {rb:?} {ra:?}");
    rb?;
    ra?;
    drop(opened);
    drop(ev);
    a.destroy()?;
    b.destroy()
}

/// The child half of
/// [`an_ipc_event_of_another_process_is_waited_after_an_escalation`]: it
/// opens the parent's IPC event (whose record the parent holds), lets a
/// scope's deadline escalate in its context, then waits for the event on
/// a stream and on a lane. The parent's record is never this process's to
/// discard: both waits are queued (before, they were refused with
/// `WorkAborted` once any escalation had run in the context) and end with
/// the parent's record.
fn ipc_foreign_after_escalation<M: RunMode>(ctx: &Context<'_, '_, M>) -> Result<()> {
    let mut hex = String::new();
    std::io::stdin().read_line(&mut hex).expect("the key");
    let hex = hex.trim();
    let mut bytes = [0u8; 64];
    for (i, b) in bytes.iter_mut().enumerate() {
        *b = u8::from_str_radix(&hex[2 * i..2 * i + 2], 16).expect("hex");
    }
    let opened = ctx.open_ipc_event(&aclrt::IpcEventKey::from_bytes(bytes))?;
    let (b, c, d) = (
        ctx.create_stream()?,
        ctx.create_stream()?,
        ctx.create_stream()?,
    );
    let r = ctx.scope_with_timeout(Duration::from_millis(100), |s| {
        make_guard!(gc);
        let lc = s.lane(&c, gc);
        lc.host_fn(|| std::thread::sleep(Duration::from_millis(400)))?;
        Ok(())
    });
    println!("child: an unrelated scope {r:?}");
    assert!(matches!(r, Err(Error::ScopeTimeout { .. })), "{r:?}");
    let w = b.wait_ipc_event(&opened);
    println!("child: the stream's wait {w:?}");
    w?;
    let ran = Arc::new(AtomicBool::new(false));
    let r2 = ran.clone();
    b.launch_host_fn(move || r2.store(true, Ordering::SeqCst))?;
    ctx.scope(|s| {
        make_guard!(gd);
        let ld = s.lane(&d, gd);
        let w = ld.wait_ipc_event(&opened);
        println!("child: the lane's wait {w:?}");
        w?;
        ld.host_fn(|| {})?;
        assert!(!ran.load(Ordering::SeqCst), "the wait did not hold");
        println!("child: waiting");
        Ok(())
    })?;
    b.synchronize()?;
    assert!(ran.load(Ordering::SeqCst));
    drop(opened);
    b.destroy()?;
    c.destroy()?;
    d.destroy()
}

fn ipc_foreign_parent<M: RunMode>(mode: &str, ctx: &Context<'_, '_, M>) -> Result<()> {
    use std::io::{BufRead, Write};
    let (s, gate_stream) = (ctx.create_stream()?, ctx.create_stream()?);
    let gate = ctx.create_notify()?;
    let event = ctx.create_event_of::<aclrt::ExIpc>()?;
    let bytes = event.ipc_handle()?.key().to_bytes();
    let hex: String = bytes.iter().map(|b| format!("{b:02x}")).collect();
    // The record runs once this process opens the gate.
    s.wait_notify_timeout(&gate, CHILD_LIMIT)?;
    let event = s.record(event)?;
    let mut child = Command::new(std::env::current_exe().expect("the test binary"))
        .args([
            "--exact",
            &common::test_name(module_path!(), "attack_child"),
            "--nocapture",
            "--test-threads=1",
        ])
        .env(ATTACK_VAR, "ipc_foreign_after_escalation")
        .env("ACLRT_SIM_RUN_MODE", mode)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::inherit())
        .spawn()
        .expect("spawn the child");
    writeln!(child.stdin.take().expect("stdin"), "{hex}").expect("send the key");
    let stdout = child.stdout.take().expect("stdout");
    let (tx, lines) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        for line in std::io::BufReader::new(stdout)
            .lines()
            .map_while(|l| l.ok())
        {
            if tx.send(line).is_err() {
                break;
            }
        }
    });
    let t0 = Instant::now();
    let mut seen = Vec::new();
    let mut waiting = false;
    while t0.elapsed() < CHILD_LIMIT {
        match lines.recv_timeout(Duration::from_millis(100)) {
            Ok(line) => {
                waiting |= line.contains("child: waiting");
                seen.push(line);
                if waiting {
                    break;
                }
            }
            Err(std::sync::mpsc::RecvTimeoutError::Timeout) => {}
            Err(std::sync::mpsc::RecvTimeoutError::Disconnected) => break,
        }
    }
    // Release the record whatever the child said, so nothing waits on.
    let released = gate_stream
        .record_notify(&gate)
        .and_then(|()| s.synchronize());
    let status = loop {
        if let Some(st) = child.try_wait().expect("wait for the child") {
            break Some(st);
        }
        if t0.elapsed() > CHILD_LIMIT {
            let _ = child.kill();
            let _ = child.wait();
            break None;
        }
        std::thread::sleep(Duration::from_millis(20));
    };
    released?;
    while let Ok(line) = lines.recv_timeout(Duration::from_millis(200)) {
        seen.push(line);
    }
    let out = seen.join("\n");
    assert!(waiting, "the child never waited ({mode} run mode)\n{out}");
    let status = status.unwrap_or_else(|| panic!("the child hung ({mode} run mode)\n{out}"));
    assert!(
        status.success() && out.contains("child: held"),
        "{mode} run mode: {status:?}\n{out}"
    );
    drop(event);
    drop(gate);
    s.destroy()?;
    gate_stream.destroy()
}

#[test]
fn an_ipc_event_of_another_process_is_waited_after_an_escalation() {
    for (device_mode, mode) in [(false, "host"), (true, "device")] {
        let _sim = take(mode_config(device_mode));
        let acl = Acl::init().expect("aclInit");
        let r = in_mode!(&acl, device_mode, |ctx| ipc_foreign_parent(mode, ctx));
        r.expect("flow");
        acl.finalize().expect("aclFinalize");
        assert_clean();
    }
}

fn serve_exception_flow<M: RunMode>(acl: &Acl) -> Result<String> {
    let device = acl.require::<M>()?.device(0)?;
    make_guard!(g);
    let ctx = device.create_context(g)?;
    let stream = ctx.create_stream()?;
    let mut d = ctx.alloc::<u8>(64)?;
    let t0 = Instant::now();
    let r = stream.serve_host_fns(|_server| {
        ctx.scope_with_timeout(Duration::from_millis(300), |s| {
            make_guard!(l);
            let lane = s.lane(&stream, l);
            lane.host_fn(|| std::thread::sleep(Duration::from_millis(100)))?;
            sim::inject_stream_task_fault(stream.as_raw(), 1, sys::ACL_ERROR_RT_AICORE_EXCEPTION);
            let _x = lane.memset(&mut d, 1)?;
            lane.host_fn(|| std::thread::sleep(Duration::from_millis(600)))?;
            Ok(())
        })
    })?;
    let took = t0.elapsed();
    let after = stream.synchronize();
    drop(d);
    stream.destroy()?;
    ctx.destroy()?;
    device.reset()?;
    assert!(took < Duration::from_secs(10), "{took:?}");
    Ok(format!("{r:?} / then {after:?}"))
}

/// An exception handler is registered; the serving thread runs a scope
/// with a deadline on its served stream, where a task faults between two
/// host functions and the second outlives the deadline. The scope ends,
/// typed (its timeout or the fault), within the deadline plus the running
/// host function; the handler, run by the runtime meanwhile, only records.
fn serve_exception_deadline(device_mode: bool) {
    let _sim = take(compact(mode_config(device_mode)));
    let acl = Acl::init().expect("aclInit");
    let seen = Arc::new(std::sync::Mutex::new(Vec::new()));
    let sink = seen.clone();
    let handler = acl
        .on_exception(move |info| sink.lock().unwrap().push(info.error_code()))
        .expect("on_exception");
    let out = if device_mode {
        serve_exception_flow::<aclrt::DeviceMode>(&acl)
    } else {
        serve_exception_flow::<aclrt::HostMode>(&acl)
    };
    println!("child: {out:?}, handler saw {:?}", seen.lock().unwrap());
    let out = out.expect("flow");
    let code = sys::ACL_ERROR_RT_AICORE_EXCEPTION;
    assert!(
        out.starts_with("Err(ScopeTimeout") || out.starts_with(&format!("Err(Acl {{ code: {code}")),
        "{out}"
    );
    assert!(seen.lock().unwrap().iter().all(|&c| c == code));
    handler.unregister().expect("unregister");
    acl.finalize().expect("aclFinalize");
}

/// A scope's deadline aborts its stream after a task there faulted; a new
/// scope then queues correct work on the same stream and waits for it.
/// The old fault belongs to the first scope's work: the new scope's
/// checked wait must not fail with it.
fn deadline_fault_then_new_scope<M: RunMode>(ctx: &Context<'_, '_, M>) -> Result<()> {
    let stream = ctx.create_stream()?;
    let mut d = ctx.alloc::<u8>(64)?;
    let r = ctx.scope_with_timeout(Duration::from_millis(300), |s| {
        make_guard!(l);
        let lane = s.lane(&stream, l);
        lane.host_fn(|| std::thread::sleep(Duration::from_millis(100)))?;
        sim::inject_stream_task_fault(stream.as_raw(), 1, sys::ACL_ERROR_RT_AICORE_EXCEPTION);
        let _x = lane.memset(&mut d, 1)?;
        lane.host_fn(|| std::thread::sleep(Duration::from_millis(600)))?;
        Ok(())
    });
    println!("child: the deadline scope {r:?}");
    assert!(r.is_err());
    let again = ctx.scope(|s| {
        make_guard!(l);
        let lane = s.lane(&stream, l);
        lane.memset(&mut d, 2)?.wait()?;
        Ok(())
    });
    println!("child: the next scope {again:?}");
    again?;
    let mut h = [0u8; 64];
    ctx.copy(&d, &mut h[..])?;
    assert!(h.iter().all(|&v| v == 2));
    drop(d);
    stream.destroy()
}

/// The crate's allocator callbacks as the runtime's users reach them.
fn allocator_callbacks(
    stream: *mut core::ffi::c_void,
) -> Option<(
    usize,
    unsafe extern "C" fn(sys::aclrtAllocator, usize) -> *mut core::ffi::c_void,
)> {
    let (mut d, mut o) = (core::ptr::null_mut(), core::ptr::null_mut());
    let (mut af, mut ff, mut aa, mut ga) = (None, None, None, None);
    // SAFETY: every output is a valid, writable slot.
    let code = unsafe {
        sys::aclrtAllocatorGetByStream(stream, &mut d, &mut o, &mut af, &mut ff, &mut aa, &mut ga)
    };
    if code != sys::ACL_SUCCESS {
        return None;
    }
    Some((o as usize, af?))
}

fn allocator_flow<M: RunMode>(acl: &Acl) -> Result<String> {
    let device = acl.require::<M>()?.device(0)?;
    make_guard!(g);
    let ctx = device.create_context(g)?;
    let s = ctx.create_stream()?;
    let raw = s.as_raw();
    let reg = s.register_allocator(4096)?;
    let (obj, alloc) = allocator_callbacks(raw).expect("registered");
    // SAFETY: the crate's callback with its object.
    let block = unsafe { alloc(obj as sys::aclrtAllocator, 128) };
    assert!(!block.is_null());
    std::mem::forget(reg);
    s.destroy()?;
    let destroyed = ctx.destroy();
    let reset = device.reset();
    // SAFETY: as above; the pool of a forgotten guard stays callable.
    let after = unsafe { alloc(obj as sys::aclrtAllocator, 128) };
    Ok(format!(
        "ctx {destroyed:?}, reset {reset:?}, block after {}",
        if after.is_null() { "none" } else { "some" }
    ))
}

/// The allocator's guard is forgotten, then its stream destroyed, its
/// context destroyed (refused: its blocks are live children) and the
/// device reset: typed outcomes, and the simulator sees no use of freed
/// memory or handle.
fn allocator_forgotten_then_reset(device_mode: bool) {
    let _sim = take(mode_config(device_mode));
    let acl = Acl::init().expect("aclInit");
    let out = if device_mode {
        allocator_flow::<aclrt::DeviceMode>(&acl)
    } else {
        allocator_flow::<aclrt::HostMode>(&acl)
    };
    println!("child: {out:?}");
    let out = out.expect("flow");
    assert!(out.starts_with("ctx Err(LiveChildren"), "{out}");
    // The device keeps the blocks the pool still hands out.
    assert!(out.contains("reset Err(LiveChildren"), "{out}");
    assert!(out.ends_with("block after some"), "{out}");
    let audit = sim::audit();
    println!("child: violations {:?}", violation_kinds(&audit));
    assert!(audit.violations.is_empty(), "{audit:#?}");
    drop(acl);
}

/// A scope whose lane waits for a notify no record matched synchronises
/// that stream itself: refused (typed), and the scope's end aborts.
fn unmatched_then_own_sync<M: RunMode>(ctx: &Context<'_, '_, M>) -> Result<String> {
    let (a, b) = (ctx.create_stream()?, ctx.create_stream()?);
    let mut n = ctx.create_notify()?;
    let mut own = None;
    let r = ctx.scope(|s| {
        make_guard!(ga);
        make_guard!(gb);
        let (_la, lb) = (s.lane(&a, ga), s.lane(&b, gb));
        let n = s.notify(&mut n)?;
        lb.wait_notify(n)?;
        own = Some(b.synchronize());
        Ok(())
    });
    drop(n);
    a.destroy()?;
    b.destroy()?;
    Ok(format!("{own:?} then {r:?}"))
}

/// The same in a thread-local destructor that runs after the crate's own
/// thread-locals of that thread are gone (they were made after this one,
/// so they are destroyed first): the wait is refused up front (typed) or
/// the synchronisation is, never a hang.
fn tls_destructor_notify(device_mode: bool) {
    let _sim = take(mode_config(device_mode));
    struct App(Option<Acl>, std::sync::mpsc::Sender<String>);
    impl App {
        fn run(&self) -> String {
            let acl = self.0.as_ref().expect("set");
            let device_mode = std::env::var("ACLRT_SIM_RUN_MODE").as_deref() == Ok("device");
            let mut out = String::new();
            let r = in_mode!(acl, device_mode, |ctx| {
                out = unmatched_then_own_sync(ctx)?;
                Ok(())
            });
            format!("{out} / {r:?}")
        }
    }
    impl Drop for App {
        fn drop(&mut self) {
            let out = self.run();
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
            let live = a.borrow().as_ref().expect("set").run();
            println!("child: live: {live}");
            assert!(
                live.starts_with("Some(Err(NotifyNotRecorded")
                    && live.contains("then Err(NotifyNotRecorded"),
                "{live}"
            );
        });
    })
    .join()
    .expect("the thread ends normally");
    let out = rx.recv_timeout(CHILD_LIMIT).expect("the destructor ran");
    println!("child: tls-dtor: {out}");
    let refused_up_front = out.contains("InCallback");
    let refused_sync =
        out.starts_with("Some(Err(NotifyNotRecorded") && out.contains("then Err(NotifyNotRecorded");
    assert!(refused_up_front || refused_sync, "{out}");
    assert!(out.ends_with("/ Ok(())"), "{out}");
}

/// The serving thread runs a scope with a deadline on the stream it
/// serves, whose host function outlives the deadline: the scope ends with
/// its timeout (or its work done), never hangs, and the subscription ends.
fn serve_scope_deadline<M: RunMode>(ctx: &Context<'_, '_, M>) -> Result<()> {
    let stream = ctx.create_stream()?;
    let r = stream.serve_host_fns(|_server| {
        ctx.scope_with_timeout(Duration::from_millis(200), |s| {
            make_guard!(l);
            let lane = s.lane(&stream, l);
            lane.host_fn(|| std::thread::sleep(Duration::from_millis(600)))?;
            lane.host_fn(|| {})?;
            Ok(())
        })
    })?;
    println!("child: served scope {r:?}");
    assert!(
        matches!(r, Ok(()) | Err(Error::ScopeTimeout { .. })),
        "{r:?}"
    );
    let _ = stream.synchronize();
    assert!(stream.is_complete()?);
    stream.destroy()
}

/// The serving thread awaits a synchronisation of the stream it serves
/// (`synchronize_async`, driven by `block_on`): refused (typed) or
/// served, never a hang.
fn serve_awaited_sync<M: RunMode>(ctx: &Context<'_, '_, M>) -> Result<()> {
    let stream = ctx.create_stream()?;
    let ran = Arc::new(AtomicBool::new(false));
    let r = stream.serve_host_fns(|_server| {
        let ran = ran.clone();
        stream.launch_host_fn(move || ran.store(true, Ordering::SeqCst))?;
        aclrt::future::block_on(stream.synchronize_async())
    })?;
    println!("child: awaited on the serving thread {r:?}");
    match r {
        Ok(()) => assert!(ran.load(Ordering::SeqCst)),
        Err(e) => assert!(matches!(e, Error::InCallback { .. }), "{e:?}"),
    }
    stream.synchronize()?;
    assert!(ran.load(Ordering::SeqCst));
    stream.destroy()
}

#[test]
fn a_failed_record_task_does_not_hang_the_scope() {
    in_child("record_task_fails");
}

#[test]
fn a_nested_scope_on_a_lane_waiting_for_a_notify_is_refused() {
    in_child("nested_scope_on_waiting_lane");
}

#[test]
fn a_host_fn_panic_before_the_record_is_resumed_not_hung() {
    in_child("host_fn_panics_before_record");
}

#[test]
fn a_deadline_aborting_the_recorder_leaves_the_notify_usable() {
    in_child("deadline_aborts_the_recorder");
}

#[test]
fn recovering_from_an_unmatched_wait_then_more_work_is_typed() {
    in_child("recover_then_more_work");
}

#[test]
fn a_notify_waited_twice_or_recorded_twice() {
    in_child("waited_twice_recorded_once");
}

#[test]
fn process_exit_with_an_unmatched_wait() {
    in_child("exit_with_unmatched_wait");
}

#[test]
fn a_failing_hand_off_on_another_thread() {
    in_child("other_thread_scope_errors");
}

#[test]
fn an_ipc_event_waited_by_a_lane_past_the_deadline_and_dropped_under_a_wait() {
    in_child("ipc_event_lane_deadline");
}

#[test]
fn a_serving_thread_runs_a_scope_with_a_deadline() {
    in_child("serve_scope_deadline");
}

#[test]
fn a_serving_thread_awaits_its_own_stream() {
    in_child("serve_awaited_sync");
}

#[test]
fn an_unmatched_notify_wait_in_a_thread_local_destructor() {
    in_child("tls_destructor_notify");
}

#[test]
fn a_forgotten_allocator_then_its_stream_context_and_device_go() {
    in_child("allocator_forgotten_then_reset");
}

#[test]
fn a_serving_thread_scope_deadline_with_a_fault_and_an_exception_handler() {
    in_child("serve_exception_deadline");
}

#[test]
fn a_fault_aborted_by_a_deadline_does_not_fail_the_next_scope() {
    in_child("deadline_fault_then_new_scope");
}
