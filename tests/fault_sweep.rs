//! Fault sweep: every C call of every example flow fails once.
//!
//! Each flow of `examples/` is re-implemented here as a function of `&Acl`
//! (generic over the run mode inside, like the examples; data sizes are
//! smaller so that the sweep stays fast). For each flow and run mode:
//!
//! 1. run it once with `record_calls(true)` to get its ordered `call_log()`;
//! 2. for every index `k` of that log, start from a fresh simulator, make
//!    exactly that call fail once (`inject_fault(log[k], n, code)`, `n` = the
//!    earlier occurrences of `log[k]` + 1) and run the flow again, under
//!    `catch_unwind`;
//! 3. check: no panic; the flow returns `Err` whose `function()` is `log[k]`
//!    (or `Ok` where the library legitimately absorbs the failure: the
//!    [`ABSORBED`] table says which and why); the runtime is finalised;
//!    no violations; no leaks — except where a *release* call was refused,
//!    which leaks exactly that resource and keeps its parents (and so the
//!    runtime) alive: their releases refuse with `Error::LiveChildren`
//!    without breaking a runtime rule; and `sim::reset()` cleans up.
//!
//! Every anomaly of a flow is collected and reported together.

mod common;

use std::panic::{AssertUnwindSafe, catch_unwind};
use std::time::Duration;

use aclrt::sim::{self, ResourceKind, SimConfig};
use aclrt::{
    Acl, Context, Detected, DeviceBuffer, Error, ErrorKind, HostBuffer, HostMode, Result, RunMode,
    Runtime, Stream, make_guard,
};
use common::*;

/// A flow: everything the example does between `Acl::init` and `finalize`.
type Flow = fn(&Acl) -> Result<()>;

/// `aclInit`, the flow, `aclFinalize`: what an example's `main` does.
fn drive(flow: Flow) -> Result<()> {
    let acl = Acl::init()?;
    flow(&acl)?;
    acl.finalize()
}

/// An expected error: `Ok(e)` when `pred(e)`, otherwise the error is passed
/// on (an injected fault came first). Success is a bug of the flow.
fn expect_err<T>(r: Result<T>, pred: impl Fn(&Error) -> bool) -> Result<Error> {
    match r {
        Ok(_) => panic!("an expected error did not happen"),
        Err(e) if pred(&e) => Ok(e),
        Err(e) => Err(e),
    }
}

// ------------------------------------------------------------------ flows

fn ex01_device_info(acl: &Acl) -> Result<()> {
    fn describe<M: RunMode>(rt: Runtime<'_, M>, count: u32) -> Result<()> {
        for id in 0..count {
            let device = rt.device(id)?;
            let mem = device.memory_info()?;
            assert!(mem.total > 0 && mem.free <= mem.total);
            let _ = device.streams_available()?;
        }
        Ok(())
    }
    let count = acl.device_count()?;
    let _ = acl.version()?;
    let _ = acl.soc_name();
    assert!(count >= 1);
    match acl.detect() {
        Detected::Host(rt) => describe(rt, count),
        Detected::Device(rt) => describe(rt, count),
    }
}

fn ex02_explicit_resources(acl: &Acl) -> Result<()> {
    fn run<M: RunMode>(rt: Runtime<'_, M>) -> Result<()> {
        let device = rt.device(0)?;
        make_guard!(guard);
        let ctx = device.create_context(guard)?;
        let stream = ctx.create_stream()?;
        let buffer = ctx.alloc::<u8>(4096)?;
        stream.synchronize()?;
        assert!(stream.is_complete()?);
        buffer.free()?;
        stream.destroy()?;
        ctx.destroy()?;
        device.reset()
    }
    match acl.detect() {
        Detected::Host(rt) => run(rt),
        Detected::Device(rt) => run(rt),
    }
}

fn ex03_implicit_resources(acl: &Acl) -> Result<()> {
    fn run<M: RunMode>(rt: Runtime<'_, M>) -> Result<()> {
        let device = rt.device(0)?;
        make_guard!(guard);
        let ctx = device.default_context(guard);
        let stream = ctx.default_stream()?;
        let data: Vec<i32> = (0..256).collect();
        let on_device = ctx.alloc_from(&data)?;
        let mut back = vec![0i32; data.len()];
        ctx.copy(&on_device, &mut back)?;
        stream.synchronize()?;
        assert_eq!(back, data);
        drop(on_device);
        device.reset()
    }
    match acl.detect() {
        Detected::Host(rt) => run(rt),
        Detected::Device(rt) => run(rt),
    }
}

