//! Running a model under loom (every interleaving) or shuttle (random
//! schedules), counting the executions, and asserting that a mutant fails.

use std::panic::{AssertUnwindSafe, catch_unwind};

/// Shuttle's schedules per model (random, then PCT with depth 3).
#[cfg(all(shuttle, not(loom)))]
pub(crate) const SHUTTLE_RUNS: usize = 20_000;

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

fn bites(mutant: &'static str, explore: impl FnOnce() -> usize) {
    crate::sync::set_mutant(Some(mutant));
    let caught = catch_unwind(AssertUnwindSafe(explore));
    crate::sync::set_mutant(None);
    match caught {
        Err(_) => eprintln!("mutant {mutant}: the model fails, as it must"),
        Ok(n) => panic!("mutant {mutant} survived {n} executions: the model does not bite"),
    }
}
