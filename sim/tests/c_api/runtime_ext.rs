//! The newer runtime objects through the C ABI, in both run modes:
//! notifies ordering streams, host functions served by the program's own
//! thread, virtual memory, IPC memory and events, allocators on streams,
//! exception callbacks, value writes and waits, event operation flags,
//! reductions and random numbers (`sim/FIDELITY.md`, "The runtime's newer
//! objects").

use crate::common;
use aclrt_sim::HostFuncThreads;
use common::*;

/// The thread's last error, cleared.
fn take_last_error() -> aclError {
    // SAFETY: no arguments.
    unsafe { aclrtGetLastError(ACL_RT_THREAD_LEVEL) }
}

/// A notify, created.
fn create_notify() -> aclrtNotify {
    let mut n = null_mut();
    ok!(aclrtCreateNotify(&mut n, 0));
    n
}

#[test]
fn a_notify_orders_two_streams_and_a_wait_issued_first_blocks() {
    let _sim = aclrt_sim::exclusive();
    in_both_run_modes(|mode| {
        init_device0();
        let (s1, s2) = (create_stream(), create_stream());
        let n = create_notify();
        let a = malloc(4096);
        let b = malloc(4096);
        // The wait is issued before the record: it holds s2 until s1's
        // record executes (after s1's delayed memset).
        ok!(aclrtWaitAndResetNotify(n, s2, 0));
        ok!(aclrtMemcpyAsync(
            b,
            4096,
            a,
            4096,
            ACL_MEMCPY_DEVICE_TO_DEVICE,
            s2
        ));
        stream_delay(s1, 50);
        ok!(aclrtMemsetAsync(a, 4096, 7, 4096, s1));
        ok!(aclrtRecordNotify(n, s1));
        ok!(aclrtSynchronizeStream(s2));
        assert_eq!(read_device(b, 4096), vec![7u8; 4096], "{mode:?}");
        stream_delay(s1, 0);
        // Each record releases one wait: a second wait times out (1 s) and
        // faults its stream with 107020 at the next synchronisation.
        ok!(aclrtWaitAndResetNotify(n, s2, 1));
        assert_eq!(acl!(aclrtSynchronizeStream(s2)), ACL_ERROR_RT_TASK_TIMEOUT);
        let _ = take_last_error();
        // Ids, checks and codes.
        let m = create_notify();
        let (mut i, mut j) = (0u32, 0u32);
        ok!(aclrtGetNotifyId(n, &mut i));
        ok!(aclrtGetNotifyId(m, &mut j));
        assert_ne!(i, j);
        assert_eq!(
            acl!(aclrtCreateNotify(null_mut(), 0)),
            ACL_ERROR_INVALID_PARAM
        );
        assert_eq!(
            take_last_error(),
            ACL_SUCCESS,
            "the ACL layer's refusal is not stored"
        );
        let mut x = null_mut();
        assert_eq!(
            acl!(aclrtCreateNotify(&mut x, 2)),
            ACL_ERROR_RT_PARAM_INVALID
        );
        assert_eq!(take_last_error(), ACL_ERROR_RT_PARAM_INVALID);
        assert_eq!(
            acl!(aclrtRecordNotify(null_mut(), s1)),
            ACL_ERROR_INVALID_PARAM
        );
        ok!(aclrtDestroyNotify(m));
        assert_eq!(acl!(aclrtRecordNotify(m, s1)), ACL_ERROR_RT_INVALID_HANDLE);
        assert_eq!(take_last_error(), ACL_ERROR_RT_INVALID_HANDLE);
        // Export and import within the process: the import shares the flag.
        let mut key = [0 as std::ffi::c_char; 64];
        ok!(aclrtNotifyGetExportKey(n, key.as_mut_ptr(), key.len(), 0));
        let mut imported = null_mut();
        ok!(aclrtNotifyImportByKey(&mut imported, key.as_ptr(), 0));
        ok!(aclrtRecordNotify(n, s1));
        ok!(aclrtWaitAndResetNotify(imported, s2, 5));
        ok!(aclrtSynchronizeStream(s2));
        // A key that no live process exported: unknown (a live export of
        // another process is imported in `ipc_processes`).
        let foreign =
            std::ffi::CString::new(format!("aclsim_notify_{}_7", std::process::id() + 1)).unwrap();
        let mut other = null_mut();
        assert_eq!(
            acl!(aclrtNotifyImportByKey(&mut other, foreign.as_ptr(), 0)),
            ACL_ERROR_RT_PARAM_INVALID
        );
        let mut small = [0 as std::ffi::c_char; 4];
        assert_eq!(
            acl!(aclrtNotifyGetExportKey(
                n,
                small.as_mut_ptr(),
                small.len(),
                0
            )),
            ACL_ERROR_RT_PARAM_INVALID
        );
        let mut pid = [1i32];
        ok!(aclrtNotifySetImportPid(n, pid.as_mut_ptr(), 1));
        assert_eq!(
            acl!(aclrtNotifySetImportPid(n, pid.as_mut_ptr(), 0)),
            ACL_ERROR_RT_PARAM_INVALID
        );
        let _ = take_last_error();
        ok!(aclrtDestroyNotify(imported));
        ok!(aclrtDestroyNotify(n));
        free(a);
        free(b);
        destroy_stream(s1);
        destroy_stream(s2);
        teardown_device0();
        let audit = aclrt_sim::audit();
        assert!(audit.leaks.is_empty(), "{mode:?}: {:?}", audit.leaks);
        aclrt_sim::reset();
    });
}

/// Host function: records the OS id of the thread it runs on into the
/// `AtomicU64` behind `arg`.
unsafe extern "C" fn note_thread(arg: *mut c_void) {
    // SAFETY: the test passes an `AtomicU64` that outlives the stream's
    // synchronisation.
    let slot = unsafe { &*arg.cast::<std::sync::atomic::AtomicU64>() };
    slot.store(aclrt_sim::thread_report_id(), Ordering::SeqCst);
}

