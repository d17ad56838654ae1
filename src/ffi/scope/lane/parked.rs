//! The bookkeeping of what a lane holds ([`Parked`], [`FenceCore`],
//! [`Source`], [`Handover`], [`SharedCore`], [`SharedReader`]): their
//! accessors, the origin of a buffer's contents, fences, and the checks of
//! a checked wait. No `unsafe`: the only way back to the exclusive borrow
//! (`Parked::into_mut`, and the waits that call it) stays in the parent
//! module, where its argument is.
#![deny(unsafe_code)]

use core::marker::PhantomData;
use core::ptr::NonNull;

use aclrt_sys as sys;

use super::super::super::access::{RawSource, Stable};
use super::super::super::faults;
use super::super::super::protocol::failure::{
    Lanes, Origin, give_back_lanes, mark_origin, own_lane_only,
};
use super::super::super::{Mem, Raw, Region};
use super::{FenceCore, Handover, LaneCore, Parked, ScopeEvent, SharedCore, SharedReader, Source};
use crate::error::{Error, Result};

impl<'a, 'scope, 'sid, D: ?Sized> SharedReader<'a, 'scope, 'sid, D> {
    /// The shared buffer.
    pub(crate) fn shared(&self) -> &'a SharedCore<'scope, D> {
        self.shared
    }
}

impl<D: ?Sized> SharedCore<'_, D> {
    /// Its origin once taken back by lane `bit` for writing: with every lane
    /// it was lent to, which may still read it if a wait task failed.
    pub(super) fn reclaimed(&self, bit: Lanes) -> Origin {
        Origin {
            since: self.origin.since,
            lanes: self.origin.lanes | self.lent.get() | bit,
            from: self.origin.from,
        }
    }

    /// The start address.
    pub(crate) fn address(&self) -> NonNull<u8> {
        self.region.ptr
    }

    /// How many lanes read it so far.
    pub(crate) fn reader_count(&self) -> usize {
        self.readers.borrow().len()
    }
}

impl core::fmt::Debug for ScopeEvent<'_> {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        self.event.fmt(f)
    }
}

impl<'scope, 'sid, D: ?Sized> Parked<'scope, 'sid, D> {
    /// Its lane's bit in an [`Origin`].
    #[inline(always)]
    pub(in crate::ffi) fn bit(&self) -> Lanes {
        self.bit
    }

    /// The parked memory: exclusively borrowed for `'scope`, its work
    /// queued on the lane branded `'sid`.
    pub(in crate::ffi) fn region(&self) -> Region {
        self.region
    }

    /// The start address.
    pub(crate) fn address(&self) -> NonNull<u8> {
        self.region.ptr
    }

    /// Work about to be queued writes it, from memory of origin `reads`
    /// (joined over what it reads; [`Origin::OUTSIDE`]: nothing of the
    /// scope's). `overwrite`: every byte is written (a copy, a memset, a
    /// kernel's `Out`), so its old contents no longer matter: its
    /// contents' work begins now (before the work is queued) or when that
    /// of `reads` did, whichever is earlier, and marks of contents that
    /// came back unchecked end there. Otherwise (`InOut`, foreign work) the
    /// old contents may stay: the earlier of its own time and `reads`'.
    /// The lanes of `reads` join its own either way ([`Origin::derive`]).
    #[inline]
    pub(crate) fn derive(&mut self, overwrite: bool, reads: Origin) {
        self.origin = self.origin.derive(overwrite, faults::now(), reads);
        self.written = true;
        if overwrite {
            self.book.overwritten(self.region);
        }
    }

    /// The stream its work is queued on.
    pub(crate) fn stream(&self) -> Raw {
        self.stream
    }

    /// Synchronise its stream (`aclrtSynchronizeStream`) and give the
    /// exclusive borrow back for the rest of the scope, if its work did not
    /// fault. On error the buffer stays borrowed until the scope ends.
    #[inline]
    pub(crate) fn wait(self) -> Result<&'scope mut D> {
        self.wait_or_keep().map_err(|(e, _)| e)
    }

    /// It goes back to the user unchecked, after a give-back that made
    /// every lane of its origin idle (`synced`) or at an event of its own
    /// lane: contents that scope work wrote keep their origin in the scope
    /// (`CoreBook::mark_suspect`, [`mark_origin`]).
    #[inline(always)]
    pub(super) fn unchecked(&self, synced: bool) {
        if self.written {
            if synced {
                // The lanes move to the mark's `from`: a check of what is
                // derived from it will not wait for their synchronisations
                // in flight, so this give-back does, while they are idle.
                self.book
                    .quiesce_lanes(give_back_lanes(self.bit(), self.origin.lanes));
            }
            let origin = mark_origin(self.origin, synced, self.bit());
            self.book.mark_suspect(self.region, origin);
        }
    }

    /// The checked synchronisation of [`wait_or_keep`](Self::wait_or_keep):
    /// `Ok` when the stream was synchronised (and every lane of the
    /// buffer's origin), no abort of the scope discarded work, and no
    /// failure sticks to the scope or was seen since the buffer's work
    /// began. When its origin holds other lanes, they are made idle by the
    /// give-back primitive
    /// ([`CoreBook::idle_for_give_back`](super::super::CoreBook::idle_for_give_back));
    /// a failure it meets is in the record, so `check_after_sync` reports
    /// it.
    #[inline]
    pub(super) fn sync_checked(&self) -> Result<()> {
        if !own_lane_only(self.bit(), self.origin.lanes) {
            self.book
                .idle_for_give_back(self.bit(), self.origin.lanes)?;
        } else {
            // No context is made current: `aclrtSynchronizeStream` switches
            // to the stream's context by itself (acl-facts 5.4).
            self.book.refuse_unmatched(&[self.stream])?;
            super::super::super::synchronize_stream(self.stream)?;
            self.book.settle(self.stream);
        }
        self.check_after_sync()
    }

    /// The rest of a checked wait once the stream was synchronised after
    /// the buffer's last work: no abort discarded work, and no failure
    /// concerns it.
    #[inline]
    pub(super) fn check_after_sync(&self) -> Result<()> {
        if self.book.aborted() {
            // The work was (partly) discarded: its result is not there.
            return Err(Error::WorkAborted);
        }
        match self.book.failure(self.origin) {
            Some(fault) => Err(fault),
            None => Ok(()),
        }
    }
}

