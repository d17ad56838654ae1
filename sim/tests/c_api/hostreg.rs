//! Host registration (`aclrtHostRegister*`, F.4) and managed memory
//! (`aclrtMemAllocManaged`, F.5), through the C ABI, in both run modes.

use crate::common;
use common::*;

use std::alloc::{Layout, alloc_zeroed, dealloc};

/// Page-aligned application memory (what the user must register).
struct Pages {
    ptr: *mut u8,
    layout: Layout,
}

impl Pages {
    fn new(len: usize) -> Pages {
        let layout = Layout::from_size_align(len, 4096).unwrap();
        // SAFETY: non-zero size, power-of-two alignment.
        let ptr = unsafe { alloc_zeroed(layout) };
        assert!(!ptr.is_null());
        Pages { ptr, layout }
    }
    fn p(&self) -> *mut c_void {
        self.ptr.cast()
    }
    fn at(&self, off: usize) -> *mut c_void {
        self.ptr.wrapping_add(off).cast()
    }
    fn bytes(&self) -> &[u8] {
        // SAFETY: `ptr` is a live allocation of `layout.size()` bytes; the
        // tests only read it after synchronising every stream that wrote it.
        unsafe { std::slice::from_raw_parts(self.ptr, self.layout.size()) }
    }
    fn fill(&mut self, v: u8) {
        // SAFETY: as above, and no task uses the memory meanwhile.
        unsafe { std::ptr::write_bytes(self.ptr, v, self.layout.size()) }
    }
}

impl Drop for Pages {
    fn drop(&mut self) {
        // SAFETY: allocated with exactly this layout.
        unsafe { dealloc(self.ptr, self.layout) }
    }
}

fn register(p: *mut c_void, size: u64) -> *mut c_void {
    let mut dev = null_mut();
    ok!(aclrtHostRegister(
        p,
        size,
        ACL_HOST_REGISTER_MAPPED,
        &mut dev
    ));
    dev
}

#[test]
fn register_gives_a_distinct_device_alias_and_unregister_needs_the_base() {
    let _sim = aclrt_sim::exclusive();
    in_both_run_modes(|_| {
        init_device0();
        let pages = Pages::new(8192);
        let alias = register(pages.p(), 8192);
        assert!(!alias.is_null());
        assert_ne!(alias, pages.p(), "the device alias is not the host address");
        assert_eq!(live(ResourceKind::HostRegistration, 0), 1);
        // GetDevicePointer gives the same alias (and interior offsets).
        let mut d = null_mut();
        ok!(aclrtHostGetDevicePointer(pages.p(), &mut d, 0));
        assert_eq!(d, alias);
        ok!(aclrtHostGetDevicePointer(pages.at(100), &mut d, 0));
        assert_eq!(d.addr(), alias.addr() + 100);
        assert_eq!(
            acl!(aclrtHostGetDevicePointer(pages.p(), &mut d, 1)),
            ACL_ERROR_INVALID_PARAM
        );
        // Unregister needs the exact base address.
        assert_eq!(
            acl!(aclrtHostUnregister(pages.at(4096))),
            ACL_ERROR_HOST_MEMORY_NOT_REGISTERED
        );
        assert!(
            recent_err_msg()
                .unwrap()
                .contains("inside the registration")
        );
        ok!(aclrtHostUnregister(pages.p()));
        assert_eq!(
            acl!(aclrtHostUnregister(pages.p())),
            ACL_ERROR_HOST_MEMORY_NOT_REGISTERED
        );
        assert_eq!(
            acl!(aclrtHostGetDevicePointer(pages.p(), &mut d, 0)),
            ACL_ERROR_RT_PARAM_INVALID
        );
        teardown_device0();
        assert_clean();
    });
}

