//! Attacks on the one-lane fast path of scopes and on `InFlight::wait`
//! synchronising without making its context current. Found by the review of
//! the thread-slot path; the attacks keep their names, and now hold against
//! its successor: a one-lane scope is in no registry and learns from its
//! stream's record whether an escalation aborted the stream since it
//! enlisted it (a ticket taken before it queued anything).
//!
//! Most attacks were written for the process's first escalation (the old
//! slots were used only until then), so each runs in a process of its own.
//! This binary has its own `main`
//! (`harness = false`): with no `SLOT_ATTACK` in its environment it runs
//! itself once per attack (the race attack several times), each child
//! running one attack, and fails if any child fails. An argument filters
//! the attacks by name.
//!
//! The property checked throughout: a scope (or a wait) that reports `Ok`
//! computed its result; work discarded by an escalation is reported as
//! `WorkAborted`; nothing hangs.

mod common;

use std::process::Command;
use std::sync::mpsc;
use std::time::Duration;

use aclrt::sim;
use aclrt::{Acl, Error, HostMode, make_guard};
use common::*;

/// How many times the race attack runs (each in a fresh process).
const RACE_RUNS: usize = 12;

type Attack = fn() -> aclrt::Result<()>;

const ATTACKS: &[(&str, Attack)] = &[
    (
        "nested_inner_escalation_marks_outer_slot",
        nested_inner_escalation_marks_outer_slot,
    ),
    ("marked_then_second_lane", || {
        marked_then_promoted(Promotion::SecondLane)
    }),
    ("marked_then_host_fn", || {
        marked_then_promoted(Promotion::HostFn)
    }),
    ("marked_then_record", || {
        marked_then_promoted(Promotion::Record)
    }),
    ("marked_then_wait_event", || {
        marked_then_promoted(Promotion::WaitEvent)
    }),
    ("marked_then_own_escalation", || {
        marked_then_promoted(Promotion::OwnEscalation)
    }),
    (
        "escalation_nested_in_a_slotted_scope_marks_only_its_stream",
        escalation_nested_in_a_slotted_scope_marks_only_its_stream,
    ),
    (
        "panicked_slotted_scope_leaves_the_slot_usable",
        panicked_slotted_scope_leaves_the_slot_usable,
    ),
    (
        "unwaited_in_flight_in_a_slot_is_reached",
        unwaited_in_flight_in_a_slot_is_reached,
    ),
    ("scope_in_thread_local_destructor_local_first", || {
        scope_in_thread_local_destructor(DtorOrder::LocalFirst)
    }),
    ("scope_in_thread_local_destructor_slot_first", || {
        scope_in_thread_local_destructor(DtorOrder::SlotFirst)
    }),
    ("scope_in_thread_local_destructor_no_slot_yet", || {
        scope_in_thread_local_destructor(DtorOrder::NoSlotYet)
    }),
    (
        "scope_entering_during_the_first_escalation_is_marked",
        scope_entering_during_the_first_escalation_is_marked,
    ),
    (
        "slotted_scope_behind_an_outside_wait_is_reached",
        slotted_scope_behind_an_outside_wait_is_reached,
    ),
    ("signal_before_escalation_then_second_lane_waits", || {
        signal_before_escalation_then_wait_for(false)
    }),
    ("signal_before_escalation_then_wait_for_two_lanes", || {
        signal_before_escalation_then_wait_for(true)
    }),
    (
        "mark_before_escalation_then_wait_mark_on_the_same_lane",
        mark_before_escalation_then_wait_mark_on_the_same_lane,
    ),
    (
        "race_first_escalation_with_short_lived_threads",
        race_first_escalation_with_short_lived_threads,
    ),
    ("wait_with_another_context_current_keeps_it_current", || {
        wait_with_another_context_current_keeps_it_current(0)
    }),
    (
        "wait_with_another_devices_context_current_keeps_it_current",
        || wait_with_another_context_current_keeps_it_current(1),
    ),
    ("wait_with_no_current_context", wait_with_no_current_context),
    ("scope_in_host_fn_is_refused", scope_in_host_fn_is_refused),
    (
        "sim_reset_inside_a_slotted_scope",
        sim_reset_inside_a_slotted_scope,
    ),
];

fn main() {
    if let Ok(name) = std::env::var("SLOT_ATTACK") {
        let (_, attack) = ATTACKS
            .iter()
            .find(|(n, _)| *n == name)
            .unwrap_or_else(|| panic!("no attack named {name}"));
        if let Err(e) = attack() {
            panic!("{name}: {e:?}");
        }
        return;
    }
    let filter: Option<String> = std::env::args().skip(1).find(|a| !a.starts_with('-'));
    let exe = std::env::current_exe().expect("the test binary's path");
    let mut failed = Vec::new();
    let mut ran = 0;
    for (name, _) in ATTACKS {
        if filter.as_ref().is_some_and(|f| !name.contains(f.as_str())) {
            continue;
        }
        let runs = if name.starts_with("race_") {
            RACE_RUNS
        } else {
            1
        };
        for run in 0..runs {
            ran += 1;
            let out = run_child(&exe, name, run);
            if out.status.success() {
                println!("attack {name} (run {run}) ... ok");
            } else {
                println!(
                    "attack {name} (run {run}) ... FAILED ({})\n--- stdout\n{}--- stderr\n{}",
                    out.status,
                    String::from_utf8_lossy(&out.stdout),
                    String::from_utf8_lossy(&out.stderr)
                );
                failed.push(format!("{name} (run {run})"));
            }
        }
    }
    println!("{ran} attack run(s), {} failed", failed.len());
    if !failed.is_empty() {
        eprintln!("failed: {failed:?}");
        std::process::exit(1);
    }
}

