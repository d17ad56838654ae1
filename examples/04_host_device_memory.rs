//! Host and device memory with a compute step on the stream: both host memory
//! kinds (pageable `Vec` and pinned `HostBuffer`) go to the device, an
//! element-wise add runs as a host function in stream order, and the result
//! comes back (`aclrtMallocHost`, `aclrtMalloc`, `aclrtMemcpyAsync`,
//! `aclrtLaunchHostFunc`, `aclrtMemcpy`).

use aclrt::{Acl, Detected, RunMode, Runtime, make_guard};

const N: usize = 1024;

fn run<M: RunMode>(rt: Runtime<'_, M>) -> aclrt::Result<()> {
    let device = rt.device(0)?;
    make_guard!(guard);
    let ctx = device.create_context(guard)?;
    let stream = ctx.create_stream()?;

    // Pageable input: only synchronous copies may read it.
    let a: Vec<f32> = (0..N).map(|i| i as f32).collect();
    let mut dev_a = ctx.alloc::<f32>(N)?;
    ctx.copy(&a, &mut dev_a)?; // aclrtMemcpy (kind derived: H2D on a host, D2D on a device)

    // Pinned input and output: asynchronous copies may use them.
    let b = ctx.alloc_host_from(&(0..N).map(|i| 2.0 * i as f32).collect::<Vec<_>>())?;
    let mut dev_b = ctx.alloc::<f32>(N)?;
    let mut sum = ctx.alloc_host_zeroed::<f32>(N)?;
    let mut scratch = ctx.alloc_host_zeroed::<f32>(N)?;

    ctx.scope(|s| {
        make_guard!(l);
        let lane = s.lane(&stream, l);
        let dev_b = lane.copy(&b, &mut dev_b)?; // H2D, async
        let a_back = lane.copy(&dev_a, &mut scratch)?; // D2H, async
        let b_back = lane.copy(&dev_b, &mut sum)?; // D2H, async
        // The compute step runs on the stream after both copies.
        let a_back = a_back.wait()?;
        let a_host: Vec<f32> = a_back.to_vec();
        // `out` is pinned memory of this context (`PinnedSlice`): elements
        // go in and out by value, in both run modes.
        let sum = lane.host_fn_with(b_back, move |out| {
            let mut a = a_host.into_iter();
            out.update_all(|o| o + a.next().unwrap_or_default());
        })?;
        let sum = sum.wait()?;
        for (i, v) in sum.iter().enumerate() {
            assert_eq!(v, 3.0 * i as f32, "element {i}");
        }
        Ok(())
    })?;
    println!("sum[0..4] = {:?}", &sum[..4]);
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
    println!("04_host_device_memory: OK");
    Ok(())
}
