//! The protocol core of the exception handlers' book (`ffi::exception`,
//! model-checked in `models/src/handler_book_model.rs`): handlers added and
//! removed by the program's threads, collected and run by the runtime's
//! report threads, and a removal that returns only once no report runs
//! the handler any more.
//!
//! The argument: a report collects the handlers under the book's lock and
//! counts itself on each (`running`) before it lets go of the lock; a
//! removal takes the handler out under the same lock, marks it `gone`, and
//! then waits until its count falls to the holds of its own thread (a
//! handler removed from inside a report on the same thread: that report
//! holds one). A report runs a collected handler only if it is not `gone`,
//! and uncounts itself after. So once a removal returned, no other thread
//! runs the handler, and none starts to.
#![deny(unsafe_code)]

use super::sync::{Arc, AtomicBool, AtomicUsize, Mutex, Ordering, Rank, lock, mutant, pause};

/// A handler `H` in the book.
pub(crate) struct Entry<H> {
    pub(crate) id: u64,
    pub(crate) h: H,
    /// Reports that collected it and have not finished with it.
    running: AtomicUsize,
    /// Taken out of the book: a report that collected it before does not
    /// run it.
    gone: AtomicBool,
}

impl<H> Entry<H> {
    /// Whether a report that collected it may run it now.
    pub(crate) fn may_run(&self) -> bool {
        !self.gone.load(Ordering::SeqCst)
    }
}

/// The handlers registered now.
pub(crate) struct HandlerBook<H> {
    list: Mutex<Vec<Arc<Entry<H>>>>,
}

impl<H> HandlerBook<H> {
    /// An empty book, for a `static`.
    #[cfg(not(any(loom, shuttle)))]
    pub(crate) const fn new_static() -> Self {
        HandlerBook {
            list: Mutex::new(Vec::new()),
        }
    }

    /// An empty book.
    #[cfg(any(loom, shuttle))]
    pub(crate) fn new() -> Self {
        HandlerBook {
            list: Mutex::new(Vec::new()),
        }
    }

    /// Add handler `h` under `id`.
    pub(crate) fn add(&self, id: u64, h: H) {
        let e = Arc::new(Entry {
            id,
            h,
            running: AtomicUsize::new(0),
            gone: AtomicBool::new(false),
        });
        lock(&self.list, Rank::ExcHandlers).push(e);
    }

    /// The handlers now, each counted as run by the caller until
    /// [`done`](Self::done) (which the caller must call for each, after
    /// running it or not).
    pub(crate) fn collect(&self) -> Vec<Arc<Entry<H>>> {
        let list = lock(&self.list, Rank::ExcHandlers);
        for e in list.iter() {
            if !mutant("handler-collect-uncounted") {
                e.running.fetch_add(1, Ordering::SeqCst);
            }
        }
        list.clone()
    }

    /// The caller is done with `e` (collected by [`collect`](Self::collect)).
    pub(crate) fn done(e: &Entry<H>) {
        if !mutant("handler-collect-uncounted") {
            e.running.fetch_sub(1, Ordering::Release);
        }
    }

    /// Whether the book holds no handler.
    pub(crate) fn is_empty(&self) -> bool {
        lock(&self.list, Rank::ExcHandlers).is_empty()
    }

    /// Take handler `id` out; wait until no report runs it but those of
    /// the calling thread (`own`: how many of its reports hold it now);
    /// hand it back.
    pub(crate) fn remove(&self, id: u64, own: usize) -> Option<Arc<Entry<H>>> {
        let e = {
            let mut list = lock(&self.list, Rank::ExcHandlers);
            list.iter().position(|e| e.id == id).map(|i| list.remove(i))
        };
        if let Some(e) = &e {
            e.gone.store(true, Ordering::SeqCst);
            if !mutant("handler-remove-no-wait") {
                while e.running.load(Ordering::Acquire) > own {
                    pause();
                }
            }
        }
        e
    }
}
