//! Virtual memory, IPC memory and notifies through the safe API, and the
//! attacks on them from safe code (leaks, another thread, a host-function
//! callback, a device reset while mapped or imported), in both run modes,
//! with the simulator's audit clean wherever nothing is leaked on purpose.

use crate::common;

use std::sync::{Arc, Mutex};

use aclrt::sim;
use aclrt::{Access, Acl, Context, Error, ErrorKind, Result, RunMode, make_guard};
use common::*;

/// Runs `f` against a fresh context of device 0 in both run modes, then
/// destroys the context, resets the device, finalises and checks the audit.
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

fn vmm_flow<M: RunMode>(ctx: &Context<'_, '_, M>) -> Result<()> {
    let gran = ctx.granularity()?;
    assert!(gran.bytes() > 0);
    assert!(gran.granules(0).is_err(), "zero granules are refused");
    assert_eq!(gran.granules_for(1)?.count(), 1);
    assert_eq!(gran.granules_for(gran.bytes() + 1)?.count(), 2);
    let range = ctx.reserve(gran.granules(4)?)?;
    let mut a = ctx.alloc_physical(gran.granules(2)?)?;
    let mut b = ctx.alloc_physical(gran.granules(2)?)?;
    let mut c = ctx.alloc_physical(gran.granules(1)?)?;
    {
        let mut m = range.map(1, &mut a)?;
        assert_eq!(m.access()?, Access::ReadWrite);
        // Overlapping the mapped granules, or past the end: refused, nothing mapped.
        let e = range.map(2, &mut b).expect_err("overlap");
        assert!(matches!(e, Error::OutOfRange { .. }), "{e:?}");
        let e = range.map(3, &mut b).expect_err("past the end");
        assert!(matches!(e, Error::OutOfRange { .. }), "{e:?}");
        let e = m.grow(&mut b).expect_err("grow past the end");
        assert!(matches!(e, Error::OutOfRange { .. }), "{e:?}");
        // The granule before it is free.
        let mut before = range.map(0, &mut c)?;
        let n = gran.bytes() / 4;
        let data = pattern_u32(2 * n, 7);
        ctx.copy(&data, &mut m.view_mut::<u32>())?;
        ctx.memset(&mut before.view_mut::<u8>(), 0xEE)?;
        let mut back = vec![0u32; 2 * n];
        ctx.copy(&m.view::<u32>(), &mut back)?;
        assert_eq!(back, data);
        // Mapped memory in a scope, like any device view.
        let s = ctx.create_stream()?;
        let mut out = ctx.alloc_host_zeroed::<u8>(gran.bytes())?;
        let src = before.view::<u8>();
        ctx.scope(|sc| {
            make_guard!(l);
            let lane = sc.lane(&s, l);
            let got = lane.copy(&src, &mut out)?.wait()?;
            assert!(got.iter().all(|x| x == 0xEE));
            Ok(())
        })?;
        m.set_access(Access::Read)?;
        assert_eq!(m.access()?, Access::Read);
    }
    // Unmapped: the granules are free again.
    drop(range.map(1, &mut b)?);
    a.free()?;
    drop((b, c));
    range.release()
}

#[test]
fn virtual_memory() {
    both_modes(vmm_flow, vmm_flow);
}

fn shareable_flow<M: RunMode>(ctx: &Context<'_, '_, M>) -> Result<()> {
    let gran = ctx.granularity()?;
    let phys = ctx.alloc_physical(gran.granules(1)?)?;
    let shared = phys.export(&[std::process::id()])?;
    assert_eq!(shared.granules, 1);
    // Its own export: a second writable mapping of its memory is refused.
    let e = ctx.import_physical(shared).expect_err("own export");
    assert_eq!(e.kind(), ErrorKind::InvalidParam);
    phys.free()
}

#[test]
fn shareable_handles() {
    both_modes(shareable_flow, shareable_flow);
}

