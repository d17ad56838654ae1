//! The calling thread's binding (current context, device) and the rows of
//! `sim/FIDELITY.md` found by reading the runtime's thread-local container
//! and the layers no earlier audit read. Every test runs on both chips in
//! both run modes; the row id is the test name's prefix
//! (`thread_destroy_...` pins row THREAD-DESTROY).

use crate::common;
use common::*;

use aclrt_sim::{Soc, Strictness};

/// `f` on both chips, in both run modes, each time on a fresh simulator
/// configured by `extra` too. The caller holds [`aclrt_sim::exclusive`].
fn in_every_profile_with(extra: impl Fn(&mut SimConfig), mut f: impl FnMut(Soc, RunMode)) {
    for soc in [Soc::Ascend910B, Soc::Ascend310P] {
        for mode in [RunMode::Host, RunMode::Device] {
            aclrt_sim::reset();
            configure(|c| {
                c.run_mode = mode;
                c.soc = soc;
                extra(c);
            });
            f(soc, mode);
        }
    }
}

fn in_every_profile(f: impl FnMut(Soc, RunMode)) {
    in_every_profile_with(|_| {}, f);
}

// ------------------------------------------------------------ the state machine

/// One call of a transition table row.
#[derive(Clone, Copy, Debug)]
enum Step {
    /// `aclrtSetDevice(d)`; remembers the device's default context.
    SetDevice(i32),
    /// `aclrtCreateContext(&slot, d)` into slot `X` (0) or `Y` (1).
    Create(usize, i32),
    /// `aclrtSetCurrentContext` of a named context.
    SetCurrent(Ctx),
    /// `aclrtDestroyContext` of a named context.
    Destroy(Ctx),
    /// `aclrtResetDevice(d)`, expecting `code`.
    Reset(i32, aclError),
    /// `aclrtResetDeviceForce(d)`.
    ResetForce(i32),
    /// `aclFinalize`.
    Finalize,
}

/// A context of a row: the default context of device 0 or 1, or the
/// explicit context in slot `X` (0) or `Y` (1).
#[derive(Clone, Copy, Debug, PartialEq)]
enum Ctx {
    Default(i32),
    Explicit(usize),
}

const X: usize = 0;
const Y: usize = 1;

/// What the thread is bound to after the row: `None` for nothing (every
/// call needing a context answers 107002), else the context and its device.
type Expect = Option<(Ctx, i32)>;

struct Names {
    defaults: [aclrtContext; 2],
    explicit: [aclrtContext; 2],
}

impl Names {
    fn get(&self, c: Ctx) -> aclrtContext {
        match c {
            Ctx::Default(d) => self.defaults[d as usize],
            Ctx::Explicit(i) => self.explicit[i],
        }
    }
}

fn run_row(steps: &[Step], names: &mut Names) {
    for step in steps {
        match *step {
            Step::SetDevice(d) => {
                ok!(aclrtSetDevice(d));
                names.defaults[d as usize] = current_context();
            }
            Step::Create(i, d) => names.explicit[i] = create_context(d),
            Step::SetCurrent(c) => ok!(aclrtSetCurrentContext(names.get(c))),
            Step::Destroy(c) => ok!(aclrtDestroyContext(names.get(c))),
            Step::Reset(d, code) => assert_eq!(acl!(aclrtResetDevice(d)), code, "{step:?}"),
            Step::ResetForce(d) => ok!(aclrtResetDeviceForce(d)),
            Step::Finalize => ok!(aclFinalize()),
        }
    }
}

/// Observes the binding with the three calls that read it.
fn assert_bound(expect: Expect, names: &Names, row: &str) {
    let mut c: aclrtContext = null_mut();
    let mut d = -1;
    let mut s: aclrtStream = null_mut();
    match expect {
        None => {
            assert_eq!(
                acl!(aclrtGetCurrentContext(&mut c)),
                ACL_ERROR_RT_CONTEXT_NULL,
                "{row}: a current context is left"
            );
            assert_eq!(
                acl!(aclrtGetDevice(&mut d)),
                ACL_ERROR_RT_CONTEXT_NULL,
                "{row}"
            );
            assert_eq!(
                acl!(aclrtCreateStream(&mut s)),
                ACL_ERROR_RT_CONTEXT_NULL,
                "{row}"
            );
        }
        Some((ctx, dev)) => {
            ok!(aclrtGetCurrentContext(&mut c));
            assert_eq!(c, names.get(ctx), "{row}: current context");
            ok!(aclrtGetDevice(&mut d));
            assert_eq!(d, dev, "{row}: device");
            ok!(aclrtCreateStream(&mut s));
            ok!(aclrtDestroyStream(s));
        }
    }
}

