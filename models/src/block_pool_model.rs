//! The pool of an allocator registered on a stream
//! (`protocol::block_pool`): a runtime thread's allocation callback
//! (reserve, allocate with no lock held, enter) and release callback,
//! against the registration's end (close, then free what it took).
//!
//! Asserted: every block a callback handed out is in the list the end
//! takes (so it is freed once, after the stream is idle, and never leaks);
//! a block entered after the end is refused (its caller frees it); no
//! block is handed out once the end returned.

use crate::block_pool::{BlockPool, Take};
use crate::harness::{assert_bites, explore};
use crate::sync::{Arc, thread};

/// The allocation callback: `Some(addr)` when it handed a block out; a new
/// block gets the address `fresh`.
fn alloc(pool: &BlockPool, size: usize, fresh: usize) -> Option<usize> {
    match pool.take(size)? {
        Take::Reuse(addr, _) => Some(addr),
        Take::New => pool.added(fresh, size).then_some(fresh),
    }
}

/// A block in use and given back, then an allocation and a release on a
/// runtime thread against the end.
fn callbacks_vs_end() {
    let pool = Arc::new(BlockPool::new(64));
    let first = alloc(&pool, 16, 0x100).expect("an open pool with room");
    let p = pool.clone();
    let runtime = thread::spawn(move || {
        p.give_back(first);
        // Larger than the block given back: a new block.
        alloc(&p, 24, 0x200)
    });
    let second = alloc(&pool, 32, 0x300);
    let taken = pool.close();
    let got = runtime.join().unwrap();
    for b in [Some(first), second, got].into_iter().flatten() {
        assert!(
            taken.iter().any(|&(a, _)| a == b),
            "block {b:#x} was handed out but the end does not free it"
        );
    }
    assert!(pool.take(8).is_none(), "room reserved after the end");
    assert!(
        alloc(&pool, 8, 0x400).is_none(),
        "a block handed out after the end"
    );
    assert!(pool.close().is_empty(), "a block entered after the end");
}

#[test]
fn block_pool_callbacks_vs_end() {
    explore("block_pool_callbacks_vs_end", None, callbacks_vs_end);
}

/// A new block entered after the end: not in the end's list (leaked, or
/// freed twice by a later end), and handed out.
#[test]
fn mutant_pool_added_ignores_closed() {
    assert_bites("pool-added-ignores-closed", None, callbacks_vs_end);
}

/// An allocation after the end reserves room and answers a new block.
#[test]
fn mutant_pool_take_ignores_closed() {
    assert_bites("pool-take-ignores-closed", None, callbacks_vs_end);
}
