//! Lanes and what they queue: [`LaneCore`] (a stream enlisted in a scope),
//! the buffers parked on it ([`Parked`], [`Source`], [`Handover`],
//! [`SharedCore`], [`FenceCore`]) and the ways they come back. Part of the
//! scope's unsafe core: the argument is in the parent module's docs.

mod awaited;

use core::cell::RefCell;
use core::marker::PhantomData;
use core::ptr::NonNull;
use std::panic::resume_unwind;
use std::sync::Arc;

use aclrt_sys as sys;
use generativity::{Guard, Id};

use super::super::access::{CpuVisible, RawDest, RawSource, Stable};
use super::super::faults;
use super::super::host_fn::{self, HostFnSlot};
use super::super::protocol::failure::{
    Origin, event_may_give_back, host_fn_panic_is_failure, lane_bit, own_lane_only,
};
use super::super::{HandleOwner, Mem, Raw, Region, check};
use super::book::wrong_lane;
use super::{CoreBook, ScopeCore, escalate, open};
use crate::error::{Error, Result};

/// A stream enlisted in a scope, branded `'sid`: the only place where
/// asynchronous work is queued.
///
/// One per brand: it consumes the `Guard<'sid>` it is branded with.
pub struct LaneCore<'scope, 'sid> {
    core: &'scope ScopeCore<'scope>,
    stream: Raw,
    /// Its lane's index in the scope (`CoreBook::streams_of`), at most 63
    /// ([`lane_bit`]).
    lane: u8,
    _sid: PhantomData<Id<'sid>>,
}

/// A buffer exclusively borrowed for `'scope` and parked while the device
/// may use it; all its work is queued on the lane branded `'sid`.
///
/// Holds the `&'scope mut D` as a pointer, and its address and size, taken
/// once from an exclusive reborrow; no reference to `*D` is made while it
/// is parked. The only way back to `&'scope mut D` is [`Parked::wait`].
/// Forgetting it is harmless: the buffer stays borrowed until the scope has
/// synchronised.
pub struct Parked<'scope, 'sid, D: ?Sized> {
    ptr: NonNull<D>,
    region: Region,
    stream: Raw,
    /// Its lane's index in the scope, at most 63 ([`lane_bit`]).
    lane: u8,
    /// Where its contents came from: the failure clock when the work
    /// behind them began (when it was parked, or earlier, when its contents
    /// come from other buffers': a copy or a kernel reading them,
    /// [`Parked::derive`]; a failure seen later may be that work's), and
    /// every lane they came through or it was lent to (what a give-back
    /// makes idle).
    origin: Origin,
    /// Whether work of the scope wrote it (so its contents are the
    /// scope's: a give-back marks them, `CoreBook::mark_suspect`).
    written: bool,
    /// The scope's book: its context and id, and where a successful
    /// [`wait`](Self::wait) is noted.
    book: &'scope CoreBook,
    _borrow: PhantomData<&'scope mut D>,
    _sid: PhantomData<Id<'sid>>,
}

/// The operand that an asynchronous copy on the lane branded `'sid` reads,
/// borrowed for `'a`: runtime memory shared for the whole scope
/// ([`Source::shared`]), or a buffer parked on the same lane
/// ([`Source::in_flight`]).
pub struct Source<'a, 'sid> {
    region: Region,
    /// The stream whose work this read must follow: the lane a parked
    /// buffer or a shared read is on; `None` for memory shared for the
    /// whole scope, which any lane may read.
    stream: Option<Raw>,
    /// Where its contents came from (`Parked::origin`); [`Origin::OUTSIDE`]
    /// for memory shared for the whole scope that no work of the scope
    /// wrote.
    origin: Origin,
    _borrow: PhantomData<&'a [u8]>,
    _sid: PhantomData<Id<'sid>>,
}

/// A parked buffer on its way from the lane branded `'sid` to another: an
/// event recorded on its stream after its last use there.
pub struct Handover<'scope, 'sid, D: ?Sized> {
    event: Raw,
    item: Parked<'scope, 'sid, D>,
}

