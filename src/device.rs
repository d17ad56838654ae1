//! Devices: [`Device`] (`aclrtSetDevice` / `aclrtResetDevice`).

use core::marker::PhantomData;
use core::sync::atomic::Ordering;

use generativity::Guard;

use crate::context::{Context, DefaultContext, check_len};
use crate::error::{Error, Result};
use crate::ffi::{self, Raw};
use crate::memory::{DeviceMemory, DeviceResident, MemoryMut};
use crate::mode::RunMode;

/// Per-device bookkeeping owned by [`Acl`](crate::Acl); a [`Device`] is a reference to one.
#[derive(Debug)]
pub(crate) struct DeviceSlot {
    pub(crate) id: i32,
    /// The device's default context, recorded at each `aclrtSetDevice`.
    pub(crate) default_ctx: core::sync::atomic::AtomicPtr<core::ffi::c_void>,
    /// Live [`PeerAccess`](crate::PeerAccess) tokens from this device, by
    /// peer id: access is enabled with the first and disabled with the last.
    pub(crate) peer_tokens: std::sync::Mutex<Vec<u32>>,
}

/// An open device (`aclrtSetDevice`), borrowing the [`Acl`](crate::Acl) for
/// `'acl`, in run mode `M`.
///
/// Each `Device` holds one reference on the runtime's per-device reference
/// count; it is released by [`reset`](Device::reset) (which reports errors) or
/// on drop. Contexts made through it borrow it, so it cannot be reset while
/// one lives. One pointer wide (`Option<Device>` too).
///
/// `Send` and `Sync`: the reference count is process-wide, and every
/// operation makes the right context current on the calling thread first.
#[doc(alias = "aclrtSetDevice")]
#[doc(alias = "aclrtResetDevice")]
#[derive(Debug)]
pub struct Device<'acl, M: RunMode> {
    slot: &'acl DeviceSlot,
    _mode: PhantomData<M>,
}

impl<'acl, M: RunMode> Device<'acl, M> {
    pub(crate) fn open(slot: &'acl DeviceSlot) -> Result<Self> {
        ffi::set_device(slot.id)?;
        let device = Device {
            slot,
            _mode: PhantomData,
        };
        // aclrtSetDevice made the default context current on this thread.
        let ctx = ffi::current_context()?.ok_or_else(|| {
            ffi::acl_error(
                aclrt_sys::ACL_ERROR_RT_CONTEXT_NULL,
                "aclrtGetCurrentContext",
            )
        })?;
        slot.default_ctx.store(ctx.as_ptr(), Ordering::Release);
        ffi::live::default_context(slot.id, ctx);
        Ok(device)
    }

    /// The device id.
    pub fn id(&self) -> u32 {
        self.slot.id as u32
    }

    pub(crate) fn default_raw(&self) -> Raw {
        Raw::from_live(self.slot.default_ctx.load(Ordering::Acquire))
    }

    /// Before this reference is released: events of the default context
    /// whose destruction waits for a stream wait (`Stream::wait_event`) are
    /// destroyed first. (Nothing to do while the default context is not
    /// known yet: `open` failed before recording it.)
    fn flush_default_context(&self) -> Result<()> {
        match core::ptr::NonNull::new(self.slot.default_ctx.load(Ordering::Acquire)) {
            Some(ctx) => ffi::waits::flush_context(Raw::from_live(ctx.as_ptr())),
            None => Ok(()),
        }
    }

