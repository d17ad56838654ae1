//! Work of another library on a lane: an operator in the style of aclnn's
//! two-phase API, run with `Lane::foreign`.
//!
//! aclnn operators are called in two phases: `aclnnXxxGetWorkspaceSize(inputs,
//! outputs, &workspace_size, &executor)` plans the work, the caller allocates
//! a workspace of that size, then `aclnnXxx(workspace, workspace_size,
//! executor, stream)` enqueues it on a stream. The library knows nothing of
//! this crate's borrows, so running it is `unsafe`: `Lane::foreign` borrows
//! the typed buffers for the rest of the scope (inputs shared, outputs
//! exclusively, returned as `InFlight`s), hands their raw pointers, the raw
//! stream and the workspace to a closure, and the caller promises (its
//! `# Safety`) that the work stays on that stream and inside those buffers.
//!
//! The "library" here (`mini_aclnn`) is a stand-in written against the raw C
//! API, with a simulator kernel as its device code: phase 2 launches a kernel
//! that adds the inputs into the workspace, then copies the workspace into the
//! output on the same stream.
//!
//! `cargo run --example 15_foreign_operator` and
//! `ACLRT_SIM_RUN_MODE=device cargo run --example 15_foreign_operator`.

use aclrt::{Acl, Detected, RunMode, Runtime, make_guard};

/// A miniature operator library with an aclnn-like C-style API.
#[allow(non_snake_case)]
mod mini_aclnn {
    use aclrt::sys;
    use core::ffi::c_void;

    /// The plan made by phase 1.
    pub struct Executor {
        pub x: *const c_void,
        pub y: *const c_void,
        pub z: *mut c_void,
        pub n: u64,
        func: sys::aclrtFuncHandle,
    }

    aclrt::sim_only! {
        /// The library's device code: on the simulator a registered Rust
        /// kernel; a real operator library ships an Ascend C object instead.
        fn image() -> Result<Vec<u8>, i32> {
            aclrt::sim::register_kernel("mini_aclnn_add", |block, blocks, args| {
                let (x, y, ws, n) = (args.u64(0)?, args.u64(1)?, args.u64(2)?, args.u64(3)?);
                let mut i = block as usize;
                while i < n as usize {
                    args.write_f32(ws, i, args.read_f32(x, i)? + args.read_f32(y, i)?)?;
                    i += blocks as usize;
                }
                Ok(())
            });
            Ok(aclrt::sim::binary_image(&["mini_aclnn_add"]))
        }
    }

    aclrt::not_sim! {
        fn image() -> Result<Vec<u8>, i32> {
            Err(207000) // this stand-in has no device code for real hardware
        }
    }

    /// Load the library's device code into the current context; returns
    /// the binary handle (unload with `unload`) and the kernel.
    pub fn load() -> Result<(sys::aclrtBinHandle, sys::aclrtFuncHandle), i32> {
        let image = image()?;
        let mut bin: sys::aclrtBinHandle = core::ptr::null_mut();
        let mut func: sys::aclrtFuncHandle = core::ptr::null_mut();
        // SAFETY: a valid image of `image.len()` bytes, NULL options, writable
        // handle slots; the name is NUL-terminated.
        unsafe {
            let code = sys::aclrtBinaryLoadFromData(
                image.as_ptr().cast(),
                image.len(),
                core::ptr::null(),
                &mut bin,
            );
            if code != 0 {
                return Err(code);
            }
            let code = sys::aclrtBinaryGetFunction(bin, c"mini_aclnn_add".as_ptr(), &mut func);
            if code != 0 {
                sys::aclrtBinaryUnLoad(bin);
                return Err(code);
            }
        }
        Ok((bin, func))
    }

    /// Unload what `load` loaded (after every stream that ran it is idle).
    pub fn unload(bin: sys::aclrtBinHandle) -> i32 {
        // SAFETY: `bin` came from `load`; the caller synchronised the work.
        unsafe { sys::aclrtBinaryUnLoad(bin) }
    }

    /// Phase 1: plan `z = x + y` over `n` f32 elements; the workspace holds
    /// the sum before it is copied to `z`.
    pub fn aclnnAddGetWorkspaceSize(
        func: sys::aclrtFuncHandle,
        x: *const c_void,
        y: *const c_void,
        z: *mut c_void,
        n: u64,
        workspace_size: &mut u64,
        executor: &mut Option<Box<Executor>>,
    ) -> i32 {
        *workspace_size = n * 4;
        *executor = Some(Box::new(Executor { x, y, z, n, func }));
        0
    }

