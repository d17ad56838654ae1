//! Where the panics of a reporter's callbacks go ([`PanicSlot`]): the
//! first is kept, later ones are dropped after the slot's lock is
//! released. Bookkeeping with no `unsafe` and no runtime call: the
//! trampoline that catches the panics is in the basement (`ffi::report`).
#![deny(unsafe_code)]

use std::any::Any;
use std::sync::{Arc, Mutex};

use super::locks::{Rank, lock};

/// The payload of a caught panic (of a host function or a report callback).
pub(crate) type Panic = Box<dyn Any + Send + 'static>;

/// Where the panics of a reporter's callbacks go.
pub(crate) type PanicSlot = Arc<Mutex<Option<Panic>>>;

/// Keep the first panic of a reporter's callbacks; a later one is dropped
/// after the slot's lock is released (its payload is a user value).
pub(crate) fn keep_panic(panics: &PanicSlot, p: Panic) {
    let extra = {
        let mut slot = lock(panics, Rank::ReporterPanics);
        if slot.is_none() {
            *slot = Some(p);
            None
        } else {
            Some(p)
        }
    };
    drop(extra);
}

/// Take the first panic of a reporter's callbacks.
pub(crate) fn take_panic(panics: &PanicSlot) -> Option<Panic> {
    lock(panics, Rank::ReporterPanics).take()
}