#[test]
fn thread_every_transition_of_the_binding_is_the_runtimes() {
    use Ctx::{Default as D, Explicit as E};
    use Step::*;
    const RELEASE: aclError = ACL_ERROR_RT_CONTEXT_RELEASE_ERROR;
    // (row id, calls, binding after them)
    let table: &[(&str, &[Step], Expect)] = &[
        ("THREAD-SET-DEVICE", &[SetDevice(0)], Some((D(0), 0))),
        (
            "THREAD-SET-DEVICE",
            &[SetDevice(0), SetDevice(1)],
            Some((D(1), 1)),
        ),
        (
            "THREAD-SET-DEVICE",
            &[SetDevice(0), Create(X, 1), SetDevice(0)],
            Some((D(0), 0)),
        ),
        (
            "THREAD-CREATE",
            &[SetDevice(0), Create(X, 0)],
            Some((E(X), 0)),
        ),
        (
            "THREAD-CREATE",
            &[SetDevice(0), Create(Y, 1)],
            Some((E(Y), 1)),
        ),
        ("THREAD-CREATE", &[Create(X, 1)], Some((E(X), 1))),
        (
            "THREAD-SET-CURRENT",
            &[SetDevice(1), Create(X, 0), SetCurrent(D(1))],
            Some((D(1), 1)),
        ),
        (
            "THREAD-SET-CURRENT",
            &[SetDevice(0), SetDevice(1), SetCurrent(D(0))],
            Some((D(0), 0)),
        ),
        (
            "THREAD-DESTROY",
            &[SetDevice(0), Create(X, 0), Destroy(E(X))],
            None,
        ),
        ("THREAD-DESTROY", &[Create(X, 1), Destroy(E(X))], None),
        (
            "THREAD-DESTROY",
            &[SetDevice(0), Create(X, 0), SetDevice(0), Destroy(E(X))],
            Some((D(0), 0)),
        ),
        (
            "THREAD-DESTROY",
            &[SetDevice(0), Create(X, 0), Create(Y, 1), Destroy(E(X))],
            Some((E(Y), 1)),
        ),
        (
            "THREAD-RESET",
            &[SetDevice(0), SetDevice(1), Reset(0, ACL_SUCCESS)],
            None,
        ),
        ("THREAD-RESET", &[SetDevice(0), Reset(0, ACL_SUCCESS)], None),
        (
            "THREAD-RESET",
            &[SetDevice(0), SetDevice(0), Reset(0, ACL_SUCCESS)],
            Some((D(0), 0)),
        ),
        (
            "THREAD-RESET",
            &[SetDevice(0), Create(Y, 1), Reset(0, ACL_SUCCESS)],
            Some((E(Y), 1)),
        ),
        (
            "THREAD-RESET",
            &[
                SetDevice(0),
                SetDevice(1),
                SetCurrent(D(0)),
                Reset(0, ACL_SUCCESS),
            ],
            None,
        ),
        (
            "THREAD-RESET",
            &[
                SetDevice(0),
                SetDevice(1),
                SetCurrent(D(0)),
                Reset(1, ACL_SUCCESS),
            ],
            Some((D(0), 0)),
        ),
        (
            "THREAD-RESET",
            &[SetDevice(0), Reset(1, RELEASE)],
            Some((D(0), 0)),
        ),
        (
            "THREAD-RESET-FORCE",
            &[SetDevice(0), SetDevice(0), ResetForce(0)],
            None,
        ),
        (
            "THREAD-RESET-FORCE",
            &[SetDevice(0), SetDevice(1), ResetForce(0)],
            None,
        ),
        (
            "THREAD-RESET-FORCE",
            &[SetDevice(1), Create(Y, 0), ResetForce(1)],
            Some((E(Y), 0)),
        ),
        ("THREAD-FINALIZE", &[SetDevice(0), Finalize], None),
        (
            "THREAD-FINALIZE",
            &[SetDevice(0), Create(X, 1), Finalize],
            None,
        ),
    ];
    let _sim = aclrt_sim::exclusive();
    let mut checked = 0;
    in_every_profile(|soc, mode| {
        for (row, steps, expect) in table {
            aclrt_sim::reset();
            configure(|c| {
                c.run_mode = mode;
                c.soc = soc;
            });
            init();
            let mut names = Names {
                defaults: [null_mut(); 2],
                explicit: [null_mut(); 2],
            };
            run_row(steps, &mut names);
            assert_bound(
                *expect,
                &names,
                &format!("{row} {steps:?} ({soc:?}, {mode:?})"),
            );
            checked += 1;
        }
    });
    assert_eq!(checked, 4 * table.len());
    aclrt_sim::reset();
}

/// The binding is the calling thread's: another thread's destroy or reset
/// leaves it, but a context that is gone is gone for every thread.
#[test]
fn thread_destroy_another_threads_destroy_leaves_this_binding_dangling_not_moved() {
    let _sim = aclrt_sim::exclusive();
    in_every_profile(|_, _| {
        init_device0();
        let dflt = current_context();
        let x = create_context(0);
        let x_addr = x as usize;
        // Another thread destroys x (current here).
        std::thread::spawn(move || ok!(aclrtDestroyContext(x_addr as aclrtContext)))
            .join()
            .unwrap();
        let mut c: aclrtContext = null_mut();
        assert_eq!(
            acl!(aclrtGetCurrentContext(&mut c)),
            ACL_ERROR_RT_CONTEXT_NULL
        );
        ok!(aclrtSetCurrentContext(dflt));
        teardown_device0();
        assert_clean();
    });
}

// ------------------------------------------------------------ fixes

