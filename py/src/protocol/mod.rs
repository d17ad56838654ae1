//! The pyo3-free protocol cores of the Python face's runtime objects: the
//! counted uses and children of a [`crate::handle::Handle`]
//! ([`handle_core`]), the counted exports and deferred release of a
//! [`crate::memory::Memory`] ([`memory_core`]), the record of queued work
//! and event marks ([`work_book`]), and a release run with the pending
//! error set aside ([`aside`]).
//!
//! They take their locks only from `sync` (`std`'s here); the model crate
//! (`models/`) compiles these same files with loom's and shuttle's, and
//! checks them under every interleaving (loom) and random schedules
//! (shuttle), with mutant twins that must fail.
#![deny(unsafe_code)]

pub mod aside;
pub mod handle_core;
pub mod memory_core;
pub(crate) mod sync;
pub mod work_book;