/// A parked buffer shared by lanes of one scope for reading (fan-out):
/// an event recorded on the producing stream after its last use there,
/// and the streams that waited for it and may read the buffer.
///
/// Still holds the exclusive borrow; no lane can write the buffer, and it
/// comes back to one lane only through [`LaneCore::reclaim`], which makes
/// that lane wait for every reader. Invariant in `'scope`.
pub struct SharedCore<'scope, D: ?Sized> {
    ptr: NonNull<D>,
    region: Region,
    /// `Parked::origin` of the buffer.
    origin: Origin,
    /// `Parked::written` of the buffer.
    written: bool,
    event: Raw,
    readers: RefCell<Vec<Raw>>,
    /// The bits of the lanes in `readers` (it was lent to them).
    lent: core::cell::Cell<u64>,
    _borrow: PhantomData<&'scope mut D>,
    _invariant: PhantomData<fn(&'scope ()) -> &'scope ()>,
}

/// Proof that the lane branded `'sid` waited for the producer of a
/// [`SharedCore`] and is one of its readers: made only by
/// [`LaneCore::read_shared`].
pub struct SharedReader<'a, 'scope, 'sid, D: ?Sized> {
    shared: &'a SharedCore<'scope, D>,
    /// The stream that waited for the producer.
    stream: Raw,
    _sid: PhantomData<Id<'sid>>,
}

impl<'a, 'scope, 'sid, D: ?Sized> SharedReader<'a, 'scope, 'sid, D> {
    /// The shared buffer.
    pub(crate) fn shared(&self) -> &'a SharedCore<'scope, D> {
        self.shared
    }
}

impl<D: ?Sized> SharedCore<'_, D> {
    /// Its origin once taken back by lane `bit` for writing: with every lane
    /// it was lent to, which may still read it if a wait task failed.
    fn reclaimed(&self, bit: u64) -> Origin {
        Origin {
            since: self.origin.since,
            lanes: self.origin.lanes | self.lent.get() | bit,
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

/// An event the scope recorded on one of its lanes (a point others may
/// wait for); the scope destroys it after its final synchronisation.
///
/// Invariant in `'scope`, so only lanes of the same scope wait for it: an
/// abort of the scope's streams (its deadline, or another scope's) discards
/// the record and aborts every lane of the scope with it, whereas a lane of
/// another scope would wait for the discarded record for ever.
#[derive(Clone, Copy)]
pub struct ScopeEvent<'scope> {
    event: Raw,
    _scope: PhantomData<fn(&'scope ()) -> &'scope ()>,
}

impl core::fmt::Debug for ScopeEvent<'_> {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        self.event.fmt(f)
    }
}

/// A `Region` moved into a host function.
struct SendRegion(Region);
// SAFETY: the region is only dereferenced inside the host function, under
// the exclusive-borrow argument given there; moving the address between
// threads is harmless.
unsafe impl Send for SendRegion {}

impl<'scope, 'sid> LaneCore<'scope, 'sid> {
    /// Enlist `stream` in the scope, branded `'sid` by `guard`. The stream is
    /// borrowed for `'scope`, so it outlives the scope's final
    /// synchronisation.
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
    pub(crate) fn in_set(
        core: &'scope ScopeCore<'scope>,
        stream: &'scope impl HandleOwner,
        brand: Id<'sid>,
    ) -> Self {
        let _ = brand;
        let stream = stream.handle();
        let lane = core.enlist(stream);
        LaneCore {
            core,
            stream,
            lane,
            _sid: PhantomData,
        }
    }

