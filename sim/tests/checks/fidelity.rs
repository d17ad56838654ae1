//! Conformance tests of `sim/FIDELITY.md`: each test pins the answer of the
//! real runtime (read in the `hicann/runtime` source, path in the table) for
//! one row, in both run modes. The row id is the test name's prefix
//! (`cb_mix_1_...` pins row CB-MIX-1).

use crate::common;
use common::*;

/// The `pthread_t` of the calling thread, as `aclrtSubscribeReport` wants.
fn my_thread_id() -> u64 {
    aclrt_sim::thread_report_id()
}

unsafe extern "C" fn nothing(_: *mut c_void) {}

/// A host function that counts its runs in the `AtomicUsize` behind `user`.
unsafe extern "C" fn count(user: *mut c_void) {
    // SAFETY: the tests pass `counter_arg` of a counter that outlives the
    // stream's synchronisation.
    let c = unsafe { &*user.cast::<AtomicUsize>() };
    c.fetch_add(1, Ordering::SeqCst);
}

// ------------------------------------------------------------ callbacks

#[test]
fn cb_mix_1_a_subscribed_stream_refuses_host_functions() {
    let _sim = aclrt_sim::exclusive();
    in_both_run_modes(|_| {
        init_device0();
        let s = create_stream();
        let tid = my_thread_id();
        ok!(aclrtSubscribeReport(tid, s));
        assert_eq!(
            acl!(aclrtLaunchHostFunc(s, Some(nothing), null_mut())),
            ACL_ERROR_RT_STREAM_SUBSCRIBE
        );
        ok!(aclrtUnSubscribeReport(tid, s));
        // Unsubscribed: host functions are accepted again.
        let ran = AtomicUsize::new(0);
        ok!(aclrtLaunchHostFunc(s, Some(count), counter_arg(&ran)));
        ok!(aclrtSynchronizeStream(s));
        assert_eq!(ran.load(Ordering::SeqCst), 1);
        destroy_stream(s);
        teardown_device0();
        assert_clean();
    });
}

#[test]
fn cb_mix_2_a_stream_that_had_a_host_function_refuses_the_report_mechanism() {
    let _sim = aclrt_sim::exclusive();
    in_both_run_modes(|_| {
        init_device0();
        let s = create_stream();
        let tid = my_thread_id();
        ok!(aclrtLaunchHostFunc(s, Some(nothing), null_mut()));
        ok!(aclrtSynchronizeStream(s));
        // For the rest of the stream's life, even once the host function ran.
        assert_eq!(
            acl!(aclrtSubscribeReport(tid, s)),
            ACL_ERROR_RT_STREAM_SUBSCRIBE
        );
        assert_eq!(
            acl!(aclrtLaunchCallback(
                Some(nothing),
                null_mut(),
                ACL_CALLBACK_BLOCK,
                s
            )),
            ACL_ERROR_RT_STREAM_SUBSCRIBE
        );
        assert_eq!(
            acl!(aclrtUnSubscribeReport(tid, s)),
            ACL_ERROR_RT_STREAM_SUBSCRIBE
        );
        // Another stream is unaffected.
        let other = create_stream();
        ok!(aclrtSubscribeReport(tid, other));
        ok!(aclrtUnSubscribeReport(tid, other));
        destroy_stream(other);
        destroy_stream(s);
        teardown_device0();
        assert_clean();
    });
}

#[test]
fn cb_mix_null_a_literal_null_default_stream_takes_the_other_mechanism() {
    let _sim = aclrt_sim::exclusive();
    in_both_run_modes(|_| {
        init_device0();
        let tid = my_thread_id();
        let mut ds: aclrtStream = null_mut();
        ok!(aclrtCtxGetCurrentDefaultStream(&mut ds));
        let ran = AtomicUsize::new(0);
        // The default stream, subscribed: through its handle a host function
        // is refused; through NULL it becomes a blocking callback task for
        // the subscribed thread.
        ok!(aclrtSubscribeReport(tid, null_mut()));
        assert_eq!(
            acl!(aclrtLaunchHostFunc(ds, Some(nothing), null_mut())),
            ACL_ERROR_RT_STREAM_SUBSCRIBE
        );
        ok!(aclrtLaunchHostFunc(
            null_mut(),
            Some(count),
            counter_arg(&ran)
        ));
        ok!(aclrtProcessReport(10_000));
        assert_eq!(ran.load(Ordering::SeqCst), 1, "run by aclrtProcessReport");
        ok!(aclrtSynchronizeStream(null_mut()));
        ok!(aclrtUnSubscribeReport(tid, null_mut()));
        // Now served by the runtime's thread (a host function through NULL):
        ok!(aclrtLaunchHostFunc(
            null_mut(),
            Some(count),
            counter_arg(&ran)
        ));
        ok!(aclrtSynchronizeStream(null_mut()));
        assert_eq!(ran.load(Ordering::SeqCst), 2);
        // a callback through NULL is taken and run by that thread,
        ok!(aclrtLaunchCallback(
            Some(count),
            counter_arg(&ran),
            ACL_CALLBACK_BLOCK,
            null_mut()
        ));
        ok!(aclrtSynchronizeStream(null_mut()));
        assert_eq!(ran.load(Ordering::SeqCst), 3);
        // through the handle it is refused;
        assert_eq!(
            acl!(aclrtLaunchCallback(
                Some(nothing),
                null_mut(),
                ACL_CALLBACK_BLOCK,
                ds
            )),
            ACL_ERROR_RT_STREAM_SUBSCRIBE
        );
        // subscribing is refused either way; unsubscribing through NULL
        // names the wrong thread.
        assert_eq!(
            acl!(aclrtSubscribeReport(tid, null_mut())),
            ACL_ERROR_RT_STREAM_SUBSCRIBE
        );
        assert_eq!(
            acl!(aclrtUnSubscribeReport(tid, null_mut())),
            ACL_ERROR_RT_THREAD_SUBSCRIBE
        );
        assert_eq!(
            acl!(aclrtUnSubscribeReport(tid, ds)),
            ACL_ERROR_RT_STREAM_SUBSCRIBE
        );
        teardown_device0();
        assert_clean();
    });
}

#[test]
fn cb_sub_2_subscription_errors_carry_the_runtime_codes() {
    let _sim = aclrt_sim::exclusive();
    in_both_run_modes(|_| {
        init();
        ok!(aclrtSetDevice(1));
        let s1 = create_stream();
        ok!(aclrtSetDevice(0));
        let s = create_stream();
        let tid = my_thread_id();
        // Not subscribed: 107011 (stream), not 100034.
        assert_eq!(
            acl!(aclrtUnSubscribeReport(tid, s)),
            ACL_ERROR_RT_STREAM_SUBSCRIBE
        );
        ok!(aclrtSubscribeReport(tid, s));
        // Subscribed twice (same or another thread): 107011, not 100033.
        assert_eq!(
            acl!(aclrtSubscribeReport(tid, s)),
            ACL_ERROR_RT_STREAM_SUBSCRIBE
        );
        assert_eq!(
            acl!(aclrtSubscribeReport(tid.wrapping_add(1), s)),
            ACL_ERROR_RT_STREAM_SUBSCRIBE
        );
        // Unsubscribed by a thread that is not its subscriber: 107012.
        assert_eq!(
            acl!(aclrtUnSubscribeReport(tid.wrapping_add(1), s)),
            ACL_ERROR_RT_THREAD_SUBSCRIBE
        );
        // A thread serving device 0 cannot serve device 1: 107012.
        ok!(aclrtSetDevice(1));
        assert_eq!(
            acl!(aclrtSubscribeReport(tid, s1)),
            ACL_ERROR_RT_THREAD_SUBSCRIBE
        );
        destroy_stream(s1);
        ok!(aclrtSetDevice(0));
        ok!(aclrtUnSubscribeReport(tid, s));
        destroy_stream(s);
        for d in [1, 1, 0, 0] {
            ok!(aclrtResetDevice(d));
        }
        finalize();
        assert_clean();
    });
}

#[test]
fn cb_null_fn_a_null_function_is_the_runtime_layers_107000() {
    let _sim = aclrt_sim::exclusive();
    in_both_run_modes(|_| {
        init_device0();
        let s = create_stream();
        assert_eq!(
            acl!(aclrtLaunchHostFunc(s, None, null_mut())),
            ACL_ERROR_RT_PARAM_INVALID
        );
        ok!(aclrtSubscribeReport(my_thread_id(), s));
        assert_eq!(
            acl!(aclrtLaunchCallback(None, null_mut(), ACL_CALLBACK_BLOCK, s)),
            ACL_ERROR_RT_PARAM_INVALID
        );
        // The ACL layer's blockType check comes first: 100000.
        assert_eq!(
            acl!(aclrtLaunchCallback(None, null_mut(), 7, s)),
            ACL_ERROR_INVALID_PARAM
        );
        ok!(aclrtUnSubscribeReport(my_thread_id(), s));
        destroy_stream(s);
        teardown_device0();
        assert_clean();
    });
}

// ------------------------------------------------------------ streams

#[test]
fn stream_cfg_3_device_use_only_is_accepted_only_alone() {
    let _sim = aclrt_sim::exclusive();
    in_both_run_modes(|_| {
        init_device0();
        for other in [
            ACL_STREAM_FAST_LAUNCH,
            ACL_STREAM_FAST_SYNC,
            ACL_STREAM_PERSISTENT,
            ACL_STREAM_HUGE,
            ACL_STREAM_CPU_SCHEDULE,
        ] {
            let mut s: aclrtStream = null_mut();
            assert_eq!(
                acl!(aclrtCreateStreamWithConfig(
                    &mut s,
                    0,
                    ACL_STREAM_DEVICE_USE_ONLY | other
                )),
                ACL_ERROR_RT_PARAM_INVALID,
                "DEVICE_USE_ONLY | {other:#x}"
            );
            assert!(s.is_null());
        }
        // Alone, or with a bit the ACL layer drops (0x100 is no flag).
        for flags in [
            ACL_STREAM_DEVICE_USE_ONLY,
            ACL_STREAM_DEVICE_USE_ONLY | 0x100,
        ] {
            let mut s: aclrtStream = null_mut();
            ok!(aclrtCreateStreamWithConfig(&mut s, 0, flags));
            destroy_stream(s);
        }
        teardown_device0();
        assert_clean();
    });
}

// ------------------------------------------------------------ copies

/// A 4 KiB pageable application buffer.
fn app(seed: u8) -> Vec<u8> {
    pattern(4096, seed)
}

#[test]
fn copy2d_sync_kind_only_h2d_and_d2h() {
    let _sim = aclrt_sim::exclusive();
    in_both_run_modes(|_| {
        init_device0();
        let a = malloc(4096);
        let b = malloc(4096);
        // Explicit DEVICE_TO_DEVICE: 207000 (the async call supports it).
        assert_eq!(
            acl!(aclrtMemcpy2d(
                b,
                64,
                a,
                64,
                64,
                4,
                ACL_MEMCPY_DEVICE_TO_DEVICE
            )),
            ACL_ERROR_RT_FEATURE_NOT_SUPPORT
        );
        // DEFAULT resolving to device-to-device: 107000.
        assert_eq!(
            acl!(aclrtMemcpy2d(b, 64, a, 64, 64, 4, ACL_MEMCPY_DEFAULT)),
            ACL_ERROR_RT_PARAM_INVALID
        );
        // DEFAULT resolving to host-to-host (two application buffers): 107000.
        let src = app(1);
        let mut dst = vec![0u8; 4096];
        assert_eq!(
            acl!(aclrtMemcpy2d(
                dst.as_mut_ptr().cast(),
                64,
                src.as_ptr().cast(),
                64,
                64,
                4,
                ACL_MEMCPY_DEFAULT
            )),
            ACL_ERROR_RT_PARAM_INVALID
        );
        assert!(dst.iter().all(|&x| x == 0), "nothing was copied");
        // DEFAULT resolving to host-to-device and back: copied.
        ok!(aclrtMemcpy2d(
            a,
            64,
            src.as_ptr().cast(),
            64,
            64,
            4,
            ACL_MEMCPY_DEFAULT
        ));
        ok!(aclrtMemcpy2d(
            dst.as_mut_ptr().cast(),
            64,
            a,
            64,
            64,
            4,
            ACL_MEMCPY_DEFAULT
        ));
        assert_eq!(dst[..256], src[..256]);
        free(a);
        free(b);
        teardown_device0();
        assert_clean();
    });
}