fn ex04_host_device_memory(acl: &Acl) -> Result<()> {
    const N: usize = 256;
    fn run<M: RunMode>(rt: Runtime<'_, M>) -> Result<()> {
        let device = rt.device(0)?;
        make_guard!(guard);
        let ctx = device.create_context(guard)?;
        let stream = ctx.create_stream()?;
        let a: Vec<f32> = (0..N).map(|i| i as f32).collect();
        let mut dev_a = ctx.alloc::<f32>(N)?;
        ctx.copy(&a, &mut dev_a)?;
        let b = ctx.alloc_host_from(&(0..N).map(|i| 2.0 * i as f32).collect::<Vec<_>>())?;
        let mut dev_b = ctx.alloc::<f32>(N)?;
        let mut sum = ctx.alloc_host_zeroed::<f32>(N)?;
        let mut scratch = ctx.alloc_host_zeroed::<f32>(N)?;
        ctx.scope(|s| {
            make_guard!(l);
            let lane = s.lane(&stream, l);
            let dev_b = lane.copy(&b, &mut dev_b)?;
            let a_back = lane.copy(&dev_a, &mut scratch)?;
            let b_back = lane.copy(&dev_b, &mut sum)?;
            let a_host: Vec<f32> = a_back.wait()?.to_vec();
            let sum = lane.host_fn_with(b_back, move |out| {
                for (i, a) in a_host.iter().enumerate() {
                    out.update(i, |o| o + a).expect("in bounds");
                }
            })?;
            let sum = sum.wait()?;
            for (i, v) in sum.iter().enumerate() {
                assert_eq!(v, 3.0 * i as f32, "element {i}");
            }
            Ok(())
        })
    }
    match acl.detect() {
        Detected::Host(rt) => run(rt),
        Detected::Device(rt) => run(rt),
    }
}

fn ex05_run_mode_transfer(acl: &Acl) -> Result<()> {
    fn transfer<M: RunMode>(rt: Runtime<'_, M>) -> Result<Vec<u16>> {
        let device = rt.device(0)?;
        make_guard!(guard);
        let ctx = device.create_context(guard)?;
        let input = ctx.alloc_host_from(&[7u16, 8, 9, 10])?;
        let mut on_device = ctx.alloc::<u16>(4)?;
        ctx.copy(&input, &mut on_device)?;
        let output = ctx.copy_into_uninit(&on_device, ctx.alloc_host_uninit::<u16>(4)?)?;
        Ok(output.to_vec())
    }
    fn host_only(rt: Runtime<'_, HostMode>) -> Result<()> {
        let device = rt.device(0)?;
        make_guard!(guard);
        let ctx = device.create_context(guard)?;
        let mut on_device = ctx.alloc::<u8>(3)?;
        ctx.upload(&[1u8, 2, 3], &mut on_device)?;
        let mut back = [0u8; 3];
        ctx.download(&on_device, &mut back)?;
        assert_eq!(back, [1, 2, 3]);
        Ok(())
    }
    let output = match acl.detect() {
        Detected::Host(rt) => {
            host_only(rt)?;
            transfer(rt)?
        }
        Detected::Device(rt) => transfer(rt)?,
    };
    assert_eq!(output, [7, 8, 9, 10]);
    Ok(())
}

struct Pipeline<'c, 'd, 'id, M: RunMode> {
    ctx: &'c Context<'d, 'id, M>,
    upload: Stream<'c, 'id>,
    compute: Stream<'c, 'id>,
    input: HostBuffer<'c, 'id, f32, M>,
    staging: DeviceBuffer<'c, 'id, f32>,
    output: HostBuffer<'c, 'id, f32, M>,
}

impl<'c, 'd, 'id, M: RunMode> Pipeline<'c, 'd, 'id, M> {
    fn new(ctx: &'c Context<'d, 'id, M>, batch: usize) -> Result<Self> {
        Ok(Pipeline {
            ctx,
            upload: ctx.create_stream()?,
            compute: ctx.create_stream()?,
            input: ctx.alloc_host_zeroed(batch)?,
            staging: ctx.alloc(batch)?,
            output: ctx.alloc_host_zeroed(batch)?,
        })
    }

