//! aclInit / aclFinalize / aclFinalizeReference (acl-facts §5.1).

use crate::common;
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

#[test]
fn init_with_missing_config_file_returns_100003() {
    let _sim = aclrt_sim::exclusive();
    let path = c"/nonexistent/aclrt-sys-test/acl.json";
    assert_eq!(acl!(aclInit(path.as_ptr())), ACL_ERROR_INVALID_FILE);
    assert!(!aclrt_sim::audit().initialized);
    // Not initialised by the failure: a proper init still works.
    init();
    finalize();
    assert_clean();
}

#[test]
fn init_with_readable_config_file_succeeds() {
    let _sim = aclrt_sim::exclusive();
    let dir = std::path::Path::new(env!("CARGO_TARGET_TMPDIR")).join("aclrt-sim-init");
    std::fs::create_dir_all(&dir).unwrap();
    let file = dir.join(format!("acl-{}.json", std::process::id()));
    std::fs::write(&file, "{}\n").unwrap();
    let c_path = std::ffi::CString::new(file.to_str().unwrap()).unwrap();
    assert_eq!(acl!(aclInit(c_path.as_ptr())), ACL_SUCCESS);
    assert!(aclrt_sim::audit().initialized);
    finalize();
    std::fs::remove_file(&file).unwrap();
    assert_clean();
}

#[test]
fn runtime_calls_work_before_init() {
    let _sim = aclrt_sim::exclusive();
    // The runtime layer does not check aclInit (acl-facts 5.1).
    assert_eq!(acl!(aclrtSetDevice(0)), ACL_SUCCESS);
    let p = malloc(64);
    free(p);
    ok!(aclrtResetDevice(0));
    assert_eq!(live(ResourceKind::Device, 0), 0);
    aclrt_sim::reset();
    assert_clean();
}

/// Writes `content` to a config file under the test tmp dir; returns its
/// path as a C string.
fn config_file(name: &str, content: &str) -> std::ffi::CString {
    let dir = std::path::Path::new(env!("CARGO_TARGET_TMPDIR")).join("aclrt-sim-init");
    std::fs::create_dir_all(&dir).unwrap();
    let file = dir.join(format!("{name}-{}.json", std::process::id()));
    std::fs::write(&file, content).unwrap();
    std::ffi::CString::new(file.to_str().unwrap()).unwrap()
}

#[test]
fn reinit_with_a_different_config_returns_100000() {
    let _sim = aclrt_sim::exclusive();
    let first = config_file("first", "{}\n");
    let other = config_file("other", "{\"err_msg_mode\": \"1\"}\n");
    ok!(aclInit(first.as_ptr()));
    finalize();
    // acl-facts 5.1: after a finalize, an aclInit whose config content
    // differs from the very first one returns 100000 ...
    assert_eq!(acl!(aclInit(other.as_ptr())), ACL_ERROR_INVALID_PARAM);
    assert!(!aclrt_sim::audit().initialized);
    // ... while the same content is accepted.
    ok!(aclInit(first.as_ptr()));
    finalize();
    assert_clean();
}
