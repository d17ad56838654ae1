//! The process-wide runtime state: the registries of devices, contexts,
//! streams, events and subscriptions, handles, the per-thread current
//! context, the configuration, start, teardown, audit and reset. Below it:
//! the execution engine ([`exec`]) over the worker pool ([`pool`]), the
//! allocation table ([`mem`]) with the host registry ([`registry`]) and
//! what an access resolves to ([`access`]), the per-context failure-mode
//! latch ([`latch`]) and the callback queues ([`reports`]); above it, one
//! module per object of the C API implements that object's rules on this
//! state.
//!
//! One `Mutex<Runtime>` guards the registries and the allocation table. It
//! is held only for lookups and bookkeeping, never while data is copied or
//! while a thread waits for a stream (copies run on pinned `Arc`s after the
//! lock is released; workers never take it).

use std::collections::{BTreeMap, BTreeSet};
use std::path::PathBuf;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, LazyLock, Mutex, MutexGuard};
use std::time::{Duration, Instant};

use crate::diag::{self, Error, Res, rt_param};
use crate::ffi;
use crate::model::{Audit, Leak, ResourceKind, SimConfig, ViolationKind};
use crate::sync::{self, lock};
use crate::trace;

pub(crate) mod access;
pub(crate) mod exec;
pub(crate) mod ext;
pub(crate) mod latch;
pub(crate) mod mem;
pub(crate) mod pool;
pub(crate) mod registry;
pub(crate) mod reports;
pub(crate) mod thread;

use exec::{EventShared, StreamShared};
use mem::{AllocKind, MemTable};
use reports::{Report, ReportQueue, Subscription};

/// The configuration set by `configure` (`None`: the environment's).
static OVERRIDE: Mutex<Option<SimConfig>> = Mutex::new(None);

/// The configuration the runtime takes when it (re)starts.
pub(crate) fn pending_config() -> SimConfig {
    lock(&OVERRIDE).clone().unwrap_or_else(SimConfig::from_env)
}

/// Sets (`Some`) or clears (`None`) the configuration of the next start.
pub(crate) fn set_pending_config(config: Option<SimConfig>) {
    *lock(&OVERRIDE) = config;
}

static RT: LazyLock<Mutex<Runtime>> = LazyLock::new(|| Mutex::new(Runtime::stopped()));

/// The runtime, started (devices built from the configuration) if needed.
pub(crate) fn rt() -> MutexGuard<'static, Runtime> {
    let mut g = lock(&RT);
    if !g.started {
        g.start();
    }
    g
}

/// Maximum streams per device, default streams included.
pub(crate) const MAX_STREAMS: u32 = 1024;

/// The kind of a handle (its low 4 bits).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum HandleKind {
    Context = 1,
    Stream = 2,
    Event = 3,
    Notify = 4,
    Physical = 5,
    Label = 6,
}

impl HandleKind {
    fn name(self) -> &'static str {
        match self {
            HandleKind::Context => "context",
            HandleKind::Stream => "stream",
            HandleKind::Event => "event",
            HandleKind::Notify => "notify",
            HandleKind::Physical => "physical memory handle",
            HandleKind::Label => "label",
        }
    }
    fn of(h: usize) -> Option<HandleKind> {
        match h & 0xF {
            1 => Some(HandleKind::Context),
            2 => Some(HandleKind::Stream),
            3 => Some(HandleKind::Event),
            4 => Some(HandleKind::Notify),
            5 => Some(HandleKind::Physical),
            6 => Some(HandleKind::Label),
            _ => None,
        }
    }
}

/// Ids are never reused (not even across `reset`), so a stale handle can
/// always be told apart from a live one.
static NEXT_ID: AtomicU64 = AtomicU64::new(1);

/// A fresh `(id, handle)`; the handle is `id << 4 | kind`.
pub(crate) fn new_handle(kind: HandleKind) -> (u64, usize) {
    let id = NEXT_ID.fetch_add(1, Ordering::Relaxed);
    (id, ((id as usize) << 4) | kind as usize)
}

