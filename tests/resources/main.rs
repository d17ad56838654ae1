//! The runtime's resources through the safe API, one test binary: event
//! kinds, host registration and forced releases, the book of live
//! children, leaks by `mem::forget`, exception callbacks, host functions
//! served by the program's threads, virtual and IPC memory, notifies.

#[path = "../common/mod.rs"]
mod common;

mod event_flags;
mod exceptions;
mod leaks;
mod live_book;
mod new_resources;
mod release;
mod runtime_resources;
