//! Exception-info callbacks (`aclrtExceptionInfoCallbackRegister`):
//! [`Acl::on_exception`] and the [`ExceptionInfo`] its closure reads.
//!
//! The runtime reports each failed task (a device fault, a task or wait
//! timeout, a kernel's exception) to its exception callbacks, on a thread
//! of its own, before any synchronisation reports it. The crate registers
//! one function of its own with the runtime while a handler is registered
//! and runs the handlers from it.
//!
//! # What the types guarantee
//! * **The failure rule.** A reported exception is a failure of the stream
//!   it names: if the crate made that stream (or handed it out as a
//!   context's default stream), the failure is entered for it before any
//!   handler runs, as a synchronisation's failure is, so a scope on that
//!   stream fails from then on ([`ExceptionInfo::entered`] says so). The
//!   report names the stream by its device and id; the crate keeps each
//!   stream's id in its record and resolves it there, so a destroyed
//!   stream's id never resolves to a handle (its record is gone with it),
//!   and a stream is not destroyed while its report is being entered.
//! * **The closure lives as long as it is registered.** It is `'static`
//!   and owned by the crate from registration on; the
//!   [`ExceptionHandler`] guard takes it out when dropped (or
//!   [`unregistered`](ExceptionHandler::unregister)) and waits for a
//!   report that is running it. `mem::forget` on the guard leaves the
//!   closure registered (a leak, never a dangling closure). The guard
//!   borrows the [`Acl`], so the runtime cannot be finalised under it.
//! * **Panics and locks.** A panic in the closure is caught on the
//!   runtime's thread and kept: [`ExceptionHandler::unregister`] resumes
//!   it. The closure runs holding no crate lock, and calls that wait for
//!   the device are refused inside it ([`Error::InCallback`]).
//!
//! ```
//! # let _sim = aclrt::sim::exclusive();
//! use std::sync::{Arc, Mutex};
//! let acl = aclrt::Acl::init()?;
//! let seen = Arc::new(Mutex::new(Vec::new()));
//! let sink = seen.clone();
//! let handler = acl.on_exception(move |info| sink.lock().unwrap().push(info.error_code()))?;
//! // ... work whose failed tasks are reported to the closure ...
//! handler.unregister()?;
//! assert!(seen.lock().unwrap().is_empty());
//! # Ok::<(), aclrt::Error>(())
//! ```

use crate::acl::Acl;
use crate::error::{Error, ErrorKind, Result};
use crate::ffi::exception::{self as raw, Facts, Handler};
use crate::stream::Stream;
use core::marker::PhantomData;

/// One failed task, as the runtime reports it to the closure of
/// [`Acl::on_exception`] (`aclrtGet*FromExceptionInfo`).
#[derive(Clone, Copy, Debug)]
pub struct ExceptionInfo {
    facts: Facts,
}

impl ExceptionInfo {
    /// The device the task ran on (`aclrtGetDeviceIdFromExceptionInfo`).
    #[doc(alias = "aclrtGetDeviceIdFromExceptionInfo")]
    pub fn device(&self) -> u32 {
        self.facts.device
    }

    /// The runtime's id of the task's stream
    /// (`aclrtGetStreamIdFromExceptionInfo`), as [`Stream::id`] answers.
    #[doc(alias = "aclrtGetStreamIdFromExceptionInfo")]
    pub fn stream_id(&self) -> u32 {
        self.facts.stream_id
    }

    /// The task's id on its stream (`aclrtGetTaskIdFromExceptionInfo`).
    #[doc(alias = "aclrtGetTaskIdFromExceptionInfo")]
    pub fn task_id(&self) -> u32 {
        self.facts.task_id
    }

    /// The id of the thread the runtime names
    /// (`aclrtGetThreadIdFromExceptionInfo`).
    #[doc(alias = "aclrtGetThreadIdFromExceptionInfo")]
    pub fn thread_id(&self) -> u32 {
        self.facts.thread_id
    }

    /// The failure's ACL error code (`aclrtGetErrorCodeFromExceptionInfo`).
    #[doc(alias = "aclrtGetErrorCodeFromExceptionInfo")]
    pub fn error_code(&self) -> i32 {
        self.facts.code as i32
    }