/// One simulated device.
pub(crate) struct Device {
    /// `aclrtSetDevice` reference count.
    pub refcount: u32,
    /// The default (primary) context while `refcount > 0`.
    pub default_ctx: Option<usize>,
    /// Bytes in use (padded sizes).
    pub mem_used: u64,
    /// Bytes in total.
    pub mem_total: u64,
    /// Streams alive (default streams included).
    pub streams: u32,
    /// Events alive.
    pub events: u32,
    /// Devices this one may access (enabled from this one).
    pub peers: BTreeSet<i32>,
    /// `aclrtSetDeviceResLimit` per resource kind (cube cores, vector
    /// cores) while the device is set; `None`: the chip's whole count.
    pub res_limit: [Option<u32>; 2],
}

/// A context.
pub(crate) struct Context {
    pub handle: usize,
    pub device: i32,
    pub is_default: bool,
    pub default_stream: usize,
    /// The failure-mode latch shared by the context's streams.
    pub latch: Arc<latch::Latch>,
}

/// Registry entry of a stream.
pub(crate) struct StreamRec {
    pub handle: usize,
    pub ctx: usize,
    pub device: i32,
    pub is_default: bool,
    pub shared: Arc<StreamShared>,
    /// Priority 0 (highest, the default) ..= 7 (lowest), as clamped at
    /// `aclrtCreateStreamWithConfig`.
    pub priority: u32,
    /// `aclrtSetStreamOverflowSwitch` (0 off, the default; 1 on).
    pub overflow_switch: u32,
}

/// Registry entry of an event.
pub(crate) struct EventRec {
    /// The context current at creation.
    pub ctx: usize,
    /// The shared state.
    pub shared: Arc<EventShared>,
}

/// The runtime state.
pub(crate) struct Runtime {
    pub started: bool,
    /// The configuration in force.
    pub cfg: SimConfig,
    pub init_refcount: u64,
    pub finalized: bool,
    pub first_config: Option<Option<Vec<u8>>>,
    pub devices: Vec<Device>,
    /// Contexts by handle.
    pub contexts: BTreeMap<usize, Context>,
    /// Streams by handle (default streams included).
    pub streams: BTreeMap<usize, StreamRec>,
    /// Events by handle.
    pub events: BTreeMap<usize, EventRec>,
    /// The allocation table.
    pub mem: MemTable,
    /// Subscribed reporting threads by thread id.
    pub subs: BTreeMap<u64, Subscription>,
    /// `aclrtSetOpWaitTimeout` (None: never).
    pub op_wait_timeout: Option<Duration>,
    /// `aclrtSetOpExecuteTimeOut` in seconds (0: the chip's default).
    pub op_execute_timeout: u32,
    /// `aclrtSetDeviceSatMode`: the process's floating-point overflow mode
    /// (`ACL_RT_OVERFLOW_MODE_*`; the chip's default at start).
    pub sat_mode: u32,
    pub epoch: Instant,
    pub trace_lanes: Vec<Arc<StreamShared>>,
    /// Workers of force-destroyed streams still finishing the task they were
    /// running: device synchronisation, `aclrtFree*WithDevSync` and teardown
    /// wait for them.
    pub forced: Vec<ForcedWorker>,
    /// Notifies, virtual memory, IPC keys, stream allocators.
    pub ext: ext::ExtState,
}

/// A worker left running by `aclrtDestroyStreamForce`.
pub(crate) struct ForcedWorker {
    pub ctx: usize,
    pub device: i32,
    pub stream_id: u64,
    pub worker: exec::Worker,
}

impl Runtime {
    /// Takes the forced workers matching `keep`.
    pub(crate) fn take_forced(
        &mut self,
        mut matches: impl FnMut(&ForcedWorker) -> bool,
    ) -> Vec<ForcedWorker> {
        let (taken, kept) = std::mem::take(&mut self.forced)
            .into_iter()
            .partition(|w| matches(w));
        self.forced = kept;
        taken
    }
}

