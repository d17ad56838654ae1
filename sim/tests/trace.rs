//! The Chrome-trace timeline written at aclFinalize (`trace_path`).

mod common;
use common::*;
use std::collections::BTreeMap;

/// A JSON value (just enough of JSON for a trace file).
#[derive(Debug, Clone, PartialEq)]
enum Json {
    Null,
    Bool(bool),
    Num(f64),
    Str(String),
    Arr(Vec<Json>),
    Obj(BTreeMap<String, Json>),
}

impl Json {
    fn get(&self, key: &str) -> Option<&Json> {
        match self {
            Json::Obj(m) => m.get(key),
            _ => None,
        }
    }
    fn as_str(&self) -> Option<&str> {
        match self {
            Json::Str(s) => Some(s),
            _ => None,
        }
    }
    fn as_num(&self) -> Option<f64> {
        match self {
            Json::Num(n) => Some(*n),
            _ => None,
        }
    }
    /// A key for grouping: numbers and strings both identify lanes.
    fn lane_key(&self) -> String {
        match self {
            Json::Num(n) => format!("{n}"),
            Json::Str(s) => s.clone(),
            other => format!("{other:?}"),
        }
    }
}

/// A minimal recursive-descent JSON parser (RFC 8259 subset: no surrogate
/// pair joining, which trace files do not need).
struct Parser<'a> {
    s: &'a [u8],
    i: usize,
}

impl Parser<'_> {
    fn parse(text: &str) -> Result<Json, String> {
        let mut p = Parser {
            s: text.as_bytes(),
            i: 0,
        };
        let v = p.value()?;
        p.ws();
        if p.i != p.s.len() {
            return Err(format!("trailing data at {}", p.i));
        }
        Ok(v)
    }
    fn ws(&mut self) {
        while self.i < self.s.len() && self.s[self.i].is_ascii_whitespace() {
            self.i += 1;
        }
    }
    fn eat(&mut self, c: u8) -> Result<(), String> {
        self.ws();
        if self.s.get(self.i) == Some(&c) {
            self.i += 1;
            Ok(())
        } else {
            Err(format!("expected {:?} at {}", c as char, self.i))
        }
    }
    fn value(&mut self) -> Result<Json, String> {
        self.ws();
        match self.s.get(self.i) {
            Some(b'{') => {
                self.i += 1;
                let mut m = BTreeMap::new();
                self.ws();
                if self.s.get(self.i) == Some(&b'}') {
                    self.i += 1;
                    return Ok(Json::Obj(m));
                }
                loop {
                    self.ws();
                    let k = self.string()?;
                    self.eat(b':')?;
                    let v = self.value()?;
                    m.insert(k, v);
                    self.ws();
                    match self.s.get(self.i) {
                        Some(b',') => self.i += 1,
                        Some(b'}') => {
                            self.i += 1;
                            return Ok(Json::Obj(m));
                        }
                        _ => return Err(format!("bad object at {}", self.i)),
                    }
                }
            }
            Some(b'[') => {
                self.i += 1;
                let mut v = Vec::new();
                self.ws();
                if self.s.get(self.i) == Some(&b']') {
                    self.i += 1;
                    return Ok(Json::Arr(v));
                }
                loop {
                    v.push(self.value()?);
                    self.ws();
                    match self.s.get(self.i) {
                        Some(b',') => self.i += 1,
                        Some(b']') => {
                            self.i += 1;
                            return Ok(Json::Arr(v));
                        }
                        _ => return Err(format!("bad array at {}", self.i)),
                    }
                }
            }
            Some(b'"') => Ok(Json::Str(self.string()?)),
            Some(b't') => self.word("true", Json::Bool(true)),
            Some(b'f') => self.word("false", Json::Bool(false)),
            Some(b'n') => self.word("null", Json::Null),
            Some(_) => self.number(),
            None => Err("unexpected end".into()),
        }
    }
    fn word(&mut self, w: &str, v: Json) -> Result<Json, String> {
        if self.s[self.i..].starts_with(w.as_bytes()) {
            self.i += w.len();
            Ok(v)
        } else {
            Err(format!("bad literal at {}", self.i))
        }
    }
    fn number(&mut self) -> Result<Json, String> {
        let start = self.i;
        while self.i < self.s.len() && b"+-0123456789.eE".contains(&self.s[self.i]) {
            self.i += 1;
        }
        std::str::from_utf8(&self.s[start..self.i])
            .ok()
            .and_then(|t| t.parse::<f64>().ok())
            .map(Json::Num)
            .ok_or_else(|| format!("bad number at {start}"))
    }
    fn string(&mut self) -> Result<String, String> {
        if self.s.get(self.i) != Some(&b'"') {
            return Err(format!("expected string at {}", self.i));
        }
        self.i += 1;
        let mut out = Vec::new();
        loop {
            match self.s.get(self.i) {
                None => return Err("unterminated string".into()),
                Some(b'"') => {
                    self.i += 1;
                    return String::from_utf8(out).map_err(|e| e.to_string());
                }
                Some(b'\\') => {
                    let c = *self.s.get(self.i + 1).ok_or("bad escape")?;
                    self.i += 2;
                    match c {
                        b'n' => out.push(b'\n'),
                        b't' => out.push(b'\t'),
                        b'r' => out.push(b'\r'),
                        b'b' => out.push(8),
                        b'f' => out.push(12),
                        b'u' => {
                            let hex = self.s.get(self.i..self.i + 4).ok_or("bad \\u")?;
                            let code = u32::from_str_radix(
                                std::str::from_utf8(hex).map_err(|e| e.to_string())?,
                                16,
                            )
                            .map_err(|e| e.to_string())?;
                            self.i += 4;
                            let ch = char::from_u32(code).unwrap_or('\u{fffd}');
                            let mut buf = [0u8; 4];
                            out.extend_from_slice(ch.encode_utf8(&mut buf).as_bytes());
                        }
                        other => out.push(other),
                    }
                }
                Some(&c) => {
                    out.push(c);
                    self.i += 1;
                }
            }
        }
    }
}

