//! The exception handlers' book (`protocol::handler_book`): a report
//! collecting and running the handlers on one thread, the removal of a
//! handler on another; and a removal from inside a report on the same
//! thread.
//!
//! The properties: once a removal returned (and its owner drops the
//! closure: `freed` here), no report runs the handler, and none starts to;
//! a handler removed from inside a report on its own thread is not waited
//! for (no self-deadlock) and does not run afterwards.

use crate::handler_book::HandlerBook;
use crate::harness::{assert_bites_spinning_bounded, explore_spinning_bounded};
use crate::sync::{Arc, AtomicBool, AtomicUsize, Ordering, thread};

struct World {
    book: HandlerBook<usize>,
    /// The owner dropped handler 1's closure.
    freed: AtomicBool,
    ran: AtomicUsize,
}

fn report(w: &World) {
    for e in w.book.collect() {
        if e.may_run() {
            // Only handler 1 is removed (and freed).
            let watched = e.id == 1;
            assert!(
                !(watched && w.freed.load(Ordering::SeqCst)),
                "a removed handler ran"
            );
            thread::yield_now();
            assert!(
                !(watched && w.freed.load(Ordering::SeqCst)),
                "a handler was freed while a report ran it"
            );
            w.ran.fetch_add(e.h, Ordering::SeqCst);
        }
        HandlerBook::done(&e);
    }
}

/// A report on one thread; handler 1's removal (then its drop) on another.
fn report_and_remove() {
    let w = Arc::new(World {
        book: HandlerBook::new(),
        freed: AtomicBool::new(false),
        ran: AtomicUsize::new(0),
    });
    w.book.add(1, 1);
    w.book.add(2, 10);
    let w1 = w.clone();
    let t = thread::spawn(move || report(&w1));
    let e = w.book.remove(1, 0);
    assert!(e.is_some(), "the handler was in the book");
    w.freed.store(true, Ordering::SeqCst);
    // A later report does not find it.
    report(&w);
    t.join().unwrap();
    assert!(!w.book.is_empty(), "handler 2 stays");
    assert!(w.ran.load(Ordering::SeqCst) >= 10, "handler 2 ran");
}

/// Inside a report, its own handler removes the other one (not waited
/// for: the report holds it) and the report then skips it.
fn remove_inside_a_report() {
    let book: HandlerBook<usize> = HandlerBook::new();
    book.add(1, 1);
    book.add(2, 2);
    let mut ran = Vec::new();
    for e in book.collect() {
        if e.may_run() {
            ran.push(e.id);
            if e.id == 1 {
                // This thread's report holds handler 2 once.
                assert!(book.remove(2, 1).is_some());
            }
        }
        HandlerBook::done(&e);
    }
    assert_eq!(ran, vec![1], "a removed handler ran");
}

#[test]
fn handler_book_report_and_remove() {
    explore_spinning_bounded("handler_book_report_and_remove", 3, report_and_remove);
}

#[test]
fn handler_book_remove_inside_a_report() {
    explore_spinning_bounded(
        "handler_book_remove_inside_a_report",
        3,
        remove_inside_a_report,
    );
}

#[test]
fn mutant_handler_remove_no_wait() {
    assert_bites_spinning_bounded("handler-remove-no-wait", 3, report_and_remove);
}

#[test]
fn mutant_handler_collect_uncounted() {
    assert_bites_spinning_bounded("handler-collect-uncounted", 3, report_and_remove);
}
