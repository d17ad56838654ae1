//! Example 19's overlap check (`overlap::check`) on real traces of the
//! pipeline, in both run modes: it accepts the trace as recorded, and it
//! refuses the same trace edited so that nothing overlaps any more, or so
//! that a hand-off was not respected — so the example's "OK" means what it
//! says.

use crate::common;

use std::time::Duration;

use aclrt::Acl;
use aclrt::sim::{self, SimConfig, trace};
use common::*;

#[allow(dead_code)]
#[path = "../../examples/19_compute_pipeline.rs"]
mod ex19;

/// Runs the pipeline with its trace on; returns the trace and its three
/// lanes (copy-in, compute, copy-out).
fn recorded(config: SimConfig, tag: &str) -> (trace::Trace, [trace::Lane; 3]) {
    let path = std::env::temp_dir().join(format!(
        "aclrt-compute-pipeline-{}-{tag}.json",
        std::process::id()
    ));
    sim::configure(SimConfig {
        trace_path: Some(path.clone()),
        ..config
    });
    let acl = Acl::init().unwrap();
    let streams = ex19::run(&acl, Duration::from_millis(4)).unwrap();
    acl.finalize().unwrap();
    sim::audit().assert_clean();
    let _ = std::fs::remove_file(&path);
    let trace = trace::last().expect("the simulator kept the trace");
    let lanes = streams.map(|s| trace.lane(s).expect("a lane per stream").clone());
    (trace, lanes)
}

fn tasks_mut<'a>(lane: &'a mut trace::Lane, category: &str) -> Vec<&'a mut trace::Task> {
    let mut v: Vec<_> = lane
        .tasks
        .iter_mut()
        .filter(|t| t.category == category)
        .collect();
    v.sort_by_key(|t| t.seq);
    v
}

#[test]
fn the_overlap_check_accepts_the_run_and_refuses_edited_traces() {
    for (config, tag) in [(host_config(), "host"), (device_config(), "device")] {
        let _sim = sim::exclusive();
        let (trace, [copy_in, compute, copy_out]) = recorded(config, tag);
        let n = ex19::overlap::check(&trace, &copy_in, &compute, &copy_out)
            .unwrap_or_else(|e| panic!("{tag}: {e}"));
        assert!((1..ex19::BATCHES).contains(&n), "{tag}: {n} overlaps");

        // The same tasks run one after the other (copy-in, kernel, copy-out
        // of batch 0, then of batch 1, ...): every hand-off still holds,
        // nothing overlaps. (Only shortening the kernels is not enough: on a
        // loaded machine a copy-in may legitimately span a short kernel.)
        let (mut s_in, mut s_compute, mut s_out) =
            (copy_in.clone(), compute.clone(), copy_out.clone());
        let mut t = 0.0;
        for ((i, k), o) in tasks_mut(&mut s_in, "copy")
            .into_iter()
            .zip(tasks_mut(&mut s_compute, "kernel"))
            .zip(tasks_mut(&mut s_out, "copy"))
        {
            for task in [i, k, o] {
                task.start_us = t;
                task.duration_us = 10.0;
                t += 20.0;
            }
        }
        let e = ex19::overlap::check(&trace, &s_in, &s_compute, &s_out).unwrap_err();
        assert!(
            e.starts_with("no copy-in of batch k+1 overlapped"),
            "{tag}: {e}"
        );

        // A copy-out that starts before its kernel ended.
        let mut early = copy_out.clone();
        let kernel0_end = tasks_mut(&mut compute.clone(), "kernel")[0].end_us();
        tasks_mut(&mut early, "copy")[0].start_us = kernel0_end - 10.0;
        let e = ex19::overlap::check(&trace, &copy_in, &compute, &early).unwrap_err();
        assert_eq!(e, "copy-out 0 started before its kernel ended", "{tag}");

        // Input slot 0 overwritten (copy-in 2) while kernel 0 still ran.
        let mut hasty = copy_in.clone();
        tasks_mut(&mut hasty, "copy")[2].start_us = kernel0_end - 10.0;
        let e = ex19::overlap::check(&trace, &hasty, &compute, &copy_out).unwrap_err();
        assert!(
            e.starts_with("copy-in 2 overwrote input slot 0"),
            "{tag}: {e}"
        );

        // A batch missing from a lane.
        let mut missing = copy_out.clone();
        let gone = tasks_mut(&mut missing, "copy")[3].seq;
        missing.tasks.retain(|t| t.seq != gone);
        let e = ex19::overlap::check(&trace, &copy_in, &compute, &missing).unwrap_err();
        assert!(e.starts_with("expected 8 copy-ins"), "{tag}: {e}");
    }
}