#[test]
fn host_functions_of_a_subscribed_stream_run_on_the_programs_thread() {
    let _sim = aclrt_sim::exclusive();
    in_both_run_modes(|mode| {
        // Served only when the compact runtime's service is asked for.
        configure(|c| {
            c.run_mode = mode;
            c.host_func_threads = HostFuncThreads::Compact;
        });
        init_device0();
        let s = create_stream();
        let ran_on = std::sync::atomic::AtomicU64::new(0);
        let (tx, rx) = std::sync::mpsc::channel();
        let (go_tx, go_rx) = std::sync::mpsc::channel::<()>();
        let ctx = current_context().addr();
        let stop = AtomicBool::new(false);
        std::thread::scope(|scope| {
            let stop = &stop;
            let server = scope.spawn(move || {
                ok!(aclrtSetCurrentContext(
                    std::ptr::with_exposed_provenance_mut(ctx)
                ));
                tx.send(aclrt_sim::thread_report_id()).unwrap();
                // Served only once subscribed (before, 107012).
                go_rx.recv().unwrap();
                let mut served = 0;
                while !stop.load(Ordering::SeqCst) {
                    match acl!(aclrtProcessHostFunc(100)) {
                        ACL_SUCCESS => served += 1,
                        ACL_ERROR_RT_REPORT_TIMEOUT => {}
                        // Unsubscribed (possibly while waiting): done.
                        ACL_ERROR_RT_THREAD_SUBSCRIBE => break,
                        other => panic!("aclrtProcessHostFunc: {other}"),
                    }
                }
                let _ = take_last_error();
                served
            });
            let tid = rx.recv().unwrap();
            ok!(aclrtSubscribeHostFunc(tid, s));
            go_tx.send(()).unwrap();
            ok!(aclrtLaunchHostFunc(
                s,
                Some(note_thread),
                std::ptr::from_ref(&ran_on).cast_mut().cast()
            ));
            ok!(aclrtSynchronizeStream(s));
            assert_eq!(
                ran_on.load(Ordering::SeqCst),
                tid,
                "{mode:?}: served by the program's thread"
            );
            ok!(aclrtUnSubscribeHostFunc(tid, s));
            stop.store(true, Ordering::SeqCst);
            assert_eq!(server.join().unwrap(), 1);
        });
        // Unsubscribed, host functions run on the runtime's own thread again.
        ran_on.store(0, Ordering::SeqCst);
        ok!(aclrtLaunchHostFunc(
            s,
            Some(note_thread),
            std::ptr::from_ref(&ran_on).cast_mut().cast()
        ));
        ok!(aclrtSynchronizeStream(s));
        assert_ne!(ran_on.load(Ordering::SeqCst), 0);
        // The runtime's checks: a timeout of 0, a thread serving nothing.
        assert_eq!(acl!(aclrtProcessHostFunc(0)), ACL_ERROR_RT_PARAM_INVALID);
        assert_eq!(take_last_error(), ACL_ERROR_RT_PARAM_INVALID);
        assert_eq!(
            acl!(aclrtProcessHostFunc(10)),
            ACL_ERROR_RT_THREAD_SUBSCRIBE
        );
        let _ = take_last_error();
        destroy_stream(s);
        teardown_device0();
        let audit = aclrt_sim::audit();
        assert!(audit.leaks.is_empty());
        // Served, and reported: the modelled chips do not offer the
        // host-function threads (the documentation lists IPV350 only).
        let reported: Vec<_> = audit
            .violations
            .iter()
            .filter(|v| v.kind == ViolationKind::Unsupported)
            .collect();
        assert_eq!(reported.len(), 1, "{mode:?}: {reported:?}");
        assert!(!reported[0].refused && reported[0].function == "aclrtSubscribeHostFunc");
        aclrt_sim::reset();
    });
    // With refusals asked for, the chips' own answer even where the compact
    // runtime's service is.
    configure(|c| {
        c.strictness = aclrt_sim::Strictness::Refuse;
        c.host_func_threads = HostFuncThreads::Compact;
    });
    init_device0();
    let s = create_stream();
    assert_eq!(
        acl!(aclrtSubscribeHostFunc(aclrt_sim::thread_report_id(), s)),
        ACL_ERROR_RT_FEATURE_NOT_SUPPORT
    );
    assert_eq!(take_last_error(), ACL_ERROR_RT_FEATURE_NOT_SUPPORT);
    assert_eq!(
        acl!(aclrtProcessHostFunc(10)),
        ACL_ERROR_RT_FEATURE_NOT_SUPPORT
    );
    let _ = take_last_error();
    destroy_stream(s);
    teardown_device0();
    aclrt_sim::reset();
}

/// A device physical-memory property.
fn device_prop() -> aclrtPhysicalMemProp {
    aclrtPhysicalMemProp {
        handleType: ACL_MEM_HANDLE_TYPE_NONE,
        allocationType: ACL_MEM_ALLOCATION_TYPE_PINNED,
        memAttr: ACL_HBM_MEM_HUGE,
        location: aclrtMemLocation {
            id: 0,
            type_: ACL_MEM_LOCATION_TYPE_DEVICE,
        },
        reserve: 0,
    }
}