#[test]
fn thread_destroy_destroying_the_current_context_leaves_no_context() {
    let _sim = aclrt_sim::exclusive();
    in_every_profile(|_, _| {
        init_device0();
        let dflt = current_context();
        let x = create_context(0);
        ok!(aclrtDestroyContext(x));
        let mut c: aclrtContext = null_mut();
        let mut d = -1;
        let mut s: aclrtStream = null_mut();
        assert_eq!(
            acl!(aclrtGetCurrentContext(&mut c)),
            ACL_ERROR_RT_CONTEXT_NULL
        );
        assert_eq!(acl!(aclrtGetDevice(&mut d)), ACL_ERROR_RT_CONTEXT_NULL);
        assert_eq!(acl!(aclrtCreateStream(&mut s)), ACL_ERROR_RT_CONTEXT_NULL);
        ok!(aclrtSetCurrentContext(dflt));
        teardown_device0();
        assert_clean();
    });
}

#[test]
fn thread_reset_the_last_reset_of_any_device_clears_the_binding() {
    let _sim = aclrt_sim::exclusive();
    in_every_profile(|_, _| {
        init();
        ok!(aclrtSetDevice(0));
        ok!(aclrtSetDevice(1));
        ok!(aclrtResetDevice(0));
        let mut d = -1;
        let mut s: aclrtStream = null_mut();
        assert_eq!(acl!(aclrtGetDevice(&mut d)), ACL_ERROR_RT_CONTEXT_NULL);
        assert_eq!(acl!(aclrtCreateStream(&mut s)), ACL_ERROR_RT_CONTEXT_NULL);
        // Device 1 is still set (its count is 1): binding to it again and
        // resetting it once leaves nothing.
        rebind(1);
        ok!(aclrtGetDevice(&mut d));
        assert_eq!(d, 1);
        ok!(aclrtResetDevice(1));
        finalize();
        assert_clean();
    });
}

#[test]
fn copy_kind_buf_the_staging_kind_needs_a_host_source_and_a_device_destination() {
    let _sim = aclrt_sim::exclusive();
    for strictness in [Strictness::Report, Strictness::Refuse] {
        in_every_profile_with(
            |c| c.strictness = strictness,
            |_, mode| {
                init_device0();
                let s = create_stream();
                let a = malloc(64);
                let b = malloc(64);
                let code = acl!(aclrtMemcpyAsync(
                    b,
                    64,
                    a,
                    64,
                    ACL_MEMCPY_HOST_TO_BUF_TO_DEVICE,
                    s
                ));
                match (mode, strictness) {
                    // E `MemcpyAsyncCheckExLocation` (online only).
                    (RunMode::Host, Strictness::Report) => {
                        assert_eq!(code, ACL_ERROR_RT_PARAM_INVALID)
                    }
                    (RunMode::Host, _) => assert_eq!(code, ACL_ERROR_RT_INVALID_MEMORY_TYPE),
                    // Offline: no location check, the copy is made.
                    (RunMode::Device, _) => assert_eq!(code, ACL_SUCCESS),
                }
                // A host source is accepted everywhere.
                let host = malloc_host(64);
                ok!(aclrtMemcpyAsync(
                    b,
                    64,
                    host,
                    64,
                    ACL_MEMCPY_HOST_TO_BUF_TO_DEVICE,
                    s
                ));
                ok!(aclrtSynchronizeStream(s));
                free_host(host);
                free(a);
                free(b);
                destroy_stream(s);
                teardown_device0();
                let kinds = violation_kinds();
                if mode == RunMode::Host {
                    assert_eq!(kinds, vec![ViolationKind::KindMismatch]);
                } else {
                    assert!(kinds.is_empty(), "{kinds:?}");
                }
            },
        );
    }
}

#[test]
fn cb_sub_ctx_a_stream_of_another_context_is_subscribed_and_unsubscribed() {
    let _sim = aclrt_sim::exclusive();
    in_every_profile(|_, _| {
        init_device0();
        let s = create_stream();
        let x = create_context(0);
        let tid = aclrt_sim::thread_report_id();
        // x is current, s is the default context's: no context check.
        ok!(aclrtSubscribeReport(tid, s));
        ok!(aclrtUnSubscribeReport(tid, s));
        ok!(aclrtDestroyContext(x));
        rebind(0);
        destroy_stream(s);
        teardown_device0();
        assert_clean();
    });
}

#[test]
fn cb_sub_ctx_a_thread_without_a_context_subscribes_where_no_event_is_made() {
    let _sim = aclrt_sim::exclusive();
    in_every_profile(|soc, _| {
        init_device0();
        let s = create_stream();
        let s_addr = s as usize;
        let (sub, unsub) = std::thread::spawn(move || {
            let s = s_addr as aclrtStream;
            let tid = aclrt_sim::thread_report_id();
            let sub = acl!(aclrtSubscribeReport(tid, s));
            let unsub = acl!(aclrtUnSubscribeReport(tid, s));
            // NULL needs the current context's default stream.
            assert_eq!(
                acl!(aclrtSubscribeReport(tid, null_mut())),
                ACL_ERROR_RT_CONTEXT_NULL
            );
            (sub, unsub)
        })
        .join()
        .unwrap();
        if soc == Soc::Ascend910B {
            // I `SubscribeReport` creates an event in the current context
            // on a STARS chip.
            assert_eq!(sub, ACL_ERROR_RT_CONTEXT_NULL);
            assert_eq!(unsub, ACL_ERROR_RT_STREAM_SUBSCRIBE);
        } else {
            assert_eq!((sub, unsub), (ACL_SUCCESS, ACL_SUCCESS));
        }
        destroy_stream(s);
        teardown_device0();
        assert_clean();
    });
}

