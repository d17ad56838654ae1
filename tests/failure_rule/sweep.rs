//! Fault sweep: every C call of every example flow fails once.
//!
//! The flows are the examples themselves: each file of `examples/` (01–12, 14,
//! 16, 18, 19, 20, 21, 22 and `tour`; not `13_timeline`, whose trace and picture are checked by the
//! example) is compiled here as a module, and the sweep runs its
//! `pub fn flow(&Acl)`, the work its `main` does between `Acl::init` and
//! `finalize`, with the same data (examples 09, 12, 16 and 18 with shorter
//! delays, 12 with a shorter timeout, 19 with no kernel time and shorter
//! batches: the same calls in the same order, in less time). `build.rs` sets the cfg `aclrt_backend = "sim"` that the
//! examples' simulator-only parts need. For each flow and run mode:
//!
//! 1. run it once with `record_calls(true)` to get its ordered `call_log()`;
//! 2. for every index `k` of that log, start from a fresh simulator, make
//!    exactly that call fail once (`inject_fault(log[k], n, code)`, `n` = the
//!    earlier occurrences of `log[k]` + 1) and run the flow again, under
//!    `catch_unwind`;
//! 3. check: no panic; the flow returns `Err` whose `function()` is `log[k]`
//!    (or `Ok` where the library legitimately absorbs the failure: the
//!    [`ABSORBED`] table says which and why, and [`ABSORBED_IN`] where one
//!    flow absorbs it by design); the runtime is finalised;
//!    no violations; no leaks — except where a *release* call was refused,
//!    which leaks exactly that resource and keeps its parents (and so the
//!    runtime) alive: their releases refuse with `Error::LiveChildren`
//!    without breaking a runtime rule; and `sim::reset()` cleans up.
//!
//! Every anomaly of a flow is collected and reported together.

use crate::common;

use std::panic::{AssertUnwindSafe, catch_unwind};
use std::time::Duration;

use aclrt::sim::{self, ResourceKind, SimConfig};
use aclrt::{Acl, ErrorKind, HostMode, Result, make_guard};
use common::*;

/// A flow: everything the example does between `Acl::init` and `finalize`.
type Flow = fn(&Acl) -> Result<()>;

/// `aclInit`, the flow, `aclFinalize`: what an example's `main` does.
fn drive(flow: Flow) -> Result<()> {
    let acl = Acl::init()?;
    flow(&acl)?;
    acl.finalize()
}

// ------------------------------------------------------------------ flows

// The examples themselves, as modules: the sweep runs their `flow`, their
// `main` is not used here.
#[allow(dead_code)]
#[path = "../../examples/01_device_info.rs"]
mod ex01;
#[allow(dead_code)]
#[path = "../../examples/02_explicit_resources.rs"]
mod ex02;
#[allow(dead_code)]
#[path = "../../examples/03_implicit_resources.rs"]
mod ex03;
#[allow(dead_code)]
#[path = "../../examples/04_host_device_memory.rs"]
mod ex04;
#[allow(dead_code)]
#[path = "../../examples/05_run_mode_transfer.rs"]
mod ex05;
#[allow(dead_code)]
#[path = "../../examples/06_pipeline_app.rs"]
mod ex06;
#[allow(dead_code)]
#[path = "../../examples/07_event_sync.rs"]
mod ex07;
#[allow(dead_code)]
#[path = "../../examples/08_stream_sync.rs"]
mod ex08;
#[allow(dead_code)]
#[path = "../../examples/09_two_streams_event.rs"]
mod ex09;
#[allow(dead_code)]
#[path = "../../examples/10_device_sync.rs"]
mod ex10;
#[allow(dead_code)]
#[path = "../../examples/11_multithreaded.rs"]
mod ex11;
#[allow(dead_code)]
#[path = "../../examples/12_error_handling.rs"]
mod ex12;
#[allow(dead_code)]
#[path = "../../examples/14_vector_add.rs"]
mod ex14;
#[allow(dead_code)]
#[path = "../../examples/16_event_flags.rs"]
mod ex16;
#[allow(dead_code)]
#[path = "../../examples/18_overlap.rs"]
mod ex18;
#[allow(dead_code)]
#[path = "../../examples/19_compute_pipeline.rs"]
mod ex19;
#[allow(dead_code)]
#[path = "../../examples/20_host_registration.rs"]
mod ex20;
#[allow(dead_code)]
#[path = "../../examples/21_service_loop.rs"]
mod ex21;
#[allow(dead_code)]
#[path = "../../examples/22_async_service.rs"]
mod ex22;
#[allow(dead_code)]
#[path = "../../examples/tour.rs"]
mod tour;