#[test]
fn register_argument_rules() {
    let _session = device0();
    let pages = Pages::new(3 * 4096);
    let mut dev = null_mut();
    // NULL / size 0: the ACL layer's 100000.
    assert_eq!(
        acl!(aclrtHostRegister(null_mut(), 4096, 0, &mut dev)),
        ACL_ERROR_INVALID_PARAM
    );
    assert_eq!(
        acl!(aclrtHostRegister(pages.p(), 4096, 0, null_mut())),
        ACL_ERROR_INVALID_PARAM
    );
    assert_eq!(
        acl!(aclrtHostRegister(pages.p(), 0, 0, &mut dev)),
        ACL_ERROR_INVALID_PARAM
    );
    // Types: bits outside IOMEMORY|READONLY, and the reserved values.
    for ty in [
        1,
        2,
        0x10,
        ACL_HOST_REGISTER_IOMEMORY,
        ACL_HOST_REGISTER_READONLY,
        12,
    ] {
        assert_eq!(
            acl!(aclrtHostRegister(pages.p(), 4096, ty, &mut dev)),
            ACL_ERROR_RT_FEATURE_NOT_SUPPORT,
            "type {ty:#x}"
        );
    }
    // Page alignment.
    assert_eq!(
        acl!(aclrtHostRegister(pages.at(64), 4096, 0, &mut dev)),
        ACL_ERROR_RT_ADDR_UNALIGNED
    );
    assert!(recent_err_msg().unwrap().contains("page-aligned"));
    // Overlap with a live registration: 507910.
    let _alias = register(pages.at(4096), 4096);
    assert_eq!(
        acl!(aclrtHostRegister(pages.p(), 2 * 4096, 0, &mut dev)),
        ACL_ERROR_HOST_MEMORY_ALREADY_REGISTERED
    );
    assert_eq!(
        acl!(aclrtHostRegisterV2(
            pages.at(4096),
            4096,
            ACL_HOST_REG_MAPPED as u32
        )),
        ACL_ERROR_HOST_MEMORY_ALREADY_REGISTERED
    );
    // Adjacent ranges are fine.
    let _a2 = register(pages.p(), 4096);
    ok!(aclrtHostUnregister(pages.p()));
    ok!(aclrtHostUnregister(pages.at(4096)));
    // Device memory cannot be registered.
    let d = malloc(4096);
    let code = acl!(aclrtHostRegister(d, 64, 0, &mut dev));
    assert_ne!(code, ACL_SUCCESS);
    free(d);
    assert_eq!(violation_kinds(), vec![ViolationKind::KindMismatch]);
    aclrt_sim::reset();
}

#[test]
fn register_v2_flags_and_device_pointer() {
    let session = device0();
    let pages = Pages::new(4096);
    for flag in [0u32, 1, 0x20, 0x2000_0000] {
        assert_eq!(
            acl!(aclrtHostRegisterV2(pages.p(), 4096, flag)),
            ACL_ERROR_RT_PARAM_INVALID,
            "flag {flag:#x}"
        );
    }
    for flag in [ACL_HOST_REG_IOMEMORY, ACL_HOST_REG_READONLY] {
        assert_eq!(
            acl!(aclrtHostRegisterV2(pages.p(), 4096, flag as u32)),
            ACL_ERROR_RT_FEATURE_NOT_SUPPORT
        );
    }
    // PINNED only: registered, but without a device alias.
    ok!(aclrtHostRegisterV2(
        pages.p(),
        4096,
        ACL_HOST_REG_PINNED as u32
    ));
    let mut d = null_mut();
    assert_eq!(
        acl!(aclrtHostGetDevicePointer(pages.p(), &mut d, 0)),
        ACL_ERROR_RT_PARAM_INVALID
    );
    ok!(aclrtHostUnregister(pages.p()));
    ok!(aclrtHostRegisterV2(
        pages.p(),
        4096,
        (ACL_HOST_REG_MAPPED | ACL_HOST_REG_PINNED) as u32
    ));
    ok!(aclrtHostGetDevicePointer(pages.p(), &mut d, 0));
    assert!(!d.is_null() && d != pages.p());
    ok!(aclrtHostUnregister(pages.p()));
    // aclrtMallocHost memory is already pinned: V1 may register it, V2 with
    // PINNED may not.
    let h = malloc_host(4096);
    if h.addr() % 4096 == 0 {
        assert_eq!(
            acl!(aclrtHostRegisterV2(h, 4096, ACL_HOST_REG_PINNED as u32)),
            ACL_ERROR_RT_PARAM_INVALID
        );
        let _alias = register(h, 4096);
        ok!(aclrtHostUnregister(h));
    }
    free_host(h);
    session.finish();
}

