//! Memory allocation and release (acl-facts §3 malloc policies, §5.6).

use crate::common;
use common::*;

/// `free` reported by `aclrtGetMemInfo(ACL_HBM_MEM)` on the current device.
fn free_bytes() -> usize {
    let (mut free, mut total) = (0usize, 0usize);
    ok!(aclrtGetMemInfo(ACL_HBM_MEM, &mut free, &mut total));
    free
}

#[test]
fn malloc_zero_size_returns_100000() {
    let session = device0();
    let mut p: *mut c_void = null_mut();
    assert_eq!(
        acl!(aclrtMalloc(&mut p, 0, ACL_MEM_MALLOC_HUGE_FIRST)),
        ACL_ERROR_INVALID_PARAM
    );
    assert!(p.is_null());
    session.finish();
}

#[test]
fn malloc_null_output_returns_100000() {
    let session = device0();
    assert_eq!(
        acl!(aclrtMalloc(null_mut(), 64, ACL_MEM_MALLOC_HUGE_FIRST)),
        ACL_ERROR_INVALID_PARAM
    );
    session.finish();
}

#[test]
fn malloc_overflowing_size_returns_100000() {
    let session = device0();
    let mut p: *mut c_void = null_mut();
    assert_eq!(
        acl!(aclrtMalloc(
            &mut p,
            usize::MAX - 8,
            ACL_MEM_MALLOC_HUGE_FIRST
        )),
        ACL_ERROR_INVALID_PARAM
    );
    session.finish();
}

#[test]
fn malloc_without_current_context_returns_107002() {
    let _sim = aclrt_sim::exclusive();
    init();
    let mut p: *mut c_void = null_mut();
    assert_eq!(
        acl!(aclrtMalloc(&mut p, 64, ACL_MEM_MALLOC_HUGE_FIRST)),
        ACL_ERROR_RT_CONTEXT_NULL
    );
    finalize();
    assert_clean();
}

#[test]
fn malloc_returns_64_byte_aligned_addresses() {
    let session = device0();
    let mut ptrs = Vec::new();
    for size in [1usize, 3, 31, 32, 33, 63, 100, 4097, 1 << 20, (2 << 20) + 5] {
        let p = malloc(size);
        assert_eq!(p as usize % 64, 0, "size {size} gave {p:p}");
        ptrs.push(p);
    }
    assert_eq!(live(ResourceKind::DeviceMemory, 0), ptrs.len());
    for p in ptrs {
        free(p);
    }
    session.finish();
}

#[test]
fn malloc_reserves_size_rounded_to_32_plus_32_bytes() {
    let session = device0();
    for (size, reserved) in [(1usize, 64usize), (32, 64), (33, 96), (100, 160)] {
        let before = free_bytes();
        let p = malloc(size);
        assert_eq!(before - free_bytes(), reserved, "aclrtMalloc({size})");
        free(p);
        assert_eq!(free_bytes(), before);
    }
    session.finish();
}

#[test]
fn malloc_align32_reserves_size_rounded_to_32_without_padding() {
    let session = device0();
    for (size, reserved) in [(1usize, 32usize), (32, 32), (33, 64), (100, 128)] {
        let before = free_bytes();
        let mut p: *mut c_void = null_mut();
        ok!(aclrtMallocAlign32(&mut p, size, ACL_MEM_MALLOC_HUGE_FIRST));
        assert_eq!(
            before - free_bytes(),
            reserved,
            "aclrtMallocAlign32({size})"
        );
        free(p);
    }
    session.finish();
}

#[test]
fn malloc_cached_behaves_like_malloc() {
    let session = device0();
    let mut p: *mut c_void = null_mut();
    ok!(aclrtMallocCached(&mut p, 256, ACL_MEM_MALLOC_NORMAL_ONLY));
    assert_eq!(p as usize % 64, 0);
    let data = pattern(256, 3);
    h2d(p, &data);
    assert_eq!(read_device(p, 256), data);
    free(p);
    session.finish();
}

#[test]
fn malloc_unknown_policy_falls_back_to_default() {
    let session = device0();
    let mut p: *mut c_void = null_mut();
    ok!(aclrtMalloc(&mut p, 128, 0x77));
    assert!(!p.is_null());
    free(p);
    session.finish();
}

#[test]
fn malloc_beyond_device_memory_returns_207001() {
    let _sim = aclrt_sim::exclusive();
    configure(|c| c.memory_per_device = Some(64 << 20));
    init_device0();
    let mut p: *mut c_void = null_mut();
    assert_eq!(
        acl!(aclrtMalloc(&mut p, 128 << 20, ACL_MEM_MALLOC_HUGE_FIRST)),
        ACL_ERROR_RT_MEMORY_ALLOCATION
    );
    assert!(p.is_null());
    // Filling the device up then asking for more fails the same way.
    let a = malloc(48 << 20);
    assert_eq!(
        acl!(aclrtMalloc(&mut p, 32 << 20, ACL_MEM_MALLOC_HUGE_FIRST)),
        ACL_ERROR_RT_MEMORY_ALLOCATION
    );
    free(a);
    let b = malloc(32 << 20);
    free(b);
    teardown_device0();
    assert_clean();
}

