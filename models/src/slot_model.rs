//! The slot protocol (`protocol::slot`) against an escalation.
//!
//! Environment, as the library has it around the core:
//! * a stream queues a scope's work, executes it when the scope
//!   synchronises, and an abort discards what is still queued;
//! * the registry's lock: an escalation holds it while it begins (the
//!   flag), marks the registry's scopes on its stream, notes the stream as
//!   being aborted (`ABORTING`) and marks the slots; a scope that could not
//!   stay in its slot enlists under it and is marked aborted if its stream
//!   is being aborted (`open::enlist`), and a slotted scope that needs the
//!   registry moves there under it keeping its mark (`open::promote`).
//!
//! The property: a scope whose work an abort discarded ends marked aborted
//! (it reports `WorkAborted`, never `Ok`); and a scope whose stream no
//! escalation touched is never marked.

use crate::harness::{assert_bites, explore, lock};
use crate::slot::{SLOT_ABORTED, Slot, escalation_begins};
use crate::sync::{Arc, AtomicBool, Mutex, thread};

/// A stream: work queued and not yet executed, and work an abort discarded
/// (by scope id).
#[derive(Default)]
struct Stream {
    queued: Vec<u64>,
    discarded: Vec<u64>,
}

/// The registry's part in the protocol.
#[derive(Default)]
struct Registry {
    /// (scope, stream) of scopes in the registry.
    entries: Vec<(u64, usize)>,
    /// Scopes an escalation marked aborted.
    aborted: Vec<u64>,
    /// Streams being aborted.
    aborting: Vec<usize>,
}

struct World {
    escalated: AtomicBool,
    registry: Mutex<Registry>,
    /// All slots (the library's `SLOTS`), one per scope thread.
    slots: Vec<Arc<Slot>>,
    /// Streams 1 and 2 (index = address - 1).
    streams: [Mutex<Stream>; 2],
}

impl World {
    fn new(threads: usize) -> Arc<World> {
        Arc::new(World {
            escalated: AtomicBool::new(false),
            registry: Mutex::new(Registry::default()),
            slots: (0..threads).map(|_| Arc::new(Slot::new())).collect(),
            streams: [Mutex::new(Stream::default()), Mutex::new(Stream::default())],
        })
    }

    fn stream(&self, s: usize) -> &Mutex<Stream> {
        &self.streams[s - 1]
    }

    /// Scope `id` of the thread owning slot `t`, with one lane on stream
    /// `s`: enlist, queue, (optionally need the registry: promote),
    /// synchronise, end. Returns whether it ended marked aborted; asserts
    /// that discarded work is never reported done.
    fn scope(&self, t: usize, id: u64, s: usize, promote: bool) -> bool {
        let slot = &self.slots[t];
        // `open::enter_slot`, else `open::enlist`.
        let mut slotted = slot.is_free() && slot.enter(id, s, &self.escalated);
        if !slotted {
            self.enlist(id, s, false);
        }
        lock(self.stream(s)).queued.push(id);
        if promote && slotted {
            // `open::promote`: a second stream, a user event or a host
            // function; under the registry's lock, keeping a mark.
            let mut reg = lock(&self.registry);
            let state = slot.take();
            assert_eq!(state >> 1, id, "the slot holds this thread's scope");
            reg.entries.push((id, s));
            if state & SLOT_ABORTED != 0 && !reg.aborted.contains(&id) {
                reg.aborted.push(id);
            }
            slotted = false;
        }
        // Synchronise: what is still queued executes.
        lock(self.stream(s)).queued.retain(|q| *q != id);
        let marked = if slotted {
            slot.leave()
        } else {
            // `open::deregister`.
            let mut reg = lock(&self.registry);
            reg.entries.retain(|e| e.0 != id);
            reg.aborted.contains(&id)
        };
        let lost = lock(self.stream(s)).discarded.contains(&id);
        assert!(
            !lost || marked,
            "scope {id}: its work on stream {s} was discarded, and it ends without WorkAborted"
        );
        marked
    }

    /// `open::enlist`.
    fn enlist(&self, id: u64, s: usize, _: bool) {
        let mut reg = lock(&self.registry);
        reg.entries.push((id, s));
        if self.escalated.load(crate::sync::Ordering::SeqCst)
            && reg.aborting.contains(&s)
            && !reg.aborted.contains(&id)
        {
            reg.aborted.push(id);
        }
    }

    /// An escalation that aborts stream `s` (`scope::escalate`).
    fn escalate(&self, s: usize) {
        {
            // `open::abort_group`, under the registry's lock.
            let mut reg = lock(&self.registry);
            escalation_begins(&self.escalated);
            let ids: Vec<u64> = reg
                .entries
                .iter()
                .filter(|e| e.1 == s)
                .map(|e| e.0)
                .collect();
            for id in ids {
                if !reg.aborted.contains(&id) {
                    reg.aborted.push(id);
                }
            }
            // `open::mark_slots`.
            for slot in &self.slots {
                slot.mark_if(|x| x == s);
            }
            reg.aborting.push(s);
        }
        {
            // The abort: queued work is discarded.
            let mut st = lock(self.stream(s));
            let q = core::mem::take(&mut st.queued);
            st.discarded.extend(q);
        }
        // `open::abort_done`.
        lock(&self.registry).aborting.retain(|x| *x != s);
    }
}

