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
