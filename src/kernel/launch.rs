//! Typed launches on a lane ([`Lane::launch`], [`Lane::launch_in`], ...).

use crate::error::Result;
use crate::ffi::kernel::{self as fk, Staged};
use crate::ffi::scope::LaneCore;
use crate::mode::RunMode;
use crate::scope::Lane;

use super::binary::Binary;

use super::args::LaunchArgs;
use super::config::LaunchConfig;
use super::params::{Kernel, KernelParams, KernelRef};

impl<'scope, 'env, 'id, 'sid, M: RunMode> Lane<'scope, 'env, 'id, 'sid, M> {
    /// Launch `kernel` on this lane (`aclrtKernelArgsInit`/`Append`/`Finalize`,
    /// then `aclrtLaunchKernelWithConfig`); returns once it is queued.
    ///
    /// `config` is a block count (`u32`) or a [`LaunchConfig`]; `args` is a
    /// tuple with one argument per declared parameter ([`KernelArg`](crate::kernel::KernelArg)). The
    /// outputs come back in the same positions: an [`InFlight`](crate::InFlight) for every
    /// written buffer, `()` for the rest. Errors, before anything is
    /// queued: [`Error::KernelCount`](crate::Error::KernelCount),
    /// [`Error::KernelArgsBusy`](crate::Error::KernelArgsBusy); then the
    /// runtime's. A kernel that faults on the device is reported by the
    /// next synchronisation (507015 on the simulator), at the latest by the
    /// scope. The buffers stay borrowed until the scope ends either way.
    #[doc(alias = "aclrtLaunchKernelWithConfig")]
    #[doc(alias = "aclrtKernelArgsInit")]
    #[doc(alias = "aclrtKernelArgsAppend")]
    #[doc(alias = "aclrtKernelArgsFinalize")]
    pub fn launch<P, A>(
        &self,
        kernel: &'scope Kernel<'_, 'id, P>,
        config: impl Into<LaunchConfig>,
        args: A,
    ) -> Result<A::Output>
    where
        P: KernelParams,
        A: LaunchArgs<'scope, 'id, 'sid, M, P>,
    {
        let config = config.into();
        let mut staged = Staged::new();
        let output = args.stage(self.core(), &mut staged);
        launch_staged(self.core(), kernel, &config, &staged)?;
        Ok(output)
    }

    /// Launch the kernel `kernel` of `binary` on this lane: [`launch`](Self::launch)
    /// for a [`KernelRef`], which does not borrow its binary (so both can
    /// live in one struct). The binary is borrowed for the scope (it cannot
    /// be unloaded while the launch may run); a reference looked up in
    /// another binary is [`Error::ForeignKernel`](crate::Error::ForeignKernel),
    /// before anything is queued (the outputs stay borrowed until the scope
    /// ends; [`launch_in_or_keep`](Self::launch_in_or_keep) gives them back).
    #[doc(alias = "aclrtLaunchKernelWithConfig")]
    pub fn launch_in<P, A>(
        &self,
        binary: &'scope Binary<'_, 'id>,
        kernel: KernelRef<'id, P>,
        config: impl Into<LaunchConfig>,
        args: A,
    ) -> Result<A::Output>
    where
        P: KernelParams,
        A: LaunchArgs<'scope, 'id, 'sid, M, P>,
    {
        self.launch_in_staged(binary, kernel, config, args)
            .map_err(crate::Error::from)
    }

    /// [`launch_in`](Self::launch_in), which on error gives its operands
    /// back ([`WaitFailed::into_item`](crate::WaitFailed::into_item): the
    /// outputs, still in flight on this lane, unchanged by the launch), so a
    /// service loop can launch again, or take them back with `reuse`,
    /// without leaving the scope; `?` turns it into the [`Error`](crate::Error).
    ///
    /// A refusal before anything is queued (a kernel reference of another
    /// binary, [`Error::ForeignKernel`](crate::Error::ForeignKernel)) is no
    /// failure of work: the outputs come back holding what they held, and
    /// the same launch with the right kernel may follow at once. Any other
    /// error (the runtime's launch call failed) gives back outputs holding
    /// whatever they held before, which the launch was staged to replace:
    /// that error is entered as a failure of this lane (SAFETY.md, the
    /// failure rule), so their checked waits fail until they are written
    /// afresh, and the scope passes its recovery point
    /// ([`Scope::recover`](crate::Scope::recover)) before it goes on.
    #[doc(alias = "aclrtLaunchKernelWithConfig")]
    pub fn launch_in_or_keep<P, A>(
        &self,
        binary: &'scope Binary<'_, 'id>,
        kernel: KernelRef<'id, P>,
        config: impl Into<LaunchConfig>,
        args: A,
    ) -> core::result::Result<A::Output, crate::WaitFailed<A::Output>>
    where
        P: KernelParams,
        A: LaunchArgs<'scope, 'id, 'sid, M, P>,
    {
        self.launch_in_staged(binary, kernel, config, args)
            .inspect_err(|failed| {
                // A refusal that queued nothing judges no work.
                if *failed.error() != crate::Error::ForeignKernel {
                    self.core().failed(failed.error());
                }
            })
    }

    fn launch_in_staged<P, A>(
        &self,
        binary: &'scope Binary<'_, 'id>,
        kernel: KernelRef<'id, P>,
        config: impl Into<LaunchConfig>,
        args: A,
    ) -> core::result::Result<A::Output, crate::WaitFailed<A::Output>>
    where
        P: KernelParams,
        A: LaunchArgs<'scope, 'id, 'sid, M, P>,
    {
        let config = config.into();
        let kernel = kernel.of(binary);
        // A reference of another binary is refused before anything is
        // staged to run: its outputs come back as they were.
        let mut staged = if kernel.is_ok() {
            Staged::new()
        } else {
            Staged::refused()
        };
        let output = args.stage(self.core(), &mut staged);
        let launched =
            kernel.and_then(|kernel| launch_staged(self.core(), &kernel, &config, &staged));
        match launched {
            Ok(()) => Ok(output),
            Err(e) => Err(crate::WaitFailed::new(e, output)),
        }
    }
}

/// A typed launch of `kernel` on `lane` with the staged arguments: the
/// kernel's handles and `config`'s blocks and C attributes go down to the
/// raw launch.
#[inline(always)]
fn launch_staged<'sid, P: KernelParams>(
    lane: &LaneCore<'_, 'sid>,
    kernel: &Kernel<'_, '_, P>,
    config: &LaunchConfig,
    staged: &Staged<'sid>,
) -> Result<()> {
    let mut attrs = config.c_attrs();
    fk::launch(
        lane,
        fk::LaunchedKernel {
            func: kernel.func(),
            ctx: kernel.context(),
        },
        config.block_count(),
        &mut attrs,
        staged,
    )
}
