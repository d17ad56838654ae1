//! Notifies: a device-side flag one stream records and another waits for
//! (`aclrtCreateNotify`, `aclrtRecordNotify`, `aclrtWaitAndResetNotify`).
//!
//! Unlike an event, a notify may be waited for *before* it is recorded: the
//! wait blocks its stream until a record comes. The types keep:
//! * the device: a [`Notify`] carries its context's brand `'id`, and only a
//!   [`Stream`] of the same brand records or waits for it (a stream of
//!   another context, so of another device, does not compile);
//! * the handle's life: destroying the notify under a queued wait is what
//!   must never happen. Dropping a [`Notify`] that a stream waited for first
//!   synchronises its context, so every wait has ended before
//!   `aclrtDestroyNotify`; a notify waited for more often than this process
//!   recorded it (a wait that no record can end any more) is not destroyed
//!   at all (its stream never finishes: the program's deadlock, reported by
//!   the simulator's audit as a leak, never a destroyed handle under a
//!   wait). Leaking a notify (`mem::forget`) only leaks its handle.
//!
//! A failed record or wait (an error returned) queued nothing and orders
//! nothing, as with events.

use core::marker::PhantomData;
use std::ffi::CString;
use std::sync::Mutex;

use generativity::Id;

use crate::context::Context;
use crate::error::Result;
use crate::ffi::{self, Raw};
use crate::mode::RunMode;
use crate::stream::Stream;

/// A notify of the context branded `'id` (`aclrtCreateNotify`), destroyed on
/// drop (`aclrtDestroyNotify`, after every wait on it has ended).
#[doc(alias = "aclrtNotify")]
#[doc(alias = "aclrtCreateNotify")]
#[doc(alias = "aclrtDestroyNotify")]
pub struct Notify<'ctx, 'id> {
    raw: Raw,
    ctx: Raw,
    /// Records and waits queued by this process (successfully).
    book: Mutex<(u64, u64)>,
    /// Imported from another process, whose records this one cannot count.
    imported: bool,
    _ctx: PhantomData<&'ctx ()>,
    _brand: PhantomData<Id<'id>>,
}

impl core::fmt::Debug for Notify<'_, '_> {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("Notify")
            .field("handle", &self.raw.as_ptr())
            .field("imported", &self.imported)
            .finish()
    }
}

/// The key naming an exported notify, to send to another process
/// ([`Notify::export`], [`Context::import_notify`]).
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct NotifyKey(CString);

impl NotifyKey {
    /// A key received from another process; `None` if it holds a NUL byte.
    pub fn new(key: &str) -> Option<NotifyKey> {
        CString::new(key).ok().map(NotifyKey)
    }

    /// The key as text.
    pub fn as_str(&self) -> &str {
        self.0.to_str().unwrap_or("")
    }
}

/// The text up to the first NUL of a key the runtime wrote.
pub(crate) fn key_of(bytes: &[u8]) -> CString {
    let end = bytes.iter().position(|&b| b == 0).unwrap_or(bytes.len());
    CString::new(&bytes[..end]).expect("no NUL before `end`")
}

impl<'dev, 'id, M: RunMode> Context<'dev, 'id, M> {
    /// Create a notify of this context's device (`aclrtCreateNotify`).
    #[doc(alias = "aclrtCreateNotify")]
    pub fn create_notify(&self) -> Result<Notify<'_, 'id>> {
        ffi::make_current(self.raw())?;
        let raw = ffi::notify::create(self.raw())?;
        Ok(Notify::new(raw, self.raw(), false))
    }

    /// Open a notify another process exported for this one
    /// (`aclrtNotifyImportByKey`).
    #[doc(alias = "aclrtNotifyImportByKey")]
    pub fn import_notify(&self, key: &NotifyKey) -> Result<Notify<'_, 'id>> {
        ffi::make_current(self.raw())?;
        let raw = ffi::notify::import(&key.0, self.raw())?;
        Ok(Notify::new(raw, self.raw(), true))
    }
}

