//! The failure rule (`protocol::failure`, with `protocol::fault_watch`):
//! a failure seen first by another thread still fails the checked wait;
//! a give-back after a hand-off whose wait task failed waits for the
//! source lane; a host function's panic fails the wait at once, and the
//! recovery point returns it and lets work queued after it be clean.
//!
//! The environment: two streams, `A` (the source lane of a hand-off) and
//! `B`; each keeps its stored failure (a code that a synchronisation
//! takes, `swap(0)`) and a flag saying its work is done (a synchronisation
//! waits for it). The crate's side is the library's code: `Log`, `Sticky`,
//! `give_back_set`, `event_may_give_back`, `host_fn_panic_is_failure` and
//! the `Watch` of synchronisations in flight.

use crate::failure::{Log, Sticky, event_may_give_back, give_back_set, host_fn_panic_is_failure};
use crate::fault_watch::Watch;
use crate::harness::{assert_bites_spinning_bounded, explore_spinning_bounded};
use crate::sync::{Arc, AtomicBool, AtomicU64, Ordering, pause, thread};

const A: usize = 2;
const B: usize = 4;
/// A code no list classified (what the simulator gives a kernel that
/// panics).
const UNLISTED: u32 = 507_000;
/// The failure a panicking host function enters.
const PANICKED: u32 = 1;

struct World {
    log: Log<u32>,
    watch: Watch<2>,
    /// The runtime's stored failure of `A` and `B` (0: none).
    stored: [AtomicU64; 2],
    /// Whether the work queued on `A` and `B` is done.
    done: [AtomicBool; 2],
}

fn index(stream: usize) -> usize {
    usize::from(stream == B)
}

fn world() -> Arc<World> {
    Arc::new(World {
        log: Log::new(),
        watch: Watch::new(),
        stored: [AtomicU64::new(0), AtomicU64::new(0)],
        done: [AtomicBool::new(true), AtomicBool::new(true)],
    })
}

/// A synchronisation of `stream` by the crate: wait for its work, take its
/// stored failure, enter it (any code), end. Whether it took one.
fn sync(w: &World, stream: usize) -> bool {
    let ticket = w.watch.begin(stream);
    while !w.done[index(stream)].load(Ordering::SeqCst) {
        pause();
    }
    let code = w.stored[index(stream)].swap(0, Ordering::SeqCst);
    if code != 0 {
        w.log.enter(stream, &(code as u32), false);
    }
    w.watch.end(ticket);
    code != 0
}

fn mine(k: usize) -> bool {
    k == A || k == B
}

/// A task on `A` fails with an unlisted code; another thread's
/// synchronisation of `A` may take it first. The checked wait (its own
/// synchronisation, `quiesce`, `Sticky::check`) fails, and so does every
/// later one of the scope.
fn seen_by_another_thread() {
    let w = world();
    let mut sticky = Sticky::new(w.log.now());
    let since = w.log.now(); // parked
    w.stored[0].store(u64::from(UNLISTED), Ordering::SeqCst);
    let other = {
        let w = w.clone();
        thread::spawn(move || {
            sync(&w, A);
        })
    };
    sync(&w, A);
    w.watch.quiesce(|k| k == A);
    let first = sticky.check(&w.log, since, mine);
    other.join().unwrap();
    assert_eq!(first, Some(UNLISTED), "the checked wait missed the failure");
    // Sticky: a buffer parked after it fails too.
    assert_eq!(sticky.check(&w.log, w.log.now(), mine), Some(UNLISTED));
}

