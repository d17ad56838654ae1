//! The call model: one [`Call`] is a function of the C ABI and eight raw
//! selectors; [`Exec`] turns the selectors into arguments drawn from pools
//! of live, destroyed, NULL, boundary and random values, and calls the
//! function.
//!
//! The selectors are interpreted against the pools as they stand when the
//! call runs (`selector % pool length`), so a sequence is deterministic,
//! and deleting calls from it (minimising) still yields a valid sequence.
//!
//! What is never passed: host pointers the simulator cannot know about
//! (wild addresses outside its own address range, or host ranges longer
//! than the buffer behind them). A real runtime crashes on those too, and
//! the simulator documents that it cannot check them (RELIABILITY.md,
//! "Which pointers the simulator checks"). Every *device-side* pointer is
//! fair game: live, freed, offset, past the end, between blocks.

use aclrt_sim::ffi::{self as c, aclError, aclrtContext, aclrtEvent, aclrtStream};
use std::ffi::{CString, c_void};
use std::ptr::{null, null_mut};
use std::sync::atomic::{AtomicBool, AtomicI32, AtomicUsize, Ordering};
use std::time::Duration;

/// Calls a C function of the simulator.
macro_rules! c {
    ($f:ident ( $($arg:expr),* $(,)? )) => {{
        // SAFETY: every pointer argument is NULL, a pointer to a local or
        // static of the C type (or a buffer at least as long as the length
        // passed with it), or a pointer the simulator handed out (live or
        // not) possibly moved by an offset: the simulator resolves those
        // against its allocation table before any access. Handles are
        // opaque integers to it. Callbacks are `extern "C"` functions of
        // this module.
        unsafe { c::$f($($arg),*) }
    }};
}

/// Every exported function of the C ABI (the order is the call's `f`).
pub const FUNCS: &[&str] = &[
    "aclInit",
    "aclFinalize",
    "aclFinalizeReference",
    "aclGetRecentErrMsg",
    "aclrtGetSocName",
    "aclrtSetDevice",
    "aclrtResetDevice",
    "aclrtResetDeviceForce",
    "aclrtGetDevice",
    "aclrtGetDeviceCount",
    "aclrtGetRunMode",
    "aclrtSynchronizeDevice",
    "aclrtSynchronizeDeviceWithTimeout",
    "aclrtDeviceCanAccessPeer",
    "aclrtDeviceEnablePeerAccess",
    "aclrtDeviceDisablePeerAccess",
    "aclrtCreateContext",
    "aclrtDestroyContext",
    "aclrtSetCurrentContext",
    "aclrtGetCurrentContext",
    "aclrtCtxGetCurrentDefaultStream",
    "aclrtCreateStream",
    "aclrtCreateStreamWithConfig",
    "aclrtStreamGetPriority",
    "aclrtDeviceGetStreamPriorityRange",
    "aclrtDestroyStream",
    "aclrtDestroyStreamForce",
    "aclrtSynchronizeStream",
    "aclrtSynchronizeStreamWithTimeout",
    "aclrtStreamQuery",
    "aclrtStreamWaitEvent",
    "aclrtGetStreamAvailableNum",
    "aclrtStreamAbort",
    "aclrtCreateEvent",
    "aclrtCreateEventWithFlag",
    "aclrtCreateEventExWithFlag",
    "aclrtDestroyEvent",
    "aclrtRecordEvent",
    "aclrtResetEvent",
    "aclrtQueryEvent",
    "aclrtQueryEventStatus",
    "aclrtQueryEventWaitStatus",
    "aclrtSynchronizeEvent",
    "aclrtSynchronizeEventWithTimeout",
    "aclrtEventElapsedTime",
    "aclrtEventGetTimestamp",
    "aclrtGetEventAvailNum",
    "aclrtMalloc",
    "aclrtMallocAlign32",
    "aclrtMallocCached",
    "aclrtFree",
    "aclrtFreeWithDevSync",
    "aclrtMallocHost",
    "aclrtFreeHost",
    "aclrtFreeHostWithDevSync",
    "aclrtMemset",
    "aclrtMemsetAsync",
    "aclrtMemcpy",
    "aclrtMemcpyAsync",
    "aclrtMemcpy2d",
    "aclrtMemcpy2dAsync",
    "aclrtGetMemInfo",
    "aclrtLaunchCallback",
    "aclrtSubscribeReport",
    "aclrtProcessReport",
    "aclrtUnSubscribeReport",
    "aclrtLaunchHostFunc",
    "aclrtSetOpWaitTimeout",
    "aclrtSetOpExecuteTimeOut",
    "aclrtGetVersion",
    "aclsysGetVersionStr",
    "aclsysGetVersionNum",
    "aclsysGetCANNVersion",
    "aclrtBinaryLoadFromFile",
    "aclrtBinaryLoadFromData",
    "aclrtBinaryUnLoad",
    "aclrtBinaryGetFunction",
    "aclrtLaunchKernel",
    "aclrtLaunchKernelWithConfig",
    "aclrtKernelArgsInit",
    "aclrtKernelArgsAppend",
    "aclrtKernelArgsAppendPlaceHolder",
    "aclrtKernelArgsGetPlaceHolderBuffer",
    "aclrtKernelArgsFinalize",
    "aclrtSetStreamFailureMode",
    "aclrtPeekAtLastError",
    "aclrtGetLastError",
    "aclrtHostRegister",
    "aclrtHostRegisterV2",
    "aclrtHostGetDevicePointer",
    "aclrtHostUnregister",
    "aclrtMemAllocManaged",
    "aclrtGetDeviceInfo",
    "aclrtGetDeviceCapability",
    "aclrtQueryDeviceStatus",
    "aclrtGetDeviceUtilizationRate",
    "aclrtGetDeviceResLimit",
    "aclrtSetDeviceResLimit",
    "aclrtResetDeviceResLimit",
    "aclrtGetResInCurrentThread",
    "aclrtSetDeviceSatMode",
    "aclrtGetDeviceSatMode",
    "aclrtCheckArchCompatibility",
    "aclrtDeviceGetBareTgid",
    "aclrtGetErrorVerbose",
    "aclrtGetThreadLastTaskId",
    "aclrtStreamGetId",
    "aclrtStreamGetFlags",
    "aclrtSetStreamOverflowSwitch",
    "aclrtGetStreamOverflowSwitch",
    "aclrtActiveStream",
    "aclrtSwitchStream",
    "aclrtStreamStop",
    "aclrtCreateStreamConfigHandle",
    "aclrtDestroyStreamConfigHandle",
    "aclrtSetStreamConfigOpt",
    "aclrtCreateStreamV2",
    "aclrtRegStreamStateCallback",
    "aclrtGetOverflowStatus",
    "aclrtResetOverflowStatus",
    "aclrtCreateNotify",
    "aclrtDestroyNotify",
    "aclrtRecordNotify",
    "aclrtGetNotifyId",
    "aclrtValueWrite",
    "aclrtRecordEventWithFlag",
    "aclrtStreamWaitEventWithFlag",
    "aclrtReserveMemAddress",
    "aclrtReleaseMemAddress",
    "aclrtMallocPhysical",
    "aclrtFreePhysical",
    "aclrtMapMem",
    "aclrtUnmapMem",
    "aclrtMemGetAllocationGranularity",
    "aclrtAllocatorCreateDesc",
    "aclrtAllocatorDestroyDesc",
    "aclrtAllocatorRegister",
    "aclrtAllocatorUnregister",
    "aclrtReduceAsync",
    "aclrtSetExceptionInfoCallback",
    "aclCreateDataBuffer",
    "aclDestroyDataBuffer",
    "aclUpdateDataBuffer",
    "aclGetDataBufferAddr",
    "aclGetDataBufferSize",
    "aclGetDataBufferSizeV2",
    "aclrtCreateLabel",
    "aclrtDestroyLabel",
    "aclrtSetLabel",
    "aclrtCreateLabelList",
    "aclrtDestroyLabelList",
    "aclrtSwitchLabelByIndex",
];

/// One call: a function (index into [`FUNCS`]) and raw selectors.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Call {
    pub f: u16,
    pub a: [u64; 8],
}

impl Call {
    /// The text form (one line): the function name and the selectors.
    pub fn to_line(self) -> String {
        let mut s = FUNCS[self.f as usize].to_owned();
        for v in self.a {
            s.push(' ');
            s.push_str(&v.to_string());
        }
        s
    }

    /// Parses [`to_line`](Self::to_line)'s form.
    pub fn from_line(line: &str) -> Option<Call> {
        let mut it = line.split_whitespace();
        let name = it.next()?;
        let f = FUNCS.iter().position(|n| *n == name)? as u16;
        let mut a = [0u64; 8];
        for v in &mut a {
            *v = it.next()?.parse().ok()?;
        }
        Some(Call { f, a })
    }
}

/// SplitMix64: a small, fixed, seedable generator (sequences must replay
/// bit for bit from their seed on every machine).
pub struct Rng(u64);

impl Rng {
    pub fn new(seed: u64) -> Rng {
        Rng(seed ^ 0x9E37_79B9_7F4A_7C15)
    }
    pub fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }
    pub fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }
}

/// Functions that make the resources other calls use: drawn more often, so
/// that sequences reach deep states.
const MAKERS: &[&str] = &[
    "aclInit",
    "aclrtSetDevice",
    "aclrtCreateStream",
    "aclrtCreateEvent",
    "aclrtMalloc",
    "aclrtMallocHost",
    "aclrtMemsetAsync",
    "aclrtMemcpyAsync",
    "aclrtRecordEvent",
    "aclrtLaunchHostFunc",
    "aclrtLaunchCallback",
    "aclrtSubscribeReport",
    "aclrtCreateContext",
    "aclrtBinaryLoadFromFile",
    "aclrtBinaryGetFunction",
    "aclrtKernelArgsInit",
    "aclrtKernelArgsAppend",
    "aclrtLaunchKernel",
    "aclrtHostRegister",
    "aclrtMemAllocManaged",
    "aclrtFree",
    "aclrtFreeHost",
    "aclrtDestroyStream",
    "aclrtDestroyEvent",
    "aclrtCreateEventWithFlag",
];

