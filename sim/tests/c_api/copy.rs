//! Copies and memsets, sync and async (acl-facts §3 memcpy kinds, §5.7).

use crate::common;
use common::*;

#[test]
fn memcpy_h2d_then_d2h_round_trips_the_data() {
    let session = device0();
    let dev = malloc(10_000);
    let data = pattern(10_000, 5);
    h2d(dev, &data);
    assert_eq!(read_device(dev, 10_000), data);
    free(dev);
    session.finish();
}

#[test]
fn count_greater_than_dest_max_returns_107000() {
    let session = device0();
    let dev = malloc(64);
    let data = pattern(64, 1);
    assert_eq!(
        acl!(aclrtMemcpy(
            dev,
            32,
            data.as_ptr().cast(),
            64,
            ACL_MEMCPY_HOST_TO_DEVICE
        )),
        ACL_ERROR_RT_PARAM_INVALID
    );
    free(dev);
    session.finish();
}

#[test]
fn memcpy_async_count_greater_than_dest_max_returns_107000() {
    let session = device0();
    let a = malloc(64);
    let b = malloc(64);
    assert_eq!(
        acl!(aclrtMemcpyAsync(
            b,
            16,
            a,
            64,
            ACL_MEMCPY_DEVICE_TO_DEVICE,
            null_mut()
        )),
        ACL_ERROR_RT_PARAM_INVALID
    );
    free(a);
    free(b);
    session.finish();
}

#[test]
fn memset_async_count_greater_than_max_returns_107000() {
    let session = device0();
    let a = malloc(64);
    assert_eq!(
        acl!(aclrtMemsetAsync(a, 32, 0, 64, null_mut())),
        ACL_ERROR_RT_PARAM_INVALID
    );
    free(a);
    session.finish();
}

#[test]
fn memset_count_greater_than_max_returns_107000() {
    let session = device0();
    let a = malloc(64);
    assert_eq!(acl!(aclrtMemset(a, 32, 0, 64)), ACL_ERROR_RT_PARAM_INVALID);
    free(a);
    session.finish();
}

#[test]
fn memcpy_zero_count_succeeds_even_with_null_pointers() {
    let session = device0();
    assert_eq!(
        acl!(aclrtMemcpy(
            null_mut(),
            0,
            null(),
            0,
            ACL_MEMCPY_HOST_TO_DEVICE
        )),
        ACL_SUCCESS
    );
    assert_eq!(
        acl!(aclrtMemcpyAsync(
            null_mut(),
            0,
            null(),
            0,
            ACL_MEMCPY_HOST_TO_DEVICE,
            null_mut()
        )),
        ACL_SUCCESS
    );
    session.finish();
}

#[test]
fn memcpy_null_destination_returns_100000() {
    let session = device0();
    let data = [1u8; 16];
    assert_eq!(
        acl!(aclrtMemcpy(
            null_mut(),
            16,
            data.as_ptr().cast(),
            16,
            ACL_MEMCPY_HOST_TO_DEVICE
        )),
        ACL_ERROR_INVALID_PARAM
    );
    session.finish();
}

#[test]
fn memcpy_null_source_returns_100000() {
    let session = device0();
    let dev = malloc(16);
    assert_eq!(
        acl!(aclrtMemcpy(dev, 16, null(), 16, ACL_MEMCPY_HOST_TO_DEVICE)),
        ACL_ERROR_INVALID_PARAM
    );
    free(dev);
    session.finish();
}

#[test]
fn memcpy_with_same_source_and_destination_succeeds() {
    let session = device0();
    let dev = malloc(64);
    let data = pattern(64, 2);
    h2d(dev, &data);
    ok!(aclrtMemcpy(dev, 64, dev, 64, ACL_MEMCPY_DEVICE_TO_DEVICE));
    assert_eq!(read_device(dev, 64), data);
    free(dev);
    session.finish();
}

