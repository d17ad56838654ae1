//! The runtime's resources through the safe API, one test binary: event
//! kinds, host registration and forced releases, the book of live
//! children, leaks by `mem::forget`, exception callbacks, host functions
//! served by the program's threads, virtual and IPC memory, IPC events, notifies,
//! overflow status and stream configurations, allocators on a stream, the
//! streams' runtime ids in exception reports.

#[path = "../common/mod.rs"]
mod common;

mod event_flags;
mod exceptions;
mod ipc_event;
mod ipc_processes;
mod leaks;
mod live_book;
mod new_resources;
mod overflow_config;
mod release;
mod report_ids;
mod resource_attacks;
mod runtime_resources;
mod stream_allocator;
