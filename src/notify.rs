//! Notifies: a device-side flag one stream records and another waits for
//! (`aclrtCreateNotify`, `aclrtRecordNotify`, `aclrtWaitAndResetNotify`).
//!
//! Unlike an event, a notify may be waited for *before* it is recorded: the
//! wait blocks its stream until a record comes. The types keep:
//! * the device: a [`Notify`] carries its context's brand `'id`, and only a
//!   [`Stream`] of the same brand records or waits for it (a stream of
//!   another context, so of another device, does not compile);
//! * the handle's life: destroying the notify under a queued wait is what
//!   must never happen. Dropping a [`Notify`] destroys it only when every
//!   stream that waited for it is idle (queried, not synchronised, so a
//!   stream's failure stays for that stream's own synchronisation) or
//!   destroyed: synchronise the waiting streams first, as the examples do.
//!   Otherwise the handle is kept (leaked, and with it its context, whose
//!   destruction then reports [`Error::LiveChildren`](crate::Error::LiveChildren)),
//!   never destroyed under a wait (a wait no record can end is the
//!   program's deadlock, and keeps its notify). Leaking a notify
//!   (`mem::forget`) only leaks its handle.
//!
//! A failed record or wait (an error returned) queued nothing and orders
//! nothing, as with events.

use core::marker::PhantomData;
use std::ffi::CString;
use std::sync::Mutex;
use std::sync::atomic::{AtomicBool, Ordering};

use generativity::Id;

use crate::context::Context;
use crate::error::Result;
use crate::ffi::{self, Raw};
use crate::mode::RunMode;
use crate::rule::locks::{Rank, lock};
use crate::stream::Stream;

/// A notify of the context branded `'id` (`aclrtCreateNotify`), destroyed on
/// drop (`aclrtDestroyNotify`, after every wait on it has ended).
#[doc(alias = "aclrtNotify")]
#[doc(alias = "aclrtCreateNotify")]
#[doc(alias = "aclrtDestroyNotify")]
pub struct Notify<'ctx, 'id> {
    raw: Raw,
    ctx: Raw,
    /// What this process queued on it (successfully).
    book: Mutex<Book>,
    /// Imported from another process, whose records this one cannot count.
    imported: bool,
    /// Exported ([`Notify::export`]): another process may record or wait.
    exported: AtomicBool,
    _ctx: PhantomData<&'ctx ()>,
    _brand: PhantomData<Id<'id>>,
}

/// The waits queued on a notify by this process.
#[derive(Default)]
struct Book {
    /// The streams that waited for it.
    waited_on: Vec<Raw>,
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
            book: Mutex::new(Book::default()),
            imported,
            exported: AtomicBool::new(false),
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
        self.exported.store(true, Ordering::Relaxed);
        let key = ffi::notify::export_key(self.raw)?;
        let pids = crate::vmm::pids_of(pids, "aclrtNotifySetImportPid")?;
        ffi::notify::set_import_pid(self.raw, &pids)?;
        Ok(NotifyKey(key_of(&key)))
    }

    /// Whether it came from, or was offered to, another process (whose
    /// records and waits no scope of this one can count).
    pub(crate) fn shared_with_processes(&self) -> bool {
        self.imported || self.exported.load(Ordering::Relaxed)
    }

    /// The handle.
    pub(crate) fn raw(&self) -> Raw {
        self.raw
    }

    /// Enters a wait of `stream`.
    pub(crate) fn waited(&self, stream: Raw) {
        let mut book = lock(&self.book, Rank::NotifyBook);
        if !book.waited_on.contains(&stream) {
            book.waited_on.push(stream);
        }
    }

    /// Whether every stream that waited for it is idle now (queried, never
    /// synchronised: a failure stays for its stream's own synchronisation)
    /// or destroyed (its tasks went with it).
    fn waits_ended(&self, streams: &[Raw]) -> bool {
        if ffi::make_current(self.ctx).is_err() {
            return false;
        }
        let mut ok = true;
        let mut live = Vec::new();
        ffi::record::each_stream_of(self.ctx, |s| {
            if streams.contains(&s) {
                live.push(s);
                ok = matches!(ffi::stream_query(s), Ok(true));
            }
            ok
        });
        let default = ffi::live::default_stream_of(self.ctx);
        for &s in streams {
            if ok && !live.contains(&s) && Some(s) == default {
                // The default stream lives as long as the context, which
                // this notify borrows.
                ok = matches!(ffi::stream_query(s), Ok(true));
            }
        }
        ok
    }
}

impl Drop for Notify<'_, '_> {
    fn drop(&mut self) {
        let book = core::mem::take(self.book.get_mut().unwrap_or_else(|e| e.into_inner()));
        if !book.waited_on.is_empty() && !self.waits_ended(&book.waited_on) {
            // A wait may still be queued: keep the handle.
            return;
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
        ffi::notify::record(notify.raw, self.raw())
    }

    /// Make work queued on this stream from now on wait until `notify` is
    /// recorded, then reset it (`aclrtWaitAndResetNotify`, no time limit).
    /// The record may be queued later, on another stream of this context.
    #[doc(alias = "aclrtWaitAndResetNotify")]
    pub fn wait_notify(&self, notify: &Notify<'_, 'id>) -> Result<()> {
        self.bind()?;
        ffi::notify::wait(notify.raw, self.raw(), 0)?;
        notify.waited(self.raw());
        Ok(())
    }

    /// As [`wait_notify`](Self::wait_notify), failing the stream (its next
    /// synchronisation reports the fault) if no record comes within
    /// `timeout`. The runtime counts the limit in whole seconds: `timeout`
    /// is rounded up to the next second.
    ///
    /// Errors: [`Error::InvalidTimeout`](crate::Error::InvalidTimeout) for
    /// zero or more than `i32::MAX` ms.
    #[doc(alias = "aclrtWaitAndResetNotify")]
    pub fn wait_notify_timeout(
        &self,
        notify: &Notify<'_, 'id>,
        timeout: core::time::Duration,
    ) -> Result<()> {
        let secs = ffi::timeout_ms(timeout)?.unsigned_abs().div_ceil(1000);
        self.bind()?;
        ffi::notify::wait(notify.raw, self.raw(), secs)?;
        notify.waited(self.raw());
        Ok(())
    }
}