#[test]
fn memcpy_kind_6_7_and_out_of_range_return_100000() {
    let session = device0();
    let a = malloc(64);
    let b = malloc(64);
    for kind in [
        ACL_MEMCPY_INNER_DEVICE_TO_DEVICE,
        ACL_MEMCPY_INTER_DEVICE_TO_DEVICE,
        8,
        99,
    ] {
        assert_eq!(
            acl!(aclrtMemcpy(b, 64, a, 64, kind)),
            ACL_ERROR_INVALID_PARAM,
            "aclrtMemcpy kind {kind}"
        );
        assert_eq!(
            acl!(aclrtMemcpyAsync(b, 64, a, 64, kind, null_mut())),
            ACL_ERROR_INVALID_PARAM,
            "aclrtMemcpyAsync kind {kind}"
        );
    }
    free(a);
    free(b);
    session.finish();
}

#[test]
fn memcpy_without_current_context_returns_107002() {
    let _sim = aclrt_sim::exclusive();
    init();
    let src = [1u8; 16];
    let mut dst = [0u8; 16];
    assert_eq!(
        acl!(aclrtMemcpy(
            dst.as_mut_ptr().cast(),
            16,
            src.as_ptr().cast(),
            16,
            ACL_MEMCPY_HOST_TO_HOST
        )),
        ACL_ERROR_RT_CONTEXT_NULL
    );
    assert_eq!(dst, [0u8; 16]);
    finalize();
    assert_clean();
}

#[test]
fn memcpy_default_kind_infers_the_direction() {
    let session = device0();
    let dev = malloc(256);
    let data = pattern(256, 11);
    ok!(aclrtMemcpy(
        dev,
        256,
        data.as_ptr().cast(),
        256,
        ACL_MEMCPY_DEFAULT
    ));
    let mut back = vec![0u8; 256];
    ok!(aclrtMemcpy(
        back.as_mut_ptr().cast(),
        256,
        dev,
        256,
        ACL_MEMCPY_DEFAULT
    ));
    assert_eq!(back, data);
    free(dev);
    session.finish();
}

#[test]
fn memcpy_host_to_buf_to_device_copies() {
    let session = device0();
    let dev = malloc(256);
    let data = pattern(256, 12);
    ok!(aclrtMemcpy(
        dev,
        256,
        data.as_ptr().cast(),
        256,
        ACL_MEMCPY_HOST_TO_BUF_TO_DEVICE
    ));
    drop(data);
    assert_eq!(read_device(dev, 256), pattern(256, 12));
    free(dev);
    session.finish();
}

#[test]
fn memcpy_host_to_host_copies_between_host_buffers() {
    let session = device0();
    let src = pattern(300, 13);
    let mut dst = vec![0u8; 300];
    ok!(aclrtMemcpy(
        dst.as_mut_ptr().cast(),
        300,
        src.as_ptr().cast(),
        300,
        ACL_MEMCPY_HOST_TO_HOST
    ));
    assert_eq!(dst, src);
    session.finish();
}

#[test]
fn memcpy_device_to_device_copies_within_a_device() {
    let session = device0();
    let a = malloc(4096);
    let b = malloc(4096);
    let data = pattern(4096, 14);
    h2d(a, &data);
    ok!(aclrtMemcpy(b, 4096, a, 4096, ACL_MEMCPY_DEVICE_TO_DEVICE));
    assert_eq!(read_device(b, 4096), data);
    free(a);
    free(b);
    session.finish();
}

#[test]
fn memcpy_partial_copy_at_an_offset_stays_in_bounds() {
    let session = device0();
    let dev = malloc(1024);
    ok!(aclrtMemset(dev, 1024, 0, 1024));
    let data = pattern(100, 15);
    // SAFETY: offset 500 is inside the 1024-byte allocation.
    let at = unsafe { dev.cast::<u8>().add(500) }.cast::<c_void>();
    ok!(aclrtMemcpy(
        at,
        524,
        data.as_ptr().cast(),
        100,
        ACL_MEMCPY_HOST_TO_DEVICE
    ));
    let back = read_device(dev, 1024);
    assert!(back[..500].iter().all(|&b| b == 0));
    assert_eq!(&back[500..600], &data[..]);
    assert!(back[600..].iter().all(|&b| b == 0));
    free(dev);
    session.finish();
}