fn notify_flow<M: RunMode>(ctx: &Context<'_, '_, M>) -> Result<()> {
    let (p, c) = (ctx.create_stream()?, ctx.create_stream()?);
    let n = ctx.create_notify()?;
    let log = Arc::new(Mutex::new(Vec::new()));
    // Wait first, record later, from another thread.
    c.wait_notify(&n)?;
    let l = Arc::clone(&log);
    c.launch_host_fn(move || l.lock().unwrap().push("consumer"))?;
    std::thread::scope(|t| {
        t.spawn(|| -> Result<()> {
            std::thread::sleep(std::time::Duration::from_millis(20));
            let l = Arc::clone(&log);
            p.launch_host_fn(move || l.lock().unwrap().push("producer"))?;
            p.record_notify(&n)
        })
        .join()
        .expect("no panic")
    })?;
    c.synchronize()?;
    assert_eq!(*log.lock().unwrap(), ["producer", "consumer"]);
    let key = n.export(&[std::process::id()])?;
    assert!(!key.as_str().is_empty());
    // An import is a second handle of the same flag: recorded through it,
    // waited for through the original.
    let imported = ctx.import_notify(&key)?;
    c.wait_notify(&n)?;
    p.record_notify(&imported)?;
    c.synchronize()?;
    p.synchronize()?;
    drop(imported);
    assert!(
        ctx.wait_notify_zero_timeout_refused(&c, &n),
        "a zero timeout is refused"
    );
    drop(n); // waited and recorded: synchronises, then destroyed
    p.synchronize()?;
    Ok(())
}

/// Local helper trait so that the flow above reads top to bottom.
trait ZeroTimeout<'id> {
    fn wait_notify_zero_timeout_refused(
        &self,
        s: &aclrt::Stream<'_, 'id>,
        n: &aclrt::Notify<'_, 'id>,
    ) -> bool;
}

impl<'id, M: RunMode> ZeroTimeout<'id> for Context<'_, 'id, M> {
    fn wait_notify_zero_timeout_refused(
        &self,
        s: &aclrt::Stream<'_, 'id>,
        n: &aclrt::Notify<'_, 'id>,
    ) -> bool {
        matches!(
            s.wait_notify_timeout(n, std::time::Duration::ZERO),
            Err(Error::InvalidTimeout { .. })
        )
    }
}

#[test]
fn notifies() {
    both_modes(notify_flow, notify_flow);
}

fn ipc_self_flow<M: RunMode>(ctx: &Context<'_, '_, M>) -> Result<()> {
    let buf = ctx.alloc_from(&pattern_u32(1024, 3))?;
    let export = ctx.export_ipc(&buf, &[std::process::id()])?;
    // Its own export: a second name for a buffer it owns is refused.
    let e = ctx
        .import_ipc::<u32>(export.key())
        .expect_err("own export refused");
    assert_eq!(e.kind(), ErrorKind::InvalidParam);
    drop(export);
    drop(buf);
    Ok(())
}

#[test]
fn ipc_own_export_refused() {
    both_modes(ipc_self_flow, ipc_self_flow);
}

// ------------------------------------------------------------ attacks

/// A forgotten mapping keeps its range and allocation: their release and
/// free are refused without a runtime call (`LiveChildren`), the context's
/// destruction too, and no runtime rule is broken.
#[test]
fn forget_mapping() {
    for config in [host_config(), device_config()] {
        let _sim = take(config);
        let acl = Acl::init().expect("aclInit");
        let r: Result<()> = (|| {
            let run = |ctx: &Context<'_, '_, aclrt::HostMode>| -> Result<()> {
                let gran = ctx.granularity()?;
                let range = ctx.reserve(gran.granules(2)?)?;
                let mut phys = ctx.alloc_physical(gran.granules(1)?)?;
                std::mem::forget(range.map(0, &mut phys)?);
                let e = phys.free().expect_err("still mapped");
                assert!(
                    matches!(
                        e,
                        Error::LiveChildren {
                            function: "aclrtFreePhysical",
                            ..
                        }
                    ),
                    "{e:?}"
                );
                let e = range.release().expect_err("still mapped");
                assert!(
                    matches!(
                        e,
                        Error::LiveChildren {
                            function: "aclrtReleaseMemAddress",
                            ..
                        }
                    ),
                    "{e:?}"
                );
                Ok(())
            };
            if let Ok(rt) = acl.require::<aclrt::HostMode>() {
                let device = rt.device(0)?;
                make_guard!(g);
                let ctx = device.create_context(g)?;
                run(&ctx)?;
                let e = ctx.destroy().expect_err("children leaked");
                assert!(matches!(e, Error::LiveChildren { .. }), "{e:?}");
                std::mem::forget(device);
            } else {
                let rt = acl.require::<aclrt::DeviceMode>()?;
                let device = rt.device(0)?;
                make_guard!(g);
                let ctx = device.create_context(g)?;
                let gran = ctx.granularity()?;
                let range = ctx.reserve(gran.granules(2)?)?;
                let mut phys = ctx.alloc_physical(gran.granules(1)?)?;
                std::mem::forget(range.map(0, &mut phys)?);
                assert!(phys.free().is_err());
                assert!(range.release().is_err());
                assert!(ctx.destroy().is_err());
                std::mem::forget(device);
            }
            Ok(())
        })();
        r.expect("attack flow");
        let audit = sim::audit();
        assert!(audit.violations.is_empty(), "{audit:#?}");
        drop(acl);
        sim::reset();
        assert_clean();
    }
}

