//! Sharing between two processes through the C ABI, in both run modes:
//! physical memory by shareable handle, notifies by key, IPC events by
//! handle (`sim/FIDELITY.md` rows VMM-6, NOTIFY-4, IPC-EVENT-1).
//!
//! Each parent test starts this test binary again, running only its child
//! half (the `child_*` test of the same name, selected with `--exact`) with
//! [`ROLE`] set; without it, a child half returns at once. The two talk
//! over the child's stdin and stdout (lines starting with `@ipc `). Every
//! wait on the other process has a limit, and the parent kills the child
//! when it fails ([`Peer`]'s drop).

use crate::common;
use common::*;

use std::io::{BufRead, Write};
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::mpsc::{Receiver, channel};

/// Set (to the run mode) in a child process.
const ROLE: &str = "ACLRT_SIM_IPC_TEST_CHILD";
/// How long either side waits for the other.
const LIMIT: Duration = Duration::from_secs(30);

fn mode_name(mode: RunMode) -> &'static str {
    match mode {
        RunMode::Host => "host",
        RunMode::Device => "device",
    }
}

/// The harness's name of test `name` of this file: its module path within
/// the test binary (none when the file is the binary's root, a module path
/// when a binary groups it with others).
fn test_path(name: &str) -> String {
    match module_path!().split_once("::") {
        Some((_, module)) => format!("{module}::{name}"),
        None => name.to_owned(),
    }
}

/// The child process of a parent test.
struct Peer {
    child: Child,
    stdin: Option<ChildStdin>,
    lines: Receiver<String>,
    done: bool,
}

impl Peer {
    /// Starts the child half `test` of this binary in run mode `mode`.
    fn start(test: &str, mode: RunMode) -> Peer {
        let exe = std::env::current_exe().expect("the test binary's path");
        let mut child = Command::new(exe)
            .args([
                &test_path(test),
                "--exact",
                "--nocapture",
                "--test-threads=1",
            ])
            .env(ROLE, mode_name(mode))
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .spawn()
            .expect("start the child process");
        let stdin = child.stdin.take();
        let stdout = child.stdout.take().expect("piped stdout");
        let (tx, lines) = channel();
        std::thread::spawn(move || {
            for line in std::io::BufReader::new(stdout).lines() {
                let Ok(line) = line else { break };
                // The harness may print its test line just before.
                if let Some(at) = line.find("@ipc ") {
                    if tx.send(line[at + 5..].to_owned()).is_err() {
                        break;
                    }
                }
            }
        });
        Peer {
            child,
            stdin,
            lines,
            done: false,
        }
    }

    fn pid(&self) -> i32 {
        self.child.id() as i32
    }

    /// Sends one line to the child.
    fn send(&mut self, msg: &str) {
        let stdin = self.stdin.as_mut().expect("the child's stdin");
        writeln!(stdin, "{msg}").expect("write to the child");
        stdin.flush().expect("flush to the child");
    }

    /// The child's next message, which must start with `what`; the rest.
    #[track_caller]
    fn expect(&mut self, what: &str) -> String {
        let msg = self
            .lines
            .recv_timeout(LIMIT)
            .unwrap_or_else(|e| panic!("no {what:?} from the child ({e})"));
        match msg.strip_prefix(what) {
            Some(rest) => rest.trim().to_owned(),
            None => panic!("the child said {msg:?}, expected {what:?}"),
        }
    }

    /// Waits (within the limit) for the child to exit, successfully.
    #[track_caller]
    fn finish(mut self) {
        drop(self.stdin.take());
        let start = Instant::now();
        loop {
            if let Some(status) = self.child.try_wait().expect("the child's status") {
                self.done = true;
                assert!(status.success(), "the child failed: {status}");
                return;
            }
            assert!(start.elapsed() < LIMIT, "the child did not exit");
            std::thread::sleep(Duration::from_millis(10));
        }
    }
}

impl Drop for Peer {
    fn drop(&mut self) {
        if !self.done {
            let _ = self.child.kill();
            let _ = self.child.wait();
        }
    }
}