/// The sequence number `index` of the run seeded `seed`: `len` calls, most
/// of them uniform over [`FUNCS`], a third from [`MAKERS`].
pub fn sequence(seed: u64, index: u64, len: usize) -> Vec<Call> {
    let mut r = Rng::new(seed.wrapping_mul(0x100_0000_01B3) ^ index);
    (0..len)
        .map(|i| {
            let name = if i == 0 {
                "aclInit"
            } else if i == 1 {
                "aclrtSetDevice"
            } else if r.below(3) == 0 {
                MAKERS[r.below(MAKERS.len() as u64) as usize]
            } else {
                FUNCS[r.below(FUNCS.len() as u64) as usize]
            };
            let f = FUNCS.iter().position(|n| *n == name).unwrap() as u16;
            let mut a = [0u64; 8];
            for v in &mut a {
                *v = r.next();
            }
            // The first two calls mostly set up a usable runtime.
            if i < 2 {
                a[0] &= !0xFF;
            }
            Call { f, a }
        })
        .collect()
}

// ------------------------------------------------------------ callbacks

/// The stream and device pointer the re-entrant callbacks use (the last
/// ones made).
static CB_STREAM: AtomicUsize = AtomicUsize::new(0);
static CB_DEV: AtomicUsize = AtomicUsize::new(0);
/// Codes of the calls made by callbacks that came back as internal errors
/// (a panic caught inside the simulator).
pub static CB_INTERNAL: AtomicI32 = AtomicI32::new(0);
/// Whether an `aclrtStreamAbort` of this sequence succeeded: from then on,
/// a wait for an event whose record the abort dropped may hang, as on the
/// real runtime (acl-facts K.8: "streams that wait on the aborted stream
/// may hang"; the simulator documents it for `aclrtStreamAbort`).
pub static ABORTED: AtomicBool = AtomicBool::new(false);

/// Host function / callback doing nothing.
unsafe extern "C" fn cb_nop(_: *mut c_void) {}

/// A stream state callback that asks the runtime about the stream (the
/// simulator holds no lock while it runs).
unsafe extern "C" fn cb_state(stm: aclrtStream, _: c::aclrtStreamState, _: *mut c_void) {
    let mut id = 0i32;
    let _ = c!(aclrtStreamGetId(stm, &mut id));
}

/// Host function / callback sleeping a millisecond.
unsafe extern "C" fn cb_sleep(_: *mut c_void) {
    std::thread::sleep(Duration::from_millis(1));
}

/// Host function / callback calling back into the API; `arg` (an integer
/// without provenance) says how.
unsafe extern "C" fn cb_reenter(arg: *mut c_void) {
    let s = CB_STREAM.load(Ordering::SeqCst) as aclrtStream;
    let d = CB_DEV.load(Ordering::SeqCst) as *mut c_void;
    let code = match arg.addr() % 10 {
        0 => {
            let mut p: *mut c_void = null_mut();
            let code = c!(aclrtMalloc(&mut p, 64, 0));
            if code == 0 { c!(aclrtFree(p)) } else { code }
        }
        1 => c!(aclrtSynchronizeDevice()),
        2 => c!(aclFinalize()),
        3 => c!(aclrtDestroyStream(s)),
        4 => c!(aclrtMemsetAsync(d, 64, 1, 64, s)),
        5 => c!(aclrtResetDevice(0)),
        6 => c!(aclrtSynchronizeStream(s)),
        7 => c!(aclrtStreamAbort(s)),
        8 => c!(aclrtFree(d)),
        _ => c!(aclrtProcessReport(1)),
    };
    if code == c::ACL_ERROR_INTERNAL_ERROR {
        CB_INTERNAL.store(code, Ordering::SeqCst);
    }
}

// ------------------------------------------------------------ executor

/// The application's host memory the calls may use (valid for the life of
/// the process).
pub const HOST_LEN: usize = 1 << 20;

/// A thread serving callbacks with `aclrtProcessReport` until stopped.
struct Server {
    stop: std::sync::Arc<AtomicBool>,
    handle: std::thread::JoinHandle<()>,
    tid: u64,
}

/// The pools and the state of one sequence.
pub struct Exec {
    host: Vec<u8>,
    /// (address, size) of everything allocated (live or not).
    ptrs: Vec<(usize, usize)>,
    streams: Vec<usize>,
    events: Vec<usize>,
    contexts: Vec<usize>,
    bins: Vec<usize>,
    funcs: Vec<usize>,
    args: Vec<usize>,
    params: Vec<usize>,
    registered: Vec<usize>,
    /// Live handles of `aclrtCreateStreamConfigHandle` (taken out when
    /// destroyed: a destroyed one is never written through).
    configs: Vec<usize>,
    /// Notifies, physical memory handles and allocator descriptors (live
    /// or not: the simulator looks every handle up).
    ext: Vec<usize>,
    /// Data buffers made (live or destroyed: the simulator never reads
    /// through them).
    buffers: Vec<usize>,
    threads: Vec<u64>,
    server: Option<Server>,
    /// The binary image as a file for `aclrtBinaryLoadFromFile` (see
    /// [`ImageFile`]).
    image_file: ImageFile,
    image: Vec<u8>,
}

/// The binary image as a file with no name left on disk: created in the
/// temp dir, unlinked at once, written through its descriptor and reached
/// by `aclrtBinaryLoadFromFile` as `/proc/self/fd/N` while this lives.
///
/// Each sequence runs in its own child process, and a child may end
/// without running any clean-up code (killed past its time limit, by its
/// parent's death, by a crash, or by the watchdog's `exit`); a named file
/// would be left behind by each of those (it was: one per sequence). The
/// only window in which a name exists is between the `open` and the
/// `unlink` right after it.
struct ImageFile {
    /// Keeps the descriptor (and with it the unlinked file) alive.
    _file: std::fs::File,
    path: CString,
}

impl ImageFile {
    fn new(image: &[u8]) -> ImageFile {
        use std::io::Write;
        use std::os::fd::AsRawFd;
        static NEXT: AtomicUsize = AtomicUsize::new(0);
        let name = std::env::temp_dir().join(format!(
            "aclrt-fuzz-{}-{}.bin",
            std::process::id(),
            NEXT.fetch_add(1, Ordering::Relaxed)
        ));
        let mut file = std::fs::OpenOptions::new()
            .read(true)
            .write(true)
            .create_new(true)
            .open(&name)
            .unwrap_or_else(|e| panic!("create {}: {e}", name.display()));
        // Unlinked before anything else happens: nothing to clean up later.
        std::fs::remove_file(&name).unwrap_or_else(|e| panic!("unlink {}: {e}", name.display()));
        file.write_all(image).expect("write the binary image");
        let path = format!("/proc/self/fd/{}", file.as_raw_fd());
        // The path must give back the image (procfs mounted): otherwise
        // every load from the file would fail, and the fuzzer would
        // quietly stop exercising the successful path.
        match std::fs::read(&path) {
            Ok(back) if back == image => {}
            other => panic!("{path} does not read back the binary image: {other:?}"),
        }
        ImageFile {
            _file: file,
            path: CString::new(path).unwrap(),
        }
    }
}

/// An exception callback: reads the info through its getters.
unsafe extern "C" fn cb_exception(info: *mut c::aclrtExceptionInfo) {
    // SAFETY: the simulator passes a live info for the call.
    unsafe {
        let _ = c::aclrtGetTaskIdFromExceptionInfo(info);
        let _ = c::aclrtGetErrorCodeFromExceptionInfo(info);
    }
}

/// `a % n` as an index (0 for an empty pool).
fn pick(a: u64, n: usize) -> usize {
    if n == 0 { 0 } else { (a % n as u64) as usize }
}

const SIZES: &[usize] = &[
    0,
    1,
    2,
    31,
    32,
    33,
    63,
    64,
    100,
    4095,
    4096,
    4097,
    8192,
    65536,
    1 << 20,
    1 << 30,
    1 << 34,
    usize::MAX / 2,
    usize::MAX,
];

fn size(a: u64) -> usize {
    if a % 5 == 0 {
        (a >> 8) as usize % 10_000
    } else {
        SIZES[pick(a >> 3, SIZES.len())]
    }
}

/// A kernel's block count: 0, small, 65536, or random below 65536. Not
/// more: the simulator runs every block it is told to (2^32 blocks take
/// minutes: slow, not broken), and a synchronisation waits for them.
fn blocks(a: u64) -> u32 {
    match a % 6 {
        0 => 0,
        1 => 65536,
        2 => (a >> 8) as u32 % 65536,
        _ => 1 + (a >> 8) as u32 % 3,
    }
}

fn int(a: u64, table: &[i64]) -> i64 {
    if a % 7 == 0 {
        (a >> 8) as i64
    } else {
        table[pick(a >> 3, table.len())]
    }
}

const DEVICE_IDS: &[i64] = &[0, 0, 0, 1, 1, 2, -1, 64, i32::MAX as i64, i32::MIN as i64];
const FLAGS: &[i64] = &[0, 1, 2, 3, 4, 8, 16, 32, 64, 0x7FFF_FFFF, -1];
const KINDS: &[i64] = &[0, 1, 2, 3, 4, 5, 6, 7, 8, -1];
const TIMEOUTS: &[i64] = &[-1, 1, 5, 20, 0, -2, i32::MIN as i64];