// ------------------------------------------------------------------ the sweep

/// Functions that return pointers: an injected fault there does nothing.
const NOT_INJECTABLE: &[&str] = &["aclGetRecentErrMsg", "aclrtGetSocName"];

/// Calls whose injected failure the library may absorb (the flow then
/// returns `Ok`, with correct data: the flows check their results), and why.
const ABSORBED: &[(&str, &str)] = &[
    (
        "aclrtStreamGetId",
        "read when a default stream's record is made (an explicit stream's when a report \
         first needs it), only to name the stream in exception reports: without it a report \
         on that stream is not resolved to it, and its synchronisation still reports the \
         failure (the flows here do not call `Stream::id`)",
    ),
    (
        "aclrtFree",
        "device memory released by Drop, which cannot report; the buffer leaks",
    ),
    (
        "aclrtFreeHost",
        "pinned host memory released by Drop, which cannot report; the buffer leaks",
    ),
    (
        "aclrtDestroyStream",
        "a stream destroyed by Drop, which cannot report; the stream leaks",
    ),
    (
        "aclrtDestroyEvent",
        "a user event destroyed by Drop, which cannot report; the event leaks",
    ),
    (
        "aclrtDestroyContext",
        "a context destroyed by Drop, which cannot report; the context leaks",
    ),
    (
        "aclrtResetDevice",
        "a device reset by Drop, which cannot report; the device leaks",
    ),
    (
        "aclrtSynchronizeEvent",
        "the drop of a recorded event synchronises it first; a failure is ignored \
         and the event is destroyed anyway",
    ),
    (
        "aclrtSetCurrentContext",
        "courtesy re-binds (`let _ = make_current(..)`) in `Scope` finish and \
         `InFlight::wait`: the stream synchronisation that follows does not need it",
    ),
];

/// Calls whose failure one flow absorbs by its own design: (flow, function, why).
const ABSORBED_IN: &[(&str, &str, &str)] = &[
    (
        "22_async_service",
        "aclrtSynchronizeStream",
        "an awaited checked wait (`InFlight::wait_async`) that fails with a device fault \
         (the injected code is one) fails its batch; the client sends the request again",
    ),
    (
        "22_async_service",
        "aclrtStreamQuery",
        "the queries of awaited waits only decide when to wake a future (one that fails \
         counts as done, and the wait's own synchronisation decides); their number \
         depends on timing",
    ),
    (
        "21_service_loop",
        "aclrtSynchronizeStream",
        "a checked fence wait (`Fence::wait_or_keep`) that fails with a device fault (the \
         injected code is one) makes the service serve that batch again",
    ),
    (
        "21_service_loop",
        "aclrtSynchronizeEvent",
        "a staging buffer taken back at its fence (`Fence::reuse`) whose event \
         synchronisation reports a device fault after the event completed: the buffer \
         comes back and the fault is owed to the lane; the next checked wait there \
         reports it, and the service serves that batch again",
    ),
];

/// Release calls: a refused one leaks the resource it should have released.
fn released_kind(function: &str) -> Option<ResourceKind> {
    Some(match function {
        "aclrtFree" => ResourceKind::DeviceMemory,
        "aclrtFreeHost" => ResourceKind::HostMemory,
        "aclrtDestroyStream" => ResourceKind::Stream,
        "aclrtDestroyEvent" => ResourceKind::Event,
        "aclrtDestroyContext" => ResourceKind::Context,
        "aclrtResetDevice" => ResourceKind::Device,
        "aclrtHostUnregister" => ResourceKind::HostRegistration,
        _ => return None,
    })
}