/// In a child process: its run mode (the simulator configured for it) and
/// a lock on the simulator; `None` in any other.
fn child_role() -> Option<aclrt_sim::Exclusive> {
    let mode = match std::env::var(ROLE).ok()?.as_str() {
        "host" => RunMode::Host,
        "device" => RunMode::Device,
        other => panic!("{ROLE}={other}"),
    };
    let sim = aclrt_sim::exclusive();
    aclrt_sim::reset();
    configure(|c| c.run_mode = mode);
    Some(sim)
}

/// In a child: sends `msg` to the parent.
fn tell(msg: &str) {
    let mut out = std::io::stdout().lock();
    writeln!(out, "@ipc {msg}").expect("write to the parent");
    out.flush().expect("flush to the parent");
}

/// In a child: the parent's next line (the parent gone: a panic).
fn hear() -> String {
    let mut line = String::new();
    let n = std::io::stdin()
        .lock()
        .read_line(&mut line)
        .expect("read from the parent");
    assert!(n > 0, "the parent closed the pipe");
    line.trim().to_owned()
}

fn shm_file(name: &str) -> std::path::PathBuf {
    let dir = std::path::Path::new("/dev/shm");
    if dir.is_dir() {
        dir.join(name)
    } else {
        std::env::temp_dir().join(name)
    }
}

const GRANULE: usize = 2 << 20;

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

/// A reservation of one granule with `phys` mapped into it.
fn map_granule(phys: aclrtDrvMemHandle) -> *mut c_void {
    let mut va = null_mut();
    ok!(aclrtReserveMemAddress(&mut va, GRANULE, 0, null_mut(), 0));
    ok!(aclrtMapMem(va, GRANULE, 0, phys, 0));
    va
}

fn unmap_granule(va: *mut c_void) {
    ok!(aclrtUnmapMem(va));
    ok!(aclrtReleaseMemAddress(va));
}

// ------------------------------------------------------ physical memory ---

#[test]
fn physical_memory_exported_by_shareable_handle_is_shared_with_a_listed_process() {
    let _sim = aclrt_sim::exclusive();
    in_both_run_modes(|mode| {
        init_device0();
        let mut phys = null_mut();
        ok!(aclrtMallocPhysical(&mut phys, GRANULE, &device_prop(), 0));
        let va = map_granule(phys);
        // Bytes written before the export move with it.
        h2d(va, &pattern(4096, 1));
        let mut listed = 0u64;
        ok!(aclrtMemExportToShareableHandle(
            phys,
            ACL_MEM_HANDLE_TYPE_NONE,
            0,
            &mut listed
        ));
        let file = shm_file(&format!(
            "aclsim_vmm_{}_{}",
            listed >> 32,
            listed & 0xffff_ffff
        ));
        assert!(file.exists(), "{mode:?}: {}", file.display());
        // A second export, never listed for the child.
        let mut other = null_mut();
        ok!(aclrtMallocPhysical(&mut other, GRANULE, &device_prop(), 0));
        let mut unlisted = 0u64;
        ok!(aclrtMemExportToShareableHandle(
            other,
            ACL_MEM_HANDLE_TYPE_NONE,
            0,
            &mut unlisted
        ));

        let mut peer = Peer::start("child_imports_physical_memory", mode);
        let mut pid = [peer.pid()];
        ok!(aclrtMemSetPidToShareableHandle(listed, pid.as_mut_ptr(), 1));
        peer.send(&format!("{listed} {unlisted}"));
        assert_eq!(
            peer.expect("refused"),
            ACL_ERROR_RT_NO_PERMISSION.to_string()
        );
        peer.expect("written");
        // The child's bytes, through the exporter's own mapping.
        assert_eq!(read_device(va, 4096), pattern(4096, 2), "{mode:?}");
        peer.send("next");
        peer.finish();

        unmap_granule(va);
        ok!(aclrtFreePhysical(phys));
        ok!(aclrtFreePhysical(other));
        // The exporter's free removes the shared file.
        assert!(!file.exists(), "{mode:?}: {} stays", file.display());
        teardown_device0();
        assert_clean();
    });
}

