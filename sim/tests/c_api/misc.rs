//! Error messages, versions, constants and the call counter (acl-facts §1,
//! §3, §4, §5.9).

use crate::common;
use common::*;

#[test]
fn recent_err_msg_describes_the_last_failure_and_keeps_it() {
    let _sim = aclrt_sim::exclusive();
    init();
    assert_eq!(recent_err_msg(), None, "nothing failed on this thread yet");
    assert_eq!(acl!(aclrtSetDevice(9)), ACL_ERROR_RT_INVALID_DEVICEID);
    let msg = recent_err_msg().expect("a message after a failure");
    assert!(!msg.is_empty());
    assert!(
        msg.contains("aclrtSetDevice") || msg.contains('9') || msg.contains("107001"),
        "message does not say what failed: {msg:?}"
    );
    // Not cleared on read (ACL `aclGetRecentErrMsgImpl` keeps its
    // thread-local text): the same text again.
    assert_eq!(recent_err_msg().as_deref(), Some(msg.as_str()));
    // A later failure's message goes in front of the kept text.
    assert_eq!(acl!(aclrtSetDevice(-1)), ACL_ERROR_RT_INVALID_DEVICEID);
    let both = recent_err_msg().expect("a message after the second failure");
    assert!(
        both.ends_with(&format!("\n{msg}")) && both.len() > msg.len() + 1,
        "the new message first, then the kept one: {both:?}"
    );
    finalize();
    assert_clean();
}

#[test]
fn recent_err_msg_reports_the_latest_failure() {
    let session = device0();
    let mut p: *mut c_void = null_mut();
    assert_eq!(
        acl!(aclrtMalloc(&mut p, 0, ACL_MEM_MALLOC_HUGE_FIRST)),
        ACL_ERROR_INVALID_PARAM
    );
    assert_eq!(
        acl!(aclrtDestroyStream(null_mut())),
        ACL_ERROR_INVALID_PARAM
    );
    let msg = recent_err_msg().expect("a message after a failure");
    assert!(
        msg.contains("aclrtDestroyStream") || msg.to_lowercase().contains("stream"),
        "the latest failure was aclrtDestroyStream: {msg:?}"
    );
    session.finish();
}

#[test]
fn recent_err_msg_is_per_thread() {
    let _sim = aclrt_sim::exclusive();
    init();
    // Clear anything left on this thread.
    let _ = recent_err_msg();
    let other = std::thread::spawn(|| {
        assert_eq!(acl!(aclrtSetDevice(-1)), ACL_ERROR_RT_INVALID_DEVICEID);
        recent_err_msg()
    })
    .join()
    .unwrap();
    assert!(other.is_some_and(|m| !m.is_empty()));
    let mine = recent_err_msg();
    assert!(
        mine.as_deref().is_none_or(str::is_empty),
        "another thread's failure leaked here: {mine:?}"
    );
    finalize();
    assert_clean();
}

#[test]
fn recent_err_msg_is_null_or_empty_without_failure() {
    let session = device0();
    let _ = recent_err_msg();
    let p = malloc(64);
    free(p);
    let msg = recent_err_msg();
    assert!(msg.as_deref().is_none_or(str::is_empty), "{msg:?}");
    session.finish();
}

#[test]
fn violation_message_matches_recent_err_msg() {
    let _sim = aclrt_sim::exclusive();
    init_device0();
    let p = malloc(64);
    free(p);
    let _ = recent_err_msg();
    let code = acl!(aclrtFree(p));
    assert_eq!(code, ACL_ERROR_RT_MEMORY_FREE);
    let msg = recent_err_msg().expect("a message after a failure");
    let audit = aclrt_sim::audit();
    assert_eq!(audit.violations.len(), 1, "{:#?}", audit.violations);
    assert_eq!(audit.violations[0].function, "aclrtFree");
    assert_eq!(audit.violations[0].code, code);
    assert_eq!(audit.violations[0].message, msg);
    teardown_device0();
    expect_violations(&[ViolationKind::DoubleFree]);
}

#[test]
fn get_version_reports_1_17_0() {
    let _sim = aclrt_sim::exclusive();
    init();
    let (mut major, mut minor, mut patch) = (-1, -1, -1);
    ok!(aclrtGetVersion(&mut major, &mut minor, &mut patch));
    assert_eq!(
        (major, minor, patch),
        (ACL_MAJOR_VERSION, ACL_MINOR_VERSION, ACL_PATCH_VERSION)
    );
    assert_eq!((major, minor, patch), (1, 17, 0));
    finalize();
    assert_clean();
}

