//! The failure rule (SAFETY.md section 4.1) and the fault attribution of
//! scope waits, one test binary: the rule attacked whole, the attacks of the
//! independent reviews on it (each module's doc comment names the review it
//! came from), the service loop in one scope, and the fault sweep of the
//! examples. One binary links once; its tests share the process and take
//! the simulator with `sim::exclusive()`, as every test does.

#[path = "../common/mod.rs"]
mod common;

mod after_failure;
mod attribution;
mod lanes;
mod marks;
mod origins;
mod recovery_point;
mod rule;
mod service_loop;
mod sweep;
