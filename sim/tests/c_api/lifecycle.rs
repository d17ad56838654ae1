//! Init/finalize, devices, contexts, streams, memory and messages through
//! the C ABI.

use crate::common;
use common::*;

#[test]
fn every_declared_function_is_exported() {
    // The compile-time signature check covers the functions of the list;
    // this checks that the list covers the header.
    let bindings = include_str!("../../../sys/src/bindings.rs");
    let declared: Vec<&str> = bindings
        .lines()
        .filter_map(|l| l.trim().strip_prefix("pub fn "))
        .filter_map(|l| l.split('(').next())
        .collect();
    assert!(declared.len() >= 60, "{declared:?}");
    let _sim = aclrt_sim::exclusive();
    // The base-type functions and the logger return no aclError: no fault
    // can be injected into them and they are not counted. They are exported
    // all the same (sys/tests/c_programs.rs links every declared function
    // from libascendcl.so), and called below.
    let not_failable = [
        "aclFloat16ToFloat",
        "aclFloatToFloat16",
        "aclDataTypeSize",
        "aclAppLog",
    ];
    for name in declared.iter().filter(|n| !not_failable.contains(n)) {
        // inject_fault panics for names the simulator does not export.
        aclrt_sim::inject_fault(name, 1, 1);
    }
    assert!(not_failable.iter().all(|n| declared.contains(n)));
    // SAFETY: plain values in and out; the format is a literal with one
    // `%d` matched by one int.
    unsafe {
        assert_eq!(aclFloat16ToFloat(aclFloatToFloat16(0.5)), 0.5);
        assert_eq!(aclDataTypeSize(ACL_FLOAT16), 2);
        aclAppLog(
            ACL_DEBUG,
            c"f".as_ptr(),
            c"x.rs".as_ptr(),
            1,
            c"%d".as_ptr(),
            1i32,
        );
    }
    aclrt_sim::clear_faults();
}

#[test]
fn init_refcount_and_finalize_rules() {
    let _sim = aclrt_sim::exclusive();
    ok!(aclInit(null()));
    assert_eq!(acl!(aclInit(null())), ACL_ERROR_REPEAT_INITIALIZE);
    let mut n = 0u64;
    ok!(aclFinalizeReference(&mut n));
    assert_eq!(n, 1);
    assert!(aclrt_sim::audit().initialized);
    ok!(aclFinalizeReference(&mut n));
    assert_eq!(n, 0);
    assert!(!aclrt_sim::audit().initialized);
    assert_eq!(acl!(aclFinalize()), ACL_ERROR_REPEAT_FINALIZE);
    assert_eq!(
        acl!(aclFinalizeReference(null_mut())),
        ACL_ERROR_REPEAT_FINALIZE
    );
    ok!(aclInit(null()));
    ok!(aclFinalize());
    assert_clean();
}

#[test]
fn device_refcount_default_context_and_get_device() {
    let _sim = aclrt_sim::exclusive();
    ok!(aclInit(null()));
    let mut d = -1;
    assert_eq!(acl!(aclrtGetDevice(&mut d)), ACL_ERROR_RT_CONTEXT_NULL);
    assert_eq!(acl!(aclrtSetDevice(2)), ACL_ERROR_RT_INVALID_DEVICEID);
    let msg = recent_err_msg().unwrap();
    assert!(
        msg.starts_with("aclrtSetDevice: device id 2 is invalid"),
        "{msg}"
    );
    assert_eq!(
        recent_err_msg().as_deref(),
        Some(msg.as_str()),
        "the message is kept (not cleared on read)"
    );
    ok!(aclrtSetDevice(1));
    ok!(aclrtSetDevice(1));
    ok!(aclrtGetDevice(&mut d));
    assert_eq!(d, 1);
    let mut ctx = null_mut();
    ok!(aclrtGetCurrentContext(&mut ctx));
    assert_eq!(acl!(aclrtDestroyContext(ctx)), ACL_ERROR_RT_CONTEXT_NULL);
    ok!(aclrtResetDevice(1));
    assert_eq!(
        aclrt_sim::audit().live.get(&(ResourceKind::Device, 1)),
        Some(&1)
    );
    ok!(aclrtResetDevice(1));
    assert_eq!(
        acl!(aclrtResetDevice(1)),
        ACL_ERROR_RT_CONTEXT_RELEASE_ERROR
    );
    assert_eq!(acl!(aclrtGetDevice(&mut d)), ACL_ERROR_RT_CONTEXT_NULL);
    ok!(aclFinalize());
    assert_clean();
}