    /// Phase 2: enqueue the planned work on `stream`.
    ///
    /// # Safety
    /// The executor's buffers and `workspace` (of `workspace_size` bytes) are
    /// device memory of the current context, valid until `stream` is idle.
    // The executor is consumed, as aclnn's executors are by their operator.
    #[allow(clippy::boxed_local)]
    pub unsafe fn aclnnAdd(
        workspace: *mut c_void,
        workspace_size: u64,
        executor: Box<Executor>,
        stream: sys::aclrtStream,
    ) -> i32 {
        let e = &*executor;
        if workspace_size < e.n * 4 {
            return 100000;
        }
        // SAFETY: the caller's contract; the argument list is this thread's.
        unsafe {
            let mut args: sys::aclrtArgsHandle = core::ptr::null_mut();
            let mut param: sys::aclrtParamHandle = core::ptr::null_mut();
            let code = sys::aclrtKernelArgsInit(e.func, &mut args);
            if code != 0 {
                return code;
            }
            for mut v in [e.x as u64, e.y as u64, workspace as u64, e.n] {
                let code = sys::aclrtKernelArgsAppend(args, (&raw mut v).cast(), 8, &mut param);
                if code != 0 {
                    return code;
                }
            }
            let code = sys::aclrtKernelArgsFinalize(args);
            if code != 0 {
                return code;
            }
            let code = sys::aclrtLaunchKernelWithConfig(
                e.func,
                4,
                stream,
                core::ptr::null_mut(),
                args,
                core::ptr::null_mut(),
            );
            if code != 0 {
                return code;
            }
            sys::aclrtMemcpyAsync(
                e.z,
                (e.n * 4) as usize,
                workspace,
                (e.n * 4) as usize,
                sys::ACL_MEMCPY_DEVICE_TO_DEVICE,
                stream,
            )
        }
    }
}

/// An `aclrt::Error` for a failed call of the operator library.
fn library_error(code: i32, function: &'static str) -> aclrt::Error {
    aclrt::Error::Acl {
        code,
        kind: aclrt::ErrorKind::from_code(code),
        function,
        message: String::from("mini_aclnn"),
    }
}

fn run<M: RunMode>(rt: Runtime<'_, M>) -> aclrt::Result<()> {
    const N: usize = 4096;
    let x: Vec<f32> = (0..N).map(|i| i as f32).collect();
    let y: Vec<f32> = (0..N).map(|i| 2.0 * i as f32 + 1.0).collect();

    let device = rt.device(0)?;
    make_guard!(guard);
    let ctx = device.create_context(guard)?;
    let stream = ctx.create_stream()?;
    let (bin, func) = mini_aclnn::load().map_err(|c| library_error(c, "mini_aclnn::load"))?;

    let dx = ctx.alloc_from(&x)?;
    let dy = ctx.alloc_from(&y)?;
    let mut dz = ctx.alloc_zeroed::<f32>(N)?;
    let mut out = ctx.alloc_host_zeroed::<f32>(N)?;

    // Phase 1: plan, learn the workspace size, allocate it through aclrt.
    let mut workspace_size = 0u64;
    let mut executor = None;
    let code = mini_aclnn::aclnnAddGetWorkspaceSize(
        func,
        dx.as_device_ptr(),
        dy.as_device_ptr(),
        dz.as_device_ptr().cast_mut(),
        N as u64,
        &mut workspace_size,
        &mut executor,
    );
    if code != 0 {
        return Err(library_error(code, "aclnnAddGetWorkspaceSize"));
    }
    let executor = executor.expect("phase 1 made an executor");
    let mut workspace = ctx.alloc::<u8>(workspace_size as usize)?;

    // Phase 2: run it on a lane, with the typed buffers borrowed for the scope.
    let result = ctx.scope(|s| {
        make_guard!(l);
        let lane = s.lane(&stream, l);
        // SAFETY: `aclnnAdd` enqueues a kernel and a copy on the stream it is
        // given, only; the kernel reads x and y (the two reads) and writes
        // the workspace, the copy reads the workspace and writes z (the one
        // write), each within N f32 — checked below against the operands
        // handed over; it keeps no pointer after the stream is idle.
        let (z,) = unsafe {
            lane.foreign((&dx, &dy), (&mut dz,), Some(&mut workspace), |work| {
                let (reads, writes) = (work.reads(), work.writes());
                let ws = work.workspace().expect("a workspace was given");
                assert_eq!(reads[0].ptr().cast_const(), executor.x);
                assert_eq!(reads[1].ptr().cast_const(), executor.y);
                assert_eq!(writes[0].ptr(), executor.z);
                assert!(writes[0].bytes() >= N * 4 && ws.bytes() as u64 >= workspace_size);
                match mini_aclnn::aclnnAdd(ws.ptr(), workspace_size, executor, work.stream()) {
                    0 => Ok(()),
                    code => Err(library_error(code, "aclnnAdd")),
                }
            })?
        };
        let out = lane.copy(&z, &mut out)?.wait()?;
        Ok(out.to_vec())
    });
    // Every stream that ran the library's kernel is idle now (the scope
    // synchronised), so its binary may go.
    let code = mini_aclnn::unload(bin);
    let sum = result?;
    if code != 0 {
        return Err(library_error(code, "aclrtBinaryUnLoad"));
    }
    let expected: Vec<f32> = x.iter().zip(&y).map(|(a, b)| a + b).collect();
    assert_eq!(sum, expected);
    println!(
        "run mode {:?}: aclnn-style two-phase operator ran on a lane ({workspace_size} B workspace)",
        M::KIND
    );
    Ok(())
}

/// The example between `Acl::init` and `finalize`.
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
    println!("15_foreign_operator: OK");
    Ok(())
}