/// Runs one attack in a child process; a child that has not ended after
/// twice [`HANG_GUARD`] hangs: it is killed (and fails).
fn run_child(exe: &std::path::Path, name: &str, run: usize) -> std::process::Output {
    let mut child = Command::new(exe)
        .env("SLOT_ATTACK", name)
        .env("SLOT_ATTACK_RUN", run.to_string())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .expect("the test binary runs");
    let t0 = std::time::Instant::now();
    // Hang guard, not a time bound on the property under test.
    while child.try_wait().expect("the child's status").is_none() {
        if t0.elapsed() > 2 * HANG_GUARD {
            println!("attack {name} (run {run}) hangs: killed");
            let _ = child.kill();
            break;
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    child.wait_with_output().expect("the child's output")
}

/// A long per-task delay: work queued on a delayed stream is still queued
/// when the escalation aborts it.
const HELD: Duration = Duration::from_secs(30);

/// A timed scope on `stream` that misses its deadline: the escalation that
/// aborts `stream`. Asserts that it timed out.
fn escalate_on<'id, M: aclrt::RunMode>(
    ctx: &aclrt::Context<'_, 'id, M>,
    stream: &aclrt::Stream<'_, 'id>,
    scratch: &mut aclrt::DeviceBuffer<'_, 'id, u8>,
) {
    let timed = ctx.scope_with_timeout(Duration::from_millis(20), |s| {
        make_guard!(l);
        let lane = s.lane(stream, l);
        let _ = lane.memset(&mut *scratch, 0)?;
        Ok(())
    });
    assert!(
        matches!(timed, Err(Error::ScopeTimeout { .. })),
        "the timed scope escalates: {timed:?}"
    );
}

/// What a scope whose work an escalation discarded must report: its wait
/// (`wait`, when it got to one) and its end (`end`) say `WorkAborted`, and
/// `out`, the destination of its discarded copy, was not written.
fn assert_discarded<T: std::fmt::Debug, U: std::fmt::Debug>(
    wait: &str,
    waited: &Option<aclrt::Result<T>>,
    end: &str,
    ended: &aclrt::Result<U>,
    out: &[u32],
) {
    assert!(
        matches!(waited, Some(Err(Error::WorkAborted))),
        "{wait}: {waited:?}"
    );
    assert!(matches!(ended, Err(Error::WorkAborted)), "{end}: {ended:?}");
    assert_eq!(out, [0u32; 64], "the discarded copy wrote nothing");
}

/// The thread's slot is held by an outer scope with work queued (held back)
/// on `s1`; a scope nested in it, on the same stream, escalates (the
/// process's first escalation): the outer scope's work is discarded, so its
/// wait and its end must say so.
fn nested_inner_escalation_marks_outer_slot() -> aclrt::Result<()> {
    in_host_context(|ctx| {
        let s1 = ctx.create_stream()?;
        let src = ctx.alloc_host_from(&pattern_u32(64, 1))?;
        let mut d = ctx.alloc::<u32>(64)?;
        let mut out = ctx.alloc_host_zeroed::<u32>(64)?;
        let mut scratch = ctx.alloc::<u8>(16)?;
        sim::set_stream_delay(s1.as_raw(), HELD);
        let mut waited = None;
        let outer = ctx.scope(|s| {
            make_guard!(l);
            let lane = s.lane(&s1, l);
            let x = lane.copy(&src, &mut d)?;
            let y = lane.copy(&x, &mut out)?;
            escalate_on(ctx, &s1, &mut scratch);
            waited = Some(y.wait().map(|o| o.to_vec()));
            Ok(())
        });
        sim::set_stream_delay(s1.as_raw(), Duration::ZERO);
        assert!(
            matches!(waited, Some(Err(Error::WorkAborted))),
            "the outer scope's wait: {waited:?}"
        );
        assert!(
            matches!(outer, Err(Error::WorkAborted)),
            "the outer scope: {outer:?}"
        );
        assert_eq!(out.to_vec(), [0u32; 64], "the discarded copy wrote nothing");
        drop((src, d, out, scratch));
        s1.destroy()?;
        Ok(())
    })
}

/// How a marked slotted scope moves to the registry.
#[derive(Clone, Copy, Debug)]
enum Promotion {
    SecondLane,
    HostFn,
    Record,
    WaitEvent,
    /// Its own deadline: it ends with a timeout of its own.
    OwnEscalation,
}

/// A slotted scope on another thread with work held back on `s1`; the
/// process's first escalation aborts `s1` (marking the slot); only then
/// does the scope leave its slot for the registry (`how`). The mark must
/// move with it: its wait reports `WorkAborted`, as does its end.
fn marked_then_promoted(how: Promotion) -> aclrt::Result<()> {
    in_host_context(|ctx| {
        let (s1, s2) = (ctx.create_stream()?, ctx.create_stream()?);
        let src = ctx.alloc_host_from(&pattern_u32(64, 2))?;
        let mut d = ctx.alloc::<u32>(64)?;
        let mut d2 = ctx.alloc::<u32>(64)?;
        let mut d3 = ctx.alloc::<u32>(64)?;
        let mut out = ctx.alloc_host_zeroed::<u32>(64)?;
        let mut scratch = ctx.alloc::<u8>(16)?;
        let ev = s2.record(ctx.create_event()?)?;
        ev.synchronize()?;
        sim::set_stream_delay(s1.as_raw(), HELD);
        let (queued_tx, queued_rx) = mpsc::channel();
        let (marked_tx, marked_rx) = mpsc::channel::<()>();
        let ran = std::sync::atomic::AtomicBool::new(false);
        let (waited, ended) = std::thread::scope(|t| {
            let (ctx, s1, s2, src, ev, ran) = (&ctx, &s1, &s2, &src, &ev, &ran);
            let (d, d2, d3, out) = (&mut d, &mut d2, &mut d3, &mut out);
            let worker = t.spawn(move || {
                let mut waited = None;
                // Its own escalation: a deadline its end misses (held-back
                // work queued after the wait). Otherwise no deadline to
                // speak of.
                let timeout = match how {
                    Promotion::OwnEscalation => Duration::from_millis(20),
                    _ => Duration::from_secs(3600),
                };
                let ended = ctx.scope_with_timeout(timeout, |s| {
                    make_guard!(l);
                    let lane = s.lane(s1, l);
                    let x = lane.copy(src, &mut *d)?;
                    let y = lane.copy(&x, &mut *out)?;
                    queued_tx.send(()).unwrap();
                    marked_rx.recv().unwrap();
                    match how {
                        Promotion::SecondLane => {
                            make_guard!(l2);
                            let lane2 = s.lane(s2, l2);
                            let _ = lane2.memset(&mut *d2, 3)?;
                        }
                        Promotion::HostFn => {
                            lane.host_fn(move || {
                                ran.store(true, std::sync::atomic::Ordering::SeqCst)
                            })?;
                        }
                        Promotion::Record => {
                            let _ = lane.record(ctx.create_event()?)?;
                        }
                        Promotion::WaitEvent => lane.wait_event(ev)?,
                        Promotion::OwnEscalation => {}
                    }
                    waited = Some(y.wait().map(|o| o.to_vec()));
                    if let Promotion::OwnEscalation = how {
                        let _ = lane.memset(&mut *d3, 0)?;
                    }
                    Ok(())
                });
                (waited, ended)
            });
            queued_rx.recv().unwrap();
            escalate_on(ctx, s1, &mut scratch);
            // The escalation is over (its scope returned): the worker's
            // slot is marked, and the stream idle.
            sim::set_stream_delay(s1.as_raw(), Duration::from_millis(50));
            marked_tx.send(()).unwrap();
            worker.join().unwrap()
        });
        sim::set_stream_delay(s1.as_raw(), Duration::ZERO);
        assert!(
            matches!(waited, Some(Err(Error::WorkAborted))),
            "{how:?}: the marked scope's wait: {waited:?}"
        );
        match how {
            Promotion::OwnEscalation => assert!(
                matches!(
                    ended,
                    Err(Error::ScopeTimeout { .. }) | Err(Error::WorkAborted)
                ),
                "{how:?}: the marked scope: {ended:?}"
            ),
            _ => assert!(
                matches!(ended, Err(Error::WorkAborted)),
                "{how:?}: the marked scope: {ended:?}"
            ),
        }
        assert_eq!(out.to_vec(), [0u32; 64], "the discarded copy wrote nothing");
        if matches!(how, Promotion::HostFn) {
            assert!(
                ran.load(std::sync::atomic::Ordering::SeqCst),
                "queued after the abort, the host function ran"
            );
        }
        drop((src, d, d2, d3, out, scratch, ev));
        s2.destroy()?;
        s1.destroy()?;
        Ok(())
    })
}

/// Thread T: a slotted scope on `s2` (not delayed) and, nested in it, a
/// timed scope on `s1` that escalates (the first escalation). Thread U: a
/// slotted scope on `s1` with work held back. U's work is discarded and
/// must be reported; T's outer scope, on a stream the escalation did not
/// abort, computes its result and reports `Ok`.
fn escalation_nested_in_a_slotted_scope_marks_only_its_stream() -> aclrt::Result<()> {
    in_host_context(|ctx| {
        let (s1, s2) = (ctx.create_stream()?, ctx.create_stream()?);
        let src = ctx.alloc_host_from(&pattern_u32(64, 3))?;
        let (mut d_t, mut d_u) = (ctx.alloc::<u32>(64)?, ctx.alloc::<u32>(64)?);
        let mut out_t = ctx.alloc_host_zeroed::<u32>(64)?;
        let mut out_u = ctx.alloc_host_zeroed::<u32>(64)?;
        let mut scratch = ctx.alloc::<u8>(16)?;
        sim::set_stream_delay(s1.as_raw(), HELD);
        let (queued_tx, queued_rx) = mpsc::channel();
        let (done_tx, done_rx) = mpsc::channel::<()>();
        let (t_res, u_res) = std::thread::scope(|t| {
            let (ctx, s1, s2, src) = (&ctx, &s1, &s2, &src);
            let (d_u, out_u) = (&mut d_u, &mut out_u);
            let u = t.spawn(move || {
                ctx.scope(|s| {
                    make_guard!(l);
                    let lane = s.lane(s1, l);
                    let x = lane.copy(src, &mut *d_u)?;
                    let y = lane.copy(&x, &mut *out_u)?;
                    queued_tx.send(()).unwrap();
                    done_rx.recv().unwrap();
                    y.wait().map(|_| ())
                })
            });
            queued_rx.recv().unwrap();
            let t_res = ctx.scope(|s| {
                make_guard!(l);
                let lane = s.lane(s2, l);
                let x = lane.copy(src, &mut d_t)?;
                let y = lane.copy(&x, &mut out_t)?;
                escalate_on(ctx, s1, &mut scratch);
                y.wait().map(|o| o.to_vec())
            });
            done_tx.send(()).unwrap();
            (t_res, u.join().unwrap())
        });
        sim::set_stream_delay(s1.as_raw(), Duration::ZERO);
        assert_eq!(t_res?, pattern_u32(64, 3), "T's outer scope on s2");
        assert!(matches!(u_res, Err(Error::WorkAborted)), "U: {u_res:?}");
        assert_eq!(out_u.to_vec(), [0u32; 64]);
        drop((src, d_t, d_u, out_t, out_u, scratch));
        s2.destroy()?;
        s1.destroy()?;
        Ok(())
    })
}

/// A slotted scope panics (its end runs on the unwind path); the same
/// thread's next scope, slotted, is then reached by the first escalation,
/// and a scope after that on the same thread computes its result.
fn panicked_slotted_scope_leaves_the_slot_usable() -> aclrt::Result<()> {
    in_host_context(|ctx| {
        let s1 = ctx.create_stream()?;
        let src = ctx.alloc_host_from(&pattern_u32(64, 4))?;
        let mut d = ctx.alloc::<u32>(64)?;
        let mut out = ctx.alloc_host_zeroed::<u32>(64)?;
        let mut scratch = ctx.alloc::<u8>(16)?;
        let (queued_tx, queued_rx) = mpsc::channel();
        let (done_tx, done_rx) = mpsc::channel::<()>();
        let (second, third) = std::thread::scope(|t| {
            let (ctx, s1, src) = (&ctx, &s1, &src);
            let (d, out) = (&mut d, &mut out);
            let w = t.spawn(move || {
                let panicked = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
                    let _ = ctx.scope(|s| {
                        make_guard!(l);
                        let lane = s.lane(s1, l);
                        let _ = lane.copy(src, &mut *d)?;
                        panic!("attack: a panic inside a slotted scope");
                        #[allow(unreachable_code)]
                        Ok(())
                    });
                }));
                assert!(panicked.is_err());
                sim::set_stream_delay(s1.as_raw(), HELD);
                let second = ctx.scope(|s| {
                    make_guard!(l);
                    let lane = s.lane(s1, l);
                    let x = lane.copy(src, &mut *d)?;
                    let y = lane.copy(&x, &mut *out)?;
                    queued_tx.send(()).unwrap();
                    done_rx.recv().unwrap();
                    y.wait().map(|_| ())
                });
                sim::set_stream_delay(s1.as_raw(), Duration::ZERO);
                let third = ctx.scope(|s| {
                    make_guard!(l);
                    let lane = s.lane(s1, l);
                    let x = lane.copy(src, &mut *d)?;
                    lane.copy(&x, &mut *out)?.wait().map(|o| o.to_vec())
                });
                (second, third)
            });
            queued_rx.recv().unwrap();
            escalate_on(ctx, s1, &mut scratch);
            done_tx.send(()).unwrap();
            w.join().unwrap()
        });
        assert!(matches!(second, Err(Error::WorkAborted)), "{second:?}");
        assert_eq!(third?, pattern_u32(64, 4));
        drop((src, d, out, scratch));
        s1.destroy()?;
        Ok(())
    })
}

