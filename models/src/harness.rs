//! Running a model under loom (every interleaving) or shuttle (random
//! schedules), counting the executions, and asserting that a mutant fails.

use std::panic::{AssertUnwindSafe, catch_unwind};

/// Shuttle's schedules per model (random, then PCT with depth 3).
#[cfg(all(shuttle, not(loom)))]
pub(crate) const SHUTTLE_RUNS: usize = 10_000;

/// Explores `f`: under loom every interleaving (within `preemptions`
/// preemptions per execution, `None`: unbounded), under shuttle
/// [`SHUTTLE_RUNS`] random and as many PCT schedules. Prints and returns
/// how many executions ran.
pub(crate) fn explore(name: &str, preemptions: Option<usize>, f: fn()) -> usize {
    run(name, preemptions, f, true)
}

/// [`explore`] for a model with a spin-wait: under shuttle, random
/// schedules only (PCT's fixed priorities let a spinning thread starve the
/// one it waits for: "exceeded max_steps").
pub(crate) fn explore_spinning(name: &str, f: fn()) -> usize {
    run(name, None, f, false)
}

/// [`explore_spinning`] within `preemptions` preemptions per execution
/// under loom (a spin-wait makes unbounded exploration blow up).
pub(crate) fn explore_spinning_bounded(name: &str, preemptions: usize, f: fn()) -> usize {
    run(name, Some(preemptions), f, false)
}

fn run(name: &str, preemptions: Option<usize>, f: fn(), pct: bool) -> usize {
    // Loom and shuttle run a model's threads on the calling OS thread; the
    // tests of one binary run on several, hence a thread-local count.
    std::thread_local! {
        static COUNT: std::cell::Cell<usize> = const { std::cell::Cell::new(0) };
    }
    COUNT.with(|c| c.set(0));
    let body = move || {
        COUNT.with(|c| c.set(c.get() + 1));
        f();
    };
    #[cfg(loom)]
    {
        let _ = pct;
        let mut b = loom::model::Builder::new();
        b.preemption_bound = preemptions;
        b.check(body);
    }
    #[cfg(all(shuttle, not(loom)))]
    {
        let _ = preemptions;
        shuttle::check_random(body, SHUTTLE_RUNS);
        if pct {
            shuttle::check_pct(body, SHUTTLE_RUNS, 3);
        }
    }
    let n = COUNT.with(|c| c.get());
    eprintln!("model {name}: {n} executions, no failure");
    n
}

/// Runs `f` with the protocol break `mutant` switched on and asserts that
/// the model checker finds a failure (the model bites).
pub(crate) fn assert_bites(mutant: &'static str, preemptions: Option<usize>, f: fn()) {
    bites(mutant, || explore(mutant, preemptions, f));
}

/// [`assert_bites`] for a model with a spin-wait ([`explore_spinning`]).
pub(crate) fn assert_bites_spinning(mutant: &'static str, f: fn()) {
    bites(mutant, || explore_spinning(mutant, f));
}

/// [`assert_bites`] for [`explore_spinning_bounded`].
pub(crate) fn assert_bites_spinning_bounded(mutant: &'static str, preemptions: usize, f: fn()) {
    bites(mutant, || explore_spinning_bounded(mutant, preemptions, f));
}

fn bites(mutant: &'static str, explore: impl FnOnce() -> usize) {
    crate::sync::set_mutant(Some(mutant));
    let caught = catch_unwind(AssertUnwindSafe(explore));
    crate::sync::set_mutant(None);
    match caught {
        Err(_) => eprintln!("mutant {mutant}: the model fails, as it must"),
        Ok(n) => panic!("mutant {mutant} survived {n} executions: the model does not bite"),
    }
}

/// Lock a mutex of a model's environment (not a core's lock).
pub(crate) fn lock<T>(m: &crate::sync::Mutex<T>) -> crate::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|e| e.into_inner())
}

/// [`assert_bites`] for a mutant whose failure is a deadlock: loom's
/// deadlock report panics while threads are parked, and the clean-up
/// aborts the process, so the model runs in a child process (this test
/// binary, filtered to the test `test`), which must fail and say `expect`.
pub(crate) fn assert_bites_in_child(
    test: &str,
    mutant: &'static str,
    preemptions: Option<usize>,
    f: fn(),
    expect: &str,
) {
    if std::env::var_os("ACLRT_MODEL_CHILD").is_some() {
        crate::sync::set_mutant(Some(mutant));
        explore(mutant, preemptions, f);
        return;
    }
    let exe = std::env::current_exe().expect("the test binary");
    let out = std::process::Command::new(exe)
        .args([test, "--exact", "--nocapture", "--test-threads=1"])
        .env("ACLRT_MODEL_CHILD", "1")
        .output()
        .expect("run the test binary");
    let text =
        String::from_utf8_lossy(&out.stdout).into_owned() + &String::from_utf8_lossy(&out.stderr);
    assert!(
        !out.status.success(),
        "mutant {mutant} survived (child process passed):\n{text}"
    );
    assert!(
        text.contains(expect),
        "mutant {mutant}: the child failed, but not with {expect:?}:\n{text}"
    );
    eprintln!("mutant {mutant}: the model fails ({expect}), as it must");
}
