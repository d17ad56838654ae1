//! Kernel loading and launch (`aclrtBinary*`, `aclrtKernelArgs*`,
//! `aclrtLaunchKernel*`): kernels are Rust functions registered by name
//! ([`register_kernel`]); a simulator device binary ([`binary_image`]) names
//! the kernels it contains; a launch is a stream task that runs every block
//! and touches device memory only through the checked accessors of
//! [`KernelArgs`].

use std::cell::RefCell;
use std::collections::{BTreeMap, HashMap, HashSet};
use std::fmt;
use std::hash::{BuildHasherDefault, Hasher};
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use crate::diag::{self, Error, Res, require, rt_param};
use crate::ffi;
use crate::model::{Violation, ViolationKind};
use crate::rt::access::Place;
use crate::rt::exec::{KernelCut, Op};
use crate::rt::rt;
use crate::sync::lock;

/// The first 8 bytes of a simulator device binary.
pub const BINARY_MAGIC: [u8; 8] = *b"ACLSIMKB";

/// The device fault a kernel task reports at the next synchronisation when
/// it fails (a checked access refused, or the kernel returned an error):
/// 507015 `ACL_ERROR_RT_AICORE_EXCEPTION`.
pub const KERNEL_FAULT_CODE: i32 = ffi::ACL_ERROR_RT_AICORE_EXCEPTION;

/// Most arguments one args handle takes.
const MAX_ARGS: usize = 128;
/// Bytes of one args handle's buffer.
const ARGS_BUF: usize = 64 * 1024;

/// The image of a simulator device binary naming `kernels`: [`BINARY_MAGIC`]
/// followed by each name and a NUL byte. `aclrtBinaryLoadFromData` accepts
/// it (and `aclrtBinaryLoadFromFile` a file holding it).
pub fn binary_image(kernels: &[&str]) -> Vec<u8> {
    let mut v = BINARY_MAGIC.to_vec();
    for k in kernels {
        v.extend_from_slice(k.as_bytes());
        v.push(0);
    }
    v
}

/// A failed kernel: a refused memory access (already recorded as a
/// violation) or an error the kernel reported itself. The task then faults
/// with [`KERNEL_FAULT_CODE`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct KernelError(String);

impl KernelError {
    /// A kernel-defined failure (recorded as no violation).
    pub fn new(msg: impl Into<String>) -> KernelError {
        KernelError(msg.into())
    }
}

impl fmt::Display for KernelError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for KernelError {}

/// A registered kernel: called once per block with (block index, block
/// count, arguments).
type KernelFn = dyn Fn(u32, u32, &KernelArgs) -> Result<(), KernelError> + Send + Sync;

static KERNELS: Mutex<BTreeMap<String, Arc<KernelFn>>> = Mutex::new(BTreeMap::new());

/// Bumped (under the [`KERNELS`] lock) by every [`register_kernel`], so
/// that a function handle's cached kernel is looked up again after one.
static KERNELS_GENERATION: AtomicU64 = AtomicU64::new(1);

/// Registers (or replaces) the kernel `name`. `f(block, num_blocks, args)`
/// runs once per block; every device access goes through `args`.
pub fn register_kernel(
    name: &str,
    f: impl Fn(u32, u32, &KernelArgs) -> Result<(), KernelError> + Send + Sync + 'static,
) {
    let mut kernels = lock(&KERNELS);
    kernels.insert(name.to_owned(), Arc::new(f));
    KERNELS_GENERATION.fetch_add(1, Ordering::SeqCst);
}

/// The decoded argument block of one launch, with checked device access.
pub struct KernelArgs {
    api: &'static str,
    kernel: Arc<str>,
    device: i32,
    bytes: Vec<u8>,
    /// (offset, length) of each argument in `bytes`.
    slots: Vec<(usize, usize)>,
    /// Placeholder data, by argument index.
    placeholders: Vec<Option<Vec<u8>>>,
}

impl KernelArgs {
    /// Number of arguments.
    pub fn len(&self) -> usize {
        self.slots.len()
    }

    /// Whether there are no arguments.
    pub fn is_empty(&self) -> bool {
        self.slots.is_empty()
    }

    /// The device the kernel runs on.
    pub fn device(&self) -> i32 {
        self.device
    }

    /// The bytes of argument `i`.
    pub fn bytes(&self, i: usize) -> Result<&[u8], KernelError> {
        let &(off, len) = self.slots.get(i).ok_or_else(|| {
            KernelError(format!(
                "kernel {} reads argument {i} of {}",
                self.kernel,
                self.slots.len()
            ))
        })?;
        Ok(&self.bytes[off..off + len])
    }

