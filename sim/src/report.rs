//! The reporter beside the layers: a sanitizer's manners.
//!
//! A named rule that finds a misuse records a [`Violation`]; this module
//! reports it the way valgrind's memcheck and compute-sanitizer do, without
//! changing the program's path:
//!
//! * **where it happens**: one line on stderr per rule and call (the C
//!   function: the call site as the runtime sees it), naming the rule, the
//!   call and the handle, the first time that pair is seen; printed as the
//!   C call returns (never under the runtime's lock: an application thread
//!   may hold stderr's lock while it calls in), or, for a violation found on
//!   a runtime thread, at the next C call, `aclrt_sim::audit()` or exit;
//! * **at process exit**: a summary of every rule that fired and of the
//!   leaks found at `aclFinalize` (nothing at all when there is nothing to
//!   report, unless `ACLRT_SIM_REPORT=always`);
//! * **as an exit status**: with `ACLRT_SIM_ERROR_EXITCODE=N` (1..=255) a
//!   process that recorded a violation or a leak exits with `N`, as
//!   valgrind's `--error-exitcode`.
//!
//! What is printed: `ACLRT_SIM_REPORT` = `all` (default: each rule and call
//! once, and the summary), `summary` (the summary only), `always` (as `all`,
//! and a summary line even when clean), `none`; from Rust
//! [`set_report_output`](crate::set_report_output). The records themselves
//! ([`audit`](crate::audit)) do not depend on it.
//!
//! The exit handler is registered at the first `aclInit` or violation. It
//! waits for none of the simulator's locks (a thread still running at exit may hold one: the
//! summary is then skipped), never panics across the C boundary, and reads
//! no thread-local (those of the exiting thread may be gone).

use std::collections::{BTreeMap, HashSet};
use std::io::Write;
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::sync::atomic::{AtomicBool, AtomicU8, Ordering};
use std::sync::{Mutex, Once};

use crate::model::{Leak, ResourceKind, Violation};
use crate::sync::lock;

/// What the reporter prints (`ACLRT_SIM_REPORT`); the records in
/// [`audit`](crate::audit) and the exit status do not depend on it.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum ReportOutput {
    /// Each rule and call once on stderr where it happens, and a summary at
    /// exit when something was recorded (default; `all`).
    #[default]
    All,
    /// Only the summary at exit (`summary`).
    Summary,
    /// As [`ReportOutput::All`], and a one-line summary at exit even when
    /// nothing was recorded (`always`).
    Always,
    /// Nothing on stderr (`none`).
    None,
}

const UNSET: u8 = u8::MAX;

/// The output setting: `UNSET` until read from the environment or set.
static OUTPUT: AtomicU8 = AtomicU8::new(UNSET);

fn encode(o: ReportOutput) -> u8 {
    match o {
        ReportOutput::All => 0,
        ReportOutput::Summary => 1,
        ReportOutput::Always => 2,
        ReportOutput::None => 3,
    }
}

/// The output setting in force (the environment's, until
/// [`set_output`] is called).
pub(crate) fn output() -> ReportOutput {
    match OUTPUT.load(Ordering::Relaxed) {
        0 => ReportOutput::All,
        1 => ReportOutput::Summary,
        2 => ReportOutput::Always,
        3 => ReportOutput::None,
        _ => {
            let o = output_from_env();
            // A concurrent `set_output` wins over the environment.
            let _ = OUTPUT.compare_exchange(UNSET, encode(o), Ordering::Relaxed, Ordering::Relaxed);
            o
        }
    }
}

fn output_from_env() -> ReportOutput {
    let Ok(v) = std::env::var("ACLRT_SIM_REPORT") else {
        return ReportOutput::All;
    };
    match v.trim().to_ascii_lowercase().as_str() {
        "" | "all" => ReportOutput::All,
        "summary" => ReportOutput::Summary,
        "always" => ReportOutput::Always,
        "none" | "off" | "quiet" => ReportOutput::None,
        _ => {
            eprintln!("aclrt-sim: ignoring ACLRT_SIM_REPORT={v:?} (unparsable); using all");
            ReportOutput::All
        }
    }
}

