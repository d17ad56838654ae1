//! The book of live resources this crate made: which context owns each
//! stream, event and allocation, which device owns each context, and how
//! many `Device` handles hold each device.
//!
//! Safe code can leak any handle (`mem::forget`, `Box::leak`, an `Rc`
//! cycle), and a release can fail in `Drop`. The runtime forbids releasing a
//! parent while children live (destroy a context with live streams, reset a
//! device to zero with live resources, finalize with anything alive). The
//! explicit releases consult this book first and refuse with
//! [`Error::LiveChildren`] instead of breaking that rule; `Drop` skips the
//! release silently. A leaked child thus keeps its parent alive.
//!
//! Only creations and releases touch the book (one uncontended lock); the
//! hot paths (copies, launches, synchronisation) never do.

use std::hash::{BuildHasherDefault, Hasher};
use std::sync::{Mutex, MutexGuard};

use super::Raw;
use crate::error::{Error, Result};

/// The book's keys are handles, addresses and device ids that this process
/// chose: no adversary picks them, so the default SipHash (a third of the
/// cost of a stream create + destroy, issue 15) buys nothing. One
/// multiply-and-rotate spreads them (handles and 32-byte-aligned addresses
/// differ in their middle bits).
#[derive(Default)]
struct KeyHasher(u64);

impl Hasher for KeyHasher {
    fn finish(&self) -> u64 {
        self.0
    }

    fn write(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.write_u64(u64::from(b));
        }
    }

    fn write_u64(&mut self, n: u64) {
        self.0 = (self.0 ^ n)
            .wrapping_mul(0x9e37_79b9_7f4a_7c15)
            .rotate_left(26);
    }

    fn write_usize(&mut self, n: usize) {
        self.write_u64(n as u64);
    }

    fn write_i32(&mut self, n: i32) {
        self.write_u64(u64::from(n as u32));
    }
}

type HashMap<K, V> = std::collections::HashMap<K, V, BuildHasherDefault<KeyHasher>>;

#[derive(Default)]
struct Book {
    /// Stream, event or allocation → owning context.
    children: HashMap<usize, usize>,
    /// Context → (its device, its live children). Default contexts are
    /// entered when their device is opened, but are not children.
    contexts: HashMap<usize, (i32, usize)>,
    /// Device → (open `Device` handles, live explicit contexts and
    /// children of any of its contexts).
    devices: HashMap<i32, (usize, usize)>,
}

static BOOK: Mutex<Option<Book>> = Mutex::new(None);

fn book() -> MutexGuard<'static, Option<Book>> {
    BOOK.lock().unwrap_or_else(|e| e.into_inner())
}

fn with<R>(f: impl FnOnce(&mut Book) -> R) -> R {
    f(book().get_or_insert_with(Book::default))
}

/// Forget everything: the runtime was freshly initialised (`aclInit`
/// returned success, not "already initialised"), so nothing of an earlier
/// runtime is alive any more.
pub(crate) fn clear() {
    *book() = None;
}

/// A `Device` handle for `id` was opened (`aclrtSetDevice` succeeded).
pub(crate) fn device_opened(id: i32) {
    with(|b| b.devices.entry(id).or_default().0 += 1);
}

/// `ctx` is the default context of device `id`: what is made in it counts
/// for the device.
pub(crate) fn default_context(id: i32, ctx: Raw) {
    with(|b| {
        b.contexts.entry(ctx.as_ptr() as usize).or_insert((id, 0));
    });
}

/// Whether releasing one `Device` handle of `id` keeps the rule: if it is
/// the last one, nothing made on the device may be alive.
pub(crate) fn check_device_reset(id: i32) -> Result<()> {
    with(|b| match b.devices.get(&id) {
        Some(&(1, live)) if live > 0 => Err(Error::LiveChildren {
            function: "aclrtResetDevice",
            live,
        }),
        _ => Ok(()),
    })
}

/// One `Device` handle of `id` was released.
pub(crate) fn device_reset(id: i32) {
    with(|b| {
        if let Some(d) = b.devices.get_mut(&id) {
            d.0 = d.0.saturating_sub(1);
            if *d == (0, 0) {
                b.devices.remove(&id);
                b.contexts.retain(|_, (dev, n)| *dev != id || *n > 0);
            }
        }
    });
}

/// An explicit context was created on device `id`.
pub(crate) fn context_created(ctx: Raw, id: i32) {
    with(|b| {
        b.contexts.insert(ctx.as_ptr() as usize, (id, 0));
        b.devices.entry(id).or_default().1 += 1;
    });
}

/// Whether `ctx` may be destroyed: nothing made in it is alive.
pub(crate) fn check_context_destroy(ctx: Raw) -> Result<()> {
    with(|b| match b.contexts.get(&(ctx.as_ptr() as usize)) {
        Some(&(_, live)) if live > 0 => Err(Error::LiveChildren {
            function: "aclrtDestroyContext",
            live,
        }),
        _ => Ok(()),
    })
}

/// An explicit context was destroyed.
pub(crate) fn context_destroyed(ctx: Raw) {
    with(|b| {
        if let Some((id, _)) = b.contexts.remove(&(ctx.as_ptr() as usize)) {
            if let Some(d) = b.devices.get_mut(&id) {
                d.1 = d.1.saturating_sub(1);
            }
        }
    });
}

/// A peer-access token from device `from` to device `to` was taken
/// (`taken`) or given back. A live token keeps both devices open: the
/// runtime forgets peer access when a device is reset, so a leaked token
/// must keep its devices from being reset (else it would prove access that
/// is no longer on).
pub(crate) fn peer_token(from: i32, to: i32, taken: bool) {
    with(|b| {
        for id in [from, to] {
            let d = b.devices.entry(id).or_default();
            if taken {
                d.1 += 1;
            } else {
                d.1 = d.1.saturating_sub(1);
            }
        }
    });
}

/// A stream, event or allocation (`key`: its handle or address) was made in
/// context `owner`.
pub(crate) fn child_created(key: usize, owner: Raw) {
    with(|b| {
        let owner = owner.as_ptr() as usize;
        b.children.insert(key, owner);
        if let Some(c) = b.contexts.get_mut(&owner) {
            c.1 += 1;
            let id = c.0;
            b.devices.entry(id).or_default().1 += 1;
        }
    });
}

/// A stream, event or allocation was released.
pub(crate) fn child_released(key: usize) {
    with(|b| {
        if let Some(owner) = b.children.remove(&key) {
            if let Some(c) = b.contexts.get_mut(&owner) {
                c.1 = c.1.saturating_sub(1);
                let id = c.0;
                if let Some(d) = b.devices.get_mut(&id) {
                    d.1 = d.1.saturating_sub(1);
                }
            }
        }
    });
}

/// Whether `aclFinalize` keeps the rule: no device handle and nothing made
/// through one is alive.
pub(crate) fn check_finalize() -> Result<()> {
    let live = with(|b| {
        b.devices
            .values()
            .map(|(open, live)| open + live)
            .sum::<usize>()
    });
    if live > 0 {
        Err(Error::LiveChildren {
            function: "aclFinalize",
            live,
        })
    } else {
        Ok(())
    }
}

/// How many `Device` handles of `id` are open (for the forced reset, which
/// releases the device for all of them).
pub(crate) fn device_handles(id: i32) -> usize {
    with(|b| b.devices.get(&id).map_or(0, |d| d.0))
}