#[test]
fn copy2d_limit_width_and_height_limits_apply_to_both_calls() {
    let _sim = aclrt_sim::exclusive();
    in_both_run_modes(|_| {
        init_device0();
        let a = malloc(64);
        let b = malloc(64);
        let s = create_stream();
        let w = 5_000_001usize;
        let h = 5_242_881usize;
        assert_eq!(
            acl!(aclrtMemcpy2d(b, w, a, w, w, 1, ACL_MEMCPY_DEVICE_TO_HOST)),
            ACL_ERROR_RT_PARAM_INVALID
        );
        assert_eq!(
            acl!(aclrtMemcpy2d(b, 1, a, 1, 1, h, ACL_MEMCPY_DEVICE_TO_HOST)),
            ACL_ERROR_RT_PARAM_INVALID
        );
        assert_eq!(
            acl!(aclrtMemcpy2dAsync(
                b,
                w,
                a,
                w,
                w,
                1,
                ACL_MEMCPY_DEVICE_TO_DEVICE,
                s
            )),
            ACL_ERROR_RT_PARAM_INVALID
        );
        assert_eq!(
            acl!(aclrtMemcpy2dAsync(
                b,
                1,
                a,
                1,
                1,
                h,
                ACL_MEMCPY_DEVICE_TO_DEVICE,
                s
            )),
            ACL_ERROR_RT_PARAM_INVALID
        );
        // Width > pitch is the ACL layer's check, before the limits: 100000.
        assert_eq!(
            acl!(aclrtMemcpy2d(b, 8, a, 8, w, 1, ACL_MEMCPY_DEVICE_TO_HOST)),
            ACL_ERROR_INVALID_PARAM
        );
        destroy_stream(s);
        free(a);
        free(b);
        teardown_device0();
        assert_clean();
    });
}

#[test]
fn copy_async_h2h_default_between_host_buffers() {
    let _sim = aclrt_sim::exclusive();
    in_both_run_modes(|mode| {
        init_device0();
        let s = create_stream();
        let a = malloc_host(256);
        let b = malloc_host(256);
        let code = acl!(aclrtMemcpyAsync(b, 256, a, 256, ACL_MEMCPY_DEFAULT, s));
        match mode {
            // Host run mode: DEFAULT resolves to host-to-host, refused.
            RunMode::Host => assert_eq!(code, ACL_ERROR_RT_FEATURE_NOT_SUPPORT),
            // Device run mode: "host" memory is device memory; it is copied.
            RunMode::Device => assert_eq!(code, ACL_SUCCESS),
        }
        ok!(aclrtSynchronizeStream(s));
        free_host(a);
        free_host(b);
        destroy_stream(s);
        teardown_device0();
        assert_clean();
    });
}

#[test]
fn copy2d_async_default_is_resolved_only_in_host_run_mode() {
    let _sim = aclrt_sim::exclusive();
    in_both_run_modes(|mode| {
        init_device0();
        let s = create_stream();
        let a = malloc(4096);
        let b = malloc(4096);
        let code = acl!(aclrtMemcpy2dAsync(
            b,
            64,
            a,
            64,
            64,
            4,
            ACL_MEMCPY_DEFAULT,
            s
        ));
        match mode {
            // Resolved to device-to-device from the pointers.
            RunMode::Host => assert_eq!(code, ACL_SUCCESS),
            // Not resolved in device run mode: DEFAULT is not a 2-D kind.
            RunMode::Device => assert_eq!(code, ACL_ERROR_RT_PARAM_INVALID),
        }
        ok!(aclrtSynchronizeStream(s));
        free(a);
        free(b);
        destroy_stream(s);
        teardown_device0();
        assert_clean();
    });
}

// ------------------------------------------------------------ kernels

#[test]
fn kernel_args_0_launch_with_no_argument_bytes_is_refused() {
    let _sim = aclrt_sim::exclusive();
    in_both_run_modes(|_| {
        init_device0();
        aclrt_sim::register_kernel("nop", |_, _, _| Ok(()));
        let img = aclrt_sim::binary_image(&["nop"]);
        let mut bin: aclrtBinHandle = null_mut();
        ok!(aclrtBinaryLoadFromData(
            img.as_ptr().cast(),
            img.len(),
            null(),
            &mut bin
        ));
        let name = std::ffi::CString::new("nop").unwrap();
        let mut f: aclrtFuncHandle = null_mut();
        ok!(aclrtBinaryGetFunction(bin, name.as_ptr(), &mut f));
        let args = malloc(64);
        assert_eq!(
            acl!(aclrtLaunchKernel(f, 1, args, 0, null_mut())),
            ACL_ERROR_RT_PARAM_INVALID
        );
        ok!(aclrtLaunchKernel(f, 1, args, 8, null_mut()));
        ok!(aclrtSynchronizeDevice());
        free(args);
        ok!(aclrtBinaryUnLoad(bin));
        teardown_device0();
        assert_clean();
    });
}

// ------------------------------------------------------------ events

#[test]
fn event_q_1_a_never_recorded_event_queries_complete() {
    let _sim = aclrt_sim::exclusive();
    in_both_run_modes(|_| {
        init_device0();
        let e = create_event();
        let mut st: aclrtEventStatus = 0xdead;
        ok!(aclrtQueryEvent(e, &mut st));
        assert_eq!(st, ACL_EVENT_STATUS_COMPLETE);
        // aclrtQueryEventStatus keeps its own rule: an event of
        // aclrtCreateEvent[WithFlag] reads NOT_READY before its first
        // record, one of aclrtCreateEventExWithFlag COMPLETE (row EVENT-QS-1).
        assert_eq!(event_status(e), ACL_EVENT_RECORDED_STATUS_NOT_READY);
        let ex = create_event_ex(ACL_EVENT_SYNC);
        assert_eq!(event_status(ex), ACL_EVENT_RECORDED_STATUS_COMPLETE);
        // A record in flight reads NOT_READY.
        let s = create_stream();
        stream_delay(s, 50);
        ok!(aclrtRecordEvent(e, s));
        ok!(aclrtQueryEvent(e, &mut st));
        assert_eq!(st, ACL_EVENT_STATUS_NOT_READY);
        ok!(aclrtSynchronizeStream(s));
        ok!(aclrtQueryEvent(e, &mut st));
        assert_eq!(st, ACL_EVENT_STATUS_COMPLETE);
        destroy_event(e);
        destroy_event(ex);
        destroy_stream(s);
        teardown_device0();
        assert_clean();
    });
}

// ------------------------------------------------------------ contexts

#[test]
fn ctx_destroy_2_destroying_a_dead_or_unknown_context_is_107002() {
    let _sim = aclrt_sim::exclusive();
    in_both_run_modes(|_| {
        init_device0();
        let ctx = create_context(0);
        ok!(aclrtDestroyContext(ctx));
        assert_eq!(acl!(aclrtDestroyContext(ctx)), ACL_ERROR_RT_CONTEXT_NULL);
        let bogus: aclrtContext = std::ptr::without_provenance_mut(0x7777_0000);
        assert_eq!(acl!(aclrtDestroyContext(bogus)), ACL_ERROR_RT_CONTEXT_NULL);
        ok!(aclrtSetDevice(0));
        let s = create_stream();
        assert_eq!(acl!(aclrtDestroyContext(s)), ACL_ERROR_RT_CONTEXT_NULL);
        destroy_stream(s);
        ok!(aclrtResetDevice(0));
        teardown_device0();
        // Still recorded as what they are.
        expect_violations(&[
            ViolationKind::UseAfterFree,
            ViolationKind::InvalidHandle,
            ViolationKind::InvalidHandle,
        ]);
    });
}

// ------------------------------------------------------------ SoC profiles

/// `in_both_run_modes` on the given chip.
fn on_soc(soc: aclrt_sim::Soc, mut f: impl FnMut(RunMode)) {
    for mode in [RunMode::Host, RunMode::Device] {
        aclrt_sim::reset();
        configure(|c| {
            c.run_mode = mode;
            c.soc = soc;
        });
        f(mode);
    }
}

fn soc_name() -> String {
    let p = acl!(aclrtGetSocName());
    assert!(!p.is_null());
    // SAFETY: a non-null aclrtGetSocName result is a static C string.
    unsafe { std::ffi::CStr::from_ptr(p) }
        .to_string_lossy()
        .into_owned()
}

#[test]
fn soc_huge_huge_streams_only_where_the_chip_has_them() {
    let _sim = aclrt_sim::exclusive();
    for (soc, name, want) in [
        (aclrt_sim::Soc::Ascend910B, "Ascend910B-sim", ACL_SUCCESS),
        (
            aclrt_sim::Soc::Ascend310P,
            "Ascend310P-sim",
            ACL_ERROR_RT_FEATURE_NOT_SUPPORT,
        ),
    ] {
        on_soc(soc, |_| {
            init_device0();
            assert_eq!(soc_name(), name);
            let mut s: aclrtStream = null_mut();
            assert_eq!(
                acl!(aclrtCreateStreamWithConfig(&mut s, 0, ACL_STREAM_HUGE)),
                want
            );
            if want == ACL_SUCCESS {
                destroy_stream(s);
            } else {
                assert!(s.is_null());
            }
            teardown_device0();
            assert_clean();
        });
    }
}

#[test]
fn soc_null_stream_null_is_the_default_stream_only_with_a_control_sq() {
    let _sim = aclrt_sim::exclusive();
    for soc in [aclrt_sim::Soc::Ascend910B, aclrt_sim::Soc::Ascend310P] {
        on_soc(soc, |_| {
            init_device0();
            let a = malloc(4096);
            let b = malloc(4096);
            let with_sq = soc == aclrt_sim::Soc::Ascend910B;
            let want = if with_sq {
                ACL_SUCCESS
            } else {
                ACL_ERROR_RT_PARAM_INVALID
            };
            assert_eq!(
                acl!(aclrtSetStreamFailureMode(
                    null_mut(),
                    ACL_CONTINUE_ON_FAILURE as u64
                )),
                want
            );
            assert_eq!(acl!(aclrtStreamAbort(null_mut())), want);
            assert_eq!(
                acl!(aclrtMemcpy2dAsync(
                    b,
                    64,
                    a,
                    64,
                    64,
                    4,
                    ACL_MEMCPY_DEVICE_TO_DEVICE,
                    null_mut()
                )),
                want
            );
            // Other stream-taking calls keep NULL as the default stream.
            ok!(aclrtMemcpyAsync(
                b,
                64,
                a,
                64,
                ACL_MEMCPY_DEVICE_TO_DEVICE,
                null_mut()
            ));
            ok!(aclrtSynchronizeStream(null_mut()));
            // An explicit stream: its failure mode can be set everywhere,
            // the abort is a 910B feature.
            let s = create_stream();
            ok!(aclrtSetStreamFailureMode(s, ACL_CONTINUE_ON_FAILURE as u64));
            let abort = acl!(aclrtStreamAbort(s));
            if with_sq {
                assert_eq!(abort, ACL_SUCCESS);
            } else {
                assert_eq!(abort, ACL_ERROR_RT_FEATURE_NOT_SUPPORT);
            }
            destroy_stream(s);
            free(a);
            free(b);
            teardown_device0();
            assert_clean();
        });
    }
}

// ------------------------------------------------------------ peer topology

