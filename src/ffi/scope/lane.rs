//! Lanes and what they queue: [`LaneCore`] (a stream enlisted in a scope),
//! the buffers parked on it ([`Parked`], [`Source`], [`Handover`],
//! [`SharedCore`], [`FenceCore`]) and the ways they come back. Part of the
//! scope's unsafe core: the argument is in the parent module's docs.
//!
//! This file holds the types and the calls that need `unsafe`: parking a
//! buffer, the queueing calls (a copy, a memset, host functions) and the
//! ways back to the exclusive borrow (`Parked::into_mut` and the waits that
//! call it). The bookkeeping around them is in child modules that deny
//! `unsafe`: `flow` (the lane's own methods: enlisting, checks, hand-offs
//! between lanes, marks, user events, synchronisation), `parked` (what a
//! lane holds: accessors, origins, fences, the checks of a checked wait)
//! and `awaited` (what awaited waits wait for).

mod awaited;
mod flow;
mod notified;
mod parked;

use core::cell::RefCell;
use core::marker::PhantomData;
use core::ptr::NonNull;
use std::panic::resume_unwind;
use std::sync::Arc;

use aclrt_sys as sys;
use generativity::Id;

use super::super::access::{CpuVisible, RawDest, Stable};
use super::super::faults;
use super::super::host_fn::{self, HostFnSlot};
use super::super::protocol::failure::{
    Lanes, Origin, event_may_give_back, host_fn_panic_is_failure, own_lane_only,
};
use super::super::{Raw, Region, check};
use super::{CoreBook, ScopeCore, open};
use crate::error::{Error, Result};

/// A stream enlisted in a scope, branded `'sid`: the only place where
/// asynchronous work is queued.
///
/// One per brand: it consumes the `Guard<'sid>` it is branded with.
pub struct LaneCore<'scope, 'sid> {
    core: &'scope ScopeCore<'scope>,
    stream: Raw,
    /// Its lane's bit in a set of the scope's lanes (`CoreBook::streams_of`,
    /// [`lane_bit`](super::super::protocol::failure::lane_bit)).
    bit: Lanes,
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
    /// Its lane's bit in a set of the scope's lanes
    /// ([`lane_bit`](super::super::protocol::failure::lane_bit)).
    bit: Lanes,
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
    lent: core::cell::Cell<Lanes>,
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

/// A `Region` moved into a host function.
struct SendRegion(Region);
// SAFETY: the region is only dereferenced inside the host function, under
// the exclusive-borrow argument given there; moving the address between
// threads is harmless.
unsafe impl Send for SendRegion {}

impl<'scope, 'sid> LaneCore<'scope, 'sid> {
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
            bit: self.bit,
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
        // * `run` (in `scope::end`) synchronises this stream (enlisted by
        //   `new`, in `flow`) before either borrow ends (module argument);
        // * `count` = the source's size; the runtime rejects
        //   `count > destMax` (the destination's size);
        // * `kind` describes where both lie (crate contract); the stream is
        //   live (borrowed for `'scope`) and its context current (`bind`, in
        //   `flow`).
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
        // `run` (in `scope::end`) synchronises the stream before the borrow
        // ends;
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
        // synchronisation in `ScopeCore::finish` (in `scope::end`)
        // completes, or dropped by `finish` after it (the slot is in the
        // book, below); both happen
        // before `'scope` ends (module argument). The slot is dropped earlier
        // only if `bind` (in `flow`) fails, when the runtime never saw it.
        let f: Box<dyn FnOnce() + Send + 'static> = unsafe { core::mem::transmute(f) };
        let slot = HostFnSlot::new(f);
        self.bind()?;
        self.core.book.book().host_fns.push(Arc::clone(&slot));
        // The stream cannot be subscribed to a reporter until the scope
        // ends (the two callback mechanisms must not mix on one stream).
        self.core.book.promote();
        open::host_fns_on(self.core.book.id, self.stream);
        // SAFETY: the book holds an `Arc` of `slot` (pushed above) until
        // after the final synchronisation of this stream (enlisted by `new`,
        // in `flow`), or its abort, in `ScopeCore::finish` (in
        // `scope::end`); the stream's context is current.
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
}

impl<'scope, 'sid, D: ?Sized> Parked<'scope, 'sid, D> {
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
            // SAFETY: the stream was synchronised (`sync_checked`, in
            // `parked`) after every piece of work that used the region was
            // queued, so no asynchronous access remains.
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
        self.unchecked(true);
        // SAFETY: every stream that could touch the region is idle
        // (`idle_for_give_back`: its own and every lane of its origin, which
        // holds every lane it came through), so no asynchronous access
        // remains.
        Ok(unsafe { self.into_mut() })
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
        // item's stream before the record, or on a stream it waited for;
        // `check_after_sync`, in `parked`), so no asynchronous access
        // remains.
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
            self.item.unchecked(true);
            // SAFETY: every lane of its origin is idle
            // (`idle_for_give_back`), so no asynchronous access remains.
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
        // A synchronisation of the lane by this scope that began after the
        // record saw the failures of the work before it: the mark need not
        // synchronise the lane again (`mark_origin`).
        self.item
            .unchecked(book.synced_after(self.item.stream, self.ticket));
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
