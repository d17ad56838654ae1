//! Kernels: binaries (`aclrtBinary*`), the per-thread argument list
//! (`aclrtKernelArgs*`), launches (`aclrtLaunchKernelWithConfig`) and
//! the staging of a typed launch's arguments — the raw half of `crate::kernel`
//! over raw handles; the public `unsafe` methods of the typed kernel API
//! are in [`super::kernel_unsafe`].
//!
//! # The argument
//! A launch is asynchronous work like a copy, so it rides on the scope
//! argument of [`super::scope`]: it is queued only on a lane's stream, and
//! its memory operands are a [`Source`](super::scope::Source) (shared for
//! `'scope`, or parked on the same lane) or a
//! [`Parked`](super::scope::Parked) buffer (exclusive for `'scope`, on the
//! same lane). What a copy gets from the memcpy kind (which bytes the runtime
//! touches), a launch gets from the kernel's **declared signature**: the
//! only `unsafe` step, `Binary::kernel`, where the caller promises that
//! the device code reads only its `In`/`InOut` buffers, writes only its
//! `Out`/`InOut` buffers, each within its length (and, where a `Count`
//! argument is declared, below that count, which the launch checks against
//! every buffer's length), and nothing else. The typed layer stages exactly
//! one operand per declared parameter, of the declared kind, in order
//! ([`Staged`]): that is the crate contract this module relies on.
//!
//! The runtime's argument list is a **per-thread singleton** (acl-facts
//! K.6): every `aclrtKernelArgsInit` on a thread re-initialises the same
//! object, so two lists built at once on one thread clobber each other.
//! [`ArgsClaim`] is the one right to build a list on a thread: a `!Send`
//! token, at most one live per thread (a thread-local flag; a second claim
//! is [`Error::KernelArgsBusy`](crate::Error::KernelArgsBusy)). A typed
//! launch stages its whole list inside one call while holding a claim, and
//! the public builder
//! (`KernelArgs`) holds one for its whole life; host functions run on the
//! runtime's own thread, which has its own list, and re-entry on the same
//! thread finds the flag set. A forgotten builder leaves the flag set: later
//! launches on that thread fail with that error, which is safe.
//!
//! A binary stays loaded while a `Kernel` borrows it, and a launch needs
//! the kernel borrowed for `'scope`; scopes synchronise before they return,
//! so when a `Binary` can be unloaded no launch of it is pending
//! (`aclrtBinaryUnLoad` does not wait for them, K.5).
//!
//! # Where it lives
//! This file holds the types and the runtime calls (each in its `unsafe`
//! block, with its argument), with the two free helpers those calls use
//! (`with_options`, `append_item`). The bookkeeping beside them is in
//! child modules that deny `unsafe`: `claim` (the per-thread claim and the
//! safe steps of a list) and `staged` (the staging of a typed launch, with
//! its unit tests).

mod claim;
mod staged;

use core::ffi::{CStr, c_void};
use core::marker::PhantomData;
use core::mem::MaybeUninit;

use aclrt_sys as sys;
use generativity::Id;

use super::protocol::failure::Origin;
use super::scope::LaneCore;
use super::{Raw, Region, check, raw};
use crate::error::Result;

// ------------------------------------------------------------ binaries ---

/// `options` as the C struct, or NULL for none.
fn with_options<R>(
    options: &[sys::aclrtBinaryLoadOption],
    f: impl FnOnce(*mut sys::aclrtBinaryLoadOptions) -> R,
) -> R {
    if options.is_empty() {
        return f(core::ptr::null_mut());
    }
    let mut copy: Vec<sys::aclrtBinaryLoadOption> = options.to_vec();
    let mut opts = sys::aclrtBinaryLoadOptions {
        options: copy.as_mut_ptr(),
        numOpt: copy.len(),
    };
    f(&mut opts)
}

/// `aclrtBinaryLoadFromData` with `ctx` current; the runtime copies the image.
pub(crate) fn load_from_data(
    ctx: Raw,
    image: &[u8],
    options: &[sys::aclrtBinaryLoadOption],
) -> Result<Raw> {
    super::make_current(ctx)?;
    let mut bin: sys::aclrtBinHandle = core::ptr::null_mut();
    let code = with_options(options, |opts| {
        // SAFETY: `image` is readable host memory of `image.len()` bytes for
        // the call (the runtime copies it before returning, K.5); `opts` is
        // NULL or points to a live `aclrtBinaryLoadOptions` whose `options`
        // array holds `numOpt` entries (both live until `with_options`
        // returns); `bin` is a writable handle slot.
        unsafe { sys::aclrtBinaryLoadFromData(image.as_ptr().cast(), image.len(), opts, &mut bin) }
    });
    check(code, "aclrtBinaryLoadFromData")?;
    raw(bin, "aclrtBinaryLoadFromData")
}

