//! Two processes sharing device memory. The parent starts a copy of itself
//! (with the argument `child`), exports a device buffer for exactly that
//! child's pid and sends it the key on its stdin. The child opens the
//! memory (`Context::import_ipc`: memory it does not own, closed, never
//! freed, before its context goes), checks the parent's bytes, writes its
//! own and exits; the parent then reads them. The export borrows the
//! buffer, so the buffer cannot be freed while another process may use it.

use std::io::{BufRead, Write};
use std::process::{Command, Stdio};

use aclrt::{Acl, Detected, IpcKey, RunMode, Runtime, make_guard};

const N: usize = 1 << 16;

fn parent<M: RunMode>(rt: Runtime<'_, M>) -> aclrt::Result<()> {
    let device = rt.device(0)?;
    make_guard!(guard);
    let ctx = device.create_context(guard)?;
    let data: Vec<u32> = (0..N as u32).collect();
    let buf = ctx.alloc_from(&data)?;

    let exe = std::env::current_exe().expect("the example's path");
    let mut child = Command::new(exe)
        .arg("child")
        .stdin(Stdio::piped())
        .spawn()
        .expect("start the child");
    {
        let export = match ctx.export_ipc(&buf, &[child.id()]) {
            Ok(export) => export,
            Err(e) => {
                let _ = child.kill();
                let _ = child.wait();
                return Err(e);
            }
        };
        let mut stdin = child.stdin.take().expect("piped stdin");
        writeln!(stdin, "{}", export.key().as_str()).expect("send the key");
        drop(stdin);
        let status = child.wait().expect("the child ends");
        assert!(status.success(), "child failed: {status}");
    } // export closed here; only then may the buffer go
    let mut back = vec![0u32; N];
    ctx.copy(&buf, &mut back)?;
    assert!(
        back.iter().enumerate().all(|(i, &v)| v == !(i as u32)),
        "the child's writes are visible to the parent"
    );
    println!("parent: the child rewrote all {N} values in place");
    Ok(())
}

fn child<M: RunMode>(rt: Runtime<'_, M>) -> aclrt::Result<()> {
    let mut line = String::new();
    std::io::stdin()
        .lock()
        .read_line(&mut line)
        .expect("read the key");
    let key = IpcKey::new(line.trim()).expect("a key without NUL");
    let device = rt.device(0)?;
    make_guard!(guard);
    let ctx = device.create_context(guard)?;
    let mut shared = ctx.import_ipc::<u32>(&key)?;
    assert!(shared.len() >= N);
    let mut seen = vec![0u32; N];
    ctx.copy(&shared.view().split_at(N)?.0, &mut seen)?;
    assert!(seen.iter().enumerate().all(|(i, &v)| v == i as u32));
    let inverted: Vec<u32> = seen.iter().map(|v| !v).collect();
    ctx.copy(&inverted, &mut shared.view_mut().split_at_mut(N)?.0)?;
    println!("child: read the parent's {N} values and inverted them");
    Ok(()) // `shared` is closed (aclrtIpcMemClose) before `ctx` is destroyed
}

fn main() -> aclrt::Result<()> {
    let is_child = std::env::args().nth(1).as_deref() == Some("child");
    let acl = Acl::init()?;
    match (acl.detect(), is_child) {
        (Detected::Host(rt), false) => parent(rt)?,
        (Detected::Device(rt), false) => parent(rt)?,
        (Detected::Host(rt), true) => child(rt)?,
        (Detected::Device(rt), true) => child(rt)?,
    }
    acl.finalize()?;
    aclrt::sim_only! { aclrt::sim::audit().assert_clean(); }
    if !is_child {
        println!("27_ipc_processes: OK");
    }
    Ok(())
}