#[test]
fn get_version_null_output_returns_100000() {
    let _sim = aclrt_sim::exclusive();
    init();
    let (mut major, mut minor) = (-1, -1);
    assert_eq!(
        acl!(aclrtGetVersion(&mut major, &mut minor, null_mut())),
        ACL_ERROR_INVALID_PARAM
    );
    finalize();
    assert_clean();
}

#[test]
fn sys_get_version_str_of_unknown_package_returns_100003() {
    let _sim = aclrt_sim::exclusive();
    init();
    let mut name = *b"no-such-package\0";
    let mut out = [0 as std::ffi::c_char; ACL_PKG_VERSION_MAX_SIZE];
    assert_eq!(
        acl!(aclsysGetVersionStr(
            name.as_mut_ptr().cast(),
            out.as_mut_ptr()
        )),
        ACL_ERROR_INVALID_FILE
    );
    finalize();
    assert_clean();
}

#[test]
fn sys_get_version_str_of_runtime_is_a_dotted_version() {
    let _sim = aclrt_sim::exclusive();
    init();
    let mut name = *b"runtime\0";
    let mut out = [0 as std::ffi::c_char; ACL_PKG_VERSION_MAX_SIZE];
    ok!(aclsysGetVersionStr(
        name.as_mut_ptr().cast(),
        out.as_mut_ptr()
    ));
    // SAFETY: the buffer is NUL-terminated by the runtime (checked below by
    // the bounded search before CStr reads it).
    assert!(out.contains(&0));
    // SAFETY: `out` contains a NUL within its 128 bytes (asserted above).
    let s = unsafe { std::ffi::CStr::from_ptr(out.as_ptr()) }
        .to_string_lossy()
        .into_owned();
    assert!(
        s.contains('.') && s.chars().next().is_some_and(|c| c.is_ascii_digit()),
        "version string {s:?}"
    );
    let mut num = -1;
    ok!(aclsysGetVersionNum(name.as_mut_ptr().cast(), &mut num));
    assert!(num > 0, "version number {num}");
    finalize();
    assert_clean();
}

#[test]
fn error_code_constants_have_the_documented_values() {
    let _sim = aclrt_sim::exclusive();
    let acl_layer = [
        (ACL_SUCCESS, 0),
        (ACL_ERROR_INVALID_PARAM, 100000),
        (ACL_ERROR_UNINITIALIZE, 100001),
        (ACL_ERROR_REPEAT_INITIALIZE, 100002),
        (ACL_ERROR_INVALID_FILE, 100003),
        (ACL_ERROR_REPEAT_SUBSCRIBE, 100033),
        (ACL_ERROR_REPEAT_FINALIZE, 100037),
        (ACL_ERROR_BAD_ALLOC, 200000),
        (ACL_ERROR_FEATURE_UNSUPPORTED, 200006),
        (ACL_ERROR_INTERNAL_ERROR, 500000),
    ];
    let rt_layer = [
        (ACL_ERROR_RT_PARAM_INVALID, 107000),
        (ACL_ERROR_RT_INVALID_DEVICEID, 107001),
        (ACL_ERROR_RT_CONTEXT_NULL, 107002),
        (ACL_ERROR_RT_STREAM_CONTEXT, 107003),
        (ACL_ERROR_RT_INVALID_HANDLE, 107017),
        (ACL_ERROR_RT_FEATURE_NOT_SUPPORT, 207000),
        (ACL_ERROR_RT_MEMORY_ALLOCATION, 207001),
        (ACL_ERROR_RT_INTERNAL_ERROR, 507000),
        (ACL_ERROR_RT_CONTEXT_RELEASE_ERROR, 507007),
        (ACL_ERROR_RT_REPORT_TIMEOUT, 507012),
        (ACL_ERROR_RT_AICORE_EXCEPTION, 507015),
        (ACL_ERROR_RT_STREAM_SYNC_TIMEOUT, 507046),
        (ACL_ERROR_RT_EVENT_SYNC_TIMEOUT, 507047),
    ];
    for (got, want) in acl_layer.into_iter().chain(rt_layer) {
        assert_eq!(got, want);
    }
    assert_clean();
}

