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
//! Only creations and releases of events and allocations touch the book
//! (one uncontended lock, a hash update and a counter: see [`Book`]);
//! streams only move their context's [`Counter`], an atomic the calling
//! thread finds in its current-context cache (no lock); the hot paths
//! (copies, launches, synchronisation) never touch either.
#![deny(unsafe_code)]

use std::hash::{BuildHasherDefault, Hasher};
use std::sync::Mutex;
use std::sync::atomic::{AtomicUsize, Ordering};

use super::Raw;
use super::locks::{Held, Rank, lock};
use super::protocol::live_count;
use crate::error::{Error, Result};

/// The book's keys are handles, addresses and device ids that this process
/// chose: no adversary picks them, so the default SipHash (a third of the
/// cost of a stream create + destroy) buys nothing. One
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

/// The slot of a context in [`Book::slots`].
type SlotId = u32;

/// A context's entry: its device and how many of its children live.
struct Slot {
    device: i32,
    /// Live children. Events and allocations move it holding the book's
    /// lock; streams without it, through a [`Counter`]. Each slot's counter
    /// is allocated once and never freed (a reused slot keeps it; [`clear`]
    /// keeps them for the next book), so a `Counter` is a `'static` borrow.
    live: &'static AtomicUsize,
    /// Whether the context is still in [`Book::contexts`]. A slot whose
    /// context left while children lived stays (and counts for its device)
    /// until the last of them is released; then it is reused.
    entered: bool,
}

/// The book. Creating a child costs one hash insert (its owner's slot comes
/// from a one-entry cache, `last`) and releasing one a hash remove, plus
/// one counter each (no hash update per call). A device's count of live children is not kept: the rare
/// questions about a device (reset, finalize) add up its contexts' slots.
#[derive(Default)]
struct Book {
    /// Stream, event or allocation → the slot of its owning context.
    children: HashMap<usize, SlotId>,
    /// Context → its slot. Default contexts are entered when their device
    /// is opened, but are not children.
    contexts: HashMap<usize, SlotId>,
    slots: Vec<Slot>,
    /// Slots to reuse.
    free: Vec<SlotId>,
    /// Counters of an earlier book ([`clear`]), for new slots.
    spare: Vec<&'static AtomicUsize>,
    /// (context, its slot) of the last child made: a cache of `contexts`,
    /// forgotten whenever a context leaves it.
    last: Option<(usize, SlotId)>,
    /// Device → (open `Device` handles, live explicit contexts and peer
    /// tokens of the device). Children count through their context's slot.
    devices: HashMap<i32, (usize, usize)>,
    /// Device → `aclrtSetDevice` calls in flight ([`device_open_begin`]).
    opening: HashMap<i32, usize>,
    /// Devices whose `aclrtResetDeviceForce` is in flight
    /// ([`force_reset_begin`]).
    resetting: Vec<i32>,
    /// Context → its default stream, once the crate handed it out
    /// ([`note_default_stream`]): released with the context.
    default_streams: HashMap<usize, usize>,
}

impl Book {
    fn enter_context(&mut self, ctx: usize, device: i32) {
        let id = match self.free.pop() {
            Some(id) => {
                // A free slot counts nothing (it was freed at zero, and
                // nothing counts on a slot that left `contexts`).
                let slot = &mut self.slots[id as usize];
                slot.device = device;
                slot.entered = true;
                id
            }
            None => {
                let live = self
                    .spare
                    .pop()
                    .unwrap_or_else(|| Box::leak(Box::new(AtomicUsize::new(0))));
                live.store(0, Ordering::Relaxed);
                self.slots.push(Slot {
                    device,
                    live,
                    entered: true,
                });
                (self.slots.len() - 1) as SlotId
            }
        };
        if let Some(old) = self.contexts.insert(ctx, id) {
            self.leave_slot(old);
        }
    }

    /// The slot's context left `contexts`: reuse the slot, unless children
    /// still count on it.
    fn leave_slot(&mut self, id: SlotId) {
        if self.last.is_some_and(|(_, s)| s == id) {
            self.last = None;
        }
        let slot = &mut self.slots[id as usize];
        slot.entered = false;
        if live_count::live(slot.live) == 0 {
            self.free.push(id);
        }
    }