/// The trace events of a Chrome trace (object form or bare array form).
fn trace_events(doc: &Json) -> Vec<Json> {
    match doc {
        Json::Arr(v) => v.clone(),
        Json::Obj(_) => match doc.get("traceEvents") {
            Some(Json::Arr(v)) => v.clone(),
            _ => panic!("no traceEvents array in {doc:?}"),
        },
        other => panic!("not a trace: {other:?}"),
    }
}

fn temp_trace_path(name: &str) -> std::path::PathBuf {
    let dir = std::path::Path::new(env!("CARGO_TARGET_TMPDIR")).join("aclrt-sim-trace");
    std::fs::create_dir_all(&dir).unwrap();
    let p = dir.join(format!("{name}-{}.trace.json", std::process::id()));
    let _ = std::fs::remove_file(&p);
    p
}

#[test]
fn json_parser_handles_the_trace_grammar() {
    let _sim = aclrt_sim::exclusive();
    let doc = Parser::parse(
        r#" {"traceEvents": [{"ph":"X","ts":1.5e3,"dur":2,"tid":7,"name":"a\"b\u0041"}], "x": [true,false,null,-1]} "#,
    )
    .unwrap();
    let ev = &trace_events(&doc)[0];
    assert_eq!(ev.get("ts").and_then(Json::as_num), Some(1500.0));
    assert_eq!(ev.get("name").and_then(Json::as_str), Some("a\"bA"));
    assert!(Parser::parse("[1,").is_err());
    assert!(Parser::parse("{\"a\" 1}").is_err());
    assert_clean();
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

    let text = std::fs::read_to_string(&path)
        .unwrap_or_else(|e| panic!("no trace at {}: {e}", path.display()));
    let doc = Parser::parse(&text).unwrap_or_else(|e| panic!("trace is not JSON: {e}"));
    let events = trace_events(&doc);
    // Task events: complete ("X") or begin ("B") events with a timestamp.
    let tasks: Vec<&Json> = events
        .iter()
        .filter(|e| matches!(e.get("ph").and_then(Json::as_str), Some("X" | "B")))
        .collect();
    let mut per_lane: BTreeMap<String, usize> = BTreeMap::new();
    for t in &tasks {
        assert!(
            t.get("ts").and_then(Json::as_num).is_some(),
            "event without ts: {t:?}"
        );
        assert!(
            t.get("name").and_then(Json::as_str).is_some(),
            "event without name: {t:?}"
        );
        let lane = format!(
            "{}/{}",
            t.get("pid").map(Json::lane_key).unwrap_or_default(),
            t.get("tid").map(Json::lane_key).unwrap_or_default()
        );
        *per_lane.entry(lane).or_default() += 1;
    }
    // Two explicit streams, six tasks each (memsets and copies).
    let busy: Vec<_> = per_lane.iter().filter(|&(_, &n)| n >= 6).collect();
    assert!(
        busy.len() >= 2,
        "expected two stream lanes with 6 tasks each, got {per_lane:?}"
    );
    let names: Vec<&str> = tasks
        .iter()
        .filter_map(|t| t.get("name").and_then(Json::as_str))
        .collect();
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
    std::fs::remove_file(&path).unwrap();
}

/// `ts`, `ts + dur` of a complete event (µs).
fn span(e: &Json) -> (f64, f64) {
    let ts = e.get("ts").and_then(Json::as_num).expect("ts");
    let dur = e.get("dur").and_then(Json::as_num).unwrap_or(0.0);
    assert!(dur >= 0.0, "negative duration: {e:?}");
    (ts, ts + dur)
}

#[test]
fn trace_lanes_are_in_order_named_and_show_a_real_wait() {
    let _sim = aclrt_sim::exclusive();
    let path = temp_trace_path("wait");
    configure(|c| c.trace_path = Some(path.clone()));
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

    let text = std::fs::read_to_string(&path).unwrap();
    let doc = Parser::parse(&text).unwrap();
    let events = trace_events(&doc);
    let mut lanes: BTreeMap<String, Vec<&Json>> = BTreeMap::new();
    let mut names: BTreeMap<String, String> = BTreeMap::new();
    for ev in &events {
        let lane = format!(
            "{}/{}",
            ev.get("pid").map(Json::lane_key).unwrap_or_default(),
            ev.get("tid").map(Json::lane_key).unwrap_or_default()
        );
        match ev.get("ph").and_then(Json::as_str) {
            Some("X") => lanes.entry(lane).or_default().push(ev),
            Some("M") if ev.get("name").and_then(Json::as_str) == Some("thread_name") => {
                let n = ev
                    .get("args")
                    .and_then(|a| a.get("name"))
                    .and_then(Json::as_str)
                    .unwrap_or_default();
                names.insert(lane, n.to_string());
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
                "overlapping tasks on lane {lane}: {:?} and {:?}",
                w[0],
                w[1]
            );
        }
    }
    let find = |word: &str| -> Vec<(&String, &Json)> {
        lanes
            .iter()
            .flat_map(|(l, evs)| evs.iter().map(move |e| (l, *e)))
            .filter(|(_, e)| {
                e.get("name")
                    .and_then(Json::as_str)
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
    std::fs::remove_file(&path).unwrap();
}