/// When a release was refused, the parents of the leaked resource stay
/// alive too: their releases refuse (`Error::LiveChildren`).
fn parent_kinds(kind: ResourceKind) -> &'static [ResourceKind] {
    use ResourceKind as R;
    match kind {
        R::DeviceMemory
        | R::HostMemory
        | R::ManagedMemory
        | R::HostRegistration
        | R::Stream
        | R::Event => &[R::Context, R::Device],
        R::Context => &[R::Device],
        R::Notify | R::Reservation | R::PhysicalMemory => &[R::Device],
        R::Device => &[],
    }
}

fn code_for(function: &str) -> i32 {
    if function.starts_with("aclrtMalloc") {
        207001
    } else {
        507899
    }
}

#[derive(Default, Debug)]
struct Tally {
    calls: usize,
    err_as_expected: usize,
    /// A release refused in `Drop`, reported by the parent's release.
    refused_release_reported_by_parent: usize,
    absorbed: std::collections::BTreeMap<&'static str, usize>,
    leaked_after_refused_release: usize,
    not_injectable: usize,
    by_design: usize,
}

/// Calls of a flow whose failure is part of the flow's own script.
fn by_design(flow: &str, function: &str, nth: u64) -> Option<&'static str> {
    match (flow, function, nth) {
        ("12_error_handling", "aclrtMalloc", 1) => Some(
            "the example injects this very failure itself (`inject_fault(\"aclrtMalloc\", 1, ..)`) \
             and expects it",
        ),
        ("12_error_handling", "aclrtSynchronizeStream", 2 | 3) => Some(
            "the final synchronisation of a scope whose body already returned an error (the \
             device fault, the timeout): the scope reports the body's error, the first one, \
             and the retry of the synchronisation succeeds",
        ),
        _ => None,
    }
}

/// What went wrong with one injected failure (empty: as expected).
fn check_outcome(
    flow: &str,
    function: &'static str,
    code: i32,
    outcome: &std::thread::Result<Result<()>>,
    audit: &sim::Audit,
    tally: &mut Tally,
) -> Vec<String> {
    let mut anomalies = Vec::new();
    let refused = released_kind(function);
    match outcome {
        Err(payload) => anomalies.push(format!("panicked: {}", panic_message(&**payload))),
        Ok(Err(e)) if e.function() == Some(function) => {
            tally.err_as_expected += 1;
            if e.code() != Some(code) {
                anomalies.push(format!("error carries code {:?}, not {code}", e.code()));
            }
        }
        Ok(Err(e))
            if refused.is_some()
                && e.kind() == ErrorKind::ReleaseFailed
                && matches!(
                    e.function(),
                    Some("aclrtDestroyContext" | "aclrtResetDevice" | "aclFinalize")
                ) =>
        {
            // `Drop` could not report the refusal; the parent's explicit
            // release (`destroy`, `reset`, `finalize`) reports the leftover.
            tally.refused_release_reported_by_parent += 1;
        }
        Ok(Err(e)) => anomalies.push(format!("returned an error of another call: {e}")),
        Ok(Ok(())) => {
            if ABSORBED.iter().any(|(f, _)| *f == function)
                || ABSORBED_IN
                    .iter()
                    .any(|&(n, f, _)| n == flow && f == function)
            {
                *tally.absorbed.entry(function).or_default() += 1;
            } else {
                anomalies.push("the failure vanished (flow returned Ok)".to_owned());
            }
        }
    }
    // A refused release leaks exactly that resource; the leak keeps its
    // parents alive (their releases refuse with `Error::LiveChildren`
    // instead of breaking the runtime's rules), so the runtime stays
    // initialised holding the resource and its parents. Otherwise the
    // runtime is always finalised (an `Acl` finalises on drop), unless the
    // injected failure was that of `aclFinalize` itself.
    let alive: Vec<ResourceKind> = audit
        .live
        .iter()
        .flat_map(|(&(kind, _), &n)| std::iter::repeat_n(kind, n))
        .collect();
    match refused {
        Some(kind) if !alive.is_empty() => {
            tally.leaked_after_refused_release += 1;
            // `aclrtFree` also releases managed memory.
            let is_own = |k: ResourceKind| {
                k == kind
                    || (kind == ResourceKind::DeviceMemory && k == ResourceKind::ManagedMemory)
            };
            let own = alive.iter().filter(|&&k| is_own(k)).count();
            let others_ok = alive
                .iter()
                .all(|&k| is_own(k) || parent_kinds(kind).contains(&k));
            if own != 1 || !others_ok {
                anomalies.push(format!("unexpected resources alive {alive:?}"));
            }
            if !audit.initialized {
                anomalies.push("finalized with a leaked resource alive".to_owned());
            }
        }
        _ => {
            if audit.initialized && function != "aclFinalize" {
                anomalies.push("the runtime was left initialised".to_owned());
            }
            if !alive.is_empty() {
                anomalies.push(format!("resources still alive: {alive:?}"));
            }
        }
    }
    // The runtime's rules are never broken, and finalize never sees a leak.
    if !audit.violations.is_empty() {
        anomalies.push(format!("violations {:#?}", audit.violations));
    }
    if !audit.leaks.is_empty() {
        anomalies.push(format!("leaks {:#?}", audit.leaks));
    }
    anomalies
}

