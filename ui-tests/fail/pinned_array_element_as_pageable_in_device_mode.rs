// Misuse: in device run mode, borrow one element of pinned memory of context A whose element type is an array (`T = [u8; 64]`), and copy it with context B of another device: `ctx_b.copy(&pinned_a[0], &mut dev_b)`.
// Why it must not compile: an array `[U; N]` is itself pageable memory (a brand-free copy operand of every context), so `&pinned_a[0]` would launder 64 bytes of device 0's memory into a copy by device 1, without peer access.
// Enforced by: `Index<usize>` (`&buf[i]`) of `PinnedSlice<'id, T, M>` exists for `M: PageableRunMode` (`HostMode`) only; in device run mode elements are read by value (`buf.get(i)`), a copy in pageable memory of the CPU.
use aclrt::{Acl, DeviceMode, make_guard};

fn main() -> Result<(), aclrt::Error> {
    let acl = Acl::init()?;
    let rt = acl.require::<DeviceMode>()?;
    let device0 = rt.device(0)?;
    let device1 = rt.device(1)?;
    make_guard!(guard_a);
    make_guard!(guard_b);
    let ctx_a = device0.create_context(guard_a)?;
    let ctx_b = device1.create_context(guard_b)?;
    let pinned_a = ctx_a.alloc_host_from(&[[7u8; 64]; 4])?;
    let mut dev_b = ctx_b.alloc::<u8>(64)?;
    ctx_b.copy(&pinned_a[0], &mut dev_b)?;
    Ok(())
}
