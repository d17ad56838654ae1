//! The operands of asynchronous work: [`AsyncSource`], [`AsyncDest`].

use crate::ffi::scope::{LaneCore, Parked, Source};
use crate::memory::{DeviceRepr, Memory, MemoryMut, PinnedMemory, Place};

use super::flight::{InFlight, Reading};

mod sealed {
    pub trait Operand {}
}

pub use crate::ffi::scope::Keep;

/// A source operand of asynchronous work on the lane branded `'sid`.
///
/// Implemented by `&'scope S` for pinned or device memory `S` of the same
/// context (shared for the rest of the scope), and by `&InFlight` of the
/// same lane. Sealed.
#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot be read by asynchronous work on this lane",
    label = "not a source for this lane",
    note = "sources are `&buffer` (a `HostBuffer` or `DeviceBuffer` of this context, borrowed for the whole scope) or `&in_flight` of THIS lane",
    note = "a buffer in flight on another lane must be handed over first: `let s = lane_a.signal(x)?; let x = lane_b.wait_for(s)?;`",
    note = "a buffer shared for reading (`Lane::share`) is read on a lane through `&lane.read(&shared)?`",
    note = "pageable memory (`Vec`, slices) cannot be used asynchronously: use the synchronous `Context::copy`"
)]
pub trait AsyncSource<'scope, 'id, 'sid>: sealed::Operand {
    /// The element type.
    type Elem: DeviceRepr;
    /// Where the source lies.
    type Place: Place;
    /// The memory read (the buffer or view behind the operand), for the
    /// bounds of kernel arguments ([`KernelMemory`](crate::bounds::KernelMemory)).
    type Memory: ?Sized;
    #[doc(hidden)]
    fn source(&self, lane: &LaneCore<'scope, 'sid>) -> (Source<'_, 'sid>, usize);
}

impl<S: ?Sized> sealed::Operand for &S {}
impl<'scope, 'id, 'sid, S> AsyncSource<'scope, 'id, 'sid> for &'scope S
where
    S: PinnedMemory<'id> + ?Sized,
{
    type Elem = S::Elem;
    type Place = S::Place;
    type Memory = S;
    fn source(&self, lane: &LaneCore<'scope, 'sid>) -> (Source<'_, 'sid>, usize) {
        (Source::shared(lane, *self), Memory::len(*self))
    }
}

impl<'a, 'scope, 'id, 'sid, D> AsyncSource<'scope, 'id, 'sid> for &Reading<'a, 'scope, 'id, 'sid, D>
where
    D: PinnedMemory<'id> + ?Sized,
{
    type Elem = D::Elem;
    type Place = D::Place;
    type Memory = D;
    fn source(&self, _lane: &LaneCore<'scope, 'sid>) -> (Source<'_, 'sid>, usize) {
        (Source::shared_read(&self.reader), self.len)
    }
}

impl<'scope, 'id, 'sid, D> AsyncSource<'scope, 'id, 'sid> for &InFlight<'scope, 'sid, D>
where
    D: PinnedMemory<'id> + ?Sized,
{
    type Elem = D::Elem;
    type Place = D::Place;
    type Memory = D;
    fn source(&self, _lane: &LaneCore<'scope, 'sid>) -> (Source<'_, 'sid>, usize) {
        (Source::in_flight(&self.parked), self.len)
    }
}

impl<T> sealed::Operand for crate::memory::DeviceView<'_, '_, T> {}
/// A read-only device view made inside the scope (e.g. by
/// [`DeviceBuffer::split_at`](crate::DeviceBuffer::split_at)), by value: it
/// borrows its buffer for the whole scope.
impl<'scope, 'id, 'sid, T: DeviceRepr> AsyncSource<'scope, 'id, 'sid>
    for crate::memory::DeviceView<'scope, 'id, T>
{
    type Elem = T;
    type Place = crate::memory::OnDevice;
    type Memory = Self;
    fn source(&self, lane: &LaneCore<'scope, 'sid>) -> (Source<'_, 'sid>, usize) {
        (Source::view(lane, self.mem()), self.len())
    }
}

/// A destination operand of asynchronous work on the lane branded `'sid`.
///
/// Implemented by `&'scope mut D` (pinned or device memory of the same
/// context, not yet in flight) and by an [`InFlight`] of the same lane. Sealed.
#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot be written by asynchronous work on this lane",
    label = "not a destination for this lane",
    note = "destinations are `&mut buffer` (a `HostBuffer` or `DeviceBuffer` of this context, borrowed for the whole scope) or an `InFlight` of THIS lane, by value",
    note = "a buffer in flight on another lane must be handed over first: `let s = lane_a.signal(x)?; let x = lane_b.wait_for(s)?;`",
    note = "a buffer shared for reading (`Lane::share`) is written again only after `let x = lane.reclaim(shared)?;`",
    note = "a kernel writes registered host memory through `reg.device_alias_mut()` (exclusive), not the shared `reg.device_alias()`"
)]
pub trait AsyncDest<'scope, 'id, 'sid>: sealed::Operand + Sized {
    /// The buffer type.
    type Target: PinnedMemory<'id> + MemoryMut<'id> + ?Sized;
    #[doc(hidden)]
    fn into_parked(
        self,
        lane: &LaneCore<'scope, 'sid>,
    ) -> (Parked<'scope, 'sid, Self::Target>, usize);
}

impl<S: ?Sized> sealed::Operand for &mut S {}
impl<'scope, 'id, 'sid, D> AsyncDest<'scope, 'id, 'sid> for &'scope mut D
where
    D: PinnedMemory<'id> + MemoryMut<'id> + ?Sized,
{
    type Target = D;
    fn into_parked(self, lane: &LaneCore<'scope, 'sid>) -> (Parked<'scope, 'sid, D>, usize) {
        let len = Memory::len(&*self);
        (lane.park(self), len)
    }
}

impl<T> sealed::Operand for crate::memory::DeviceViewMut<'_, '_, T> {}
/// A writable device view made inside the scope (e.g. by
/// [`DeviceBuffer::split_at_mut`](crate::DeviceBuffer::split_at_mut) or
/// [`chunks_mut`](crate::DeviceBuffer::chunks_mut)), by value: it borrows its
/// buffer exclusively for the whole scope, and is kept by the scope
/// ([`Scope::keep`](crate::Scope::keep)) while in flight.
impl<'scope, 'id, 'sid, T: DeviceRepr> AsyncDest<'scope, 'id, 'sid>
    for crate::memory::DeviceViewMut<'scope, 'id, T>
{
    type Target = Self;
    fn into_parked(self, lane: &LaneCore<'scope, 'sid>) -> (Parked<'scope, 'sid, Self>, usize) {
        let len = self.len();
        (lane.park(lane.scope().keep(self)), len)
    }
}

impl<'scope, 'sid, D: ?Sized> sealed::Operand for InFlight<'scope, 'sid, D> {}
impl<'scope, 'id, 'sid, D> AsyncDest<'scope, 'id, 'sid> for InFlight<'scope, 'sid, D>
where
    D: PinnedMemory<'id> + MemoryMut<'id> + ?Sized,
{
    type Target = D;
    fn into_parked(self, _lane: &LaneCore<'scope, 'sid>) -> (Parked<'scope, 'sid, D>, usize) {
        (self.parked, self.len)
    }
}
