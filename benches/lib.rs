//! Holder crate for the benchmarks of aclrt (`cargo bench -p aclrt-benches`)
//! and the compile-cost fixtures. Its own workspace member, so that
//! criterion is built only when benchmarks are.
