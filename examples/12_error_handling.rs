//! What failures look like: every error carries the ACL code, a kind to match
//! on, the C function and the runtime's message; Rust-side rules have their
//! own variants. On the simulator, faults are injected to show each one.
//! (Simulator only: on real hardware the injections do not exist.)

use std::time::Duration;

use aclrt::{Acl, Error, ErrorKind, HostMode, make_guard};

fn main() -> aclrt::Result<()> {
    #[cfg(not(aclrt_backend = "sim"))]
    {
        println!("12_error_handling: needs the simulator backend; skipped");
        return Ok(());
    }
    #[cfg(aclrt_backend = "sim")]
    {
        use aclrt::sim;
        let acl = Acl::init()?;
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
        let oom = ctx.alloc::<f32>(1024).unwrap_err();
        println!("ctx.alloc (injected)  -> {oom}");
        assert_eq!(oom.kind(), ErrorKind::OutOfMemory);
        assert_eq!(oom.function(), Some("aclrtMalloc"));

        // Rust-side checks, before any C call.
        let zero = ctx.alloc::<f32>(0).unwrap_err();
        println!("ctx.alloc(0)          -> {zero}");
        let mut small = ctx.alloc::<f32>(2)?;
        let mismatch = ctx.copy(&[1.0f32, 2.0, 3.0], &mut small).unwrap_err();
        println!("copy 3 into 2         -> {mismatch}");

        // A device fault in queued work, reported at synchronisation.
        let stream = ctx.create_stream()?;
        let src = ctx.alloc_host_from(&[1.0f32, 2.0])?;
        sim::inject_task_fault(1, aclrt::sys::ACL_ERROR_RT_AICORE_EXCEPTION);
        let fault = ctx
            .scope(|s| {
                make_guard!(l);
                let lane = s.lane(&stream, l);
                lane.copy(&src, &mut small)?.wait()?;
                Ok(())
            })
            .unwrap_err();
        println!("fault at sync         -> {fault}");
        assert_eq!(fault.kind(), ErrorKind::DeviceFault);

        // A timeout.
        sim::set_stream_delay(stream.as_raw(), Duration::from_millis(200));
        let timeout = ctx
            .scope(|s| {
                make_guard!(l);
                let lane = s.lane(&stream, l);
                let _x = lane.memset(&mut small, 0)?;
                stream.synchronize_timeout(Duration::from_millis(10))
            })
            .unwrap_err();
        println!("synchronize_timeout   -> {timeout}");
        assert!(timeout.is_timeout());
        sim::clear_faults();

        drop(src);
        drop(small);
        drop(stream);
        drop(ctx);
        drop(device);
        acl.finalize()?;
        sim::audit().assert_clean();
        println!("12_error_handling: OK");
        Ok(())
    }
}
