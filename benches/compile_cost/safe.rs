//! A user program of about 500 lines that touches every typestate of the
//! safe API through generic functions, in both run modes. It exists to
//! measure what the typestates cost the compiler (`benches/compile_time.sh`
//! type-checks it against `raw.rs` beside it, the same work written with
//! raw `aclrt::sys` calls); it also runs: `cargo run --manifest-path benches/Cargo.toml --example compile_cost`.

use core::fmt::Debug;
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

use aclrt::bounds::{
    DeviceMemory, EventKind, HostMemory, IsRecorded, Memory, MemoryMut, TimingKind,
};
use aclrt::{
    Acl, Context, DefaultContext, DefaultStream, Detected, Device, DeviceBuffer, DeviceRepr,
    DeviceView, DeviceViewMut, Event, HostBuffer, HostBufferUninit, InFlight, Lane, MallocPolicy,
    PeerAccess, Recorded, RunMode, Runtime, Scope, Stream, StreamFlags, SyncOnly, Timing,
    Unrecorded, make_guard,
};

/// Element types the program moves around.
trait Elem: DeviceRepr + PartialEq + Debug {
    fn of(i: usize) -> Self;
}

macro_rules! elem_int {
    ($($t:ty),*) => { $(impl Elem for $t { fn of(i: usize) -> Self { (i % 100) as $t } })* };
}
elem_int!(u8, u16, u32, u64, i32, i64);

impl Elem for f32 {
    fn of(i: usize) -> Self {
        (i % 1000) as f32 * 0.5
    }
}

impl Elem for f64 {
    fn of(i: usize) -> Self {
        (i % 1000) as f64 * 0.25
    }
}

impl Elem for [f32; 4] {
    fn of(i: usize) -> Self {
        [i as f32, 1.0, 2.0, (i % 7) as f32]
    }
}

fn pattern<T: Elem>(n: usize) -> Vec<T> {
    (0..n).map(T::of).collect()
}

// ---------------------------------------------------------------- memory

/// Host → device → host through every memory type.
fn round_trip<'id, T: Elem, M: RunMode>(ctx: &Context<'_, 'id, M>, n: usize) -> aclrt::Result<()> {
    let data = pattern::<T>(n);
    let host: HostBuffer<'_, 'id, T, M> = ctx.alloc_host_from(&data)?;
    let mut dev: DeviceBuffer<'_, 'id, T> = ctx.alloc(n)?;
    ctx.copy(&host, &mut dev)?;
    let mut back = vec![T::of(0); n];
    ctx.copy(&dev, &mut back)?;
    assert_eq!(back, data);
    let uninit: HostBufferUninit<'_, 'id, T, M> = ctx.alloc_host_uninit(n)?;
    let filled = ctx.copy_into_uninit(&dev, uninit)?;
    assert_eq!(*filled, data[..]);
    filled.free()?;
    dev.free()?;
    host.free()
}

/// Views: a window of a buffer is memory too.
fn windows<'id, T: Elem, M: RunMode>(ctx: &Context<'_, 'id, M>, n: usize) -> aclrt::Result<()> {
    let data = pattern::<T>(n);
    let src = ctx.alloc_from(&data)?;
    let mut dst = ctx.alloc_zeroed::<T>(n)?;
    {
        let half = n / 2;
        let view: DeviceView<'_, 'id, T> = src.view(..half)?;
        let mut target: DeviceViewMut<'_, 'id, T> = dst.view_mut(half..half * 2)?;
        copy_device(ctx, &view, &mut target)?;
    }
    let mut back = vec![T::of(0); n];
    ctx.copy(&dst, &mut back)?;
    assert_eq!(back[n / 2..(n / 2) * 2], data[..n / 2]);
    Ok(())
}

fn copy_device<'id, S, D, M: RunMode>(
    ctx: &Context<'_, 'id, M>,
    src: &S,
    dst: &mut D,
) -> aclrt::Result<()>
where
    S: DeviceMemory<'id> + ?Sized,
    D: DeviceMemory<'id> + MemoryMut<'id, Elem = S::Elem> + ?Sized,
{
    ctx.copy_on_device(src, dst)
}

fn copy_any<'id, S, D, M: RunMode>(
    ctx: &Context<'_, 'id, M>,
    src: &S,
    dst: &mut D,
) -> aclrt::Result<()>
where
    S: Memory<'id> + ?Sized,
    D: MemoryMut<'id, Elem = S::Elem> + ?Sized,
{
    ctx.copy(src, dst)
}

