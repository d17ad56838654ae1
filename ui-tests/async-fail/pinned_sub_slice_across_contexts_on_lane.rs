// Misuse: use a part (`split_at`) of pinned memory of context A (device 0) as the source of an async copy on a lane of context B (device 1), in device run mode.
// Why it must not compile: the part is still pinned memory of context A (in device run mode, device memory of device 0); B's stream would read it across contexts and devices, without peer access.
// Enforced by: `split_at` returns `&PinnedSlice<'a, T, M>`, which keeps A's brand: `AsyncSource` for `&'scope S` needs `S: PinnedMemory<'id>` with the lane's brand.
use aclrt::{Acl, DeviceMode, make_guard};

fn main() -> aclrt::Result<()> {
    let acl = Acl::init()?;
    let rt = acl.require::<DeviceMode>()?;
    let device0 = rt.device(0)?;
    let device1 = rt.device(1)?;
    make_guard!(ga);
    make_guard!(gb);
    let ctx_a = device0.create_context(ga)?;
    let ctx_b = device1.create_context(gb)?;
    let stream_b = ctx_b.create_stream()?;
    let input_a = ctx_a.alloc_host_from(&[1u32; 8])?;
    let mut on_device_b = ctx_b.alloc::<u32>(4)?;
    ctx_b.scope(|s| {
        make_guard!(l);
        let lane = s.lane(&stream_b, l);
        let (first, _) = input_a.split_at(4);
        let _d = lane.copy(first, &mut on_device_b)?; // a part of context A's memory
        Ok(())
    })?;
    Ok(())
}
