//! The failure rule (`protocol::failure`, with `protocol::fault_watch`):
//! a failure seen first by another thread still fails the checked wait;
//! a give-back after a hand-off whose wait task failed waits for the
//! source lane; a host function's panic fails the wait at once, and the
//! recovery point returns it and lets work queued after it be clean.
//!
//! A give-back waits for no lane the buffer never met (one may be waiting
//! for the giving thread); and contents that came back unchecked before a
//! recovery point still fail what is derived from them after it.
//!
//! The environment: three streams, `A` (the source lane of a hand-off),
//! `B` and `C` (a lane no buffer of the test passes); each keeps its
//! stored failure (a code that a synchronisation takes, `swap(0)`) and a
//! flag saying its work is done (a synchronisation waits for it). The
//! crate's side is the library's code: `Log`, `Sticky`, `Origin`,
//! `give_back_lanes`, `event_may_give_back`, `Suspects`,
//! `host_fn_panic_is_failure` and the `Watch` of synchronisations in
//! flight.

use crate::failure::{
    Lanes, Log, Origin, Sticky, Suspects, check_quiesces, event_may_give_back, give_back_lanes,
    host_fn_panic_is_failure, lane_bit, mark_origin, quiesce_when_marked,
};
use crate::fault_watch::Watch;
use crate::harness::{assert_bites_spinning_bounded, explore_spinning_bounded};
use crate::sync::{Arc, AtomicBool, AtomicU64, Ordering, pause, thread};

const A: usize = 2;
const B: usize = 4;
const C: usize = 6;
const STREAMS: [usize; 3] = [A, B, C];
/// The stores of lane `A`'s host function in the hand-off models.
const WRITES: u64 = 24;
/// A code no list classified (what the simulator gives a kernel that
/// panics).
const UNLISTED: u32 = 507_000;
/// The failure a panicking host function enters.
const PANICKED: u32 = 1;

struct World {
    log: Log<u32>,
    watch: Watch<2>,
    /// The runtime's stored failure of `A`, `B` and `C` (0: none).
    stored: [AtomicU64; 3],
    /// Whether the work queued on `A`, `B` and `C` is done.
    done: [AtomicBool; 3],
}

fn index(stream: usize) -> usize {
    STREAMS.iter().position(|&s| s == stream).unwrap()
}

/// A stream's lane in an `Origin` (the scope enlisted `A`, `B`, `C`).
fn bit(stream: usize) -> Lanes {
    lane_bit(index(stream))
}

/// The streams of the lanes in `lanes` (`CoreBook::streams_of`).
fn streams_of(lanes: Lanes) -> Vec<usize> {
    STREAMS
        .iter()
        .copied()
        .filter(|&s| lanes & bit(s) != 0)
        .collect()
}

fn world() -> Arc<World> {
    Arc::new(World {
        log: Log::new(),
        watch: Watch::new(),
        stored: [AtomicU64::new(0), AtomicU64::new(0), AtomicU64::new(0)],
        done: [
            AtomicBool::new(true),
            AtomicBool::new(true),
            AtomicBool::new(true),
        ],
    })
}

/// A synchronisation of `stream` by the crate: wait for its work, take its
/// stored failure, enter it (any code), end. Whether it took one.
fn sync(w: &World, stream: usize) -> bool {
    let ticket = w.watch.begin(stream);
    while !w.done[index(stream)].load(Ordering::SeqCst) {
        pause();
    }
    let code = w.stored[index(stream)].swap(0, Ordering::SeqCst);
    if code != 0 {
        w.log.enter(stream, &(code as u32), false);
    }
    w.watch.end(ticket);
    code != 0
}

/// [`sync`] by a thread that, having taken the stored failure, is slow to
/// enter it (`yields` pauses between the two): under shuttle's random
/// schedules a check of the scope otherwise rarely runs in that window.
fn sync_slowly(w: &World, stream: usize, yields: u32) {
    let ticket = w.watch.begin(stream);
    while !w.done[index(stream)].load(Ordering::SeqCst) {
        pause();
    }
    let code = w.stored[index(stream)].swap(0, Ordering::SeqCst);
    if code != 0 {
        for _ in 0..yields {
            pause();
        }
        w.log.enter(stream, &(code as u32), false);
    }
    w.watch.end(ticket);
}

/// The pauses of [`sync_slowly`]: none under loom, which explores every
/// interleaving anyway.
#[cfg(loom)]
const SLOW_ENTER: u32 = 0;
#[cfg(not(loom))]
const SLOW_ENTER: u32 = 24;

fn mine(k: usize) -> bool {
    STREAMS.contains(&k)
}