#[test]
fn event_r_2_an_event_of_aclrt_create_event_is_reset() {
    let _sim = aclrt_sim::exclusive();
    for strictness in [Strictness::Report, Strictness::Refuse] {
        in_every_profile_with(
            |c| c.strictness = strictness,
            |_, _| {
                init_device0();
                let s = create_stream();
                let e = create_event();
                ok!(aclrtRecordEvent(e, s));
                ok!(aclrtSynchronizeEvent(e));
                assert_eq!(event_status(e), ACL_EVENT_RECORDED_STATUS_COMPLETE);
                ok!(aclrtResetEvent(e, s));
                ok!(aclrtSynchronizeStream(s));
                assert_eq!(event_status(e), ACL_EVENT_RECORDED_STATUS_NOT_READY);
                // Recorded again, it completes again.
                ok!(aclrtRecordEvent(e, s));
                ok!(aclrtSynchronizeEvent(e));
                assert_eq!(event_status(e), ACL_EVENT_RECORDED_STATUS_COMPLETE);
                destroy_event(e);
                destroy_stream(s);
                teardown_device0();
                assert_clean();
            },
        );
    }
}

#[test]
fn event_t_3_an_end_record_not_yet_executed_has_no_timestamp() {
    let _sim = aclrt_sim::exclusive();
    in_every_profile(|_, _| {
        init_device0();
        let s = create_stream();
        let start = create_event();
        let end = create_event();
        ok!(aclrtRecordEvent(start, s));
        ok!(aclrtSynchronizeEvent(start));
        let gate = std::sync::Arc::new(AtomicBool::new(false));
        unsafe extern "C" fn wait_gate(arg: *mut c_void) {
            // SAFETY: the test passes an `AtomicBool` kept alive (by the
            // `Arc` it holds) until the stream is synchronised.
            let gate = unsafe { &*arg.cast::<AtomicBool>() };
            while !gate.load(Ordering::SeqCst) {
                std::thread::sleep(Duration::from_millis(1));
            }
        }
        ok!(aclrtLaunchHostFunc(
            s,
            Some(wait_gate),
            std::sync::Arc::as_ptr(&gate).cast_mut().cast()
        ));
        ok!(aclrtRecordEvent(end, s));
        let mut ms = -1.0f32;
        assert_eq!(
            acl!(aclrtEventElapsedTime(&mut ms, start, end)),
            ACL_ERROR_RT_EVENT_TIMESTAMP_INVALID
        );
        // Never recorded wins over not executed (both events are looked at
        // for a record first).
        let never = create_event();
        assert_eq!(
            acl!(aclrtEventElapsedTime(&mut ms, never, end)),
            ACL_ERROR_RT_INTERNAL_ERROR
        );
        gate.store(true, Ordering::SeqCst);
        ok!(aclrtSynchronizeStream(s));
        ok!(aclrtEventElapsedTime(&mut ms, start, end));
        assert!(ms >= 0.0);
        destroy_event(never);
        destroy_event(start);
        destroy_event(end);
        destroy_stream(s);
        teardown_device0();
        let kinds = violation_kinds();
        assert_eq!(kinds, vec![ViolationKind::EventNotRecorded]);
    });
}

#[test]
fn init_order_2_a_repeated_init_is_counted_before_the_path_is_read() {
    let _sim = aclrt_sim::exclusive();
    in_every_profile(|_, _| {
        init();
        let missing = c"/nonexistent/aclrt-sim/acl.json";
        assert_eq!(acl!(aclInit(missing.as_ptr())), ACL_ERROR_REPEAT_INITIALIZE);
        // Not initialised: the path is read, and cannot be.
        finalize();
        assert_eq!(acl!(aclInit(missing.as_ptr())), ACL_ERROR_INVALID_FILE);
        assert_clean();
    });
}

#[test]
fn misc_1_the_recent_message_is_kept_and_a_new_one_goes_in_front() {
    let _sim = aclrt_sim::exclusive();
    in_every_profile(|_, _| {
        init();
        assert_eq!(recent_err_msg(), None);
        assert_eq!(acl!(aclrtSetDevice(99)), ACL_ERROR_RT_INVALID_DEVICEID);
        let first = recent_err_msg().expect("a message");
        assert_eq!(recent_err_msg().as_deref(), Some(first.as_str()));
        let mut p: *mut c_void = null_mut();
        assert_eq!(acl!(aclrtMallocHost(&mut p, 0)), ACL_ERROR_INVALID_PARAM);
        let both = recent_err_msg().expect("a message");
        assert!(both.ends_with(&format!("\n{first}")), "{both:?}");
        assert_ne!(both, format!("\n{first}"));
        finalize();
        assert_clean();
    });
}

// ------------------------------------------------------------ self-served waits

