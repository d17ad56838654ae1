//! Device synchronisation: queue work on several streams of a context and
//! block until all of it is done (`aclrtSynchronizeDevice`,
//! `aclrtSynchronizeDeviceWithTimeout`).

use std::time::Duration;

use aclrt::{Acl, Detected, RunMode, Runtime, make_guard};

fn run<M: RunMode>(rt: Runtime<'_, M>) -> aclrt::Result<()> {
    let device = rt.device(0)?;
    make_guard!(guard);
    let ctx = device.create_context(guard)?;
    let streams = [
        ctx.create_stream()?,
        ctx.create_stream()?,
        ctx.create_stream()?,
    ];
    let mut buffers = [
        ctx.alloc::<u8>(1 << 20)?,
        ctx.alloc::<u8>(1 << 20)?,
        ctx.alloc::<u8>(1 << 20)?,
    ];
    ctx.scope(|s| {
        let [b0, b1, b2] = &mut buffers;
        make_guard!(g0);
        make_guard!(g1);
        make_guard!(g2);
        let _x = s.lane(&streams[0], g0).memset(b0, 1)?;
        let _y = s.lane(&streams[1], g1).memset(b1, 2)?;
        let _z = s.lane(&streams[2], g2).memset(b2, 3)?;
        ctx.synchronize_timeout(Duration::from_secs(10))?; // all three streams
        for stream in &streams {
            assert!(stream.is_complete()?, "every stream idle after device sync");
        }
        Ok(())
    })?;
    for (i, buf) in buffers.iter().enumerate() {
        let mut back = vec![0u8; buf.len()];
        ctx.copy(buf, &mut back)?;
        assert!(back.iter().all(|&v| v == i as u8 + 1), "buffer {i}");
    }
    device.synchronize()?; // the device's default context
    Ok(())
}

/// The example between `Acl::init` and `finalize`. `tests/failure_rule/sweep.rs`
/// runs it too, with each of its C calls made to fail once.
pub fn flow(acl: &Acl) -> aclrt::Result<()> {
    match acl.detect() {
        Detected::Host(rt) => run(rt),
        Detected::Device(rt) => run(rt),
    }
}

fn main() -> aclrt::Result<()> {
    let acl = Acl::init()?;
    flow(&acl)?;
    acl.finalize()?;
    aclrt::sim_only! { aclrt::sim::audit().assert_clean(); }
    println!("10_device_sync: OK");
    Ok(())
}