/// Whether stream `k` is one of the lanes `lanes` (a checked wait's
/// `from`: the lanes whose failures concern the contents).
fn on(lanes: Lanes) -> impl Fn(usize) -> bool {
    move |k| streams_of(lanes).contains(&k)
}

/// A task on `A` fails with an unlisted code; another thread's
/// synchronisation of `A` may take it first. The checked wait (its own
/// synchronisation, `quiesce`, `Sticky::check`) fails, and so does every
/// later one of the scope.
fn seen_by_another_thread() {
    let w = world();
    let mut sticky = Sticky::new(w.log.now());
    let since = w.log.now(); // parked
    w.stored[0].store(u64::from(UNLISTED), Ordering::SeqCst);
    let other = {
        let w = w.clone();
        thread::spawn(move || {
            sync(&w, A);
        })
    };
    sync(&w, A);
    w.watch.quiesce(|k| k == A);
    let first = sticky.check(&w.log, since, on(bit(A)), mine);
    other.join().unwrap();
    assert_eq!(first, Some(UNLISTED), "the checked wait missed the failure");
    // Sticky: a buffer parked after it fails too.
    assert_eq!(
        sticky.check(&w.log, w.log.now(), on(bit(B)), mine),
        Some(UNLISTED)
    );
}

/// Lane `A`'s host function still writes the buffer; lane `B`'s wait task
/// for the hand-off failed, so `B` is idle at once. The give-back on `B`
/// (`reuse`, `via_fence`: a fence's `reuse`) must not hand the buffer back
/// before `A` is idle.
fn give_back_after_failed_hand_off(via_fence: bool) {
    let w = world();
    let data = Arc::new(AtomicU64::new(0));
    w.done[0].store(false, Ordering::SeqCst);
    w.stored[1].store(u64::from(UNLISTED), Ordering::SeqCst); // B's wait task
    let writer = {
        let (w, data) = (w.clone(), data.clone());
        thread::spawn(move || {
            // Long enough that a random schedule (shuttle) often reaches the
            // give-back while it still writes: with two stores a mutant
            // survived 10,000 random schedules in one CI run.
            for v in 1..=WRITES {
                data.store(v, Ordering::SeqCst);
            }
            w.done[0].store(true, Ordering::SeqCst);
        })
    };
    // The buffer came through `A` to `B` (`LaneCore::wait_for`).
    let lanes = bit(A) | bit(B);
    if via_fence && event_may_give_back(bit(B), lanes) {
        // The fence's event on `B` completed (after the failed wait task).
        while !w.done[1].load(Ordering::SeqCst) {
            pause();
        }
    } else {
        for stream in streams_of(give_back_lanes(bit(B), lanes)) {
            sync(&w, stream);
        }
    }
    // `&mut` back: nothing may write the buffer any more.
    let seen = data.load(Ordering::SeqCst);
    let writing = !w.done[0].load(Ordering::SeqCst);
    writer.join().unwrap();
    assert!(
        !writing && seen == WRITES,
        "the buffer came back while lane A wrote it"
    );
}

fn reuse_after_failed_hand_off() {
    give_back_after_failed_hand_off(false);
}

fn fence_reuse_after_failed_hand_off() {
    give_back_after_failed_hand_off(true);
}

/// A host function on `A` panics (on the runtime's thread): the checked
/// wait fails at once (another thread's synchronisation is the first
/// model's business); the recovery
/// point returns the failure; work queued after it is clean, work queued
/// before it is not.
fn host_fn_panic_and_recovery() {
    let w = world();
    let mut sticky = Sticky::new(w.log.now());
    let before = w.log.now(); // the host function's buffer, parked
    w.done[0].store(false, Ordering::SeqCst);
    let host = {
        let w = w.clone();
        thread::spawn(move || {
            if host_fn_panic_is_failure() {
                w.log.enter(A, &PANICKED, true);
            }
            w.done[0].store(true, Ordering::SeqCst);
        })
    };
    sync(&w, A);
    w.watch.quiesce(|k| k == A);
    assert_eq!(
        sticky.check(&w.log, before, on(bit(A)), mine),
        Some(PANICKED),
        "the panic was missed"
    );
    host.join().unwrap();
    // The recovery point, every lane idle.
    sync(&w, A);
    sync(&w, B);
    assert_eq!(sticky.recover(&w.log, mine), Some(PANICKED));
    let after = w.log.now(); // a buffer parked after the recovery
    assert_eq!(
        sticky.check(&w.log, after, on(bit(A)), mine),
        None,
        "work after recovery is clean"
    );
    assert_eq!(
        sticky.check(&w.log, before, on(bit(A)), mine),
        Some(PANICKED),
        "older contents still fail"
    );
    assert_eq!(
        sticky.check(&w.log, after, on(bit(A)), mine),
        None,
        "and that does not stick again"
    );
}

