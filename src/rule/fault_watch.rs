//! The protocol core of `ffi::faults`: which synchronisations
//! are in flight, so that a checked wait cannot miss a device fault that
//! another thread's synchronisation took from the runtime.
//!
//! The runtime reports a stream's fault to one synchronisation and clears
//! it there, inside the call; the crate enters it in its log only when that
//! call has returned. A checked wait whose own synchronisation found
//! nothing (the fault was already taken) could look at the log in between
//! and miss it. So every synchronisation of the crate is bracketed:
//! [`Watch::begin`] before the runtime call publishes its key (the stream,
//! or the context of a device synchronisation), [`Watch::end`] after the
//! fault (if any) was entered; and a checked wait, after its own
//! synchronisation, first waits ([`Watch::quiesce`]) for every
//! synchronisation of its keys that was in flight then, before it reads
//! the log.
//!
//! Why that is enough: say thread B's synchronisation took the fault of
//! work that A's synchronisation also covered. B took it before A's call
//! read the stream's error (else A would have got it), so B's `begin` —
//! which comes before B's call — happened before A's call returned, and
//! A's `quiesce` (after that) sees B's slot busy with B's key, or sees it
//! already ended. Either way A reads the log after B's `end`, and B entered
//! the fault before its `end`. A slot that is busy but whose key is not
//! published yet belongs to a call that has not started: it took nothing.
//! A synchronisation that begins after `quiesce` looked is not waited for:
//! it cannot take what A's own call would have found.
//!
//! Slots are `N` words (a bit each in `busy`); a synchronisation that
//! finds them all taken goes to a locked overflow list instead. Every
//! access is `SeqCst`: the argument above is about one total order.
#![deny(unsafe_code)]

use super::sync::{AtomicU64, AtomicUsize, Mutex, Ordering, Rank, lock, mutant, pause};

/// Where [`Watch::end`] finds a synchronisation [`Watch::begin`] entered.
#[derive(Debug)]
pub(crate) enum Ticket {
    /// Slot `i`.
    Slot(usize),
    /// The overflow list's entry with this id.
    Overflow(u64),
}

/// The synchronisations in flight, by key (a non-zero word naming a stream
/// or a context).
pub(crate) struct Watch<const N: usize> {
    /// Bit `i`: slot `i` is taken.
    busy: AtomicU64,
    /// The key of slot `i` (0 until published).
    keys: [AtomicUsize; N],
    /// How many synchronisations slot `i` has ended.
    ends: [AtomicU64; N],
    /// Synchronisations that found every slot taken: (id, key).
    overflow: Mutex<Vec<(u64, usize)>>,
    /// The length of `overflow` (read without its lock).
    overflowing: AtomicUsize,
    /// The next overflow id.
    next_id: AtomicU64,
}

impl<const N: usize> Watch<N> {
    /// An empty watch (`N` at most 64), for a `static` (the model
    /// checkers' atomics have no `const` constructor).
    #[cfg(not(any(loom, shuttle)))]
    pub(crate) const fn new_static() -> Self {
        assert!(N <= 64);
        Watch {
            busy: AtomicU64::new(0),
            keys: [const { AtomicUsize::new(0) }; N],
            ends: [const { AtomicU64::new(0) }; N],
            overflow: Mutex::new(Vec::new()),
            overflowing: AtomicUsize::new(0),
            next_id: AtomicU64::new(0),
        }
    }

    /// An empty watch (`N` at most 64).
    #[cfg(any(loom, shuttle))]
    pub(crate) fn new() -> Self {
        assert!(N <= 64);
        Watch {
            busy: AtomicU64::new(0),
            keys: core::array::from_fn(|_| AtomicUsize::new(0)),
            ends: core::array::from_fn(|_| AtomicU64::new(0)),
            overflow: Mutex::new(Vec::new()),
            overflowing: AtomicUsize::new(0),
            next_id: AtomicU64::new(0),
        }
    }

