//! A picture of asynchronous work: a three-stream pipeline on the simulator
//! and its timeline as an SVG.
//!
//! `cargo run --example 13_timeline [-- OUT.svg]` (default
//! `target/timeline.svg`; the Chrome trace is written next to it as
//! `*.trace.json`, open it in `chrome://tracing` or Perfetto). The pipeline,
//! per chunk of 4 MiB:
//!
//! * stream "upload": host-to-device copy (slowed down by a task delay), then
//!   an event hand-off to "compute";
//! * stream "compute": waits, copies the chunk to a pinned staging buffer,
//!   runs a host function on it (the compute step), copies it back to the
//!   device, hands it to "download";
//! * stream "download": clears the output (memset), waits, copies the result
//!   to the host.
//!
//! The simulator records every task while `trace_path` is set, writes the
//! Chrome trace at `aclFinalize` and keeps the same trace in memory
//! (`aclrt::sim::trace::last`); `aclrt::sim::trace::render_svg` draws it:
//! one lane per stream, copies, memsets and host functions as coloured bars,
//! waits hatched, event records as ticks, hand-offs as arrows, a time axis
//! in milliseconds. The example ends by checking that the picture shows
//! what happened. Simulator only (the trace is a simulator feature).

aclrt::sim_only! {
    fn main() -> Result<(), Box<dyn std::error::Error>> {
        timeline::main()
    }
}

aclrt::not_sim! {
    fn main() {
        println!("13_timeline: skipped (needs the simulator backend, feature `sim`)");
    }
}

