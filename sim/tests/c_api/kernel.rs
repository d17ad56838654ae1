//! Kernel loading and launch (acl-facts K.1–K.7): kernels
//! registered by name, simulator device binaries, launches as stream tasks
//! through the raw C API, the args-handle rules and the strict checks.

use crate::common;
use common::*;
use std::ffi::CString;

/// `c[i] = a[i] + b[i]` for `i < n`; args: a, b, c (device addresses), n.
/// Block `k` of `nb` handles `i ≡ k (mod nb)`.
fn register_vector_add() {
    aclrt_sim::register_kernel("vector_add", |block, nb, args| {
        let (a, b, c, n) = (args.u64(0)?, args.u64(1)?, args.u64(2)?, args.u64(3)?);
        let mut i = block as usize;
        while i < n as usize {
            let v = args.read_f32(a, i)? + args.read_f32(b, i)?;
            args.write_f32(c, i, v)?;
            i += nb as usize;
        }
        Ok(())
    });
}

fn load(names: &[&str]) -> aclrtBinHandle {
    let img = aclrt_sim::binary_image(names);
    let mut bin: aclrtBinHandle = null_mut();
    ok!(aclrtBinaryLoadFromData(
        img.as_ptr().cast(),
        img.len(),
        null(),
        &mut bin
    ));
    assert!(!bin.is_null());
    bin
}

fn function(bin: aclrtBinHandle, name: &str) -> aclrtFuncHandle {
    let name = CString::new(name).unwrap();
    let mut f: aclrtFuncHandle = null_mut();
    ok!(aclrtBinaryGetFunction(bin, name.as_ptr(), &mut f));
    f
}

fn h2d(dst: *mut c_void, bytes: &[u8]) {
    ok!(aclrtMemcpy(
        dst,
        bytes.len(),
        bytes.as_ptr().cast(),
        bytes.len(),
        ACL_MEMCPY_HOST_TO_DEVICE
    ));
}

fn d2h_f32(src: *mut c_void, n: usize) -> Vec<f32> {
    let mut out = vec![0f32; n];
    ok!(aclrtMemcpy(
        out.as_mut_ptr().cast(),
        4 * n,
        src,
        4 * n,
        ACL_MEMCPY_DEVICE_TO_HOST
    ));
    out
}

fn f32_bytes(v: &[f32]) -> Vec<u8> {
    v.iter().flat_map(|x| x.to_le_bytes()).collect()
}

/// The argument block [a, b, c, n] in a fresh device allocation.
fn device_args(ptrs: &[*mut c_void], n: u64) -> *mut c_void {
    let mut block: Vec<u8> = ptrs
        .iter()
        .flat_map(|p| (p.addr() as u64).to_le_bytes())
        .collect();
    block.extend_from_slice(&n.to_le_bytes());
    let d = malloc(block.len());
    h2d(d, &block);
    d
}

const N: usize = 1000;

fn inputs() -> (Vec<f32>, Vec<f32>) {
    let a: Vec<f32> = (0..N).map(|i| i as f32).collect();
    let b: Vec<f32> = (0..N).map(|i| 2.0 * i as f32 + 0.5).collect();
    (a, b)
}

#[test]
fn vector_add_end_to_end_in_both_run_modes() {
    let _sim = aclrt_sim::exclusive();
    register_vector_add();
    in_both_run_modes(|mode| {
        init_device0();
        let s = create_stream();
        let bin = load(&["vector_add"]);
        let f = function(bin, "vector_add");
        let (a, b) = inputs();
        let (da, db, dc) = (malloc(4 * N), malloc(4 * N), malloc(4 * N));
        h2d(da, &f32_bytes(&a));
        h2d(db, &f32_bytes(&b));
        let args = device_args(&[da, db, dc], N as u64);
        ok!(aclrtLaunchKernel(f, 7, args, 32, s));
        ok!(aclrtSynchronizeStream(s));
        let c = d2h_f32(dc, N);
        for i in 0..N {
            assert_eq!(c[i], a[i] + b[i], "{mode:?} element {i}");
        }
        // The same function handle comes back for the same name.
        assert_eq!(function(bin, "vector_add"), f);
        ok!(aclrtBinaryUnLoad(bin));
        for p in [da, db, dc, args] {
            free(p);
        }
        destroy_stream(s);
        teardown_device0();
        assert_clean();
    });
}

