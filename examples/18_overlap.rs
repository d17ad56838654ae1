//! Overlapping pipelines on parts of one buffer.
//!
//! 1. Double buffering with split buffers: one pinned input and one device
//!    buffer are split into two halves; lane A moves the first half
//!    (host → device → host) while lane B moves the second, at the same
//!    time. The halves are disjoint (`split_at_mut`), so the compiler lets
//!    two lanes write them at once.
//! 2. One input feeding two consumers: a producer lane uploads a tensor and
//!    shares it (`Lane::share`); two consumer lanes read it concurrently
//!    (`Lane::read`), and the producer takes it back (`Lane::reclaim`) once
//!    both are done, to overwrite it with the next batch.
//!
//! On the simulator the lanes are slowed down so the overlap (and the
//! ordering that `reclaim` enforces) is real; `ACLRT_SIM_TRACE=…` shows it
//! on the timeline.

use std::time::Duration;

use aclrt::{Acl, Detected, RunMode, Runtime, make_guard};

/// How long each task of the three lanes is delayed on the simulator.
const DELAY: Duration = Duration::from_millis(5);

fn run<M: RunMode>(rt: Runtime<'_, M>, delay: Duration) -> aclrt::Result<()> {
    let device = rt.device(0)?;
    make_guard!(guard);
    let ctx = device.create_context(guard)?;
    let (a, b, c) = (
        ctx.create_stream()?,
        ctx.create_stream()?,
        ctx.create_stream()?,
    );
    aclrt::sim_only! {
        for s in [&a, &b, &c] {
            aclrt::sim::set_stream_delay(s.as_raw(), delay);
        }
    }
    aclrt::not_sim! { let _ = delay; }

    // 1. Double buffering on the two halves of one buffer.
    let n = 1 << 14;
    let data: Vec<f32> = (0..n).map(|i| i as f32 * 0.25).collect();
    let input = ctx.alloc_host_from(&data)?;
    let mut staging = ctx.alloc::<f32>(n)?;
    let mut output = ctx.alloc_host_zeroed::<f32>(n)?;
    ctx.scope(|s| {
        make_guard!(ga);
        make_guard!(gb);
        let (la, lb) = (s.lane(&a, ga), s.lane(&b, gb));
        let (in_lo, in_hi) = input.split_at(n / 2);
        let (dev_lo, dev_hi) = staging.split_at_mut(n / 2)?;
        let (out_lo, out_hi) = output.split_at_mut(n / 2);
        let lo = la.copy(in_lo, dev_lo)?; // lane A: first half up…
        let hi = lb.copy(in_hi, dev_hi)?; // lane B: second half up, meanwhile
        let _ = la.copy(&lo, out_lo)?; // …and back down
        let _ = lb.copy(&hi, out_hi)?;
        Ok(())
    })?;
    assert_eq!(output.to_vec(), data, "both halves made the round trip");
    println!("double buffering: {n} values through two lanes, halves in parallel");

    // 2. One input, two consumers, then the next batch into the same buffer.
    let batch = ctx.alloc_host_from(&(0..4096u32).collect::<Vec<_>>())?;
    let mut tensor = ctx.alloc::<u32>(4096)?;
    let mut left = ctx.alloc_host_zeroed::<u32>(4096)?;
    let mut right = ctx.alloc_host_zeroed::<u32>(4096)?;
    let mut next = ctx.alloc_host_zeroed::<u32>(4096)?;
    ctx.scope(|s| {
        make_guard!(gp);
        make_guard!(g1);
        make_guard!(g2);
        let (producer, c1, c2) = (s.lane(&a, gp), s.lane(&b, g1), s.lane(&c, g2));
        let shared = producer.share(producer.copy(&batch, &mut tensor)?)?;
        let _ = c1.copy(&c1.read(&shared)?, &mut left)?;
        let _ = c2.copy(&c2.read(&shared)?, &mut right)?;
        // Both reads are joined before the producer writes again.
        let tensor = producer.reclaim(shared)?;
        let tensor = producer.memset(tensor, 0)?;
        let _ = producer.copy(&tensor, &mut next)?;
        Ok(())
    })?;
    let expected: Vec<u32> = (0..4096).collect();
    assert_eq!(left.to_vec(), expected, "consumer 1 saw the batch");
    assert_eq!(right.to_vec(), expected, "consumer 2 saw the batch");
    assert!(next.iter().all(|v| v == 0), "the next batch overwrote it");
    println!("fan-out: two consumers read one tensor, then it was reused");
    Ok(())
}

/// The example between `Acl::init` and `finalize`.
pub fn flow(acl: &Acl) -> aclrt::Result<()> {
    flow_with_delay(acl, DELAY)
}

/// [`flow`] with each lane's tasks delayed by `delay` on the simulator.
/// `tests/failure_rule/sweep.rs` runs it (with a shorter delay: the same
/// calls in the same order), with each of its C calls made to fail once.
pub fn flow_with_delay(acl: &Acl, delay: Duration) -> aclrt::Result<()> {
    match acl.detect() {
        Detected::Host(rt) => run(rt, delay),
        Detected::Device(rt) => run(rt, delay),
    }
}

fn main() -> aclrt::Result<()> {
    let acl = Acl::init()?;
    flow(&acl)?;
    acl.finalize()?;
    aclrt::sim_only! { aclrt::sim::audit().assert_clean(); }
    println!("18_overlap: OK");
    Ok(())
}
