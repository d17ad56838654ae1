//! Run-mode-dependent data transfer, written once: the same generic code runs
//! when the application is on a host (ACL_HOST: real host↔device transfers)
//! and when it runs on the device (ACL_DEVICE: "host" memory is device memory
//! and every copy is device-to-device). The memcpy kind is computed at
//! compile time from the run mode type and where both operands lie (their
//! `aclrt::bounds::Place`); the simulator's audit checks it against the
//! memory, so a wrong kind would fail the `assert_clean` below.
//!
//! `cargo run --example 05_run_mode_transfer` and
//! `ACLRT_SIM_RUN_MODE=device cargo run --example 05_run_mode_transfer`.

use aclrt::{Acl, Detected, HostMode, RunMode, RunModeKind, Runtime, make_guard};

fn transfer<M: RunMode>(rt: Runtime<'_, M>) -> aclrt::Result<Vec<u16>> {
    let kind = match M::KIND {
        RunModeKind::Host => "ACL_MEMCPY_HOST_TO_DEVICE",
        RunModeKind::Device => "ACL_MEMCPY_DEVICE_TO_DEVICE",
    };
    println!(
        "run mode {:?}: copying pinned \"host\" memory to device memory is {kind}",
        M::KIND
    );
    let device = rt.device(0)?;
    make_guard!(guard);
    let ctx = device.create_context(guard)?;
    let input = ctx.alloc_host_from(&[7u16, 8, 9, 10])?; // aclrtMallocHost
    let mut on_device = ctx.alloc::<u16>(4)?;
    ctx.copy(&input, &mut on_device)?;
    let output = ctx.copy_into_uninit(&on_device, ctx.alloc_host_uninit::<u16>(4)?)?;
    Ok(output.to_vec())
}

/// Only compiles for `HostMode`: `upload`/`download` need `M: HostRunMode`.
fn host_only(rt: Runtime<'_, HostMode>) -> aclrt::Result<()> {
    let device = rt.device(0)?;
    make_guard!(guard);
    let ctx = device.create_context(guard)?;
    let mut on_device = ctx.alloc::<u8>(3)?;
    ctx.upload(&[1u8, 2, 3], &mut on_device)?; // ACL_MEMCPY_HOST_TO_DEVICE
    let mut back = [0u8; 3];
    ctx.download(&on_device, &mut back)?; // ACL_MEMCPY_DEVICE_TO_HOST
    assert_eq!(back, [1, 2, 3]);
    println!("host-only upload/download: OK");
    Ok(())
}

/// The example between `Acl::init` and `finalize`. `tests/failure_rule/sweep.rs`
/// runs it too, with each of its C calls made to fail once.
pub fn flow(acl: &Acl) -> aclrt::Result<()> {
    let output = match acl.detect() {
        Detected::Host(rt) => {
            host_only(rt)?;
            transfer(rt)?
        }
        Detected::Device(rt) => {
            println!("device run mode: skipping the host-only transfer API");
            transfer(rt)?
        }
    };
    assert_eq!(output, [7, 8, 9, 10]);
    Ok(())
}

fn main() -> aclrt::Result<()> {
    let acl = Acl::init()?;
    flow(&acl)?;
    acl.finalize()?;
    aclrt::sim_only! { aclrt::sim::audit().assert_clean(); }
    println!("05_run_mode_transfer: OK");
    Ok(())
}
