//! Runtime memory lives in the simulator's own address
//! range, so a pointer just past (or anywhere beyond) a runtime allocation
//! is refused by every memset and memcpy variant, in both run modes, instead
//! of being taken as the application's own memory and written.

use crate::common;
use common::*;

const LEN: usize = 4096;

thread_local! {
    /// The number of violations already checked.
    static SEEN: std::cell::Cell<usize> = const { std::cell::Cell::new(0) };
}

fn calls_seen(_: &aclrt_sim::Audit) -> usize {
    SEEN.with(std::cell::Cell::get)
}

/// Every memset/memcpy variant with `bad` as destination (and, for the
/// copies, as source), on `stream`. Each must fail; returns how many calls
/// were made.
fn every_variant_refuses(bad: *mut c_void, host: &mut [u8], stream: aclrtStream) -> usize {
    let mut calls = 0;
    let mut refused = |code: aclError, what: &str| {
        calls += 1;
        assert_ne!(code, ACL_SUCCESS, "{what} on {bad:p} succeeded");
        let msg = recent_err_msg().unwrap_or_default();
        assert!(!msg.is_empty(), "{what}: no error message");
        let audit = aclrt_sim::audit();
        if audit.violations.len() == calls_seen(&audit) {
            // Refused for its other arguments before any address was
            // resolved (a kind the variant does not take).
            assert!(
                code == ACL_ERROR_INVALID_PARAM || code == ACL_ERROR_RT_FEATURE_NOT_SUPPORT,
                "{what}: {code} {msg}"
            );
        } else {
            let v = audit.violations.last().unwrap();
            assert_eq!(v.kind, ViolationKind::OutOfBounds, "{what}: {v:?}");
            assert_eq!(v.code, ACL_ERROR_RT_PARAM_INVALID, "{what}: {v:?}");
            SEEN.with(|c| c.set(audit.violations.len()));
        }
    };
    let h = host.as_mut_ptr().cast::<c_void>();
    refused(acl!(aclrtMemset(bad, LEN, 0x5A, LEN)), "aclrtMemset");
    refused(acl!(aclrtMemset(bad, 1, 0x5A, 1)), "aclrtMemset (1 byte)");
    refused(
        acl!(aclrtMemsetAsync(bad, LEN, 0x5A, LEN, stream)),
        "aclrtMemsetAsync",
    );
    let kinds = [
        ACL_MEMCPY_HOST_TO_HOST,
        ACL_MEMCPY_HOST_TO_DEVICE,
        ACL_MEMCPY_DEVICE_TO_HOST,
        ACL_MEMCPY_DEVICE_TO_DEVICE,
        ACL_MEMCPY_DEFAULT,
    ];
    for kind in kinds {
        // Into the bad pointer, from application memory and back.
        refused(
            acl!(aclrtMemcpy(bad, LEN, h, LEN, kind)),
            &format!("aclrtMemcpy dst kind {kind}"),
        );
        refused(
            acl!(aclrtMemcpy(h, LEN, bad, LEN, kind)),
            &format!("aclrtMemcpy src kind {kind}"),
        );
        refused(
            acl!(aclrtMemcpyAsync(bad, LEN, h, LEN, kind, stream)),
            &format!("aclrtMemcpyAsync dst kind {kind}"),
        );
        refused(
            acl!(aclrtMemcpyAsync(h, LEN, bad, LEN, kind, stream)),
            &format!("aclrtMemcpyAsync src kind {kind}"),
        );
        refused(
            acl!(aclrtMemcpy2d(bad, 64, h, 64, 64, 64, kind)),
            &format!("aclrtMemcpy2d dst kind {kind}"),
        );
        refused(
            acl!(aclrtMemcpy2d(h, 64, bad, 64, 64, 64, kind)),
            &format!("aclrtMemcpy2d src kind {kind}"),
        );
        refused(
            acl!(aclrtMemcpy2dAsync(bad, 64, h, 64, 64, 64, kind, stream)),
            &format!("aclrtMemcpy2dAsync dst kind {kind}"),
        );
        refused(
            acl!(aclrtMemcpy2dAsync(h, 64, bad, 64, 64, 64, kind, stream)),
            &format!("aclrtMemcpy2dAsync src kind {kind}"),
        );
    }
    ok!(aclrtSynchronizeStream(stream));
    calls
}

/// The pointers past `base` (a `LEN`-byte allocation) that no call may
/// touch: its end, one byte further, the last byte of the gap after it (the
/// next block may start right after a one-page gap).
fn past(base: *mut c_void) -> [*mut c_void; 3] {
    let b = base.cast::<u8>();
    [LEN, LEN + 1, LEN + 4095].map(|off| b.wrapping_add(off).cast())
}

