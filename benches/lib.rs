//! Holder crate for the benchmarks of aclrt
//! (`cargo bench --manifest-path benches/Cargo.toml`) and the compile-cost
//! fixtures. A workspace of its own, so that criterion is built only when
//! benchmarks are.