#[test]
fn mapped_physical_memory_is_device_memory_and_two_mappings_share_it() {
    let _sim = aclrt_sim::exclusive();
    in_both_run_modes(|mode| {
        init_device0();
        let mut prop = device_prop();
        let mut g = 0usize;
        ok!(aclrtMemGetAllocationGranularity(
            &mut prop,
            ACL_RT_MEM_ALLOC_GRANULARITY_MINIMUM,
            &mut g
        ));
        assert_eq!(g, 2 << 20);
        let mut va = null_mut();
        ok!(aclrtReserveMemAddress(&mut va, 2 * g, 0, null_mut(), 0));
        let mut phys = null_mut();
        ok!(aclrtMallocPhysical(&mut phys, g, &prop, 0));
        // Granularity checked: half a granule is refused.
        let mut bad = null_mut();
        assert_eq!(
            acl!(aclrtMallocPhysical(&mut bad, g / 2, &prop, 0)),
            ACL_ERROR_RT_PARAM_INVALID
        );
        let _ = take_last_error();
        ok!(aclrtMapMem(va, g, 0, phys, 0));
        let second = va.cast::<u8>().wrapping_add(g).cast::<c_void>();
        ok!(aclrtMapMem(second, g, 0, phys, 0));
        let data = pattern(4096, 3);
        h2d(va, &data);
        assert_eq!(
            read_device(second, 4096),
            data,
            "{mode:?}: one physical allocation"
        );
        ok!(aclrtMemsetAsync(second, 16, 9, 16, null_mut()));
        ok!(aclrtSynchronizeStream(null_mut()));
        assert_eq!(read_device(va, 16), vec![9u8; 16]);
        // Access: read-write for the device unless set.
        let mut loc = aclrtMemLocation { id: 9, type_: 9 };
        let mut flags = 0u64;
        ok!(aclrtMemGetAccess(va, &mut loc, &mut flags));
        assert_eq!(
            (loc.type_, loc.id, flags),
            (ACL_MEM_LOCATION_TYPE_DEVICE, 0, 3)
        );
        let mut desc = aclrtMemAccessDesc {
            flags: ACL_RT_MEM_ACCESS_FLAGS_READ,
            location: aclrtMemLocation {
                id: 0,
                type_: ACL_MEM_LOCATION_TYPE_DEVICE,
            },
            rsv: [0; 12],
        };
        ok!(aclrtMemSetAccess(va, g, &mut desc, 1));
        ok!(aclrtMemGetAccess(va, &mut loc, &mut flags));
        assert_eq!(flags, 1);
        // Unmapping before release is enforced.
        assert_eq!(acl!(aclrtReleaseMemAddress(va)), ACL_ERROR_RT_PARAM_INVALID);
        assert_eq!(acl!(aclrtFreePhysical(phys)), ACL_ERROR_RT_PARAM_INVALID);
        let _ = take_last_error();
        ok!(aclrtUnmapMem(second));
        // The unmapped half is no memory any more.
        let mut sink = [0u8; 4];
        assert_eq!(
            acl!(aclrtMemcpy(
                sink.as_mut_ptr().cast(),
                4,
                second,
                4,
                ACL_MEMCPY_DEVICE_TO_HOST
            )),
            ACL_ERROR_RT_PARAM_INVALID
        );
        ok!(aclrtUnmapMem(va));
        // The bytes stay with the physical allocation across mappings.
        ok!(aclrtMapMem(second, g, 0, phys, 0));
        assert_eq!(read_device(second, 16), vec![9u8; 16]);
        ok!(aclrtUnmapMem(second));
        ok!(aclrtReleaseMemAddress(va));
        ok!(aclrtFreePhysical(phys));
        let _ = take_last_error();
        let kinds = violation_kinds();
        assert_eq!(
            kinds,
            [
                ViolationKind::ReleaseWhileInUse,
                ViolationKind::ReleaseWhileInUse,
                ViolationKind::UseAfterFree
            ],
            "{mode:?}"
        );
        teardown_device0();
        assert!(aclrt_sim::audit().leaks.is_empty());
        aclrt_sim::reset();
    });
}

#[test]
fn a_shareable_handle_imports_the_same_bytes_in_the_process() {
    let _sim = aclrt_sim::exclusive();
    in_both_run_modes(|_| {
        init_device0();
        let prop = device_prop();
        let g = 2usize << 20;
        let mut phys = null_mut();
        ok!(aclrtMallocPhysical(&mut phys, g, &prop, 0));
        let mut s = 0u64;
        ok!(aclrtMemExportToShareableHandle(
            phys,
            ACL_MEM_HANDLE_TYPE_NONE,
            0,
            &mut s
        ));
        let mut pid = [std::process::id() as i32];
        ok!(aclrtMemSetPidToShareableHandle(s, pid.as_mut_ptr(), 1));
        let mut imported = null_mut();
        ok!(aclrtMemImportFromShareableHandle(s, 0, &mut imported));
        let (mut va1, mut va2) = (null_mut(), null_mut());
        ok!(aclrtReserveMemAddress(&mut va1, g, 0, null_mut(), 0));
        ok!(aclrtReserveMemAddress(&mut va2, g, 0, null_mut(), 0));
        ok!(aclrtMapMem(va1, g, 0, phys, 0));
        ok!(aclrtMapMem(va2, g, 0, imported, 0));
        h2d(va1, &[5u8; 64]);
        assert_eq!(read_device(va2, 64), vec![5u8; 64]);
        ok!(aclrtUnmapMem(va1));
        ok!(aclrtUnmapMem(va2));
        ok!(aclrtReleaseMemAddress(va1));
        ok!(aclrtReleaseMemAddress(va2));
        ok!(aclrtFreePhysical(imported));
        ok!(aclrtFreePhysical(phys));
        teardown_device0();
        assert_clean();
        aclrt_sim::reset();
    });
}

#[test]
fn ipc_memory_imported_by_key_shares_the_bytes() {
    let _sim = aclrt_sim::exclusive();
    in_both_run_modes(|mode| {
        init_device0();
        let p = malloc(8192);
        h2d(p, &pattern(8192, 1));
        let mut key = [0 as std::ffi::c_char; 128];
        ok!(aclrtIpcMemGetExportKey(
            p,
            8192,
            key.as_mut_ptr(),
            key.len(),
            0
        ));
        // The exporter's own bytes survived the move to the shared file.
        assert_eq!(read_device(p, 8192), pattern(8192, 1), "{mode:?}");
        let mut pid = [std::process::id() as i32];
        ok!(aclrtIpcMemSetImportPid(key.as_ptr(), pid.as_mut_ptr(), 1));
        let mut q = null_mut();
        ok!(aclrtIpcMemImportByKey(&mut q, key.as_ptr(), 0));
        assert_ne!(q, p);
        assert_eq!(read_device(q, 8192), pattern(8192, 1));
        h2d(q, &[0xAB; 100]);
        assert_eq!(read_device(p, 100), vec![0xAB; 100]);
        // aclrtFree cannot release an import.
        assert_eq!(acl!(aclrtFree(q)), ACL_ERROR_RT_PARAM_INVALID);
        let _ = take_last_error();
        ok!(aclrtIpcMemClose(key.as_ptr()));
        ok!(aclrtIpcMemClose(key.as_ptr()));
        assert_eq!(
            acl!(aclrtIpcMemClose(key.as_ptr())),
            ACL_ERROR_RT_PARAM_INVALID
        );
        let _ = take_last_error();
        free(p);
        teardown_device0();
        expect_violations(&[ViolationKind::ForeignFree]);
    });
}

