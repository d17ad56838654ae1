//! The crate's books of registered and managed memory: the live managed
//! ranges (refused by a host registration) and the key of a registration
//! in the book of live children. Bookkeeping with no `unsafe`, and nothing
//! of the parent module's: the runtime calls that use it are there.
#![deny(unsafe_code)]

/// The live managed allocations made through the crate, as (address, bytes):
/// their memory reaches safe code as a `&mut [T]`, which must not be taken
/// for host memory by [`Registration::new`](super::Registration::new).
/// Entries leave when the
/// allocation is freed (a forgotten `ManagedBuffer` keeps its entry: its
/// range is refused until the next `aclInit`, [`clear_managed`]).
static MANAGED: std::sync::Mutex<Vec<(usize, usize)>> = std::sync::Mutex::new(Vec::new());

pub(super) fn managed() -> super::super::locks::Held<'static, Vec<(usize, usize)>> {
    super::super::locks::lock(&MANAGED, super::super::locks::Rank::Managed)
}

/// Whether `address..address + bytes` overlaps a live managed allocation.
pub(super) fn managed_overlaps(address: usize, bytes: usize) -> bool {
    let end = address.saturating_add(bytes);
    managed()
        .iter()
        .any(|&(start, len)| address < start.saturating_add(len) && start < end)
}

/// A fresh runtime (`aclInit`): no managed allocation of this crate lives.
pub(crate) fn clear_managed() {
    managed().clear();
}

/// The key of a host registration in the book of live children: its start
/// address with the low bit set. A registration starts on a page boundary,
/// and a pinned block of the runtime (`aclrtMallocHost`, page aligned on
/// the real runtime and on the simulator) registered from its first byte
/// starts at the very same address: the two must not share a key (the
/// registration's release would drop the block's entry, and the block's
/// free would then find none, leaving its context with a live child).
/// No other child's key is odd with a low nibble of 1: allocation
/// addresses are even, and event handles are pointers on the real runtime
/// and end in the nibble 3 on the simulator (`id << 4 | 3`).
pub(super) fn reg_key(address: usize) -> usize {
    address | 1
}
