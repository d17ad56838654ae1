//! The seed flow of device memory, end to end: two tensors host → device, a
//! vector add on the device, the result device → host, compared with the
//! CPU's answer, and a clean simulator audit.
//!
//! The kernel is the simulator's stand-in for device code (registered with
//! `aclrt::sim::register_kernel`, packed into a simulator binary with
//! `aclrt::sim::binary_image`); with the `system` backend the same flow
//! loads an Ascend C object with `Context::load_binary_file` (see the
//! `aclrt::kernel` docs for what is assumed of it). Declaring the kernel's
//! signature is the one `unsafe` step; the launch is as safe as a copy.
//!
//! The flow is generic over the run mode: on a host (ACL_HOST) the inputs go
//! through pinned host memory and async host-to-device copies; on the device
//! (ACL_DEVICE) the same code compiles to device-to-device copies.
//!
//! `cargo run --example 14_vector_add` and
//! `ACLRT_SIM_RUN_MODE=device cargo run --example 14_vector_add`.

use aclrt::kernel::{Count, In, LaunchConfig, Out};
use aclrt::{Acl, Detected, RunMode, Runtime, make_guard};

aclrt::sim_only! {
    /// The device code of `vector_add` on the simulator: block `k` of `nb`
    /// computes `z[i] = x[i] + y[i]` for every `i < n` with `i % nb == k`.
    fn register_device_code() {
        aclrt::sim::register_kernel("vector_add", |block, blocks, args| {
            let (x, y, z, n) = (args.u64(0)?, args.u64(1)?, args.u64(2)?, args.u64(3)?);
            let mut i = block as usize;
            while i < n as usize {
                args.write_f32(z, i, args.read_f32(x, i)? + args.read_f32(y, i)?)?;
                i += blocks as usize;
            }
            Ok(())
        });
    }
}

aclrt::sim_only! {
    /// The binary holding `vector_add`.
    fn device_binary() -> Vec<u8> {
        register_device_code();
        aclrt::sim::binary_image(&["vector_add"])
    }
}

aclrt::not_sim! {
    fn device_binary() -> Vec<u8> {
        // With real hardware: an AI Core object built by the Ascend C toolchain.
        std::fs::read(std::env::var("VECTOR_ADD_BIN").expect("set VECTOR_ADD_BIN to the kernel object"))
            .expect("reading the kernel object")
    }
}

fn vector_add<M: RunMode>(rt: Runtime<'_, M>) -> aclrt::Result<()> {
    const N: usize = 8 * 1024;
    let x: Vec<f32> = (0..N).map(|i| i as f32 * 0.5).collect();
    let y: Vec<f32> = (0..N).map(|i| 1000.0 - i as f32).collect();

    let device = rt.device(0)?;
    make_guard!(guard);
    let ctx = device.create_context(guard)?;
    let stream = ctx.create_stream()?;
    let binary = ctx.load_binary(&device_binary())?;
    // SAFETY: `vector_add` reads x and y, writes z, each at indices below n
    // and nothing else (see `register_device_code`).
    let add = unsafe { binary.kernel::<(In<f32>, In<f32>, Out<f32>, Count)>(c"vector_add")? };

    let host_x = ctx.alloc_host_from(&x)?; // aclrtMallocHost
    let host_y = ctx.alloc_host_from(&y)?;
    let mut host_z = ctx.alloc_host_zeroed::<f32>(N)?;
    let mut dev_x = ctx.alloc::<f32>(N)?; // aclrtMalloc
    let mut dev_y = ctx.alloc::<f32>(N)?;
    let mut dev_z = ctx.alloc::<f32>(N)?;

    ctx.scope(|s| {
        make_guard!(l);
        let lane = s.lane(&stream, l);
        let dx = lane.copy(&host_x, &mut dev_x)?; // host → device
        let dy = lane.copy(&host_y, &mut dev_y)?;
        let (_, _, dz, _) =
            lane.launch(&add, LaunchConfig::blocks(8), (&dx, &dy, &mut dev_z, N))?;
        let z = lane.copy(&dz, &mut host_z)?; // device → host
        z.wait()?;
        Ok(())
    })?;

    let expected: Vec<f32> = x.iter().zip(&y).map(|(a, b)| a + b).collect();
    assert_eq!(
        host_z.to_vec(),
        expected,
        "device result differs from the CPU's"
    );
    println!(
        "run mode {:?}: {N} elements added on the device in 8 blocks, result matches",
        M::KIND
    );
    binary.unload()?; // after the scope: no launch is pending
    Ok(())
}

/// The example between `Acl::init` and `finalize`. `tests/failure_rule/sweep.rs`
/// runs it too, with each of its C calls made to fail once.
pub fn flow(acl: &Acl) -> aclrt::Result<()> {
    match acl.detect() {
        Detected::Host(rt) => vector_add(rt),
        Detected::Device(rt) => vector_add(rt),
    }
}

fn main() -> aclrt::Result<()> {
    let acl = Acl::init()?;
    flow(&acl)?;
    acl.finalize()?;
    aclrt::sim_only! { aclrt::sim::audit().assert_clean(); }
    println!("14_vector_add: OK");
    Ok(())
}