fn bytes_of<'id, S: Memory<'id> + ?Sized>(m: &S) -> usize {
    m.len() * core::mem::size_of::<S::Elem>()
}

fn host_len<'id, S: HostMemory<'id> + ?Sized>(m: &S) -> usize {
    m.len()
}

/// Uninitialised pinned memory becomes initialised three ways.
fn uninit_paths<'id, T: Elem, M: RunMode>(
    ctx: &Context<'_, 'id, M>,
    n: usize,
) -> aclrt::Result<()> {
    let a = ctx.alloc_host_uninit::<T>(n)?;
    assert_eq!(a.len(), n);
    let a = a.zeroed();
    let b = ctx.alloc_host_uninit::<T>(n)?.fill(0)?;
    assert_eq!(*a, *b);
    let c = ctx.alloc_host_uninit::<T>(n)?.init_from(&pattern::<T>(n))?;
    assert_eq!(host_len(&c), n);
    assert_eq!(bytes_of(&c), n * core::mem::size_of::<T>());
    ctx.alloc_host_uninit::<T>(n)?.free()?;
    let mut d = ctx.alloc_host_zeroed::<T>(n)?;
    d.copy_from_slice(&c.to_vec());
    copy_any(ctx, &c, &mut *d)?;
    Ok(())
}

fn policies<'id, T: Elem, M: RunMode>(ctx: &Context<'_, 'id, M>, n: usize) -> aclrt::Result<()> {
    for policy in [
        MallocPolicy::HugeFirst,
        MallocPolicy::HugeOnly,
        MallocPolicy::NormalOnly,
    ] {
        let mut buf = ctx.alloc_with_policy::<T>(n, policy)?;
        ctx.memset(&mut buf, 0)?;
        assert_eq!(buf.len(), n);
        assert!(!buf.is_empty());
    }
    Ok(())
}

// ---------------------------------------------------------------- events

fn record_and_wait<'ctx, 'id, K: EventKind>(
    stream: &Stream<'_, 'id>,
    event: Event<'ctx, 'id, K, Unrecorded>,
) -> aclrt::Result<Event<'ctx, 'id, K, Recorded>> {
    let recorded = stream.record(event)?;
    wait_recorded(&recorded)?;
    Ok(recorded)
}

fn wait_recorded<K: EventKind, S: IsRecorded>(event: &Event<'_, '_, K, S>) -> aclrt::Result<()> {
    event.synchronize()?;
    event.synchronize_timeout(Duration::from_secs(5))?;
    assert!(event.is_complete()?);
    Ok(())
}

fn time_between<'id, K: TimingKind, S: IsRecorded>(
    start: &Event<'_, 'id, K, S>,
    end: &Event<'_, 'id, K, S>,
) -> aclrt::Result<f32> {
    end.elapsed_since(start)
}

fn events<'id, M: RunMode>(ctx: &Context<'_, 'id, M>) -> aclrt::Result<()> {
    let stream = ctx.create_stream()?;
    let start: Event<'_, 'id, Timing, Unrecorded> = ctx.create_event()?;
    let start = record_and_wait(&stream, start)?;
    let end = record_and_wait(&stream, ctx.create_event()?)?;
    let ms = time_between(&start, &end)?;
    assert!(ms >= 0.0);
    let sync: Event<'_, 'id, SyncOnly, Unrecorded> = ctx.create_event_of::<SyncOnly>()?;
    let sync = record_and_wait(&stream, sync)?;
    let sync: Event<'_, 'id, SyncOnly, Unrecorded> = stream.reset_event(sync)?;
    let sync = stream.record(sync)?;
    wait_recorded(&sync)?;
    sync.destroy()?;
    let _ = ctx.events_available()?;
    start.destroy()?;
    end.destroy()?;
    stream.destroy()
}

// ---------------------------------------------------------------- streams

fn stream_basics<'id, M: RunMode>(ctx: &Context<'_, 'id, M>) -> aclrt::Result<()> {
    let plain = ctx.create_stream()?;
    let fast = ctx.create_stream_with_config(
        aclrt::StreamPriority::HIGHEST,
        StreamFlags::FAST_LAUNCH.union(StreamFlags::NONE),
    )?;
    let hits = Arc::new(AtomicUsize::new(0));
    for s in [&plain, &fast] {
        let h = Arc::clone(&hits);
        s.launch_host_fn(move || {
            h.fetch_add(1, Ordering::SeqCst);
        })?;
        s.synchronize()?;
        s.synchronize_timeout(Duration::from_secs(5))?;
        assert!(s.is_complete()?);
    }
    assert_eq!(hits.load(Ordering::SeqCst), 2);
    let default: DefaultStream<'_, 'id> = ctx.default_stream()?;
    default.synchronize()?;
    plain.destroy()?;
    fast.destroy()
}

