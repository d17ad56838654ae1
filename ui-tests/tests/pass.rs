//! The compile-pass twins (`pass/*.rs`, `async-pass/*.rs`): each must
//! compile and run successfully on the built-in simulator. `build.rs` makes
//! each case a module of this one binary, with a test that takes the
//! simulator (`aclrt::sim::exclusive()`, which also resets it) and runs the
//! case's `main`; the case itself checks its result and the audit.
#![allow(dead_code)]

include!(concat!(env!("OUT_DIR"), "/pass_cases.rs"));
