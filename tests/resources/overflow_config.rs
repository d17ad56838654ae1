//! The overflow status read into crate-owned device memory
//! (`Context::overflow_status`, `Stream::reset_overflow_status`) and
//! streams made from a configuration handle (`StreamConfig`,
//! `Context::create_stream_from`), in both run modes and on both chips,
//! audit clean.

use crate::common;

use aclrt::sim;
use aclrt::{
    Acl, Context, Result, RunMode, StreamConfig, StreamFlags, StreamPriority, make_guard, sys,
};
use common::*;

fn each(
    f: impl for<'id> Fn(&Context<'_, 'id, aclrt::HostMode>) -> Result<()> + Copy,
    g: impl for<'id> Fn(&Context<'_, 'id, aclrt::DeviceMode>) -> Result<()> + Copy,
) {
    for soc in [sim::Soc::Ascend910B, sim::Soc::Ascend310P] {
        for device_mode in [false, true] {
            let base = if device_mode {
                device_config()
            } else {
                host_config()
            };
            let _sim = take(sim::SimConfig { soc, ..base });
            let acl = Acl::init().expect("aclInit");
            if device_mode {
                with_ctx(&acl, g).expect("flow (device run mode)");
            } else {
                with_ctx(&acl, f).expect("flow (host run mode)");
            }
            acl.finalize().expect("aclFinalize");
            assert_clean();
        }
    }
}

fn with_ctx<M: RunMode>(
    acl: &Acl,
    f: impl for<'id> FnOnce(&Context<'_, 'id, M>) -> Result<()>,
) -> Result<()> {
    let device = acl.require::<M>()?.device(0)?;
    make_guard!(g);
    let ctx = device.create_context(g)?;
    f(&ctx)?;
    ctx.destroy()?;
    device.reset()
}

/// The status after a reset is clear (no simulated operator overflows);
/// the area the copy wrote was the crate's, freed (the audit is clean).
fn read_and_reset<M: RunMode>(ctx: &Context<'_, '_, M>) -> Result<()> {
    let s = ctx.create_stream()?;
    s.reset_overflow_status()?;
    let mut d = ctx.alloc::<u8>(256)?;
    ctx.memset(&mut d, 0xff)?;
    let st = ctx.overflow_status(&s)?;
    assert_eq!(st.bytes().len(), 64);
    assert!(st.is_clear(), "{st:?}");
    s.destroy()
}

#[test]
fn the_overflow_status_is_read_into_crate_memory() {
    each(read_and_reset, read_and_reset);
}

/// A failure of the stream's work before the copy is the call's error,
/// reported once; the stream is idle afterwards, so the area was freed.
fn failure_before_the_copy<M: RunMode>(ctx: &Context<'_, '_, M>) -> Result<()> {
    let s = ctx.create_stream()?;
    sim::inject_stream_task_fault(s.as_raw(), 1, sys::ACL_ERROR_RT_AICORE_EXCEPTION);
    let e = ctx.overflow_status(&s).expect_err("the fault is reported");
    assert_eq!(e.code(), Some(sys::ACL_ERROR_RT_AICORE_EXCEPTION), "{e:?}");
    // Reported once: the next read succeeds.
    assert!(ctx.overflow_status(&s)?.is_clear());
    s.destroy()
}

#[test]
fn a_failure_before_the_copy_is_reported() {
    each(failure_before_the_copy, failure_before_the_copy);
}

/// A stream made from a configuration has its priority; changing or
/// dropping the configuration afterwards does not touch the stream.
fn config_stream<M: RunMode>(ctx: &Context<'_, '_, M>) -> Result<()> {
    let mut config = StreamConfig::new()?;
    let five = StreamPriority::new(5).expect("0..=7");
    config.set_priority(five)?.set_flags(StreamFlags::NONE)?;
    let s = ctx.create_stream_from(&config)?;
    assert_eq!(s.priority()?, five);
    config.set_priority(StreamPriority::LOWEST)?;
    let t = ctx.create_stream_from(&config)?;
    drop(config);
    assert_eq!(t.priority()?, StreamPriority::LOWEST);
    assert_eq!(s.priority()?, five);
    let mut d = ctx.alloc::<u8>(64)?;
    ctx.scope(|sc| {
        make_guard!(g);
        sc.lane(&s, g).memset(&mut d, 1)?.wait().map(drop)
    })?;
    s.synchronize()?;
    // The default configuration.
    let u = ctx.create_stream_from(&StreamConfig::new()?)?;
    assert_eq!(u.priority()?, StreamPriority::HIGHEST);
    u.destroy()?;
    t.destroy()?;
    s.destroy()
}

#[test]
fn a_stream_made_from_a_configuration_has_its_priority() {
    each(config_stream, config_stream);
}
