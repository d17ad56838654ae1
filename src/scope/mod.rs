//! Asynchronous work that borrows memory: [`Scope`], [`Lane`], [`InFlight`],
//! [`Signal`], [`Mark`].
//!
//! Asynchronous work exists only inside [`Context::scope`](crate::Context::scope)
//! (or [`scope_with_timeout`](crate::Context::scope_with_timeout)), whose
//! closure gets a `&Scope`:
//! * [`Scope::lane`] enlists a stream of the context as a [`Lane`], branded
//!   with a fresh `make_guard!`. Work is queued on lanes: [`Lane::copy`]
//!   (`aclrtMemcpyAsync`), [`Lane::memset`], host functions
//!   ([`Lane::host_fn`], [`Lane::host_fn_with`]).
//! * Operands are pinned host memory or device memory of the context
//!   ([`AsyncSource`], [`AsyncDest`]), borrowed for the rest of the scope:
//!   `&buffer` to read, `&mut buffer` to write. A written buffer comes back
//!   as an [`InFlight`] of that lane: use it for more work on the lane, or
//!   get the `&mut` back with [`InFlight::wait`], which synchronises the
//!   lane first.
//! * [`Lane::park`] takes a buffer onto a lane without queuing work: a
//!   copy's source given as `&parked` (rather than `&buffer`, borrowed for
//!   the whole scope) comes back to the CPU like a destination, so a staging
//!   buffer is refilled inside one long scope. [`InFlight::fence`] records
//!   an event after a buffer's last use; [`Fence::wait`] waits for that
//!   event only (`aclrtSynchronizeEvent`), not for the whole lane.
//!   `wait_or_keep` ([`InFlight::wait_or_keep`], [`Fence::wait_or_keep`])
//!   gives the buffer back when a wait fails.
//! * [`Scope::lanes`] enlists a slice of streams under one brand, as a
//!   `Vec<Lane>` you index at run time; within such a set the stream of
//!   every operand is checked at run time ([`Error::WrongLane`](crate::Error::WrongLane)).
//! * A buffer moves to another lane with [`Lane::signal`] and
//!   [`Lane::wait_for`] (an event recorded after its last use, waited for by
//!   the next lane); [`Lane::mark`] / [`Lane::wait_mark`] order lanes without
//!   a buffer, and [`Lane::record`] / [`Lane::wait_event`] work with your own
//!   [`Event`](crate::Event)s.
//! * Pipelines that overlap on parts of one buffer: split device buffers
//!   into disjoint views ([`DeviceBuffer::split_at_mut`](crate::DeviceBuffer::split_at_mut),
//!   [`chunks_mut`](crate::DeviceBuffer::chunks_mut)) and pinned buffers
//!   into disjoint [`PinnedSlice`](crate::PinnedSlice)s (`split_at_mut`,
//!   `chunks_mut`); views made inside the scope are operands by value. One
//!   buffer read by several lanes at once: [`Lane::share`], [`Lane::read`],
//!   and [`Lane::reclaim`] to join the readers and write it again.
//! * Values made inside the scope that must live as long as it (a user
//!   event recorded on one lane and waited for by another, a buffer
//!   allocated inside): [`Scope::keep`].
//! * [`Context::try_scope`](crate::Context::try_scope): the closure returns
//!   your own error type (`E: From<aclrt::Error>`), so `?` works on both.
//! * When the closure returns (or fails, or panics) the scope synchronises
//!   every lane before `Context::scope` returns, so the borrows end only when
//!   the device is done with the memory. Forgetting an `InFlight`, a
//!   `Signal` or a `Mark` is therefore harmless. With a deadline, a scope
//!   whose work is late stops it instead ([`Escalation`](crate::Escalation)).
//!
//! Misuse is a compile error: a buffer declared inside the closure, a
//! buffer in flight on another lane, memory or streams of another context,
//! pageable memory, a lane or `InFlight` returned out of the scope, a scope
//! sent to another thread (the *Safety model* chapter lists each case).
//!
//! The types here are thin wrappers: what makes them sound (the scope that
//! always synchronises before its borrows end, the parked exclusive borrow,
//! the lifetime-erased host functions) is the private `ffi::scope` module,
//! next to the `unsafe` code it justifies.

mod flight;
mod operand;
mod region;

pub use self::flight::{Fence, InFlight, Mark, Reading, Shared, Signal};
pub use self::operand::{AsyncDest, AsyncSource, Keep};
pub(crate) use self::region::run;
pub use self::region::{Lane, Scope};