aclrt::sim_only! {
    mod timeline {
        use std::ffi::c_void;
        use std::path::PathBuf;
        use std::time::Duration;

        use aclrt::sim::SimConfig;
        use aclrt::sim::trace::{self, Lane, SvgOptions, Trace};
        use aclrt::{Acl, Detected, RunMode, Runtime, make_guard};

        const CHUNKS: usize = 3;
        const CHUNK_LEN: usize = 1 << 20; // f32 elements: 4 MiB per chunk
        const DELAY_MS: u64 = 3;

        pub fn main() -> Result<(), Box<dyn std::error::Error>> {
            let svg_path = std::env::args_os()
                .nth(1)
                .map(PathBuf::from)
                .unwrap_or_else(|| {
                    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("target/timeline.svg")
                });
            let trace_path = svg_path.with_extension("trace.json");
            if let Some(dir) = svg_path.parent().filter(|d| !d.as_os_str().is_empty()) {
                std::fs::create_dir_all(dir)?;
            }
            let _ = std::fs::remove_file(&trace_path);

            aclrt::sim::configure(SimConfig {
                trace_path: Some(trace_path.clone()),
                ..SimConfig::from_env()
            });
            let acl = Acl::init()?;
            let mode = format!("{:?}", acl.run_mode());
            let [upload, compute, download] = match acl.detect() {
                Detected::Host(rt) => pipeline(rt)?,
                Detected::Device(rt) => pipeline(rt)?,
            };
            acl.finalize()?;
            aclrt::sim::audit().assert_clean();

            let trace = trace::last().ok_or("the simulator kept no trace")?;
            let options = SvgOptions::new()
                .title(format!(
                    "aclrt simulator: {CHUNKS} chunks of 4 MiB through 3 streams (run mode {mode})"
                ))
                .label(upload, "upload")
                .note(upload, format!("{DELAY_MS} ms delay/task"))
                .label(compute, "compute")
                .label(download, "download");
            let svg = trace::render_svg(&trace, &options);
            std::fs::write(&svg_path, &svg)?;
            println!("trace:    {}", trace_path.display());
            println!("timeline: {}", svg_path.display());
            let lane = |stream| trace.lane(stream).ok_or("a pipeline stream has no lane");
            check(
                &trace,
                [lane(upload)?, lane(compute)?, lane(download)?],
                &svg,
            );
            println!("13_timeline: OK");
            Ok(())
        }

        /// Runs the pipeline; returns the `aclrtStream` handles of upload,
        /// compute and download (to find their lanes in the trace).
        fn pipeline<M: RunMode>(rt: Runtime<'_, M>) -> aclrt::Result<[*mut c_void; 3]> {
            let device = rt.device(0)?;
            make_guard!(guard);
            let ctx = device.create_context(guard)?;
            let upload = ctx.create_stream()?;
            let compute = ctx.create_stream()?;
            let download = ctx.create_stream()?;
            // Every task on "upload" waits DELAY_MS first: the others must wait for it.
            aclrt::sim::set_stream_delay(upload.as_raw(), Duration::from_millis(DELAY_MS));

            let mut inputs = Vec::new();
            let mut on_device = Vec::new();
            let mut staging = Vec::new();
            let mut results = Vec::new();
            let mut outputs = Vec::new();
            for c in 0..CHUNKS {
                let data: Vec<f32> = (0..CHUNK_LEN).map(|i| (i + c * CHUNK_LEN) as f32).collect();
                inputs.push(ctx.alloc_host_from(&data)?);
                on_device.push(ctx.alloc::<f32>(CHUNK_LEN)?);
                staging.push(ctx.alloc_host_zeroed::<f32>(CHUNK_LEN)?);
                results.push(ctx.alloc::<f32>(CHUNK_LEN)?);
                outputs.push(ctx.alloc_host_from(&vec![-1.0f32; CHUNK_LEN])?);
            }

            ctx.scope(|s| {
                make_guard!(a);
                make_guard!(b);
                make_guard!(c);
                let up = s.lane(&upload, a);
                let work = s.lane(&compute, b);
                let down = s.lane(&download, c);
                let mut done = Vec::new();
                let chunks = inputs
                    .iter()
                    .zip(on_device.iter_mut())
                    .zip(staging.iter_mut())
                    .zip(results.iter_mut())
                    .zip(outputs.iter_mut());
                for ((((input, dev), stage), result), output) in chunks {
                    let cleared = down.memset(output, 0)?; // runs at once
                    let landed = up.copy(input, dev)?; // H2D, delayed
                    let landed = work.wait_for(up.signal(landed)?)?; // upload -> compute
                    let host_side = work.copy(&landed, stage)?; // D2H to staging
                    let computed = work.host_fn_with(host_side, |v| {
                        v.update_all(|x| x * 2.0 + 1.0) // compute step
                    })?;
                    let back = work.copy(&computed, result)?; // H2D
                    let back = down.wait_for(work.signal(back)?)?; // compute -> download
                    done.push(down.copy(&back, cleared)?); // D2H
                }
                for (c, out) in done.into_iter().enumerate() {
                    let out = out.wait()?;
                    let base = (c * CHUNK_LEN) as f32;
                    assert!(
                        out.iter()
                            .enumerate()
                            .all(|(i, x)| x == (base + i as f32) * 2.0 + 1.0),
                        "chunk {c} is wrong"
                    );
                }
                Ok(())
            })?;
            println!("{CHUNKS} chunks through upload -> compute -> download: correct");
            drop((inputs, on_device, staging, results, outputs));
            let handles = [upload.as_raw(), compute.as_raw(), download.as_raw()];
            upload.destroy()?;
            compute.destroy()?;
            download.destroy()?;
            ctx.destroy()?;
            device.reset()?;
            Ok(handles)
        }

        /// The picture shows what happened: a lane per pipeline stream, and
        /// every stream that waited started its next task only after the task
        /// it waited for had finished.
        fn check(trace: &Trace, [upload, compute, download]: [&Lane; 3], svg: &str) {
            let busy = trace.lanes.iter().filter(|l| !l.tasks.is_empty()).count();
            assert_eq!(
                svg.matches(r#"<g class="lane""#).count(),
                busy,
                "one lane per stream that ran tasks in the SVG"
            );
            for (lane, role) in [
                (upload, "upload"),
                (compute, "compute"),
                (download, "download"),
            ] {
                assert!(!lane.tasks.is_empty(), "{role} ran no task");
                assert!(
                    svg.contains(&format!(r#"data-stream="{}""#, lane.stream)),
                    "no lane for {role}"
                );
            }
            let first = |lane: &Lane, category: &str| {
                lane.tasks
                    .iter()
                    .find(|t| t.category == category)
                    .unwrap_or_else(|| panic!("no {category} task on {}", lane.name()))
                    .clone()
            };
            let produced = first(upload, "copy");
            let consumed = first(compute, "copy");
            assert!(
                consumed.start_us >= produced.end_us(),
                "compute's first copy ({:.1} µs) starts after upload's first copy ends ({:.1} µs)",
                consumed.start_us,
                produced.end_us()
            );
            let handed = first(download, "copy");
            let computed = first(compute, "host");
            assert!(
                handed.start_us >= computed.end_us(),
                "download's first copy starts after the first compute step ends"
            );
            let mut waits = 0;
            for (lane, wait) in trace.tasks().filter(|(_, t)| t.waits_for.is_some()) {
                let (_, target) = trace
                    .waited_for(lane, wait)
                    .expect("the waited-for task is in the trace");
                if let Some(next) = lane.tasks.iter().find(|t| t.seq > wait.seq) {
                    assert!(
                        next.start_us + 1.0 >= target.end_us(),
                        "{} seq {} ran before the event it waited for",
                        lane.name(),
                        next.seq
                    );
                }
                waits += 1;
            }
            // A wait whose event has already completed when it is queued is not
            // a task (the simulator skips it), so a busy machine may show fewer.
            assert!(
                (1..=2 * CHUNKS).contains(&waits),
                "{waits} waits for {} hand-offs",
                2 * CHUNKS
            );
            assert_eq!(
                svg.matches(r#"class="handoff""#).count(),
                waits,
                "an arrow per hand-off"
            );
        }
    }
}
