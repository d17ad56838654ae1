//! The protocol core of an allocator registered on a stream
//! (`ffi::allocator`): the pool of device blocks the crate's callbacks hand
//! to the runtime, against the registration's end.
//!
//! The runtime (the operator libraries above it) calls the callbacks on its
//! own threads while the program may end the registration on another:
//! * a callback's allocation ([`BlockPool::take`]) reuses a block given
//!   back earlier, or reserves the bytes for a new one within the budget;
//!   the device memory of a new block is allocated with no lock held and
//!   entered by [`BlockPool::added`], which refuses it (the caller frees it
//!   at once and answers no block) once the pool is closed;
//! * a callback's release ([`BlockPool::give_back`]) puts the block on the
//!   free list: the registration is per stream, so a block is reused only
//!   by work queued after the work that used it (stream order);
//! * the end ([`BlockPool::close`]) closes the pool and takes every block
//!   it ever entered, under the lock: from then on no block is handed out,
//!   so each block is either in that list (its owner frees it once the
//!   stream is idle) or was never handed out.
//!
//! No unsafe, no FFI; addresses are numbers here.
#![deny(unsafe_code)]

use super::sync::{Mutex, Rank, lock, mutant};

/// What [`BlockPool::take`] found.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Take {
    /// A block given back earlier: its address and size.
    Reuse(usize, usize),
    /// Nothing to reuse; the bytes are reserved: allocate a block and
    /// enter it ([`BlockPool::added`]) or release them
    /// ([`BlockPool::not_added`]).
    New,
}

struct State {
    /// Every block entered and not yet taken by `close`: (address, size).
    all: Vec<(usize, usize)>,
    /// Blocks given back, ready for reuse.
    free: Vec<(usize, usize)>,
    /// Bytes entered or reserved.
    bytes: usize,
    budget: usize,
    closed: bool,
}

/// The blocks of one registration.
pub(crate) struct BlockPool {
    state: Mutex<State>,
}

impl BlockPool {
    /// An open pool that holds at most `budget` bytes.
    pub(crate) fn new(budget: usize) -> BlockPool {
        BlockPool {
            state: Mutex::new(State {
                all: Vec::new(),
                free: Vec::new(),
                bytes: 0,
                budget,
                closed: false,
            }),
        }
    }

    /// A block of at least `size` bytes, or `None` (closed, or over the
    /// budget).
    pub(crate) fn take(&self, size: usize) -> Option<Take> {
        let mut s = lock(&self.state, Rank::BlockPool);
        if s.closed && !mutant("pool-take-ignores-closed") {
            return None;
        }
        if let Some(at) = s.free.iter().position(|&(_, n)| n >= size) {
            let (addr, n) = s.free.swap_remove(at);
            return Some(Take::Reuse(addr, n));
        }
        let bytes = s.bytes.checked_add(size)?;
        if bytes > s.budget {
            return None;
        }
        s.bytes = bytes;
        Some(Take::New)
    }

    /// A new block of `size` bytes at `addr` (after [`Take::New`]):
    /// `false` if the pool was closed meanwhile: the caller frees it and
    /// hands nothing out.
    pub(crate) fn added(&self, addr: usize, size: usize) -> bool {
        let mut s = lock(&self.state, Rank::BlockPool);
        if s.closed && !mutant("pool-added-ignores-closed") {
            // `close` forgot every reservation.
            return false;
        }
        s.all.push((addr, size));
        true
    }

    /// The allocation after [`Take::New`] failed: release its bytes.
    pub(crate) fn not_added(&self, size: usize) {
        let mut s = lock(&self.state, Rank::BlockPool);
        s.bytes = s.bytes.saturating_sub(size);
    }

    /// The runtime gave the block at `addr` back: ready for reuse. A block
    /// the pool does not hold (given back after `close`, or never handed
    /// out) is ignored.
    pub(crate) fn give_back(&self, addr: usize) {
        let mut s = lock(&self.state, Rank::BlockPool);
        if s.closed {
            return;
        }
        if let Some(&(a, n)) = s.all.iter().find(|&&(a, _)| a == addr) {
            if !s.free.iter().any(|&(f, _)| f == a) {
                s.free.push((a, n));
            }
        }
    }

    /// Bytes the pool holds (entered or reserved).
    pub(crate) fn bytes(&self) -> usize {
        lock(&self.state, Rank::BlockPool).bytes
    }

    /// Close the pool and take every block it entered: no block is handed
    /// out from now on.
    pub(crate) fn close(&self) -> Vec<(usize, usize)> {
        let mut s = lock(&self.state, Rank::BlockPool);
        s.closed = true;
        s.free.clear();
        s.bytes = 0;
        core::mem::take(&mut s.all)
    }
}
