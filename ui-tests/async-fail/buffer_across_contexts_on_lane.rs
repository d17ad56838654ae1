// Misuse: use device memory of context A as the destination of an async copy on a stream of context B.
// Why it must not compile: the memory belongs to context A; the runtime checks the copy against B's context and fails (or corrupts A's memory on another device).
// Enforced by: the invariant brand `'id`: `AsyncDest<'scope, 'id, 'sid>` for `&mut D` needs `D: PinnedMemory<'id>`, and A's buffer is `PinnedMemory<'a>` only.
use aclrt::{Acl, HostMode, make_guard};

fn main() -> aclrt::Result<()> {
    let acl = Acl::init()?;
    let device = acl.require::<HostMode>()?.device(0)?;
    make_guard!(ga);
    make_guard!(gb);
    let ctx_a = device.create_context(ga)?;
    let ctx_b = device.create_context(gb)?;
    let stream_b = ctx_b.create_stream()?;
    let input_b = ctx_b.alloc_host_from(&[1u32, 2, 3])?;
    let mut on_device_a = ctx_a.alloc::<u32>(3)?;
    ctx_b.scope(|s| {
        make_guard!(l);
        let lane = s.lane(&stream_b, l);
        let _d = lane.copy(&input_b, &mut on_device_a)?; // buffer of context A
        Ok(())
    })?;
    Ok(())
}