unsafe extern "C" fn count_call(user: *mut c_void) {
    // SAFETY: the tests pass a counter that outlives the stream's work.
    unsafe { &*user.cast::<AtomicUsize>() }.fetch_add(1, Ordering::SeqCst);
}

fn counter(c: &AtomicUsize) -> *mut c_void {
    (c as *const AtomicUsize).cast_mut().cast()
}

/// A wait of a test, as a call returning its code.
type Wait = Box<dyn Fn() -> aclError>;

/// The last violation recorded.
fn last_violation() -> Violation {
    aclrt_sim::audit()
        .violations
        .last()
        .cloned()
        .expect("a violation")
}

#[test]
fn strict_self_serve_a_wait_only_the_waiting_thread_could_end_is_reported_at_once() {
    let _sim = aclrt_sim::exclusive();
    for strictness in [Strictness::Report, Strictness::Refuse] {
        in_every_profile_with(
            |c| c.strictness = strictness,
            |soc, _| {
                init_device0();
                let s = create_stream();
                let tid = aclrt_sim::thread_report_id();
                ok!(aclrtSubscribeReport(tid, s));
                let ran = AtomicUsize::new(0);
                ok!(aclrtLaunchCallback(
                    Some(count_call),
                    counter(&ran),
                    ACL_CALLBACK_BLOCK,
                    s
                ));
                let e = create_event();
                ok!(aclrtRecordEvent(e, s));
                // Every wait for the stream: refused, or reported at once
                // and then waiting as the hardware does (a timeout ends it).
                let waits: Vec<(&str, Wait)> = vec![
                    (
                        "aclrtSynchronizeStreamWithTimeout",
                        Box::new(move || acl!(aclrtSynchronizeStreamWithTimeout(s, 50))),
                    ),
                    (
                        "aclrtSynchronizeEventWithTimeout",
                        Box::new(move || acl!(aclrtSynchronizeEventWithTimeout(e, 50))),
                    ),
                ];
                for (function, wait) in &waits {
                    let before = aclrt_sim::audit().violations.len();
                    let code = wait();
                    let v = last_violation();
                    assert_eq!(
                        aclrt_sim::audit().violations.len(),
                        before + 1,
                        "{function}"
                    );
                    assert_eq!(v.kind, ViolationKind::SelfServedWait, "{function}");
                    assert_eq!(v.rule, "STRICT-SELF-SERVE");
                    assert_eq!(v.function, *function);
                    assert!(v.message.contains("aclrtLaunchCallback"), "{}", v.message);
                    match strictness {
                        Strictness::Refuse => {
                            assert_eq!(code, ACL_ERROR_RT_PARAM_INVALID, "{function}");
                            assert!(v.refused);
                        }
                        _ => {
                            assert_ne!(code, ACL_SUCCESS, "{function}: timed out");
                            assert!(!v.refused);
                        }
                    }
                }
                if strictness == Strictness::Refuse {
                    // Waits without a timeout would hang on the hardware:
                    // refused here.
                    assert_eq!(acl!(aclrtSynchronizeStream(s)), ACL_ERROR_RT_PARAM_INVALID);
                    assert_eq!(acl!(aclrtSynchronizeDevice()), ACL_ERROR_RT_PARAM_INVALID);
                    // A copy of pageable memory waits for the stream.
                    let dev = malloc(16);
                    let mut page = [0u8; 16];
                    assert_eq!(
                        acl!(aclrtMemcpyAsync(
                            page.as_mut_ptr().cast(),
                            16,
                            dev,
                            16,
                            ACL_MEMCPY_DEVICE_TO_HOST,
                            s
                        )),
                        ACL_ERROR_RT_PARAM_INVALID
                    );
                    free(dev);
                    if soc == Soc::Ascend910B {
                        // Once the callback was handed to this thread, an
                        // abort would wait for it.
                        let t0 = Instant::now();
                        while aclrt_sim::audit().unserved_callbacks.is_empty() {
                            assert!(t0.elapsed() < Duration::from_secs(10));
                            std::thread::sleep(Duration::from_millis(1));
                        }
                        assert_eq!(acl!(aclrtStreamAbort(s)), ACL_ERROR_RT_PARAM_INVALID);
                        assert_eq!(last_violation().function, "aclrtStreamAbort");
                    }
                }
                // Served, the waits end.
                ok!(aclrtProcessReport(5000));
                assert_eq!(ran.load(Ordering::SeqCst), 1);
                ok!(aclrtSynchronizeStream(s));
                ok!(aclrtSynchronizeEvent(e));
                // Another thread's wait is no self-served wait.
                ok!(aclrtLaunchCallback(
                    Some(count_call),
                    counter(&ran),
                    ACL_CALLBACK_BLOCK,
                    s
                ));
                let s_addr = s as usize;
                let waiter = std::thread::spawn(move || {
                    ok!(aclrtSetDevice(0));
                    let code = acl!(aclrtSynchronizeStream(s_addr as aclrtStream));
                    ok!(aclrtResetDevice(0));
                    code
                });
                ok!(aclrtProcessReport(5000));
                assert_eq!(waiter.join().unwrap(), ACL_SUCCESS);
                ok!(aclrtUnSubscribeReport(tid, s));
                destroy_event(e);
                destroy_stream(s);
                teardown_device0();
                let audit = aclrt_sim::audit();
                assert!(audit.leaks.is_empty(), "{:?}", audit.leaks);
                assert!(
                    audit
                        .violations
                        .iter()
                        .all(|v| v.kind == ViolationKind::SelfServedWait),
                    "{:?}",
                    audit.violations
                );
            },
        );
    }
}

