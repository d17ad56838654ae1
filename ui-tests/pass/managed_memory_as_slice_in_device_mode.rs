// Right way: `as_slice()` of managed memory in host run mode; code generic over the run mode uses the by-value API (`copy_from_slice`, `to_vec`, `get`, `set`) instead.
// Why it compiles: `ManagedBuffer::as_slice` requires `M: PageableRunMode`, which `HostMode` implements; the by-value API exists for every `M: RunMode`.
// Enforced by: the `PageableRunMode` bound of `ManagedBuffer::as_slice` / `as_mut_slice`.
use aclrt::{Acl, Context, HostMode, RunMode, make_guard};

/// Works in both run modes: no `&[T]` of managed memory.
fn round_trip<M: RunMode>(ctx: &Context<'_, '_, M>, data: &[f32]) -> Result<Vec<f32>, aclrt::Error> {
    let mut managed = ctx.alloc_managed::<f32>(data.len())?;
    managed.copy_from_slice(data)?;
    managed.set(0, managed.get(0).unwrap_or(0.0) + 1.0)?;
    let out = managed.to_vec();
    managed.free()?;
    Ok(out)
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
    let mut managed_a = ctx_a.alloc_managed::<f32>(8)?;
    managed_a.as_mut_slice().fill(1.5);
    let mut dev_b = ctx_b.alloc::<f32>(8)?;
    // Host run mode: a plain slice of managed memory is harmless host memory.
    ctx_b.copy(managed_a.as_slice(), &mut dev_b)?;
    let mut back = [0.0f32; 8];
    ctx_b.copy(&dev_b, &mut back)?;
    assert_eq!(back, [1.5; 8]);
    assert_eq!(round_trip(&ctx_a, &back)?[..2], [2.5, 1.5]);
    dev_b.free()?;
    managed_a.free()?;
    ctx_b.destroy()?;
    ctx_a.destroy()?;
    device1.reset()?;
    device0.reset()?;
    acl.finalize()?;
    aclrt::sim::audit().assert_clean();
    Ok(())
}
