// Misuse: time two events created without the timing flag (`aclrtCreateEventWithFlag(ACL_EVENT_SYNC)`).
// Why it must not compile: such events carry no timestamps; `aclrtEventElapsedTime` fails on them.
// Enforced by: `Event::elapsed_since` exists only for kinds `K: TimingKind`; `SyncOnly` does not implement it (E0277, once for each event).
use aclrt::{Acl, HostMode, SyncOnly, make_guard};

fn main() -> aclrt::Result<()> {
    let acl = Acl::init()?;
    let device = acl.require::<HostMode>()?.device(0)?;
    make_guard!(guard);
    let ctx = device.create_context(guard)?;
    let stream = ctx.create_stream()?;
    let start = stream.record(ctx.create_event_of::<SyncOnly>()?)?;
    let end = stream.record(ctx.create_event_of::<SyncOnly>()?)?;
    end.synchronize()?;
    let _ms = end.elapsed_since(&start)?;
    Ok(())
}
