//! The protocol core of a thread's scope slot and of the escalation flag
//! (`scope::open`; model-checked).
//!
//! A scope with one stream, no user event and no host function does not
//! enter the locked registry of open scopes: it enters its thread's
//! [`Slot`]. An escalation must still find, and mark aborted, every such
//! scope on the streams it aborts. No unsafe and no FFI here: the library
//! passes raw stream handles as addresses, and the model crate (`models/`)
//! compiles this same file with loom's and shuttle's atomics
//! ([`super::sync`]).
//!
//! # Why an escalation finds every slotted scope on its streams
//!
//! The two sides form a Dekker pair, each a store, a `SeqCst` fence, and a
//! load of what the other stored:
//! * [`Slot::enter`] stores `stream` and `state` (the scope's id), then a
//!   `SeqCst` fence, then loads the escalation flag; the scope stays in the
//!   slot only if that load reads `false`.
//! * [`escalation_begins`] (under the registry's lock) stores `true` in the
//!   flag, then a `SeqCst` fence; only then does the escalation read the
//!   slots ([`Slot::mark_if`]).
//!
//! Of two `SeqCst` fences one comes first: if the scope's fence does, the
//! escalation's reads after its own fence see the scope's state (C11
//! fence rules), and it marks the scope; if the escalation's fence does,
//! the scope's load reads `true`, and it leaves the slot at once for the
//! registry, where the escalation's lock makes it see the streams being
//! aborted. A slot made after the escalation read the list of slots
//! belongs to a thread that took the list's lock after it, so it reads the
//! flag `true` too (`open::new_slot`).
//!
//! A read of a slot is `state` (acquire), `stream`, and a compare-exchange
//! that sets the mark only if `state` still holds the id read: ids are
//! never reused and `stream` is written only while `state` is 0, so the
//! stream read belongs to that id. A scope that left before the mark had
//! synchronised its work there; one that leaves after it sees the mark
//! ([`Slot::leave`], [`Slot::take`]): both are read-modify-writes of
//! `state`, so one of the two comes first in its modification order.
//!
//! After the first escalation the flag stays `true` and no scope stays in
//! a slot.
#![deny(unsafe_code)]

use super::sync::{AtomicBool, AtomicU64, AtomicUsize, Ordering, fence, mutant};

/// The mark an escalation sets in a slot's `state`.
pub(crate) const SLOT_ABORTED: u64 = 1;

/// A thread's place for one open scope that has exactly one stream.
///
/// `state` is 0 (free) or the scope's id shifted left by one, with
/// [`SLOT_ABORTED`] set once an escalation marked it. Only the owning
/// thread writes `stream`, and writes `state` from 0 to an id and back to
/// 0; an escalation only sets the mark, by a compare-exchange on the id it
/// read.
pub(crate) struct Slot {
    state: AtomicU64,
    /// The scope's stream, as an address.
    stream: AtomicUsize,
}

impl Slot {
    /// A free slot.
    pub(crate) fn new() -> Slot {
        Slot {
            state: AtomicU64::new(0),
            stream: AtomicUsize::new(0),
        }
    }

    /// Whether no scope holds the slot (asked by its own thread, the only
    /// one that fills it).
    #[inline]
    pub(crate) fn is_free(&self) -> bool {
        self.state.load(Ordering::Relaxed) == 0
    }

    /// Scope `id` (> 0, never reused) enters the free slot with `stream`;
    /// returns whether it stays, i.e. whether no escalation had begun
    /// (`escalated`, see [`escalation_begins`]). If not, the slot is free
    /// again and the scope belongs in the registry.
    #[inline]
    pub(crate) fn enter(&self, id: u64, stream: usize, escalated: &AtomicBool) -> bool {
        self.stream.store(stream, Ordering::Release);
        self.state.store(id << 1, Ordering::Release);
        if !mutant("slot-enter-no-fence") {
            fence(Ordering::SeqCst);
        }
        if !mutant("slot-enter-no-recheck") && escalated.load(Ordering::Relaxed) {
            // An escalation may have read the slots before it could see
            // this one: leave. A mark set meanwhile is not needed: the
            // scope has queued nothing yet.
            self.state.store(0, Ordering::Release);
            return false;
        }
        true
    }

    /// The slotted scope leaves (it ends, its work synchronised); returns
    /// whether an escalation marked it aborted.
    #[inline]
    pub(crate) fn leave(&self) -> bool {
        let state = self.take();
        !mutant("slot-leave-ignores-mark") && state & SLOT_ABORTED != 0
    }

    /// Empties the slot and returns its state (the id shifted left by one,
    /// with the mark): the scope moves to the registry, keeping a mark.
    #[inline]
    pub(crate) fn take(&self) -> u64 {
        self.state.swap(0, Ordering::AcqRel)
    }

    /// Whether an escalation marked the scope in this slot (its own
    /// thread asks; a hint: [`leave`](Self::leave) gives the answer).
    #[inline]
    pub(crate) fn marked(&self) -> bool {
        self.state.load(Ordering::Acquire) & SLOT_ABORTED != 0
    }

    /// An escalation (after [`escalation_begins`]) marks the scope in this
    /// slot if `hit` accepts its stream.
    pub(crate) fn mark_if(&self, hit: impl Fn(usize) -> bool) {
        let before = self.state.load(Ordering::Acquire);
        if before == 0 || before & SLOT_ABORTED != 0 {
            return;
        }
        let stream = self.stream.load(Ordering::Acquire);
        if !hit(stream) && !mutant("slot-mark-any-stream") {
            return;
        }
        // Fails only if the scope left meanwhile, its work there done.
        let _ = self.state.compare_exchange(
            before,
            before | SLOT_ABORTED,
            Ordering::AcqRel,
            Ordering::Acquire,
        );
    }
}

/// An escalation begins: from now on no scope stays in a slot. Called
/// under the registry's lock, before the escalation reads the slots.
#[inline]
pub(crate) fn escalation_begins(escalated: &AtomicBool) {
    // `SeqCst`: the library's other readers of the flag (outside the
    // slots) rely on the store and their loads lying in one total order.
    escalated.store(true, Ordering::SeqCst);
    if !mutant("slot-escalation-no-fence") {
        fence(Ordering::SeqCst);
    }
}

/// Whether the slotted scope of `slot` was marked aborted (a hint, asked
/// while it is open; `None`: the thread has no slot, taken as marked).
#[inline]
pub(crate) fn slot_aborted(escalated: &AtomicBool, slot: Option<&Slot>) -> bool {
    escalated.load(Ordering::Acquire) && slot.is_none_or(Slot::marked)
}
