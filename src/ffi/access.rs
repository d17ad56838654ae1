//! Sealed raw access: nameable only inside the crate, so nobody outside
//! can claim that arbitrary memory is a valid copy operand. They live in
//! the basement because their claims ("these bytes are a runtime
//! allocation", "this address does not move") are what the unsafe code
//! here relies on; `memory.rs` implements them for its types.
#![deny(unsafe_code)]

use super::{Mem, MemMut};

/// Gives the runtime the bytes of a source.
pub trait RawSource {
    /// The whole region, borrowed for as long as `self` is.
    fn raw(&self) -> Mem<'_>;
}

/// Gives the runtime the bytes of a destination.
pub trait RawDest: RawSource {
    /// The whole region, exclusively borrowed for as long as `self` is.
    fn raw_mut(&mut self) -> MemMut<'_>;
}

/// Memory whose address stays put when its owner moves, and which the
/// runtime may access asynchronously (pinned host or device memory).
pub trait Stable: RawSource {}

/// Seals [`Place`](crate::bounds::Place) and carries its value, from which the
/// crate computes the C memcpy kind of a copy.
pub trait PlaceSealed {
    /// Where memory of this place lies, as a value.
    const RESIDENCY: Residency;
}

/// Memory the CPU may address as a slice of `Self::Item`.
pub trait CpuVisible {
    /// The element type.
    type Item;
}

/// Where a piece of memory lies, as a value: the run-time shadow of the
/// type-level [`Place`](crate::bounds::Place), used only inside the crate to
/// pick the C memcpy kind. Not exported: the API states directions with
/// types ([`OnHost`](crate::bounds::OnHost), [`OnDevice`](crate::bounds::OnDevice)).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Residency {
    /// Host memory: a pageable Rust slice or pinned host memory.
    Host,
    /// Device memory (`aclrtMalloc`).
    Device,
}