#[test]
fn peer_topo_the_configured_topology_decides_peer_access() {
    let _sim = aclrt_sim::exclusive();
    let topologies = [
        (aclrt_sim::PeerTopology::All, [true, true, true]),
        (aclrt_sim::PeerTopology::None, [false, false, false]),
        (
            aclrt_sim::PeerTopology::Pairs(vec![(0, 2)]),
            [false, true, false],
        ),
    ];
    for (topology, want) in topologies {
        for mode in [RunMode::Host, RunMode::Device] {
            aclrt_sim::reset();
            configure(|c| {
                c.run_mode = mode;
                c.devices = 3;
                c.peer = topology.clone();
            });
            init();
            // Pairs (0,1), (0,2), (1,2), asked both ways.
            for (i, (a, b)) in [(0, 1), (0, 2), (1, 2)].into_iter().enumerate() {
                for (d, p) in [(a, b), (b, a)] {
                    let mut can = -1;
                    ok!(aclrtDeviceCanAccessPeer(&mut can, d, p));
                    assert_eq!(can, i32::from(want[i]), "{topology:?}: {d} -> {p}");
                }
            }
            ok!(aclrtSetDevice(0));
            let on0 = malloc(64);
            ok!(aclrtSetDevice(2));
            let on2 = malloc(64);
            let code = acl!(aclrtDeviceEnablePeerAccess(0, 0));
            if want[1] {
                assert_eq!(code, ACL_SUCCESS);
                // Copies from device 2's context into device 0's memory work.
                ok!(aclrtMemcpy(on0, 64, on2, 64, ACL_MEMCPY_DEVICE_TO_DEVICE));
            } else {
                assert_eq!(code, ACL_ERROR_RT_FEATURE_NOT_SUPPORT);
                // Without peer access the copy is refused (strict rule).
                assert_eq!(
                    acl!(aclrtMemcpy(on0, 64, on2, 64, ACL_MEMCPY_DEVICE_TO_DEVICE)),
                    ACL_ERROR_RT_NO_PERMISSION
                );
            }
            free(on2);
            ok!(aclrtSetDevice(0));
            free(on0);
            ok!(aclrtResetDevice(2));
            ok!(aclrtResetDevice(0));
            ok!(aclrtResetDevice(0));
            finalize();
            let audit = aclrt_sim::audit();
            let kinds: Vec<_> = audit.violations.iter().map(|v| v.kind).collect();
            if want[1] {
                assert!(kinds.is_empty(), "{kinds:?}");
            } else {
                assert_eq!(kinds, [ViolationKind::CrossDeviceWithoutPeerAccess]);
            }
        }
    }
}

// ------------------------------------------------------------ strictness

#[test]
fn strict_kind_hardware_like_mode_corrects_the_kind_and_still_records_it() {
    let _sim = aclrt_sim::exclusive();
    for strictness in [aclrt_sim::Strictness::Refuse, aclrt_sim::Strictness::Report] {
        aclrt_sim::reset();
        configure(|c| c.strictness = strictness);
        init_device0();
        let s = create_stream();
        let host = malloc_host(256);
        let dev = malloc(256);
        let data = pattern(256, 9);
        h2d(dev, &data);
        // DEVICE_TO_HOST, but the source is pinned host memory and the
        // destination device memory (the pointers say host-to-device).
        let code = acl!(aclrtMemcpyAsync(
            dev,
            256,
            host,
            256,
            ACL_MEMCPY_DEVICE_TO_HOST,
            s
        ));
        match strictness {
            aclrt_sim::Strictness::Refuse => {
                assert_eq!(code, ACL_ERROR_RT_INVALID_MEMORY_TYPE);
                assert_eq!(read_device(dev, 256), data, "nothing was copied");
            }
            _ => {
                // The runtime copies host-to-device, as the pointers say.
                assert_eq!(code, ACL_SUCCESS);
                ok!(aclrtSynchronizeStream(s));
                assert_eq!(read_device(dev, 256), vec![0u8; 256]);
            }
        }
        // Pageable source, DEVICE_TO_HOST into device memory: the runtime's
        // correction refuses it (107000) in hardware-like mode.
        let app_src = pattern(256, 3);
        let code = acl!(aclrtMemcpyAsync(
            dev,
            256,
            app_src.as_ptr().cast(),
            256,
            ACL_MEMCPY_DEVICE_TO_HOST,
            s
        ));
        match strictness {
            aclrt_sim::Strictness::Refuse => assert_eq!(code, ACL_ERROR_RT_INVALID_MEMORY_TYPE),
            _ => assert_eq!(code, ACL_ERROR_RT_PARAM_INVALID),
        }
        free(dev);
        free_host(host);
        destroy_stream(s);
        teardown_device0();
        // Both modes record both mismatches.
        let audit = aclrt_sim::audit();
        let kinds: Vec<_> = audit.violations.iter().map(|v| v.kind).collect();
        assert_eq!(kinds, [ViolationKind::KindMismatch; 2], "{strictness:?}");
        for v in &audit.violations {
            assert_eq!(v.rule, "STRICT-KIND");
            assert_eq!(v.refused, strictness == aclrt_sim::Strictness::Refuse);
        }
    }
}

#[test]
fn strict_finalize_live_hardware_like_finalize_succeeds_and_still_reports_the_leak() {
    let _sim = aclrt_sim::exclusive();
    for strictness in [aclrt_sim::Strictness::Refuse, aclrt_sim::Strictness::Report] {
        in_both_run_modes(|mode| {
            configure(|c| {
                c.run_mode = mode;
                c.strictness = strictness;
            });
            init_device0();
            let _leaked = malloc(64);
            let code = acl!(aclFinalize());
            match strictness {
                aclrt_sim::Strictness::Refuse => {
                    assert_eq!(code, ACL_ERROR_RT_CONTEXT_RELEASE_ERROR)
                }
                _ => assert_eq!(code, ACL_SUCCESS),
            }
            let audit = aclrt_sim::audit();
            assert!(!audit.initialized);
            // The memory and the device still set.
            let leaked: Vec<_> = audit.leaks.iter().map(|l| l.kind).collect();
            assert_eq!(
                leaked,
                [ResourceKind::Device, ResourceKind::DeviceMemory],
                "{:?}",
                audit.leaks
            );
            let kinds: Vec<_> = audit.violations.iter().map(|v| v.kind).collect();
            assert_eq!(kinds, [ViolationKind::FinalizeWithLiveResources]);
        });
    }
}

#[test]
fn strict_free_in_use_hardware_like_free_releases_at_once_and_the_copy_still_completes() {
    let _sim = aclrt_sim::exclusive();
    for strictness in [aclrt_sim::Strictness::Refuse, aclrt_sim::Strictness::Report] {
        in_both_run_modes(|mode| {
            configure(|c| {
                c.run_mode = mode;
                c.strictness = strictness;
            });
            init_device0();
            let s = create_stream();
            let src = malloc(4096);
            let dst = malloc(4096);
            let data = pattern(4096, 77);
            h2d(src, &data);
            stream_delay(s, 30);
            ok!(aclrtMemcpyAsync(
                dst,
                4096,
                src,
                4096,
                ACL_MEMCPY_DEVICE_TO_DEVICE,
                s
            ));
            let code = acl!(aclrtFree(src));
            match strictness {
                aclrt_sim::Strictness::Refuse => {
                    assert_eq!(code, ACL_ERROR_RT_STREAM_NOT_COMPLETE);
                    assert_eq!(live(ResourceKind::DeviceMemory, 0), 2);
                }
                _ => {
                    // Freed now, as aclrtFree does on the device.
                    assert_eq!(code, ACL_SUCCESS);
                    assert_eq!(live(ResourceKind::DeviceMemory, 0), 1);
                }
            }
            ok!(aclrtSynchronizeStream(s));
            // The queued copy read the block it held (never freed memory).
            assert_eq!(read_device(dst, 4096), data);
            if strictness == aclrt_sim::Strictness::Refuse {
                free(src);
            }
            free(dst);
            destroy_stream(s);
            teardown_device0();
            let kinds: Vec<_> = aclrt_sim::audit()
                .violations
                .iter()
                .map(|v| v.kind)
                .collect();
            assert_eq!(kinds, [ViolationKind::ReleaseWhileInUse]);
            let audit = aclrt_sim::audit();
            assert!(audit.leaks.is_empty() && audit.live.values().all(|&n| n == 0));
        });
    }
}

#[test]
fn strict_event_in_use_hardware_like_destroy_lets_the_queued_wait_finish() {
    let _sim = aclrt_sim::exclusive();
    for strictness in [aclrt_sim::Strictness::Refuse, aclrt_sim::Strictness::Report] {
        in_both_run_modes(|mode| {
            configure(|c| {
                c.run_mode = mode;
                c.strictness = strictness;
            });
            init_device0();
            let a = create_stream();
            let b = create_stream();
            let e = create_event();
            stream_delay(a, 30);
            let ran = AtomicUsize::new(0);
            ok!(aclrtLaunchHostFunc(a, Some(nothing), null_mut()));
            ok!(aclrtRecordEvent(e, a));
            ok!(aclrtStreamWaitEvent(b, e));
            ok!(aclrtLaunchHostFunc(b, Some(count), counter_arg(&ran)));
            let code = acl!(aclrtDestroyEvent(e));
            match strictness {
                aclrt_sim::Strictness::Refuse => {
                    assert_eq!(code, ACL_ERROR_RT_EVENT_NOT_COMPLETE)
                }
                _ => assert_eq!(code, ACL_SUCCESS),
            }
            ok!(aclrtSynchronizeStream(b));
            assert_eq!(
                ran.load(Ordering::SeqCst),
                1,
                "the wait ended and b went on"
            );
            if strictness == aclrt_sim::Strictness::Refuse {
                destroy_event(e);
            }
            destroy_stream(a);
            destroy_stream(b);
            teardown_device0();
            let kinds: Vec<_> = aclrt_sim::audit()
                .violations
                .iter()
                .map(|v| v.kind)
                .collect();
            assert_eq!(kinds, [ViolationKind::ReleaseWhileInUse]);
            assert!(aclrt_sim::audit().live.values().all(|&n| n == 0));
        });
    }
}

#[test]
fn event_devonly_the_host_cannot_record_reset_or_wait_for_a_device_only_event() {
    let _sim = aclrt_sim::exclusive();
    in_both_run_modes(|_| {
        init_device0();
        let s = create_stream();
        let e = create_event_with_flag(ACL_EVENT_DEVICE_USE_ONLY);
        assert_eq!(acl!(aclrtRecordEvent(e, s)), ACL_ERROR_RT_PARAM_INVALID);
        assert_eq!(acl!(aclrtResetEvent(e, s)), ACL_ERROR_RT_PARAM_INVALID);
        assert_eq!(acl!(aclrtStreamWaitEvent(s, e)), ACL_ERROR_RT_PARAM_INVALID);
        // Nothing was queued.
        assert_eq!(stream_status(s), ACL_STREAM_STATUS_COMPLETE);
        // EVENT-QS-2: an external event's status cannot be queried.
        let ext = create_event_with_flag(ACL_EVENT_EXTERNAL);
        let mut st: aclrtEventRecordedStatus = 0xdead;
        assert_eq!(
            acl!(aclrtQueryEventStatus(ext, &mut st)),
            ACL_ERROR_RT_FEATURE_NOT_SUPPORT
        );
        assert_eq!(st, 0xdead);
        destroy_event(ext);
        destroy_event(e);
        destroy_stream(s);
        teardown_device0();
        assert_clean();
    });
}

