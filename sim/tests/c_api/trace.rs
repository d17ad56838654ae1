//! The timeline: the Chrome-trace JSON written at aclFinalize
//! (`trace_path`), the same trace in memory (`aclrt_sim::trace::last`), and
//! its SVG picture (`aclrt_sim::trace::render_svg`).

use crate::common;
use aclrt_sim::trace::{self, SvgOptions};
use common::*;
use serde_json::Value;
use std::collections::BTreeMap;

/// `"pid/tid"` of an event: its lane.
fn lane_key(e: &Value) -> String {
    format!("{}/{}", e["pid"], e["tid"])
}

/// `ts`, `ts + dur` of a complete event (µs).
fn span(e: &Value) -> (f64, f64) {
    let ts = e["ts"].as_f64().expect("ts");
    let dur = e["dur"].as_f64().unwrap_or(0.0);
    assert!(dur >= 0.0, "negative duration: {e}");
    (ts, ts + dur)
}

/// A traced run: stream `a` memsets after a 20 ms delay and records an
/// event that stream `b` waits for before copying. Returns `(a, b)` (stale
/// handles by then, for looking up their lanes).
fn traced_handoff(path: &std::path::Path) -> (aclrtStream, aclrtStream) {
    configure(|c| c.trace_path = Some(path.to_path_buf()));
    init_device0();
    let a = create_stream();
    let b = create_stream();
    let e = create_event();
    let p = malloc(1 << 16);
    let q = malloc(1 << 16);
    stream_delay(a, 20);
    ok!(aclrtMemsetAsync(p, 1 << 16, 3, 1 << 16, a));
    ok!(aclrtRecordEvent(e, a));
    ok!(aclrtStreamWaitEvent(b, e));
    ok!(aclrtMemcpyAsync(
        q,
        1 << 16,
        p,
        1 << 16,
        ACL_MEMCPY_DEVICE_TO_DEVICE,
        b
    ));
    ok!(aclrtSynchronizeStream(b));
    ok!(aclrtSynchronizeStream(a));
    assert_eq!(read_device(q, 1 << 16), vec![3; 1 << 16]);
    free(p);
    free(q);
    destroy_event(e);
    destroy_stream(a);
    destroy_stream(b);
    teardown_device0();
    assert_clean();
    (a, b)
}

#[test]
fn trace_file_has_task_events_for_each_stream() {
    let _sim = aclrt_sim::exclusive();
    let path = temp_trace_path("two-streams");
    configure(|c| c.trace_path = Some(path.clone()));
    init_device0();
    let a = create_stream();
    let b = create_stream();
    let pa = malloc(1 << 20);
    let pb = malloc(1 << 20);
    let qa = malloc(1 << 20);
    let qb = malloc(1 << 20);
    for _ in 0..3 {
        ok!(aclrtMemsetAsync(pa, 1 << 20, 1, 1 << 20, a));
        ok!(aclrtMemcpyAsync(
            qa,
            1 << 20,
            pa,
            1 << 20,
            ACL_MEMCPY_DEVICE_TO_DEVICE,
            a
        ));
        ok!(aclrtMemsetAsync(pb, 1 << 20, 2, 1 << 20, b));
        ok!(aclrtMemcpyAsync(
            qb,
            1 << 20,
            pb,
            1 << 20,
            ACL_MEMCPY_DEVICE_TO_DEVICE,
            b
        ));
    }
    ok!(aclrtSynchronizeStream(a));
    ok!(aclrtSynchronizeStream(b));
    for p in [pa, pb, qa, qb] {
        free(p);
    }
    destroy_stream(a);
    destroy_stream(b);
    teardown_device0();
    assert_clean();

    let events = read_trace_events(&path);
    // Task events: complete ("X") or begin ("B") events with a timestamp.
    let tasks: Vec<&Value> = events
        .iter()
        .filter(|e| matches!(e["ph"].as_str(), Some("X" | "B")))
        .collect();
    let mut per_lane: BTreeMap<String, usize> = BTreeMap::new();
    for t in &tasks {
        assert!(t["ts"].is_number(), "event without ts: {t}");
        assert!(t["name"].is_string(), "event without name: {t}");
        *per_lane.entry(lane_key(t)).or_default() += 1;
    }
    // Two explicit streams, six tasks each (memsets and copies).
    let busy: Vec<_> = per_lane.iter().filter(|&(_, &n)| n >= 6).collect();
    assert!(
        busy.len() >= 2,
        "expected two stream lanes with 6 tasks each, got {per_lane:?}"
    );
    let names: Vec<&str> = tasks.iter().filter_map(|t| t["name"].as_str()).collect();
    assert!(
        names
            .iter()
            .any(|n| n.to_lowercase().contains("memcpy") || n.to_lowercase().contains("copy")),
        "no copy task in {names:?}"
    );
    assert!(
        names.iter().any(|n| n.to_lowercase().contains("memset")),
        "no memset task in {names:?}"
    );
}