#[test]
fn child_imports_physical_memory() {
    let Some(_sim) = child_role() else { return };
    init_device0();
    let msg = hear();
    let mut handles = msg.split(' ').map(|v| v.parse::<u64>().expect("a handle"));
    let (listed, unlisted) = (handles.next().unwrap(), handles.next().unwrap());
    let mut refused = null_mut();
    let code = acl!(aclrtMemImportFromShareableHandle(unlisted, 0, &mut refused));
    tell(&format!("refused {code}"));
    let mut imported = null_mut();
    ok!(aclrtMemImportFromShareableHandle(listed, 0, &mut imported));
    let va = map_granule(imported);
    assert_eq!(read_device(va, 4096), pattern(4096, 1));
    h2d(va, &pattern(4096, 2));
    tell("written");
    assert_eq!(hear(), "next");
    unmap_granule(va);
    ok!(aclrtFreePhysical(imported));
    teardown_device0();
}

#[test]
fn a_shareable_handle_of_a_process_that_freed_it_is_unknown() {
    let _sim = aclrt_sim::exclusive();
    init_device0();
    let mut phys = null_mut();
    ok!(aclrtMallocPhysical(&mut phys, GRANULE, &device_prop(), 0));
    let mut s = 0u64;
    // Pid validation disabled: any process may import.
    ok!(aclrtMemExportToShareableHandle(
        phys,
        ACL_MEM_HANDLE_TYPE_NONE,
        1,
        &mut s
    ));
    let mut peer = Peer::start("child_imports_a_freed_handle", RunMode::Host);
    peer.send(&s.to_string());
    assert_eq!(peer.expect("imported"), "0");
    ok!(aclrtFreePhysical(phys));
    peer.send("freed");
    assert_eq!(
        peer.expect("after free"),
        ACL_ERROR_RT_PARAM_INVALID.to_string()
    );
    peer.finish();
    teardown_device0();
}

#[test]
fn child_imports_a_freed_handle() {
    let Some(_sim) = child_role() else { return };
    init_device0();
    let s: u64 = hear().parse().expect("a handle");
    let mut h = null_mut();
    let code = acl!(aclrtMemImportFromShareableHandle(s, 0, &mut h));
    tell(&format!("imported {code}"));
    ok!(aclrtFreePhysical(h));
    assert_eq!(hear(), "freed");
    let code = acl!(aclrtMemImportFromShareableHandle(s, 0, &mut h));
    tell(&format!("after free {code}"));
    teardown_device0();
}

// ------------------------------------------------------------- notifies ---

fn key_text(key: &[std::ffi::c_char]) -> String {
    // SAFETY: the runtime wrote a NUL-terminated key into the buffer.
    let c = unsafe { std::ffi::CStr::from_ptr(key.as_ptr()) };
    c.to_str().expect("an ASCII key").to_owned()
}

#[test]
fn a_notify_imported_by_key_orders_streams_of_two_processes() {
    let _sim = aclrt_sim::exclusive();
    in_both_run_modes(|mode| {
        init_device0();
        let s = create_stream();
        let (mut n, mut unlisted) = (null_mut(), null_mut());
        ok!(aclrtCreateNotify(&mut n, 0));
        ok!(aclrtCreateNotify(&mut unlisted, 0));
        let mut key = [0 as std::ffi::c_char; 128];
        ok!(aclrtNotifyGetExportKey(n, key.as_mut_ptr(), key.len(), 0));
        let mut key2 = [0 as std::ffi::c_char; 128];
        ok!(aclrtNotifyGetExportKey(
            unlisted,
            key2.as_mut_ptr(),
            key2.len(),
            0
        ));
        let file = shm_file(&key_text(&key));
        assert!(file.exists(), "{mode:?}: {}", file.display());

        let mut peer = Peer::start("child_waits_for_and_records_a_notify", mode);
        let mut pid = [peer.pid()];
        ok!(aclrtNotifySetImportPid(n, pid.as_mut_ptr(), 1));
        peer.send(&format!("{} {}", key_text(&key), key_text(&key2)));
        assert_eq!(
            peer.expect("refused"),
            ACL_ERROR_RT_NO_PERMISSION.to_string()
        );
        // The child's wait task holds its stream until this record runs.
        peer.expect("waiting");
        ok!(aclrtRecordNotify(n, s));
        ok!(aclrtSynchronizeStream(s));
        peer.expect("released");
        // The other way: the importer's record releases the exporter's wait.
        ok!(aclrtWaitAndResetNotify(n, s, 30));
        std::thread::sleep(Duration::from_millis(50));
        assert_eq!(stream_status(s), ACL_STREAM_STATUS_NOT_READY, "{mode:?}");
        peer.send("record");
        ok!(aclrtSynchronizeStream(s));
        peer.finish();

        ok!(aclrtDestroyNotify(n));
        ok!(aclrtDestroyNotify(unlisted));
        assert!(!file.exists(), "{mode:?}: {} stays", file.display());
        destroy_stream(s);
        teardown_device0();
        assert_clean();
    });
}

