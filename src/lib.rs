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
//! Compute on a stream is in [`kernel`]: device binaries, kernels typed by
//! their declared signature (the one `unsafe` step), safe launches on a
//! [`Lane`], and work of other libraries ([`Lane::foreign`]).
//!
//! # Chapters
//! * [`guide::concepts`]: the C ↔ Rust concept table, and what is
//!   deliberately not encoded in types.
//! * [`guide::safety_model`]: every guarantee and the ui-test that proves it.
//! * [`guide::compile_errors`]: if you see this compiler error, it means…
//! * [`guide::building`]: backends, features and every environment variable.
//! * [`guide::testing`]: testing your code without an NPU (audit, fault
//!   injection, run modes, timeline).
//! * [`guide::structuring`]: structuring an application that holds NPU
//!   state for its whole life (a service with worker threads).
//! * [`guide::async_services`]: awaiting the NPU from async code: futures
//!   of every wait, an async body inside a scope, the device actor.
//! * [`guide::python`]: pyACL on aclrt (the `acl` Python module in `py/`)
//!   and its Pythonic layer; the pyACL ↔ Pythonic ↔ Rust concept table.
//! * [`guide::runtime_resources`]: the runtime's newer resources (virtual
//!   memory, IPC, notifies, host-function threads, exception callbacks,
//!   device information and control) and how their lives are typed.
//!
//! # Design notes
//! * The crate root exports what you write: handles, buffers, the run modes
//!   and event states you spell as type arguments, [`Error`], and
//!   [`DeviceRepr`] (the one trait you implement). The traits of `where`
//!   clauses and the markers you meet only in them and in compile errors are
//!   in [`bounds`], with the reasons; the iterators of pinned memory in
//!   [`iter`]. Copy direction has one mechanism, the type-level
//!   [`Place`](bounds::Place) of each operand (see [`bounds`]).
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
//!   and `InFlight` are neither (a scope belongs to the thread that opened it);
//!   `kernel::Binary` and `kernel::Kernel` are `Send + Sync`, the kernel
//!   argument builder `kernel::KernelArgs` is neither (the runtime's list is
//!   per thread).
//!   `Reporter` (a thread handle) and `Subscription` (two borrows) are
//!   `Send + Sync`.
//! * All `unsafe` code is in one private module, `ffi`, next to the
//!   argument that justifies it; the rest of the crate is compiled with
//!   `#![deny(unsafe_code)]`, so the compiler checks that no `unsafe` (block,
//!   `unsafe impl`, `unsafe fn`) appears anywhere else.
#![deny(unsafe_code)]
// Every panic of the public API is documented (`# Panics`; SAFETY.md lists them).
#![warn(clippy::missing_panics_doc)]
#![cfg_attr(docsrs, feature(doc_cfg))]
#![deny(unsafe_op_in_unsafe_fn)]

mod acl;
pub mod actor;
mod allocator;
mod base;
mod context;
mod device;
mod error;
mod event;
mod exception;
pub mod kernel;
pub mod marker;
// The only module with `unsafe` code: its own docs say what each
// `unsafe` relies on, and `deny(unsafe_code)` keeps it the only one.
mod device_info;
#[allow(unsafe_code)]
mod ffi;
// The rule's bookkeeping beside the basement: no `unsafe`, no runtime call,
// no import of the floors above.
pub mod future;
#[cfg(unix)]
mod host_thread;
mod ipc;
mod ipc_event;
mod memory;
mod mode;
mod notify;
mod overflow;
mod register;
#[cfg(unix)]
mod report;
mod rule;
mod scope;
mod scope_notify;
#[cfg(unix)]
mod serving;
mod stream;
mod stream_config;
mod stream_ext;
mod value;
mod vmm;

