//! The safe API's sharing between two processes, in both run modes:
//! `Context::import_physical` (the child maps the parent's physical memory
//! and writes it), `Context::import_notify` (a record in one process
//! releases a wait in the other, the order seen through memory), and
//! `Context::open_ipc_event` (the exporter's record releases the opened
//! event's wait); a process not on an export's allow-list is refused.
//!
//! Each parent test starts this test binary again, running only its child
//! half (`child_*`, selected with `--exact`) with [`ROLE`] set and
//! `ACLRT_SIM_RUN_MODE` naming the parent's run mode; without [`ROLE`] a
//! child half returns at once. The two talk over the child's stdin and
//! stdout (lines with `@ipc `). Every wait on the other process has a
//! limit, and the parent kills the child when it fails.

use crate::common;

use std::io::{BufRead, Write};
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::{Receiver, channel};
use std::time::{Duration, Instant};

use aclrt::sim;
use aclrt::{
    Acl, Context, Detected, ExIpc, IpcEventKey, NotifyKey, Result, RunMode, ShareableHandle,
    make_guard,
};
use common::*;

/// Set in a child process.
const ROLE: &str = "ACLRT_TESTS_IPC_CHILD";
/// How long either side waits for the other.
const LIMIT: Duration = Duration::from_secs(30);
/// 207006, `ACL_ERROR_RT_NO_PERMISSION`: an import by a process the
/// export did not list.
const NO_PERMISSION: i32 = 207_006;

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
    /// Starts the child half `test` in run mode `mode` (`host`, `device`).
    fn start(test: &str, mode: &str) -> Peer {
        let exe = std::env::current_exe().expect("the test binary's path");
        let mut child = Command::new(exe)
            .args([
                &test_path(test),
                "--exact",
                "--nocapture",
                "--test-threads=1",
            ])
            .env(ROLE, "1")
            .env("ACLRT_SIM_RUN_MODE", mode)
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

    fn pid(&self) -> u32 {
        self.child.id()
    }

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

/// The parent: runs `f` (host run mode) and `g` (device run mode) against
/// a fresh context of device 0 each, then checks the audit.
fn both_modes(
    f: impl for<'id> Fn(&Context<'_, 'id, aclrt::HostMode>) -> Result<()> + Copy,
    g: impl for<'id> Fn(&Context<'_, 'id, aclrt::DeviceMode>) -> Result<()> + Copy,
) {
    for device_mode in [false, true] {
        let _sim = take(if device_mode {
            device_config()
        } else {
            host_config()
        });
        let acl = Acl::init().expect("aclInit");
        if device_mode {
            with_ctx(&acl, g).expect("flow (device run mode)");
        } else {
            with_ctx(&acl, f).expect("flow (host run mode)");
        }
        acl.finalize().expect("aclFinalize");
        assert_clean();
    }
}

fn with_ctx<M: RunMode>(
    acl: &Acl,
    f: impl for<'id> FnOnce(&Context<'_, 'id, M>) -> Result<()>,
) -> Result<()> {
    let device = acl.require::<M>()?.device(0)?;
    make_guard!(g);
    let ctx = device.create_context(g)?;
    f(&ctx)?;
    ctx.destroy()?;
    device.reset()
}

/// The child: in a child process only, runs `f` or `g` in the run mode the
/// parent named (`ACLRT_SIM_RUN_MODE`), then checks the audit.
fn as_child(
    f: impl for<'id> Fn(&Context<'_, 'id, aclrt::HostMode>) -> Result<()> + Copy,
    g: impl for<'id> Fn(&Context<'_, 'id, aclrt::DeviceMode>) -> Result<()> + Copy,
) {
    if std::env::var_os(ROLE).is_none() {
        return;
    }
    let _sim = take(sim::SimConfig::from_env());
    let acl = Acl::init().expect("aclInit");
    let device_mode = matches!(acl.detect(), Detected::Device(_));
    let want = std::env::var("ACLRT_SIM_RUN_MODE").unwrap_or_default();
    assert_eq!(device_mode, want == "device", "run mode {want:?}");
    if device_mode {
        with_ctx(&acl, g).expect("child flow (device run mode)");
    } else {
        with_ctx(&acl, f).expect("child flow (host run mode)");
    }
    acl.finalize().expect("aclFinalize");
    assert_clean();
}

fn mode_of<M: RunMode>() -> &'static str {
    if core::any::type_name::<M>().ends_with("DeviceMode") {
        "device"
    } else {
        "host"
    }
}

// ------------------------------------------------------ physical memory ---

