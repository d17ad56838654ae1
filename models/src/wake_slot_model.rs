//! The wake slot of an awaited completion (`protocol::wake_slot`): the
//! future polling (arming its waker) and giving up interest (cancel),
//! against the completion service firing the slot.
//!
//! Asserted: a future whose poll stored its waker (the slot had not fired)
//! is woken by the fire, exactly once (no lost wake-up, no second wake);
//! and a waker is never called after `cancel` returned (the future's drop:
//! what it woke may be gone).

use crate::harness::{assert_bites, explore};
use crate::sync::{Arc, AtomicBool, AtomicUsize, Ordering, thread};
use crate::wake_slot::{Wake, WakeSlot};

/// The task a waker wakes: how often, whether its future is gone, and
/// whether it was woken after that (noted, not asserted in `wake`: the
/// slot contains a waker's panic).
struct Task {
    woken: AtomicUsize,
    gone: AtomicBool,
    late: AtomicBool,
}

#[derive(Clone)]
struct TestWaker(Arc<Task>);

impl Wake for TestWaker {
    fn wake(self) {
        if self.0.gone.load(Ordering::SeqCst) {
            self.0.late.store(true, Ordering::SeqCst);
        }
        self.0.woken.fetch_add(1, Ordering::SeqCst);
    }

    fn same(&self, other: &Self) -> bool {
        Arc::ptr_eq(&self.0, &other.0)
    }
}

fn task() -> TestWaker {
    TestWaker(Arc::new(Task {
        woken: AtomicUsize::new(0),
        gone: AtomicBool::new(false),
        late: AtomicBool::new(false),
    }))
}

/// Two polls (the second may replace the waker with a new one for the
/// same task) against one fire.
fn polls_vs_fire() {
    let slot: Arc<WakeSlot<TestWaker>> = WakeSlot::new();
    let w = task();
    let s1 = slot.clone();
    let service = thread::spawn(move || s1.fire());
    let first = slot.arm(&w);
    let second = slot.arm(&w.clone());
    service.join().unwrap();
    let woken = w.0.woken.load(Ordering::SeqCst);
    assert!(woken <= 1, "woken {woken} times for one completion");
    if !second {
        // The last poll stored its waker: the fire must have called it.
        assert_eq!(woken, 1, "a stored waker was never called (lost wake-up)");
    }
    if first {
        assert!(second, "a fired slot un-fired");
    }
}

/// A poll, then the future dropped (cancel) while the service fires.
fn cancel_vs_fire() {
    let slot: Arc<WakeSlot<TestWaker>> = WakeSlot::new();
    let w = task();
    let s1 = slot.clone();
    let service = thread::spawn(move || s1.fire());
    let fired = slot.arm(&w);
    slot.cancel(false);
    // The future is gone: its task must not be woken from here on.
    w.0.gone.store(true, Ordering::SeqCst);
    service.join().unwrap();
    assert!(
        !w.0.late.load(Ordering::SeqCst),
        "a waker was called after its future gave up interest"
    );
    assert!(w.0.woken.load(Ordering::SeqCst) <= 1);
    let _ = fired;
}

#[test]
fn wake_slot_polls_vs_fire() {
    explore("wake_slot_polls_vs_fire", None, polls_vs_fire);
}

#[test]
fn wake_slot_cancel_vs_fire() {
    explore("wake_slot_cancel_vs_fire", None, cancel_vs_fire);
}

#[test]
fn mutant_wake_arm_ignores_fired() {
    assert_bites("wake-arm-ignores-fired", None, polls_vs_fire);
}

#[test]
fn mutant_wake_cancel_no_wait() {
    assert_bites("wake-cancel-no-wait", None, cancel_vs_fire);
}
