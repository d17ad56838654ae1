// Right way: copy between host buffers synchronously (`Context::copy` or the slices themselves).
// Why it compiles: a synchronous host-to-host copy (`aclrtMemcpy`, ACL_MEMCPY_HOST_TO_HOST) is supported.
// Enforced by: `Lane::copy` rejects HOST_TO_HOST at compile time; `Context::copy` accepts it.
use aclrt::{Acl, HostMode, make_guard};

fn main() -> aclrt::Result<()> {
    let acl = Acl::init()?;
    {
        let device = acl.require::<HostMode>()?.device(0)?;
        make_guard!(guard);
        let ctx = device.create_context(guard)?;
        let a = ctx.alloc_host_from(&[1u8, 2, 3])?;
        let mut b = ctx.alloc_host_zeroed::<u8>(3)?;
        ctx.copy(&a, &mut b)?; // aclrtMemcpy HOST_TO_HOST
        assert_eq!(b.as_slice(), [1, 2, 3]);
        b.copy_from_slice(&[4, 5, 6]); // or plain Rust
        assert_eq!(b.as_slice(), [4, 5, 6]);
    }
    acl.finalize()?;
    aclrt::sim::audit().assert_clean();
    Ok(())
}