/// Waits for forced workers until `deadline`; the unfinished ones are put
/// back. `false` if any is still running at the deadline.
pub(crate) fn wait_forced(workers: Vec<ForcedWorker>, deadline: Option<Instant>) -> bool {
    let mut left = Vec::new();
    for w in workers {
        if sync::on_worker_of(w.stream_id) {
            left.push(w);
            continue;
        }
        while !w.worker.is_finished() && deadline.is_none_or(|d| Instant::now() < d) {
            std::thread::sleep(Duration::from_millis(1));
        }
        if w.worker.is_finished() {
            w.worker.join();
        } else {
            left.push(w);
        }
    }
    let done = left.is_empty();
    rt().forced.extend(left);
    done
}

/// Waits (without a deadline) for the forced workers of `device`.
pub(crate) fn wait_forced_of_device(device: i32) {
    let workers = rt().take_forced(|w| w.device == device);
    wait_forced(workers, None);
}

impl Runtime {
    pub(crate) fn stopped() -> Runtime {
        Runtime {
            started: false,
            cfg: SimConfig::default(),
            init_refcount: 0,
            finalized: false,
            first_config: None,
            devices: Vec::new(),
            contexts: BTreeMap::new(),
            streams: BTreeMap::new(),
            events: BTreeMap::new(),
            mem: MemTable::default(),
            subs: BTreeMap::new(),
            op_wait_timeout: None,
            op_execute_timeout: 0,
            sat_mode: 0,
            epoch: Instant::now(),
            trace_lanes: Vec::new(),
            forced: Vec::new(),
            ext: ext::ExtState::default(),
        }
    }

    /// Builds the devices from the pending configuration.
    pub(crate) fn start(&mut self) {
        self.cfg = pending_config();
        self.devices = (0..self.cfg.devices)
            .map(|_| Device {
                refcount: 0,
                default_ctx: None,
                mem_used: 0,
                mem_total: self.cfg.device_memory(),
                streams: 0,
                events: 0,
                peers: BTreeSet::new(),
                res_limit: [None; 2],
            })
            .collect();
        self.sat_mode = self.cfg.soc.default_sat_mode();
        exec::set_task_delay(self.cfg.task_delay);
        self.epoch = Instant::now();
        self.started = true;
    }

    pub(crate) fn trace_epoch(&self) -> Option<Instant> {
        self.cfg.trace_path.as_ref().map(|_| self.epoch)
    }

    /// Whether nothing at all is alive.
    pub(crate) fn is_empty(&self) -> bool {
        self.contexts.is_empty()
            && self.streams.is_empty()
            && self.events.is_empty()
            && self.mem.live.is_empty()
            && self.ext.notifies.is_empty()
            && self.ext.reservations.is_empty()
            && self.ext.physical.is_empty()
            && self.devices.iter().all(|d| d.refcount == 0)
    }

    pub(crate) fn check_device(&self, id: i32) -> Res<usize> {
        usize::try_from(id)
            .ok()
            .filter(|&i| i < self.devices.len())
            .ok_or_else(|| {
                Error::new(
                    ffi::ACL_ERROR_RT_INVALID_DEVICEID,
                    format!(
                        "device id {id} is invalid: the simulator has {} device(s), ids 0..={}",
                        self.devices.len(),
                        self.devices.len() as i64 - 1
                    ),
                )
            })
    }

    /// Device `id` (107001 if invalid).
    pub(crate) fn device(&self, id: i32) -> Res<&Device> {
        let i = self.check_device(id)?;
        Ok(&self.devices[i])
    }

    /// Device `id`, mutable (107001 if invalid).
    pub(crate) fn device_mut(&mut self, id: i32) -> Res<&mut Device> {
        let i = self.check_device(id)?;
        Ok(&mut self.devices[i])
    }