#[test]
fn trace_lanes_are_in_order_named_and_show_a_real_wait() {
    let _sim = aclrt_sim::exclusive();
    let path = temp_trace_path("wait");
    traced_handoff(&path);

    let events = read_trace_events(&path);
    let mut lanes: BTreeMap<String, Vec<&Value>> = BTreeMap::new();
    let mut names: BTreeMap<String, String> = BTreeMap::new();
    for ev in &events {
        match ev["ph"].as_str() {
            Some("X") => lanes.entry(lane_key(ev)).or_default().push(ev),
            Some("M") if ev["name"] == "thread_name" => {
                let n = ev["args"]["name"].as_str().unwrap_or_default();
                names.insert(lane_key(ev), n.to_string());
            }
            _ => {}
        }
    }
    // Tasks of one stream never overlap (in-order execution), and every lane
    // with tasks is named.
    for (lane, evs) in &mut lanes {
        assert!(names.contains_key(lane), "lane {lane} has no thread_name");
        evs.sort_by(|x, y| span(x).0.total_cmp(&span(y).0));
        for w in evs.windows(2) {
            let (_, end0) = span(w[0]);
            let (start1, _) = span(w[1]);
            assert!(
                start1 + 1.0 >= end0,
                "overlapping tasks on lane {lane}: {} and {}",
                w[0],
                w[1]
            );
        }
    }
    let find = |word: &str| -> Vec<(&String, &Value)> {
        lanes
            .iter()
            .flat_map(|(l, evs)| evs.iter().map(move |e| (l, *e)))
            .filter(|(_, e)| {
                e["name"]
                    .as_str()
                    .is_some_and(|n| n.to_lowercase().contains(word))
            })
            .collect()
    };
    let records = find("record");
    let waits = find("wait");
    assert_eq!(records.len(), 1, "{records:?}");
    assert_eq!(waits.len(), 1, "{waits:?}");
    let (record_lane, record) = records[0];
    let (wait_lane, wait) = waits[0];
    assert_ne!(record_lane, wait_lane, "record and wait on two streams");
    // The wait names the record it waited for.
    assert_eq!(
        format!("{}/{}", record["pid"], wait["args"]["waits_for_stream"]),
        *record_lane
    );
    assert_eq!(wait["args"]["waits_for_seq"], record["args"]["seq"]);
    // The wait really lasted until the record on the other stream was reached.
    let (_, wait_end) = span(wait);
    let (record_start, _) = span(record);
    assert!(
        wait_end + 1.0 >= record_start,
        "wait ended at {wait_end} before the record at {record_start}"
    );
    // The copy after the wait starts after the memset it depends on ended.
    let memset_end = find("memset")
        .iter()
        .map(|(_, e)| span(e).1)
        .fold(f64::MIN, f64::max);
    let copy_start = find("memcpy")
        .iter()
        .map(|(_, e)| span(e).0)
        .fold(f64::MAX, f64::min);
    assert!(
        copy_start + 1.0 >= memset_end,
        "copy at {copy_start} began before the memset ended at {memset_end}"
    );
}

