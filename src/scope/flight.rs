//! Buffers while asynchronous work holds them: [`InFlight`], [`Fence`],
//! [`Signal`], [`Shared`], [`Reading`], and a lane's [`Mark`].

use core::marker::PhantomData;

use generativity::Id;

use crate::error::Result;
use crate::error::WaitFailed;
use crate::ffi::scope::{FenceCore, Handover, Parked, ScopeEvent, SharedCore, SharedReader};

/// A buffer with asynchronous work queued on the lane branded `'sid`.
///
/// Holds the exclusive borrow of the buffer for the rest of the scope. Use it
/// as the operand of more work on the same lane, hand it to another lane
/// ([`Lane::signal`](crate::Lane::signal), [`Lane::wait_for`](crate::Lane::wait_for)), or get the `&mut` back with
/// [`InFlight::wait`], which synchronises the lane first. Forgetting it is
/// harmless: the buffer stays borrowed until the scope has synchronised.
#[must_use = "a buffer in flight stays borrowed until the scope ends; `wait()` gives it back"]
pub struct InFlight<'scope, 'sid, D: ?Sized> {
    pub(super) parked: Parked<'scope, 'sid, D>,
    pub(super) len: usize,
}

/// The `Debug` of an [`InFlight`] (also inside a [`Signal`]).
fn fmt_in_flight<D: ?Sized>(
    parked: &Parked<'_, '_, D>,
    len: usize,
    f: &mut core::fmt::Formatter<'_>,
) -> core::fmt::Result {
    f.debug_struct("InFlight")
        .field("address", &parked.address())
        .field("len", &len)
        .field("stream", &parked.stream().as_ptr())
        .finish()
}

impl<D: ?Sized> core::fmt::Debug for InFlight<'_, '_, D> {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        fmt_in_flight(&self.parked, self.len, f)
    }
}

impl<'scope, 'sid, D: ?Sized> InFlight<'scope, 'sid, D> {
    /// A buffer parked on its lane, as the kernel launch returns it.
    pub(crate) fn from_parked(parked: Parked<'scope, 'sid, D>, len: usize) -> Self {
        InFlight { parked, len }
    }

    /// What its checked wait waits for (`crate::future`).
    pub(crate) fn watch(&self) -> crate::ffi::completion::Watch {
        self.parked.watch()
    }

    /// Number of elements.
    pub fn len(&self) -> usize {
        self.len
    }

