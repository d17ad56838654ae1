// Misuse: return a device buffer out of `Device::with_context`, whose context is destroyed when the closure returns.
// Why it must not compile: the buffer would outlive its context (`aclrtFree` after `aclrtDestroyContext`), and carry a brand no longer tied to anything.
// Enforced by: `with_context` takes `F: for<'ctx, 'id> FnOnce(&'ctx Context<'_, 'id, M>) -> R`: `R` cannot name the higher-ranked `'ctx`/`'id`.
use aclrt::{Acl, HostMode};

fn main() -> aclrt::Result<()> {
    let acl = Acl::init()?;
    let device = acl.require::<HostMode>()?.device(0)?;
    let buf = device.with_context(|ctx| ctx.alloc::<u8>(16))??;
    drop(buf);
    Ok(())
}