/// A device reset while a reservation, a physical allocation or an IPC
/// import lives is refused (`LiveChildren`), nothing called.
#[test]
fn reset_while_mapped_is_refused() {
    for config in [host_config(), device_config()] {
        let _sim = take(config);
        let acl = Acl::init().expect("aclInit");
        let r: Result<()> = (|| {
            let rt = match acl.detect() {
                aclrt::Detected::Host(rt) => rt,
                aclrt::Detected::Device(_) => return device_mode_reset(&acl),
            };
            let device = rt.device(0)?;
            make_guard!(g);
            let ctx = device.default_context(g);
            let gran = ctx.granularity()?;
            let range = ctx.reserve(gran.granules(1)?)?;
            let mut phys = ctx.alloc_physical(gran.granules(1)?)?;
            let m = range.map(0, &mut phys)?;
            std::mem::forget(m);
            std::mem::forget(range);
            std::mem::forget(phys);
            let e = device.reset().expect_err("reset with live children");
            assert!(matches!(e, Error::LiveChildren { .. }), "{e:?}");
            Ok(())
        })();
        r.expect("attack flow");
        let audit = sim::audit();
        assert!(audit.violations.is_empty(), "{audit:#?}");
        drop(acl);
        sim::reset();
        assert_clean();
    }
}

fn device_mode_reset(acl: &Acl) -> Result<()> {
    let rt = acl.require::<aclrt::DeviceMode>()?;
    let device = rt.device(0)?;
    make_guard!(g);
    let ctx = device.default_context(g);
    let gran = ctx.granularity()?;
    let range = ctx.reserve(gran.granules(1)?)?;
    std::mem::forget(range);
    let e = device.reset().expect_err("reset with a live reservation");
    assert!(matches!(e, Error::LiveChildren { .. }), "{e:?}");
    Ok(())
}

/// A notify dropped while a wait for it may still be queued is not
/// destroyed under the wait: it is leaked (the audit shows the one
/// notify), no rule broken, and its stream's failure is still reported by
/// that stream's own synchronisation (the drop synchronised nothing).
/// Host run mode: a wait without a limit and no record; device run mode: a
/// wait with a limit that runs out.
#[test]
fn drop_notify_with_unmatched_wait() {
    for (config, untimed) in [(host_config(), true), (device_config(), false)] {
        let _sim = take(config);
        let acl = Acl::init().expect("aclInit");
        let r: Result<()> = (|| {
            let rt = acl.require::<aclrt::HostMode>();
            let device_mode = rt.is_err();
            if device_mode {
                let device = acl.require::<aclrt::DeviceMode>()?.device(0)?;
                make_guard!(g);
                let ctx = device.create_context(g)?;
                let s = ctx.create_stream()?;
                let n = ctx.create_notify()?;
                assert!(!untimed);
                s.wait_notify_timeout(&n, std::time::Duration::from_millis(10))?;
                // Dropped while its wait is queued: kept (leaked), not
                // destroyed, and nothing synchronised in its place.
                drop(n);
                // The limit (a second) passed: the stream's own
                // synchronisation reports its fault.
                let e = s.synchronize().expect_err("the wait timed out");
                assert_eq!(e.kind(), ErrorKind::Timeout, "{e:?}");
                std::mem::forget(s);
                std::mem::forget(ctx);
                std::mem::forget(device);
            } else {
                let device = rt?.device(0)?;
                make_guard!(g);
                let ctx = device.create_context(g)?;
                let s = ctx.create_stream()?;
                let n = ctx.create_notify()?;
                s.wait_notify(&n)?;
                drop(n); // leaked: the wait can never end
                std::mem::forget(s);
                std::mem::forget(ctx);
                std::mem::forget(device);
            }
            Ok(())
        })();
        r.expect("flow");
        let audit = sim::audit();
        assert!(audit.violations.is_empty(), "{audit:#?}");
        assert_eq!(live(&audit, sim::ResourceKind::Notify), 1, "{audit:#?}");
        drop(acl);
        sim::reset();
        assert_clean();
    }
}

