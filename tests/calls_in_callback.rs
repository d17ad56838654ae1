//! Blocking calls inside a report callback are refused (`Error::InCallback`).
//!
//! Its own test binary: to give a `'static` callback a handle it can block
//! with, it leaks its `Acl` (a `Device<'static, _>`), and a leaked `Acl`
//! stays the process's one live `Acl`.

mod common;

use std::sync::mpsc;
use std::time::Duration;

use aclrt::sim;
use aclrt::{Acl, Error, HostMode, Reporter, make_guard};
use common::*;

#[test]
fn blocking_calls_inside_a_callback_are_refused() {
    // A callback is `'static`: what it can own is a handle of a leaked
    // (`'static`) `Acl`, e.g. a `Device<'static, _>`. Waiting for the device
    // from the reporter thread could wait for the BLOCK callback itself: it
    // is refused with `InCallback` instead of deadlocking.
    let _sim = take(host_config());
    let acl: &'static Acl = Box::leak(Box::new(Acl::init().unwrap()));
    let device = acl.require::<HostMode>().unwrap().device(0).unwrap();
    make_guard!(g);
    let ctx = device.create_context(g).unwrap();
    let stream = ctx.create_stream().unwrap();
    let reporter = Reporter::spawn().unwrap();
    let (tx, rx) = mpsc::channel();
    let mut answers = Vec::new();
    {
        let sub = reporter.subscribe(&stream).unwrap();
        let owned = acl.require::<HostMode>().unwrap().device(0).unwrap();
        let other = Reporter::spawn().unwrap();
        sub.launch_blocking(move || {
            let a = owned.synchronize();
            let b = owned.synchronize_timeout(Duration::from_secs(1));
            // Stopping another reporter from here joins a different
            // thread: allowed.
            let c = other.stop();
            // Hand the device back: resetting it here would be refused too.
            tx.send((a, b, c, owned)).unwrap();
        })
        .unwrap();
        stream.synchronize().unwrap();
        let (a, b, c, owned) = rx.recv_timeout(Duration::from_secs(5)).unwrap();
        answers.push(a);
        answers.push(b);
        assert!(c.is_ok(), "{c:?}");
        owned.reset().unwrap();
    }
    for answer in answers {
        assert!(
            matches!(answer, Err(Error::InCallback { .. })),
            "{answer:?}"
        );
    }
    reporter.stop().unwrap();
    drop(stream);
    drop(ctx);
    device.reset().unwrap();
    assert!(sim::audit().violations.is_empty());
}
