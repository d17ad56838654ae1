// Misuse: declare a struct holding a raw pointer as a device element type.
// Why it must not compile: a host pointer copied to the NPU is meaningless there, and pointers are not plain data (not `Pod`, not `Send`/`Sync`).
// Enforced by: `DeviceRepr` has the supertraits `bytemuck::Pod + Send + Sync`, which a struct with a raw pointer cannot satisfy.
use aclrt::{Acl, DeviceRepr, HostMode, make_guard};

#[derive(Clone, Copy)]
#[repr(C)]
struct Node {
    value: f32,
    next: *const Node,
}

impl DeviceRepr for Node {}

fn main() -> Result<(), aclrt::Error> {
    let acl = Acl::init()?;
    let device = acl.require::<HostMode>()?.device(0)?;
    make_guard!(guard);
    let ctx = device.create_context(guard)?;
    let end = Node {
        value: 1.0,
        next: core::ptr::null(),
    };
    let nodes = ctx.alloc_from(&[end])?;
    nodes.free()?;
    Ok(())
}
