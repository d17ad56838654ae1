// Misuse: hand registered host memory (a `HostRegistration`) to foreign device work (`Lane::foreign`), which gets its host address.
// Why it must not compile: registered memory is the program's own host memory; device code reaches it only through the alias the runtime maps (`aclrtHostGetDevicePointer`), and a foreign operator given its host address would make the device touch memory that is not the runtime's.
// Enforced by: `ForeignReads` / `ForeignWrites` require `KernelMemory` of each operand's memory, as kernel arguments do; `HostRegistration` does not implement it.
use aclrt::{Acl, HostMode, PageAlignedBuf, make_guard};

fn main() -> aclrt::Result<()> {
    let acl = Acl::init()?;
    {
        let device = acl.require::<HostMode>()?.device(0)?;
        make_guard!(guard);
        let ctx = device.create_context(guard)?;
        let stream = ctx.create_stream()?;
        let mut host = PageAlignedBuf::from_slice(&[1.0f32, 2.0])?;
        let reg = ctx.register_host(&mut host)?;
        ctx.scope(|s| {
            make_guard!(l);
            let lane = s.lane(&stream, l);
            // SAFETY: the closure enqueues nothing.
            unsafe { lane.foreign((&reg,), (), None, |_work| Ok(()))? };
            Ok(())
        })?;
    }
    acl.finalize()?;
    Ok(())
}