    /// Argument `i` as a little-endian `u64` (a device address or scalar;
    /// shorter arguments are zero-extended).
    pub fn u64(&self, i: usize) -> Result<u64, KernelError> {
        let b = self.bytes(i)?;
        let mut v = [0u8; 8];
        let n = b.len().min(8);
        v[..n].copy_from_slice(&b[..n]);
        Ok(u64::from_le_bytes(v))
    }

    /// The host data of placeholder argument `i` (`aclrtKernelArgsGetPlaceHolderBuffer`),
    /// staged at launch; `None` for other arguments.
    pub fn placeholder(&self, i: usize) -> Option<&[u8]> {
        self.placeholders.get(i)?.as_deref()
    }

    fn refuse(&self, why: String) -> KernelError {
        let message = format!(
            "{}: kernel {} on device {}: {why}",
            self.api, self.kernel, self.device
        );
        diag::record_violation(Violation {
            function: self.api,
            code: KERNEL_FAULT_CODE,
            kind: ViolationKind::KernelBadAccess,
            message: message.clone(),
            rule: crate::model::rule_name(ViolationKind::KernelBadAccess, self.api, 0),
            handle: None,
            refused: false,
        });
        KernelError(message)
    }

    fn span(&self, addr: u64, len: usize) -> Result<crate::prim::Span, KernelError> {
        let Ok(addr) = usize::try_from(addr) else {
            return Err(self.refuse(format!("address {addr:#x} out of range")));
        };
        let r = rt().mem.access_runtime(addr, len);
        match r {
            Ok(a)
                if a.place == Place::Device(self.device)
                    || a.place == Place::Managed(self.device) =>
            {
                Ok(a.span)
            }
            Ok(a) => Err(self.refuse(format!(
                "{len} bytes at {addr:#x} are {}, not device memory of device {}",
                a.place.describe(),
                self.device
            ))),
            Err(why) => Err(self.refuse(why)),
        }
    }

    /// Reads `out.len()` bytes of device memory at `addr` (checked: device
    /// memory of the launch's device, inside one live allocation).
    pub fn read(&self, addr: u64, out: &mut [u8]) -> Result<(), KernelError> {
        let span = self.span(addr, out.len())?;
        if crate::prim::read_into(&span, out) {
            Ok(())
        } else {
            Err(KernelError("internal: read length".into()))
        }
    }

    /// Writes `data` to device memory at `addr` (checked like [`read`](Self::read)).
    pub fn write(&self, addr: u64, data: &[u8]) -> Result<(), KernelError> {
        let span = self.span(addr, data.len())?;
        if crate::prim::write_from(&span, data) {
            Ok(())
        } else {
            Err(KernelError("internal: write length".into()))
        }
    }

    /// Reads element `index` of an `f32` array at device address `base`.
    pub fn read_f32(&self, base: u64, index: usize) -> Result<f32, KernelError> {
        let mut b = [0u8; 4];
        self.read(base.wrapping_add(4 * index as u64), &mut b)?;
        Ok(f32::from_le_bytes(b))
    }

    /// Writes element `index` of an `f32` array at device address `base`.
    pub fn write_f32(&self, base: u64, index: usize, v: f32) -> Result<(), KernelError> {
        self.write(base.wrapping_add(4 * index as u64), &v.to_le_bytes())
    }
}

// ------------------------------------------------------------- tables ---

/// Counts the launches of one binary still queued or running.
struct Pending(Arc<AtomicUsize>);

impl Pending {
    fn new(c: &Arc<AtomicUsize>) -> Pending {
        c.fetch_add(1, Ordering::SeqCst);
        Pending(c.clone())
    }
}

impl Drop for Pending {
    fn drop(&mut self) {
        self.0.fetch_sub(1, Ordering::SeqCst);
    }
}

struct Binary {
    names: Vec<String>,
    /// Devices current at an `aclrtBinaryGetFunction` (where the code was
    /// "copied"); launches must run on one of them.
    devices: HashSet<i32>,
    funcs: HashMap<String, usize>,
    pending: Arc<AtomicUsize>,
}

struct Func {
    bin: usize,
    name: Arc<str>,
    pending: Arc<AtomicUsize>,
    /// The registered kernel as of a [`KERNELS_GENERATION`] (0: none yet).
    cached: (u64, Option<Arc<KernelFn>>),
}

/// Hashes the runtime's own handles (distinct multiples of 16): a
/// multiplication is enough, and far cheaper per launch than SipHash.
#[derive(Default)]
struct HandleHasher(u64);