#[test]
fn ipc_event_handles_open_the_same_event_on_the_910b_and_not_on_the_310p() {
    let _sim = aclrt_sim::exclusive();
    in_both_run_modes(|_| {
        init_device0();
        let ev = create_event_ex(ACL_EVENT_IPC);
        let mut handle = aclrtIpcEventHandle { reserved: [0; 64] };
        ok!(aclrtIpcGetEventHandle(ev, &mut handle));
        let mut opened = null_mut();
        ok!(aclrtIpcOpenEventHandle(handle, &mut opened));
        let s = create_stream();
        ok!(aclrtRecordEvent(ev, s));
        ok!(aclrtStreamWaitEvent(null_mut(), opened));
        ok!(aclrtSynchronizeDevice());
        let plain = create_event();
        assert_eq!(
            acl!(aclrtIpcGetEventHandle(plain, &mut handle)),
            ACL_ERROR_RT_PARAM_INVALID
        );
        let _ = take_last_error();
        destroy_event(plain);
        destroy_event(opened);
        destroy_event(ev);
        destroy_stream(s);
        teardown_device0();
        assert_clean();
        aclrt_sim::reset();
    });
    configure(|c| c.soc = aclrt_sim::Soc::Ascend310P);
    init_device0();
    let mut handle = aclrtIpcEventHandle { reserved: [0; 64] };
    let ev = create_event();
    assert_eq!(
        acl!(aclrtIpcGetEventHandle(ev, &mut handle)),
        ACL_ERROR_RT_FEATURE_NOT_SUPPORT
    );
    assert_eq!(take_last_error(), ACL_ERROR_RT_FEATURE_NOT_SUPPORT);
    destroy_event(ev);
    teardown_device0();
}

unsafe extern "C" fn my_alloc(allocator: aclrtAllocator, size: usize) -> *mut c_void {
    // SAFETY: the test's allocator object is an `AtomicUsize` counter.
    let count = unsafe { &*allocator.cast::<AtomicUsize>() };
    count.fetch_add(1, Ordering::SeqCst);
    let mut p = null_mut();
    ok!(aclrtMalloc(&mut p, size, ACL_MEM_MALLOC_HUGE_FIRST));
    p
}
unsafe extern "C" fn my_free(_allocator: aclrtAllocator, block: aclrtAllocatorBlock) {
    ok!(aclrtFree(block));
}
unsafe extern "C" fn my_addr(block: aclrtAllocatorBlock) -> *mut c_void {
    block
}

#[test]
fn an_allocator_registered_on_a_stream_is_handed_back_and_serves_it() {
    let _sim = aclrt_sim::exclusive();
    in_both_run_modes(|_| {
        init_device0();
        let s = create_stream();
        let count = AtomicUsize::new(0);
        // SAFETY: no arguments.
        let desc = unsafe { aclrtAllocatorCreateDesc() };
        assert!(!desc.is_null());
        let obj: aclrtAllocator = std::ptr::from_ref(&count).cast_mut().cast();
        assert_eq!(
            acl!(aclrtAllocatorRegister(s, desc)),
            ACL_ERROR_INVALID_PARAM,
            "incomplete"
        );
        ok!(aclrtAllocatorSetObjToDesc(desc, obj));
        ok!(aclrtAllocatorSetAllocFuncToDesc(desc, Some(my_alloc)));
        ok!(aclrtAllocatorSetFreeFuncToDesc(desc, Some(my_free)));
        ok!(aclrtAllocatorSetGetAddrFromBlockFuncToDesc(
            desc,
            Some(my_addr)
        ));
        assert_eq!(
            acl!(aclrtAllocatorRegister(null_mut(), desc)),
            ACL_ERROR_INVALID_PARAM
        );
        ok!(aclrtAllocatorRegister(s, desc));
        let (mut d, mut o) = (null_mut(), null_mut());
        let (mut af, mut ff, mut aa, mut ga) = (None, None, None, None);
        ok!(aclrtAllocatorGetByStream(
            s, &mut d, &mut o, &mut af, &mut ff, &mut aa, &mut ga
        ));
        assert_eq!((d, o), (desc, obj));
        assert!(aa.is_none());
        // SAFETY: the functions registered above, with their object.
        let block = unsafe { af.unwrap()(o, 256) };
        // SAFETY: as above.
        let addr = unsafe { ga.unwrap()(block) };
        ok!(aclrtMemsetAsync(addr, 256, 1, 256, s));
        ok!(aclrtSynchronizeStream(s));
        assert_eq!(read_device(addr, 256), vec![1u8; 256]);
        // SAFETY: as above.
        unsafe { ff.unwrap()(o, block) };
        assert_eq!(count.load(Ordering::SeqCst), 1);
        ok!(aclrtAllocatorUnregister(s));
        assert_eq!(
            acl!(aclrtAllocatorGetByStream(
                s,
                &mut d,
                null_mut(),
                null_mut(),
                null_mut(),
                null_mut(),
                null_mut()
            )),
            ACL_ERROR_INVALID_PARAM
        );
        assert_eq!(take_last_error(), ACL_SUCCESS);
        ok!(aclrtAllocatorDestroyDesc(desc));
        assert_eq!(
            acl!(aclrtAllocatorSetObjToDesc(desc, obj)),
            ACL_ERROR_INVALID_PARAM
        );
        destroy_stream(s);
        teardown_device0();
        expect_violations(&[ViolationKind::UseAfterFree]);
    });
}

static SEEN: std::sync::Mutex<Vec<(u32, u32, u32, u32)>> = std::sync::Mutex::new(Vec::new());

unsafe extern "C" fn on_exception(info: *mut aclrtExceptionInfo) {
    // SAFETY: the runtime passes a live info for the duration of the call.
    let seen = unsafe {
        (
            aclrtGetDeviceIdFromExceptionInfo(info),
            aclrtGetStreamIdFromExceptionInfo(info),
            aclrtGetTaskIdFromExceptionInfo(info),
            aclrtGetErrorCodeFromExceptionInfo(info),
        )
    };
    SEEN.lock().unwrap().push(seen);
}