/// Lane `C` runs a host function that waits for this thread to serve a
/// result; a buffer that never left lane `B` comes back (`reuse`, or a
/// checked wait): the give-back must not wait for `C`, or it waits for ever
/// (the hang the last review found).
fn give_back_leaves_other_lanes() {
    let w = world();
    let served = Arc::new(AtomicBool::new(false));
    w.done[2].store(false, Ordering::SeqCst);
    let host_fn = {
        let (w, served) = (w.clone(), served.clone());
        thread::spawn(move || {
            while !served.load(Ordering::SeqCst) {
                pause();
            }
            w.done[2].store(true, Ordering::SeqCst);
        })
    };
    // The buffer never met `C`; its memory came from a mark of contents
    // that passed `C` before (given back by a `reuse` that made `C` idle):
    // `C`'s failures concern it, but nothing waits for `C` again.
    let passed = Origin {
        since: w.log.now(),
        lanes: bit(B) | bit(C),
        from: 0,
    };
    let marked = mark_origin(passed, true, bit(B));
    let origin = Origin::new(w.log.now(), bit(B)).join(marked);
    // Another thread synchronises `C`, behind the host function.
    let observer = {
        let w = w.clone();
        thread::spawn(move || {
            sync(&w, C);
        })
    };
    for stream in streams_of(give_back_lanes(bit(B), origin.lanes)) {
        sync(&w, stream);
    }
    // A checked wait then waits for other threads' synchronisations of the
    // lanes it synchronised (not `C`'s, which stalls behind the host
    // function) and looks the failures of its contents' lanes up.
    w.watch.quiesce(on(check_quiesces(origin)));
    served.store(true, Ordering::SeqCst);
    host_fn.join().unwrap();
    observer.join().unwrap();
}

/// Contents written on `A`, whose task failed; another thread's
/// synchronisation of `A` takes the failure; the give-back (`reuse`)
/// synchronises `A` (and may find nothing left), then marks the contents,
/// moving `A` to the mark's `from`. A read of them parked on `B` checks
/// without waiting for `A`'s synchronisations: the give-back must have
/// waited for them, or the failure is missed.
fn reuse_while_another_thread_takes_the_failure() {
    let w = world();
    let mut sticky = Sticky::new(w.log.now());
    let mut suspects = Suspects::default();
    let written = Origin::new(w.log.now(), bit(A));
    w.stored[0].store(u64::from(UNLISTED), Ordering::SeqCst);
    let other = {
        let w = w.clone();
        thread::spawn(move || {
            sync_slowly(&w, A, SLOW_ENTER);
        })
    };
    for stream in streams_of(give_back_lanes(bit(A), written.lanes)) {
        sync(&w, stream);
    }
    if quiesce_when_marked() {
        w.watch.quiesce(on(give_back_lanes(bit(A), written.lanes)));
    }
    suspects.mark(0x1000, 0x2000, mark_origin(written, true, bit(A)));
    // Parked again on `B` and read there: its checked wait.
    let fresh = Origin::new(w.log.now(), bit(B));
    let parked = suspects
        .origin(0x1000, 0x2000, true)
        .map_or(fresh, |m| fresh.join(m));
    for stream in streams_of(give_back_lanes(bit(B), parked.lanes)) {
        sync(&w, stream);
    }
    w.watch.quiesce(on(check_quiesces(parked)));
    let seen = sticky.check(&w.log, parked.since, on(parked.concern()), mine);
    other.join().unwrap();
    assert_eq!(
        seen,
        Some(UNLISTED),
        "a read of reused contents missed the failure another thread took"
    );
}