#[test]
fn child_waits_for_and_records_a_notify() {
    let Some(_sim) = child_role() else { return };
    init_device0();
    let msg = hear();
    let mut keys = msg.split(' ').map(|k| std::ffi::CString::new(k).unwrap());
    let (key, unlisted) = (keys.next().unwrap(), keys.next().unwrap());
    let mut refused = null_mut();
    let code = acl!(aclrtNotifyImportByKey(&mut refused, unlisted.as_ptr(), 0));
    tell(&format!("refused {code}"));
    let mut n = null_mut();
    ok!(aclrtNotifyImportByKey(&mut n, key.as_ptr(), 0));
    let s = create_stream();
    ok!(aclrtWaitAndResetNotify(n, s, 30));
    std::thread::sleep(Duration::from_millis(50));
    assert_eq!(stream_status(s), ACL_STREAM_STATUS_NOT_READY);
    tell("waiting");
    ok!(aclrtSynchronizeStream(s));
    tell("released");
    assert_eq!(hear(), "record");
    ok!(aclrtRecordNotify(n, s));
    ok!(aclrtSynchronizeStream(s));
    ok!(aclrtDestroyNotify(n));
    destroy_stream(s);
    teardown_device0();
}

// ----------------------------------------------------------- IPC events ---

#[test]
fn an_ipc_event_opened_in_another_process_is_released_by_the_exporters_record() {
    let _sim = aclrt_sim::exclusive();
    in_both_run_modes(|mode| {
        init_device0();
        let (s, gate_stream) = (create_stream(), create_stream());
        let ev = create_event_ex(ACL_EVENT_IPC);
        // The record waits behind a notify of this process; it is issued
        // before the handle is taken (the event is shared from its
        // creation, as the runtime sets it up).
        let mut gate = null_mut();
        ok!(aclrtCreateNotify(&mut gate, 0));
        ok!(aclrtWaitAndResetNotify(gate, s, 30));
        ok!(aclrtRecordEvent(ev, s));
        let mut handle = aclrtIpcEventHandle { reserved: [0; 64] };
        ok!(aclrtIpcGetEventHandle(ev, &mut handle));
        let text = key_text(&handle.reserved);
        let file = shm_file(&text);
        assert!(file.exists(), "{mode:?}: {}", file.display());

        let mut peer = Peer::start("child_waits_for_an_ipc_event", mode);
        peer.send(&text);
        peer.expect("waiting");
        ok!(aclrtRecordNotify(gate, gate_stream));
        ok!(aclrtSynchronizeStream(s));
        peer.expect("released");
        peer.finish();

        destroy_event(ev);
        assert!(!file.exists(), "{mode:?}: {} stays", file.display());
        ok!(aclrtDestroyNotify(gate));
        destroy_stream(s);
        destroy_stream(gate_stream);
        teardown_device0();
        assert_clean();
    });
}

#[test]
fn child_waits_for_an_ipc_event() {
    let Some(_sim) = child_role() else { return };
    init_device0();
    let text = hear();
    let mut handle = aclrtIpcEventHandle { reserved: [0; 64] };
    for (d, b) in handle.reserved.iter_mut().zip(text.bytes()) {
        *d = b as std::ffi::c_char;
    }
    let mut ev = null_mut();
    ok!(aclrtIpcOpenEventHandle(handle, &mut ev));
    assert_eq!(event_status(ev), ACL_EVENT_RECORDED_STATUS_NOT_READY);
    let s = create_stream();
    ok!(aclrtStreamWaitEvent(s, ev));
    std::thread::sleep(Duration::from_millis(50));
    assert_eq!(stream_status(s), ACL_STREAM_STATUS_NOT_READY);
    tell("waiting");
    ok!(aclrtSynchronizeStreamWithTimeout(s, 30_000));
    assert_eq!(event_status(ev), ACL_EVENT_RECORDED_STATUS_COMPLETE);
    ok!(aclrtSynchronizeEventWithTimeout(ev, 30_000));
    tell("released");
    destroy_event(ev);
    destroy_stream(s);
    teardown_device0();
}