    /// The calling thread's current context (107002 if none).
    pub(crate) fn current(&self) -> Res<&Context> {
        let h = thread::binding().context(sync::generation(), |d| {
            usize::try_from(d)
                .ok()
                .and_then(|i| self.devices.get(i))
                .and_then(|dev| dev.default_ctx)
        });
        if h == 0 {
            return Err(Error::new(
                ffi::ACL_ERROR_RT_CONTEXT_NULL,
                "no current context on this thread: call aclrtSetDevice or aclrtCreateContext first",
            ));
        }
        self.contexts.get(&h).ok_or_else(|| {
            Error::new(
                ffi::ACL_ERROR_RT_CONTEXT_NULL,
                format!(
                    "the current context {h:#x} of this thread no longer exists (destroyed, or \
                     its device was reset)"
                ),
            )
        })
    }

    /// The error for a handle that is not a live `want`.
    pub(crate) fn bad_handle(&self, h: usize, want: HandleKind) -> Error {
        self.bad_handle_why(h, want).on(h)
    }

    fn bad_handle_why(&self, h: usize, want: HandleKind) -> Error {
        let issued = ((h >> 4) as u64) < NEXT_ID.load(Ordering::Relaxed) && (h >> 4) != 0;
        match HandleKind::of(h) {
            Some(k) if issued && k == want => Error::violation(
                ViolationKind::UseAfterFree,
                ffi::ACL_ERROR_RT_INVALID_HANDLE,
                format!(
                    "{} {h:#x} was already destroyed (or released by a device reset or finalize)",
                    want.name()
                ),
            ),
            Some(k) if issued => {
                let alive = match k {
                    HandleKind::Context => self.contexts.contains_key(&h),
                    HandleKind::Stream => self.streams.contains_key(&h),
                    HandleKind::Event => self.events.contains_key(&h),
                    HandleKind::Notify => self.ext.notifies.contains_key(&h),
                    HandleKind::Physical => self.ext.physical.contains_key(&h),
                    HandleKind::Label => self.ext.labels.contains_key(&h),
                };
                Error::violation(
                    ViolationKind::InvalidHandle,
                    ffi::ACL_ERROR_RT_INVALID_HANDLE,
                    format!(
                        "{h:#x} is {} {}, not {} {}",
                        if alive { "a live" } else { "a destroyed" },
                        k.name(),
                        article(want),
                        want.name()
                    ),
                )
            }
            _ => Error::violation(
                ViolationKind::InvalidHandle,
                ffi::ACL_ERROR_RT_INVALID_HANDLE,
                format!(
                    "{h:#x} is not {} {} created by this runtime",
                    article(want),
                    want.name()
                ),
            ),
        }
    }

    /// A live context by handle.
    pub(crate) fn context(&self, h: usize) -> Res<&Context> {
        self.contexts
            .get(&h)
            .ok_or_else(|| self.bad_handle(h, HandleKind::Context))
    }

    /// A live event by handle.
    pub(crate) fn event(&self, h: usize) -> Res<&EventRec> {
        self.events
            .get(&h)
            .ok_or_else(|| self.bad_handle(h, HandleKind::Event))
    }

    /// A live stream by handle, any context; null is the current context's
    /// default stream.
    pub(crate) fn stream(&self, h: usize) -> Res<&StreamRec> {
        if h == 0 {
            let ds = self.current()?.default_stream;
            return self
                .streams
                .get(&ds)
                .ok_or_else(|| rt_param("internal: no default stream"));
        }
        self.streams
            .get(&h)
            .ok_or_else(|| self.bad_handle(h, HandleKind::Stream))
    }

    /// A stream that must belong to the current context (107003 otherwise),
    /// with that context; null is its default stream.
    pub(crate) fn stream_in_current(&self, h: usize) -> Res<(&Context, &StreamRec)> {
        let st = self.stream(h)?;
        let ctx = self.current()?;
        if st.ctx != ctx.handle {
            return Err(Error::violation(
                ViolationKind::WrongContext,
                ffi::ACL_ERROR_RT_STREAM_CONTEXT,
                format!(
                    "stream {h:#x} belongs to context {:#x} (device {}), but the current context \
                     of this thread is {:#x} (device {}); make the stream's context current \
                     with aclrtSetCurrentContext",
                    st.ctx, st.device, ctx.handle, ctx.device
                ),
            )
            .on(h));
        }
        Ok((ctx, st))
    }

