// Right way: link elements by index instead of by pointer, derive `bytemuck::Pod`, then implement `DeviceRepr`.
// Why it compiles: a `#[repr(C)]` struct of numbers without padding is `Pod`, `Send` and `Sync`.
// Enforced by: the supertraits `bytemuck::Pod + Send + Sync` of `DeviceRepr`.
use aclrt::{Acl, DeviceRepr, HostMode, make_guard};
use bytemuck::{Pod, Zeroable};

/// A list node whose successor is an index into the same buffer (`u32::MAX`: none).
#[derive(Clone, Copy, Debug, PartialEq, Pod, Zeroable)]
#[repr(C)]
struct Node {
    value: f32,
    next: u32,
}

impl DeviceRepr for Node {}

fn main() -> Result<(), aclrt::Error> {
    let acl = Acl::init()?;
    let device = acl.require::<HostMode>()?.device(0)?;
    make_guard!(guard);
    let ctx = device.create_context(guard)?;
    let list = [
        Node {
            value: 1.0,
            next: 1,
        },
        Node {
            value: 2.0,
            next: u32::MAX,
        },
    ];
    let nodes = ctx.alloc_from(&list)?;
    let mut back = [Node::zeroed(); 2];
    ctx.download(&nodes, &mut back)?;
    assert_eq!(back, list);
    nodes.free()?;
    ctx.destroy()?;
    device.reset()?;
    acl.finalize()?;
    aclrt::sim::audit().assert_clean();
    Ok(())
}