#[test]
fn explicit_context_is_current_and_leaves_no_context_when_destroyed() {
    let _sim = aclrt_sim::exclusive();
    init_device0();
    let mut primary = null_mut();
    ok!(aclrtGetCurrentContext(&mut primary));
    let mut ctx = null_mut();
    ok!(aclrtCreateContext(&mut ctx, 1));
    let mut cur = null_mut();
    ok!(aclrtGetCurrentContext(&mut cur));
    assert_eq!(cur, ctx);
    let mut d = -1;
    ok!(aclrtGetDevice(&mut d));
    assert_eq!(d, 1);
    ok!(aclrtDestroyContext(ctx));
    // The explicit context is gone, and with it the thread's context:
    // creating it dropped the binding of aclrtSetDevice.
    assert_eq!(
        acl!(aclrtGetCurrentContext(&mut cur)),
        ACL_ERROR_RT_CONTEXT_NULL
    );
    assert_eq!(acl!(aclrtGetDevice(&mut d)), ACL_ERROR_RT_CONTEXT_NULL);
    ok!(aclrtSetCurrentContext(primary));
    ok!(aclrtGetCurrentContext(&mut cur));
    assert_eq!(cur, primary);
    assert_eq!(acl!(aclrtDestroyContext(ctx)), ACL_ERROR_RT_CONTEXT_NULL);
    assert_eq!(violation_kinds(), vec![ViolationKind::UseAfterFree]);
    teardown_device0();
}

#[test]
fn streams_count_against_the_limit() {
    let session = device0();
    let mut avail = 0u32;
    ok!(aclrtGetStreamAvailableNum(&mut avail));
    assert_eq!(avail, 1023, "the default stream counts");
    let mut streams = Vec::new();
    loop {
        let mut s = null_mut();
        let code = acl!(aclrtCreateStream(&mut s));
        if code != 0 {
            assert_eq!(code, ACL_ERROR_RT_NO_STREAM_RESOURCE);
            break;
        }
        streams.push(s);
    }
    assert_eq!(streams.len(), 1023);
    for s in streams {
        ok!(aclrtDestroyStream(s));
    }
    assert_eq!(
        acl!(aclrtDestroyStream(null_mut())),
        ACL_ERROR_INVALID_PARAM
    );
    session.finish();
}

#[test]
fn malloc_sizes_alignment_and_memory_accounting() {
    let _sim = aclrt_sim::exclusive();
    aclrt_sim::configure(SimConfig {
        memory_per_device: Some(1 << 20),
        ..SimConfig::default()
    });
    init_device0();
    let (mut free0, mut total) = (0usize, 0usize);
    ok!(aclrtGetMemInfo(ACL_HBM_MEM, &mut free0, &mut total));
    assert_eq!((free0, total), (1 << 20, 1 << 20));
    let p = malloc(100);
    assert_eq!(p.addr() % 64, 0);
    let mut free1 = 0usize;
    ok!(aclrtGetMemInfo(ACL_HBM_MEM, &mut free1, &mut total));
    assert_eq!(free0 - free1, 128 + 32, "ALIGN_UP(100, 32) + 32");
    let mut q = null_mut();
    ok!(aclrtMallocAlign32(&mut q, 100, ACL_MEM_MALLOC_HUGE_FIRST));
    ok!(aclrtGetMemInfo(ACL_HBM_MEM, &mut free1, &mut total));
    assert_eq!(free0 - free1, 160 + 128);
    let mut big = null_mut();
    assert_eq!(
        acl!(aclrtMalloc(&mut big, 1 << 20, ACL_MEM_MALLOC_HUGE_FIRST)),
        ACL_ERROR_RT_MEMORY_ALLOCATION
    );
    assert!(big.is_null());
    assert_eq!(
        acl!(aclrtMalloc(&mut big, 0, ACL_MEM_MALLOC_HUGE_FIRST)),
        ACL_ERROR_INVALID_PARAM
    );
    let h = malloc_host(10);
    assert_eq!(h.addr() % 64, 0);
    ok!(aclrtFree(p));
    ok!(aclrtFree(q));
    ok!(aclrtFreeHost(h));
    ok!(aclrtGetMemInfo(ACL_HBM_MEM, &mut free1, &mut total));
    assert_eq!(free1, free0);
    teardown_device0();
    assert_clean();
}

