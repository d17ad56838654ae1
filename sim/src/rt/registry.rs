//! The host registrations of a runtime (`aclrtHostRegister*`, see
//! `crate::hostreg`): their ranges, and how application memory and device
//! aliases are classified against them.

use std::collections::BTreeMap;
use std::sync::Arc;

use super::access::{Access, Place};
use crate::diag::{Error, Res};
use crate::ffi;
use crate::model::ViolationKind;
use crate::prim::{Registered, UserMem};

pub(crate) const ACL_HOST_REG_MAPPED: u32 = ffi::ACL_HOST_REG_MAPPED as u32;

/// The bit that turns a registered host address into its device alias.
pub(crate) const ALIAS_BIT: usize = 1 << 52;
/// How a range was registered.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum How {
    /// `aclrtHostRegister(..., ACL_HOST_REGISTER_MAPPED, &devPtr)`.
    V1,
    /// `aclrtHostRegisterV2(..., flag)`.
    V2 { flag: u32 },
}

impl How {
    pub(crate) fn mapped(self) -> bool {
        match self {
            How::V1 => true,
            How::V2 { flag } => flag & ACL_HOST_REG_MAPPED != 0,
        }
    }
}

/// One live registration.
pub(crate) struct Registration {
    pub size: usize,
    pub device: i32,
    pub ctx: usize,
    pub how: How,
    /// Held by every span of the range (task use count).
    pub token: Arc<Registered>,
}

/// The registrations of a runtime, by start address.
#[derive(Default)]
pub(crate) struct Registry {
    pub live: BTreeMap<usize, Registration>,
}

impl Registry {
    /// The registration containing `addr`, if any: `(start, entry)`.
    pub(crate) fn containing(&self, addr: usize) -> Option<(usize, &Registration)> {
        self.live
            .range(..=addr)
            .next_back()
            .filter(|(s, r)| addr < **s + r.size)
            .map(|(s, r)| (*s, r))
    }

    /// The first registration overlapping `[addr, addr + len)`.
    pub(crate) fn overlapping(&self, addr: usize, len: usize) -> Option<(usize, &Registration)> {
        if let Some(hit) = self.containing(addr) {
            return Some(hit);
        }
        self.live
            .range(addr..addr.saturating_add(len))
            .next()
            .map(|(s, r)| (*s, r))
    }

    /// Classifies application memory: `Ok(Ok(access))` when the range lies
    /// inside a registration (a span that may outlive the call),
    /// `Ok(Err(um))` when it touches no registration (pageable memory), an
    /// error when it is a device alias or straddles a registration's end.
    pub(crate) fn access(
        &self,
        um: UserMem,
        len: usize,
        role: &str,
    ) -> Res<Result<Access, UserMem>> {
        let addr = um.addr();
        if addr & ALIAS_BIT != 0 && self.containing(addr & !ALIAS_BIT).is_none() {
            // Never a user-space address (bit 52): the alias of a
            // registration that is gone. Refused before any access.
            return Err(Error::violation(
                ViolationKind::UseAfterFree,
                ffi::ACL_ERROR_RT_PARAM_INVALID,
                format!(
                    "{role} {addr:#x} is not a host address; it looks like the device alias of \
                     a host registration that no longer exists"
                ),
            ));
        }
        if addr & ALIAS_BIT != 0 {
            return Err(Error::violation(
                ViolationKind::KindMismatch,
                ffi::ACL_ERROR_RT_INVALID_MEMORY_TYPE,
                format!(
                    "{role} {addr:#x} is the device alias of registered host memory (devPtr of \
                     aclrtHostRegister / aclrtHostGetDevicePointer); only device code (a kernel \
                     argument) may use it, never a memory operation: pass the host address \
                     {:#x} instead",
                    addr & !ALIAS_BIT
                ),
            ));
        }
        if self.live.is_empty() {
            return Ok(Err(um));
        }
        let Some((start, r)) = self.overlapping(addr, len.max(1)) else {
            return Ok(Err(um));
        };
        let end = addr.saturating_add(len);
        if addr < start || end > start + r.size {
            return Err(Error::violation(
                ViolationKind::OutOfBounds,
                ffi::ACL_ERROR_RT_PARAM_INVALID,
                format!(
                    "{role} range {addr:#x}..{end:#x} straddles the {}-byte host registration \
                     at {start:#x}",
                    r.size
                ),
            ));
        }
        let span = um.into_registered_span(len, r.token.clone());
        Ok(Ok(Access {
            span,
            place: Place::Registered,
        }))
    }

    /// Resolves a device alias for device code (kernels): `None` when `addr`
    /// is not an alias of a mapped registration.
    pub(crate) fn resolve_alias(&self, addr: usize, len: usize) -> Option<Result<Access, String>> {
        if addr & ALIAS_BIT == 0 {
            return None;
        }
        let host = addr & !ALIAS_BIT;
        let (start, r) = self.containing(host)?;
        if !r.how.mapped() {
            return None;
        }
        let off = host - start;
        if len > r.size - off {
            return Some(Err(format!(
                "{addr:#x} + {len} bytes (offset {off}) exceeds the {}-byte host registration \
                 at {start:#x} (device alias)",
                r.size
            )));
        }
        // The alias is only a number: the span derives from the pointer the
        // application registered (kept by the token).
        let span = r.token.span(off, len)?;
        Some(Ok(Access {
            span,
            place: Place::Device(r.device),
        }))
    }

    /// Registrations of context `ctx` (or device `dev` if `ctx` is `None`).
    pub(crate) fn count(&self, ctx: Option<usize>, dev: i32) -> usize {
        self.live
            .values()
            .filter(|r| match ctx {
                Some(c) => r.ctx == c,
                None => r.device == dev,
            })
            .count()
    }
}