#[test]
fn status_enums_have_the_documented_values() {
    let _sim = aclrt_sim::exclusive();
    // aclrtEventRecordedStatus is the reverse of the other status enums.
    assert_eq!(
        (
            ACL_EVENT_RECORDED_STATUS_NOT_READY,
            ACL_EVENT_RECORDED_STATUS_COMPLETE
        ),
        (0, 1)
    );
    assert_eq!(
        (ACL_EVENT_STATUS_COMPLETE, ACL_EVENT_STATUS_NOT_READY),
        (0, 1)
    );
    assert_eq!(
        (ACL_STREAM_STATUS_COMPLETE, ACL_STREAM_STATUS_NOT_READY),
        (0, 1)
    );
    assert_eq!(
        (
            ACL_MEMCPY_HOST_TO_HOST,
            ACL_MEMCPY_HOST_TO_DEVICE,
            ACL_MEMCPY_DEVICE_TO_HOST,
            ACL_MEMCPY_DEVICE_TO_DEVICE,
            ACL_MEMCPY_DEFAULT
        ),
        (0, 1, 2, 3, 4)
    );
    assert_eq!((ACL_DEVICE, ACL_HOST), (0, 1));
    assert_eq!(
        (
            ACL_EVENT_SYNC,
            ACL_EVENT_TIME_LINE,
            ACL_EVENT_EXTERNAL,
            ACL_EVENT_IPC
        ),
        (0x1, 0x8, 0x20, 0x40)
    );
    assert_clean();
}

#[test]
fn call_counts_count_each_c_function() {
    let _sim = aclrt_sim::exclusive();
    aclrt_sim::reset_call_counts();
    init_device0();
    let p = malloc(64);
    let q = malloc(64);
    free(p);
    free(q);
    teardown_device0();
    let counts = aclrt_sim::call_counts();
    let get = |name: &str| {
        counts
            .iter()
            .find(|(n, _)| *n == name)
            .map(|&(_, c)| c)
            .unwrap_or(0)
    };
    assert_eq!(get("aclInit"), 1);
    assert_eq!(get("aclrtSetDevice"), 1);
    assert_eq!(get("aclrtMalloc"), 2);
    assert_eq!(get("aclrtFree"), 2);
    assert_eq!(get("aclFinalize"), 1);
    assert_eq!(counts[0].0, "aclInit", "first-call order");
    assert_eq!(aclrt_sim::total_calls(), 8);
    aclrt_sim::reset_call_counts();
    assert_eq!(aclrt_sim::total_calls(), 0);
    assert!(aclrt_sim::call_counts().is_empty());
    assert_clean();
}

#[test]
fn cann_version_fills_the_version_strings() {
    let _sim = aclrt_sim::exclusive();
    init();
    // SAFETY: aclCANNPackageVersion is plain C chars; all-zero is valid.
    let mut v: aclCANNPackageVersion = unsafe { std::mem::zeroed() };
    ok!(aclsysGetCANNVersion(ACL_PKG_NAME_RUNTIME, &mut v));
    let text = |field: &[std::ffi::c_char]| {
        let bytes: Vec<u8> = field
            .iter()
            .take_while(|&&c| c != 0)
            .map(|&c| c as u8)
            .collect();
        String::from_utf8(bytes).unwrap()
    };
    let full = text(&v.version);
    let major = text(&v.majorVersion);
    let minor = text(&v.minorVersion);
    assert!(!major.is_empty() && major.chars().all(|c| c.is_ascii_digit()));
    assert!(
        full.starts_with(&format!("{major}.{minor}")),
        "{full:?} vs {major}.{minor}"
    );
    assert_eq!(
        acl!(aclsysGetCANNVersion(8, &mut v)),
        ACL_ERROR_INVALID_PARAM
    );
    assert_eq!(
        acl!(aclsysGetCANNVersion(ACL_PKG_NAME_CANN, null_mut())),
        ACL_ERROR_INVALID_PARAM
    );
    finalize();
    assert_clean();
}

/// C calls made from a thread-local destructor, after the simulator's own
/// per-thread state (the recent message and its returned text) is gone:
/// each answers as while the thread lived (a code, and the message), and
/// nothing unwinds into C (before the fix the first failing call aborted
/// the process: the message's thread-local panicked inside `extern "C"`).
#[test]
fn c_calls_in_a_thread_local_destructor_answer_with_their_messages() {
    use std::sync::mpsc;

    struct AtExit(mpsc::Sender<(i32, Option<String>, i32, i32)>);
    impl Drop for AtExit {
        fn drop(&mut self) {
            let mut p: *mut c_void = null_mut();
            let code = acl!(aclrtMalloc(&mut p, 1 << 50, ACL_MEM_MALLOC_HUGE_FIRST));
            let msg = recent_err_msg();
            let last = acl!(aclrtGetLastError(ACL_RT_THREAD_LEVEL));
            let reset = acl!(aclrtResetDevice(0));
            let _ = self.0.send((code, msg, last, reset));
        }
    }
    std::thread_local! {
        static AT_EXIT: std::cell::RefCell<Option<AtExit>> = const { std::cell::RefCell::new(None) };
    }

    let _sim = aclrt_sim::exclusive();
    init();
    let (tx, rx) = mpsc::channel();
    std::thread::spawn(move || {
        ok!(aclrtSetDevice(0));
        AT_EXIT.with(|a| *a.borrow_mut() = Some(AtExit(tx)));
        // A failure and its message now: the simulator's per-thread state is
        // made after `AT_EXIT`, so it is destroyed before it.
        assert_eq!(acl!(aclrtSetDevice(99)), ACL_ERROR_RT_INVALID_DEVICEID);
        assert!(recent_err_msg().is_some());
    })
    .join()
    .expect("the thread ends normally");
    let (code, msg, last, reset) = rx.recv().expect("the destructor ran");
    assert_eq!(code, ACL_ERROR_RT_MEMORY_ALLOCATION);
    let msg = msg.expect("the message of the failure");
    assert!(msg.contains("aclrtMalloc"), "{msg}");
    assert_eq!(last, ACL_ERROR_RT_MEMORY_ALLOCATION);
    assert_eq!(reset, ACL_SUCCESS);
    finalize();
    assert_clean();
}

