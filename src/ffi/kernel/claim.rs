//! The right to build this thread's runtime argument list ([`ArgsClaim`],
//! acl-facts K.6: the per-thread flag and the claim's serial) and the safe
//! steps of a [`RawArgs`] around its runtime calls. Bookkeeping with no
//! `unsafe`: the runtime calls and the argument are in the parent module.
#![deny(unsafe_code)]

use core::cell::Cell;
use core::marker::PhantomData;

use super::{ArgsClaim, RawArgs};
use crate::error::{Error, Result};

std::thread_local! {
    /// Whether this thread's runtime argument list is being built, and
    /// how many claims were made on this thread (placeholders name theirs).
    static ARGS_CLAIM: Cell<(bool, u64)> = const { Cell::new((false, 0)) };
}

impl ArgsClaim {
    /// Claim this thread's list, or [`Error::KernelArgsBusy`] while another
    /// claim of this thread lives.
    #[inline]
    pub(crate) fn take() -> Result<ArgsClaim> {
        Self::take_as(true)
    }

    /// [`take`](Self::take) for a typed launch, which makes no placeholder:
    /// the serial (which only placeholders name) is not advanced, so the
    /// claim costs one thread-local flag. A builder claimed
    /// later still gets a serial no earlier placeholder has.
    #[inline]
    pub(crate) fn take_for_launch() -> Result<ArgsClaim> {
        Self::take_as(false)
    }

    #[inline(always)]
    fn take_as(numbered: bool) -> Result<ArgsClaim> {
        let serial = ARGS_CLAIM.with(|c| {
            let (claimed, serial) = c.get();
            if claimed {
                return None;
            }
            let serial = serial + u64::from(numbered);
            c.set((true, serial));
            Some(serial)
        });
        let Some(serial) = serial else {
            return Err(Error::KernelArgsBusy);
        };
        Ok(ArgsClaim {
            serial,
            _thread: PhantomData,
        })
    }

    /// Which claim this is, on its thread.
    pub(crate) fn serial(&self) -> u64 {
        self.serial
    }
}

impl Drop for ArgsClaim {
    #[inline]
    fn drop(&mut self) {
        ARGS_CLAIM.with(|c| c.set((false, c.get().1)));
    }
}

impl RawArgs {
    pub(crate) fn serial(&self) -> u64 {
        self.claim.serial()
    }

    /// `aclrtKernelArgsFinalize` (needs a current context, K.6).
    pub(crate) fn finalize(&mut self) -> Result<()> {
        super::super::make_current(self.ctx)?;
        self.finalize_current()
    }
}
