//! The escalations' log of aborted streams (`protocol::abort_log`): a
//! record of a user event, a wait for it, and an escalation that aborts
//! the record's stream.
//!
//! Environment, as `scope::open` has it: the registry's lock (`OPEN`)
//! guards the streams being aborted (marked in their records), the log, and the booked
//! waits; the latest record of the event has its own lock (`LATEST`). An
//! escalation marks its stream as being aborted and sees the booked waits
//! under `OPEN` (a wait for a record on the stream gets its own stream
//! aborted too: `abort_group`), aborts (discards what is queued), then, under
//! `OPEN`, unmarks the stream and logs it (`abort_done`). A wait
//! (`wait_for_event`/`outside_wait`) is decided under `OPEN`: refused if the
//! record may be discarded and has not executed, else queued and booked.
//!
//! The property: a wait for a record that an abort discarded is never left
//! to hang: it is refused, or the escalation that discarded the record
//! aborted the waiting stream too.

use crate::abort_log::{self, AbortLog};
use crate::harness::{assert_bites, explore, lock};
use crate::sync::{Arc, AtomicU64, Mutex, thread};

/// The record's stream and context.
const S: usize = 1;
const C: usize = 10;

#[derive(Default)]
struct Stream {
    /// The record is queued (not executed, not discarded).
    queued: bool,
    executed: bool,
    discarded: bool,
}

struct Open {
    aborting: Vec<usize>,
    log: AbortLog<usize>,
    /// A wait for the record is booked.
    wait_booked: bool,
    /// An escalation aborted the waiting stream (the wait ends).
    wait_aborted: bool,
}

struct World {
    done: AtomicU64,
    open: Mutex<Open>,
    /// (stream, ticket) of the latest record.
    latest: Mutex<Option<(usize, u64)>>,
    stream: Mutex<Stream>,
    /// How many entries the log keeps (0: every entry falls to the floor).
    kept: usize,
}

impl World {
    fn new(kept: usize) -> Arc<World> {
        Arc::new(World {
            done: AtomicU64::new(0),
            open: Mutex::new(Open {
                aborting: Vec::new(),
                log: AbortLog::new(),
                wait_booked: false,
                wait_aborted: false,
            }),
            latest: Mutex::new(None),
            stream: Mutex::new(Stream::default()),
            kept,
        })
    }

    /// `Stream::record` (or a lane's record): ticket, queue, note.
    fn record(&self) {
        let ticket = abort_log::ticket(&self.done);
        lock(&self.stream).queued = true;
        *lock(&self.latest) = Some((S, ticket));
    }

    /// A wait for the event's latest record; returns whether it was queued.
    fn wait(&self) -> bool {
        let mut open = lock(&self.open);
        let rec = *lock(&self.latest);
        let maybe = match rec {
            Some((s, ticket)) => {
                open.aborting.contains(&s) || open.log.may_have_discarded(s, ticket)
            }
            None => !open.aborting.is_empty() || open.log.may_have_discarded_in(C),
        };
        if maybe && !lock(&self.stream).executed {
            return false; // refused: WorkAborted
        }
        open.wait_booked = true;
        true
    }

    /// The runtime executes what is queued on the stream.
    fn execute(&self) {
        let mut st = lock(&self.stream);
        if st.queued {
            st.queued = false;
            st.executed = true;
        }
    }

    /// An escalation that aborts the stream.
    fn escalate(&self) {
        {
            let mut open = lock(&self.open);
            open.aborting.push(S);
            if open.wait_booked {
                // The booked wait is for a record on S (the only record):
                // its stream is aborted too, and the wait ends.
                open.wait_aborted = true;
            }
        }
        {
            let mut st = lock(&self.stream);
            if st.queued {
                st.queued = false;
                st.discarded = true;
            }
        }
        let mut open = lock(&self.open);
        open.aborting.retain(|s| *s != S);
        let kept = self.kept;
        open.log.done(&self.done, &[(S, C)], kept);
    }

    fn check(&self, queued: bool) {
        let discarded = lock(&self.stream).discarded;
        let aborted = lock(&self.open).wait_aborted;
        assert!(
            !(queued && discarded) || aborted,
            "a wait was queued for a discarded record and nothing ends it"
        );
    }
}

fn run(kept: usize, escalations: usize) {
    let w = World::new(kept);
    let (w1, w2) = (w.clone(), w.clone());
    let user = thread::spawn(move || {
        w1.record();
        w1.wait()
    });
    let runtime = thread::spawn(move || w2.execute());
    for _ in 0..escalations {
        w.escalate();
    }
    let queued = user.join().unwrap();
    runtime.join().unwrap();
    w.check(queued);
}

/// Record + wait on one thread, the runtime executing on another, one
/// escalation on a third; the log keeps its entries.
fn one_escalation() {
    run(16, 1);
}

/// As [`one_escalation`], with a log that keeps nothing (the floor).
fn log_kept_nothing() {
    run(0, 1);
}

/// Two escalations of the stream in turn, the log keeping one entry.
fn two_escalations() {
    run(1, 2);
}

#[test]
fn abort_log_one_escalation() {
    explore("abort_log_one_escalation", None, one_escalation);
}

#[test]
fn abort_log_kept_nothing() {
    explore("abort_log_kept_nothing", None, log_kept_nothing);
}

#[test]
fn abort_log_two_escalations() {
    explore("abort_log_two_escalations", Some(3), two_escalations);
}

#[test]
fn mutant_abort_log_strict() {
    assert_bites("abortlog-strict", None, one_escalation);
}

#[test]
fn mutant_abort_log_floor_off_by_one() {
    assert_bites("abortlog-floor-off-by-one", None, log_kept_nothing);
}
