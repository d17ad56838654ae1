//! Contexts: creation, the per-thread current context, the default context
//! (acl-facts §5.3).

use crate::common;
use common::*;

#[test]
fn create_context_makes_it_current() {
    let session = device0();
    let default_ctx = current_context();
    let ctx = create_context(0);
    assert_ne!(ctx, default_ctx);
    assert_eq!(current_context(), ctx);
    assert_eq!(live(ResourceKind::Context, 0), 1);
    ok!(aclrtDestroyContext(ctx));
    assert_eq!(live(ResourceKind::Context, 0), 0);
    session.finish();
}

#[test]
fn create_context_invalid_device_returns_107001() {
    let _sim = aclrt_sim::exclusive();
    init();
    let mut ctx: aclrtContext = null_mut();
    assert_eq!(
        acl!(aclrtCreateContext(&mut ctx, 2)),
        ACL_ERROR_RT_INVALID_DEVICEID
    );
    assert_eq!(
        acl!(aclrtCreateContext(&mut ctx, -1)),
        ACL_ERROR_RT_INVALID_DEVICEID
    );
    assert!(ctx.is_null());
    finalize();
    assert_clean();
}

#[test]
fn create_context_null_output_returns_100000() {
    let _sim = aclrt_sim::exclusive();
    init();
    assert_eq!(
        acl!(aclrtCreateContext(null_mut(), 0)),
        ACL_ERROR_INVALID_PARAM
    );
    finalize();
    assert_clean();
}

#[test]
fn get_current_context_with_nothing_current_returns_107002() {
    let _sim = aclrt_sim::exclusive();
    init();
    let mut ctx: aclrtContext = null_mut();
    assert_eq!(
        acl!(aclrtGetCurrentContext(&mut ctx)),
        ACL_ERROR_RT_CONTEXT_NULL
    );
    finalize();
    assert_clean();
}

#[test]
fn get_current_context_after_set_device_returns_the_default_context() {
    let _sim = aclrt_sim::exclusive();
    init();
    ok!(aclrtSetDevice(0));
    let c0 = current_context();
    ok!(aclrtSetDevice(1));
    let c1 = current_context();
    assert!(!c0.is_null() && !c1.is_null());
    assert_ne!(c0, c1, "each device has its own default context");
    ok!(aclrtSetDevice(0));
    assert_eq!(current_context(), c0, "the default context is stable");
    // Default contexts are not explicit contexts.
    assert_eq!(live(ResourceKind::Context, 0), 0);
    ok!(aclrtResetDevice(0));
    ok!(aclrtResetDevice(0));
    ok!(aclrtResetDevice(1));
    finalize();
    assert_clean();
}

#[test]
fn set_current_context_null_returns_100000() {
    let session = device0();
    assert_eq!(
        acl!(aclrtSetCurrentContext(null_mut())),
        ACL_ERROR_INVALID_PARAM
    );
    session.finish();
}

#[test]
fn destroy_default_context_returns_107002() {
    let session = device0();
    let default_ctx = current_context();
    assert_eq!(
        acl!(aclrtDestroyContext(default_ctx)),
        ACL_ERROR_RT_CONTEXT_NULL
    );
    // Still alive and current.
    assert_eq!(current_context(), default_ctx);
    let p = malloc(64);
    free(p);
    session.finish();
}

#[test]
fn destroy_context_null_returns_100000() {
    let _sim = aclrt_sim::exclusive();
    init();
    assert_eq!(
        acl!(aclrtDestroyContext(null_mut())),
        ACL_ERROR_INVALID_PARAM
    );
    finalize();
    assert_clean();
}

#[test]
fn destroying_the_current_context_leaves_the_thread_without_one() {
    let session = device0();
    let default_ctx = current_context();
    let ctx = create_context(0);
    assert_eq!(current_context(), ctx);
    ok!(aclrtDestroyContext(ctx));
    // No fallback to the device's default context: creating the context
    // dropped the device binding (I `ContextSetCurrent`).
    let mut c: aclrtContext = null_mut();
    assert_eq!(
        acl!(aclrtGetCurrentContext(&mut c)),
        ACL_ERROR_RT_CONTEXT_NULL
    );
    let mut d = -1;
    assert_eq!(acl!(aclrtGetDevice(&mut d)), ACL_ERROR_RT_CONTEXT_NULL);
    ok!(aclrtSetCurrentContext(default_ctx));
    assert_eq!(current_context(), default_ctx);
    session.finish();
}

