//! The timeline of every task the simulator executed, per stream.
//!
//! Tracing is on while [`SimConfig::trace_path`](crate::SimConfig::trace_path)
//! (`ACLRT_SIM_TRACE`) is set. At `aclFinalize` the simulator writes the
//! trace to that path as Chrome-trace JSON ([`Trace::to_chrome_json`]) and
//! keeps it in memory: [`last`] returns it until the next [`reset`](crate::reset)
//! (or [`exclusive`](crate::exclusive)) or the next traced finalize.
//! [`render_svg`] draws it as an SVG timeline, one lane per stream:
//!
//! ```
//! use aclrt_sim::ffi::*;
//! use aclrt_sim::trace::{self, SvgOptions};
//! use std::ptr::{null, null_mut};
//!
//! let _sim = aclrt_sim::exclusive();
//! let json = std::env::temp_dir().join(format!("trace-doc-{}.json", std::process::id()));
//! aclrt_sim::configure(aclrt_sim::SimConfig {
//!     trace_path: Some(json.clone()),
//!     ..aclrt_sim::SimConfig::default()
//! });
//! // SAFETY:
//! // - every out-pointer points to a local of the declared C type;
//! // - the memset writes 4096 bytes into the 4096-byte block just allocated,
//! //   and the block is freed only after the stream is synchronised;
//! // - `exclusive()` keeps other tests off the process-wide runtime.
//! unsafe {
//!     assert_eq!(aclInit(null()), ACL_SUCCESS);
//!     assert_eq!(aclrtSetDevice(0), ACL_SUCCESS);
//!     let (mut stream, mut dev) = (null_mut(), null_mut());
//!     assert_eq!(aclrtCreateStream(&mut stream), ACL_SUCCESS);
//!     assert_eq!(aclrtMalloc(&mut dev, 4096, ACL_MEM_MALLOC_HUGE_FIRST), ACL_SUCCESS);
//!     assert_eq!(aclrtMemsetAsync(dev, 4096, 7, 4096, stream), ACL_SUCCESS);
//!     assert_eq!(aclrtSynchronizeStream(stream), ACL_SUCCESS);
//!     assert_eq!(aclrtFree(dev), ACL_SUCCESS);
//!     assert_eq!(aclrtDestroyStream(stream), ACL_SUCCESS);
//!     assert_eq!(aclrtResetDevice(0), ACL_SUCCESS);
//!     assert_eq!(aclFinalize(), ACL_SUCCESS);
//! }
//! let trace = trace::last().expect("traced: trace_path was set");
//! let lane = trace.lanes.iter().find(|l| !l.tasks.is_empty()).unwrap();
//! assert_eq!(lane.tasks[0].name, "memset");
//! assert_eq!(lane.tasks[0].bytes, 4096);
//! assert_eq!(std::fs::read_to_string(&json).unwrap(), trace.to_chrome_json());
//! let svg = trace::render_svg(&trace, &SvgOptions::new().title("one memset"));
//! assert!(svg.starts_with("<svg") && svg.contains("one memset"));
//! # std::fs::remove_file(&json).unwrap();
//! ```
//!
//! The Chrome trace (`{"traceEvents":[...]}`, open it in `chrome://tracing`
//! or Perfetto) has `pid` = device and `tid` = stream id, one `thread_name`
//! metadata event per stream ("device N stream K", "(default)" for a
//! context's default stream) and one complete (`"ph":"X"`) event per
//! [`Task`], whose `args` carry `seq`, and where they apply `bytes`,
//! `event`, `waits_for_stream`/`waits_for_seq`, `fault`, `aborted` and
//! `dropped`.

use std::fmt::Write as _;
use std::io;
use std::path::Path;
use std::sync::{Mutex, PoisonError};

mod svg;
pub use svg::{SvgOptions, render_svg};

