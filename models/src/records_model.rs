//! The streams' records (`protocol::records`): a context synchronisation's
//! pass over the context's streams and a stream's destruction, on two
//! threads, and a destruction the runtime refuses.
//!
//! The properties: the pass never uses a stream's handle once its
//! destruction took the record out (the "runtime" here marks the handle
//! dead right after, and the pass asserts it is alive while it holds it);
//! a destruction that takes the record out waits for a pass using it; a
//! refused destruction puts the record back whole (its callback-mechanism
//! mark survives), so a later check of the mark still refuses the other
//! mechanism; an exception report resolving a stream's id races its
//! destruction: it never resolves to a destroyed handle, the handle is
//! not destroyed while the report uses it (enters its failure), and a
//! record's id, read the first time a report needs it, is read from a live
//! handle.
//!
//! And a scope with one lane, in no registry (`scope::open::lone_aborted`),
//! against an escalation that aborts its stream: the scope takes its ticket
//! before it queues work, the escalation sets the flag and marks the record
//! (under the registry's lock) before it aborts, and ends the mark with its
//! number once the abort returned. The property: work the abort discarded
//! is always reported to the scope.

use crate::abort_log;
use crate::harness::{
    assert_bites, assert_bites_spinning_bounded, explore, explore_spinning_bounded, lock,
};
use crate::records::Records;
use crate::sync::{Arc, AtomicBool, AtomicU64, Mutex, Ordering, thread};

const CTX: usize = 0x10;
const S1: usize = 0x20;
const S2: usize = 0x30;
const DEV: i32 = 0;
const ID1: i32 = 7;
const ID2: i32 = 8;

struct World {
    records: Records,
    /// Whether the runtime's handle of S1 / S2 is alive.
    alive: [AtomicBool; 2],
}

fn slot(stream: usize) -> usize {
    if stream == S1 { 0 } else { 1 }
}

fn world() -> Arc<World> {
    let w = World {
        records: Records::new(),
        alive: [AtomicBool::new(true), AtomicBool::new(true)],
    };
    w.records.made(S1, CTX);
    w.records.made(S2, CTX);
    Arc::new(w)
}

/// The runtime's id of stream `s` (`aclrtStreamGetId`), asked on its
/// handle: it must be alive throughout.
fn read_id(w: &World, s: usize, ctx: usize) -> Option<(i32, i32)> {
    assert_eq!(ctx, CTX, "a record's context changed");
    assert!(
        w.alive[slot(s)].load(Ordering::SeqCst),
        "an id was read from a destroyed stream"
    );
    thread::yield_now();
    assert!(
        w.alive[slot(s)].load(Ordering::SeqCst),
        "a stream was destroyed while its id was read"
    );
    Some((DEV, if s == S1 { ID1 } else { ID2 }))
}

/// A context synchronisation's pass on one thread; the destruction of S1
/// on another (the record out, then the handle destroyed).
fn pass_and_destroy() {
    let w = world();
    let w1 = w.clone();
    let pass = thread::spawn(move || {
        w1.records.each_stream_of(CTX, |s| {
            // The synchronisation uses the handle.
            assert!(
                w1.alive[slot(s)].load(Ordering::SeqCst),
                "a pass used a destroyed stream"
            );
            thread::yield_now();
            assert!(
                w1.alive[slot(s)].load(Ordering::SeqCst),
                "a stream was destroyed while a pass used it"
            );
            true
        });
    });
    let rec = w.records.destroying(S1);
    assert!(rec.is_some(), "the record was there");
    w.alive[slot(S1)].store(false, Ordering::SeqCst);
    pass.join().unwrap();
    assert!(w.records.read(S1, |_| ()).is_none(), "the record is gone");
    assert!(w.records.read(S2, |_| ()).is_some(), "the other stays");
}