fn physical_parent<M: RunMode>(ctx: &Context<'_, '_, M>) -> Result<()> {
    let gran = ctx.granularity()?;
    let n = gran.bytes() / 4;
    let range = ctx.reserve(gran.granules(1)?)?;
    let mut phys = ctx.alloc_physical(gran.granules(1)?)?;
    let unlisted = ctx.alloc_physical(gran.granules(1)?)?;
    {
        // Bytes written before the export go with it.
        let mut m = range.map(0, &mut phys)?;
        ctx.copy(&pattern_u32(n, 1), &mut m.view_mut::<u32>())?;
    }
    let mut peer = Peer::start("child_imports_physical_memory", mode_of::<M>());
    let listed = phys.export(&[peer.pid()])?;
    let refused = unlisted.export(&[std::process::id()])?;
    peer.send(&format!(
        "{} {} {} {}",
        listed.handle, listed.granules, refused.handle, refused.granules
    ));
    assert_eq!(peer.expect("refused"), NO_PERMISSION.to_string());
    peer.expect("written");
    {
        let m = range.map(0, &mut phys)?;
        let mut back = vec![0u32; n];
        ctx.copy(&m.view::<u32>(), &mut back)?;
        assert_eq!(back, pattern_u32(n, 2), "the child's writes");
    }
    peer.send("next");
    peer.finish();
    Ok(())
}

#[test]
fn physical_memory_exported_for_a_process_is_imported_and_written_there() {
    both_modes(physical_parent, physical_parent);
}

fn physical_child<M: RunMode>(ctx: &Context<'_, '_, M>) -> Result<()> {
    let msg = hear();
    let v: Vec<u64> = msg
        .split(' ')
        .map(|v| v.parse().expect("a number"))
        .collect();
    let handle = |i: usize| ShareableHandle {
        handle: v[i],
        granules: v[i + 1] as usize,
    };
    let e = ctx.import_physical(handle(2)).expect_err("not listed");
    tell(&format!("refused {}", e.code().unwrap_or(0)));
    let gran = ctx.granularity()?;
    let n = gran.bytes() / 4;
    let mut phys = ctx.import_physical(handle(0))?;
    let range = ctx.reserve(gran.granules(1)?)?;
    {
        let mut m = range.map(0, &mut phys)?;
        let mut seen = vec![0u32; n];
        ctx.copy(&m.view::<u32>(), &mut seen)?;
        assert_eq!(seen, pattern_u32(n, 1), "the parent's bytes");
        ctx.copy(&pattern_u32(n, 2), &mut m.view_mut::<u32>())?;
    }
    tell("written");
    assert_eq!(hear(), "next");
    Ok(())
}

#[test]
fn child_imports_physical_memory() {
    as_child(physical_child, physical_child);
}

// ------------------------------------------------------------- notifies ---

fn notify_parent<M: RunMode>(ctx: &Context<'_, '_, M>) -> Result<()> {
    let gran = ctx.granularity()?;
    let s = ctx.create_stream()?;
    let n = ctx.create_notify()?;
    let unlisted = ctx.create_notify()?;
    // Memory both processes see: physical memory, mapped in each.
    let range = ctx.reserve(gran.granules(1)?)?;
    let mut phys = ctx.alloc_physical(gran.granules(1)?)?;
    let mut peer = Peer::start("child_waits_for_a_notify", mode_of::<M>());
    let key = n.export(&[peer.pid()])?;
    let refused = unlisted.export(&[std::process::id()])?;
    let shared = phys.export(&[peer.pid()])?;
    peer.send(&format!(
        "{} {} {} {}",
        key.as_str(),
        refused.as_str(),
        shared.handle,
        shared.granules
    ));
    assert_eq!(peer.expect("refused"), NO_PERMISSION.to_string());
    // The child's stream waits for the notify, then reads the memory.
    peer.expect("waiting");
    {
        let mut m = range.map(0, &mut phys)?;
        ctx.copy(&[7u32; 256], &mut m.view_mut::<u32>().split_at_mut(256)?.0)?;
    }
    s.record_notify(&n)?;
    s.synchronize()?;
    peer.expect("released");
    // The other way: the importer's record releases this process's wait.
    let ran = Arc::new(AtomicBool::new(false));
    s.wait_notify_timeout(&n, LIMIT)?;
    let r = ran.clone();
    s.launch_host_fn(move || r.store(true, Ordering::SeqCst))?;
    std::thread::sleep(Duration::from_millis(100));
    assert!(
        !ran.load(Ordering::SeqCst),
        "the wait did not hold the stream"
    );
    peer.send("record");
    s.synchronize_timeout(LIMIT)?;
    assert!(ran.load(Ordering::SeqCst));
    peer.finish();
    Ok(())
}

