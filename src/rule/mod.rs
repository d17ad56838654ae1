//! The rule's bookkeeping beside the basement: the crate's one lock order
//! ([`locks`]) and the protocol cores of the concurrency bookkeeping (the
//! failure log, the streams' records, the abort log, the wait book, the
//! watch of synchronisations in flight, the wake and host-function slots,
//! the live counts, the exception handlers' book, the reporters' panic
//! slot, the completion service), each the atomics-and-locks
//! logic alone, in a file of its own that takes threads and atomics only from
//! [`sync`].
//!
//! No `// SAFETY:` argument of the basement relies on these files (CI checks
//! that none cites them: `.ci/trusted_base.py`), so they are not part of the
//! trusted base; what is, and which of its functions the arguments cite, is
//! measured there. The floor is below `ffi`: it calls no runtime function
//! and imports nothing of the crate but its own files, so the basement and
//! the typed layer both build on it. The model crate (`models/`) compiles
//! these same files under loom and shuttle and checks every interleaving of
//! small configurations.
#![deny(unsafe_code)]

pub(crate) mod abort_log;
pub(crate) mod completion;
pub(crate) mod exports;
pub(crate) mod failure;
pub(crate) mod fault_watch;
pub(crate) mod handler_book;
pub(crate) mod host_fn_slot;
pub(crate) mod live_count;
pub(crate) mod locks;
pub(crate) mod notify_ledger;
pub(crate) mod panic_slot;
pub(crate) mod records;
pub(crate) mod sync;
pub(crate) mod wait_book;
pub(crate) mod wake_slot;