/// `aclAppLog` (the C-variadic entry point of `app_log.c`) formats its
/// arguments, writes records at or above the default level (error) with
/// the caller's location, and nothing for lower or unknown levels or a NULL
/// argument; an overlong message is cut to 1023 bytes with the mark.
#[test]
fn app_log_formats_filters_and_truncates() {
    let tag = format!("tag{}", std::process::id());
    let tag_c = std::ffi::CString::new(tag.clone()).unwrap();
    let long = std::ffi::CString::new("y".repeat(3000)).unwrap();
    // SAFETY: NUL-terminated literals and strings; each format's
    // conversions match the arguments passed (an int, a C string, a double).
    unsafe {
        aclAppLog(
            ACL_ERROR,
            c"fn_a".as_ptr(),
            c"a.c".as_ptr(),
            12,
            c"%s %d %.1f".as_ptr(),
            tag_c.as_ptr(),
            7i32,
            2.5f64,
        );
        aclAppLog(
            ACL_INFO,
            c"fn_b".as_ptr(),
            c"b.c".as_ptr(),
            1,
            c"%s info".as_ptr(),
            tag_c.as_ptr(),
        );
        aclAppLog(
            7,
            c"fn_c".as_ptr(),
            c"c.c".as_ptr(),
            1,
            c"%s seven".as_ptr(),
            tag_c.as_ptr(),
        );
        aclAppLog(
            ACL_ERROR,
            null(),
            c"d.c".as_ptr(),
            1,
            c"%s null".as_ptr(),
            tag_c.as_ptr(),
        );
        aclAppLog(
            ACL_ERROR,
            c"fn_e".as_ptr(),
            c"e.c".as_ptr(),
            3,
            c"%s %s".as_ptr(),
            tag_c.as_ptr(),
            long.as_ptr(),
        );
    }
    let mine: Vec<String> = aclrt_sim::app_log_records()
        .into_iter()
        .filter(|r| r.contains(&tag))
        .collect();
    assert_eq!(mine.len(), 2, "{mine:?}");
    assert!(mine[0].starts_with("[ERROR] "), "{}", mine[0]);
    assert!(
        mine[0].ends_with(&format!(" fn_a:a.c:12: \"{tag} 7 2.5\"")),
        "{}",
        mine[0]
    );
    let cut = mine[1].strip_prefix("[ERROR] ").unwrap();
    assert_eq!(cut.len(), 1023);
    assert!(cut.ends_with("...[truncated]") && cut.contains(" fn_e:e.c:3: \""));
}

/// A `%n` conversion is refused as the runtime's bounded formatter refuses
/// it: nothing is stored through the argument and the record is replaced
/// by the runtime's complaint.
#[test]
fn app_log_refuses_a_percent_n_conversion() {
    let mut stored: i32 = -7;
    let before = aclrt_sim::app_log_records().len();
    // SAFETY: NUL-terminated literals; the one conversion (%n) is matched
    // by a pointer to a live int (which the simulator must not write).
    unsafe {
        aclAppLog(
            ACL_ERROR,
            c"fn_n".as_ptr(),
            c"n.c".as_ptr(),
            1,
            c"ab%ncd".as_ptr(),
            &mut stored as *mut i32,
        );
    }
    assert_eq!(stored, -7);
    let records = aclrt_sim::app_log_records();
    assert!(records.len() > before || records.len() == 256);
    assert!(
        records
            .iter()
            .any(|r| r == "[ERROR] aclAppLog format string is invalid"),
        "{records:?}"
    );
}
