//! Opening and ending a scope: [`run`] (the scope's frame, which makes the
//! [`ScopeCore`], calls the body and synchronises on every way out), the
//! final synchronisation ([`ScopeCore::finish`], its escalation and its
//! fast path for a settled one-lane scope) and dropping what sticks to the
//! scope. Bookkeeping with no `unsafe`; the argument it carries (`run`
//! waits for the work before any `'scope` borrow ends) is in the parent
//! module's docs.
#![deny(unsafe_code)]

use core::cell::RefCell;
use core::marker::PhantomData;
use core::mem::ManuallyDrop;
use core::sync::atomic::{AtomicBool, AtomicPtr, AtomicU64, Ordering};
use core::time::Duration;
use std::panic::resume_unwind;
use std::time::Instant;

use super::super::Raw;
use super::super::faults;
use super::super::host_fn::Panic;
use super::super::protocol::failure::Sticky;
use super::book::{escalate, millis_left};
use super::{CoreBook, Enlisted, ScopeBody, ScopeBook, ScopeCore, open};
use crate::error::{Error, Result};

/// Open a scope on context `ctx`, run `body`, and synchronise every stream
/// it enlisted before returning (also on error and on panic). With a
/// `timeout`, the synchronisation is bounded: see [`Escalation`].
pub(crate) fn run<B: ScopeBody>(
    ctx: Raw,
    timeout: Option<Duration>,
    body: B,
) -> core::result::Result<B::Output, B::Error> {
    super::super::refuse_in_callback("Context::scope")?;
    // Not dropped: `finish` and `release_kept` (below, or the unwind guard)
    // leave it owning nothing (its book is taken out by them), so its drop
    // would only check that.
    let owned = ManuallyDrop::new(ScopeCore {
        book: CoreBook {
            ctx,
            id: open::register(),
            first: AtomicPtr::new(core::ptr::null_mut()),
            first_settled: AtomicBool::new(false),
            any_settled: AtomicBool::new(false),
            lone: AtomicBool::new(false),
            first_ticket: AtomicU64::new(0),
            refused: AtomicBool::new(false),
            suspect: AtomicBool::new(false),
            fences: AtomicU64::new(0),
            first_synced: AtomicU64::new(0),
            inner: RefCell::new(ScopeBook(None, Sticky::new(faults::now()))),
        },
        _scope: PhantomData,
    });
    let core: &ScopeCore<'_> = &owned;
    // A deadline too far to represent is no deadline.
    let deadline = timeout.and_then(|t| Some((t, Instant::now().checked_add(t)?)));
    struct FinishOnUnwind<'a, 'scope>(&'a ScopeCore<'scope>, &'a Option<(Duration, Instant)>);
    impl Drop for FinishOnUnwind<'_, '_> {
        fn drop(&mut self) {
            // Only reached while unwinding: errors and panics of host
            // functions cannot be reported, but the synchronisation happens.
            let _ = self.0.finish(self.1);
            self.0.release_kept();
            self.0.drop_sticky();
        }
    }
    let guard = FinishOnUnwind(core, &deadline);
    // Not dropped: a drop that could use `'scope` would keep `core` borrowed
    // past the end of this function (the wrapper holds only that borrow).
    let scope = ManuallyDrop::new(B::wrap(core));
    super::super::locks::user_code("a scope's body");
    let result = body.call(&scope);
    core::mem::forget(guard);
    match core.end_settled() {
        // Nothing to synchronise or release (a one-lane scope
        // that waited for its work), but a failure since the scope opened
        // or last recovered is reported (the failure rule).
        Some(false) => {
            let result = core.book.end_failure(result, || core.book.streams());
            core.drop_sticky();
            return result;
        }
        // Another scope's deadline aborted a stream this one shares (or one
        // it depends on): some of this scope's work was discarded.
        Some(true) => {
            core.drop_sticky();
            return result.and_then(|_| Err(Error::WorkAborted.into()));
        }
        None => {}
    }
    let (finished, panic, streams) = core.finish(&deadline);
    core.release_kept();
    if let Some(payload) = panic {
        core.drop_sticky();
        resume_unwind(payload);
    }
    // A failure the final synchronisation did not return (another thread's
    // synchronisation took it, or the body ignored a failed checked wait).
    let result = match (result, finished) {
        (Err(e), Ok(())) => Err(e),
        // A timeout of the end, or its abort of a notify wait no record
        // can end, wins: the caller must learn that the work was stopped.
        (Err(e), Err(fin)) => Err(
            if matches!(
                fin,
                Error::ScopeTimeout { .. } | Error::NotifyNotRecorded { .. }
            ) {
                fin.into()
            } else {
                e
            },
        ),
        (Ok(_), Err(e)) => Err(e.into()),
        (Ok(r), Ok(())) => Ok(r),
    };
    let result = core.book.end_failure(result, || {
        let first = Raw::new(core.book.first.load(Ordering::Relaxed));
        first
            .into_iter()
            .chain(streams.iter().map(|e| e.stream))
            .collect()
    });
    core.drop_sticky();
    result
}

impl<'scope> ScopeCore<'scope> {
    /// Drop the kept values, last kept first, and the book. Called by `run`
    /// after `finish` (on both its paths), when no reference to them can be
    /// used any more.
    #[inline(always)]
    fn release_kept(&self) {
        if self.book.inner.borrow().0.is_some() {
            self.release_book();
        }
    }

    /// The core is never dropped: the failure that sticks to the scope (an
    /// `Error`, with heap text), the one thing its book still owns once
    /// the scope's result was computed, is dropped here on every way out.
    /// A quiet scope (no failure sticks, none entered since it opened or
    /// recovered) holds none: one check.
    #[inline(always)]
    fn drop_sticky(&self) {
        if !self.book.inner.borrow().1.quiet(faults::log(), u64::MAX) {
            self.drop_sticky_failure();
        }
    }

    #[cold]
    #[inline(never)]
    fn drop_sticky_failure(&self) {
        let sticky = core::mem::replace(&mut self.book.inner.borrow_mut().1, Sticky::new(0));
        drop(sticky);
    }

    /// The common end of a scope, where [`finish`](Self::finish) would
    /// have nothing to do but leave the registry: one stream, which the
    /// scope synchronised after its last work there (`Parked::wait`,
    /// `LaneCore::synchronize`), and no book (no more streams, events, host
    /// functions or kept values). Then it leaves the registry (which it
    /// entered with that stream) and says whether an escalation aborted it;
    /// otherwise it does nothing and returns `None`.
    #[inline(always)]
    fn end_settled(&self) -> Option<bool> {
        if self.book.first_settled.load(Ordering::Relaxed) && self.book.inner.borrow().0.is_none() {
            Some(self.book.leave(&[]))
        } else {
            None
        }
    }

    /// Synchronise every enlisted stream (within the deadline, if any);
    /// where that fails, escalate (see [`Escalation`]) so that no borrow can
    /// end while the device may still use it; then destroy the scope's
    /// events and release the host functions. Also returns the enlisted
    /// streams after the first (the book no longer holds them).
    #[inline(never)]
    fn finish(
        &self,
        deadline: &Option<(Duration, Instant)>,
    ) -> (Result<()>, Option<Panic>, Vec<Enlisted>) {
        let deadline = *deadline;
        // A notify wait no record can end (none was queued, or its record
        // failed): abort before synchronising.
        if self.book.any_unconfirmed() {
            self.book
                .confirm_matched(&self.book.streams(), deadline.map(|(_, at)| at));
        }
        let unrecorded = self.book.abort_unmatched();
        let mut first_err = None;
        let first = self.book.first.load(Ordering::Relaxed);
        let mut book = self.book.inner.borrow_mut().0.take().unwrap_or_default();
        let streams = core::mem::take(&mut book.streams);
        let first = Raw::new(first).map(|stream| Enlisted {
            stream,
            synced: 0,
            ticket: self.book.first_ticket.load(Ordering::Relaxed),
            settled: self.book.first_settled.load(Ordering::Relaxed),
        });
        let mut end = Synced::Done;
        for e in first.iter().chain(streams.iter()) {
            if e.settled {
                // Synchronised by the scope after its last work there.
                continue;
            }
            end = self.synchronize_at_end(e.stream, deadline, &mut first_err);
            if end != Synced::Done {
                break;
            }
        }
        if end != Synced::Done {
            // The escalation starts from the scope's entries.
            self.book.promote();
            let escalation = escalate(self.book.id);
            if end == Synced::TimedOut {
                let millis = deadline.map_or(0, |(t, _)| t.as_millis());
                first_err = Some(Error::ScopeTimeout { millis, escalation });
            }
        }
        // Only a scope that enlisted a stream entered the registry.
        if first.is_some() && self.book.leave(&streams) && end == Synced::Done {
            // Another scope's deadline aborted a stream this one shares (or
            // one it depends on): some of this scope's work was discarded.
            first_err = Some(Error::WorkAborted);
        }
        if let Some(e) = unrecorded {
            first_err = Some(e);
        }
        let mut panic = None;
        let events = core::mem::take(&mut book.events);
        let host_fns = core::mem::take(&mut book.host_fns);
        // The kept values are released by `release_kept`, after this.
        if !book.kept.is_empty() {
            self.book.inner.borrow_mut().0 = Some(book);
        }
        for event in events {
            if let Err(e) = super::super::destroy_event(event) {
                first_err.get_or_insert(e);
            }
        }
        for slot in host_fns {
            // A host function skipped by a device fault or discarded by an
            // abort is dropped here, on this thread, after the streams are idle.
            if let (Some(p), _) = slot.settle() {
                panic.get_or_insert(p);
            }
        }
        (first_err.map_or(Ok(()), Err), panic, streams)
    }

    /// Synchronise `stream` at the scope's end, within the deadline if any;
    /// the first error goes to `first_err`.
    fn synchronize_at_end(
        &self,
        stream: Raw,
        deadline: Option<(Duration, Instant)>,
        first_err: &mut Option<Error>,
    ) -> Synced {
        let mut tries = 0;
        loop {
            // aclrtSynchronizeStream switches to the stream's context by
            // itself; making it current first is a courtesy.
            let _ = super::super::make_current(self.book.ctx);
            let synced = match deadline {
                None => super::super::synchronize_stream(stream),
                Some((_, at)) => match millis_left(at) {
                    Some(ms) => super::super::synchronize_stream_timeout(stream, ms),
                    // The deadline has passed: only a stream already idle
                    // is done.
                    None => match super::super::stream_is_complete(stream) {
                        Ok(true) => super::super::synchronize_stream(stream),
                        _ => return Synced::TimedOut,
                    },
                },
            };
            match synced {
                Ok(()) => return Synced::Done,
                Err(e) if deadline.is_some() && e.is_timeout() => return Synced::TimedOut,
                Err(e) => {
                    // A device fault is reported once, then cleared.
                    first_err.get_or_insert(e);
                    tries += 1;
                    if tries >= 3 {
                        return Synced::Stuck;
                    }
                }
            }
        }
    }
}

/// How the end of a scope left one stream.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Synced {
    /// Idle: synchronised.
    Done,
    /// Not idle by the deadline.
    TimedOut,
    /// Its synchronisation failed repeatedly.
    Stuck,
}