#[test]
fn sync_copies_memset_and_2d() {
    let session = device0();
    let d = malloc(256);
    let data: Vec<u8> = (0..=255).collect();
    h2d(d, &data);
    assert_eq!(read_device(d, 256), data);
    ok!(aclrtMemset(d, 256, 0x1AB, 16));
    assert_eq!(&read_device(d, 16)[..], &[0xAB; 16]);
    // 2-D: 4 rows of 8 bytes from a 16-byte pitch host buffer.
    let src: Vec<u8> = (0..64).collect();
    ok!(aclrtMemcpy2d(
        d,
        8,
        src.as_ptr().cast(),
        16,
        8,
        4,
        ACL_MEMCPY_HOST_TO_DEVICE
    ));
    let got = read_device(d, 32);
    let want: Vec<u8> = (0..4)
        .flat_map(|r| (r * 16..r * 16 + 8).map(|b| b as u8))
        .collect();
    assert_eq!(got, want);
    assert_eq!(
        acl!(aclrtMemcpy(
            d,
            64,
            src.as_ptr().cast(),
            128,
            ACL_MEMCPY_HOST_TO_DEVICE
        )),
        ACL_ERROR_RT_PARAM_INVALID,
        "count > destMax"
    );
    let msg = recent_err_msg().unwrap();
    assert_eq!(msg, "aclrtMemcpy: count 128 exceeds destMax 64");
    ok!(aclrtMemcpy(
        null_mut(),
        0,
        null(),
        0,
        ACL_MEMCPY_HOST_TO_DEVICE
    ));
    ok!(aclrtFree(d));
    session.finish();
}

#[test]
fn versions_and_soc_name() {
    let _sim = aclrt_sim::exclusive();
    let (mut a, mut b, mut c) = (0, 0, 0);
    ok!(aclrtGetVersion(&mut a, &mut b, &mut c));
    assert_eq!((a, b, c), (1, 17, 0));
    let mut name = *b"runtime\0";
    let mut buf = [0 as std::ffi::c_char; 128];
    ok!(aclsysGetVersionStr(
        name.as_mut_ptr().cast(),
        buf.as_mut_ptr()
    ));
    // SAFETY: the buffer was NUL-terminated by the call.
    let s = unsafe { std::ffi::CStr::from_ptr(buf.as_ptr()) };
    assert_eq!(s.to_str().unwrap(), "9.0.0");
    let mut v = ACL_PKG_NAME_CANN;
    // SAFETY: the struct is plain data; all-zero is a valid value.
    let mut pv: aclCANNPackageVersion = unsafe { std::mem::zeroed() };
    ok!(aclsysGetCANNVersion(v, &mut pv));
    v = 99;
    assert_eq!(
        acl!(aclsysGetCANNVersion(v, &mut pv)),
        ACL_ERROR_INVALID_PARAM
    );
    let soc = acl!(aclrtGetSocName());
    // SAFETY: aclrtGetSocName returns a static NUL-terminated string.
    let soc = unsafe { std::ffi::CStr::from_ptr(soc) };
    assert_eq!(soc.to_str().unwrap(), "Ascend910B-sim");
    let counts = aclrt_sim::call_counts();
    assert_eq!(counts[0], ("aclrtGetVersion", 1));
    assert_eq!(aclrt_sim::total_calls(), 5);
    aclrt_sim::reset_call_counts();
    assert_eq!(aclrt_sim::total_calls(), 0);
}

#[test]
fn error_messages_are_per_thread() {
    let _sim = aclrt_sim::exclusive();
    ok!(aclInit(null()));
    assert_eq!(acl!(aclrtSetDevice(-1)), ACL_ERROR_RT_INVALID_DEVICEID);
    let other = std::thread::spawn(recent_err_msg).join().unwrap();
    assert_eq!(other, None);
    assert!(recent_err_msg().is_some());
    ok!(aclFinalize());
}