#[test]
fn memcpy_async_from_pinned_memory_lands_after_synchronize() {
    let session = device0();
    let s = create_stream();
    let host = malloc_host(8192);
    let back = malloc_host(8192);
    let dev = malloc(8192);
    let data = pattern(8192, 16);
    // SAFETY: live pinned allocations of 8192 bytes, no task queued yet.
    unsafe { host_slice(host, 8192) }.copy_from_slice(&data);
    // SAFETY: as above.
    unsafe { host_slice(back, 8192) }.fill(0);
    ok!(aclrtMemcpyAsync(
        dev,
        8192,
        host,
        8192,
        ACL_MEMCPY_HOST_TO_DEVICE,
        s
    ));
    ok!(aclrtMemcpyAsync(
        back,
        8192,
        dev,
        8192,
        ACL_MEMCPY_DEVICE_TO_HOST,
        s
    ));
    ok!(aclrtSynchronizeStream(s));
    // SAFETY: the stream is synchronised, no task uses `back` any more.
    assert_eq!(unsafe { host_slice(back, 8192) }, &data[..]);
    free(dev);
    free_host(host);
    free_host(back);
    destroy_stream(s);
    session.finish();
}

#[test]
fn memcpy_async_is_really_asynchronous_with_pinned_memory() {
    let session = device0();
    let s = create_stream();
    let back = malloc_host(64);
    let dev = malloc(64);
    h2d(dev, &[0xab; 64]);
    // SAFETY: live pinned allocation, no task queued yet.
    unsafe { host_slice(back, 64) }.fill(0);
    stream_delay(s, 40);
    ok!(aclrtMemcpyAsync(
        back,
        64,
        dev,
        64,
        ACL_MEMCPY_DEVICE_TO_HOST,
        s
    ));
    // The copy is still queued: the host buffer is untouched.
    // SAFETY: reading while the (delayed) task is queued is racy in general,
    // but the task has not started: it waits 40 ms before running. The bytes
    // are read through volatile loads.
    let first = unsafe { back.cast::<u8>().read_volatile() };
    assert_eq!(first, 0);
    assert_eq!(stream_status(s), ACL_STREAM_STATUS_NOT_READY);
    ok!(aclrtSynchronizeStream(s));
    // SAFETY: the stream is synchronised.
    assert_eq!(unsafe { host_slice(back, 64) }, &[0xab; 64][..]);
    free(dev);
    free_host(back);
    destroy_stream(s);
    session.finish();
}

#[test]
fn memcpy_async_with_pageable_memory_returns_after_the_copy() {
    let session = device0();
    let s = create_stream();
    let dev = malloc(512);
    let data = pattern(512, 17);
    h2d(dev, &data);
    let mut pageable = vec![0u8; 512];
    stream_delay(s, 20);
    ok!(aclrtMemcpyAsync(
        pageable.as_mut_ptr().cast(),
        512,
        dev,
        512,
        ACL_MEMCPY_DEVICE_TO_HOST,
        s
    ));
    // No synchronisation: the call returned after the copy completed.
    assert_eq!(pageable, data);
    ok!(aclrtSynchronizeStream(s));
    free(dev);
    destroy_stream(s);
    session.finish();
}

#[test]
fn memcpy_async_host_to_host_in_host_mode_returns_207000() {
    let session = device0();
    let a = malloc_host(64);
    let b = malloc_host(64);
    assert_eq!(
        acl!(aclrtMemcpyAsync(
            b,
            64,
            a,
            64,
            ACL_MEMCPY_HOST_TO_HOST,
            null_mut()
        )),
        ACL_ERROR_RT_FEATURE_NOT_SUPPORT
    );
    free_host(a);
    free_host(b);
    session.finish();
}