    fn run(&mut self, batch: &[f32]) -> Result<Vec<f32>> {
        self.input.copy_from_slice(batch);
        let Pipeline {
            ctx,
            upload,
            compute,
            input,
            staging,
            output,
        } = self;
        ctx.scope(|s| {
            make_guard!(a);
            make_guard!(b);
            let up = s.lane(upload, a);
            let work = s.lane(compute, b);
            let staged = up.copy(&*input, &mut *staging)?;
            let staged = work.wait_for(up.signal(staged)?)?;
            let out = work.copy(&staged, &mut *output)?;
            let out = work.host_fn_with(out, |v| v.update_all(|x| x * 2.0))?;
            Ok(out.wait()?.to_vec())
        })
    }
}

fn ex06_pipeline_app(acl: &Acl) -> Result<()> {
    fn serve<M: RunMode>(rt: Runtime<'_, M>) -> Result<()> {
        let device = rt.device(0)?;
        make_guard!(guard);
        let ctx = device.create_context(guard)?;
        let mut pipeline = Pipeline::new(&ctx, 8)?;
        for round in 0..3 {
            let batch: Vec<f32> = (0..8).map(|i| (round * 8 + i) as f32).collect();
            let result = pipeline.run(&batch)?;
            let expected: Vec<f32> = batch.iter().map(|x| x * 2.0).collect();
            assert_eq!(result, expected, "round {round}");
        }
        Ok(())
    }
    match acl.detect() {
        Detected::Host(rt) => serve(rt),
        Detected::Device(rt) => serve(rt),
    }
}

fn ex07_event_sync(acl: &Acl) -> Result<()> {
    fn run<M: RunMode>(rt: Runtime<'_, M>) -> Result<()> {
        let device = rt.device(0)?;
        make_guard!(guard);
        let ctx = device.create_context(guard)?;
        let stream = ctx.create_stream()?;
        let src = ctx.alloc_host_from(&[5u8; 4096])?;
        let mut dst = ctx.alloc::<u8>(4096)?;
        let mut back = ctx.alloc_host_zeroed::<u8>(4096)?;
        let start = stream.record(ctx.create_event()?)?;
        let end = ctx.create_event()?;
        ctx.scope(|s| {
            make_guard!(l);
            let lane = s.lane(&stream, l);
            let d = lane.copy(&src, &mut dst)?;
            let _back = lane.copy(&d, &mut back)?;
            let recorded = lane.record(end)?;
            recorded.synchronize()?;
            assert!(recorded.is_complete()?);
            assert!(recorded.elapsed_since(&start)? >= 0.0);
            Ok(())
        })?;
        assert!(back.iter().all(|b| b == 5));
        Ok(())
    }
    match acl.detect() {
        Detected::Host(rt) => run(rt),
        Detected::Device(rt) => run(rt),
    }
}

fn ex08_stream_sync(acl: &Acl) -> Result<()> {
    fn run<M: RunMode>(rt: Runtime<'_, M>) -> Result<()> {
        let device = rt.device(0)?;
        make_guard!(guard);
        let ctx = device.create_context(guard)?;
        let stream = ctx.create_stream()?;
        let src = ctx.alloc_host_from(&[1u32; 1024])?;
        let mut dst = ctx.alloc::<u32>(1024)?;
        ctx.scope(|s| {
            make_guard!(l);
            let lane = s.lane(&stream, l);
            let _in_flight = lane.copy(&src, &mut dst)?;
            let _ = lane.is_complete()?;
            stream.synchronize_timeout(Duration::from_secs(10))?;
            assert!(lane.is_complete()?);
            Ok(())
        })?;
        let mut back = vec![0u32; 1024];
        ctx.copy(&dst, &mut back)?;
        assert!(back.iter().all(|&v| v == 1));
        stream.synchronize()
    }
    match acl.detect() {
        Detected::Host(rt) => run(rt),
        Detected::Device(rt) => run(rt),
    }
}

fn ex09_two_streams_event(acl: &Acl) -> Result<()> {
    fn run<M: RunMode>(rt: Runtime<'_, M>) -> Result<()> {
        let device = rt.device(0)?;
        make_guard!(guard);
        let ctx = device.create_context(guard)?;
        let producer = ctx.create_stream()?;
        let consumer = ctx.create_stream()?;
        sim::set_stream_delay(producer.as_raw(), Duration::from_millis(2));
        let input = ctx.alloc_host_from(&(0..1024u32).collect::<Vec<_>>())?;
        let mut shared = ctx.alloc::<u32>(1024)?;
        let mut output = ctx.alloc_host_zeroed::<u32>(1024)?;
        ctx.scope(|s| {
            make_guard!(a);
            make_guard!(b);
            let a = s.lane(&producer, a);
            let b = s.lane(&consumer, b);
            let produced = a.copy(&input, &mut shared)?;
            let handed = b.wait_for(a.signal(produced)?)?;
            let out = b.copy(&handed, &mut output)?.wait()?;
            assert!(out.iter().enumerate().all(|(i, v)| v == i as u32));
            Ok(())
        })
    }
    match acl.detect() {
        Detected::Host(rt) => run(rt),
        Detected::Device(rt) => run(rt),
    }
}