    /// Create an explicit context on this device (`aclrtCreateContext`),
    /// branded by `guard` (from [`make_guard!`](crate::make_guard)).
    ///
    /// ```
    /// # let _sim = aclrt::sim::exclusive();
    /// let acl = aclrt::Acl::init()?;
    /// let device = acl.require::<aclrt::HostMode>()?.device(0)?;
    /// aclrt::make_guard!(guard);
    /// let ctx = device.create_context(guard)?;
    /// let stream = ctx.create_stream()?;
    /// # Ok::<(), aclrt::Error>(())
    /// ```
    #[doc(alias = "aclrtCreateContext")]
    pub fn create_context<'id>(&self, guard: Guard<'id>) -> Result<Context<'_, 'id, M>> {
        let raw = ffi::create_context(self.slot.id)?;
        Ok(Context::owned(raw, guard))
    }

    /// Create an explicit context, hand it to `f` with a brand of its own,
    /// and destroy it when `f` returns (`aclrtCreateContext`, then
    /// `aclrtDestroyContext`, whose error is reported).
    ///
    /// The closure form of [`create_context`](Self::create_context) for code
    /// that cannot use [`make_guard!`](crate::make_guard) (a library
    /// function handing a context to its caller's code, a whole program
    /// written as `f`): the brand `'id` is a fresh lifetime of the
    /// higher-ranked closure (as in `std::thread::scope` or GhostCell), so
    /// nothing made through the context can leave `f`, and two contexts
    /// from two calls can never be mixed. See the guide chapter
    /// [*Structuring an application*](crate::guide::structuring).
    ///
    /// ```
    /// # let _sim = aclrt::sim::exclusive();
    /// let acl = aclrt::Acl::init()?;
    /// let device = acl.require::<aclrt::HostMode>()?.device(0)?;
    /// let sum = device.with_context(|ctx| -> aclrt::Result<u32> {
    ///     let on_device = ctx.alloc_from(&[1u32, 2, 3])?;
    ///     let mut back = [0u32; 3];
    ///     ctx.download(&on_device, &mut back)?;
    ///     Ok(back.iter().sum())
    /// })??;
    /// assert_eq!(sum, 6);
    /// # Ok::<(), aclrt::Error>(())
    /// ```
    ///
    /// Errors: the outer `Result` is the context's creation or destruction;
    /// `f`'s own result is returned inside it.
    #[doc(alias = "aclrtCreateContext")]
    pub fn with_context<R, F>(&self, f: F) -> Result<R>
    where
        F: for<'ctx, 'id> FnOnce(&'ctx Context<'_, 'id, M>) -> R,
    {
        generativity::make_guard!(guard);
        let ctx = self.create_context(guard)?;
        let out = f(&ctx);
        ctx.destroy()?;
        Ok(out)
    }

    /// The device's default context, as a view that cannot be destroyed,
    /// branded by `guard`.
    pub fn default_context<'id>(&self, guard: Guard<'id>) -> DefaultContext<'_, 'id, M> {
        DefaultContext::new(self.default_raw(), guard)
    }

    /// Wait for all work of the device's default context, stream by stream
    /// as [`Context::synchronize`](crate::Context::synchronize) does.
    #[doc(alias = "aclrtSynchronizeDevice")]
    pub fn synchronize(&self) -> Result<()> {
        let ticket = ffi::waits::ticket();
        ffi::faults::synchronize_context(self.default_raw(), None)?;
        ffi::waits::synchronized_context_since(self.default_raw(), ticket);
        Ok(())
    }

    /// As [`synchronize`](Self::synchronize), giving up after `timeout`
    /// (`aclrtSynchronizeDeviceWithTimeout` with the default context
    /// current); a timeout is an error whose [`kind`](crate::Error::kind) is
    /// [`Timeout`](crate::ErrorKind::Timeout). A zero timeout, or one above
    /// `i32::MAX` ms, is [`Error::InvalidTimeout`] (the runtime has no "poll
    /// once": it rejects 0).
    ///
    /// ```
    /// # let _sim = aclrt::sim::exclusive();
    /// let acl = aclrt::Acl::init()?;
    /// let device = acl.require::<aclrt::HostMode>()?.device(0)?;
    /// device.synchronize_timeout(std::time::Duration::from_secs(1))?;
    /// # Ok::<(), aclrt::Error>(())
    /// ```
    #[doc(alias = "aclrtSynchronizeDeviceWithTimeout")]
    pub fn synchronize_timeout(&self, timeout: core::time::Duration) -> Result<()> {
        let ms = ffi::timeout_ms(timeout)?;
        let ticket = ffi::waits::ticket();
        ffi::faults::synchronize_context(self.default_raw(), Some(ms))?;
        ffi::waits::synchronized_context_since(self.default_raw(), ticket);
        Ok(())
    }

    /// Whether this device can access `peer`'s memory (`aclrtDeviceCanAccessPeer`).
    #[doc(alias = "aclrtDeviceCanAccessPeer")]
    pub fn can_access_peer(&self, peer: &Device<'acl, M>) -> Result<bool> {
        ffi::can_access_peer(self.slot.id, peer.slot.id)
    }

    /// Free and total bytes of device memory (`aclrtGetMemInfo` with `ACL_HBM_MEM`).
    #[doc(alias = "aclrtGetMemInfo")]
    pub fn memory_info(&self) -> Result<MemoryInfo> {
        self.memory_info_of(MemAttr::Hbm)
    }

    /// Free and total bytes of one kind of memory (`aclrtGetMemInfo` with
    /// `attr`). Per the documentation, hardware without HBM answers an HBM
    /// query as the matching DDR query, and a kind the hardware does not
    /// have reports `free == total == 0` (not an error).
    ///
    /// ```
    /// # let _sim = aclrt::sim::exclusive();
    /// use aclrt::MemAttr;
    /// let acl = aclrt::Acl::init()?;
    /// let device = acl.require::<aclrt::HostMode>()?.device(0)?;
    /// for attr in MemAttr::ALL {
    ///     let info = device.memory_info_of(attr)?;
    ///     assert!(info.free <= info.total, "{attr:?}");
    /// }
    /// # Ok::<(), aclrt::Error>(())
    /// ```
    #[doc(alias = "aclrtGetMemInfo")]
    pub fn memory_info_of(&self, attr: MemAttr) -> Result<MemoryInfo> {
        ffi::make_current(self.default_raw())?;
        let (free, total) = ffi::mem_info(attr.to_raw())?;
        Ok(MemoryInfo { free, total })
    }

    /// How many more streams this device can create (`aclrtGetStreamAvailableNum`).
    #[doc(alias = "aclrtGetStreamAvailableNum")]
    pub fn streams_available(&self) -> Result<u32> {
        ffi::make_current(self.default_raw())?;
        ffi::stream_available()
    }

    /// The stream priorities the device supports
    /// (`aclrtDeviceGetStreamPriorityRange`): least 7, greatest 0.
    #[doc(alias = "aclrtDeviceGetStreamPriorityRange")]
    pub fn stream_priority_range(&self) -> Result<crate::StreamPriorityRange> {
        ffi::make_current(self.default_raw())?;
        let (least, greatest) = ffi::stream_priority_range()?;
        Ok(crate::StreamPriorityRange { least, greatest })
    }

    /// Release this reference on the device (`aclrtResetDevice`), reporting
    /// the runtime's error.
    ///
    /// Takes `self`: the compiler refuses while a context, stream, buffer or
    /// event made through this device lives.
    #[doc(alias = "aclrtResetDevice")]
    pub fn reset(self) -> Result<()> {
        self.flush_default_context()?;
        let this = core::mem::ManuallyDrop::new(self);
        ffi::reset_device(this.slot.id)
    }
}

