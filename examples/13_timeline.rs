//! A picture of asynchronous work: a three-stream pipeline on the simulator
//! with its Chrome trace turned into an SVG timeline.
//!
//! `cargo run --example 13_timeline [-- OUT.svg]` (default
//! `target/timeline.svg`; the trace is written next to it as
//! `*.trace.json`). The pipeline, per chunk of 4 MiB:
//!
//! * stream "upload": host-to-device copy (slowed down by a task delay), then
//!   an event hand-off to "compute";
//! * stream "compute": waits, copies the chunk to a pinned staging buffer,
//!   runs a host function on it (the compute step), copies it back to the
//!   device, hands it to "download";
//! * stream "download": clears the output (memset), waits, copies the result
//!   to the host.
//!
//! The simulator writes the trace at `aclFinalize`; this example then parses
//! it (a small JSON reader below) and draws one lane per stream: copies,
//! memsets and host functions as coloured bars, waits hatched, event records
//! as ticks, hand-offs as arrows, and a time axis in milliseconds.
//! Simulator only (the trace is a simulator feature).

#[cfg(aclrt_backend = "sim")]
fn main() -> Result<(), Box<dyn std::error::Error>> {
    timeline::main()
}

#[cfg(not(aclrt_backend = "sim"))]
fn main() {
    println!("13_timeline: skipped (needs the simulator backend, feature `sim`)");
}

#[cfg(aclrt_backend = "sim")]
mod timeline {
    use std::collections::BTreeMap;
    use std::fmt::Write as _;
    use std::path::PathBuf;
    use std::time::Duration;

    use aclrt::sim::SimConfig;
    use aclrt::{Acl, Detected, RunMode, Runtime, make_guard};

    const CHUNKS: usize = 3;
    const CHUNK_LEN: usize = 1 << 20; // f32 elements: 4 MiB per chunk
    const ROLES: [&str; 3] = ["upload", "compute", "download"];
    const DELAY_MS: u64 = 3;

    pub fn main() -> Result<(), Box<dyn std::error::Error>> {
        let svg_path = std::env::args_os()
            .nth(1)
            .map(PathBuf::from)
            .unwrap_or_else(|| {
                PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("target/timeline.svg")
            });
        let trace_path = svg_path.with_extension("trace.json");
        if let Some(dir) = svg_path.parent().filter(|d| !d.as_os_str().is_empty()) {
            std::fs::create_dir_all(dir)?;
        }
        let _ = std::fs::remove_file(&trace_path);

        aclrt::sim::configure(SimConfig {
            trace_path: Some(trace_path.clone()),
            ..SimConfig::from_env()
        });
        let acl = Acl::init()?;
        let mode = format!("{:?}", acl.run_mode());
        match acl.detect() {
            Detected::Host(rt) => pipeline(rt)?,
            Detected::Device(rt) => pipeline(rt)?,
        }
        acl.finalize()?;
        aclrt::sim::audit().assert_clean();

        let text = std::fs::read_to_string(&trace_path)?;
        let trace = Trace::parse(&text)?;
        let title = format!(
            "aclrt simulator: {CHUNKS} chunks of 4 MiB through 3 streams (run mode {mode})"
        );
        let svg = render(&trace, &title);
        std::fs::write(&svg_path, &svg)?;
        println!("trace:    {}", trace_path.display());
        println!("timeline: {}", svg_path.display());
        check(&trace, &svg);
        println!("13_timeline: OK");
        Ok(())
    }