#[test]
fn registration_needs_a_current_context() {
    let _sim = aclrt_sim::exclusive();
    init();
    let pages = Pages::new(4096);
    let mut dev = null_mut();
    assert_eq!(
        acl!(aclrtHostRegister(pages.p(), 4096, 0, &mut dev)),
        ACL_ERROR_RT_CONTEXT_NULL
    );
    assert_eq!(
        acl!(aclrtHostUnregister(pages.p())),
        ACL_ERROR_RT_CONTEXT_NULL
    );
    assert_eq!(
        acl!(aclrtMemAllocManaged(
            &mut dev,
            64,
            ACL_RT_MEM_ATTACH_GLOBAL as u32
        )),
        ACL_ERROR_RT_CONTEXT_NULL
    );
    finalize();
    assert_clean();
}

#[test]
fn registered_memory_is_copied_truly_asynchronously() {
    let _sim = aclrt_sim::exclusive();
    in_both_run_modes(|_| {
        init_device0();
        let s = create_stream();
        let mut pages = Pages::new(4096);
        pages.fill(7);
        let _alias = register(pages.p(), 4096);
        let d = malloc(4096);
        // With the stream held at a gate, the call returns before the copy
        // happens (pageable memory would be copied before the return).
        let gate = Gate::new();
        ok!(aclrtLaunchHostFunc(s, Some(pass_gate), gate.arg()));
        ok!(aclrtMemcpyAsync(
            d,
            4096,
            pages.p(),
            4096,
            ACL_MEMCPY_HOST_TO_DEVICE,
            s
        ));
        assert!(!gate.left(), "the copy was not async");
        assert_eq!(stream_status(s), ACL_STREAM_STATUS_NOT_READY);
        // Unregistering while the copy is pending is refused.
        assert_eq!(
            acl!(aclrtHostUnregister(pages.p())),
            ACL_ERROR_RT_STREAM_NOT_COMPLETE
        );
        gate.open();
        ok!(aclrtSynchronizeStream(s));
        assert!(gate.left_opened());
        assert_eq!(read_device(d, 4096), vec![7; 4096]);
        // Back to the host, asynchronously.
        ok!(aclrtMemset(d, 4096, 9, 4096));
        ok!(aclrtMemcpyAsync(
            pages.p(),
            4096,
            d,
            4096,
            ACL_MEMCPY_DEVICE_TO_HOST,
            s
        ));
        ok!(aclrtSynchronizeStream(s));
        assert!(pages.bytes().iter().all(|&b| b == 9));
        ok!(aclrtHostUnregister(pages.p()));
        free(d);
        destroy_stream(s);
        expect_violations(&[ViolationKind::ReleaseWhileInUse]);
    });
}

#[test]
fn registered_memory_is_host_memory_for_the_kind_check() {
    let session = {
        let sim = aclrt_sim::exclusive();
        configure(|c| c.strictness = aclrt_sim::Strictness::Refuse); // the refusal is the point here
        init_device0();
        sim
    };
    let pages = Pages::new(4096);
    let _alias = register(pages.p(), 4096);
    let d = malloc(4096);
    // D2D from registered host memory contradicts where it lies.
    assert_eq!(
        acl!(aclrtMemcpy(
            d,
            4096,
            pages.p(),
            4096,
            ACL_MEMCPY_DEVICE_TO_DEVICE
        )),
        ACL_ERROR_RT_INVALID_MEMORY_TYPE
    );
    // A copy straddling the registration's end.
    let big = Pages::new(8192);
    let _a2 = register(big.p(), 4096);
    assert_eq!(
        acl!(aclrtMemcpy(
            d,
            4096,
            big.at(2048),
            4096,
            ACL_MEMCPY_HOST_TO_DEVICE
        )),
        ACL_ERROR_RT_PARAM_INVALID
    );
    ok!(aclrtHostUnregister(big.p()));
    ok!(aclrtHostUnregister(pages.p()));
    free(d);
    expect_violations(&[ViolationKind::KindMismatch, ViolationKind::OutOfBounds]);
    drop(session);
}