#[test]
fn a_failed_task_calls_the_exception_callback_with_its_facts() {
    let _sim = aclrt_sim::exclusive();
    in_both_run_modes(|mode| {
        SEEN.lock().unwrap().clear();
        init_device0();
        ok!(aclrtSetExceptionInfoCallback(Some(on_exception)));
        let s = create_stream();
        let p = malloc(64);
        aclrt_sim::inject_stream_task_fault(s, 2, ACL_ERROR_RT_AICORE_EXCEPTION);
        ok!(aclrtMemsetAsync(p, 64, 0, 64, s));
        ok!(aclrtMemsetAsync(p, 64, 1, 64, s));
        assert_eq!(
            acl!(aclrtSynchronizeStream(s)),
            ACL_ERROR_RT_AICORE_EXCEPTION
        );
        let _ = take_last_error();
        let seen = SEEN.lock().unwrap().clone();
        assert_eq!(seen.len(), 1, "{mode:?}");
        let (dev, _stream, task, code) = seen[0];
        assert_eq!(
            (dev, task, code),
            (0, 2, ACL_ERROR_RT_AICORE_EXCEPTION as u32)
        );
        // SAFETY: NULL info is answered, not read.
        assert_eq!(unsafe { aclrtGetTaskIdFromExceptionInfo(null()) }, u32::MAX);
        let (mut args, mut len) = (null_mut(), 0u32);
        assert_eq!(
            acl!(aclrtGetArgsFromExceptionInfo(null(), &mut args, &mut len)),
            u32::MAX as aclError
        );
        assert_eq!(
            take_last_error(),
            ACL_SUCCESS,
            "the ACL layer's answer is not stored"
        );
        ok!(aclrtSetExceptionInfoCallback(None));
        free(p);
        destroy_stream(s);
        teardown_device0();
        aclrt_sim::reset();
    });
}

#[test]
fn a_value_wait_holds_its_stream_until_the_write_and_the_310p_has_none() {
    let _sim = aclrt_sim::exclusive();
    in_both_run_modes(|mode| {
        init_device0();
        let (s1, s2) = (create_stream(), create_stream());
        let flag = malloc(8);
        let out = malloc(64);
        ok!(aclrtMemset(flag, 8, 0, 8));
        ok!(aclrtValueWait(flag, 5, 1, s2)); // EQ
        ok!(aclrtMemsetAsync(out, 64, 3, 64, s2));
        stream_delay(s1, 30);
        ok!(aclrtValueWrite(flag, 5, 0, s1));
        ok!(aclrtSynchronizeStream(s2));
        assert_eq!(read_device(out, 64), vec![3u8; 64], "{mode:?}");
        assert_eq!(read_device(flag, 8), 5u64.to_le_bytes());
        assert_eq!(
            acl!(aclrtValueWrite(flag, 1, 1, s1)),
            ACL_ERROR_RT_PARAM_INVALID
        );
        assert_eq!(
            acl!(aclrtValueWait(flag, 1, 4, s1)),
            ACL_ERROR_RT_PARAM_INVALID
        );
        let mut host = 0u64;
        assert_eq!(
            acl!(aclrtValueWrite(
                std::ptr::from_mut(&mut host).cast(),
                1,
                0,
                s1
            )),
            ACL_ERROR_RT_PARAM_INVALID
        );
        let _ = take_last_error();
        stream_delay(s1, 0);
        free(flag);
        free(out);
        destroy_stream(s1);
        destroy_stream(s2);
        teardown_device0();
        assert_clean();
        aclrt_sim::reset();
    });
    configure(|c| c.soc = aclrt_sim::Soc::Ascend310P);
    init_device0();
    let flag = malloc(8);
    assert_eq!(
        acl!(aclrtValueWrite(flag, 1, 0, null_mut())),
        ACL_ERROR_RT_FEATURE_NOT_SUPPORT
    );
    free(flag);
    teardown_device0();
}

#[test]
fn event_operation_flags_default_and_external() {
    let _sim = aclrt_sim::exclusive();
    in_both_run_modes(|_| {
        init_device0();
        let s = create_stream();
        let ev = create_event();
        ok!(aclrtRecordEventWithFlag(ev, s, ACL_EVENT_RECORD_DEFAULT));
        ok!(aclrtStreamWaitEventWithFlag(
            null_mut(),
            ev,
            0,
            ACL_EVENT_WAIT_DEFAULT
        ));
        ok!(aclrtSynchronizeDevice());
        assert_eq!(
            acl!(aclrtRecordEventWithFlag(ev, s, 2)),
            ACL_ERROR_INVALID_PARAM
        );
        assert_eq!(
            acl!(aclrtStreamWaitEventWithFlag(
                s,
                ev,
                5,
                ACL_EVENT_WAIT_EXTERNAL
            )),
            ACL_ERROR_INVALID_PARAM
        );
        // EXTERNAL needs an ExWithFlag(SYNC) event, then a capturing stream.
        assert_eq!(
            acl!(aclrtRecordEventWithFlag(ev, s, ACL_EVENT_RECORD_EXTERNAL)),
            ACL_ERROR_RT_FEATURE_NOT_SUPPORT
        );
        assert_eq!(take_last_error(), ACL_SUCCESS, "207000 is not stored here");
        let ex = create_event_ex(ACL_EVENT_SYNC);
        assert_eq!(
            acl!(aclrtRecordEventWithFlag(ex, s, ACL_EVENT_RECORD_EXTERNAL)),
            ACL_ERROR_RT_STREAM_NOT_CAPTURED
        );
        // The event keeps its first record flag.
        assert_eq!(acl!(aclrtRecordEvent(ex, s)), ACL_ERROR_RT_PARAM_INVALID);
        assert_eq!(take_last_error(), ACL_ERROR_RT_PARAM_INVALID);
        destroy_event(ex);
        destroy_event(ev);
        destroy_stream(s);
        teardown_device0();
        assert_clean();
        aclrt_sim::reset();
    });
}

