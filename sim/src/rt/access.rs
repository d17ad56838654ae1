//! What a checked memory access yields: the span to touch and where it
//! lies. Made by the allocation table ([`super::mem`]) and the host
//! registry ([`super::registry`]).

use crate::prim::Span;

/// Where a resolved pointer lies.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Place {
    /// Memory of a device.
    Device(i32),
    /// Pinned host memory from `aclrtMallocHost` (host run mode).
    PinnedHost,
    /// Application (pageable) memory, not from the runtime.
    App,
    /// Application memory registered with `aclrtHostRegister*` (host
    /// memory; copies of it are truly asynchronous).
    Registered,
    /// Managed memory (`aclrtMemAllocManaged`) of a device's context:
    /// accessible from the host and the device.
    Managed(i32),
}

impl Place {
    pub(crate) fn describe(self) -> String {
        match self {
            Place::Device(d) => format!("device memory (device {d})"),
            Place::PinnedHost => "pinned host memory (aclrtMallocHost)".to_owned(),
            Place::App => "pageable host memory of the application".to_owned(),
            Place::Registered => "registered host memory (aclrtHostRegister)".to_owned(),
            Place::Managed(d) => format!("managed memory (aclrtMemAllocManaged, device {d})"),
        }
    }
    pub(crate) fn is_host(self) -> bool {
        !matches!(self, Place::Device(_))
    }
}

/// A checked access: the span to touch and where it lies.
pub(crate) struct Access {
    pub span: Span,
    pub place: Place,
}
