//! Awaitable completions, the device actor, and asynchronous work in
//! scopes, one test binary.

#[path = "../common/mod.rs"]
mod common;

mod async_scope;
mod awaited;
