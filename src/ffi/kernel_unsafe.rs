//! The public `unsafe` methods of the typed kernel API: the one promise of
//! a kernel's declaration ([`Binary::kernel`], [`Binary::kernel_ref`]), a
//! launch of a hand-built argument list ([`Lane::launch_args`]) and foreign
//! work on a lane ([`Lane::foreign`]). They live under `ffi` only because
//! the crate denies `unsafe_code` (an `unsafe fn` included) everywhere
//! else; in the order of imports this file stands above the typed API
//! ([`crate::kernel`], [`crate::scope`]) whose types it extends, and above
//! the raw calls of [`super::kernel`] it makes. Nothing imports it.

use core::ffi::CStr;

use super::kernel as fk;
use crate::error::Result;
use crate::kernel::{Binary, Finalized, Kernel, KernelArgs, KernelParams, LaunchConfig};
use crate::mode::RunMode;
use crate::scope::Lane;

impl<'ctx, 'id> Binary<'ctx, 'id> {
    /// Look up the kernel `name` (`aclrtBinaryGetFunction`, with the
    /// binary's context current, so its code is placed on that context's
    /// device) and declare its parameters `P`, a tuple of
    /// [`In`](crate::kernel::In), [`Out`](crate::kernel::Out),
    /// [`InOut`](crate::kernel::InOut), [`Scalar`](crate::kernel::Scalar)
    /// and [`Count`](crate::kernel::Count) markers in the kernel's parameter
    /// order. Every launch of the returned [`Kernel`] is safe.
    ///
    /// # Safety
    /// The declaration is the one promise the safe launches rely on. For
    /// every launch with arguments of these types, the device code of
    /// `name`:
    /// * takes exactly these parameters, in this order, each as the
    ///   runtime passes it: a buffer as its 8-byte device address, a
    ///   scalar or count as its bytes, each 8-byte aligned (acl-facts K.6);
    /// * reads only the buffers declared `In` or `InOut`, and writes only
    ///   the buffers declared `Out` or `InOut`; it writes every element of
    ///   an `Out` that it may touch (below), so that nothing of its old
    ///   contents is left — a buffer it may write in part is `InOut`
    ///   (the failure rule counts on it: a checked wait judges a whole
    ///   `Out` by the launch's inputs alone);
    /// * touches each buffer only within its length in elements of the
    ///   declared type — and where the signature has a `Count`, only the
    ///   elements below that count (the launch checks that the count fits
    ///   every buffer); its behaviour on the memory it touches must not
    ///   depend on `Scalar` values in any other way that could leave those
    ///   bounds;
    /// * touches no other memory (host memory, other allocations, memory
    ///   it remembers from an earlier launch), and finishes (no unbounded
    ///   loop; a scope's end waits for it).
    ///
    /// A kernel that reads out of bounds on the simulator faults with
    /// 507015 at the next synchronisation; on hardware it is undefined
    /// behaviour, which is why this is `unsafe`.
    #[doc(alias = "aclrtBinaryGetFunction")]
    pub unsafe fn kernel<P: KernelParams>(&self, name: &CStr) -> Result<Kernel<'_, 'id, P>> {
        let func = fk::get_function(self.context(), self.handle(), name)?;
        Ok(Kernel::new(func, self.context()))
    }

    /// Look up the kernel `name` as [`kernel`](Self::kernel) does, as a
    /// [`KernelRef`](crate::kernel::KernelRef) that does not borrow the binary: it
    /// can live next to the `Binary` in one struct, and launches with
    /// [`Lane::launch_in`](crate::Lane::launch_in), which checks that it
    /// is used with this binary.
    ///
    /// # Safety
    /// As for [`kernel`](Self::kernel): the declaration `P` is the promise
    /// the safe launches rely on.
    #[doc(alias = "aclrtBinaryGetFunction")]
    pub unsafe fn kernel_ref<P: KernelParams>(
        &self,
        name: &CStr,
    ) -> Result<crate::kernel::KernelRef<'id, P>> {
        let func = fk::get_function(self.context(), self.handle(), name)?;
        Ok(crate::kernel::KernelRef::new(func, self.serial()))
    }
}

