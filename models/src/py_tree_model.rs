//! The Python face's deferred-release tree (`py/src/protocol/handle_core.rs`,
//! `acl._native.Handle._wait_for_children` / `_end_release` /
//! `Memory._free`): a node whose owner released it while a child remains
//! (a buffer whose last view is still alive) *waits*, and its release falls
//! to exactly one caller: the owner marking it waiting, when no child is
//! left, or the end of the last child's release (a view dying on another
//! thread). Neither a release lost for ever (both see the other's step
//! undone) nor a double release (both take it).
//!
//! The environment: `released[i]` counts the releases of node `i`; a
//! release of a node ends with its removal from its own parent, which may
//! make the parent's release fall to the same caller (a chain: buffer →
//! context → device).

use crate::handle_core::HandleCore;
use crate::harness::{assert_bites, explore};
use crate::sync::{Arc, AtomicUsize, Ordering, thread};

const CTX: u64 = 1;
const BUF: u64 = 2;

struct Tree {
    device: HandleCore<u32, u64>,
    ctx: HandleCore<u32, u64>,
    /// Releases of the context and of the device.
    ctx_released: AtomicUsize,
    device_released: AtomicUsize,
}

fn tree() -> Arc<Tree> {
    let t = Arc::new(Tree {
        device: HandleCore::new(),
        ctx: HandleCore::new(),
        ctx_released: AtomicUsize::new(0),
        device_released: AtomicUsize::new(0),
    });
    assert!(t.device.open(10));
    assert!(t.device.add_child(3, CTX, CTX).is_ok());
    assert!(t.ctx.open(20));
    assert!(t.ctx.add_child(2, BUF, BUF).is_ok());
    t
}

fn release_device(t: &Tree) {
    assert_eq!(
        t.ctx_released.load(Ordering::SeqCst),
        1,
        "the device released before its context"
    );
    t.device_released.fetch_add(1, Ordering::SeqCst);
}

/// The context's release (it fell to this caller): then the device drops
/// it, and the device's release may fall to the same caller.
fn release_ctx(t: &Tree) {
    t.ctx_released.fetch_add(1, Ordering::SeqCst);
    let (kid, claim) = t.device.remove_child(CTX);
    assert_eq!(kid, Some(CTX));
    if claim {
        release_device(t);
    }
}

/// One level: the buffer's last view dies on one thread while the
/// context's owner (a with-block's end) marks it waiting on another.
fn last_view_vs_wait() {
    let t = tree();
    let t1 = t.clone();
    let view = thread::spawn(move || t1.ctx.remove_child(BUF).1);
    let owner = t.ctx.wait_for_children();
    let dying = view.join().unwrap();
    assert!(
        owner || dying,
        "nobody released the context (its release is lost)"
    );
    assert!(!(owner && dying), "both released the context");
}

/// Two levels, three threads: the buffer's last view dies while the
/// context's and the device's owners mark them waiting. Each is released
/// exactly once, the device after its context.
fn chain() {
    let t = tree();
    let (t1, t2) = (t.clone(), t.clone());
    let view = thread::spawn(move || {
        let (kid, claim) = t1.ctx.remove_child(BUF);
        assert_eq!(kid, Some(BUF));
        if claim {
            release_ctx(&t1);
        }
    });
    let dev_owner = thread::spawn(move || {
        if t2.device.wait_for_children() {
            release_device(&t2);
        }
    });
    if t.ctx.wait_for_children() {
        release_ctx(&t);
    }
    view.join().unwrap();
    dev_owner.join().unwrap();
    assert_eq!(t.ctx_released.load(Ordering::SeqCst), 1, "context releases");
    assert_eq!(
        t.device_released.load(Ordering::SeqCst),
        1,
        "device releases"
    );
    assert_eq!((t.ctx.children(), t.device.children()), (0, 0));
}

#[test]
fn py_tree_last_view_vs_wait() {
    explore("py_tree_last_view_vs_wait", None, last_view_vs_wait);
}

#[test]
fn py_tree_chain() {
    explore("py_tree_chain", None, chain);
}

#[test]
fn mutant_tree_wait_checked_before_marked() {
    assert_bites("tree-wait-checked-before-marked", None, last_view_vs_wait);
}

#[test]
fn mutant_tree_remove_check_apart() {
    assert_bites("tree-remove-check-apart", None, last_view_vs_wait);
}

#[test]
fn mutant_tree_wait_checked_before_marked_chain() {
    assert_bites("tree-wait-checked-before-marked", None, chain);
}
