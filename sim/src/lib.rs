//! # aclrt-sim: a strict, concurrent software AscendCL runtime
//!
//! This crate implements the C ABI of the AscendCL runtime (the `acl*` /
//! `aclrt*` functions declared in the project's header
//! `sys/include/acl/{acl_base.h, acl_rt.h, acl_rt_allocator.h}`) in plain
//! Rust, with no NPU; a function of that surface it does not model answers
//! the runtime's own "not supported" (207000) and is reported (rule
//! `UNSUPPORTED`), never a missing symbol. It is
//! the default backend of `aclrt` (via `aclrt-sys`'s `sim` feature) and the
//! project's test oracle:
//!
//! * **Faithful**: prototypes, constants, error codes and the documented
//!   rules of the real runtime (see `shared/acl-facts.md` §5): init/finalize
//!   reference counting, per-device reference counts, default contexts and
//!   streams, the per-thread current context, the NULL default stream,
//!   107003 for a stream of another context, event status semantics, both run
//!   modes, the `aclrtMalloc` size rounding, timeouts, callbacks, versions.
//! * **Strict**: every pointer is resolved against the live allocation table
//!   and every handle against the handle tables, and every misuse found is
//!   recorded as a [`Violation`] (and reported on stderr), so a test can
//!   assert "zero violations" with [`audit`]. By default
//!   ([`Strictness::Report`]) a misuse the real runtime lets through is
//!   answered as the runtime answers it (a checker must not change the
//!   program's path); `ACLRT_SIM_STRICTNESS=refuse` refuses it instead.
//!   Only a misuse whose answer on the hardware is memory corruption or a
//!   hang is refused in both settings. See [the table](#strict-checks).
//! * **Concurrent**: every stream executes its tasks in order; a pool of
//!   worker threads runs streams in parallel (a stream blocked on an event,
//!   a delay or a host function never holds up the others); async calls
//!   return before the work is done; events and cross-stream waits really
//!   block.
//! * **Inspectable**: an audit of live resources, violations and leaks; call
//!   counting; fault injection; task delays; a timeline of every task
//!   ([`trace`]: Chrome-trace JSON and an SVG picture).
//!
//! Rust code uses this crate, `aclrt_sim` (directly, or through `aclrt-sys`
//! and `aclrt` with their default `sim` feature). C programs link the same
//! entry points as a shared library named like the real runtime, built by
//! the workspace member `sim/capi` (package `aclrt-sim-capi`):
//! `cargo build -p aclrt-sim-capi --release` leaves
//! `target/release/libascendcl.so`, which C programs compiled against
//! `sys/include` can link (`-lascendcl`).
//!
//! ## Configuration
//!
//! Read when the runtime starts (at `aclInit`, or at the first runtime call
//! before any `aclInit`), unless [`configure`] was called:
//!
//! | variable | meaning | default |
//! | --- | --- | --- |
//! | `ACLRT_SIM_DEVICES` | number of devices | `2` |
//! | `ACLRT_SIM_MEMORY` | bytes of memory per device (`K`/`M`/`G`/`T` suffixes are binary), reserved lazily | the chip's: 64 GiB (910B), 24 GiB (310P) |
//! | `ACLRT_SIM_RUN_MODE` | `host` (`ACL_HOST`, a PCIe card) or `device` (`ACL_DEVICE`, the app runs on the device's CPU) | `host` |
//! | `ACLRT_SIM_TRACE` | path of a Chrome-trace JSON written at `aclFinalize` | none |
//! | `ACLRT_SIM_TASK_DELAY` | latency added before every queued task (`250us`, `2ms`, `1s`, `100ns`; a plain number is µs) | `0` |
//! | `ACLRT_SIM_SOC` | the simulated chip ([`Soc`]): `910b` or `310p` | `910b` |
//! | `ACLRT_SIM_STRICTNESS` | [`Strictness`]: `report` (alias `hardware`: the rules the hardware lets through answer as the hardware does and are recorded and reported), or `refuse` (alias `strict`: they are refused with the rule's code) | `report` |
//! | `ACLRT_SIM_PEER` | [`PeerTopology`]: `all`, `none`, or pairs `0-1,2-3` (both directions) | `all` |
//! | `ACLRT_SIM_HOST_FUNC_THREADS` | [`HostFuncThreads`]: `chip` (the modelled chips' answer to `aclrtSubscribeHostFunc`/`aclrtProcessHostFunc`/`aclrtUnSubscribeHostFunc`: 207000, feature not supported) or `compact` (served as the compact runtime does, reported under `UNSUPPORTED`) | `chip` |
//!
//! A configuration stays in force until `aclFinalize` (or [`reset`]); a
//! change made meanwhile applies from the next `aclInit` on.
//!
//! The trace (`{"traceEvents":[...]}`, open it in `chrome://tracing` or
//! Perfetto) has one lane per stream, `pid` = device and `tid` = stream id,
//! named "device N stream K" by `thread_name` metadata events; every task is
//! a complete (`"ph":"X"`) event: copies, memsets, host functions,
//! callbacks, event records and resets, and waits (whose duration is the
//! time actually spent waiting), plus one `stream abort` event per
//! `aclrtStreamAbort` (`"dropped"`: the tasks it dropped or cut; a wait it
//! cut short carries `"aborted": true`). The same trace stays in memory
//! ([`trace::last`], a [`trace::Trace`] of lanes and tasks), and
//! [`trace::render_svg`] draws it as an SVG timeline (lanes, bars, event
//! hand-offs as arrows; `cargo run --example 13_timeline` shows one).
//!
//! ## The control API
//!
//! [`configure`], [`config`]; fault injection with [`inject_fault`] (the nth
//! call of a C function fails with a code) and [`inject_task_fault`] (the
//! nth queued task faults on the device; the fault is reported by the next
//! synchronisation of its stream, and its message names the C function that
//! queued the task), targeted at one stream ([`inject_stream_task_fault`])
//! or at the next kernel ([`inject_kernel_fault`]); delays with [`set_stream_delay`]; the
//! watch before a synchronising thread parks with [`set_sync_spin`]; how
//! long a teardown waits for a running host function ([`set_teardown_wait`])
//! and a wait for an unserved callback before it warns
//! ([`set_unserved_warning_after`]);
//! [`clear_faults`]; call counting with [`call_counts`], [`total_calls`] and
//! [`reset_call_counts`]; kernels with [`register_kernel`] and
//! [`binary_image`]; [`audit`]; [`reset`] (from any state; memory
//! still allocated is quarantined, never freed); and [`exclusive`], the lock
//! that serialises tests sharing the process-wide runtime. Both panic
//! instead of deadlocking when called from a simulator thread or callback
//! (and `exclusive` when the thread already holds it).
//!
//! ```
//! use aclrt_sim::ffi::*;
//! use aclrt_sim::{SimConfig, ViolationKind};
//! use std::ptr::{null, null_mut};
//!
//! let _sim = aclrt_sim::exclusive(); // serialise with other tests, start fresh
//! aclrt_sim::configure(SimConfig { devices: 1, ..SimConfig::default() });
//!
//! // SAFETY: the C functions get valid out-pointers and a 512-byte source;
//! // the out-of-bounds copy is rejected by the simulator before any access.
//! unsafe {
//!     assert_eq!(aclInit(null()), ACL_SUCCESS);
//!     assert_eq!(aclrtSetDevice(0), ACL_SUCCESS);
//!     let mut dev = null_mut();
//!     assert_eq!(aclrtMalloc(&mut dev, 256, ACL_MEM_MALLOC_HUGE_FIRST), ACL_SUCCESS);
//!
//!     // A copy past the end of the 256-byte allocation: rejected, recorded.
//!     let src = [1u8; 512];
//!     let code = aclrtMemcpy(dev, 512, src.as_ptr().cast(), 512, ACL_MEMCPY_HOST_TO_DEVICE);
//!     assert_eq!(code, ACL_ERROR_RT_PARAM_INVALID);
//!
//!     // The second aclrtMalloc from now fails as if the device were full.
//!     aclrt_sim::inject_fault("aclrtMalloc", 2, ACL_ERROR_RT_MEMORY_ALLOCATION);
//!     let mut a = null_mut();
//!     let mut b = null_mut();
//!     assert_eq!(aclrtMalloc(&mut a, 64, 0), ACL_SUCCESS);
//!     assert_eq!(aclrtMalloc(&mut b, 64, 0), ACL_ERROR_RT_MEMORY_ALLOCATION);
//!
//!     assert_eq!(aclrtFree(a), ACL_SUCCESS);
//!     assert_eq!(aclrtFree(dev), ACL_SUCCESS);
//!     assert_eq!(aclrtResetDevice(0), ACL_SUCCESS);
//!     assert_eq!(aclFinalize(), ACL_SUCCESS);
//! }
//!
//! let audit = aclrt_sim::audit();
//! assert_eq!(audit.violations.len(), 1);
//! assert_eq!(audit.violations[0].kind, ViolationKind::OutOfBounds);
//! assert_eq!(audit.violations[0].function, "aclrtMemcpy");
//! assert!(audit.leaks.is_empty() && !audit.initialized);
//! assert_eq!(aclrt_sim::call_counts()[0], ("aclInit", 1));
//! ```
//!
//! ## Fidelity
//!
//! `sim/FIDELITY.md` (in the repository) is the function-by-function audit
//! against the public source of the real runtime: for every exported
//! function, what the hardware answers (with the source path read), what
//! the simulator answers, the verdict (match, fixed, a named strict rule,
//! or unknown where the driver decides) and the test that pins it
//! (`sim/tests/checks/fidelity.rs` names its tests after the rows).
//!
//! ## Strict checks
//!
//! Each check records a [`Violation`] of the kind below, named by its rule
//! ([`Violation::rule`]), reported once per rule and call on stderr and in
//! the summary at process exit (a checker's manners: see [`Strictness`],
//! [`ReportOutput`], `ACLRT_SIM_ERROR_EXITCODE`). The rules the hardware
//! lets through (marked **report** below) answer as the hardware does by
//! default ([`Strictness::Report`]) and refuse with the code below only
//! with [`Strictness::Refuse`]. Every other check rejects the call in both
//! settings (the runtime state is left unchanged), returns the code below
//! and leaves the message for `aclGetRecentErrMsg`: the hardware refuses it
//! too, or its answer is memory corruption or a hang (`sim/FIDELITY.md`
//! cites the runtime behaviour for each). Codes marked *(choice)* are this
//! simulator's picks where the real runtime documents none.
//!
//! | strict check | code | [`ViolationKind`] |
//! | --- | --- | --- |
//! | a copy or memset reaches past its allocation (bound: the *requested* size, not the padding), or application memory runs into runtime memory | 107000 `ACL_ERROR_RT_PARAM_INVALID` | `OutOfBounds` |
//! | a memcpy kind contradicts where the memory lies (host run mode; e.g. H2D from device memory, D2D from pinned host memory; rule STRICT-KIND, **report**: the copy goes on with the kind the real runtime corrects to, or its 107000), or a memset of pageable application memory (refused in both: the runtime queues it unchecked, and the device writes an address it does not map) | 107016 `ACL_ERROR_RT_INVALID_MEMORY_TYPE` *(choice)* | `KindMismatch` |
//! | freeing memory that is already freed (still in the quarantine), or that a runtime teardown quarantined | 207002 `ACL_ERROR_RT_MEMORY_FREE` *(choice)* | `DoubleFree` |
//! | freeing memory the runtime did not allocate, an interior pointer, or with the wrong function (`aclrtFree` on `aclrtMallocHost` memory or vice versa) | 107000 (documented for `aclrtFreeHost`) | `ForeignFree` |
//! | a copy or memset through a pointer into freed memory (or memory quarantined by a teardown) | 107000 | `UseAfterFree` |
//! | a destroyed context, stream, event, notify or physical-memory handle (contexts, looked up in a set as the real runtime does: 107000 from `aclrtSetCurrentContext`, whose argument check refuses an untracked context, 107002 `ACL_ERROR_RT_CONTEXT_NULL` from `aclrtDestroyContext`) | 107017 `ACL_ERROR_RT_INVALID_HANDLE` | `UseAfterFree` |
//! | freeing memory a queued or running task (or a concurrent copy) still uses (rule STRICT-FREE-IN-USE, **report**: freed at once, as the real `aclrtFree` does: the task keeps the block, now quarantined, until it ends) | 507004 `ACL_ERROR_RT_STREAM_NOT_COMPLETE` *(choice)* | `ReleaseWhileInUse` |
//! | destroying an event a queued `aclrtStreamWaitEvent`/`aclrtResetEvent` task still depends on (rule STRICT-EVENT-IN-USE, **report**: destroyed, as documented for the real runtime, and the queued tasks finish) | 507006 `ACL_ERROR_RT_EVENT_NOT_COMPLETE` *(choice)* | `ReleaseWhileInUse` |
//! | `aclrtDestroyStreamForce` on a stream whose unfinished tasks other streams' queued waits depend on | 507004 *(choice)* | `ReleaseWhileInUse` |
//! | destroying a context whose explicit streams, events or memory are alive (rule STRICT-CTX-LIVE, **report**: destroyed with its streams, waiting for their queued work, and leaves its events and memory usable until released, as the real runtime does) | 507007 `ACL_ERROR_RT_CONTEXT_RELEASE_ERROR` *(choice)* | `ReleaseWithLiveChildren` |
//! | the last `aclrtResetDevice` (or `aclrtResetDeviceForce`) while explicit contexts, streams, events or memory of the device are alive (rule STRICT-RESET-LIVE, **report**: releases the default context with every stream made in it, waiting for their tasks, as the real runtime does, and leaves the rest until released) | 507007 *(choice)* | `ResetWithLiveResources` |
//! | `aclFinalize` (or the last `aclFinalizeReference`) with anything alive: tears down anyway, plus one [`Leak`] per resource (rule STRICT-FINALIZE-LIVE, **report**: success, as the real teardown does, both still recorded) | 507007 with [`Strictness::Refuse`] | `FinalizeWithLiveResources` |
//! | a stream of another context than the current one (not for `aclrtSynchronizeStream`, which switches temporarily), or an event of another device than the stream | 107003 `ACL_ERROR_RT_STREAM_CONTEXT` | `WrongContext` |
//! | device memory of another device than the current one without `aclrtDeviceEnablePeerAccess(current -> that device)` | 207006 `ACL_ERROR_RT_NO_PERMISSION` *(choice)* | `CrossDeviceWithoutPeerAccess` |
//! | a handle the runtime never created, or a handle of another kind (an event passed as a stream) | 107017 | `InvalidHandle` |
//! | a host function or callback panicked (caught; the stream reports 507000 at its next synchronisation) | 507000 | `CallbackPanicked` |
//! | `aclrtBinaryGetFunction` of a name the binary does not list or no kernel is registered under (the real runtime returns 107000 for every lookup failure) | 107000 | `UnknownKernel` |
//! | a launch, `aclrtKernelArgsInit` or `aclrtBinaryGetFunction`/`aclrtBinaryUnLoad` with a handle of an unloaded binary | 107017 | `UseAfterFree` |
//! | `aclrtBinaryUnLoad` while launches of its kernels are queued or running (the binary stays loaded) | 507004 *(choice)* | `ReleaseWhileInUse` |
//! | `aclrtBinaryLoadFromData` whose data is not host memory the runtime can read: the device alias of registered host memory, freed runtime memory, a range running out of a runtime allocation (never read) | 107000 | `KindMismatch` / `UseAfterFree` / `OutOfBounds` |
//! | a wait for a stream subscribed to the waiting thread while a blocking callback of it waits for that thread's `aclrtProcessReport` (`aclrtSynchronizeStream[WithTimeout]`, `aclrtSynchronizeEvent[WithTimeout]`, `aclrtSynchronizeDevice[WithTimeout]`, a copy of pageable memory, `aclrtStreamAbort`, a submission to a full stream): a hang on the hardware too (rule STRICT-SELF-SERVE, **report**: reported at once, then the call waits as the hardware's does) | 107000 *(choice)* | `SelfServedWait` |
//! | a kernel touches memory (through [`KernelArgs::read`]/[`write`](KernelArgs::write)) that is not device memory of its stream's device, is out of bounds or freed: the task faults with 507015 at the next synchronisation | 507015 *(choice)* | `KernelBadAccess` |
//! | `aclrtLaunchKernel` whose `argsData` block is not device memory of the stream's device (or out of bounds, or freed) | 107000 *(choice)* | `KernelBadAccess` |
//! | a launch on a destroyed stream | 107017 | `UseAfterFree` |
//! | `aclrtStreamWaitEvent` on an event without `ACL_EVENT_SYNC` (or the hidden 0x4, EXTERNAL, IPC); `aclrtResetEvent` on an event without a wait task (`aclrtCreateEventWithFlag` without `ACL_EVENT_SYNC`) or of `aclrtCreateEventExWithFlag` (an `aclrtCreateEvent` event is reset: its default flags include the synchronising one); `aclrtQueryEvent`/`aclrtQueryEventWaitStatus` on an `aclrtCreateEventExWithFlag` event | 207000 `ACL_ERROR_RT_FEATURE_NOT_SUPPORT` | `EventFlagMismatch` |
//! | `aclrtEventElapsedTime`/`aclrtEventGetTimestamp` of a recorded event created without `ACL_EVENT_TIME_LINE` | 107006 `ACL_ERROR_RT_EVENT_TIMESTAMP_INVALID` | `EventFlagMismatch` |
//! | `aclrtEventElapsedTime`/`aclrtEventGetTimestamp` of an event never recorded (or reset since) | 507000 `ACL_ERROR_RT_INTERNAL_ERROR` ("recorder null") | `EventNotRecorded` |
//! | a copy or memset through the device alias of registered host memory (`devPtr` of `aclrtHostRegister`; only device code may use it) | 107016 *(choice)* | `KindMismatch` |
//! | registering device memory, or a range that runs into (or past) a runtime allocation | 107016 / 107000 *(choice)* | `KindMismatch` / `OutOfBounds` |
//! | a copy that straddles the end of a host registration | 107000 | `OutOfBounds` |
//! | `aclrtHostUnregister` while a queued or running task still uses the registered range | 507004 *(choice)* | `ReleaseWhileInUse` |
//! | the last `aclrtResetDevice` (or destroying the context) while a host registration of it is alive | 507007 *(choice)* | `ResetWithLiveResources` / `ReleaseWithLiveChildren` |
//! | a copy or memset range (or a host registration) that reaches the simulator's own address range outside every live block (past the end of an allocation, in the gap between two) | 107000 | `OutOfBounds` |
//! | resources created after `aclFinalize` still alive at the next `aclInit`: torn down by it (one [`Leak`] each); `aclInit` itself succeeds, as the real runtime's does | 0 | `UseAfterFinalize` |
//! | `aclrtReleaseMemAddress` of a reservation with mappings left, `aclrtFreePhysical` of mapped physical memory (unmap first) | 107000 *(choice)* | `ReleaseWhileInUse` |
//! | an allocator descriptor used after `aclrtAllocatorDestroyDesc` (a use after free on the device) | 100000 | `UseAfterFree` |
//! | a call from a host function or callback whose runtime was torn down (`aclFinalize`, [`reset`]) after it was queued: refused, so that it cannot reach the next runtime | 100037 for `aclFinalize`/`aclFinalizeReference`, 107002 otherwise *(choice)* | `UseAfterFinalize` |
//!
//! ### Which pointers the simulator checks
//!
//! Every runtime allocation (`aclrtMalloc*`, `aclrtMallocHost` in both run
//! modes, `aclrtMemAllocManaged`) lives in the simulator's own address
//! range: large anonymous reservations that hold nothing else (on Linux
//! `mmap` with `MAP_NORESERVE`; a zeroed heap block under Miri and
//! elsewhere). Blocks are page aligned (so `aclrtMalloc`'s 32-byte and
//! `aclrtMallocHost`'s 64-byte alignment hold) and each is followed by at
//! least one page no block uses. The simulator therefore knows every
//! address in that range:
//!
//! * inside a live block: runtime memory, bounds-checked against the
//!   *requested* size;
//! * inside a freed or torn-down block still quarantined: use after free;
//! * anywhere else in the range (the end of a block, its padding, the gap
//!   after it, a block long released): refused as out of bounds, never
//!   touched (a zero-length access exactly at a block's end is allowed:
//!   nothing is touched);
//! * the device alias of registered host memory (bit 52 set): refused for
//!   copies, resolved for kernels.
//!
//! A pointer outside the range is the application's own (pageable) memory,
//! or a registered range of it. That the simulator cannot check: it cannot
//! know how long an application buffer is, or whether a host address is
//! mapped at all. It reads and writes `[ptr, ptr + count)` there as the C
//! contract says, so a wrong host pointer or a host range longer than its
//! buffer corrupts or crashes the process, exactly as on the real runtime.
//! The same holds for out-parameters (`aclrtMalloc(&p, …)`'s `&p`, status
//! and count pointers, `aclsysGetVersionStr`'s 128-byte buffer), for the
//! arrays behind `aclrtLaunchKernelCfg`/`aclrtBinaryLoadOptions` (their
//! counts), for the argument blocks of `aclrtLaunchKernel` and
//! `aclrtKernelArgsAppend`, and for C strings: they must be valid for the
//! call. Handles (contexts, streams, events, binaries, functions, argument
//! lists) are opaque numbers looked up in tables, never dereferenced: any
//! value is safe to pass.
//!
//! Pointers are resolved in a `BTreeMap` of live allocations (start, size,
//! residency, device, context; `O(log n)`). A pointer outside every
//! allocation and outside the simulator's range is pageable memory of the
//! application. Freed blocks stay
//! allocated in a bounded quarantine (4096 blocks / 256 MiB), so a pointer
//! into one is a certain use after free and can never be application memory
//! that reused the address. Blocks still allocated when the runtime is torn
//! down ([`reset`], or `aclFinalize` with leaks) go to an unbounded teardown
//! quarantine instead and are never freed: a handle that outlives the
//! teardown (or a host function of a worker detached by it) keeps reaching
//! valid memory, no later allocation reuses the address, and every C call
//! handed such a pointer fails (107000 `UseAfterFree`, or 207002
//! `DoubleFree` for a free).
//!
//! Plain errors (documented runtime behaviour) are not violations: invalid
//! parameters (100000 / 107000), invalid device ids (107001), no current
//! context (107002), out of memory (207001), stream/event exhaustion
//! (207008 / 207007), timeouts, unsupported features (207000), and injected
//! faults.
//!
//! ## Host registration, managed memory, failure mode, last error
//!
//! The simulated SoC is by default an Atlas A2 (`aclrtGetSocName` =
//! `Ascend910B-sim`), CANN 9.0.0: host registration, managed memory and the
//! failure mode are all supported, the default stream (NULL) included. The
//! [`Soc::Ascend310P`] profile (`ACLRT_SIM_SOC=310p`) models the feature
//! list of the Atlas inference series where it changes an answer: no huge
//! streams, no control queue (NULL stream refused by the failure mode, the
//! abort and the async 2-D copy), no stream abort; the rest is as on the
//! 910B.
//!
//! * `aclrtHostRegister` (type `ACL_HOST_REGISTER_MAPPED` only; IOMEMORY
//!   and READONLY are reserved: 207000) and `aclrtHostRegisterV2` (flag a
//!   non-empty OR of MAPPED|IOMEMORY|READONLY|PINNED, else 107000; PINNED on
//!   `aclrtMallocHost` memory: 107000 *(choice)*) need a current context,
//!   `ptr` 4 KiB-aligned (107008 *(choice)*), and no overlap with a live
//!   registration (507910). Registered memory is host memory for the kind
//!   check, and copies of it are truly asynchronous (pageable memory is
//!   copied before the call returns). The device alias is the host address
//!   with bit 52 set (never a user-space address); kernels resolve it
//!   (`KernelArgs::read`/`write`), copies refuse it. `aclrtHostUnregister`
//!   takes the exact base (else 507911); it is refused while a queued copy
//!   uses the range, while a kernel's arguments are resolved only when the
//!   kernel runs (as for device memory), so a kernel that finds its
//!   registration gone faults with 507015 (`KernelBadAccess`).
//! * `aclrtMemAllocManaged`: flag `ACL_RT_MEM_ATTACH_GLOBAL` only (else
//!   100000), size 0 → 107000, rounded up to 2 MiB (charged to the device),
//!   at most 3 TB per process; any copy kind fits it, kernels may touch it;
//!   freed with `aclrtFree`.
//! * `aclrtSetStreamFailureMode`: a per-context latch (see the
//!   `failmode` module): STOP is context-wide and one-way (CONTINUE after
//!   STOP: 207000; STOP on a stream that already failed: 207000;
//!   `ACL_STREAM_DEVICE_USE_ONLY` streams: 207000; only bit 0 is read). After
//!   the first failed task of a STOP context the failed stream skips its
//!   remaining tasks except event records (waiters are released), and every
//!   submission to and synchronisation of any stream of the context (and
//!   `aclrtSynchronizeDevice`) returns the stored code until the context is
//!   destroyed or its device reset. Tasks already queued on the context's
//!   other streams still run.
//! * `aclrtPeekAtLastError` / `aclrtGetLastError`: the calling thread's
//!   sticky code of the last failed runtime-layer call (1070xx, 2070xx,
//!   5070xx, 5079xx; device faults reported by a synchronisation included);
//!   never the ACL layer's 1000xx, never the "not ready" answers of the
//!   query functions, never a failed `aclrtResetDeviceForce`. A `level`
//!   other than `ACL_RT_THREAD_LEVEL` returns 100000.
//! * Forced release: `aclrtResetDeviceForce` drops the whole reference
//!   count (any thread's sets), then tears down like the last plain reset
//!   (waiting for pending tasks); never set / already fully reset → 507007,
//!   so Force after Force, a plain reset after Force and Force after plain
//!   resets down to 0 all fail; a Force refused because explicit resources
//!   live keeps the count. `aclrtDestroyStreamForce` shares the checks of
//!   `aclrtDestroyStream` but drops the queued tasks without waiting (a
//!   running task finishes on its own; `aclrtSynchronizeDevice` waits for it).
//!
//! ## Decisions where the facts are silent
//!
//! * **Memory**: allocations are real heap memory (`std::alloc`, 64-byte
//!   aligned, **zero-filled**: the real runtime leaves them uninitialised).
//!   The padded size (`ALIGN_UP(size, 32) + 32`; `aclrtMallocAlign32` and
//!   `aclrtMallocHost` `ALIGN_UP(size, 32)`; HUGE1G policies whole GiB) is
//!   charged to the device's memory; accesses are bounded by the requested
//!   size. Host-mode `aclrtMallocHost` memory is charged to no device; in
//!   device run mode it is device memory of the current device. Memory,
//!   streams and events belong to the context current at creation. Unknown
//!   `aclrtMalloc` policies are accepted; `aclrtMallocCached` takes the page
//!   policy of HUGE_FIRST, HUGE_ONLY, NORMAL_ONLY and HUGE1G_ONLY and the
//!   default flags for any other value (the P2P ones included).
//!   `aclrtGetMemInfo` answers per attribute as the chip's memory
//!   ([`Soc::device_memory`]): the 910B has HBM (the DDR attributes answer
//!   0 and 0), the 310P DDR (HBM attributes read as DDR, the 1 GiB huge page
//!   attributes answer 0 and 0); huge and normal pages share one pool
//!   (100000 beyond `0..=17`).
//! * **Copies**: check order is `count == 0` → success (even with NULL), NULL
//!   → 100000, kind outside `0..=5` → 100000 (the ACL layer), a stale
//!   stream handle → 107017 (async; the runtime's handle guard),
//!   `count > destMax` → 107000, no current context → 107002, the other
//!   stream checks, then the strict checks (bounds,
//!   use after free, kind, peer). The kind is checked against the memory
//!   although the docs call it reserved. `dst == src` is validated, then
//!   skipped. `maxCount`/`destMax` larger than the allocation is accepted
//!   (only the bytes touched are bounds-checked). Async copies and memsets
//!   touching pageable memory complete before the call returns (documented
//!   for pageable host memory); `ACL_MEMCPY_HOST_TO_BUF_TO_DEVICE` copies a
//!   host source into a staging buffer at once and stays asynchronous. 2-D
//!   copies accept kinds 1..=4 (100000 otherwise); the limits width ≤
//!   5,000,000 and height ≤ 5,242,880 apply to both calls (107000). Kind
//!   resolution follows the real runtime's correction from the pointers
//!   (`sim/FIDELITY.md`, rows COPY-*): in host run mode an async copy whose
//!   kind resolves to host-to-host (explicit, or `DEFAULT` between two host
//!   buffers) returns 207000; the synchronous `aclrtMemcpy2d` runs only
//!   host-to-device and device-to-host (explicit `DEVICE_TO_DEVICE` 207000,
//!   a `DEFAULT` resolving to device-to-device or host-to-host 107000);
//!   `aclrtMemcpy2dAsync` runs H2D, D2H and D2D (in device run mode the kind
//!   is not corrected, so `DEFAULT` is 107000 there). Memset uses the low
//!   byte of `value`.
//! * **Devices and contexts**: `aclrtResetDevice` of a device that is not set
//!   returns 507007 (like the force variant). A thread is bound either to a
//!   context made current (`aclrtCreateContext`, `aclrtSetCurrentContext`)
//!   or to the default context of its last `aclrtSetDevice`, never both:
//!   each of these calls drops the other binding, so destroying the current
//!   context leaves the thread with none (no fallback), and the last reset
//!   of any device drops the calling thread's device binding (FIDELITY rows
//!   THREAD-*). A thread whose current context was destroyed by another
//!   thread gets 107002. Resetting a
//!   device clears its outgoing peer access. Peer enable/disable are
//!   idempotent. A context created on a device that was never set does not
//!   set it.
//! * **Streams**: the limit is 1024 per device, every context's default
//!   stream included (207008 beyond). Unknown `aclrtCreateStreamWithConfig`
//!   flag bits are dropped; the priority is stored clamped into 0..=7 (read
//!   as `int32_t`, so 2^31 and above become 0) and read back by
//!   `aclrtStreamGetPriority` (0 for every other stream; any context;
//!   NULL = the default stream); `aclrtDeviceGetStreamPriorityRange` gives
//!   least 7, greatest 0 (either pointer may be NULL); PERSISTENT, DEVICE_USE_ONLY
//!   and CPU_SCHEDULE streams make `aclrtSynchronizeStream` return at once.
//!   The default stream's handle (from `aclrtCtxGetCurrentDefaultStream`) is
//!   accepted wherever NULL is; destroying it returns 100000.
//!   `aclrtStreamQuery` answers for a stream of any context (a current
//!   context is required, 107002), as the real runtime does.
//!   Destroying a subscribed stream unsubscribes it.
//! * **Events**: at most 65536 per device (207007). IPC events
//!   (`aclrtCreateEventExWithFlag(ACL_EVENT_IPC)`) exist on the 910B profile
//!   only (207000 on the 310P, whose chip configuration lacks them); their
//!   handles, like notify keys and shareable physical-memory handles, open
//!   them in other processes of the simulator too (through shared files,
//!   as IPC memory: `sim/FIDELITY.md`). `aclrtResetEvent` on anything but an
//!   `aclrtCreateEventWithFlag(ACL_EVENT_SYNC…)` event returns 207000 (also
//!   for plain events, where the real behaviour is undefined); it takes
//!   effect when it executes on its stream, unless the event was re-recorded
//!   meanwhile. Waiting on a never-recorded (or reset) event is a no-op.
//!   `aclrtEventElapsedTime` of a never-recorded event returns 507000, without
//!   `ACL_EVENT_TIME_LINE` on either event 107006, with an event recorded but
//!   whose record has not executed yet 107006, and may be negative. `aclrtEventGetTimestamp`
//!   gives the microseconds from the simulated device's boot (the process's
//!   first event creation; never reset, so monotonic) to the execution of
//!   the last record, the same instants `aclrtEventElapsedTime` uses; 507000
//!   never recorded, 107006 without TIME_LINE or while the record is queued.
//!   Synchronising an EXTERNAL or DEVICE_USE_ONLY event returns 207000;
//!   recording, resetting or waiting for a DEVICE_USE_ONLY event 107000 (as
//!   the real runtime layer answers the host).
//!   `aclrtQueryEventWaitStatus` reports NOT_READY while a wait task issued
//!   on the event (`aclrtStreamWaitEvent`) has not executed, COMPLETE
//!   otherwise (also when none was issued); 207000 for ExWithFlag, EXTERNAL
//!   and IPC events. Destroying an
//!   event with a pending *record* is allowed (documented); only pending waits
//!   or resets make it a violation.
//! * **Synchronisation**: `aclrtSynchronizeStream[WithTimeout]` needs a
//!   current context on the calling thread (107002 otherwise, as the real
//!   runtime's implementation checks; persistent, device-only and
//!   CPU-scheduled streams return before that check) and waits for a stream
//!   of any context. A record on an idle stream completes at once (no
//!   task is queued; it still counts for `inject_task_fault` and appears in
//!   the trace). A wait that outlives `aclrtSetOpWaitTimeout` faults with
//!   107020 `ACL_ERROR_RT_TASK_TIMEOUT`, reported at the next
//!   synchronisation; a kernel that outlives `aclrtSetOpExecuteTimeOut`
//!   (seconds; 0 or unset: the chip's [`Soc::op_execute_limit`]; its
//!   stream's delay counts as its running time) is stopped at the limit and
//!   faults with 507014 `ACL_ERROR_RT_AICORE_TIMEOUT`. A device fault is reported once, by the first of: a
//!   synchronisation of its stream, of an event recorded after it on that
//!   stream, or of the device (which covers the current context's streams).
//!   Calls that would wait for the stream they are called from (from a host
//!   function running on it) return 107000 instead of deadlocking.
//! * **Abort** (`aclrtStreamAbort`, synchronous): NULL is the default stream
//!   on the 910B profile and 107000 on the 310P one (which has no abort at
//!   all: 207000), stale handle → 107017, no current
//!   context → 107002, stream of another context → 107003, called from a
//!   host function running on that stream → 107000. Every queued task is
//!   dropped without running (host functions and callbacks are never
//!   called; event records never complete, so synchronising such an event
//!   returns 107023 and waiting on it hangs). The running task stops at its
//!   check point: a delay (`set_stream_delay`, `task_delay`) or an
//!   `aclrtStreamWaitEvent` wait is cut short; a copy, memset, host function
//!   or blocking callback cannot be interrupted and is waited for (60 s,
//!   then 107019; the stream recovers by itself once that task returns).
//!   Submissions to the stream during the abort fail with 107023, and
//!   `aclrtSynchronizeStream[WithTimeout]`, `aclrtSynchronizeEvent[WithTimeout]`
//!   (on an event whose record was dropped) and `aclrtSynchronizeDevice` in
//!   flight on other threads return 107023 `ACL_ERROR_RT_STREAM_ABORT`.
//!   Afterwards the stream is idle and usable. Streams whose queued
//!   `aclrtStreamWaitEvent` waits for a dropped record hang, as on the
//!   device: abort them too (that cuts the wait), or bound the wait with
//!   `aclrtSetOpWaitTimeout`. Dropped and cut tasks are counted in
//!   [`Audit::aborted_tasks`]; the trace shows each abort as a `stream
//!   abort` task (`"dropped": n`) and a wait cut short with `"aborted":
//!   true` (a task cut during its delay never ran and has no entry).
//! * **Kernels** (`aclrtBinary*`, `aclrtKernelArgs*`, `aclrtLaunchKernel*`):
//!   a kernel is a Rust function registered by name ([`register_kernel`]),
//!   called once per block with `(block, num_blocks, &KernelArgs)`; blocks
//!   run one after another in index order on the stream's worker (no data
//!   race between blocks). A simulator device binary ([`binary_image`]) is
//!   [`BINARY_MAGIC`] (`b"ACLSIMKB"`) followed by NUL-terminated UTF-8
//!   kernel names; anything else → 107000. `aclrtBinaryLoadFromData` copies
//!   it; `aclrtBinaryLoadFromFile` reads the file (unreadable → 107000);
//!   load options follow K.5 (non-NULL `options` with NULL array, an unknown
//!   type, LAZY_LOAD ∉ {0, 1}, MAGIC for a file or not one of the three
//!   magics, CPU_KERNEL_MODE ∉ {0, 1} for a file or ≠ 2 for data → 107000)
//!   and are otherwise ignored. Binaries are process-wide objects;
//!   `aclrtBinaryGetFunction` places the binary on the current context's
//!   device (no current context → 107000) and returns the same handle for
//!   the same name; a launch on a device where the binary was never placed
//!   → 107017. `aclrtLaunchKernel`: `argsSize` a multiple of 8 and ≤ 64 KiB
//!   (107000), `numBlocks` 0 → 107000; `argsData` must be device memory of
//!   the stream's device at the call and is read (checked) when the kernel
//!   runs, one 8-byte little-endian slot per argument.
//!   `aclrtLaunchKernelWithConfig`: `numBlocks` 0 or non-NULL `reserve` →
//!   100000, cfg rules of K.7 (NULL `attrs`, unknown id, byte flags ≥ 2,
//!   TIMEOUT with TIMEOUT_US → 107000; values otherwise ignored), unfinalized
//!   list → 107000; the list is staged during the call. Args handles follow
//!   K.6: one per thread (Init re-initialises it and returns the same
//!   handle; param handles of an earlier list → 107017; the handle on
//!   another thread → 107017), 8-aligned slots, > 128 arguments or > 64 KiB
//!   → 107000, Append/AppendPlaceHolder after GetPlaceHolderBuffer or
//!   Finalize → 207000, GetPlaceHolderBuffer after Finalize → 207000, on an
//!   appended (non-placeholder) argument → 107000; Finalize needs a current
//!   context (107002). A placeholder's slot holds 0; the kernel reads its
//!   data with [`KernelArgs::placeholder`]. A kernel returning a
//!   [`KernelError`] (or refused an access) faults its task with
//!   [`KERNEL_FAULT_CODE`] (507015 `ACL_ERROR_RT_AICORE_EXCEPTION`), reported
//!   at the next synchronisation like any device fault; a panicking kernel
//!   faults with 507000. Launches are stream tasks like any other (order,
//!   events, delays, injected task faults, abort, trace category
//!   `"kernel"`).
//! * **Callbacks**: `threadId` is the POSIX `pthread_t` of the reporting
//!   thread ([`thread_report_id`] returns it for the calling thread).
//!   `aclrtLaunchCallback` on a stream without a subscribed thread returns
//!   107015 `ACL_ERROR_RT_STREAM_NO_CB_REG`; subscribing a stream that is
//!   subscribed already, or unsubscribing one that is not, returns 107011
//!   `ACL_ERROR_RT_STREAM_SUBSCRIBE`; unsubscribing with another thread than
//!   the subscriber, or subscribing a thread that serves another device,
//!   107012 `ACL_ERROR_RT_THREAD_SUBSCRIBE`; more than 1024 threads 207012.
//!   A stream serves one callback mechanism, as on hardware: after
//!   `aclrtSubscribeReport`, `aclrtLaunchHostFunc` on it returns 107011 (until
//!   it is unsubscribed); after `aclrtLaunchHostFunc`, `aclrtSubscribeReport`,
//!   `aclrtLaunchCallback` and `aclrtUnSubscribeReport` on it return 107011
//!   for the rest of the stream's life. A literal NULL stream passes that
//!   check (the real runtime looks at the handle only): a host function on a
//!   subscribed default stream becomes a blocking callback for its
//!   subscribed thread, a callback on a default stream served by host
//!   functions runs like one, and unsubscribing it returns 107012. Callbacks of a stream still queued at its
//!   unsubscription run on the unsubscribing thread; a callback task reached
//!   after its stream lost its subscription runs on the stream worker.
//!   `aclrtSubscribeReport` accepts any thread id, as the real runtime does
//!   (its subscription table takes the id as a key and checks nothing
//!   else): 0, an id no thread serves, a finished thread. A blocking
//!   callback for such a thread blocks its stream for ever, and every
//!   synchronisation with it, as on the real runtime; the simulator names
//!   such streams in [`Audit::unserved_callbacks`] (so [`Audit::is_clean`]
//!   fails with the reason), a synchronisation waiting on one says so on
//!   stderr after 5 s ([`set_unserved_warning_after`]), and no teardown waits for one: `aclFinalize` and
//!   [`reset`] drop its queued callbacks, a forced reset, a context's
//!   destroy and an unsubscription run them on the calling thread first.
//! * **Versions**: `aclrtGetVersion` 1.17.0; packages `cann`, `runtime`,
//!   `compiler`, `hccl`, `toolkit`, `opp`, `opp_kernel` are `9.0.0`, `driver`
//!   `25.0.0`, `firmware` `7.7.0` (others: 100003); `aclsysGetVersionNum` is
//!   `major * 10_000_000 + minor * 100_000 + patch * 1_000`;
//!   `aclrtGetSocName` is `"Ascend910B-sim"`.
//! * **Init**: a non-NULL, non-empty `configPath` must name a readable file
//!   (100003 otherwise); its content is otherwise ignored. Runtime calls work
//!   before `aclInit` (as on the real runtime).
//!
//! ## Concurrency model
//!
//! One lock guards the handle tables and the allocation table; it is held
//! only for lookups and bookkeeping. Each stream has its own queue lock; a
//! shared pool of worker threads (as many as cores, at least two) executes
//! the streams. Enqueueing is a short lock and a push; only the task that
//! finds a stream idle hands it to the pool's ready queue, waking a parked
//! worker only if none was woken yet. A worker takes a stream's whole queue
//! and runs it without locks, one worker per stream at a time (so per-stream
//! order holds). A task that may block (an event wait, a delay, a host
//! function, a callback, a kernel) lets the pool start another worker, so a
//! blocked stream never holds up the others. Completion is an atomic
//! sequence number; synchronisations wait on a `Condvar` and are notified
//! only when the number they wait for is reached. A task holds `Arc`s of the memory
//! blocks it touches, so memory is never returned to the allocator under a
//! running copy, and "free while in use" is an `Arc` still held by a task.
//! Copies are a single `ptr::copy_nonoverlapping` (or `ptr::copy` when the
//! ranges overlap) after the table check, outside every lock.
//!
//! ## Architecture
//!
//! The modules form floors; each imports only from the floors below it
//! (there is no import cycle):
//!
//! 1. shared model and helpers: `model` (the public configuration and audit
//!    types), `sync` (locking, completion signals, thread roles), `diag`
//!    (errors, messages, call accounting, the violation log), `prim` (the
//!    unsafe primitives), [`trace`], [`ffi`];
//! 2. runtime state: `rt` (registries, handles, current contexts, start,
//!    teardown, audit), with the execution engine `rt::exec` (stream workers,
//!    event state), the allocation table `rt::mem`, the callback queues
//!    `rt::reports`, and the state of the newer objects `rt::ext`
//!    (notifies, reservations and physical memory, IPC keys, the exception
//!    callbacks);
//! 3. one module per object of the C API, each implementing its rules on the
//!    state: `init`, `device`, `context`, `stream`, `memory`, `event`,
//!    `callback`, `misc`, and for the newer objects `notify`, `vmm`, `ipc`,
//!    `allocator`, `value`, `dsa` (none imports another, except that `dsa`
//!    uses the half-precision conversions of `base_types`);
//! 4. the C entry layer `raw`: one `extern "C"` function per declaration;
//! 5. the control API on top: [`control`] (re-exported at the crate root).
//!
//! The base types and logging of `acl/acl_base.h` sit on the same floors:
//! `profile` (floor 1: each chip's memory and which `aclrtMemAttr` values
//! see it), `base_types` and `log` (floor 3: the half conversions, element
//! sizes, the log filter and record text), and `raw/base.rs` with
//! `raw/app_log.c` (floor 4: `aclAppLog` is C-variadic, which stable Rust
//! cannot define, so the crate's one C file, compiled by `build.rs`, formats
//! the message with `vsnprintf` and calls back into `raw/base.rs`).
//!
//! ## Unsafe code
//!
//! All `unsafe` code lives in two private modules, at the bottom and at the
//! top of the crate: `prim` (the heap block type, the copy/fill primitives
//! on checked spans, out-parameters, callback invocation) and `raw` (the
//! thin `extern "C"` entry points, which wrap the C caller's arguments into
//! `prim` types). The rest of the crate is `#![deny(unsafe_code)]`. Every
//! `unsafe` block states its preconditions. A compile-time check asserts
//! that each exported function has exactly the type of its declaration in
//! [`ffi`] (bindgen output of the header). Nothing panics across the C ABI:
//! each entry point catches panics of the runtime (500000), and host
//! callbacks run under `catch_unwind`.
#![deny(unsafe_code)]
// Every panic of the public API is documented (`# Panics`; SAFETY.md lists them).
#![warn(clippy::missing_panics_doc)]
#![cfg_attr(docsrs, feature(doc_cfg))]

pub mod control;
pub use control::*;

mod acl_layer;
mod allocator;
mod base_types;
mod callback;
mod context;
mod device;
mod devinfo;
mod diag;
mod dsa;
mod event;
mod failmode;
mod hostreg;
mod init;
mod ipc;
mod kernel;
mod label;
mod log;
pub use kernel::{
    BINARY_MAGIC, KERNEL_FAULT_CODE, KernelArgs, KernelError, binary_image, register_kernel,
};
pub use log::app_log_records;
mod memory;
mod misc;
mod model;
mod notify;
#[allow(unsafe_code)]
mod prim;
mod profile;
#[allow(unsafe_code)]
mod raw;
mod report;
mod rt;
mod rt_api;
mod shared_files;
mod stream;
mod stream_state;
mod sync;
pub mod trace;
mod value;
mod vmm;

/// The declarations of the C API this crate implements, generated from the
/// project's own header (see `ffi.rs`).
#[allow(unsafe_code)]
pub mod ffi;