/// `aclrtBinaryLoadFromFile` with `ctx` current.
pub(crate) fn load_from_file(
    ctx: Raw,
    path: &CStr,
    options: &[sys::aclrtBinaryLoadOption],
) -> Result<Raw> {
    super::make_current(ctx)?;
    let mut bin: sys::aclrtBinHandle = core::ptr::null_mut();
    let code = with_options(options, |opts| {
        // SAFETY: `path` is a NUL-terminated string live for the call;
        // `opts` is NULL or a live options struct (see `load_from_data`);
        // `bin` is a writable handle slot.
        unsafe { sys::aclrtBinaryLoadFromFile(path.as_ptr(), opts, &mut bin) }
    });
    check(code, "aclrtBinaryLoadFromFile")?;
    raw(bin, "aclrtBinaryLoadFromFile")
}

/// `aclrtBinaryUnLoad`, in the context that loaded it (as the docs ask).
pub(crate) fn unload(ctx: Raw, bin: Raw) -> Result<()> {
    let _ = super::make_current(ctx);
    // SAFETY: `bin` is a live binary handle owned by a `Binary`, which is
    // being consumed, so neither it nor any func handle of it (each borrowed
    // from the `Binary`) is used afterwards; no launch of it is pending,
    // since launches exist only inside scopes, which synchronise before
    // they return, and a `Kernel` borrowed by a scope keeps the `Binary`
    // borrowed (module argument).
    let code = unsafe { sys::aclrtBinaryUnLoad(bin.as_ptr()) };
    check(code, "aclrtBinaryUnLoad")
}

/// `aclrtBinaryGetFunction` with `ctx` current, so the binary is placed on
/// `ctx`'s device (K.5) — the device of every lane its kernels can reach.
pub(crate) fn get_function(ctx: Raw, bin: Raw, name: &CStr) -> Result<Raw> {
    super::make_current(ctx)?;
    let mut func: sys::aclrtFuncHandle = core::ptr::null_mut();
    // SAFETY: `bin` is a live binary handle (borrowed from its `Binary`);
    // `name` is NUL-terminated and live for the call; `func` is writable.
    let code = unsafe { sys::aclrtBinaryGetFunction(bin.as_ptr(), name.as_ptr(), &mut func) };
    check(code, "aclrtBinaryGetFunction")?;
    raw(func, "aclrtBinaryGetFunction")
}

// ---------------------------------------------------- the args handle ---

/// The right to build this thread's runtime argument list (K.6): at most
/// one per thread, never sent to another.
pub(crate) struct ArgsClaim {
    serial: u64,
    _thread: PhantomData<*mut ()>,
}

/// This thread's argument list, initialised for `func` while `claim` is held.
pub(crate) struct RawArgs {
    handle: Raw,
    ctx: Raw,
    claim: ArgsClaim,
}

impl RawArgs {
    /// `aclrtKernelArgsInit(func)` under `claim`, with `ctx` (the kernel's
    /// context) current.
    #[inline]
    pub(crate) fn init(claim: ArgsClaim, ctx: Raw, func: Raw) -> Result<RawArgs> {
        super::make_current(ctx)?;
        let mut handle: sys::aclrtArgsHandle = core::ptr::null_mut();
        // SAFETY: `func` is a live func handle (its `Kernel` borrows the
        // binary); `handle` is writable. The returned per-thread list is
        // re-initialised here, which is harmless: `claim` says no other
        // list is being built on this thread.
        let code = unsafe { sys::aclrtKernelArgsInit(func.as_ptr(), &mut handle) };
        check(code, "aclrtKernelArgsInit")?;
        Ok(RawArgs {
            handle: raw(handle, "aclrtKernelArgsInit")?,
            ctx,
            claim,
        })
    }