// ---------------------------------------------------------------- scopes

fn upload_lane<'scope, 'env, 'id, 'sid, 'b, T: Elem, M: RunMode>(
    lane: &Lane<'scope, 'env, 'id, 'sid, M>,
    src: &'scope HostBuffer<'_, 'id, T, M>,
    dst: &'scope mut DeviceBuffer<'b, 'id, T>,
) -> aclrt::Result<InFlight<'scope, 'sid, DeviceBuffer<'b, 'id, T>>> {
    lane.copy(src, dst)
}

fn pipeline<'id, T: Elem, M: RunMode>(ctx: &Context<'_, 'id, M>, n: usize) -> aclrt::Result<()> {
    let a = ctx.create_stream()?;
    let b = ctx.create_stream()?;
    let input = ctx.alloc_host_from(&pattern::<T>(n))?;
    let mut stage = ctx.alloc::<T>(n)?;
    let mut output = ctx.alloc_host_zeroed::<T>(n)?;
    let mut scratch = ctx.alloc::<T>(n)?;
    let user_event = ctx.create_event()?;
    let seen = AtomicUsize::new(0);
    ctx.scope(|s: &Scope<'_, '_, 'id, M>| {
        make_guard!(ga);
        make_guard!(gb);
        let up = s.lane(&a, ga);
        let down = s.lane(&b, gb);
        let staged = up.copy(&input, &mut stage)?;
        assert_eq!(staged.len(), n);
        assert!(!staged.is_empty());
        let mark = up.mark()?;
        let recorded = up.record(user_event)?;
        let handed = down.wait_for(up.signal(staged)?)?;
        down.wait_mark(mark)?;
        let cleared = down.memset(&mut scratch, 0)?;
        let _ = down.copy(&handed, cleared)?;
        let out = down.copy(&handed, &mut output)?;
        let out = down.host_fn_with(out, |v| {
            v.reverse();
            v.reverse();
        })?;
        down.host_fn(|| {
            seen.fetch_add(1, Ordering::SeqCst);
        })?;
        down.synchronize()?;
        assert!(down.is_complete()? && up.is_complete()?);
        recorded.synchronize()?;
        let out = out.wait()?;
        assert_eq!(**out, *input);
        Ok(())
    })?;
    assert_eq!(seen.load(Ordering::SeqCst), 1);
    a.destroy()?;
    b.destroy()
}

fn waits_on_event<'id, T: Elem, M: RunMode>(
    ctx: &Context<'_, 'id, M>,
    n: usize,
) -> aclrt::Result<()> {
    let s1 = ctx.create_stream()?;
    let s2 = ctx.create_stream()?;
    let event = s1.record(ctx.create_event_of::<SyncOnly>()?)?;
    let host = ctx.alloc_host_from(&pattern::<T>(n))?;
    let mut dev = ctx.alloc::<T>(n)?;
    ctx.scope(|s| {
        make_guard!(g1);
        make_guard!(g2);
        let l1 = s.lane(&s1, g1);
        let l2 = s.lane(&s2, g2);
        l2.wait_event(&event)?;
        let flight = upload_lane(&l1, &host, &mut dev)?;
        flight.wait()?;
        l2.synchronize()
    })?;
    drop(event);
    s1.destroy()?;
    s2.destroy()
}

// ---------------------------------------------------------------- contexts

fn default_context_work<'id, T: Elem, M: RunMode>(
    ctx: &DefaultContext<'_, 'id, M>,
    n: usize,
) -> aclrt::Result<()> {
    ctx.make_current()?;
    round_trip::<T, M>(ctx, n)?;
    ctx.synchronize()?;
    ctx.synchronize_timeout(Duration::from_secs(5))
}

fn context_info<M: RunMode>(ctx: &Context<'_, '_, M>) -> aclrt::Result<u32> {
    assert!(!ctx.as_raw().is_null());
    ctx.device_id()
}