#[test]
fn a_launch_is_ordered_with_async_copies_on_its_stream() {
    let session = device0();
    register_vector_add();
    let s = create_stream();
    aclrt_sim::set_stream_delay(s, Duration::from_millis(2));
    let bin = load(&["vector_add"]);
    let f = function(bin, "vector_add");
    let (a, b) = inputs();
    let (da, db, dc) = (malloc(4 * N), malloc(4 * N), malloc(4 * N));
    let args = device_args(&[da, db, dc], N as u64);
    let (ha, hb, hc) = (malloc_host(4 * N), malloc_host(4 * N), malloc_host(4 * N));
    let (ab, bb) = (f32_bytes(&a), f32_bytes(&b));
    // SAFETY: ha/hb are live pinned allocations of 4 * N bytes; ab/bb hold
    // 4 * N bytes and do not overlap them.
    unsafe {
        std::ptr::copy_nonoverlapping(ab.as_ptr(), ha.cast(), 4 * N);
        std::ptr::copy_nonoverlapping(bb.as_ptr(), hb.cast(), 4 * N);
    }
    for (d, h) in [(da, ha), (db, hb)] {
        ok!(aclrtMemcpyAsync(
            d,
            4 * N,
            h,
            4 * N,
            ACL_MEMCPY_HOST_TO_DEVICE,
            s
        ));
    }
    ok!(aclrtLaunchKernel(f, 3, args, 32, s));
    ok!(aclrtMemcpyAsync(
        hc,
        4 * N,
        dc,
        4 * N,
        ACL_MEMCPY_DEVICE_TO_HOST,
        s
    ));
    ok!(aclrtSynchronizeStream(s));
    let mut c = vec![0f32; N];
    // SAFETY: hc is a live pinned allocation of 4 * N bytes, written by the
    // completed copy; c holds N f32s.
    unsafe { std::ptr::copy_nonoverlapping(hc.cast::<f32>(), c.as_mut_ptr(), N) };
    for i in 0..N {
        assert_eq!(c[i], a[i] + b[i]);
    }
    ok!(aclrtBinaryUnLoad(bin));
    for p in [da, db, dc, args] {
        free(p);
    }
    for p in [ha, hb, hc] {
        free_host(p);
    }
    destroy_stream(s);
    session.finish();
}

