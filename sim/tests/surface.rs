//! The rest of the runtime's public C surface (`sim/src/raw/surface.rs`):
//! the device, stream, error and thread queries the simulator models, in
//! both run modes and on both chips, and the answer of every function it
//! does not model (207000 with a report, never a missing symbol).

mod common;
use common::*;

/// The last recorded violation's rule and whether it was a refusal.
fn last_rule() -> Option<(&'static str, &'static str, bool)> {
    aclrt_sim::audit()
        .violations
        .last()
        .map(|v| (v.function, v.rule, v.refused))
}

// ------------------------------------------------------------ not modelled

#[test]
fn a_function_not_modelled_answers_207000_stored_and_reported() {
    let _sim = aclrt_sim::exclusive();
    in_both_run_modes(|_| {
        init_device0();
        let mut label: aclrtLabel = null_mut();
        assert_eq!(
            acl!(aclrtCreateLabel(&mut label)),
            ACL_ERROR_RT_FEATURE_NOT_SUPPORT
        );
        assert!(label.is_null(), "the output is left alone");
        // Stored as the thread's last error, as the runtime's C API stores
        // its own 207000.
        assert_eq!(
            acl!(aclrtPeekAtLastError(ACL_RT_THREAD_LEVEL)),
            ACL_ERROR_RT_FEATURE_NOT_SUPPORT
        );
        assert_eq!(
            acl!(aclrtGetLastError(ACL_RT_THREAD_LEVEL)),
            ACL_ERROR_RT_FEATURE_NOT_SUPPORT
        );
        let msg = recent_err_msg().expect("a message");
        assert!(msg.starts_with("aclrtCreateLabel: not modelled"), "{msg}");
        assert_eq!(last_rule(), Some(("aclrtCreateLabel", "UNSUPPORTED", true)));
        // A model runtime instance function, and one that returns a pointer.
        let mut ri: aclmdlRI = null_mut();
        assert_eq!(
            acl!(aclmdlRIBuildBegin(&mut ri, 0)),
            ACL_ERROR_RT_FEATURE_NOT_SUPPORT
        );
        let bin = acl!(aclrtCreateBinary(null(), 0));
        assert!(bin.is_null());
        assert_eq!(
            last_rule(),
            Some(("aclrtCreateBinary", "UNSUPPORTED", true))
        );
        assert!(
            recent_err_msg()
                .unwrap()
                .starts_with("aclrtCreateBinary: not modelled")
        );
        let kinds = violation_kinds();
        assert_eq!(kinds, [ViolationKind::Unsupported; 3]);
        teardown_device0();
        aclrt_sim::reset();
    });
}
