//! Both run modes: ACL_HOST (app on a host next to a PCIe card) and
//! ACL_DEVICE (app on the device's own CPU) (acl-facts §3 aclrtRunMode,
//! §5.6 aclrtMallocHost, §5.7 async H2H).

use crate::common;
use common::*;

fn init_in(mode: RunMode) {
    configure(|c| c.run_mode = mode);
    init_device0();
}

fn run_mode() -> aclrtRunMode {
    let mut m: aclrtRunMode = 77;
    ok!(aclrtGetRunMode(&mut m));
    m
}

#[test]
fn the_configured_run_mode_is_reported() {
    let _sim = aclrt_sim::exclusive();
    in_both_run_modes(|mode| {
        init_device0();
        let expected = match mode {
            RunMode::Host => ACL_HOST,
            RunMode::Device => ACL_DEVICE,
        };
        assert_eq!(run_mode(), expected);
        assert_eq!(aclrt_sim::config().run_mode, mode);
        teardown_device0();
        assert_clean();
    });
}

#[test]
fn reset_returns_to_the_default_host_mode() {
    let _sim = aclrt_sim::exclusive();
    configure(|c| c.run_mode = RunMode::Device);
    aclrt_sim::reset();
    init();
    assert_eq!(run_mode(), ACL_HOST);
    finalize();
    assert_clean();
}

#[test]
fn device_mode_malloc_host_is_device_memory_for_d2d_copies() {
    let _sim = aclrt_sim::exclusive();
    init_in(RunMode::Device);
    let host = malloc_host(4096);
    let dev = malloc(4096);
    let data = pattern(4096, 31);
    // "Host" memory is device memory: a device-to-device copy is right.
    h2d(dev, &data);
    ok!(aclrtMemcpy(
        host,
        4096,
        dev,
        4096,
        ACL_MEMCPY_DEVICE_TO_DEVICE
    ));
    let mut back = vec![0u8; 4096];
    ok!(aclrtMemcpy(
        back.as_mut_ptr().cast(),
        4096,
        host,
        4096,
        ACL_MEMCPY_DEVICE_TO_HOST
    ));
    assert_eq!(back, data);
    // It is counted as device-side memory in device mode.
    assert_eq!(
        live(ResourceKind::HostMemory, 0) + live(ResourceKind::DeviceMemory, 0),
        2
    );
    free_host(host);
    free(dev);
    teardown_device0();
    assert_clean();
}

#[test]
fn host_mode_d2d_copy_from_malloc_host_memory_is_a_kind_mismatch() {
    let _sim = aclrt_sim::exclusive();
    configure(|c| {
        c.run_mode = RunMode::Host;
        c.strictness = aclrt_sim::Strictness::Refuse; // the refusal is the point here
    });
    init_device0();
    let host = malloc_host(64);
    let dev = malloc(64);
    assert_eq!(
        acl!(aclrtMemcpy(dev, 64, host, 64, ACL_MEMCPY_DEVICE_TO_DEVICE)),
        ACL_ERROR_RT_INVALID_MEMORY_TYPE
    );
    free_host(host);
    free(dev);
    teardown_device0();
    expect_violations(&[ViolationKind::KindMismatch]);
}

#[test]
fn device_mode_host_to_device_copies_still_work() {
    let _sim = aclrt_sim::exclusive();
    init_in(RunMode::Device);
    let s = create_stream();
    let host = malloc_host(8192);
    let dev = malloc(8192);
    let data = pattern(8192, 32);
    // SAFETY: in device mode aclrtMallocHost memory is still addressable by
    // the application (it runs on the device's CPU); no task uses it yet.
    unsafe { host_slice(host, 8192) }.copy_from_slice(&data);
    ok!(aclrtMemcpyAsync(
        dev,
        8192,
        host,
        8192,
        ACL_MEMCPY_HOST_TO_DEVICE,
        s
    ));
    ok!(aclrtSynchronizeStream(s));
    assert_eq!(read_device(dev, 8192), data);
    free(dev);
    free_host(host);
    destroy_stream(s);
    teardown_device0();
    assert_clean();
}

#[test]
fn device_mode_async_host_to_host_becomes_device_to_device() {
    let _sim = aclrt_sim::exclusive();
    init_in(RunMode::Device);
    let a = malloc_host(256);
    let b = malloc_host(256);
    let data = pattern(256, 33);
    // SAFETY: live allocations addressable by the app, no task queued yet.
    unsafe { host_slice(a, 256) }.copy_from_slice(&data);
    // SAFETY: as above.
    unsafe { host_slice(b, 256) }.fill(0);
    ok!(aclrtMemcpyAsync(
        b,
        256,
        a,
        256,
        ACL_MEMCPY_HOST_TO_HOST,
        null_mut()
    ));
    ok!(aclrtSynchronizeStream(null_mut()));
    // SAFETY: the default stream is synchronised.
    assert_eq!(unsafe { host_slice(b, 256) }, &data[..]);
    free_host(a);
    free_host(b);
    teardown_device0();
    assert_clean();
}

#[test]
fn run_mode_is_fixed_at_init() {
    let _sim = aclrt_sim::exclusive();
    init_in(RunMode::Device);
    // A configuration change takes effect from the next aclInit on.
    configure(|c| c.run_mode = RunMode::Host);
    assert_eq!(run_mode(), ACL_DEVICE);
    teardown_device0();
    init();
    assert_eq!(run_mode(), ACL_HOST);
    finalize();
    assert_clean();
}

#[test]
fn malloc_host_draws_from_device_memory_only_in_device_mode() {
    let _sim = aclrt_sim::exclusive();
    let free_now = || {
        let (mut f, mut t) = (0usize, 0usize);
        ok!(aclrtGetMemInfo(ACL_HBM_MEM, &mut f, &mut t));
        f
    };
    in_both_run_modes(|mode| {
        init_device0();
        let before = free_now();
        let host = malloc_host(1 << 20);
        let used = before - free_now();
        match mode {
            RunMode::Device => assert!(
                used >= 1 << 20,
                "device-mode aclrtMallocHost did not use device memory"
            ),
            RunMode::Host => assert_eq!(used, 0, "host-mode aclrtMallocHost used device memory"),
        }
        free_host(host);
        assert_eq!(free_now(), before);
        teardown_device0();
        assert_clean();
    });
}
