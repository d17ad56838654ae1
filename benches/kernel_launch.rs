//! Kernel launch throughput on one stream, on the simulator.
//!
//! * `kernel_launch/raw_c_abi/N`: N launches of an empty registered kernel
//!   (one 4-byte scalar argument) through the raw C ABI —
//!   `aclrtKernelArgsInit`, `aclrtKernelArgsAppend`,
//!   `aclrtKernelArgsFinalize`, `aclrtLaunchKernelWithConfig` — then one
//!   `aclrtSynchronizeStream`: launches per second, queue and execution
//!   included (the stream's worker runs every launch).
//! * `kernel_launch/safe_lane_launch/N`: the same N launches with
//!   `Lane::launch` inside an open scope, then the lane's synchronisation.
//!
//! Run with `cargo bench --manifest-path benches/Cargo.toml --bench kernel_launch`.
//! The figures depend on the simulator's stream execution engine
//! (`sim/src/rt/exec.rs`): the launches are queued on one stream and run
//! by its worker.

use std::ffi::c_void;
use std::ptr::{null, null_mut};
use std::time::Duration;

use aclrt::kernel::Scalar;
use aclrt::{Acl, HostMode, make_guard};
use aclrt_sys::*;
use criterion::{BenchmarkId, Criterion, Throughput, criterion_group, criterion_main};

/// Launches per iteration.
const N: u64 = 10_000;

/// Calls a C function of the simulator and panics unless it succeeded.
macro_rules! acl {
    ($f:ident ( $($arg:expr),* $(,)? )) => {{
        // SAFETY: the benchmark passes only live handles, out-pointers to
        // locals of the right C type, and a pointer to a live 4-byte scalar
        // with its size.
        let code = unsafe { aclrt_sys::$f($($arg),*) };
        assert_eq!(code, ACL_SUCCESS, "{} failed with {}", stringify!($f), code);
    }};
}

/// The empty kernel: one scalar argument, no work, no memory access.
fn register_empty() {
    aclrt_sim::register_kernel("bench_empty", |_, _, _| Ok(()));
}

type Group<'a> = criterion::BenchmarkGroup<'a, criterion::measurement::WallTime>;

fn raw(g: &mut Group<'_>) {
    let _sim = aclrt_sim::exclusive();
    register_empty();
    acl!(aclInit(null()));
    acl!(aclrtSetDevice(0));
    let mut stream: aclrtStream = null_mut();
    acl!(aclrtCreateStream(&mut stream));
    let image = aclrt_sim::binary_image(&["bench_empty"]);
    let mut bin: aclrtBinHandle = null_mut();
    acl!(aclrtBinaryLoadFromData(
        image.as_ptr().cast(),
        image.len(),
        null(),
        &mut bin
    ));
    let mut func: aclrtFuncHandle = null_mut();
    acl!(aclrtBinaryGetFunction(
        bin,
        c"bench_empty".as_ptr(),
        &mut func
    ));
    g.bench_function(BenchmarkId::new("raw_c_abi", N), |b| {
        b.iter(|| {
            for i in 0..N {
                let mut value = i as u32;
                let (mut args, mut param): (aclrtArgsHandle, aclrtParamHandle) =
                    (null_mut(), null_mut());
                acl!(aclrtKernelArgsInit(func, &mut args));
                acl!(aclrtKernelArgsAppend(
                    args,
                    (&raw mut value).cast::<c_void>(),
                    4,
                    &mut param
                ));
                acl!(aclrtKernelArgsFinalize(args));
                acl!(aclrtLaunchKernelWithConfig(
                    func,
                    1,
                    stream,
                    null_mut(),
                    args,
                    null_mut()
                ));
            }
            acl!(aclrtSynchronizeStream(stream));
        })
    });
    acl!(aclrtBinaryUnLoad(bin));
    acl!(aclrtDestroyStream(stream));
    acl!(aclrtResetDevice(0));
    acl!(aclFinalize());
    let audit = aclrt_sim::audit();
    assert!(
        audit.is_clean(),
        "benchmark left the audit dirty: {audit:#?}"
    );
}

fn safe(g: &mut Group<'_>) {
    let _sim = aclrt_sim::exclusive();
    register_empty();
    let acl = Acl::init().expect("aclInit");
    let rt = acl.require::<HostMode>().expect("host run mode");
    let device = rt.device(0).expect("device");
    make_guard!(guard);
    let ctx = device.create_context(guard).expect("context");
    let stream = ctx.create_stream().expect("stream");
    let binary = ctx
        .load_binary(&aclrt_sim::binary_image(&["bench_empty"]))
        .expect("binary");
    // SAFETY: `bench_empty` touches no memory.
    let empty = unsafe { binary.kernel::<(Scalar<u32>,)>(c"bench_empty") }.expect("kernel");
    g.bench_function(BenchmarkId::new("safe_lane_launch", N), |b| {
        b.iter(|| {
            ctx.scope(|s| {
                make_guard!(l);
                let lane = s.lane(&stream, l);
                for i in 0..N {
                    lane.launch(&empty, 1u32, (i as u32,))?;
                }
                Ok(())
            })
            .expect("launches")
        })
    });
    binary.unload().expect("unload");
    stream.destroy().expect("stream");
    ctx.destroy().expect("context");
    device.reset().expect("reset");
    acl.finalize().expect("finalize");
    let audit = aclrt_sim::audit();
    assert!(
        audit.is_clean(),
        "benchmark left the audit dirty: {audit:#?}"
    );
}

fn kernel_launch(c: &mut Criterion) {
    let mut g = c.benchmark_group("kernel_launch");
    g.throughput(Throughput::Elements(N));
    raw(&mut g);
    safe(&mut g);
    g.finish();
}

fn config() -> Criterion {
    Criterion::default()
        .sample_size(10)
        .warm_up_time(Duration::from_millis(500))
        .measurement_time(Duration::from_secs(3))
}

criterion_group! {
    name = benches;
    config = config();
    targets = kernel_launch
}
criterion_main!(benches);