pub use acl::{Acl, Detected, Runtime};
pub use allocator::StreamAllocator;
pub use base::{DataType, Float16, LogLevel, app_log};
pub use context::{Context, DefaultContext, MallocPolicy};
pub use device::{Device, MemAttr, MemoryInfo, PeerAccess};
pub use device_info::{
    DeviceAttr, DeviceFeature, DeviceStatus, ResourceLimit, SaturationMode, Utilization,
};
pub use error::{Error, ErrorKind, Escalation, Result, WaitFailed};
pub use event::{
    Event, ExIpc, ExProgress, ExProgressTimed, ExSync, ExSyncProgress, ExSyncProgressTimed,
    ExSyncTimed, ExTimeLine, Recorded, SyncOnly, Timing, Unrecorded,
};
pub use exception::{ExceptionHandler, ExceptionInfo};
#[cfg(unix)]
pub use host_thread::{HostFnServer, Processed};
pub use ipc::{IpcExport, IpcKey, IpcMemory};
pub use ipc_event::{IpcEvent, IpcEventHandle, IpcEventKey, IsIpc};
pub use memory::{
    DeviceBuffer, DeviceRepr, DeviceView, DeviceViewMut, HostBuffer, HostBufferUninit, PinnedSlice,
};
pub use mode::{DeviceMode, HostMode, RunMode, RunModeKind};
pub use notify::{Notify, NotifyKey};
pub use overflow::OverflowStatus;
pub use register::{
    DeviceAlias, DeviceAliasMut, HostRegistration, ManagedBuffer, PageAlignedBuf, last_error,
    take_last_error,
};
#[cfg(unix)]
pub use report::{Reporter, Subscription};
pub use scope::{Fence, InFlight, Lane, Mark, Reading, Scope, Shared, Signal};
pub use scope_notify::ScopeNotify;
pub use stream::{DefaultStream, Stream, StreamFlags, StreamPriority, StreamPriorityRange};
pub use stream_config::StreamConfig;
pub use value::{ValueSlot, ValueWait};
pub use vmm::{Access, Granularity, Granules, Mapping, PhysicalMem, Reservation, ShareableHandle};