#[test]
fn the_file_and_the_trace_in_memory_agree() {
    let _sim = aclrt_sim::exclusive();
    let path = temp_trace_path("in-memory");
    let (a, b) = traced_handoff(&path);
    let text = std::fs::read_to_string(&path).unwrap();
    let events = read_trace_events(&path);

    let trace = trace::last().expect("a traced finalize keeps the trace");
    assert_eq!(trace.to_chrome_json(), text);
    let (la, lb) = (trace.lane(a).unwrap(), trace.lane(b).unwrap());
    assert_eq!((la.device, lb.device), (0, 0));
    let names = |l: &trace::Lane| l.tasks.iter().map(|t| t.name).collect::<Vec<_>>();
    assert_eq!(names(la), ["memset", "record event"]);
    assert_eq!(names(lb), ["wait event", "memcpy D2D"]);
    assert_eq!(la.tasks[0].bytes, 1 << 16);
    assert!(la.tasks[0].duration_us >= 0.0 && la.tasks[0].start_us >= 0.0);
    let (from, record) = trace.waited_for(lb, &lb.tasks[0]).unwrap();
    assert_eq!((from.stream, record.name), (la.stream, "record event"));
    assert_eq!(record.event, lb.tasks[0].event);
    assert!(lb.tasks[0].end_us() + 1.0 >= record.start_us);
    // One complete event per task, one thread_name per lane.
    let complete = events.iter().filter(|e| e["ph"] == "X").count();
    assert_eq!(complete, trace.tasks().count());
    let named = events.iter().filter(|e| e["name"] == "thread_name").count();
    assert_eq!(named, trace.lanes.len());
    for lane in &trace.lanes {
        assert!(
            events
                .iter()
                .any(|e| e["name"] == "thread_name" && e["args"]["name"] == lane.name()),
            "{}",
            lane.name()
        );
    }
}

#[test]
fn the_trace_in_memory_lasts_until_a_reset_and_needs_a_trace_path() {
    let _sim = aclrt_sim::exclusive();
    assert!(
        trace::last().is_none(),
        "exclusive() starts without a trace"
    );
    init_device0();
    let s = create_stream();
    ok!(aclrtLaunchHostFunc(s, Some(sleep_ms), ms_arg(1)));
    ok!(aclrtSynchronizeStream(s));
    destroy_stream(s);
    teardown_device0();
    assert!(trace::last().is_none(), "not traced without trace_path");

    let path = temp_trace_path("lasts");
    traced_handoff(&path);
    std::fs::remove_file(&path).unwrap();
    assert!(trace::last().is_some());
    init();
    assert!(trace::last().is_some(), "kept while a new runtime runs");
    finalize();
    aclrt_sim::reset();
    assert!(trace::last().is_none(), "a reset forgets it");
}

#[test]
fn the_svg_draws_a_lane_per_busy_stream_and_the_handoff() {
    let _sim = aclrt_sim::exclusive();
    let path = temp_trace_path("svg");
    let (a, b) = traced_handoff(&path);
    std::fs::remove_file(&path).unwrap();
    let trace = trace::last().unwrap();
    let options = SvgOptions::new()
        .title("hand-off <test>")
        .label(a, "producer")
        .note(a, "20 ms delay/task")
        .label(b, "consumer");
    let svg = trace::render_svg(&trace, &options);
    assert!(svg.starts_with("<svg xmlns=\"http://www.w3.org/2000/svg\""));
    assert!(svg.ends_with("</svg>\n"));
    assert!(svg.contains("hand-off &lt;test&gt;"));
    let busy = trace.lanes.iter().filter(|l| !l.tasks.is_empty()).count();
    assert_eq!(busy, 2, "the default stream ran nothing");
    assert_eq!(svg.matches(r#"<g class="lane""#).count(), busy);
    let la = trace.lane(a).unwrap();
    assert!(svg.contains(&format!(r#"data-stream="{}""#, la.stream)));
    assert!(svg.contains(">producer</text>") && svg.contains(">consumer</text>"));
    assert!(svg.contains(&format!("{} · 20 ms delay/task", la.name())));
    assert_eq!(svg.matches(r#"class="handoff""#).count(), 1);
    assert_eq!(
        svg.matches(r#"class="task""#).count(),
        trace.tasks().count()
    );
    assert_eq!(
        trace::render_svg(&trace, &options),
        svg,
        "deterministic for one trace"
    );
}
