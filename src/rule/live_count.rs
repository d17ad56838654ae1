//! The protocol core of the live book's counters (`live`, model-checked): a
//! context's count of live children, moved by streams without
//! the book's lock and by events and allocations under it.
//!
//! Every move is one read-modify-write, so the counter's modification order
//! has every move once whatever the threads do (relaxed ordering suffices:
//! nothing else is published through a counter; the questions that read it
//! need the parent by value, which the children borrowed, so they come
//! after every move they must see). A release that finds zero (a stream
//! made while its context was unknown to the book counted nothing)
//! saturates: it does not decrement ([`release`], [`release_checked`]).
#![deny(unsafe_code)]

use super::sync::{AtomicUsize, Ordering, mutant};

/// A child was made.
#[inline]
pub(crate) fn create(live: &AtomicUsize) {
    if mutant("live-create-load-store") {
        let n = live.load(Ordering::Relaxed);
        live.store(n + 1, Ordering::Relaxed);
        return;
    }
    live.fetch_add(1, Ordering::Relaxed);
}

/// A stream was released (without the book's lock): saturates at zero,
/// in one read-modify-write.
///
/// (Found by the model `live_saturating`: this was a decrement
/// undone by an increment when it had found zero. Between the two, another
/// thread's stream could be made and released, its own release finding
/// zero and undoing too: the count then ended at one with nothing alive,
/// and the context's explicit destruction was refused for ever.)
#[inline]
pub(crate) fn release(live: &AtomicUsize) {
    if mutant("live-release-sub-then-undo") {
        if live.fetch_sub(1, Ordering::Relaxed) == 0 {
            live.fetch_add(1, Ordering::Relaxed);
        }
        return;
    }
    let _ = live.fetch_update(Ordering::Relaxed, Ordering::Relaxed, |n| n.checked_sub(1));
}

/// An event or allocation was released (under the book's lock): decrement
/// unless zero; returns the count before.
#[inline]
pub(crate) fn release_checked(live: &AtomicUsize) -> Result<usize, usize> {
    if mutant("live-release-load-store") {
        let n = live.load(Ordering::Relaxed);
        return match n.checked_sub(1) {
            Some(m) => {
                live.store(m, Ordering::Relaxed);
                Ok(n)
            }
            None => Err(n),
        };
    }
    live.fetch_update(Ordering::Relaxed, Ordering::Relaxed, |n| n.checked_sub(1))
}

/// The count now.
#[inline]
pub(crate) fn live(live: &AtomicUsize) -> usize {
    live.load(Ordering::Relaxed)
}
