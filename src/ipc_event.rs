//! Events shared between processes (`aclrtIpcGetEventHandle`,
//! `aclrtIpcOpenEventHandle`): one process records an [`ExIpc`] event, the
//! others make their streams wait for it.
//!
//! * The exporting side: [`Event::ipc_handle`] gives an [`IpcEventHandle`]
//!   that borrows the event, so the event outlives the handle in this
//!   process; its [`key`](IpcEventHandle::key) is the 64 bytes to send to
//!   the other processes. Records go on as with any event
//!   ([`Stream::record`]).
//! * The importing side: [`Context::open_ipc_event`] gives an
//!   [`IpcEvent`], which is not an event this process owns: it cannot be
//!   recorded, timed or destroyed as one; it is closed on drop
//!   (`aclrtDestroyEvent`, the runtime's release of an opened handle,
//!   deferred while a wait on it may still be queued, as for events), and
//!   it borrows its context (brand `'id`), so only streams and lanes of
//!   that context wait for it ([`Stream::wait_ipc_event`],
//!   [`Lane::wait_ipc_event`]) and it is closed before its context goes.
//!
//! A wait for an IPC event behaves as a wait for an event: it orders the
//! waiting stream after the exporter's last record, and a failure of the
//! waiting stream is its own (the failure rule). What the exporter does to
//! its event later (records it again, destroys it) is the other process's;
//! the runtime's answer then is the program's to handle.
//!
//! Chips without IPC events (the 310P) refuse the event's creation and
//! both calls with 207000 ([`ErrorKind::NotSupported`](crate::ErrorKind::NotSupported)).
//! The simulator shares IPC events between its processes through a shared
//! file of the event's records (`sim/FIDELITY.md`, row IPC-EVENT-1).

use core::marker::PhantomData;

use generativity::Id;

use crate::context::Context;
use crate::error::Result;
use crate::event::{Event, EventState, ExIpc};
use crate::ffi::ipc_event::HANDLE_LEN;
use crate::ffi::{self, Raw};
use crate::mode::RunMode;
use crate::scope::Lane;
use crate::stream::Stream;

/// The 64 bytes naming an IPC event (`aclrtIpcEventHandle`), to send to
/// another process ([`IpcEventHandle::key`], [`Context::open_ipc_event`]).
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
pub struct IpcEventKey([u8; HANDLE_LEN]);

impl IpcEventKey {
    /// A key received from another process.
    pub fn from_bytes(bytes: [u8; HANDLE_LEN]) -> IpcEventKey {
        IpcEventKey(bytes)
    }

    /// The bytes to send.
    pub fn to_bytes(self) -> [u8; HANDLE_LEN] {
        self.0
    }
}

impl core::fmt::Debug for IpcEventKey {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        let end = self.0.iter().position(|&b| b == 0).unwrap_or(HANDLE_LEN);
        f.debug_tuple("IpcEventKey")
            .field(&String::from_utf8_lossy(&self.0[..end]))
            .finish()
    }
}

/// An [`ExIpc`] event's handle for other processes
/// (`aclrtIpcGetEventHandle`); borrows the event, which therefore outlives
/// it here.
#[doc(alias = "aclrtIpcGetEventHandle")]
#[derive(Debug)]
pub struct IpcEventHandle<'e> {
    key: IpcEventKey,
    _event: PhantomData<&'e ()>,
}

impl IpcEventHandle<'_> {
    /// The key to send to the processes that wait for the event.
    pub fn key(&self) -> IpcEventKey {
        self.key
    }
}

impl<K, S: EventState> Event<'_, '_, K, S>
where
    K: IsIpc,
{
    /// The handle naming this event for other processes
    /// (`aclrtIpcGetEventHandle`).
    ///
    /// Errors: 207000 ([`NotSupported`](crate::ErrorKind::NotSupported)) on
    /// chips without IPC events.
    #[doc(alias = "aclrtIpcGetEventHandle")]
    pub fn ipc_handle(&self) -> Result<IpcEventHandle<'_>> {
        let bytes = ffi::ipc_event::get_handle(ffi::HandleOwner::handle(self))?;
        crate::rule::exports::event_key_given(bytes);
        Ok(IpcEventHandle {
            key: IpcEventKey(bytes),
            _event: PhantomData,
        })
    }
}

