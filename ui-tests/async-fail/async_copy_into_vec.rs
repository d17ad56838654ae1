// Misuse: queue an async copy (`aclrtMemcpyAsync`) whose destination is a pageable `Vec`.
// Why it must not compile: pageable memory may be swapped or moved; the runtime requires pinned (`aclrtMallocHost`) memory for async copies.
// Enforced by: `AsyncDest` is implemented for `&mut D` with `D: PinnedMemory` only; `Vec<T>` is not `PinnedMemory` (E0277).
use aclrt::{Acl, HostMode, make_guard};

fn main() -> aclrt::Result<()> {
    let acl = Acl::init()?;
    let device = acl.require::<HostMode>()?.device(0)?;
    make_guard!(guard);
    let ctx = device.create_context(guard)?;
    let stream = ctx.create_stream()?;
    let on_device = ctx.alloc_from(&[1u32, 2, 3])?;
    let mut output = vec![0u32; 3];
    ctx.scope(|s| {
        make_guard!(l);
        let lane = s.lane(&stream, l);
        let _out = lane.copy(&on_device, &mut output)?;
        Ok(())
    })?;
    Ok(())
}