impl<M: RunMode> Drop for Device<'_, M> {
    fn drop(&mut self) {
        // Drop cannot report; `reset` does.
        if self.flush_default_context().is_ok() {
            let _ = ffi::reset_device(self.slot.id);
        }
    }
}

/// Device memory figures from [`Device::memory_info`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct MemoryInfo {
    /// Bytes free.
    pub free: usize,
    /// Bytes in total.
    pub total: usize,
}

/// The kinds of memory `aclrtGetMemInfo` reports on (`aclrtMemAttr`), for
/// [`Device::memory_info_of`]: every value the header defines.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
#[doc(alias = "aclrtMemAttr")]
pub enum MemAttr {
    /// `ACL_DDR_MEM` (0): DDR, huge and normal pages.
    Ddr,
    /// `ACL_HBM_MEM` (1): HBM, huge and normal pages (what [`Device::memory_info`] asks).
    Hbm,
    /// `ACL_DDR_MEM_HUGE` (2).
    DdrHuge,
    /// `ACL_DDR_MEM_NORMAL` (3).
    DdrNormal,
    /// `ACL_HBM_MEM_HUGE` (4).
    HbmHuge,
    /// `ACL_HBM_MEM_NORMAL` (5).
    HbmNormal,
    /// `ACL_DDR_MEM_P2P_HUGE` (6).
    DdrP2pHuge,
    /// `ACL_DDR_MEM_P2P_NORMAL` (7).
    DdrP2pNormal,
    /// `ACL_HBM_MEM_P2P_HUGE` (8).
    HbmP2pHuge,
    /// `ACL_HBM_MEM_P2P_NORMAL` (9).
    HbmP2pNormal,
    /// `ACL_HBM_MEM_HUGE1G` (10).
    HbmHuge1G,
    /// `ACL_HBM_MEM_P2P_HUGE1G` (11).
    HbmP2pHuge1G,
    /// `ACL_MEM_NORMAL` (12): any memory kind, normal pages (headers v8.5.0+).
    Normal,
    /// `ACL_MEM_HUGE` (13).
    Huge,
    /// `ACL_MEM_HUGE1G` (14).
    Huge1G,
    /// `ACL_MEM_P2P_NORMAL` (15).
    P2pNormal,
    /// `ACL_MEM_P2P_HUGE` (16).
    P2pHuge,
    /// `ACL_MEM_P2P_HUGE1G` (17).
    P2pHuge1G,
}