    /// Whether there are no elements.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// Synchronise the lane (`aclrtSynchronizeStream`) and give the buffer
    /// back to the CPU for the rest of the scope, if its work succeeded.
    ///
    /// A *checked* wait, under the failure rule (SAFETY.md): it fails if a
    /// failure sticks to the scope — anything but success that any
    /// synchronisation or query (of any thread: another buffer's wait, a
    /// [`Stream::synchronize`](crate::Stream::synchronize), a
    /// [`Context::synchronize`](crate::Context::synchronize)) returned for
    /// a lane of the scope or its context, a host function of the scope
    /// that panicked ([`Error::HostFnPanicked`](crate::Error::HostFnPanicked)),
    /// since the scope opened or last [recovered](crate::Scope::recover) — or was
    /// seen since the work behind the buffer's contents began (a copy or a
    /// kernel output derived from a buffer produced before a failure fails
    /// too, until that buffer is written afresh). The runtime reports a
    /// failure once, to whichever synchronisation comes first, and does
    /// not say which task failed: conservative, never the other way round.
    /// It fails again on every later wait; use [`reuse`](Self::reuse) to
    /// get the buffer back anyway, and [`Scope::recover`](crate::Scope::recover) to go on.
    ///
    /// A synchronisation of one of the scope's streams that another thread
    /// has in progress may hold a failure: the wait also waits for it to
    /// return.
    ///
    /// On error the buffer stays borrowed until the scope ends;
    /// [`wait_or_keep`](Self::wait_or_keep) gives it back instead.
    #[doc(alias = "aclrtSynchronizeStream")]
    #[inline]
    pub fn wait(self) -> Result<&'scope mut D> {
        self.parked.wait()
    }

    /// [`wait`](Self::wait), which on error gives the buffer back, still in
    /// flight on its lane ([`WaitFailed::into_item`]): queue more work on
    /// it, or take it back with [`reuse`](Self::reuse) — the scope goes on.
    /// See the *Structuring an application* chapter.
    #[doc(alias = "aclrtSynchronizeStream")]
    pub fn wait_or_keep(self) -> core::result::Result<&'scope mut D, WaitFailed<Self>> {
        let len = self.len;
        self.parked
            .wait_or_keep()
            .map_err(|(e, parked)| WaitFailed::new(e, InFlight { parked, len }))
    }

    /// Synchronise the lane (`aclrtSynchronizeStream`) and give the buffer
    /// back to the CPU whatever its work did: for a buffer about to be
    /// overwritten (a staging buffer), or after a failed [`wait`](Self::wait).
    /// If the work faulted, the contents are whatever it left.
    ///
    /// Every lane the buffer's contents came through or it was lent to (a
    /// hand-off, a copy or kernel reading another lane's buffer, a shared
    /// read) is made idle first, and no other: a hand-off whose wait task
    /// failed orders nothing. A failure is not returned here: it sticks to
    /// the scope (checked waits and the scope's end report it until
    /// [`Scope::recover`](crate::Scope::recover)). Contents given back this way stay suspect in
    /// the scope: parked again or read again (`&buffer`, a view), what is
    /// derived from them fails its checked wait if a failure may concern
    /// them, also after [`Scope::recover`](crate::Scope::recover), until work of the scope
    /// overwrites them whole (a copy into them, a memset, a kernel's
    /// `Out`); a host write through the returned `&mut` is not seen. Other errors ([`Error::WorkAborted`](crate::Error::WorkAborted),
    /// a failed synchronisation) leave the buffer borrowed until the scope
    /// ends; [`reuse_or_keep`](Self::reuse_or_keep) gives it back instead.
    #[doc(alias = "aclrtSynchronizeStream")]
    pub fn reuse(self) -> Result<&'scope mut D> {
        self.parked.reuse_or_keep().map_err(|(e, _)| e)
    }

    /// [`reuse`](Self::reuse), which on error gives the buffer back, still
    /// in flight on its lane.
    #[doc(alias = "aclrtSynchronizeStream")]
    pub fn reuse_or_keep(self) -> core::result::Result<&'scope mut D, WaitFailed<Self>> {
        let len = self.len;
        self.parked
            .reuse_or_keep()
            .map_err(|(e, parked)| WaitFailed::new(e, InFlight { parked, len }))
    }

    /// Record an event on the buffer's lane after the work queued so far
    /// (`aclrtRecordEvent`), which is its last use: the [`Fence`] gives the
    /// buffer back when that event completes ([`Fence::reuse`],
    /// `aclrtSynchronizeEvent`), while work queued on the lane later still
    /// runs — "queue batch k, then refill batch k−1's staging buffer" on one
    /// stream — or once its work is known to have succeeded
    /// ([`Fence::wait`], a checked wait).
    ///
    /// Events are reused: a fence whose wait succeeded gives its event back
    /// to the scope, so a loop of fences makes as many events as it has
    /// fences pending at once. On error the buffer stays borrowed until the
    /// scope ends.
    #[doc(alias = "aclrtRecordEvent")]
    pub fn fence(self) -> Result<Fence<'scope, 'sid, D>> {
        let len = self.len;
        match self.parked.fence() {
            Ok(core) => Ok(Fence { core, len }),
            Err((e, _)) => Err(e),
        }
    }
}

/// A buffer whose last use on its lane is followed by an event (from
/// [`InFlight::fence`]).
///
/// Two ways back to the CPU:
/// * [`reuse`](Self::reuse) waits for that event only
///   (`aclrtSynchronizeEvent`), not for work queued on the lane later, and
///   gives the buffer back whatever the work before the event did: for a
///   buffer about to be overwritten, such as a staging buffer;
/// * [`wait`](Self::wait) gives it back only if that work succeeded. The
///   runtime reports a device fault to a stream synchronisation only —
///   `aclrtSynchronizeEvent` returns success after a faulted task (the
///   default failure mode), and no call tells which task faulted — so this
///   synchronises the whole lane (`aclrtSynchronizeStream`), as
///   [`InFlight::wait`] does, and fails with any fault seen on the lane since
///   the buffer was parked (see there).
///
/// Forgetting it is harmless: the buffer stays borrowed until the scope has
/// synchronised.
#[must_use = "a fenced buffer stays borrowed until the scope ends; `wait()` gives it back"]
pub struct Fence<'scope, 'sid, D: ?Sized> {
    pub(super) core: FenceCore<'scope, 'sid, D>,
    pub(super) len: usize,
}