/// The event kinds that have an IPC handle: [`ExIpc`] only.
#[diagnostic::on_unimplemented(
    message = "`{Self}` events cannot be shared with other processes",
    label = "`aclrtIpcGetEventHandle` takes only events created with ACL_EVENT_IPC",
    note = "create the event with `Context::create_event_of::<aclrt::ExIpc>()`"
)]
pub trait IsIpc: crate::event::EventKind {}
impl IsIpc for ExIpc {}

/// An IPC event another process exported, opened in this one
/// (`aclrtIpcOpenEventHandle`): waited for by streams of its context,
/// closed on drop (`aclrtDestroyEvent`), never recorded or destroyed as an
/// event of this process.
#[doc(alias = "aclrtIpcOpenEventHandle")]
pub struct IpcEvent<'ctx, 'id> {
    raw: Raw,
    /// Opened from a key another process gave out: its records are queued
    /// there only, so no escalation of this process discards one, and a
    /// wait on it is never refused as waiting for a discarded record. (A
    /// key this process gave out names an event recorded here, whose
    /// records an escalation may discard: such waits are judged as waits
    /// on an event of this process whose record is not known.)
    foreign: bool,
    _ctx: PhantomData<&'ctx ()>,
    _brand: PhantomData<Id<'id>>,
}

impl core::fmt::Debug for IpcEvent<'_, '_> {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("IpcEvent")
            .field("handle", &self.raw.as_ptr())
            .finish()
    }
}

impl ffi::HandleOwner for IpcEvent<'_, '_> {
    fn handle(&self) -> Raw {
        self.raw
    }
}

impl<'dev, 'id, M: RunMode> Context<'dev, 'id, M> {
    /// Open an IPC event another process exported (`aclrtIpcOpenEventHandle`)
    /// in this context.
    ///
    /// Errors: 207000 ([`NotSupported`](crate::ErrorKind::NotSupported)) on
    /// chips without IPC events; the runtime's for a key that names no
    /// exported event.
    #[doc(alias = "aclrtIpcOpenEventHandle")]
    pub fn open_ipc_event(&self, key: &IpcEventKey) -> Result<IpcEvent<'_, 'id>> {
        ffi::make_current(self.raw())?;
        let foreign = !crate::rule::exports::event_key_is_ours(&key.0);
        let raw = ffi::ipc_event::open_handle(&key.0, self.raw())?;
        Ok(IpcEvent {
            raw,
            foreign,
            _ctx: PhantomData,
            _brand: PhantomData,
        })
    }
}

impl IpcEvent<'_, '_> {
    /// The C handle, for interop and diagnostics.
    pub fn as_raw(&self) -> *mut core::ffi::c_void {
        self.raw.as_ptr()
    }
}

impl Drop for IpcEvent<'_, '_> {
    fn drop(&mut self) {
        // Deferred while a stream wait on it may be queued (`ffi::waits`);
        // a scope borrows it for its waits.
        let _ = ffi::destroy_event(self.raw);
    }
}

impl<'ctx, 'id> Stream<'ctx, 'id> {
    /// Make work queued on this stream from now on wait for the exporter's
    /// last record of the IPC event (`aclrtStreamWaitEvent`).
    #[doc(alias = "aclrtStreamWaitEvent")]
    pub fn wait_ipc_event(&self, event: &IpcEvent<'_, 'id>) -> Result<()> {
        self.bind()?;
        if event.foreign {
            ffi::scope::wait_foreign_event_outside(self.raw(), self.ctx_raw(), event.raw)
        } else {
            ffi::scope::wait_event_outside(self.raw(), self.ctx_raw(), event.raw)
        }
    }
}

impl<'scope, 'env, 'id, 'sid, M: RunMode> Lane<'scope, 'env, 'id, 'sid, M> {
    /// Make this lane wait for the exporter's last record of the IPC event
    /// (`aclrtStreamWaitEvent`); the event stays borrowed until the scope
    /// ends.
    #[doc(alias = "aclrtStreamWaitEvent")]
    pub fn wait_ipc_event(&self, event: &'scope IpcEvent<'_, 'id>) -> Result<()> {
        if event.foreign {
            self.core().wait_foreign_event(event)
        } else {
            self.core().wait_event(event)
        }
    }
}