impl MemAttr {
    /// Every value, in the order of their C values (0 to 17).
    pub const ALL: [MemAttr; 18] = [
        MemAttr::Ddr,
        MemAttr::Hbm,
        MemAttr::DdrHuge,
        MemAttr::DdrNormal,
        MemAttr::HbmHuge,
        MemAttr::HbmNormal,
        MemAttr::DdrP2pHuge,
        MemAttr::DdrP2pNormal,
        MemAttr::HbmP2pHuge,
        MemAttr::HbmP2pNormal,
        MemAttr::HbmHuge1G,
        MemAttr::HbmP2pHuge1G,
        MemAttr::Normal,
        MemAttr::Huge,
        MemAttr::Huge1G,
        MemAttr::P2pNormal,
        MemAttr::P2pHuge,
        MemAttr::P2pHuge1G,
    ];

    /// The C value.
    pub const fn to_raw(self) -> aclrt_sys::aclrtMemAttr {
        use aclrt_sys as s;
        match self {
            MemAttr::Ddr => s::ACL_DDR_MEM,
            MemAttr::Hbm => s::ACL_HBM_MEM,
            MemAttr::DdrHuge => s::ACL_DDR_MEM_HUGE,
            MemAttr::DdrNormal => s::ACL_DDR_MEM_NORMAL,
            MemAttr::HbmHuge => s::ACL_HBM_MEM_HUGE,
            MemAttr::HbmNormal => s::ACL_HBM_MEM_NORMAL,
            MemAttr::DdrP2pHuge => s::ACL_DDR_MEM_P2P_HUGE,
            MemAttr::DdrP2pNormal => s::ACL_DDR_MEM_P2P_NORMAL,
            MemAttr::HbmP2pHuge => s::ACL_HBM_MEM_P2P_HUGE,
            MemAttr::HbmP2pNormal => s::ACL_HBM_MEM_P2P_NORMAL,
            MemAttr::HbmHuge1G => s::ACL_HBM_MEM_HUGE1G,
            MemAttr::HbmP2pHuge1G => s::ACL_HBM_MEM_P2P_HUGE1G,
            MemAttr::Normal => s::ACL_MEM_NORMAL,
            MemAttr::Huge => s::ACL_MEM_HUGE,
            MemAttr::Huge1G => s::ACL_MEM_HUGE1G,
            MemAttr::P2pNormal => s::ACL_MEM_P2P_NORMAL,
            MemAttr::P2pHuge => s::ACL_MEM_P2P_HUGE,
            MemAttr::P2pHuge1G => s::ACL_MEM_P2P_HUGE1G,
        }
    }
}