/// A slotted scope leaves its `InFlight` unwaited (its work is still queued); the
/// first escalation aborts the stream: the scope's end must report it.
fn unwaited_in_flight_in_a_slot_is_reached() -> aclrt::Result<()> {
    in_host_context(|ctx| {
        let s1 = ctx.create_stream()?;
        let src = ctx.alloc_host_from(&pattern_u32(64, 5))?;
        let mut d = ctx.alloc::<u32>(64)?;
        let mut out = ctx.alloc_host_zeroed::<u32>(64)?;
        let mut scratch = ctx.alloc::<u8>(16)?;
        sim::set_stream_delay(s1.as_raw(), HELD);
        let (queued_tx, queued_rx) = mpsc::channel();
        let (done_tx, done_rx) = mpsc::channel::<()>();
        let ended = std::thread::scope(|t| {
            let (ctx, s1, src) = (&ctx, &s1, &src);
            let (d, out) = (&mut d, &mut out);
            let w = t.spawn(move || {
                ctx.scope(|s| {
                    make_guard!(l);
                    let lane = s.lane(s1, l);
                    let x = lane.copy(src, &mut *d)?;
                    // `InFlight` and `Lane` have no `Drop`: forgetting them
                    // is leaving them unused.
                    let _unwaited = lane.copy(&x, &mut *out)?;
                    queued_tx.send(()).unwrap();
                    done_rx.recv().unwrap();
                    Ok(())
                })
            });
            queued_rx.recv().unwrap();
            escalate_on(ctx, s1, &mut scratch);
            done_tx.send(()).unwrap();
            w.join().unwrap()
        });
        sim::set_stream_delay(s1.as_raw(), Duration::ZERO);
        assert!(matches!(ended, Err(Error::WorkAborted)), "{ended:?}");
        assert_eq!(out.to_vec(), [0u32; 64]);
        drop((src, d, out, scratch));
        s1.destroy()?;
        Ok(())
    })
}

