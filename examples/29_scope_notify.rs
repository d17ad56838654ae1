//! Notifies as a scope's hand-off: a producer lane fills a buffer, a
//! consumer lane waits for the producer's notify *before* the producer has
//! queued anything, then copies the buffer. The scope takes the notify for
//! its whole life (`Scope::notify`), so only its lanes record or wait for
//! it, and it keeps the failure rule: a wait no record of the scope can end
//! never hangs. The second scope shows that: its producer fails before
//! recording, and the scope's end aborts the lanes and reports
//! `Error::NotifyNotRecorded` instead of waiting for ever.

use aclrt::{Acl, Detected, Error, RunMode, Runtime, make_guard};

fn run<M: RunMode>(rt: Runtime<'_, M>) -> aclrt::Result<()> {
    let device = rt.device(0)?;
    make_guard!(guard);
    let ctx = device.create_context(guard)?;
    let (producer, consumer) = (ctx.create_stream()?, ctx.create_stream()?);
    aclrt::sim_only! { aclrt::sim::set_stream_delay(producer.as_raw(), std::time::Duration::from_millis(20)); }
    let mut notify = ctx.create_notify()?;
    let mut data = ctx.alloc::<u8>(1024)?;
    let mut copy = ctx.alloc::<u8>(1024)?;

    ctx.scope(|s| {
        make_guard!(gp);
        make_guard!(gc);
        let (lp, lc) = (s.lane(&producer, gp), s.lane(&consumer, gc));
        let ready = s.notify(&mut notify)?;
        // The consumer's wait is queued first.
        lc.wait_notify(ready)?;
        // The producer fills the buffer, then records.
        let filled = lp.memset(&mut data, 42)?;
        lp.record_notify(ready)?;
        // Handed to the consumer's lane with an event, for the copy.
        let filled = lc.wait_for(lp.signal(filled)?)?;
        lc.copy(&filled, &mut copy)?.wait()?;
        Ok(())
    })?;
    let mut host = vec![0u8; 1024];
    ctx.copy(&copy, &mut host[..])?;
    assert!(host.iter().all(|&b| b == 42));
    println!("the consumer copied what the producer wrote, after its notify");

    // The producer fails before its record: no hang, a typed error.
    let r = ctx.scope(|s| {
        make_guard!(gp);
        make_guard!(gc);
        let (_lp, lc) = (s.lane(&producer, gp), s.lane(&consumer, gc));
        let ready = s.notify(&mut notify)?;
        lc.wait_notify(ready)?;
        let _cleared = lc.memset(&mut copy, 0)?;
        Err::<(), _>(Error::InvalidTimeout { millis: 0 })
    });
    match r {
        Err(Error::NotifyNotRecorded { waits, records }) => {
            println!(
                "a wait with no record: the scope aborted its lanes ({waits} wait, {records} records)"
            );
        }
        other => panic!("expected NotifyNotRecorded, got {other:?}"),
    }
    drop(notify);
    producer.destroy()?;
    consumer.destroy()
}

fn main() -> aclrt::Result<()> {
    let acl = Acl::init()?;
    match acl.detect() {
        Detected::Host(rt) => run(rt)?,
        Detected::Device(rt) => run(rt)?,
    }
    acl.finalize()?;
    aclrt::sim_only! { aclrt::sim::audit().assert_clean(); }
    println!("29_scope_notify: OK");
    Ok(())
}