fn ex10_device_sync(acl: &Acl) -> Result<()> {
    fn run<M: RunMode>(rt: Runtime<'_, M>) -> Result<()> {
        let device = rt.device(0)?;
        make_guard!(guard);
        let ctx = device.create_context(guard)?;
        let streams = [
            ctx.create_stream()?,
            ctx.create_stream()?,
            ctx.create_stream()?,
        ];
        let mut buffers = [
            ctx.alloc::<u8>(4096)?,
            ctx.alloc::<u8>(4096)?,
            ctx.alloc::<u8>(4096)?,
        ];
        ctx.scope(|s| {
            let [b0, b1, b2] = &mut buffers;
            make_guard!(g0);
            make_guard!(g1);
            make_guard!(g2);
            let _x = s.lane(&streams[0], g0).memset(b0, 1)?;
            let _y = s.lane(&streams[1], g1).memset(b1, 2)?;
            let _z = s.lane(&streams[2], g2).memset(b2, 3)?;
            ctx.synchronize_timeout(Duration::from_secs(10))?;
            for stream in &streams {
                assert!(stream.is_complete()?);
            }
            Ok(())
        })?;
        for (i, buf) in buffers.iter().enumerate() {
            let mut back = vec![0u8; buf.len()];
            ctx.copy(buf, &mut back)?;
            assert!(back.iter().all(|&v| v == i as u8 + 1), "buffer {i}");
        }
        device.synchronize()
    }
    match acl.detect() {
        Detected::Host(rt) => run(rt),
        Detected::Device(rt) => run(rt),
    }
}

fn ex11_multithreaded(acl: &Acl) -> Result<()> {
    fn roundtrip<'id, M: RunMode>(
        ctx: &Context<'_, 'id, M>,
        stream: &Stream<'_, 'id>,
        seed: u32,
    ) -> Result<()> {
        let data: Vec<u32> = (0..100).map(|i| i * seed).collect();
        let src = ctx.alloc_host_from(&data)?;
        let mut on_device = ctx.alloc::<u32>(data.len())?;
        let mut back = ctx.alloc_host_zeroed::<u32>(data.len())?;
        ctx.scope(|s| {
            make_guard!(l);
            let lane = s.lane(stream, l);
            let d = lane.copy(&src, &mut on_device)?;
            let out = lane.copy(&d, &mut back)?.wait()?;
            assert_eq!(out.to_vec(), data);
            Ok(())
        })
    }
    fn run<M: RunMode>(rt: Runtime<'_, M>) -> Result<()> {
        let device = rt.device(0)?;
        let device1 = rt.device(1.min(rt.acl().device_count()? - 1))?;
        std::thread::scope(|t| {
            let handles: Vec<_> = [&device, &device1, &device]
                .into_iter()
                .enumerate()
                .map(|(i, dev)| {
                    t.spawn(move || -> Result<()> {
                        make_guard!(g);
                        let ctx = dev.create_context(g)?;
                        let stream = ctx.create_stream()?;
                        let src = ctx.alloc_host_from(&[i as u16; 64])?;
                        let mut d = ctx.alloc::<u16>(64)?;
                        let mut out = ctx.alloc_host_zeroed::<u16>(64)?;
                        ctx.scope(|s| {
                            make_guard!(l);
                            let lane = s.lane(&stream, l);
                            let d = lane.copy(&src, &mut d)?;
                            let o = lane.copy(&d, &mut out)?.wait()?;
                            assert!(o.iter().all(|v| v == i as u16));
                            Ok(())
                        })
                    })
                })
                .collect();
            // Join every thread before reporting the first error.
            let results: Vec<_> = handles
                .into_iter()
                .map(|h| h.join().expect("thread panicked"))
                .collect();
            results.into_iter().collect::<Result<()>>()
        })?;
        make_guard!(g);
        let shared = device.create_context(g)?;
        std::thread::scope(|t| {
            let handles: Vec<_> = (1..=3)
                .map(|seed| {
                    let ctx = &shared;
                    t.spawn(move || -> Result<()> {
                        let stream = ctx.create_stream()?;
                        roundtrip(ctx, &stream, seed)
                    })
                })
                .collect();
            let results: Vec<_> = handles
                .into_iter()
                .map(|h| h.join().expect("thread panicked"))
                .collect();
            results.into_iter().collect::<Result<()>>()
        })?;
        let stream = shared.create_stream()?;
        std::thread::scope(|t| {
            t.spawn(|| roundtrip(&shared, &stream, 7))
                .join()
                .expect("thread panicked")
        })?;
        stream.synchronize()
    }
    match acl.detect() {
        Detected::Host(rt) => run(rt),
        Detected::Device(rt) => run(rt),
    }
}