pub mod bounds {
    //! The traits that bound the API, and the zero-sized markers you meet only
    //! in those bounds and in compile errors.
    //!
    //! The crate root holds the nouns you write: handles ([`Context`],
    //! [`Stream`], [`Event`]), buffers ([`DeviceBuffer`], [`HostBuffer`]), the
    //! run modes and event states you spell as type arguments ([`HostMode`],
    //! [`Timing`], [`Recorded`]) and the one trait you implement
    //! ([`DeviceRepr`]). What is here you rarely write yourself: a method's
    //! `where` clause names it, and when a call does not fit, the compiler
    //! prints it with its explanation (each trait carries a
    //! `#[diagnostic::on_unimplemented]` message; [`guide::compile_errors`]
    //! lists them). Import it (`use aclrt::bounds::*`, or by name) when you
    //! write functions generic over memory or events.
    //!
    //! The crate implements these traits for its own types (and for `[T]`,
    //! `Vec<T>`, `[T; N]`), and no other crate can add to them: they are
    //! sealed by a private supertrait, or (for [`AsyncDirection`] and
    //! [`Destroyable`]) every type they could matter for is this crate's, so
    //! the orphan rule keeps them closed. A bound is a closed list you can
    //! read off the docs, never a promise another crate can make.
    //!
    //! | group | traits | markers |
    //! | --- | --- | --- |
    //! | copy operands | [`Memory`], [`MemoryMut`], [`HostMemory`], [`DeviceMemory`], [`PinnedMemory`] | |
    //! | memset targets | [`RuntimeMemory`] (runtime-allocated memory; not registered host memory) | |
    //! | asynchronous operands (inside a [`Scope`]) | [`AsyncSource`], [`AsyncDest`] | |
    //! | where memory lies, and copy direction | [`Place`], [`CopyDirection`], [`AsyncDirection`] | [`OnHost`], [`OnDevice`]; [`HostToHost`], [`HostToDevice`], [`DeviceToHost`], [`DeviceToDevice`] |
    //! | run mode | [`HostRunMode`], [`DeviceRunMode`], [`PageableRunMode`] (and [`RunMode`] at the root) | ([`HostMode`], [`DeviceMode`] at the root) |
    //! | events | [`EventKind`], [`EventState`], [`TimingKind`], [`WaitableKind`], [`ResettableKind`], [`WaitStatusKind`], [`IsRecorded`] | ([`Timing`], [`SyncOnly`], the `Ex*` kinds, [`Recorded`], [`Unrecorded`] at the root) |
    //! | views that cannot be destroyed | [`Destroyable`] (implemented by nothing) | |
    //!
    //! [`RunMode`] stays at the root: every function generic over the run mode
    //! writes `M: RunMode`, next to the `HostMode`/`DeviceMode` it abstracts
    //! over. The refinements (`HostRunMode`, ...) are here, because only the
    //! methods that need them name them.
    //!
    //! # Copy direction
    //!
    //! Direction is stated once, with types. Every copy operand says where it
    //! lies through its associated type [`Memory::Place`] ([`OnHost`] or
    //! [`OnDevice`]). [`CopyDirection`] turns a pair of places into a direction
    //! type, which [`AsyncDirection`] accepts or refuses for a run mode
    //! (`aclrtMemcpyAsync` host-to-host fails on a host, so it does not
    //! compile). The C `aclrtMemcpyKind` of every copy, synchronous or not, is
    //! derived inside the crate from the same two places and the run mode, at
    //! compile time; it has no public value-level twin (no `Residency` enum, no
    //! `memcpy_kind` function), so there is no second way to state a direction
    //! that could disagree with the types.
    //!
    //! # Design notes
    //!
    //! Deliberately *not* encoded here:
    //! * **Which context memory belongs to** is not a trait: it is the brand
    //!   `'id` in every trait's parameters (`Memory<'id>`), checked by lifetimes.
    //! * **Which device memory is on** is not a type: brands already keep
    //!   contexts (and so devices) apart, and a copy between devices needs a
    //!   [`PeerAccess`] value.
    //! * **`ACL_MEMCPY_DEFAULT`** (the runtime infers the direction from the
    //!   addresses) and `ACL_MEMCPY_HOST_TO_BUF_TO_DEVICE` are never used: the
    //!   types always know the direction.
    //! * **Lengths** are run-time values: a copy checks them and returns
    //!   [`Error::LengthMismatch`]; no const-generic lengths.
    //! * **Initialisation** is a separate type ([`HostBufferUninit`]), not a
    //!   state parameter: it never implements [`Memory`], so it cannot be read.
    //! * **Synchronous copies in every direction** are allowed in every run mode
    //!   ([`Context::copy`]); only the host-only helpers
    //!   ([`Context::upload`], [`Context::download`]) require [`HostRunMode`],
    //!   and only asynchronous host-to-host copies in host run mode are refused
    //!   by type.
    //!
    //! [`Context`]: crate::Context
    //! [`DeviceMode`]: crate::DeviceMode
    //! [`DeviceRepr`]: crate::DeviceRepr
    //! [`DeviceBuffer`]: crate::DeviceBuffer
    //! [`Error::LengthMismatch`]: crate::Error::LengthMismatch
    //! [`Event`]: crate::Event
    //! [`HostBuffer`]: crate::HostBuffer
    //! [`HostBufferUninit`]: crate::HostBufferUninit
    //! [`HostMode`]: crate::HostMode
    //! [`PeerAccess`]: crate::PeerAccess
    //! [`Recorded`]: crate::Recorded
    //! [`RunMode`]: crate::RunMode
    //! [`Scope`]: crate::Scope
    //! [`Stream`]: crate::Stream
    //! [`SyncOnly`]: crate::SyncOnly
    //! [`Timing`]: crate::Timing
    //! [`Unrecorded`]: crate::Unrecorded
    //! [`guide::compile_errors`]: crate::guide::compile_errors
    //! [`Context::copy`]: crate::Context::copy
    //! [`Context::upload`]: crate::Context::upload
    //! [`Context::download`]: crate::Context::download

    pub use crate::event::{
        EventKind, EventState, IsRecorded, ResettableKind, TimingKind, WaitStatusKind, WaitableKind,
    };
    pub use crate::kernel::{
        ArgsStage, ForeignReads, ForeignWrites, KernelArg, KernelMemory, KernelParams, KernelPlace,
        LaunchArgs, Param,
    };
    pub use crate::memory::RuntimeMemory;
    pub use crate::memory::{
        AsyncDirection, CopyDirection, DeviceMemory, DeviceResident, DeviceToDevice, DeviceToHost,
        HostMemory, HostToDevice, HostToHost, Memory, MemoryMut, OnDevice, OnHost, PageableRunMode,
        PinnedMemory, Place,
    };
    pub use crate::mode::{DeviceRunMode, HostRunMode};
    pub use crate::scope::{AsyncDest, AsyncSource, Keep};
    pub use crate::stream::Destroyable;
}

pub mod iter {
    //! The iterators of pinned memory ([`PinnedSlice`]): returned by its
    //! `iter`, `iter_mut`, `chunks` and `chunks_mut`; and of device memory
    //! ([`DeviceBuffer::chunks`] and friends). You name them only to store
    //! them.
    //!
    //! [`PinnedSlice`]: crate::PinnedSlice
    //! [`DeviceBuffer::chunks`]: crate::DeviceBuffer::chunks