    /// The failure's classification.
    pub fn kind(&self) -> ErrorKind {
        ErrorKind::from_code(self.error_code())
    }

    /// The failure as an [`Error`] (the one the stream's next
    /// synchronisation is expected to report).
    pub fn error(&self) -> Error {
        raw::error_of(self.facts.code)
    }

    /// Whether the stream it names is one the crate made (or handed out
    /// as a default stream) and still holds: the failure was entered for
    /// it under the failure rule before this closure ran.
    pub fn entered(&self) -> bool {
        self.facts.entered
    }

    /// Whether it names `stream` (its device and id; the stream's id is
    /// asked of the runtime at most once per stream, `aclrtStreamGetId`,
    /// and kept in its record).
    pub fn names(&self, stream: &Stream<'_, '_>) -> bool {
        let (Ok(device), Ok(id)) = (
            i32::try_from(self.facts.device),
            i32::try_from(self.facts.stream_id),
        ) else {
            return false;
        };
        raw::runtime_id_of(stream.raw()) == Some((device, id))
    }
}

/// The registration of an exception handler, made by
/// [`Acl::on_exception`]: the handler runs for every failed task the
/// runtime reports until this is dropped or
/// [`unregistered`](Self::unregister). It borrows the [`Acl`].
#[must_use = "dropping the guard unregisters the handler at once"]
pub struct ExceptionHandler<'acl> {
    id: u64,
    done: bool,
    _acl: PhantomData<&'acl Acl>,
}

impl core::fmt::Debug for ExceptionHandler<'_> {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("ExceptionHandler")
            .field("id", &self.id)
            .finish()
    }
}

impl ExceptionHandler<'_> {
    /// Unregister the handler, waiting for a report that is running it
    /// (unless called from inside a handler, on the report's thread: the
    /// handler then does not run again), and resume the first panic it
    /// raised, if any.
    ///
    /// Errors: the runtime's, from `aclrtExceptionInfoCallbackUnregister`
    /// when this was the last handler (the handler is out of the crate's
    /// book even then, and runs no more).
    #[doc(alias = "aclrtExceptionInfoCallbackUnregister")]
    pub fn unregister(mut self) -> Result<()> {
        self.done = true;
        let (h, result) = raw::remove(self.id);
        let panic = h.as_ref().and_then(raw::take_panic);
        // The closure's drop: under no lock.
        drop(h);
        if let Some(p) = panic {
            std::panic::resume_unwind(p);
        }
        result
    }
}

impl Drop for ExceptionHandler<'_> {
    fn drop(&mut self) {
        if self.done {
            return;
        }
        let (h, _) = raw::remove(self.id);
        let panic = h.as_ref().and_then(raw::take_panic);
        drop(h);
        // A caught panic nobody asked for: its payload is dropped, and a
        // panic of that drop is contained.
        let _ = std::panic::catch_unwind(std::panic::AssertUnwindSafe(move || drop(panic)));
    }
}

impl Acl {
    /// Run `f` for every failed task the runtime reports, on the runtime's
    /// thread, until the returned guard is dropped
    /// (`aclrtExceptionInfoCallbackRegister` of the crate's function, made
    /// when the first handler is registered). A reported failure on a
    /// stream the crate made is entered for that stream under the failure
    /// rule before `f` runs (see [`ExceptionInfo::entered`]).
    ///
    /// `f` must not wait for the device: synchronisations and scopes are
    /// refused inside it ([`Error::InCallback`]). A panic in `f` is caught
    /// and resumed by [`ExceptionHandler::unregister`].
    ///
    /// Errors: the runtime's registration error.
    #[doc(alias = "aclrtExceptionInfoCallbackRegister")]
    #[doc(alias = "aclrtSetExceptionInfoCallback")]
    pub fn on_exception<F>(&self, f: F) -> Result<ExceptionHandler<'_>>
    where
        F: Fn(&ExceptionInfo) + Send + Sync + 'static,
    {
        let id = raw::next_id();
        let handler = Handler {
            f: Box::new(move |facts: &Facts| f(&ExceptionInfo { facts: *facts })),
            panic: std::sync::Mutex::new(None),
        };
        raw::add(id, handler)?;
        Ok(ExceptionHandler {
            id,
            done: false,
            _acl: PhantomData,
        })
    }
}
