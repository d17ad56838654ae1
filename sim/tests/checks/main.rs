//! The simulator's checks as an oracle, one test binary: strict refusals,
//! fail modes and injected faults, the fidelity rows (the hardware's
//! answer plus the recorded report), soundness of the control API, the
//! fuzzer's findings, and stream aborts.

#[path = "../common/mod.rs"]
mod common;

mod abort;
mod failmode;
mod faults;
mod fidelity;
mod fuzz_findings;
mod soundness;
mod strict;
