//! The Chrome-trace timeline (`ACLRT_SIM_TRACE`): one lane per stream.

use std::fmt::Write as _;
use std::io;
use std::path::Path;
use std::sync::Arc;

use crate::stream::StreamShared;

/// One executed task.
#[derive(Clone, Debug)]
pub(crate) struct TraceRec {
    pub name: &'static str,
    pub cat: &'static str,
    /// Start, µs since the runtime started.
    pub ts_us: f64,
    /// Duration, µs (for waits: the time actually spent waiting).
    pub dur_us: f64,
    /// The task's sequence number on its stream.
    pub seq: u64,
    /// Bytes moved or set.
    pub bytes: usize,
    /// Event id (record, reset, wait).
    pub event: u64,
    /// (stream lane, sequence number) a wait waited for.
    pub target: Option<(u64, u64)>,
    /// The device fault of the task, if any.
    pub fault: Option<i32>,
    /// Whether `aclrtStreamAbort` cut the task short (a delay or a wait).
    pub aborted: bool,
    /// For an `aclrtStreamAbort` entry: the tasks it dropped or cut.
    pub dropped: Option<u64>,
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

/// Renders the trace of `lanes` as Chrome-trace JSON.
pub(crate) fn render(lanes: &[Arc<StreamShared>]) -> String {
    let mut items: Vec<String> = Vec::new();
    let mut devices: Vec<i32> = lanes.iter().map(|s| s.device).collect();
    devices.sort_unstable();
    devices.dedup();
    for d in devices {
        items.push(format!(
            r#"{{"name":"process_name","ph":"M","pid":{d},"tid":0,"args":{{"name":"device {d}"}}}}"#
        ));
    }
    for s in lanes {
        let (d, k) = (s.device, s.id);
        let label = if s.is_default {
            format!("device {d} stream {k} (default)")
        } else {
            format!("device {d} stream {k}")
        };
        items.push(format!(
            r#"{{"name":"thread_name","ph":"M","pid":{d},"tid":{k},"args":{{"name":"{}"}}}}"#,
            escape(&label)
        ));
        for r in s.trace_records() {
            let mut args = format!(r#""seq":{}"#, r.seq);
            if r.bytes > 0 {
                let _ = write!(args, r#","bytes":{}"#, r.bytes);
            }
            if r.event > 0 {
                let _ = write!(args, r#","event":{}"#, r.event);
            }
            if let Some((stream, seq)) = r.target {
                let _ = write!(
                    args,
                    r#","waits_for_stream":{stream},"waits_for_seq":{seq}"#
                );
            }
            if let Some(code) = r.fault {
                let _ = write!(args, r#","fault":{code}"#);
            }
            if r.aborted {
                args.push_str(r#","aborted":true"#);
            }
            if let Some(n) = r.dropped {
                let _ = write!(args, r#","dropped":{n}"#);
            }
            items.push(format!(
                r#"{{"name":"{}","cat":"{}","ph":"X","ts":{:.3},"dur":{:.3},"pid":{d},"tid":{k},"args":{{{args}}}}}"#,
                escape(r.name),
                escape(r.cat),
                r.ts_us,
                r.dur_us
            ));
        }
    }
    let mut out = String::from("{\"traceEvents\":[\n");
    out.push_str(&items.join(",\n"));
    out.push_str("\n],\"displayTimeUnit\":\"ms\"}\n");
    out
}

/// Writes the trace of `lanes` to `path`.
pub(crate) fn write(path: &Path, lanes: &[Arc<StreamShared>]) -> io::Result<()> {
    std::fs::write(path, render(lanes))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn escaping_and_empty_render() {
        assert_eq!(escape("a\"b\\c\n"), "a\\\"b\\\\c\\u000a");
        assert_eq!(
            render(&[]),
            "{\"traceEvents\":[\n\n],\"displayTimeUnit\":\"ms\"}\n"
        );
        let s = StreamShared::new(3, 0x32, 1, false, 0, Some(std::time::Instant::now()));
        s.trace_instant("record event", "event", 1, 9);
        let text = render(&[s]);
        assert!(text.contains(r#""name":"device 1 stream 3""#), "{text}");
        assert!(
            text.contains(r#""ph":"X""#) && text.contains(r#""event":9"#),
            "{text}"
        );
    }
}