/// The outcome of the scenario a thread-local destructor ran.
static DTOR_OUTCOME: std::sync::Mutex<Option<String>> = std::sync::Mutex::new(None);

/// A thread-local value whose destructor runs a scenario with the runtime
/// it owns: a scope with work held back on a stream, which another thread's
/// scope escalates on (the process's first escalation).
struct InDtor(Option<Acl>);

impl Drop for InDtor {
    fn drop(&mut self) {
        if let Some(acl) = self.0.take() {
            let outcome = match reached_in_dtor(&acl) {
                Ok(()) => "ok".to_string(),
                Err(e) => format!("error: {e:?}"),
            };
            let outcome = match acl.finalize() {
                Ok(()) => outcome,
                Err(e) => format!("{outcome}; finalize: {e:?}"),
            };
            *DTOR_OUTCOME.lock().unwrap() = Some(outcome);
        }
    }
}

std::thread_local! {
    static IN_DTOR: std::cell::RefCell<InDtor> = const { std::cell::RefCell::new(InDtor(None)) };
}

/// Run while the thread's locals are destroyed: a scope on `s1` (in the
/// thread's slot or in the registry, depending on whether the slot is still
/// there) with held-back work, escalated by a helper thread. `Ok` only if
/// the scope and its wait report `WorkAborted` and nothing was written.
fn reached_in_dtor(acl: &Acl) -> aclrt::Result<()> {
    let device = acl.require::<HostMode>()?.device(0)?;
    make_guard!(g);
    let ctx = device.create_context(g)?;
    let s1 = ctx.create_stream()?;
    let mut scratch = ctx.alloc::<u8>(16)?;
    let src = ctx.alloc_host_from(&pattern_u32(64, 6))?;
    let mut d = ctx.alloc::<u32>(64)?;
    let mut out = ctx.alloc_host_zeroed::<u32>(64)?;
    sim::set_stream_delay(s1.as_raw(), HELD);
    let (queued_tx, queued_rx) = mpsc::channel::<()>();
    let (done_tx, done_rx) = mpsc::channel::<()>();
    let mut waited = None;
    let ended = std::thread::scope(|t| {
        let (ctx_r, s1_r, scratch) = (&ctx, &s1, &mut scratch);
        t.spawn(move || {
            queued_rx.recv().unwrap();
            escalate_on(ctx_r, s1_r, scratch);
            done_tx.send(()).unwrap();
        });
        ctx.scope(|s| {
            make_guard!(l);
            let lane = s.lane(&s1, l);
            let x = lane.copy(&src, &mut d)?;
            let y = lane.copy(&x, &mut out)?;
            queued_tx.send(()).unwrap();
            done_rx.recv().unwrap();
            waited = Some(y.wait().map(|o| o.to_vec()));
            Ok(())
        })
    });
    sim::set_stream_delay(s1.as_raw(), Duration::ZERO);
    assert_discarded(
        "the wait in a thread-local destructor",
        &waited,
        "the scope in a thread-local destructor",
        &ended,
        &out.to_vec(),
    );
    drop((src, d, out, scratch));
    s1.destroy()?;
    ctx.destroy()?;
    device.reset()
}

/// A slotted scope (makes the thread's slot, then leaves it).
fn one_slotted_scope(acl: &Acl) -> aclrt::Result<()> {
    let device = acl.require::<HostMode>()?.device(0)?;
    make_guard!(g);
    let ctx = device.create_context(g)?;
    let s1 = ctx.create_stream()?;
    let mut d = ctx.alloc::<u8>(16)?;
    ctx.scope(|s| {
        make_guard!(l);
        s.lane(&s1, l).memset(&mut d, 1)?.wait().map(drop)
    })?;
    drop(d);
    s1.destroy()?;
    ctx.destroy()?;
    device.reset()
}