/// One slotted scope on stream 1 against one escalation of stream 1.
fn one_scope() {
    let w = World::new(1);
    let w1 = w.clone();
    let a = thread::spawn(move || w1.scope(0, 1, 1, false));
    w.escalate(1);
    a.join().unwrap();
}

/// Two scopes in turn on one thread (stream 1, then stream 2) against an
/// escalation of stream 1: the first is marked if its work was lost, the
/// second never (its stream is not aborted), though it reuses the slot
/// the escalation may be reading.
fn slot_reuse() {
    let w = World::new(1);
    let w1 = w.clone();
    let a = thread::spawn(move || {
        w1.scope(0, 1, 1, false);
        let second = w1.scope(0, 2, 2, false);
        assert!(
            !second,
            "a scope on a stream no escalation aborted was marked"
        );
    });
    w.escalate(1);
    a.join().unwrap();
}

/// A slotted scope that moves to the registry (promote) while an
/// escalation of its stream runs: its mark, if set, survives the move.
fn promote() {
    let w = World::new(1);
    let w1 = w.clone();
    let a = thread::spawn(move || w1.scope(0, 1, 1, true));
    w.escalate(1);
    a.join().unwrap();
}

/// Two threads, two streams, one escalation of stream 1 (run by a third
/// thread, the main one): the scope on stream 2 is never marked.
fn two_threads() {
    let w = World::new(2);
    let w1 = w.clone();
    let w2 = w.clone();
    let a = thread::spawn(move || w1.scope(0, 1, 1, false));
    let b = thread::spawn(move || {
        assert!(!w2.scope(1, 2, 2, false), "a scope on stream 2 was marked");
    });
    w.escalate(1);
    a.join().unwrap();
    b.join().unwrap();
}

/// Shuttle only (too large for loom to exhaust): three threads, each with
/// two scopes in turn (one promoted), over two streams, against two
/// escalations (one per stream) from the main thread.
#[cfg(all(shuttle, not(loom)))]
fn large() {
    let w = World::new(3);
    let mut threads = Vec::new();
    for t in 0..3 {
        let w = w.clone();
        threads.push(thread::spawn(move || {
            let base = 10 * (t as u64 + 1);
            w.scope(t, base + 1, 1 + t % 2, t == 0);
            w.scope(t, base + 2, 2 - t % 2, t == 1);
        }));
    }
    w.escalate(1);
    w.escalate(2);
    for th in threads {
        th.join().unwrap();
    }
}

#[cfg(all(shuttle, not(loom)))]
#[test]
fn slot_large_shuttle() {
    explore("slot_large_shuttle", None, large);
}

#[cfg(all(shuttle, not(loom)))]
#[test]
fn mutant_slot_enter_no_recheck_large() {
    assert_bites("slot-enter-no-recheck", None, large);
}

/// Loom: every interleaving (no preemption bound). Shuttle ignores it.
const BOUND: Option<usize> = None;

#[test]
fn slot_one_scope() {
    explore("slot_one_scope", BOUND, one_scope);
}

#[test]
fn slot_reuse_by_the_next_scope() {
    explore("slot_reuse_by_the_next_scope", BOUND, slot_reuse);
}

#[test]
fn slot_promote_keeps_the_mark() {
    explore("slot_promote_keeps_the_mark", BOUND, promote);
}

#[test]
fn slot_two_threads_two_streams() {
    explore("slot_two_threads_two_streams", Some(3), two_threads);
}

// Loom models weak memory (a load may read a value older than the latest
// store, unless fences or synchronisation forbid it); shuttle does not (its
// schedules are sequentially consistent), so the fence mutants are loom's.
#[cfg(loom)]
#[test]
fn mutant_slot_enter_no_fence() {
    assert_bites("slot-enter-no-fence", BOUND, one_scope);
}

#[cfg(loom)]
#[test]
fn mutant_slot_escalation_no_fence() {
    assert_bites("slot-escalation-no-fence", BOUND, one_scope);
}

#[test]
fn mutant_slot_enter_no_recheck() {
    assert_bites("slot-enter-no-recheck", BOUND, one_scope);
}

#[test]
fn mutant_slot_leave_ignores_mark() {
    assert_bites("slot-leave-ignores-mark", BOUND, one_scope);
}

#[test]
fn mutant_slot_mark_any_stream() {
    assert_bites("slot-mark-any-stream", Some(3), two_threads);
}
