//! Device information and control (attributes, capabilities, status,
//! utilisation, resource limits, the saturation mode) on [`Device`], and
//! the stream attributes (id, flags, resource limits) on [`Stream`].
//!
//! None of these touch memory: their misuse is a runtime error, typed by
//! the enums here (a resource kind or an overflow mode that does not exist
//! cannot be asked for).

use aclrt_sys as sys;

use crate::device::Device;
use crate::error::Result;
use crate::ffi::{self, device_info as raw};
use crate::mode::RunMode;
use crate::stream::{Stream, StreamFlags};

/// An attribute of [`Device::info`] (`aclrtDevAttr`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct DeviceAttr(sys::aclrtDevAttr);

impl DeviceAttr {
    /// `ACL_DEV_ATTR_AICPU_CORE_NUM`: AI CPU cores.
    pub const AICPU_CORES: DeviceAttr = DeviceAttr(sys::ACL_DEV_ATTR_AICPU_CORE_NUM);
    /// `ACL_DEV_ATTR_AICORE_CORE_NUM`: AI cores.
    pub const AICORE_CORES: DeviceAttr = DeviceAttr(sys::ACL_DEV_ATTR_AICORE_CORE_NUM);
    /// `ACL_DEV_ATTR_CUBE_CORE_NUM`: cube cores (where the chip reports them).
    pub const CUBE_CORES: DeviceAttr = DeviceAttr(sys::ACL_DEV_ATTR_CUBE_CORE_NUM);
    /// `ACL_DEV_ATTR_VECTOR_CORE_NUM`: vector cores.
    pub const VECTOR_CORES: DeviceAttr = DeviceAttr(sys::ACL_DEV_ATTR_VECTOR_CORE_NUM);
    /// `ACL_DEV_ATTR_TOTAL_GLOBAL_MEM_SIZE`: bytes of global memory.
    pub const TOTAL_GLOBAL_MEMORY: DeviceAttr = DeviceAttr(sys::ACL_DEV_ATTR_TOTAL_GLOBAL_MEM_SIZE);
    /// `ACL_DEV_ATTR_L2_CACHE_SIZE`: bytes of L2 cache.
    pub const L2_CACHE_SIZE: DeviceAttr = DeviceAttr(sys::ACL_DEV_ATTR_L2_CACHE_SIZE);
    /// `ACL_DEV_ATTR_PHY_CHIP_ID`: the physical chip id.
    pub const PHYSICAL_CHIP_ID: DeviceAttr = DeviceAttr(sys::ACL_DEV_ATTR_PHY_CHIP_ID);
    /// `ACL_DEV_ATTR_IS_VIRTUAL`: 1 for a virtual (split) device.
    pub const IS_VIRTUAL: DeviceAttr = DeviceAttr(sys::ACL_DEV_ATTR_IS_VIRTUAL);
    /// `ACL_DEV_ATTR_NPU_ARCH`: the NPU architecture number.
    pub const NPU_ARCH: DeviceAttr = DeviceAttr(sys::ACL_DEV_ATTR_NPU_ARCH);

    /// Any other `aclrtDevAttr` value (the runtime judges it).
    pub const fn from_raw(attr: u32) -> DeviceAttr {
        DeviceAttr(attr)
    }

    /// The C value.
    pub const fn to_raw(self) -> u32 {
        self.0
    }
}

/// A feature of [`Device::capability`] (`aclrtDevFeatureType`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct DeviceFeature(sys::aclrtDevFeatureType);

impl DeviceFeature {
    /// `ACL_FEATURE_TSCPU_TASK_UPDATE_SUPPORT_AIC_AIV`.
    pub const TASK_UPDATE: DeviceFeature =
        DeviceFeature(sys::ACL_FEATURE_TSCPU_TASK_UPDATE_SUPPORT_AIC_AIV);
    /// `ACL_FEATURE_SYSTEM_MEMQ_EVENT_CROSS_DEV`.
    pub const MEMQ_EVENT_CROSS_DEVICE: DeviceFeature =
        DeviceFeature(sys::ACL_FEATURE_SYSTEM_MEMQ_EVENT_CROSS_DEV);

    /// Any other `aclrtDevFeatureType` value (the runtime judges it).
    pub const fn from_raw(feature: u32) -> DeviceFeature {
        DeviceFeature(feature)
    }

