//! [`LaneCore`]'s bookkeeping beside the queueing calls of the parent
//! module: enlisting a stream, the lane's stream and its checks, hand-offs
//! between lanes ([`LaneCore::signal`], [`LaneCore::wait_for`],
//! [`LaneCore::share`], [`LaneCore::read_shared`], [`LaneCore::reclaim`]),
//! marks, user events, the lane's synchronisation, and what a wait for an
//! event of the scope does after an abort. It queues work through the
//! safe wrappers of `ffi` and has no `unsafe`: the argument is in the scope
//! module's docs.
#![deny(unsafe_code)]

use core::cell::RefCell;
use core::marker::PhantomData;

use aclrt_sys as sys;
use generativity::{Guard, Id};

use super::super::super::faults;
use super::super::super::protocol::failure::{Lanes, Origin, lane_bit};
use super::super::super::{HandleOwner, Raw, Region};
use super::super::book::{escalate, wrong_lane};
use super::super::{ScopeCore, open};
use super::{Handover, LaneCore, Parked, ScopeEvent, SharedCore, SharedReader, Source};
use crate::error::{Error, Result};

impl<'scope, 'sid> LaneCore<'scope, 'sid> {
    /// Enlist `stream` in the scope, branded `'sid` by `guard`. The stream is
    /// borrowed for `'scope`, so it outlives the scope's final
    /// synchronisation.
    #[inline]
    pub(crate) fn new(
        core: &'scope ScopeCore<'scope>,
        stream: &'scope impl HandleOwner,
        guard: Guard<'sid>,
    ) -> Self {
        Self::in_set(core, stream, Id::from(guard))
    }

    /// Enlist `stream` as one lane of a set branded `'sid` by one guard
    /// ([`Scope::lanes`](crate::Scope::lanes)): the brand then names the set,
    /// not one stream, and every operand bound to a stream (a [`Parked`],
    /// a shared read) is checked against the lane's stream before work on
    /// it is queued ([`check_lane`](Self::check_lane)).
    #[inline]
    pub(crate) fn in_set(
        core: &'scope ScopeCore<'scope>,
        stream: &'scope impl HandleOwner,
        brand: Id<'sid>,
    ) -> Self {
        let _ = brand;
        let stream = stream.handle();
        let bit = lane_bit(usize::from(core.enlist(stream)));
        LaneCore {
            core,
            stream,
            bit,
            _sid: PhantomData,
        }
    }

    /// Its lane's bit in an [`Origin`].
    #[inline(always)]
    pub(super) fn bit(&self) -> Lanes {
        self.bit
    }

    /// The stream, to queue work on it: every path that queues work of the
    /// scope on a lane's stream takes the handle through this (or
    /// [`queue`](Self::queue)), which notes that the scope's end must
    /// synchronise the stream again (see `Enlisted::settled`).
    #[inline(always)]
    pub(crate) fn stream(&self) -> Raw {
        self.queue()
    }

    /// The stream, about to have work queued on it: the scope's end must
    /// synchronise it (see `Enlisted::settled`).
    #[inline(always)]
    pub(super) fn queue(&self) -> Raw {
        self.core.book.unsettle(self.stream);
        self.stream
    }

    /// [`Error::WrongLane`] unless an operand bound to `stream` (a buffer
    /// parked there, or a shared read made there) may be used by work on
    /// this lane: only on its own stream. Lanes made together
    /// ([`Scope::lanes`](crate::Scope::lanes)) share one brand, so the brand
    /// alone does not tell their streams apart; every path that queues work
    /// on a bound operand checks it here, before anything is queued.
    #[inline(always)]
    pub(crate) fn check_lane(&self, stream: Raw) -> Result<()> {
        if stream == self.stream {
            Ok(())
        } else {
            Err(wrong_lane(self.stream, stream))
        }
    }

    /// [`check_lane`](Self::check_lane) of a source bound to a stream.
    #[inline(always)]
    pub(crate) fn check_source(&self, src: &Source<'_, 'sid>) -> Result<()> {
        match src.stream {
            Some(stream) => self.check_lane(stream),
            None => Ok(()),
        }
    }

    /// The scope this lane belongs to.
    pub(crate) fn scope(&self) -> &'scope ScopeCore<'scope> {
        self.core
    }

    #[inline]
    pub(in crate::ffi) fn bind(&self) -> Result<()> {
        super::super::super::make_current(self.core.book.ctx)
    }

    /// The scope's context.
    pub(in crate::ffi) fn context(&self) -> Raw {
        self.core.book.ctx
    }

    fn record_scope_event(&self) -> Result<Raw> {
        self.bind()?;
        let event =
            super::super::super::create_event_with_flag(self.core.book.ctx, sys::ACL_EVENT_SYNC)?;
        self.core.book.book().events.push(event);
        super::super::super::record_event(event, self.queue())?;
        Ok(event)
    }