#[test]
fn current_context_is_per_thread() {
    let _sim = aclrt_sim::exclusive();
    init();
    let ctx = create_context(1);
    let ctx_addr = ctx as usize;
    let (before, after) = std::thread::spawn(move || {
        let mut c: aclrtContext = null_mut();
        let before = acl!(aclrtGetCurrentContext(&mut c));
        ok!(aclrtSetCurrentContext(ctx_addr as aclrtContext));
        let after = current_context() as usize;
        (before, after)
    })
    .join()
    .unwrap();
    assert_eq!(before, ACL_ERROR_RT_CONTEXT_NULL);
    assert_eq!(after, ctx_addr);
    assert_eq!(current_context(), ctx);
    ok!(aclrtDestroyContext(ctx));
    finalize();
    assert_clean();
}

#[test]
fn set_current_context_switches_the_thread_device() {
    let _sim = aclrt_sim::exclusive();
    init();
    let c1 = create_context(1);
    let c0 = create_context(0);
    let mut d = -1;
    ok!(aclrtGetDevice(&mut d));
    assert_eq!(d, 0);
    ok!(aclrtSetCurrentContext(c1));
    ok!(aclrtGetDevice(&mut d));
    assert_eq!(d, 1);
    // Memory allocated now belongs to device 1.
    let p = malloc(64);
    assert_eq!(live(ResourceKind::DeviceMemory, 1), 1);
    assert_eq!(live(ResourceKind::DeviceMemory, 0), 0);
    free(p);
    ok!(aclrtDestroyContext(c0));
    ok!(aclrtDestroyContext(c1));
    finalize();
    assert_clean();
}

#[test]
fn destroy_context_twice_returns_107002() {
    let _sim = aclrt_sim::exclusive();
    init_device0();
    let ctx = create_context(0);
    ok!(aclrtDestroyContext(ctx));
    // The real runtime answers "context null" here, not "invalid handle".
    assert_eq!(acl!(aclrtDestroyContext(ctx)), ACL_ERROR_RT_CONTEXT_NULL);
    expect_violations(&[ViolationKind::UseAfterFree]);
}

#[test]
fn context_can_be_used_from_another_thread() {
    let _sim = aclrt_sim::exclusive();
    init();
    let ctx = create_context(0);
    let ctx_addr = ctx as usize;
    let data = pattern(1024, 7);
    let expected = data.clone();
    let back = std::thread::spawn(move || {
        ok!(aclrtSetCurrentContext(ctx_addr as aclrtContext));
        let p = malloc(1024);
        h2d(p, &data);
        let back = read_device(p, 1024);
        free(p);
        back
    })
    .join()
    .unwrap();
    assert_eq!(back, expected);
    ok!(aclrtDestroyContext(ctx));
    finalize();
    assert_clean();
}

#[test]
fn each_context_has_its_own_default_stream() {
    let session = device0();
    let mut s_default: aclrtStream = null_mut();
    ok!(aclrtCtxGetCurrentDefaultStream(&mut s_default));
    let ctx = create_context(0);
    let mut s_ctx: aclrtStream = null_mut();
    ok!(aclrtCtxGetCurrentDefaultStream(&mut s_ctx));
    assert!(!s_default.is_null() && !s_ctx.is_null());
    assert_ne!(s_default, s_ctx);
    ok!(aclrtDestroyContext(ctx));
    session.finish();
}

#[test]
fn ctx_get_current_default_stream_without_context_returns_107002() {
    let _sim = aclrt_sim::exclusive();
    init();
    let mut s: aclrtStream = null_mut();
    assert_eq!(
        acl!(aclrtCtxGetCurrentDefaultStream(&mut s)),
        ACL_ERROR_RT_CONTEXT_NULL
    );
    finalize();
    assert_clean();
}