impl Hasher for HandleHasher {
    fn finish(&self) -> u64 {
        self.0
    }
    fn write(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.0 = (self.0.rotate_left(8) ^ u64::from(b)).wrapping_mul(0x9e37_79b9_7f4a_7c15);
        }
    }
    fn write_usize(&mut self, n: usize) {
        self.0 = (n as u64 ^ self.0).wrapping_mul(0x9e37_79b9_7f4a_7c15);
    }
}

type ByHandle<V> = HashMap<usize, V, BuildHasherDefault<HandleHasher>>;

#[derive(Default)]
struct Tables {
    next: usize,
    bins: ByHandle<Binary>,
    funcs: ByHandle<Func>,
    unloaded: HashSet<usize, BuildHasherDefault<HandleHasher>>,
}

static TABLES: Mutex<Option<Tables>> = Mutex::new(None);

fn with_tables<R>(f: impl FnOnce(&mut Tables) -> R) -> R {
    let mut g = lock(&TABLES);
    f(g.get_or_insert_with(Tables::default))
}

impl Tables {
    fn new_handle(&mut self) -> usize {
        self.next += 1;
        0x5100_0000_0000 + self.next * 0x10
    }

    fn stale_or_invalid(&self, h: usize, what: &str) -> Error {
        if self.unloaded.contains(&h) {
            Error::violation(
                ViolationKind::UseAfterFree,
                ffi::ACL_ERROR_RT_INVALID_HANDLE,
                format!("{what} {h:#x} belongs to an unloaded binary (aclrtBinaryUnLoad)"),
            )
        } else {
            Error::violation(
                ViolationKind::InvalidHandle,
                ffi::ACL_ERROR_RT_INVALID_HANDLE,
                format!("{what} {h:#x} was never created by this runtime"),
            )
        }
    }
}

/// Load options as (type, value) pairs; `None` when `options` was NULL;
/// `Some(None)` when its `options` array pointer was NULL.
pub(crate) type LoadOptions = Option<Option<Vec<(u32, u32)>>>;

fn check_options(opts: LoadOptions, from_file: bool) -> Res<()> {
    let Some(opts) = opts else { return Ok(()) };
    let Some(opts) = opts else {
        return Err(rt_param(
            "options->options is NULL (it must be non-NULL even when numOpt is 0)",
        ));
    };
    for (ty, v) in opts {
        let ok = match ty {
            ffi::ACL_RT_BINARY_LOAD_OPT_LAZY_LOAD => v <= 1,
            ffi::ACL_RT_BINARY_LOAD_OPT_MAGIC => {
                !from_file
                    && [
                        ffi::ACL_RT_BINARY_MAGIC_ELF_AICORE,
                        ffi::ACL_RT_BINARY_MAGIC_ELF_VECTOR_CORE,
                        ffi::ACL_RT_BINARY_MAGIC_ELF_CUBE_CORE,
                    ]
                    .contains(&(v as i32))
            }
            ffi::ACL_RT_BINARY_LOAD_OPT_CPU_KERNEL_MODE => {
                if from_file {
                    v <= 1
                } else {
                    v == 2
                }
            }
            _ => false,
        };
        if !ok {
            return Err(rt_param(format!(
                "load option {ty} with value {v} is invalid"
            )));
        }
    }
    Ok(())
}

fn parse(data: &[u8]) -> Res<Vec<String>> {
    let body = data
        .strip_prefix(&BINARY_MAGIC)
        .ok_or_else(|| rt_param("not a simulator device binary (see aclrt_sim::binary_image)"))?;
    let Some(body) = body.strip_suffix(&[0]) else {
        return Err(rt_param(
            "the binary names no kernel, or its last name lacks its NUL",
        ));
    };
    let mut names = Vec::new();
    for n in body.split(|&b| b == 0) {
        let n = std::str::from_utf8(n)
            .ok()
            .filter(|n| !n.is_empty())
            .ok_or_else(|| rt_param("a kernel name of the binary is empty or not UTF-8"))?;
        names.push(n.to_owned());
    }
    Ok(names)
}