#[test]
fn reductions_combine_into_the_destination_and_random_numbers_fill_it() {
    let _sim = aclrt_sim::exclusive();
    in_both_run_modes(|mode| {
        init_device0();
        let a = malloc(16);
        let b = malloc(16);
        let f = |v: [f32; 4]| v.iter().flat_map(|x| x.to_le_bytes()).collect::<Vec<u8>>();
        h2d(a, &f([1.0, 2.0, 3.0, 4.0]));
        h2d(b, &f([10.0, -20.0, 30.0, -40.0]));
        ok!(aclrtReduceAsync(
            a,
            b,
            16,
            ACL_RT_MEMCPY_SDMA_AUTOMATIC_SUM,
            ACL_FLOAT,
            null_mut(),
            null_mut()
        ));
        ok!(aclrtReduceAsync(
            a,
            b,
            16,
            ACL_RT_MEMCPY_SDMA_AUTOMATIC_MAX,
            ACL_FLOAT,
            null_mut(),
            null_mut()
        ));
        ok!(aclrtSynchronizeStream(null_mut()));
        assert_eq!(
            read_device(a, 16),
            f([11.0, -18.0, 33.0, -36.0]),
            "{mode:?}"
        );
        assert_eq!(
            acl!(aclrtReduceAsync(
                a,
                b,
                16,
                9,
                ACL_FLOAT,
                null_mut(),
                null_mut()
            )),
            ACL_ERROR_RT_PARAM_INVALID
        );
        assert_eq!(
            acl!(aclrtReduceAsync(
                a,
                b,
                16,
                10,
                ACL_STRING,
                null_mut(),
                null_mut()
            )),
            ACL_ERROR_INVALID_PARAM
        );
        let _ = take_last_error();
        // 1000 uniform floats in [2, 3).
        let out = malloc(4000);
        let para = |v: [u8; 8], size: u8| aclrtRandomParaInfo {
            isAddr: 0,
            valueOrAddr: v,
            size,
            rsv: [0; 6],
        };
        let mut lo = [0u8; 8];
        lo[..4].copy_from_slice(&2.0f32.to_le_bytes());
        let mut hi = [0u8; 8];
        hi[..4].copy_from_slice(&3.0f32.to_le_bytes());
        let task = aclrtRandomNumTaskInfo {
            dataType: ACL_FLOAT,
            randomNumFuncParaInfo: aclrtRandomNumFuncParaInfo {
                funcType: ACL_RT_RANDOM_NUM_FUNC_TYPE_UNIFORM_DIS,
                paramInfo: aclrtRandomNumFuncParaInfo__bindgen_ty_1 {
                    uniformDisInfo: aclrtUniformDisInfo {
                        min: para(lo, 4),
                        max: para(hi, 4),
                    },
                },
            },
            randomParaAddr: null_mut(),
            randomResultAddr: out,
            randomCounterAddr: null_mut(),
            randomSeed: para(42u64.to_le_bytes(), 8),
            randomNum: para(1000u64.to_le_bytes(), 8),
            rsv: [0; 8],
        };
        ok!(aclrtRandomNumAsync(&task, null_mut(), null_mut()));
        ok!(aclrtSynchronizeStream(null_mut()));
        let v: Vec<f32> = read_device(out, 4000)
            .chunks_exact(4)
            .map(|c| f32::from_le_bytes([c[0], c[1], c[2], c[3]]))
            .collect();
        assert!(v.iter().all(|x| (2.0..3.0).contains(x)), "{mode:?}");
        let mean = v.iter().sum::<f32>() / 1000.0;
        assert!((2.4..2.6).contains(&mean), "{mean}");
        free(a);
        free(b);
        free(out);
        teardown_device0();
        assert_clean();
        aclrt_sim::reset();
    });
}

#[test]
fn the_functions_of_the_group_not_modelled_answer_207000_stored_and_reported() {
    let _sim = aclrt_sim::exclusive();
    in_both_run_modes(|_| {
        init_device0();
        let mut x = 0u8;
        let p: *mut c_void = std::ptr::from_mut(&mut x).cast();
        assert_eq!(
            acl!(aclrtMemP2PMap(p, 1, 1, 0)),
            ACL_ERROR_RT_FEATURE_NOT_SUPPORT
        );
        assert_eq!(take_last_error(), ACL_ERROR_RT_FEATURE_NOT_SUPPORT);
        assert_eq!(
            acl!(aclrtNotifyBatchReset(null_mut(), 1)),
            ACL_ERROR_INVALID_PARAM
        );
        let mut n = create_notify();
        assert_eq!(
            acl!(aclrtNotifyBatchReset(&mut n, 1)),
            ACL_ERROR_RT_FEATURE_NOT_SUPPORT
        );
        let _ = take_last_error();
        ok!(aclrtDestroyNotify(n));
        teardown_device0();
        expect_violations(&[ViolationKind::Unsupported, ViolationKind::Unsupported]);
    });
}

#[test]
fn notifies_reservations_and_physical_memory_alive_at_finalize_are_leaks() {
    let _sim = aclrt_sim::exclusive();
    init_device0();
    let _n = create_notify();
    let mut va = null_mut();
    ok!(aclrtReserveMemAddress(&mut va, 2 << 20, 0, null_mut(), 0));
    let mut phys = null_mut();
    ok!(aclrtMallocPhysical(&mut phys, 2 << 20, &device_prop(), 0));
    assert_eq!(live(ResourceKind::Notify, 0), 1);
    assert_eq!(live(ResourceKind::Reservation, 0), 1);
    assert_eq!(live(ResourceKind::PhysicalMemory, 0), 1);
    teardown_device0();
    let audit = aclrt_sim::audit();
    let mut kinds: Vec<ResourceKind> = audit.leaks.iter().map(|l| l.kind).collect();
    kinds.sort();
    assert_eq!(
        kinds,
        [
            ResourceKind::Notify,
            ResourceKind::Reservation,
            ResourceKind::PhysicalMemory
        ]
    );
    assert!(
        audit
            .leaks
            .iter()
            .any(|l| l.address == va.addr() && l.bytes == 2 << 20)
    );
    aclrt_sim::reset();
}

