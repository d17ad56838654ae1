//! A small flow on the simulator through the published API only: init,
//! device, context, stream, allocation, copies in a scope, explicit release,
//! finalize, and a clean simulator audit.

use aclrt::{Acl, HostMode, make_guard};

fn flow(acl: &Acl) -> aclrt::Result<()> {
    let device = acl.require::<HostMode>()?.device(0)?; // aclrtSetDevice
    make_guard!(guard);
    let ctx = device.create_context(guard)?; // aclrtCreateContext
    let stream = ctx.create_stream()?; // aclrtCreateStream
    let data: Vec<f32> = (0..1024).map(|i| i as f32 * 0.5).collect();
    let input = ctx.alloc_host_from(&data)?; // aclrtMallocHost
    let mut on_device = ctx.alloc::<f32>(data.len())?; // aclrtMalloc
    let mut output = ctx.alloc_host_zeroed::<f32>(data.len())?;
    ctx.scope(|s| {
        make_guard!(l);
        let lane = s.lane(&stream, l);
        let d = lane.copy(&input, &mut on_device)?; // aclrtMemcpyAsync H2D
        let out = lane.copy(&d, &mut output)?.wait()?; // D2H + synchronize
        assert_eq!(out.as_slice(), data.as_slice());
        Ok(())
    })?;
    on_device.free()?; // aclrtFree
    input.free()?; // aclrtFreeHost
    output.free()?;
    stream.destroy()?; // aclrtDestroyStream
    ctx.destroy()?; // aclrtDestroyContext
    device.reset()?; // aclrtResetDevice
    Ok(())
}

fn main() -> aclrt::Result<()> {
    let acl = Acl::init()?; // aclInit
    flow(&acl)?;
    acl.finalize()?; // aclFinalize
    let audit = aclrt::sim::audit();
    audit.assert_clean();
    println!(
        "downstream: packaged aclrt on the simulator: OK (audit clean: {}; header {})",
        audit.is_clean(),
        env!("ACLRT_DOWNSTREAM_HEADER")
    );
    Ok(())
}