#[test]
fn a_notify_imported_by_another_process_orders_its_stream_after_the_record() {
    both_modes(notify_parent, notify_parent);
}

fn notify_child<M: RunMode>(ctx: &Context<'_, '_, M>) -> Result<()> {
    let msg = hear();
    let parts: Vec<&str> = msg.split(' ').collect();
    let e = ctx
        .import_notify(&NotifyKey::new(parts[1]).expect("a key"))
        .expect_err("not listed");
    tell(&format!("refused {}", e.code().unwrap_or(0)));
    let n = ctx.import_notify(&NotifyKey::new(parts[0]).expect("a key"))?;
    let gran = ctx.granularity()?;
    let mut phys = ctx.import_physical(ShareableHandle {
        handle: parts[2].parse().expect("a handle"),
        granules: parts[3].parse().expect("a count"),
    })?;
    let range = ctx.reserve(gran.granules(1)?)?;
    let s = ctx.create_stream()?;
    s.wait_notify_timeout(&n, LIMIT)?;
    let ran = Arc::new(AtomicBool::new(false));
    let r = ran.clone();
    s.launch_host_fn(move || r.store(true, Ordering::SeqCst))?;
    std::thread::sleep(Duration::from_millis(100));
    assert!(
        !ran.load(Ordering::SeqCst),
        "the wait did not hold the stream"
    );
    tell("waiting");
    s.synchronize_timeout(LIMIT)?;
    assert!(ran.load(Ordering::SeqCst));
    // Released by the record, which the parent issued after its write.
    let mut seen = vec![0u32; 256];
    {
        let m = range.map(0, &mut phys)?;
        ctx.copy(&m.view::<u32>().split_at(256)?.0, &mut seen)?;
    }
    assert_eq!(seen, vec![7u32; 256], "the write before the record");
    tell("released");
    assert_eq!(hear(), "record");
    s.record_notify(&n)?;
    s.synchronize_timeout(LIMIT)?;
    Ok(())
}

#[test]
fn child_waits_for_a_notify() {
    as_child(notify_child, notify_child);
}

// ----------------------------------------------------------- IPC events ---

fn event_parent<M: RunMode>(ctx: &Context<'_, '_, M>) -> Result<()> {
    let (s, gate_stream) = (ctx.create_stream()?, ctx.create_stream()?);
    let gate = ctx.create_notify()?;
    let event = ctx.create_event_of::<ExIpc>()?;
    let bytes = event.ipc_handle()?.key().to_bytes();
    let hex: String = bytes.iter().map(|b| format!("{b:02x}")).collect();
    // The record runs once this process opens the gate.
    s.wait_notify_timeout(&gate, LIMIT)?;
    let event = s.record(event)?;
    let mut peer = Peer::start("child_waits_for_an_ipc_event", mode_of::<M>());
    peer.send(&hex);
    peer.expect("waiting");
    gate_stream.record_notify(&gate)?;
    s.synchronize_timeout(LIMIT)?;
    peer.expect("released");
    peer.finish();
    drop(event);
    Ok(())
}

#[test]
fn an_ipc_event_opened_by_another_process_orders_its_stream_after_the_record() {
    both_modes(event_parent, event_parent);
}

fn event_child<M: RunMode>(ctx: &Context<'_, '_, M>) -> Result<()> {
    let hex = hear();
    let mut bytes = [0u8; 64];
    for (i, b) in bytes.iter_mut().enumerate() {
        *b = u8::from_str_radix(&hex[2 * i..2 * i + 2], 16).expect("hex");
    }
    let opened = ctx.open_ipc_event(&IpcEventKey::from_bytes(bytes))?;
    let s = ctx.create_stream()?;
    s.wait_ipc_event(&opened)?;
    let ran = Arc::new(AtomicBool::new(false));
    let r = ran.clone();
    s.launch_host_fn(move || r.store(true, Ordering::SeqCst))?;
    std::thread::sleep(Duration::from_millis(100));
    assert!(
        !ran.load(Ordering::SeqCst),
        "the wait did not hold the stream"
    );
    assert!(!s.is_complete()?);
    tell("waiting");
    s.synchronize_timeout(LIMIT)?;
    assert!(ran.load(Ordering::SeqCst));
    tell("released");
    Ok(())
}

#[test]
fn child_waits_for_an_ipc_event() {
    as_child(event_child, event_child);
}