/// By default the simulator answers as the modelled chips do: the
/// host-function threads are documented for IPV350 only, and the Atlas A2
/// and inference series answer 207000 (stored) to each of the three calls,
/// reported under `UNSUPPORTED`; host functions keep running on the
/// runtime's own thread.
#[test]
fn host_func_threads_answer_not_supported_by_default() {
    let _sim = aclrt_sim::exclusive();
    for soc in [aclrt_sim::Soc::Ascend910B, aclrt_sim::Soc::Ascend310P] {
        in_both_run_modes(|mode| {
            configure(|c| {
                c.run_mode = mode;
                c.soc = soc;
            });
            assert_eq!(aclrt_sim::config().host_func_threads, HostFuncThreads::Chip);
            init_device0();
            let s = create_stream();
            let tid = aclrt_sim::thread_report_id();
            assert_eq!(
                acl!(aclrtSubscribeHostFunc(tid, s)),
                ACL_ERROR_RT_FEATURE_NOT_SUPPORT,
                "{soc:?} {mode:?}"
            );
            assert_eq!(take_last_error(), ACL_ERROR_RT_FEATURE_NOT_SUPPORT);
            assert_eq!(
                acl!(aclrtProcessHostFunc(10)),
                ACL_ERROR_RT_FEATURE_NOT_SUPPORT
            );
            assert_eq!(take_last_error(), ACL_ERROR_RT_FEATURE_NOT_SUPPORT);
            assert_eq!(
                acl!(aclrtUnSubscribeHostFunc(tid, s)),
                ACL_ERROR_RT_FEATURE_NOT_SUPPORT
            );
            assert_eq!(take_last_error(), ACL_ERROR_RT_FEATURE_NOT_SUPPORT);
            // Not subscribed: the stream's host functions still run (on the
            // runtime's thread, not this one).
            let ran_on = std::sync::atomic::AtomicU64::new(0);
            ok!(aclrtLaunchHostFunc(
                s,
                Some(note_thread),
                std::ptr::from_ref(&ran_on).cast_mut().cast()
            ));
            ok!(aclrtSynchronizeStream(s));
            let ran = ran_on.load(Ordering::SeqCst);
            assert!(ran != 0 && ran != tid, "{soc:?} {mode:?}: {ran}");
            destroy_stream(s);
            teardown_device0();
            let audit = aclrt_sim::audit();
            assert!(audit.leaks.is_empty());
            let reported: Vec<_> = audit
                .violations
                .iter()
                .filter(|v| v.kind == ViolationKind::Unsupported)
                .collect();
            assert_eq!(reported.len(), 3, "{soc:?} {mode:?}: {reported:?}");
            assert!(reported.iter().all(|v| v.refused && v.code == 207000));
            assert_eq!(audit.violations.len(), 3, "{:?}", audit.violations);
            aclrt_sim::reset();
        });
    }
}

// ---------------------------------------------------------------- labels

/// A label, created.
fn create_label() -> aclrtLabel {
    let mut l = null_mut();
    ok!(aclrtCreateLabel(&mut l));
    assert!(!l.is_null());
    l
}

