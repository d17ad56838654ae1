//! Runs the compile-fail cases in `fail/` (each must fail to compile with the
//! `.stderr` snapshot next to it) and the compile-pass cases in `pass/` (each
//! must compile and run successfully on the built-in simulator).
//!
//! Regenerate the snapshots with
//! `TRYBUILD=overwrite cargo test -p aclrt-ui-tests`, then review every diff.

#[test]
fn ui() {
    let t = trybuild::TestCases::new();
    t.compile_fail("fail/*.rs");
    t.pass("pass/*.rs");
}
