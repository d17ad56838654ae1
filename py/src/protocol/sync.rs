//! The cores' only door to locks: `std`'s in this crate. The model crate
//! compiles the cores beside the library's shim (`src/rule/sync.rs`),
//! which gives them loom's or shuttle's under `cfg(loom)`/`cfg(shuttle)`.
//!
//! [`mutant`] names a deliberate break of a protocol; here it is `false` at
//! compile time, so no break exists in the code that runs.
#![deny(unsafe_code)]

pub(crate) use std::sync::{Mutex, MutexGuard};

/// Whether the deliberate break `name` is switched on: never here.
#[inline(always)]
pub(crate) const fn mutant(_name: &str) -> bool {
    false
}