#[test]
fn strict_self_serve_a_host_function_on_the_subscribed_default_stream_is_named() {
    let _sim = aclrt_sim::exclusive();
    in_every_profile_with(
        |c| c.strictness = Strictness::Refuse,
        |_, _| {
            init_device0();
            let tid = aclrt_sim::thread_report_id();
            ok!(aclrtSubscribeReport(tid, null_mut()));
            let ran = AtomicUsize::new(0);
            // A host function on the subscribed default stream becomes a
            // blocking callback for this thread.
            ok!(aclrtLaunchHostFunc(
                null_mut(),
                Some(count_call),
                counter(&ran)
            ));
            assert_eq!(
                acl!(aclrtSynchronizeStream(null_mut())),
                ACL_ERROR_RT_PARAM_INVALID
            );
            let v = last_violation();
            assert_eq!(v.kind, ViolationKind::SelfServedWait);
            assert!(v.message.contains("aclrtLaunchHostFunc"), "{}", v.message);
            ok!(aclrtProcessReport(5000));
            ok!(aclrtSynchronizeStream(null_mut()));
            assert_eq!(ran.load(Ordering::SeqCst), 1);
            ok!(aclrtUnSubscribeReport(tid, null_mut()));
            teardown_device0();
            assert_eq!(violation_kinds(), vec![ViolationKind::SelfServedWait]);
        },
    );
}

// ------------------------------------------------------------ host data

#[test]
fn kbin_data_the_device_alias_of_registered_memory_is_not_host_data() {
    use std::alloc::{Layout, alloc_zeroed, dealloc};
    let _sim = aclrt_sim::exclusive();
    in_every_profile(|soc, _| {
        if soc == Soc::Ascend310P {
            // No host registration there (row REG-SOC).
            return;
        }
        init_device0();
        let img = aclrt_sim::binary_image(&["k"]);
        let layout = Layout::from_size_align(8192, 4096).unwrap();
        // SAFETY: a non-zero size.
        let pages = unsafe { alloc_zeroed(layout) };
        assert!(!pages.is_null());
        // SAFETY: `img` fits the 8192 fresh bytes, nothing else uses them.
        unsafe { std::ptr::copy_nonoverlapping(img.as_ptr(), pages, img.len()) };
        let mut alias = null_mut();
        ok!(aclrtHostRegister(
            pages.cast(),
            8192,
            ACL_HOST_REGISTER_MAPPED,
            &mut alias
        ));
        let mut bin: aclrtBinHandle = null_mut();
        // The alias is device memory for device code only: refused, never
        // read (it is no host address).
        assert_eq!(
            acl!(aclrtBinaryLoadFromData(alias, img.len(), null(), &mut bin)),
            ACL_ERROR_RT_PARAM_INVALID
        );
        assert!(bin.is_null());
        // Freed device memory likewise.
        let dev = malloc(64);
        free(dev);
        assert_eq!(
            acl!(aclrtBinaryLoadFromData(dev, 64, null(), &mut bin)),
            ACL_ERROR_RT_PARAM_INVALID
        );
        // The host address itself is host data.
        ok!(aclrtBinaryLoadFromData(
            pages.cast(),
            img.len(),
            null(),
            &mut bin
        ));
        ok!(aclrtBinaryUnLoad(bin));
        ok!(aclrtHostUnregister(pages.cast()));
        // SAFETY: allocated above with this layout, no longer registered.
        unsafe { dealloc(pages, layout) };
        teardown_device0();
        let kinds = violation_kinds();
        assert_eq!(
            kinds,
            vec![ViolationKind::KindMismatch, ViolationKind::UseAfterFree],
        );
    });
}

// ------------------------------------------------------------ task queue

unsafe extern "C" fn wait_flag(arg: *mut c_void) {
    // SAFETY: the tests pass an `AtomicBool` that outlives the stream's work.
    let flag = unsafe { &*arg.cast::<AtomicBool>() };
    while !flag.load(Ordering::SeqCst) {
        std::thread::sleep(Duration::from_millis(1));
    }
}