#[test]
fn strict_ctx_live_hardware_like_destroy_takes_the_streams_and_leaves_events_and_memory() {
    let _sim = aclrt_sim::exclusive();
    for strictness in [aclrt_sim::Strictness::Refuse, aclrt_sim::Strictness::Report] {
        in_both_run_modes(|mode| {
            configure(|c| {
                c.run_mode = mode;
                c.strictness = strictness;
            });
            init_device0();
            let ctx = create_context(0);
            let s = create_stream();
            let e = create_event();
            let p = malloc(256);
            let ran = AtomicUsize::new(0);
            stream_delay(s, 20);
            ok!(aclrtLaunchHostFunc(s, Some(count), counter_arg(&ran)));
            let code = acl!(aclrtDestroyContext(ctx));
            match strictness {
                aclrt_sim::Strictness::Refuse => {
                    assert_eq!(code, ACL_ERROR_RT_CONTEXT_RELEASE_ERROR);
                    destroy_stream(s);
                    destroy_event(e);
                    free(p);
                    ok!(aclrtDestroyContext(ctx));
                }
                _ => {
                    assert_eq!(code, ACL_SUCCESS);
                    // The stream went with the context, after its work.
                    assert_eq!(ran.load(Ordering::SeqCst), 1);
                    assert_eq!(live(ResourceKind::Stream, 0), 0);
                    let mut st: aclrtStreamStatus = 0;
                    ok!(aclrtSetDevice(0));
                    assert_eq!(
                        acl!(aclrtStreamQuery(s, &mut st)),
                        ACL_ERROR_RT_INVALID_HANDLE
                    );
                    // The event and the memory belong to the device: still
                    // usable, released one by one.
                    ok!(aclrtRecordEvent(e, null_mut()));
                    ok!(aclrtSynchronizeEvent(e));
                    destroy_event(e);
                    free(p);
                    ok!(aclrtResetDevice(0));
                }
            }
            teardown_device0();
            let audit = aclrt_sim::audit();
            let kinds: Vec<_> = audit.violations.iter().map(|v| v.kind).collect();
            match strictness {
                aclrt_sim::Strictness::Refuse => {
                    assert_eq!(kinds, [ViolationKind::ReleaseWithLiveChildren])
                }
                _ => assert_eq!(
                    kinds,
                    [
                        ViolationKind::ReleaseWithLiveChildren,
                        ViolationKind::UseAfterFree
                    ]
                ),
            }
            assert!(
                audit.leaks.is_empty() && audit.live.values().all(|&n| n == 0),
                "{audit:#?}"
            );
        });
    }
}

#[test]
fn strict_reset_live_hardware_like_reset_releases_the_default_context_and_its_streams() {
    let _sim = aclrt_sim::exclusive();
    for strictness in [aclrt_sim::Strictness::Refuse, aclrt_sim::Strictness::Report] {
        in_both_run_modes(|mode| {
            configure(|c| {
                c.run_mode = mode;
                c.strictness = strictness;
            });
            init_device0();
            let s = create_stream();
            let e = create_event();
            let p = malloc(256);
            let ran = AtomicUsize::new(0);
            stream_delay(s, 20);
            ok!(aclrtLaunchHostFunc(s, Some(count), counter_arg(&ran)));
            let code = acl!(aclrtResetDevice(0));
            match strictness {
                aclrt_sim::Strictness::Refuse => {
                    assert_eq!(code, ACL_ERROR_RT_CONTEXT_RELEASE_ERROR);
                    destroy_stream(s);
                    destroy_event(e);
                    free(p);
                    ok!(aclrtResetDevice(0));
                }
                _ => {
                    assert_eq!(code, ACL_SUCCESS);
                    // The stream of the default context went, after its work.
                    assert_eq!(ran.load(Ordering::SeqCst), 1);
                    assert_eq!(live(ResourceKind::Stream, 0), 0);
                    // The event and the memory stay until released.
                    ok!(aclrtSetDevice(0));
                    ok!(aclrtRecordEvent(e, null_mut()));
                    ok!(aclrtSynchronizeEvent(e));
                    destroy_event(e);
                    free(p);
                    ok!(aclrtResetDevice(0));
                }
            }
            finalize();
            let audit = aclrt_sim::audit();
            let kinds: Vec<_> = audit.violations.iter().map(|v| v.kind).collect();
            assert_eq!(kinds, [ViolationKind::ResetWithLiveResources]);
            assert!(
                audit.leaks.is_empty() && audit.live.values().all(|&n| n == 0),
                "{audit:#?}"
            );
        });
    }
}

// ------------------------------------------------------------ the layers
//
// Rows decided by the layer that answers first: the ACL layer
// (`src/acl/aclrt_impl/`), the runtime's C API with its handle guard and
// argument-checking decorator (E, `api_error.cc`), then the implementation
// (I). Each runs on both chips in both run modes.

/// `f` on both chips, in both run modes (a fresh simulator each time).
fn in_every_profile(mut f: impl FnMut(aclrt_sim::Soc, RunMode)) {
    for soc in [aclrt_sim::Soc::Ascend910B, aclrt_sim::Soc::Ascend310P] {
        on_soc(soc, |mode| f(soc, mode));
    }
}

/// The calling thread's last error (`aclrtPeekAtLastError`).
fn peek_last_error() -> aclError {
    acl!(aclrtPeekAtLastError(ACL_RT_THREAD_LEVEL))
}

/// Clears the calling thread's last error (`aclrtGetLastError`).
fn take_last_error() -> aclError {
    acl!(aclrtGetLastError(ACL_RT_THREAD_LEVEL))
}

#[test]
fn ctx_2_setting_an_untracked_context_current_is_es_107000() {
    let _sim = aclrt_sim::exclusive();
    in_every_profile(|_, _| {
        init_device0();
        let ctx = create_context(0);
        ok!(aclrtDestroyContext(ctx));
        ok!(aclrtSetDevice(0));
        take_last_error();
        // ACL: NULL 100000 (not the thread's last error).
        assert_eq!(
            acl!(aclrtSetCurrentContext(null_mut())),
            ACL_ERROR_INVALID_PARAM
        );
        assert_eq!(peek_last_error(), ACL_SUCCESS);
        // E `ContextSetCurrent`: destroyed, unknown, another kind: 107000,
        // stored as the last error.
        assert_eq!(
            acl!(aclrtSetCurrentContext(ctx)),
            ACL_ERROR_RT_PARAM_INVALID
        );
        assert_eq!(take_last_error(), ACL_ERROR_RT_PARAM_INVALID);
        let bogus: aclrtContext = std::ptr::without_provenance_mut(0x7777_0000);
        assert_eq!(
            acl!(aclrtSetCurrentContext(bogus)),
            ACL_ERROR_RT_PARAM_INVALID
        );
        let s = create_stream();
        assert_eq!(acl!(aclrtSetCurrentContext(s)), ACL_ERROR_RT_PARAM_INVALID);
        // Still on the device's context: the refusals changed nothing.
        destroy_stream(s);
        ok!(aclrtResetDevice(0));
        ok!(aclrtResetDevice(0));
        finalize();
        expect_violations(&[
            ViolationKind::UseAfterFree,
            ViolationKind::InvalidHandle,
            ViolationKind::InvalidHandle,
        ]);
    });
}

#[test]
fn mem_11_malloc_cached_falls_back_to_the_default_flags() {
    let _sim = aclrt_sim::exclusive();
    in_every_profile(|_, _| {
        init_device0();
        // ACL `aclrtMallocCachedImpl`: the P2P policies and unknown values
        // take the default flags and allocate.
        for policy in [
            ACL_MEM_MALLOC_HUGE_FIRST,
            ACL_MEM_MALLOC_HUGE_FIRST_P2P,
            ACL_MEM_MALLOC_HUGE_ONLY_P2P,
            ACL_MEM_MALLOC_NORMAL_ONLY_P2P,
            ACL_MEM_MALLOC_HUGE1G_ONLY_P2P,
            99,
        ] {
            let mut p: *mut c_void = null_mut();
            ok!(aclrtMallocCached(&mut p, 64, policy));
            assert!(!p.is_null(), "policy {policy}");
            ok!(aclrtMemset(p, 64, 7, 64));
            assert_eq!(read_device(p, 64), vec![7; 64], "policy {policy}");
            free(p);
        }
        // Its own checks stay: NULL and size 0.
        let mut p: *mut c_void = null_mut();
        assert_eq!(
            acl!(aclrtMallocCached(&mut p, 0, 99)),
            ACL_ERROR_INVALID_PARAM
        );
        assert_eq!(
            acl!(aclrtMallocCached(null_mut(), 64, 99)),
            ACL_ERROR_INVALID_PARAM
        );
        teardown_device0();
        assert_clean();
    });
}

#[test]
fn event_ipc_ipc_events_where_the_chip_configuration_enables_them() {
    let _sim = aclrt_sim::exclusive();
    in_every_profile(|soc, _| {
        init_device0();
        let mut e: aclrtEvent = null_mut();
        let code = acl!(aclrtCreateEventExWithFlag(&mut e, ACL_EVENT_IPC));
        if soc == aclrt_sim::Soc::Ascend310P {
            // E `EventCreateEx`: the inference chip lacks the feature.
            assert_eq!(code, ACL_ERROR_RT_FEATURE_NOT_SUPPORT);
            assert!(e.is_null());
        } else {
            // 910B (`910_B_93` feature list): an event like any other for
            // record, wait and synchronisation.
            assert_eq!(code, ACL_SUCCESS);
            let s = create_stream();
            ok!(aclrtRecordEvent(e, s));
            ok!(aclrtStreamWaitEvent(null_mut(), e));
            ok!(aclrtSynchronizeEvent(e));
            ok!(aclrtSynchronizeStream(null_mut()));
            // E refuses what IPC events do not offer.
            let mut ts = 0u64;
            assert_eq!(
                acl!(aclrtEventGetTimestamp(e, &mut ts)),
                ACL_ERROR_RT_FEATURE_NOT_SUPPORT
            );
            destroy_event(e);
            destroy_stream(s);
        }
        // Combined with another flag: 107000 on both.
        assert_eq!(
            acl!(aclrtCreateEventExWithFlag(
                &mut e,
                ACL_EVENT_IPC | ACL_EVENT_SYNC
            )),
            ACL_ERROR_RT_PARAM_INVALID
        );
        teardown_device0();
        assert_clean();
    });
}

#[test]
fn stream_sync_ctx_a_thread_without_a_context_cannot_synchronize_a_stream() {
    let _sim = aclrt_sim::exclusive();
    in_every_profile(|_, _| {
        init_device0();
        let s = create_stream();
        let mut persistent: aclrtStream = null_mut();
        ok!(aclrtCreateStreamWithConfig(
            &mut persistent,
            0,
            ACL_STREAM_PERSISTENT
        ));
        let (sa, pa) = (s.addr(), persistent.addr());
        let codes = std::thread::spawn(move || {
            let s: aclrtStream = std::ptr::without_provenance_mut(sa);
            let p: aclrtStream = std::ptr::without_provenance_mut(pa);
            let codes = [
                // I `StreamSynchronize`: no current context, 107002 ...
                acl!(aclrtSynchronizeStream(s)),
                acl!(aclrtSynchronizeStreamWithTimeout(s, 1000)),
                acl!(aclrtSynchronizeStream(null_mut())),
                // ... after E's streams that return at once.
                acl!(aclrtSynchronizeStream(p)),
            ];
            (codes, peek_last_error())
        })
        .join()
        .unwrap();
        assert_eq!(
            codes,
            (
                [
                    ACL_ERROR_RT_CONTEXT_NULL,
                    ACL_ERROR_RT_CONTEXT_NULL,
                    ACL_ERROR_RT_CONTEXT_NULL,
                    ACL_SUCCESS,
                ],
                ACL_ERROR_RT_CONTEXT_NULL
            )
        );
        // A thread with a context synchronises a stream of another context
        // (the runtime switches for the wait).
        let other = create_context(0);
        ok!(aclrtSynchronizeStream(s));
        ok!(aclrtDestroyContext(other));
        ok!(aclrtSetDevice(0));
        destroy_stream(persistent);
        destroy_stream(s);
        ok!(aclrtResetDevice(0));
        teardown_device0();
        assert_clean();
    });
}

unsafe extern "C" fn never_called(_: *mut c_void) {
    panic!("a refused launch ran");
}