    fn leave_context(&mut self, ctx: usize) -> Option<i32> {
        self.default_streams.remove(&ctx);
        let id = self.contexts.remove(&ctx)?;
        let device = self.slots[id as usize].device;
        self.leave_slot(id);
        Some(device)
    }

    /// Live explicit contexts, peer tokens and children of any context of
    /// device `id`.
    fn device_live(&self, id: i32) -> usize {
        let own = self.devices.get(&id).map_or(0, |d| d.1);
        own + self
            .slots
            .iter()
            .filter(|s| s.device == id)
            .map(|s| live_count::live(s.live))
            .sum::<usize>()
    }
}

static BOOK: Mutex<Option<Book>> = Mutex::new(None);

fn book() -> Held<'static, Option<Book>> {
    lock(&BOOK, Rank::Live)
}

fn with<R>(f: impl FnOnce(&mut Book) -> R) -> R {
    f(book().get_or_insert_with(Book::default))
}

/// Forget everything: the runtime was freshly initialised (`aclInit`
/// returned success, not "already initialised"), so nothing of an earlier
/// runtime is alive any more. The slots' counters are kept for the next
/// book (a [`Counter`] is never freed); no thread still uses one: `aclInit`
/// invalidated every thread's current-context cache first.
pub(crate) fn clear() {
    let mut b = book();
    if let Some(old) = b.take() {
        let mut spare = old.spare;
        spare.extend(old.slots.into_iter().map(|s| s.live));
        *b = Some(Book {
            spare,
            ..Book::default()
        });
    }
}

/// An `aclrtSetDevice(id)` is about to be called: refused while a forced
/// reset of `id` is in flight ([`force_reset_begin`]), which would release
/// the new reference too. Not waited for: the forced reset waits for the
/// device's tasks, and one of them (a host function) may be the caller.
/// Pair with [`device_open_end`].
pub(crate) fn device_open_begin(id: i32) -> Result<()> {
    with(|b| {
        if b.resetting.contains(&id) {
            return Err(Error::DeviceResetting { id });
        }
        *b.opening.entry(id).or_default() += 1;
        Ok(())
    })
}

/// The `aclrtSetDevice(id)` announced by [`device_open_begin`] returned;
/// `opened`: it succeeded, a `Device` handle is open.
pub(crate) fn device_open_end(id: i32, opened: bool) {
    with(|b| {
        if let Some(n) = b.opening.get_mut(&id) {
            *n -= 1;
            if *n == 0 {
                b.opening.remove(&id);
            }
        }
        if opened {
            b.devices.entry(id).or_default().0 += 1;
        }
    });
}

/// `aclrtResetDeviceForce(id)` is about to be called through the last open
/// `Device` handle of `id`: refused if another handle is open or being
/// opened ([`Error::DeviceInUse`]) or something made on the device is alive
/// ([`Error::LiveChildren`]); otherwise opens of `id` are refused until
/// [`force_reset_end`]. The check and the mark are one step, so no
/// `aclrtSetDevice` of this crate slips in between the check and the reset.
/// `Ok` with the contexts of the device the reset releases (and their
/// default streams, as [`check_device_reset`]).
pub(crate) fn force_reset_begin(id: i32) -> Result<Vec<(Raw, Option<Raw>)>> {
    with(|b| {
        let handles = b.devices.get(&id).map_or(0, |d| d.0);
        let others = handles.saturating_sub(1) + b.opening.get(&id).copied().unwrap_or(0);
        if others > 0 {
            return Err(Error::DeviceInUse { id, others });
        }
        if handles == 1 {
            match b.device_live(id) {
                0 => {}
                live => {
                    return Err(Error::LiveChildren {
                        function: "aclrtResetDevice",
                        live,
                    });
                }
            }
        }
        b.resetting.push(id);
        Ok(b.contexts_of(id))
    })
}

/// The forced reset announced by [`force_reset_begin`] returned; `done`: it
/// succeeded, and the last handle is released (in the same step as the
/// mark is lifted).
pub(crate) fn force_reset_end(id: i32, done: bool) {
    with(|b| {
        b.resetting.retain(|&d| d != id);
        if done {
            b.device_reset(id);
        }
    });
}