fn fresh(config: &SimConfig) {
    sim::reset();
    sim::configure(config.clone());
}

fn sweep(name: &str, flow: Flow, config: SimConfig) {
    let mode = config.run_mode;
    fresh(&config);
    sim::record_calls(true);
    let clean_run = drive(flow);
    sim::record_calls(false);
    let log = sim::call_log();
    clean_run.unwrap_or_else(|e| panic!("{name} ({mode:?}) fails without faults: {e}"));
    assert_clean();
    assert!(!log.is_empty());

    let mut tally = Tally {
        calls: log.len(),
        ..Tally::default()
    };
    let mut anomalies: Vec<String> = Vec::new();
    for (k, &function) in log.iter().enumerate() {
        if NOT_INJECTABLE.contains(&function) {
            tally.not_injectable += 1;
            continue;
        }
        let nth = log[..k].iter().filter(|&&f| f == function).count() as u64 + 1;
        let code = code_for(function);
        fresh(&config);
        sim::inject_fault(function, nth, code);
        let outcome = catch_unwind(AssertUnwindSafe(|| drive(flow)));
        let audit = sim::audit();
        let at = format!("{name} ({mode:?}) call #{k} {function} (occurrence {nth})");
        if let Some(reason) = by_design(name, function, nth) {
            let _ = reason;
            tally.by_design += 1;
        } else {
            let found = check_outcome(name, function, code, &outcome, &audit, &mut tally);
            anomalies.extend(found.into_iter().map(|a| format!("{at}: {a}")));
        }
        sim::reset();
        if !sim::audit().is_clean() {
            anomalies.push(format!("{at}: sim::reset() did not clean up"));
        }
    }
    eprintln!(
        "fault sweep {name} ({mode:?}): {} calls: {tally:?}",
        tally.calls
    );
    assert!(
        anomalies.is_empty(),
        "{} anomalies in {name} ({mode:?}):\n{}",
        anomalies.len(),
        anomalies.join("\n")
    );
}

fn sweep_both(name: &str, flow: Flow) {
    let _sim = sim::exclusive();
    sweep(name, flow, host_config());
    sweep(name, flow, device_config());
    sim::reset();
}

#[test]
fn sweep_01_device_info() {
    sweep_both("01_device_info", ex01::flow);
}

#[test]
fn sweep_02_explicit_resources() {
    sweep_both("02_explicit_resources", ex02::flow);
}

#[test]
fn sweep_03_implicit_resources() {
    sweep_both("03_implicit_resources", ex03::flow);
}

#[test]
fn sweep_04_host_device_memory() {
    sweep_both("04_host_device_memory", ex04::flow);
}

#[test]
fn sweep_05_run_mode_transfer() {
    sweep_both("05_run_mode_transfer", ex05::flow);
}

#[test]
fn sweep_06_pipeline_app() {
    sweep_both("06_pipeline_app", ex06::flow);
}

#[test]
fn sweep_07_event_sync() {
    sweep_both("07_event_sync", ex07::flow);
}

#[test]
fn sweep_08_stream_sync() {
    sweep_both("08_stream_sync", ex08::flow);
}

