//! The allocation table: live allocations, the bounded quarantine of freed
//! blocks, the unbounded quarantine of blocks torn down with their runtime,
//! and the checked resolution of application pointers against them.

use std::collections::{BTreeMap, VecDeque};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};

use crate::diag::{Error, Res, rt_param};
use crate::ffi;
use crate::model::ViolationKind;
use crate::prim::{HeapBlock, Span, UserMem, arena};
use crate::sync::lock;

use super::access::{Access, Place};
use super::registry::Registry;

/// Which allocation function made a block (and must free it).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum AllocKind {
    /// `aclrtMalloc`, `aclrtMallocAlign32`, `aclrtMallocCached`.
    Device,
    /// `aclrtMallocHost`.
    Host,
    /// `aclrtMemAllocManaged` (freed with `aclrtFree`).
    Managed,
    /// A mapping of physical memory into reserved virtual memory
    /// (`aclrtMapMem`; removed with `aclrtUnmapMem`).
    Mapped,
    /// Memory of another process imported by key (`aclrtIpcMemImportByKey`;
    /// released with `aclrtIpcMemClose`).
    Ipc,
}

impl AllocKind {
    pub(crate) fn alloc_fn(self) -> &'static str {
        match self {
            AllocKind::Device => "aclrtMalloc",
            AllocKind::Host => "aclrtMallocHost",
            AllocKind::Managed => "aclrtMemAllocManaged",
            AllocKind::Mapped => "aclrtMapMem",
            AllocKind::Ipc => "aclrtIpcMemImportByKey",
        }
    }
    pub(crate) fn free_fn(self) -> &'static str {
        match self {
            AllocKind::Device | AllocKind::Managed => "aclrtFree",
            AllocKind::Host => "aclrtFreeHost",
            AllocKind::Mapped => "aclrtUnmapMem",
            AllocKind::Ipc => "aclrtIpcMemClose",
        }
    }
}

/// One live allocation.
pub(crate) struct Allocation {
    /// The memory.
    pub block: Arc<HeapBlock>,
    /// The requested size (the bound of every access).
    pub size: usize,
    /// Bytes charged to the device's memory (padded size; 0 for host memory
    /// in host run mode).
    pub charged: u64,
    /// The device of the context current at allocation.
    pub device: i32,
    /// The context current at allocation.
    pub ctx: usize,
    /// The allocation function.
    pub kind: AllocKind,
    /// Whether the memory lies on the device (device memory, or
    /// `aclrtMallocHost` memory in device run mode).
    pub on_device: bool,
}

struct Freed {
    size: usize,
    kind: AllocKind,
    _block: Arc<HeapBlock>,
}

/// Freed blocks are kept (not returned to the allocator) for a while, so a
/// pointer into them is recognised as a use after free and can never be
/// confused with application memory that reused the address.
const QUARANTINE_BLOCKS: usize = 4096;
const QUARANTINE_BYTES: usize = 256 << 20;

/// The allocation table.
#[derive(Default)]
pub(crate) struct MemTable {
    /// Live allocations by start address.
    pub live: BTreeMap<usize, Allocation>,
    freed: BTreeMap<usize, Freed>,
    freed_order: VecDeque<usize>,
    freed_bytes: usize,
    /// Host registrations (`aclrtHostRegister*`), see `crate::hostreg`.
    pub reg: Registry,
}

/// A block that was still allocated when the runtime was torn down
/// (`aclrt_sim::reset`, `aclFinalize`, the last `aclFinalizeReference`).
struct Stale {
    size: usize,
    kind: AllocKind,
    /// Never dropped: the memory stays allocated (and unique) for the rest
    /// of the process.
    _block: Arc<HeapBlock>,
}

/// The teardown quarantine: every block alive at a teardown, by start
/// address. A handle that outlives the teardown (a safe wrapper's buffer, a
/// raw pointer, a detached worker's host function) therefore never reaches
/// freed memory, and no later allocation can reuse its address. The blocks
/// stay reachable from this static, so leak checkers report them as
/// reachable, not lost.
static TORN_DOWN: Mutex<BTreeMap<usize, Stale>> = Mutex::new(BTreeMap::new());
/// Whether `TORN_DOWN` holds anything (keeps the lookup off the fast path).
static ANY_TORN_DOWN: AtomicBool = AtomicBool::new(false);

