// Misuse: queue an asynchronous copy between two pinned host buffers in host run mode (`aclrtMemcpyAsync` with ACL_MEMCPY_HOST_TO_HOST).
// Why it must not compile: the runtime refuses asynchronous host-to-host copies on a host (207000), so the call could only fail.
// Enforced by: `Lane::copy` computes the memcpy kind at compile time and rejects HOST_TO_HOST in a `const` assertion.
use aclrt::{Acl, HostMode, make_guard};

fn main() -> aclrt::Result<()> {
    let acl = Acl::init()?;
    let device = acl.require::<HostMode>()?.device(0)?;
    make_guard!(guard);
    let ctx = device.create_context(guard)?;
    let stream = ctx.create_stream()?;
    let a = ctx.alloc_host_from(&[1u8, 2, 3])?;
    let mut b = ctx.alloc_host_zeroed::<u8>(3)?;
    ctx.scope(|s| {
        make_guard!(l);
        let lane = s.lane(&stream, l);
        let _b = lane.copy(&a, &mut b)?;
        Ok(())
    })?;
    Ok(())
}