impl<'scope, 'env, 'id, 'sid, M: RunMode> Lane<'scope, 'env, 'id, 'sid, M> {
    /// Launch a kernel with an argument list built by hand
    /// ([`Kernel::args`]), with `aclrtLaunchKernelWithConfig`. The typed
    /// [`Lane::launch`] is the safe way; this is for kernels whose
    /// arguments the markers cannot describe.
    ///
    /// # Safety
    /// Every device address appended to `args` is memory of this context
    /// that stays valid, and that nothing else accesses in a conflicting way
    /// (no CPU access, no other stream's work), until this lane is idle —
    /// the scope's end at the latest: e.g. borrowed for the whole scope
    /// outside it. The kernel's device code touches only that memory,
    /// within bounds, and interprets the list as appended.
    #[doc(alias = "aclrtLaunchKernelWithConfig")]
    pub unsafe fn launch_args<P: KernelParams>(
        &self,
        args: &KernelArgs<'scope, 'id, P, Finalized>,
        config: impl Into<LaunchConfig>,
    ) -> Result<()> {
        let config = config.into();
        let mut attrs = config.c_attrs();
        // SAFETY: the addresses and the device code are the caller's
        // contract; the kernel is borrowed for `'scope` by `args`.
        unsafe {
            fk::launch_list(
                self.core(),
                args.func(),
                config.block_count(),
                &mut attrs,
                args.raw(),
                true,
            )
        }
    }

    /// Enqueue work of another library (an aclnn operator, a model
    /// execution) on this lane's stream: `reads` are shared for the rest of
    /// the scope, `writes` exclusively (they come back as [`InFlight`](crate::InFlight)s of
    /// this lane), the workspace exclusively for the rest of the scope; `f`
    /// gets the raw stream, each operand's device pointer and size in
    /// bytes, and the workspace, and enqueues the work.
    ///
    /// Operands are memory of the runtime
    /// ([`KernelMemory`](crate::bounds::KernelMemory)), as for kernels:
    /// registered host memory ([`HostRegistration`](crate::HostRegistration))
    /// does not compile here (its host address is not for device code; copy
    /// it into device memory on the lane first).
    ///
    /// The context is current on the calling thread while `f` runs. In host
    /// run mode a `HostBuffer` operand is pinned **host** memory: its pointer
    /// is a host address. Errors before `f` runs:
    /// [`Error::KernelArgsBusy`](crate::Error::KernelArgsBusy) while a [`KernelArgs`] builder of this
    /// thread lives; the operands stay borrowed until the scope ends.
    ///
    /// # Safety
    /// `f`, and the work it enqueues:
    /// * enqueue work **only on the stream** it is given (no other stream,
    ///   no synchronous device access), so that the scope's final
    ///   synchronisation, [`InFlight::wait`](crate::InFlight::wait) and [`Lane::signal`] cover it;
    /// * read only the `reads` and the `writes`, write only the `writes` and
    ///   the workspace, each within its size in bytes, and touch no other
    ///   memory after `f` returns (no pointer kept for later);
    /// * leave the stream usable: do not destroy, abort or reconfigure it,
    ///   and do not change which context is current without restoring it;
    ///   it may build this thread's kernel argument list (`foreign` holds the
    ///   thread's claim while `f` runs, so no [`KernelArgs`] builder is live
    ///   and [`Lane::launch`] inside `f` fails with
    ///   [`Error::KernelArgsBusy`](crate::Error::KernelArgsBusy));
    /// * return `Err` only if nothing was enqueued, or if what was enqueued
    ///   obeys the rules above anyway (the buffers stay borrowed until the
    ///   scope ends either way).
    pub unsafe fn foreign<R, W, F>(
        &self,
        reads: R,
        writes: W,
        workspace: Option<&'scope mut crate::DeviceBuffer<'_, 'id, u8>>,
        f: F,
    ) -> Result<W::Output>
    where
        R: crate::kernel::ForeignReads<'scope, 'id, 'sid>,
        W: crate::kernel::ForeignWrites<'scope, 'id, 'sid>,
        F: FnOnce(&crate::kernel::ForeignWork<'_>) -> Result<()>,
    {
        let lane = self.core();
        let mut staged = fk::Staged::new();
        let operand = |r: super::Region| crate::kernel::ForeignOperand::new(r.ptr, r.bytes);
        reads.stage(lane, &mut staged);
        let read_ops = staged.take_regions().into_iter().map(operand).collect();
        let output = writes.stage(lane, &mut staged);
        staged.check_lane(lane)?;
        let write_ops = staged.take_regions().into_iter().map(operand).collect();
        let workspace = workspace.map(|w| {
            let parked = lane.park(w);
            // Parked for the rest of the scope: never handed back (dropping
            // a `Parked` keeps its borrow until the scope ends).
            let region = parked.region();
            crate::kernel::ForeignOperand::new(region.ptr, region.bytes)
        });
        // Foreign libraries build their argument lists on this thread's
        // runtime list too (aclnn operators do): hold the claim, so that a
        // live `KernelArgs` builder of this thread is not clobbered.
        let _claim = fk::ArgsClaim::take()?;
        lane.bind()?;
        let work = crate::kernel::ForeignWork::new(
            lane.stream().as_ptr(),
            lane.context().as_ptr(),
            read_ops,
            write_ops,
            workspace,
        );
        super::locks::user_code("a foreign operator's closure");
        f(&work)?;
        Ok(output)
    }
}