#[test]
fn malloc_host_returns_64_byte_aligned_writable_memory() {
    let session = device0();
    for size in [1usize, 63, 64, 65, 4096, 100_000] {
        let p = malloc_host(size);
        assert_eq!(p as usize % 64, 0, "size {size} gave {p:p}");
        // SAFETY: `p` is a live allocation of `size` bytes, no task uses it.
        let s = unsafe { host_slice(p, size) };
        s.fill(0xee);
        assert!(s.iter().all(|&b| b == 0xee));
        free_host(p);
    }
    session.finish();
}

#[test]
fn malloc_host_tracks_live_host_memory() {
    let session = device0();
    let p = malloc_host(100);
    assert_eq!(live(ResourceKind::HostMemory, 0), 1);
    assert_eq!(live(ResourceKind::DeviceMemory, 0), 0);
    free_host(p);
    assert_eq!(live(ResourceKind::HostMemory, 0), 0);
    session.finish();
}

#[test]
fn malloc_host_without_current_context_returns_107002() {
    let _sim = aclrt_sim::exclusive();
    init();
    let mut p: *mut c_void = null_mut();
    assert_eq!(acl!(aclrtMallocHost(&mut p, 64)), ACL_ERROR_RT_CONTEXT_NULL);
    finalize();
    assert_clean();
}

#[test]
fn malloc_host_zero_size_or_null_output_returns_100000() {
    let session = device0();
    let mut p: *mut c_void = null_mut();
    assert_eq!(acl!(aclrtMallocHost(&mut p, 0)), ACL_ERROR_INVALID_PARAM);
    assert_eq!(
        acl!(aclrtMallocHost(null_mut(), 64)),
        ACL_ERROR_INVALID_PARAM
    );
    session.finish();
}

#[test]
fn free_null_returns_100000() {
    let session = device0();
    assert_eq!(acl!(aclrtFree(null_mut())), ACL_ERROR_INVALID_PARAM);
    session.finish();
}

#[test]
fn free_host_null_returns_100000() {
    let session = device0();
    assert_eq!(acl!(aclrtFreeHost(null_mut())), ACL_ERROR_INVALID_PARAM);
    session.finish();
}

#[test]
fn free_host_of_device_memory_returns_107000() {
    let _sim = aclrt_sim::exclusive();
    init_device0();
    let p = malloc(64);
    assert_eq!(acl!(aclrtFreeHost(p)), ACL_ERROR_RT_PARAM_INVALID);
    // Still allocated; the right function frees it.
    assert_eq!(live(ResourceKind::DeviceMemory, 0), 1);
    free(p);
    teardown_device0();
    expect_violations(&[ViolationKind::ForeignFree]);
}

#[test]
fn free_works_without_a_current_context() {
    let session = device0();
    let p = malloc(64) as usize;
    let code = std::thread::spawn(move || {
        let mut ctx: aclrtContext = null_mut();
        assert_eq!(
            acl!(aclrtGetCurrentContext(&mut ctx)),
            ACL_ERROR_RT_CONTEXT_NULL
        );
        acl!(aclrtFree(p as *mut c_void))
    })
    .join()
    .unwrap();
    assert_eq!(code, ACL_SUCCESS);
    assert_eq!(live(ResourceKind::DeviceMemory, 0), 0);
    session.finish();
}

#[test]
fn free_with_dev_sync_waits_for_pending_tasks() {
    let session = device0();
    let s = create_stream();
    let src = malloc(4096);
    let dst = malloc(4096);
    let data = pattern(4096, 9);
    h2d(src, &data);
    stream_delay(s, 30);
    ok!(aclrtMemcpyAsync(
        dst,
        4096,
        src,
        4096,
        ACL_MEMCPY_DEVICE_TO_DEVICE,
        s
    ));
    ok!(aclrtFreeWithDevSync(src));
    assert_eq!(stream_status(s), ACL_STREAM_STATUS_COMPLETE);
    assert_eq!(read_device(dst, 4096), data);
    free(dst);
    destroy_stream(s);
    session.finish();
}

#[test]
fn free_host_with_dev_sync_waits_for_pending_tasks() {
    let session = device0();
    let s = create_stream();
    let host = malloc_host(4096);
    let dev = malloc(4096);
    let data = pattern(4096, 4);
    // SAFETY: live 4096-byte pinned allocation, no task uses it yet.
    unsafe { host_slice(host, 4096) }.copy_from_slice(&data);
    stream_delay(s, 30);
    ok!(aclrtMemcpyAsync(
        dev,
        4096,
        host,
        4096,
        ACL_MEMCPY_HOST_TO_DEVICE,
        s
    ));
    ok!(aclrtFreeHostWithDevSync(host));
    assert_eq!(read_device(dev, 4096), data);
    free(dev);
    destroy_stream(s);
    session.finish();
}