#[test]
fn memcpy_async_on_stream_of_other_context_returns_107003() {
    let _sim = aclrt_sim::exclusive();
    init();
    let c1 = create_context(0);
    let s1 = create_stream();
    let a = malloc(64);
    let b = malloc(64);
    let c2 = create_context(0);
    assert_eq!(
        acl!(aclrtMemsetAsync(a, 64, 1, 64, s1)),
        ACL_ERROR_RT_STREAM_CONTEXT
    );
    assert_eq!(
        acl!(aclrtMemcpyAsync(
            b,
            64,
            a,
            64,
            ACL_MEMCPY_DEVICE_TO_DEVICE,
            s1
        )),
        ACL_ERROR_RT_STREAM_CONTEXT
    );
    ok!(aclrtDestroyContext(c2));
    ok!(aclrtSetCurrentContext(c1));
    free(a);
    free(b);
    destroy_stream(s1);
    ok!(aclrtDestroyContext(c1));
    finalize();
    expect_violations(&[ViolationKind::WrongContext, ViolationKind::WrongContext]);
}

#[test]
fn memset_sets_every_byte_to_the_value() {
    let session = device0();
    let dev = malloc(1000);
    ok!(aclrtMemset(dev, 1000, 0xab, 1000));
    assert_eq!(read_device(dev, 1000), vec![0xab; 1000]);
    ok!(aclrtMemset(dev, 1000, 0x01, 10));
    let back = read_device(dev, 1000);
    assert_eq!(&back[..10], &[1; 10]);
    assert!(back[10..].iter().all(|&b| b == 0xab));
    free(dev);
    session.finish();
}

#[test]
fn memset_zero_count_succeeds_without_writing() {
    let session = device0();
    let dev = malloc(64);
    ok!(aclrtMemset(dev, 64, 5, 64));
    ok!(aclrtMemset(dev, 64, 9, 0));
    ok!(aclrtMemsetAsync(dev, 64, 9, 0, null_mut()));
    ok!(aclrtSynchronizeStream(null_mut()));
    assert_eq!(read_device(dev, 64), vec![5; 64]);
    free(dev);
    session.finish();
}

#[test]
fn memset_of_pinned_host_memory_writes_the_host_bytes() {
    let session = device0();
    let host = malloc_host(128);
    ok!(aclrtMemset(host, 128, 0x3c, 128));
    // SAFETY: live pinned allocation, no task uses it.
    assert_eq!(unsafe { host_slice(host, 128) }, &[0x3c; 128][..]);
    free_host(host);
    session.finish();
}

#[test]
fn memcpy2d_copies_rows_with_pitches() {
    let session = device0();
    // 4 rows of 10 bytes from a host matrix with pitch 16 into a device
    // matrix with pitch 32, and back into a host matrix with pitch 12.
    let (w, h) = (10usize, 4usize);
    let src: Vec<u8> = (0..16 * h).map(|i| i as u8).collect();
    let dev = malloc(32 * h);
    ok!(aclrtMemset(dev, 32 * h, 0xff, 32 * h));
    ok!(aclrtMemcpy2d(
        dev,
        32,
        src.as_ptr().cast(),
        16,
        w,
        h,
        ACL_MEMCPY_HOST_TO_DEVICE
    ));
    let mut dst = vec![0u8; 12 * h];
    ok!(aclrtMemcpy2d(
        dst.as_mut_ptr().cast(),
        12,
        dev,
        32,
        w,
        h,
        ACL_MEMCPY_DEVICE_TO_HOST
    ));
    for r in 0..h {
        assert_eq!(
            &dst[r * 12..r * 12 + w],
            &src[r * 16..r * 16 + w],
            "row {r}"
        );
        assert_eq!(&dst[r * 12 + w..r * 12 + 12], &[0, 0], "row {r} padding");
    }
    // The device padding bytes were not written.
    let raw = read_device(dev, 32 * h);
    for r in 0..h {
        assert!(raw[r * 32 + w..r * 32 + 32].iter().all(|&b| b == 0xff));
    }
    free(dev);
    session.finish();
}

