//! A scope's lanes record and wait for notifies: the C calls, entered in
//! the scope's ledger once they succeeded (`scope::notifies`, where the
//! rule is). Bookkeeping with no `unsafe`.
#![deny(unsafe_code)]

use super::super::super::Raw;
use super::super::super::notify as raw;
use super::LaneCore;
use crate::error::Result;

impl LaneCore<'_, '_> {
    /// Queue a record of `notify` on this lane (`aclrtRecordNotify`); the
    /// ledger enters it once the call succeeded.
    pub(crate) fn record_notify(&self, notify: Raw) -> Result<()> {
        self.bind()?;
        let stream = self.stream();
        raw::record(notify, stream)?;
        let clock = super::super::super::faults::now();
        self.core
            .book
            .book()
            .notifies
            .recorded_at(notify, stream, clock);
        self.core.book.publish_pending();
        Ok(())
    }

    /// Queue a wait for `notify` on this lane (`aclrtWaitAndResetNotify`,
    /// `secs` as the runtime counts: 0 is no limit); a wait without a
    /// limit is entered in the ledger once the call succeeded.
    pub(crate) fn wait_notify(&self, notify: Raw, secs: u32) -> Result<()> {
        if secs == 0 && !super::super::can_guard_waits() {
            // A thread-local destructor after the thread's list of
            // unmatched waits was destroyed: a synchronisation of this
            // stream on this thread could not be refused.
            return Err(crate::error::Error::InCallback {
                operation: "Lane::wait_notify after the thread's locals were destroyed",
            });
        }
        self.bind()?;
        let stream = self.stream();
        raw::wait(notify, stream, secs)?;
        if secs == 0 {
            self.core.book.book().notifies.waited(notify, stream);
            self.core.book.publish_pending();
        }
        Ok(())
    }
}
