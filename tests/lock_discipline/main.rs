//! The lock discipline and the thread binding under the safe calls, one
//! test binary: calls into the crate from report callbacks and other
//! threads, the trusted base's reproducers (no user code under a crate
//! lock, the debug check of the lock order shown firing), and what the
//! safe layer does when the runtime's thread binding is gone.

#[path = "../common/mod.rs"]
mod common;

mod calls;
mod thread_binding;
mod trusted_base;