    fn pipeline<M: RunMode>(rt: Runtime<'_, M>) -> aclrt::Result<()> {
        let device = rt.device(0)?;
        make_guard!(guard);
        let ctx = device.create_context(guard)?;
        let upload = ctx.create_stream()?;
        let compute = ctx.create_stream()?;
        let download = ctx.create_stream()?;
        // Every task on "upload" waits DELAY_MS first: the others must wait for it.
        aclrt::sim::set_stream_delay(upload.as_raw(), Duration::from_millis(DELAY_MS));

        let mut inputs = Vec::new();
        let mut on_device = Vec::new();
        let mut staging = Vec::new();
        let mut results = Vec::new();
        let mut outputs = Vec::new();
        for c in 0..CHUNKS {
            let data: Vec<f32> = (0..CHUNK_LEN).map(|i| (i + c * CHUNK_LEN) as f32).collect();
            inputs.push(ctx.alloc_host_from(&data)?);
            on_device.push(ctx.alloc::<f32>(CHUNK_LEN)?);
            staging.push(ctx.alloc_host_zeroed::<f32>(CHUNK_LEN)?);
            results.push(ctx.alloc::<f32>(CHUNK_LEN)?);
            outputs.push(ctx.alloc_host_from(&vec![-1.0f32; CHUNK_LEN])?);
        }

        ctx.scope(|s| {
            make_guard!(a);
            make_guard!(b);
            make_guard!(c);
            let up = s.lane(&upload, a);
            let work = s.lane(&compute, b);
            let down = s.lane(&download, c);
            let mut done = Vec::new();
            let chunks = inputs
                .iter()
                .zip(on_device.iter_mut())
                .zip(staging.iter_mut())
                .zip(results.iter_mut())
                .zip(outputs.iter_mut());
            for ((((input, dev), stage), result), output) in chunks {
                let cleared = down.memset(output, 0)?; // runs at once
                let landed = up.copy(input, dev)?; // H2D, delayed
                let landed = work.wait_for(up.signal(landed)?)?; // upload -> compute
                let host_side = work.copy(&landed, stage)?; // D2H to staging
                let computed = work.host_fn_with(host_side, |v| {
                    v.update_all(|x| x * 2.0 + 1.0) // compute step
                })?;
                let back = work.copy(&computed, result)?; // H2D
                let back = down.wait_for(work.signal(back)?)?; // compute -> download
                done.push(down.copy(&back, cleared)?); // D2H
            }
            for (c, out) in done.into_iter().enumerate() {
                let out = out.wait()?;
                let base = (c * CHUNK_LEN) as f32;
                assert!(
                    out.iter()
                        .enumerate()
                        .all(|(i, x)| x == (base + i as f32) * 2.0 + 1.0),
                    "chunk {c} is wrong"
                );
            }
            Ok(())
        })?;
        println!("{CHUNKS} chunks through upload -> compute -> download: correct");
        drop((inputs, on_device, staging, results, outputs));
        upload.destroy()?;
        compute.destroy()?;
        download.destroy()?;
        ctx.destroy()?;
        device.reset()?;
        Ok(())
    }

    // ------------------------------------------------------------ JSON

    /// Just enough JSON for the simulator's trace.
    #[derive(Debug, Clone)]
    enum Json {
        /// `null`, `true` or `false` (unused by the trace).
        Literal,
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
        fn num(&self, key: &str) -> Option<f64> {
            match self.get(key)? {
                Json::Num(n) => Some(*n),
                _ => None,
            }
        }
        fn str(&self, key: &str) -> Option<&str> {
            match self.get(key)? {
                Json::Str(s) => Some(s),
                _ => None,
            }
        }
    }