/// When the thread's locals are destroyed relative to its slot.
#[derive(Clone, Copy, Debug)]
enum DtorOrder {
    /// The local is registered before the slot is made.
    LocalFirst,
    /// After.
    SlotFirst,
    /// The thread never had a slot: it is made during the destruction.
    NoSlotYet,
}

/// A scope opened in a thread-local destructor (the slot may be gone, or
/// made while the locals are destroyed), with work held back when the
/// process's first escalation aborts its stream: it must report it.
fn scope_in_thread_local_destructor(order: DtorOrder) -> aclrt::Result<()> {
    let _sim = take(host_config());
    std::thread::spawn(move || {
        // At most one `Acl` at a time: the slotted scope runs with its own,
        // finalised before the destructor's is made. A local is registered
        // for destruction when first touched.
        let slotted = || {
            let acl = Acl::init().unwrap();
            one_slotted_scope(&acl).unwrap();
            acl.finalize().unwrap();
        };
        match order {
            DtorOrder::LocalFirst => {
                IN_DTOR.with(|_| ());
                slotted();
            }
            DtorOrder::SlotFirst => slotted(),
            DtorOrder::NoSlotYet => {}
        }
        IN_DTOR.with(|l| l.borrow_mut().0 = Some(Acl::init().unwrap()));
    })
    .join()
    .unwrap();
    let outcome = DTOR_OUTCOME.lock().unwrap().take();
    assert_eq!(
        outcome.as_deref(),
        Some("ok"),
        "{order:?}: the scenario in the destructor"
    );
    assert_clean();
    Ok(())
}

/// The process's first escalation aborts two streams, `sa` (held by a host
/// function that cannot be cut short, so the abort waits for it) and then
/// `sb`. While it waits, a fresh thread opens a one-lane scope on `sb` and
/// queues work there, which the abort of `sb` then discards. The scope
/// began after the escalation had marked its streams (the slots, formerly;
/// the streams' records now): its ticket is below the escalation's number,
/// so the record of `sb` tells it; it must report `WorkAborted`.
fn scope_entering_during_the_first_escalation_is_marked() -> aclrt::Result<()> {
    in_host_context(|ctx| {
        let (sa, sb) = (ctx.create_stream()?, ctx.create_stream()?);
        let src = ctx.alloc_host_from(&pattern_u32(64, 11))?;
        let mut d = ctx.alloc::<u32>(64)?;
        let mut out = ctx.alloc_host_zeroed::<u32>(64)?;
        let mut scratch = ctx.alloc::<u8>(16)?;
        sim::set_stream_delay(sb.as_raw(), HELD);
        let gate = HeldGate::new();
        let (queued_tx, queued_rx) = mpsc::channel::<()>();
        let (go_tx, go_rx) = mpsc::channel::<()>();
        let (timed, late) = std::thread::scope(|t| {
            let (ctx, sa, sb, src, gate) = (&ctx, &sa, &sb, &src, &gate);
            let scratch = &mut scratch;
            let escalating = t.spawn(move || {
                ctx.scope_with_timeout(Duration::from_millis(50), |s| {
                    make_guard!(la);
                    s.lane(sa, la).host_fn(gate.body())?;
                    make_guard!(lb);
                    let _ = s.lane(sb, lb).memset(&mut *scratch, 0)?;
                    Ok(())
                })
            });
            assert!(wait_until(|| gate.entered()), "the host function runs");
            // The escalation has marked the slots and is aborting `sa`.
            assert!(
                wait_until(|| sim::call_counts()
                    .iter()
                    .any(|(f, n)| *f == "aclrtStreamAbort" && *n >= 1)),
                "the escalation aborts sa"
            );
            let (d, out) = (&mut d, &mut out);
            let late = t.spawn(move || {
                let mut waited = None;
                let ended = ctx.scope(|s| {
                    make_guard!(l);
                    let lane = s.lane(sb, l);
                    let x = lane.copy(src, &mut *d)?;
                    let y = lane.copy(&x, &mut *out)?;
                    queued_tx.send(()).unwrap();
                    go_rx.recv().unwrap();
                    waited = Some(y.wait().map(|o| o.to_vec()));
                    Ok(())
                });
                (waited, ended)
            });
            queued_rx.recv().unwrap();
            gate.open();
            let timed = escalating.join().unwrap();
            go_tx.send(()).unwrap();
            (timed, late.join().unwrap())
        });
        sim::set_stream_delay(sb.as_raw(), Duration::ZERO);
        assert!(
            matches!(timed, Err(Error::ScopeTimeout { .. })),
            "the escalating scope: {timed:?}"
        );
        let (waited, ended) = late;
        assert_discarded(
            "the late scope's wait",
            &waited,
            "the late scope",
            &ended,
            &out.to_vec(),
        );
        drop((src, d, out, scratch));
        sb.destroy()?;
        sa.destroy()?;
        Ok(())
    })
}

/// A wait queued outside any scope on `s1` (`Stream::wait_event`) for a
/// record on `s2` that has not run; a slotted scope's work on `s1` is
/// queued behind it. The first escalation aborts `s2` (discarding the
/// record), so it also aborts `s1` (the wait would never end), as a stream
/// outside scopes: the slotted scope's work there is discarded too, and it
/// must say so (`mark_slots` also covers those streams).
fn slotted_scope_behind_an_outside_wait_is_reached() -> aclrt::Result<()> {
    in_host_context(|ctx| {
        let (s1, s2) = (ctx.create_stream()?, ctx.create_stream()?);
        let src = ctx.alloc_host_from(&pattern_u32(64, 12))?;
        let mut d = ctx.alloc::<u32>(64)?;
        let mut out = ctx.alloc_host_zeroed::<u32>(64)?;
        let mut scratch = ctx.alloc::<u8>(16)?;
        sim::set_stream_delay(s2.as_raw(), HELD);
        let ev = s2.record(ctx.create_event()?)?;
        s1.wait_event(&ev)?;
        let (queued_tx, queued_rx) = mpsc::channel::<()>();
        let (done_tx, done_rx) = mpsc::channel::<()>();
        let (waited, ended) = std::thread::scope(|t| {
            let (ctx, s1, src) = (&ctx, &s1, &src);
            let (d, out) = (&mut d, &mut out);
            let w = t.spawn(move || {
                let mut waited = None;
                let ended = ctx.scope(|s| {
                    make_guard!(l);
                    let lane = s.lane(s1, l);
                    let x = lane.copy(src, &mut *d)?;
                    let y = lane.copy(&x, &mut *out)?;
                    queued_tx.send(()).unwrap();
                    done_rx.recv().unwrap();
                    waited = Some(y.wait().map(|o| o.to_vec()));
                    Ok(())
                });
                (waited, ended)
            });
            queued_rx.recv().unwrap();
            escalate_on(ctx, &s2, &mut scratch);
            done_tx.send(()).unwrap();
            w.join().unwrap()
        });
        sim::set_stream_delay(s2.as_raw(), Duration::ZERO);
        assert_discarded(
            "the slotted scope's wait",
            &waited,
            "the slotted scope",
            &ended,
            &out.to_vec(),
        );
        // The outside stream reports the abort once; then it works.
        let _ = s1.synchronize();
        s1.synchronize()?;
        drop((src, d, out, scratch, ev));
        s2.destroy()?;
        s1.destroy()?;
        Ok(())
    })
}

