//! Notifies as a hand-off between a scope's lanes, beside events: one lane
//! records a notify ([`Lane::record_notify`]), another waits for it
//! ([`Lane::wait_notify`]), and the wait may be queued first.
//!
//! # What the types and the scope guarantee
//! * [`Scope::notify`] takes the [`Notify`] exclusively (`&'scope mut`)
//!   for the rest of the scope and gives a [`ScopeNotify`], a copyable
//!   handle whose lifetime is the scope's own (invariant): the lanes of
//!   this scope only — not a nested scope's, not a stream outside — record
//!   or wait for it, so every record and wait of the notify in this
//!   process while the scope is open is one the scope counts. The notify
//!   outlives every task that uses it (the scope synchronises or aborts its
//!   lanes before the borrow ends), and its context brand keeps it on
//!   streams of its own device.
//! * **The failure rule.** A wait without a time limit that no record
//!   queued by the scope can end — the lane that was to record failed
//!   first: the body returned an error or panicked before the record, the
//!   record call failed, or the record was queued behind the wait on the
//!   same lane — never hangs the program: a synchronisation of that lane
//!   (a checked wait, [`Lane::synchronize`], [`Scope::recover`]) answers
//!   [`Error::NotifyNotRecorded`](crate::Error::NotifyNotRecorded) at once,
//!   and the scope's end aborts every stream of the scope
//!   (`aclrtStreamAbort`, the escalation a deadline takes for events: the
//!   runtime has no other way to release a queued notify wait but a
//!   record, which would let the waiting lane's later work run as if the
//!   hand-off had happened) and reports that error. A failed *task* before
//!   the record on the recording lane does not keep the record from
//!   running (the runtime goes on after a failed task; the failure is the
//!   stream's, as for events): the waiting lane is released and the
//!   failure rule reports the failure to the scope's checked waits. A
//!   failed *record* sets nothing: before the scope synchronises a lane
//!   whose wait a record of another lane matched, it learns whether that
//!   record ran (the recording lane, once idle, synchronised and its
//!   failures read); one that may have failed leaves its wait unmatched,
//!   with the refusal and the abort above. (Two lanes that each wait for
//!   the other's failed record never become idle: a deadline ends that.)
//! * A blocking synchronisation of a stream where a scope open on this
//!   thread waits for a notify that no record matched yet — a nested
//!   scope's, [`Stream::synchronize`](crate::Stream::synchronize), the
//!   context's — is refused with the same error: only this thread could
//!   queue the record. In a thread-local destructor that runs after the
//!   crate's own thread-locals are gone, a wait without a time limit is
//!   refused up front ([`Error::InCallback`](crate::Error::InCallback)).
//! * A notify is one flag: two records that both run before a wait
//!   consumes the first set it once. Records the scope matched with waits
//!   may coalesce that way if nothing orders them after the waits they
//!   match (record, record, then wait, wait on another lane); the second
//!   wait then waits for a record that already ran. That is the program's
//!   own deadlock; a scope with a deadline
//!   ([`Context::scope_with_timeout`](crate::Context::scope_with_timeout))
//!   ends it by the same escalation. Alternate records and waits (a
//!   ping-pong of two notifies, as `examples/26_notify_pipeline.rs` does
//!   outside scopes) and no record can be lost.
//! * A notify imported from or exported to another process is refused
//!   ([`Error::NotifyShared`](crate::Error::NotifyShared)): its records and
//!   waits there are outside the scope's count.

use core::marker::PhantomData;

use crate::error::{Error, Result};
use crate::ffi::Raw;
use crate::mode::RunMode;
use crate::notify::Notify;
use crate::scope::{Lane, Scope};

/// A [`Notify`] held by one scope for its whole life
/// ([`Scope::notify`]), recorded and waited for by that scope's lanes.
/// Copyable; its lifetime is the scope's own, so no other scope's lane
/// accepts it.
#[derive(Clone, Copy)]
pub struct ScopeNotify<'scope, 'id> {
    notify: &'scope Notify<'scope, 'id>,
    /// Invariant in `'scope`: a nested scope's lanes (another `'scope`)
    /// do not accept it.
    _scope: PhantomData<fn(&'scope ()) -> &'scope ()>,
}

impl core::fmt::Debug for ScopeNotify<'_, '_> {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("ScopeNotify")
            .field("handle", &self.notify.as_raw())
            .finish()
    }
}

impl<'scope, 'env, 'id, M: RunMode> Scope<'scope, 'env, 'id, M> {
    /// Take `notify` for the rest of the scope, as a hand-off between its
    /// lanes ([`Lane::record_notify`], [`Lane::wait_notify`]); see the
    /// failure rule in [`ScopeNotify`]'s module docs.
    ///
    /// Errors: [`Error::NotifyShared`] for a notify imported from or
    /// exported to another process.
    pub fn notify<'n>(
        &'scope self,
        notify: &'scope mut Notify<'n, 'id>,
    ) -> Result<ScopeNotify<'scope, 'id>>
    where
        'n: 'scope,
    {
        if notify.shared_with_processes() {
            return Err(Error::NotifyShared);
        }
        let notify: &'scope Notify<'n, 'id> = notify;
        Ok(ScopeNotify {
            notify,
            _scope: PhantomData,
        })
    }
}

impl<'scope, 'env, 'id, 'sid, M: RunMode> Lane<'scope, 'env, 'id, 'sid, M> {
    /// Record `notify` on this lane (`aclrtRecordNotify`): a lane waiting
    /// for it goes on once the work queued here so far has run.
    #[doc(alias = "aclrtRecordNotify")]
    pub fn record_notify(&self, notify: ScopeNotify<'scope, 'id>) -> Result<()> {
        self.core().record_notify(raw_of(notify))
    }

    /// Make this lane's later work wait until `notify` is recorded, then
    /// reset it (`aclrtWaitAndResetNotify`, no time limit). The record may
    /// be queued later, on another lane of this scope; if none is by the
    /// scope's end, the scope aborts its streams and reports
    /// [`Error::NotifyNotRecorded`] (the failure rule, [`ScopeNotify`]).
    #[doc(alias = "aclrtWaitAndResetNotify")]
    pub fn wait_notify(&self, notify: ScopeNotify<'scope, 'id>) -> Result<()> {
        self.core().wait_notify(raw_of(notify), 0)?;
        notify.notify.waited(self.core().stream());
        Ok(())
    }

    /// As [`wait_notify`](Self::wait_notify), failing the lane (the
    /// failure rule reports it to the scope's checked waits) if no record
    /// comes within `timeout`, rounded up to whole seconds as the runtime
    /// counts. Such a wait ends by itself: the scope does not count it.
    ///
    /// Errors: [`Error::InvalidTimeout`] for zero or more than `i32::MAX`
    /// ms.
    #[doc(alias = "aclrtWaitAndResetNotify")]
    pub fn wait_notify_timeout(
        &self,
        notify: ScopeNotify<'scope, 'id>,
        timeout: core::time::Duration,
    ) -> Result<()> {
        let secs = crate::ffi::timeout_ms(timeout)?
            .unsigned_abs()
            .div_ceil(1000);
        self.core().wait_notify(raw_of(notify), secs)?;
        notify.notify.waited(self.core().stream());
        Ok(())
    }
}

fn raw_of(notify: ScopeNotify<'_, '_>) -> Raw {
    notify.notify.raw()
}
