//! aclrt-sim: a strict, concurrent software AscendCL runtime.
#![deny(unsafe_code)]
#![allow(missing_docs)]

pub mod control;
pub use control::*;

mod diag;
mod event;
mod mem;
mod misc;
#[allow(unsafe_code)]
mod raw;
mod report;
mod rt;
mod stream;
mod trace;

/// The declarations of the C API this crate implements, generated from the
/// project's own header (the same file aclrt-sys uses).
#[allow(unsafe_code)]
pub mod ffi {
    #![allow(
        non_camel_case_types,
        non_upper_case_globals,
        non_snake_case,
        dead_code,
        missing_docs,
        clippy::all,
        clippy::undocumented_unsafe_blocks
    )]
    include!("../../sys/src/bindings.rs");
}