#[test]
fn handle_first_the_c_api_checks_the_stream_before_counts_timeouts_and_functions() {
    let _sim = aclrt_sim::exclusive();
    in_every_profile(|_, _| {
        init_device0();
        let p = malloc(64);
        let host = malloc_host(64);
        let dead = create_stream();
        destroy_stream(dead);
        take_last_error();
        let stale = ACL_ERROR_RT_INVALID_HANDLE;
        // The handle guard answers before E's count, timeout and function
        // checks (which would be 107000) ...
        assert_eq!(acl!(aclrtSynchronizeStreamWithTimeout(dead, 0)), stale);
        assert_eq!(acl!(aclrtMemsetAsync(p, 64, 0, 128, dead)), stale);
        assert_eq!(
            acl!(aclrtMemcpyAsync(
                p,
                64,
                host,
                128,
                ACL_MEMCPY_HOST_TO_DEVICE,
                dead
            )),
            stale
        );
        assert_eq!(acl!(aclrtLaunchHostFunc(dead, None, null_mut())), stale);
        assert_eq!(
            acl!(aclrtLaunchCallback(
                None,
                null_mut(),
                ACL_CALLBACK_BLOCK,
                dead
            )),
            stale
        );
        // The 2-D limits (E `MemCopy2DCheckParam`) after the guard too.
        assert_eq!(
            acl!(aclrtMemcpy2dAsync(
                p,
                6_000_000,
                host,
                6_000_000,
                5_000_001,
                1,
                ACL_MEMCPY_HOST_TO_DEVICE,
                dead
            )),
            stale
        );
        assert_eq!(take_last_error(), stale);
        // ... and after the ACL layer's own checks, which are not stored as
        // the thread's last error.
        assert_eq!(
            acl!(aclrtSynchronizeStreamWithTimeout(dead, -2)),
            ACL_ERROR_RT_PARAM_INVALID
        );
        assert_eq!(
            acl!(aclrtMemsetAsync(null_mut(), 64, 0, 64, dead)),
            ACL_ERROR_INVALID_PARAM
        );
        assert_eq!(
            acl!(aclrtMemcpyAsync(p, 64, host, 64, 9, dead)),
            ACL_ERROR_INVALID_PARAM
        );
        assert_eq!(
            acl!(aclrtLaunchCallback(Some(never_called), null_mut(), 7, dead)),
            ACL_ERROR_INVALID_PARAM
        );
        assert_eq!(peek_last_error(), ACL_SUCCESS);
        // A count of 0 succeeds before any check.
        ok!(aclrtMemsetAsync(p, 64, 0, 0, dead));
        ok!(aclrtMemcpyAsync(
            p,
            64,
            host,
            0,
            ACL_MEMCPY_HOST_TO_DEVICE,
            dead
        ));
        // On a live stream E's checks answer, stored as the last error.
        let s = create_stream();
        assert_eq!(
            acl!(aclrtSynchronizeStreamWithTimeout(s, 0)),
            ACL_ERROR_RT_PARAM_INVALID
        );
        assert_eq!(take_last_error(), ACL_ERROR_RT_PARAM_INVALID);
        assert_eq!(
            acl!(aclrtMemsetAsync(p, 64, 0, 128, s)),
            ACL_ERROR_RT_PARAM_INVALID
        );
        assert_eq!(
            acl!(aclrtLaunchHostFunc(s, None, null_mut())),
            ACL_ERROR_RT_PARAM_INVALID
        );
        // Events: the guard (event, then stream) before E's device-only
        // check; E's wait-task check before I's context check.
        let devonly = create_event_with_flag(ACL_EVENT_DEVICE_USE_ONLY);
        assert_eq!(acl!(aclrtRecordEvent(devonly, dead)), stale);
        assert_eq!(
            acl!(aclrtRecordEvent(devonly, s)),
            ACL_ERROR_RT_PARAM_INVALID
        );
        let timeline = create_event_with_flag(ACL_EVENT_TIME_LINE);
        let other = create_context(0);
        assert_eq!(
            acl!(aclrtStreamWaitEvent(s, timeline)),
            ACL_ERROR_RT_FEATURE_NOT_SUPPORT
        );
        ok!(aclrtDestroyContext(other));
        ok!(aclrtSetDevice(0));
        // The ACL layer's NULL status comes before the runtime's handle
        // check of a stale event.
        let gone = create_event();
        destroy_event(gone);
        assert_eq!(
            acl!(aclrtQueryEventStatus(gone, null_mut())),
            ACL_ERROR_INVALID_PARAM
        );
        let mut ts = 0u64;
        assert_eq!(acl!(aclrtEventGetTimestamp(gone, &mut ts)), stale);
        assert_eq!(acl!(aclrtSynchronizeEventWithTimeout(gone, 0)), stale);
        destroy_event(timeline);
        destroy_event(devonly);
        destroy_stream(s);
        free_host(host);
        free(p);
        ok!(aclrtResetDevice(0));
        teardown_device0();
        let audit = aclrt_sim::audit();
        // Every refusal of a stale handle is recorded as one.
        assert!(
            audit
                .violations
                .iter()
                .all(|v| v.rule == "STALE-HANDLE" || v.rule == "EVENT-FLAGS"),
            "{audit:#?}"
        );
    });
}

#[test]
fn e_before_i_the_decorator_answers_before_the_implementations_context_checks() {
    let _sim = aclrt_sim::exclusive();
    in_every_profile(|_, _| {
        init_device0();
        let mut devonly: aclrtStream = null_mut();
        ok!(aclrtCreateStreamWithConfig(
            &mut devonly,
            0,
            ACL_STREAM_DEVICE_USE_ONLY
        ));
        let dead = create_stream();
        destroy_stream(dead);
        let other = create_context(0);
        take_last_error();
        // E `StreamSetMode`: a DEVICE_USE_ONLY stream 207000 before I's
        // check that the stream is of the current context (107003); the C
        // API returns "not supported" without storing it.
        assert_eq!(
            acl!(aclrtSetStreamFailureMode(
                devonly,
                ACL_STOP_ON_FAILURE as u64
            )),
            ACL_ERROR_RT_FEATURE_NOT_SUPPORT
        );
        assert_eq!(peek_last_error(), ACL_SUCCESS);
        // The handle guard before I's current-context lookup.
        let da = dead.addr();
        let code = std::thread::spawn(move || {
            let mut p = 0u32;
            acl!(aclrtStreamGetPriority(
                std::ptr::without_provenance_mut(da),
                &mut p
            ))
        })
        .join()
        .unwrap();
        assert_eq!(code, ACL_ERROR_RT_INVALID_HANDLE);
        ok!(aclrtDestroyContext(other));
        ok!(aclrtSetDevice(0));
        destroy_stream(devonly);
        ok!(aclrtResetDevice(0));
        teardown_device0();
        // The one violation names its rule, its call and its handle.
        let v = aclrt_sim::audit().violations;
        let got: Vec<_> = v.iter().map(|v| (v.rule, v.function, v.handle)).collect();
        assert_eq!(
            got,
            [("STALE-HANDLE", "aclrtStreamGetPriority", Some(da))],
            "{v:#?}"
        );
    });
}

#[test]
fn last_err_layer_special_answers_are_not_the_threads_last_error() {
    let _sim = aclrt_sim::exclusive();
    in_every_profile(|_, _| {
        init();
        take_last_error();
        // `rtCtxGetCurrent`: "context null" is a special state.
        let mut c: aclrtContext = null_mut();
        assert_eq!(
            acl!(aclrtGetCurrentContext(&mut c)),
            ACL_ERROR_RT_CONTEXT_NULL
        );
        assert_eq!(peek_last_error(), ACL_SUCCESS);
        ok!(aclrtSetDevice(0));
        // The event functions' "not supported" (207000) is not stored ...
        let ex = create_event_ex(ACL_EVENT_SYNC);
        let mut st = 0u32;
        assert_eq!(
            acl!(aclrtQueryEvent(ex, &mut st)),
            ACL_ERROR_RT_FEATURE_NOT_SUPPORT
        );
        let plain = create_event_with_flag(ACL_EVENT_TIME_LINE);
        assert_eq!(
            acl!(aclrtResetEvent(plain, null_mut())),
            ACL_ERROR_RT_FEATURE_NOT_SUPPORT
        );
        assert_eq!(peek_last_error(), ACL_SUCCESS);
        // ... their other failures are.
        let mut e: aclrtEvent = null_mut();
        assert_eq!(
            acl!(aclrtCreateEventWithFlag(&mut e, 0)),
            ACL_ERROR_RT_PARAM_INVALID
        );
        assert_eq!(take_last_error(), ACL_ERROR_RT_PARAM_INVALID);
        destroy_event(plain);
        destroy_event(ex);
        teardown_device0();
        let audit = aclrt_sim::audit();
        assert!(
            audit.violations.iter().all(|v| v.rule == "EVENT-FLAGS"),
            "{audit:#?}"
        );
    });
}

#[test]
fn e_before_i_the_callback_mechanism_check_comes_before_the_context_check() {
    let _sim = aclrt_sim::exclusive();
    in_every_profile(|_, _| {
        init_device0();
        let s = create_stream();
        ok!(aclrtLaunchHostFunc(s, Some(nothing), null_mut()));
        ok!(aclrtSynchronizeStream(s));
        let other = create_context(0);
        let tid = my_thread_id();
        // E `SubscribeReport`/`UnSubscribeReport`: the stream is served by
        // the host-function thread (107011), before I would find it in
        // another context than the current one (107003).
        assert_eq!(
            acl!(aclrtSubscribeReport(tid, s)),
            ACL_ERROR_RT_STREAM_SUBSCRIBE
        );
        assert_eq!(
            acl!(aclrtUnSubscribeReport(tid, s)),
            ACL_ERROR_RT_STREAM_SUBSCRIBE
        );
        // The ACL layer's timeout check of aclrtProcessReport: 100000, not
        // the thread's last error.
        take_last_error();
        assert_eq!(acl!(aclrtProcessReport(0)), ACL_ERROR_INVALID_PARAM);
        assert_eq!(peek_last_error(), ACL_SUCCESS);
        ok!(aclrtDestroyContext(other));
        ok!(aclrtSetDevice(0));
        destroy_stream(s);
        ok!(aclrtResetDevice(0));
        teardown_device0();
        assert_clean();
    });
}

#[test]
fn handle_first_a_launch_checks_the_function_and_stream_handles_before_its_arguments() {
    let _sim = aclrt_sim::exclusive();
    in_every_profile(|_, _| {
        init_device0();
        aclrt_sim::register_kernel("nop", |_, _, _| Ok(()));
        let img = aclrt_sim::binary_image(&["nop"]);
        let mut bin: aclrtBinHandle = null_mut();
        ok!(aclrtBinaryLoadFromData(
            img.as_ptr().cast(),
            img.len(),
            null(),
            &mut bin
        ));
        let name = std::ffi::CString::new("nop").unwrap();
        let mut f: aclrtFuncHandle = null_mut();
        ok!(aclrtBinaryGetFunction(bin, name.as_ptr(), &mut f));
        let args = malloc(64);
        let dead = create_stream();
        destroy_stream(dead);
        let stale = ACL_ERROR_RT_INVALID_HANDLE;
        // ACL: NULL function / argument block first (100000) ...
        assert_eq!(
            acl!(aclrtLaunchKernel(null_mut(), 0, args, 0, dead)),
            ACL_ERROR_INVALID_PARAM
        );
        // ... then the guard (107017) before E's numBlocks and argsSize.
        assert_eq!(acl!(aclrtLaunchKernel(f, 0, args, 0, dead)), stale);
        assert_eq!(
            acl!(aclrtLaunchKernel(f, 0, args, 8, null_mut())),
            ACL_ERROR_RT_PARAM_INVALID
        );
        // With a configuration: the guard (function, argument list, stream)
        // before the configuration's check (attrs NULL: 107000).
        let mut list: aclrtArgsHandle = null_mut();
        ok!(aclrtKernelArgsInit(f, &mut list));
        ok!(aclrtKernelArgsFinalize(list));
        let mut cfg = aclrtLaunchKernelCfg {
            attrs: null_mut(),
            numAttrs: 0,
        };
        assert_eq!(
            acl!(aclrtLaunchKernelWithConfig(
                f,
                1,
                dead,
                &mut cfg,
                list,
                null_mut()
            )),
            stale
        );
        assert_eq!(
            acl!(aclrtLaunchKernelWithConfig(
                f,
                1,
                null_mut(),
                &mut cfg,
                list,
                null_mut()
            )),
            ACL_ERROR_RT_PARAM_INVALID
        );
        ok!(aclrtBinaryUnLoad(bin));
        // A function of an unloaded binary: the guard again.
        assert_eq!(acl!(aclrtLaunchKernel(f, 0, args, 0, null_mut())), stale);
        free(args);
        teardown_device0();
        let audit = aclrt_sim::audit();
        assert!(
            audit.violations.iter().all(|v| v.rule == "STALE-HANDLE"),
            "{audit:#?}"
        );
    });
}

