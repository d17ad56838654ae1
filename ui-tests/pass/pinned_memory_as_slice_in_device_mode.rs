// Right way: `as_slice()` in host run mode, where pinned memory is ordinary host RAM; code generic over the run mode uses the element API (`to_vec`, `copy_to_slice`, `[i]`) instead.
// Why it compiles: `HostBuffer::as_slice` requires `M: PageableRunMode`, which `HostMode` implements; `copy_to_slice` and `to_vec` exist for every `M: RunMode`.
// Enforced by: the `PageableRunMode` bound of `as_slice` / `as_mut_slice`.
use aclrt::{Acl, Context, HostMode, RunMode, make_guard};

/// Works in both run modes: no `&[T]` of pinned memory.
fn sum<M: RunMode>(ctx: &Context<'_, '_, M>, data: &[f32]) -> Result<f32, aclrt::Error> {
    let pinned = ctx.alloc_host_from(data)?;
    let mut out = vec![0.0f32; pinned.len()];
    pinned.copy_to_slice(&mut out);
    Ok(out.iter().sum())
}

fn main() -> Result<(), aclrt::Error> {
    let acl = Acl::init()?;
    let rt = acl.require::<HostMode>()?;
    let device0 = rt.device(0)?;
    let device1 = rt.device(1)?;
    make_guard!(guard_a);
    make_guard!(guard_b);
    let ctx_a = device0.create_context(guard_a)?;
    let ctx_b = device1.create_context(guard_b)?;
    let pinned_a = ctx_a.alloc_host_from(&[1.5f32; 8])?;
    let mut dev_b = ctx_b.alloc::<f32>(8)?;
    // Host run mode: a plain slice of pinned memory is harmless pageable memory.
    ctx_b.copy(pinned_a.as_slice(), &mut dev_b)?;
    let mut back = [0.0f32; 8];
    ctx_b.copy(&dev_b, &mut back)?;
    assert_eq!(back, [1.5; 8]);
    assert_eq!(sum(&ctx_a, &back)?, 12.0);
    dev_b.free()?;
    pinned_a.free()?;
    ctx_b.destroy()?;
    ctx_a.destroy()?;
    device1.reset()?;
    device0.reset()?;
    acl.finalize()?;
    aclrt::sim::audit().assert_clean();
    Ok(())
}