fn host_only<'id, T: Elem>(ctx: &Context<'_, 'id, aclrt::HostMode>, n: usize) -> aclrt::Result<()> {
    let data = pattern::<T>(n);
    let mut dev = ctx.alloc::<T>(n)?;
    ctx.upload(&data[..], &mut dev)?;
    let mut back = vec![T::of(0); n];
    ctx.download(&dev, &mut back[..])?;
    assert_eq!(back, data);
    Ok(())
}

fn all_types<'id, M: RunMode>(ctx: &Context<'_, 'id, M>, n: usize) -> aclrt::Result<()> {
    macro_rules! each {
        ($($t:ty),*) => {$(
            round_trip::<$t, M>(ctx, n)?;
            windows::<$t, M>(ctx, n)?;
            uninit_paths::<$t, M>(ctx, n)?;
            policies::<$t, M>(ctx, n)?;
            pipeline::<$t, M>(ctx, n)?;
            waits_on_event::<$t, M>(ctx, n)?;
        )*};
    }
    each!(u8, u16, u32, u64, i32, i64, f32, f64, [f32; 4]);
    Ok(())
}

// ---------------------------------------------------------------- devices

fn peers<'acl, M: RunMode>(d0: &Device<'acl, M>, d1: &Device<'acl, M>) -> aclrt::Result<()> {
    if !d0.can_access_peer(d1)? {
        println!("  peer access 0 -> 1 not available; skipped");
        return Ok(());
    }
    let access: PeerAccess<'_, 'acl, M> = d0.enable_peer_access(d1)?;
    assert_eq!((access.from_device(), access.to_device()), (0, 1));
    make_guard!(g0);
    make_guard!(g1);
    let c0 = d0.create_context(g0)?;
    let c1 = d1.create_context(g1)?;
    peer_copy::<u32, M>(&access, &c0, &c1, 300)?;
    peer_copy::<f32, M>(&access, &c0, &c1, 300)?;
    access.disable()?;
    c1.destroy()?;
    c0.destroy()
}

fn peer_copy<'id0, 'id1, T: Elem, M: RunMode>(
    access: &PeerAccess<'_, '_, M>,
    c0: &Context<'_, 'id0, M>,
    c1: &Context<'_, 'id1, M>,
    n: usize,
) -> aclrt::Result<()> {
    let data = pattern::<T>(n);
    let src = c0.alloc_from(&data)?;
    let mut dst = c1.alloc::<T>(n)?;
    c0.copy_to_peer(access, c1, &src, &mut dst)?;
    let mut back = vec![T::of(0); n];
    c1.copy(&dst, &mut back)?;
    assert_eq!(back, data);
    Ok(())
}

fn device_info<M: RunMode>(device: &Device<'_, M>) -> aclrt::Result<()> {
    let info = device.memory_info()?;
    assert!(info.free <= info.total);
    assert!(device.streams_available()? > 0);
    device.synchronize()
}

fn run<M: RunMode>(
    rt: Runtime<'_, M>,
    host_extra: impl FnOnce(&Context<'_, '_, M>) -> aclrt::Result<()>,
) -> aclrt::Result<()> {
    let acl: &Acl = rt.acl();
    let count = acl.device_count()?;
    let d0 = rt.device(0)?;
    device_info(&d0)?;
    make_guard!(guard);
    let ctx = d0.create_context(guard)?;
    assert_eq!(context_info(&ctx)?, d0.id());
    all_types(&ctx, 257)?;
    events(&ctx)?;
    stream_basics(&ctx)?;
    host_extra(&ctx)?;
    ctx.destroy()?;
    {
        make_guard!(dg);
        let dctx = d0.default_context(dg);
        default_context_work::<u32, M>(&dctx, 100)?;
        default_context_work::<[f32; 4], M>(&dctx, 100)?;
    }
    if count > 1 {
        let d1 = rt.device(1)?;
        peers(&d0, &d1)?;
        d1.reset()?;
    }
    d0.reset()
}

fn main() -> aclrt::Result<()> {
    let acl = Acl::init()?;
    println!(
        "compile_cost: run mode {:?}, SoC {:?}, version {:?}",
        acl.run_mode(),
        acl.soc_name(),
        acl.version()?
    );
    match acl.detect() {
        Detected::Host(rt) => run(rt, |ctx| {
            host_only::<u32>(ctx, 64)?;
            host_only::<f64>(ctx, 64)
        })?,
        Detected::Device(rt) => run(rt, |_| Ok(()))?,
    }
    acl.finalize()?;
    aclrt::sim::audit().assert_clean();
    println!("compile_cost: OK");
    Ok(())
}