/// One executed task of a stream (or one `aclrtStreamAbort`).
#[derive(Clone, Debug, PartialEq)]
#[non_exhaustive]
pub struct Task {
    /// What ran: `"memcpy H2D"`, `"memcpy2d D2D"`, `"memset"`, `"host
    /// func"`, `"callback"`, `"record event"`, `"reset event"`, `"wait
    /// event"` or `"stream abort"`.
    pub name: &'static str,
    /// The kind of task: `"copy"`, `"memset"`, `"host"` (host functions and
    /// callbacks), `"kernel"` (kernel launches), `"event"` (records and
    /// resets), `"wait"` or `"abort"`.
    pub category: &'static str,
    /// When it started, in µs since the runtime started.
    pub start_us: f64,
    /// How long it ran, in µs (for a wait: the time actually spent waiting;
    /// 0 for a record that completed at once on an idle stream).
    pub duration_us: f64,
    /// Its sequence number on its stream (1 for the first task). For a
    /// `stream abort` entry: the last sequence number the abort covered.
    pub seq: u64,
    /// Bytes copied or set (0 for other tasks).
    pub bytes: usize,
    /// The event id of a record, reset or wait.
    pub event: Option<u64>,
    /// For a wait: the task it waited for, as (stream id, sequence number)
    /// on the same device (the record it captured).
    pub waits_for: Option<(u64, u64)>,
    /// The device fault the task ended with (injected, a panicking host
    /// function, a wait timeout), reported at the next synchronisation.
    pub fault: Option<i32>,
    /// Whether `aclrtStreamAbort` cut the task short (a wait).
    pub aborted: bool,
    /// For a `stream abort` entry: how many tasks the abort dropped or cut.
    pub dropped: Option<u64>,
}

impl Task {
    /// When it ended, in µs since the runtime started.
    pub fn end_us(&self) -> f64 {
        self.start_us + self.duration_us
    }
}

/// The tasks of one stream, in the order they ran.
#[derive(Clone, Debug, PartialEq)]
#[non_exhaustive]
pub struct Lane {
    /// The device of the stream.
    pub device: i32,
    /// The stream's id (the `tid` of the Chrome trace; ids are never
    /// reused).
    pub stream: u64,
    /// The stream's `aclrtStream` handle, as an address: compare it with
    /// `handle.addr()` of the handle the application holds.
    pub handle: usize,
    /// Whether this is a context's default stream.
    pub is_default: bool,
    /// What the stream executed.
    pub tasks: Vec<Task>,
}

impl Lane {
    /// `"device N stream K"`, plus `" (default)"` for a default stream.
    pub fn name(&self) -> String {
        let (d, k) = (self.device, self.stream);
        if self.is_default {
            format!("device {d} stream {k} (default)")
        } else {
            format!("device {d} stream {k}")
        }
    }
}

/// A recorded timeline: one [`Lane`] per stream the runtime created while
/// tracing, in creation order (streams that ran nothing included).
#[derive(Clone, Debug, Default, PartialEq)]
#[non_exhaustive]
pub struct Trace {
    /// The streams.
    pub lanes: Vec<Lane>,
}

impl Trace {
    /// A trace of `lanes`.
    pub(crate) fn new(lanes: Vec<Lane>) -> Trace {
        Trace { lanes }
    }

    /// The lane of the stream whose `aclrtStream` handle is `stream`.
    pub fn lane(&self, stream: *mut core::ffi::c_void) -> Option<&Lane> {
        self.lanes.iter().find(|l| l.handle == stream.addr())
    }

    /// Every task with its lane, lane by lane.
    pub fn tasks(&self) -> impl Iterator<Item = (&Lane, &Task)> {
        self.lanes
            .iter()
            .flat_map(|l| l.tasks.iter().map(move |t| (l, t)))
    }

    /// The task a wait waited for ([`Task::waits_for`]), if it is in the
    /// trace (a record that completed at once on an idle stream is).
    pub fn waited_for(&self, lane: &Lane, wait: &Task) -> Option<(&Lane, &Task)> {
        let (stream, seq) = wait.waits_for?;
        let target = self
            .lanes
            .iter()
            .find(|l| l.device == lane.device && l.stream == stream)?;
        let task = target.tasks.iter().find(|t| t.seq == seq)?;
        Some((target, task))
    }

