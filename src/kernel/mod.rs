//! Compute on a stream: device binaries ([`Binary`]), typed kernels
//! ([`Kernel`]), safe launches ([`Lane::launch`](crate::Lane::launch)), hand-built argument lists
//! ([`KernelArgs`]) and work of other libraries ([`Lane::foreign`](crate::Lane::foreign)).
//!
//! * [`Context::load_binary`](crate::Context::load_binary) (`aclrtBinaryLoadFromData`) and
//!   [`Context::load_binary_file`](crate::Context::load_binary_file) (`aclrtBinaryLoadFromFile`) give a
//!   [`Binary`] that borrows its context and carries its brand `'id`; it is
//!   unloaded (`aclrtBinaryUnLoad`) on drop or by [`Binary::unload`].
//! * [`Binary::kernel`] looks a kernel up (`aclrtBinaryGetFunction`, with
//!   the binary's context current, so the code lands on that context's
//!   device) and **declares its signature**: a tuple of markers
//!   ([`In`], [`Out`], [`InOut`], [`Scalar`], [`Count`]). That declaration
//!   is the single `unsafe` step: the caller asserts what the device code
//!   reads and writes.
//! * [`Lane::launch`](crate::Lane::launch) is safe and checked like a copy: buffers are device
//!   memory of the lane's context, borrowed for the rest of the scope (read
//!   arguments shared, written ones exclusively, coming back as
//!   [`InFlight`](crate::InFlight)s of the lane), scalars by value ([`DeviceRepr`](crate::DeviceRepr) only),
//!   element types as declared, a [`Count`] no larger than any buffer. It
//!   packs the arguments with `aclrtKernelArgsInit/Append/Finalize` and
//!   queues `aclrtLaunchKernelWithConfig`.
//!
//! ```
//! # let _sim = aclrt::sim::exclusive();
//! use aclrt::kernel::{Count, In, Out};
//! use aclrt::{Acl, make_guard};
//!
//! // The simulator's stand-in for device code (see `aclrt::sim::register_kernel`).
//! aclrt::sim::register_kernel("doc_add", |block, blocks, args| {
//!     let (a, b, c, n) = (args.u64(0)?, args.u64(1)?, args.u64(2)?, args.u64(3)?);
//!     for i in (block as usize..n as usize).step_by(blocks as usize) {
//!         args.write_f32(c, i, args.read_f32(a, i)? + args.read_f32(b, i)?)?;
//!     }
//!     Ok(())
//! });
//!
//! let acl = Acl::init()?;
//! let rt = acl.require::<aclrt::HostMode>()?;
//! let device = rt.device(0)?;
//! make_guard!(g);
//! let ctx = device.create_context(g)?;
//! let stream = ctx.create_stream()?;
//! let binary = ctx.load_binary(&aclrt::sim::binary_image(&["doc_add"]))?;
//! // SAFETY: doc_add reads a and b, writes c, each below n.
//! let add = unsafe { binary.kernel::<(In<f32>, In<f32>, Out<f32>, Count)>(c"doc_add")? };
//!
//! let a = ctx.alloc_from(&[1.0f32, 2.0, 3.0])?;
//! let b = ctx.alloc_from(&[10.0f32, 20.0, 30.0])?;
//! let mut c = ctx.alloc::<f32>(3)?;
//! let mut out = ctx.alloc_host_zeroed::<f32>(3)?;
//! ctx.scope(|s| {
//!     make_guard!(l);
//!     let lane = s.lane(&stream, l);
//!     let (_, _, c, _) = lane.launch(&add, 2, (&a, &b, &mut c, 3))?;
//!     lane.copy(&c, &mut out)?;
//!     Ok(())
//! })?;
//! assert_eq!(&out[..], &[11.0, 22.0, 33.0]);
//! # Ok::<(), aclrt::Error>(())
//! ```
//!
//! # Where the memory must lie
//! `In`, `Out` and `InOut` arguments must be memory the device can address:
//! [`DeviceBuffer`](crate::DeviceBuffer)s and their views in every run mode,
//! and in device run mode ([`DeviceMode`](crate::DeviceMode)) also
//! [`HostBuffer`](crate::HostBuffer)s, whose memory from `aclrtMallocHost`
//! *is* device memory there. In host run mode a `HostBuffer` is pinned host
//! memory, which device code cannot read: a compile error
//! ([`KernelPlace`]).
//!
//! # The argument list is per thread
//! The runtime keeps **one** argument list per thread and
//! `aclrtKernelArgsInit` re-initialises it (acl-facts K.6). A typed launch
//! builds and stages its list within the call; a [`KernelArgs`] builder
//! holds the thread's list for its whole life, is `!Send`, and while it
//! lives every other launch or builder **on that thread** fails with
//! [`Error::KernelArgsBusy`](crate::Error::KernelArgsBusy). Host functions
//! run on the runtime's thread, which has its own list.
//!
//! # Unloading
//! A launch needs its [`Kernel`] borrowed for the whole scope, and a kernel
//! borrows its [`Binary`]; scopes synchronise every lane before they return.
//! So whenever a binary can be unloaded (dropped, or [`Binary::unload`]),
//! no launch of it is pending — `aclrtBinaryUnLoad` itself does not wait
//! (K.5).
//!
//! # Real device binaries (the `system` backend)
//! The `system` backend declares and links the same functions; it is not
//! tested on hardware here. What this module assumes about a real binary:
//! * it is an AI Core / Vector Core object produced by the Ascend C toolchain
//!   for the **same SoC** as the device (K.3), loaded from file (the docs pair
//!   `aclrtBinaryLoadFromFile` with `aclrtLaunchKernelWithConfig`), or from
//!   memory with an explicit [`BinaryMagic`];
//! * its kernels take their parameters as the runtime appends them: each
//!   buffer as an 8-byte device address (`GM_ADDR`), each scalar by value,
//!   each 8-byte aligned, in declaration order, with the runtime's hidden
//!   system slots in front (added by `aclrtKernelArgsInit`);
//! * the declared signature matches the kernel's C++ signature and the
//!   kernel honours it (the `# Safety` of [`Binary::kernel`]) — nothing on
//!   the host can check that;
//! * AI CPU kernels (`CPU_KERNEL_MODE`, `aclrtRegisterCpuFunc`) are not
//!   supported by this API.
//!
//! # Design notes
//! Deliberately *not* encoded: the kernel's arity and types are not read
//! from the binary (they are declared); the block count is a run-time value
//! (0 is the runtime's error); `aclrtLaunchKernel` with a device-side
//! argument block is not offered (the block would have to outlive the
//! kernel; the args-handle path stages the arguments during the call);
//! `aclrtKernelArgsParaUpdate` is not bound.

mod args;
mod binary;
mod builder;
mod config;
mod foreign;
mod launch;
mod params;

pub use self::args::{KernelArg, KernelMemory, KernelPlace, LaunchArgs};
pub use self::binary::{Binary, BinaryMagic, LoadOptions};
pub use self::builder::{Appending, ArgsStage, Filling, Finalized, KernelArgs, Placeholder};
pub use self::config::{Engine, LaunchConfig, ScheduleMode};
pub use self::foreign::{ForeignOperand, ForeignReads, ForeignWork, ForeignWrites};
pub use self::params::{Count, In, InOut, Kernel, KernelParams, KernelRef, Out, Param, Scalar};