/// Sets what the reporter prints from now on.
pub(crate) fn set_output(o: ReportOutput) {
    OUTPUT.store(encode(o), Ordering::Relaxed);
}

/// `ACLRT_SIM_ERROR_EXITCODE`: the exit status of a process that recorded
/// a violation or a leak, if set (1..=255).
fn error_exit_code() -> Option<i32> {
    let v = std::env::var("ACLRT_SIM_ERROR_EXITCODE").ok()?;
    match v.trim().parse::<i32>() {
        Ok(n) if (1..=255).contains(&n) => Some(n),
        Ok(0) => None,
        _ => {
            eprintln!(
                "aclrt-sim: ignoring ACLRT_SIM_ERROR_EXITCODE={v:?} (not a number in 1..=255)"
            );
            None
        }
    }
}

/// What the summary counts, since the last `aclrt_sim::reset`: each rule
/// with its count and first report, and the leaks by kind.
#[derive(Default)]
struct Tally {
    /// (rule, C function) pairs already reported on stderr.
    sites: HashSet<(&'static str, &'static str)>,
    /// Their lines not printed yet ([`flush`]).
    pending: Vec<String>,
    /// rule -> (count, first line).
    rules: BTreeMap<&'static str, (u64, String)>,
    leaks: BTreeMap<ResourceKind, u64>,
}

static TALLY: Mutex<Option<Tally>> = Mutex::new(None);

static EXIT_HOOK: Once = Once::new();

/// Whether the hint under the first report was printed (once a process).
static HINTED: AtomicBool = AtomicBool::new(false);

/// Registers the exit summary (once per process).
pub(crate) fn arm() {
    EXIT_HOOK.call_once(|| {
        // Miri cannot call `atexit`: no exit summary there (the audit API
        // still reports everything).
        if !cfg!(miri) && !crate::prim::exit::at_exit(at_exit) {
            eprintln!("aclrt-sim: could not register the exit summary (atexit refused)");
        }
    });
}

/// One line describing `v`.
fn line(v: &Violation) -> String {
    let handle = v.handle.map(|h| format!(" on {h:#x}")).unwrap_or_default();
    let answer = if v.refused {
        format!("refused with {}", v.code)
    } else if v.rule.starts_with("STRICT-") {
        format!(
            "answered as the hardware does; refused with {} if refusing",
            v.code
        )
    } else {
        "recorded".to_owned()
    };
    format!(
        "{} in {}{handle} ({answer}): {}",
        v.rule, v.function, v.message
    )
}

/// Counts `v`; if its rule and call are new, its line waits for
/// [`flush`] (a violation may be found under the runtime's lock, and
/// stderr's lock must not be taken there: an application thread may hold
/// it while it calls the runtime).
pub(crate) fn on_violation(v: &Violation) {
    arm();
    let text = line(v);
    let mut t = lock(&TALLY);
    let t = t.get_or_insert_with(Tally::default);
    t.rules
        .entry(v.rule)
        .and_modify(|(n, _)| *n += 1)
        .or_insert_with(|| (1, text.clone()));
    if t.sites.insert((v.rule, v.function)) {
        t.pending.push(text);
        PENDING.store(true, Ordering::Release);
    }
}

/// Whether lines wait for [`flush`].
static PENDING: AtomicBool = AtomicBool::new(false);

/// Prints the lines of the violations found since the last flush (each
/// rule and call once), with no lock of the runtime held: at the end of
/// every C call, and at exit.
pub(crate) fn flush() {
    // A read first: every C call passes here, and a write would make the
    // flag's cache line bounce between the calling threads.
    if !PENDING.load(Ordering::Acquire) || !PENDING.swap(false, Ordering::AcqRel) {
        return;
    }
    let lines = match TALLY.try_lock() {
        Ok(mut t) => t.as_mut().map(|t| std::mem::take(&mut t.pending)),
        // Busy (another thread is recording): its call flushes after.
        Err(_) => {
            PENDING.store(true, Ordering::Release);
            return;
        }
    };
    let Some(lines) = lines else { return };
    if lines.is_empty() || !matches!(output(), ReportOutput::All | ReportOutput::Always) {
        return;
    }
    let mut err = std::io::stderr().lock();
    for text in lines {
        let _ = writeln!(err, "aclrt-sim: {text}");
    }
    if !HINTED.swap(true, Ordering::Relaxed) {
        let _ = writeln!(
            err,
            "aclrt-sim:   (each rule is reported once per C function; a summary comes at \
             exit; aclrt_sim::audit() has every one; ACLRT_SIM_REPORT=none silences this)"
        );
    }
}

