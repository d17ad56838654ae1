//! Multi-threaded patterns of the AscendCL guides:
//! 1. one context and stream per thread;
//! 2. one context shared by several threads, each with its own stream;
//! 3. a stream created in one thread and used in another.
//!
//! `Context` and `Stream` are `Send + Sync` (every call makes the right
//! context current on the calling thread, so no thread ever sees "stream not
//! in current context"); a `Scope` is not (each thread opens its own).

use aclrt::{Acl, Context, Detected, RunMode, Runtime, make_guard};

/// Copy data to the device and back asynchronously on `stream`.
fn roundtrip<'id, M: RunMode>(
    ctx: &Context<'_, 'id, M>,
    stream: &aclrt::Stream<'_, 'id>,
    seed: u32,
) -> aclrt::Result<()> {
    let data: Vec<u32> = (0..1000).map(|i| i * seed).collect();
    let src = ctx.alloc_host_from(&data)?;
    let mut on_device = ctx.alloc::<u32>(data.len())?;
    let mut back = ctx.alloc_host_zeroed::<u32>(data.len())?;
    ctx.scope(|s| {
        make_guard!(l);
        let lane = s.lane(stream, l);
        let d = lane.copy(&src, &mut on_device)?;
        let out = lane.copy(&d, &mut back)?.wait()?;
        assert_eq!(**out, data[..], "thread with seed {seed}");
        Ok(())
    })
}

fn run<M: RunMode>(rt: Runtime<'_, M>) -> aclrt::Result<()> {
    let device = rt.device(0)?;
    let device1 = rt.device(1.min(rt.acl().device_count()? - 1))?;

    // 1. One context and stream per thread.
    std::thread::scope(|t| {
        let handles: Vec<_> = [&device, &device1, &device]
            .into_iter()
            .enumerate()
            .map(|(i, dev)| {
                t.spawn(move || -> aclrt::Result<()> {
                    make_guard!(g);
                    let ctx = dev.create_context(g)?;
                    let stream = ctx.create_stream()?;
                    let src = ctx.alloc_host_from(&vec![i as u16; 512])?;
                    let mut d = ctx.alloc::<u16>(512)?;
                    let mut out = ctx.alloc_host_zeroed::<u16>(512)?;
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
        handles
            .into_iter()
            .try_for_each(|h| h.join().expect("thread panicked"))
    })?;
    println!("1. three threads, each with its own context and stream: OK");

    // 2. One context shared by threads, each with its own stream.
    make_guard!(g);
    let shared = device.create_context(g)?;
    std::thread::scope(|t| {
        let handles: Vec<_> = (1..=4)
            .map(|seed| {
                let ctx = &shared;
                t.spawn(move || -> aclrt::Result<()> {
                    let stream = ctx.create_stream()?;
                    roundtrip(ctx, &stream, seed)
                })
            })
            .collect();
        handles
            .into_iter()
            .try_for_each(|h| h.join().expect("thread panicked"))
    })?;
    println!("2. four threads sharing one context: OK");

    // 3. A stream created here, used on another thread.
    let stream = shared.create_stream()?;
    std::thread::scope(|t| {
        t.spawn(|| roundtrip(&shared, &stream, 7))
            .join()
            .expect("thread panicked")
    })?;
    stream.synchronize()?;
    println!("3. stream created on one thread, used on another: OK");
    Ok(())
}

/// The example between `Acl::init` and `finalize`. `tests/failure_rule/sweep.rs`
/// runs it too, with each of its C calls made to fail once.
pub fn flow(acl: &Acl) -> aclrt::Result<()> {
    match acl.detect() {
        Detected::Host(rt) => run(rt),
        Detected::Device(rt) => run(rt),
    }
}

fn main() -> aclrt::Result<()> {
    let acl = Acl::init()?;
    flow(&acl)?;
    acl.finalize()?;
    aclrt::sim_only! { aclrt::sim::audit().assert_clean(); }
    println!("11_multithreaded: OK");
    Ok(())
}