    pub use crate::memory::{
        DeviceChunks, DeviceChunksMut, PinnedChunks, PinnedChunksMut, PinnedIter, PinnedIterMut,
    };
}

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
    #[cfg_attr(aclrt_backend = "sim", doc = include_str!("guide/structuring.md"))]
    /// Structuring an application (this chapter's examples need the `sim` backend).
    pub mod structuring {}
    #[cfg_attr(aclrt_backend = "sim", doc = include_str!("guide/async_services.md"))]
    /// Async services (this chapter's examples need the `sim` backend).
    pub mod async_services {}
    #[doc = include_str!("guide/python.md")]
    pub mod python {}
    #[cfg_attr(aclrt_backend = "sim", doc = include_str!("guide/runtime_resources.md"))]
    /// Runtime resources (this chapter's examples need the `sim` backend).
    pub mod runtime_resources {}
}

/// The raw declarations (crate `aclrt-sys`).
pub use aclrt_sys as sys;

/// The plain-data traits ([`bytemuck::Pod`], [`bytemuck::Zeroable`]) that
/// [`DeviceRepr`] builds on, re-exported so your element types can derive
/// them with the same version.
pub use bytemuck;

/// Whether this build of aclrt runs on its built-in simulator (the `sim`
/// backend, the default) rather than a real CANN runtime (`system`).
///
/// aclrt's own `cfg(aclrt_backend = "sim")` is set by aclrt's build script
/// for aclrt alone: copied into your crate it is never set, and code under
/// it silently disappears. Use this constant, or [`sim_only!`] /
/// [`not_sim!`] for code that names [`sim`] (which exists only with the
/// simulator backend).
pub const SIM_BACKEND: bool = cfg!(aclrt_backend = "sim");

/// Keep the code inside (statements or items) only when aclrt runs on its
/// built-in simulator ([`SIM_BACKEND`]); expands to nothing with the
/// `system` backend. aclrt decides, so the check does not disappear when
/// the code is copied into your crate (as `#[cfg(aclrt_backend = "sim")]`
/// would: that cfg is aclrt's own).
///
/// ```
/// # let _sim = aclrt::sim::exclusive();
/// let acl = aclrt::Acl::init()?;
/// // ... work ...
/// acl.finalize()?;
/// aclrt::sim_only! {
///     aclrt::sim::audit().assert_clean();
/// }
/// # Ok::<(), aclrt::Error>(())
/// ```
#[cfg(aclrt_backend = "sim")]
#[macro_export]
macro_rules! sim_only {
    ($($code:tt)*) => { $($code)* };
}

/// Keep the code inside (statements or items) only when aclrt runs on its
/// built-in simulator ([`SIM_BACKEND`]); expands to nothing with the
/// `system` backend.
#[cfg(not(aclrt_backend = "sim"))]
#[macro_export]
macro_rules! sim_only {
    ($($code:tt)*) => {};
}

/// Keep the code inside (statements or items) only when aclrt runs on a
/// real CANN runtime (the `system` backend); the twin of [`sim_only!`].
#[cfg(not(aclrt_backend = "sim"))]
#[macro_export]
macro_rules! not_sim {
    ($($code:tt)*) => { $($code)* };
}

/// Keep the code inside (statements or items) only when aclrt runs on a
/// real CANN runtime (the `system` backend); the twin of [`sim_only!`].
#[cfg(aclrt_backend = "sim")]
#[macro_export]
macro_rules! not_sim {
    ($($code:tt)*) => {};
}

/// The built-in software NPU (crate `aclrt-sim`): configuration, fault
/// injection and the audit of leaks and rule violations. Only with the
/// `sim` backend: name it inside [`sim_only!`] in code that must also build
/// for a real runtime.
#[cfg(aclrt_backend = "sim")]
#[cfg_attr(docsrs, doc(cfg(feature = "sim")))]
pub use aclrt_sim as sim;

/// Test hooks of the lock-discipline check (`ffi::locks`): not
/// part of the API, no stability promise.
#[doc(hidden)]
pub mod __lock_check {
    /// Whether this build checks the lock discipline (debug builds).
    pub const ENFORCED: bool = cfg!(debug_assertions);

