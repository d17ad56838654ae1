//! Device memory shared between processes (`aclrtIpcMemGetExportKey`,
//! `aclrtIpcMemSetImportPid`, `aclrtIpcMemImportByKey`, `aclrtIpcMemClose`).
//!
//! * The exporting side: [`Context::export_ipc`] borrows the
//!   [`DeviceBuffer`] for as long as its [`IpcExport`] lives (the key is
//!   closed on drop), so the buffer cannot be freed while exported. A
//!   forgotten export (`mem::forget`) leaves its key open in the runtime:
//!   the buffer is then never freed ([`DeviceBuffer::free`] answers
//!   [`Error::LiveChildren`] and its drop leaks it), so no other process
//!   is left a key to freed memory.
//! * The importing side: [`Context::import_ipc`] gives an [`IpcMemory`],
//!   which is not owned memory: it has no `free`, it is closed
//!   (`aclrtIpcMemClose`) on drop, and it borrows its context, so it is
//!   closed before its context (and device) goes. Its bytes are device
//!   memory of that context (the brand `'id`), usable through
//!   [`IpcMemory::view`] and [`IpcMemory::view_mut`] wherever a view of a
//!   [`DeviceBuffer`] is. The other process may write the same bytes at any
//!   time: ordering between processes is the program's (an exported notify
//!   orders them).

use core::marker::PhantomData;
use std::ffi::CString;

use generativity::Id;

use crate::context::Context;
use crate::error::{Error, Result};
use crate::ffi::{self, Raw};
use crate::memory::{DeviceBuffer, DeviceRepr, DeviceView, DeviceViewMut};
use crate::mode::RunMode;
use crate::notify::key_of;
use crate::rule::exports::{self, IpcKeyEntry};

/// The key naming exported device memory, to send to another process.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct IpcKey(CString);

impl IpcKey {
    /// A key received from another process; `None` if it holds a NUL byte.
    pub fn new(key: &str) -> Option<IpcKey> {
        CString::new(key).ok().map(IpcKey)
    }

    /// The key as text.
    pub fn as_str(&self) -> &str {
        self.0.to_str().unwrap_or("")
    }
}

/// A [`DeviceBuffer`] exported for other processes; borrows the buffer, and
/// closes the export (`aclrtIpcMemClose`) on drop.
#[doc(alias = "aclrtIpcMemGetExportKey")]
pub struct IpcExport<'b> {
    key: IpcKey,
    ctx: Raw,
    _buf: PhantomData<&'b ()>,
}

impl core::fmt::Debug for IpcExport<'_> {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("IpcExport").field("key", &self.key).finish()
    }
}

/// Device memory another process exported, opened in this one
/// (`aclrtIpcMemImportByKey`); closed on drop (`aclrtIpcMemClose`), never
/// freed by this process.
#[doc(alias = "aclrtIpcMemImportByKey")]
#[doc(alias = "aclrtIpcMemClose")]
pub struct IpcMemory<'ctx, 'id, T> {
    span: ffi::vmm::Span,
    key: IpcKey,
    ctx: Raw,
    _ctx: PhantomData<&'ctx ()>,
    _brand: PhantomData<Id<'id>>,
    _elem: PhantomData<T>,
}

impl<T> core::fmt::Debug for IpcMemory<'_, '_, T> {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("IpcMemory")
            .field("key", &self.key)
            .field("bytes", &self.span.bytes())
            .finish()
    }
}