/// `aclrtBinaryLoadFromData` (`Ok(data)`) / `aclrtBinaryLoadFromFile`
/// (`Err(path)`); returns the handle.
/// The `len` bytes of host data at `data` (`aclrtBinaryLoadFromData`),
/// copied. The memory table classifies the range first: the device alias
/// of registered host memory (`aclrtHostRegister`'s `devPtr`), freed
/// runtime memory or a range running out of a runtime allocation is not
/// host data the runtime can read: 107000, the runtime's invalid argument
/// (row KBIN-DATA), never a read.
pub(crate) fn host_data(data: crate::prim::UserMem, len: usize) -> Res<Vec<u8>> {
    if len == 0 {
        return Ok(Vec::new());
    }
    let a = rt()
        .mem
        .access(data, len, "data")
        .map_err(|e| e.with_code(ffi::ACL_ERROR_RT_PARAM_INVALID))?;
    let mut buf = Vec::new();
    if buf.try_reserve_exact(len).is_err() {
        return Err(rt_param(format!("length {len} is larger than any binary")));
    }
    buf.resize(len, 0);
    if !crate::prim::read_into(&a.span, &mut buf) {
        return Err(Error::new(
            ffi::ACL_ERROR_RT_INTERNAL_ERROR,
            "internal error reading the binary's data",
        ));
    }
    Ok(buf)
}

pub(crate) fn binary_load(source: Result<&[u8], &str>, options: LoadOptions) -> Res<usize> {
    check_options(options, source.is_err())?;
    let names = match source {
        Ok(data) => {
            if data.is_empty() {
                return Err(rt_param("length is 0"));
            }
            parse(data)?
        }
        Err(path) => {
            let data = std::fs::read(path)
                .map_err(|e| rt_param(format!("cannot read the binary {path:?}: {e}")))?;
            parse(&data)?
        }
    };
    Ok(with_tables(|t| {
        let h = t.new_handle();
        t.bins.insert(
            h,
            Binary {
                names,
                devices: HashSet::new(),
                funcs: HashMap::new(),
                pending: Arc::new(AtomicUsize::new(0)),
            },
        );
        h
    }))
}

/// `aclrtBinaryUnLoad`.
pub(crate) fn binary_unload(bin: usize) -> Res<()> {
    require(bin != 0, || "binHandle is NULL".into())?;
    with_tables(|t| {
        let Some(b) = t.bins.get(&bin) else {
            return Err(t.stale_or_invalid(bin, "binary handle"));
        };
        let n = b.pending.load(Ordering::SeqCst);
        if n > 0 {
            return Err(Error::violation(
                ViolationKind::ReleaseWhileInUse,
                ffi::ACL_ERROR_RT_STREAM_NOT_COMPLETE,
                format!(
                    "{n} launch(es) of kernels of binary {bin:#x} are still queued or running; \
                     synchronise their streams before unloading"
                ),
            ));
        }
        let b = t.bins.remove(&bin).expect("looked up above");
        for f in b.funcs.values() {
            t.funcs.remove(f);
            t.unloaded.insert(*f);
        }
        t.unloaded.insert(bin);
        Ok(())
    })
}

/// `aclrtBinaryGetFunction`; returns the function handle.
pub(crate) fn get_function(bin: usize, name: Option<&str>) -> Res<usize> {
    require(bin != 0, || "binHandle is NULL".into())?;
    let name = name.ok_or_else(|| diag::param("kernelName is NULL or not UTF-8"))?;
    let registered = lock(&KERNELS).contains_key(name);
    let device = rt()
        .current()
        .map(|c| c.device)
        .map_err(|e| rt_param(format!("kernel lookup failed: {}", e.msg)))?;
    with_tables(|t| {
        let Some(b) = t.bins.get_mut(&bin) else {
            return Err(t.stale_or_invalid(bin, "binary handle"));
        };
        b.devices.insert(device);
        if let Some(&f) = b.funcs.get(name) {
            return Ok(f);
        }
        if !b.names.iter().any(|n| n == name) || !registered {
            return Err(Error::violation(
                ViolationKind::UnknownKernel,
                ffi::ACL_ERROR_RT_PARAM_INVALID,
                if registered {
                    format!("binary {bin:#x} does not contain a kernel named {name:?}")
                } else {
                    format!("no kernel named {name:?} is registered (aclrt_sim::register_kernel)")
                },
            ));
        }
        let pending = b.pending.clone();
        let h = t.new_handle();
        t.bins
            .get_mut(&bin)
            .expect("looked up above")
            .funcs
            .insert(name.to_owned(), h);
        t.funcs.insert(
            h,
            Func {
                bin,
                name: Arc::from(name),
                pending,
                cached: (0, None),
            },
        );
        Ok(h)
    })
}