    /// How many crate locks the calling thread holds (debug builds; 0 in
    /// release builds).
    pub fn held_here() -> u32 {
        crate::ffi::locks::held_count()
    }

    /// Break the discipline on purpose (`true`) or restore it (`false`):
    /// while on, unsubscribing a report stream holds the subscription
    /// book's lock across `aclrtUnSubscribeReport`, as the crate once
    /// did, so the check must fire in the callbacks that run there.
    /// Debug builds only: in a release build the breach is never made.
    pub fn break_on_purpose(on: bool) {
        crate::ffi::locks::BREAK_ON_PURPOSE.store(on, core::sync::atomic::Ordering::SeqCst);
    }

    /// Take two locks against the crate's order (ranks of the live book,
    /// then of the subscription book, on two private mutexes): in debug
    /// builds the second `lock` panics with the order check's message.
    pub fn out_of_order_on_purpose() {
        crate::ffi::locks::out_of_order_on_purpose();
    }
}

/// Test hooks of the books keyed by a stream's handle: not part of the
/// API, no stability promise.
#[doc(hidden)]
pub mod __books {
    /// How many entries keyed by `stream` (a handle from
    /// [`Stream::as_raw`](crate::Stream::as_raw)) the crate's books hold:
    /// 0 once the stream was released, on every path.
    pub fn entries_of(stream: *mut core::ffi::c_void) -> usize {
        match core::ptr::NonNull::new(stream) {
            Some(_) => crate::ffi::released::entries_of(crate::ffi::Raw::from_live(stream)),
            None => 0,
        }
    }
}

mod assertions {
    use super::*;
    use core::mem::size_of;
    use static_assertions::{assert_eq_size, assert_impl_all, const_assert_eq};