    /// The C value.
    pub const fn to_raw(self) -> u32 {
        self.0
    }
}

/// A device's health ([`Device::status`], `aclrtDeviceStatus`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum DeviceStatus {
    /// `ACL_RT_DEVICE_STATUS_NORMAL`.
    Normal,
    /// `ACL_RT_DEVICE_STATUS_ABNORMAL`: the device stopped answering.
    Abnormal,
    /// A value this crate does not know.
    Other(u32),
}

/// A device's utilisation in percent ([`Device::utilization`]); `None`
/// where the chip does not report that figure (the runtime's −1).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Utilization {
    /// Cube units.
    pub cube: Option<u8>,
    /// Vector units.
    pub vector: Option<u8>,
    /// AI CPUs.
    pub aicpu: Option<u8>,
    /// Memory.
    pub memory: Option<u8>,
}

/// A resource whose share a device or a stream may be limited to
/// (`aclrtDevResLimitType`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ResourceLimit {
    /// `ACL_RT_DEV_RES_CUBE_CORE`: cube cores.
    CubeCores,
    /// `ACL_RT_DEV_RES_VECTOR_CORE`: vector cores.
    VectorCores,
}

impl ResourceLimit {
    fn to_raw(self) -> sys::aclrtDevResLimitType {
        match self {
            ResourceLimit::CubeCores => sys::ACL_RT_DEV_RES_CUBE_CORE,
            ResourceLimit::VectorCores => sys::ACL_RT_DEV_RES_VECTOR_CORE,
        }
    }
}

/// How a device's floating-point units treat overflow
/// (`aclrtFloatOverflowMode`; [`Device::saturation_mode`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum SaturationMode {
    /// `ACL_RT_OVERFLOW_MODE_SATURATION`: results saturate to the largest
    /// finite value.
    Saturation,
    /// `ACL_RT_OVERFLOW_MODE_INFNAN`: results become ±inf or NaN.
    InfNan,
}

fn percent(v: i32) -> Option<u8> {
    u8::try_from(v).ok().filter(|p| *p <= 100)
}