impl<'scope, 'sid, D: ?Sized> Parked<'scope, 'sid, D> {
    /// Record an event on its stream after the work queued there so far
    /// (`aclrtRecordEvent`): the last use of the buffer, since the fence
    /// takes it over and nothing can queue more work on it.
    pub(crate) fn fence(self) -> core::result::Result<FenceCore<'scope, 'sid, D>, (Error, Self)> {
        match self.record_fence() {
            Ok(event) => Ok(FenceCore {
                ticket: self.book.fence_ticket(),
                item: self,
                event,
            }),
            Err(e) => Err((e, self)),
        }
    }

    fn record_fence(&self) -> Result<Raw> {
        super::super::super::make_current(self.book.ctx)?;
        let reused = self
            .book
            .inner
            .borrow_mut()
            .0
            .as_mut()
            .and_then(|b| b.free_fences.pop());
        let event = match reused {
            Some(event) => event,
            None => {
                let event = super::super::super::create_event_with_flag(
                    self.book.ctx,
                    sys::ACL_EVENT_SYNC,
                )?;
                // Destroyed by `finish`, after the final synchronisation.
                self.book.book().events.push(event);
                event
            }
        };
        // Work is queued on the stream: the scope's end synchronises it.
        self.book.unsettle(self.stream);
        if let Err(e) = super::super::super::record_event(event, self.stream) {
            self.book.book().free_fences.push(event);
            return Err(e);
        }
        Ok(event)
    }
}

impl<'scope, 'sid, D: ?Sized> FenceCore<'scope, 'sid, D> {
    /// The fenced buffer.
    pub(crate) fn item(&self) -> &Parked<'scope, 'sid, D> {
        &self.item
    }

    /// Whether the work before the fence has finished (`aclrtQueryEventStatus`).
    pub(crate) fn is_complete(&self) -> Result<bool> {
        super::super::super::event_is_complete(self.event)
    }

    /// Back to a parked buffer on its lane, for more work there; the event
    /// may be recorded again by another fence (nothing waits for this
    /// record: a fence is consumed by its wait).
    pub(crate) fn resume(self) -> Parked<'scope, 'sid, D> {
        self.free_event();
        self.item
    }

    pub(super) fn free_event(&self) {
        if let Some(book) = self.item.book.inner.borrow_mut().0.as_mut() {
            book.free_fences.push(self.event);
        }
    }
}

impl<'a, 'sid> Source<'a, 'sid> {
    /// The memory read: readable until the lane branded `'sid` is idle.
    pub(in crate::ffi) fn region(&self) -> Region {
        self.region
    }

    /// The stream this read must be queued on, if it is bound to one.
    pub(in crate::ffi) fn stream(&self) -> Option<Raw> {
        self.stream
    }

    /// Where the memory's contents came from ([`Origin::OUTSIDE`]: memory
    /// no work of the scope wrote).
    pub(crate) fn origin(&self) -> Origin {
        self.origin
    }

    /// `src`, runtime memory shared for the whole scope of `lane`.
    pub(crate) fn shared<S: Stable + ?Sized>(
        lane: &LaneCore<'a, 'sid>,
        src: &'a S,
    ) -> Source<'a, 'sid> {
        let region = RawSource::raw(src).region();
        Source {
            region,
            stream: None,
            origin: lane.outside(region),
            _borrow: PhantomData,
            _sid: PhantomData,
        }
    }

    /// The memory of a read-only device view (its `Mem`, which borrows its
    /// buffer for the whole scope of `lane`).
    pub(crate) fn view(lane: &LaneCore<'a, 'sid>, view: Mem<'a>) -> Source<'a, 'sid> {
        let region = view.region();
        Source {
            region,
            stream: None,
            origin: lane.outside(region),
            _borrow: PhantomData,
            _sid: PhantomData,
        }
    }

    /// A shared buffer, read on the lane branded `'sid`, which has waited
    /// for its producer and is one of its readers (the token says so), so
    /// [`LaneCore::reclaim`] waits for this read.
    pub(crate) fn shared_read<D: ?Sized>(
        reader: &'a SharedReader<'_, '_, 'sid, D>,
    ) -> Source<'a, 'sid> {
        Source {
            region: reader.shared.region,
            stream: Some(reader.stream),
            // What the producers wrote: the other readers only read it.
            origin: reader.shared.origin,
            _borrow: PhantomData,
            _sid: PhantomData,
        }
    }

    /// A buffer parked on the lane branded `'sid`, read there: the read is
    /// queued on its stream, so its release waits for it.
    pub(crate) fn in_flight<D: Stable + ?Sized>(item: &'a Parked<'_, 'sid, D>) -> Source<'a, 'sid> {
        Source {
            region: item.region,
            stream: Some(item.stream),
            origin: item.origin,
            _borrow: PhantomData,
            _sid: PhantomData,
        }
    }
}

impl<'scope, 'sid, D: ?Sized> Handover<'scope, 'sid, D> {
    /// The event.
    pub(crate) fn event(&self) -> Raw {
        self.event
    }

    /// The buffer.
    pub(crate) fn item(&self) -> &Parked<'scope, 'sid, D> {
        &self.item
    }
}