/// Counts the leaks found at a finalize.
pub(crate) fn on_leaks(leaks: &[Leak]) {
    if leaks.is_empty() {
        return;
    }
    arm();
    let mut t = lock(&TALLY);
    let t = t.get_or_insert_with(Tally::default);
    for l in leaks {
        *t.leaks.entry(l.kind).or_default() += 1;
    }
}

/// Forgets the tally (`aclrt_sim::reset`): each rule and call is reported
/// afresh, and the exit summary covers what came after.
pub(crate) fn clear_sites() {
    *lock(&TALLY) = None;
}

/// The summary's lines; `None` when there is nothing to report.
fn summary_lines(t: &Tally) -> Option<Vec<String>> {
    if t.rules.is_empty() && t.leaks.is_empty() {
        return None;
    }
    let violations: u64 = t.rules.values().map(|(n, _)| n).sum();
    let leaks: u64 = t.leaks.values().sum();
    let mut out = vec![format!(
        "aclrt-sim: ==== audit at exit: {violations} violation(s) of {} rule(s), {leaks} \
         leak(s) ====",
        t.rules.len()
    )];
    for (rule, (n, first)) in &t.rules {
        out.push(format!("aclrt-sim:   {rule}: {n}x; first: {first}"));
    }
    if !t.leaks.is_empty() {
        let kinds: Vec<String> = t.leaks.iter().map(|(k, n)| format!("{n} {k:?}")).collect();
        out.push(format!(
            "aclrt-sim:   alive at aclFinalize (leaks): {}",
            kinds.join(", ")
        ));
    }
    out.push(
        "aclrt-sim:   (sim/FIDELITY.md names each rule; ACLRT_SIM_ERROR_EXITCODE=N makes this a \
         failing exit status, ACLRT_SIM_STRICTNESS=refuse refuses at the call)"
            .to_owned(),
    );
    Some(out)
}

/// The exit handler: prints the summary and applies the error exit code.
/// Never unwinds (a panic is caught), never waits for a lock of the
/// simulator (only stderr's, as any print).
extern "C" fn at_exit() {
    let _ = catch_unwind(AssertUnwindSafe(exit_summary));
}

fn exit_summary() {
    flush();
    let Ok(t) = TALLY.try_lock() else {
        // Another thread is recording right now (a thread still running at
        // exit): no summary rather than a hang.
        return;
    };
    let lines = t.as_ref().and_then(summary_lines);
    let dirty = lines.is_some();
    drop(t);
    let out = output();
    let mut err = std::io::stderr().lock();
    match lines {
        Some(lines) if out != ReportOutput::None => {
            for l in lines {
                let _ = writeln!(err, "{l}");
            }
        }
        None if out == ReportOutput::Always => {
            let _ = writeln!(
                err,
                "aclrt-sim: ==== audit at exit: no violations, no leaks ===="
            );
        }
        _ => {}
    }
    drop(err);
    if dirty {
        if let Some(code) = error_exit_code() {
            crate::prim::exit::exit_with(code);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn nothing_recorded_is_no_summary() {
        assert!(summary_lines(&Tally::default()).is_none());
    }

    #[test]
    fn the_summary_counts_rules_and_leaks() {
        let mut t = Tally::default();
        t.rules.insert("STRICT-CTX-LIVE", (2, "first".to_owned()));
        t.leaks.insert(ResourceKind::Stream, 3);
        let lines = summary_lines(&t).unwrap();
        assert!(
            lines[0].contains("2 violation(s) of 1 rule(s), 3 leak(s)"),
            "{lines:?}"
        );
        assert!(lines[1].contains("STRICT-CTX-LIVE: 2x"), "{lines:?}");
        assert!(lines[2].contains("3 Stream"), "{lines:?}");
    }
}