#[test]
fn strict_refused_in_both_rules_whose_hardware_answer_is_corruption_refuse_by_default_too() {
    let _sim = aclrt_sim::exclusive();
    in_every_profile(|_, _| {
        init_device0();
        assert_eq!(
            aclrt_sim::config().strictness,
            aclrt_sim::Strictness::Report
        );
        let p = malloc(64);
        let src = [1u8; 128];
        // STRICT-BOUNDS: a copy past the allocation would corrupt memory.
        assert_eq!(
            acl!(aclrtMemcpy(
                p,
                128,
                src.as_ptr().cast(),
                128,
                ACL_MEMCPY_HOST_TO_DEVICE
            )),
            ACL_ERROR_RT_PARAM_INVALID
        );
        free(p);
        // STRICT-DOUBLE-FREE: undefined behaviour here.
        assert_eq!(acl!(aclrtFree(p)), ACL_ERROR_RT_MEMORY_FREE);
        teardown_device0();
        let v = aclrt_sim::audit().violations;
        let got: Vec<_> = v.iter().map(|v| (v.rule, v.refused)).collect();
        assert_eq!(
            got,
            [("STRICT-BOUNDS", true), ("STRICT-DOUBLE-FREE", true)],
            "{v:#?}"
        );
        assert_eq!(v[1].handle, Some(p.addr()));
    });
}

#[test]
fn peer_1_the_ids_are_compared_first_and_the_output_is_the_runtimes() {
    let _sim = aclrt_sim::exclusive();
    in_every_profile(|_, _| {
        init();
        take_last_error();
        let mut can = -1;
        // ACL: the same id twice, before anything else (not stored).
        assert_eq!(
            acl!(aclrtDeviceCanAccessPeer(null_mut(), 99, 99)),
            ACL_ERROR_INVALID_PARAM
        );
        assert_eq!(peek_last_error(), ACL_SUCCESS);
        // The runtime: the peer id, the device id (107001) ...
        assert_eq!(
            acl!(aclrtDeviceCanAccessPeer(null_mut(), 0, 99)),
            ACL_ERROR_RT_INVALID_DEVICEID
        );
        assert_eq!(
            acl!(aclrtDeviceCanAccessPeer(&mut can, 99, 0)),
            ACL_ERROR_RT_INVALID_DEVICEID
        );
        // ... then E's NULL output check (107000, stored).
        assert_eq!(
            acl!(aclrtDeviceCanAccessPeer(null_mut(), 0, 1)),
            ACL_ERROR_RT_PARAM_INVALID
        );
        assert_eq!(take_last_error(), ACL_ERROR_RT_PARAM_INVALID);
        ok!(aclrtDeviceCanAccessPeer(&mut can, 0, 1));
        assert_eq!(can, 1);
        finalize();
        assert_clean();
    });
}

#[test]
fn last_err_layer_the_device_functions_store_what_the_runtime_stores() {
    let _sim = aclrt_sim::exclusive();
    in_every_profile(|_, _| {
        init();
        take_last_error();
        // `rtGetDevice`'s "no device" is a special state (also inside the
        // ACL layer's peer-access functions); the ACL layer's own checks
        // never reach the runtime.
        let mut d = -1;
        assert_eq!(acl!(aclrtGetDevice(&mut d)), ACL_ERROR_RT_CONTEXT_NULL);
        assert_eq!(
            acl!(aclrtDeviceEnablePeerAccess(1, 0)),
            ACL_ERROR_RT_CONTEXT_NULL
        );
        assert_eq!(
            acl!(aclrtDeviceEnablePeerAccess(1, 1)),
            ACL_ERROR_FEATURE_UNSUPPORTED
        );
        assert_eq!(acl!(aclrtGetDevice(null_mut())), ACL_ERROR_INVALID_PARAM);
        assert_eq!(peek_last_error(), ACL_SUCCESS);
        // E `SetDevice`'s refusal is stored.
        assert_eq!(acl!(aclrtSetDevice(99)), ACL_ERROR_RT_INVALID_DEVICEID);
        assert_eq!(take_last_error(), ACL_ERROR_RT_INVALID_DEVICEID);
        ok!(aclrtSetDevice(0));
        assert_eq!(
            acl!(aclrtDeviceEnablePeerAccess(0, 0)),
            ACL_ERROR_INVALID_PARAM
        );
        assert_eq!(
            acl!(aclrtDeviceEnablePeerAccess(99, 0)),
            ACL_ERROR_RT_INVALID_DEVICEID
        );
        assert_eq!(take_last_error(), ACL_ERROR_RT_INVALID_DEVICEID);
        ok!(aclrtDeviceEnablePeerAccess(1, 0));
        ok!(aclrtDeviceDisablePeerAccess(1));
        ok!(aclrtResetDevice(0));
        finalize();
        assert_clean();
    });
}

#[test]
fn op_exec_1_a_kernel_past_the_op_execute_limit_fails_507014_at_synchronisation() {
    let _sim = aclrt_sim::exclusive();
    in_every_profile(|soc, _| {
        init_device0();
        // The implementation stores any value (0: the chip's default; above
        // the chip's largest: the largest applies); the C entry point
        // refuses none of them on these chips.
        ok!(aclrtSetOpExecuteTimeOut(0));
        ok!(aclrtSetOpExecuteTimeOut(u32::MAX));
        let largest = if soc == aclrt_sim::Soc::Ascend310P {
            547
        } else {
            1091
        };
        assert_eq!(soc.op_execute_limit(0).as_secs(), largest);
        assert_eq!(soc.op_execute_limit(u32::MAX).as_secs(), largest);
        ok!(aclrtSetOpExecuteTimeOut(1));
        aclrt_sim::register_kernel("nop", |_, _, _| Ok(()));
        let img = aclrt_sim::binary_image(&["nop"]);
        let mut bin: aclrtBinHandle = null_mut();
        ok!(aclrtBinaryLoadFromData(
            img.as_ptr().cast(),
            img.len(),
            null(),
            &mut bin
        ));
        let name = std::ffi::CString::new("nop").unwrap();
        let mut f: aclrtFuncHandle = null_mut();
        ok!(aclrtBinaryGetFunction(bin, name.as_ptr(), &mut f));
        let args = malloc(8);
        let s = create_stream();
        // Under the limit: runs.
        ok!(aclrtLaunchKernel(f, 2, args, 8, s));
        ok!(aclrtSynchronizeStream(s));
        // A launch's own limit (TIMEOUT_US, TIMEOUT) takes precedence over
        // the process-wide one; 0 never times out.
        let mut list: aclrtArgsHandle = null_mut();
        ok!(aclrtKernelArgsInit(f, &mut list));
        ok!(aclrtKernelArgsFinalize(list));
        let mut short = aclrtLaunchKernelAttr {
            id: ACL_RT_LAUNCH_KERNEL_ATTR_TIMEOUT_US,
            value: aclrtLaunchKernelAttrValue { rsv: [0; 4] },
        };
        short.value.timeoutUs = aclrtTimeoutUs {
            timeoutLow: 100_000,
            timeoutHigh: 0,
        };
        let mut never = aclrtLaunchKernelAttr {
            id: ACL_RT_LAUNCH_KERNEL_ATTR_TIMEOUT,
            value: aclrtLaunchKernelAttrValue { rsv: [0; 4] },
        };
        never.value.timeout = 0;
        let mut short_cfg = aclrtLaunchKernelCfg {
            attrs: &mut short,
            numAttrs: 1,
        };
        let mut never_cfg = aclrtLaunchKernelCfg {
            attrs: &mut never,
            numAttrs: 1,
        };
        let (s2, s3) = (create_stream(), create_stream());
        // Kernels whose simulated duration (their delay) exceeds the limit
        // in force: stopped at it, the fault reported at synchronisation.
        // The three streams run at once (about 1.2 s in all).
        aclrt_sim::set_stream_delay(s, Duration::from_secs(30));
        aclrt_sim::set_stream_delay(s2, Duration::from_secs(30));
        aclrt_sim::set_stream_delay(s3, Duration::from_millis(1200));
        let t0 = Instant::now();
        ok!(aclrtLaunchKernel(f, 2, args, 8, s));
        ok!(aclrtLaunchKernelWithConfig(
            f,
            1,
            s2,
            &mut short_cfg,
            list,
            null_mut()
        ));
        ok!(aclrtLaunchKernelWithConfig(
            f,
            1,
            s3,
            &mut never_cfg,
            list,
            null_mut()
        ));
        assert_eq!(
            acl!(aclrtSynchronizeStream(s2)),
            ACL_ERROR_RT_AICORE_TIMEOUT
        );
        let took = t0.elapsed();
        assert!(
            took < Duration::from_millis(900),
            "stopped at its own 100 ms limit: {took:?}"
        );
        assert_eq!(acl!(aclrtSynchronizeStream(s)), ACL_ERROR_RT_AICORE_TIMEOUT);
        let took = t0.elapsed();
        assert!(
            took >= Duration::from_secs(1) && took < Duration::from_secs(20),
            "stopped at the 1 s limit, not the 30 s delay: {took:?}"
        );
        ok!(aclrtSynchronizeStream(s3));
        assert!(
            t0.elapsed() >= Duration::from_millis(1200),
            "ran its whole delay"
        );
        destroy_stream(s2);
        destroy_stream(s3);
        aclrt_sim::clear_faults();
        // The stream goes on.
        ok!(aclrtLaunchKernel(f, 2, args, 8, s));
        ok!(aclrtSynchronizeStream(s));
        destroy_stream(s);
        free(args);
        ok!(aclrtBinaryUnLoad(bin));
        teardown_device0();
    });
}

#[test]
fn mem_sync_order_the_synchronous_copy_and_memset_check_as_the_layers_do() {
    let _sim = aclrt_sim::exclusive();
    in_every_profile(|_, _| {
        init_device0();
        let d = malloc(64);
        let h = malloc_host(64);
        let h2d = ACL_MEMCPY_HOST_TO_DEVICE;
        take_last_error();
        // ACL: a zero count succeeds before any check (NULL pointers too).
        ok!(aclrtMemcpy(null_mut(), 0, null(), 0, h2d));
        ok!(aclrtMemset(null_mut(), 0, 0, 0));
        // ACL: NULL dst, NULL src, then the kind (100000, not stored).
        assert_eq!(
            acl!(aclrtMemcpy(null_mut(), 8, null(), 8, 99)),
            ACL_ERROR_INVALID_PARAM
        );
        assert_eq!(
            acl!(aclrtMemcpy(d, 8, null(), 8, 99)),
            ACL_ERROR_INVALID_PARAM
        );
        assert_eq!(acl!(aclrtMemcpy(d, 8, h, 8, 99)), ACL_ERROR_INVALID_PARAM);
        assert_eq!(
            acl!(aclrtMemset(null_mut(), 8, 0, 8)),
            ACL_ERROR_INVALID_PARAM
        );
        assert_eq!(acl!(aclrtFree(null_mut())), ACL_ERROR_INVALID_PARAM);
        assert_eq!(acl!(aclrtFreeHost(null_mut())), ACL_ERROR_INVALID_PARAM);
        let mut p: *mut c_void = null_mut();
        assert_eq!(acl!(aclrtMallocHost(&mut p, 0)), ACL_ERROR_INVALID_PARAM);
        assert_eq!(
            acl!(aclrtMallocHost(null_mut(), 8)),
            ACL_ERROR_INVALID_PARAM
        );
        assert_eq!(
            peek_last_error(),
            ACL_SUCCESS,
            "ACL refusals are not stored"
        );
        // E (`MemCopySync`): destMax 0, then count > destMax: 107000, stored.
        assert_eq!(
            acl!(aclrtMemcpy(d, 0, h, 8, h2d)),
            ACL_ERROR_RT_PARAM_INVALID
        );
        assert_eq!(take_last_error(), ACL_ERROR_RT_PARAM_INVALID);
        assert_eq!(
            acl!(aclrtMemcpy(d, 4, h, 8, h2d)),
            ACL_ERROR_RT_PARAM_INVALID
        );
        assert_eq!(take_last_error(), ACL_ERROR_RT_PARAM_INVALID);
        // E: the same address as source and destination copies nothing.
        ok!(aclrtMemcpy(d, 64, d, 64, ACL_MEMCPY_DEVICE_TO_DEVICE));
        assert_eq!(peek_last_error(), ACL_SUCCESS);
        free_host(h);
        free(d);
        teardown_device0();
    });
}