    /// Record an event after the last use of `item` on this lane (its
    /// stream: the brand `'sid` says so), to hand it to another lane.
    pub(crate) fn signal<D: ?Sized>(
        &self,
        item: Parked<'scope, 'sid, D>,
    ) -> Result<Handover<'scope, 'sid, D>> {
        self.check_lane(item.stream)?;
        let event = self.record_scope_event()?;
        Ok(Handover { event, item })
    }

    /// Make this lane wait for `handover` (`aclrtStreamWaitEvent`) and park
    /// its buffer here: work queued here afterwards, and [`Parked::wait`] on
    /// this lane, come after the work queued on the other lane before it.
    pub(crate) fn wait_for<'other, D: ?Sized>(
        &self,
        handover: Handover<'scope, 'other, D>,
    ) -> Result<Parked<'scope, 'sid, D>> {
        self.bind()?;
        super::super::super::stream_wait_event(self.queue(), handover.event)?;
        self.after_scope_wait(&[handover.event])?;
        let item = handover.item;
        Ok(Parked {
            ptr: item.ptr,
            region: item.region,
            stream: self.stream,
            bit: self.bit,
            // It came through the other lane, which may still touch it if
            // this wait task fails.
            origin: Origin {
                lanes: item.origin.lanes | self.bit(),
                ..item.origin
            },
            written: item.written,
            book: item.book,
            _borrow: PhantomData,
            _sid: PhantomData,
        })
    }

    /// Record an event after the last use of `item` on this lane, so that
    /// any lane of the scope may read it ([`read_shared`](Self::read_shared)).
    pub(crate) fn share<D: ?Sized>(
        &self,
        item: Parked<'scope, 'sid, D>,
    ) -> Result<SharedCore<'scope, D>> {
        self.check_lane(item.stream)?;
        let event = self.record_scope_event()?;
        Ok(SharedCore {
            ptr: item.ptr,
            region: item.region,
            origin: item.origin,
            written: item.written,
            event,
            readers: RefCell::new(Vec::new()),
            lent: core::cell::Cell::new(0),
            _borrow: PhantomData,
            _invariant: PhantomData,
        })
    }

    /// Make this lane wait for the producer of `shared` (once per lane) and
    /// note it as a reader; the token lets work queued here read the buffer
    /// ([`Source::shared_read`]).
    pub(crate) fn read_shared<'a, D: ?Sized>(
        &self,
        shared: &'a SharedCore<'scope, D>,
    ) -> Result<SharedReader<'a, 'scope, 'sid, D>> {
        if !shared.readers.borrow().contains(&self.stream) {
            self.bind()?;
            super::super::super::stream_wait_event(self.queue(), shared.event)?;
            shared.readers.borrow_mut().push(self.stream);
            shared.lent.set(shared.lent.get() | self.bit());
            self.after_scope_wait(&[shared.event])?;
        }
        Ok(SharedReader {
            shared,
            stream: self.stream,
            _sid: PhantomData,
        })
    }

    /// Take `shared` back to this lane for writing: this lane waits for its
    /// producer and for an event recorded on every reader's stream after
    /// the reads queued there.
    pub(crate) fn reclaim<D: ?Sized>(
        &self,
        shared: SharedCore<'scope, D>,
    ) -> Result<Parked<'scope, 'sid, D>> {
        self.bind()?;
        super::super::super::stream_wait_event(self.queue(), shared.event)?;
        let mut waited = vec![shared.event];
        for &reader in shared.readers.borrow().iter() {
            if reader == self.stream {
                continue;
            }
            let event = super::super::super::create_event_with_flag(
                self.core.book.ctx,
                sys::ACL_EVENT_SYNC,
            )?;
            self.core.book.book().events.push(event);
            self.core.book.unsettle(reader);
            // `reader` is the stream of a lane of this scope (enlisted), so
            // it is live until the scope's end.
            super::super::super::record_event(event, reader)?;
            super::super::super::stream_wait_event(self.queue(), event)?;
            waited.push(event);
        }
        self.after_scope_wait(&waited)?;
        Ok(Parked {
            ptr: shared.ptr,
            region: shared.region,
            stream: self.stream,
            bit: self.bit,
            origin: shared.reclaimed(self.bit()),
            written: shared.written,
            book: &self.core.book,
            _borrow: PhantomData,
            _sid: PhantomData,
        })
    }

    /// Record a point on this lane that other lanes may wait for.
    pub(crate) fn mark(&self) -> Result<ScopeEvent<'scope>> {
        Ok(ScopeEvent {
            event: self.record_scope_event()?,
            _scope: PhantomData,
        })
    }

    /// Make this lane wait for `mark` (`aclrtStreamWaitEvent`).
    pub(crate) fn wait_mark(&self, mark: ScopeEvent<'scope>) -> Result<()> {
        self.bind()?;
        super::super::super::stream_wait_event(self.queue(), mark.event)?;
        self.after_scope_wait(&[mark.event])
    }

    /// This lane was just made to wait for `events`, events of this scope
    /// recorded on its lanes. A stream wait for a record that an abort
    /// discarded never ends (acl-facts K.8), and the escalation of another
    /// scope may have discarded these records: it aborts a stream of this
    /// scope only after marking this scope aborted, so if the scope is not
    /// marked now, any such abort comes after the wait was queued, and it
    /// aborts this lane's stream too (enlisted before: the scope's streams
    /// join the escalation's group, see `open::abort_group`), dropping the
    /// wait. If it is marked and a record has not executed, the wait may
    /// have been queued after the abort and never end: the scope escalates
    /// itself, which aborts this stream (and the wait) and every stream of
    /// the scope, and the wait reports [`Error::WorkAborted`]. One load
    /// while no escalation ever ran (or, in the registry, an escalation's
    /// lock after one did).
    #[inline]
    fn after_scope_wait(&self, events: &[Raw]) -> Result<()> {
        if self.core.book.aborted() {
            return self.scope_wait_aborted(events);
        }
        Ok(())
    }

    #[cold]
    #[inline(never)]
    fn scope_wait_aborted(&self, events: &[Raw]) -> Result<()> {
        // An error asking counts as not executed.
        if events
            .iter()
            .all(|&e| super::super::super::event_is_complete(e).unwrap_or(false))
        {
            // Executed records cannot be discarded: the wait ends.
            return Ok(());
        }
        // The escalation starts from the scope's entries.
        self.core.book.promote();
        let _ = escalate(self.core.book.id);
        Err(Error::WorkAborted)
    }

    /// Make this lane wait for a recorded user event (`aclrtStreamWaitEvent`),
    /// borrowed until the scope has synchronised. An escalation that aborts
    /// the stream of the record waited for aborts this scope too, and a
    /// record such an escalation may have discarded is not waited for
    /// ([`Error::WorkAborted`]): see [`open::wait_for_event`].
    pub(crate) fn wait_event(&self, event: &'scope impl HandleOwner) -> Result<()> {
        self.bind()?;
        let event = event.handle();
        let stream = self.queue();
        self.core.book.promote();
        open::wait_for_event(
            self.core.book.id,
            &self.core.book.refused,
            self.core.book.ctx,
            event,
            || super::super::super::event_is_complete(event),
            || super::super::super::stream_wait_event(stream, event),
        )
    }

    /// As [`wait_event`](Self::wait_event) for an event recorded only by
    /// another process (an IPC event opened from its key): no escalation
    /// of this process discards its records, so the wait is never refused
    /// for one.
    pub(crate) fn wait_foreign_event(&self, event: &'scope impl HandleOwner) -> Result<()> {
        self.bind()?;
        let event = event.handle();
        let stream = self.queue();
        self.core.book.promote();
        open::wait_for_event(
            self.core.book.id,
            &self.core.book.refused,
            self.core.book.ctx,
            event,
            || Ok(true),
            || super::super::super::stream_wait_event(stream, event),
        )
    }

    /// Record a user event on this lane (`aclrtRecordEvent`); an escalation
    /// records it again once the stream is idle.
    pub(crate) fn record(&self, event: &impl HandleOwner) -> Result<()> {
        self.bind()?;
        let event = event.handle();
        self.core.book.promote();
        let ticket = open::scope_record_ticket();
        super::super::super::record_event(event, self.queue())?;
        open::recorded(
            self.core.book.id,
            event,
            self.stream,
            self.core.book.ctx,
            ticket,
        );
        Ok(())
    }

    /// Block until all work queued on this lane has finished; an abort by
    /// another scope's deadline is [`Error::WorkAborted`].
    pub(crate) fn synchronize(&self) -> Result<()> {
        self.bind()?;
        self.core.book.refuse_unmatched(&[self.stream])?;
        super::super::super::synchronize_stream(self.stream)?;
        self.core.book.settle(self.stream);
        if self.core.book.aborted() {
            return Err(Error::WorkAborted);
        }
        Ok(())
    }

    /// Work this lane was to do failed with `e` before it was queued (a
    /// launch refused with its outputs given back): a failure of the lane,
    /// so that what it was to write is not trusted (the failure rule).
    pub(crate) fn failed(&self, e: &Error) {
        faults::enter(faults::key(self.stream), e);
    }

    /// The origin of memory `region`, shared for the whole scope: none of
    /// the scope's work wrote it ([`Origin::OUTSIDE`]) unless its contents
    /// came back unchecked from such work (`CoreBook::suspect_origin`).
    #[inline(always)]
    pub(super) fn outside(&self, region: Region) -> Origin {
        self.core
            .book
            .suspect_origin(region, false)
            .unwrap_or(Origin::OUTSIDE)
    }

    /// Whether all work queued on this lane has finished.
    pub(crate) fn is_complete(&self) -> Result<bool> {
        self.bind()?;
        super::super::super::stream_is_complete(self.stream)
    }
}