    pub(crate) fn new_stream(
        &mut self,
        ctx: usize,
        device: i32,
        is_default: bool,
        flags: u32,
    ) -> Res<usize> {
        let epoch = self.trace_epoch();
        let dev = self.device_mut(device)?;
        if dev.streams >= MAX_STREAMS {
            return Err(Error::new(
                ffi::ACL_ERROR_RT_NO_STREAM_RESOURCE,
                format!(
                    "device {device} has no stream left (limit {MAX_STREAMS}, default streams \
                     included)"
                ),
            ));
        }
        dev.streams += 1;
        let (id, handle) = new_handle(HandleKind::Stream);
        let shared = StreamShared::new(id, handle, device, is_default, flags, epoch);
        let latch = self
            .contexts
            .get(&ctx)
            .map(|c| c.latch.clone())
            .unwrap_or_default();
        let _ = shared.fail.set(latch);
        if epoch.is_some() {
            self.trace_lanes.push(shared.clone());
        }
        self.streams.insert(
            handle,
            StreamRec {
                handle,
                ctx,
                device,
                is_default,
                shared,
                priority: 0,
                overflow_switch: 0,
            },
        );
        crate::stream_state::created(handle);
        Ok(handle)
    }

    /// Removes a stream from the registry; returns it (to be stopped after
    /// the lock is released) and its orphaned callback reports.
    pub(crate) fn remove_stream(&mut self, h: usize) -> Option<(Arc<StreamShared>, Vec<Report>)> {
        let rec = self.streams.remove(&h)?;
        if let Ok(dev) = self.device_mut(rec.device) {
            dev.streams = dev.streams.saturating_sub(1);
        }
        let orphans = detach(&mut self.subs, &rec.shared);
        Some((rec.shared, orphans))
    }

    pub(crate) fn new_context(&mut self, device: i32, is_default: bool) -> Res<usize> {
        let (_, handle) = new_handle(HandleKind::Context);
        let ds = self.new_stream(handle, device, true, 0)?;
        let latch = self
            .streams
            .get(&ds)
            .and_then(|s| s.shared.fail.get().cloned())
            .unwrap_or_default();
        self.contexts.insert(
            handle,
            Context {
                handle,
                device,
                is_default,
                default_stream: ds,
                latch,
            },
        );
        Ok(handle)
    }

    /// Removes a context and its default stream.
    pub(crate) fn remove_context(&mut self, h: usize) -> Option<(Arc<StreamShared>, Vec<Report>)> {
        let ctx = self.contexts.remove(&h)?;
        self.remove_stream(ctx.default_stream)
    }

    /// What keeps `ctx` (if `Some`) or device `dev` from being released:
    /// explicit contexts, explicit streams, events and memory.
    pub(crate) fn children(&self, ctx: Option<usize>, dev: i32) -> Vec<String> {
        let mut out = Vec::new();
        let mut note = |n: usize, what: &str| {
            if n > 0 {
                out.push(format!("{n} {what}"));
            }
        };
        match ctx {
            Some(c) => {
                note(
                    self.streams
                        .values()
                        .filter(|s| s.ctx == c && !s.is_default)
                        .count(),
                    "stream(s)",
                );
                note(
                    self.events.values().filter(|e| e.ctx == c).count(),
                    "event(s)",
                );
                note(
                    self.mem
                        .live
                        .values()
                        .filter(|a| a.ctx == c && a.kind != AllocKind::Host)
                        .count(),
                    "device memory block(s)",
                );
                note(
                    self.mem
                        .live
                        .values()
                        .filter(|a| a.ctx == c && a.kind == AllocKind::Host)
                        .count(),
                    "host memory block(s)",
                );
            }
            None => {
                note(
                    self.contexts
                        .values()
                        .filter(|c| c.device == dev && !c.is_default)
                        .count(),
                    "explicit context(s)",
                );
                note(
                    self.streams
                        .values()
                        .filter(|s| s.device == dev && !s.is_default)
                        .count(),
                    "stream(s)",
                );
                note(
                    self.events
                        .values()
                        .filter(|e| e.shared.device == dev)
                        .count(),
                    "event(s)",
                );
                note(
                    self.mem
                        .live
                        .values()
                        .filter(|a| a.device == dev && a.kind != AllocKind::Host)
                        .count(),
                    "device memory block(s)",
                );
                note(
                    self.mem
                        .live
                        .values()
                        .filter(|a| a.device == dev && a.kind == AllocKind::Host)
                        .count(),
                    "host memory block(s)",
                );
            }
        }
        note(self.mem.reg.count(ctx, dev), "host registration(s)");
        out
    }