impl Default for Exec {
    fn default() -> Self {
        Self::new()
    }
}

impl Exec {
    pub fn new() -> Exec {
        let image = aclrt_sim::binary_image(&["fuzz_touch", "fuzz_nop"]);
        let image_file = ImageFile::new(&image);
        aclrt_sim::register_kernel("fuzz_touch", |_, _, args| {
            // Touches (reads, then writes back) 64 bytes at its first
            // argument: every access is checked by the simulator.
            let addr = args.u64(0)?;
            let mut buf = [0u8; 64];
            args.read(addr, &mut buf)?;
            args.write(addr, &buf)
        });
        aclrt_sim::register_kernel("fuzz_nop", |_, _, _| Ok(()));
        let finished = {
            use std::os::unix::thread::JoinHandleExt;
            let h = std::thread::spawn(|| {});
            let t = h.as_pthread_t() as u64;
            let _ = h.join();
            t
        };
        Exec {
            // One page more than the usable length, for page alignment.
            host: vec![0u8; HOST_LEN + 4096],
            ptrs: Vec::new(),
            streams: vec![0],
            events: Vec::new(),
            contexts: Vec::new(),
            bins: Vec::new(),
            funcs: Vec::new(),
            args: Vec::new(),
            params: Vec::new(),
            registered: Vec::new(),
            configs: Vec::new(),
            ext: Vec::new(),
            buffers: Vec::new(),
            threads: vec![0, 0x5EED_0000_1234, finished, own_thread_id()],
            server: None,
            image_file,
            image,
        }
    }

    fn stream(&self, a: u64) -> aclrtStream {
        match a % 8 {
            0 => null_mut(),
            1 => (a >> 8) as usize as aclrtStream,
            _ => self.streams[pick(a >> 3, self.streams.len())] as aclrtStream,
        }
    }
    /// A data buffer: NULL, a random address, or one made (live or not).
    fn buffer(&self, a: u64) -> *const c::aclDataBuffer {
        match a % 6 {
            0 => null(),
            1 => (a >> 8) as usize as *const c::aclDataBuffer,
            _ if self.buffers.is_empty() => null(),
            _ => self.buffers[pick(a >> 3, self.buffers.len())] as *const c::aclDataBuffer,
        }
    }
    fn event(&self, a: u64) -> aclrtEvent {
        match a % 8 {
            0 => null_mut(),
            1 => (a >> 8) as usize as aclrtEvent,
            _ if self.events.is_empty() => null_mut(),
            _ => self.events[pick(a >> 3, self.events.len())] as aclrtEvent,
        }
    }
    fn context(&self, a: u64) -> aclrtContext {
        match a % 8 {
            0 => null_mut(),
            1 => (a >> 8) as usize as aclrtContext,
            _ if self.contexts.is_empty() => null_mut(),
            _ => self.contexts[pick(a >> 3, self.contexts.len())] as aclrtContext,
        }
    }
    fn handle(pool: &[usize], a: u64) -> *mut c_void {
        match a % 8 {
            0 => null_mut(),
            1 => (a >> 8) as usize as *mut c_void,
            _ if pool.is_empty() => null_mut(),
            _ => pool[pick(a >> 3, pool.len())] as *mut c_void,
        }
    }

    /// A pointer argument and the host bytes available behind it (`None`
    /// for runtime memory: the simulator checks those ranges itself).
    fn ptr(&mut self, a: u64) -> (*mut c_void, Option<usize>) {
        let alloc = |s: &Self| s.ptrs.get(pick(a >> 8, s.ptrs.len())).copied();
        match a % 9 {
            0 => (null_mut(), None),
            1 | 2 => match alloc(self) {
                Some((p, _)) => (p as *mut c_void, None),
                None => self.host_ptr(a),
            },
            3 => match alloc(self) {
                // Just past the end, or in the gap after it.
                Some((p, n)) => ((p + n + (a >> 40) as usize % 4) as *mut c_void, None),
                None => self.host_ptr(a),
            },
            4 => match alloc(self) {
                // Anywhere in the block or up to three pages past it (never
                // below the simulator's address range: that could be
                // application memory the simulator cannot know).
                Some((p, n)) => {
                    let span = n.saturating_add(3 * 4096).min(1 << 30);
                    let off = (a >> 24) as usize % span.max(1);
                    ((p + off) as *mut c_void, None)
                }
                None => self.host_ptr(a),
            },
            5 if !self.registered.is_empty() => (
                self.registered[pick(a >> 8, self.registered.len())] as *mut c_void,
                None,
            ),
            _ => self.host_ptr(a),
        }
    }

    /// The pointer of a free: mostly the start of an allocation (the most
    /// recent ones more often), else any pointer argument.
    fn free_ptr(&mut self, a: u64) -> *mut c_void {
        let n = self.ptrs.len();
        if a % 4 != 0 && n > 0 {
            let back = (a >> 8) as usize % n.min(4);
            return self.ptrs[n - 1 - back].0 as *mut c_void;
        }
        self.ptr(a >> 2).0
    }

    /// A pointer into the application buffer (page aligned half of the
    /// time, for host registration) and the bytes behind it.
    fn host_ptr(&mut self, a: u64) -> (*mut c_void, Option<usize>) {
        let base = self.host.as_ptr().addr();
        let aligned = (base + 4095) & !4095;
        let start = aligned - base;
        let off = if a % 2 == 0 {
            start + ((a >> 16) as usize % 16) * 4096
        } else {
            ((a >> 16) as usize % 64) * 64
        };
        (
            self.host.as_mut_ptr().wrapping_add(off).cast(),
            Some(HOST_LEN - off),
        )
    }

    fn host_fn(a: u64) -> Option<unsafe extern "C" fn(*mut c_void)> {
        match a % 6 {
            0 => None,
            1 | 2 => Some(cb_nop),
            3 => Some(cb_sleep),
            _ => Some(cb_reenter),
        }
    }

    fn thread_id(&mut self, a: u64) -> u64 {
        if a % 4 == 0 && self.server.is_none() {
            let stop = std::sync::Arc::new(AtomicBool::new(false));
            let s2 = stop.clone();
            let handle = std::thread::spawn(move || {
                while !s2.load(Ordering::Acquire) {
                    let _ = c!(aclrtProcessReport(5));
                }
            });
            use std::os::unix::thread::JoinHandleExt;
            let tid = handle.as_pthread_t() as u64;
            self.threads.push(tid);
            self.server = Some(Server { stop, handle, tid });
            return tid;
        }
        if a % 4 == 1 {
            if let Some(s) = &self.server {
                return s.tid;
            }
        }
        match a % 11 {
            10 => a >> 8,
            _ => self.threads[pick(a >> 3, self.threads.len())],
        }
    }

    /// Half of the time (by `a`), makes sure a kernel function handle (and
    /// an argument list of it) exists, so that launches get past the
    /// handle checks: loads the image and looks up `fuzz_touch` when
    /// there is none yet.
    fn ensure_func(&mut self, a: u64) {
        if a % 2 == 1 {
            return;
        }
        if self.funcs.is_empty() {
            let mut bin: c::aclrtBinHandle = null_mut();
            let code = c!(aclrtBinaryLoadFromData(
                self.image.as_ptr().cast(),
                self.image.len(),
                null(),
                &mut bin
            ));
            Self::keep(&mut self.bins, code, bin as usize);
            let mut f: c::aclrtFuncHandle = null_mut();
            if code == 0 {
                let code = c!(aclrtBinaryGetFunction(bin, c"fuzz_touch".as_ptr(), &mut f));
                Self::keep(&mut self.funcs, code, f as usize);
            }
        }
        if self.args.is_empty() {
            if let Some(&f) = self.funcs.last() {
                let mut h: c::aclrtArgsHandle = null_mut();
                let code = c!(aclrtKernelArgsInit(f as c::aclrtFuncHandle, &mut h));
                Self::keep(&mut self.args, code, h as usize);
            }
        }
    }

    /// Stops the reporting thread (if any).
    pub fn stop_server(&mut self) {
        if let Some(s) = self.server.take() {
            s.stop.store(true, Ordering::Release);
            let _ = s.handle.join();
        }
    }

    fn keep(pool: &mut Vec<usize>, code: aclError, v: usize) {
        if code == 0 && v != 0 {
            pool.push(v);
        }
    }