/// `12_error_handling` (host run mode only, like the example). The expected
/// errors are checked with [`expect_err`], which passes an injected fault on.
/// Unlike the example it does not call `sim::clear_faults()` at the end (that
/// would cancel the sweep's fault): it resets the stream delay instead.
fn ex12_error_handling(acl: &Acl) -> Result<()> {
    let second = Acl::init().unwrap_err();
    assert_eq!(second, Error::AlreadyInitialized);
    let rt = match acl.require::<HostMode>() {
        Ok(rt) => rt,
        Err(e) => {
            assert!(matches!(e, Error::WrongRunMode { .. }));
            return Ok(());
        }
    };
    assert!(rt.device(99).is_err());
    let device = rt.device(0)?;
    make_guard!(g);
    let ctx = device.create_context(g)?;

    sim::inject_fault("aclrtMalloc", 1, aclrt::sys::ACL_ERROR_RT_MEMORY_ALLOCATION);
    expect_err(ctx.alloc::<f32>(1024), |e| {
        e.kind() == ErrorKind::OutOfMemory && e.function() == Some("aclrtMalloc")
    })?;
    expect_err(ctx.alloc::<f32>(0), |e| {
        matches!(e, Error::InvalidAllocationSize { .. })
    })?;
    let mut small = ctx.alloc::<f32>(2)?;
    expect_err(ctx.copy(&[1.0f32, 2.0, 3.0], &mut small), |e| {
        matches!(e, Error::LengthMismatch { .. })
    })?;

    let stream = ctx.create_stream()?;
    let src = ctx.alloc_host_from(&[1.0f32, 2.0])?;
    sim::inject_task_fault(1, aclrt::sys::ACL_ERROR_RT_AICORE_EXCEPTION);
    expect_err(
        ctx.scope(|s| {
            make_guard!(l);
            let lane = s.lane(&stream, l);
            lane.copy(&src, &mut small)?.wait()?;
            Ok(())
        }),
        |e| {
            e.kind() == ErrorKind::DeviceFault
                && e.code() == Some(aclrt::sys::ACL_ERROR_RT_AICORE_EXCEPTION)
        },
    )?;

    sim::set_stream_delay(stream.as_raw(), Duration::from_millis(30));
    expect_err(
        ctx.scope(|s| {
            make_guard!(l);
            let lane = s.lane(&stream, l);
            let _x = lane.memset(&mut small, 0)?;
            stream.synchronize_timeout(Duration::from_millis(2))
        }),
        Error::is_timeout,
    )?;
    sim::set_stream_delay(stream.as_raw(), Duration::ZERO);
    drop(src);
    drop(small);
    drop(stream);
    drop(ctx);
    drop(device);
    Ok(())
}

fn tour(acl: &Acl) -> Result<()> {
    fn run<M: RunMode>(rt: Runtime<'_, M>) -> Result<()> {
        let device = rt.device(0)?;
        make_guard!(guard);
        let ctx = device.create_context(guard)?;
        let n = 1 << 10;
        let input = ctx.alloc_host_from(&(0..n).map(|i| i as f32).collect::<Vec<_>>())?;
        let mut on_device = ctx.alloc::<f32>(n)?;
        let mut result = ctx.alloc_host_zeroed::<f32>(n)?;
        ctx.copy(&input, &mut on_device)?;
        let upload = ctx.create_stream()?;
        let compute = ctx.create_stream()?;
        let start = upload.record(ctx.create_event()?)?;
        let end = ctx.create_event()?;
        let elapsed = ctx.scope(|s| {
            make_guard!(a);
            make_guard!(b);
            let up = s.lane(&upload, a);
            let work = s.lane(&compute, b);
            let staged = up.copy(&input, &mut on_device)?;
            let staged = work.wait_for(up.signal(staged)?)?;
            let out = work.copy(&staged, &mut result)?;
            let out = work.host_fn_with(out, |v| v.update_all(|x| x * 2.0 + 1.0))?;
            let end = work.record(end)?;
            let out = out.wait()?;
            assert!(
                out.iter()
                    .enumerate()
                    .all(|(i, x)| x == i as f32 * 2.0 + 1.0)
            );
            end.synchronize()?;
            end.elapsed_since(&start)
        })?;
        assert!(elapsed >= 0.0);
        expect_err(ctx.copy(&[1.0f32; 3], &mut on_device), |e| {
            matches!(e, Error::LengthMismatch { .. })
        })?;
        drop((start, input, on_device, result));
        upload.destroy()?;
        compute.destroy()?;
        ctx.destroy()?;
        device.reset()
    }
    let _ = acl.device_count()?;
    let _ = acl.soc_name();
    match acl.detect() {
        Detected::Host(rt) => run(rt),
        Detected::Device(rt) => run(rt),
    }
}

