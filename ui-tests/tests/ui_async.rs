//! Runs the "Async and cross-stream" cases: everything in `async-fail/` must
//! fail to compile with the `.stderr` snapshot next to it, and everything in
//! `async-pass/` (the same file stems, done the right way) must compile and
//! run successfully on the built-in simulator.
//!
//! Regenerate the snapshots with
//! `TRYBUILD=overwrite cargo test -p aclrt-ui-tests --test ui_async`, then
//! read every `.stderr`: each must fail for the reason its header states.

#[test]
fn ui_async() {
    let t = trybuild::TestCases::new();
    t.compile_fail("async-fail/*.rs");
    t.pass("async-pass/*.rs");
}
