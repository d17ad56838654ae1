//! The streams a scope enlisted: enlisting one (`ScopeCore::enlist`, a
//! lane's index), counting them, noting which ones the scope synchronised
//! (`Book::settle`, `Book::unsettle`), and the recovery point that makes
//! them all idle ([`ScopeCore::recover`]). Bookkeeping with no `unsafe`;
//! the argument is in the parent module's docs.
#![deny(unsafe_code)]

use core::sync::atomic::Ordering;
use std::panic::resume_unwind;

use super::super::Raw;
use super::super::faults;
use super::{Book, Enlisted, ScopeCore, open};
use crate::error::{Error, Result};

impl Book {
    /// Work of this scope may be queued on `stream` from now on.
    pub(super) fn unsettle(&mut self, stream: Raw) {
        for e in self.streams.iter_mut() {
            if e.stream == stream {
                e.settled = false;
            }
        }
    }

    /// A synchronisation of `stream` by this scope succeeded, and nothing
    /// was queued on it since the synchronisation began (the scope's thread
    /// was blocked in it; nothing else queues for the scope).
    pub(super) fn settle(&mut self, stream: Raw, fences: u64) {
        for e in self.streams.iter_mut() {
            if e.stream == stream {
                e.settled = true;
                e.synced = fences;
            }
        }
    }
}

impl<'scope> ScopeCore<'scope> {
    /// The scope's context.
    pub(crate) fn context(&self) -> Raw {
        self.book.ctx
    }

    /// The recovery point: make every enlisted stream idle, release the
    /// host functions (resuming the first panic of one, once), and return
    /// the failure that stuck to the scope, which no longer sticks: work
    /// queued from now on is judged on failures seen after this point.
    /// Buffers whose contents' work began before a failure keep failing
    /// their checked waits. If a stream cannot be made idle, or an
    /// escalation aborted the scope's work, that error is returned and the
    /// scope has not recovered.
    pub(crate) fn recover(&self) -> Result<Option<Error>> {
        super::super::refuse_in_callback("Scope::recover")?;
        if let Some(e) = self.book.abort_unmatched() {
            return Err(e);
        }
        self.book.make_idle_all(self.book.streams())?;
        // Every host function queued so far ran, or never will.
        let host_fns = self
            .book
            .inner
            .borrow_mut()
            .0
            .as_mut()
            .map(|b| core::mem::take(&mut b.host_fns))
            .unwrap_or_default();
        let mut panic = None;
        for slot in host_fns {
            if let (Some(p), _) = slot.settle() {
                panic.get_or_insert(p);
            }
        }
        if let Some(p) = panic {
            // The failure stays: the scope's end reports it if the body
            // catches the panic.
            resume_unwind(p);
        }
        if self.book.aborted() {
            return Err(Error::WorkAborted);
        }
        let streams = self.book.streams();
        let mine = |k: usize| streams.iter().any(|&s| k == faults::key(s));
        faults::quiesce(mine);
        self.book.settle_suspects();
        Ok(self.book.inner.borrow_mut().1.recover(faults::log(), mine))
    }

    /// How many streams are enlisted.
    pub(crate) fn stream_count(&self) -> usize {
        usize::from(!self.book.first.load(Ordering::Relaxed).is_null())
            + self
                .book
                .inner
                .borrow()
                .0
                .as_ref()
                .map_or(0, |b| b.streams.len())
    }

    /// Enlist `stream` (once): its lane's index (the first stream is lane
    /// 0, the book's `i`th lane `i + 1`), at most 31: lanes from the 31st
    /// on share one bit in an `Origin` (`lane_bit`).
    #[inline(always)]
    pub(super) fn enlist(&self, stream: Raw) -> u8 {
        let first = self.book.first.load(Ordering::Relaxed);
        if first.is_null() {
            self.book.first.store(stream.as_ptr(), Ordering::Relaxed);
            // Before anything is queued there.
            self.book
                .first_ticket
                .store(open::ticket(), Ordering::Relaxed);
            self.book.lone.store(true, Ordering::Relaxed);
            0
        } else if first == stream.as_ptr() {
            0
        } else {
            let streams = &mut self.book.book().streams;
            match streams.iter().position(|e| e.stream == stream) {
                Some(i) => lane_index(i + 1),
                None => {
                    streams.push(Enlisted {
                        stream,
                        settled: false,
                        synced: 0,
                        // Before anything is queued there.
                        ticket: open::ticket(),
                    });
                    let bit = lane_index(streams.len());
                    self.book.promote();
                    open::enlist(self.book.id, stream, self.book.ctx);
                    bit
                }
            }
        }
    }
}

/// A lane's index as kept in a `Parked` (one byte): 31 for every lane from
/// the 31st on, which share `EVERY_LANE`.
fn lane_index(i: usize) -> u8 {
    u8::try_from(i.min(31)).unwrap_or(31)
}
