// Right way: in device run mode, a host function works on its pinned buffer through the `PinnedSlice` it is given, by value (`update_all`, `get`, `to_vec`); data for another device leaves through a CPU copy (`to_vec`) or through context A's own copy.
// Why it compiles: the closure takes the `&mut PinnedSlice<'id, u32, DeviceMode>` that `host_fn_with` passes, and its by-value API hands out no reference into the memory.
// Enforced by: `Lane::host_fn_with`'s closure type; `PinnedSlice`'s element API works in every run mode.
use aclrt::sim::{RunMode, SimConfig};
use aclrt::{Acl, DeviceMode, make_guard};

fn main() -> Result<(), aclrt::Error> {
    aclrt::sim::configure(SimConfig {
        run_mode: RunMode::Device,
        ..SimConfig::from_env()
    });
    let acl = Acl::init()?;
    let rt = acl.require::<DeviceMode>()?;
    let device0 = rt.device(0)?;
    let device1 = rt.device(1)?;
    make_guard!(guard_a);
    make_guard!(guard_b);
    let ctx_a = device0.create_context(guard_a)?;
    let ctx_b = device1.create_context(guard_b)?;
    let stream = ctx_a.create_stream()?;
    let mut pinned_a = ctx_a.alloc_host_from(&[1u32, 2, 3, 4])?;
    let values = std::sync::Mutex::new(Vec::new());
    ctx_a.scope(|s| {
        make_guard!(l);
        let lane = s.lane(&stream, l);
        let values = &values;
        let x = lane.host_fn_with(&mut pinned_a, move |data| {
            data.update_all(|v| v * 10);
            *values.lock().unwrap() = data.to_vec();
        })?;
        let x = x.wait()?;
        assert_eq!(x.get(3), Some(40));
        Ok(())
    })?;
    // The CPU copy is ordinary program memory: context B may copy it.
    let values = values.into_inner().unwrap();
    let mut dev_b = ctx_b.alloc::<u32>(4)?;
    ctx_b.copy(&values, &mut dev_b)?;
    let mut back = [0u32; 4];
    ctx_b.copy(&dev_b, &mut back)?;
    assert_eq!(back, [10, 20, 30, 40]);
    dev_b.free()?;
    pinned_a.free()?;
    stream.destroy()?;
    ctx_b.destroy()?;
    ctx_a.destroy()?;
    device1.reset()?;
    device0.reset()?;
    acl.finalize()?;
    aclrt::sim::audit().assert_clean();
    Ok(())
}
