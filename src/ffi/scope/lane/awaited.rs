//! Awaited waits (`ffi::completion`, `crate::future`): what each wait of a
//! scope waits for, so that its future is woken when that is over and the
//! blocking form's own call then returns at once. The sets follow the
//! give-back rule ([`give_back_lanes`], [`event_may_give_back`]): whatever
//! the blocking form synchronises, the watch waits to be idle.
#![deny(unsafe_code)]

use super::super::super::completion::{Target, Watch};
use super::super::super::protocol::failure::{Lanes, event_may_give_back, give_back_lanes};
use super::super::{CoreBook, ScopeCore};
use super::{FenceCore, LaneCore, Parked};

impl CoreBook {
    /// The streams a checked wait (or a give-back) of a buffer of lane
    /// `own` and origin lanes `lanes` makes idle, as a watch of this scope.
    fn watch(&self, own: Lanes, lanes: Lanes) -> Watch {
        let streams = self.streams_of(give_back_lanes(own, lanes));
        Watch::new(
            Some(self.ctx),
            self.id,
            streams.into_iter().map(Target::Stream).collect(),
        )
    }
}

impl ScopeCore<'_> {
    /// The scope's id in the registry of open scopes.
    pub(crate) fn id(&self) -> u64 {
        self.book.id
    }

    /// What the recovery point makes idle: every stream of the scope.
    pub(crate) fn watch_all(&self) -> Watch {
        Watch::new(
            Some(self.book.ctx),
            self.book.id,
            self.book
                .streams()
                .into_iter()
                .map(Target::Stream)
                .collect(),
        )
    }
}

impl LaneCore<'_, '_> {
    /// What [`synchronize`](Self::synchronize) waits for: its stream.
    pub(crate) fn watch(&self) -> Watch {
        Watch::new(
            Some(self.core.book.ctx),
            self.core.book.id,
            vec![Target::Stream(self.stream)],
        )
    }
}

impl<D: ?Sized> Parked<'_, '_, D> {
    /// What a checked wait ([`wait_or_keep`](Self::wait_or_keep)) or a
    /// give-back ([`reuse_or_keep`](Self::reuse_or_keep)) makes idle.
    pub(crate) fn watch(&self) -> Watch {
        self.book.watch(self.bit(), self.origin.lanes)
    }
}

impl<D: ?Sized> FenceCore<'_, '_, D> {
    /// What [`reuse_or_keep`](Self::reuse_or_keep) waits for: the event
    /// (or its stream idle: an abort discarded the record), or, once
    /// the buffer left its lane, every stream the give-back makes idle.
    pub(crate) fn watch_reuse(&self) -> Watch {
        let (book, item) = (self.item.book, &self.item);
        if !event_may_give_back(item.bit(), item.origin.lanes) {
            return book.watch(item.bit(), item.origin.lanes);
        }
        Watch::new(
            Some(book.ctx),
            book.id,
            vec![Target::EventOrStream(self.event, self.item.stream)],
        )
    }
}
