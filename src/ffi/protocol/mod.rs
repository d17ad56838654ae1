//! The protocol cores the basement's `// SAFETY:` arguments cite: the
//! subscriptions' book (`sub_book::undo_where`), the atomics-and-locks logic
//! without `unsafe` and without FFI, importing threads and atomics only from
//! the rule's shim ([`sync`]). The cores no argument cites are in
//! `crate::rule`; they are re-exported here under their old paths. The model
//! crate (`models/`) compiles these same files under loom and shuttle.
#![deny(unsafe_code)]

pub(crate) mod block_pool;
pub(crate) mod sub_book;
pub(crate) use crate::rule::{
    abort_log, failure, fault_watch, handler_book, host_fn_slot, live_count, notify_ledger,
    records, sync, wait_book,
};