    // Used by every assertion below (rustc 1.85 does not see uses inside
    // these macros' const items and would warn).
    #[allow(dead_code)]
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
    // A reporter is a thread handle; a subscription is two borrows.
    #[cfg(unix)]
    assert_impl_all!(Reporter: Send, Sync);
    #[cfg(unix)]
    assert_impl_all!(Subscription<'static, 'static, 'static, 'static>: Send, Sync);
    assert_impl_all!(MemAttr: Send, Sync, Copy);
    // Registration types: registrations hold a `&mut [T]` (Send + Sync like it);
    // managed buffers are device buffers; the alias is a plain address.
    assert_impl_all!(PageAlignedBuf<f32>: Send, Sync);
    assert_impl_all!(HostRegistration<'static, 'static, 'static, f32, HostMode>: Send, Sync);
    assert_impl_all!(ManagedBuffer<'static, 'static, f32, HostMode>: Send, Sync);
    assert_impl_all!(ManagedBuffer<'static, 'static, f32, DeviceMode>: Send, Sync);
    assert_impl_all!(DeviceAlias<'static, 'static, f32>: Copy, Send, Sync);
    assert_impl_all!(DeviceAliasMut<'static, 'static, f32>: Send, Sync);
    static_assertions::assert_not_impl_any!(DeviceAliasMut<'static, 'static, f32>: Clone);
    assert_eq_size!(Event<'static, 'static, Timing, Recorded>, Ptr);
    assert_eq_size!(Option<Event<'static, 'static, Timing, Recorded>>, Ptr);
    assert_impl_all!(Event<'static, 'static, Timing, Recorded>: Send, Sync);
    // ExWithFlag event kinds: zero-sized; their events one pointer wide and
    // Send + Sync like the others (event calls take no current context).
    const_assert_eq!(size_of::<ExSync>(), 0);
    const_assert_eq!(size_of::<ExSyncTimed>(), 0);
    const_assert_eq!(size_of::<ExSyncProgress>(), 0);
    const_assert_eq!(size_of::<ExSyncProgressTimed>(), 0);
    const_assert_eq!(size_of::<ExProgress>(), 0);
    const_assert_eq!(size_of::<ExProgressTimed>(), 0);
    const_assert_eq!(size_of::<ExTimeLine>(), 0);
    assert_eq_size!(Event<'static, 'static, ExProgress, Recorded>, Ptr);
    assert_eq_size!(
        Option<Event<'static, 'static, ExSyncTimed, Unrecorded>>,
        Ptr
    );
    assert_impl_all!(Event<'static, 'static, ExSync, Recorded>: Send, Sync);
    assert_impl_all!(Event<'static, 'static, ExSyncTimed, Recorded>: Send, Sync);
    assert_impl_all!(Event<'static, 'static, ExSyncProgress, Recorded>: Send, Sync);
    assert_impl_all!(Event<'static, 'static, ExSyncProgressTimed, Recorded>: Send, Sync);
    assert_impl_all!(Event<'static, 'static, ExProgress, Recorded>: Send, Sync);
    assert_impl_all!(Event<'static, 'static, ExProgressTimed, Recorded>: Send, Sync);
    assert_impl_all!(Event<'static, 'static, ExTimeLine, Recorded>: Send, Sync);
    // A priority is one byte; plain data shared freely.
    const_assert_eq!(size_of::<StreamPriority>(), 1);
    assert_impl_all!(StreamPriority: Send, Sync, Copy);
    assert_impl_all!(StreamPriorityRange: Send, Sync, Copy);
    // The marker of what stays on its thread: zero-sized, neither `Send`
    // nor `Sync`, and so is every type that holds it.
    assert_eq_size!(marker::ThreadBound, ());
    static_assertions::assert_not_impl_any!(marker::ThreadBound: Send, Sync);
    #[cfg(unix)]
    static_assertions::assert_not_impl_any!(HostFnServer<'static>: Send, Sync);
    // Scopes and lanes belong to the thread that opened them.
    static_assertions::assert_not_impl_any!(Scope<'static, 'static, 'static, HostMode>: Send, Sync);
    static_assertions::assert_not_impl_any!(Lane<'static, 'static, 'static, 'static, HostMode>: Send, Sync);
    // Awaited waits of a scope stay on its thread; the actor's handle goes
    // anywhere.
    static_assertions::assert_not_impl_any!(crate::future::InFlightWait<'static, 'static, [u8]>: Send, Sync);
    static_assertions::assert_not_impl_any!(crate::future::FenceWait<'static, 'static, [u8]>: Send, Sync);
    static_assertions::assert_not_impl_any!(crate::future::LaneSync<'static, 'static, 'static, 'static, 'static, HostMode>: Send);
    assert_impl_all!(crate::actor::Handle<Vec<u8>, Vec<u8>>: Send, Sync, Clone);
    assert_impl_all!(crate::actor::Inbox<Vec<u8>, Vec<u8>>: Send);
    static_assertions::assert_not_impl_any!(InFlight<'static, 'static, DeviceBuffer<'static, 'static, f32>>: Send, Sync);
    // Kernels: binaries and func handles are process-wide runtime objects
    // (shareable); the argument list is the thread's own (neither).
    // A binary also carries its serial, which `KernelRef`s are checked
    // against (a handle can be reused after an unload; a serial is not).
    assert_eq_size!(kernel::Binary<'static, 'static>, [Ptr; 3]);
    assert_eq_size!(
        kernel::KernelRef<'static, (kernel::In<f32>, kernel::Count)>,
        [Ptr; 2]
    );
    assert_impl_all!(kernel::KernelRef<'static, (kernel::In<f32>,)>: Send, Sync, Copy);
    static_assertions::assert_not_impl_any!(Fence<'static, 'static, DeviceBuffer<'static, 'static, f32>>: Send, Sync);
    assert_eq_size!(
        kernel::Kernel<'static, 'static, (kernel::In<f32>, kernel::Count)>,
        [Ptr; 2]
    );
    assert_impl_all!(kernel::Binary<'static, 'static>: Send, Sync);
    assert_impl_all!(kernel::Kernel<'static, 'static, (kernel::In<f32>, kernel::Count)>: Send, Sync);
    assert_impl_all!(kernel::LaunchConfig: Send, Sync, Copy);
    assert_impl_all!(kernel::LoadOptions: Send, Sync, Copy);
    static_assertions::assert_not_impl_any!(kernel::KernelArgs<'static, 'static, (kernel::Count,), kernel::Appending>: Send, Sync);
    static_assertions::assert_not_impl_any!(kernel::KernelArgs<'static, 'static, (kernel::Count,), kernel::Finalized>: Send, Sync);
    static_assertions::assert_not_impl_any!(kernel::Placeholder: Send, Sync);
    static_assertions::assert_not_impl_any!(kernel::ForeignWork<'static>: Send, Sync);
}

/// The README's Rust example runs as a doctest.
#[cfg(doctest)]
#[doc = include_str!("../README.md")]
pub struct ReadmeDoctests;