/// A scope signals a buffer on `s1` (an event of the scope recorded there,
/// not yet run: `s1` is held back); the escalation of another scope aborts
/// `s1`, discarding that record; only then does the scope hand the buffer
/// over to a lane on `s2` (`wait_for`). A stream wait for a discarded
/// record never ends (acl-facts K.8): the hand-over must be refused
/// (`WorkAborted`) or otherwise not hang the scope.
///
/// `two_lanes`: the lane on `s2` is enlisted before the escalation (the
/// scope is in the registry, and the escalation aborts `s2` too); otherwise
/// the scope is in its slot (one lane) when it is marked, and moves to the
/// registry with the second lane.
fn signal_before_escalation_then_wait_for(two_lanes: bool) -> aclrt::Result<()> {
    in_host_context(|ctx| {
        let (s1, s2) = (ctx.create_stream()?, ctx.create_stream()?);
        let src = ctx.alloc_host_from(&pattern_u32(64, 13))?;
        let mut d = ctx.alloc::<u32>(64)?;
        let mut out = ctx.alloc_host_zeroed::<u32>(64)?;
        let mut scratch = ctx.alloc::<u8>(16)?;
        sim::set_stream_delay(s1.as_raw(), HELD);
        let (queued_tx, queued_rx) = mpsc::channel::<()>();
        let (done_tx, done_rx) = mpsc::channel::<()>();
        let (waited, ended) = std::thread::scope(|t| {
            let (ctx, s1, s2, src) = (&ctx, &s1, &s2, &src);
            let (d, out) = (&mut d, &mut out);
            let w = t.spawn(move || {
                let mut waited = None;
                let ended = ctx.scope(|s| {
                    make_guard!(l1);
                    let lane1 = s.lane(s1, l1);
                    make_guard!(l2);
                    let early = two_lanes.then(|| s.lane(s2, l2));
                    let x = lane1.copy(src, &mut *d)?;
                    let h = lane1.signal(x)?;
                    queued_tx.send(()).unwrap();
                    done_rx.recv().unwrap();
                    waited = Some(match &early {
                        Some(lane2) => lane2
                            .wait_for(h)
                            .and_then(|x| lane2.copy(&x, &mut *out))
                            .and_then(|y| y.wait().map(|o| o.to_vec())),
                        None => s.with_lane(s2, |late| {
                            late.wait_for(h)
                                .and_then(|x| late.copy(&x, &mut *out))
                                .and_then(|y| y.wait().map(|o| o.to_vec()))
                        }),
                    });
                    Ok(())
                });
                (waited, ended)
            });
            queued_rx.recv().unwrap();
            escalate_on(ctx, s1, &mut scratch);
            done_tx.send(()).unwrap();
            w.join().unwrap()
        });
        sim::set_stream_delay(s1.as_raw(), Duration::ZERO);
        assert_discarded(
            "the hand-over after the abort",
            &waited,
            "the scope",
            &ended,
            &out.to_vec(),
        );
        drop((src, d, out, scratch));
        s2.destroy()?;
        s1.destroy()?;
        Ok(())
    })
}

/// One lane (the scope stays in its slot): a mark recorded on `s1` (held
/// back), discarded by another scope's escalation; then the same lane waits
/// for it. That wait would never end: it must be refused (`WorkAborted`)
/// instead of hanging the scope.
fn mark_before_escalation_then_wait_mark_on_the_same_lane() -> aclrt::Result<()> {
    in_host_context(|ctx| {
        let s1 = ctx.create_stream()?;
        let src = ctx.alloc_host_from(&pattern_u32(64, 14))?;
        let mut d = ctx.alloc::<u32>(64)?;
        let mut out = ctx.alloc_host_zeroed::<u32>(64)?;
        let mut scratch = ctx.alloc::<u8>(16)?;
        sim::set_stream_delay(s1.as_raw(), HELD);
        let (queued_tx, queued_rx) = mpsc::channel::<()>();
        let (done_tx, done_rx) = mpsc::channel::<()>();
        let (waited, ended) = std::thread::scope(|t| {
            let (ctx, s1, src) = (&ctx, &s1, &src);
            let (d, out) = (&mut d, &mut out);
            let w = t.spawn(move || {
                let mut waited = None;
                let ended = ctx.scope(|s| {
                    make_guard!(l);
                    let lane = s.lane(s1, l);
                    let x = lane.copy(src, &mut *d)?;
                    let m = lane.mark()?;
                    queued_tx.send(()).unwrap();
                    done_rx.recv().unwrap();
                    waited = Some(
                        lane.wait_mark(m)
                            .and_then(|()| lane.copy(&x, &mut *out))
                            .and_then(|y| y.wait().map(|o| o.to_vec())),
                    );
                    Ok(())
                });
                (waited, ended)
            });
            queued_rx.recv().unwrap();
            escalate_on(ctx, s1, &mut scratch);
            done_tx.send(()).unwrap();
            w.join().unwrap()
        });
        sim::set_stream_delay(s1.as_raw(), Duration::ZERO);
        assert!(
            matches!(waited, Some(Err(Error::WorkAborted))),
            "the wait for the discarded mark: {waited:?}"
        );
        assert!(
            matches!(ended, Err(Error::WorkAborted)),
            "the scope: {ended:?}"
        );
        assert_eq!(out.to_vec(), [0u32; 64]);
        drop((src, d, out, scratch));
        s1.destroy()?;
        Ok(())
    })
}