#[test]
fn an_args_handle_launch_with_a_placeholder() {
    let session = device0();
    // c[i] = a[i] * scale, scale from a placeholder (f32).
    aclrt_sim::register_kernel("scale", |block, nb, args| {
        let (a, c, n) = (args.u64(0)?, args.u64(1)?, args.u64(2)?);
        let ph = args
            .placeholder(3)
            .ok_or_else(|| aclrt_sim::KernelError::new("no placeholder"))?;
        let scale = f32::from_le_bytes(ph[..4].try_into().unwrap());
        let mut i = block as usize;
        while i < n as usize {
            args.write_f32(c, i, args.read_f32(a, i)? * scale)?;
            i += nb as usize;
        }
        Ok(())
    });
    let bin = load(&["scale"]);
    let f = function(bin, "scale");
    let (a, _) = inputs();
    let (da, dc) = (malloc(4 * N), malloc(4 * N));
    h2d(da, &f32_bytes(&a));
    let mut args: aclrtArgsHandle = null_mut();
    ok!(aclrtKernelArgsInit(f, &mut args));
    let mut ph: aclrtParamHandle = null_mut();
    for mut v in [da.addr() as u64, dc.addr() as u64, N as u64] {
        ok!(aclrtKernelArgsAppend(args, (&raw mut v).cast(), 8, &mut ph));
    }
    ok!(aclrtKernelArgsAppendPlaceHolder(args, &mut ph));
    // Launch before Finalize: 107000.
    assert_eq!(
        acl!(aclrtLaunchKernelWithConfig(
            f,
            2,
            null_mut(),
            null_mut(),
            args,
            null_mut()
        )),
        ACL_ERROR_RT_PARAM_INVALID
    );
    let mut buf: *mut c_void = null_mut();
    ok!(aclrtKernelArgsGetPlaceHolderBuffer(args, ph, 4, &mut buf));
    // SAFETY: buf points to 4 writable bytes of the args buffer.
    unsafe { buf.cast::<[u8; 4]>().write_unaligned(3.0f32.to_le_bytes()) };
    // Appending after GetPlaceHolderBuffer: 207000.
    let mut v = 0u64;
    let mut ph2: aclrtParamHandle = null_mut();
    assert_eq!(
        acl!(aclrtKernelArgsAppend(
            args,
            (&raw mut v).cast(),
            8,
            &mut ph2
        )),
        ACL_ERROR_RT_FEATURE_NOT_SUPPORT
    );
    ok!(aclrtKernelArgsFinalize(args));
    // reserve must be NULL.
    assert_eq!(
        acl!(aclrtLaunchKernelWithConfig(
            f,
            2,
            null_mut(),
            null_mut(),
            args,
            args
        )),
        ACL_ERROR_INVALID_PARAM
    );
    ok!(aclrtLaunchKernelWithConfig(
        f,
        2,
        null_mut(),
        null_mut(),
        args,
        null_mut()
    ));
    ok!(aclrtSynchronizeStream(null_mut()));
    let c = d2h_f32(dc, N);
    for i in 0..N {
        assert_eq!(c[i], a[i] * 3.0);
    }
    // Re-init returns the same per-thread handle and invalidates ph.
    let mut again: aclrtArgsHandle = null_mut();
    ok!(aclrtKernelArgsInit(f, &mut again));
    assert_eq!(again, args);
    assert_eq!(
        acl!(aclrtKernelArgsGetPlaceHolderBuffer(args, ph, 4, &mut buf)),
        ACL_ERROR_RT_INVALID_HANDLE
    );
    expect_violations(&[ViolationKind::InvalidHandle]);
    let _ = (bin, da, dc, session);
}

#[test]
fn args_handle_limits() {
    let session = device0();
    register_vector_add();
    let bin = load(&["vector_add"]);
    let f = function(bin, "vector_add");
    let mut args: aclrtArgsHandle = null_mut();
    ok!(aclrtKernelArgsInit(f, &mut args));
    let mut ph: aclrtParamHandle = null_mut();
    let mut v = 0u64;
    for _ in 0..128 {
        ok!(aclrtKernelArgsAppend(args, (&raw mut v).cast(), 8, &mut ph));
    }
    assert_eq!(
        acl!(aclrtKernelArgsAppend(args, (&raw mut v).cast(), 8, &mut ph)),
        ACL_ERROR_RT_PARAM_INVALID
    );
    ok!(aclrtKernelArgsInit(f, &mut args));
    let big = vec![0u8; 64 * 1024 + 1];
    assert_eq!(
        acl!(aclrtKernelArgsAppend(
            args,
            big.as_ptr().cast_mut().cast(),
            big.len(),
            &mut ph
        )),
        ACL_ERROR_RT_PARAM_INVALID
    );
    ok!(aclrtKernelArgsFinalize(args));
    assert_eq!(
        acl!(aclrtKernelArgsAppend(args, (&raw mut v).cast(), 8, &mut ph)),
        ACL_ERROR_RT_FEATURE_NOT_SUPPORT
    );
    ok!(aclrtBinaryUnLoad(bin));
    session.finish();
}