/// A stream that ran a host function; its destruction is refused (the
/// record comes back) while another thread checks the mark, as a
/// subscription does: the mark is never lost once the destruction is over.
fn refused_destroy_keeps_the_mark() {
    let w = world();
    w.records.mark(S1, |r| r.host_fn_used = true);
    let w1 = w.clone();
    let check = thread::spawn(move || {
        // Either the record is out (a destruction in flight: the handle is
        // not usable by a subscription anyway) or it carries the mark.
        w1.records.read(S1, |r| r.host_fn_used).unwrap_or(true)
    });
    let rec = w.records.destroying(S1);
    // The runtime refuses the destruction: the stream lives on.
    w.records.restore(rec);
    assert!(check.join().unwrap(), "a subscription would mix mechanisms");
    assert_eq!(
        w.records.read(S1, |r| r.host_fn_used),
        Some(true),
        "the refused destruction lost the stream's mark"
    );
}

/// An exception report naming S1 by its id on one thread (the
/// trampoline: resolve, use the handle, unpin); S1's destruction on
/// another. Afterwards the id resolves to nothing. `known`: S1's id was
/// read before (else the report reads it).
fn id_lookup_and_destroy_with(known: bool) {
    let w = world();
    if known {
        let id = w.records.runtime_id(S1, |s, c| read_id(&w, s, c));
        assert_eq!(id, Some((DEV, ID1)), "the id read");
    }
    let w1 = w.clone();
    let report = thread::spawn(move || {
        if let Some(s) = w1.records.pin_by_id(DEV, ID1, |s, c| read_id(&w1, s, c)) {
            assert_eq!(s, S1, "the id named another stream");
            assert!(
                w1.alive[slot(s)].load(Ordering::SeqCst),
                "an id resolved to a destroyed stream"
            );
            thread::yield_now();
            assert!(
                w1.alive[slot(s)].load(Ordering::SeqCst),
                "a stream was destroyed while a report used it"
            );
            w1.records.unpin(s);
        }
    });
    let rec = w.records.destroying(S1);
    assert!(rec.is_some(), "the record was there");
    w.alive[slot(S1)].store(false, Ordering::SeqCst);
    report.join().unwrap();
    assert!(
        w.records
            .pin_by_id(DEV, ID1, |s, c| read_id(&w, s, c))
            .is_none(),
        "a destroyed stream's id resolves"
    );
    assert_eq!(
        w.records.pin_by_id(DEV, ID2, |s, c| read_id(&w, s, c)),
        Some(S2),
        "the other resolves"
    );
    w.records.unpin(S2);
    // Unpinned: its destruction does not wait.
    assert!(w.records.destroying(S2).is_some(), "the record was there");
}

fn id_lookup_and_destroy() {
    id_lookup_and_destroy_with(true);
}

/// The same, the report reading S1's id (the first report to need it).
fn id_read_and_destroy() {
    id_lookup_and_destroy_with(false);
}

#[test]
fn records_id_lookup_and_destroy() {
    explore_spinning_bounded("records_id_lookup_and_destroy", 3, id_lookup_and_destroy);
}

#[test]
fn mutant_records_id_uncounted() {
    assert_bites_spinning_bounded("records-id-uncounted", 3, id_lookup_and_destroy);
}

#[test]
fn records_id_read_and_destroy() {
    explore_spinning_bounded("records_id_read_and_destroy", 3, id_read_and_destroy);
}

#[test]
fn mutant_records_id_read_uncounted() {
    assert_bites_spinning_bounded("records-id-read-uncounted", 3, id_read_and_destroy);
}

#[test]
fn records_pass_and_destroy() {
    explore_spinning_bounded("records_pass_and_destroy", 3, pass_and_destroy);
}

#[test]
fn records_refused_destroy_keeps_the_mark() {
    explore_spinning_bounded(
        "records_refused_destroy_keeps_the_mark",
        3,
        refused_destroy_keeps_the_mark,
    );
}