/// Short-lived threads (slots reused through the free list) run one-lane
/// scopes on a slow stream while the first escalation of the process
/// aborts it: every scope that reports `Ok` computed its result.
fn race_first_escalation_with_short_lived_threads() -> aclrt::Result<()> {
    let _sim = take(host_config());
    let acl = Acl::init()?;
    let run: u32 = std::env::var("SLOT_ATTACK_RUN")
        .ok()
        .and_then(|r| r.parse().ok())
        .unwrap_or(0);
    {
        let device = acl.require::<HostMode>()?.device(0)?;
        make_guard!(g);
        let ctx = device.create_context(g)?;
        let s1 = ctx.create_stream()?;
        let mut scratch = ctx.alloc::<u8>(16)?;
        sim::set_stream_delay(s1.as_raw(), Duration::from_micros(300));
        let stop = std::sync::atomic::AtomicBool::new(false);
        let (ok, aborted, timed) = std::thread::scope(|t| {
            let (ctx, s1, stop) = (&ctx, &s1, &stop);
            let workers: Vec<_> = (0..3u32)
                .map(|w| {
                    t.spawn(move || {
                        let (mut ok, mut aborted) = (0usize, 0usize);
                        let mut i = 0u32;
                        while !stop.load(std::sync::atomic::Ordering::SeqCst) || i < 4 {
                            i += 1;
                            let seed = w * 100_000 + i;
                            // A fresh thread per scope or two: slots are
                            // handed from thread to thread.
                            let (o, a) = std::thread::scope(|t2| {
                                t2.spawn(move || {
                                    let mut tally = (0usize, 0usize);
                                    for k in 0..2 {
                                        let want = pattern_u32(32, seed * 2 + k);
                                        let src = ctx.alloc_host_from(&want).unwrap();
                                        let mut d = ctx.alloc::<u32>(32).unwrap();
                                        let mut out = ctx.alloc_host_zeroed::<u32>(32).unwrap();
                                        let r = ctx.scope(|s| {
                                            make_guard!(l);
                                            let lane = s.lane(s1, l);
                                            let x = lane.copy(&src, &mut d)?;
                                            let y = lane.copy(&x, &mut out)?;
                                            if k == 0 {
                                                y.wait().map(|o| o.to_vec())
                                            } else {
                                                Ok(Vec::new())
                                            }
                                        });
                                        match r {
                                            Ok(v) => {
                                                if k == 0 {
                                                    assert_eq!(v, want, "Ok from wait");
                                                }
                                                assert_eq!(out.to_vec(), want, "Ok scope");
                                                tally.0 += 1;
                                            }
                                            Err(_) => tally.1 += 1,
                                        }
                                    }
                                    tally
                                })
                                .join()
                                .unwrap()
                            });
                            ok += o;
                            aborted += a;
                        }
                        (ok, aborted)
                    })
                })
                .collect();
            std::thread::sleep(Duration::from_micros(500 + 700 * u64::from(run % 8)));
            let timed = ctx.scope_with_timeout(Duration::from_micros(200), |s| {
                make_guard!(l);
                let lane = s.lane(s1, l);
                let _ = lane.memset(&mut scratch, 0)?;
                Ok(())
            });
            std::thread::sleep(Duration::from_millis(5));
            stop.store(true, std::sync::atomic::Ordering::SeqCst);
            let (mut ok, mut aborted) = (0, 0);
            for w in workers {
                let (o, a) = w.join().unwrap();
                ok += o;
                aborted += a;
            }
            (ok, aborted, timed)
        });
        println!("run {run}: {ok} ok, {aborted} aborted, timed scope: {timed:?}");
        sim::set_stream_delay(s1.as_raw(), Duration::ZERO);
        drop(scratch);
        s1.destroy()?;
        ctx.destroy()?;
        device.reset()?;
    }
    acl.finalize()?;
    assert_clean();
    Ok(())
}

/// `InFlight::wait` no longer makes the scope's context current: with
/// another context current on the thread (used inside the scope), the wait
/// works, and that context stays current (the thread's cache of the
/// current context is not stale: work queued through it lands in it).
/// The other context is on device `other` (0: the scope's own).
fn wait_with_another_context_current_keeps_it_current(other: u32) -> aclrt::Result<()> {
    let _sim = take(host_config());
    let acl = Acl::init()?;
    {
        let device = acl.require::<HostMode>()?.device(0)?;
        let device2 = acl.require::<HostMode>()?.device(other)?;
        make_guard!(g1);
        let ctx1 = device.create_context(g1)?;
        make_guard!(g2);
        let ctx2 = device2.create_context(g2)?;
        let s1 = ctx1.create_stream()?;
        let s2 = ctx2.create_stream()?;
        let src = ctx1.alloc_host_from(&pattern_u32(64, 7))?;
        let mut d = ctx1.alloc::<u32>(64)?;
        let mut out = ctx1.alloc_host_zeroed::<u32>(64)?;
        let src2 = ctx2.alloc_host_from(&pattern_u32(64, 8))?;
        let mut d2 = ctx2.alloc::<u32>(64)?;
        let mut out2 = ctx2.alloc_host_zeroed::<u32>(64)?;
        sim::set_stream_delay(s1.as_raw(), Duration::from_millis(5));
        let got = ctx1.scope(|s| {
            make_guard!(l);
            let lane = s.lane(&s1, l);
            let x = lane.copy(&src, &mut d)?;
            let y = lane.copy(&x, &mut out)?;
            // ctx2 becomes current (a synchronous copy in it).
            ctx2.copy(&src2, &mut d2)?;
            let got = y.wait()?.to_vec();
            // Through the cache (ctx2 is still current as far as the crate
            // knows): a synchronous copy of ctx2.
            ctx2.copy(&d2, &mut out2)?;
            Ok(got)
        })?;
        assert_eq!(got, pattern_u32(64, 7));
        assert_eq!(out2.to_vec(), pattern_u32(64, 8));
        // A scope of ctx2 on its stream (queues work with ctx2 current,
        // as the cache says): refused if the wait left ctx1 current.
        let got2 = ctx2.scope(|s| {
            make_guard!(l);
            let lane = s.lane(&s2, l);
            let x = lane.copy(&src2, &mut d2)?;
            lane.copy(&x, &mut out2)?.wait().map(|o| o.to_vec())
        })?;
        assert_eq!(got2, pattern_u32(64, 8));
        drop((src, d, out, src2, d2, out2));
        s1.destroy()?;
        s2.destroy()?;
        ctx2.destroy()?;
        ctx1.destroy()?;
        if other != 0 {
            device2.reset()?;
        } else {
            drop(device2);
        }
        device.reset()?;
    }
    acl.finalize()?;
    assert_clean();
    Ok(())
}