impl<D: ?Sized> core::fmt::Debug for Fence<'_, '_, D> {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("Fence")
            .field("address", &self.core.item().address())
            .field("len", &self.len)
            .field("stream", &self.core.item().stream().as_ptr())
            .finish()
    }
}

impl<'scope, 'sid, D: ?Sized> Fence<'scope, 'sid, D> {
    /// Number of elements.
    pub fn len(&self) -> usize {
        self.len
    }

    /// Whether there are no elements.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// What its checked wait waits for (`crate::future`).
    pub(crate) fn watch_wait(&self) -> crate::ffi::completion::Watch {
        self.core.item().watch()
    }

    /// What its reuse waits for (`crate::future`).
    pub(crate) fn watch_reuse(&self) -> crate::ffi::completion::Watch {
        self.core.watch_reuse()
    }

    /// Whether the work before the fence has finished
    /// (`aclrtQueryEventStatus`); never blocks.
    #[doc(alias = "aclrtQueryEventStatus")]
    pub fn is_complete(&self) -> Result<bool> {
        self.core.is_complete()
    }

    /// Synchronise the buffer's lane (`aclrtSynchronizeStream`) and give the
    /// buffer back to the CPU for the rest of the scope, if the work before
    /// the fence succeeded: a checked wait, as [`InFlight::wait`] (a device
    /// fault seen since the buffer was parked on its lane fails it, every
    /// time). Work queued on the lane after the fence is waited for too: the
    /// runtime reports failures to stream synchronisations only. Like
    /// [`InFlight::wait`], it also waits for another thread's
    /// synchronisation of one of the scope's streams in progress.
    ///
    /// On error (a device fault, [`Error::WorkAborted`](crate::Error::WorkAborted))
    /// the buffer stays borrowed until the scope ends; [`wait_or_keep`](Self::wait_or_keep)
    /// gives it back instead.
    #[doc(alias = "aclrtSynchronizeStream")]
    #[inline]
    pub fn wait(self) -> Result<&'scope mut D> {
        self.core.wait_or_keep().map_err(|(e, _)| e)
    }

    /// [`wait`](Self::wait), which on error gives the fence back
    /// ([`WaitFailed::into_item`]): take the buffer back with
    /// [`reuse`](Self::reuse), or [`resume`](Self::resume) it for more work
    /// on its lane.
    #[doc(alias = "aclrtSynchronizeStream")]
    pub fn wait_or_keep(self) -> core::result::Result<&'scope mut D, WaitFailed<Self>> {
        let len = self.len;
        self.core
            .wait_or_keep()
            .map_err(|(e, core)| WaitFailed::new(e, Fence { core, len }))
    }

    /// Wait until the work queued on the buffer's lane before the fence has
    /// finished (`aclrtSynchronizeEvent`) and give the buffer back to the
    /// CPU for the rest of the scope, whatever that work did. Work queued on
    /// the lane after the fence is not waited for.
    ///
    /// For a buffer about to be overwritten (a staging buffer the CPU
    /// refills), or after a failed [`wait`](Self::wait). A failure is
    /// not reported by this wait (nor by `aclrtSynchronizeEvent`, on the
    /// hardware): it sticks to the scope, and checked waits and the scope's
    /// end report it until [`Scope::recover`](crate::Scope::recover). Once the buffer left its
    /// lane (a hand-off, a copy or kernel reading another lane's buffer, a
    /// shared read), an event orders nothing a failed wait task should have
    /// ordered: then this synchronises every lane the buffer's contents came
    /// through instead. The contents stay suspect in the scope as after
    /// [`InFlight::reuse`].
    ///
    /// On error ([`Error::WorkAborted`](crate::Error::WorkAborted), a failed
    /// synchronisation) the buffer stays borrowed until the scope ends;
    /// [`reuse_or_keep`](Self::reuse_or_keep) gives it back instead.
    #[doc(alias = "aclrtSynchronizeEvent")]
    pub fn reuse(self) -> Result<&'scope mut D> {
        self.core.reuse_or_keep().map_err(|(e, _)| e)
    }

    /// [`reuse`](Self::reuse), which on error gives the fence back.
    #[doc(alias = "aclrtSynchronizeEvent")]
    pub fn reuse_or_keep(self) -> core::result::Result<&'scope mut D, WaitFailed<Self>> {
        let len = self.len;
        self.core
            .reuse_or_keep()
            .map_err(|(e, core)| WaitFailed::new(e, Fence { core, len }))
    }

    /// Back to an [`InFlight`] on its lane, for more work there (the event
    /// is left to be recorded again by another fence).
    pub fn resume(self) -> InFlight<'scope, 'sid, D> {
        InFlight {
            parked: self.core.resume(),
            len: self.len,
        }
    }
}

