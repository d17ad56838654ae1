// Misuse: queue an async copy (`aclrtMemcpyAsync`) whose source is a pageable slice.
// Why it must not compile: pageable memory may be swapped or moved; the runtime requires pinned (`aclrtMallocHost`) memory for async copies.
// Enforced by: `AsyncSource` is implemented for `&S` with `S: PinnedMemory` only; `[T]` is not `PinnedMemory` (E0277).
use aclrt::{Acl, HostMode, make_guard};

fn main() -> aclrt::Result<()> {
    let acl = Acl::init()?;
    let device = acl.require::<HostMode>()?.device(0)?;
    make_guard!(guard);
    let ctx = device.create_context(guard)?;
    let stream = ctx.create_stream()?;
    let input = [1u32, 2, 3, 4, 5];
    let mut on_device = ctx.alloc::<u32>(3)?;
    ctx.scope(|s| {
        make_guard!(l);
        let lane = s.lane(&stream, l);
        let _d = lane.copy(&input[1..4], &mut on_device)?;
        Ok(())
    })?;
    Ok(())
}