#[test]
fn allocations_are_per_device() {
    let _sim = aclrt_sim::exclusive();
    init();
    ok!(aclrtSetDevice(1));
    let p1 = malloc(64);
    ok!(aclrtSetDevice(0));
    let p0 = malloc(64);
    assert_eq!(live(ResourceKind::DeviceMemory, 0), 1);
    assert_eq!(live(ResourceKind::DeviceMemory, 1), 1);
    free(p0);
    free(p1);
    ok!(aclrtResetDevice(0));
    ok!(aclrtResetDevice(1));
    finalize();
    assert_clean();
}

#[test]
fn malloc_huge1g_rounds_up_to_whole_gib() {
    let _sim = aclrt_sim::exclusive();
    configure(|c| c.memory_per_device = Some(3 << 30));
    init_device0();
    let (mut before, mut total) = (0usize, 0usize);
    ok!(aclrtGetMemInfo(ACL_HBM_MEM, &mut before, &mut total));
    let mut p: *mut c_void = null_mut();
    ok!(aclrtMalloc(&mut p, 1000, ACL_MEM_MALLOC_HUGE1G_ONLY));
    let (mut after, mut total2) = (0usize, 0usize);
    ok!(aclrtGetMemInfo(ACL_HBM_MEM, &mut after, &mut total2));
    assert_eq!(before - after, 1 << 30);
    free(p);
    teardown_device0();
    assert_clean();
}

// ------------------------------------------------ realistic device sizes

/// The resident set of this process, in bytes (`/proc/self/status`).
fn resident_bytes() -> usize {
    let status = std::fs::read_to_string("/proc/self/status").unwrap();
    let kb: usize = status
        .lines()
        .find_map(|l| l.strip_prefix("VmRSS:"))
        .and_then(|v| v.trim().trim_end_matches("kB").trim().parse().ok())
        .unwrap();
    kb * 1024
}

/// `(free, total)` of `aclrtGetMemInfo(attr)`.
fn mem_info(attr: aclrtMemAttr) -> (usize, usize) {
    let (mut free, mut total) = (0usize, 0usize);
    ok!(aclrtGetMemInfo(attr, &mut free, &mut total));
    (free, total)
}

/// A peer project's test allocates two 4 GiB buffers: on a simulated 910B
/// (64 GiB of HBM, the default) both fit, show in `aclrtGetMemInfo`, and
/// cost no host memory until written (the arena reserves lazily); the ends
/// of both buffers are usable.
#[test]
fn two_4_gib_buffers_fit_a_910b_and_cost_no_host_memory() {
    let _sim = aclrt_sim::exclusive();
    in_both_run_modes(|_| {
        init_device0();
        let (free0, total) = mem_info(ACL_HBM_MEM);
        assert_eq!(total, 64 << 30);
        let rss0 = resident_bytes();
        let a = malloc(4 << 30);
        let b = malloc(4 << 30);
        let grown = resident_bytes().saturating_sub(rss0);
        // Other tests of this binary run beside this one: a generous bound,
        // still 32 times less than what was allocated.
        assert!(
            grown < 256 << 20,
            "8 GiB allocated, resident set grew by {grown} bytes"
        );
        let (free1, _) = mem_info(ACL_HBM_MEM);
        assert!(free0 - free1 >= 8 << 30, "{free0} -> {free1}");
        // Write and read back the last bytes of each (touches two pages).
        let last = (4usize << 30) - 16;
        for p in [a, b] {
            let dst = p.cast::<u8>().wrapping_add(last).cast::<c_void>();
            h2d(dst, &pattern(16, 7));
            assert_eq!(read_device(dst, 16), pattern(16, 7));
        }
        free(a);
        free(b);
        assert_eq!(mem_info(ACL_HBM_MEM).0, free0);
        teardown_device0();
        assert_clean();
    });
}

/// `aclrtGetMemInfo` per attribute: the 910B has HBM (DDR attributes answer
/// 0 and 0), the 310P 24 GiB of DDR (HBM attributes read as DDR, the 1 GiB
/// huge page attributes answer 0 and 0).
#[test]
fn mem_info_answers_per_attribute_as_the_chip() {
    let _sim = aclrt_sim::exclusive();
    for (soc, size, zero) in [
        (
            aclrt_sim::Soc::Ascend910B,
            64usize << 30,
            vec![0, 2, 3, 6, 7],
        ),
        (
            aclrt_sim::Soc::Ascend310P,
            24usize << 30,
            vec![10, 11, 14, 17],
        ),
    ] {
        aclrt_sim::reset();
        configure(|c| c.soc = soc);
        init_device0();
        let p = malloc(1 << 20);
        for attr in 0..=17u32 {
            let (free, total) = mem_info(attr);
            if zero.contains(&attr) {
                assert_eq!((free, total), (0, 0), "{soc:?} attr {attr}");
            } else {
                assert_eq!(total, size, "{soc:?} attr {attr}");
                assert!(free < total, "{soc:?} attr {attr}: {free}");
            }
        }
        free(p);
        teardown_device0();
        assert_clean();
    }
}