/// A function handle's kernel, name and pending counter. The kernel is
/// looked up by name in the registry once per [`register_kernel`] (cached
/// in the handle), so a re-registered kernel is seen by the next launch.
/// The C API's handle guard of a function handle (107017 for a stale or
/// foreign one).
pub(crate) fn guard_func(func: usize) -> Res<()> {
    lookup_func(func).map(drop)
}

fn lookup_func(func: usize) -> Res<(Arc<KernelFn>, Arc<str>, Arc<AtomicUsize>)> {
    with_tables(|t| {
        let f = match t.funcs.get(&func) {
            Some(f) if t.bins.contains_key(&f.bin) => f,
            _ => return Err(t.stale_or_invalid(func, "function handle")),
        };
        let generation = KERNELS_GENERATION.load(Ordering::SeqCst);
        let (name, pending) = (f.name.clone(), f.pending.clone());
        if let (g, Some(k)) = &f.cached {
            if *g == generation {
                return Ok((k.clone(), name, pending));
            }
        }
        let kernels = lock(&KERNELS);
        // Read again under the registry's lock: it is bumped under it.
        let generation = KERNELS_GENERATION.load(Ordering::SeqCst);
        let k = kernels.get(&*name).cloned();
        drop(kernels);
        let f = t.funcs.get_mut(&func).expect("looked up above");
        f.cached = (generation, k.clone());
        let k = k.ok_or_else(|| {
            Error::violation(
                ViolationKind::UnknownKernel,
                ffi::ACL_ERROR_RT_PARAM_INVALID,
                format!("kernel {name:?} is no longer registered"),
            )
        })?;
        Ok((k, name, pending))
    })
}

/// Queues a kernel task on `stream` (NULL: the default stream). `args` is
/// built on the worker from the stream's device.
fn enqueue(
    func: usize,
    num_blocks: u32,
    stream: usize,
    own_limit: OwnLimit,
    args: impl FnOnce(i32, Arc<str>) -> Result<KernelArgs, (i32, String)> + Send + 'static,
    check_now: impl FnOnce(&crate::rt::Runtime, i32) -> Res<()>,
) -> Res<()> {
    let (kernel, name, pending) = lookup_func(func)?;
    let (sh, device, limit) = {
        let rt = rt();
        let (_, st) = rt.stream_in_current(stream)?;
        check_now(&rt, st.device)?;
        let limit =
            own_limit.unwrap_or_else(|| Some(rt.cfg.soc.op_execute_limit(rt.op_execute_timeout)));
        (st.shared.clone(), st.device, limit)
    };
    with_tables(|t| {
        let placed = t
            .funcs
            .get(&func)
            .and_then(|f| t.bins.get(&f.bin))
            .is_some_and(|b| b.devices.contains(&device));
        if placed {
            Ok(())
        } else {
            Err(Error::new(
                ffi::ACL_ERROR_RT_INVALID_HANDLE,
                format!(
                    "the binary of function {func:#x} was never placed on device {device} (call \
                     aclrtBinaryGetFunction while a context of device {device} is current)"
                ),
            ))
        }
    })?;
    let guard = Pending::new(&pending);
    let run = move |cut: &dyn Fn() -> bool| {
        let _guard = guard;
        let a = match args(device, name) {
            Ok(a) => a,
            Err(f) => return Ok(Some(f)),
        };
        for b in 0..num_blocks {
            // An abort of the stream stops the running kernel (acl-facts
            // K.8): between two blocks here.
            if cut() {
                return Err(KernelCut);
            }
            if let Err(e) = kernel(b, num_blocks, &a) {
                return Ok(Some((
                    KERNEL_FAULT_CODE,
                    format!("kernel {} block {b} of {num_blocks}: {e}", a.kernel),
                )));
            }
        }
        Ok(None)
    };
    let ticket = sh.kernel_ticket(limit);
    sh.submit(Op::Kernel(Box::new(run)), ticket)?;
    Ok(())
}

