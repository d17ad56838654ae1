//! The staging of a typed launch's arguments ([`Staged`], its [`Items`]
//! and their bookkeeping: the bound streams, the origin of what the launch
//! reads, the buffer-length and count checks), with its unit tests.
//! Bookkeeping with no `unsafe`: the reads of initialised slots
//! (`Items::inline_items`, `Item::small_bytes`), the bytes appended per
//! item and the launch are in the parent module, with their argument.
#![deny(unsafe_code)]

use core::marker::PhantomData;
use core::mem::MaybeUninit;

use super::super::protocol::failure::Origin;
use super::super::scope::{LaneCore, Parked, Source};
use super::super::{Raw, Region};
use super::{INLINE, Item, Items, Overflow, SMALL, Staged};
use crate::error::{Error, Result};

impl Item {
    /// A scalar's bytes in place (the caller checked `v.len() <= SMALL`;
    /// more would be cut).
    #[inline(always)]
    fn small(v: &[u8]) -> Item {
        let len = v.len().min(SMALL);
        let mut bytes = [MaybeUninit::<u8>::uninit(); SMALL];
        for (slot, b) in bytes.iter_mut().zip(&v[..len]) {
            slot.write(*b);
        }
        Item::Small {
            bytes,
            len: len as u8,
        }
    }
}

impl Items {
    fn new() -> Self {
        Items {
            inline: [const { MaybeUninit::uninit() }; INLINE],
            len: 0,
            overflow: None,
            shortest: usize::MAX,
            largest_count: 0,
        }
    }

    #[inline]
    fn push(&mut self, item: Item) {
        match item {
            Item::Buffer { len, .. } => self.shortest = self.shortest.min(len),
            Item::Count(n) => self.largest_count = self.largest_count.max(n),
            _ => {}
        }
        match self.inline.get_mut(self.len) {
            Some(slot) => {
                // The slot is written before `len` covers it.
                *slot = MaybeUninit::new(item);
                self.len += 1;
            }
            None => self.overflow().spill.push(item),
        }
    }

    /// The items past [`INLINE`].
    #[inline]
    fn spill(&self) -> &[Item] {
        self.overflow.as_deref().map_or(&[], |o| &o.spill)
    }

    /// The overflow storage, allocated on first use.
    fn overflow(&mut self) -> &mut Overflow {
        self.overflow.get_or_insert_with(Box::default)
    }

    /// The bytes of the scalars larger than [`SMALL`].
    #[inline]
    pub(super) fn large(&self) -> &[u8] {
        self.overflow.as_deref().map_or(&[], |o| &o.large)
    }

    #[inline]
    fn iter(&self) -> impl Iterator<Item = &Item> {
        self.inline_items().iter().chain(self.spill())
    }

    /// The staged buffers' regions, in order; then forgets every item.
    fn take_regions(&mut self) -> Vec<Region> {
        let regions = self
            .iter()
            .filter_map(|i| match i {
                Item::Buffer { region, .. } => Some(*region),
                _ => None,
            })
            .collect();
        *self = Items::new();
        regions
    }
}

impl<'sid> Staged<'sid> {
    #[inline]
    pub(crate) fn new() -> Self {
        Staged {
            items: Items::new(),
            bound: [None, None],
            reads: Origin::OUTSIDE,
            counted: usize::MAX,
            refused: false,
            _sid: PhantomData,
        }
    }

    /// The staging of a launch refused before anything is queued: nothing
    /// it stages counts as written.
    #[inline]
    pub(crate) fn refused() -> Self {
        Staged {
            refused: true,
            ..Staged::new()
        }
    }

    /// Whether the outputs staged here take their contents' origin from
    /// the launch (not for a refused one).
    #[inline(always)]
    pub(crate) fn derives(&self) -> bool {
        !self.refused
    }

    /// Note that a staged operand is bound to `stream`.
    #[inline(always)]
    fn bind_to(&mut self, stream: Raw) {
        match self.bound[0] {
            None => self.bound[0] = Some(stream),
            Some(first) if first != stream && self.bound[1].is_none() => {
                self.bound[1] = Some(stream);
            }
            Some(_) => {}
        }
    }