    /// `aclrtKernelArgsAppend` of `bytes` (copied at once, K.6).
    #[inline]
    pub(crate) fn append(&mut self, bytes: &[u8]) -> Result<()> {
        let mut param: sys::aclrtParamHandle = core::ptr::null_mut();
        // SAFETY: the list is this thread's, held by `claim`; `bytes` is
        // readable for `bytes.len()` bytes during the call, and the runtime
        // copies it before returning (so `*mut` is never written through);
        // `param` is writable.
        let code = unsafe {
            sys::aclrtKernelArgsAppend(
                self.handle.as_ptr(),
                bytes.as_ptr().cast_mut().cast(),
                bytes.len(),
                &mut param,
            )
        };
        check(code, "aclrtKernelArgsAppend")
    }

    /// `aclrtKernelArgsAppendPlaceHolder`; the param handle.
    pub(crate) fn append_placeholder(&mut self) -> Result<Raw> {
        let mut param: sys::aclrtParamHandle = core::ptr::null_mut();
        // SAFETY: the list is this thread's (claim); `param` is writable.
        let code =
            unsafe { sys::aclrtKernelArgsAppendPlaceHolder(self.handle.as_ptr(), &mut param) };
        check(code, "aclrtKernelArgsAppendPlaceHolder")?;
        raw(param, "aclrtKernelArgsAppendPlaceHolder")
    }

    /// `aclrtKernelArgsGetPlaceHolderBuffer` for `param`, then copy `data`
    /// into the returned host buffer.
    pub(crate) fn fill_placeholder(&mut self, param: Raw, data: &[u8]) -> Result<()> {
        let mut buf: *mut c_void = core::ptr::null_mut();
        // SAFETY: the list is this thread's (claim), and `param` one of its
        // placeholders (the typed layer checks the claim's serial); `buf`
        // is writable.
        let code = unsafe {
            sys::aclrtKernelArgsGetPlaceHolderBuffer(
                self.handle.as_ptr(),
                param.as_ptr(),
                data.len(),
                &mut buf,
            )
        };
        check(code, "aclrtKernelArgsGetPlaceHolderBuffer")?;
        let buf = raw(buf, "aclrtKernelArgsGetPlaceHolderBuffer")?;
        // SAFETY: the runtime returned a host buffer of `data.len()` bytes
        // inside this thread's list, which nothing else touches while the
        // claim is held; `data` is a different (Rust) allocation.
        unsafe {
            core::ptr::copy_nonoverlapping(data.as_ptr(), buf.as_ptr().cast::<u8>(), data.len());
        }
        Ok(())
    }

    /// `aclrtKernelArgsFinalize`, the list's context being still current
    /// since [`init`](Self::init) (no user code ran in between).
    #[inline]
    fn finalize_current(&mut self) -> Result<()> {
        // SAFETY: the list is this thread's (claim).
        let code = unsafe { sys::aclrtKernelArgsFinalize(self.handle.as_ptr()) };
        check(code, "aclrtKernelArgsFinalize")
    }
}

/// `aclrtLaunchKernelWithConfig` of a finalized list on `lane`'s stream,
/// with `blocks` blocks and the launch attributes `attrs` (none: the
/// config is NULL).
///
/// # Safety
/// Every device address in the list is memory the kernel may access as
/// its device code does, until `lane`'s stream is idle: see the callers.
#[inline]
pub(crate) unsafe fn launch_list(
    lane: &LaneCore<'_, '_>,
    func: Raw,
    blocks: u32,
    attrs: &mut [sys::aclrtLaunchKernelAttr],
    args: &RawArgs,
    bind: bool,
) -> Result<()> {
    // `bind == false`: the caller has just made the lane's context current.
    if bind {
        lane.bind()?;
    }
    // Without attributes nothing is built: `cfg` is NULL (K.7).
    let mut cfg;
    let cfg_ptr: *mut sys::aclrtLaunchKernelCfg = if attrs.is_empty() {
        core::ptr::null_mut()
    } else {
        cfg = sys::aclrtLaunchKernelCfg {
            attrs: attrs.as_mut_ptr(),
            numAttrs: attrs.len(),
        };
        &mut cfg
    };
    // SAFETY:
    // * `func` is live for the launch's whole run: its binary is borrowed
    //   for `'scope` by the caller (`Lane::launch` borrows the `Kernel`,
    //   which borrows the `Binary`; `Lane::launch_in` borrows the `Binary`
    //   and checked that the `KernelRef` was looked up in it), and the scope
    //   synchronises this stream before `'scope` ends;
    // * the stream is live (borrowed for `'scope`) and its context current
    //   (`bind`, or made current by the caller just before, when `bind` is
    //   false), the kernel's context (same brand `'id`), so on the device
    //   where `get_function` placed the binary;
    // * `cfg_ptr` is NULL or points to `numAttrs` attributes live for the
    //   call; `reserve` is NULL (K.7);
    // * `args` is this thread's finalized list (claimed), staged by the
    //   runtime during this call (K.6), so it may be reused afterwards;
    // * what the device code touches is the caller's contract.
    let code = unsafe {
        sys::aclrtLaunchKernelWithConfig(
            func.as_ptr(),
            blocks,
            lane.stream().as_ptr(),
            cfg_ptr,
            args.handle.as_ptr(),
            core::ptr::null_mut(),
        )
    };
    check(code, "aclrtLaunchKernelWithConfig")
}

