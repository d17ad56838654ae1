//! The process-wide runtime: [`Acl`] (`aclInit` / `aclFinalize`) and the run
//! mode token [`Runtime`].

use core::marker::PhantomData;
use core::sync::atomic::{AtomicBool, AtomicPtr, Ordering};

use crate::device::{Device, DeviceSlot};
use crate::error::{Error, Result};
use crate::ffi;
use crate::mode::{DeviceMode, HostMode, RunMode, RunModeKind};

/// Whether an [`Acl`] is alive in this process.
static LIVE: AtomicBool = AtomicBool::new(false);

/// The initialised AscendCL runtime of this process (`aclInit`).
///
/// At most one `Acl` is alive per process: a second [`Acl::init`] returns
/// [`Error::AlreadyInitialized`]. Everything else borrows it, so it cannot be
/// finalised while a [`Device`] (and so anything made through one) lives:
/// [`Acl::finalize`] takes `self` by value, which the borrow checker refuses
/// while a borrow exists.
///
/// `Acl` is `Send` and `Sync`: the runtime is process-wide and thread-safe;
/// sharing `&Acl` with threads lets each open devices.
///
/// ```
/// # let _sim = aclrt::sim::exclusive();
/// let acl = aclrt::Acl::init()?;
/// assert!(acl.device_count()? >= 1);
/// acl.finalize()?;
/// # Ok::<(), aclrt::Error>(())
/// ```
#[doc(alias = "aclInit")]
#[doc(alias = "aclFinalize")]
#[derive(Debug)]
pub struct Acl {
    slots: Box<[DeviceSlot]>,
    mode: RunModeKind,
    finalized: bool,
}

impl Acl {
    /// Initialise the runtime (`aclInit(NULL)`).
    ///
    /// Errors: [`Error::AlreadyInitialized`] while another `Acl` lives; the
    /// runtime's error otherwise. A runtime already initialised by foreign
    /// code (100002) is accepted, as the documentation advises.
    #[doc(alias = "aclInit")]
    pub fn init() -> Result<Acl> {
        Self::init_inner(ffi::init)
    }

    /// Initialise the runtime with a JSON configuration file (`aclInit(path)`).
    #[doc(alias = "aclInit")]
    pub fn init_with_config(path: &core::ffi::CStr) -> Result<Acl> {
        Self::init_inner(|| ffi::init_with_config(path))
    }

    fn init_inner(init: impl FnOnce() -> Result<bool>) -> Result<Acl> {
        if LIVE
            .compare_exchange(false, true, Ordering::AcqRel, Ordering::Acquire)
            .is_err()
        {
            return Err(Error::AlreadyInitialized);
        }
        let foreign = match init() {
            Ok(foreign) => foreign,
            Err(e) => {
                LIVE.store(false, Ordering::Release);
                return Err(e);
            }
        };
        let built = (|| {
            let count = ffi::device_count()?;
            let mode = if ffi::run_mode_is_host()? {
                RunModeKind::Host
            } else {
                RunModeKind::Device
            };
            let slots = (0..count)
                .map(|id| DeviceSlot {
                    id: id as i32,
                    default_ctx: AtomicPtr::new(core::ptr::null_mut()),
                    peer_tokens: std::sync::Mutex::new(vec![0; count as usize]),
                })
                .collect();
            Ok(Acl {
                slots,
                mode,
                finalized: false,
            })
        })();
        if built.is_err() {
            // Undo our own aclInit, so that a later `Acl::init` starts afresh.
            if !foreign {
                let _ = ffi::finalize();
            }
            LIVE.store(false, Ordering::Release);
        }
        built
    }

    /// Number of devices (`aclrtGetDeviceCount`).
    #[doc(alias = "aclrtGetDeviceCount")]
    pub fn device_count(&self) -> Result<u32> {
        ffi::device_count()
    }

    /// The run mode reported by `aclrtGetRunMode` at [`Acl::init`].
    #[doc(alias = "aclrtGetRunMode")]
    pub fn run_mode(&self) -> RunModeKind {
        self.mode
    }