/// A request on `C` fails (another thread's synchronisation of `C` takes
/// it); contents of `B` from before it (weights loaded once) are not
/// concerned: after the recovery point their checked waits pass, and
/// their mark ends there, while contents of `C` from before it still fail.
fn older_contents_judged_by_their_lanes() {
    let w = world();
    let mut sticky = Sticky::new(w.log.now());
    let mut suspects = Suspects::default();
    let weights = Origin::new(w.log.now(), bit(B));
    let request = Origin::new(w.log.now(), bit(C));
    suspects.mark(0x1000, 0x2000, mark_origin(weights, true, bit(B)));
    w.stored[2].store(u64::from(UNLISTED), Ordering::SeqCst);
    let other = {
        let w = w.clone();
        thread::spawn(move || {
            sync(&w, C);
        })
    };
    // The recovery point.
    for s in STREAMS {
        sync(&w, s);
    }
    w.watch.quiesce(mine);
    suspects.settle(|o| w.log.since(o.since, on(o.concern())).is_some());
    assert_eq!(sticky.recover(&w.log, mine), Some(UNLISTED));
    other.join().unwrap();
    assert_eq!(
        sticky.check(&w.log, request.since, on(request.concern()), mine),
        Some(UNLISTED),
        "contents of the failed lane passed"
    );
    assert_eq!(
        sticky.check(&w.log, weights.since, on(weights.concern()), mine),
        None,
        "contents of another lane failed"
    );
    assert_eq!(suspects.origin(0x1000, 0x2000, false), None, "mark kept");
}

/// A kernel on `A` writes a buffer and fails; a fence's `reuse` gives the
/// buffer back on its event (nobody synchronised `A`: the failure is not
/// entered yet), another thread's synchronisation of `A` takes the failure
/// while the scope recovers, and the buffer, parked again after the
/// recovery point, is read by work whose checked wait must still fail.
fn reused_contents_after_recovery() {
    let w = world();
    let mut sticky = Sticky::new(w.log.now());
    let mut suspects = Suspects::default();
    let (start, end) = (0x1000, 0x2000);
    let written = Origin::new(w.log.now(), bit(A)); // the kernel's output
    w.stored[0].store(u64::from(UNLISTED), Ordering::SeqCst);
    // The fence's give-back, at its event: unchecked, so marked.
    suspects.mark(start, end, mark_origin(written, false, bit(A)));
    let other = {
        let w = w.clone();
        thread::spawn(move || {
            sync(&w, A);
        })
    };
    // The recovery point: every lane idle, in-flight synchronisations
    // waited for, marks no failure followed dropped.
    for s in STREAMS {
        sync(&w, s);
    }
    w.watch.quiesce(mine);
    suspects.settle(|o| w.log.since(o.since, on(o.concern())).is_some());
    assert_eq!(sticky.recover(&w.log, mine), Some(UNLISTED));
    other.join().unwrap();
    // Parked again after the recovery point, then copied on `B`.
    let fresh = Origin::new(w.log.now(), bit(A));
    let parked = suspects
        .origin(start, end, true)
        .map_or(fresh, |m| fresh.join(m));
    let copy = Origin::new(w.log.now(), bit(B)).derive(true, w.log.now(), parked);
    assert_eq!(
        sticky.check(&w.log, copy.since, on(copy.concern()), mine),
        Some(UNLISTED),
        "work derived from reused contents passed after the recovery point"
    );
    // Contents written after the recovery point are clean.
    let clean = Origin::new(w.log.now(), bit(B));
    assert_eq!(
        sticky.check(&w.log, clean.since, on(clean.concern()), mine),
        None
    );
}

/// A kernel on `A` writes a buffer and fails; a fence's `reuse` gives it
/// back at its event (marked: `A` stays a lane to synchronise); another
/// thread's synchronisation of `A` may take the failure while the scope
/// synchronises `A`, after which the mark's `A` moves to its `from`
/// (`Suspects::lane_synced`). The contents, parked again on `B` and copied
/// there: the checked wait synchronises `B` only (no wait for `A` again,
/// which may run a host function waiting for this thread) and fails.
fn mark_lane_synced() {
    let w = world();
    let mut sticky = Sticky::new(w.log.now());
    let mut suspects = Suspects::default();
    let (start, end) = (0x1000, 0x2000);
    let written = Origin::new(w.log.now(), bit(A));
    w.stored[0].store(u64::from(UNLISTED), Ordering::SeqCst);
    suspects.mark(start, end, mark_origin(written, false, bit(A)));
    let other = {
        let w = w.clone();
        thread::spawn(move || {
            sync_slowly(&w, A, SLOW_ENTER);
        })
    };
    // The scope synchronises `A` (`CoreBook::settle`).
    sync(&w, A);
    suspects.lane_synced(bit(A));
    let fresh = Origin::new(w.log.now(), bit(B));
    let parked = suspects
        .origin(start, end, true)
        .map_or(fresh, |m| fresh.join(m));
    let copy = Origin::new(w.log.now(), bit(B)).derive(true, w.log.now(), parked);
    let idle = streams_of(give_back_lanes(bit(B), copy.lanes));
    for &s in &idle {
        sync(&w, s);
    }
    w.watch.quiesce(on(copy.concern()));
    let found = sticky.check(&w.log, copy.since, on(copy.concern()), mine);
    other.join().unwrap();
    assert_eq!(idle, vec![B], "the checked wait synchronises A again");
    assert_eq!(
        found,
        Some(UNLISTED),
        "a copy of contents whose kernel failed passed"
    );
}