/// Moves the live blocks of a torn-down table into the teardown quarantine
/// (the freed blocks of its own quarantine are released: no handle can
/// reach them legitimately).
pub(crate) fn quarantine_torn_down(table: MemTable) {
    let MemTable { live, freed, .. } = table;
    drop(freed);
    if live.is_empty() {
        return;
    }
    let mut q = lock(&TORN_DOWN);
    for (start, a) in live {
        q.insert(
            start,
            Stale {
                size: a.size,
                kind: a.kind,
                _block: a.block,
            },
        );
    }
    ANY_TORN_DOWN.store(true, Ordering::Release);
}

/// The quarantined torn-down block that `[addr, addr + len)` touches (at
/// least `addr` itself when `len` is 0): `(start, size, kind)`.
fn torn_down(addr: usize, len: usize) -> Option<(usize, usize, AllocKind)> {
    if !ANY_TORN_DOWN.load(Ordering::Acquire) {
        return None;
    }
    let q = lock(&TORN_DOWN);
    if let Some((&start, s)) = q.range(..=addr).next_back() {
        if addr < start + s.size.max(1) {
            return Some((start, s.size, s.kind));
        }
    }
    let end = addr.saturating_add(len);
    q.range(addr..end)
        .next()
        .map(|(&start, s)| (start, s.size, s.kind))
}

fn torn_down_error(role: &str, addr: usize, block: (usize, usize, AllocKind)) -> Error {
    torn_down_why(role, addr, block).on(addr)
}

fn torn_down_why(role: &str, addr: usize, (start, size, kind): (usize, usize, AllocKind)) -> Error {
    Error::violation(
        ViolationKind::UseAfterFree,
        ffi::ACL_ERROR_RT_PARAM_INVALID,
        format!(
            "{role} {addr:#x} reaches the {size}-byte {} block at {start:#x}, which was still \
             allocated when the runtime was torn down (aclrt_sim::reset or aclFinalize); it is \
             quarantined, and every handle to it is stale",
            kind.alloc_fn()
        ),
    )
}

impl MemTable {
    /// Resolves `len` bytes at `um` against the table (the strict checks of
    /// bounds and use after free); `role` names the argument in messages.
    pub(crate) fn access(&self, um: UserMem, len: usize, role: &str) -> Res<Access> {
        let addr = um.addr();
        let Some(end) = addr.checked_add(len) else {
            return Err(rt_param(format!(
                "{role} {addr:#x} + {len} bytes overflows the address space"
            )));
        };
        if let Some((&start, a)) = self.live.range(..=addr).next_back() {
            if addr < start + a.size {
                let off = addr - start;
                if len > a.size - off {
                    return Err(Error::violation(
                        ViolationKind::OutOfBounds,
                        ffi::ACL_ERROR_RT_PARAM_INVALID,
                        format!(
                            "{role} range {addr:#x}..{end:#x} ({len} bytes at offset {off}) exceeds \
                             the {}-byte allocation at {start:#x} by {} bytes",
                            a.size,
                            len - (a.size - off)
                        ),
                    ));
                }
                // A block that does not lie at its address (a mapping of
                // physical memory into reserved virtual memory, memory
                // shared with another process) is reached through its own
                // pointer; every other one through the application's.
                let span = if a.block.addr() == start {
                    um.span_in_block(a.block.clone(), off, len)
                } else {
                    Span::in_block(a.block.clone(), off, len)
                }
                .ok_or_else(|| rt_param(format!("{role}: internal bounds error")))?;
                let place = if a.kind == AllocKind::Managed {
                    Place::Managed(a.device)
                } else if a.on_device {
                    Place::Device(a.device)
                } else {
                    Place::PinnedHost
                };
                return Ok(Access { span, place });
            }
        }
        if let Some((&start, f)) = self.freed.range(..=addr).next_back() {
            if addr < start + f.size {
                return Err(use_after_free(role, addr, start, f));
            }
        }
        if len > 0 {
            if let Some((&start, a)) = self.live.range(addr..end).next() {
                return Err(Error::violation(
                    ViolationKind::OutOfBounds,
                    ffi::ACL_ERROR_RT_PARAM_INVALID,
                    format!(
                        "{role} range {addr:#x}..{end:#x} ({len} bytes of application memory) runs \
                         into the {}-byte runtime allocation at {start:#x}",
                        a.size
                    ),
                ));
            }
            if let Some((&start, f)) = self.freed.range(addr..end).next() {
                return Err(use_after_free(role, addr, start, f));
            }
        }
        if let Some(stale) = torn_down(addr, len) {
            return Err(torn_down_error(role, addr, stale));
        }
        self.check_gaps(role, addr, len)?;
        let um = match self.reg.access(um, len, role)? {
            Ok(a) => return Ok(a),
            Err(um) => um,
        };
        Ok(Access {
            span: um.into_app_span(len),
            place: Place::App,
        })
    }

