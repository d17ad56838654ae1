// Right way: parts of pinned memory (`split_at`, `split_at_mut`) are async copy operands on lanes of their own context; data for another device goes through that device's own pinned memory.
// Why it compiles: a part of a `HostBuffer` is a `PinnedSlice<'id, T, M>` with the buffer's brand, so it is `PinnedMemory<'id>` of its own context, like the whole buffer.
// Enforced by: the brand `'id` of `PinnedSlice`, checked by `AsyncSource` / `AsyncDest<'scope, 'id, 'sid>`.
use aclrt::sim::{RunMode, SimConfig};
use aclrt::{Acl, DeviceMode, make_guard};

fn main() -> aclrt::Result<()> {
    aclrt::sim::configure(SimConfig {
        run_mode: RunMode::Device,
        ..SimConfig::from_env()
    });
    let acl = Acl::init()?;
    {
        let rt = acl.require::<DeviceMode>()?;
        let device0 = rt.device(0)?;
        let device1 = rt.device(1)?;
        make_guard!(ga);
        make_guard!(gb);
        let ctx_a = device0.create_context(ga)?;
        let ctx_b = device1.create_context(gb)?;
        let stream_a1 = ctx_a.create_stream()?;
        let stream_a2 = ctx_a.create_stream()?;
        let stream_b = ctx_b.create_stream()?;
        let input_a = ctx_a.alloc_host_from(&[1u32, 2, 3, 4, 5, 6, 7, 8])?;
        let mut output_a = ctx_a.alloc_host_zeroed::<u32>(8)?;
        let mut first_a = ctx_a.alloc::<u32>(4)?;
        let mut second_a = ctx_a.alloc::<u32>(4)?;
        // Each half on its own lane of context A; the halves swap places.
        ctx_a.scope(|s| {
            make_guard!(l1);
            make_guard!(l2);
            let lane1 = s.lane(&stream_a1, l1);
            let lane2 = s.lane(&stream_a2, l2);
            let (first, second) = input_a.split_at(4);
            let (out_first, out_second) = output_a.split_at_mut(4);
            let d1 = lane1.copy(first, &mut first_a)?;
            let d2 = lane2.copy(second, &mut second_a)?;
            let o1 = lane1.copy(&d1, out_second)?;
            let o2 = lane2.copy(&d2, out_first)?;
            assert_eq!(*o1.wait()?, [1, 2, 3, 4]);
            assert_eq!(*o2.wait()?, [5, 6, 7, 8]);
            Ok(())
        })?;
        assert_eq!(*output_a, [5, 6, 7, 8, 1, 2, 3, 4]);
        // For device 1: pinned memory of context B, filled by the CPU.
        let input_b = ctx_b.alloc_host_from(&output_a.to_vec())?;
        let mut on_device_b = ctx_b.alloc::<u32>(4)?;
        ctx_b.scope(|s| {
            make_guard!(l);
            let lane = s.lane(&stream_b, l);
            let (first, _) = input_b.split_at(4);
            let _d = lane.copy(first, &mut on_device_b)?;
            Ok(())
        })?;
        let mut back = [0u32; 4];
        ctx_b.copy(&on_device_b, &mut back)?;
        assert_eq!(back, [5, 6, 7, 8]);
    }
    acl.finalize()?;
    aclrt::sim::audit().assert_clean();
    Ok(())
}