    pub(crate) fn leaks(&self) -> Vec<Leak> {
        let mut out = Vec::new();
        for (i, d) in self.devices.iter().enumerate() {
            if d.refcount > 0 {
                out.push(Leak {
                    kind: ResourceKind::Device,
                    device: i as i32,
                    address: i,
                    bytes: 0,
                });
            }
        }
        for c in self.contexts.values().filter(|c| !c.is_default) {
            out.push(Leak {
                kind: ResourceKind::Context,
                device: c.device,
                address: c.handle,
                bytes: 0,
            });
        }
        for s in self.streams.values().filter(|s| !s.is_default) {
            out.push(Leak {
                kind: ResourceKind::Stream,
                device: s.device,
                address: s.handle,
                bytes: 0,
            });
        }
        for (h, e) in &self.events {
            out.push(Leak {
                kind: ResourceKind::Event,
                device: e.shared.device,
                address: *h,
                bytes: 0,
            });
        }
        for (addr, a) in &self.mem.live {
            out.push(Leak {
                kind: match a.kind {
                    AllocKind::Device => ResourceKind::DeviceMemory,
                    AllocKind::Host => ResourceKind::HostMemory,
                    AllocKind::Managed => ResourceKind::ManagedMemory,
                    AllocKind::Mapped | AllocKind::Ipc => ResourceKind::DeviceMemory,
                },
                device: a.device,
                address: *addr,
                bytes: a.size,
            });
        }
        for (addr, r) in &self.mem.reg.live {
            out.push(Leak {
                kind: ResourceKind::HostRegistration,
                device: r.device,
                address: *addr,
                bytes: r.size,
            });
        }
        for (h, n) in &self.ext.notifies {
            out.push(Leak {
                kind: ResourceKind::Notify,
                device: n.shared.device,
                address: *h,
                bytes: 0,
            });
        }
        for (addr, r) in &self.ext.reservations {
            out.push(Leak {
                kind: ResourceKind::Reservation,
                device: r.device,
                address: *addr,
                bytes: r.size,
            });
        }
        for (h, p) in &self.ext.physical {
            out.push(Leak {
                kind: ResourceKind::PhysicalMemory,
                device: p.device,
                address: *h,
                bytes: p.size,
            });
        }
        out
    }

    /// Empties the runtime; the returned work stops the workers (call it
    /// after releasing the lock).
    pub(crate) fn teardown(&mut self, write_trace: bool) -> Teardown {
        let streams: Vec<Arc<StreamShared>> =
            self.streams.values().map(|s| s.shared.clone()).collect();
        for s in &streams {
            *lock(&s.subscriber) = None;
        }
        let reports = self.subs.values().map(|s| s.queue.clone()).collect();
        let lanes = std::mem::take(&mut self.trace_lanes);
        let trace = if write_trace {
            self.cfg.trace_path.clone().map(|p| (p, lanes))
        } else {
            None
        };
        let mem = std::mem::take(&mut self.mem);
        let forced = std::mem::take(&mut self.forced);
        let ext = std::mem::take(&mut self.ext);
        // The shared files of the IPC events this process exported.
        let ipc_events = self
            .events
            .iter()
            .filter_map(|(&h, e)| match e.shared.ipc.get() {
                Some((_, name, true)) if e.shared.handle == h => Some(name.clone()),
                _ => None,
            })
            .collect();
        self.contexts.clear();
        self.streams.clear();
        self.events.clear();
        self.subs.clear();
        self.devices.clear();
        self.started = false;
        sync::next_generation();
        thread::apply(thread::Transition::Finalize);
        Teardown {
            streams,
            reports,
            trace,
            mem,
            forced,
            ext,
            ipc_events,
        }
    }
}