#[test]
fn the_device_alias_is_never_a_copy_operand() {
    let session = device0();
    let pages = Pages::new(4096);
    let alias = register(pages.p(), 4096);
    let d = malloc(4096);
    assert_eq!(
        acl!(aclrtMemcpy(d, 4096, alias, 4096, ACL_MEMCPY_HOST_TO_DEVICE)),
        ACL_ERROR_RT_INVALID_MEMORY_TYPE
    );
    assert!(recent_err_msg().unwrap().contains("device alias"));
    assert_eq!(
        acl!(aclrtMemcpy(
            alias,
            4096,
            d,
            4096,
            ACL_MEMCPY_DEVICE_TO_DEVICE
        )),
        ACL_ERROR_RT_INVALID_MEMORY_TYPE
    );
    ok!(aclrtHostUnregister(pages.p()));
    // A stale alias (its registration is gone) is refused too, never
    // dereferenced.
    assert_eq!(
        acl!(aclrtMemcpy(d, 4096, alias, 4096, ACL_MEMCPY_HOST_TO_DEVICE)),
        ACL_ERROR_RT_PARAM_INVALID
    );
    free(d);
    expect_violations(&[
        ViolationKind::KindMismatch,
        ViolationKind::KindMismatch,
        ViolationKind::UseAfterFree,
    ]);
    drop(session);
}

#[test]
fn a_live_registration_blocks_the_last_reset_and_leaks_at_finalize() {
    let _sim = aclrt_sim::exclusive();
    configure(|c| c.strictness = aclrt_sim::Strictness::Refuse); // the refusal is the point here
    init_device0();
    let pages = Pages::new(4096);
    let _alias = register(pages.p(), 4096);
    assert_eq!(
        acl!(aclrtResetDevice(0)),
        ACL_ERROR_RT_CONTEXT_RELEASE_ERROR
    );
    assert!(recent_err_msg().unwrap().contains("host registration"));
    ok!(aclrtHostUnregister(pages.p()));
    ok!(aclrtResetDevice(0));
    expect_violations(&[ViolationKind::ResetWithLiveResources]);
    init_device0();
    let _alias = register(pages.p(), 4096);
    let _ = acl!(aclFinalize());
    let audit = aclrt_sim::audit();
    assert!(
        audit
            .leaks
            .iter()
            .any(|l| l.kind == ResourceKind::HostRegistration && l.address == pages.p().addr()),
        "{audit:?}"
    );
    aclrt_sim::reset();
}

// ------------------------------------------------------------ managed memory

#[test]
fn managed_memory_rules() {
    let _sim = aclrt_sim::exclusive();
    in_both_run_modes(|_| {
        init_device0();
        let mut p = null_mut();
        let global = ACL_RT_MEM_ATTACH_GLOBAL as u32;
        assert_eq!(
            acl!(aclrtMemAllocManaged(null_mut(), 64, global)),
            ACL_ERROR_INVALID_PARAM
        );
        for flag in [0, 2, 3] {
            assert_eq!(
                acl!(aclrtMemAllocManaged(&mut p, 64, flag)),
                ACL_ERROR_INVALID_PARAM
            );
        }
        assert_eq!(
            acl!(aclrtMemAllocManaged(&mut p, 0, global)),
            ACL_ERROR_RT_PARAM_INVALID
        );
        let mut free_before = 0usize;
        let mut total = 0usize;
        ok!(aclrtGetMemInfo(ACL_HBM_MEM, &mut free_before, &mut total));
        ok!(aclrtMemAllocManaged(&mut p, 100, global));
        assert!(!p.is_null());
        let mut free_after = 0usize;
        ok!(aclrtGetMemInfo(ACL_HBM_MEM, &mut free_after, &mut total));
        assert_eq!(free_before - free_after, 2 << 20, "rounded to 2 MiB");
        assert_eq!(live(ResourceKind::ManagedMemory, 0), 1);
        // Host access: it is ordinary process memory here.
        // SAFETY: a live managed allocation of >= 4096 bytes, no task on it.
        let host = unsafe { host_slice(p, 4096) };
        host.fill(3);
        // Every copy kind fits managed memory; memset and async work too.
        let d = malloc(4096);
        ok!(aclrtMemcpy(d, 4096, p, 4096, ACL_MEMCPY_DEVICE_TO_DEVICE));
        assert_eq!(read_device(d, 4096), vec![3; 4096]);
        ok!(aclrtMemcpy(d, 4096, p, 4096, ACL_MEMCPY_HOST_TO_DEVICE));
        ok!(aclrtMemsetAsync(p, 4096, 5, 4096, null_mut()));
        ok!(aclrtSynchronizeStream(null_mut()));
        let mut back = vec![0u8; 4096];
        ok!(aclrtMemcpy(
            back.as_mut_ptr().cast(),
            4096,
            p,
            4096,
            ACL_MEMCPY_DEVICE_TO_HOST
        ));
        assert_eq!(back, vec![5; 4096]);
        // Freed with aclrtFree, not aclrtFreeHost.
        assert_eq!(acl!(aclrtFreeHost(p)), ACL_ERROR_RT_PARAM_INVALID);
        ok!(aclrtFree(p));
        free(d);
        teardown_device0();
        expect_violations(&[ViolationKind::ForeignFree]);
    });
}