    /// [`Error::WrongLane`](crate::Error::WrongLane) unless every staged
    /// operand bound to a stream is bound to `lane`'s (lanes made together
    /// share a brand: see [`LaneCore::check_lane`]).
    #[inline(always)]
    pub(crate) fn check_lane(&self, lane: &LaneCore<'_, 'sid>) -> Result<()> {
        for stream in self.bound.into_iter().flatten() {
            lane.check_lane(stream)?;
        }
        Ok(())
    }

    /// A buffer the kernel reads (`In`): shared for `'scope`, or parked on
    /// this lane.
    #[inline]
    pub(crate) fn read(&mut self, src: Source<'_, 'sid>, len: usize) {
        if let Some(stream) = src.stream() {
            self.bind_to(stream);
        }
        self.reads = self.reads.join(src.origin());
        self.items.push(Item::Buffer {
            region: src.region(),
            len,
        });
    }

    /// The launch reads memory whose contents are of origin `origin` (a
    /// read staged later, or one known before staging).
    #[inline(always)]
    pub(crate) fn reads(&mut self, origin: Origin) {
        self.reads = self.reads.join(origin);
    }

    /// Where what the launch reads so far came from.
    #[inline(always)]
    pub(crate) fn reads_origin(&self) -> Origin {
        self.reads
    }

    /// The launch passes the count `n` (known before staging).
    #[inline(always)]
    pub(crate) fn counted(&mut self, n: usize) {
        self.counted = self.counted.min(n);
    }

    /// Whether the kernel writes every element of an `Out` of `len`
    /// elements: it writes every element it may touch (its contract), which
    /// is all of them unless a count of the launch is smaller.
    #[inline(always)]
    pub(crate) fn writes_whole(&self, len: usize) -> bool {
        self.counted >= len
    }

    /// A buffer the kernel writes (`Out`, `InOut`): parked on this lane.
    #[inline]
    pub(crate) fn write<D: ?Sized>(&mut self, dst: &Parked<'_, 'sid, D>, len: usize) {
        self.bind_to(dst.stream());
        self.items.push(Item::Buffer {
            region: dst.region(),
            len,
        });
    }

    /// The device alias of registered host memory (`aclrtHostRegister`'s
    /// `devPtr`), which the kernel reads or writes. Only its address goes to
    /// the runtime; the CPU never dereferences it. The typed layer passes an
    /// alias that borrows its registration for the scope (shared to read,
    /// exclusively to write), so the memory stays registered and untouched
    /// by others until the scope has synchronised.
    pub(crate) fn alias<T>(&mut self, addr: usize, len: usize) {
        // Never NULL: `Registration::new` refuses a NULL alias.
        let Some(ptr) = core::ptr::NonNull::new(core::ptr::without_provenance_mut::<u8>(addr))
        else {
            return;
        };
        self.items.push(Item::Buffer {
            region: Region {
                ptr,
                bytes: len * core::mem::size_of::<T>(),
            },
            len,
        });
    }

    /// A scalar, by value.
    #[inline]
    pub(crate) fn value<T: bytemuck::Pod>(&mut self, v: T) {
        let v = bytemuck::bytes_of(&v);
        let item = if v.len() <= SMALL {
            Item::small(v)
        } else {
            let large = &mut self.items.overflow().large;
            let off = large.len();
            large.extend_from_slice(v);
            Item::Large { off, len: v.len() }
        };
        self.items.push(item);
    }

    /// The staged buffers' regions, in order; then forgets every item (for
    /// foreign work, which gets the operands rather than a list).
    pub(crate) fn take_regions(&mut self) -> Vec<Region> {
        self.items.take_regions()
    }

    /// A count of elements, checked against every buffer at launch.
    #[inline]
    pub(crate) fn count(&mut self, n: usize) {
        self.items.push(Item::Count(n as u64));
    }

