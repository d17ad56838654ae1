//! Scopes and compute on their lanes, one test binary: overlapping
//! pipelines, the settled-lane skip at a scope's end, panic safety, typed
//! kernels, notifies as a hand-off between lanes, example 19's overlap check, and the outside attacks on the
//! scope surface.

#[path = "../common/mod.rs"]
mod common;

mod compute_pipeline;
mod kernel;
mod panic_safety;
mod pipelines;
mod review_today;
mod scope_notify;
mod scope_settled;
mod surface_attacks;