/// `aclrtLaunchKernel`, E `LaunchKernel` + I: `args` is a device address of `size` bytes of 8-byte
/// slots, read when the kernel runs.
pub(crate) fn launch(
    func: usize,
    num_blocks: u32,
    args: usize,
    size: usize,
    stream: usize,
) -> Res<()> {
    const API: &str = "aclrtLaunchKernel";
    // The ACL layer's NULL checks and the handle guard were made above
    // (`acl_layer::launch_kernel`, `rt_api::launch_kernel`); E's from here.
    if num_blocks == 0 {
        return Err(rt_param("numBlocks is 0"));
    }
    if size == 0 {
        // The runtime takes argsSize as 32 bits and refuses 0.
        return Err(rt_param("argsSize is 0"));
    }
    if size % 8 != 0 || size > ARGS_BUF {
        return Err(rt_param(format!(
            "argsSize {size} is not a multiple of 8 bytes (one slot per argument) or exceeds 64 KiB"
        )));
    }
    let check = move |rt: &crate::rt::Runtime, device: i32| match rt.mem.access_runtime(args, size)
    {
        Ok(a) if a.place == Place::Device(device) || a.place == Place::Managed(device) => Ok(()),
        Ok(a) => Err(Error::violation(
            ViolationKind::KernelBadAccess,
            ffi::ACL_ERROR_RT_PARAM_INVALID,
            format!(
                "argsData {args:#x} is {}, not device memory of the stream's device {device}",
                a.place.describe()
            ),
        )),
        Err(why) => Err(Error::violation(
            ViolationKind::KernelBadAccess,
            ffi::ACL_ERROR_RT_PARAM_INVALID,
            format!("argsData: {why}"),
        )),
    };
    let decode = move |device: i32, kernel: Arc<str>| {
        let mut a = KernelArgs {
            api: API,
            kernel,
            device,
            bytes: vec![0; size],
            slots: (0..size / 8).map(|i| (8 * i, 8)).collect(),
            placeholders: Vec::new(),
        };
        let mut bytes = std::mem::take(&mut a.bytes);
        a.read(args as u64, &mut bytes).map_err(|e| {
            (
                KERNEL_FAULT_CODE,
                format!("reading the argument block: {e}"),
            )
        })?;
        a.bytes = bytes;
        Ok(a)
    };
    enqueue(func, num_blocks, stream, None, decode, check)
}

// ------------------------------------------------------- args handles ---

/// The data area (offset, length) of a placeholder, once requested.
type Placeholder = Option<(usize, usize)>;

struct ArgsState {
    buf: crate::prim::ArgsBuf,
    generation: u32,
    func: usize,
    /// End of the argument area.
    used: usize,
    /// Each argument: offset, length, and for a placeholder its data area
    /// once requested.
    slots: Vec<(usize, usize, Option<Placeholder>)>,
    /// End of the placeholder data area (0 until the first buffer).
    data_end: usize,
    sealed: bool,
    finalized: bool,
}

thread_local! {
    static ARGS: RefCell<Option<Box<ArgsState>>> = const { RefCell::new(None) };
}

fn align8(n: usize) -> usize {
    n.div_ceil(8) * 8
}

/// The argument lists of threads whose [`ARGS`] is gone (a kernel launched
/// from a thread-local destructor of the application, after the
/// simulator's were destroyed), by OS thread id: the fallback that keeps
/// such a launch working. Bounded by the number of threads that launched
/// at once from their destructors (an entry is reused by the next thread
/// with the same id).
static ORPHAN_ARGS: std::sync::Mutex<Vec<(u64, Option<Box<ArgsState>>)>> =
    std::sync::Mutex::new(Vec::new());

/// Runs `f` on the calling thread's argument list (its [`ARGS`], or the
/// fallback in [`ORPHAN_ARGS`] once that is destroyed).
fn with_state<R>(f: impl FnOnce(&mut Option<Box<ArgsState>>) -> R) -> R {
    let mut f = Some(f);
    let mut run = |a: &mut Option<Box<ArgsState>>| (f.take().expect("called once"))(a);
    if let Ok(r) = ARGS.try_with(|a| run(&mut a.borrow_mut())) {
        return r;
    }
    let thread = crate::prim::os_thread_id();
    let mut all = crate::sync::lock(&ORPHAN_ARGS);
    let i = match all.iter().position(|(t, _)| *t == thread) {
        Some(i) => i,
        None => {
            all.push((thread, None));
            all.len() - 1
        }
    };
    run(&mut all[i].1)
}

/// Runs `f` on this thread's args state if `h` is its handle (107017
/// otherwise).
fn with_args<R>(h: usize, f: impl FnOnce(&mut ArgsState) -> Res<R>) -> Res<R> {
    require(h != 0, || "argsHandle is NULL".into())?;
    with_state(|a| match a {
        Some(st) if std::ptr::from_ref::<ArgsState>(st).addr() == h => f(st),
        _ => Err(Error::violation(
            ViolationKind::InvalidHandle,
            ffi::ACL_ERROR_RT_INVALID_HANDLE,
            format!(
                "argsHandle {h:#x} is not this thread's argument list (aclrtKernelArgsInit \
                 returns one per thread)"
            ),
        )),
    })
}

