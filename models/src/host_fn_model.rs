//! The host-function slot (`protocol::host_fn_slot`): the runtime's
//! callback thread against the slot's owner settling it.
//!
//! The function borrows data of its owner (here a cell the owner writes
//! once `settle` returned, as a scope's end frees what its host functions
//! borrowed). The model runs the runner and the owner concurrently, with
//! no ordering between them (stronger than the library's contract, where
//! the owner settles once the stream is idle or gone), and asserts: the
//! function runs at most once, never after `settle` returned, and its panic
//! (every function here panics) reaches `settle` exactly when it ran.
//! Under loom the borrowed data is a `loom::cell::UnsafeCell`, so a write
//! of the owner that does not happen after the function's access is
//! reported as a data race.

use crate::harness::{assert_bites_spinning, explore_spinning};
use crate::sync::{Arc, AtomicBool, Ordering, thread};

type Slot = crate::host_fn_slot::HostFnSlot<Box<dyn FnOnce() -> Option<u32> + Send>, u32>;

/// What the function borrows: data whose accesses must be ordered.
struct Borrowed {
    #[cfg(loom)]
    cell: loom::cell::UnsafeCell<u32>,
    /// Set by the owner once it may free the data.
    freed: AtomicBool,
    ran: AtomicBool,
}

impl Borrowed {
    fn new() -> Arc<Borrowed> {
        Arc::new(Borrowed {
            #[cfg(loom)]
            cell: loom::cell::UnsafeCell::new(0),
            freed: AtomicBool::new(false),
            ran: AtomicBool::new(false),
        })
    }

    /// The host function's access.
    fn touch(&self) {
        assert!(
            !self.freed.load(Ordering::SeqCst),
            "a host function ran after its slot was settled"
        );
        assert!(
            !self.ran.swap(true, Ordering::SeqCst),
            "a host function ran twice"
        );
        #[cfg(loom)]
        #[allow(unsafe_code)]
        // SAFETY: loom checks this access: it is sound only if the owner's
        // write in `free` happens after it, which is what the model tests.
        self.cell.with_mut(|p| unsafe { *p += 1 });
    }

    /// The owner frees the data.
    fn free(&self) {
        #[cfg(loom)]
        #[allow(unsafe_code)]
        // SAFETY: as in `touch`; loom reports a race if it is not.
        self.cell.with_mut(|p| unsafe { *p = 0 });
        self.freed.store(true, Ordering::SeqCst);
    }
}

// SAFETY: `cell` is shared by the function's thread and the owner; loom
// checks every access to it and fails the model on a race, which is the
// point of the model.
#[cfg(loom)]
#[allow(unsafe_code)]
unsafe impl Sync for Borrowed {}

/// The trampoline's part (`host_fn::trampoline`), with the panic caught
/// modelled as the function's return value.
fn run(slot: &Slot) {
    if let Some(f) = slot.begin_run() {
        let payload = f();
        slot.end_run(payload);
    }
}

fn settle_vs_run() {
    let b = Borrowed::new();
    let b1 = b.clone();
    let slot: Arc<Slot> = Slot::new(Box::new(move || {
        b1.touch();
        Some(7)
    }));
    let s1 = slot.clone();
    let runner = thread::spawn(move || run(&s1));
    let (panic, lost) = slot.settle();
    b.free();
    let ran = b.ran.load(Ordering::SeqCst);
    assert_eq!(
        lost, !ran,
        "settle says it never ran exactly when it did not"
    );
    assert_eq!(
        panic.is_some(),
        ran,
        "settle returned {panic:?}, the function ran: {ran}"
    );
    runner.join().unwrap();
}

/// Two slots on one stream, run in order by one runner, settled by the
/// owner in order (a scope with two host functions); the first panics,
/// the second returns (then no lock orders the owner after the function:
/// only `DONE`'s release does).
fn two_slots() {
    let b = Borrowed::new();
    let c = Borrowed::new();
    let (b1, c1) = (b.clone(), c.clone());
    let first: Arc<Slot> = Slot::new(Box::new(move || {
        b1.touch();
        Some(1)
    }));
    let second: Arc<Slot> = Slot::new(Box::new(move || {
        c1.touch();
        None
    }));
    let (f1, s1) = (first.clone(), second.clone());
    let runner = thread::spawn(move || {
        run(&f1);
        run(&s1);
    });
    let (p1, lost1) = first.settle();
    b.free();
    let (p2, lost2) = second.settle();
    c.free();
    assert_eq!(lost1, !b.ran.load(Ordering::SeqCst));
    assert_eq!(lost2, !c.ran.load(Ordering::SeqCst));
    assert_eq!(p1.is_some(), b.ran.load(Ordering::SeqCst));
    assert!(
        p2.is_none(),
        "the second function returned, it did not panic"
    );
    runner.join().unwrap();
}

#[test]
fn host_fn_settle_vs_run() {
    explore_spinning("host_fn_settle_vs_run", settle_vs_run);
}

#[test]
fn host_fn_two_slots() {
    explore_spinning("host_fn_two_slots", two_slots);
}

#[test]
fn mutant_host_fn_settle_no_wait() {
    assert_bites_spinning("hostfn-settle-no-wait", settle_vs_run);
}

#[test]
fn mutant_host_fn_done_before_panic() {
    assert_bites_spinning("hostfn-done-before-panic", settle_vs_run);
}

// Only loom sees a missing release: shuttle's memory is sequentially
// consistent, and it has no data-race detector.
#[cfg(loom)]
#[test]
fn mutant_host_fn_done_relaxed() {
    assert_bites_spinning("hostfn-done-relaxed", two_slots);
}