/// Enabled peer access from one device to another
/// (`aclrtDeviceEnablePeerAccess`), disabled when the last token for the
/// pair goes.
///
/// Required (as a value) by cross-device copies, so a buffer of device A can
/// only be copied to device B after access was enabled. Tokens for the same
/// (from, to) pair are counted, also across several `Device` handles of one
/// id: each new token enables the runtime's access (a refusal to enable it
/// again while other tokens live is taken as "already on"), and it is
/// disabled only when the last one is dropped (or [`disable`](Self::disable)d), so a
/// token is always proof that access is on. A leaked token keeps it on, and
/// keeps both devices open: resetting the last handle of either returns
/// [`Error::LiveChildren`] (the runtime would forget the access).
#[derive(Debug)]
#[doc(alias = "aclrtDeviceEnablePeerAccess")]
pub struct PeerAccess<'a, 'acl, M: RunMode> {
    from: &'a Device<'acl, M>,
    to: &'a Device<'acl, M>,
}

impl<'acl, M: RunMode> Device<'acl, M> {
    /// Let this device access `peer`'s memory (`aclrtDeviceEnablePeerAccess`).
    ///
    /// Errors: [`Error::PeerAccess`] when `peer` is this device.
    #[doc(alias = "aclrtDeviceEnablePeerAccess")]
    pub fn enable_peer_access<'a>(
        &'a self,
        peer: &'a Device<'acl, M>,
    ) -> Result<PeerAccess<'a, 'acl, M>> {
        if peer.slot.id == self.slot.id {
            return Err(Error::PeerAccess {
                from: self.id(),
                to: peer.id(),
                reason: "a device cannot be its own peer",
            });
        }
        let mut tokens =
            crate::ffi::locks::lock(&self.slot.peer_tokens, crate::ffi::locks::Rank::PeerTokens);
        let count = &mut tokens[peer.slot.id as usize];
        ffi::make_current(self.default_raw())?;
        match ffi::enable_peer_access(peer.slot.id) {
            Ok(()) => {}
            // Other tokens say access is on; a runtime that refuses to enable
            // it twice is telling the same. (Enabling again also repairs a
            // runtime torn down under this `Acl`, e.g. by `sim::reset`.)
            Err(_) if *count > 0 => {}
            Err(e) => return Err(e),
        }
        *count += 1;
        ffi::live::peer_token(self.slot.id, peer.slot.id, true);
        Ok(PeerAccess {
            from: self,
            to: peer,
        })
    }
}

impl<M: RunMode> PeerAccess<'_, '_, M> {
    /// The device that was given access.
    pub fn from_device(&self) -> u32 {
        self.from.id()
    }

    /// The device whose memory can be accessed.
    pub fn to_device(&self) -> u32 {
        self.to.id()
    }

    /// Give up this token (`aclrtDeviceDisablePeerAccess` if it is the last
    /// one for the pair), reporting the runtime's error. On an error the
    /// token is kept counted (access may still be on), as if leaked.
    #[doc(alias = "aclrtDeviceDisablePeerAccess")]
    pub fn disable(self) -> Result<()> {
        let this = core::mem::ManuallyDrop::new(self);
        this.release()
    }

    fn release(&self) -> Result<()> {
        let mut tokens = crate::ffi::locks::lock(
            &self.from.slot.peer_tokens,
            crate::ffi::locks::Rank::PeerTokens,
        );
        let count = &mut tokens[self.to.slot.id as usize];
        if *count == 1 {
            ffi::make_current(self.from.default_raw())?;
            ffi::disable_peer_access(self.to.slot.id)?;
        }
        *count = count.saturating_sub(1);
        ffi::live::peer_token(self.from.slot.id, self.to.slot.id, false);
        Ok(())
    }
}

impl<M: RunMode> Drop for PeerAccess<'_, '_, M> {
    fn drop(&mut self) {
        // Drop cannot report; `disable` does.
        let _ = self.release();
    }
}

