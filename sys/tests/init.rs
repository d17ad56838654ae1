#![cfg(feature = "sim")]
//! aclInit / aclFinalize / aclFinalizeReference (acl-facts §5.1).

mod common;
use common::*;

#[test]
fn init_with_null_config_succeeds_and_finalize_tears_down() {
    let _sim = aclrt_sim::exclusive();
    assert!(!aclrt_sim::audit().initialized);
    assert_eq!(acl!(aclInit(null())), ACL_SUCCESS);
    assert!(aclrt_sim::audit().initialized);
    assert_eq!(acl!(aclFinalize()), ACL_SUCCESS);
    assert!(!aclrt_sim::audit().initialized);
    assert_clean();
}

#[test]
fn repeat_init_returns_100002() {
    let _sim = aclrt_sim::exclusive();
    init();
    assert_eq!(acl!(aclInit(null())), ACL_ERROR_REPEAT_INITIALIZE);
    assert_eq!(ACL_ERROR_REPEAT_INITIALIZE, 100002);
    // The runtime stays usable after the (ignorable) error.
    assert!(aclrt_sim::audit().initialized);
    finalize();
    assert_clean();
}

#[test]
fn init_finalize_init_is_allowed() {
    let _sim = aclrt_sim::exclusive();
    init();
    finalize();
    assert_eq!(acl!(aclInit(null())), ACL_SUCCESS);
    ok!(aclrtSetDevice(0));
    let p = malloc(64);
    free(p);
    ok!(aclrtResetDevice(0));
    finalize();
    assert_clean();
}

#[test]
fn repeat_finalize_returns_100037() {
    let _sim = aclrt_sim::exclusive();
    init();
    finalize();
    assert_eq!(acl!(aclFinalize()), ACL_ERROR_REPEAT_FINALIZE);
    assert_eq!(ACL_ERROR_REPEAT_FINALIZE, 100037);
    assert_clean();
}

#[test]
fn one_finalize_zeroes_the_init_refcount() {
    let _sim = aclrt_sim::exclusive();
    init();
    assert_eq!(acl!(aclInit(null())), ACL_ERROR_REPEAT_INITIALIZE);
    assert_eq!(acl!(aclInit(null())), ACL_ERROR_REPEAT_INITIALIZE);
    // refcount is 3, but a single aclFinalize tears everything down.
    finalize();
    assert!(!aclrt_sim::audit().initialized);
    assert_eq!(acl!(aclFinalize()), ACL_ERROR_REPEAT_FINALIZE);
    assert_clean();
}

#[test]
fn finalize_reference_decrements_and_reports_the_count() {
    let _sim = aclrt_sim::exclusive();
    init();
    assert_eq!(acl!(aclInit(null())), ACL_ERROR_REPEAT_INITIALIZE);
    let mut count: u64 = 99;
    ok!(aclFinalizeReference(&mut count));
    assert_eq!(count, 1);
    assert!(
        aclrt_sim::audit().initialized,
        "teardown must wait for refcount 0"
    );
    ok!(aclFinalizeReference(&mut count));
    assert_eq!(count, 0);
    assert!(!aclrt_sim::audit().initialized);
    assert_clean();
}

#[test]
fn finalize_reference_at_zero_returns_100037() {
    let _sim = aclrt_sim::exclusive();
    init();
    ok!(aclFinalizeReference(null_mut()));
    let mut count: u64 = 99;
    assert_eq!(
        acl!(aclFinalizeReference(&mut count)),
        ACL_ERROR_REPEAT_FINALIZE
    );
    assert_clean();
}

#[test]
fn finalize_reference_accepts_null_count_pointer() {
    let _sim = aclrt_sim::exclusive();
    init();
    assert_eq!(acl!(aclFinalizeReference(null_mut())), ACL_SUCCESS);
    assert!(!aclrt_sim::audit().initialized);
    assert_clean();
}

#[test]
fn finalize_releases_devices_reset_by_the_app() {
    let _sim = aclrt_sim::exclusive();
    init();
    ok!(aclrtSetDevice(0));
    ok!(aclrtSetDevice(1));
    assert_eq!(live(ResourceKind::Device, 0), 1);
    assert_eq!(live(ResourceKind::Device, 1), 1);
    ok!(aclrtResetDevice(1));
    ok!(aclrtResetDevice(0));
    assert_eq!(live(ResourceKind::Device, 0), 0);
    finalize();
    assert_clean();
}