#[test]
fn mem_sync_order_the_c_api_returns_before_the_implementation_for_one_address_and_the_context_before_the_count()
 {
    let _sim = aclrt_sim::exclusive();
    in_every_profile(|_, _| {
        init_device0();
        let d = malloc(64);
        let h = malloc_host(64);
        take_last_error();
        // E `MemCopySync`: the same source and destination copy nothing and
        // succeed before I looks at the memory or the kind.
        ok!(aclrtMemcpy(d, 64, d, 64, ACL_MEMCPY_HOST_TO_DEVICE));
        ok!(aclrtMemcpy(h, 64, h, 64, ACL_MEMCPY_DEVICE_TO_DEVICE));
        let (da, ha) = (d.addr(), h.addr());
        std::thread::spawn(move || {
            let (d, h) = (
                std::ptr::without_provenance_mut::<c_void>(da),
                std::ptr::without_provenance_mut::<c_void>(ha),
            );
            // ... also on a thread with no current context.
            ok!(aclrtMemcpy(d, 64, d, 64, ACL_MEMCPY_DEVICE_TO_DEVICE));
            // I `MemSetSync`: the current context (107002) before the
            // driver's count check.
            assert_eq!(acl!(aclrtMemset(d, 4, 0, 8)), ACL_ERROR_RT_CONTEXT_NULL);
            assert_eq!(
                acl!(aclrtMemcpy(d, 64, h, 64, ACL_MEMCPY_HOST_TO_DEVICE)),
                ACL_ERROR_RT_CONTEXT_NULL
            );
        })
        .join()
        .unwrap();
        assert_eq!(acl!(aclrtMemset(d, 4, 0, 8)), ACL_ERROR_RT_PARAM_INVALID);
        assert_eq!(take_last_error(), ACL_ERROR_RT_PARAM_INVALID);
        free_host(h);
        free(d);
        teardown_device0();
    });
}

#[test]
fn mem_alloc_order_allocation_and_release_check_as_the_layers_do() {
    let _sim = aclrt_sim::exclusive();
    in_every_profile(|_, _| {
        init_device0();
        take_last_error();
        let mut p: *mut c_void = null_mut();
        // ACL `aclMallocMemInner`: NULL, size 0, then the padded size's
        // overflow (100000, not stored); a policy is translated, never
        // refused (an unknown one gives the default flags).
        assert_eq!(
            acl!(aclrtMalloc(null_mut(), 0, 99)),
            ACL_ERROR_INVALID_PARAM
        );
        assert_eq!(acl!(aclrtMalloc(&mut p, 0, 0)), ACL_ERROR_INVALID_PARAM);
        assert_eq!(
            acl!(aclrtMalloc(&mut p, usize::MAX - 8, 0)),
            ACL_ERROR_INVALID_PARAM
        );
        assert_eq!(
            acl!(aclrtMallocAlign32(&mut p, usize::MAX - 8, 0)),
            ACL_ERROR_INVALID_PARAM
        );
        assert_eq!(
            peek_last_error(),
            ACL_SUCCESS,
            "ACL refusals are not stored"
        );
        ok!(aclrtMalloc(&mut p, 64, 99));
        let mut q: *mut c_void = null_mut();
        ok!(aclrtMallocAlign32(&mut q, 64, 99));
        let pa = p.addr();
        std::thread::spawn(move || {
            let mut r: *mut c_void = null_mut();
            // I `DevMalloc` / `HostMalloc`: the current context (stored).
            assert_eq!(acl!(aclrtMalloc(&mut r, 64, 0)), ACL_ERROR_RT_CONTEXT_NULL);
            assert_eq!(take_last_error(), ACL_ERROR_RT_CONTEXT_NULL);
            assert_eq!(acl!(aclrtMallocHost(&mut r, 64)), ACL_ERROR_RT_CONTEXT_NULL);
            // I `DevFree`: no current context needed.
            ok!(aclrtFree(std::ptr::without_provenance_mut(pa)));
        })
        .join()
        .unwrap();
        free(q);
        teardown_device0();
    });
}

#[test]
fn hostreg_order_registration_managed_memory_and_mem_info_check_as_the_layers_do() {
    let _sim = aclrt_sim::exclusive();
    in_every_profile(|_, _| {
        init_device0();
        take_last_error();
        let mut buf = vec![0u8; 4096];
        let p = buf.as_mut_ptr().cast::<c_void>();
        let mut dev: *mut c_void = null_mut();
        let (mut fr, mut tot) = (0usize, 0usize);
        // ACL: NULL ptr, NULL devPtr, size 0 (100000, not stored).
        assert_eq!(
            acl!(aclrtHostRegister(null_mut(), 0, 99, null_mut())),
            ACL_ERROR_INVALID_PARAM
        );
        assert_eq!(
            acl!(aclrtHostRegister(p, 0, 99, null_mut())),
            ACL_ERROR_INVALID_PARAM
        );
        assert_eq!(
            acl!(aclrtHostRegister(p, 0, 99, &mut dev)),
            ACL_ERROR_INVALID_PARAM
        );
        assert_eq!(acl!(aclrtHostRegisterV2(p, 0, 0)), ACL_ERROR_INVALID_PARAM);
        assert_eq!(
            acl!(aclrtHostUnregister(null_mut())),
            ACL_ERROR_INVALID_PARAM
        );
        assert_eq!(
            acl!(aclrtHostGetDevicePointer(p, &mut dev, 1)),
            ACL_ERROR_INVALID_PARAM
        );
        assert_eq!(
            acl!(aclrtMemAllocManaged(null_mut(), 0, 0)),
            ACL_ERROR_INVALID_PARAM
        );
        assert_eq!(
            acl!(aclrtMemAllocManaged(&mut dev, 0, 0)),
            ACL_ERROR_INVALID_PARAM
        );
        assert_eq!(
            acl!(aclrtGetMemInfo(99, null_mut(), &mut tot)),
            ACL_ERROR_INVALID_PARAM
        );
        assert_eq!(
            peek_last_error(),
            ACL_SUCCESS,
            "ACL refusals are not stored"
        );
        // E `HostRegister`: a type outside the flags 207000 (stored).
        assert_eq!(
            acl!(aclrtHostRegister(p, 4096, 0x100, &mut dev)),
            ACL_ERROR_RT_FEATURE_NOT_SUPPORT
        );
        assert_eq!(take_last_error(), ACL_ERROR_RT_FEATURE_NOT_SUPPORT);
        // E `HostRegisterV2`: no valid flag, or one outside them, 107000.
        assert_eq!(
            acl!(aclrtHostRegisterV2(p, 4096, 0)),
            ACL_ERROR_RT_PARAM_INVALID
        );
        assert_eq!(
            acl!(aclrtHostRegisterV2(p, 4096, 1)),
            ACL_ERROR_RT_PARAM_INVALID
        );
        assert_eq!(take_last_error(), ACL_ERROR_RT_PARAM_INVALID);
        // E `ManagedMemAlloc`: size 0 107000.
        assert_eq!(
            acl!(aclrtMemAllocManaged(
                &mut dev,
                0,
                ACL_RT_MEM_ATTACH_GLOBAL as u32
            )),
            ACL_ERROR_RT_PARAM_INVALID
        );
        assert_eq!(take_last_error(), ACL_ERROR_RT_PARAM_INVALID);
        // E `MemGetInfoEx`: an attribute outside 0..=17 107016 (stored).
        assert_eq!(
            acl!(aclrtGetMemInfo(18, &mut fr, &mut tot)),
            ACL_ERROR_RT_INVALID_MEMORY_TYPE
        );
        assert_eq!(take_last_error(), ACL_ERROR_RT_INVALID_MEMORY_TYPE);
        // ... before I's current context (107002).
        std::thread::spawn(|| {
            let (mut fr, mut tot) = (0usize, 0usize);
            assert_eq!(
                acl!(aclrtGetMemInfo(18, &mut fr, &mut tot)),
                ACL_ERROR_RT_INVALID_MEMORY_TYPE
            );
            assert_eq!(
                acl!(aclrtGetMemInfo(ACL_HBM_MEM, &mut fr, &mut tot)),
                ACL_ERROR_RT_CONTEXT_NULL
            );
        })
        .join()
        .unwrap();
        drop(buf);
        teardown_device0();
    });
}