fn check_allocation(alloc: fn(usize) -> *mut c_void, release: fn(*mut c_void)) {
    let a = alloc(LEN);
    let b = alloc(LEN);
    let stream = create_stream();
    let guard = pattern(LEN, 7);
    ok!(aclrtMemcpy(
        b,
        LEN,
        guard.as_ptr().cast(),
        LEN,
        ACL_MEMCPY_DEFAULT
    ));
    let mut host = vec![0x11u8; LEN];
    let mut calls = 0;
    let far = b.cast::<u8>().wrapping_add(1 << 20).cast::<c_void>();
    for bad in past(a).into_iter().chain(past(b)).chain([far]) {
        calls += every_variant_refuses(bad, &mut host, stream);
    }
    assert!(calls > 100);
    // Nothing was written: not the neighbour block, not the host buffer.
    let mut back = vec![0u8; LEN];
    ok!(aclrtMemcpy(
        back.as_mut_ptr().cast(),
        LEN,
        b,
        LEN,
        ACL_MEMCPY_DEFAULT
    ));
    assert_eq!(back, guard);
    assert!(host.iter().all(|&v| v == 0x11));
    // Most refusals are out-of-bounds violations (checked one by one).
    let audit = aclrt_sim::audit();
    assert!(
        audit.violations.len() * 4 > calls * 3,
        "{calls} calls: {audit:#?}"
    );
    SEEN.with(|c| c.set(0));
    // The blocks themselves still work, including a zero-length access at
    // the end (nothing is touched).
    ok!(aclrtMemset(a, LEN, 3, LEN));
    ok!(aclrtMemcpy(
        a.cast::<u8>().wrapping_add(LEN).cast(),
        0,
        host.as_ptr().cast(),
        0,
        ACL_MEMCPY_DEFAULT
    ));
    destroy_stream(stream);
    release(a);
    release(b);
}

#[test]
fn pointers_past_device_memory_are_refused_in_both_run_modes() {
    let _sim = aclrt_sim::exclusive();
    in_both_run_modes(|_| {
        init_device0();
        check_allocation(malloc, free);
        teardown_device0();
        aclrt_sim::reset();
    });
}

#[test]
fn pointers_past_pinned_host_memory_are_refused_in_both_run_modes() {
    let _sim = aclrt_sim::exclusive();
    in_both_run_modes(|_| {
        init_device0();
        check_allocation(malloc_host, free_host);
        teardown_device0();
        aclrt_sim::reset();
    });
}

#[test]
fn allocation_alignment_facts_hold_in_the_address_range() {
    let _sim = aclrt_sim::exclusive();
    in_both_run_modes(|_| {
        init_device0();
        for size in [1usize, 31, 32, 33, 4095, 4096, 4097, 1 << 20] {
            let d = malloc(size);
            assert_eq!(d.addr() % 32, 0, "aclrtMalloc({size}) not 32-byte aligned");
            let h = malloc_host(size);
            assert_eq!(
                h.addr() % 64,
                0,
                "aclrtMallocHost({size}) not 64-byte aligned"
            );
            // Fresh memory reads zero (reused blocks are zeroed).
            assert!(read_device(d, size.min(4096)).iter().all(|&v| v == 0));
            ok!(aclrtMemset(d, size, 0xFF, size));
            free(d);
            free_host(h);
        }
        teardown_device0();
        assert_clean();
    });
}

#[test]
fn a_range_from_application_memory_into_the_address_range_is_refused() {
    let _sim = aclrt_sim::exclusive();
    init_device0();
    let d = malloc(LEN);
    // A range that starts in the gap before a block and runs into it.
    let before = d.cast::<u8>().wrapping_sub(16).cast::<c_void>();
    let code = acl!(aclrtMemset(before, 32, 0, 32));
    // Either the gap of the address range or the block's start is named:
    // never written.
    assert_ne!(code, ACL_SUCCESS);
    assert!(read_device(d, 16).iter().all(|&v| v == 0));
    free(d);
    teardown_device0();
    aclrt_sim::reset();
}

#[test]
fn the_gaps_of_the_address_range_cannot_be_registered_as_host_memory() {
    let _sim = aclrt_sim::exclusive();
    in_both_run_modes(|_| {
        init_device0();
        let d = malloc(LEN);
        // The page right after the block is the gap: page aligned, not
        // runtime memory, and not the application's either.
        let gap = d.cast::<u8>().wrapping_add(LEN).cast::<c_void>();
        let mut dev: *mut c_void = null_mut();
        let code = acl!(aclrtHostRegister(
            gap,
            4096,
            ACL_HOST_REGISTER_MAPPED,
            &mut dev
        ));
        assert_eq!(code, ACL_ERROR_RT_PARAM_INVALID);
        assert!(dev.is_null());
        let msg = recent_err_msg().unwrap_or_default();
        assert!(msg.contains("address range"), "{msg}");
        assert_eq!(
            acl!(aclrtHostRegisterV2(gap, 4096, ACL_HOST_REG_MAPPED as u32)),
            ACL_ERROR_RT_PARAM_INVALID
        );
        let msg = recent_err_msg().unwrap_or_default();
        assert!(msg.contains("address range"), "{msg}");
        free(d);
        teardown_device0();
        aclrt_sim::reset();
    });
}