/// A buffer handed from one lane to others: an event recorded on the
/// source lane after the buffer's last use there. Consume it with
/// [`Lane::wait_for`](crate::Lane::wait_for) on the lane that continues.
#[must_use = "a signal does nothing until a lane waits for it"]
pub struct Signal<'scope, 'id, 'sid, D: ?Sized> {
    pub(super) handover: Handover<'scope, 'sid, D>,
    pub(super) len: usize,
    pub(super) _brand: PhantomData<Id<'id>>,
    /// Invariant in `'scope`: only a lane of the same scope takes it over
    /// (see [`Mark`]).
    pub(super) _scope: PhantomData<fn(&'scope ()) -> &'scope ()>,
}

impl<D: ?Sized> core::fmt::Debug for Signal<'_, '_, '_, D> {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        struct Item<'a, 'scope, 'sid, D: ?Sized>(&'a Parked<'scope, 'sid, D>, usize);
        impl<D: ?Sized> core::fmt::Debug for Item<'_, '_, '_, D> {
            fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
                fmt_in_flight(self.0, self.1, f)
            }
        }
        f.debug_struct("Signal")
            .field("event", &self.handover.event().as_ptr())
            .field("item", &Item(self.handover.item(), self.len))
            .finish()
    }
}

/// A buffer shared for reading by any number of lanes of its scope (fan-out):
/// made by [`Lane::share`](crate::Lane::share) from an [`InFlight`]. Each lane that reads it
/// first calls [`Lane::read`](crate::Lane::read) (which makes the lane wait for the producer);
/// [`Lane::reclaim`](crate::Lane::reclaim) gives it back to one lane for writing, after every
/// read. No lane can write it while it is shared.
#[must_use = "a shared buffer stays borrowed until the scope ends; `Lane::reclaim` gives it back"]
pub struct Shared<'scope, 'id, D: ?Sized> {
    pub(super) core: SharedCore<'scope, D>,
    pub(super) len: usize,
    pub(super) _brand: PhantomData<Id<'id>>,
}

impl<D: ?Sized> core::fmt::Debug for Shared<'_, '_, D> {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("Shared")
            .field("address", &self.core.address())
            .field("len", &self.len)
            .field("readers", &self.core.reader_count())
            .finish()
    }
}

impl<D: ?Sized> Shared<'_, '_, D> {
    /// Number of elements.
    pub fn len(&self) -> usize {
        self.len
    }

    /// Whether there are no elements.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }
}

/// A [`Shared`] buffer as read by the lane branded `'sid` (from
/// [`Lane::read`](crate::Lane::read)): `&reading` is a source of work on that lane.
pub struct Reading<'a, 'scope, 'id, 'sid, D: ?Sized> {
    pub(super) reader: SharedReader<'a, 'scope, 'sid, D>,
    pub(super) len: usize,
    pub(super) _brand: PhantomData<Id<'id>>,
}

impl<D: ?Sized> core::fmt::Debug for Reading<'_, '_, '_, '_, D> {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("Reading")
            .field("address", &self.reader.shared().address())
            .field("len", &self.len)
            .finish()
    }
}

/// A point on a lane that several other lanes of the same scope may wait
/// for ([`Lane::mark`](crate::Lane::mark), [`Lane::wait_mark`](crate::Lane::wait_mark)).
///
/// Only lanes of the scope that made it: a `Mark` (like a [`Signal`]) is
/// invariant in `'scope`. An abort of the scope's streams (a deadline of
/// this scope or of another one sharing a stream) discards the mark's
/// record and aborts every lane of the scope with it; a lane of another
/// scope would wait for the discarded record for ever.
#[derive(Clone, Copy, Debug)]
pub struct Mark<'scope, 'id, 'sid> {
    pub(super) event: ScopeEvent<'scope>,
    pub(super) _p: PhantomData<(&'scope (), Id<'id>, Id<'sid>)>,
}