#[test]
fn kernel_order_binaries_argument_lists_and_configured_launches_check_as_the_layers_do() {
    let _sim = aclrt_sim::exclusive();
    in_every_profile(|_, _| {
        init_device0();
        aclrt_sim::register_kernel("nop", |_, _, _| Ok(()));
        let img = aclrt_sim::binary_image(&["nop"]);
        take_last_error();
        let mut bin: aclrtBinHandle = null_mut();
        let name = std::ffi::CString::new("nop").unwrap();
        // ACL: NULL data, NULL handle (100000, not stored) ...
        assert_eq!(
            acl!(aclrtBinaryLoadFromData(null(), 0, null(), null_mut())),
            ACL_ERROR_INVALID_PARAM
        );
        assert_eq!(
            acl!(aclrtBinaryLoadFromData(
                img.as_ptr().cast(),
                0,
                null(),
                null_mut()
            )),
            ACL_ERROR_INVALID_PARAM
        );
        assert_eq!(
            acl!(aclrtBinaryLoadFromFile(null(), null_mut(), &mut bin)),
            ACL_ERROR_INVALID_PARAM
        );
        assert_eq!(acl!(aclrtBinaryUnLoad(null_mut())), ACL_ERROR_INVALID_PARAM);
        assert_eq!(
            peek_last_error(),
            ACL_SUCCESS,
            "ACL refusals are not stored"
        );
        // ... a length of 0 is E's (107000, stored).
        assert_eq!(
            acl!(aclrtBinaryLoadFromData(
                img.as_ptr().cast(),
                0,
                null(),
                &mut bin
            )),
            ACL_ERROR_RT_PARAM_INVALID
        );
        assert_eq!(take_last_error(), ACL_ERROR_RT_PARAM_INVALID);
        ok!(aclrtBinaryLoadFromData(
            img.as_ptr().cast(),
            img.len(),
            null(),
            &mut bin
        ));
        let mut f: aclrtFuncHandle = null_mut();
        assert_eq!(
            acl!(aclrtBinaryGetFunction(null_mut(), name.as_ptr(), &mut f)),
            ACL_ERROR_INVALID_PARAM
        );
        assert_eq!(
            acl!(aclrtBinaryGetFunction(bin, null(), &mut f)),
            ACL_ERROR_INVALID_PARAM
        );
        assert_eq!(
            acl!(aclrtBinaryGetFunction(bin, name.as_ptr(), null_mut())),
            ACL_ERROR_INVALID_PARAM
        );
        ok!(aclrtBinaryGetFunction(bin, name.as_ptr(), &mut f));
        let mut list: aclrtArgsHandle = null_mut();
        assert_eq!(
            acl!(aclrtKernelArgsInit(null_mut(), &mut list)),
            ACL_ERROR_INVALID_PARAM
        );
        assert_eq!(
            acl!(aclrtKernelArgsInit(f, null_mut())),
            ACL_ERROR_INVALID_PARAM
        );
        ok!(aclrtKernelArgsInit(f, &mut list));
        let mut v = 7u64;
        let mut ph: aclrtParamHandle = null_mut();
        let vp = (&raw mut v).cast::<c_void>();
        // ACL: list, param, size 0, paramHandle (in that order).
        assert_eq!(
            acl!(aclrtKernelArgsAppend(null_mut(), null_mut(), 0, null_mut())),
            ACL_ERROR_INVALID_PARAM
        );
        assert_eq!(
            acl!(aclrtKernelArgsAppend(list, null_mut(), 8, &mut ph)),
            ACL_ERROR_INVALID_PARAM
        );
        assert_eq!(
            acl!(aclrtKernelArgsAppend(list, vp, 0, &mut ph)),
            ACL_ERROR_INVALID_PARAM
        );
        assert_eq!(
            acl!(aclrtKernelArgsAppend(list, vp, 8, null_mut())),
            ACL_ERROR_INVALID_PARAM
        );
        assert_eq!(
            acl!(aclrtKernelArgsAppendPlaceHolder(list, null_mut())),
            ACL_ERROR_INVALID_PARAM
        );
        ok!(aclrtKernelArgsAppendPlaceHolder(list, &mut ph));
        let mut buf: *mut c_void = null_mut();
        assert_eq!(
            acl!(aclrtKernelArgsGetPlaceHolderBuffer(list, ph, 0, &mut buf)),
            ACL_ERROR_INVALID_PARAM
        );
        assert_eq!(
            acl!(aclrtKernelArgsGetPlaceHolderBuffer(
                list,
                null_mut(),
                8,
                &mut buf
            )),
            ACL_ERROR_INVALID_PARAM
        );
        assert_eq!(
            acl!(aclrtKernelArgsFinalize(null_mut())),
            ACL_ERROR_INVALID_PARAM
        );
        ok!(aclrtKernelArgsGetPlaceHolderBuffer(list, ph, 8, &mut buf));
        ok!(aclrtKernelArgsFinalize(list));
        let dead = create_stream();
        destroy_stream(dead);
        // ACL `aclrtLaunchKernelWithConfigImpl`: NULL function, numBlocks 0,
        // NULL list, a reserve that is not NULL (100000) before the
        // runtime's handle guard (107017 for the destroyed stream).
        assert_eq!(
            acl!(aclrtLaunchKernelWithConfig(
                f,
                0,
                dead,
                null_mut(),
                list,
                null_mut()
            )),
            ACL_ERROR_INVALID_PARAM
        );
        assert_eq!(
            acl!(aclrtLaunchKernelWithConfig(
                f,
                1,
                dead,
                null_mut(),
                null_mut(),
                null_mut()
            )),
            ACL_ERROR_INVALID_PARAM
        );
        assert_eq!(
            acl!(aclrtLaunchKernelWithConfig(
                f,
                1,
                dead,
                null_mut(),
                list,
                vp
            )),
            ACL_ERROR_INVALID_PARAM
        );
        assert_eq!(
            peek_last_error(),
            ACL_SUCCESS,
            "ACL refusals are not stored"
        );
        assert_eq!(
            acl!(aclrtLaunchKernelWithConfig(
                f,
                1,
                dead,
                null_mut(),
                list,
                null_mut()
            )),
            ACL_ERROR_RT_INVALID_HANDLE
        );
        assert_eq!(take_last_error(), ACL_ERROR_RT_INVALID_HANDLE);
        ok!(aclrtLaunchKernelWithConfig(
            f,
            1,
            null_mut(),
            null_mut(),
            list,
            null_mut()
        ));
        ok!(aclrtSynchronizeStream(null_mut()));
        ok!(aclrtBinaryUnLoad(bin));
        teardown_device0();
    });
}

#[test]
fn kernel_order_an_unplaced_function_is_107017_not_stored_by_both_launches() {
    let _sim = aclrt_sim::exclusive();
    in_every_profile(|_, _| {
        init_device0();
        aclrt_sim::register_kernel("nop", |_, _, _| Ok(()));
        let img = aclrt_sim::binary_image(&["nop"]);
        let mut bin: aclrtBinHandle = null_mut();
        ok!(aclrtBinaryLoadFromData(
            img.as_ptr().cast(),
            img.len(),
            null(),
            &mut bin
        ));
        let name = std::ffi::CString::new("nop").unwrap();
        let mut f: aclrtFuncHandle = null_mut();
        ok!(aclrtBinaryGetFunction(bin, name.as_ptr(), &mut f));
        let mut list: aclrtArgsHandle = null_mut();
        ok!(aclrtKernelArgsInit(f, &mut list));
        ok!(aclrtKernelArgsFinalize(list));
        // The function's binary was placed on device 0 only: a launch on
        // device 1 is the implementation's "invalid kernel", which both C
        // entry points return as 107017 without storing it.
        ok!(aclrtSetDevice(1));
        let args = malloc(8);
        take_last_error();
        assert_eq!(
            acl!(aclrtLaunchKernelWithConfig(
                f,
                1,
                null_mut(),
                null_mut(),
                list,
                null_mut()
            )),
            ACL_ERROR_RT_INVALID_HANDLE
        );
        assert_eq!(peek_last_error(), ACL_SUCCESS);
        assert_eq!(
            acl!(aclrtLaunchKernel(f, 1, args, 8, null_mut())),
            ACL_ERROR_RT_INVALID_HANDLE
        );
        assert_eq!(peek_last_error(), ACL_SUCCESS);
        free(args);
        ok!(aclrtResetDevice(1));
        ok!(aclrtSetDevice(0));
        ok!(aclrtBinaryUnLoad(bin));
        teardown_device0();
    });
}

#[test]
fn init_order_init_and_finalize_keep_the_acl_layers_count_and_flag() {
    let _sim = aclrt_sim::exclusive();
    in_every_profile(|_, _| {
        let mut n = 99u64;
        // Before any aclInit: the finalize flag is clear, so aclFinalize
        // runs its teardown and succeeds; a second one is 100037.
        ok!(aclFinalize());
        assert_eq!(acl!(aclFinalize()), ACL_ERROR_REPEAT_FINALIZE);
        // aclFinalizeReference reads the count (0): 100037, count 0.
        assert_eq!(
            acl!(aclFinalizeReference(&mut n)),
            ACL_ERROR_REPEAT_FINALIZE
        );
        assert_eq!(n, 0);
        // A repeated aclInit counts (100002) ...
        ok!(aclInit(null()));
        assert_eq!(acl!(aclInit(null())), ACL_ERROR_REPEAT_INITIALIZE);
        assert_eq!(acl!(aclInit(null())), ACL_ERROR_REPEAT_INITIALIZE);
        // ... so aclFinalizeReference tears down at the third call.
        ok!(aclFinalizeReference(&mut n));
        assert_eq!(n, 2);
        ok!(aclFinalizeReference(null_mut()));
        ok!(aclFinalizeReference(&mut n));
        assert_eq!(n, 0);
        // aclFinalizeReference does not set... it does: the teardown sets
        // the finalize flag, so aclFinalize is now 100037.
        assert_eq!(acl!(aclFinalize()), ACL_ERROR_REPEAT_FINALIZE);
        // aclFinalize ends every reference at once.
        ok!(aclInit(null()));
        assert_eq!(acl!(aclInit(null())), ACL_ERROR_REPEAT_INITIALIZE);
        ok!(aclFinalize());
        assert_eq!(
            acl!(aclFinalizeReference(&mut n)),
            ACL_ERROR_REPEAT_FINALIZE
        );
        assert_eq!(n, 0);
        assert_eq!(peek_last_error(), ACL_SUCCESS, "ACL answers are not stored");
    });
}

#[test]
fn misc_order_version_queries_and_timeouts_are_the_acl_layers_and_never_stored() {
    let _sim = aclrt_sim::exclusive();
    in_every_profile(|_, _| {
        init_device0();
        take_last_error();
        let (mut a, mut b, mut c) = (0i32, 0i32, 0i32);
        // `aclrtGetVersionImpl`: each NULL output 100000.
        assert_eq!(
            acl!(aclrtGetVersion(null_mut(), &mut b, &mut c)),
            ACL_ERROR_INVALID_PARAM
        );
        assert_eq!(
            acl!(aclrtGetVersion(&mut a, null_mut(), &mut c)),
            ACL_ERROR_INVALID_PARAM
        );
        assert_eq!(
            acl!(aclrtGetVersion(&mut a, &mut b, null_mut())),
            ACL_ERROR_INVALID_PARAM
        );
        ok!(aclrtGetVersion(&mut a, &mut b, &mut c));
        // `aclsysGetCANNVersionImpl`: NULL output, then an unknown name
        // (the switch's default): 100000.
        // SAFETY: the struct is plain arrays of C chars: all zeroes is a
        // valid value.
        let mut v: aclCANNPackageVersion = unsafe { std::mem::zeroed() };
        assert_eq!(
            acl!(aclsysGetCANNVersion(99, null_mut())),
            ACL_ERROR_INVALID_PARAM
        );
        assert_eq!(
            acl!(aclsysGetCANNVersion(99, &mut v)),
            ACL_ERROR_INVALID_PARAM
        );
        ok!(aclsysGetCANNVersion(ACL_PKG_NAME_DRIVER, &mut v));
        // The op timeouts: any value accepted (seconds, process-wide).
        ok!(aclrtSetOpWaitTimeout(u32::MAX));
        ok!(aclrtSetOpExecuteTimeOut(u32::MAX));
        ok!(aclrtSetOpWaitTimeout(0));
        ok!(aclrtSetOpExecuteTimeOut(0));
        assert_eq!(peek_last_error(), ACL_SUCCESS, "ACL answers are not stored");
        teardown_device0();
    });
}

#[test]
fn kernel_order_the_acl_layer_checks_every_placeholder_argument_before_the_list_handle() {
    let _sim = aclrt_sim::exclusive();
    in_every_profile(|_, _| {
        init_device0();
        aclrt_sim::register_kernel("nop", |_, _, _| Ok(()));
        let img = aclrt_sim::binary_image(&["nop"]);
        let mut bin: aclrtBinHandle = null_mut();
        ok!(aclrtBinaryLoadFromData(
            img.as_ptr().cast(),
            img.len(),
            null(),
            &mut bin
        ));
        let name = std::ffi::CString::new("nop").unwrap();
        let mut f: aclrtFuncHandle = null_mut();
        ok!(aclrtBinaryGetFunction(bin, name.as_ptr(), &mut f));
        let mut list: aclrtArgsHandle = null_mut();
        ok!(aclrtKernelArgsInit(f, &mut list));
        let mut ph: aclrtParamHandle = null_mut();
        ok!(aclrtKernelArgsAppendPlaceHolder(list, &mut ph));
        // A list handle that is not the thread's live list ...
        let stale: aclrtArgsHandle = std::ptr::without_provenance_mut(list.addr() ^ 0x40);
        let mut buf: *mut c_void = null_mut();
        take_last_error();
        // ... is the runtime's to refuse (107017), after every one of the
        // ACL layer's checks (paramHandle, dataSize, bufferAddr: 100000).
        assert_eq!(
            acl!(aclrtKernelArgsGetPlaceHolderBuffer(
                stale,
                null_mut(),
                8,
                &mut buf
            )),
            ACL_ERROR_INVALID_PARAM
        );
        assert_eq!(
            acl!(aclrtKernelArgsGetPlaceHolderBuffer(stale, ph, 0, &mut buf)),
            ACL_ERROR_INVALID_PARAM
        );
        assert_eq!(
            acl!(aclrtKernelArgsGetPlaceHolderBuffer(
                stale,
                ph,
                8,
                null_mut()
            )),
            ACL_ERROR_INVALID_PARAM
        );
        assert_eq!(
            peek_last_error(),
            ACL_SUCCESS,
            "ACL refusals are not stored"
        );
        assert_eq!(
            acl!(aclrtKernelArgsGetPlaceHolderBuffer(stale, ph, 8, &mut buf)),
            ACL_ERROR_RT_INVALID_HANDLE
        );
        ok!(aclrtKernelArgsGetPlaceHolderBuffer(list, ph, 8, &mut buf));
        ok!(aclrtKernelArgsFinalize(list));
        ok!(aclrtBinaryUnLoad(bin));
        teardown_device0();
    });
}
