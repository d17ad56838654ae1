//! The Python face's one mapping per physical allocation
//! (`py/src/protocol/handle_core.rs`, `HandleCore::add_sole_child`, used by
//! `acl._native.Memory._map` and `_grow`): two threads mapping one
//! allocation at once, while a third frees it. The check "no child yet"
//! and the count are one critical section, so at most one mapping is ever
//! counted, and none is counted on a released allocation.
//!
//! The environment: `mapped` counts the mappings that were granted and not
//! yet removed; it must never exceed one, and a granted mapping must never
//! see the allocation freed.

use crate::handle_core::{HandleCore, Release};
use crate::harness::{assert_bites, explore};
use crate::sync::{Arc, AtomicBool, AtomicUsize, Ordering, thread};

struct World {
    h: HandleCore<u32>,
    mapped: AtomicUsize,
    freed: AtomicBool,
}

fn map(w: &World, key: u64) {
    if w.h.add_sole_child(0, key, ()).is_ok() {
        let n = w.mapped.fetch_add(1, Ordering::SeqCst) + 1;
        assert!(n <= 1, "one allocation mapped twice");
        assert!(
            !w.freed.load(Ordering::SeqCst),
            "a mapping of a freed allocation"
        );
        w.mapped.fetch_sub(1, Ordering::SeqCst);
        assert!(!w.h.remove_child(key).1, "the allocation does not wait");
    }
}

fn two_maps_and_a_free() {
    let w = Arc::new(World {
        h: HandleCore::new(),
        mapped: AtomicUsize::new(0),
        freed: AtomicBool::new(false),
    });
    assert!(w.h.open(9));
    let (w1, w2) = (w.clone(), w.clone());
    let a = thread::spawn(move || map(&w1, 1));
    let b = thread::spawn(move || map(&w2, 2));
    if let Ok(Release::Granted(v)) = w.h.begin_release(None) {
        assert_eq!(v, 9);
        assert_eq!(w.mapped.load(Ordering::SeqCst), 0, "freed while mapped");
        w.freed.store(true, Ordering::SeqCst);
        assert!(w.h.end_release(true));
    }
    a.join().unwrap();
    b.join().unwrap();
    assert_eq!(w.h.children(), 0);
}

#[test]
fn py_sole_child_two_maps_and_a_free() {
    explore(
        "py_sole_child_two_maps_and_a_free",
        None,
        two_maps_and_a_free,
    );
}

#[test]
fn mutant_handle_sole_child_check_apart() {
    assert_bites("handle-sole-child-check-apart", None, two_maps_and_a_free);
}
