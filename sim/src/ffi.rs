//! The declarations of the C API this crate implements, generated from the
//! project's own header. `src/bindings.rs` is a copy of aclrt-sys's
//! generated file (a published package can only contain its own files);
//! `cargo xtask bindgen` writes both and `cargo xtask bindgen --check` fails
//! unless both equal a fresh generation.
#![allow(
    non_camel_case_types,
    non_upper_case_globals,
    non_snake_case,
    dead_code,
    missing_docs,
    clippy::all,
    clippy::undocumented_unsafe_blocks
)]

include!("bindings.rs");
