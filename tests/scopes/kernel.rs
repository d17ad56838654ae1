//! Compute on a stream: binaries, typed kernels, safe launches, the
//! per-thread argument list, foreign work, and the attacks (forget, panic,
//! fault, other threads, host functions).

use crate::common;

use std::panic::{AssertUnwindSafe, catch_unwind};
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};

use aclrt::kernel::{Binary, Kernel};
use aclrt::kernel::{Count, In, InOut, LaunchConfig, LoadOptions, Out, Scalar};
use aclrt::sim::{Audit, ResourceKind, SimConfig, ViolationKind};
use aclrt::{Acl, Device, DeviceMode, Error, HostMode, Result, RunMode, make_guard};
use common::*;

/// c[i] = a[i] + b[i] for i < n; block k of nb does i ≡ k (mod nb).
fn register_kernels() {
    aclrt::sim::register_kernel("t_vector_add", |block, nb, args| {
        let (a, b, c, n) = (args.u64(0)?, args.u64(1)?, args.u64(2)?, args.u64(3)?);
        let mut i = block as usize;
        while i < n as usize {
            args.write_f32(c, i, args.read_f32(a, i)? + args.read_f32(b, i)?)?;
            i += nb as usize;
        }
        Ok(())
    });
    // x[i] = x[i] * s for i < n (InOut, Scalar<f32>, Count)
    aclrt::sim::register_kernel("t_scale", |block, nb, args| {
        let (x, s, n) = (args.u64(0)?, args.bytes(1)?, args.u64(2)?);
        let s = f32::from_le_bytes(s[..4].try_into().unwrap());
        let mut i = block as usize;
        while i < n as usize {
            args.write_f32(x, i, args.read_f32(x, i)? * s)?;
            i += nb as usize;
        }
        Ok(())
    });
    // Reads one element past the end of its input: a device fault.
    aclrt::sim::register_kernel("t_oob", |_, _, args| {
        let (a, c, n) = (args.u64(0)?, args.u64(1)?, args.u64(2)?);
        let v = args.read_f32(a, n as usize + 64)?;
        args.write_f32(c, 0, v)
    });
}

/// The signature of `t_vector_add`: `c = a + b` over the first `n`.
type Add = (In<f32>, In<f32>, Out<f32>, Count);

/// `t_vector_add` of `binary`, with the one promise its signature makes.
fn vector_add<'b, 'id>(binary: &'b Binary<'_, 'id>) -> Kernel<'b, 'id, Add> {
    // SAFETY: t_vector_add reads a, b and writes c, each below n.
    unsafe { binary.kernel::<Add>(c"t_vector_add") }.expect("t_vector_add")
}