// ------------------------------------------------------------------ the sweep

/// Functions that return pointers: an injected fault there does nothing.
const NOT_INJECTABLE: &[&str] = &["aclGetRecentErrMsg", "aclrtGetSocName"];

/// Calls whose injected failure the library may absorb (the flow then
/// returns `Ok`, with correct data: the flows check their results), and why.
const ABSORBED: &[(&str, &str)] = &[
    (
        "aclrtFree",
        "device memory released by Drop, which cannot report; the buffer leaks",
    ),
    (
        "aclrtFreeHost",
        "pinned host memory released by Drop, which cannot report; the buffer leaks",
    ),
    (
        "aclrtDestroyStream",
        "a stream destroyed by Drop, which cannot report; the stream leaks",
    ),
    (
        "aclrtDestroyEvent",
        "a user event destroyed by Drop, which cannot report; the event leaks",
    ),
    (
        "aclrtDestroyContext",
        "a context destroyed by Drop, which cannot report; the context leaks",
    ),
    (
        "aclrtResetDevice",
        "a device reset by Drop, which cannot report; the device leaks",
    ),
    (
        "aclrtSynchronizeEvent",
        "the drop of a recorded event synchronises it first; a failure is ignored \
         and the event is destroyed anyway",
    ),
    (
        "aclrtSetCurrentContext",
        "courtesy re-binds (`let _ = make_current(..)`) in `Scope` finish and \
         `InFlight::wait`: the stream synchronisation that follows does not need it",
    ),
];

/// Release calls: a refused one leaks the resource it should have released.
fn released_kind(function: &str) -> Option<ResourceKind> {
    Some(match function {
        "aclrtFree" => ResourceKind::DeviceMemory,
        "aclrtFreeHost" => ResourceKind::HostMemory,
        "aclrtDestroyStream" => ResourceKind::Stream,
        "aclrtDestroyEvent" => ResourceKind::Event,
        "aclrtDestroyContext" => ResourceKind::Context,
        "aclrtResetDevice" => ResourceKind::Device,
        _ => return None,
    })
}

/// When a release was refused, the parents of the leaked resource stay
/// alive too: their releases refuse (`Error::LiveChildren`).
fn parent_kinds(kind: ResourceKind) -> &'static [ResourceKind] {
    use ResourceKind as R;
    match kind {
        R::DeviceMemory | R::HostMemory | R::Stream | R::Event => &[R::Context, R::Device],
        R::Context => &[R::Device],
        R::Device => &[],
    }
}

fn code_for(function: &str) -> i32 {
    if function.starts_with("aclrtMalloc") {
        207001
    } else {
        507899
    }
}

#[derive(Default, Debug)]
struct Tally {
    calls: usize,
    err_as_expected: usize,
    /// A release refused in `Drop`, reported by the parent's release.
    refused_release_reported_by_parent: usize,
    absorbed: std::collections::BTreeMap<&'static str, usize>,
    leaked_after_refused_release: usize,
    not_injectable: usize,
    by_design: usize,
}

/// Calls of a flow whose failure is part of the flow's own script.
fn by_design(flow: &str, function: &str, nth: u64) -> Option<&'static str> {
    match (flow, function, nth) {
        ("12_error_handling", "aclrtMalloc", 1) => Some(
            "the example injects this very failure itself (`inject_fault(\"aclrtMalloc\", 1, ..)`) \
             and expects it",
        ),
        ("12_error_handling", "aclrtSynchronizeStream", 2 | 3) => Some(
            "the final synchronisation of a scope whose body already returned an error (the \
             device fault, the timeout): the scope reports the body's error, the first one, \
             and the retry of the synchronisation succeeds",
        ),
        _ => None,
    }
}

