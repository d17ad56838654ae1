// Misuse: nest two `Device::with_context` calls and copy a buffer of the outer context with the inner one.
// Why it must not compile: the inner context's `aclrtMemcpy` would run with the wrong context current, on memory it does not own.
// Enforced by: each `with_context` gives its closure a fresh higher-ranked brand `'id`; `Context::copy` needs both operands of its own brand.
use aclrt::{Acl, HostMode};

fn main() -> aclrt::Result<()> {
    let acl = Acl::init()?;
    let device = acl.require::<HostMode>()?.device(0)?;
    device.with_context(|outer| -> aclrt::Result<()> {
        let src = outer.alloc_from(&[1u32, 2])?;
        device.with_context(|inner| -> aclrt::Result<()> {
            let mut dst = inner.alloc::<u32>(2)?;
            inner.copy(&src, &mut dst)
        })?
    })??;
    Ok(())
}
