//! Device information and control, and stream attributes:
//! `aclrtGetDeviceInfo`, `aclrtGetDeviceCapability`,
//! `aclrtQueryDeviceStatus`, `aclrtGetDeviceUtilizationRate`, the resource
//! limits (`aclrtGet/Set/ResetDeviceResLimit`, per stream
//! `aclrtGet/Set/ResetStreamResLimit`), the saturation mode
//! (`aclrtGet/SetDeviceSatMode`), `aclrtStreamGetId`, `aclrtStreamGetFlags`.
//!
//! Runs in both run modes: `cargo run --example 24_device_control`
//! (`ACLRT_SIM_RUN_MODE=device` for ACL_DEVICE on the simulator).

use aclrt::{
    Acl, Detected, DeviceAttr, DeviceFeature, ErrorKind, ResourceLimit, RunMode, Runtime,
    SaturationMode, StreamFlags, make_guard,
};

fn describe<M: RunMode>(rt: Runtime<'_, M>) -> aclrt::Result<()> {
    let device = rt.device(0)?;
    let cores = device.info(DeviceAttr::AICORE_CORES)?;
    let vector = device.info(DeviceAttr::VECTOR_CORES)?;
    let memory = device.info(DeviceAttr::TOTAL_GLOBAL_MEMORY)?;
    println!(
        "device 0: {cores} AI cores, {vector} vector cores, {} GiB, status {:?}",
        memory >> 30,
        device.status()?
    );
    println!(
        "  task update supported: {}",
        device.capability(DeviceFeature::TASK_UPDATE)? == 1
    );
    let u = device.utilization()?;
    println!(
        "  utilisation: cube {:?} %, vector {:?} %, AI CPU {:?} %, memory {:?} %",
        u.cube, u.vector, u.aicpu, u.memory
    );

    // Share the device: this process keeps to half of its cube cores.
    let whole = device.resource_limit(ResourceLimit::CubeCores)?;
    device.set_resource_limit(ResourceLimit::CubeCores, whole.div_ceil(2))?;
    println!(
        "  cube cores for this process: {} of {whole}",
        device.resource_limit(ResourceLimit::CubeCores)?
    );
    device.reset_resource_limits()?;

    // Overflow: saturate, or produce inf/NaN.
    let before = device.saturation_mode()?;
    device.set_saturation_mode(SaturationMode::InfNan)?;
    assert_eq!(device.saturation_mode()?, SaturationMode::InfNan);
    device.set_saturation_mode(before)?;
    println!("  saturation mode: {before:?}");

    make_guard!(g);
    let ctx = device.create_context(g)?;
    let stream = ctx.create_stream()?;
    assert_eq!(stream.flags()?, StreamFlags::NONE);
    println!(
        "  stream id {}, priority {:?}",
        stream.id()?,
        stream.priority()?
    );
    match stream.resource_limit(ResourceLimit::VectorCores) {
        Ok(n) => println!("  vector cores for this stream: {n}"),
        // Chips (and the simulator) without per-stream limits say so.
        Err(e) if e.kind() == ErrorKind::NotSupported => {
            println!("  per-stream limits: not supported here")
        }
        Err(e) => return Err(e),
    }
    stream.destroy()?;
    ctx.destroy()?;
    device.reset()
}

fn main() -> aclrt::Result<()> {
    let acl = Acl::init()?;
    match acl.detect() {
        Detected::Host(rt) => describe(rt)?,
        Detected::Device(rt) => describe(rt)?,
    }
    acl.finalize()?;
    println!("device_control: ok");
    Ok(())
}