impl<'ctx, 'id> Notify<'ctx, 'id> {
    fn new(raw: Raw, ctx: Raw, imported: bool) -> Self {
        Notify {
            raw,
            ctx,
            book: Mutex::new((0, 0)),
            imported,
            _ctx: PhantomData,
            _brand: PhantomData,
        }
    }

    /// The C handle, for interop and diagnostics.
    pub fn as_raw(&self) -> *mut core::ffi::c_void {
        self.raw.as_ptr()
    }

    /// Its id on the device (`aclrtGetNotifyId`).
    #[doc(alias = "aclrtGetNotifyId")]
    pub fn id(&self) -> Result<u32> {
        ffi::make_current(self.ctx)?;
        ffi::notify::id(self.raw)
    }

    /// Export it for the processes `pids` (`aclrtNotifyGetExportKey`,
    /// `aclrtNotifySetImportPid`): they open it with
    /// [`Context::import_notify`] and record or wait for it on their streams.
    #[doc(alias = "aclrtNotifyGetExportKey")]
    #[doc(alias = "aclrtNotifySetImportPid")]
    pub fn export(&self, pids: &[u32]) -> Result<NotifyKey> {
        ffi::make_current(self.ctx)?;
        let key = ffi::notify::export_key(self.raw)?;
        let pids = crate::vmm::pids_of(pids)?;
        ffi::notify::set_import_pid(self.raw, &pids)?;
        Ok(NotifyKey(key_of(&key)))
    }

    fn note(&self, wait: bool) {
        let mut book = self.book.lock().unwrap_or_else(|e| e.into_inner());
        if wait {
            book.1 += 1;
        } else {
            book.0 += 1;
        }
    }
}

impl Drop for Notify<'_, '_> {
    fn drop(&mut self) {
        let (records, waits) = *self.book.get_mut().unwrap_or_else(|e| e.into_inner());
        if waits > 0 {
            if !self.imported && waits > records {
                // A wait no record can end: never destroyed under it.
                return;
            }
            if ffi::faults::synchronize_context(self.ctx, None).is_err() {
                // Not proven ended: keep the handle.
                return;
            }
        }
        let _ = ffi::make_current(self.ctx);
        let _ = ffi::notify::destroy(self.raw);
    }
}

impl<'ctx, 'id> Stream<'ctx, 'id> {
    /// Record `notify` on this stream (`aclrtRecordNotify`): a stream
    /// waiting for it goes on once the work queued here so far has run.
    #[doc(alias = "aclrtRecordNotify")]
    pub fn record_notify(&self, notify: &Notify<'_, 'id>) -> Result<()> {
        self.bind()?;
        ffi::notify::record(notify.raw, self.raw())?;
        notify.note(false);
        Ok(())
    }

    /// Make work queued on this stream from now on wait until `notify` is
    /// recorded, then reset it (`aclrtWaitAndResetNotify`, no time limit).
    /// The record may be queued later, on another stream of this context.
    #[doc(alias = "aclrtWaitAndResetNotify")]
    pub fn wait_notify(&self, notify: &Notify<'_, 'id>) -> Result<()> {
        self.bind()?;
        ffi::notify::wait(notify.raw, self.raw(), 0)?;
        notify.note(true);
        Ok(())
    }

    /// As [`wait_notify`](Self::wait_notify), failing the stream (its next
    /// synchronisation reports a timeout) if no record comes within
    /// `timeout`.
    ///
    /// Errors: [`Error::InvalidTimeout`](crate::Error::InvalidTimeout) for
    /// zero or more than `i32::MAX` ms.
    #[doc(alias = "aclrtWaitAndResetNotify")]
    pub fn wait_notify_timeout(
        &self,
        notify: &Notify<'_, 'id>,
        timeout: core::time::Duration,
    ) -> Result<()> {
        let ms = ffi::timeout_ms(timeout)?;
        self.bind()?;
        ffi::notify::wait(notify.raw, self.raw(), ms.unsigned_abs())?;
        notify.note(true);
        Ok(())
    }
}
