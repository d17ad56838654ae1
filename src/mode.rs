//! Run mode as a type: [`HostMode`] (`ACL_HOST`) and [`DeviceMode`] (`ACL_DEVICE`).
//!
//! The runtime reports where the application runs with `aclrtGetRunMode`.
//! This crate learns it once ([`Acl::detect`](crate::Acl::detect) or
//! [`Acl::require`](crate::Acl::require)) and carries it as a type parameter
//! `M: RunMode` on [`Device`](crate::Device), [`Context`](crate::Context) and
//! [`HostBuffer`](crate::HostBuffer), so:
//! * the memcpy kind of every copy is computed at compile time from the run
//!   mode and the [`Place`](crate::bounds::Place) of both sides;
//! * in device run mode "host" allocations are device memory, and every copy
//!   compiles to `ACL_MEMCPY_DEVICE_TO_DEVICE`;
//! * the host-only transfer API ([`Context::upload`](crate::Context::upload),
//!   [`Context::download`](crate::Context::download)) requires
//!   [`HostRunMode`](crate::bounds::HostRunMode), so code written for it does not compile for device mode.

use aclrt_sys as sys;

use crate::ffi::access::{PlaceSealed, Residency};

mod sealed {
    pub trait Sealed {}
}

/// The run mode reported by `aclrtGetRunMode`, as a value.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum RunModeKind {
    /// `ACL_HOST`: the application runs on a host, the NPU is a PCIe card.
    Host,
    /// `ACL_DEVICE`: the application runs on the device's own CPU (e.g. Atlas 200 DK).
    Device,
}

/// A run mode as a type. Sealed: implemented by [`HostMode`] and [`DeviceMode`].
pub trait RunMode: sealed::Sealed + Copy + Send + Sync + core::fmt::Debug + 'static {
    /// The value of this mode.
    const KIND: RunModeKind;
    /// The C value of this mode.
    const ACL_VALUE: sys::aclrtRunMode;
}

/// The application runs on a host (`ACL_HOST`); pinned host memory is host
/// memory and copies between host and device are real transfers.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct HostMode;

/// The application runs on the device (`ACL_DEVICE`); "host" allocations are
/// device memory the application's CPU can address, and every copy is
/// device-to-device.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct DeviceMode;

impl sealed::Sealed for HostMode {}
impl sealed::Sealed for DeviceMode {}

impl RunMode for HostMode {
    const KIND: RunModeKind = RunModeKind::Host;
    const ACL_VALUE: sys::aclrtRunMode = sys::ACL_HOST;
}

impl RunMode for DeviceMode {
    const KIND: RunModeKind = RunModeKind::Device;
    const ACL_VALUE: sys::aclrtRunMode = sys::ACL_DEVICE;
}

/// Run modes in which the application runs on a host: only [`HostMode`].
///
/// Bounds the host-to-device transfer API, which has no meaning when the
/// application itself runs on the device.
#[diagnostic::on_unimplemented(
    message = "this transfer API exists only when the application runs on a host (ACL_HOST), but the runtime is `{Self}`",
    label = "host-run-mode-only API used with `{Self}`",
    note = "in device run mode (ACL_DEVICE) \"host\" memory is device memory and every copy is device-to-device: use the mode-generic `Context::copy`, or branch on `Acl::detect()`"
)]
pub trait HostRunMode: RunMode {}
impl HostRunMode for HostMode {}

/// Run modes in which the application runs on the device: only [`DeviceMode`].
#[diagnostic::on_unimplemented(
    message = "this API exists only when the application runs on the device (ACL_DEVICE), but the runtime is `{Self}`",
    label = "device-run-mode-only API used with `{Self}`",
    note = "use the mode-generic `Context::copy`, or branch on `Acl::detect()`"
)]
pub trait DeviceRunMode: RunMode {}
impl DeviceRunMode for DeviceMode {}

/// The `aclrtMemcpyKind` of a copy from place `S` to place `D` in run mode
/// `M`.
///
/// Evaluated at compile time for every copy (an inline `const` block over the
/// associated consts of the run mode and both places), so no run-time
/// decision and no way to pass a wrong kind.
pub(crate) const fn memcpy_kind<M: RunMode, S: PlaceSealed, D: PlaceSealed>() -> sys::aclrtMemcpyKind
{
    memcpy_kind_of(M::KIND, S::RESIDENCY, D::RESIDENCY)
}

/// The table behind [`memcpy_kind`], on values.
const fn memcpy_kind_of(mode: RunModeKind, src: Residency, dst: Residency) -> sys::aclrtMemcpyKind {
    match (mode, src, dst) {
        (RunModeKind::Device, _, _) => sys::ACL_MEMCPY_DEVICE_TO_DEVICE,
        (RunModeKind::Host, Residency::Host, Residency::Host) => sys::ACL_MEMCPY_HOST_TO_HOST,
        (RunModeKind::Host, Residency::Host, Residency::Device) => sys::ACL_MEMCPY_HOST_TO_DEVICE,
        (RunModeKind::Host, Residency::Device, Residency::Host) => sys::ACL_MEMCPY_DEVICE_TO_HOST,
        (RunModeKind::Host, Residency::Device, Residency::Device) => {
            sys::ACL_MEMCPY_DEVICE_TO_DEVICE
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::bounds::{OnDevice as D, OnHost as H};

    /// Every copy reaches the runtime with the kind computed from the types;
    /// in device run mode every copy is device-to-device.
    #[test]
    fn memcpy_kind_table() {
        assert_eq!(
            memcpy_kind::<HostMode, H, H>(),
            sys::ACL_MEMCPY_HOST_TO_HOST
        );
        assert_eq!(
            memcpy_kind::<HostMode, H, D>(),
            sys::ACL_MEMCPY_HOST_TO_DEVICE
        );
        assert_eq!(
            memcpy_kind::<HostMode, D, H>(),
            sys::ACL_MEMCPY_DEVICE_TO_HOST
        );
        assert_eq!(
            memcpy_kind::<HostMode, D, D>(),
            sys::ACL_MEMCPY_DEVICE_TO_DEVICE
        );
        assert_eq!(
            memcpy_kind::<DeviceMode, H, H>(),
            sys::ACL_MEMCPY_DEVICE_TO_DEVICE
        );
        assert_eq!(
            memcpy_kind::<DeviceMode, H, D>(),
            sys::ACL_MEMCPY_DEVICE_TO_DEVICE
        );
        assert_eq!(
            memcpy_kind::<DeviceMode, D, H>(),
            sys::ACL_MEMCPY_DEVICE_TO_DEVICE
        );
        assert_eq!(
            memcpy_kind::<DeviceMode, D, D>(),
            sys::ACL_MEMCPY_DEVICE_TO_DEVICE
        );
    }
}
