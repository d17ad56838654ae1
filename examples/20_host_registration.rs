//! Zero-copy host registration, managed memory and stop-on-failure
//! (`aclrtHostRegister`, `aclrtHostUnregister`, `aclrtMemcpyAsync`,
//! `aclrtMemAllocManaged`, `aclrtSetStreamFailureMode`,
//! `aclrtGetLastError`).
//!
//! The application owns its input and output (page-aligned, so they can be
//! registered); registered, they go to and from the device by truly
//! asynchronous copies, without staging through `aclrtMallocHost` memory.
//! A managed buffer is written by the host, read by the device, and read
//! again by the host once the scope is over. On the simulator, a context in
//! stop-on-failure mode shows what happens after a device fault.

use aclrt::{Acl, Detected, PageAlignedBuf, RunMode, Runtime, make_guard};

const N: usize = 4096;

fn run<M: RunMode>(rt: Runtime<'_, M>) -> aclrt::Result<()> {
    let device = rt.device(0)?;
    make_guard!(guard);
    let ctx = device.create_context(guard)?;
    let stream = ctx.create_stream()?;

    // The application's own memory (not allocated by the runtime).
    let mut input = PageAlignedBuf::<f32>::zeroed(N)?;
    for (i, v) in input.iter_mut().enumerate() {
        *v = i as f32;
    }
    let mut output = PageAlignedBuf::<f32>::zeroed(N)?;
    let mut on_device = ctx.alloc::<f32>(N)?;

    {
        // Registered for the device: borrowed until unregistered.
        let src = ctx.register_host(&mut input)?;
        let mut dst = ctx.register_host(&mut output)?;
        println!(
            "registered {} + {} elements; device alias of the input: {:?}",
            src.len(),
            dst.len(),
            src.device_alias()
        );
        ctx.scope(|s| {
            make_guard!(l);
            let lane = s.lane(&stream, l);
            let x = lane.copy(&src, &mut on_device)?; // H2D, async, zero-copy
            let back = lane.copy(&x, &mut dst)?; // D2H into registered memory
            // A host step on the result once it has arrived.
            let back = back.wait()?;
            for v in back.as_mut_slice() {
                *v *= 2.0;
            }
            Ok(())
        })?;
        // The scope synchronised: the host may read the registration.
        assert_eq!(dst.as_slice()[N - 1], 2.0 * (N - 1) as f32);
        dst.unregister()?;
        src.unregister()?;
    }
    // Given back: the owners are usable again.
    assert!(input.iter().zip(output.iter()).all(|(i, o)| 2.0 * i == *o));
    println!("output[0..4] = {:?}", &output[..4]);

    // Managed memory: the host writes it, the device reads it, the host
    // reads it again after the scope. By value: this runs in both run modes,
    // and in device run mode managed memory lends no plain slice (only
    // `HostMode` has `as_slice`/`as_mut_slice`).
    let mut managed = ctx.alloc_managed::<u32>(N)?;
    let values: Vec<u32> = (0..N as u32).map(|i| 3 * i).collect();
    managed.copy_from_slice(&values)?;
    let mut copy = ctx.alloc::<u32>(N)?;
    ctx.scope(|s| {
        make_guard!(l);
        let lane = s.lane(&stream, l);
        let _c = lane.copy(&managed, &mut copy)?;
        Ok(())
    })?;
    let mut check = vec![0u32; N];
    ctx.copy(&copy, &mut check)?;
    assert_eq!(check, managed.to_vec());
    println!("managed[0..4] = {:?}", &managed.to_vec()[..4]);
    managed.free()?;
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

aclrt::sim_only! {
    /// Stop-on-failure, shown with a device fault injected by the simulator.
    fn stop_on_failure<M: RunMode>(rt: Runtime<'_, M>) -> aclrt::Result<()> {
        use std::sync::atomic::{AtomicU32, Ordering};
        let device = rt.device(0)?;
        make_guard!(guard);
        let ctx = device.create_context(guard)?;
        let stream = ctx.create_stream()?;
        ctx.set_stop_on_failure()?;
        let later = AtomicU32::new(0);
        let err = ctx
            .scope(|s| {
                make_guard!(l);
                let lane = s.lane(&stream, l);
                aclrt::sim::inject_task_fault(1, aclrt::sys::ACL_ERROR_RT_AICORE_EXCEPTION);
                lane.host_fn(|| {})?; // faults on the device
                lane.host_fn(|| {
                    later.fetch_add(1, Ordering::SeqCst); // never runs: stopped
                })?;
                Ok(())
            })
            .unwrap_err();
        println!("scope in stop-on-failure mode -> {err}");
        assert_eq!(err.kind(), aclrt::ErrorKind::DeviceFault);
        assert_eq!(later.load(Ordering::SeqCst), 0);
        // Every later submission on the context fails with the stored code.
        let again = stream.synchronize().unwrap_err();
        assert_eq!(again.code(), err.code());
        assert_eq!(aclrt::take_last_error(), err.code());
        // Destroying the context (with its streams) ends the failed state.
        drop(stream);
        ctx.destroy()?;
        Ok(())
    }
}

fn main() -> aclrt::Result<()> {
    let acl = Acl::init()?;
    flow(&acl)?;
    aclrt::sim_only! {
        match acl.detect() {
            Detected::Host(rt) => stop_on_failure(rt)?,
            Detected::Device(rt) => stop_on_failure(rt)?,
        }
    }
    acl.finalize()?;
    aclrt::sim_only! { aclrt::sim::audit().assert_clean(); }
    println!("20_host_registration: OK");
    Ok(())
}