    /// Runs one call; returns its code (0 for functions without one).
    pub fn run(&mut self, call: &Call) -> aclError {
        let a = call.a;
        let name = FUNCS[call.f as usize];
        let dev = |v: u64| int(v, DEVICE_IDS) as i32;
        let flag = |v: u64| int(v, FLAGS) as u32;
        let kind = |v: u64| int(v, KINDS) as u32;
        // Random timeouts are kept short (a long one only makes the
        // sequence slow: the call waits as long as it was told to).
        let timeout = |v: u64| match int(v, TIMEOUTS) as i32 {
            t if t > 100 => t % 100 + 1,
            t => t,
        };
        let nul = |v: u64| v % 13 == 0;
        match name {
            "aclInit" => match a[0] % 4 {
                0 | 1 => c!(aclInit(null())),
                2 => c!(aclInit(c"".as_ptr())),
                _ => c!(aclInit(c"/nonexistent/aclrt-fuzz.json".as_ptr())),
            },
            "aclFinalize" => c!(aclFinalize()),
            "aclFinalizeReference" => {
                let mut n = 0u64;
                c!(aclFinalizeReference(if nul(a[0]) {
                    null_mut()
                } else {
                    &mut n
                }))
            }
            "aclGetRecentErrMsg" => {
                let p = c!(aclGetRecentErrMsg());
                if !p.is_null() {
                    // SAFETY: a non-null result is a NUL-terminated string
                    // valid until the thread's next call.
                    let _ = unsafe { std::ffi::CStr::from_ptr(p) }.to_bytes().len();
                }
                0
            }
            "aclrtGetSocName" => {
                let _ = c!(aclrtGetSocName());
                0
            }
            "aclrtSetDevice" => c!(aclrtSetDevice(dev(a[0]))),
            "aclrtResetDevice" => c!(aclrtResetDevice(dev(a[0]))),
            "aclrtResetDeviceForce" => c!(aclrtResetDeviceForce(dev(a[0]))),
            "aclrtGetDevice" => {
                let mut d = 0i32;
                c!(aclrtGetDevice(if nul(a[0]) { null_mut() } else { &mut d }))
            }
            "aclrtGetDeviceCount" => {
                let mut d = 0u32;
                c!(aclrtGetDeviceCount(if nul(a[0]) {
                    null_mut()
                } else {
                    &mut d
                }))
            }
            "aclrtGetRunMode" => {
                let mut d = 0u32;
                c!(aclrtGetRunMode(if nul(a[0]) { null_mut() } else { &mut d }))
            }
            "aclrtSynchronizeDevice" => c!(aclrtSynchronizeDevice()),
            "aclrtSynchronizeDeviceWithTimeout" => {
                c!(aclrtSynchronizeDeviceWithTimeout(timeout(a[0])))
            }
            "aclrtDeviceCanAccessPeer" => {
                let mut v = 0i32;
                c!(aclrtDeviceCanAccessPeer(
                    if nul(a[0]) { null_mut() } else { &mut v },
                    dev(a[1]),
                    dev(a[2])
                ))
            }
            "aclrtDeviceEnablePeerAccess" => c!(aclrtDeviceEnablePeerAccess(dev(a[0]), flag(a[1]))),
            "aclrtDeviceDisablePeerAccess" => c!(aclrtDeviceDisablePeerAccess(dev(a[0]))),
            "aclrtCreateContext" => {
                let mut ctx: aclrtContext = null_mut();
                let code = c!(aclrtCreateContext(
                    if nul(a[0]) { null_mut() } else { &mut ctx },
                    dev(a[1])
                ));
                Self::keep(&mut self.contexts, code, ctx as usize);
                code
            }
            "aclrtDestroyContext" => c!(aclrtDestroyContext(self.context(a[0]))),
            "aclrtSetCurrentContext" => c!(aclrtSetCurrentContext(self.context(a[0]))),
            "aclrtGetCurrentContext" => {
                let mut ctx: aclrtContext = null_mut();
                let code = c!(aclrtGetCurrentContext(if nul(a[0]) {
                    null_mut()
                } else {
                    &mut ctx
                }));
                Self::keep(&mut self.contexts, code, ctx as usize);
                code
            }
            "aclrtCtxGetCurrentDefaultStream" => {
                let mut s: aclrtStream = null_mut();
                let code = c!(aclrtCtxGetCurrentDefaultStream(if nul(a[0]) {
                    null_mut()
                } else {
                    &mut s
                }));
                Self::keep(&mut self.streams, code, s as usize);
                code
            }
            "aclrtCreateStream" => {
                let mut s: aclrtStream = null_mut();
                let code = c!(aclrtCreateStream(if nul(a[0]) {
                    null_mut()
                } else {
                    &mut s
                }));
                Self::keep(&mut self.streams, code, s as usize);
                if code == 0 {
                    CB_STREAM.store(s as usize, Ordering::SeqCst);
                }
                code
            }
            "aclrtCreateStreamWithConfig" => {
                let mut s: aclrtStream = null_mut();
                let code = c!(aclrtCreateStreamWithConfig(
                    if nul(a[0]) { null_mut() } else { &mut s },
                    int(a[1], &[0, 1, 7, 8, -1]) as u32,
                    flag(a[2])
                ));
                Self::keep(&mut self.streams, code, s as usize);
                code
            }
            "aclrtGetDeviceInfo" => {
                let mut v = 0i64;
                let attrs = [
                    1i64, 101, 102, 201, 202, 212, 301, 302, 401, 403, 501, 601, 0, 999,
                ];
                c!(aclrtGetDeviceInfo(
                    dev(a[0]) as u32,
                    int(a[1], &attrs) as u32,
                    if nul(a[2]) { null_mut() } else { &mut v }
                ))
            }
            "aclrtGetDeviceCapability" => {
                let mut v = 0i32;
                let features = [1i64, 21, 10001, 20001, 0, 5, 20002, -1];
                c!(aclrtGetDeviceCapability(
                    dev(a[0]),
                    int(a[1], &features) as u32,
                    if nul(a[2]) { null_mut() } else { &mut v }
                ))
            }
            "aclrtQueryDeviceStatus" => {
                let mut v = 0u32;
                c!(aclrtQueryDeviceStatus(
                    dev(a[0]),
                    if nul(a[1]) { null_mut() } else { &mut v }
                ))
            }
            "aclrtGetDeviceUtilizationRate" => {
                let mut u = c::aclrtUtilizationInfo {
                    cubeUtilization: 0,
                    vectorUtilization: 0,
                    aicpuUtilization: 0,
                    memoryUtilization: 0,
                    // A non-NULL reserved field is refused before any use
                    // (never dereferenced).
                    utilizationExtend: if a[2] % 5 == 0 {
                        std::ptr::NonNull::dangling().as_ptr()
                    } else {
                        null_mut()
                    },
                };
                c!(aclrtGetDeviceUtilizationRate(
                    dev(a[0]),
                    if nul(a[1]) { null_mut() } else { &mut u }
                ))
            }
            "aclrtGetDeviceResLimit" => {
                let mut v = 0u32;
                c!(aclrtGetDeviceResLimit(
                    dev(a[0]),
                    kind(a[1]),
                    if nul(a[2]) { null_mut() } else { &mut v }
                ))
            }
            "aclrtSetDeviceResLimit" => {
                c!(aclrtSetDeviceResLimit(dev(a[0]), kind(a[1]), flag(a[2])))
            }
            "aclrtResetDeviceResLimit" => c!(aclrtResetDeviceResLimit(dev(a[0]))),
            "aclrtGetResInCurrentThread" => {
                let mut v = 0u32;
                c!(aclrtGetResInCurrentThread(
                    kind(a[0]),
                    if nul(a[1]) { null_mut() } else { &mut v }
                ))
            }
            "aclrtSetDeviceSatMode" => c!(aclrtSetDeviceSatMode(kind(a[0]))),
            "aclrtGetDeviceSatMode" => {
                let mut v = 0u32;
                c!(aclrtGetDeviceSatMode(if nul(a[0]) {
                    null_mut()
                } else {
                    &mut v
                }))
            }
            "aclrtCheckArchCompatibility" => {
                let names = [
                    c"Ascend910B1",
                    c"Ascend310P3",
                    c"Ascend910A",
                    c"",
                    c"not a chip",
                ];
                let mut v = 0i32;
                c!(aclrtCheckArchCompatibility(
                    if nul(a[0]) {
                        null()
                    } else {
                        names[pick(a[0] >> 3, names.len())].as_ptr()
                    },
                    if nul(a[1]) { null_mut() } else { &mut v }
                ))
            }
            "aclrtDeviceGetBareTgid" => {
                let mut v = 0i32;
                c!(aclrtDeviceGetBareTgid(if nul(a[0]) {
                    null_mut()
                } else {
                    &mut v
                }))
            }
            "aclrtGetErrorVerbose" => {
                // SAFETY: all-zero bytes are a valid `aclrtErrorInfo`
                // (integers and a union of integers).
                let mut info: c::aclrtErrorInfo = unsafe { std::mem::zeroed() };
                c!(aclrtGetErrorVerbose(
                    dev(a[0]),
                    if nul(a[1]) { null_mut() } else { &mut info }
                ))
            }
            "aclrtGetThreadLastTaskId" => {
                let mut v = 0u32;
                c!(aclrtGetThreadLastTaskId(if nul(a[0]) {
                    null_mut()
                } else {
                    &mut v
                }))
            }
            "aclrtStreamGetId" => {
                let mut v = 0i32;
                c!(aclrtStreamGetId(
                    self.stream(a[0]),
                    if nul(a[1]) { null_mut() } else { &mut v }
                ))
            }
            "aclrtStreamGetFlags" => {
                let mut v = 0u32;
                c!(aclrtStreamGetFlags(
                    self.stream(a[0]),
                    if nul(a[1]) { null_mut() } else { &mut v }
                ))
            }
            "aclrtSetStreamOverflowSwitch" => {
                c!(aclrtSetStreamOverflowSwitch(self.stream(a[0]), kind(a[1])))
            }
            "aclrtGetStreamOverflowSwitch" => {
                let mut v = 0u32;
                c!(aclrtGetStreamOverflowSwitch(
                    self.stream(a[0]),
                    if nul(a[1]) { null_mut() } else { &mut v }
                ))
            }
            "aclrtActiveStream" => {
                c!(aclrtActiveStream(self.stream(a[0]), self.stream(a[1])))
            }
            "aclrtSwitchStream" => {
                let (mut l, mut r) = (0i64, 0i64);
                c!(aclrtSwitchStream(
                    if nul(a[0]) {
                        null_mut()
                    } else {
                        (&raw mut l).cast()
                    },
                    kind(a[1]),
                    if nul(a[2]) {
                        null_mut()
                    } else {
                        (&raw mut r).cast()
                    },
                    kind(a[3]),
                    self.stream(a[4]),
                    if a[5] % 9 == 0 {
                        self.stream(a[5] >> 4)
                    } else {
                        null_mut()
                    },
                    self.stream(a[6])
                ))
            }
            "aclrtStreamStop" => c!(aclrtStreamStop(self.stream(a[0]))),
            "aclCreateDataBuffer" => {
                let b = c!(aclCreateDataBuffer(
                    (a[0] >> 4) as usize as *mut c_void,
                    size(a[1])
                ));
                if !b.is_null() {
                    self.buffers.push(b as usize);
                }
                0
            }
            "aclDestroyDataBuffer" => c!(aclDestroyDataBuffer(self.buffer(a[0]))),
            "aclUpdateDataBuffer" => c!(aclUpdateDataBuffer(
                self.buffer(a[0]).cast_mut(),
                (a[1] >> 4) as usize as *mut c_void,
                size(a[2])
            )),
            "aclGetDataBufferAddr" => {
                let _ = c!(aclGetDataBufferAddr(self.buffer(a[0])));
                0
            }
            "aclGetDataBufferSize" => {
                let _ = c!(aclGetDataBufferSize(self.buffer(a[0])));
                0
            }
            "aclGetDataBufferSizeV2" => {
                let _ = c!(aclGetDataBufferSizeV2(self.buffer(a[0])));
                0
            }
            "aclrtGetOverflowStatus" => {
                let (p, host) = self.ptr(a[0]);
                let mut len = [64usize, 64, 64, 32, 0, 65][pick(a[1], 6)];
                if let Some(h) = host {
                    // Never claim more of an application buffer than there is.
                    len = len.min(h);
                }
                c!(aclrtGetOverflowStatus(p, len, self.stream(a[2])))
            }
            "aclrtResetOverflowStatus" => c!(aclrtResetOverflowStatus(self.stream(a[0]))),
            "aclrtCreateNotify" => {
                let mut n = null_mut();
                let out = if nul(a[0]) { null_mut() } else { &mut n };
                let code = c!(aclrtCreateNotify(out, a[1] % 3));
                Self::keep(&mut self.ext, code, n as usize);
                code
            }
            "aclrtDestroyNotify" => c!(aclrtDestroyNotify(Self::handle(&self.ext, a[0]))),
            "aclrtRecordNotify" => c!(aclrtRecordNotify(
                Self::handle(&self.ext, a[0]),
                self.stream(a[1])
            )),
            "aclrtGetNotifyId" => {
                let mut v = 0u32;
                c!(aclrtGetNotifyId(
                    Self::handle(&self.ext, a[0]),
                    if nul(a[1]) { null_mut() } else { &mut v }
                ))
            }
            "aclrtCreateLabel" => {
                let mut l = null_mut();
                let out = if nul(a[0]) { null_mut() } else { &mut l };
                let code = c!(aclrtCreateLabel(out));
                Self::keep(&mut self.ext, code, l as usize);
                code
            }
            "aclrtDestroyLabel" => c!(aclrtDestroyLabel(Self::handle(&self.ext, a[0]))),
            "aclrtSetLabel" => c!(aclrtSetLabel(
                Self::handle(&self.ext, a[0]),
                self.stream(a[1])
            )),
            "aclrtCreateLabelList" => {
                // 0..=3 entries drawn from the pool (labels, other handles,
                // NULL, random), or a count beyond the runtime's 65535 (the
                // array is not read then).
                let mut labels: Vec<*mut c_void> = (0..4u64)
                    .map(|i| Self::handle(&self.ext, a[2].rotate_left(8 * i as u32)))
                    .collect();
                let num = if a[1] % 7 == 6 {
                    65536
                } else {
                    (a[1] % 4) as usize
                };
                let arr = if nul(a[0]) {
                    null_mut()
                } else {
                    labels.as_mut_ptr()
                };
                let mut list = null_mut();
                let out = if nul(a[3]) { null_mut() } else { &mut list };
                let code = c!(aclrtCreateLabelList(arr, num, out));
                Self::keep(&mut self.ext, code, list as usize);
                code
            }
            "aclrtDestroyLabelList" => {
                c!(aclrtDestroyLabelList(Self::handle(&self.ext, a[0])))
            }
            "aclrtSwitchLabelByIndex" => {
                let p = self.ptr(a[0]).0;
                c!(aclrtSwitchLabelByIndex(
                    p,
                    a[1] as u32,
                    Self::handle(&self.ext, a[2]),
                    self.stream(a[3])
                ))
            }
            "aclrtValueWrite" => {
                let p = self.ptr(a[0]).0;
                c!(aclrtValueWrite(
                    p,
                    a[1],
                    (a[2] % 3) as u32,
                    self.stream(a[3])
                ))
            }
            "aclrtRecordEventWithFlag" => c!(aclrtRecordEventWithFlag(
                self.event(a[0]),
                self.stream(a[1]),
                (a[2] % 3) as u32
            )),
            "aclrtStreamWaitEventWithFlag" => c!(aclrtStreamWaitEventWithFlag(
                self.stream(a[0]),
                self.event(a[1]),
                (a[2] % 3) as u32,
                (a[3] % 3) as u32
            )),
            "aclrtReserveMemAddress" => {
                let mut p = null_mut();
                let out = if nul(a[0]) { null_mut() } else { &mut p };
                let n = if a[1] % 3 == 0 {
                    size(a[1])
                } else {
                    (2 << 20) * (1 + (a[1] >> 8) as usize % 4)
                };
                let code = c!(aclrtReserveMemAddress(out, n, 0, null_mut(), a[2] % 3));
                if code == 0 && !p.is_null() {
                    self.ptrs.push((p as usize, n));
                }
                code
            }
            "aclrtReleaseMemAddress" => c!(aclrtReleaseMemAddress(self.free_ptr(a[0]))),
            "aclrtMallocPhysical" => {
                let mut h = null_mut();
                let out = if nul(a[0]) { null_mut() } else { &mut h };
                let attrs = [
                    c::ACL_HBM_MEM_HUGE,
                    c::ACL_HBM_MEM_NORMAL,
                    c::ACL_DDR_MEM_HUGE,
                    99,
                ];
                let prop = c::aclrtPhysicalMemProp {
                    handleType: (a[2] % 4 == 0) as u32,
                    allocationType: 0,
                    memAttr: attrs[pick(a[2] >> 3, attrs.len())],
                    location: c::aclrtMemLocation {
                        id: dev(a[3]) as u32,
                        type_: (a[4] % 5) as u32,
                    },
                    reserve: 0,
                };
                let n = if a[1] % 3 == 0 {
                    size(a[1])
                } else {
                    (2 << 20) * (1 + (a[1] >> 8) as usize % 2)
                };
                let code = c!(aclrtMallocPhysical(
                    out,
                    n,
                    if nul(a[5]) { null() } else { &prop },
                    0
                ));
                Self::keep(&mut self.ext, code, h as usize);
                code
            }
            "aclrtFreePhysical" => c!(aclrtFreePhysical(Self::handle(&self.ext, a[0]))),
            "aclrtMapMem" => {
                let p = self.ptr(a[0]).0;
                let n = if a[1] % 3 == 0 { size(a[1]) } else { 2 << 20 };
                let off = if a[2] % 3 == 0 { size(a[2]) } else { 0 };
                c!(aclrtMapMem(p, n, off, Self::handle(&self.ext, a[3]), 0))
            }
            "aclrtUnmapMem" => c!(aclrtUnmapMem(self.free_ptr(a[0]))),
            "aclrtMemGetAllocationGranularity" => {
                let mut prop = c::aclrtPhysicalMemProp {
                    handleType: 0,
                    allocationType: 0,
                    memAttr: (a[0] % 15) as u32,
                    location: c::aclrtMemLocation {
                        id: dev(a[1]) as u32,
                        type_: (a[2] % 5) as u32,
                    },
                    reserve: 0,
                };
                let mut g = 0usize;
                c!(aclrtMemGetAllocationGranularity(
                    if nul(a[3]) { null_mut() } else { &mut prop },
                    (a[4] % 3) as u32,
                    if nul(a[5]) { null_mut() } else { &mut g }
                ))
            }
            "aclrtAllocatorCreateDesc" => {
                let d = c!(aclrtAllocatorCreateDesc());
                Self::keep(&mut self.ext, 0, d as usize);
                0
            }
            "aclrtAllocatorDestroyDesc" => {
                c!(aclrtAllocatorDestroyDesc(Self::handle(&self.ext, a[0])))
            }
            "aclrtAllocatorRegister" => c!(aclrtAllocatorRegister(
                self.stream(a[0]),
                Self::handle(&self.ext, a[1])
            )),
            "aclrtAllocatorUnregister" => c!(aclrtAllocatorUnregister(self.stream(a[0]))),
            "aclrtReduceAsync" => {
                let (d, s) = (self.ptr(a[0]).0, self.ptr(a[1]).0);
                // Only runtime memory reaches the engine (the simulator
                // refuses application memory before any access).
                c!(aclrtReduceAsync(
                    d,
                    s,
                    (size(a[2]) % 65536) as u64,
                    10 + (a[3] % 5) as u32,
                    (a[4] % 30) as i32,
                    self.stream(a[5]),
                    null_mut()
                ))
            }
            "aclrtSetExceptionInfoCallback" => {
                c!(aclrtSetExceptionInfoCallback(if a[0] % 2 == 0 {
                    None
                } else {
                    Some(cb_exception)
                }))
            }
            "aclrtRegStreamStateCallback" => {
                let names = [c"fuzz-a", c"fuzz-b", c""];
                c!(aclrtRegStreamStateCallback(
                    if nul(a[0]) {
                        null()
                    } else {
                        names[pick(a[0] >> 3, names.len())].as_ptr()
                    },
                    if a[1] % 3 == 0 { None } else { Some(cb_state) },
                    null_mut()
                ))
            }
            "aclrtCreateStreamConfigHandle" => {
                let h = c!(aclrtCreateStreamConfigHandle());
                if !h.is_null() {
                    self.configs.push(h as usize);
                }
                0
            }
            "aclrtDestroyStreamConfigHandle" => {
                let h = match a[0] % 4 {
                    0 => null_mut(),
                    // Never made by the runtime: refused without use.
                    1 => (a[0] >> 8) as usize as *mut c::aclrtStreamConfigHandle,
                    _ if self.configs.is_empty() => null_mut(),
                    _ => self
                        .configs
                        .swap_remove(pick(a[0] >> 3, self.configs.len()))
                        as *mut c::aclrtStreamConfigHandle,
                };
                c!(aclrtDestroyStreamConfigHandle(h))
            }
            "aclrtSetStreamConfigOpt" => {
                let mut local = c::aclrtStreamConfigHandle {
                    workptr: null_mut(),
                    workSize: 0,
                    flag: 0,
                    priority: 0,
                };
                let h = match a[0] % 4 {
                    0 => null_mut(),
                    1 if !self.configs.is_empty() => {
                        self.configs[pick(a[0] >> 3, self.configs.len())]
                            as *mut c::aclrtStreamConfigHandle
                    }
                    _ => &raw mut local,
                };
                let value = a[2] >> 8;
                let size = [0usize, 1, 4, 8, 16][pick(a[3], 5)];
                c!(aclrtSetStreamConfigOpt(
                    h,
                    kind(a[1]),
                    if nul(a[2]) {
                        null()
                    } else {
                        (&raw const value).cast()
                    },
                    size
                ))
            }
            "aclrtCreateStreamV2" => {
                let local = c::aclrtStreamConfigHandle {
                    workptr: null_mut(),
                    workSize: 0,
                    flag: flag(a[1]) as usize,
                    priority: int(a[2], KINDS) as u32,
                };
                let mut s: aclrtStream = null_mut();
                let code = c!(aclrtCreateStreamV2(
                    if nul(a[0]) { null_mut() } else { &mut s },
                    if a[1] % 3 == 0 {
                        null()
                    } else {
                        &raw const local
                    }
                ));
                Self::keep(&mut self.streams, code, s as usize);
                code
            }
            "aclrtStreamGetPriority" => {
                let mut p = 0u32;
                c!(aclrtStreamGetPriority(
                    self.stream(a[0]),
                    if nul(a[1]) { null_mut() } else { &mut p }
                ))
            }
            "aclrtDeviceGetStreamPriorityRange" => {
                let (mut l, mut g) = (0i32, 0i32);
                c!(aclrtDeviceGetStreamPriorityRange(
                    if nul(a[0]) { null_mut() } else { &mut l },
                    if nul(a[1]) { null_mut() } else { &mut g }
                ))
            }
            "aclrtDestroyStream" => c!(aclrtDestroyStream(self.stream(a[0]))),
            "aclrtDestroyStreamForce" => c!(aclrtDestroyStreamForce(self.stream(a[0]))),
            "aclrtSynchronizeStream" => c!(aclrtSynchronizeStream(self.stream(a[0]))),
            "aclrtSynchronizeStreamWithTimeout" => c!(aclrtSynchronizeStreamWithTimeout(
                self.stream(a[0]),
                timeout(a[1])
            )),
            "aclrtStreamQuery" => {
                let mut st = 0u32;
                c!(aclrtStreamQuery(
                    self.stream(a[0]),
                    if nul(a[1]) { null_mut() } else { &mut st }
                ))
            }
            "aclrtStreamWaitEvent" => {
                c!(aclrtStreamWaitEvent(self.stream(a[0]), self.event(a[1])))
            }
            "aclrtGetStreamAvailableNum" => {
                let mut n = 0u32;
                c!(aclrtGetStreamAvailableNum(if nul(a[0]) {
                    null_mut()
                } else {
                    &mut n
                }))
            }
            "aclrtStreamAbort" => {
                let code = c!(aclrtStreamAbort(self.stream(a[0])));
                if code == 0 {
                    ABORTED.store(true, Ordering::SeqCst);
                }
                code
            }
            "aclrtCreateEvent" | "aclrtCreateEventWithFlag" | "aclrtCreateEventExWithFlag" => {
                let mut e: aclrtEvent = null_mut();
                let out: *mut aclrtEvent = if nul(a[0]) { null_mut() } else { &mut e };
                let code = match name {
                    "aclrtCreateEvent" => c!(aclrtCreateEvent(out)),
                    "aclrtCreateEventWithFlag" => c!(aclrtCreateEventWithFlag(out, flag(a[1]))),
                    _ => c!(aclrtCreateEventExWithFlag(out, flag(a[1]))),
                };
                Self::keep(&mut self.events, code, e as usize);
                code
            }
            "aclrtDestroyEvent" => c!(aclrtDestroyEvent(self.event(a[0]))),
            "aclrtRecordEvent" => c!(aclrtRecordEvent(self.event(a[0]), self.stream(a[1]))),
            "aclrtResetEvent" => c!(aclrtResetEvent(self.event(a[0]), self.stream(a[1]))),
            "aclrtQueryEvent" => {
                let mut st = 0u32;
                c!(aclrtQueryEvent(
                    self.event(a[0]),
                    if nul(a[1]) { null_mut() } else { &mut st }
                ))
            }
            "aclrtQueryEventStatus" => {
                let mut st = 0u32;
                c!(aclrtQueryEventStatus(
                    self.event(a[0]),
                    if nul(a[1]) { null_mut() } else { &mut st }
                ))
            }
            "aclrtQueryEventWaitStatus" => {
                let mut st = 0u32;
                c!(aclrtQueryEventWaitStatus(
                    self.event(a[0]),
                    if nul(a[1]) { null_mut() } else { &mut st }
                ))
            }
            "aclrtSynchronizeEvent" => c!(aclrtSynchronizeEvent(self.event(a[0]))),
            "aclrtSynchronizeEventWithTimeout" => c!(aclrtSynchronizeEventWithTimeout(
                self.event(a[0]),
                timeout(a[1])
            )),
            "aclrtEventElapsedTime" => {
                let mut ms = 0f32;
                c!(aclrtEventElapsedTime(
                    if nul(a[0]) { null_mut() } else { &mut ms },
                    self.event(a[1]),
                    self.event(a[2])
                ))
            }
            "aclrtEventGetTimestamp" => {
                let mut t = 0u64;
                c!(aclrtEventGetTimestamp(
                    self.event(a[0]),
                    if nul(a[1]) { null_mut() } else { &mut t }
                ))
            }
            "aclrtGetEventAvailNum" => {
                let mut n = 0u32;
                c!(aclrtGetEventAvailNum(if nul(a[0]) {
                    null_mut()
                } else {
                    &mut n
                }))
            }
            "aclrtMalloc"
            | "aclrtMallocAlign32"
            | "aclrtMallocCached"
            | "aclrtMallocHost"
            | "aclrtMemAllocManaged" => {
                let mut p: *mut c_void = null_mut();
                let out: *mut *mut c_void = if nul(a[0]) { null_mut() } else { &mut p };
                // Mostly small, so that many fit. Sizes between 64 MiB and
                // 2^40 become 64 MiB: a 16 GiB block of pinned host memory
                // (host run mode charges no device memory) would be filled
                // by the next memset for minutes, and exhaust the machine.
                let n = if a[1] % 4 == 0 {
                    match size(a[1] >> 2) {
                        n if n > 64 << 20 && n < 1 << 40 => 64 << 20,
                        n => n,
                    }
                } else {
                    (a[1] >> 2) as usize % 20_000
                };
                let policy = int(a[2], &[0, 0, 1, 2, 3, 4, 5, 6, 7, 8, 0x100, -1]) as u32;
                let code = match name {
                    "aclrtMalloc" => c!(aclrtMalloc(out, n, policy)),
                    "aclrtMallocAlign32" => c!(aclrtMallocAlign32(out, n, policy)),
                    "aclrtMallocCached" => c!(aclrtMallocCached(out, n, policy)),
                    "aclrtMallocHost" => c!(aclrtMallocHost(out, n)),
                    _ => c!(aclrtMemAllocManaged(out, n as u64, flag(a[3]))),
                };
                if code == 0 && !p.is_null() {
                    self.ptrs.push((p as usize, n));
                    if n >= 64 {
                        CB_DEV.store(p as usize, Ordering::SeqCst);
                    }
                }
                code
            }
            "aclrtFree" => c!(aclrtFree(self.free_ptr(a[0]))),
            "aclrtFreeWithDevSync" => c!(aclrtFreeWithDevSync(self.free_ptr(a[0]))),
            "aclrtFreeHost" => c!(aclrtFreeHost(self.free_ptr(a[0]))),
            "aclrtFreeHostWithDevSync" => c!(aclrtFreeHostWithDevSync(self.free_ptr(a[0]))),
            "aclrtMemset" | "aclrtMemsetAsync" => {
                let (p, host) = self.ptr(a[0]);
                let mut max = size(a[1]);
                let mut count = if a[2] % 3 == 0 { max } else { size(a[2]) };
                if let Some(h) = host {
                    // The simulator cannot know an application buffer's
                    // length: never claim more than there is.
                    max = max.min(h);
                    count = count.min(h);
                }
                let value = int(a[3], &[0, 0x5A, 255, 256, -1]) as i32;
                if name == "aclrtMemset" {
                    c!(aclrtMemset(p, max, value, count))
                } else {
                    c!(aclrtMemsetAsync(p, max, value, count, self.stream(a[4])))
                }
            }
            "aclrtMemcpy" | "aclrtMemcpyAsync" => {
                let (d, dh) = self.ptr(a[0]);
                let (s, sh) = self.ptr(a[1]);
                let mut max = size(a[2]);
                let mut count = if a[3] % 3 == 0 { max } else { size(a[3]) };
                for h in [dh, sh].into_iter().flatten() {
                    count = count.min(h);
                }
                if let Some(h) = dh {
                    max = max.min(h);
                }
                let k = kind(a[4]);
                if name == "aclrtMemcpy" {
                    c!(aclrtMemcpy(d, max, s, count, k))
                } else {
                    c!(aclrtMemcpyAsync(d, max, s, count, k, self.stream(a[5])))
                }
            }
            "aclrtMemcpy2d" | "aclrtMemcpy2dAsync" => {
                let (d, dh) = self.ptr(a[0]);
                let (s, sh) = self.ptr(a[1]);
                let small = |v: u64| [0usize, 1, 16, 64, 100, 4096][pick(v, 6)];
                let (mut dp, mut sp) = (small(a[2]), small(a[2] >> 8));
                let (mut w, mut h) = (small(a[3]), small(a[3] >> 8));
                if a[6] % 7 == 0 {
                    (dp, sp, w, h) = (size(a[2]), size(a[2] >> 5), size(a[3]), size(a[3] >> 5));
                }
                let host_limit = [dh, sh].into_iter().flatten().min();
                if let Some(lim) = host_limit {
                    // Keep the 2-D extent inside the application buffer.
                    let extent = |p: usize| {
                        h.checked_sub(1)
                            .and_then(|r| r.checked_mul(p))
                            .and_then(|v| v.checked_add(w))
                            .unwrap_or(usize::MAX)
                    };
                    if extent(dp.max(sp)) > lim {
                        h = 1.min(h);
                        w = w.min(lim);
                        dp = dp.max(w).min(lim);
                        sp = sp.max(w).min(lim);
                    }
                }
                let k = kind(a[4]);
                if name == "aclrtMemcpy2d" {
                    c!(aclrtMemcpy2d(d, dp, s, sp, w, h, k))
                } else {
                    c!(aclrtMemcpy2dAsync(d, dp, s, sp, w, h, k, self.stream(a[5])))
                }
            }
            "aclrtGetMemInfo" => {
                let (mut f, mut t) = (0usize, 0usize);
                c!(aclrtGetMemInfo(
                    int(a[0], &[0, 1, 2, 5, 12, 17, 18, -1]) as u32,
                    if nul(a[1]) { null_mut() } else { &mut f },
                    if nul(a[2]) { null_mut() } else { &mut t }
                ))
            }
            "aclrtLaunchCallback" => c!(aclrtLaunchCallback(
                Self::host_fn(a[0]),
                (a[1] as usize % 16) as *mut c_void,
                int(a[2], &[0, 1, 1, 2, -1]) as u32,
                self.stream(a[3])
            )),
            "aclrtSubscribeReport" => {
                let t = self.thread_id(a[0]);
                c!(aclrtSubscribeReport(t, self.stream(a[1])))
            }
            "aclrtProcessReport" => {
                // -1 would wait for ever on this thread (as on the real
                // runtime) when nothing is launched: only bounded waits.
                let t = match timeout(a[0]).clamp(-2, 50) {
                    -1 => 1,
                    t => t,
                };
                c!(aclrtProcessReport(t))
            }
            "aclrtUnSubscribeReport" => {
                let t = self.thread_id(a[0] | 2);
                c!(aclrtUnSubscribeReport(t, self.stream(a[1])))
            }
            "aclrtLaunchHostFunc" => c!(aclrtLaunchHostFunc(
                self.stream(a[0]),
                Self::host_fn(a[1]),
                (a[2] as usize % 16) as *mut c_void
            )),
            "aclrtSetOpWaitTimeout" => {
                c!(aclrtSetOpWaitTimeout(int(a[0], &[0, 1, 1000, -1]) as u32))
            }
            "aclrtSetOpExecuteTimeOut" => {
                c!(aclrtSetOpExecuteTimeOut(int(a[0], &[0, 1, 1000, -1]) as u32))
            }
            "aclrtGetVersion" => {
                let (mut x, mut y, mut z) = (0, 0, 0);
                c!(aclrtGetVersion(
                    if nul(a[0]) { null_mut() } else { &mut x },
                    if nul(a[1]) { null_mut() } else { &mut y },
                    if nul(a[2]) { null_mut() } else { &mut z }
                ))
            }
            "aclsysGetVersionStr" | "aclsysGetVersionNum" => {
                let names = [c"runtime", c"CANN", c"no-such-package", c""];
                let pkg = if nul(a[0]) {
                    null_mut()
                } else {
                    names[pick(a[0] >> 4, names.len())].as_ptr().cast_mut()
                };
                if name == "aclsysGetVersionStr" {
                    let mut buf = [0 as std::ffi::c_char; c::ACL_PKG_VERSION_MAX_SIZE];
                    c!(aclsysGetVersionStr(
                        pkg,
                        if nul(a[1]) {
                            null_mut()
                        } else {
                            buf.as_mut_ptr()
                        }
                    ))
                } else {
                    let mut v = 0i32;
                    c!(aclsysGetVersionNum(
                        pkg,
                        if nul(a[1]) { null_mut() } else { &mut v }
                    ))
                }
            }
            "aclsysGetCANNVersion" => {
                // SAFETY: a plain C struct of byte arrays; all zeros is a
                // valid value.
                let mut v: c::aclCANNPackageVersion = unsafe { std::mem::zeroed() };
                c!(aclsysGetCANNVersion(
                    int(a[0], &[0, 1, 2, 7, 8, -1]) as u32,
                    if nul(a[1]) { null_mut() } else { &mut v }
                ))
            }
            "aclrtBinaryLoadFromFile" | "aclrtBinaryLoadFromData" => {
                let mut h: c::aclrtBinHandle = null_mut();
                let out: *mut c::aclrtBinHandle = if nul(a[0]) { null_mut() } else { &mut h };
                let mut opt = c::aclrtBinaryLoadOption {
                    type_: int(a[2], &[1, 2, 3, 0, 99]) as u32,
                    value: c::aclrtBinaryLoadOptionValue {
                        rsv: [a[3] as u32 % 3, 0, 0, 0],
                    },
                };
                let mut opts = c::aclrtBinaryLoadOptions {
                    options: if a[4] % 3 == 0 { null_mut() } else { &mut opt },
                    // One option behind the pointer: never claim more (the
                    // simulator cannot know the array's length).
                    numOpt: (a[5] % 2) as usize,
                };
                let optp: *mut c::aclrtBinaryLoadOptions =
                    if a[1] % 2 == 0 { null_mut() } else { &mut opts };
                let code = if name == "aclrtBinaryLoadFromFile" {
                    let path = match a[6] % 4 {
                        0 => null(),
                        1 => c"/nonexistent/fuzz.bin".as_ptr(),
                        _ => self.image_file.path.as_ptr(),
                    };
                    c!(aclrtBinaryLoadFromFile(path, optp, out))
                } else {
                    let (data, len): (*const c_void, usize) = match a[6] % 4 {
                        0 => (null(), self.image.len()),
                        1 => (self.host.as_ptr().cast(), (a[7] as usize) % 4096),
                        _ => (
                            self.image.as_ptr().cast(),
                            self.image.len() - (a[7] % 2) as usize,
                        ),
                    };
                    c!(aclrtBinaryLoadFromData(data, len, optp, out))
                };
                Self::keep(&mut self.bins, code, h as usize);
                code
            }
            "aclrtBinaryUnLoad" => c!(aclrtBinaryUnLoad(Self::handle(&self.bins, a[0]))),
            "aclrtBinaryGetFunction" => {
                self.ensure_func(a[6]);
                let names = [c"fuzz_touch", c"fuzz_nop", c"missing", c""];
                let mut fh: c::aclrtFuncHandle = null_mut();
                let code = c!(aclrtBinaryGetFunction(
                    Self::handle(&self.bins, a[0]),
                    if nul(a[1]) {
                        null()
                    } else {
                        names[pick(a[1] >> 4, names.len())].as_ptr()
                    },
                    if nul(a[2]) { null_mut() } else { &mut fh }
                ));
                Self::keep(&mut self.funcs, code, fh as usize);
                code
            }
            "aclrtLaunchKernel" => {
                self.ensure_func(a[6]);
                // The argument block: a pointer from the pools (the kernel
                // touches 64 bytes there: checked by the simulator).
                let target = self.ptr(a[1]).0 as u64;
                let block = target.to_ne_bytes();
                let (data, len): (*const c_void, usize) = match a[2] % 4 {
                    0 => (null(), 8),
                    1 => (block.as_ptr().cast(), (a[3] % 9) as usize),
                    _ => (block.as_ptr().cast(), 8),
                };
                c!(aclrtLaunchKernel(
                    Self::handle(&self.funcs, a[0]),
                    blocks(a[4]),
                    data,
                    len,
                    self.stream(a[5])
                ))
            }
            "aclrtLaunchKernelWithConfig" => {
                self.ensure_func(a[6] >> 4);
                let mut attr = c::aclrtLaunchKernelAttr {
                    id: int(a[2], &[1, 2, 3, 4, 5, 6, 7, 8, 9, 0, 99]) as u32,
                    value: c::aclrtLaunchKernelAttrValue {
                        rsv: [a[3] as u32, 0, 0, 0],
                    },
                };
                let mut cfg = c::aclrtLaunchKernelCfg {
                    attrs: if a[4] % 3 == 0 { null_mut() } else { &mut attr },
                    // One attribute behind the pointer (see numOpt).
                    numAttrs: (a[5] % 2) as usize,
                };
                if cfg.attrs.is_null() {
                    cfg.numAttrs = 0;
                }
                let cfgp: *mut c::aclrtLaunchKernelCfg =
                    if a[6] % 4 == 0 { null_mut() } else { &mut cfg };
                c!(aclrtLaunchKernelWithConfig(
                    Self::handle(&self.funcs, a[0]),
                    blocks(a[1]),
                    self.stream(a[7]),
                    cfgp,
                    Self::handle(&self.args, a[7] >> 8),
                    null_mut()
                ))
            }
            "aclrtKernelArgsInit" => {
                self.ensure_func(a[6]);
                let mut h: c::aclrtArgsHandle = null_mut();
                let code = c!(aclrtKernelArgsInit(
                    Self::handle(&self.funcs, a[0]),
                    if nul(a[1]) { null_mut() } else { &mut h }
                ));
                Self::keep(&mut self.args, code, h as usize);
                code
            }
            "aclrtKernelArgsAppend" => {
                self.ensure_func(a[6]);
                let target = self.ptr(a[1]).0 as u64;
                let mut block = target.to_ne_bytes();
                let mut ph: c::aclrtParamHandle = null_mut();
                let (p, n): (*mut c_void, usize) = match a[2] % 4 {
                    0 => (null_mut(), 8),
                    1 => (block.as_mut_ptr().cast(), (a[3] % 9) as usize),
                    _ => (block.as_mut_ptr().cast(), 8),
                };
                let code = c!(aclrtKernelArgsAppend(
                    Self::handle(&self.args, a[0]),
                    p,
                    n,
                    if nul(a[4]) { null_mut() } else { &mut ph }
                ));
                Self::keep(&mut self.params, code, ph as usize);
                code
            }
            "aclrtKernelArgsAppendPlaceHolder" => {
                self.ensure_func(a[6]);
                let mut ph: c::aclrtParamHandle = null_mut();
                let code = c!(aclrtKernelArgsAppendPlaceHolder(
                    Self::handle(&self.args, a[0]),
                    if nul(a[1]) { null_mut() } else { &mut ph }
                ));
                Self::keep(&mut self.params, code, ph as usize);
                code
            }
            "aclrtKernelArgsGetPlaceHolderBuffer" => {
                let mut buf: *mut c_void = null_mut();
                c!(aclrtKernelArgsGetPlaceHolderBuffer(
                    Self::handle(&self.args, a[0]),
                    Self::handle(&self.params, a[1]),
                    size(a[2]),
                    if nul(a[3]) { null_mut() } else { &mut buf }
                ))
            }
            "aclrtKernelArgsFinalize" => {
                c!(aclrtKernelArgsFinalize(Self::handle(&self.args, a[0])))
            }
            "aclrtSetStreamFailureMode" => c!(aclrtSetStreamFailureMode(
                self.stream(a[0]),
                int(a[1], &[0, 1, 2, -1]) as u64
            )),
            "aclrtPeekAtLastError" => c!(aclrtPeekAtLastError(int(a[0], &[0, 0, 1, -1]) as u32)),
            "aclrtGetLastError" => c!(aclrtGetLastError(int(a[0], &[0, 0, 1, -1]) as u32)),
            "aclrtHostRegister" | "aclrtHostRegisterV2" => {
                let (p, host) = self.ptr(a[0]);
                let mut n = size(a[1]) as u64;
                if let Some(h) = host {
                    n = n.min(h as u64);
                }
                if name == "aclrtHostRegister" {
                    let mut dp: *mut c_void = null_mut();
                    let code = c!(aclrtHostRegister(
                        p,
                        n,
                        int(a[2], &[0, 0, 4, 8, 1, -1]) as u32,
                        if nul(a[3]) { null_mut() } else { &mut dp }
                    ));
                    Self::keep(&mut self.registered, code, dp as usize);
                    code
                } else {
                    c!(aclrtHostRegisterV2(p, n, flag(a[2])))
                }
            }
            "aclrtHostGetDevicePointer" => {
                let (p, _) = self.ptr(a[0]);
                let mut dp: *mut c_void = null_mut();
                let code = c!(aclrtHostGetDevicePointer(
                    p,
                    if nul(a[1]) { null_mut() } else { &mut dp },
                    flag(a[2])
                ));
                Self::keep(&mut self.registered, code, dp as usize);
                code
            }
            "aclrtHostUnregister" => c!(aclrtHostUnregister(self.ptr(a[0]).0)),
            other => unreachable!("no executor for {other}"),
        }
    }
}

