// Right way: open a scope on each context and enlist only that context's streams.
// Why it compiles: `Scope<'_, '_, 'id, _>::lane` gets a `Stream<'_, 'id>` of the same brand.
// Enforced by: the invariant brand `'id`.
use aclrt::{Acl, HostMode, make_guard};

fn main() -> aclrt::Result<()> {
    let acl = Acl::init()?;
    {
        let device = acl.require::<HostMode>()?.device(0)?;
        make_guard!(ga);
        make_guard!(gb);
        let ctx_a = device.create_context(ga)?;
        let ctx_b = device.create_context(gb)?;
        let stream_a = ctx_a.create_stream()?;
        let stream_b = ctx_b.create_stream()?;
        let mut count = 0;
        ctx_a.scope(|sa| {
            make_guard!(la);
            let lane_a = sa.lane(&stream_a, la);
            ctx_b.scope(|sb| {
                make_guard!(lb);
                let lane_b = sb.lane(&stream_b, lb);
                lane_b.host_fn(|| count += 1)?;
                Ok(())
            })?;
            lane_a.synchronize()?;
            Ok(())
        })?;
        assert_eq!(count, 1);
    }
    acl.finalize()?;
    aclrt::sim::audit().assert_clean();
    Ok(())
}