fn article(k: HandleKind) -> &'static str {
    match k {
        HandleKind::Event => "an",
        _ => "a",
    }
}

/// Work left after a teardown: stopping workers and writing the trace.
pub(crate) struct Teardown {
    streams: Vec<Arc<StreamShared>>,
    reports: Vec<Arc<ReportQueue>>,
    trace: Option<(PathBuf, Vec<Arc<StreamShared>>)>,
    mem: MemTable,
    forced: Vec<ForcedWorker>,
    ext: ext::ExtState,
    ipc_events: Vec<String>,
}

impl Teardown {
    /// Drops pending tasks, releases blocked callbacks, stops the workers
    /// (waiting up to 5 s for running tasks), quarantines the memory still
    /// allocated (never freed: a handle or a detached worker may still reach
    /// it), writes the trace.
    pub(crate) fn finish(self) {
        let mut workers = Vec::new();
        for s in &self.streams {
            if let Some(h) = s.discard() {
                workers.push((s.id, h));
            }
        }
        for w in self.forced {
            workers.push((w.stream_id, w.worker));
        }
        for q in &self.reports {
            q.cancel_all();
        }
        exec::join_until(workers, Instant::now() + exec::teardown_wait());
        pool::stop_idle_workers(Instant::now() + Duration::from_millis(250));
        mem::quarantine_torn_down(self.mem);
        // Reservations and physical stores: kept like torn-down blocks (a
        // mapping's address may still be in the application's hands).
        ext::keep_torn_down(self.ext);
        for name in &self.ipc_events {
            crate::shared_files::remove_shared(name);
        }
        if let Some((path, lanes)) = self.trace {
            let lanes = lanes.iter().map(|s| s.trace_lane()).collect();
            if let Err(e) = trace::finish(trace::Trace::new(lanes), &path) {
                eprintln!("aclrt-sim: cannot write the trace {}: {e}", path.display());
            }
        }
    }
}

/// after releasing the runtime lock).
pub(crate) fn detach(
    subs: &mut std::collections::BTreeMap<u64, Subscription>,
    sh: &StreamShared,
) -> Vec<Report> {
    let Some((tid, queue)) = lock(&sh.subscriber).take() else {
        return Vec::new();
    };
    let pending = queue.take_of(Some(sh.id));
    if let Some(s) = subs.get_mut(&tid) {
        s.streams.remove(&sh.handle);
        if s.streams.is_empty() {
            subs.remove(&tid);
            queue.close();
        }
    }
    pending
}

/// Stops streams removed from the registry (normal destroy: drain + join).
pub(crate) fn stop_streams(removed: Vec<(Arc<StreamShared>, Vec<Report>)>) {
    for (s, orphans) in removed {
        // The orphans first: a blocking callback among them holds the
        // stream's worker until it has run, so joining the worker before
        // would wait for ever (a stream subscribed to a thread that never
        // serves it, torn down by a forced reset or a context's destroy).
        reports::run_orphans(orphans);
        s.shutdown_and_join();
    }
}

/// The deadline of a `*WithTimeout` call: -1 waits forever, > 0 is ms,
/// 0 and < -1 are rejected with 107000. `None` input: no timeout variant.
pub(crate) fn deadline_of(timeout: Option<i32>) -> Res<Option<Instant>> {
    match timeout {
        None | Some(-1) => Ok(None),
        Some(t) if t > 0 => Ok(Some(Instant::now() + Duration::from_millis(t as u64))),
        Some(t) => Err(rt_param(format!(
            "timeout {t} is invalid: use -1 (wait forever) or a positive number of ms"
        ))),
    }
}

