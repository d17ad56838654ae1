//! Stream state callbacks (`aclrtRegStreamStateCallback`): callbacks the
//! application registers by name, told when a stream has been created
//! (`ACL_RT_STREAM_STATE_CREATE_POST`) and before one is destroyed
//! (`ACL_RT_STREAM_STATE_DESTROY_PRE`), as the runtime's
//! `StreamStateCallbackManager` does: every stream, the default streams
//! of contexts included, on the thread that creates or destroys it. The
//! callbacks run with no lock of the simulator held (the list is copied
//! first), so they may call the runtime.
//!
//! Creations are noted where the registry makes a stream ([`created`]) and
//! announced when the C call that made it returns ([`flush_created`], from
//! [`diag::call`](crate::diag::call)); destructions are announced by the
//! runtime API before the stream goes ([`destroying`]).

use std::cell::RefCell;
use std::sync::Mutex;

use crate::ffi;
use crate::prim::StateCall;
use crate::sync::lock;

/// The registered callbacks by name, in registration order.
static CALLBACKS: Mutex<Vec<(Vec<u8>, StateCall)>> = Mutex::new(Vec::new());

thread_local! {
    /// Streams the calling thread's current C call created.
    static CREATED: RefCell<Vec<usize>> = const { RefCell::new(Vec::new()) };
}

/// `aclrtRegStreamStateCallback` after the ACL layer: a NULL callback
/// removes the name (known or not); a name already registered is refused
/// with the message the runtime API answers with its invalid-value code,
/// 107000 (`StreamStateCallbackManager::RegStreamStateCallback`).
pub(crate) fn register(name: &[u8], callback: Option<StateCall>) -> Result<(), String> {
    let mut all = lock(&CALLBACKS);
    let at = all.iter().position(|(n, _)| n == name);
    match (callback, at) {
        (None, Some(i)) => {
            all.remove(i);
            Ok(())
        }
        (None, None) => Ok(()),
        (Some(_), Some(_)) => Err(format!(
            "the stream state callback name {:?} is registered already",
            String::from_utf8_lossy(name)
        )),
        (Some(cb), None) => {
            all.push((name.to_vec(), cb));
            Ok(())
        }
    }
}

/// Forgets every registration (`aclrt_sim::reset`).
pub(crate) fn clear() {
    lock(&CALLBACKS).clear();
    let _ = CREATED.try_with(|c| c.borrow_mut().clear());
}

/// Notes a stream the registry just made (announced by [`flush_created`]).
pub(crate) fn created(stream: usize) {
    if lock(&CALLBACKS).is_empty() {
        return;
    }
    let _ = CREATED.try_with(|c| c.borrow_mut().push(stream));
}

/// Announces the streams the calling thread's C call created (at its end,
/// with no lock held).
pub(crate) fn flush_created() {
    let streams = CREATED
        .try_with(|c| std::mem::take(&mut *c.borrow_mut()))
        .unwrap_or_default();
    if !streams.is_empty() {
        notify(&streams, ffi::ACL_RT_STREAM_STATE_CREATE_POST);
    }
}

/// Announces that `streams` are about to be destroyed (no lock held).
pub(crate) fn destroying(streams: &[usize]) {
    notify(streams, ffi::ACL_RT_STREAM_STATE_DESTROY_PRE);
}

fn notify(streams: &[usize], state: u32) {
    let callbacks: Vec<StateCall> = lock(&CALLBACKS).iter().map(|(_, c)| *c).collect();
    for s in streams {
        for cb in &callbacks {
            cb.call(*s, state);
        }
    }
}
