//! Model tests of aclrt's concurrency protocols.
//!
//! This crate compiles the library's own protocol files
//! (`src/rule/*.rs` and `src/ffi/protocol/sub_book.rs`, the
//! atomics-and-locks cores of the concurrency bookkeeping, and the Python face's `py/src/protocol/{handle_core,memory_core,work_book,aside}.rs`)
//! a second time, next to the model tests. Those files take threads,
//! atomics and locks only from their shim (`sync.rs`), which is `std` in
//! the library and here, `loom`'s under `--cfg loom` and `shuttle`'s under
//! `--cfg shuttle`. So the models run the code the library runs, not a
//! re-implementation; what a model adds around a core is the environment
//! (a stream that queues, executes and discards work; the registry's lock),
//! written in the test.
//!
//! ```text
//! RUSTFLAGS="--cfg loom"    cargo test --release -p aclrt-models -- --nocapture
//! RUSTFLAGS="--cfg shuttle" cargo test --release -p aclrt-models -- --nocapture
//! ```
//!
//! Without either cfg the crate is empty: in the library the shim routes
//! the cores' locks through the crate's lock-order check (`rule::locks`),
//! which only the library has. Each model has mutant twins: the same model with one deliberate
//! break of the protocol switched on (`sync::mutant`), asserted to fail.
#![deny(unsafe_code)]
// The library calls what the models do not.
#![allow(dead_code)]

#[cfg(any(loom, shuttle))]
#[path = "../../src/rule/sync.rs"]
pub(crate) mod sync;

#[cfg(any(loom, shuttle))]
#[path = "../../src/rule/host_fn_slot.rs"]
pub(crate) mod host_fn_slot;

#[cfg(any(loom, shuttle))]
#[path = "../../src/rule/wait_book.rs"]
pub(crate) mod wait_book;

#[cfg(any(loom, shuttle))]
#[path = "../../src/rule/abort_log.rs"]
pub(crate) mod abort_log;

#[cfg(any(loom, shuttle))]
#[path = "../../src/ffi/protocol/sub_book.rs"]
pub(crate) mod sub_book;

#[cfg(any(loom, shuttle))]
#[path = "../../src/rule/live_count.rs"]
pub(crate) mod live_count;

#[cfg(any(loom, shuttle))]
#[path = "../../src/rule/records.rs"]
pub(crate) mod records;

#[cfg(any(loom, shuttle))]
#[path = "../../src/rule/handler_book.rs"]
pub(crate) mod handler_book;

#[cfg(any(loom, shuttle))]
#[path = "../../src/rule/fault_watch.rs"]
pub(crate) mod fault_watch;

#[cfg(any(loom, shuttle))]
#[path = "../../src/rule/failure.rs"]
pub(crate) mod failure;

// The Python face's cores (`py/src/protocol/`), on the same shim.
#[cfg(any(loom, shuttle))]
#[path = "../../py/src/protocol/handle_core.rs"]
pub(crate) mod handle_core;

#[cfg(any(loom, shuttle))]
#[path = "../../py/src/protocol/memory_core.rs"]
pub(crate) mod memory_core;

#[cfg(any(loom, shuttle))]
#[path = "../../py/src/protocol/work_book.rs"]
pub(crate) mod work_book;

#[cfg(any(loom, shuttle))]
#[path = "../../py/src/protocol/aside.rs"]
pub(crate) mod aside;

#[cfg(any(loom, shuttle))]
#[path = "../../src/rule/wake_slot.rs"]
pub(crate) mod wake_slot;

#[cfg(any(loom, shuttle))]
#[path = "../../src/ffi/protocol/block_pool.rs"]
pub(crate) mod block_pool;

#[cfg(any(loom, shuttle))]
#[path = "../../src/rule/notify_ledger.rs"]
pub(crate) mod notify_ledger;

#[cfg(all(test, any(loom, shuttle)))]
mod harness;

#[cfg(all(test, any(loom, shuttle)))]
mod host_fn_model;

#[cfg(all(test, any(loom, shuttle)))]
mod waits_model;

#[cfg(all(test, any(loom, shuttle)))]
mod abort_log_model;

#[cfg(all(test, any(loom, shuttle)))]
mod sub_book_model;

#[cfg(all(test, any(loom, shuttle)))]
mod live_model;

#[cfg(all(test, any(loom, shuttle)))]
mod records_model;

#[cfg(all(test, any(loom, shuttle)))]
mod handler_book_model;

#[cfg(all(test, any(loom, shuttle)))]
mod fault_watch_model;

#[cfg(all(test, any(loom, shuttle)))]
mod failure_model;

#[cfg(all(test, any(loom, shuttle)))]
mod py_handle_model;

#[cfg(all(test, any(loom, shuttle)))]
mod py_sole_child_model;

#[cfg(all(test, any(loom, shuttle)))]
mod py_memory_model;

#[cfg(all(test, any(loom, shuttle)))]
mod py_book_model;

#[cfg(all(test, any(loom, shuttle)))]
mod py_tree_model;

#[cfg(all(test, any(loom, shuttle)))]
mod wake_slot_model;

#[cfg(all(test, any(loom, shuttle)))]
mod notify_model;

#[cfg(all(test, any(loom, shuttle)))]
mod block_pool_model;
