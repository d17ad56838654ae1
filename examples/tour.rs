//! The main tour of aclrt: `cargo run --example tour`.
//!
//! Runs on the built-in simulator (no NPU needed) and, unchanged, on real
//! Ascend hardware with the `system` backend. It walks through the whole
//! safe API once: process → device → context → streams, typed memory,
//! synchronous copies, a leak-safe asynchronous scope with two streams handed
//! off by an event, a host-function compute step, event timing, and an error.

use aclrt::{Acl, Detected, RunMode, Runtime, make_guard};

fn tour<M: RunMode>(rt: Runtime<'_, M>) -> aclrt::Result<()> {
    // 1. A device (aclrtSetDevice) and an explicit context branded by a guard.
    let device = rt.device(0)?;
    make_guard!(guard);
    let ctx = device.create_context(guard)?;
    println!(
        "[1] device {} opened, context {:?}",
        device.id(),
        ctx.as_raw()
    );

    // 2. Typed memory: device memory is never a Rust slice; host memory is
    //    pinned and always initialised.
    let n = 1 << 16;
    let input = ctx.alloc_host_from(&(0..n).map(|i| i as f32).collect::<Vec<_>>())?;
    let mut on_device = ctx.alloc::<f32>(n)?;
    let mut result = ctx.alloc_host_zeroed::<f32>(n)?;
    println!("[2] {n} floats: pinned input, device buffer, pinned result");

    // 3. A synchronous copy: the memcpy kind comes from the types.
    ctx.copy(&input, &mut on_device)?;
    println!("[3] synchronous copy done");

    // 4. Asynchronous work in a scope: the scope synchronises before it
    //    returns (even on error or panic), so borrowed buffers are safe.
    let upload = ctx.create_stream()?;
    let compute = ctx.create_stream()?;
    let start = upload.record(ctx.create_event()?)?;
    let end = ctx.create_event()?;
    let elapsed = ctx.scope(|s| {
        make_guard!(a);
        make_guard!(b);
        let up = s.lane(&upload, a);
        let work = s.lane(&compute, b);
        let staged = up.copy(&input, &mut on_device)?; //            H2D on stream A
        let staged = work.wait_for(up.signal(staged)?)?; //          event hand-off A → B
        let out = work.copy(&staged, &mut result)?; //               D2H on stream B
        let out = work.host_fn_with(out, |v| {
            v.update_all(|x| x * 2.0 + 1.0) //                      compute step, in order
        })?;
        let end = work.record(end)?;
        let out = out.wait()?; //                                    synchronise, get it back
        assert!(
            out.iter()
                .enumerate()
                .all(|(i, x)| x == i as f32 * 2.0 + 1.0)
        );
        end.synchronize()?;
        end.elapsed_since(&start)
    })?;
    println!("[4] two streams, event hand-off, host compute: correct ({elapsed:.3} ms by events)");

    // 5. Errors carry the ACL code, the C function and the runtime's message.
    let err = ctx.copy(&[1.0f32; 3], &mut on_device).unwrap_err();
    println!("[5] a wrong-length copy is an error: {err}");

    // 6. Release happens in the only legal order; the compiler enforces it.
    drop((start, input, on_device, result));
    upload.destroy()?;
    compute.destroy()?;
    ctx.destroy()?;
    device.reset()?;
    println!("[6] everything released in order");
    Ok(())
}

/// The example between `Acl::init` and `finalize`. `tests/failure_rule/sweep.rs`
/// runs it too, with each of its C calls made to fail once.
pub fn flow(acl: &Acl) -> aclrt::Result<()> {
    println!(
        "aclrt tour: {} device(s), run mode {:?}, SoC {}",
        acl.device_count()?,
        acl.run_mode(),
        acl.soc_name()?
    );
    match acl.detect() {
        Detected::Host(rt) => tour(rt),
        Detected::Device(rt) => tour(rt),
    }
}

fn main() -> aclrt::Result<()> {
    let acl = Acl::init()?;
    flow(&acl)?;
    acl.finalize()?;
    aclrt::sim_only! {
        {
            let audit = aclrt::sim::audit();
            audit.assert_clean();
            println!("simulator audit: no violations, no leaks");
        }
    }
    println!("tour: OK");
    Ok(())
}
