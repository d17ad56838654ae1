//! Value writes and waits (`aclrtValueWrite`, `aclrtValueWait`): a
//! [`ValueSlot`], one `u64` of device memory owned by the crate, written
//! and waited on by the device from scopes' lanes, as a hand-off between
//! lanes beside events.
//!
//! # What the types guarantee
//! * The slot is device memory of its context (brand `'id`), 8-byte
//!   aligned (an allocation's start), never handed out: the device's
//!   writes and waits are its only accesses while a scope has it, and the
//!   host reads or sets it only through `&mut` ([`Context::read_value`],
//!   [`Context::write_value`]), which no scope can hold at the same time.
//! * [`Lane::value_write`] and [`Lane::value_wait`] borrow the slot for
//!   the whole scope (`&'scope`), so it cannot be freed while a task that
//!   uses it is queued: the scope synchronises its lanes before it ends.
//! * Chips without value waits (the 310P) answer 207000 when the task is
//!   queued: an error whose [`kind`](crate::Error::kind) is
//!   [`NotSupported`](crate::ErrorKind::NotSupported).
//!
//! A wait whose value never comes waits for ever (as the runtime's does),
//! and the scope's end waits with it: the operator wait limit
//! ([`Acl::set_op_wait_timeout`](crate::Acl::set_op_wait_timeout)) is not
//! documented for value waits, and the simulator does not apply it to them. A scope with a time limit
//! ([`Context::scope_with_timeout`]) bounds it: the scope then ends with
//! [`Error::ScopeTimeout`](crate::Error::ScopeTimeout).

use crate::context::Context;
use crate::error::Result;
use crate::ffi::value::{self as raw, DeviceWord};
use crate::memory::DeviceBuffer;
use crate::mode::RunMode;
use crate::scope::Lane;

/// How a [`Lane::value_wait`] compares the slot with its value
/// (`ACL_STREAM_WAIT_VALUE_*`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ValueWait {
    /// Until `slot >= value` (`ACL_STREAM_WAIT_VALUE_GEQ`).
    AtLeast,
    /// Until `slot == value` (`ACL_STREAM_WAIT_VALUE_EQ`).
    Equal,
    /// Until `slot & value != 0` (`ACL_STREAM_WAIT_VALUE_AND`).
    AnyBitOf,
    /// Until `!(slot | value) != 0`: some bit set in neither
    /// (`ACL_STREAM_WAIT_VALUE_NOR`).
    SomeBitInNeither,
}

impl ValueWait {
    fn flag(self) -> u32 {
        match self {
            ValueWait::AtLeast => aclrt_sys::ACL_STREAM_WAIT_VALUE_GEQ,
            ValueWait::Equal => aclrt_sys::ACL_STREAM_WAIT_VALUE_EQ,
            ValueWait::AnyBitOf => aclrt_sys::ACL_STREAM_WAIT_VALUE_AND,
            ValueWait::SomeBitInNeither => aclrt_sys::ACL_STREAM_WAIT_VALUE_NOR,
        }
    }
}

/// One `u64` of device memory of the context branded `'id`, written and
/// waited on by the device ([`Lane::value_write`], [`Lane::value_wait`]).
/// Made by [`Context::value_slot`]; freed when dropped.
pub struct ValueSlot<'ctx, 'id> {
    word: DeviceWord,
    buf: DeviceBuffer<'ctx, 'id, u64>,
}

impl core::fmt::Debug for ValueSlot<'_, '_> {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("ValueSlot")
            .field("address", &self.buf.as_device_ptr())
            .finish()
    }
}

impl<'dev, 'id, M: RunMode> Context<'dev, 'id, M> {
    /// A value slot of this context holding `initial` (`aclrtMalloc` of 8
    /// bytes, then a copy).
    pub fn value_slot(&self, initial: u64) -> Result<ValueSlot<'_, 'id>> {
        let mut buf = self.alloc::<u64>(1)?;
        self.copy(&[initial], &mut buf)?;
        Ok(ValueSlot {
            word: DeviceWord::new(buf.as_device_ptr()),
            buf,
        })
    }

    /// The slot's value now (`aclrtMemcpy`); `&mut`: no scope has it.
    pub fn read_value(&self, slot: &mut ValueSlot<'_, 'id>) -> Result<u64> {
        let mut out = [0u64];
        self.copy(&slot.buf, &mut out)?;
        Ok(out[0])
    }

    /// Set the slot to `value` (`aclrtMemcpy`); `&mut`: no scope has it.
    pub fn write_value(&self, slot: &mut ValueSlot<'_, 'id>, value: u64) -> Result<()> {
        self.copy(&[value], &mut slot.buf)
    }
}

impl<'scope, 'id, M: RunMode> Lane<'scope, '_, 'id, '_, M> {
    /// Queue writing `value` to `slot` (`aclrtValueWrite`): when the lane
    /// reaches it, the device stores the 8 bytes. The slot stays borrowed
    /// until the scope ends.
    ///
    /// Errors: 207000 ([`NotSupported`](crate::ErrorKind::NotSupported)) on
    /// chips without value waits (the 310P); the runtime's otherwise.
    #[doc(alias = "aclrtValueWrite")]
    pub fn value_write(&self, slot: &'scope ValueSlot<'_, 'id>, value: u64) -> Result<()> {
        raw::value_write(self.core(), &slot.word, value)
    }

    /// Queue a wait (`aclrtValueWait`): the lane's later work runs once
    /// `slot` compares with `value` as `until` says (another lane's
    /// [`value_write`](Self::value_write), typically). The slot stays
    /// borrowed until the scope ends.
    ///
    /// Errors: as [`value_write`](Self::value_write).
    #[doc(alias = "aclrtValueWait")]
    pub fn value_wait(
        &self,
        slot: &'scope ValueSlot<'_, 'id>,
        value: u64,
        until: ValueWait,
    ) -> Result<()> {
        raw::value_wait(self.core(), &slot.word, value, until.flag())
    }
}