// ------------------------------------------------------ control support ---

/// `control::set_stream_delay`.
pub(crate) fn set_stream_delay(h: usize, d: Duration) -> Res<()> {
    rt().stream(h)?.shared.set_delay(Some(d));
    Ok(())
}

/// The id of stream `h` (`control::inject_stream_task_fault`).
pub(crate) fn stream_id(h: usize) -> Res<u64> {
    Ok(rt().stream(h)?.shared.id)
}

/// `control::clear_faults`: forget per-stream delays.
pub(crate) fn clear_stream_delays() {
    let g = lock(&RT);
    for s in g.streams.values() {
        s.shared.set_delay(None);
    }
}

// ---------------------------------------------------------------- audit ---

/// `control::audit`.
pub(crate) fn audit() -> Audit {
    let rt = lock(&RT);
    let mut live: BTreeMap<(ResourceKind, i32), usize> = BTreeMap::new();
    let mut add = |k: ResourceKind, d: i32, n: usize| {
        if n > 0 {
            *live.entry((k, d)).or_default() += n;
        }
    };
    for (i, d) in rt.devices.iter().enumerate() {
        add(ResourceKind::Device, i as i32, d.refcount as usize);
    }
    for c in rt.contexts.values().filter(|c| !c.is_default) {
        add(ResourceKind::Context, c.device, 1);
    }
    for s in rt.streams.values().filter(|s| !s.is_default) {
        add(ResourceKind::Stream, s.device, 1);
    }
    for e in rt.events.values() {
        add(ResourceKind::Event, e.shared.device, 1);
    }
    for a in rt.mem.live.values() {
        let k = match a.kind {
            AllocKind::Device => ResourceKind::DeviceMemory,
            AllocKind::Host => ResourceKind::HostMemory,
            AllocKind::Managed => ResourceKind::ManagedMemory,
            AllocKind::Mapped | AllocKind::Ipc => ResourceKind::DeviceMemory,
        };
        add(k, a.device, 1);
    }
    for n in rt.ext.notifies.values() {
        add(ResourceKind::Notify, n.shared.device, 1);
    }
    for r in rt.ext.reservations.values() {
        add(ResourceKind::Reservation, r.device, 1);
    }
    for p in rt.ext.physical.values() {
        add(ResourceKind::PhysicalMemory, p.device, 1);
    }
    for r in rt.mem.reg.live.values() {
        add(ResourceKind::HostRegistration, r.device, 1);
    }
    let initialized = rt.init_refcount > 0;
    let subscribed: Vec<(usize, i32, Arc<StreamShared>)> = rt
        .streams
        .values()
        .map(|s| (s.handle, s.device, s.shared.clone()))
        .collect();
    drop(rt);
    let unserved_callbacks = subscribed
        .into_iter()
        .filter_map(|(stream, device, sh)| {
            let (thread, since, _) = sh.unserved_callback()?;
            Some(crate::model::UnservedCallback {
                stream,
                device,
                thread,
                waiting_ms: since.elapsed().as_millis() as u64,
            })
        })
        .collect();
    Audit {
        unserved_callbacks,
        live,
        violations: diag::violations(),
        leaks: diag::leaks(),
        initialized,
        aborted_tasks: exec::aborted_tasks(),
    }
}

/// The configuration in force, if the runtime is started.
pub(crate) fn config_in_force() -> Option<SimConfig> {
    let rt = lock(&RT);
    rt.started.then(|| rt.cfg.clone())
}

/// `control::reset`.
pub(crate) fn reset() {
    let td = {
        let mut rt = lock(&RT);
        let was_init = rt.init_refcount > 0;
        let td = rt.teardown(was_init);
        rt.init_refcount = 0;
        rt.finalized = false;
        rt.first_config = None;
        rt.op_wait_timeout = None;
        rt.op_execute_timeout = 0;
        td
    };
    td.finish();
    thread::apply(thread::Transition::Finalize);
}
