//! The book of outside waits (`protocol::wait_book`): waits queued on
//! streams, a synchronisation of the streams, and the destruction of the
//! event the waits refer to.
//!
//! Environment: a stream is a queue of the waits queued on it (by event);
//! a synchronisation executes what is queued when it runs (which is after
//! it started: it took its ticket first); an event is destroyed by the
//! user's drop (unless deferred) or by the synchronisation that settles its
//! last wait. The property: an event is destroyed exactly once, and never
//! while a wait queued on a stream still refers to it.

use crate::harness::{assert_bites, explore, lock};
use crate::sync::{Arc, AtomicBool, Mutex, thread};
use crate::wait_book::{self, Book};

/// The event (its address in the book).
const E: usize = 0xe0;

struct World {
    any: AtomicBool,
    book: Mutex<Book<usize, ()>>,
    /// Streams 1 and 2: the events of the waits queued and not executed.
    streams: [Mutex<Vec<usize>>; 2],
    /// How many times the event was destroyed.
    destroyed: Mutex<u32>,
}

impl World {
    fn new() -> Arc<World> {
        Arc::new(World {
            any: AtomicBool::new(false),
            book: Mutex::new(Book::new()),
            streams: [Mutex::new(Vec::new()), Mutex::new(Vec::new())],
            destroyed: Mutex::new(0),
        })
    }

    /// `Stream::wait_event(E)` on stream `s` (context 1).
    fn wait(&self, s: usize) {
        let r: Result<(), ()> = wait_book::enter(&self.any, &self.book, (E, s, 1), (), || {
            lock(&self.streams[s - 1]).push(E);
            Ok(())
        });
        r.unwrap();
    }

    /// `aclrtDestroyEvent`: no wait may still refer to it.
    fn destroy(&self) {
        for (i, s) in self.streams.iter().enumerate() {
            assert!(
                !lock(s).contains(&E),
                "the event was destroyed while a wait on stream {} still refers to it",
                i + 1
            );
        }
        *lock(&self.destroyed) += 1;
    }

    /// The user drops the event (`destroy_event`).
    fn drop_event(&self) {
        if !wait_book::defer_destroy(&self.any, &self.book, E, E) {
            self.destroy();
        }
    }

    /// `Stream::synchronize` of stream `s`, or of the context (`None`).
    fn synchronize(&self, s: Option<usize>) {
        let ticket = wait_book::ticket(&self.any, &self.book);
        for (i, st) in self.streams.iter().enumerate() {
            if s.is_none_or(|s| s == i + 1) {
                lock(st).clear();
            }
        }
        let ready = wait_book::settle(
            &self.any,
            &self.book,
            ticket,
            |w| s.is_none_or(|s| w.stream == s),
            |e| e,
        );
        for _ in ready {
            self.destroy();
        }
    }

    /// At the end: a context synchronisation releases what is deferred;
    /// the event was destroyed exactly once.
    fn finish(&self) {
        self.synchronize(None);
        assert_eq!(
            *lock(&self.destroyed),
            1,
            "the event is destroyed exactly once"
        );
    }
}

/// A wait and the event's drop on one thread, a synchronisation of the
/// stream on another.
fn wait_then_drop_vs_sync() {
    let w = World::new();
    let w1 = w.clone();
    let user = thread::spawn(move || {
        w1.wait(1);
        w1.drop_event();
    });
    w.synchronize(Some(1));
    user.join().unwrap();
    w.finish();
}

/// As [`wait_then_drop_vs_sync`], with the book already in use (a wait on
/// stream 2, settled by a synchronisation, first: the lock-free fast paths
/// are off).
fn book_in_use() {
    let w = World::new();
    let w1 = w.clone();
    let user = thread::spawn(move || {
        w1.wait(2);
        w1.synchronize(Some(2));
        w1.wait(1);
        w1.drop_event();
    });
    w.synchronize(Some(1));
    user.join().unwrap();
    w.finish();
}

/// Waits on two streams, then the drop; two threads synchronise one
/// stream each (three threads, two streams).
fn two_streams_two_syncs() {
    let w = World::new();
    let (w1, w2) = (w.clone(), w.clone());
    let user = thread::spawn(move || {
        w1.wait(1);
        w1.wait(2);
        w1.drop_event();
    });
    let other = thread::spawn(move || w2.synchronize(Some(2)));
    w.synchronize(Some(1));
    user.join().unwrap();
    other.join().unwrap();
    w.finish();
}

/// Shuttle only (too large for loom to exhaust): waits on both streams and
/// the drop on one thread, a thread synchronising stream 1 then stream 2,
/// and one synchronising the whole context, while the book is in use.
#[cfg(all(shuttle, not(loom)))]
fn large() {
    let w = World::new();
    let (w1, w2, w3) = (w.clone(), w.clone(), w.clone());
    let user = thread::spawn(move || {
        w1.wait(2);
        w1.synchronize(Some(2));
        w1.wait(1);
        w1.wait(2);
        w1.drop_event();
    });
    let a = thread::spawn(move || {
        w2.synchronize(Some(1));
        w2.synchronize(Some(2));
    });
    let b = thread::spawn(move || w3.synchronize(None));
    user.join().unwrap();
    a.join().unwrap();
    b.join().unwrap();
    w.finish();
}

#[cfg(all(shuttle, not(loom)))]
#[test]
fn waits_large_shuttle() {
    explore("waits_large_shuttle", None, large);
}

#[cfg(all(shuttle, not(loom)))]
#[test]
fn mutant_waits_queue_unlocked_large() {
    assert_bites("waits-queue-unlocked", None, large);
}

#[test]
fn waits_wait_then_drop_vs_sync() {
    explore("waits_wait_then_drop_vs_sync", None, wait_then_drop_vs_sync);
}

#[test]
fn waits_book_in_use() {
    explore("waits_book_in_use", None, book_in_use);
}

#[test]
fn waits_two_streams_two_syncs() {
    explore(
        "waits_two_streams_two_syncs",
        Some(3),
        two_streams_two_syncs,
    );
}

#[test]
fn mutant_waits_queue_unlocked() {
    assert_bites("waits-queue-unlocked", None, book_in_use);
}

#[test]
fn mutant_waits_settle_ignores_ticket() {
    assert_bites("waits-settle-ignores-ticket", None, wait_then_drop_vs_sync);
}