    /// The run mode as a type, to continue in code generic over `M: RunMode`.
    ///
    /// ```
    /// # let _sim = aclrt::sim::exclusive();
    /// use aclrt::{Acl, Detected, RunMode, Runtime};
    /// fn main_loop<M: RunMode>(rt: Runtime<'_, M>) -> aclrt::Result<()> {
    ///     let _device = rt.device(0)?;
    ///     Ok(())
    /// }
    /// let acl = Acl::init()?;
    /// match acl.detect() {
    ///     Detected::Host(rt) => main_loop(rt)?,
    ///     Detected::Device(rt) => main_loop(rt)?,
    /// }
    /// # Ok::<(), aclrt::Error>(())
    /// ```
    #[doc(alias = "aclrtGetRunMode")]
    pub fn detect(&self) -> Detected<'_> {
        match self.mode {
            RunModeKind::Host => Detected::Host(Runtime::new(self)),
            RunModeKind::Device => Detected::Device(Runtime::new(self)),
        }
    }

    /// Demand run mode `M`; [`Error::WrongRunMode`] if the runtime reports
    /// the other one.
    ///
    /// ```
    /// # let _sim = aclrt::sim::exclusive();
    /// let acl = aclrt::Acl::init()?;
    /// let rt = acl.require::<aclrt::HostMode>()?; // the simulator defaults to ACL_HOST
    /// let device = rt.device(0)?;
    /// # Ok::<(), aclrt::Error>(())
    /// ```
    pub fn require<M: RunMode>(&self) -> Result<Runtime<'_, M>> {
        if self.mode == M::KIND {
            Ok(Runtime::new(self))
        } else {
            Err(Error::WrongRunMode {
                expected: M::KIND,
                actual: self.mode,
            })
        }
    }

    /// The SoC name (`aclrtGetSocName`; with several devices the runtime
    /// always answers for device 0).
    ///
    /// Errors: the runtime returned NULL (its documented failure), as an
    /// [`Error::Acl`] for `aclrtGetSocName` with code
    /// `ACL_ERROR_FAILURE` (500001) and the runtime's recent error message.
    #[doc(alias = "aclrtGetSocName")]
    pub fn soc_name(&self) -> Result<String> {
        ffi::soc_name()
    }

    /// Limit how long a wait task (the event wait of a hand-off,
    /// [`Lane::wait_event`](crate::Lane::wait_event)) may wait on the device
    /// (`aclrtSetOpWaitTimeout`), in whole seconds; zero: no limit (the
    /// default). A wait task that outlives it fails with
    /// `ACL_ERROR_RT_TASK_TIMEOUT` (107020) and its stream goes on: a
    /// failure under the failure rule (SAFETY.md), so it fails the checked
    /// waits of the scopes it may concern, and `reuse` hands nothing back
    /// on the strength of that wait. [`Error::InvalidTimeout`] for a
    /// timeout that is not whole seconds (or too long), before any call.
    #[doc(alias = "aclrtSetOpWaitTimeout")]
    pub fn set_op_wait_timeout(&self, timeout: core::time::Duration) -> Result<()> {
        let secs = u32::try_from(timeout.as_secs()).ok();
        match secs {
            Some(secs) if timeout.subsec_nanos() == 0 => ffi::set_op_wait_timeout(secs),
            _ => Err(Error::InvalidTimeout {
                millis: timeout.as_millis(),
            }),
        }
    }

    /// Limit how long a kernel may run on the device
    /// (`aclrtSetOpExecuteTimeOut`), in whole seconds, process-wide (the
    /// last call wins); zero: the chip's default (1,091 s on the 910B,
    /// 547 s on the 310P, also the largest limit each takes). A kernel that
    /// outlives it fails with `ACL_ERROR_RT_AICORE_TIMEOUT` (507014) and its
    /// stream goes on: a failure under the failure rule (SAFETY.md), so it
    /// fails the checked waits of the scopes it may concern until they
    /// recover. [`Error::InvalidTimeout`] for a timeout that is not whole
    /// seconds (or too long), before any call.
    #[doc(alias = "aclrtSetOpExecuteTimeOut")]
    pub fn set_op_execute_timeout(&self, timeout: core::time::Duration) -> Result<()> {
        let secs = u32::try_from(timeout.as_secs()).ok();
        match secs {
            Some(secs) if timeout.subsec_nanos() == 0 => ffi::set_op_execute_timeout(secs),
            _ => Err(Error::InvalidTimeout {
                millis: timeout.as_millis(),
            }),
        }
    }

    /// The runtime's API version `(major, minor, patch)` (`aclrtGetVersion`).
    #[doc(alias = "aclrtGetVersion")]
    pub fn version(&self) -> Result<(i32, i32, i32)> {
        ffi::version()
    }

    pub(crate) fn slot(&self, id: u32) -> Result<&DeviceSlot> {
        self.slots.get(id as usize).ok_or(Error::NoSuchDevice {
            id,
            count: self.slots.len() as u32,
        })
    }

    /// Finalise the runtime (`aclFinalize`), reporting its error.
    ///
    /// Takes `self`: the compiler refuses while any [`Device`] borrows it.
    #[doc(alias = "aclFinalize")]
    pub fn finalize(mut self) -> Result<()> {
        self.finalized = true;
        let result = ffi::finalize();
        if result.is_ok() {
            // Every stream is gone: host functions that never ran can go too.
            drop(ffi::host_fn::settle_static_host_fns(None));
        }
        LIVE.store(false, Ordering::Release);
        result
    }
}

impl Drop for Acl {
    fn drop(&mut self) {
        if !self.finalized {
            // Drop cannot report; `finalize` does.
            if ffi::finalize().is_ok() {
                drop(ffi::host_fn::settle_static_host_fns(None));
            }
            LIVE.store(false, Ordering::Release);
        }
    }
}

/// The run mode learnt by [`Acl::detect`].
#[derive(Clone, Copy, Debug)]
pub enum Detected<'acl> {
    /// `ACL_HOST`.
    Host(Runtime<'acl, HostMode>),
    /// `ACL_DEVICE`.
    Device(Runtime<'acl, DeviceMode>),
}

/// The runtime, known to run in mode `M`: the way to open devices.
///
/// A copyable token borrowing the [`Acl`]; obtained from [`Acl::detect`] or
/// [`Acl::require`].
#[derive(Clone, Copy, Debug)]
pub struct Runtime<'acl, M: RunMode> {
    acl: &'acl Acl,
    _mode: PhantomData<M>,
}

impl<'acl, M: RunMode> Runtime<'acl, M> {
    fn new(acl: &'acl Acl) -> Self {
        Runtime {
            acl,
            _mode: PhantomData,
        }
    }

    /// The [`Acl`] this token borrows.
    pub fn acl(&self) -> &'acl Acl {
        self.acl
    }

    /// Open device `id` (`aclrtSetDevice`): takes one reference on the device
    /// (its default context and stream are created on first use), released
    /// by [`Device::reset`] or on drop.
    ///
    /// Errors: [`Error::NoSuchDevice`] for an id outside `0..count`.
    #[doc(alias = "aclrtSetDevice")]
    pub fn device(&self, id: u32) -> Result<Device<'acl, M>> {
        let slot = self.acl.slot(id)?;
        Device::open(slot)
    }
}