// ------------------------------------------------------ typed staging ---

/// One argument of a typed launch.
#[derive(Clone, Copy)]
enum Item {
    /// A buffer, by its device address, with its length in elements.
    Buffer { region: Region, len: usize },
    /// A scalar's bytes, up to [`SMALL`] of them, kept inline.
    /// Only the first `len` bytes are initialised (see [`Item::small`]):
    /// staging writes just the scalar's bytes.
    Small {
        bytes: [MaybeUninit<u8>; SMALL],
        len: u8,
    },
    /// A larger scalar's bytes, at `off..off + len` of [`Items::large`].
    Large { off: usize, len: usize },
    /// A count: must not exceed any buffer's length.
    Count(u64),
}

impl Item {
    /// The bytes of a `Small` item.
    #[inline(always)]
    fn small_bytes(bytes: &[MaybeUninit<u8>; SMALL], len: u8) -> &[u8] {
        let len = usize::from(len);
        // SAFETY: a `Small` item is made only by `small` (in `staged`), which
        // initialises its first `len <= SMALL` bytes (and the items are
        // `Copy`, so copies keep them); `MaybeUninit<u8>` has the layout of
        // `u8`; the slice borrows `bytes`. (Unchecked: the launch loop then
        // has no bounds check.)
        unsafe { core::slice::from_raw_parts(bytes.as_ptr().cast::<u8>(), len) }
    }
}

/// Scalars up to this size are staged without an allocation.
const SMALL: usize = 16;
/// Arguments staged without an allocation: the largest typed signature.
const INLINE: usize = 12;

/// What a launch stages beyond [`Items::inline`]: items past [`INLINE`]
/// (never with the typed tuples) and the bytes of scalars larger than
/// [`SMALL`].
#[derive(Default)]
struct Overflow {
    spill: Vec<Item>,
    large: Vec<u8>,
}

/// The staged items: the first [`INLINE`] in place, so that a typed launch
/// allocates nothing; more in [`Overflow`].
struct Items {
    /// Slots `..len` are initialised (written by [`push`](Self::push)); the
    /// rest are not, so that staging writes only the items it has.
    inline: [MaybeUninit<Item>; INLINE],
    len: usize,
    /// What does not fit in place, allocated on first need only.
    overflow: Option<Box<Overflow>>,
    /// The shortest buffer's length (`usize::MAX`: none yet).
    shortest: usize,
    /// The largest count (0: none yet).
    largest_count: u64,
}

impl Items {
    /// The items kept in place.
    #[inline]
    fn inline_items(&self) -> &[Item] {
        // SAFETY: `len <= INLINE`: `push` (in `staged`) raises it only after
        // writing slot `len`, which exists (`get_mut` returned it), and
        // nothing else raises it. (Unchecked: the launch loop then has no
        // bounds check.)
        let init: &[MaybeUninit<Item>] = unsafe { self.inline.get_unchecked(..self.len) };
        // SAFETY: `push` initialises slot `len` before raising `len` by one,
        // and nothing else raises `len` or de-initialises a slot (an `Items`
        // is only ever replaced whole: `take_regions`, in `staged`), so
        // every slot of `init` holds an initialised `Item`;
        // `MaybeUninit<Item>` has the size, alignment and layout of `Item`,
        // so the slice reads as `[Item]` of the same length, borrowed from
        // `self` like `init`.
        unsafe { &*(core::ptr::from_ref(init) as *const [Item]) }
    }
}