    /// Its lane's bit in an [`Origin`].
    #[inline(always)]
    fn bit(&self) -> u64 {
        lane_bit(usize::from(self.lane))
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
    fn queue(&self) -> Raw {
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
        super::super::make_current(self.core.book.ctx)
    }

    /// The scope's context.
    pub(in crate::ffi) fn context(&self) -> Raw {
        self.core.book.ctx
    }

    /// Park `dst` on this lane; nothing is queued yet.
    pub(crate) fn park<D: RawDest + ?Sized>(&self, dst: &'scope mut D) -> Parked<'scope, 'sid, D> {
        let mut ptr = NonNull::from(dst);
        // SAFETY: `ptr` was made from an exclusive borrow, live for `'scope`,
        // that the returned `Parked` takes over; this reborrow is the only
        // access to `*ptr` and ends with the statement. The region is derived
        // from it (an exclusive reborrow, not a shared one), so the runtime
        // and `host_fn_with` may write through it while the buffer is parked.
        let region = unsafe { ptr.as_mut() }.raw_mut().reborrow().region();
        // Contents that came back unchecked keep their origin.
        let marked = self.core.book.suspect_origin(region, true);
        let origin = Origin::new(faults::now(), self.bit());
        Parked {
            ptr,
            region,
            stream: self.stream,
            lane: self.lane,
            origin: marked.map_or(origin, |m| origin.join(m)),
            written: marked.is_some(),
            book: &self.core.book,
            _borrow: PhantomData,
            _sid: PhantomData,
        }
    }

    /// Queue a copy of all of `src` into `dst` (`aclrtMemcpyAsync`); `kind`
    /// must describe where both lie. The caller checked that the lengths
    /// match.
    #[inline]
    pub(crate) fn copy<D: Stable + ?Sized>(
        &self,
        src: Source<'_, 'sid>,
        dst: Parked<'scope, 'sid, D>,
        kind: sys::aclrtMemcpyKind,
    ) -> Result<Parked<'scope, 'sid, D>> {
        self.check_source(&src)?;
        self.check_lane(dst.stream)?;
        self.bind()?;
        // The whole of `dst` is overwritten from `src`.
        let mut dst = dst;
        dst.derive(true, src.origin);
        // SAFETY:
        // * `dst.region` is runtime memory (`D: Stable`) exclusively borrowed
        //   for `'scope` by `dst` (returned, so it stays parked), writable
        //   for `dst.region.bytes` bytes, and its earlier work is queued on
        //   this stream (brand `'sid`), so it runs first;
        // * `src.region` is runtime memory readable for `src.region.bytes`
        //   bytes until this stream's work is done: shared for `'scope`, or
        //   parked on this lane (whose release waits for this stream);
        // * `run` synchronises this stream (enlisted by `new`) before either
        //   borrow ends (module argument);
        // * `count` = the source's size; the runtime rejects
        //   `count > destMax` (the destination's size);
        // * `kind` describes where both lie (crate contract); the stream is
        //   live (borrowed for `'scope`) and its context current (`bind`).
        let code = unsafe {
            sys::aclrtMemcpyAsync(
                dst.region.ptr.as_ptr().cast(),
                dst.region.bytes,
                src.region.ptr.as_ptr().cast(),
                src.region.bytes,
                kind,
                self.queue().as_ptr(),
            )
        };
        check(code, "aclrtMemcpyAsync")?;
        Ok(dst)
    }

    /// Queue setting every byte of `dst` to `byte` (`aclrtMemsetAsync`).
    pub(crate) fn memset<D: Stable + ?Sized>(
        &self,
        dst: Parked<'scope, 'sid, D>,
        byte: u8,
    ) -> Result<Parked<'scope, 'sid, D>> {
        self.check_lane(dst.stream)?;
        self.bind()?;
        let mut dst = dst;
        dst.derive(true, Origin::OUTSIDE);
        let region = dst.region;
        // SAFETY: `region` is runtime memory (`D: Stable`, the memory
        // `aclrtMemsetAsync` is defined for) exclusively borrowed for
        // `'scope` by `dst`, whose earlier work is queued on this stream;
        // `run` synchronises the stream before the borrow ends;
        // count == maxCount == its size; the stream is live and its context
        // current.
        let code = unsafe {
            sys::aclrtMemsetAsync(
                region.ptr.as_ptr().cast(),
                region.bytes,
                i32::from(byte),
                region.bytes,
                self.queue().as_ptr(),
            )
        };
        check(code, "aclrtMemsetAsync")?;
        Ok(dst)
    }

    /// Queue `f` as a host function (`aclrtLaunchHostFunc`).
    pub(crate) fn host_fn(&self, f: Box<dyn FnOnce() + Send + 'scope>) -> Result<()> {
        // A panic is a failure of the lane, entered before the stream goes
        // on (so a checked wait of data the function was to write fails at
        // once), then handed on to the trampoline, which keeps it for the
        // scope to resume.
        let key = faults::key(self.stream);
        let f: Box<dyn FnOnce() + Send + 'scope> = Box::new(move || {
            if let Err(p) = std::panic::catch_unwind(std::panic::AssertUnwindSafe(f)) {
                if host_fn_panic_is_failure() {
                    faults::enter(key, &Error::HostFnPanicked);
                }
                resume_unwind(p);
            }
        });
        // SAFETY: this only erases a lifetime. The closure may borrow data for
        // `'scope`. It is called by the trampoline before the stream's
        // synchronisation in `ScopeCore::finish` completes, or dropped by
        // `finish` after it (the slot is in the book, below); both happen
        // before `'scope` ends (module argument). The slot is dropped earlier
        // only if `bind` fails, when the runtime never saw it.
        let f: Box<dyn FnOnce() + Send + 'static> = unsafe { core::mem::transmute(f) };
        let slot = HostFnSlot::new(f);
        self.bind()?;
        self.core.book.book().host_fns.push(Arc::clone(&slot));
        // The stream cannot be subscribed to a reporter until the scope
        // ends (the two callback mechanisms must not mix on one stream).
        self.core.book.promote();
        open::host_fns_on(self.core.book.id, self.stream);
        // SAFETY: the book holds an `Arc` of `slot` (pushed above) until
        // after the final synchronisation of this stream (enlisted by `new`),
        // or its abort, in `ScopeCore::finish`; the stream's context is
        // current.
        unsafe { host_fn::enqueue(self.queue(), &slot) }
    }

    /// Queue a host function that gets the elements of `target` once the
    /// work queued on this lane before it is done (`aclrtLaunchHostFunc`).
    pub(crate) fn host_fn_with<D, F>(
        &self,
        target: Parked<'scope, 'sid, D>,
        f: F,
    ) -> Result<Parked<'scope, 'sid, D>>
    where
        D: CpuVisible + ?Sized,
        D::Item: bytemuck::Pod,
        F: FnOnce(&mut [D::Item]) + Send + 'scope,
    {
        self.check_lane(target.stream)?;
        let mut target = target;
        target.written = true;
        let region = SendRegion(target.region);
        self.host_fn(Box::new(move || {
            let region = region;
            let bytes = region.0.bytes;
            // SAFETY:
            // * the region is CPU-visible, initialised memory of `bytes`
            //   bytes (`D: CpuVisible`: pinned memory), taken from an
            //   exclusive reborrow when `target` was parked;
            // * it is exclusively borrowed for `'scope` by the `Parked`
            //   returned below, and no reference to it exists while it is
            //   parked;
            // * the lane runs this after the work queued before it and
            //   before any queued after it, and a parked buffer is handed to
            //   another lane only after an event recorded behind this task;
            //   so nothing else accesses it while the slice lives (it ends
            //   with this closure).
            let data: &mut [u8] =
                unsafe { core::slice::from_raw_parts_mut(region.0.ptr.as_ptr(), bytes) };
            f(bytemuck::cast_slice_mut(data));
        }))?;
        Ok(target)
    }

    fn record_scope_event(&self) -> Result<Raw> {
        self.bind()?;
        let event = super::super::create_event_with_flag(self.core.book.ctx, sys::ACL_EVENT_SYNC)?;
        self.core.book.book().events.push(event);
        super::super::record_event(event, self.queue())?;
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
        super::super::stream_wait_event(self.queue(), handover.event)?;
        self.after_scope_wait(&[handover.event])?;
        let item = handover.item;
        Ok(Parked {
            ptr: item.ptr,
            region: item.region,
            stream: self.stream,
            lane: self.lane,
            // It came through the other lane, which may still touch it if
            // this wait task fails.
            origin: Origin {
                since: item.origin.since,
                lanes: item.origin.lanes | self.bit(),
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
            super::super::stream_wait_event(self.queue(), shared.event)?;
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
        super::super::stream_wait_event(self.queue(), shared.event)?;
        let mut waited = vec![shared.event];
        for &reader in shared.readers.borrow().iter() {
            if reader == self.stream {
                continue;
            }
            let event =
                super::super::create_event_with_flag(self.core.book.ctx, sys::ACL_EVENT_SYNC)?;
            self.core.book.book().events.push(event);
            self.core.book.unsettle(reader);
            // `reader` is the stream of a lane of this scope (enlisted), so
            // it is live until the scope's end.
            super::super::record_event(event, reader)?;
            super::super::stream_wait_event(self.queue(), event)?;
            waited.push(event);
        }
        self.after_scope_wait(&waited)?;
        Ok(Parked {
            ptr: shared.ptr,
            region: shared.region,
            stream: self.stream,
            lane: self.lane,
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
        super::super::stream_wait_event(self.queue(), mark.event)?;
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
            .all(|&e| super::super::event_is_complete(e).unwrap_or(false))
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
            self.core.book.ctx,
            event,
            || super::super::event_is_complete(event),
            || super::super::stream_wait_event(stream, event),
        )
    }

    /// Record a user event on this lane (`aclrtRecordEvent`); an escalation
    /// records it again once the stream is idle.
    pub(crate) fn record(&self, event: &impl HandleOwner) -> Result<()> {
        self.bind()?;
        let event = event.handle();
        self.core.book.promote();
        let ticket = open::scope_record_ticket();
        super::super::record_event(event, self.queue())?;
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
        super::super::synchronize_stream(self.stream)?;
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
    fn outside(&self, region: Region) -> Origin {
        self.core
            .book
            .suspect_origin(region, false)
            .unwrap_or(Origin::OUTSIDE)
    }

    /// Whether all work queued on this lane has finished.
    pub(crate) fn is_complete(&self) -> Result<bool> {
        self.bind()?;
        super::super::stream_is_complete(self.stream)
    }
}

impl<'scope, 'sid, D: ?Sized> Parked<'scope, 'sid, D> {
    /// Its lane's bit in an [`Origin`].
    #[inline(always)]
    pub(in crate::ffi) fn bit(&self) -> u64 {
        lane_bit(usize::from(self.lane))
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
    /// of `reads` did, whichever is earlier (an origin taken from a mark
    /// of contents that came back unchecked ends there). Otherwise (`InOut`, foreign work) the
    /// old contents may stay: the earlier of its own time and `reads`'.
    /// The lanes of `reads` join its own either way ([`Origin::derive`]).
    #[inline]
    pub(crate) fn derive(&mut self, overwrite: bool, reads: Origin) {
        self.origin = self.origin.derive(overwrite, faults::now(), reads);
        self.written = true;
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

    /// [`wait`](Self::wait), which on error gives the buffer back, still
    /// parked on its lane (nothing about it changed: it may be waited for
    /// again, or used by more work on its lane).
    ///
    /// A *checked* wait: a failure that sticks to the scope, or one seen
    /// since the work behind the buffer's contents began, fails it
    /// ([`CoreBook::failure`]) — every time, until the scope recovers.
    /// [`reuse_or_keep`](Self::reuse_or_keep) gives the buffer back
    /// whatever its work did.
    #[inline]
    pub(crate) fn wait_or_keep(self) -> core::result::Result<&'scope mut D, (Error, Self)> {
        match self.sync_checked() {
            // SAFETY: the stream was synchronised without an abort of the
            // scope (`sync_checked`), so no asynchronous access remains.
            Ok(()) => Ok(unsafe { self.into_mut() }),
            Err(e) => Err((e, self)),
        }
    }

    /// Give the buffer back whatever its work did, once every stream that
    /// could still touch it is idle ([`CoreBook::idle_for_give_back`]). A
    /// failure is not returned: it sticks to the scope (a checked wait or
    /// the scope's end reports it). Other errors (an abort, a stream that
    /// cannot be made idle) give the buffer back still parked.
    pub(crate) fn reuse_or_keep(self) -> core::result::Result<&'scope mut D, (Error, Self)> {
        if let Err(e) = self.book.idle_for_give_back(self.bit(), self.origin.lanes) {
            return Err((e, self));
        }
        self.unchecked();
        // SAFETY: every stream that could touch the region is idle
        // (`idle_for_give_back`: its own and every lane of its origin, which
        // holds every lane it came through) without an abort of the scope,
        // so no asynchronous access remains.
        Ok(unsafe { self.into_mut() })
    }

    /// It goes back to the user unchecked: contents that scope work wrote
    /// keep their origin in the scope (`CoreBook::mark_suspect`).
    #[inline(always)]
    fn unchecked(&self) {
        if self.written {
            self.book.mark_suspect(self.region, self.origin);
        }
    }

    /// The checked synchronisation of [`wait_or_keep`](Self::wait_or_keep):
    /// `Ok` when the stream was synchronised (and every lane of the
    /// buffer's origin), no abort of the scope discarded work, and no
    /// failure sticks to the scope or was seen since the buffer's work
    /// began. When its origin holds other lanes, they are made idle by the
    /// give-back primitive ([`CoreBook::idle_for_give_back`]); a failure it
    /// meets is in the record, so `check_after_sync` reports it.
    #[inline]
    fn sync_checked(&self) -> Result<()> {
        if !own_lane_only(self.bit(), self.origin.lanes) {
            self.book
                .idle_for_give_back(self.bit(), self.origin.lanes)?;
        } else {
            // No context is made current: `aclrtSynchronizeStream` switches
            // to the stream's context by itself (acl-facts 5.4).
            super::super::synchronize_stream(self.stream)?;
            self.book.settle(self.stream);
        }
        self.check_after_sync()
    }

    /// The rest of a checked wait once the stream was synchronised after
    /// the buffer's last work: no abort discarded work, and no failure
    /// concerns it.
    #[inline]
    fn check_after_sync(&self) -> Result<()> {
        if self.book.aborted() {
            // The work was (partly) discarded: its result is not there.
            return Err(Error::WorkAborted);
        }
        match self.book.failure(self.origin) {
            Some(fault) => Err(fault),
            None => Ok(()),
        }
    }

    /// The exclusive borrow back, once.
    ///
    /// # Safety
    /// No asynchronous access to the region remains: the stream was
    /// synchronised (or an event recorded on it after the buffer's last use
    /// there completed) after all the buffer's work was queued, and no
    /// abort of the scope discarded any of it.
    #[inline]
    unsafe fn into_mut(self) -> &'scope mut D {
        // SAFETY:
        // * `ptr` came from a `&'scope mut D` whose borrow this value carries
        //   (`_borrow`), and no other reference to `*ptr` exists while it is
        //   parked (`park` made none that outlives it);
        // * all work that used the region ran on `stream` — or on streams
        //   `stream` waited for through events, which its tasks follow —
        //   and the caller's contract says that work is over;
        // * `self` is consumed, so the pointer becomes `&mut` once.
        unsafe { &mut *self.ptr.as_ptr() }
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
        super::super::make_current(self.book.ctx)?;
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
                let event =
                    super::super::create_event_with_flag(self.book.ctx, sys::ACL_EVENT_SYNC)?;
                // Destroyed by `finish`, after the final synchronisation.
                self.book.book().events.push(event);
                event
            }
        };
        // Work is queued on the stream: the scope's end synchronises it.
        self.book.unsettle(self.stream);
        if let Err(e) = super::super::record_event(event, self.stream) {
            self.book.book().free_fences.push(event);
            return Err(e);
        }
        Ok(event)
    }
}

/// A parked buffer and an event recorded on its stream after its last use
/// there ([`Parked::fence`]): the buffer comes back when that event
/// completes (`aclrtSynchronizeEvent`), while later work of the stream may
/// still run.
pub struct FenceCore<'scope, 'sid, D: ?Sized> {
    item: Parked<'scope, 'sid, D>,
    event: Raw,
    /// The scope's count of fences when this one was recorded
    /// (`CoreBook::fence_ticket`).
    ticket: u64,
}

impl<'scope, 'sid, D: ?Sized> FenceCore<'scope, 'sid, D> {
    /// The fenced buffer.
    pub(crate) fn item(&self) -> &Parked<'scope, 'sid, D> {
        &self.item
    }

    /// Whether the work before the fence has finished (`aclrtQueryEventStatus`).
    pub(crate) fn is_complete(&self) -> Result<bool> {
        super::super::event_is_complete(self.event)
    }

    /// Back to a parked buffer on its lane, for more work there; the event
    /// may be recorded again by another fence (nothing waits for this
    /// record: a fence is consumed by its wait).
    pub(crate) fn resume(self) -> Parked<'scope, 'sid, D> {
        self.free_event();
        self.item
    }

    fn free_event(&self) {
        if let Some(book) = self.item.book.inner.borrow_mut().0.as_mut() {
            book.free_fences.push(self.event);
        }
    }

    /// A checked wait ([`Parked::wait_or_keep`]): synchronise the stream
    /// (`aclrtSynchronizeStream`: the runtime reports a device fault to a
    /// stream synchronisation only, never to `aclrtSynchronizeEvent`, see
    /// [`faults`]) and give the exclusive borrow back if no fault the work
    /// before the fence may have had was seen; on error, the fence back.
    pub(crate) fn wait_or_keep(self) -> core::result::Result<&'scope mut D, (Error, Self)> {
        // A synchronisation of the lane by this scope that began after the
        // record already waited for it (a checked wait of a later fence of
        // the lane, typically): then only the faults are looked up. Not
        // when the buffer left its lane (the other lanes of its origin are
        // synchronised by the checked wait).
        let book = self.item.book;
        let item = &self.item;
        let checked = if own_lane_only(item.bit(), item.origin.lanes)
            && book.synced_after(item.stream, self.ticket)
        {
            self.item.check_after_sync()
        } else {
            self.item.sync_checked()
        };
        if let Err(e) = checked {
            return Err((e, self));
        }
        self.free_event();
        // SAFETY: the stream was synchronised (here, or by a
        // synchronisation of this scope that began after the record) after
        // every piece of work that used the region was queued (on the
        // item's stream before the record, or on a stream it waited for),
        // without an abort of the scope (`check_after_sync`).
        Ok(unsafe { self.item.into_mut() })
    }

    /// Wait for the event (`aclrtSynchronizeEvent`) only, and give the
    /// exclusive borrow back whatever the work before it did (a failure is
    /// not reported by this wait: a checked wait or the scope's end reports
    /// it); on error, the fence back. Once the buffer left its lane, an
    /// event orders nothing a failed wait task should have ordered: then
    /// every lane of its origin is made idle instead
    /// ([`CoreBook::idle_for_give_back`]).
    pub(crate) fn reuse_or_keep(self) -> core::result::Result<&'scope mut D, (Error, Self)> {
        let book = self.item.book;
        let (bit, lanes) = (self.item.bit(), self.item.origin.lanes);
        if !event_may_give_back(bit, lanes) {
            if let Err(e) = book.idle_for_give_back(bit, lanes) {
                return Err((e, self));
            }
            self.free_event();
            self.item.unchecked();
            // SAFETY: every lane of its origin is idle, without an abort of
            // the scope (`idle_for_give_back`), so no asynchronous access
            // remains.
            return Ok(unsafe { self.item.into_mut() });
        }
        // A record that an abort discarded never completes, and a host wait
        // for it may never end (acl-facts K.8): once the scope is marked
        // aborted, an event that has not completed is not waited for.
        if book.aborted() && !super::super::event_is_complete(self.event).unwrap_or(false) {
            return Err((Error::WorkAborted, self));
        }
        if let Err(e) = super::super::synchronize_event(self.event) {
            // In the stop-on-failure mode the context's failure is reported
            // by every call, this one included: a failure of the lane.
            faults::enter(faults::key(self.item.stream), &e);
            if !super::super::event_is_complete(self.event).unwrap_or(false) {
                return Err((e, self));
            }
        }
        if book.aborted() {
            // An abort may have discarded work before the record; a
            // discarded record is reported by the synchronisation, but the
            // scope's mark comes first (see `LaneCore::after_scope_wait`),
            // so this also covers the record that completed only because
            // the work before it was dropped.
            return Err((Error::WorkAborted, self));
        }
        self.free_event();
        self.item.unchecked();
        // SAFETY: the buffer never left its lane (its origin, checked above),
        // so every piece of work that used the region was queued on the
        // item's stream before the event's record (the fence took the item
        // over, so nothing was queued on it since); the stream runs its
        // tasks in order, and the record has completed without an abort
        // (checked above: an abort marks the scope before it discards
        // anything), so no asynchronous access remains.
        Ok(unsafe { self.item.into_mut() })
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
