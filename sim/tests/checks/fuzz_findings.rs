//! Regression tests for what the C-ABI fuzzer (`fuzz/`) found in
//! the simulator, at the C level (the minimised call sequences themselves
//! are replayed by `fuzz/tests/smoke.rs` from `fuzz/regressions/`). The
//! finalize that recorded into the next runtime's audit is in
//! `epochs.rs` (`a_finalize_finishing_after_a_reset_records_nothing_in_the_new_audit`).

use crate::common;
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
            // Success, as the hardware's teardown (the leak is recorded).
            assert_eq!(acl!(aclFinalize()), ACL_SUCCESS);
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

static SELF_WAIT_STREAM: AtomicUsize = AtomicUsize::new(0);
static SELF_WAIT_CODES: [std::sync::atomic::AtomicI32; 2] = [
    std::sync::atomic::AtomicI32::new(-1),
    std::sync::atomic::AtomicI32::new(-1),
];

/// Blocking callback: synchronises its own stream, then the device.
unsafe extern "C" fn sync_own_stream(_: *mut c_void) {
    let s = SELF_WAIT_STREAM.load(Ordering::SeqCst) as aclrtStream;
    // SAFETY: plain C calls; `s` is a handle (never dereferenced).
    let (a, b) = unsafe { (aclrtSynchronizeStream(s), aclrtSynchronizeDevice()) };
    SELF_WAIT_CODES[0].store(a, Ordering::SeqCst);
    SELF_WAIT_CODES[1].store(b, Ordering::SeqCst);
}

/// Found by aclrt-fuzz (long run 5, after merging the callback-mechanism
/// fidelity rows): a blocking callback run by `aclrtProcessReport` that
/// synchronises the stream waiting for it deadlocked (the self-wait check
/// knew only host functions on the stream's own worker). It is the same
/// self-wait (STRICT-SELF-WAIT): 107000, for the callback's own stream and
/// for the device.
#[test]
fn a_blocking_callback_that_waits_for_its_own_stream_is_refused() {
    let _sim = aclrt_sim::exclusive();
    in_both_run_modes(|_| {
        init_device0();
        let s = create_stream();
        SELF_WAIT_STREAM.store(s as usize, Ordering::SeqCst);
        for c in &SELF_WAIT_CODES {
            c.store(-1, Ordering::SeqCst);
        }
        let ctx = current_context() as usize;
        let sh = s as usize;
        let (tx, rx) = std::sync::mpsc::channel();
        std::thread::spawn(move || {
            ok!(aclrtSetCurrentContext(ctx as aclrtContext));
            let me = aclrt_sim::thread_report_id();
            let s = sh as aclrtStream;
            ok!(aclrtSubscribeReport(me, s));
            ok!(aclrtLaunchCallback(
                Some(sync_own_stream),
                null_mut(),
                ACL_CALLBACK_BLOCK,
                s
            ));
            ok!(aclrtProcessReport(10_000));
            ok!(aclrtSynchronizeStream(s));
            ok!(aclrtUnSubscribeReport(me, s));
            let _ = tx.send(());
        });
        assert!(
            rx.recv_timeout(Duration::from_secs(30)).is_ok(),
            "the callback deadlocked on its own stream"
        );
        assert_eq!(
            SELF_WAIT_CODES[0].load(Ordering::SeqCst),
            ACL_ERROR_RT_PARAM_INVALID
        );
        assert_eq!(
            SELF_WAIT_CODES[1].load(Ordering::SeqCst),
            ACL_ERROR_RT_PARAM_INVALID
        );
        destroy_stream(s);
        teardown_device0();
        aclrt_sim::reset();
    });
}