/// The arguments of one typed launch on the lane branded `'sid`, staged in
/// the kernel's parameter order: buffers only as a
/// [`Source`](super::scope::Source) or a [`Parked`](super::scope::Parked)
/// of this lane, so each stays borrowed for `'scope` and its
/// work is ordered on this lane. Staging allocates nothing for up to
/// [`INLINE`] arguments and scalars up to [`SMALL`] bytes.
pub struct Staged<'sid> {
    items: Items,
    /// The streams the staged parked buffers and shared reads are bound to
    /// (the first, and the first other one): checked against the lane at
    /// launch ([`Staged::check_lane`]).
    bound: [Option<Raw>; 2],
    /// Where the contents of what the launch reads came from, joined
    /// (`Source::origin`), known before its outputs are staged
    /// ([`Staged::reads`]); `Origin::OUTSIDE` while nothing of the scope's
    /// is read.
    reads: Origin,
    /// The smallest count the launch passes (`usize::MAX`: none), known
    /// before its outputs are staged ([`Staged::counted`]).
    counted: usize,
    /// The launch was refused before anything is staged to run (a kernel
    /// reference of another binary): its outputs are given back as they
    /// were, not as what the launch would have written ([`Staged::derives`]).
    refused: bool,
    _sid: PhantomData<Id<'sid>>,
}

/// `aclrtKernelArgsAppend` of one staged item (`large`: the staged bytes
/// of the scalars larger than [`SMALL`]).
///
/// One call site for every kind: the match only picks the bytes, so the
/// launch loop has a single call and a single error check per item.
#[inline(always)]
fn append_item(args: &mut RawArgs, item: &Item, large: &[u8]) -> Result<()> {
    let word;
    let bytes: &[u8] = match item {
        Item::Buffer { region, .. } => {
            word = (region.ptr.as_ptr() as usize as u64).to_le_bytes();
            &word
        }
        Item::Small { bytes, len } => Item::small_bytes(bytes, *len),
        Item::Large { off, len } => &large[*off..*off + *len],
        Item::Count(n) => {
            word = n.to_le_bytes();
            &word
        }
    };
    args.append(bytes)
}

/// The kernel of a typed launch: its func handle and its context, as the
/// typed layer hands them over (crate contract): the handle of a `Kernel`
/// (or of a `KernelRef` checked against its binary) whose binary the caller
/// keeps borrowed for `'scope`, of the lane's context.
#[derive(Clone, Copy)]
pub(crate) struct LaunchedKernel {
    pub(crate) func: Raw,
    pub(crate) ctx: Raw,
}

/// Launch `kernel` on `lane` with the staged arguments, `blocks` blocks and
/// the launch attributes `attrs`.
///
/// The typed layer stages one item per declared parameter of `kernel`, of
/// the declared kind and element type (the crate contract of this module).
#[inline(always)]
pub(crate) fn launch<'scope, 'sid>(
    lane: &LaneCore<'scope, 'sid>,
    kernel: LaunchedKernel,
    blocks: u32,
    attrs: &mut [sys::aclrtLaunchKernelAttr],
    staged: &Staged<'sid>,
) -> Result<()> {
    staged.check_lane(lane)?;
    staged.check_counts()?;
    let claim = ArgsClaim::take_for_launch()?;
    let mut args = RawArgs::init(claim, kernel.ctx, kernel.func)?;
    // Two plain loops rather than one over a chain: the in-place items
    // are all there is for the typed tuples, and the loop stays short.
    // The overflow is looked at once: without it (the typed tuples with
    // scalars up to `SMALL` bytes) there is no spill and no large bytes.
    match staged.items.overflow.as_deref() {
        None => {
            for item in staged.items.inline_items() {
                append_item(&mut args, item, &[])?;
            }
        }
        Some(overflow) => {
            let large = staged.items.large();
            for item in staged.items.inline_items().iter().chain(&overflow.spill) {
                append_item(&mut args, item, large)?;
            }
        }
    }
    // `init` made the kernel's context current, and only runtime calls
    // followed: it still is, and it is the lane's (same brand `'id`).
    args.finalize_current()?;
    // SAFETY: every address in the list is a buffer staged by `Staged`,
    // so shared for `'scope` (read) or exclusively parked on this lane for
    // `'scope` (written), each in the kernel's parameter order and kind
    // (crate contract); `kernel`'s declaration (`Binary::kernel`'s
    // `# Safety`) says the device code reads only the read ones, writes only
    // the written ones, within their lengths and below every count — and
    // every count was just checked against every buffer's length; the scope
    // synchronises this stream before `'scope` ends.
    unsafe { launch_list(lane, kernel.func, blocks, attrs, &args, false) }
}
