//! The public API as a whole, one test binary: every public function in
//! both run modes, the runtime's errors injected, model-based random
//! sequences, concurrency stress, and soundness at the edges.

#[path = "../common/mod.rs"]
mod common;

mod api;
mod errors;
mod model;
mod soundness;
mod stress;
