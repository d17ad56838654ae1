//! # aclrt: the AscendCL runtime, impossible to misuse
//!
//! Safe Rust bindings to the AscendCL runtime C API (`acl*`/`aclrt*`) of
//! Huawei Ascend NPUs. Lifetimes tie every resource to its owner, invariant
//! brands keep resources of different contexts apart, and type parameters
//! carry the run mode and where memory lies, so releasing in the wrong order,
//! mixing contexts and copying in the wrong direction do not compile.
//! Everything else returns an [`Error`] carrying the ACL code, the C function
//! and the runtime's message.
//!
//! Without an NPU it runs on the built-in simulator (the default `sim`
//! backend, re-exported as [`sim`]).
//!
//! ```
//! # let _sim = aclrt::sim::exclusive();
//! use aclrt::{Acl, HostMode, make_guard};
//!
//! let acl = Acl::init()?;                              // aclInit
//! let device = acl.require::<HostMode>()?.device(0)?;  // aclrtSetDevice
//! make_guard!(guard);
//! let ctx = device.create_context(guard)?;             // aclrtCreateContext
//! let input = ctx.alloc_host_from(&[1.0f32, 2.0, 3.0])?; // aclrtMallocHost
//! let mut on_device = ctx.alloc::<f32>(3)?;            // aclrtMalloc
//! ctx.upload(&input, &mut on_device)?;                 // aclrtMemcpy H2D
//! let mut output = vec![0.0f32; 3];
//! ctx.download(&on_device, &mut output)?;              // aclrtMemcpy D2H
//! assert_eq!(output, [1.0, 2.0, 3.0]);
//! # Ok::<(), aclrt::Error>(())
//! ```
//!
//! # Chapters
//! * [`guide::concepts`]: the C ↔ Rust concept table, and what is
//!   deliberately not encoded in types.
//! * [`guide::safety_model`]: every guarantee and the ui-test that proves it.
//! * [`guide::compile_errors`]: if you see this compiler error, it means…
//! * [`guide::building`]: backends, features and every environment variable.
//! * [`guide::testing`]: testing your code without an NPU (audit, fault
//!   injection, run modes, timeline).
//!
//! # Design notes
//! * Every wrapper says which C function it calls and carries
//!   `#[doc(alias = "…")]`, so searching the docs for `aclrtMemcpyAsync` finds
//!   [`Lane::copy`].
//! * Handles are one pointer wide (`Stream`: two, its handle and its
//!   context's), markers are zero-sized, `Option<Handle>` uses the niche; a
//!   safe call costs the C call plus a thread-local check of the current
//!   context (see `BENCHMARKS.md`).
//! * `Send`/`Sync` are deliberate and asserted: `Acl`, `Device`, `Context`,
//!   `Stream`, `Event` and buffers are `Send + Sync` (the runtime is
//!   thread-safe and each call makes its context current); `Scope`, `Lane`
//!   and `InFlight` are neither (a scope belongs to the thread that opened it).
//! * All `unsafe` code is in one private module, `ffi`, next to the
//!   argument that justifies it; the rest of the crate is compiled with
//!   `#![deny(unsafe_code)]`, so the compiler checks that no `unsafe` (block,
//!   `unsafe impl`, `unsafe fn`) appears anywhere else.
#![deny(unsafe_code)]
#![deny(unsafe_op_in_unsafe_fn)]

mod acl;
mod context;
mod device;
mod error;
mod event;
// The only module with `unsafe` code: its own docs say what each
// `unsafe` relies on, and `deny(unsafe_code)` keeps it the only one.
#[allow(unsafe_code)]
mod ffi;
mod memory;
mod mode;
mod scope;
mod stream;

pub use acl::{Acl, Detected, Runtime};
pub use context::{Context, DefaultContext, MallocPolicy};
pub use device::{Device, MemoryInfo, PeerAccess};
pub use error::{Error, ErrorKind, Escalation, Result};
pub use event::{
    Event, EventKind, EventState, IsRecorded, Recorded, ResettableKind, SyncOnly, Timing,
    TimingKind, Unrecorded,
};
pub use memory::{
    AsyncDirection, CopyDirection, DeviceBuffer, DeviceMemory, DeviceRepr, DeviceToDevice,
    DeviceToHost, DeviceView, DeviceViewMut, HostBuffer, HostBufferUninit, HostMemory,
    HostToDevice, HostToHost, Memory, MemoryMut, OnDevice, OnHost, PageableRunMode, PinnedChunks,
    PinnedChunksMut, PinnedIter, PinnedIterMut, PinnedMemory, PinnedSlice, Place,
};
pub use mode::{
    DeviceMode, DeviceRunMode, HostMode, HostRunMode, Residency, RunMode, RunModeKind, memcpy_kind,
};
pub use scope::{AsyncDest, AsyncSource, InFlight, Lane, Mark, Scope, Signal};
pub use stream::{DefaultStream, Destroyable, Stream, StreamFlags};

