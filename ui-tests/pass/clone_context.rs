// Right way: share one context by reference (`&Context`); it is `Sync`, so even threads can share it.
// Why it compiles: borrowing does not duplicate ownership; the one owned `Context` is destroyed exactly once.
// Enforced by: `Context` is neither `Clone` nor `Copy`.
use aclrt::{Acl, Context, HostMode, make_guard};

fn fill<'id>(ctx: &Context<'_, 'id, HostMode>, value: u32) -> Result<Vec<u32>, aclrt::Error> {
    let buffer = ctx.alloc_from(&[value; 4])?;
    let mut back = vec![0u32; 4];
    ctx.download(&buffer, &mut back)?;
    Ok(back)
}

fn main() -> Result<(), aclrt::Error> {
    let acl = Acl::init()?;
    let device = acl.require::<HostMode>()?.device(0)?;
    make_guard!(guard);
    let ctx = device.create_context(guard)?;
    let shared = &ctx;
    assert_eq!(fill(shared, 1)?, [1; 4]);
    assert_eq!(fill(&ctx, 2)?, [2; 4]);
    ctx.destroy()?;
    device.reset()?;
    acl.finalize()?;
    aclrt::sim::audit().assert_clean();
    Ok(())
}