impl<'dev, 'id, M: RunMode> Context<'dev, 'id, M> {
    /// Export `buf` for the processes `pids` (`aclrtIpcMemGetExportKey`,
    /// `aclrtIpcMemSetImportPid`). The buffer stays borrowed until the
    /// export is dropped.
    #[doc(alias = "aclrtIpcMemGetExportKey")]
    #[doc(alias = "aclrtIpcMemSetImportPid")]
    pub fn export_ipc<'b, T: DeviceRepr>(
        &self,
        buf: &'b DeviceBuffer<'_, 'id, T>,
        pids: &[u32],
    ) -> Result<IpcExport<'b>> {
        ffi::make_current(self.raw())?;
        let region = buf.view(..)?.mem().region();
        // The list is held from the key's making to its entry, so no
        // import of this process slips in between.
        let mut list = exports::ipc();
        let key = IpcKey(key_of(&ffi::ipc::mem_export_key(region.ptr, region.bytes)?));
        // The runtime answers a buffer exported again with the key it has:
        // each export counts once in the list, and the key is closed when
        // the last one goes. While any is open the allocation is never
        // freed (a forgotten export leaks its buffer).
        list.push(IpcKeyEntry {
            key: key.0.clone(),
            addr: region.ptr.as_ptr() as usize,
        });
        exports::ipc_changed(&list);
        drop(list);
        let export = IpcExport {
            key,
            ctx: self.raw(),
            _buf: PhantomData,
        };
        let pids = crate::vmm::pids_of(pids, "aclrtIpcMemSetImportPid")?;
        ffi::ipc::mem_set_import_pid(&export.key.0, &pids)?;
        Ok(export)
    }

    /// Open device memory another process exported for this one
    /// (`aclrtIpcMemImportByKey`), as elements of `T`.
    ///
    /// A key this process exported itself (and has not closed) is refused
    /// ([`ErrorKind::InvalidParam`](crate::ErrorKind::InvalidParam)): the
    /// memory is a [`DeviceBuffer`] here already, and a second, writable
    /// name for it would alias it.
    ///
    /// Errors: the runtime's (a process not on the export's allow-list is
    /// refused with [`ErrorKind::InvalidParam`](crate::ErrorKind) or a
    /// permission error); [`Error::InvalidAllocationSize`] if the memory
    /// holds no whole `T`.
    #[doc(alias = "aclrtIpcMemImportByKey")]
    pub fn import_ipc<T: DeviceRepr>(&self, key: &IpcKey) -> Result<IpcMemory<'_, 'id, T>> {
        ffi::make_current(self.raw())?;
        // Held over the import, so no export of this process makes the key
        // meanwhile.
        let list = exports::ipc();
        if list.iter().any(|e| e.key == key.0) {
            // Memory this process owns: a second name for it is refused.
            return Err(ffi::acl_error(
                aclrt_sys::ACL_ERROR_INVALID_PARAM,
                "aclrtIpcMemImportByKey",
            ));
        }
        let addr = ffi::ipc::mem_import(&key.0)?;
        drop(list);
        let close = |e: Error| {
            let _ = ffi::ipc::mem_close(&key.0);
            e
        };
        let bytes = ffi::ipc::allocation_size(addr).map_err(close)?;
        let size = core::mem::size_of::<T>();
        let Some(bytes) = bytes.filter(|&b| size != 0 && b >= size) else {
            return Err(close(Error::InvalidAllocationSize {
                len: 0,
                elem_size: size,
            }));
        };
        ffi::live::child_created(addr.as_ptr() as usize, self.raw());
        Ok(IpcMemory {
            span: ffi::vmm::Span::new(addr, bytes),
            key: key.clone(),
            ctx: self.raw(),
            _ctx: PhantomData,
            _brand: PhantomData,
            _elem: PhantomData,
        })
    }
}

impl IpcExport<'_> {
    /// The key to send to the allowed processes.
    pub fn key(&self) -> &IpcKey {
        &self.key
    }
}

impl Drop for IpcExport<'_> {
    fn drop(&mut self) {
        let mut list = exports::ipc();
        if let Some(i) = list.iter().position(|e| e.key == self.key.0) {
            list.swap_remove(i);
        }
        exports::ipc_changed(&list);
        if !list.iter().any(|e| e.key == self.key.0) {
            // The last export of the key: closed while the list is held,
            // so an export of the same buffer meanwhile gets a fresh key.
            let _ = ffi::make_current(self.ctx);
            let _ = ffi::ipc::mem_close(&self.key.0);
        }
    }
}

impl<'id, T: DeviceRepr> IpcMemory<'_, 'id, T> {
    /// Number of whole elements.
    pub fn len(&self) -> usize {
        self.span.bytes() / core::mem::size_of::<T>()
    }

    /// Never true (an import holds at least one element).
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The memory, readable wherever a view of a [`DeviceBuffer`] is.
    pub fn view(&self) -> DeviceView<'_, 'id, T> {
        DeviceView::from_mapped(self.span.mem())
    }

    /// The memory, writable.
    pub fn view_mut(&mut self) -> DeviceViewMut<'_, 'id, T> {
        DeviceViewMut::from_mapped(self.span.mem_mut())
    }
}

impl<T> Drop for IpcMemory<'_, '_, T> {
    fn drop(&mut self) {
        let _ = ffi::make_current(self.ctx);
        if ffi::ipc::mem_close(&self.key.0).is_ok() {
            ffi::live::child_released(self.span.start().as_ptr() as usize);
        }
    }
}