/// Identity brands: `make_guard!(g)` makes a `Guard<'id>` with a lifetime no
/// other guard has; a context created with it carries that brand.
pub use generativity::{Guard, Id, make_guard};

/// The user guide: chapters of the documentation (no items).
pub mod guide {
    #[doc = include_str!("guide/concepts.md")]
    pub mod concepts {}
    #[doc = include_str!("guide/safety_model.md")]
    pub mod safety_model {}
    #[doc = include_str!("guide/compile_errors.md")]
    pub mod compile_errors {}
    #[doc = include_str!("guide/building.md")]
    pub mod building {}
    #[cfg_attr(aclrt_backend = "sim", doc = include_str!("guide/testing.md"))]
    /// Testing without an NPU (this chapter needs the `sim` backend).
    pub mod testing {}
}

/// The raw declarations (crate `aclrt-sys`).
pub use aclrt_sys as sys;

/// The plain-data traits ([`bytemuck::Pod`], [`bytemuck::Zeroable`]) that
/// [`DeviceRepr`] builds on, re-exported so your element types can derive
/// them with the same version.
pub use bytemuck;

/// The built-in software NPU (crate `aclrt-sim`): configuration, fault
/// injection and the audit of leaks and rule violations.
#[cfg(aclrt_backend = "sim")]
pub use aclrt_sim as sim;

mod assertions {
    use super::*;
    use core::mem::size_of;
    use static_assertions::{assert_eq_size, assert_impl_all, const_assert_eq};

    type Ptr = *const ();
    // Handles are one pointer wide and `Option` uses the niche.
    assert_eq_size!(Device<'static, HostMode>, Ptr);
    assert_eq_size!(Option<Device<'static, HostMode>>, Ptr);
    assert_eq_size!(Context<'static, 'static, HostMode>, Ptr);
    assert_eq_size!(Option<Context<'static, 'static, HostMode>>, Ptr);
    assert_eq_size!(DefaultContext<'static, 'static, HostMode>, Ptr);
    // A stream is its handle plus its context's handle (made current per call).
    assert_eq_size!(Stream<'static, 'static>, [Ptr; 2]);
    assert_eq_size!(Option<Stream<'static, 'static>>, [Ptr; 2]);
    // Buffers are (address, byte length), like a slice.
    assert_eq_size!(DeviceBuffer<'static, 'static, f32>, [Ptr; 2]);
    assert_eq_size!(Option<DeviceBuffer<'static, 'static, f32>>, [Ptr; 2]);
    assert_eq_size!(HostBuffer<'static, 'static, f32, HostMode>, [Ptr; 2]);
    // Markers are zero-sized.
    const_assert_eq!(size_of::<HostMode>(), 0);
    const_assert_eq!(size_of::<DeviceMode>(), 0);
    const_assert_eq!(size_of::<Id<'static>>(), 0);
    // Send/Sync, decided deliberately (see each type's docs).
    assert_impl_all!(Acl: Send, Sync);
    assert_impl_all!(Runtime<'static, HostMode>: Send, Sync, Copy);
    assert_impl_all!(Device<'static, HostMode>: Send, Sync);
    assert_impl_all!(Context<'static, 'static, HostMode>: Send, Sync);
    assert_impl_all!(DefaultContext<'static, 'static, HostMode>: Send, Sync);
    assert_impl_all!(Stream<'static, 'static>: Send, Sync);
    assert_impl_all!(DefaultStream<'static, 'static>: Send, Sync);
    assert_impl_all!(DeviceBuffer<'static, 'static, f32>: Send, Sync);
    assert_impl_all!(HostBuffer<'static, 'static, f32, HostMode>: Send, Sync);
    assert_impl_all!(HostBufferUninit<'static, 'static, f32, HostMode>: Send, Sync);
    assert_impl_all!(Error: Send, Sync, std::error::Error);
    assert_eq_size!(Event<'static, 'static, Timing, Recorded>, Ptr);
    assert_eq_size!(Option<Event<'static, 'static, Timing, Recorded>>, Ptr);
    assert_impl_all!(Event<'static, 'static, Timing, Recorded>: Send, Sync);
    // Scopes and lanes belong to the thread that opened them.
    static_assertions::assert_not_impl_any!(Scope<'static, 'static, 'static, HostMode>: Send, Sync);
    static_assertions::assert_not_impl_any!(Lane<'static, 'static, 'static, 'static, HostMode>: Send, Sync);
    static_assertions::assert_not_impl_any!(InFlight<'static, 'static, DeviceBuffer<'static, 'static, f32>>: Send, Sync);
}

/// The README's Rust example runs as a doctest.
#[cfg(doctest)]
#[doc = include_str!("../README.md")]
pub struct ReadmeDoctests;
