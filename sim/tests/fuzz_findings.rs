//! Regression tests for what the C-ABI fuzzer (`fuzz/`, issue 27) found in
//! the simulator, at the C level (the minimised call sequences themselves
//! are replayed by `fuzz/tests/smoke.rs` from `fuzz/regressions/`). The
//! finalize that recorded into the next runtime's audit is in
//! `epochs.rs` (`a_finalize_finishing_after_a_reset_records_nothing_in_the_new_audit`).

mod common;
use common::*;

/// `aclrtKernelArgsGetPlaceHolderBuffer` with a `dataSize` near
/// `usize::MAX`: the bounds check overflowed (a panic caught as 500000 in
/// debug builds, a wrapped check in release ones); it is a parameter error.
#[test]
fn a_huge_placeholder_size_is_a_parameter_error() {
    let session = device0();
    let img = aclrt_sim::binary_image(&["fz_k"]);
    aclrt_sim::register_kernel("fz_k", |_, _, _| Ok(()));
    let mut bin: aclrtBinHandle = null_mut();
    ok!(aclrtBinaryLoadFromData(
        img.as_ptr().cast(),
        img.len(),
        null(),
        &mut bin
    ));
    let mut f: aclrtFuncHandle = null_mut();
    ok!(aclrtBinaryGetFunction(bin, c"fz_k".as_ptr(), &mut f));
    let mut args: aclrtArgsHandle = null_mut();
    ok!(aclrtKernelArgsInit(f, &mut args));
    let mut ph: aclrtParamHandle = null_mut();
    ok!(aclrtKernelArgsAppendPlaceHolder(args, &mut ph));
    for size in [usize::MAX, usize::MAX - 7, 1 << 63, 64 << 10] {
        let mut buf: *mut c_void = null_mut();
        let code = acl!(aclrtKernelArgsGetPlaceHolderBuffer(
            args, ph, size, &mut buf
        ));
        assert_eq!(code, ACL_ERROR_RT_PARAM_INVALID, "dataSize {size}");
        assert!(buf.is_null());
    }
    // A size that fits still works.
    let mut buf: *mut c_void = null_mut();
    ok!(aclrtKernelArgsGetPlaceHolderBuffer(args, ph, 64, &mut buf));
    assert!(!buf.is_null());
    ok!(aclrtBinaryUnLoad(bin));
    session.finish();
}

static BLOCKS_RUN: AtomicUsize = AtomicUsize::new(0);

/// Found by aclrt-fuzz (a 2^32 - 1 block launch): a long kernel kept
/// running on a pool worker after `aclFinalize` (which waited 5 s for it,
/// then left it behind), into the next runtime. A teardown now stops it
/// between two blocks, as an abort does.
#[test]
fn a_teardown_stops_a_long_kernel_between_blocks() {
    let _sim = aclrt_sim::exclusive();
    for teardown in ["finalize", "reset"] {
        aclrt_sim::reset();
        init_device0();
        aclrt_sim::register_kernel("fz_count", |_, _, _| {
            BLOCKS_RUN.fetch_add(1, Ordering::SeqCst);
            Ok(())
        });
        let img = aclrt_sim::binary_image(&["fz_count"]);
        let mut bin: aclrtBinHandle = null_mut();
        ok!(aclrtBinaryLoadFromData(
            img.as_ptr().cast(),
            img.len(),
            null(),
            &mut bin
        ));
        let mut f: aclrtFuncHandle = null_mut();
        ok!(aclrtBinaryGetFunction(bin, c"fz_count".as_ptr(), &mut f));
        let mut args: aclrtArgsHandle = null_mut();
        ok!(aclrtKernelArgsInit(f, &mut args));
        ok!(aclrtKernelArgsFinalize(args));
        let s = create_stream();
        let before = BLOCKS_RUN.load(Ordering::SeqCst);
        ok!(aclrtLaunchKernelWithConfig(
            f,
            u32::MAX,
            s,
            null_mut(),
            args,
            null_mut()
        ));
        assert!(wait_until(
            || BLOCKS_RUN.load(Ordering::SeqCst) > before + 1000
        ));
        if teardown == "finalize" {
            assert_eq!(acl!(aclFinalize()), ACL_ERROR_RT_CONTEXT_RELEASE_ERROR);
        } else {
            aclrt_sim::reset();
        }
        // Stopped: no block runs after the teardown returned.
        let stopped = BLOCKS_RUN.load(Ordering::SeqCst);
        std::thread::sleep(Duration::from_millis(100));
        assert_eq!(BLOCKS_RUN.load(Ordering::SeqCst), stopped, "{teardown}");
        assert!(stopped < before + u32::MAX as usize);
    }
    aclrt_sim::reset();
}
