//! The protocol cores of the trusted base: the atomics-and-locks logic of
//! the concurrency bookkeeping, without `unsafe` and without FFI, each in a
//! file of its own that imports threads and atomics only from [`sync`].
//! The model crate (`models/`) compiles these same files under loom and
//! shuttle and checks every interleaving of small configurations; the
//! library calls them from the bookkeeping modules (`scope::open`, ...).
#![deny(unsafe_code)]

pub(crate) mod abort_log;
pub(crate) mod block_pool;
pub(crate) mod failure;
pub(crate) mod fault_watch;
pub(crate) mod handler_book;
pub(crate) mod host_fn_slot;
pub(crate) mod live_count;
pub(crate) mod notify_ledger;
pub(crate) mod records;
pub(crate) mod sub_book;
pub(crate) mod sync;
pub(crate) mod wait_book;
pub(crate) mod wake_slot;
