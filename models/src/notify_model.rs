//! Notifies as a scope's hand-off (`protocol::notify_ledger`): the scope's
//! body queues records and waits on two lanes and enters each in the
//! ledger once it is queued, while the runtime's streams execute them; the
//! scope's end aborts both streams if the ledger has an unmatched wait,
//! then synchronises them.
//!
//! The environment is the runtime as the simulator models it: a stream per
//! lane that executes its tasks in order (a record sets the notify's one
//! flag; a wait blocks its stream until the flag is set, then clears it),
//! and an abort that discards a stream's queued tasks and ends a wait in
//! progress (acl-facts K.8). The body's failure before its record is a
//! scenario cut short.
//!
//! Asserted, over every interleaving: the end never hangs (a
//! synchronisation of a stream behind a wait no record ends is a deadlock
//! the checker reports); a hand-off whose record the body queued is never
//! aborted, and its waiting lane's later work runs after the record.

use crate::harness::{assert_bites, assert_bites_in_child, explore};
use crate::notify_ledger::NotifyLedger;
use crate::sync::{Arc, Condvar, Mutex, thread};

#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Task {
    Record,
    Wait,
    /// Work behind a wait: notes whether the notify's record ran before.
    Work,
    /// A record that fails on the device: it sets nothing, and its
    /// stream's next synchronisation reports the failure.
    FailedRecord,
}

struct Env {
    queues: [Vec<Task>; 2],
    /// The notify's flag.
    set: bool,
    /// Records executed.
    records_run: usize,
    /// Work that ran before any record did (a broken hand-off).
    early_work: bool,
    /// Work that ran.
    work_run: usize,
    /// A task of the lane failed (what its synchronisation would report).
    failed: [bool; 2],
    closed: bool,
}

struct Rt {
    env: Mutex<Env>,
    cv: Condvar,
}

fn lock(rt: &Rt) -> crate::sync::MutexGuard<'_, Env> {
    crate::harness::lock(&rt.env)
}

/// A stream's worker: runs its queue in order until closed and empty.
fn worker(rt: &Rt, i: usize) {
    let mut env = lock(rt);
    loop {
        match env.queues[i].first().copied() {
            Some(Task::Record) => {
                env.queues[i].remove(0);
                env.set = true;
                env.records_run += 1;
                rt.cv.notify_all();
            }
            Some(Task::Wait) if env.set => {
                env.queues[i].remove(0);
                env.set = false;
                rt.cv.notify_all();
            }
            Some(Task::FailedRecord) => {
                env.queues[i].remove(0);
                env.failed[i] = true;
                rt.cv.notify_all();
            }
            Some(Task::Work) => {
                env.queues[i].remove(0);
                if env.records_run == 0 {
                    env.early_work = true;
                }
                env.work_run += 1;
                rt.cv.notify_all();
            }
            None if env.closed => return,
            Some(Task::Wait) | None => {
                env = rt.cv.wait(env).unwrap_or_else(|e| e.into_inner());
            }
        }
    }
}

/// Runs the body's `steps` (lane, task), cut after `cut` of them (the body
/// failed there), then the scope's end. Returns whether the end aborted.
fn scope(steps: &[(usize, Task)], cut: usize) -> (bool, usize, bool) {
    let rt = Arc::new(Rt {
        env: Mutex::new(Env {
            queues: [Vec::new(), Vec::new()],
            set: false,
            records_run: 0,
            early_work: false,
            work_run: 0,
            failed: [false, false],
            closed: false,
        }),
        cv: Condvar::new(),
    });
    let workers: Vec<_> = (0..2)
        .map(|i| {
            let rt = rt.clone();
            thread::spawn(move || worker(&rt, i))
        })
        .collect();
    let mut ledger: NotifyLedger<u8, usize> = NotifyLedger::default();
    for &(lane, task) in &steps[..cut] {
        {
            let mut env = lock(&rt);
            env.queues[lane].push(task);
            rt.cv.notify_all();
        }
        // Entered once the C call succeeded (it queued the task).
        match task {
            Task::Record | Task::FailedRecord => ledger.recorded_at(0, lane, 0),
            Task::Wait => ledger.waited(0, lane),
            Task::Work => {}
        }
    }
    // The end (`CoreBook::confirm_matched`): before it synchronises the
    // waiting lane, it learns whether the records that matched its waits
    // ran: a recording lane that is idle is synchronised (its failure read,
    // clock 1 > the records' 0); the waiting lane idle ends the question.
    // A bounded synchronisation of the waiting lane is a wait for a change.
    let mut env = lock(&rt);
    loop {
        if env.queues[1].is_empty() {
            ledger.lane_idle(1);
            break;
        }
        let records = ledger.unconfirmed_on(1);
        if records.is_empty() || ledger.pending_on(1) {
            break;
        }
        for (k, _clock) in records {
            if env.queues[k].is_empty() {
                if env.failed[k] {
                    ledger.record_failed(k, 1);
                } else {
                    ledger.record_ran(k);
                }
            }
        }
        if ledger.pending_on(1) || ledger.unconfirmed_on(1).is_empty() {
            break;
        }
        env = rt.cv.wait(env).unwrap_or_else(|e| e.into_inner());
    }
    drop(env);
    // Then abort first if a wait is unmatched, then synchronise.
    let aborted = ledger.unmatched().is_some();
    let mut env = lock(&rt);
    if aborted {
        env.queues = [Vec::new(), Vec::new()];
        rt.cv.notify_all();
    }
    while !(env.queues[0].is_empty() && env.queues[1].is_empty()) {
        env = rt.cv.wait(env).unwrap_or_else(|e| e.into_inner());
    }
    env.closed = true;
    rt.cv.notify_all();
    let (work_run, early) = (env.work_run, env.early_work);
    drop(env);
    for w in workers {
        w.join().unwrap();
    }
    (aborted, work_run, early)
}

