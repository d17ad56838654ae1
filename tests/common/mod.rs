//! Helpers shared by the integration tests of `aclrt`.
//!
//! Every test takes `aclrt::sim::exclusive()` first (the runtime is process
//! global and the guard also resets the simulator), may `configure` the
//! simulator before `Acl::init`, and ends with [`assert_clean`] after every
//! handle has been dropped or finalised.
//!
//! The simulator runs with its default strictness (`Strictness::Report`, what
//! users get): a misuse the hardware lets through is answered as the hardware
//! does and only recorded, so it is the clean audit at the end of every test
//! that catches a misuse by the crate.
#![allow(dead_code)]

use aclrt::sim::{self, Audit, ResourceKind, SimConfig, ViolationKind};

/// The simulator in host run mode (`ACL_HOST`), two devices.
pub fn host_config() -> SimConfig {
    SimConfig::default()
}

/// The simulator in device run mode (`ACL_DEVICE`), two devices.
pub fn device_config() -> SimConfig {
    SimConfig {
        run_mode: sim::RunMode::Device,
        ..SimConfig::default()
    }
}

/// Take the simulator for this test and configure it.
pub fn take(config: SimConfig) -> sim::Exclusive {
    let guard = sim::exclusive();
    sim::configure(config);
    guard
}

/// A non-trivial `u32` pattern: no two neighbours equal, never all zero.
pub fn pattern_u32(n: usize, seed: u32) -> Vec<u32> {
    (0..n as u32)
        .map(|i| i.wrapping_mul(2_654_435_761).wrapping_add(seed) ^ 0x5a5a_0000)
        .collect()
}

/// A non-trivial `f32` pattern.
pub fn pattern_f32(n: usize, seed: f32) -> Vec<f32> {
    (0..n)
        .map(|i| seed + i as f32 * 0.5 - (i % 7) as f32)
        .collect()
}

/// A non-trivial byte pattern.
pub fn pattern_u8(n: usize, seed: u8) -> Vec<u8> {
    (0..n)
        .map(|i| (i as u8).wrapping_mul(31).wrapping_add(seed))
        .collect()
}

/// Zero violations, zero leaks, nothing alive.
#[track_caller]
pub fn assert_clean() {
    sim::audit().assert_clean();
}

/// The kinds of the leaks recorded at finalize, sorted.
pub fn leak_kinds(audit: &Audit) -> Vec<ResourceKind> {
    let mut kinds: Vec<ResourceKind> = audit.leaks.iter().map(|l| l.kind).collect();
    kinds.sort();
    kinds
}

/// The kinds of the recorded violations, in order.
pub fn violation_kinds(audit: &Audit) -> Vec<ViolationKind> {
    audit.violations.iter().map(|v| v.kind).collect()
}

/// How many resources of `kind` are alive now, over all devices.
pub fn live(audit: &Audit, kind: ResourceKind) -> usize {
    audit
        .live
        .iter()
        .filter(|((k, _), _)| *k == kind)
        .map(|(_, n)| *n)
        .sum()
}

/// The message of a panic payload.
pub fn panic_message(payload: &(dyn std::any::Any + Send)) -> String {
    if let Some(s) = payload.downcast_ref::<&str>() {
        (*s).to_owned()
    } else if let Some(s) = payload.downcast_ref::<String>() {
        s.clone()
    } else {
        "<non-string panic payload>".to_owned()
    }
}

/// How long [`HeldGate`] waits before it gives up: a hang guard only, so
/// that a broken library fails the test instead of hanging the suite. No
/// test relies on anything finishing within it.
pub const HANG_GUARD: std::time::Duration = std::time::Duration::from_secs(30);

/// The state of a host function that holds its stream until the test opens
/// the gate ([`HeldGate::body`]), shared with that function.
#[derive(Clone, Default)]
pub struct HeldGate {
    open: std::sync::Arc<std::sync::atomic::AtomicBool>,
    entered: std::sync::Arc<std::sync::atomic::AtomicBool>,
    left: std::sync::Arc<std::sync::atomic::AtomicBool>,
    passed: std::sync::Arc<std::sync::atomic::AtomicBool>,
}

impl HeldGate {
    pub fn new() -> HeldGate {
        HeldGate::default()
    }

    /// The host function: marks its start, waits (up to [`HANG_GUARD`]) for
    /// [`open`](Self::open), notes whether the gate was opened, returns.
    pub fn body(&self) -> impl FnOnce() + Send + 'static {
        use std::sync::atomic::Ordering::SeqCst;
        let g = self.clone();
        move || {
            g.entered.store(true, SeqCst);
            if wait_until(|| g.open.load(SeqCst)) {
                g.passed.store(true, SeqCst);
            }
            g.left.store(true, SeqCst);
        }
    }

    pub fn open(&self) {
        self.open.store(true, std::sync::atomic::Ordering::SeqCst);
    }

    /// A guard that opens the gate when dropped: a test drops it where the
    /// held host function may go on, and a test that returns early (an
    /// error, a failed assertion) lets the function go too.
    pub fn opener(&self) -> GateOpener<'_> {
        GateOpener(self)
    }

    pub fn entered(&self) -> bool {
        self.entered.load(std::sync::atomic::Ordering::SeqCst)
    }

    pub fn left(&self) -> bool {
        self.left.load(std::sync::atomic::Ordering::SeqCst)
    }

    /// Whether it returned because the gate was opened (not at the guard).
    pub fn passed(&self) -> bool {
        self.passed.load(std::sync::atomic::Ordering::SeqCst)
    }
}

/// Opens its [`HeldGate`] when dropped ([`HeldGate::opener`]).
pub struct GateOpener<'a>(&'a HeldGate);

impl Drop for GateOpener<'_> {
    fn drop(&mut self) {
        self.0.open();
    }
}

/// Polls `cond` until it holds (`true`) or [`HANG_GUARD`] passes (`false`).
pub fn wait_until(cond: impl Fn() -> bool) -> bool {
    let t0 = std::time::Instant::now();
    while !cond() {
        // Hang guard, not a time bound on the property under test.
        if t0.elapsed() > HANG_GUARD {
            return false;
        }
        std::thread::sleep(std::time::Duration::from_micros(200));
    }
    true
}

/// The frame most scope tests share: the simulator in host run mode, a
/// context on device 0 for `f`, and, after `f`, the context destroyed, the
/// device reset, the runtime finalised and the audit clean. `f`'s streams
/// and buffers are its own: it destroys (or drops) them before returning.
pub fn in_host_context(
    f: impl for<'d, 'id> FnOnce(&aclrt::Context<'d, 'id, aclrt::HostMode>) -> aclrt::Result<()>,
) -> aclrt::Result<()> {
    let _sim = take(host_config());
    let acl = aclrt::Acl::init()?;
    {
        let device = acl.require::<aclrt::HostMode>()?.device(0)?;
        aclrt::make_guard!(g);
        let ctx = device.create_context(g)?;
        f(&ctx)?;
        ctx.destroy()?;
        device.reset()?;
    }
    acl.finalize()?;
    assert_clean();
    Ok(())
}

/// The name libtest gives the test `name` of the module whose
/// `module_path!()` is `module`: the path without the binary's crate name
/// (`failure_rule::rule::x` is the test `rule::x`). A test that runs one
/// test of its own binary in a child process filters with this, so the
/// filter follows the test wherever its module sits.
pub fn test_name(module: &str, name: &str) -> String {
    match module.split_once("::") {
        Some((_, path)) => format!("{path}::{name}"),
        None => name.to_owned(),
    }
}
