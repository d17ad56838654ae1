//! The process-wide runtime state: init/finalize, devices, contexts, the
//! handle registries, streams' lifecycle, teardown, audit and reset.
//!
//! One `Mutex<Runtime>` guards the registries and the allocation table. It
//! is held only for lookups and bookkeeping, never while data is copied or
//! while a thread waits for a stream (copies run on pinned `Arc`s after the
//! lock is released; workers never take it).

use std::cell::Cell;
use std::collections::{BTreeMap, BTreeSet};
use std::path::PathBuf;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, LazyLock, Mutex, MutexGuard};
use std::time::{Duration, Instant};

use crate::diag::{self, Error, Res, param, rt_param};
use crate::ffi;
use crate::model::{Audit, Leak, ResourceKind, RunMode, SimConfig, ViolationKind};
use crate::prim::Out;
use crate::sync::{self, lock};
use crate::trace;

pub(crate) mod exec;
pub(crate) mod mem;
pub(crate) mod reports;

use exec::{EventShared, StreamShared, SyncEnd, fault_error};
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
}

impl HandleKind {
    fn name(self) -> &'static str {
        match self {
            HandleKind::Context => "context",
            HandleKind::Stream => "stream",
            HandleKind::Event => "event",
        }
    }
    fn of(h: usize) -> Option<HandleKind> {
        match h & 0xF {
            1 => Some(HandleKind::Context),
            2 => Some(HandleKind::Stream),
            3 => Some(HandleKind::Event),
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

thread_local! {
    /// (context bound by aclrtSetDevice, explicitly set current context).
    static THREAD_CTX: Cell<(usize, usize)> = const { Cell::new((0, 0)) };
}

/// The calling thread's current context handle (0: none).
fn tls_current() -> usize {
    let (bound, explicit) = THREAD_CTX.with(Cell::get);
    if explicit != 0 { explicit } else { bound }
}

fn tls_set(bound: Option<usize>, explicit: usize) {
    THREAD_CTX.with(|c| {
        let (b, _) = c.get();
        c.set((bound.unwrap_or(b), explicit));
    });
}

/// Forgets the calling thread's contexts.
pub(crate) fn tls_clear() {
    THREAD_CTX.with(|c| c.set((0, 0)));
}

/// Forgets `ctx` wherever the calling thread refers to it.
fn tls_forget(ctx: usize) {
    THREAD_CTX.with(|c| {
        let (b, e) = c.get();
        c.set((if b == ctx { 0 } else { b }, if e == ctx { 0 } else { e }));
    });
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
}

/// A context.
pub(crate) struct Context {
    pub handle: usize,
    pub device: i32,
    pub is_default: bool,
    pub default_stream: usize,
}

/// Registry entry of a stream.
pub(crate) struct StreamRec {
    pub handle: usize,
    pub ctx: usize,
    pub device: i32,
    pub is_default: bool,
    pub shared: Arc<StreamShared>,
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
    started: bool,
    /// The configuration in force.
    pub cfg: SimConfig,
    init_refcount: u64,
    finalized: bool,
    first_config: Option<Option<Vec<u8>>>,
    devices: Vec<Device>,
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
    epoch: Instant,
    trace_lanes: Vec<Arc<StreamShared>>,
    /// Workers of force-destroyed streams still finishing the task they were
    /// running: device synchronisation, `aclrtFree*WithDevSync` and teardown
    /// wait for them.
    pub forced: Vec<ForcedWorker>,
}

/// A worker left running by `aclrtDestroyStreamForce`.
pub(crate) struct ForcedWorker {
    ctx: usize,
    device: i32,
    stream_id: u64,
    worker: std::thread::JoinHandle<()>,
}

impl Runtime {
    /// Takes the forced workers matching `keep`.
    fn take_forced(&mut self, mut matches: impl FnMut(&ForcedWorker) -> bool) -> Vec<ForcedWorker> {
        let (taken, kept) = std::mem::take(&mut self.forced)
            .into_iter()
            .partition(|w| matches(w));
        self.forced = kept;
        taken
    }
}

/// Waits for forced workers until `deadline`; the unfinished ones are put
/// back. `false` if any is still running at the deadline.
fn wait_forced(workers: Vec<ForcedWorker>, deadline: Option<Instant>) -> bool {
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
            let _ = w.worker.join();
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
    fn stopped() -> Runtime {
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
            epoch: Instant::now(),
            trace_lanes: Vec::new(),
            forced: Vec::new(),
        }
    }

    /// Builds the devices from the pending configuration.
    fn start(&mut self) {
        self.cfg = pending_config();
        self.devices = (0..self.cfg.devices)
            .map(|_| Device {
                refcount: 0,
                default_ctx: None,
                mem_used: 0,
                mem_total: self.cfg.memory_per_device,
                streams: 0,
                events: 0,
                peers: BTreeSet::new(),
            })
            .collect();
        exec::set_task_delay(self.cfg.task_delay);
        self.epoch = Instant::now();
        self.started = true;
    }

    fn trace_epoch(&self) -> Option<Instant> {
        self.cfg.trace_path.as_ref().map(|_| self.epoch)
    }

    /// Whether nothing at all is alive.
    fn is_empty(&self) -> bool {
        self.contexts.is_empty()
            && self.streams.is_empty()
            && self.events.is_empty()
            && self.mem.live.is_empty()
            && self.devices.iter().all(|d| d.refcount == 0)
    }

    fn check_device(&self, id: i32) -> Res<usize> {
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
        let h = tls_current();
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
    fn bad_handle(&self, h: usize, want: HandleKind) -> Error {
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
            ));
        }
        Ok((ctx, st))
    }

    fn new_stream(&mut self, ctx: usize, device: i32, is_default: bool, flags: u32) -> Res<usize> {
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
            },
        );
        Ok(handle)
    }

    /// Removes a stream from the registry; returns it (to be stopped after
    /// the lock is released) and its orphaned callback reports.
    fn remove_stream(&mut self, h: usize) -> Option<(Arc<StreamShared>, Vec<Report>)> {
        let rec = self.streams.remove(&h)?;
        if let Ok(dev) = self.device_mut(rec.device) {
            dev.streams = dev.streams.saturating_sub(1);
        }
        let orphans = detach(&mut self.subs, &rec.shared);
        Some((rec.shared, orphans))
    }

    fn new_context(&mut self, device: i32, is_default: bool) -> Res<usize> {
        let (_, handle) = new_handle(HandleKind::Context);
        let ds = self.new_stream(handle, device, true, 0)?;
        self.contexts.insert(
            handle,
            Context {
                handle,
                device,
                is_default,
                default_stream: ds,
            },
        );
        Ok(handle)
    }

    /// Removes a context and its default stream.
    fn remove_context(&mut self, h: usize) -> Option<(Arc<StreamShared>, Vec<Report>)> {
        let ctx = self.contexts.remove(&h)?;
        tls_forget(h);
        self.remove_stream(ctx.default_stream)
    }

    /// What keeps `ctx` (if `Some`) or device `dev` from being released:
    /// explicit contexts, explicit streams, events and memory.
    fn children(&self, ctx: Option<usize>, dev: i32) -> Vec<String> {
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
                        .filter(|a| a.ctx == c && a.kind == AllocKind::Device)
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
                        .filter(|a| a.device == dev && a.kind == AllocKind::Device)
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
        out
    }

    fn leaks(&self) -> Vec<Leak> {
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
                },
                device: a.device,
                address: *addr,
                bytes: a.size,
            });
        }
        out
    }

    /// Empties the runtime; the returned work stops the workers (call it
    /// after releasing the lock).
    fn teardown(&mut self, write_trace: bool) -> Teardown {
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
        self.contexts.clear();
        self.streams.clear();
        self.events.clear();
        self.subs.clear();
        self.devices.clear();
        self.started = false;
        tls_clear();
        Teardown {
            streams,
            reports,
            trace,
            mem,
            forced,
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
        exec::join_until(workers, Instant::now() + Duration::from_secs(5));
        mem::quarantine_torn_down(self.mem);
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
fn stop_streams(removed: Vec<(Arc<StreamShared>, Vec<Report>)>) {
    for (s, orphans) in removed {
        s.shutdown_and_join();
        reports::run_orphans(orphans);
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

// ---------------------------------------------------------------- init ---

/// `aclInit`.
pub(crate) fn init(config: Option<&str>) -> Res<()> {
    let content = match config {
        None | Some("") => None,
        Some(path) => Some(std::fs::read(path).map_err(|e| {
            Error::new(
                ffi::ACL_ERROR_INVALID_FILE,
                format!("cannot read the configuration file {path:?}: {e}"),
            )
        })?),
    };
    let mut rt = rt();
    if rt.init_refcount > 0 {
        rt.init_refcount += 1;
        return Err(Error::new(
            ffi::ACL_ERROR_REPEAT_INITIALIZE,
            format!(
                "already initialized (reference count now {}); this code may be ignored",
                rt.init_refcount
            ),
        ));
    }
    match &rt.first_config {
        Some(first) if *first != content => {
            return Err(param(
                "the configuration differs from the one of the first aclInit of this process",
            ));
        }
        Some(_) => {}
        None => rt.first_config = Some(content),
    }
    if rt.is_empty() {
        // Pick up a configuration changed since the runtime last started.
        rt.started = false;
        rt.start();
    }
    rt.init_refcount = 1;
    rt.finalized = false;
    Ok(())
}

fn finalize_locked(rt: &mut Runtime) -> (Vec<Leak>, Teardown) {
    let leaks = rt.leaks();
    rt.init_refcount = 0;
    rt.finalized = true;
    let td = rt.teardown(true);
    (leaks, td)
}

fn finish_finalize(leaks: Vec<Leak>, td: Teardown) -> Res<()> {
    td.finish();
    if leaks.is_empty() {
        return Ok(());
    }
    let mut counts: BTreeMap<ResourceKind, usize> = BTreeMap::new();
    for l in &leaks {
        *counts.entry(l.kind).or_default() += 1;
    }
    let summary: Vec<String> = counts.iter().map(|(k, n)| format!("{n} {k:?}")).collect();
    diag::record_leaks(leaks);
    Err(Error::violation(
        ViolationKind::FinalizeWithLiveResources,
        ffi::ACL_ERROR_RT_CONTEXT_RELEASE_ERROR,
        format!(
            "resources were still alive ({}); everything was torn down anyway (see the audit's \
             leaks)",
            summary.join(", ")
        ),
    ))
}

/// `aclFinalize`.
pub(crate) fn finalize() -> Res<()> {
    let (leaks, td) = {
        let mut rt = rt();
        if rt.finalized {
            return Err(Error::new(
                ffi::ACL_ERROR_REPEAT_FINALIZE,
                "already finalized (call aclInit first)",
            ));
        }
        finalize_locked(&mut rt)
    };
    finish_finalize(leaks, td)
}

/// `aclFinalizeReference`.
pub(crate) fn finalize_reference(out: Out<u64>) -> Res<()> {
    let (leaks, td) = {
        let mut rt = rt();
        if rt.init_refcount == 0 {
            return Err(Error::new(
                ffi::ACL_ERROR_REPEAT_FINALIZE,
                "the initialization reference count is already 0",
            ));
        }
        rt.init_refcount -= 1;
        out.write(rt.init_refcount);
        if rt.init_refcount > 0 {
            return Ok(());
        }
        finalize_locked(&mut rt)
    };
    finish_finalize(leaks, td)
}

// -------------------------------------------------------------- devices ---

/// `aclrtSetDevice`.
pub(crate) fn set_device(id: i32) -> Res<()> {
    let mut rt = rt();
    rt.check_device(id)?;
    let ctx = match rt.device(id)?.default_ctx {
        Some(c) => c,
        None => {
            let c = rt.new_context(id, true)?;
            rt.device_mut(id)?.default_ctx = Some(c);
            c
        }
    };
    rt.device_mut(id)?.refcount += 1;
    tls_set(Some(ctx), 0);
    Ok(())
}

/// `aclrtResetDevice` / `aclrtResetDeviceForce`.
pub(crate) fn reset_device(id: i32, force: bool) -> Res<()> {
    let removed = {
        let mut rt = rt();
        let dev = rt.device(id)?;
        if dev.refcount == 0 {
            return Err(Error::new(
                ffi::ACL_ERROR_RT_CONTEXT_RELEASE_ERROR,
                format!("device {id} is not set (never set, or already fully reset)"),
            ));
        }
        if !force && dev.refcount > 1 {
            rt.device_mut(id)?.refcount -= 1;
            return Ok(());
        }
        let live = rt.children(None, id);
        if !live.is_empty() {
            return Err(Error::violation(
                ViolationKind::ResetWithLiveResources,
                ffi::ACL_ERROR_RT_CONTEXT_RELEASE_ERROR,
                format!(
                    "device {id} still has {}; destroy them before its last reset (nothing was \
                     released)",
                    live.join(", ")
                ),
            ));
        }
        let dev = rt.device_mut(id)?;
        dev.refcount = 0;
        dev.peers.clear();
        let ctx = dev.default_ctx.take();
        ctx.and_then(|c| rt.remove_context(c))
    };
    stop_streams(removed.into_iter().collect());
    Ok(())
}

/// `aclrtGetDevice`.
pub(crate) fn get_device(out: Out<i32>) -> Res<()> {
    if out.is_null() {
        return Err(param("deviceId is NULL"));
    }
    let rt = rt();
    let dev = rt.current().map_err(|_| {
        Error::new(
            ffi::ACL_ERROR_RT_CONTEXT_NULL,
            "no device is bound to this thread (call aclrtSetDevice)",
        )
    })?;
    out.write(dev.device);
    Ok(())
}

/// `aclrtGetDeviceCount`.
pub(crate) fn device_count(out: Out<u32>) -> Res<()> {
    if out.is_null() {
        return Err(param("count is NULL"));
    }
    out.write(rt().devices.len() as u32);
    Ok(())
}

/// `aclrtGetRunMode`.
pub(crate) fn run_mode(out: Out<u32>) -> Res<()> {
    if out.is_null() {
        return Err(param("runMode is NULL"));
    }
    out.write(match rt().cfg.run_mode {
        RunMode::Host => ffi::ACL_HOST,
        RunMode::Device => ffi::ACL_DEVICE,
    });
    Ok(())
}

/// `aclrtSynchronizeDevice[WithTimeout]`: the current context's streams.
pub(crate) fn synchronize_device(timeout: Option<i32>) -> Res<()> {
    let deadline = deadline_of(timeout)?;
    let (streams, forced): (Vec<Arc<StreamShared>>, Vec<ForcedWorker>) = {
        let mut rt = rt();
        let ctx = rt.current()?.handle;
        let streams = rt
            .streams
            .values()
            .filter(|s| s.ctx == ctx)
            .map(|s| s.shared.clone())
            .collect();
        (streams, rt.take_forced(|w| w.ctx == ctx))
    };
    // Tasks still running on workers of force-destroyed streams count as
    // work of this context.
    if !wait_forced(forced, deadline) {
        return Err(Error::new(
            ffi::ACL_ERROR_RT_STREAM_SYNC_TIMEOUT,
            format!(
                "the device did not finish within {} ms (a force-destroyed stream's task is still running)",
                timeout.unwrap_or(-1)
            ),
        ));
    }
    for s in &streams {
        if sync::on_worker_of(s.id) && !s.is_idle() {
            return Err(rt_param(
                "called from a callback running on a stream of this context; it would wait for itself",
            ));
        }
        match s.sync(deadline) {
            SyncEnd::Done => {}
            SyncEnd::TimedOut => {
                return Err(Error::new(
                    ffi::ACL_ERROR_RT_STREAM_SYNC_TIMEOUT,
                    format!(
                        "the device did not finish within {} ms (stream {:#x} still busy)",
                        timeout.unwrap_or(-1),
                        s.handle
                    ),
                ));
            }
            SyncEnd::Aborted => {
                return Err(s.abort_error("the device synchronisation waited for it"));
            }
        }
    }
    let mut first = None;
    for s in &streams {
        if let Some(f) = s.take_fault(u64::MAX) {
            first.get_or_insert_with(|| fault_error(s, f));
        }
    }
    first.map_or(Ok(()), Err)
}

/// `aclrtDeviceCanAccessPeer`.
pub(crate) fn can_access_peer(out: Out<i32>, dev: i32, peer: i32) -> Res<()> {
    if out.is_null() {
        return Err(param("canAccessPeer is NULL"));
    }
    let rt = rt();
    rt.check_device(dev)?;
    rt.check_device(peer)?;
    if dev == peer {
        return Err(param(format!("deviceId and peerDeviceId are both {dev}")));
    }
    out.write(1);
    Ok(())
}

/// `aclrtDeviceEnablePeerAccess` / `aclrtDeviceDisablePeerAccess`.
pub(crate) fn peer_access(peer: i32, flags: u32, enable: bool) -> Res<()> {
    if flags != 0 {
        return Err(Error::new(
            ffi::ACL_ERROR_FEATURE_UNSUPPORTED,
            format!("flags must be 0 (got {flags:#x})"),
        ));
    }
    let mut rt = rt();
    let cur = rt.current()?.device;
    rt.check_device(peer)?;
    if cur == peer {
        return Err(param(format!("peerDeviceId {peer} is the current device")));
    }
    let dev = rt.device_mut(cur)?;
    if enable {
        dev.peers.insert(peer);
    } else {
        dev.peers.remove(&peer);
    }
    Ok(())
}

// ------------------------------------------------------------- contexts ---

/// `aclrtCreateContext`.
pub(crate) fn create_context(out: Out<usize>, device: i32) -> Res<()> {
    if out.is_null() {
        return Err(param("context is NULL"));
    }
    let mut rt = rt();
    rt.check_device(device)?;
    let h = rt.new_context(device, false)?;
    tls_set(None, h);
    out.write(h);
    Ok(())
}

/// `aclrtDestroyContext`.
pub(crate) fn destroy_context(h: usize) -> Res<()> {
    if h == 0 {
        return Err(param("context is NULL"));
    }
    let removed = {
        let mut rt = rt();
        let ctx = rt.context(h)?;
        if ctx.is_default {
            return Err(Error::new(
                ffi::ACL_ERROR_RT_CONTEXT_NULL,
                format!(
                    "context {h:#x} is the default context of device {}; it cannot be destroyed \
                     explicitly (aclrtResetDevice releases it)",
                    ctx.device
                ),
            ));
        }
        let live = rt.children(Some(h), ctx.device);
        if !live.is_empty() {
            return Err(Error::violation(
                ViolationKind::ReleaseWithLiveChildren,
                ffi::ACL_ERROR_RT_CONTEXT_RELEASE_ERROR,
                format!(
                    "context {h:#x} still has {}; destroy them first (nothing was released)",
                    live.join(", ")
                ),
            ));
        }
        rt.remove_context(h)
    };
    stop_streams(removed.into_iter().collect());
    Ok(())
}

/// `aclrtSetCurrentContext`.
pub(crate) fn set_current_context(h: usize) -> Res<()> {
    if h == 0 {
        return Err(param("context is NULL"));
    }
    let rt = rt();
    rt.context(h)?;
    tls_set(None, h);
    Ok(())
}

/// `aclrtGetCurrentContext`.
pub(crate) fn get_current_context(out: Out<usize>) -> Res<()> {
    if out.is_null() {
        return Err(param("context is NULL"));
    }
    out.write(rt().current()?.handle);
    Ok(())
}

/// `aclrtCtxGetCurrentDefaultStream`.
pub(crate) fn current_default_stream(out: Out<usize>) -> Res<()> {
    if out.is_null() {
        return Err(param("stream is NULL"));
    }
    out.write(rt().current()?.default_stream);
    Ok(())
}

// -------------------------------------------------------------- streams ---

/// `aclrtCreateStream[WithConfig]` (priority is clamped, unknown flag bits
/// are dropped).
pub(crate) fn create_stream(out: Out<usize>, flags: u32) -> Res<()> {
    if out.is_null() {
        return Err(param("stream is NULL"));
    }
    const KNOWN: u32 = ffi::ACL_STREAM_FAST_LAUNCH
        | ffi::ACL_STREAM_FAST_SYNC
        | ffi::ACL_STREAM_PERSISTENT
        | ffi::ACL_STREAM_HUGE
        | ffi::ACL_STREAM_CPU_SCHEDULE
        | ffi::ACL_STREAM_DEVICE_USE_ONLY;
    let mut rt = rt();
    let ctx = rt.current()?;
    let (c, d) = (ctx.handle, ctx.device);
    let h = rt.new_stream(c, d, false, flags & KNOWN)?;
    out.write(h);
    Ok(())
}

/// `aclrtDestroyStream` / `aclrtDestroyStreamForce`.
pub(crate) fn destroy_stream(h: usize, force: bool) -> Res<()> {
    if h == 0 {
        return Err(param(
            "stream is NULL: the default stream cannot be destroyed (aclrtResetDevice releases it)",
        ));
    }
    let (sh, orphans, ctx, device) = {
        let mut rt = rt();
        let st = rt.stream(h)?;
        let (ctx, device) = (st.ctx, st.device);
        if st.is_default {
            return Err(param(format!(
                "stream {h:#x} is a default stream; it cannot be destroyed"
            )));
        }
        rt.stream_in_current(h)?;
        let sh = rt.stream(h)?.shared.clone();
        if sync::on_worker_of(sh.id) {
            return Err(rt_param(
                "called from a callback running on this very stream; it would wait for itself",
            ));
        }
        if force {
            let deps = sh.dependents.load(Ordering::SeqCst);
            if deps > 0 && !sh.is_idle() {
                return Err(Error::violation(
                    ViolationKind::ReleaseWhileInUse,
                    ffi::ACL_ERROR_RT_STREAM_NOT_COMPLETE,
                    format!(
                        "{deps} queued wait task(s) of other streams wait for unfinished tasks of \
                         stream {h:#x}; force-destroying it would drop what they wait for"
                    ),
                ));
            }
        }
        match rt.remove_stream(h) {
            Some((sh, orphans)) => (sh, orphans, ctx, device),
            None => return Err(rt.bad_handle(h, HandleKind::Stream)),
        }
    };
    if force {
        // Pending tasks are dropped; the running one finishes on its own,
        // and device synchronisation waits for it.
        if let Some(worker) = sh.discard() {
            rt().forced.push(ForcedWorker {
                ctx,
                device,
                stream_id: sh.id,
                worker,
            });
        }
    } else {
        sh.shutdown_and_join();
    }
    reports::run_orphans(orphans);
    Ok(())
}

const SYNC_IMMEDIATE: u32 =
    ffi::ACL_STREAM_PERSISTENT | ffi::ACL_STREAM_DEVICE_USE_ONLY | ffi::ACL_STREAM_CPU_SCHEDULE;

/// `aclrtSynchronizeStream[WithTimeout]` (any context: it switches
/// temporarily to the stream's context).
pub(crate) fn synchronize_stream(h: usize, timeout: Option<i32>) -> Res<()> {
    let deadline = deadline_of(timeout)?;
    let sh = rt().stream(h)?.shared.clone();
    if sh.flags & SYNC_IMMEDIATE != 0 {
        return Ok(());
    }
    if sync::on_worker_of(sh.id) && !sh.is_idle() {
        return Err(rt_param(
            "called from a callback running on this very stream; it would wait for itself",
        ));
    }
    match sh.sync(deadline) {
        SyncEnd::Done => {}
        SyncEnd::TimedOut => {
            return Err(Error::new(
                ffi::ACL_ERROR_RT_STREAM_SYNC_TIMEOUT,
                format!(
                    "stream {:#x} did not finish within {} ms",
                    sh.handle,
                    timeout.unwrap_or(-1)
                ),
            ));
        }
        SyncEnd::Aborted => {
            return Err(sh.abort_error("tasks this synchronisation waited for were dropped"));
        }
    }
    if let Some(f) = sh.take_fault(u64::MAX) {
        return Err(fault_error(&sh, f));
    }
    Ok(())
}

/// `aclrtStreamAbort`: synchronous; drops the queued tasks, cuts a delayed
/// or waiting running task short, waits for a running task that cannot be
/// interrupted, and leaves the stream usable.
pub(crate) fn stream_abort(h: usize) -> Res<()> {
    if h == 0 {
        return Err(rt_param(
            "stream is NULL: aclrtStreamAbort needs a stream handle (for the default stream, \
             pass the handle from aclrtCtxGetCurrentDefaultStream)",
        ));
    }
    let sh = rt().stream_in_current(h)?.1.shared.clone();
    if sync::on_worker_of(sh.id) {
        return Err(rt_param(
            "called from a callback running on this very stream; the abort would wait for itself",
        ));
    }
    sh.abort(exec::ABORT_LIMIT).map(drop).map_err(|_| {
        Error::new(
            ffi::ACL_ERROR_RT_WAIT_TIMEOUT,
            format!(
                "stream {h:#x}: the running task (a host function or blocking callback) did not \
                 finish within {} s; its queued tasks were dropped, and the stream completes \
                 them once the running task returns",
                exec::ABORT_LIMIT.as_secs()
            ),
        )
    })
}

/// `aclrtStreamQuery`.
pub(crate) fn stream_query(h: usize, out: Out<u32>) -> Res<()> {
    let sh = rt().stream_in_current(h)?.1.shared.clone();
    if out.is_null() {
        return Err(param("status is NULL"));
    }
    out.write(if sh.is_idle() {
        ffi::ACL_STREAM_STATUS_COMPLETE
    } else {
        ffi::ACL_STREAM_STATUS_NOT_READY
    });
    Ok(())
}

/// `aclrtGetStreamAvailableNum`.
pub(crate) fn streams_available(out: Out<u32>) -> Res<()> {
    if out.is_null() {
        return Err(param("streamCount is NULL"));
    }
    let rt = rt();
    let d = rt.current()?.device;
    out.write(MAX_STREAMS.saturating_sub(rt.device(d)?.streams));
    Ok(())
}

/// `aclrtSetOpWaitTimeout` (seconds; 0: never).
pub(crate) fn set_op_wait_timeout(secs: u32) -> Res<()> {
    rt().op_wait_timeout = (secs > 0).then(|| Duration::from_secs(u64::from(secs)));
    Ok(())
}

/// `control::set_stream_delay`.
pub(crate) fn set_stream_delay(h: usize, d: Duration) -> Res<()> {
    rt().stream(h)?.shared.set_delay(Some(d));
    Ok(())
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
        };
        add(k, a.device, 1);
    }
    let initialized = rt.init_refcount > 0;
    drop(rt);
    Audit {
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
        td
    };
    td.finish();
    tls_clear();
}