#[test]
fn memcpy2d_width_greater_than_a_pitch_returns_100000() {
    let session = device0();
    let dev = malloc(256);
    let src = vec![0u8; 256];
    assert_eq!(
        acl!(aclrtMemcpy2d(
            dev,
            32,
            src.as_ptr().cast(),
            16,
            20,
            2,
            ACL_MEMCPY_HOST_TO_DEVICE
        )),
        ACL_ERROR_INVALID_PARAM,
        "width > spitch"
    );
    assert_eq!(
        acl!(aclrtMemcpy2d(
            dev,
            16,
            src.as_ptr().cast(),
            32,
            20,
            2,
            ACL_MEMCPY_HOST_TO_DEVICE
        )),
        ACL_ERROR_INVALID_PARAM,
        "width > dpitch"
    );
    free(dev);
    session.finish();
}

#[test]
fn memcpy2d_zero_width_or_height_is_a_successful_no_op() {
    let session = device0();
    let dev = malloc(64);
    ok!(aclrtMemset(dev, 64, 7, 64));
    let src = [1u8; 64];
    ok!(aclrtMemcpy2d(
        dev,
        16,
        src.as_ptr().cast(),
        16,
        16,
        0,
        ACL_MEMCPY_HOST_TO_DEVICE
    ));
    ok!(aclrtMemcpy2d(
        dev,
        16,
        src.as_ptr().cast(),
        16,
        0,
        4,
        ACL_MEMCPY_HOST_TO_DEVICE
    ));
    assert_eq!(read_device(dev, 64), vec![7; 64]);
    free(dev);
    session.finish();
}

#[test]
fn memcpy2d_unsupported_kind_returns_100000() {
    let session = device0();
    let src = [1u8; 64];
    let mut dst = vec![0u8; 64];
    for kind in [
        ACL_MEMCPY_HOST_TO_HOST,
        ACL_MEMCPY_HOST_TO_BUF_TO_DEVICE,
        ACL_MEMCPY_INNER_DEVICE_TO_DEVICE,
        42,
    ] {
        assert_eq!(
            acl!(aclrtMemcpy2d(
                dst.as_mut_ptr().cast(),
                16,
                src.as_ptr().cast(),
                16,
                16,
                4,
                kind
            )),
            ACL_ERROR_INVALID_PARAM,
            "kind {kind}"
        );
    }
    assert_eq!(dst, vec![0u8; 64]);
    session.finish();
}

#[test]
fn memcpy2d_async_device_to_device_copies_rows() {
    let session = device0();
    let s = create_stream();
    let a = malloc(64);
    let b = malloc(64);
    let data = pattern(64, 18);
    h2d(a, &data);
    ok!(aclrtMemset(b, 64, 0, 64));
    ok!(aclrtMemcpy2dAsync(
        b,
        16,
        a,
        16,
        8,
        4,
        ACL_MEMCPY_DEVICE_TO_DEVICE,
        s
    ));
    ok!(aclrtSynchronizeStream(s));
    let back = read_device(b, 64);
    for r in 0..4 {
        assert_eq!(&back[r * 16..r * 16 + 8], &data[r * 16..r * 16 + 8]);
        assert_eq!(&back[r * 16 + 8..r * 16 + 16], &[0; 8]);
    }
    free(a);
    free(b);
    destroy_stream(s);
    session.finish();
}