#[test]
fn unknown_kernel_name_is_a_violation() {
    let session = device0();
    register_vector_add();
    let bin = load(&["vector_add", "not_registered"]);
    let mut f: aclrtFuncHandle = null_mut();
    for name in [c"missing", c"not_registered"] {
        assert_eq!(
            acl!(aclrtBinaryGetFunction(bin, name.as_ptr(), &mut f)),
            ACL_ERROR_RT_PARAM_INVALID
        );
    }
    assert!(f.is_null());
    // Not a simulator binary.
    let junk = [1u8, 2, 3];
    let mut b2: aclrtBinHandle = null_mut();
    assert_eq!(
        acl!(aclrtBinaryLoadFromData(
            junk.as_ptr().cast(),
            3,
            null(),
            &mut b2
        )),
        ACL_ERROR_RT_PARAM_INVALID
    );
    ok!(aclrtBinaryUnLoad(bin));
    expect_violations(&[ViolationKind::UnknownKernel, ViolationKind::UnknownKernel]);
    let _ = session;
}

#[test]
fn launch_after_unload_is_a_violation() {
    let session = device0();
    register_vector_add();
    let bin = load(&["vector_add"]);
    let f = function(bin, "vector_add");
    let d = malloc(32);
    ok!(aclrtBinaryUnLoad(bin));
    assert_eq!(
        acl!(aclrtLaunchKernel(f, 1, d, 32, null_mut())),
        ACL_ERROR_RT_INVALID_HANDLE
    );
    assert_eq!(acl!(aclrtBinaryUnLoad(bin)), ACL_ERROR_RT_INVALID_HANDLE);
    free(d);
    expect_violations(&[ViolationKind::UseAfterFree, ViolationKind::UseAfterFree]);
    let _ = session;
}

#[test]
fn unload_with_a_pending_launch_is_refused() {
    let session = device0();
    register_vector_add();
    let s = create_stream();
    aclrt_sim::set_stream_delay(s, Duration::from_millis(100));
    let bin = load(&["vector_add"]);
    let f = function(bin, "vector_add");
    let (da, db, dc) = (malloc(64), malloc(64), malloc(64));
    let args = device_args(&[da, db, dc], 16);
    ok!(aclrtLaunchKernel(f, 1, args, 32, s));
    assert_eq!(
        acl!(aclrtBinaryUnLoad(bin)),
        ACL_ERROR_RT_STREAM_NOT_COMPLETE
    );
    ok!(aclrtSynchronizeStream(s));
    ok!(aclrtBinaryUnLoad(bin));
    for p in [da, db, dc, args] {
        free(p);
    }
    destroy_stream(s);
    expect_violations(&[ViolationKind::ReleaseWhileInUse]);
    let _ = session;
}

#[test]
fn a_kernel_touching_bad_memory_faults_at_the_next_sync_in_both_run_modes() {
    let _sim = aclrt_sim::exclusive();
    register_vector_add();
    in_both_run_modes(|mode| {
        init_device0();
        let s = create_stream();
        let bin = load(&["vector_add"]);
        let f = function(bin, "vector_add");
        let (da, db, dc) = (malloc(64), malloc(64), malloc(64));
        // n = 17 floats: one past the 64-byte allocations.
        let args = device_args(&[da, db, dc], 17);
        ok!(aclrtLaunchKernel(f, 1, args, 32, s));
        assert_eq!(
            acl!(aclrtSynchronizeStream(s)),
            aclrt_sim::KERNEL_FAULT_CODE,
            "{mode:?}"
        );
        // A pointer argument that is not device memory: application memory.
        let host = [0f32; 16];
        let args2 = device_args(&[host.as_ptr().cast_mut().cast(), db, dc], 16);
        ok!(aclrtLaunchKernel(f, 2, args2, 32, s));
        assert_eq!(
            acl!(aclrtSynchronizeStream(s)),
            aclrt_sim::KERNEL_FAULT_CODE
        );
        // argsData that is not device memory is refused at launch.
        let block = [0u64; 4];
        assert_eq!(
            acl!(aclrtLaunchKernel(f, 1, block.as_ptr().cast(), 32, s)),
            ACL_ERROR_RT_PARAM_INVALID
        );
        let kinds = violation_kinds();
        assert_eq!(
            kinds,
            [
                ViolationKind::KernelBadAccess,
                ViolationKind::KernelBadAccess,
                ViolationKind::KernelBadAccess
            ],
            "{mode:?}"
        );
        ok!(aclrtBinaryUnLoad(bin));
        for p in [da, db, dc, args, args2] {
            free(p);
        }
        destroy_stream(s);
        teardown_device0();
    });
    aclrt_sim::reset();
}