fn own_thread_id() -> u64 {
    // SAFETY: `pthread_self` (POSIX, `pthread.h`) takes no arguments, has no
    // preconditions and cannot fail; it returns a `pthread_t`, an integer
    // of the size of `usize` on the Linux targets this runs on.
    unsafe extern "C" {
        safe fn pthread_self() -> usize;
    }
    pthread_self() as u64
}

/// One valid init-to-finalize program on device 0 (every call must
/// succeed, the data must round-trip): `Err` names what failed.
pub fn valid_program() -> Result<(), String> {
    let check = |code: aclError, what: &str| -> Result<(), String> {
        if code == 0 {
            return Ok(());
        }
        let msg = c!(aclGetRecentErrMsg());
        let msg = if msg.is_null() {
            String::new()
        } else {
            // SAFETY: a non-null result is a NUL-terminated string.
            unsafe { std::ffi::CStr::from_ptr(msg) }
                .to_string_lossy()
                .into_owned()
        };
        Err(format!("{what} returned {code}: {msg}"))
    };
    check(c!(aclInit(null())), "aclInit")?;
    check(c!(aclrtSetDevice(0)), "aclrtSetDevice")?;
    let mut s: aclrtStream = null_mut();
    check(c!(aclrtCreateStream(&mut s)), "aclrtCreateStream")?;
    let mut e: aclrtEvent = null_mut();
    check(c!(aclrtCreateEvent(&mut e)), "aclrtCreateEvent")?;
    let mut d: *mut c_void = null_mut();
    check(c!(aclrtMalloc(&mut d, 4096, 0)), "aclrtMalloc")?;
    let src: Vec<u8> = (0..4096u32).map(|i| (i * 7 + 3) as u8).collect();
    let mut back = vec![0u8; 4096];
    check(
        c!(aclrtMemcpy(d, 4096, src.as_ptr().cast(), 4096, 1)),
        "aclrtMemcpy H2D",
    )?;
    check(
        c!(aclrtMemsetAsync(
            d.cast::<u8>().wrapping_add(2048).cast(),
            2048,
            0xEE,
            1024,
            s
        )),
        "aclrtMemsetAsync",
    )?;
    check(c!(aclrtRecordEvent(e, s)), "aclrtRecordEvent")?;
    check(c!(aclrtSynchronizeEvent(e)), "aclrtSynchronizeEvent")?;
    check(
        c!(aclrtMemcpy(back.as_mut_ptr().cast(), 4096, d, 4096, 2)),
        "aclrtMemcpy D2H",
    )?;
    let mut expect = src.clone();
    expect[2048..3072].fill(0xEE);
    if back != expect {
        return Err("the valid program read back wrong data".to_owned());
    }
    check(c!(aclrtFree(d)), "aclrtFree")?;
    check(c!(aclrtDestroyEvent(e)), "aclrtDestroyEvent")?;
    check(c!(aclrtDestroyStream(s)), "aclrtDestroyStream")?;
    check(c!(aclrtResetDevice(0)), "aclrtResetDevice")?;
    check(c!(aclFinalize()), "aclFinalize")?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lines_round_trip_and_sequences_replay_from_their_seed() {
        let a = sequence(7, 3, 40);
        assert_eq!(a, sequence(7, 3, 40));
        assert_ne!(a, sequence(7, 4, 40));
        for c in &a {
            assert_eq!(Call::from_line(&c.to_line()), Some(*c));
        }
        assert_eq!(FUNCS[a[0].f as usize], "aclInit");
        assert!(Call::from_line("aclrtNoSuchFunction 0 0 0 0 0 0 0 0").is_none());
    }

    #[test]
    fn funcs_are_exactly_the_exported_functions() {
        // Those of raw/mod.rs and the modelled ones of raw/surface.rs (the
        // part above its "not modelled" functions, which all answer 207000).
        let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../sim/src/raw");
        let mut raw = std::fs::read_to_string(dir.join("mod.rs")).unwrap();
        let surface = std::fs::read_to_string(dir.join("surface.rs")).unwrap();
        let modelled = surface
            .split("// ------------------------------------------------- not modelled")
            .next()
            .unwrap();
        raw.push_str(modelled);
        // Of raw/ext.rs, the functions whose calls cannot block a stream
        // for ever (not the notify and value waits, not the host-function
        // server) and that are modelled: each must be exported there.
        let ext = std::fs::read_to_string(dir.join("ext.rs")).unwrap();
        let ext_names: Vec<&str> = ext
            .split("extern \"C\" fn ")
            .skip(1)
            .map(|rest| rest.split('(').next().unwrap().trim())
            .collect();
        let drawn_ext: Vec<&str> = FUNCS
            .iter()
            .copied()
            .filter(|f| ext_names.contains(f))
            .collect();
        assert!(drawn_ext.len() >= 20, "{drawn_ext:?}");
        let mut exported: Vec<&str> = raw
            .split("extern \"C\" fn ")
            .skip(1)
            .map(|rest| rest.split('(').next().unwrap().trim())
            .collect();
        exported.sort_unstable();
        let mut mine: Vec<&str> = FUNCS
            .iter()
            .copied()
            .filter(|f| !drawn_ext.contains(f))
            .collect();
        mine.sort_unstable();
        assert_eq!(mine, exported);
    }

    #[test]
    fn every_function_is_drawn() {
        let mut seen = vec![false; FUNCS.len()];
        for i in 0..200 {
            for c in sequence(1, i, 60) {
                seen[c.f as usize] = true;
            }
        }
        let missing: Vec<_> = FUNCS
            .iter()
            .zip(&seen)
            .filter(|(_, s)| !**s)
            .map(|(n, _)| *n)
            .collect();
        assert!(missing.is_empty(), "never drawn: {missing:?}");
    }
}