    struct Parser<'a> {
        s: &'a [u8],
        i: usize,
    }

    impl Parser<'_> {
        fn ws(&mut self) {
            while self.i < self.s.len() && self.s[self.i].is_ascii_whitespace() {
                self.i += 1;
            }
        }
        fn err(&self, what: &str) -> String {
            format!("trace JSON: {what} at byte {}", self.i)
        }
        fn eat(&mut self, c: u8) -> Result<(), String> {
            self.ws();
            if self.s.get(self.i) == Some(&c) {
                self.i += 1;
                Ok(())
            } else {
                Err(self.err(&format!("expected '{}'", c as char)))
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
                        m.insert(k, self.value()?);
                        self.ws();
                        match self.s.get(self.i) {
                            Some(b',') => self.i += 1,
                            Some(b'}') => {
                                self.i += 1;
                                return Ok(Json::Obj(m));
                            }
                            _ => return Err(self.err("expected ',' or '}'")),
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
                            _ => return Err(self.err("expected ',' or ']'")),
                        }
                    }
                }
                Some(b'"') => Ok(Json::Str(self.string()?)),
                Some(b't') if self.s[self.i..].starts_with(b"true") => {
                    self.i += 4;
                    Ok(Json::Literal)
                }
                Some(b'f') if self.s[self.i..].starts_with(b"false") => {
                    self.i += 5;
                    Ok(Json::Literal)
                }
                Some(b'n') if self.s[self.i..].starts_with(b"null") => {
                    self.i += 4;
                    Ok(Json::Literal)
                }
                Some(_) => {
                    let start = self.i;
                    while self.i < self.s.len()
                        && matches!(
                            self.s[self.i],
                            b'-' | b'+' | b'.' | b'e' | b'E' | b'0'..=b'9'
                        )
                    {
                        self.i += 1;
                    }
                    std::str::from_utf8(&self.s[start..self.i])
                        .ok()
                        .and_then(|t| t.parse().ok())
                        .map(Json::Num)
                        .ok_or_else(|| self.err("bad value"))
                }
                None => Err(self.err("unexpected end")),
            }
        }
        fn string(&mut self) -> Result<String, String> {
            if self.s.get(self.i) != Some(&b'"') {
                return Err(self.err("expected a string"));
            }
            self.i += 1;
            let mut out = Vec::new();
            loop {
                match self.s.get(self.i) {
                    Some(b'"') => {
                        self.i += 1;
                        return String::from_utf8(out).map_err(|_| self.err("bad UTF-8"));
                    }
                    Some(b'\\') => {
                        let esc = self.s.get(self.i + 1).copied();
                        self.i += 2;
                        match esc {
                            Some(b'u') => {
                                let hex = self.s.get(self.i..self.i + 4).unwrap_or_default();
                                let code = std::str::from_utf8(hex)
                                    .ok()
                                    .and_then(|h| u32::from_str_radix(h, 16).ok())
                                    .and_then(char::from_u32)
                                    .ok_or_else(|| self.err("bad \\u escape"))?;
                                self.i += 4;
                                out.extend_from_slice(code.to_string().as_bytes());
                            }
                            Some(b'n') => out.push(b'\n'),
                            Some(b't') => out.push(b'\t'),
                            Some(b'r') => out.push(b'\r'),
                            Some(c) => out.push(c),
                            None => return Err(self.err("unexpected end")),
                        }
                    }
                    Some(&c) => {
                        out.push(c);
                        self.i += 1;
                    }
                    None => return Err(self.err("unterminated string")),
                }
            }
        }
    }

    // ------------------------------------------------------------ trace

    /// One executed task (a complete event).
    #[derive(Debug, Clone)]
    struct Task {
        name: String,
        cat: String,
        lane: (i64, i64),
        start_us: f64,
        dur_us: f64,
        seq: i64,
        bytes: f64,
        /// (stream, seq) a wait waited for.
        waits_for: Option<(i64, i64)>,
    }

    impl Task {
        fn end_us(&self) -> f64 {
            self.start_us + self.dur_us
        }
    }

    struct Trace {
        /// (device, stream) -> lane name, for streams that ran tasks.
        lanes: BTreeMap<(i64, i64), String>,
        tasks: Vec<Task>,
    }

    impl Trace {
        fn parse(text: &str) -> Result<Trace, String> {
            let root = Parser {
                s: text.as_bytes(),
                i: 0,
            }
            .value()?;
            let Some(Json::Arr(events)) = root.get("traceEvents") else {
                return Err("trace JSON: no traceEvents array".into());
            };
            let mut names = BTreeMap::new();
            let mut tasks = Vec::new();
            for e in events {
                let lane = (
                    e.num("pid").unwrap_or(0.0) as i64,
                    e.num("tid").unwrap_or(0.0) as i64,
                );
                match e.str("ph") {
                    Some("M") if e.str("name") == Some("thread_name") => {
                        let name = e.get("args").and_then(|a| a.str("name")).unwrap_or("?");
                        names.insert(lane, name.to_string());
                    }
                    Some("X") => {
                        let args = e.get("args");
                        let arg = |k: &str| args.and_then(|a| a.num(k));
                        tasks.push(Task {
                            name: e.str("name").unwrap_or("?").to_string(),
                            cat: e.str("cat").unwrap_or("?").to_string(),
                            lane,
                            start_us: e.num("ts").ok_or("trace JSON: an event without ts")?,
                            dur_us: e.num("dur").unwrap_or(0.0),
                            seq: arg("seq").unwrap_or(0.0) as i64,
                            bytes: arg("bytes").unwrap_or(0.0),
                            waits_for: arg("waits_for_stream")
                                .zip(arg("waits_for_seq"))
                                .map(|(s, q)| (s as i64, q as i64)),
                        });
                    }
                    _ => {}
                }
            }
            tasks.sort_by(|a, b| a.lane.cmp(&b.lane).then(a.seq.cmp(&b.seq)));
            let lanes = names
                .into_iter()
                .filter(|(lane, _)| tasks.iter().any(|t| t.lane == *lane))
                .collect();
            Ok(Trace { lanes, tasks })
        }

        fn lane_tasks(&self, lane: (i64, i64)) -> impl Iterator<Item = &Task> {
            self.tasks.iter().filter(move |t| t.lane == lane)
        }
    }

    // ------------------------------------------------------------ SVG

    const LEFT: f64 = 200.0;
    const PLOT_W: f64 = 860.0;
    const TOP: f64 = 56.0;
    const LANE_H: f64 = 46.0;
    const BAR_H: f64 = 26.0;

    /// Fill colour and legend text of a task.
    fn style(t: &Task) -> (&'static str, &'static str) {
        match (t.cat.as_str(), t.name.as_str()) {
            ("copy", n) if n.contains("H2D") => ("#2b6cb0", "copy host→device"),
            ("copy", n) if n.contains("D2H") => ("#2f855a", "copy device→host"),
            ("copy", n) if n.contains("D2D") => ("#2c7a7b", "copy device→device"),
            ("copy", _) => ("#4a5568", "copy (other)"),
            ("memset", _) => ("#dd6b20", "memset"),
            ("host", _) => ("#805ad5", "host function"),
            ("wait", _) => ("url(#hatch)", "waiting for an event"),
            ("event", _) => ("#1a202c", "event record"),
            _ => ("#a0aec0", "other"),
        }
    }

    fn short(t: &Task) -> String {
        let size = if t.bytes >= 1048576.0 {
            format!(" {:.0} MiB", t.bytes / 1048576.0)
        } else if t.bytes > 0.0 {
            format!(" {:.0} KiB", t.bytes / 1024.0)
        } else {
            String::new()
        };
        match t.cat.as_str() {
            "copy" => format!("{}{size}", t.name.trim_start_matches("memcpy ")),
            "memset" => format!("memset{size}"),
            "host" => "host fn".to_string(),
            "wait" => "wait".to_string(),
            _ => t.name.clone(),
        }
    }

    fn esc(s: &str) -> String {
        s.replace('&', "&amp;")
            .replace('<', "&lt;")
            .replace('>', "&gt;")
            .replace('"', "&quot;")
    }

    /// A step of 1, 2 or 5 times a power of ten giving about `ticks` ticks.
    fn nice_step(span: f64, ticks: f64) -> f64 {
        let raw = (span / ticks).max(1e-9);
        let p = 10f64.powf(raw.log10().floor());
        [1.0, 2.0, 5.0, 10.0]
            .into_iter()
            .map(|m| m * p)
            .find(|s| *s >= raw)
            .unwrap_or(10.0 * p)
    }

    fn render(trace: &Trace, title: &str) -> String {
        let t0 = trace
            .tasks
            .iter()
            .map(|t| t.start_us)
            .fold(f64::INFINITY, f64::min);
        let t1 = trace.tasks.iter().map(Task::end_us).fold(0.0, f64::max);
        let span_ms = ((t1 - t0) / 1000.0).max(0.001);
        let step = nice_step(span_ms, 10.0);
        let axis_end = (span_ms / step).ceil() * step;
        let x = |us: f64| LEFT + (us - t0) / 1000.0 / axis_end * PLOT_W;
        let lanes: Vec<((i64, i64), String)> =
            trace.lanes.iter().map(|(k, v)| (*k, v.clone())).collect();
        let mut roles = ROLES.iter();
        let lane_y: BTreeMap<(i64, i64), f64> = lanes
            .iter()
            .enumerate()
            .map(|(i, (k, _))| (*k, TOP + i as f64 * LANE_H))
            .collect();
        let axis_y = TOP + lanes.len() as f64 * LANE_H + 8.0;
        let legend_y = axis_y + 48.0;
        let height = legend_y + 40.0;
        let width = LEFT + PLOT_W + 40.0;

        let mut s = String::new();
        let _ = write!(
            s,
            r##"<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" viewBox="0 0 {width} {height}" font-family="DejaVu Sans, Helvetica, Arial, sans-serif">
<defs>
<pattern id="hatch" width="6" height="6" patternUnits="userSpaceOnUse" patternTransform="rotate(45)"><rect width="6" height="6" fill="#edf2f7"/><line x1="0" y1="0" x2="0" y2="6" stroke="#a0aec0" stroke-width="2.5"/></pattern>
<marker id="arrow" viewBox="0 0 10 10" refX="9" refY="5" markerWidth="7" markerHeight="7" orient="auto-start-reverse"><path d="M0,0 L10,5 L0,10 z" fill="#c53030"/></marker>
</defs>
<rect width="100%" height="100%" fill="white"/>
<text x="{LEFT}" y="24" font-size="16" font-weight="bold">{}</text>
<text x="{LEFT}" y="42" font-size="11" fill="#4a5568">one lane per stream; bars are tasks as the simulator ran them (hover for details); arrows are event hand-offs</text>
"##,
            esc(title)
        );

        // Grid and time axis.
        let mut tick = 0.0;
        while tick <= axis_end + step / 2.0 {
            let gx = LEFT + tick / axis_end * PLOT_W;
            let _ = writeln!(
                s,
                r##"<line x1="{gx:.1}" y1="{TOP}" x2="{gx:.1}" y2="{axis_y}" stroke="#e2e8f0"/><line x1="{gx:.1}" y1="{axis_y}" x2="{gx:.1}" y2="{:.1}" stroke="#2d3748"/><text x="{gx:.1}" y="{:.1}" font-size="11" text-anchor="middle">{}</text>"##,
                axis_y + 5.0,
                axis_y + 18.0,
                fmt_ms(tick, step)
            );
            tick += step;
        }
        let _ = writeln!(
            s,
            r##"<line x1="{LEFT}" y1="{axis_y}" x2="{:.1}" y2="{axis_y}" stroke="#2d3748"/><text x="{:.1}" y="{:.1}" font-size="12" text-anchor="middle">time since the first task (ms)</text>"##,
            LEFT + PLOT_W,
            LEFT + PLOT_W / 2.0,
            axis_y + 34.0
        );

        // Lanes.
        for (i, (lane, name)) in lanes.iter().enumerate() {
            let y = lane_y[lane];
            let role = if name.contains("default") {
                None
            } else {
                roles.next()
            };
            let band = if i % 2 == 0 { "#f7fafc" } else { "#ffffff" };
            let _ = writeln!(
                s,
                r##"<g class="lane" data-stream="{}"><rect x="0" y="{y}" width="{width}" height="{LANE_H}" fill="{band}" opacity="0.6"/>"##,
                lane.1
            );
            let label = match role {
                Some(r) => format!(r##"<tspan font-weight="bold">{r}</tspan>"##),
                None => String::new(),
            };
            let sub = match role {
                Some(&"upload") => format!("{name} · {DELAY_MS} ms delay/task"),
                _ => name.clone(),
            };
            let _ = writeln!(
                s,
                r##"<text x="12" y="{:.1}" font-size="13">{label}</text><text x="12" y="{:.1}" font-size="10" fill="#4a5568">{}</text>"##,
                y + LANE_H / 2.0 - 2.0,
                y + LANE_H / 2.0 + 12.0,
                esc(&sub)
            );
            let bar_y = y + (LANE_H - BAR_H) / 2.0;
            for t in trace.lane_tasks(*lane) {
                let (fill, what) = style(t);
                let x0 = x(t.start_us);
                let tip = format!(
                    "{} — {what}: start {:.3} ms, {:.3} ms{}",
                    t.name,
                    (t.start_us - t0) / 1000.0,
                    t.dur_us / 1000.0,
                    if t.bytes > 0.0 {
                        format!(", {} bytes", t.bytes)
                    } else {
                        String::new()
                    }
                );
                if t.cat == "event" {
                    let _ = writeln!(
                        s,
                        r##"<rect x="{:.1}" y="{:.1}" width="2.5" height="{:.1}" fill="{fill}"><title>{}</title></rect>"##,
                        x0 - 1.0,
                        bar_y - 4.0,
                        BAR_H + 8.0,
                        esc(&tip)
                    );
                    continue;
                }
                let w = (x(t.end_us()) - x0).max(1.5);
                let stroke = if t.cat == "wait" { "#718096" } else { "white" };
                let _ = writeln!(
                    s,
                    r##"<rect x="{x0:.1}" y="{bar_y:.1}" width="{w:.1}" height="{BAR_H}" fill="{fill}" stroke="{stroke}" stroke-width="0.8" rx="2"><title>{}</title></rect>"##,
                    esc(&tip)
                );
                let label = short(t);
                if w > label.chars().count() as f64 * 6.6 + 6.0 {
                    let color = if t.cat == "wait" { "#2d3748" } else { "white" };
                    let _ = writeln!(
                        s,
                        r##"<text x="{:.1}" y="{:.1}" font-size="11" fill="{color}" text-anchor="middle" pointer-events="none">{}</text>"##,
                        x0 + w / 2.0,
                        bar_y + BAR_H / 2.0 + 4.0,
                        esc(&label)
                    );
                }
            }
            s.push_str("</g>\n");
        }

        // Hand-offs: from the record a wait waited for to the wait's end.
        for w in trace.tasks.iter().filter(|t| t.waits_for.is_some()) {
            let (stream, seq) = w.waits_for.unwrap_or_default();
            let Some(rec) = trace
                .tasks
                .iter()
                .find(|t| t.lane.0 == w.lane.0 && t.lane.1 == stream && t.seq == seq)
            else {
                continue;
            };
            let (Some(&ys), Some(&yd)) = (lane_y.get(&rec.lane), lane_y.get(&w.lane)) else {
                continue;
            };
            let (sy, dy) = if ys < yd {
                (
                    ys + LANE_H / 2.0 + BAR_H / 2.0 + 4.0,
                    yd + (LANE_H - BAR_H) / 2.0,
                )
            } else {
                (
                    ys + (LANE_H - BAR_H) / 2.0 - 4.0,
                    yd + LANE_H / 2.0 + BAR_H / 2.0,
                )
            };
            let _ = writeln!(
                s,
                r##"<line class="handoff" x1="{:.1}" y1="{sy:.1}" x2="{:.1}" y2="{dy:.1}" stroke="#c53030" stroke-width="1.4" stroke-dasharray="4 2" marker-end="url(#arrow)"/>"##,
                x(rec.end_us()),
                x(w.end_us())
            );
        }

        // Legend: only what appears, in a fixed order.
        let mut seen: Vec<(&str, &str)> = Vec::new();
        for t in &trace.tasks {
            let st = style(t);
            if !seen.contains(&st) {
                seen.push(st);
            }
        }
        let order = [
            "copy host→device",
            "copy device→host",
            "copy device→device",
            "copy (other)",
            "memset",
            "host function",
            "waiting for an event",
            "event record",
            "other",
        ];
        seen.sort_by_key(|(_, what)| order.iter().position(|o| o == what));
        let mut lx = LEFT;
        for (fill, what) in seen {
            let (w, h, dy) = if what == "event record" {
                (3.0, 16.0, -2.0)
            } else {
                (18.0, 12.0, 0.0)
            };
            let _ = writeln!(
                s,
                r##"<rect x="{lx:.1}" y="{:.1}" width="{w}" height="{h}" fill="{fill}" stroke="#718096" stroke-width="0.5"/><text x="{:.1}" y="{:.1}" font-size="11">{what}</text>"##,
                legend_y + dy,
                lx + w + 5.0,
                legend_y + 10.0
            );
            lx += w + 18.0 + what.chars().count() as f64 * 6.6;
        }
        let _ = writeln!(
            s,
            r##"<line x1="{lx:.1}" y1="{:.1}" x2="{:.1}" y2="{:.1}" stroke="#c53030" stroke-width="1.4" stroke-dasharray="4 2" marker-end="url(#arrow)"/><text x="{:.1}" y="{:.1}" font-size="11">event hand-off</text>"##,
            legend_y + 6.0,
            lx + 22.0,
            legend_y + 6.0,
            lx + 28.0,
            legend_y + 10.0
        );
        s.push_str("</svg>\n");
        s
    }

    fn fmt_ms(v: f64, step: f64) -> String {
        if step >= 1.0 {
            format!("{v:.0}")
        } else if step >= 0.1 {
            format!("{v:.1}")
        } else {
            format!("{v:.2}")
        }
    }

    // ------------------------------------------------------------ check

    /// The picture shows what happened: a lane per pipeline stream, and
    /// every stream that waited started its next task only after the task
    /// it waited for had finished.
    fn check(trace: &Trace, svg: &str) {
        let pipeline: Vec<(i64, i64)> = trace
            .lanes
            .iter()
            .filter(|(_, n)| !n.contains("default"))
            .map(|(k, _)| *k)
            .collect();
        assert_eq!(pipeline.len(), 3, "three pipeline streams ran tasks");
        assert_eq!(
            svg.matches(r#"<g class="lane""#).count(),
            trace.lanes.len(),
            "one lane per stream in the SVG"
        );
        let (upload, compute, download) = (pipeline[0], pipeline[1], pipeline[2]);
        let first = |lane, cat: &str| {
            trace
                .lane_tasks(lane)
                .find(|t| t.cat == cat)
                .unwrap_or_else(|| panic!("no {cat} task on stream {lane:?}"))
                .clone()
        };
        let produced = first(upload, "copy");
        let consumed = first(compute, "copy");
        assert!(
            consumed.start_us >= produced.end_us(),
            "compute's first copy ({:.1} µs) starts after upload's first copy ends ({:.1} µs)",
            consumed.start_us,
            produced.end_us()
        );
        let handed = first(download, "copy");
        let computed = first(compute, "host");
        assert!(
            handed.start_us >= computed.end_us(),
            "download's first copy starts after the first compute step ends"
        );
        let mut waits = 0;
        for w in trace.tasks.iter().filter(|t| t.waits_for.is_some()) {
            let (stream, seq) = w.waits_for.unwrap_or_default();
            let target = trace
                .tasks
                .iter()
                .find(|t| t.lane == (w.lane.0, stream) && t.seq == seq)
                .expect("the waited-for task is in the trace");
            if let Some(next) = trace.lane_tasks(w.lane).find(|t| t.seq > w.seq) {
                assert!(
                    next.start_us + 1.0 >= target.end_us(),
                    "{:?} seq {} ran before the event it waited for",
                    w.lane,
                    next.seq
                );
            }
            waits += 1;
        }
        // A wait whose event has already completed when it is queued is not
        // a task (the simulator skips it), so a busy machine may show fewer.
        assert!(
            (1..=2 * CHUNKS).contains(&waits),
            "{waits} waits for {} hand-offs",
            2 * CHUNKS
        );
        assert_eq!(
            svg.matches(r#"class="handoff""#).count(),
            waits,
            "an arrow per hand-off"
        );
    }
}