impl<'dev, 'id, M: RunMode> Context<'dev, 'id, M> {
    /// Copy device memory of this context to device memory of a context on
    /// another device (`aclrtMemcpy`, `ACL_MEMCPY_DEVICE_TO_DEVICE`), which
    /// needs peer access from this device to the other: the `access` value
    /// proves it was enabled.
    ///
    /// Errors: [`Error::PeerAccess`] when `access` does not go from this
    /// context's device to `dst_ctx`'s device.
    #[doc(alias = "aclrtMemcpy")]
    pub fn copy_to_peer<'id2, S, D, M2>(
        &self,
        access: &PeerAccess<'_, '_, M>,
        dst_ctx: &Context<'_, 'id2, M2>,
        src: &S,
        dst: &mut D,
    ) -> Result<()>
    where
        M2: RunMode,
        S: DeviceMemory<'id> + ?Sized,
        D: DeviceMemory<'id2> + MemoryMut<'id2, Elem = S::Elem> + ?Sized,
    {
        check_len(src.len(), dst.len())?;
        let to = dst_ctx.device_id()?;
        let from = self.device_id()?;
        if access.from_device() != from || access.to_device() != to {
            return Err(Error::PeerAccess {
                from,
                to,
                reason: "the PeerAccess given enables another pair of devices",
            });
        }
        ffi::make_current(self.raw())?;
        ffi::mem::memcpy(
            dst.raw_mut(),
            src.raw(),
            aclrt_sys::ACL_MEMCPY_DEVICE_TO_DEVICE,
        )
    }
}

impl<'dev, 'id, M: RunMode> Context<'dev, 'id, M> {
    /// Copy device memory of this context to device memory of another
    /// context **on the same device** (`aclrtMemcpy`,
    /// `ACL_MEMCPY_DEVICE_TO_DEVICE`, with this context current), which the
    /// runtime allows without peer access.
    ///
    /// Both brands are named (`'id` for the source, `'id2` for the
    /// destination), so neither buffer can be passed off as the other
    /// context's; whether the two contexts share a device is a run-time
    /// fact, checked first. As for [`copy_on_device`](Self::copy_on_device),
    /// both sides are [`DeviceResident`] in run mode `M`: device buffers, and
    /// in device run mode also `aclrtMallocHost` memory.
    ///
    /// Errors: [`Error::PeerAccess`] when the contexts are on different
    /// devices (use [`copy_to_peer`](Self::copy_to_peer) with a
    /// [`PeerAccess`] there); [`Error::LengthMismatch`].
    ///
    /// ```
    /// # let _sim = aclrt::sim::exclusive();
    /// use aclrt::{Acl, HostMode, make_guard};
    /// let acl = Acl::init()?;
    /// let device = acl.require::<HostMode>()?.device(0)?;
    /// make_guard!(a);
    /// make_guard!(b);
    /// let producer = device.create_context(a)?;
    /// let consumer = device.create_context(b)?;
    /// let src = producer.alloc_from(&[7u32, 8, 9])?;
    /// let mut dst = consumer.alloc::<u32>(3)?;
    /// producer.copy_to_context(&consumer, &src, &mut dst)?;
    /// let mut back = [0u32; 3];
    /// consumer.download(&dst, &mut back)?;
    /// assert_eq!(back, [7, 8, 9]);
    /// # Ok::<(), aclrt::Error>(())
    /// ```
    #[doc(alias = "aclrtMemcpy")]
    pub fn copy_to_context<'id2, S, D>(
        &self,
        dst_ctx: &Context<'_, 'id2, M>,
        src: &S,
        dst: &mut D,
    ) -> Result<()>
    where
        S: DeviceResident<'id, M> + ?Sized,
        D: DeviceResident<'id2, M> + MemoryMut<'id2, Elem = S::Elem> + ?Sized,
    {
        check_len(src.len(), dst.len())?;
        let to = dst_ctx.device_id()?;
        let from = self.device_id()?;
        if from != to {
            return Err(Error::PeerAccess {
                from,
                to,
                reason: "the two contexts are on different devices: use `copy_to_peer` with a `PeerAccess`",
            });
        }
        ffi::make_current(self.raw())?;
        ffi::mem::memcpy(
            dst.raw_mut(),
            src.raw(),
            aclrt_sys::ACL_MEMCPY_DEVICE_TO_DEVICE,
        )
    }
}