#[test]
fn stream_sq_a_submission_to_a_full_stream_waits_for_room() {
    let _sim = aclrt_sim::exclusive();
    in_every_profile(|_, _| {
        init_device0();
        let s = create_stream();
        let p = malloc(64);
        let gate: &'static AtomicBool = Box::leak(Box::new(AtomicBool::new(false)));
        let gate_arg = (gate as *const AtomicBool).cast_mut().cast();
        ok!(aclrtLaunchHostFunc(s, Some(wait_flag), gate_arg));
        // 2047 tasks not yet executed fit (the host function and 2046 more).
        for _ in 0..2046 {
            ok!(aclrtMemsetAsync(p, 64, 1, 64, s));
        }
        let (s_addr, p_addr) = (s as usize, p as usize);
        let returned: &'static AtomicBool = Box::leak(Box::new(AtomicBool::new(false)));
        let submitter = std::thread::spawn(move || {
            ok!(aclrtSetDevice(0));
            let code = acl!(aclrtMemsetAsync(
                p_addr as *mut c_void,
                64,
                2,
                64,
                s_addr as aclrtStream
            ));
            returned.store(true, Ordering::SeqCst);
            ok!(aclrtResetDevice(0));
            code
        });
        std::thread::sleep(Duration::from_millis(100));
        assert!(
            !returned.load(Ordering::SeqCst),
            "a submission to a full stream returned before the stream had room"
        );
        gate.store(true, Ordering::SeqCst);
        assert_eq!(submitter.join().unwrap(), ACL_SUCCESS);
        ok!(aclrtSynchronizeStream(s));
        assert_eq!(read_device(p, 64), vec![2; 64]);
        // A host function of a full stream submitting to it would wait for
        // itself: refused.
        gate.store(false, Ordering::SeqCst);
        unsafe extern "C" fn submit_to_own(arg: *mut c_void) {
            // SAFETY: the test passes a `[usize; 5]` (context, stream,
            // memory, gate, code slot) that outlives the stream's work.
            let a = unsafe { &*arg.cast::<[usize; 5]>() };
            // SAFETY: as above.
            let gate = unsafe { &*(a[3] as *const AtomicBool) };
            while !gate.load(Ordering::SeqCst) {
                std::thread::sleep(Duration::from_millis(1));
            }
            ok!(aclrtSetCurrentContext(a[0] as aclrtContext));
            let code = acl!(aclrtMemsetAsync(
                a[2] as *mut c_void,
                64,
                3,
                64,
                a[1] as aclrtStream
            ));
            // SAFETY: as above.
            let slot = unsafe { &*(a[4] as *const AtomicUsize) };
            slot.store(code as usize, Ordering::SeqCst);
        }
        let code_slot: &'static AtomicUsize = Box::leak(Box::new(AtomicUsize::new(usize::MAX)));
        let args: &'static [usize; 5] = Box::leak(Box::new([
            current_context() as usize,
            s as usize,
            p as usize,
            gate as *const AtomicBool as usize,
            code_slot as *const AtomicUsize as usize,
        ]));
        ok!(aclrtLaunchHostFunc(
            s,
            Some(submit_to_own),
            (args as *const [usize; 5]).cast_mut().cast()
        ));
        for _ in 0..2046 {
            ok!(aclrtMemsetAsync(p, 64, 1, 64, s));
        }
        gate.store(true, Ordering::SeqCst);
        ok!(aclrtSynchronizeStream(s));
        assert_eq!(
            code_slot.load(Ordering::SeqCst),
            ACL_ERROR_RT_PARAM_INVALID as usize
        );
        free(p);
        destroy_stream(s);
        teardown_device0();
        assert_clean();
    });
}

// ------------------------------------------------------------ report thread

#[test]
fn cb_report_all_one_process_report_runs_every_report_queued_by_then() {
    let _sim = aclrt_sim::exclusive();
    in_every_profile(|_, _| {
        init_device0();
        let s = create_stream();
        let tid = aclrt_sim::thread_report_id();
        ok!(aclrtSubscribeReport(tid, s));
        let ran = AtomicUsize::new(0);
        for _ in 0..3 {
            ok!(aclrtLaunchCallback(
                Some(count_call),
                counter(&ran),
                ACL_CALLBACK_NO_BLOCK,
                s
            ));
        }
        // Non-blocking: the stream does not wait for them.
        ok!(aclrtSynchronizeStream(s));
        ok!(aclrtProcessReport(1000));
        assert_eq!(ran.load(Ordering::SeqCst), 3);
        // Nothing left: the next call waits its timeout out.
        assert_eq!(acl!(aclrtProcessReport(20)), ACL_ERROR_RT_REPORT_TIMEOUT);
        ok!(aclrtUnSubscribeReport(tid, s));
        destroy_stream(s);
        teardown_device0();
        assert_clean();
    });
}

#[test]
fn reg_soc_host_memory_is_mapped_for_the_device_only_where_the_chip_can() {
    use std::alloc::{Layout, alloc_zeroed, dealloc};
    let _sim = aclrt_sim::exclusive();
    in_every_profile(|soc, _| {
        init_device0();
        let layout = Layout::from_size_align(8192, 4096).unwrap();
        // SAFETY: a non-zero size.
        let pages = unsafe { alloc_zeroed(layout) };
        assert!(!pages.is_null());
        let mut alias = null_mut();
        let v1 = acl!(aclrtHostRegister(
            pages.cast(),
            8192,
            ACL_HOST_REGISTER_MAPPED,
            &mut alias
        ));
        let mapped = acl!(aclrtHostRegisterV2(
            pages.cast(),
            8192,
            ACL_HOST_REG_MAPPED as u32
        ));
        if soc == Soc::Ascend910B {
            assert_eq!(v1, ACL_SUCCESS);
            // Registered already.
            assert_ne!(mapped, ACL_SUCCESS);
            ok!(aclrtHostUnregister(pages.cast()));
        } else {
            assert_eq!(v1, ACL_ERROR_RT_FEATURE_NOT_SUPPORT);
            assert_eq!(mapped, ACL_ERROR_RT_FEATURE_NOT_SUPPORT);
        }
        // Pinning only is the runtime's own, on both chips.
        ok!(aclrtHostRegisterV2(
            pages.cast(),
            8192,
            ACL_HOST_REG_PINNED as u32
        ));
        ok!(aclrtHostUnregister(pages.cast()));
        // SAFETY: allocated above with this layout, no longer registered.
        unsafe { dealloc(pages, layout) };
        teardown_device0();
        assert_clean();
    });
}