#[test]
fn cross_device_copy_after_enable_peer_access_succeeds() {
    let _sim = aclrt_sim::exclusive();
    init();
    ok!(aclrtSetDevice(1));
    let on1 = malloc(256);
    ok!(aclrtSetDevice(0));
    let on0 = malloc(256);
    let data = pattern(256, 19);
    h2d(on0, &data);
    let mut can = 0;
    ok!(aclrtDeviceCanAccessPeer(&mut can, 0, 1));
    assert_eq!(can, 1, "the simulator's devices can reach each other");
    ok!(aclrtDeviceEnablePeerAccess(1, 0));
    ok!(aclrtMemcpy(on1, 256, on0, 256, ACL_MEMCPY_DEVICE_TO_DEVICE));
    ok!(aclrtSetDevice(1));
    assert_eq!(read_device(on1, 256), data);
    ok!(aclrtResetDevice(1));
    ok!(aclrtSetDevice(0));
    ok!(aclrtDeviceDisablePeerAccess(1));
    free(on0);
    free(on1);
    ok!(aclrtResetDevice(0));
    ok!(aclrtResetDevice(0));
    ok!(aclrtResetDevice(1));
    finalize();
    assert_clean();
}

#[test]
fn memcpy2d_async_width_over_5000000_returns_107000() {
    let session = device0();
    let a = malloc(64);
    let b = malloc(64);
    let w = 5_000_001usize;
    assert_eq!(
        acl!(aclrtMemcpy2dAsync(
            b,
            w,
            a,
            w,
            w,
            1,
            ACL_MEMCPY_DEVICE_TO_DEVICE,
            null_mut()
        )),
        ACL_ERROR_RT_PARAM_INVALID
    );
    free(a);
    free(b);
    session.finish();
}

#[test]
fn peer_access_is_one_directional() {
    let _sim = aclrt_sim::exclusive();
    init();
    ok!(aclrtSetDevice(1));
    let on1 = malloc(64);
    ok!(aclrtSetDevice(0));
    let on0 = malloc(64);
    ok!(aclrtMemset(on0, 64, 0x21, 64));
    // 0 -> 1 enabled: from device 0 the copy into device 1 memory works.
    ok!(aclrtDeviceEnablePeerAccess(1, 0));
    ok!(aclrtMemcpy(on1, 64, on0, 64, ACL_MEMCPY_DEVICE_TO_DEVICE));
    // From device 1 the way back is not enabled.
    ok!(aclrtSetDevice(1));
    assert_eq!(
        acl!(aclrtMemcpy(on0, 64, on1, 64, ACL_MEMCPY_DEVICE_TO_DEVICE)),
        ACL_ERROR_RT_NO_PERMISSION
    );
    assert_eq!(read_device(on1, 64), vec![0x21; 64]);
    ok!(aclrtResetDevice(1));
    free(on0);
    free(on1);
    ok!(aclrtResetDevice(0));
    ok!(aclrtResetDevice(1));
    finalize();
    expect_violations(&[ViolationKind::CrossDeviceWithoutPeerAccess]);
}

#[test]
fn memset_uses_the_low_byte_of_value() {
    let session = device0();
    let dev = malloc(32);
    ok!(aclrtMemset(dev, 32, 0x1ab, 32));
    assert_eq!(read_device(dev, 32), vec![0xab; 32]);
    ok!(aclrtMemsetAsync(dev, 32, -1, 16, null_mut()));
    ok!(aclrtSynchronizeStream(null_mut()));
    let back = read_device(dev, 32);
    assert_eq!(&back[..16], &[0xff; 16]);
    assert_eq!(&back[16..], &[0xab; 16]);
    free(dev);
    session.finish();
}

#[test]
fn async_host_to_buf_to_device_lets_the_source_go_at_once() {
    let session = device0();
    let s = create_stream();
    let dev = malloc(4096);
    let data = pattern(4096, 51);
    let mut src = data.clone();
    stream_delay(s, 30);
    ok!(aclrtMemcpyAsync(
        dev,
        4096,
        src.as_ptr().cast(),
        4096,
        ACL_MEMCPY_HOST_TO_BUF_TO_DEVICE,
        s
    ));
    // The copy is still queued, but the runtime staged the source: the
    // application may reuse or free its buffer right away.
    assert_eq!(stream_status(s), ACL_STREAM_STATUS_NOT_READY);
    src.fill(0);
    drop(src);
    ok!(aclrtSynchronizeStream(s));
    assert_eq!(read_device(dev, 4096), data);
    free(dev);
    destroy_stream(s);
    session.finish();
}