#[test]
fn launch_on_a_destroyed_stream_and_zero_blocks() {
    let session = device0();
    register_vector_add();
    let bin = load(&["vector_add"]);
    let f = function(bin, "vector_add");
    let d = malloc(32);
    assert_eq!(
        acl!(aclrtLaunchKernel(f, 0, d, 32, null_mut())),
        ACL_ERROR_RT_PARAM_INVALID
    );
    let s = create_stream();
    destroy_stream(s);
    assert_eq!(
        acl!(aclrtLaunchKernel(f, 1, d, 32, s)),
        ACL_ERROR_RT_INVALID_HANDLE
    );
    free(d);
    ok!(aclrtBinaryUnLoad(bin));
    expect_violations(&[ViolationKind::UseAfterFree]);
    let _ = session;
}

#[test]
fn a_function_runs_only_on_devices_where_it_was_looked_up() {
    let session = device0();
    register_vector_add();
    let bin = load(&["vector_add"]);
    let f = function(bin, "vector_add");
    ok!(aclrtSetDevice(1));
    let d = malloc(32);
    // Device 1 never had a GetFunction of this binary: 107017.
    assert_eq!(
        acl!(aclrtLaunchKernel(f, 1, d, 32, null_mut())),
        ACL_ERROR_RT_INVALID_HANDLE
    );
    free(d);
    ok!(aclrtResetDevice(1));
    ok!(aclrtBinaryUnLoad(bin));
    session.finish();
}

#[test]
fn load_from_file_and_option_checks() {
    let session = device0();
    register_vector_add();
    let path = std::env::temp_dir().join(format!("aclrt-sim-kernel-{}.bin", std::process::id()));
    std::fs::write(&path, aclrt_sim::binary_image(&["vector_add"])).unwrap();
    let cpath = CString::new(path.to_str().unwrap()).unwrap();
    let mut bin: aclrtBinHandle = null_mut();
    ok!(aclrtBinaryLoadFromFile(
        cpath.as_ptr(),
        null_mut(),
        &mut bin
    ));
    let _ = function(bin, "vector_add");
    ok!(aclrtBinaryUnLoad(bin));
    // options non-NULL with a NULL array: 107000; MAGIC for a file: 107000.
    let mut opts = aclrtBinaryLoadOptions {
        options: null_mut(),
        numOpt: 0,
    };
    assert_eq!(
        acl!(aclrtBinaryLoadFromFile(cpath.as_ptr(), &mut opts, &mut bin)),
        ACL_ERROR_RT_PARAM_INVALID
    );
    let mut one = aclrtBinaryLoadOption {
        type_: ACL_RT_BINARY_LOAD_OPT_MAGIC,
        value: aclrtBinaryLoadOptionValue {
            magic: ACL_RT_BINARY_MAGIC_ELF_AICORE as u32,
        },
    };
    opts.options = &mut one;
    opts.numOpt = 1;
    assert_eq!(
        acl!(aclrtBinaryLoadFromFile(cpath.as_ptr(), &mut opts, &mut bin)),
        ACL_ERROR_RT_PARAM_INVALID
    );
    let missing = c"/nonexistent/aclrt-sim.bin";
    assert_eq!(
        acl!(aclrtBinaryLoadFromFile(
            missing.as_ptr(),
            null_mut(),
            &mut bin
        )),
        ACL_ERROR_RT_PARAM_INVALID
    );
    std::fs::remove_file(&path).unwrap();
    session.finish();
}