/// A device binding names the device's default-context slot (the
/// runtime's `CurRef`): another thread's last reset empties it, a new
/// `aclrtSetDevice` of the device, by any thread, fills it again.
#[test]
fn thread_slot_a_device_binding_follows_the_devices_default_context() {
    let _sim = aclrt_sim::exclusive();
    in_every_profile(|_, _| {
        init_device0();
        let before = current_context();
        // Another thread makes the last reset of device 0.
        std::thread::spawn(|| ok!(aclrtResetDevice(0)))
            .join()
            .unwrap();
        let mut d = -1;
        let mut c: aclrtContext = null_mut();
        assert_eq!(acl!(aclrtGetDevice(&mut d)), ACL_ERROR_RT_CONTEXT_NULL);
        assert_eq!(
            acl!(aclrtGetCurrentContext(&mut c)),
            ACL_ERROR_RT_CONTEXT_NULL
        );
        // Another thread sets the device again: this thread is bound to
        // the new default context, without a call of its own.
        let again = std::thread::spawn(|| {
            ok!(aclrtSetDevice(0));
            current_context() as usize
        })
        .join()
        .unwrap();
        assert_ne!(again, before as usize);
        assert_eq!(current_context() as usize, again);
        ok!(aclrtGetDevice(&mut d));
        assert_eq!(d, 0);
        teardown_device0();
        assert_clean();
    });
}

/// The child of [`cb_sub_1_a_bounded_wait_says_which_function_queued_the_unserved_callback`]:
/// does nothing unless run by it.
#[test]
fn unserved_warning_child() {
    if std::env::var_os("ACLRT_UNSERVED_CHILD").is_none() {
        return;
    }
    // The warning after 250 ms, not the default 5 s: the same warning,
    // well inside the 2 s wait below.
    aclrt_sim::set_unserved_warning_after(Duration::from_millis(250));
    init_device0();
    let (subscribed_tx, subscribed_rx) = std::sync::mpsc::channel();
    let (release_tx, release_rx) = std::sync::mpsc::channel::<()>();
    // Thread B subscribes the default stream of device 0 and serves nothing
    // until released.
    let b = std::thread::spawn(move || {
        ok!(aclrtSetDevice(0));
        let tid = aclrt_sim::thread_report_id();
        ok!(aclrtSubscribeReport(tid, null_mut()));
        subscribed_tx.send(()).unwrap();
        release_rx.recv().unwrap();
        // Unsubscribing runs the queued callback here.
        ok!(aclrtUnSubscribeReport(tid, null_mut()));
        ok!(aclrtResetDevice(0));
    });
    subscribed_rx.recv().unwrap();
    let ran = AtomicUsize::new(0);
    // A host function on the subscribed default stream: a blocking callback
    // for thread B.
    ok!(aclrtLaunchHostFunc(
        null_mut(),
        Some(count_call),
        counter(&ran)
    ));
    assert_eq!(
        acl!(aclrtSynchronizeStreamWithTimeout(null_mut(), 2000)),
        ACL_ERROR_RT_STREAM_SYNC_TIMEOUT
    );
    release_tx.send(()).unwrap();
    b.join().unwrap();
    ok!(aclrtSynchronizeStream(null_mut()));
    assert_eq!(ran.load(Ordering::SeqCst), 1);
    teardown_device0();
    println!("child: done");
}

/// CB-SUB-1: a wait with a timeout says on stderr (after 5 s by default,
/// 250 ms as the child sets it) that the
/// stream is blocked on an unserved callback, naming the function that
/// queued it: `aclrtLaunchHostFunc` for a host function on a subscribed
/// default stream.
#[test]
fn cb_sub_1_a_bounded_wait_says_which_function_queued_the_unserved_callback() {
    let exe = std::env::current_exe().expect("the test binary");
    let out = std::process::Command::new(exe)
        .args([
            "--exact",
            test_name(module_path!(), "unserved_warning_child").as_str(),
            "--nocapture",
        ])
        .env("ACLRT_UNSERVED_CHILD", "1")
        .env("ACLRT_SIM_REPORT", "none")
        .output()
        .expect("spawn the child");
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        out.status.success() && stdout.contains("child: done"),
        "child: {:?}\n--- stdout\n{stdout}\n--- stderr\n{stderr}",
        out.status
    );
    assert!(
        stderr.contains("blocked on an unserved callback")
            && stderr.contains("queued by aclrtLaunchHostFunc"),
        "no warning naming aclrtLaunchHostFunc:\n{stderr}"
    );
}