#[test]
fn failure_mark_lane_synced() {
    explore_spinning_bounded("failure_mark_lane_synced", 3, mark_lane_synced);
}

#[test]
fn mutant_failure_sweep_drops_lane() {
    assert_bites_spinning_bounded("failure-sweep-drops-lane", 3, mark_lane_synced);
}

#[test]
fn mutant_failure_mark_keeps_lanes_after_sync() {
    assert_bites_spinning_bounded("failure-mark-keeps-lanes", 3, mark_lane_synced);
}

#[test]
fn failure_reuse_while_another_thread_takes_the_failure() {
    explore_spinning_bounded(
        "failure_reuse_while_another_thread_takes_the_failure",
        3,
        reuse_while_another_thread_takes_the_failure,
    );
}

#[test]
fn mutant_failure_no_quiesce_at_mark() {
    assert_bites_spinning_bounded(
        "failure-no-quiesce-at-mark",
        3,
        reuse_while_another_thread_takes_the_failure,
    );
}

#[test]
fn mutant_failure_quiesce_from() {
    assert_bites_spinning_bounded("failure-quiesce-from", 4, give_back_leaves_other_lanes);
}

#[test]
fn failure_older_contents_judged_by_their_lanes() {
    explore_spinning_bounded(
        "failure_older_contents_judged_by_their_lanes",
        3,
        older_contents_judged_by_their_lanes,
    );
}

#[test]
fn mutant_failure_older_contents_any_lane() {
    assert_bites_spinning_bounded(
        "failure-older-contents-any-lane",
        3,
        older_contents_judged_by_their_lanes,
    );
}

#[test]
fn mutant_failure_mark_keeps_lanes() {
    assert_bites_spinning_bounded("failure-mark-keeps-lanes", 4, give_back_leaves_other_lanes);
}

#[test]
fn failure_give_back_leaves_other_lanes() {
    explore_spinning_bounded(
        "failure_give_back_leaves_other_lanes",
        4,
        give_back_leaves_other_lanes,
    );
}

#[test]
fn failure_reused_contents_after_recovery() {
    explore_spinning_bounded(
        "failure_reused_contents_after_recovery",
        3,
        reused_contents_after_recovery,
    );
}

#[test]
fn mutant_failure_idle_every_lane() {
    assert_bites_spinning_bounded("failure-idle-every-lane", 4, give_back_leaves_other_lanes);
}

#[test]
fn mutant_failure_trust_reused_contents() {
    assert_bites_spinning_bounded(
        "failure-trust-reused-contents",
        3,
        reused_contents_after_recovery,
    );
}

#[test]
fn failure_seen_by_another_thread() {
    explore_spinning_bounded("failure_seen_by_another_thread", 4, seen_by_another_thread);
}

#[test]
fn failure_reuse_after_failed_hand_off() {
    explore_spinning_bounded(
        "failure_reuse_after_failed_hand_off",
        4,
        reuse_after_failed_hand_off,
    );
}

#[test]
fn failure_fence_reuse_after_failed_hand_off() {
    explore_spinning_bounded(
        "failure_fence_reuse_after_failed_hand_off",
        4,
        fence_reuse_after_failed_hand_off,
    );
}

#[test]
fn failure_host_fn_panic_and_recovery() {
    explore_spinning_bounded(
        "failure_host_fn_panic_and_recovery",
        3,
        host_fn_panic_and_recovery,
    );
}

#[test]
fn mutant_failure_listed_codes_only() {
    assert_bites_spinning_bounded("failure-listed-codes-only", 4, seen_by_another_thread);
}

#[test]
fn mutant_failure_skip_source_lane() {
    assert_bites_spinning_bounded("failure-skip-source-lane", 4, reuse_after_failed_hand_off);
}

#[test]
fn mutant_failure_trust_hand_off() {
    assert_bites_spinning_bounded(
        "failure-trust-hand-off",
        4,
        fence_reuse_after_failed_hand_off,
    );
}

#[test]
fn mutant_failure_ignore_host_fn_panic() {
    assert_bites_spinning_bounded(
        "failure-ignore-host-fn-panic",
        3,
        host_fn_panic_and_recovery,
    );
}

#[test]
fn mutant_failure_no_quiesce() {
    assert_bites_spinning_bounded("fault-watch-no-quiesce", 4, seen_by_another_thread);
}
