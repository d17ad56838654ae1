//! The watch of synchronisations in flight (`protocol::fault_watch`): a
//! checked wait must learn a device fault that another thread's
//! synchronisation of the same stream took from the runtime, even when it
//! looks before that thread entered it.
//!
//! The environment: the runtime keeps one fault of stream `S` (a flag that
//! a synchronisation takes, `swap(false)`); the crate's log is a clock that
//! moves when a fault is entered. A buffer notes the clock when it is
//! parked; its work faults; thread B synchronises `S` (and may take the
//! fault) while the buffer's thread makes its checked wait: its own
//! synchronisation, then `quiesce`, then the log. The property: the
//! checked wait learns the fault, whoever took it. With one slot, a third
//! thread synchronising another stream (or a second one of `S`) sends one
//! of them to the overflow list.

use crate::fault_watch::Watch;
use crate::harness::{assert_bites_spinning_bounded, explore_spinning_bounded};
use crate::sync::{Arc, AtomicBool, AtomicU64, Ordering, thread};

/// The stream's key, and another stream's.
const S: usize = 2;
const OTHER: usize = 4;

struct World {
    watch: Watch<1>,
    /// The runtime's stored fault of `S`.
    fault: AtomicBool,
    /// The crate's log of entered faults.
    clock: AtomicU64,
}

fn world() -> Arc<World> {
    Arc::new(World {
        watch: Watch::new(),
        fault: AtomicBool::new(false),
        clock: AtomicU64::new(0),
    })
}

/// A synchronisation of `key` by the crate: `begin`, the runtime call
/// (which takes the fault of `S`), the entry, `end`. Whether it took it.
fn sync(w: &World, key: usize) -> bool {
    let ticket = w.watch.begin(key);
    let took = key == S && w.fault.swap(false, Ordering::SeqCst);
    if took {
        w.clock.fetch_add(1, Ordering::SeqCst);
    }
    w.watch.end(ticket);
    took
}

/// The buffer's thread: park, fault, checked wait; `others` synchronise
/// meanwhile.
fn checked_wait_with(others: &'static [usize]) {
    let w = world();
    let since = w.clock.load(Ordering::SeqCst); // parked
    w.fault.store(true, Ordering::SeqCst); // its work faulted
    let threads: Vec<_> = others
        .iter()
        .map(|&key| {
            let w = w.clone();
            thread::spawn(move || {
                sync(&w, key);
            })
        })
        .collect();
    let own = sync(&w, S);
    w.watch.quiesce(|k| k == S);
    let learned = own || w.clock.load(Ordering::SeqCst) > since;
    for t in threads {
        t.join().unwrap();
    }
    assert!(
        learned,
        "the checked wait missed a fault another thread took"
    );
}

fn one_other_thread() {
    checked_wait_with(&[S]);
}

fn overflowing() {
    checked_wait_with(&[S, OTHER]);
}

#[test]
fn fault_watch_another_thread_takes_the_fault() {
    explore_spinning_bounded(
        "fault_watch_another_thread_takes_the_fault",
        5,
        one_other_thread,
    );
}

#[test]
fn fault_watch_overflow() {
    explore_spinning_bounded("fault_watch_overflow", 3, overflowing);
}

#[test]
fn mutant_fault_watch_no_quiesce() {
    assert_bites_spinning_bounded("fault-watch-no-quiesce", 3, one_other_thread);
}