    /// [`Error::KernelCount`] when a count exceeds a buffer's length.
    #[inline]
    pub(super) fn check_counts(&self) -> Result<()> {
        // Most launches pass: the running extremes decide without a pass.
        if self.items.largest_count <= self.items.shortest as u64 {
            return Ok(());
        }
        // Report the first count that exceeds the shortest buffer.
        let shortest = self
            .items
            .iter()
            .filter_map(|i| match i {
                Item::Buffer { len, .. } => Some(*len),
                _ => None,
            })
            .min();
        for item in self.items.iter() {
            if let (Item::Count(n), Some(len)) = (item, shortest) {
                if *n > len as u64 {
                    return Err(Error::KernelCount {
                        count: *n as usize,
                        len,
                    });
                }
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn region(addr: usize, bytes: usize) -> Region {
        Region {
            ptr: core::ptr::NonNull::new(core::ptr::without_provenance_mut::<u8>(addr)).unwrap(),
            bytes,
        }
    }

    /// The first `INLINE` items stay in place, the rest spill, large
    /// scalars go to the overflow bytes: all come back in staging order,
    /// and `take_regions` returns the buffers in order and empties it all.
    #[test]
    fn staging_keeps_order_across_inline_spill_and_large() {
        let mut staged = Staged::<'static>::new();
        assert!(staged.items.overflow.is_none(), "nothing allocated yet");
        let n = INLINE + 3;
        for i in 0..n {
            match i % 3 {
                0 => staged.items.push(Item::Buffer {
                    region: region(0x1000 * (i + 1), 64),
                    len: 16 + i,
                }),
                1 => staged.value([i as u8; SMALL + 4]),
                _ => staged.count(i),
            }
        }
        assert_eq!(staged.items.inline_items().len(), INLINE);
        assert_eq!(staged.items.spill().len(), n - INLINE);
        assert_eq!(staged.items.large().len(), (n / 3) * (SMALL + 4));
        let large = staged.items.large();
        for (i, item) in staged.items.iter().enumerate() {
            match (i % 3, item) {
                (0, Item::Buffer { region, len }) => {
                    assert_eq!(region.ptr.as_ptr() as usize, 0x1000 * (i + 1));
                    assert_eq!(*len, 16 + i);
                }
                (1, Item::Large { off, len }) => {
                    assert_eq!(&large[*off..*off + *len], &[i as u8; SMALL + 4]);
                }
                (2, Item::Count(c)) => assert_eq!(*c, i as u64),
                _ => panic!("item {i} out of order"),
            }
        }
        assert_eq!(staged.items.iter().count(), n);
        // 0, 3, ... , 12 are buffers: the shortest is the first.
        assert_eq!(staged.items.shortest, 16);
        let largest = (0..n).filter(|i| i % 3 == 2).max().unwrap();
        assert_eq!(staged.items.largest_count, largest as u64);
        let regions = staged.items.take_regions();
        let addrs: Vec<usize> = regions.iter().map(|r| r.ptr.as_ptr() as usize).collect();
        let expected: Vec<usize> = (0..n).step_by(3).map(|i| 0x1000 * (i + 1)).collect();
        assert_eq!(addrs, expected);
        assert_eq!(staged.items.iter().count(), 0);
        assert!(staged.items.overflow.is_none());
    }

    /// Small scalars keep their exact bytes and length in place.
    #[test]
    fn small_scalars_stay_in_place() {
        let mut staged = Staged::<'static>::new();
        staged.value(0xabcdu16);
        staged.value([7u8; SMALL]);
        assert!(staged.items.overflow.is_none());
        match staged.items.inline_items() {
            [
                Item::Small { bytes: a, len: 2 },
                Item::Small { bytes: b, len: 16 },
            ] => {
                assert_eq!(Item::small_bytes(a, 2), &0xabcdu16.to_ne_bytes());
                assert_eq!(Item::small_bytes(b, 16), &[7u8; SMALL]);
            }
            other => panic!("unexpected staging: {} items", other.len()),
        }
    }
}
