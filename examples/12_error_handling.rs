//! What failures look like: every error carries the ACL code, a kind to match
//! on, the C function and the runtime's message; Rust-side rules have their
//! own variants. On the simulator, faults are injected to show each one.
//! (Simulator only: on real hardware the injections do not exist.)

use std::time::Duration;

use aclrt::{Acl, Error, ErrorKind, HostMode, make_guard};

aclrt::sim_only! {
    /// The error that `r` was meant to fail with: `Ok(e)` when `expected(e)`.
    /// Any other error is passed on, as `?` would: the fault sweep
    /// (`tests/failure_rule/sweep.rs`) makes each C call of [`flow`] fail once.
    fn expect_err<T>(r: aclrt::Result<T>, expected: impl Fn(&Error) -> bool) -> aclrt::Result<Error> {
        match r {
            Ok(_) => panic!("an expected error did not happen"),
            Err(e) if expected(&e) => Ok(e),
            Err(e) => Err(e),
        }
    }
}

aclrt::sim_only! {
    /// The example between `Acl::init` and `finalize` (host run mode only). A
    /// stream is slowed down by `delay` per task to make
    /// `synchronize_timeout(timeout)` time out. `tests/failure_rule/sweep.rs` runs it
    /// too, with each of its C calls made to fail once.
    pub fn flow(acl: &Acl, delay: Duration, timeout: Duration) -> aclrt::Result<()> {
        use aclrt::sim;
        let second = Acl::init().unwrap_err();
        println!("second Acl::init      -> {second}");
        assert_eq!(second, Error::AlreadyInitialized);

        let rt = match acl.require::<HostMode>() {
            Ok(rt) => rt,
            Err(e) => {
                println!("{e}: this example shows host-mode errors; skipped in device run mode");
                return Ok(());
            }
        };
        let bad = rt.device(99).unwrap_err();
        println!("rt.device(99)         -> {bad}");
        let device = rt.device(0)?;
        make_guard!(g);
        let ctx = device.create_context(g)?;

        // Out of memory: the runtime's code, kind, function and message.
        sim::inject_fault("aclrtMalloc", 1, aclrt::sys::ACL_ERROR_RT_MEMORY_ALLOCATION);
        let oom = expect_err(ctx.alloc::<f32>(1024), |e| {
            e.kind() == ErrorKind::OutOfMemory && e.function() == Some("aclrtMalloc")
        })?;
        println!("ctx.alloc (injected)  -> {oom}");

        // Rust-side checks, before any C call.
        let zero = expect_err(ctx.alloc::<f32>(0), |e| {
            matches!(e, Error::InvalidAllocationSize { .. })
        })?;
        println!("ctx.alloc(0)          -> {zero}");
        let mut small = ctx.alloc::<f32>(2)?;
        let mismatch = expect_err(ctx.copy(&[1.0f32, 2.0, 3.0], &mut small), |e| {
            matches!(e, Error::LengthMismatch { .. })
        })?;
        println!("copy 3 into 2         -> {mismatch}");

        // A device fault in queued work, reported at synchronisation.
        let stream = ctx.create_stream()?;
        let src = ctx.alloc_host_from(&[1.0f32, 2.0])?;
        sim::inject_task_fault(1, aclrt::sys::ACL_ERROR_RT_AICORE_EXCEPTION);
        let fault = ctx.scope(|s| {
            make_guard!(l);
            let lane = s.lane(&stream, l);
            lane.copy(&src, &mut small)?.wait()?;
            Ok(())
        });
        let fault = expect_err(fault, |e| {
            e.kind() == ErrorKind::DeviceFault
                && e.code() == Some(aclrt::sys::ACL_ERROR_RT_AICORE_EXCEPTION)
        })?;
        println!("fault at sync         -> {fault}");

        // A timeout.
        sim::set_stream_delay(stream.as_raw(), delay);
        let timeout = ctx.scope(|s| {
            make_guard!(l);
            let lane = s.lane(&stream, l);
            let _x = lane.memset(&mut small, 0)?;
            stream.synchronize_timeout(timeout)
        });
        let timeout = expect_err(timeout, Error::is_timeout)?;
        println!("synchronize_timeout   -> {timeout}");
        // Full speed again. (Not `sim::clear_faults()`: it would also cancel the
        // fault that the sweep injected.)
        sim::set_stream_delay(stream.as_raw(), Duration::ZERO);

        drop(src);
        drop(small);
        drop(stream);
        drop(ctx);
        drop(device);
        Ok(())
    }
}

fn main() -> aclrt::Result<()> {
    aclrt::not_sim! {
        {
            println!("12_error_handling: needs the simulator backend; skipped");
            return Ok(());
        }
    }
    aclrt::sim_only! {
        {
            let acl = Acl::init()?;
            flow(&acl, Duration::from_millis(200), Duration::from_millis(10))?;
            acl.finalize()?;
            aclrt::sim::audit().assert_clean();
            println!("12_error_handling: OK");
            Ok(())
        }
    }
}