const HAND_OFF: [(usize, Task); 3] = [(1, Task::Wait), (1, Task::Work), (0, Task::Record)];

/// Lane 1 waits (before the record is queued) and then works; lane 0
/// records.
fn hand_off() {
    let (aborted, work, early) = scope(&HAND_OFF, 3);
    assert!(!aborted, "a hand-off whose record was queued was aborted");
    assert_eq!(work, 1, "the waiting lane's work never ran");
    assert!(!early, "the waiting lane's work ran before the record");
}

/// The same with the body failing before the record.
fn hand_off_cut() {
    let (aborted, work, _) = scope(&HAND_OFF, 2);
    assert!(aborted, "a wait with no record was not aborted");
    assert_eq!(work, 0, "work behind an unrecorded wait ran");
}

/// A record queued behind the wait on the waiting lane itself cannot end
/// it.
fn own_lane() {
    let (aborted, _, _) = scope(&[(1, Task::Wait), (1, Task::Record)], 2);
    assert!(aborted, "a record behind its own lane's wait counted");
}

/// A record queued before the wait (on another lane) sets it in time.
fn early_record() {
    let steps = [(0, Task::Record), (1, Task::Wait), (1, Task::Work)];
    let (aborted, work, early) = scope(&steps, 3);
    assert!(!aborted, "a record queued before the wait was not counted");
    assert_eq!(work, 1);
    assert!(!early);
}

/// Lane 1 waits and then works; lane 0's record fails on the device (it
/// sets nothing): the end learns it and aborts instead of synchronising
/// lane 1 for ever.
fn failed_record() {
    let steps = [(1, Task::Wait), (1, Task::Work), (0, Task::FailedRecord)];
    let (aborted, work, _) = scope(&steps, 3);
    assert!(aborted, "a wait whose record failed was not aborted");
    assert_eq!(work, 0, "work behind a failed record ran");
}

#[test]
fn notify_failed_record() {
    explore("notify_failed_record", Some(2), failed_record);
}

/// A failed record is trusted to have run: the end synchronises a stream
/// no record will release.
#[test]
fn mutant_notify_failed_record_trusted() {
    assert_bites_in_child(
        "notify_model::mutant_notify_failed_record_trusted",
        "notify-failed-record-trusted",
        Some(2),
        failed_record,
        "deadlock",
    );
}

#[test]
fn notify_hand_off() {
    explore("notify_hand_off", Some(2), hand_off);
}

#[test]
fn notify_hand_off_cut() {
    explore("notify_hand_off_cut", Some(2), hand_off_cut);
}

#[test]
fn notify_own_lane() {
    explore("notify_own_lane", Some(2), own_lane);
}

#[test]
fn notify_early_record() {
    explore("notify_early_record", Some(2), early_record);
}

/// A record on the waiting lane matches its own wait: the end synchronises
/// a stream no record will release.
#[test]
fn mutant_notify_own_lane_matches() {
    assert_bites_in_child(
        "notify_model::mutant_notify_own_lane_matches",
        "notify-own-lane-matches",
        Some(2),
        own_lane,
        "deadlock",
    );
}

/// A record queued before any wait is forgotten: a good hand-off is
/// aborted.
#[test]
fn mutant_notify_free_record_lost() {
    assert_bites("notify-free-record-lost", Some(2), early_record);
}