/// The scope's thread has no current context when it waits (a context
/// made current inside the scope was destroyed there): the wait works.
fn wait_with_no_current_context() -> aclrt::Result<()> {
    let _sim = take(host_config());
    let acl = Acl::init()?;
    {
        let device = acl.require::<HostMode>()?.device(0)?;
        make_guard!(g1);
        let ctx1 = device.create_context(g1)?;
        let s1 = ctx1.create_stream()?;
        let src = ctx1.alloc_host_from(&pattern_u32(64, 9))?;
        let mut d = ctx1.alloc::<u32>(64)?;
        let mut out = ctx1.alloc_host_zeroed::<u32>(64)?;
        sim::set_stream_delay(s1.as_raw(), Duration::from_millis(5));
        let got = ctx1.scope(|s| {
            make_guard!(l);
            let lane = s.lane(&s1, l);
            let x = lane.copy(&src, &mut d)?;
            let y = lane.copy(&x, &mut out)?;
            {
                make_guard!(g2);
                let ctx2 = device.create_context(g2)?;
                let _ = ctx2.alloc::<u8>(8)?;
                ctx2.destroy()?;
            }
            y.wait().map(|o| o.to_vec())
        })?;
        assert_eq!(got, pattern_u32(64, 9));
        drop((src, d, out));
        s1.destroy()?;
        ctx1.destroy()?;
        device.reset()?;
    }
    acl.finalize()?;
    assert_clean();
    Ok(())
}

/// A scope opened inside a host function is refused (`InCallback`), and
/// the scope that queued the host function (slotted until then) is fine.
fn scope_in_host_fn_is_refused() -> aclrt::Result<()> {
    in_host_context(|ctx| {
        let s1 = ctx.create_stream()?;
        let src = ctx.alloc_host_from(&pattern_u32(64, 10))?;
        let mut d = ctx.alloc::<u32>(64)?;
        let mut out = ctx.alloc_host_zeroed::<u32>(64)?;
        let answer = std::sync::Mutex::new(None);
        let got = ctx.scope(|s| {
            make_guard!(l);
            let lane = s.lane(&s1, l);
            let x = lane.copy(&src, &mut d)?;
            let (ctx, answer) = (&ctx, &answer);
            lane.host_fn(move || {
                let r = ctx.scope(|_| Ok(()));
                *answer.lock().unwrap() = Some(r);
            })?;
            lane.copy(&x, &mut out)?.wait().map(|o| o.to_vec())
        })?;
        assert_eq!(got, pattern_u32(64, 10));
        let answer = answer.into_inner().unwrap();
        assert!(
            matches!(answer, Some(Err(Error::InCallback { .. }))),
            "{answer:?}"
        );
        drop((src, d, out));
        s1.destroy()?;
        Ok(())
    })
}

/// `sim::reset()` (the simulator's control API) inside a slotted scope: the
/// runtime and the scope's stream are gone under it. The scope reports an
/// error instead of aborting or hanging, leaves its slot, and the thread's
/// next scopes work on a fresh runtime: a slotted one computes its result,
/// and the process's first escalation still reaches one.
fn sim_reset_inside_a_slotted_scope() -> aclrt::Result<()> {
    {
        let _sim = take(host_config());
        let acl = Acl::init()?;
        let device = acl.require::<HostMode>()?.device(0)?;
        make_guard!(g);
        let ctx = device.create_context(g)?;
        let stream = ctx.create_stream()?;
        let mut d = ctx.alloc::<u32>(16)?;
        let result = ctx.scope(|s| {
            make_guard!(l);
            let lane = s.lane(&stream, l);
            let _x = lane.memset(&mut d, 0)?;
            sim::reset();
            Ok(())
        });
        assert!(result.is_err(), "{result:?}");
        drop(d);
        drop(stream);
        drop(ctx);
        drop(device);
        drop(acl);
        sim::reset();
    }
    in_host_context(|ctx| {
        let s1 = ctx.create_stream()?;
        let src = ctx.alloc_host_from(&pattern_u32(64, 21))?;
        let mut d = ctx.alloc::<u32>(64)?;
        let mut out = ctx.alloc_host_zeroed::<u32>(64)?;
        let mut scratch = ctx.alloc::<u8>(16)?;
        let got = ctx.scope(|s| {
            make_guard!(l);
            let lane = s.lane(&s1, l);
            let x = lane.copy(&src, &mut d)?;
            lane.copy(&x, &mut out)?.wait().map(|o| o.to_vec())
        })?;
        assert_eq!(got, pattern_u32(64, 21));
        out.copy_from_slice(&[0u32; 64]);
        sim::set_stream_delay(s1.as_raw(), HELD);
        let (queued_tx, queued_rx) = mpsc::channel();
        let (done_tx, done_rx) = mpsc::channel::<()>();
        let (waited, ended) = std::thread::scope(|t| {
            let (s1, src, d, out) = (&s1, &src, &mut d, &mut out);
            let w = t.spawn(move || {
                let mut waited = None;
                let ended = ctx.scope(|s| {
                    make_guard!(l);
                    let lane = s.lane(s1, l);
                    let x = lane.copy(src, &mut *d)?;
                    let y = lane.copy(&x, &mut *out)?;
                    queued_tx.send(()).unwrap();
                    done_rx.recv().unwrap();
                    waited = Some(y.wait().map(|o| o.to_vec()));
                    Ok(())
                });
                (waited, ended)
            });
            queued_rx.recv().unwrap();
            escalate_on(ctx, s1, &mut scratch);
            done_tx.send(()).unwrap();
            w.join().unwrap()
        });
        sim::set_stream_delay(s1.as_raw(), Duration::ZERO);
        assert_discarded(
            "the slotted scope's wait after a reset",
            &waited,
            "the slotted scope after a reset",
            &ended,
            &out.to_vec(),
        );
        drop((src, d, out, scratch));
        s1.destroy()?;
        Ok(())
    })
}