/// `aclrtKernelArgsInit`: re-initialises this thread's list; returns it.
pub(crate) fn args_init(func: usize) -> Res<usize> {
    require(func != 0, || "funcHandle is NULL".into())?;
    lookup_func(func)?;
    Ok(with_state(|a| {
        let st = a.get_or_insert_with(|| {
            Box::new(ArgsState {
                buf: crate::prim::ArgsBuf::new(ARGS_BUF),
                generation: 0,
                func: 0,
                used: 0,
                slots: Vec::new(),
                data_end: 0,
                sealed: false,
                finalized: false,
            })
        });
        st.generation = st.generation.wrapping_add(1);
        st.func = func;
        st.used = 0;
        st.slots.clear();
        st.data_end = 0;
        st.sealed = false;
        st.finalized = false;
        std::ptr::from_ref::<ArgsState>(st).addr()
    }))
}

fn param_handle(st: &ArgsState, i: usize) -> usize {
    ((st.generation as usize & 0xff_ffff) << 16 | (i + 1)) << 4
}

fn param_index(st: &ArgsState, p: usize) -> Res<usize> {
    let i = (p >> 4) & 0xffff;
    if p != 0 && i >= 1 && i <= st.slots.len() && param_handle(st, i - 1) == p {
        Ok(i - 1)
    } else {
        Err(Error::violation(
            ViolationKind::InvalidHandle,
            ffi::ACL_ERROR_RT_INVALID_HANDLE,
            format!("paramHandle {p:#x} is not an argument of the current list (re-initialised?)"),
        ))
    }
}

/// `aclrtKernelArgsAppend` (`Some(bytes)`) and
/// `aclrtKernelArgsAppendPlaceHolder` (`None`); returns the param handle.
pub(crate) fn args_append(args: usize, param: Option<&[u8]>) -> Res<usize> {
    with_args(args, |st| {
        if st.sealed || st.finalized {
            return Err(Error::new(
                ffi::ACL_ERROR_RT_FEATURE_NOT_SUPPORT,
                "appending after aclrtKernelArgsFinalize or aclrtKernelArgsGetPlaceHolderBuffer",
            ));
        }
        if st.slots.len() >= MAX_ARGS {
            return Err(rt_param(format!("more than {MAX_ARGS} arguments")));
        }
        let len = param.map_or(8, <[u8]>::len);
        let off = align8(st.used);
        if off + len > ARGS_BUF {
            return Err(rt_param("the arguments exceed 64 KiB"));
        }
        let zero = [0u8; 8];
        if !st.buf.write(off, param.unwrap_or(&zero)) {
            return Err(rt_param("internal: args buffer bounds"));
        }
        st.used = off + len;
        st.slots.push((off, len, param.is_none().then_some(None)));
        Ok(param_handle(st, st.slots.len() - 1))
    })
}

/// `aclrtKernelArgsGetPlaceHolderBuffer`; returns the host buffer.
pub(crate) fn args_placeholder_buffer(args: usize, param: usize, size: usize) -> Res<*mut u8> {
    require(size != 0, || "dataSize is 0".into())?;
    with_args(args, |st| {
        require(param != 0, || "paramHandle is NULL".into())?;
        if st.finalized {
            return Err(Error::new(
                ffi::ACL_ERROR_RT_FEATURE_NOT_SUPPORT,
                "aclrtKernelArgsGetPlaceHolderBuffer after aclrtKernelArgsFinalize",
            ));
        }
        let i = param_index(st, param)?;
        if st.slots[i].2.is_none() {
            return Err(rt_param(
                "paramHandle is an appended argument, not a placeholder",
            ));
        }
        let start = align8(if st.sealed { st.data_end } else { st.used });
        if start.checked_add(size).is_none_or(|end| end > ARGS_BUF) {
            return Err(rt_param("the placeholder data exceeds 64 KiB"));
        }
        st.sealed = true;
        st.data_end = start + size;
        st.slots[i].2 = Some(Some((start, size)));
        st.buf
            .ptr(start, size)
            .ok_or_else(|| rt_param("internal: args buffer bounds"))
    })
}

/// `aclrtKernelArgsFinalize`.
pub(crate) fn args_finalize(args: usize) -> Res<()> {
    with_args(args, |st| {
        rt().current()?;
        st.finalized = true;
        Ok(())
    })
}

/// Copies `len` bytes at `off` of the args buffer.
fn snapshot(st: &ArgsState, off: usize, len: usize) -> Vec<u8> {
    st.buf.read(off, len).unwrap_or_default()
}