/// The frame of most tests here: the simulator taken with `config`, the
/// test kernels registered, `f` run on device 0 in run mode `M`, the
/// runtime finalised. Returns the audit, for the test's own checks.
fn on_device<M: RunMode>(config: SimConfig, f: impl FnOnce(&Device<'_, M>)) -> Audit {
    let _sim = take(config);
    register_kernels();
    let acl = Acl::init().expect("aclInit");
    f(&acl
        .require::<M>()
        .expect("run mode")
        .device(0)
        .expect("device 0"));
    acl.finalize().expect("aclFinalize");
    aclrt::sim::audit()
}

fn vector_add_flow<M: RunMode>(device: &Device<'_, M>, blocks: u32) -> Result<()> {
    make_guard!(g);
    let ctx = device.create_context(g)?;
    let stream = ctx.create_stream()?;
    let binary = ctx.load_binary(&aclrt::sim::binary_image(&["t_vector_add", "t_scale"]))?;
    // SAFETY: t_vector_add reads a, b and writes c, each below n.
    let add = unsafe { binary.kernel::<(In<f32>, In<f32>, Out<f32>, Count)>(c"t_vector_add")? };
    // SAFETY: t_scale reads and writes x below n.
    let scale = unsafe { binary.kernel::<(InOut<f32>, Scalar<f32>, Count)>(c"t_scale")? };
    let n = 1000;
    let a = pattern_f32(n, 1.0);
    let b = pattern_f32(n, -3.0);
    let ha = ctx.alloc_host_from(&a)?;
    let hb = ctx.alloc_host_from(&b)?;
    let mut da = ctx.alloc::<f32>(n)?;
    let mut db = ctx.alloc::<f32>(n)?;
    let mut dc = ctx.alloc::<f32>(n)?;
    let mut out = ctx.alloc_host_zeroed::<f32>(n)?;
    ctx.scope(|s| {
        make_guard!(l);
        let lane = s.lane(&stream, l);
        let da = lane.copy(&ha, &mut da)?;
        let db = lane.copy(&hb, &mut db)?;
        let (_, _, c, _) = lane.launch(&add, blocks, (&da, &db, &mut dc, n))?;
        let (c, _, _) = lane.launch(&scale, LaunchConfig::blocks(3), (c, 2.0f32, n))?;
        let _ = lane.copy(&c, &mut out)?;
        Ok(())
    })?;
    for i in 0..n {
        assert_eq!(out.get(i), Some((a[i] + b[i]) * 2.0), "element {i}");
    }
    Ok(())
}

#[test]
fn vector_add_host_mode() {
    on_device::<HostMode>(host_config(), |device| {
        for blocks in [1, 8, 2000] {
            vector_add_flow(device, blocks).unwrap();
        }
    })
    .assert_clean();
}

#[test]
fn vector_add_device_mode_with_host_buffers_as_kernel_memory() {
    let audit = on_device::<DeviceMode>(device_config(), |device| {
        vector_add_flow(device, 4).unwrap();
        // In device run mode, aclrtMallocHost memory is device memory: a
        // kernel may read and write HostBuffers directly.
        make_guard!(g);
        let ctx = device.create_context(g).unwrap();
        let stream = ctx.create_stream().unwrap();
        let binary = ctx
            .load_binary(&aclrt::sim::binary_image(&["t_vector_add"]))
            .unwrap();
        let add = vector_add(&binary);
        let a = ctx.alloc_host_from(&[1.0f32, 2.0, 3.0]).unwrap();
        let b = ctx.alloc_host_from(&[0.5f32, 0.5, 0.5]).unwrap();
        let mut c = ctx.alloc_host_zeroed::<f32>(3).unwrap();
        ctx.scope(|s| {
            make_guard!(l);
            let lane = s.lane(&stream, l);
            let (_, _, c, _) = lane.launch(&add, 1, (&a, &b, &mut c, 3))?;
            let c = c.wait()?;
            assert_eq!(c.to_vec(), vec![1.5, 2.5, 3.5]);
            Ok(())
        })
        .unwrap();
    });
    audit.assert_clean();
}

#[test]
fn device_fault_surfaces_at_the_scope_with_its_code() {
    let audit = on_device::<HostMode>(host_config(), |device| {
        make_guard!(g);
        let ctx = device.create_context(g).unwrap();
        let stream = ctx.create_stream().unwrap();
        let binary = ctx
            .load_binary(&aclrt::sim::binary_image(&["t_oob"]))
            .unwrap();
        // A false declaration (the kernel reads past its input): on the
        // simulator this is a fault at the next synchronisation.
        // SAFETY: deliberately violated to test the simulator's check; the
        // simulator refuses the access instead of performing it.
        let oob = unsafe {
            binary
                .kernel::<(In<f32>, Out<f32>, Count)>(c"t_oob")
                .unwrap()
        };
        let a = ctx.alloc_zeroed::<f32>(4).unwrap();
        let mut c = ctx.alloc_zeroed::<f32>(4).unwrap();
        let r = ctx.scope(|s| {
            make_guard!(l);
            let lane = s.lane(&stream, l);
            let _ = lane.launch(&oob, 1, (&a, &mut c, 4))?;
            Ok(())
        });
        let e = r.unwrap_err();
        assert_eq!(e.code(), Some(507015), "{e}");
        // The launch that queued the faulting kernel; the call that reported it.
        assert_eq!(e.function(), Some("aclrtLaunchKernelWithConfig"));
        assert_eq!(e.call(), Some("aclrtSynchronizeStream"));
        // The same fault through InFlight::wait.
        let r = ctx.scope(|s| {
            make_guard!(l);
            let lane = s.lane(&stream, l);
            let (_, c, _) = lane.launch(&oob, 1, (&a, &mut c, 4))?;
            c.wait()?;
            Ok(())
        });
        assert_eq!(r.unwrap_err().code(), Some(507015));
    });
    assert!(
        violation_kinds(&audit)
            .iter()
            .all(|k| *k == ViolationKind::KernelBadAccess)
    );
    assert_eq!(audit.violations.len(), 2);
    assert!(audit.leaks.is_empty());
}

#[test]
fn count_larger_than_a_buffer_is_refused_before_queueing() {
    let audit = on_device::<HostMode>(host_config(), |device| {
        make_guard!(g);
        let ctx = device.create_context(g).unwrap();
        let stream = ctx.create_stream().unwrap();
        let binary = ctx
            .load_binary(&aclrt::sim::binary_image(&["t_vector_add"]))
            .unwrap();
        let add = vector_add(&binary);
        let a = ctx.alloc_zeroed::<f32>(8).unwrap();
        let b = ctx.alloc_zeroed::<f32>(4).unwrap();
        let mut c = ctx.alloc_zeroed::<f32>(8).unwrap();
        let r = ctx.scope(|s| {
            make_guard!(l);
            let lane = s.lane(&stream, l);
            let _ = lane.launch(&add, 1, (&a, &b, &mut c, 5))?;
            Ok(())
        });
        assert_eq!(r.unwrap_err(), Error::KernelCount { count: 5, len: 4 });
        // Zero blocks: the runtime's error, with its function.
        let r = ctx.scope(|s| {
            make_guard!(l);
            let lane = s.lane(&stream, l);
            let _ = lane.launch(&add, 0, (&a, &b, &mut c, 4))?;
            Ok(())
        });
        let e = r.unwrap_err();
        assert_eq!(e.code(), Some(100000));
        assert_eq!(e.function(), Some("aclrtLaunchKernelWithConfig"));
    });
    assert!(audit.leaks.is_empty());
}

#[test]
fn binaries_load_look_up_and_unload() {
    let audit = on_device::<HostMode>(host_config(), |device| {
        make_guard!(g);
        let ctx = device.create_context(g).unwrap();
        let image = aclrt::sim::binary_image(&["t_vector_add"]);
        // Unknown kernel name: 107000 (K.5).
        let binary = ctx.load_binary(&image).unwrap();
        // SAFETY: the lookup fails; nothing is launched.
        let e = unsafe { binary.kernel::<(Count,)>(c"nope") }.unwrap_err();
        assert_eq!(e.code(), Some(107000));
        assert_eq!(e.function(), Some("aclrtBinaryGetFunction"));
        binary.unload().unwrap();
        // Empty image: 107000 from the rt layer.
        assert_eq!(ctx.load_binary(&[]).unwrap_err().code(), Some(107000));
        // Lazy load option; magic with a data load is accepted.
        let opts = LoadOptions {
            lazy: Some(true),
            magic: Some(aclrt::kernel::BinaryMagic::VectorCore),
        };
        let binary = ctx.load_binary_with(&image, opts).unwrap();
        drop(binary);
        // From a file; a magic is refused for files (107000).
        let path = std::env::temp_dir().join(format!("aclrt-kernel-{}.bin", std::process::id()));
        std::fs::write(&path, &image).unwrap();
        let cpath = std::ffi::CString::new(path.to_str().unwrap()).unwrap();
        let binary = ctx.load_binary_file(&cpath).unwrap();
        drop(binary);
        let e = ctx.load_binary_file_with(&cpath, opts).unwrap_err();
        assert_eq!(e.code(), Some(107000));
        std::fs::remove_file(&path).unwrap();
        let missing = c"/nonexistent/aclrt-kernel.bin";
        assert_eq!(
            ctx.load_binary_file(missing).unwrap_err().code(),
            Some(107000)
        );
    });
    assert!(audit.leaks.is_empty());
    // Only the unknown name is a rule broken; the other refusals are
    // ordinary errors.
    assert_eq!(violation_kinds(&audit), vec![ViolationKind::UnknownKernel]);
}

#[test]
fn unloading_after_scopes_never_finds_pending_launches() {
    aclrt::sim::configure(aclrt::sim::SimConfig {
        task_delay: std::time::Duration::from_millis(5),
        ..host_config()
    });
    let audit = on_device::<HostMode>(host_config(), |device| {
        make_guard!(g);
        let ctx = device.create_context(g).unwrap();
        let stream = ctx.create_stream().unwrap();
        for _ in 0..5 {
            let binary = ctx
                .load_binary(&aclrt::sim::binary_image(&["t_vector_add"]))
                .unwrap();
            // SAFETY: as in vector_add_flow.
            let add = unsafe {
                binary
                    .kernel::<(In<f32>, In<f32>, Out<f32>, Count)>(c"t_vector_add")
                    .unwrap()
            };
            let a = ctx.alloc_zeroed::<f32>(64).unwrap();
            let mut c = ctx.alloc_zeroed::<f32>(64).unwrap();
            ctx.scope(|s| {
                make_guard!(l);
                let lane = s.lane(&stream, l);
                let (_, _, c, _) = lane.launch(&add, 4, (&a, &a, &mut c, 64))?;
                // Forgetting the output changes nothing: the scope waits.
                #[allow(clippy::forget_non_drop)]
                std::mem::forget(c);
                Ok(())
            })
            .unwrap();
            binary.unload().unwrap();
        }
    });
    // No "unload with launches pending" violation, nothing leaked.
    audit.assert_clean();
}

#[test]
fn panic_inside_a_scope_with_launches_pending_waits_for_them() {
    aclrt::sim::configure(aclrt::sim::SimConfig {
        task_delay: std::time::Duration::from_millis(20),
        ..host_config()
    });
    let audit = on_device::<HostMode>(host_config(), |device| {
        make_guard!(g);
        let ctx = device.create_context(g).unwrap();
        let stream = ctx.create_stream().unwrap();
        let binary = ctx
            .load_binary(&aclrt::sim::binary_image(&["t_vector_add"]))
            .unwrap();
        let add = vector_add(&binary);
        let a = ctx.alloc_from(&[1.0f32; 256]).unwrap();
        let mut c = ctx.alloc_zeroed::<f32>(256).unwrap();
        let r = catch_unwind(AssertUnwindSafe(|| {
            ctx.scope(|s| {
                make_guard!(l);
                let lane = s.lane(&stream, l);
                let _ = lane.launch(&add, 2, (&a, &a, &mut c, 256))?;
                panic!("boom with a launch pending");
                #[allow(unreachable_code)]
                Ok(())
            })
        }));
        assert_eq!(
            panic_message(&*r.unwrap_err()),
            "boom with a launch pending"
        );
        // The kernel ran to completion before the scope unwound.
        let mut host = vec![0f32; 256];
        ctx.copy(&c, &mut host[..]).unwrap();
        assert!(host.iter().all(|&v| v == 2.0));
        binary.unload().unwrap();
    });
    audit.assert_clean();
}

#[test]
fn args_builder_order_and_one_list_per_thread() {
    let seen = Arc::new(AtomicUsize::new(0));
    let seen2 = Arc::clone(&seen);
    aclrt::sim::register_kernel("t_placeholder", move |_, _, args| {
        let scalar = args.u64(0)?;
        let table = args.placeholder(1).unwrap_or(&[]).to_vec();
        let out = args.u64(2)?;
        let sum: f32 = table
            .chunks(4)
            .map(|c| f32::from_le_bytes(c.try_into().unwrap()))
            .sum();
        args.write_f32(out, 0, sum + scalar as f32)?;
        seen2.fetch_add(1, Ordering::SeqCst);
        Ok(())
    });
    let audit = on_device::<HostMode>(host_config(), |device| {
        make_guard!(g);
        let ctx = device.create_context(g).unwrap();
        let stream = ctx.create_stream().unwrap();
        let binary = ctx
            .load_binary(&aclrt::sim::binary_image(&[
                "t_placeholder",
                "t_vector_add",
            ]))
            .unwrap();
        // SAFETY: the signature is only used for the builder here; the
        // launch below is `launch_args` with its own contract.
        let k = unsafe {
            binary
                .kernel::<(Scalar<u32>, Scalar<u64>, Out<f32>)>(c"t_placeholder")
                .unwrap()
        };
        let add = vector_add(&binary);
        let out = ctx.alloc_zeroed::<f32>(1).unwrap();
        let a = ctx.alloc_zeroed::<f32>(1).unwrap();
        let mut c = ctx.alloc_zeroed::<f32>(1).unwrap();
        let mut c2 = ctx.alloc_zeroed::<f32>(1).unwrap();
        ctx.scope(|s| {
            make_guard!(l);
            let lane = s.lane(&stream, l);
            let mut args = k.args()?;
            // A second list, or a typed launch, on this thread is refused.
            assert_eq!(k.args().unwrap_err(), Error::KernelArgsBusy);
            assert_eq!(
                lane.launch(&add, 1, (&a, &a, &mut c, 1)).unwrap_err(),
                Error::KernelArgsBusy
            );
            // Another thread has its own list.
            std::thread::scope(|t| {
                t.spawn(|| {
                    let other = k.args().unwrap();
                    drop(other);
                });
            });
            args.append(&5u32)?;
            let table = args.append_placeholder()?;
            args.append_address(out.as_device_ptr())?;
            let mut args = args.fill_placeholders();
            args.fill(table, &[1.0f32, 2.0, 3.5])?;
            let args = args.finalize()?;
            // SAFETY: the list holds `out`'s address (device memory of this
            // context) and the kernel writes one f32 there; nothing else
            // touches `out` until the scope, which synchronises this lane,
            // has ended.
            unsafe { lane.launch_args(&args, 1)? };
            drop(args);
            // The thread's list is free again (`c` stays borrowed by the
            // refused launch until the scope ends).
            let _ = lane.launch(&add, 1, (&a, &a, &mut c2, 1))?;
            Ok(())
        })
        .unwrap();
        let mut host = [0f32; 1];
        ctx.copy(&out, &mut host[..]).unwrap();
        assert_eq!(host[0], 11.5);
        assert_eq!(seen.load(Ordering::SeqCst), 1);
        // A forgotten builder blocks this thread's launches (safe), not others'.
        std::thread::scope(|t| {
            t.spawn(|| {
                std::mem::forget(k.args().unwrap());
                assert_eq!(k.args().unwrap_err(), Error::KernelArgsBusy);
            });
        });
        let args = k.args().unwrap();
        drop(args);
    });
    audit.assert_clean();
}

#[test]
fn placeholder_of_another_list_is_refused() {
    let audit = on_device::<HostMode>(host_config(), |device| {
        aclrt::sim::register_kernel("t_nothing", |_, _, _| Ok(()));
        make_guard!(g);
        let ctx = device.create_context(g).unwrap();
        let binary = ctx
            .load_binary(&aclrt::sim::binary_image(&["t_nothing"]))
            .unwrap();
        // SAFETY: never launched.
        let k = unsafe { binary.kernel::<(Scalar<u64>,)>(c"t_nothing").unwrap() };
        let mut first = k.args().unwrap();
        let old = first.append_placeholder().unwrap();
        drop(first);
        let mut second = k.args().unwrap();
        second.append_placeholder().unwrap();
        let mut second = second.fill_placeholders();
        assert_eq!(
            second.fill(old, &[1u32]).unwrap_err(),
            Error::KernelArgsBusy
        );
        // An empty placeholder: the runtime's 100000.
        let mut third = {
            drop(second);
            k.args().unwrap()
        };
        let p = third.append_placeholder().unwrap();
        let mut third = third.fill_placeholders();
        assert_eq!(third.fill::<u32>(p, &[]).unwrap_err().code(), Some(100000));
    });
    audit.assert_clean();
}

#[test]
fn host_functions_build_their_own_lists_and_launches_from_threads_work() {
    let audit = on_device::<HostMode>(host_config(), |device| {
        make_guard!(g);
        let ctx = device.create_context(g).unwrap();
        let binary = ctx
            .load_binary(&aclrt::sim::binary_image(&["t_vector_add"]))
            .unwrap();
        let add = vector_add(&binary);
        let a = ctx.alloc_from(&[1.0f32; 128]).unwrap();
        let stream = ctx.create_stream().unwrap();
        // A host function on the runtime's thread may build a list (its own
        // thread's) while the scope's thread holds one.
        let ok = AtomicUsize::new(0);
        ctx.scope(|s| {
            make_guard!(l);
            let lane = s.lane(&stream, l);
            let held = add.args()?;
            lane.host_fn(|| {
                if let Ok(args) = add.args() {
                    drop(args);
                    ok.fetch_add(1, Ordering::SeqCst);
                }
            })?;
            lane.synchronize()?;
            drop(held);
            Ok(())
        })
        .unwrap();
        assert_eq!(ok.load(Ordering::SeqCst), 1);
        // Four threads launch on their own streams and scopes at once.
        std::thread::scope(|t| {
            for k in 0..4 {
                let (ctx, add, a) = (&ctx, &add, &a);
                t.spawn(move || {
                    let stream = ctx.create_stream().unwrap();
                    let mut c = ctx.alloc_zeroed::<f32>(128).unwrap();
                    for _ in 0..10 {
                        ctx.scope(|s| {
                            make_guard!(l);
                            let lane = s.lane(&stream, l);
                            let _ = lane.launch(add, k + 1, (a, a, &mut c, 128))?;
                            Ok(())
                        })
                        .unwrap();
                    }
                    let mut host = vec![0f32; 128];
                    ctx.copy(&c, &mut host[..]).unwrap();
                    assert!(host.iter().all(|&v| v == 2.0));
                });
            }
        });
    });
    audit.assert_clean();
}

#[test]
fn foreign_work_two_phase_with_a_workspace() {
    let audit = on_device::<HostMode>(host_config(), |device| {
        make_guard!(g);
        let ctx = device.create_context(g).unwrap();
        let stream = ctx.create_stream().unwrap();
        let binary = ctx
            .load_binary(&aclrt::sim::binary_image(&["t_vector_add"]))
            .unwrap();
        let func = {
            // The "other library" holds its own handle: here the raw
            // func handle of the binary, used through the C API.
            // SAFETY: only its raw handle is used, below, with the
            // foreign contract.
            let k = unsafe {
                binary
                    .kernel::<(In<f32>, In<f32>, Out<f32>, Count)>(c"t_vector_add")
                    .unwrap()
            };
            k.as_raw()
        };
        let a = ctx.alloc_from(&[1.0f32, 2.0, 3.0, 4.0]).unwrap();
        let b = ctx.alloc_from(&[4.0f32, 3.0, 2.0, 1.0]).unwrap();
        let mut c = ctx.alloc_zeroed::<f32>(4).unwrap();
        // Phase 1: the operator's workspace size: scratch for its result.
        let workspace_size = 4 * std::mem::size_of::<f32>();
        let mut workspace = ctx.alloc::<u8>(workspace_size).unwrap();
        let mut out = ctx.alloc_host_zeroed::<f32>(4).unwrap();
        ctx.scope(|s| {
            make_guard!(l);
            let lane = s.lane(&stream, l);
            // SAFETY: the work is two tasks on the given stream: a kernel
            // that reads the two reads and writes the workspace (4 f32), and
            // a device-to-device copy of the workspace into the write; all
            // within their sizes, nothing else, no pointer kept.
            let (c,) = unsafe {
                lane.foreign((&a, &b), (&mut c,), Some(&mut workspace), |w| {
                    use aclrt::sys;
                    let ws = w.workspace().unwrap();
                    let mut args: sys::aclrtArgsHandle = std::ptr::null_mut();
                    let mut p: sys::aclrtParamHandle = std::ptr::null_mut();
                    assert_eq!(sys::aclrtKernelArgsInit(func, &mut args), 0);
                    for ptr in [w.reads()[0].ptr(), w.reads()[1].ptr(), ws.ptr()] {
                        let mut v = ptr as u64;
                        let code = sys::aclrtKernelArgsAppend(args, (&raw mut v).cast(), 8, &mut p);
                        assert_eq!(code, 0);
                    }
                    let mut n = 4u64;
                    assert_eq!(
                        sys::aclrtKernelArgsAppend(args, (&raw mut n).cast(), 8, &mut p),
                        0
                    );
                    assert_eq!(sys::aclrtKernelArgsFinalize(args), 0);
                    let code = sys::aclrtLaunchKernelWithConfig(
                        func,
                        2,
                        w.stream(),
                        std::ptr::null_mut(),
                        args,
                        std::ptr::null_mut(),
                    );
                    assert_eq!(code, 0);
                    let dst = w.writes()[0];
                    let code = sys::aclrtMemcpyAsync(
                        dst.ptr(),
                        dst.bytes(),
                        ws.ptr(),
                        ws.bytes(),
                        sys::ACL_MEMCPY_DEVICE_TO_DEVICE,
                        w.stream(),
                    );
                    assert_eq!(code, 0);
                    Ok(())
                })?
            };
            let _ = lane.copy(&c, &mut out)?;
            Ok(())
        })
        .unwrap();
        assert_eq!(&out[..], &[5.0, 5.0, 5.0, 5.0]);
    });
    audit.assert_clean();
}

#[test]
fn a_binary_is_released_with_its_context_audit() {
    let audit = on_device::<HostMode>(host_config(), |device| {
        make_guard!(g);
        let ctx = device.create_context(g).unwrap();
        let b1 = ctx
            .load_binary(&aclrt::sim::binary_image(&["t_vector_add"]))
            .unwrap();
        let b2 = ctx
            .load_binary(&aclrt::sim::binary_image(&["t_scale"]))
            .unwrap();
        assert_ne!(b1.as_raw(), b2.as_raw());
        drop(b2);
        drop(b1);
        ctx.destroy().unwrap();
    });
    assert_eq!(live(&audit, ResourceKind::Context), 0);
    audit.assert_clean();
}

#[test]
fn foreign_work_is_refused_while_a_builder_lives_and_then_runs() {
    let audit = on_device::<HostMode>(host_config(), |device| {
        make_guard!(g);
        let ctx = device.create_context(g).unwrap();
        let stream = ctx.create_stream().unwrap();
        let binary = ctx
            .load_binary(&aclrt::sim::binary_image(&["t_vector_add"]))
            .unwrap();
        let add = vector_add(&binary);
        let a = ctx.alloc_from(&[1.0f32, 2.0]).unwrap();
        let mut c = ctx.alloc_zeroed::<f32>(2).unwrap();
        let mut d = ctx.alloc_zeroed::<f32>(2).unwrap();
        let mut e = ctx.alloc_zeroed::<f32>(2).unwrap();
        let calls = AtomicUsize::new(0);
        ctx.scope(|s| {
            make_guard!(l);
            let lane = s.lane(&stream, l);
            let held = add.args()?;
            // SAFETY: the closure enqueues nothing.
            let r = unsafe {
                lane.foreign((&a,), (&mut c,), None, |_| {
                    calls.fetch_add(1, Ordering::SeqCst);
                    Ok(())
                })
            };
            assert_eq!(r.unwrap_err(), Error::KernelArgsBusy);
            drop(held);
            let (e, add_r, a_r, lane_r, calls_r) = (&mut e, &add, &a, &lane, &calls);
            // SAFETY: one D2D copy on the given stream, from the read into
            // the write, 8 bytes each; a typed launch inside is refused.
            let (d,) = unsafe {
                lane.foreign((&a,), (&mut d,), None, move |w| {
                    calls_r.fetch_add(1, Ordering::SeqCst);
                    assert_eq!(
                        lane_r
                            .launch(add_r, 1, (a_r, a_r, e, 0))
                            .map(|_| ())
                            .unwrap_err(),
                        Error::KernelArgsBusy
                    );
                    let (src, dst) = (w.reads()[0], w.writes()[0]);
                    assert_eq!((src.bytes(), dst.bytes()), (8, 8));
                    let code = aclrt::sys::aclrtMemcpyAsync(
                        dst.ptr(),
                        dst.bytes(),
                        src.ptr(),
                        src.bytes(),
                        aclrt::sys::ACL_MEMCPY_DEVICE_TO_DEVICE,
                        w.stream(),
                    );
                    assert_eq!(code, 0);
                    Ok(())
                })?
            };
            let d = d.wait()?;
            let mut host = [0f32; 2];
            ctx.copy(&*d, &mut host[..])?;
            assert_eq!(host, [1.0, 2.0]);
            Ok(())
        })
        .unwrap();
        assert_eq!(calls.load(Ordering::SeqCst), 1);
    });
    audit.assert_clean();
}

#[test]
fn launch_config_attributes_reach_the_runtime() {
    use aclrt::kernel::{Engine, ScheduleMode};
    let audit = on_device::<DeviceMode>(device_config(), |device| {
        make_guard!(g);
        let ctx = device.create_context(g).unwrap();
        let stream = ctx.create_stream().unwrap();
        let binary = ctx
            .load_binary(&aclrt::sim::binary_image(&["t_scale"]))
            .unwrap();
        // SAFETY: t_scale reads and writes x below n.
        let scale = unsafe {
            binary
                .kernel::<(InOut<f32>, Scalar<f32>, Count)>(c"t_scale")
                .unwrap()
        };
        let mut x = ctx.alloc_host_from(&[1.0f32, 2.0, 3.0]).unwrap();
        let config = LaunchConfig::blocks(2)
            .schedule(ScheduleMode::Batch)
            .dyn_ubuf_size(0)
            .engine(Engine::AiVector)
            .block_offset(0)
            .prefetch(true)
            .data_dump(false)
            .timeout(std::time::Duration::from_secs(5))
            .profiling(false);
        assert_eq!(config.block_count(), 2);
        ctx.scope(|s| {
            make_guard!(l);
            let lane = s.lane(&stream, l);
            // In device run mode a HostBuffer is kernel memory (InOut).
            let (x, _, _) = lane.launch(&scale, config, (&mut x, 10.0f32, 3))?;
            let (x, _, _) = lane.launch(&scale, 1, (x, 0.5f32, 2))?;
            x.wait()?;
            Ok(())
        })
        .unwrap();
        assert_eq!(x.to_vec(), vec![5.0, 10.0, 30.0]);
    });
    audit.assert_clean();
}

#[test]
fn lookup_places_the_binary_on_its_own_contexts_device() {
    let _sim = take(host_config());
    register_kernels();
    let acl = Acl::init().unwrap();
    {
        let rt = acl.require::<HostMode>().unwrap();
        let dev0 = rt.device(0).unwrap();
        let dev1 = rt.device(1).unwrap();
        make_guard!(g1);
        let ctx1 = dev1.create_context(g1).unwrap();
        let stream1 = ctx1.create_stream().unwrap();
        let binary = ctx1
            .load_binary(&aclrt::sim::binary_image(&["t_vector_add"]))
            .unwrap();
        // Another device's context is current on this thread now.
        make_guard!(g0);
        let ctx0 = dev0.create_context(g0).unwrap();
        ctx0.make_current().unwrap();
        let add = vector_add(&binary);
        ctx0.make_current().unwrap();
        let a = ctx1.alloc_from(&[1.0f32, 2.0]).unwrap();
        let mut c = ctx1.alloc_zeroed::<f32>(2).unwrap();
        ctx1.scope(|s| {
            make_guard!(l);
            let lane = s.lane(&stream1, l);
            let (_, _, c, _) = lane.launch(&add, 1, (&a, &a, &mut c, 2))?;
            c.wait()?;
            Ok(())
        })
        .unwrap();
        let mut host = [0f32; 2];
        ctx1.copy(&c, &mut host[..]).unwrap();
        assert_eq!(host, [2.0, 4.0]);
        assert_eq!(ctx1.device_id().unwrap(), 1);
    }
    acl.finalize().unwrap();
    // No 107017 "never placed on this device", nothing leaked.
    assert_clean();
}

/// Scalars larger than the inline staging (16 bytes) and small ones mixed,
/// in order, in both run modes; with two counts, the first one that
/// exceeds the shortest buffer is the one reported.
#[test]
fn large_and_small_scalars_reach_the_kernel_in_order() {
    fn run<M: RunMode>(device: &Device<'_, M>) -> Result<()> {
        make_guard!(g);
        let ctx = device.create_context(g)?;
        let stream = ctx.create_stream()?;
        let binary = ctx.load_binary(&aclrt::sim::binary_image(&["t_scalars"]))?;
        // SAFETY: t_scalars writes out[0..10] only, and n >= 10 is checked
        // against out's length by the launch.
        let k = unsafe {
            binary.kernel::<(
                Scalar<[u32; 8]>,
                Scalar<u16>,
                Scalar<[u8; 17]>,
                Out<u32>,
                Count,
            )>(c"t_scalars")?
        };
        let big: [u32; 8] = [1, 2, 3, 4, 5, 6, 7, 0xdead_beef];
        let odd: [u8; 17] = core::array::from_fn(|i| i as u8 + 100);
        let mut out = ctx.alloc_zeroed::<u32>(10)?;
        let mut host = vec![0u32; 10];
        ctx.scope(|s| {
            make_guard!(l);
            let lane = s.lane(&stream, l);
            let (_, _, _, out, _) = lane.launch(&k, 1, (big, 0xabcdu16, odd, &mut out, 10))?;
            out.wait()?;
            Ok(())
        })?;
        ctx.copy(&out, &mut host[..])?;
        let mut expected = big.to_vec();
        expected.push(0xabcd);
        expected.push(odd.iter().map(|&b| u32::from(b)).sum());
        assert_eq!(host, expected, "{:?}", M::KIND);
        // Two counts, both too large for the 10-element buffer: the first.
        // SAFETY: never launched (the counts are refused before).
        let two = unsafe { binary.kernel::<(Out<u32>, Count, Count)>(c"t_scalars")? };
        let r = ctx.scope(|s| {
            make_guard!(l);
            let lane = s.lane(&stream, l);
            let _ = lane.launch(&two, 1, (&mut out, 12, 30))?;
            Ok(())
        });
        assert_eq!(r.unwrap_err(), Error::KernelCount { count: 12, len: 10 });
        Ok(())
    }
    for config in [host_config(), device_config()] {
        let _g = take(config);
        aclrt::sim::register_kernel("t_scalars", |_, _, args| {
            let big = args.bytes(0)?;
            let small = args.bytes(1)?;
            let odd = args.bytes(2)?;
            let out = args.u64(3)?;
            if big.len() != 32 || small.len() != 2 || odd.len() != 17 {
                return Err(aclrt::sim::KernelError::new("argument sizes"));
            }
            let mut words: Vec<u32> = big
                .chunks_exact(4)
                .map(|c| u32::from_le_bytes(c.try_into().unwrap()))
                .collect();
            words.push(u32::from(u16::from_le_bytes([small[0], small[1]])));
            words.push(odd.iter().map(|&b| u32::from(b)).sum());
            let bytes: Vec<u8> = words.iter().flat_map(|w| w.to_le_bytes()).collect();
            args.write(out, &bytes)
        });
        let acl = Acl::init().unwrap();
        match acl.detect() {
            aclrt::Detected::Host(rt) => run(&rt.device(0).unwrap()).unwrap(),
            aclrt::Detected::Device(rt) => run(&rt.device(0).unwrap()).unwrap(),
        }
        acl.finalize().unwrap();
        aclrt::sim::audit().assert_clean();
    }
}

/// Registered host memory reaches a kernel through its device alias:
/// `DeviceAlias` (shared) for an `In` parameter, `DeviceAliasMut`
/// (exclusive) for an `Out` parameter; results land in the user's memory
/// without a copy.
fn alias_flow<M: RunMode>(device: &Device<'_, M>) -> Result<()> {
    make_guard!(g);
    let ctx = device.create_context(g)?;
    let stream = ctx.create_stream()?;
    let binary = ctx.load_binary(&aclrt::sim::binary_image(&["t_vector_add"]))?;
    // SAFETY: t_vector_add reads a, b and writes c, each below n.
    let add = unsafe { binary.kernel::<(In<f32>, In<f32>, Out<f32>, Count)>(c"t_vector_add")? };
    let n = 1024;
    let a = pattern_f32(n, 2.0);
    let b = pattern_f32(n, 5.0);
    let mut user_a = aclrt::PageAlignedBuf::from_slice(&a)?;
    let mut user_c = aclrt::PageAlignedBuf::<f32>::zeroed(n)?;
    let hb = ctx.alloc_host_from(&b)?;
    let mut db = ctx.alloc::<f32>(n)?;
    {
        let reg_a = ctx.register_host(&mut user_a)?;
        let mut reg_c = ctx.register_host(&mut user_c)?;
        ctx.scope(|s| {
            make_guard!(l);
            let lane = s.lane(&stream, l);
            let db = lane.copy(&hb, &mut db)?;
            // Reads a through its alias, writes c through its alias.
            lane.launch(
                &add,
                4,
                (reg_a.device_alias(), &db, reg_c.device_alias_mut(), n),
            )?;
            Ok(())
        })?;
        drop(reg_a);
        let back = reg_c.unregister()?;
        for i in 0..n {
            assert_eq!(back[i], a[i] + b[i], "element {i}");
        }
    }
    Ok(())
}

#[test]
fn registered_memory_through_device_aliases_host_mode() -> Result<()> {
    let _sim = take(host_config());
    register_kernels();
    let acl = Acl::init()?;
    alias_flow(&acl.require::<HostMode>()?.device(0)?)?;
    acl.finalize()?;
    assert_clean();
    Ok(())
}

#[test]
fn registered_memory_through_device_aliases_device_mode() -> Result<()> {
    let _sim = take(device_config());
    register_kernels();
    let acl = Acl::init()?;
    alias_flow(&acl.require::<DeviceMode>()?.device(0)?)?;
    acl.finalize()?;
    assert_clean();
    Ok(())
}

/// The largest typed signature (12 parameters, every in-place staging slot)
/// reaches the kernel whole and in order, scalars of mixed sizes, in both
/// run modes; its count is still checked against the buffer.
#[test]
fn twelve_parameters_reach_the_kernel_in_order() {
    type Twelve = (
        Out<u32>,
        Scalar<u32>,
        Scalar<u8>,
        Scalar<u16>,
        Scalar<u32>,
        Scalar<u64>,
        Scalar<u32>,
        Scalar<u8>,
        Scalar<u32>,
        Scalar<u16>,
        Scalar<u32>,
        Count,
    );
    fn run<M: RunMode>(device: &Device<'_, M>) -> Result<()> {
        make_guard!(g);
        let ctx = device.create_context(g)?;
        let stream = ctx.create_stream()?;
        let binary = ctx.load_binary(&aclrt::sim::binary_image(&["t_twelve"]))?;
        // SAFETY: t_twelve writes out[0..10] only, and the count (>= 10) is
        // checked against out's length by the launch.
        let k = unsafe { binary.kernel::<Twelve>(c"t_twelve")? };
        let mut out = ctx.alloc_zeroed::<u32>(10)?;
        let mut host = vec![0u32; 10];
        ctx.scope(|s| {
            make_guard!(l);
            let lane = s.lane(&stream, l);
            let (out, ..) = lane.launch(
                &k,
                1,
                (
                    &mut out, 11u32, 12u8, 13u16, 14u32, 15u64, 16u32, 17u8, 18u32, 19u16, 20u32,
                    10,
                ),
            )?;
            out.wait()?;
            Ok(())
        })?;
        ctx.copy(&out, &mut host[..])?;
        assert_eq!(host, (11..=20).collect::<Vec<u32>>(), "{:?}", M::KIND);
        let r = ctx.scope(|s| {
            make_guard!(l);
            let lane = s.lane(&stream, l);
            let _ = lane.launch(&k, 1, (&mut out, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11))?;
            Ok(())
        });
        assert_eq!(r.unwrap_err(), Error::KernelCount { count: 11, len: 10 });
        Ok(())
    }
    for config in [host_config(), device_config()] {
        let _g = take(config);
        aclrt::sim::register_kernel("t_twelve", |_, _, args| {
            let out = args.u64(0)?;
            let sizes = [4, 1, 2, 4, 8, 4, 1, 4, 2, 4];
            let mut bytes = Vec::new();
            for (i, size) in sizes.into_iter().enumerate() {
                let b = args.bytes(i + 1)?;
                if b.len() != size {
                    return Err(aclrt::sim::KernelError::new("argument size"));
                }
                let mut word = [0u8; 8];
                word[..size].copy_from_slice(b);
                bytes.extend_from_slice(&(u64::from_le_bytes(word) as u32).to_le_bytes());
            }
            if args.u64(11)? != 10 {
                return Err(aclrt::sim::KernelError::new("count"));
            }
            args.write(out, &bytes)
        });
        let acl = Acl::init().unwrap();
        match acl.detect() {
            aclrt::Detected::Host(rt) => run(&rt.device(0).unwrap()).unwrap(),
            aclrt::Detected::Device(rt) => run(&rt.device(0).unwrap()).unwrap(),
        }
        acl.finalize().unwrap();
        aclrt::sim::audit().assert_clean();
    }
}