    /// Resolves `len` bytes at `addr` that must lie inside one live runtime
    /// allocation (device or pinned host); never creates a span of
    /// application memory. `Err` carries the reason: outside every
    /// allocation, past its end, or freed.
    pub(crate) fn access_runtime(&self, addr: usize, len: usize) -> Result<Access, String> {
        if let Some(alias) = self.reg.resolve_alias(addr, len) {
            return alias;
        }
        if let Some((&start, a)) = self.live.range(..=addr).next_back() {
            if addr < start + a.size {
                let off = addr - start;
                if len > a.size - off {
                    return Err(format!(
                        "{addr:#x} + {len} bytes (offset {off}) exceeds the {}-byte allocation \
                         at {start:#x} by {} bytes",
                        a.size,
                        len - (a.size - off)
                    ));
                }
                let span = Span::in_block(a.block.clone(), off, len)
                    .ok_or_else(|| "internal bounds error".to_owned())?;
                let place = if a.kind == AllocKind::Managed {
                    Place::Managed(a.device)
                } else if a.on_device {
                    Place::Device(a.device)
                } else {
                    Place::PinnedHost
                };
                return Ok(Access { span, place });
            }
        }
        if let Some((&start, f)) = self.freed.range(..=addr).next_back() {
            if addr < start + f.size {
                return Err(format!(
                    "{addr:#x} lies in the freed allocation at {start:#x} ({} bytes)",
                    f.size
                ));
            }
        }
        Err(format!("{addr:#x} is not memory of the runtime"))
    }

    /// Refuses a range that reaches the simulator's own address range
    /// outside every live block (see [`arena`]); the caller has already
    /// found that `addr` is not inside a live or quarantined block.
    pub(crate) fn check_gaps(&self, role: &str, addr: usize, len: usize) -> Res<()> {
        if arena::touches(addr, len) && !self.at_end_of_live(addr, len) {
            return Err(self.outside_blocks(role, addr, len));
        }
        Ok(())
    }

    /// Whether `len` is 0 and `addr` is the end of a live block (an empty
    /// range just past a block, as `ptr + size` with a zero count: nothing
    /// is touched).
    fn at_end_of_live(&self, addr: usize, len: usize) -> bool {
        len == 0
            && self
                .live
                .range(..addr)
                .next_back()
                .is_some_and(|(&s, a)| s + a.size == addr)
    }

    /// The refusal of a range that reaches the simulator's own address
    /// range ([`arena`]) outside every live and quarantined block: it
    /// cannot be application memory, and touching it would reach a gap
    /// between blocks (or another block).
    fn outside_blocks(&self, role: &str, addr: usize, len: usize) -> Error {
        self.outside_blocks_why(role, addr, len).on(addr)
    }

    fn outside_blocks_why(&self, role: &str, addr: usize, len: usize) -> Error {
        let near = match self.live.range(..=addr).next_back() {
            Some((&s, a)) => format!(
                "; the nearest allocation below it is the {}-byte block at {s:#x}, which ends {} bytes before it",
                a.size,
                addr - (s + a.size)
            ),
            None => String::new(),
        };
        Error::violation(
            ViolationKind::OutOfBounds,
            ffi::ACL_ERROR_RT_PARAM_INVALID,
            format!(
                "{role} range {addr:#x}..{:#x} ({len} bytes) lies in the simulator's device                  address range but not inside a live allocation (past the end of one, or in                  the gap between two){near}",
                addr.saturating_add(len)
            ),
        )
    }