    /// The trace as Chrome-trace JSON (what the simulator writes to
    /// `trace_path`): see the [module docs](self) for the format.
    pub fn to_chrome_json(&self) -> String {
        let mut items: Vec<String> = Vec::new();
        let mut devices: Vec<i32> = self.lanes.iter().map(|l| l.device).collect();
        devices.sort_unstable();
        devices.dedup();
        for d in devices {
            items.push(format!(
                r#"{{"name":"process_name","ph":"M","pid":{d},"tid":0,"args":{{"name":"device {d}"}}}}"#
            ));
        }
        for lane in &self.lanes {
            let (d, k) = (lane.device, lane.stream);
            items.push(format!(
                r#"{{"name":"thread_name","ph":"M","pid":{d},"tid":{k},"args":{{"name":"{}"}}}}"#,
                escape(&lane.name())
            ));
            for t in &lane.tasks {
                let mut args = format!(r#""seq":{}"#, t.seq);
                if t.bytes > 0 {
                    let _ = write!(args, r#","bytes":{}"#, t.bytes);
                }
                if let Some(event) = t.event {
                    let _ = write!(args, r#","event":{event}"#);
                }
                if let Some((stream, seq)) = t.waits_for {
                    let _ = write!(
                        args,
                        r#","waits_for_stream":{stream},"waits_for_seq":{seq}"#
                    );
                }
                if let Some(code) = t.fault {
                    let _ = write!(args, r#","fault":{code}"#);
                }
                if t.aborted {
                    args.push_str(r#","aborted":true"#);
                }
                if let Some(n) = t.dropped {
                    let _ = write!(args, r#","dropped":{n}"#);
                }
                items.push(format!(
                    r#"{{"name":"{}","cat":"{}","ph":"X","ts":{:.3},"dur":{:.3},"pid":{d},"tid":{k},"args":{{{args}}}}}"#,
                    escape(t.name),
                    escape(t.category),
                    t.start_us,
                    t.duration_us
                ));
            }
        }
        let mut out = String::from("{\"traceEvents\":[\n");
        out.push_str(&items.join(",\n"));
        out.push_str("\n],\"displayTimeUnit\":\"ms\"}\n");
        out
    }
}

/// The trace of the last runtime torn down by `aclFinalize` (or the last
/// `aclFinalizeReference`) while tracing was on; `None` before that, after
/// [`reset`](crate::reset) (so also after [`exclusive`](crate::exclusive)),
/// and when `trace_path` was not set.
pub fn last() -> Option<Trace> {
    LAST.lock().unwrap_or_else(PoisonError::into_inner).clone()
}

/// The trace kept for [`last`].
static LAST: Mutex<Option<Trace>> = Mutex::new(None);

/// Keeps `trace` for [`last`] and writes it to `path` as Chrome-trace JSON.
pub(crate) fn finish(trace: Trace, path: &Path) -> io::Result<()> {
    let json = trace.to_chrome_json();
    *LAST.lock().unwrap_or_else(PoisonError::into_inner) = Some(trace);
    std::fs::write(path, json)
}

/// Forgets the trace kept for [`last`] (a reset).
pub(crate) fn clear_last() {
    *LAST.lock().unwrap_or_else(PoisonError::into_inner) = None;
}

fn escape(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            c if (c as u32) < 0x20 => {
                let _ = write!(out, "\\u{:04x}", c as u32);
            }
            c => out.push(c),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A task of `name`/`category` starting at `start_us`.
    pub(super) fn task(name: &'static str, category: &'static str, seq: u64) -> Task {
        Task {
            name,
            category,
            start_us: 10.0 * seq as f64,
            duration_us: 5.0,
            seq,
            bytes: 0,
            event: None,
            waits_for: None,
            fault: None,
            aborted: false,
            dropped: None,
        }
    }

    #[test]
    fn escaping_and_empty_render() {
        assert_eq!(escape("a\"b\\c\n"), "a\\\"b\\\\c\\u000a");
        assert_eq!(
            Trace::default().to_chrome_json(),
            "{\"traceEvents\":[\n\n],\"displayTimeUnit\":\"ms\"}\n"
        );
        let mut record = task("record event", "event", 1);
        record.event = Some(9);
        let trace = Trace::new(vec![Lane {
            device: 1,
            stream: 3,
            handle: 0x32,
            is_default: false,
            tasks: vec![record],
        }]);
        let text = trace.to_chrome_json();
        assert!(text.contains(r#""name":"device 1 stream 3""#), "{text}");
        assert!(
            text.contains(r#""ph":"X""#) && text.contains(r#""event":9"#),
            "{text}"
        );
        assert!(trace.lane(std::ptr::without_provenance_mut(0x32)).is_some());
        assert!(trace.lane(std::ptr::null_mut()).is_none());
    }

    #[test]
    fn waited_for_finds_the_record_on_the_same_device() {
        let mut record = task("record event", "event", 2);
        record.event = Some(1);
        let mut wait = task("wait event", "wait", 1);
        wait.waits_for = Some((3, 2));
        let lane = |device, stream, tasks| Lane {
            device,
            stream,
            handle: 0,
            is_default: false,
            tasks,
        };
        let trace = Trace::new(vec![
            lane(0, 3, vec![task("memset", "memset", 1), record.clone()]),
            lane(1, 3, vec![task("memset", "memset", 1), record]),
            lane(0, 4, vec![wait.clone()]),
        ]);
        let (l, t) = trace.waited_for(&trace.lanes[2], &wait).unwrap();
        assert_eq!((l.device, l.stream, t.seq), (0, 3, 2));
        assert_eq!(trace.tasks().count(), 5);
    }
}