#[test]
fn labels_and_label_lists_are_made_and_their_tasks_need_a_model_stream() {
    let _sim = aclrt_sim::exclusive();
    in_both_run_modes(|mode| {
        init_device0();
        let s = create_stream();
        let (l1, l2) = (create_label(), create_label());
        assert_ne!(l1, l2);
        // The ACL layer's NULL checks: 100000, never the last error.
        assert_eq!(acl!(aclrtCreateLabel(null_mut())), ACL_ERROR_INVALID_PARAM);
        assert_eq!(acl!(aclrtSetLabel(null_mut(), s)), ACL_ERROR_INVALID_PARAM);
        assert_eq!(
            acl!(aclrtSetLabel(l1, null_mut())),
            ACL_ERROR_INVALID_PARAM,
            "{mode:?}: the default stream cannot be named"
        );
        assert_eq!(acl!(aclrtDestroyLabel(null_mut())), ACL_ERROR_INVALID_PARAM);
        assert_eq!(take_last_error(), ACL_SUCCESS);
        // A label task on a stream bound to no model: 107005, stored.
        assert_eq!(acl!(aclrtSetLabel(l1, s)), ACL_ERROR_RT_STREAM_MODEL);
        assert_eq!(take_last_error(), ACL_ERROR_RT_STREAM_MODEL);
        // A list: device memory of 20 bytes per label, every byte 0xFF.
        let mut labels = [l1, l2];
        let mut list: aclrtLabelList = null_mut();
        ok!(aclrtCreateLabelList(labels.as_mut_ptr(), 2, &mut list));
        assert!(!list.is_null());
        assert_eq!(
            read_device(list.cast_const(), 40),
            vec![0xFFu8; 40],
            "{mode:?}"
        );
        // A label joins one list: 507000, and the new list is not kept.
        let mut again: aclrtLabelList = null_mut();
        let l3 = create_label();
        let mut twice = [l3, l1];
        assert_eq!(
            acl!(aclrtCreateLabelList(twice.as_mut_ptr(), 2, &mut again)),
            ACL_ERROR_RT_INTERNAL_ERROR
        );
        assert!(again.is_null());
        assert_eq!(take_last_error(), ACL_ERROR_RT_INTERNAL_ERROR);
        // The labels before the failing one keep their slot (the runtime
        // does not undo them): l3 cannot join another list now.
        let mut only3 = [l3];
        assert_eq!(
            acl!(aclrtCreateLabelList(only3.as_mut_ptr(), 1, &mut again)),
            ACL_ERROR_RT_INTERNAL_ERROR
        );
        // The count, then the array: 0 and 65536 are 107000 (stored); NULL
        // array and output 100000 (not stored).
        assert_eq!(
            acl!(aclrtCreateLabelList(labels.as_mut_ptr(), 0, &mut again)),
            ACL_ERROR_RT_PARAM_INVALID
        );
        assert_eq!(take_last_error(), ACL_ERROR_RT_PARAM_INVALID);
        assert_eq!(
            acl!(aclrtCreateLabelList(labels.as_mut_ptr(), 65536, &mut again)),
            ACL_ERROR_RT_PARAM_INVALID
        );
        assert_eq!(
            acl!(aclrtCreateLabelList(null_mut(), 2, &mut again)),
            ACL_ERROR_INVALID_PARAM
        );
        assert_eq!(
            acl!(aclrtCreateLabelList(labels.as_mut_ptr(), 2, null_mut())),
            ACL_ERROR_INVALID_PARAM
        );
        let _ = take_last_error();
        // A NULL entry passes the runtime's guard and is then dereferenced:
        // the simulator answers 107000 and reports it.
        let l4 = create_label();
        let mut with_null = [l4, null_mut()];
        assert_eq!(
            acl!(aclrtCreateLabelList(with_null.as_mut_ptr(), 2, &mut again)),
            ACL_ERROR_RT_PARAM_INVALID
        );
        assert_eq!(
            violation_kinds().last(),
            Some(&ViolationKind::InvalidHandle)
        );
        let _ = take_last_error();
        // Switching by index: NULL ptr, list, stream 100000 in that order;
        // then the stream bound to no model: 107005 (stored).
        let idx = malloc(64);
        assert_eq!(
            acl!(aclrtSwitchLabelByIndex(null_mut(), 1, list, s)),
            ACL_ERROR_INVALID_PARAM
        );
        assert_eq!(
            acl!(aclrtSwitchLabelByIndex(idx, 1, null_mut(), s)),
            ACL_ERROR_INVALID_PARAM
        );
        assert_eq!(
            acl!(aclrtSwitchLabelByIndex(idx, 1, list, null_mut())),
            ACL_ERROR_INVALID_PARAM
        );
        assert_eq!(take_last_error(), ACL_SUCCESS);
        assert_eq!(
            acl!(aclrtSwitchLabelByIndex(idx, 1, list, s)),
            ACL_ERROR_RT_STREAM_MODEL
        );
        assert_eq!(take_last_error(), ACL_ERROR_RT_STREAM_MODEL);
        // A stream of another context: 107003 (after the label's context).
        let home = current_context();
        let other = create_context(0);
        let s_other = create_stream();
        let l_other = create_label();
        ok!(aclrtSetCurrentContext(home));
        assert_eq!(
            acl!(aclrtSetLabel(l1, s_other)),
            ACL_ERROR_RT_STREAM_CONTEXT
        );
        assert_eq!(
            acl!(aclrtSwitchLabelByIndex(idx, 1, list, s_other)),
            ACL_ERROR_RT_STREAM_CONTEXT
        );
        // A label of another context: 507031, before the stream's check.
        assert_eq!(
            acl!(aclrtSetLabel(l_other, s_other)),
            ACL_ERROR_RT_LABEL_CONTEXT
        );
        assert_eq!(acl!(aclrtDestroyLabel(l_other)), ACL_ERROR_RT_LABEL_CONTEXT);
        assert_eq!(take_last_error(), ACL_ERROR_RT_LABEL_CONTEXT);
        ok!(aclrtSetCurrentContext(other));
        ok!(aclrtDestroyLabel(l_other));
        destroy_stream(s_other);
        ok!(aclrtSetCurrentContext(home));
        ok!(aclrtDestroyContext(other));
        // No current context on another thread: 107002.
        std::thread::spawn(|| {
            let mut l = null_mut();
            assert_eq!(acl!(aclrtCreateLabel(&mut l)), ACL_ERROR_RT_CONTEXT_NULL);
        })
        .join()
        .unwrap();
        // Destroyed labels: the handle guard, 107017 (stored), in every
        // function that takes one; a stream handle is not a label either.
        ok!(aclrtDestroyLabel(l2));
        assert_eq!(acl!(aclrtDestroyLabel(l2)), ACL_ERROR_RT_INVALID_HANDLE);
        assert_eq!(take_last_error(), ACL_ERROR_RT_INVALID_HANDLE);
        assert_eq!(acl!(aclrtSetLabel(l2, s)), ACL_ERROR_RT_INVALID_HANDLE);
        let mut gone = [l2];
        assert_eq!(
            acl!(aclrtCreateLabelList(gone.as_mut_ptr(), 1, &mut again)),
            ACL_ERROR_RT_INVALID_HANDLE
        );
        assert_eq!(acl!(aclrtDestroyLabel(s)), ACL_ERROR_RT_INVALID_HANDLE);
        let _ = take_last_error();
        // The list is freed like device memory (`rtsFree`): once.
        ok!(aclrtDestroyLabelList(list));
        assert_ne!(acl!(aclrtDestroyLabelList(list)), ACL_SUCCESS);
        assert_eq!(
            acl!(aclrtDestroyLabelList(null_mut())),
            ACL_ERROR_INVALID_PARAM
        );
        let _ = take_last_error();
        for l in [l1, l3, l4] {
            ok!(aclrtDestroyLabel(l));
        }
        free(idx);
        destroy_stream(s);
        teardown_device0();
        aclrt_sim::reset();
    });
}

#[test]
fn labels_behave_alike_on_the_310p() {
    let _sim = aclrt_sim::exclusive();
    for mode in [RunMode::Host, RunMode::Device] {
        aclrt_sim::reset();
        configure(|c| {
            c.run_mode = mode;
            c.soc = aclrt_sim::Soc::Ascend310P;
        });
        init_device0();
        let s = create_stream();
        let l = create_label();
        let mut labels = [l];
        let mut list: aclrtLabelList = null_mut();
        ok!(aclrtCreateLabelList(labels.as_mut_ptr(), 1, &mut list));
        assert_eq!(
            read_device(list.cast_const(), 20),
            vec![0xFFu8; 20],
            "{mode:?}"
        );
        assert_eq!(acl!(aclrtSetLabel(l, s)), ACL_ERROR_RT_STREAM_MODEL);
        let idx = malloc(8);
        assert_eq!(
            acl!(aclrtSwitchLabelByIndex(idx, 0, list, s)),
            ACL_ERROR_RT_STREAM_MODEL
        );
        let _ = take_last_error();
        ok!(aclrtDestroyLabelList(list));
        ok!(aclrtDestroyLabel(l));
        free(idx);
        destroy_stream(s);
        teardown_device0();
    }
    aclrt_sim::reset();
}