/// `ctx` is the default context of device `id`: what is made in it counts
/// for the device.
pub(crate) fn default_context(id: i32, ctx: Raw) {
    with(|b| {
        let ctx = ctx.as_ptr() as usize;
        if !b.contexts.contains_key(&ctx) {
            b.enter_context(ctx, id);
        }
    });
}

/// The device of context `ctx`, if the book holds it.
pub(crate) fn device_of(ctx: Raw) -> Option<i32> {
    with(|b| {
        let slot = *b.contexts.get(&(ctx.as_ptr() as usize))?;
        Some(b.slots[slot as usize].device)
    })
}

/// A live context of the book (the default context of an open device, or
/// an explicit context), if any.
pub(crate) fn any_context() -> Option<Raw> {
    with(|b| {
        let c = b.contexts.keys().copied().min()?;
        Raw::new(c as *mut core::ffi::c_void)
    })
}

/// Whether releasing one `Device` handle of `id` keeps the rule: if it is
/// the last one, nothing made on the device may be alive.
/// The default stream of context `ctx` was handed out (it is released with
/// the context: [`default_stream_of`]).
pub(crate) fn note_default_stream(ctx: Raw, stream: Raw) {
    with(|b| {
        b.default_streams
            .insert(ctx.as_ptr() as usize, stream.as_ptr() as usize);
    });
}

/// The default stream of `ctx`, if the crate handed it out.
pub(crate) fn default_stream_of(ctx: Raw) -> Option<Raw> {
    with(|b| {
        let s = *b.default_streams.get(&(ctx.as_ptr() as usize))?;
        Raw::new(s as *mut core::ffi::c_void)
    })
}

/// `Ok` with the contexts of the device (its default one) that the reset
/// releases, each with its default stream if the crate handed it out: none
/// unless it is the last one.
pub(crate) fn check_device_reset(id: i32) -> Result<Vec<(Raw, Option<Raw>)>> {
    with(|b| match b.devices.get(&id) {
        Some(&(1, _)) => match b.device_live(id) {
            0 => Ok(b.contexts_of(id)),
            live => Err(Error::LiveChildren {
                function: "aclrtResetDevice",
                live,
            }),
        },
        _ => Ok(Vec::new()),
    })
}

/// One `Device` handle of `id` was released.
pub(crate) fn device_reset(id: i32) {
    with(|b| b.device_reset(id));
}

impl Book {
    /// The contexts of device `id` in the book, with their default
    /// streams if handed out.
    fn contexts_of(&self, id: i32) -> Vec<(Raw, Option<Raw>)> {
        self.contexts
            .iter()
            .filter(|&(_, &s)| self.slots[s as usize].device == id)
            .filter_map(|(&ctx, _)| {
                let stream = self
                    .default_streams
                    .get(&ctx)
                    .and_then(|&s| Raw::new(s as *mut core::ffi::c_void));
                Some((Raw::new(ctx as *mut core::ffi::c_void)?, stream))
            })
            .collect()
    }

    fn device_reset(&mut self, id: i32) {
        let Some(d) = self.devices.get_mut(&id) else {
            return;
        };
        d.0 = d.0.saturating_sub(1);
        if d.0 == 0 && self.device_live(id) == 0 {
            self.devices.remove(&id);
            // Nothing of the device lives: its contexts (the default one)
            // leave the book.
            let gone: Vec<usize> = self
                .contexts
                .iter()
                .filter(|&(_, &s)| self.slots[s as usize].device == id)
                .map(|(&ctx, _)| ctx)
                .collect();
            for ctx in gone {
                self.leave_context(ctx);
            }
        }
    }
}

/// An explicit context was created on device `id`.
pub(crate) fn context_created(ctx: Raw, id: i32) {
    with(|b| {
        b.enter_context(ctx.as_ptr() as usize, id);
        b.devices.entry(id).or_default().1 += 1;
    });
}

/// Whether `ctx` may be destroyed: nothing made in it is alive.
pub(crate) fn check_context_destroy(ctx: Raw) -> Result<()> {
    with(|b| {
        let live = b
            .contexts
            .get(&(ctx.as_ptr() as usize))
            .map_or(0, |&s| live_count::live(b.slots[s as usize].live));
        if live > 0 {
            Err(Error::LiveChildren {
                function: "aclrtDestroyContext",
                live,
            })
        } else {
            Ok(())
        }
    })
}

