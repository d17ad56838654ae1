//! Device information and run mode: `aclInit`, `aclrtGetDeviceCount`,
//! `aclrtGetRunMode`, `aclrtGetSocName`, `aclrtGetVersion`, `aclrtSetDevice`,
//! `aclrtGetMemInfo`.
//!
//! Runs in both run modes: `cargo run --example 01_device_info`
//! (`ACLRT_SIM_RUN_MODE=device` for ACL_DEVICE on the simulator).

use aclrt::{Acl, Detected, RunMode, Runtime};

fn describe<M: RunMode>(rt: Runtime<'_, M>, count: u32) -> aclrt::Result<()> {
    for id in 0..count {
        let device = rt.device(id)?;
        let mem = device.memory_info()?;
        assert!(
            mem.total > 0 && mem.free <= mem.total,
            "memory figures make sense"
        );
        println!(
            "  device {id}: {} MiB free of {} MiB, {} more streams possible",
            mem.free >> 20,
            mem.total >> 20,
            device.streams_available()?
        );
    }
    Ok(())
}

/// The example between `Acl::init` and `finalize`. `tests/failure_rule/sweep.rs`
/// runs it too, with each of its C calls made to fail once.
pub fn flow(acl: &Acl) -> aclrt::Result<()> {
    let count = acl.device_count()?;
    let (major, minor, patch) = acl.version()?;
    println!("AscendCL {major}.{minor}.{patch}, SoC {}", acl.soc_name()?);
    println!("run mode: {:?}, {count} device(s)", acl.run_mode());
    assert!(count >= 1, "at least one device");
    match acl.detect() {
        Detected::Host(rt) => describe(rt, count),
        Detected::Device(rt) => describe(rt, count),
    }
}

fn main() -> aclrt::Result<()> {
    let acl = Acl::init()?;
    flow(&acl)?;
    acl.finalize()?;
    println!("01_device_info: OK");
    Ok(())
}