// ------------------------------------------------------- the exit hook ---

#[test]
fn an_exporters_shared_files_go_when_it_exits() {
    let _sim = aclrt_sim::exclusive();
    let mut peer = Peer::start("child_exports_and_exits", RunMode::Host);
    let names: Vec<String> = peer
        .expect("exported")
        .split(' ')
        .map(str::to_owned)
        .collect();
    assert_eq!(names.len(), 3, "{names:?}");
    for n in &names {
        assert!(shm_file(n).exists(), "{n}");
    }
    peer.send("exit");
    peer.finish();
    for n in &names {
        assert!(!shm_file(n).exists(), "{n} stays after its exporter exited");
        assert!(!shm_file(&format!("{n}.pids")).exists(), "{n}.pids stays");
    }
}

#[test]
fn child_exports_and_exits() {
    let Some(_sim) = child_role() else { return };
    init_device0();
    let mut phys = null_mut();
    ok!(aclrtMallocPhysical(&mut phys, GRANULE, &device_prop(), 0));
    let mut s = 0u64;
    ok!(aclrtMemExportToShareableHandle(
        phys,
        ACL_MEM_HANDLE_TYPE_NONE,
        0,
        &mut s
    ));
    let mut n = null_mut();
    ok!(aclrtCreateNotify(&mut n, 0));
    let mut key = [0 as std::ffi::c_char; 128];
    ok!(aclrtNotifyGetExportKey(n, key.as_mut_ptr(), key.len(), 0));
    let ev = create_event_ex(ACL_EVENT_IPC);
    let mut handle = aclrtIpcEventHandle { reserved: [0; 64] };
    ok!(aclrtIpcGetEventHandle(ev, &mut handle));
    tell(&format!(
        "exported aclsim_vmm_{}_{} {} {}",
        s >> 32,
        s & 0xffff_ffff,
        key_text(&key),
        key_text(&handle.reserved)
    ));
    assert_eq!(hear(), "exit");
    // Neither freed, destroyed nor finalized: the process just exits.
}

#[test]
fn an_exporters_shared_files_go_at_its_teardown() {
    let _sim = aclrt_sim::exclusive();
    in_both_run_modes(|mode| {
        init_device0();
        let mut phys = null_mut();
        ok!(aclrtMallocPhysical(&mut phys, GRANULE, &device_prop(), 0));
        let mut s = 0u64;
        ok!(aclrtMemExportToShareableHandle(
            phys,
            ACL_MEM_HANDLE_TYPE_NONE,
            0,
            &mut s
        ));
        let mut n = null_mut();
        ok!(aclrtCreateNotify(&mut n, 0));
        let mut key = [0 as std::ffi::c_char; 128];
        ok!(aclrtNotifyGetExportKey(n, key.as_mut_ptr(), key.len(), 0));
        let ev = create_event_ex(ACL_EVENT_IPC);
        let mut handle = aclrtIpcEventHandle { reserved: [0; 64] };
        ok!(aclrtIpcGetEventHandle(ev, &mut handle));
        let names = [
            format!("aclsim_vmm_{}_{}", s >> 32, s & 0xffff_ffff),
            key_text(&key),
            key_text(&handle.reserved),
        ];
        for n in &names {
            assert!(shm_file(n).exists(), "{mode:?}: {n}");
        }
        // Nothing freed or destroyed: the teardown removes the files.
        teardown_device0();
        for n in &names {
            assert!(
                !shm_file(n).exists(),
                "{mode:?}: {n} stays after the teardown"
            );
        }
        aclrt_sim::reset();
    });
}
