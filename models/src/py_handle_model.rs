//! The Python face's runtime handles (`py/src/protocol/handle_core.rs`,
//! `acl._native.Handle`): counted uses and children, a release granted only
//! with neither, closing the handle to both in the same step, and a release
//! deferred to the end of the last use.
//!
//! The environment: `destroyed`, set when a granted release destroys the
//! runtime object; a use or a child that began must never see it set
//! (a `close()` on one thread destroying the stream that a `synchronize()`
//! on another is waiting for, or a context destroyed while a stream is
//! being created in it). `released` counts releases: a deferred release
//! runs exactly once, never while a use is in flight.

use crate::handle_core::{HandleCore, Release};
use crate::harness::{assert_bites, explore};
use crate::sync::{Arc, AtomicBool, AtomicUsize, Ordering, thread};

struct World {
    h: HandleCore<u32>,
    destroyed: AtomicBool,
    released: AtomicUsize,
    /// Uses in flight (counted after one began, before it ends).
    using: AtomicUsize,
}

fn world() -> Arc<World> {
    let w = Arc::new(World {
        h: HandleCore::new(),
        destroyed: AtomicBool::new(false),
        released: AtomicUsize::new(0),
        using: AtomicUsize::new(0),
    });
    assert!(w.h.open(7));
    w
}

/// A granted release: the runtime object is destroyed, once, with no use
/// in flight.
fn destroy(w: &World, value: u64) {
    assert_eq!(value, 7);
    assert!(
        w.using.load(Ordering::SeqCst) == 0,
        "a release was granted while a use is in flight"
    );
    assert!(!w.destroyed.swap(true, Ordering::SeqCst), "released twice");
    w.released.fetch_add(1, Ordering::SeqCst);
    assert!(w.h.end_release(true));
}

/// `close()` on one thread while another begins a use (a `synchronize()`):
/// either the use is refused or the release is; a use that began never
/// sees the object destroyed.
fn close_vs_use() {
    let w = world();
    let w1 = w.clone();
    let user = thread::spawn(move || {
        if let Ok(v) = w1.h.begin_use() {
            assert_eq!(v, 7);
            w1.using.fetch_add(1, Ordering::SeqCst);
            assert!(
                !w1.destroyed.load(Ordering::SeqCst),
                "a use began on a destroyed handle"
            );
            w1.using.fetch_sub(1, Ordering::SeqCst);
            assert!(w1.h.end_use().is_none());
            true
        } else {
            false
        }
    });
    let granted = match w.h.begin_release(None) {
        Ok(Release::Granted(v)) => {
            destroy(&w, v);
            true
        }
        Ok(Release::Deferred) => unreachable!("no on_idle given"),
        Err(_) => false,
    };
    let used = user.join().unwrap();
    assert!(granted || used, "refused with nothing in the way");
    assert_eq!(w.h.uses(), 0);
}

/// `close()` of a parent on one thread while a child is created in it on
/// another: the child, once counted, never sees the parent destroyed.
fn close_vs_child() {
    let w = world();
    let w1 = w.clone();
    let maker = thread::spawn(move || {
        if w1.h.add_child(0, 1, ()).is_ok() {
            assert!(
                !w1.destroyed.load(Ordering::SeqCst),
                "a child was created in a destroyed parent"
            );
            assert!(!w1.h.remove_child(1).1, "the parent does not wait");
        }
    });
    if let Ok(Release::Granted(v)) = w.h.begin_release(None) {
        destroy(&w, v);
    }
    maker.join().unwrap();
    assert_eq!(w.h.children(), 0);
}

/// Ends a use; the last one of a retired handle whose release waited
/// hands back `on_idle`, and its owner asks again.
fn end_use(w: &World) {
    w.using.fetch_sub(1, Ordering::SeqCst);
    if let Some(token) = w.h.end_use() {
        assert_eq!(token, 42);
        match w.h.begin_release(None) {
            Ok(Release::Granted(v)) => destroy(w, v),
            other => panic!("the release asked from on_idle was {other:?}"),
        }
    }
}

/// A retired handle: two uses in flight (two `synchronize()` calls) end on
/// two threads while a third (its last child's release) asks for the
/// release with `on_idle`. The release happens exactly once, after both
/// uses ended; `on_idle` comes back once.
fn deferred_release() {
    let w = world();
    for _ in 0..2 {
        assert_eq!(w.h.begin_use(), Ok(7));
        w.using.fetch_add(1, Ordering::SeqCst);
    }
    assert!(
        w.h.wait_for_children(),
        "no child left: the release falls to the owner"
    );
    assert!(w.h.begin_use().is_err(), "a retired handle takes no use");
    let (w1, w2) = (w.clone(), w.clone());
    let a = thread::spawn(move || end_use(&w1));
    let b = thread::spawn(move || end_use(&w2));
    match w.h.begin_release(Some(42)) {
        Ok(Release::Granted(v)) => destroy(&w, v),
        Ok(Release::Deferred) => {}
        Err(e) => panic!("refused: {e:?}"),
    }
    a.join().unwrap();
    b.join().unwrap();
    assert_eq!(
        w.released.load(Ordering::SeqCst),
        1,
        "the deferred release ran exactly once"
    );
}

#[test]
fn py_handle_close_vs_use() {
    explore("py_handle_close_vs_use", None, close_vs_use);
}

#[test]
fn py_handle_close_vs_child() {
    explore("py_handle_close_vs_child", None, close_vs_child);
}

#[test]
fn py_handle_deferred_release() {
    explore("py_handle_deferred_release", None, deferred_release);
}

#[test]
fn mutant_handle_grant_not_closing_use() {
    assert_bites("handle-grant-not-closing", None, close_vs_use);
}

#[test]
fn mutant_handle_grant_not_closing_child() {
    assert_bites("handle-grant-not-closing", None, close_vs_child);
}

#[test]
fn mutant_handle_child_check_apart() {
    assert_bites("handle-child-check-apart", None, close_vs_child);
}

#[test]
fn mutant_handle_idle_check_apart() {
    assert_bites("handle-idle-check-apart", None, deferred_release);
}