/// What went wrong with one injected failure (empty: as expected).
fn check_outcome(
    function: &'static str,
    code: i32,
    outcome: &std::thread::Result<Result<()>>,
    audit: &sim::Audit,
    tally: &mut Tally,
) -> Vec<String> {
    let mut anomalies = Vec::new();
    let refused = released_kind(function);
    match outcome {
        Err(payload) => anomalies.push(format!("panicked: {}", panic_message(&**payload))),
        Ok(Err(e)) if e.function() == Some(function) => {
            tally.err_as_expected += 1;
            if e.code() != Some(code) {
                anomalies.push(format!("error carries code {:?}, not {code}", e.code()));
            }
        }
        Ok(Err(e))
            if refused.is_some()
                && e.kind() == ErrorKind::ReleaseFailed
                && matches!(
                    e.function(),
                    Some("aclrtDestroyContext" | "aclrtResetDevice" | "aclFinalize")
                ) =>
        {
            // `Drop` could not report the refusal; the parent's explicit
            // release (`destroy`, `reset`, `finalize`) reports the leftover.
            tally.refused_release_reported_by_parent += 1;
        }
        Ok(Err(e)) => anomalies.push(format!("returned an error of another call: {e}")),
        Ok(Ok(())) => {
            if ABSORBED.iter().any(|(f, _)| *f == function) {
                *tally.absorbed.entry(function).or_default() += 1;
            } else {
                anomalies.push("the failure vanished (flow returned Ok)".to_owned());
            }
        }
    }
    // A refused release leaks exactly that resource; the leak keeps its
    // parents alive (their releases refuse with `Error::LiveChildren`
    // instead of breaking the runtime's rules), so the runtime stays
    // initialised holding the resource and its parents. Otherwise the
    // runtime is always finalised (an `Acl` finalises on drop), unless the
    // injected failure was that of `aclFinalize` itself.
    let alive: Vec<ResourceKind> = audit
        .live
        .iter()
        .flat_map(|(&(kind, _), &n)| std::iter::repeat_n(kind, n))
        .collect();
    match refused {
        Some(kind) if !alive.is_empty() => {
            tally.leaked_after_refused_release += 1;
            let own = alive.iter().filter(|&&k| k == kind).count();
            let others_ok = alive
                .iter()
                .all(|&k| k == kind || parent_kinds(kind).contains(&k));
            if own != 1 || !others_ok {
                anomalies.push(format!("unexpected resources alive {alive:?}"));
            }
            if !audit.initialized {
                anomalies.push("finalized with a leaked resource alive".to_owned());
            }
        }
        _ => {
            if audit.initialized && function != "aclFinalize" {
                anomalies.push("the runtime was left initialised".to_owned());
            }
            if !alive.is_empty() {
                anomalies.push(format!("resources still alive: {alive:?}"));
            }
        }
    }
    // The runtime's rules are never broken, and finalize never sees a leak.
    if !audit.violations.is_empty() {
        anomalies.push(format!("violations {:#?}", audit.violations));
    }
    if !audit.leaks.is_empty() {
        anomalies.push(format!("leaks {:#?}", audit.leaks));
    }
    anomalies
}

fn fresh(config: &SimConfig) {
    sim::reset();
    sim::configure(config.clone());
}

fn sweep(name: &str, flow: Flow, config: SimConfig) {
    let mode = config.run_mode;
    fresh(&config);
    sim::record_calls(true);
    let clean_run = drive(flow);
    sim::record_calls(false);
    let log = sim::call_log();
    clean_run.unwrap_or_else(|e| panic!("{name} ({mode:?}) fails without faults: {e}"));
    assert_clean();
    assert!(!log.is_empty());

    let mut tally = Tally {
        calls: log.len(),
        ..Tally::default()
    };
    let mut anomalies: Vec<String> = Vec::new();
    for (k, &function) in log.iter().enumerate() {
        if NOT_INJECTABLE.contains(&function) {
            tally.not_injectable += 1;
            continue;
        }
        let nth = log[..k].iter().filter(|&&f| f == function).count() as u64 + 1;
        let code = code_for(function);
        fresh(&config);
        sim::inject_fault(function, nth, code);
        let outcome = catch_unwind(AssertUnwindSafe(|| drive(flow)));
        let audit = sim::audit();
        let at = format!("{name} ({mode:?}) call #{k} {function} (occurrence {nth})");
        if let Some(reason) = by_design(name, function, nth) {
            let _ = reason;
            tally.by_design += 1;
        } else {
            let found = check_outcome(function, code, &outcome, &audit, &mut tally);
            anomalies.extend(found.into_iter().map(|a| format!("{at}: {a}")));
        }
        sim::reset();
        if !sim::audit().is_clean() {
            anomalies.push(format!("{at}: sim::reset() did not clean up"));
        }
    }
    eprintln!(
        "fault sweep {name} ({mode:?}): {} calls: {tally:?}",
        tally.calls
    );
    assert!(
        anomalies.is_empty(),
        "{} anomalies in {name} ({mode:?}):\n{}",
        anomalies.len(),
        anomalies.join("\n")
    );
}