#[test]
fn sweep_09_two_streams_event() {
    // A 2 ms delay of the producer's tasks, not 20 ms: there is a run per
    // call.
    sweep_both("09_two_streams_event", |acl| {
        ex09::flow_with_delay(acl, Duration::from_millis(2))
    });
}

#[test]
fn sweep_10_device_sync() {
    sweep_both("10_device_sync", ex10::flow);
}

#[test]
fn sweep_11_multithreaded() {
    sweep_both("11_multithreaded", ex11::flow);
}

#[test]
fn sweep_12_error_handling() {
    // A 30 ms delay and a 2 ms timeout, not 200 ms and 10 ms: every run waits
    // for the delayed task, and there is a run per call.
    sweep_both("12_error_handling", |acl| {
        ex12::flow(acl, Duration::from_millis(30), Duration::from_millis(2))
    });
}

#[test]
fn sweep_14_vector_add() {
    sweep_both("14_vector_add", ex14::flow);
}

#[test]
fn sweep_16_event_flags() {
    // A 2 ms delay per producer task, not 20 ms: there is a run per call.
    sweep_both("16_event_flags", |acl| {
        ex16::flow_with_delay(acl, Duration::from_millis(2))
    });
}

#[test]
fn sweep_18_overlap() {
    // A 1 ms delay per lane task, not 5 ms: there is a run per call.
    sweep_both("18_overlap", |acl| {
        ex18::flow_with_delay(acl, Duration::from_millis(1))
    });
}

#[test]
fn sweep_19_compute_pipeline() {
    // No kernel time, not 4 ms, and batches of 1,024 values, not 65,536:
    // there is a run per call, and the calls and their order do not depend
    // on either (the overlap is checked by the example itself, from its
    // trace).
    sweep_both("19_compute_pipeline", |acl| {
        ex19::flow(acl, Duration::ZERO, 1024)
    });
}

#[test]
fn sweep_20_host_registration() {
    sweep_both("20_host_registration", ex20::flow);
}

#[test]
fn sweep_21_service_loop() {
    sweep_both("21_service_loop", ex21::flow);
}

#[test]
fn sweep_22_async_service() {
    sweep_both("22_async_service", ex22::flow);
}

#[test]
fn sweep_tour() {
    sweep_both("tour", tour::flow);
}

// ------------------------------------------------------------------ fixed bugs (regression tests)

/// `Acl::init` calls `aclInit`, then `aclrtGetDeviceCount` and
/// `aclrtGetRunMode`; when one of those fails it returns `Err` but never
/// calls `aclFinalize`, so the runtime stays initialised (a later `Acl::init`
/// then takes the "already initialised by someone else" path).
#[test]
fn acl_init_failure_after_aclinit_finalizes() {
    let _sim = sim::exclusive();
    for function in ["aclrtGetDeviceCount", "aclrtGetRunMode"] {
        sim::reset();
        sim::inject_fault(function, 1, 507899);
        let err = Acl::init().expect_err("the injected failure is reported");
        assert_eq!(err.function(), Some(function));
        assert!(
            !sim::audit().initialized,
            "Acl::init failed in {function} but left the runtime initialised"
        );
    }
    sim::reset();
}

/// `Stream::drop` re-binds the stream's context (`aclrtSetCurrentContext`)
/// and, if that fails once, skips `aclrtDestroyStream`: the stream leaks, and
/// its context and device can no longer be released (violations
/// `ReleaseWithLiveChildren`, `ResetWithLiveResources`).
#[test]
fn stream_drop_survives_a_failed_rebind() -> Result<()> {
    let _sim = take(host_config());
    let acl = Acl::init()?;
    {
        let device = acl.require::<HostMode>()?.device(0)?;
        make_guard!(g);
        let ctx = device.create_context(g)?;
        let stream = ctx.create_stream()?;
        device.synchronize()?; // makes the default context current
        sim::inject_fault("aclrtSetCurrentContext", 1, 507899);
        drop(stream);
        assert_eq!(
            live(&sim::audit(), ResourceKind::Stream),
            0,
            "the stream leaked"
        );
    }
    acl.finalize()?;
    assert_clean();
    Ok(())
}
