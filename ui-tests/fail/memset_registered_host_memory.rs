// Misuse: `aclrtMemset` on registered host memory (`aclrtHostRegister`).
// Why it must not compile: registration makes user memory a copy operand, but the runtime documents a memset of host memory it did not allocate as undefined behaviour.
// Enforced by: `Context::memset` needs `RuntimeMemory`, which `HostRegistration` does not implement (it is only `PinnedMemory`).
use aclrt::{Acl, HostMode, PageAlignedBuf, make_guard};

fn main() -> aclrt::Result<()> {
    let acl = Acl::init()?;
    let device = acl.require::<HostMode>()?.device(0)?;
    make_guard!(guard);
    let ctx = device.default_context(guard);
    let mut user = PageAlignedBuf::<u8>::zeroed(4096)?;
    let mut reg = ctx.register_host(&mut user)?;
    ctx.memset(&mut reg, 0)?;
    Ok(())
}