/// An explicit context was destroyed.
pub(crate) fn context_destroyed(ctx: Raw) {
    with(|b| {
        if let Some(id) = b.leave_context(ctx.as_ptr() as usize) {
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
/// context `owner`. A child of a context the book does not know counts for
/// nothing (as before: no parent of it is guarded).
pub(crate) fn child_created(key: usize, owner: Raw) {
    with(|b| {
        let Some(slot) = slot_of(b, owner.as_ptr() as usize) else {
            return;
        };
        b.children.insert(key, slot);
        live_count::create(b.slots[slot as usize].live);
    });
}

/// The context that event or buffer `key` was made in, if it is in the book.
/// A linear search over the live contexts (for rare paths only).
pub(crate) fn owner_of(key: usize) -> Option<Raw> {
    with(|b| {
        let slot = *b.children.get(&key)?;
        b.contexts
            .iter()
            .find(|(_, s)| **s == slot)
            .and_then(|(c, _)| Raw::new(*c as *mut core::ffi::c_void))
    })
}

/// The slot of context `owner`, through the one-entry cache.
fn slot_of(b: &mut Book, owner: usize) -> Option<SlotId> {
    match b.last {
        Some((ctx, s)) if ctx == owner => Some(s),
        _ => {
            let s = *b.contexts.get(&owner)?;
            b.last = Some((owner, s));
            Some(s)
        }
    }
}

/// The live-children counter of a context's slot, for streams: unlike
/// [`child_created`], nothing is entered for a stream itself (its release
/// names its owner, the `Stream` keeps its context), so only the owner's
/// counter moves, without the book's lock (a stream create +
/// destroy took the lock twice for it).
///
/// A thread gets the counter of a context from [`counter`] (under the lock)
/// once and keeps it in its current-context cache
/// ([`make_current_counted`](super::make_current_counted)) until the next
/// epoch. That is sound because the context → slot mapping of a context
/// cannot change while a thread uses the context: a context leaves the book
/// only when it is destroyed (it takes the `Context` by value, and is
/// refused while the counter is not zero) or when its device is reset with
/// nothing alive; and a leaving context bumps the epoch, so no cache keeps
/// its slot for a later context.
///
/// The counts are exact whatever the threads do: the create and release of
/// a stream happen before a check that could miss them (the check needs
/// the `Context` or `Device` by value, which the stream borrowed), and
/// relaxed read-modify-writes keep one total order per counter (the
/// protocol core `protocol::live_count`, model-checked in `models/`).
#[derive(Clone, Copy)]
pub(crate) struct Counter(&'static AtomicUsize);

/// What streams of a context the book does not know count on (as before:
/// no parent of them is guarded). Never read.
static UNCOUNTED: AtomicUsize = AtomicUsize::new(0);

impl Counter {
    /// A stream was made.
    #[inline]
    pub(crate) fn created(self) {
        live_count::create(self.0);
    }

    /// A stream was released. Saturates at zero (a stream made while its
    /// context was unknown to the book counted nothing).
    #[inline]
    pub(crate) fn released(self) {
        live_count::release(self.0);
    }
}

/// The counter of context `owner`, and whether the book knows the context
/// (else the counter counts for nothing, and must not be cached: the
/// context may be entered later).
pub(crate) fn counter(owner: Raw) -> (Counter, bool) {
    with(|b| match slot_of(b, owner.as_ptr() as usize) {
        Some(s) => (Counter(b.slots[s as usize].live), true),
        None => (Counter(&UNCOUNTED), false),
    })
}

/// A stream, event or allocation was released.
pub(crate) fn child_released(key: usize) {
    with(|b| {
        if let Some(id) = b.children.remove(&key) {
            let slot = &b.slots[id as usize];
            // Streams move the counter without the lock: decrement it in one
            // step, saturating.
            let before = live_count::release_checked(slot.live);
            if before == Ok(1) && !slot.entered {
                b.free.push(id);
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
            + b.slots
                .iter()
                .map(|s| live_count::live(s.live))
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