fn sweep_both(name: &str, flow: Flow) {
    let _sim = sim::exclusive();
    sweep(name, flow, host_config());
    sweep(name, flow, device_config());
    sim::reset();
}

#[test]
fn sweep_01_device_info() {
    sweep_both("01_device_info", ex01_device_info);
}

#[test]
fn sweep_02_explicit_resources() {
    sweep_both("02_explicit_resources", ex02_explicit_resources);
}

#[test]
fn sweep_03_implicit_resources() {
    sweep_both("03_implicit_resources", ex03_implicit_resources);
}

#[test]
fn sweep_04_host_device_memory() {
    sweep_both("04_host_device_memory", ex04_host_device_memory);
}

#[test]
fn sweep_05_run_mode_transfer() {
    sweep_both("05_run_mode_transfer", ex05_run_mode_transfer);
}

#[test]
fn sweep_06_pipeline_app() {
    sweep_both("06_pipeline_app", ex06_pipeline_app);
}

#[test]
fn sweep_07_event_sync() {
    sweep_both("07_event_sync", ex07_event_sync);
}

#[test]
fn sweep_08_stream_sync() {
    sweep_both("08_stream_sync", ex08_stream_sync);
}

#[test]
fn sweep_09_two_streams_event() {
    sweep_both("09_two_streams_event", ex09_two_streams_event);
}

#[test]
fn sweep_10_device_sync() {
    sweep_both("10_device_sync", ex10_device_sync);
}

#[test]
fn sweep_11_multithreaded() {
    sweep_both("11_multithreaded", ex11_multithreaded);
}

#[test]
fn sweep_12_error_handling() {
    sweep_both("12_error_handling", ex12_error_handling);
}

#[test]
fn sweep_tour() {
    sweep_both("tour", tour);
}

// ------------------------------------------------------------------ fixed bugs (regression tests)

/// `Acl::init` calls `aclInit`, then `aclrtGetDeviceCount` and
/// `aclrtGetRunMode`; when one of those fails it returns `Err` but never
/// calls `aclFinalize`, so the runtime stays initialised (a later `Acl::init`
/// then takes the "already initialised by someone else" path).
#[test]
fn acl_init_failure_after_aclinit_finalizes() {
    let _sim = sim::exclusive();
    for function in ["aclrtGetDeviceCount", "aclrtGetRunMode"] {
        sim::reset();
        sim::inject_fault(function, 1, 507899);
        let err = Acl::init().expect_err("the injected failure is reported");
        assert_eq!(err.function(), Some(function));
        assert!(
            !sim::audit().initialized,
            "Acl::init failed in {function} but left the runtime initialised"
        );
    }
    sim::reset();
}

/// `Stream::drop` re-binds the stream's context (`aclrtSetCurrentContext`)
/// and, if that fails once, skips `aclrtDestroyStream`: the stream leaks, and
/// its context and device can no longer be released (violations
/// `ReleaseWithLiveChildren`, `ResetWithLiveResources`).
#[test]
fn stream_drop_survives_a_failed_rebind() -> Result<()> {
    let _sim = take(host_config());
    let acl = Acl::init()?;
    {
        let device = acl.require::<HostMode>()?.device(0)?;
        make_guard!(g);
        let ctx = device.create_context(g)?;
        let stream = ctx.create_stream()?;
        device.synchronize()?; // makes the default context current
        sim::inject_fault("aclrtSetCurrentContext", 1, 507899);
        drop(stream);
        assert_eq!(
            live(&sim::audit(), ResourceKind::Stream),
            0,
            "the stream leaked"
        );
    }
    acl.finalize()?;
    assert_clean();
    Ok(())
}