/// A cfg: `None` when NULL; `Some(None)` when its `attrs` pointer was NULL.
pub(crate) type LaunchCfg = Option<Option<Vec<(u32, [u8; 16])>>>;

/// A launch's own op-execute limit (`ACL_RT_LAUNCH_KERNEL_ATTR_TIMEOUT`,
/// seconds, or `..._TIMEOUT_US`): `None` when the launch carries none (the
/// process-wide `aclrtSetOpExecuteTimeOut` applies), `Some(None)` for 0
/// (never times out), `Some(Some(limit))` otherwise. It takes precedence
/// over the process-wide one (the runtime's `ConvertTimeoutToInner`).
type OwnLimit = Option<Option<Duration>>;

/// E's checks of a launch configuration (`CheckKernelLaunchCfg`); its own
/// op-execute limit.
fn check_cfg(cfg: LaunchCfg) -> Res<OwnLimit> {
    let Some(cfg) = cfg else { return Ok(None) };
    let Some(attrs) = cfg else {
        return Err(rt_param(
            "cfg->attrs is NULL (it must be non-NULL even when numAttrs is 0)",
        ));
    };
    let (mut timeout, mut timeout_us) = (false, false);
    let mut own: OwnLimit = None;
    for (id, v) in attrs {
        let ok = match id {
            ffi::ACL_RT_LAUNCH_KERNEL_ATTR_SCHEM_MODE => v[0] < 2,
            ffi::ACL_RT_LAUNCH_KERNEL_ATTR_BLOCK_TASK_PREFETCH
            | ffi::ACL_RT_LAUNCH_KERNEL_ATTR_DATA_DUMP
            | ffi::ACL_RT_LAUNCH_KERNEL_ATTR_ENABLE_PROFILING => v[0] < 2,
            ffi::ACL_RT_LAUNCH_KERNEL_ATTR_TIMEOUT => {
                timeout = true;
                let secs = u16::from_ne_bytes([v[0], v[1]]);
                own = Some((secs != 0).then(|| Duration::from_secs(u64::from(secs))));
                true
            }
            ffi::ACL_RT_LAUNCH_KERNEL_ATTR_TIMEOUT_US => {
                timeout_us = true;
                let low = u32::from_ne_bytes([v[0], v[1], v[2], v[3]]);
                let high = u32::from_ne_bytes([v[4], v[5], v[6], v[7]]);
                let us = u64::from(high) << 32 | u64::from(low);
                own = Some((us != 0).then(|| Duration::from_micros(us)));
                true
            }
            2..=4 => true,
            _ => false,
        };
        if !ok {
            return Err(rt_param(format!("launch attribute {id} is invalid")));
        }
    }
    if timeout && timeout_us {
        return Err(rt_param("TIMEOUT and TIMEOUT_US together"));
    }
    Ok(own)
}

/// The C API's handle guard of an argument list (107017 for one that is
/// not the calling thread's live list).
pub(crate) fn guard_args(args: usize) -> Res<()> {
    with_args(args, |_| Ok(()))
}

/// `aclrtLaunchKernelWithConfig`, E and I: the configuration's checks,
/// then the list (finalized), staged during the call. The ACL layer's
/// checks and the handle guard were made before
/// (`acl_layer::launch_kernel_with_config`,
/// `rt_api::launch_kernel_with_config`).
pub(crate) fn launch_with_config(
    func: usize,
    num_blocks: u32,
    stream: usize,
    cfg: LaunchCfg,
    args: usize,
) -> Res<()> {
    let own = check_cfg(cfg)?;
    let (bytes, slots, placeholders) = with_args(args, |st| {
        if !st.finalized {
            return Err(rt_param(
                "the argument list is not finalized (aclrtKernelArgsFinalize)",
            ));
        }
        let bytes = snapshot(st, 0, st.used);
        let slots = st.slots.iter().map(|s| (s.0, s.1)).collect();
        // No placeholder data (the common case): no table at all.
        let ph = if st.slots.iter().any(|s| s.2.flatten().is_some()) {
            st.slots
                .iter()
                .map(|s| s.2.flatten().map(|(o, l)| snapshot(st, o, l)))
                .collect()
        } else {
            Vec::new()
        };
        Ok((bytes, slots, ph))
    })?;
    let decode = move |device: i32, kernel: Arc<str>| {
        Ok(KernelArgs {
            api: "aclrtLaunchKernelWithConfig",
            kernel,
            device,
            bytes,
            slots,
            placeholders,
        })
    };
    enqueue(func, num_blocks, stream, own, decode, |_, _| Ok(()))
}