    /// A synchronisation of `key` (non-zero) is about to call the runtime.
    #[inline]
    pub(crate) fn begin(&self, key: usize) -> Ticket {
        let all = if N == 64 { u64::MAX } else { (1u64 << N) - 1 };
        loop {
            let busy = self.busy.load(Ordering::SeqCst);
            let free = !busy & all;
            if free == 0 {
                return self.begin_overflow(key);
            }
            let i = free.trailing_zeros() as usize;
            if self
                .busy
                .compare_exchange(busy, busy | (1 << i), Ordering::SeqCst, Ordering::SeqCst)
                .is_ok()
            {
                self.keys[i].store(key, Ordering::SeqCst);
                return Ticket::Slot(i);
            }
        }
    }

    #[cold]
    fn begin_overflow(&self, key: usize) -> Ticket {
        let id = self.next_id.fetch_add(1, Ordering::SeqCst);
        let mut list = lock(&self.overflow, Rank::FaultWatch);
        list.push((id, key));
        self.overflowing.fetch_add(1, Ordering::SeqCst);
        Ticket::Overflow(id)
    }

    /// The synchronisation of `ticket` returned, and a fault it reported
    /// was entered.
    #[inline]
    pub(crate) fn end(&self, ticket: Ticket) {
        match ticket {
            Ticket::Slot(i) => {
                self.keys[i].store(0, Ordering::SeqCst);
                self.ends[i].fetch_add(1, Ordering::SeqCst);
                self.busy.fetch_and(!(1 << i), Ordering::SeqCst);
            }
            Ticket::Overflow(id) => {
                let mut list = lock(&self.overflow, Rank::FaultWatch);
                list.retain(|&(e, _)| e != id);
                self.overflowing.fetch_sub(1, Ordering::SeqCst);
            }
        }
    }

    /// Whether no synchronisation is in flight (two loads).
    #[inline(always)]
    pub(crate) fn idle(&self) -> bool {
        self.busy.load(Ordering::SeqCst) == 0 && self.overflowing.load(Ordering::SeqCst) == 0
    }

    /// Wait until every synchronisation of a key `on` accepts that is in
    /// flight now has ended. One load (two with an overflow) while no
    /// synchronisation is in flight.
    #[inline]
    pub(crate) fn quiesce(&self, on: impl Fn(usize) -> bool) {
        if mutant("fault-watch-no-quiesce") {
            return;
        }
        let busy = self.busy.load(Ordering::SeqCst);
        if busy == 0 && self.overflowing.load(Ordering::SeqCst) == 0 {
            return;
        }
        self.quiesce_slow(busy, &on);
    }

    #[cold]
    #[inline(never)]
    fn quiesce_slow(&self, busy: u64, on: &dyn Fn(usize) -> bool) {
        // (slot, its count of ends when seen in flight)
        let mut slots = Vec::new();
        let mut bits = busy;
        while bits != 0 {
            let i = bits.trailing_zeros() as usize;
            bits &= bits - 1;
            let ended = self.ends[i].load(Ordering::SeqCst);
            let key = self.keys[i].load(Ordering::SeqCst);
            // 0: not published, so its call has not started (or it ended).
            if key != 0 && on(key) {
                slots.push((i, ended));
            }
        }
        let ids: Vec<u64> = if self.overflowing.load(Ordering::SeqCst) == 0 {
            Vec::new()
        } else {
            let list = lock(&self.overflow, Rank::FaultWatch);
            list.iter()
                .filter(|&&(_, k)| on(k))
                .map(|&(id, _)| id)
                .collect()
        };
        while slots
            .iter()
            .any(|&(i, ended)| self.ends[i].load(Ordering::SeqCst) == ended)
        {
            pause();
        }
        while !ids.is_empty() {
            {
                let list = lock(&self.overflow, Rank::FaultWatch);
                if !list.iter().any(|(id, _)| ids.contains(id)) {
                    break;
                }
            }
            pause();
        }
    }
}
