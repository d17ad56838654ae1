//! The simulator under threads, one test binary: concurrent callers,
//! device synchronisation under stress, the epochs of resets, and the
//! runtime's per-thread state.

#[path = "../common/mod.rs"]
mod common;

mod concurrency;
mod device_sync_stress;
mod epochs;
mod thread_state;