/// Lane `A`'s host function still writes the buffer; lane `B`'s wait task
/// for the hand-off failed, so `B` is idle at once. The give-back on `B`
/// (`reuse`, `via_fence`: a fence's `reuse`) must not hand the buffer back
/// before `A` is idle.
fn give_back_after_failed_hand_off(via_fence: bool) {
    let w = world();
    let data = Arc::new(AtomicU64::new(0));
    w.done[0].store(false, Ordering::SeqCst);
    w.stored[1].store(u64::from(UNLISTED), Ordering::SeqCst); // B's wait task
    let writer = {
        let (w, data) = (w.clone(), data.clone());
        thread::spawn(move || {
            data.store(1, Ordering::SeqCst);
            data.store(2, Ordering::SeqCst);
            w.done[0].store(true, Ordering::SeqCst);
        })
    };
    let crossed = true;
    if via_fence && event_may_give_back(crossed) {
        // The fence's event on `B` completed (after the failed wait task).
        while !w.done[1].load(Ordering::SeqCst) {
            pause();
        }
    } else {
        for stream in give_back_set(B, crossed, &[A, B]) {
            sync(&w, stream);
        }
    }
    // `&mut` back: nothing may write the buffer any more.
    let seen = data.load(Ordering::SeqCst);
    let writing = !w.done[0].load(Ordering::SeqCst);
    writer.join().unwrap();
    assert!(
        !writing && seen == 2,
        "the buffer came back while lane A wrote it"
    );
}

fn reuse_after_failed_hand_off() {
    give_back_after_failed_hand_off(false);
}

fn fence_reuse_after_failed_hand_off() {
    give_back_after_failed_hand_off(true);
}

/// A host function on `A` panics (on the runtime's thread): the checked
/// wait fails at once (another thread's synchronisation is the first
/// model's business); the recovery
/// point returns the failure; work queued after it is clean, work queued
/// before it is not.
fn host_fn_panic_and_recovery() {
    let w = world();
    let mut sticky = Sticky::new(w.log.now());
    let before = w.log.now(); // the host function's buffer, parked
    w.done[0].store(false, Ordering::SeqCst);
    let host = {
        let w = w.clone();
        thread::spawn(move || {
            if host_fn_panic_is_failure() {
                w.log.enter(A, &PANICKED, true);
            }
            w.done[0].store(true, Ordering::SeqCst);
        })
    };
    sync(&w, A);
    w.watch.quiesce(|k| k == A);
    assert_eq!(
        sticky.check(&w.log, before, mine),
        Some(PANICKED),
        "the panic was missed"
    );
    host.join().unwrap();
    // The recovery point, every lane idle.
    sync(&w, A);
    sync(&w, B);
    assert_eq!(sticky.recover(&w.log, mine), Some(PANICKED));
    let after = w.log.now(); // a buffer parked after the recovery
    assert_eq!(
        sticky.check(&w.log, after, mine),
        None,
        "work after recovery is clean"
    );
    assert_eq!(
        sticky.check(&w.log, before, mine),
        Some(PANICKED),
        "older contents still fail"
    );
    assert_eq!(
        sticky.check(&w.log, after, mine),
        None,
        "and that does not stick again"
    );
}

#[test]
fn failure_seen_by_another_thread() {
    explore_spinning_bounded("failure_seen_by_another_thread", 4, seen_by_another_thread);
}

#[test]
fn failure_reuse_after_failed_hand_off() {
    explore_spinning_bounded(
        "failure_reuse_after_failed_hand_off",
        4,
        reuse_after_failed_hand_off,
    );
}

#[test]
fn failure_fence_reuse_after_failed_hand_off() {
    explore_spinning_bounded(
        "failure_fence_reuse_after_failed_hand_off",
        4,
        fence_reuse_after_failed_hand_off,
    );
}

#[test]
fn failure_host_fn_panic_and_recovery() {
    explore_spinning_bounded(
        "failure_host_fn_panic_and_recovery",
        3,
        host_fn_panic_and_recovery,
    );
}

#[test]
fn mutant_failure_listed_codes_only() {
    assert_bites_spinning_bounded("failure-listed-codes-only", 4, seen_by_another_thread);
}

#[test]
fn mutant_failure_skip_source_lane() {
    assert_bites_spinning_bounded("failure-skip-source-lane", 4, reuse_after_failed_hand_off);
}

#[test]
fn mutant_failure_trust_hand_off() {
    assert_bites_spinning_bounded(
        "failure-trust-hand-off",
        4,
        fence_reuse_after_failed_hand_off,
    );
}

#[test]
fn mutant_failure_ignore_host_fn_panic() {
    assert_bites_spinning_bounded(
        "failure-ignore-host-fn-panic",
        3,
        host_fn_panic_and_recovery,
    );
}

#[test]
fn mutant_failure_no_quiesce() {
    assert_bites_spinning_bounded("fault-watch-no-quiesce", 4, seen_by_another_thread);
}
