//! The live book's counters (`protocol::live_count`): a context's count of
//! live children, moved by streams without the book's lock and by events
//! and allocations under it, from several threads at once.
//!
//! The property: once every thread is done, the count is exactly the
//! number of children still alive (here zero: each thread releases what it
//! made), so a context's destruction is refused exactly while a child
//! lives; a release of a stream that counted nothing saturates at zero.

use crate::harness::{assert_bites, explore, lock};
use crate::live_count;
use crate::sync::{Arc, AtomicUsize, Mutex, thread};

struct World {
    live: AtomicUsize,
    /// The book's lock (events and allocations move the count under it).
    book: Mutex<()>,
}

fn world() -> Arc<World> {
    Arc::new(World {
        live: AtomicUsize::new(0),
        book: Mutex::new(()),
    })
}

/// A stream made and released on one thread, an event made and released
/// (under the book's lock) on another, and a stream made before (by the
/// main thread) released meanwhile.
fn streams_and_events() {
    let w = world();
    live_count::create(&w.live); // the main thread's stream
    let (w1, w2) = (w.clone(), w.clone());
    let a = thread::spawn(move || {
        live_count::create(&w1.live);
        live_count::release(&w1.live);
    });
    let b = thread::spawn(move || {
        {
            let _book = lock(&w2.book);
            live_count::create(&w2.live);
        }
        let _book = lock(&w2.book);
        assert!(live_count::release_checked(&w2.live).is_ok());
    });
    live_count::release(&w.live);
    a.join().unwrap();
    b.join().unwrap();
    assert_eq!(live_count::live(&w.live), 0, "the count is exact");
}

/// A stream that counted nothing (its context was unknown) is released
/// while another thread makes and releases a counted one: the count never
/// stays below zero and ends at zero.
fn saturating() {
    let w = world();
    let w1 = w.clone();
    let a = thread::spawn(move || {
        live_count::create(&w1.live);
        live_count::release(&w1.live);
    });
    live_count::release(&w.live);
    a.join().unwrap();
    assert_eq!(live_count::live(&w.live), 0, "the count is exact");
}

#[test]
fn live_streams_and_events() {
    explore("live_streams_and_events", Some(3), streams_and_events);
}

#[test]
fn live_saturating() {
    explore("live_saturating", None, saturating);
}

#[test]
fn mutant_live_create_load_store() {
    assert_bites("live-create-load-store", Some(3), streams_and_events);
}

#[test]
fn mutant_live_release_load_store() {
    assert_bites("live-release-load-store", Some(3), streams_and_events);
}

#[test]
fn mutant_live_release_sub_then_undo() {
    assert_bites("live-release-sub-then-undo", None, saturating);
}