impl<M: RunMode> Device<'_, M> {
    fn raw_id(&self) -> i32 {
        self.id() as i32
    }

    /// One attribute of the device (`aclrtGetDeviceInfo`).
    ///
    /// ```
    /// # let _sim = aclrt::sim::exclusive();
    /// use aclrt::DeviceAttr;
    /// let acl = aclrt::Acl::init()?;
    /// let device = acl.require::<aclrt::HostMode>()?.device(0)?;
    /// assert!(device.info(DeviceAttr::AICORE_CORES)? > 0);
    /// # Ok::<(), aclrt::Error>(())
    /// ```
    #[doc(alias = "aclrtGetDeviceInfo")]
    pub fn info(&self, attr: DeviceAttr) -> Result<i64> {
        raw::device_info(self.id(), attr.0)
    }

    /// Whether (and how) the device offers `feature`
    /// (`aclrtGetDeviceCapability`): the runtime's value (for the two
    /// support features, 1 supported and 0 not).
    #[doc(alias = "aclrtGetDeviceCapability")]
    pub fn capability(&self, feature: DeviceFeature) -> Result<i32> {
        raw::device_capability(self.raw_id(), feature.0)
    }

    /// The device's health (`aclrtQueryDeviceStatus`).
    #[doc(alias = "aclrtQueryDeviceStatus")]
    pub fn status(&self) -> Result<DeviceStatus> {
        Ok(match raw::device_status(self.raw_id())? {
            sys::ACL_RT_DEVICE_STATUS_NORMAL => DeviceStatus::Normal,
            sys::ACL_RT_DEVICE_STATUS_ABNORMAL => DeviceStatus::Abnormal,
            other => DeviceStatus::Other(other),
        })
    }

    /// The device's utilisation (`aclrtGetDeviceUtilizationRate`).
    #[doc(alias = "aclrtGetDeviceUtilizationRate")]
    pub fn utilization(&self) -> Result<Utilization> {
        let [cube, vector, aicpu, memory] = raw::utilization(self.raw_id())?;
        Ok(Utilization {
            cube: percent(cube),
            vector: percent(vector),
            aicpu: percent(aicpu),
            memory: percent(memory),
        })
    }

    /// How many cores of `kind` this process may use on the device
    /// (`aclrtGetDeviceResLimit`): the whole count unless limited.
    #[doc(alias = "aclrtGetDeviceResLimit")]
    pub fn resource_limit(&self, kind: ResourceLimit) -> Result<u32> {
        raw::device_res_limit(self.raw_id(), kind.to_raw())
    }

    /// Limit this process to `value` cores of `kind` on the device
    /// (`aclrtSetDeviceResLimit`); more than the device has is the
    /// runtime's 107000.
    #[doc(alias = "aclrtSetDeviceResLimit")]
    pub fn set_resource_limit(&self, kind: ResourceLimit, value: u32) -> Result<()> {
        raw::set_device_res_limit(self.raw_id(), kind.to_raw(), value)
    }

    /// Lift every limit of [`set_resource_limit`](Self::set_resource_limit)
    /// (`aclrtResetDeviceResLimit`).
    #[doc(alias = "aclrtResetDeviceResLimit")]
    pub fn reset_resource_limits(&self) -> Result<()> {
        raw::reset_device_res_limit(self.raw_id())
    }

    /// The device's floating-point overflow mode (`aclrtGetDeviceSatMode`).
    #[doc(alias = "aclrtGetDeviceSatMode")]
    pub fn saturation_mode(&self) -> Result<SaturationMode> {
        ffi::make_current(self.default_raw())?;
        match raw::sat_mode()? {
            sys::ACL_RT_OVERFLOW_MODE_SATURATION => Ok(SaturationMode::Saturation),
            sys::ACL_RT_OVERFLOW_MODE_INFNAN => Ok(SaturationMode::InfNan),
            other => Err(ffi::acl_error(
                sys::ACL_ERROR_RT_PARAM_INVALID,
                if other == sys::ACL_RT_OVERFLOW_MODE_UNDEF {
                    "aclrtGetDeviceSatMode (undefined mode)"
                } else {
                    "aclrtGetDeviceSatMode (unknown mode)"
                },
            )),
        }
    }

    /// Set the device's floating-point overflow mode
    /// (`aclrtSetDeviceSatMode`); work queued afterwards computes with it.
    #[doc(alias = "aclrtSetDeviceSatMode")]
    pub fn set_saturation_mode(&self, mode: SaturationMode) -> Result<()> {
        ffi::make_current(self.default_raw())?;
        raw::set_sat_mode(match mode {
            SaturationMode::Saturation => sys::ACL_RT_OVERFLOW_MODE_SATURATION,
            SaturationMode::InfNan => sys::ACL_RT_OVERFLOW_MODE_INFNAN,
        })
    }
}

impl Stream<'_, '_> {
    /// The runtime's id of this stream (`aclrtStreamGetId`), as it appears
    /// in its logs and exception reports.
    #[doc(alias = "aclrtStreamGetId")]
    pub fn id(&self) -> Result<i32> {
        self.bind()?;
        raw::stream_id(self.raw())
    }

    /// The flags the stream was created with (`aclrtStreamGetFlags`).
    #[doc(alias = "aclrtStreamGetFlags")]
    pub fn flags(&self) -> Result<StreamFlags> {
        self.bind()?;
        raw::stream_flags(self.raw()).map(StreamFlags::from_bits)
    }

    /// How many cores of `kind` work on this stream may use
    /// (`aclrtGetStreamResLimit`): the device's limit unless limited here.
    #[doc(alias = "aclrtGetStreamResLimit")]
    pub fn resource_limit(&self, kind: ResourceLimit) -> Result<u32> {
        self.bind()?;
        raw::stream_res_limit(self.raw(), kind.to_raw())
    }

    /// Limit work on this stream to `value` cores of `kind`
    /// (`aclrtSetStreamResLimit`).
    #[doc(alias = "aclrtSetStreamResLimit")]
    pub fn set_resource_limit(&self, kind: ResourceLimit, value: u32) -> Result<()> {
        self.bind()?;
        raw::set_stream_res_limit(self.raw(), kind.to_raw(), value)
    }

    /// Lift this stream's limits (`aclrtResetStreamResLimit`).
    #[doc(alias = "aclrtResetStreamResLimit")]
    pub fn reset_resource_limits(&self) -> Result<()> {
        self.bind()?;
        raw::reset_stream_res_limit(self.raw())
    }
}
