//! The Python face's runtime memory (`py/src/protocol/memory_core.rs`,
//! `acl._native.Memory`): buffer-protocol exports checked and counted in
//! one step, a free granted only with no export live and closing the memory
//! in the same step, and a free deferred to the end of the last export.
//!
//! The environment: `live`, the exports in use (a numpy view, a copy's
//! hold), counted after an export began and before it ends; `freed`, set by
//! the runtime free. An export never sees the memory freed, a free never
//! happens with an export live, and the memory is freed at most once (and,
//! when its release was deferred, exactly once).

use crate::harness::{assert_bites, explore};
use crate::memory_core::{Free, MemoryCore};
use crate::sync::{Arc, AtomicBool, AtomicUsize, Ordering, thread};

struct World {
    m: MemoryCore<u32, u32>,
    live: AtomicUsize,
    freed: AtomicBool,
    frees: AtomicUsize,
}

fn world() -> Arc<World> {
    let w = Arc::new(World {
        m: MemoryCore::new(),
        live: AtomicUsize::new(0),
        freed: AtomicBool::new(false),
        frees: AtomicUsize::new(0),
    });
    w.m.lock().open(true, 0x1000, 64, 0, 5);
    w
}

/// A free granted: the runtime frees the memory, with no export live.
fn free_now(w: &World, f: Free<u32>) -> bool {
    match f {
        Free::Now { ptr, host, .. } => {
            assert_eq!((ptr, host), (0x1000, true));
            assert_eq!(
                w.live.load(Ordering::SeqCst),
                0,
                "freed while an export is live"
            );
            w.freed.store(true, Ordering::SeqCst);
            w.frees.fetch_add(1, Ordering::SeqCst);
            true
        }
        Free::Nothing | Free::Exported | Free::Busy => false,
    }
}

/// Takes an export (a view): the pointer; `None` when refused.
fn export(w: &World) -> Option<u64> {
    let ptr =
        w.m.export(false, |_| Ok(()), |_| (), |g| Ok::<_, ()>(g.ptr))
            .ok()?;
    w.live.fetch_add(1, Ordering::SeqCst);
    assert!(!w.freed.load(Ordering::SeqCst), "an export of freed memory");
    assert_eq!(ptr, 0x1000);
    Some(ptr)
}

/// Ends an export; the last one of a deferred release runs it (its owner's
/// callback frees, unless a close on another thread came first).
fn unexport(w: &World) {
    w.live.fetch_sub(1, Ordering::SeqCst);
    if let Some(token) = w.m.release_export() {
        assert_eq!(token, 9);
        free_now(w, w.m.free(false, None));
    }
}

/// Views taken on two threads (`np.asarray(buf)`, a copy's hold) while a
/// third frees the buffer (`buf.close()`, refusing while exported).
fn free_vs_export() {
    let w = world();
    let viewers: Vec<_> = (0..2)
        .map(|_| {
            let w1 = w.clone();
            thread::spawn(move || {
                if export(&w1).is_some() {
                    unexport(&w1);
                }
            })
        })
        .collect();
    free_now(&w, w.m.free(false, None));
    for v in viewers {
        v.join().unwrap();
    }
    assert!(w.frees.load(Ordering::SeqCst) <= 1, "freed twice");
}

/// A view made before, released on one thread; a second view taken on
/// another; the owner's deferred release (the end of a `with` block while
/// views live) and a second close on a third. The memory is freed exactly
/// once, never while a view lives.
fn deferred_release() {
    let w = world();
    assert!(export(&w).is_some());
    let (w1, w2, w3) = (w.clone(), w.clone(), w.clone());
    let first = thread::spawn(move || unexport(&w1));
    let second = thread::spawn(move || {
        if export(&w2).is_some() {
            unexport(&w2);
        }
    });
    let closer = thread::spawn(move || {
        free_now(&w3, w3.m.free(false, None));
    });
    free_now(&w, w.m.free(true, Some(9)));
    first.join().unwrap();
    second.join().unwrap();
    closer.join().unwrap();
    assert_eq!(
        w.frees.load(Ordering::SeqCst),
        1,
        "the memory is freed exactly once"
    );
    assert_eq!(w.m.exports(), 0);
}

#[test]
fn py_memory_free_vs_export() {
    explore("py_memory_free_vs_export", None, free_vs_export);
}

#[test]
fn py_memory_deferred_release() {
    explore("py_memory_deferred_release", Some(3), deferred_release);
}

#[test]
fn mutant_memory_free_check_apart() {
    assert_bites("memory-free-check-apart", None, free_vs_export);
}

#[test]
fn mutant_memory_export_check_apart() {
    assert_bites("memory-export-check-apart", None, free_vs_export);
}

#[test]
fn mutant_memory_defer_check_apart() {
    assert_bites("memory-defer-check-apart", Some(3), deferred_release);
}

#[test]
fn mutant_memory_free_not_closing() {
    assert_bites("memory-free-not-closing", Some(3), deferred_release);
}