/// A notify recorded from inside a host function (a callback on the
/// runtime's thread) releases a stream that waits for it; the scope ends
/// normally and everything is released clean.
fn notify_from_callback_flow<M: RunMode>(ctx: &Context<'_, '_, M>) -> Result<()> {
    let (p, c, h) = (
        ctx.create_stream()?,
        ctx.create_stream()?,
        ctx.create_stream()?,
    );
    let n = ctx.create_notify()?;
    c.wait_notify(&n)?;
    let recorded = Mutex::new(None);
    ctx.scope(|s| {
        make_guard!(l);
        let lane = s.lane(&h, l);
        lane.host_fn(|| {
            *recorded.lock().unwrap() = Some(p.record_notify(&n));
        })?;
        lane.synchronize()
    })?;
    recorded.into_inner().unwrap().expect("host function ran")?;
    c.synchronize()?;
    p.synchronize()?;
    drop(n);
    Ok(())
}

#[test]
fn notify_recorded_from_a_callback() {
    both_modes(notify_from_callback_flow, notify_from_callback_flow);
}

/// The importing process exits without closing its import (no drop runs):
/// the exporter's buffer, export and context are unaffected, and its
/// audit is clean.
#[test]
fn importer_exits_without_closing() {
    if std::env::var_os("ACLRT_IPC_CHILD").is_some() {
        return;
    }
    for (config, mode) in [(host_config(), "host"), (device_config(), "device")] {
        let _sim = take(config);
        let acl = Acl::init().expect("aclInit");
        let r: Result<()> = if mode == "host" {
            with_ctx(&acl, |ctx: &Context<'_, '_, aclrt::HostMode>| {
                ipc_parent(ctx, mode)
            })
        } else {
            with_ctx(&acl, |ctx: &Context<'_, '_, aclrt::DeviceMode>| {
                ipc_parent(ctx, mode)
            })
        };
        r.expect("parent flow");
        acl.finalize().expect("aclFinalize");
        assert_clean();
    }
}

fn ipc_parent<M: RunMode>(ctx: &Context<'_, '_, M>, mode: &str) -> Result<()> {
    use std::io::Write;
    let buf = ctx.alloc_from(&pattern_u32(4096, 11))?;
    let mut child = std::process::Command::new(std::env::current_exe().expect("test binary"))
        .args([
            "--exact",
            test_name(module_path!(), "ipc_child_exits").as_str(),
            "--nocapture",
        ])
        .env("ACLRT_IPC_CHILD", mode)
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::null())
        .spawn()
        .expect("spawn the child");
    let export = ctx.export_ipc(&buf, &[child.id()]);
    let sent = export
        .as_ref()
        .map(|e| {
            let mut stdin = child.stdin.take().expect("piped");
            writeln!(stdin, "{}", e.key().as_str()).is_ok()
        })
        .unwrap_or(false);
    let status = child.wait().expect("child ends");
    let export = export?;
    assert!(sent, "the key was sent");
    assert!(status.success(), "child: {status}");
    drop(export);
    let mut back = vec![0u32; 4096];
    ctx.copy(&buf, &mut back)?;
    assert_eq!(back[..16], [0xDEAD_BEEF; 16], "the child's write arrived");
    assert_eq!(back[16..], pattern_u32(4096, 11)[16..]);
    buf.free()
}

/// The child of `importer_exits_without_closing`: imports, writes, and
/// exits at once (no destructor, no `aclrtIpcMemClose`, no finalize).
/// Without its variable it passes at once (the suite keeps 0 ignored tests).
#[test]
fn ipc_child_exits() {
    use std::io::BufRead;
    let Some(mode) = std::env::var_os("ACLRT_IPC_CHILD") else {
        return;
    };
    let _sim = take(if mode == "device" {
        device_config()
    } else {
        host_config()
    });
    let mut line = String::new();
    std::io::stdin().lock().read_line(&mut line).expect("key");
    let key = aclrt::IpcKey::new(line.trim()).expect("key");
    let acl = Acl::init().expect("aclInit");
    let write = |ctx: &Context<'_, '_, aclrt::HostMode>| -> Result<()> {
        let mut shared = ctx.import_ipc::<u32>(&key)?;
        ctx.copy(
            &[0xDEAD_BEEFu32; 16],
            &mut shared.view_mut().split_at_mut(16)?.0,
        )?;
        std::process::exit(0);
    };
    let write_d = |ctx: &Context<'_, '_, aclrt::DeviceMode>| -> Result<()> {
        let mut shared = ctx.import_ipc::<u32>(&key)?;
        ctx.copy(
            &[0xDEAD_BEEFu32; 16],
            &mut shared.view_mut().split_at_mut(16)?.0,
        )?;
        std::process::exit(0);
    };
    let r = if mode == "device" {
        with_ctx(&acl, write_d)
    } else {
        with_ctx(&acl, write)
    };
    r.expect("child flow");
    std::process::exit(1);
}