// ------------------------------------------------------------ the alias in device code

fn kernel_args_block(ptrs: &[*mut c_void], n: u64) -> *mut c_void {
    let mut block: Vec<u8> = ptrs
        .iter()
        .flat_map(|p| (p.addr() as u64).to_le_bytes())
        .collect();
    block.extend_from_slice(&n.to_le_bytes());
    let d = malloc(block.len());
    h2d(d, &block);
    d
}

#[test]
fn a_kernel_reads_and_writes_registered_memory_through_the_alias() {
    let _sim = aclrt_sim::exclusive();
    // dst[i] = src[i] * 2 for f32; src is device memory, dst is the alias.
    aclrt_sim::register_kernel("hostreg_double", |block, nb, args| {
        let (src, dst, n) = (args.u64(0)?, args.u64(1)?, args.u64(2)?);
        let mut i = block as usize;
        while i < n as usize {
            args.write_f32(dst, i, 2.0 * args.read_f32(src, i)?)?;
            i += nb as usize;
        }
        Ok(())
    });
    in_both_run_modes(|_| {
        init_device0();
        let s = create_stream();
        let img = aclrt_sim::binary_image(&["hostreg_double"]);
        let mut bin: aclrtBinHandle = null_mut();
        ok!(aclrtBinaryLoadFromData(
            img.as_ptr().cast(),
            img.len(),
            null(),
            &mut bin
        ));
        let name = std::ffi::CString::new("hostreg_double").unwrap();
        let mut f: aclrtFuncHandle = null_mut();
        ok!(aclrtBinaryGetFunction(bin, name.as_ptr(), &mut f));
        const N: usize = 1024;
        let src: Vec<f32> = (0..N).map(|i| i as f32).collect();
        let dsrc = malloc(4 * N);
        let bytes: Vec<u8> = src.iter().flat_map(|v| v.to_le_bytes()).collect();
        h2d(dsrc, &bytes);
        let pages = Pages::new(4 * N);
        let alias = register(pages.p(), (4 * N) as u64);
        let args = kernel_args_block(&[dsrc, alias], N as u64);
        ok!(aclrtLaunchKernel(f, 4, args, 24, s));
        // (Kernel arguments are resolved when the kernel runs, as for device
        // memory: a registration is checked then, not at the launch.)
        ok!(aclrtSynchronizeStream(s));
        let out: Vec<f32> = pages
            .bytes()
            .chunks(4)
            .map(|c| f32::from_le_bytes(c.try_into().unwrap()))
            .collect();
        assert_eq!(out, src.iter().map(|v| 2.0 * v).collect::<Vec<_>>());
        // Through the host address (not the alias) a kernel is refused:
        // host memory is not device memory.
        let bad = kernel_args_block(&[dsrc, pages.p()], N as u64);
        ok!(aclrtLaunchKernel(f, 1, bad, 24, s));
        assert_eq!(
            acl!(aclrtSynchronizeStream(s)),
            ACL_ERROR_RT_AICORE_EXCEPTION
        );
        ok!(aclrtHostUnregister(pages.p()));
        ok!(aclrtBinaryUnLoad(bin));
        for p in [dsrc, args, bad] {
            free(p);
        }
        destroy_stream(s);
        teardown_device0();
        expect_violations(&[ViolationKind::KernelBadAccess]);
    });
}