#[test]
fn kernel_constants_and_layouts_match_the_facts() {
    assert_eq!(ACL_RT_BINARY_LOAD_OPT_LAZY_LOAD, 1);
    assert_eq!(ACL_RT_BINARY_LOAD_OPT_MAGIC, 2);
    assert_eq!(ACL_RT_BINARY_LOAD_OPT_LAZY_MAGIC, 2);
    assert_eq!(ACL_RT_BINARY_LOAD_OPT_CPU_KERNEL_MODE, 3);
    assert_eq!(ACL_RT_BINARY_MAGIC_ELF_AICORE as u32, 0x4355_4245);
    assert_eq!(ACL_RT_BINARY_MAGIC_ELF_VECTOR_CORE as u32, 0x4141_5246);
    assert_eq!(ACL_RT_BINARY_MAGIC_ELF_CUBE_CORE as u32, 0x4149_4343);
    assert_eq!(ACL_RT_LAUNCH_KERNEL_ATTR_TIMEOUT_US, 8);
    assert_eq!(ACL_RT_ENGINE_TYPE_AIV, 1);
    assert_eq!(ACL_ERROR_RT_KERNEL_LOOKUP, 507027);
    assert_eq!(ACL_ERROR_RT_STREAM_ABORT, 107023);
    assert_eq!(size_of::<aclrtBinaryLoadOption>(), 20);
    assert_eq!(align_of::<aclrtBinaryLoadOption>(), 4);
    assert_eq!(std::mem::offset_of!(aclrtBinaryLoadOption, value), 4);
    assert_eq!(size_of::<aclrtBinaryLoadOptions>(), 16);
    assert_eq!(size_of::<aclrtLaunchKernelAttrValue>(), 16);
    assert_eq!(size_of::<aclrtLaunchKernelAttr>(), 20);
    assert_eq!(std::mem::offset_of!(aclrtLaunchKernelAttr, value), 4);
    assert_eq!(size_of::<aclrtLaunchKernelCfg>(), 16);
}

/// The function handle caches its kernel; a `register_kernel` of the same
/// name after a launch must still take effect at the next launch through
/// the same handle (both entry points), in both run modes.
#[test]
fn a_kernel_registered_again_runs_at_the_next_launch_of_the_same_handle() {
    let _sim = aclrt_sim::exclusive();
    let fill = |value: f32| {
        aclrt_sim::register_kernel("t_refill", move |_, _, args| {
            args.write_f32(args.u64(0)?, 0, value)
        })
    };
    in_both_run_modes(|mode| {
        fill(1.0);
        init_device0();
        let s = create_stream();
        let bin = load(&["t_refill"]);
        let f = function(bin, "t_refill");
        let out = malloc(4);
        let args = device_args(&[out], 0);
        for value in [1.0f32, 2.0, 3.0] {
            fill(value);
            ok!(aclrtLaunchKernel(f, 1, args, 16, s));
            ok!(aclrtSynchronizeStream(s));
            assert_eq!(d2h_f32(out, 1), [value], "{mode:?} aclrtLaunchKernel");
            // The same through an args handle and aclrtLaunchKernelWithConfig.
            fill(value + 10.0);
            let (mut list, mut param): (aclrtArgsHandle, aclrtParamHandle) =
                (null_mut(), null_mut());
            let mut addr = out.addr() as u64;
            ok!(aclrtKernelArgsInit(f, &mut list));
            ok!(aclrtKernelArgsAppend(
                list,
                (&raw mut addr).cast(),
                8,
                &mut param
            ));
            ok!(aclrtKernelArgsFinalize(list));
            ok!(aclrtLaunchKernelWithConfig(
                f,
                1,
                s,
                null_mut(),
                list,
                null_mut()
            ));
            ok!(aclrtSynchronizeStream(s));
            assert_eq!(d2h_f32(out, 1), [value + 10.0], "{mode:?} with config");
        }
        ok!(aclrtBinaryUnLoad(bin));
        free(out);
        free(args);
        destroy_stream(s);
        teardown_device0();
        assert_clean();
    });
}