#[test]
fn mutant_records_destroy_while_syncing() {
    assert_bites_spinning_bounded("records-destroy-while-syncing", 3, pass_and_destroy);
}

#[test]
fn mutant_records_pass_uncounted() {
    assert_bites_spinning_bounded("records-pass-uncounted", 3, pass_and_destroy);
}

#[test]
fn mutant_records_restore_fresh() {
    assert_bites_spinning_bounded("records-restore-fresh", 3, refused_destroy_keeps_the_mark);
}

/// The work of a scope on the stream, as the runtime has it.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Work {
    None,
    Queued,
    Done,
    Discarded,
}

/// The runtime's stream: its work and whether an abort is in progress
/// (work submitted meanwhile does not take effect, acl-facts K.8).
struct Runtime {
    work: Work,
    aborting: bool,
}

struct Aborts {
    records: Records,
    /// `ANY_ABORTED`.
    any: AtomicBool,
    /// `DONE`: escalations finished.
    done: AtomicU64,
    /// The registry's lock.
    open: Mutex<()>,
    stream: Mutex<Runtime>,
}

/// One lone scope on S1 vs one escalation that aborts S1; then a second
/// lone scope, which begins after the escalation ended and must not be
/// told of it.
fn lone_scope_and_escalation() {
    let w = Arc::new(Aborts {
        records: Records::new(),
        any: AtomicBool::new(false),
        done: AtomicU64::new(0),
        open: Mutex::new(()),
        stream: Mutex::new(Runtime {
            work: Work::None,
            aborting: false,
        }),
    });
    w.records.made(S1, CTX);
    let w1 = w.clone();
    let scope = thread::spawn(move || {
        // `lone_ticket`, before anything is queued.
        let ticket = abort_log::ticket(&w1.done);
        {
            let mut rt = lock(&w1.stream);
            rt.work = if rt.aborting {
                Work::Discarded
            } else {
                Work::Queued
            };
        }
        // The scope's synchronisation at its end.
        let lost = {
            let mut rt = lock(&w1.stream);
            if rt.work == Work::Queued {
                rt.work = Work::Done;
            }
            rt.work == Work::Discarded
        };
        // `lone_aborted`.
        let told = w1.any.load(Ordering::SeqCst) && w1.records.aborted_since(S1, ticket);
        assert!(!lost || told, "discarded work was not reported");
    });
    // `abort_group`, under the registry's lock.
    {
        let _open = lock(&w.open);
        w.any.store(true, Ordering::SeqCst);
        w.records.abort_begins(&[S1]);
    }
    // `aclrtStreamAbort`: in progress, then returned.
    {
        let mut rt = lock(&w.stream);
        rt.aborting = true;
        if rt.work == Work::Queued {
            rt.work = Work::Discarded;
        }
    }
    thread::yield_now();
    lock(&w.stream).aborting = false;
    // `abort_done`.
    {
        let _open = lock(&w.open);
        let n = w.done.fetch_add(1, Ordering::SeqCst);
        w.records.abort_ends(&[S1], n);
    }
    scope.join().unwrap();
    // A scope that enlists S1 now queues after the abort returned.
    let ticket = abort_log::ticket(&w.done);
    assert!(
        !w.records.aborted_since(S1, ticket),
        "a later scope is told of an abort that preceded it"
    );
}

#[test]
fn records_lone_scope_and_escalation() {
    explore(
        "records_lone_scope_and_escalation",
        None,
        lone_scope_and_escalation,
    );
}

#[test]
fn mutant_records_abort_unmarked() {
    assert_bites("records-abort-unmarked", None, lone_scope_and_escalation);
}

#[test]
fn mutant_records_abort_end_forgets() {
    assert_bites("records-abort-end-forgets", None, lone_scope_and_escalation);
}

#[test]
fn mutant_records_abort_strict() {
    assert_bites("records-abort-strict", None, lone_scope_and_escalation);
}