    pub(crate) fn quarantine(&mut self, start: usize, a: Allocation) {
        self.freed_bytes += a.size;
        self.freed.insert(
            start,
            Freed {
                size: a.size,
                kind: a.kind,
                _block: a.block,
            },
        );
        self.freed_order.push_back(start);
        while self.freed_order.len() > QUARANTINE_BLOCKS || self.freed_bytes > QUARANTINE_BYTES {
            let Some(old) = self.freed_order.pop_front() else {
                break;
            };
            if let Some(f) = self.freed.remove(&old) {
                self.freed_bytes -= f.size;
            }
        }
    }
}

fn use_after_free(role: &str, addr: usize, start: usize, f: &Freed) -> Error {
    use_after_free_why(role, addr, start, f).on(addr)
}

fn use_after_free_why(role: &str, addr: usize, start: usize, f: &Freed) -> Error {
    Error::violation(
        ViolationKind::UseAfterFree,
        ffi::ACL_ERROR_RT_PARAM_INVALID,
        format!(
            "{role} {addr:#x} points into the {}-byte block at {start:#x} that was already \
             released with {}",
            f.size,
            f.kind.free_fn()
        ),
    )
}

/// The error of freeing `addr` wrongly (double, foreign, interior, wrong
/// function), about `addr`.
pub(crate) fn bad_free(mem: &MemTable, addr: usize, kind: AllocKind) -> Error {
    bad_free_why(mem, addr, kind).on(addr)
}

fn bad_free_why(mem: &MemTable, addr: usize, kind: AllocKind) -> Error {
    // Quarantined blocks are never freed, so their addresses cannot be live.
    if let Some((start, size, was)) = torn_down(addr, 0) {
        return Error::violation(
            ViolationKind::DoubleFree,
            ffi::ACL_ERROR_RT_MEMORY_FREE,
            format!(
                "{addr:#x} lies in the {size}-byte {} block at {start:#x}, which was released by \
                 a runtime teardown (aclrt_sim::reset or aclFinalize) while still allocated; it \
                 is quarantined and must not be freed again",
                was.alloc_fn()
            ),
        );
    }
    if let Some((&start, f)) = mem.freed.range(..=addr).next_back() {
        if addr < start + f.size {
            return Error::violation(
                ViolationKind::DoubleFree,
                ffi::ACL_ERROR_RT_MEMORY_FREE,
                format!(
                    "{addr:#x} was already released ({}-byte block at {start:#x}, freed with {})",
                    f.size,
                    f.kind.free_fn()
                ),
            );
        }
    }
    if let Some((&start, a)) = mem.live.range(..=addr).next_back() {
        if addr < start + a.size {
            return Error::violation(
                ViolationKind::ForeignFree,
                ffi::ACL_ERROR_RT_PARAM_INVALID,
                format!(
                    "{addr:#x} points {} bytes into the allocation at {start:#x}; pass the start \
                     address",
                    addr - start
                ),
            );
        }
    }
    Error::violation(
        ViolationKind::ForeignFree,
        ffi::ACL_ERROR_RT_PARAM_INVALID,
        format!(
            "{addr:#x} was not allocated by {} (it is not memory of this runtime)",
            kind.alloc_fn()
        ),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn quarantine_is_bounded() {
        let mut t = MemTable::default();
        for i in 0..(QUARANTINE_BLOCKS + 10) {
            let block = HeapBlock::new(8).unwrap();
            let a = Allocation {
                block,
                size: 8,
                charged: 0,
                device: 0,
                ctx: 0,
                kind: AllocKind::Device,
                on_device: true,
            };
            t.quarantine(i * 64 + 64, a);
        }
        assert_eq!(t.freed.len(), QUARANTINE_BLOCKS);
        assert_eq!(t.freed_order.len(), QUARANTINE_BLOCKS);
        assert_eq!(t.freed_bytes, QUARANTINE_BLOCKS * 8);
    }
}
