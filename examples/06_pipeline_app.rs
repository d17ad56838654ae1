//! A long-lived application object: an inference-style pipeline struct built
//! in `main` that holds a context, its streams and its buffers, and is used
//! for many batches. The lifetimes say only "the pipeline lives inside the
//! context, which lives inside the device": ordinary program structure.

use aclrt::{
    Acl, Context, Detected, DeviceBuffer, HostBuffer, RunMode, Runtime, Stream, make_guard,
};

/// Doubles a batch of numbers "on the NPU" (the compute step is a host
/// function on the stream; a real pipeline would launch a kernel there).
struct Pipeline<'c, 'd, 'id, M: RunMode> {
    ctx: &'c Context<'d, 'id, M>,
    upload: Stream<'c, 'id>,
    compute: Stream<'c, 'id>,
    input: HostBuffer<'c, 'id, f32, M>,
    staging: DeviceBuffer<'c, 'id, f32>,
    output: HostBuffer<'c, 'id, f32, M>,
    batches: usize,
}

impl<'c, 'd, 'id, M: RunMode> Pipeline<'c, 'd, 'id, M> {
    fn new(ctx: &'c Context<'d, 'id, M>, batch: usize) -> aclrt::Result<Self> {
        Ok(Pipeline {
            ctx,
            upload: ctx.create_stream()?,
            compute: ctx.create_stream()?,
            input: ctx.alloc_host_zeroed(batch)?,
            staging: ctx.alloc(batch)?,
            output: ctx.alloc_host_zeroed(batch)?,
            batches: 0,
        })
    }

    fn run(&mut self, batch: &[f32]) -> aclrt::Result<Vec<f32>> {
        self.input.copy_from_slice(batch);
        let Pipeline {
            ctx,
            upload,
            compute,
            input,
            staging,
            output,
            ..
        } = self;
        ctx.scope(|s| {
            make_guard!(a);
            make_guard!(b);
            let up = s.lane(upload, a);
            let work = s.lane(compute, b);
            let staged = up.copy(&*input, &mut *staging)?; // H2D on the upload stream
            let staged = work.wait_for(up.signal(staged)?)?; // hand-off by event
            let out = work.copy(&staged, &mut *output)?; // D2H on the compute stream
            let out = work.host_fn_with(out, |v| v.update_all(|x| x * 2.0))?;
            Ok(out.wait()?.to_vec())
        })
        .inspect(|_| self.batches += 1)
    }
}

fn serve<M: RunMode>(rt: Runtime<'_, M>) -> aclrt::Result<()> {
    let device = rt.device(0)?;
    make_guard!(guard);
    let ctx = device.create_context(guard)?;
    let mut pipeline = Pipeline::new(&ctx, 8)?;
    for round in 0..5 {
        let batch: Vec<f32> = (0..8).map(|i| (round * 8 + i) as f32).collect();
        let result = pipeline.run(&batch)?;
        let expected: Vec<f32> = batch.iter().map(|x| x * 2.0).collect();
        assert_eq!(result, expected, "round {round}");
    }
    println!("served {} batches", pipeline.batches);
    Ok(())
}

/// The example between `Acl::init` and `finalize`. `tests/failure_rule/sweep.rs`
/// runs it too, with each of its C calls made to fail once.
pub fn flow(acl: &Acl) -> aclrt::Result<()> {
    match acl.detect() {
        Detected::Host(rt) => serve(rt),
        Detected::Device(rt) => serve(rt),
    }
}

fn main() -> aclrt::Result<()> {
    let acl = Acl::init()?;
    flow(&acl)?;
    acl.finalize()?;
    aclrt::sim_only! { aclrt::sim::audit().assert_clean(); }
    println!("06_pipeline_app: OK");
    Ok(())
}
