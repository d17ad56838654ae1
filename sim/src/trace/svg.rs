//! An SVG picture of a [`Trace`]: one lane per stream, tasks as bars on a
//! common time axis, event hand-offs as arrows.

use std::fmt::Write as _;

use super::{Lane, Task, Trace};

/// What [`render_svg`] writes besides the trace itself: a title, and labels
/// and notes for the lanes of chosen streams.
///
/// ```
/// use aclrt_sim::trace::SvgOptions;
/// # let (upload, compute) = (std::ptr::null_mut(), std::ptr::null_mut());
/// let options = SvgOptions::new()
///     .title("three chunks through a pipeline")
///     .label(upload, "upload")
///     .note(upload, "3 ms delay/task")
///     .label(compute, "compute");
/// # let _ = options;
/// ```
#[derive(Clone, Debug, Default)]
pub struct SvgOptions {
    title: Option<String>,
    /// (stream handle, label, note).
    lanes: Vec<(usize, Option<String>, Option<String>)>,
}

impl SvgOptions {
    /// No title of one's own ("aclrt simulator timeline"), no labels.
    pub fn new() -> SvgOptions {
        SvgOptions::default()
    }

    /// The heading of the picture.
    pub fn title(mut self, title: impl Into<String>) -> SvgOptions {
        self.title = Some(title.into());
        self
    }

    /// A bold label for the lane of the stream whose `aclrtStream` handle
    /// is `stream`, drawn above the lane's name ("device 0 stream 5").
    pub fn label(mut self, stream: *mut core::ffi::c_void, label: impl Into<String>) -> SvgOptions {
        self.entry(stream).1 = Some(label.into());
        self
    }

    /// A note for the lane of `stream`, written after its name ("device 0
    /// stream 5 · note").
    pub fn note(mut self, stream: *mut core::ffi::c_void, note: impl Into<String>) -> SvgOptions {
        self.entry(stream).2 = Some(note.into());
        self
    }

    fn entry(
        &mut self,
        stream: *mut core::ffi::c_void,
    ) -> &mut (usize, Option<String>, Option<String>) {
        let handle = stream.addr();
        let i = match self.lanes.iter().position(|e| e.0 == handle) {
            Some(i) => i,
            None => {
                self.lanes.push((handle, None, None));
                self.lanes.len() - 1
            }
        };
        &mut self.lanes[i]
    }

    fn label_of(&self, lane: &Lane) -> (Option<&str>, Option<&str>) {
        match self.lanes.iter().find(|e| e.0 == lane.handle) {
            Some((_, label, note)) => (label.as_deref(), note.as_deref()),
            None => (None, None),
        }
    }
}

const LEFT: f64 = 200.0;
const PLOT_W: f64 = 860.0;
const TOP: f64 = 56.0;
const LANE_H: f64 = 46.0;
const BAR_H: f64 = 26.0;

/// The legend entries, in the order the legend lists them.
const LEGEND: [&str; 11] = [
    "copy host→device",
    "copy device→host",
    "copy device→device",
    "copy (other)",
    "memset",
    "host function",
    "kernel",
    "waiting for an event",
    "event record",
    "stream abort",
    "other",
];

/// Draws `trace` as a standalone SVG document (UTF-8 text).
///
/// One lane per stream that ran at least one task (ordered by device, then
/// stream id), on a common time axis in milliseconds since the first task:
///
/// * copies (coloured by direction), memsets and host functions/callbacks
///   as bars, waits for an event hatched, each with a tooltip (name, start,
///   duration, bytes);
/// * event records and resets as ticks;
/// * each wait's hand-off as a dashed arrow from the end of the task it
///   waited for to the end of the wait ([`Trace::waited_for`]);
/// * a task that ended with a device fault outlined in red, a wait cut
///   short by `aclrtStreamAbort` dashed, an abort as a red bar;
/// * a legend of the kinds that appear.
///
/// The document is deterministic for a given trace. Lanes are `<g
/// class="lane" data-device="N" data-stream="K">` groups, hand-offs `<line
/// class="handoff">`, so tools and tests can find them.
pub fn render_svg(trace: &Trace, options: &SvgOptions) -> String {
    let mut lanes: Vec<&Lane> = trace.lanes.iter().filter(|l| !l.tasks.is_empty()).collect();
    lanes.sort_by_key(|l| (l.device, l.stream));
    let tasks = || lanes.iter().flat_map(|l| l.tasks.iter());
    let t0 = tasks().map(|t| t.start_us).fold(f64::INFINITY, f64::min);
    let t0 = if t0.is_finite() { t0 } else { 0.0 };
    let t1 = tasks().map(Task::end_us).fold(t0, f64::max);
    let span_ms = ((t1 - t0) / 1000.0).max(0.001);
    let step = nice_step(span_ms, 10.0);
    let axis_end = (span_ms / step).ceil() * step;
    let x = |us: f64| LEFT + (us - t0) / 1000.0 / axis_end * PLOT_W;
    let lane_y = |lane: &Lane| {
        lanes
            .iter()
            .position(|l| l.device == lane.device && l.stream == lane.stream)
            .map(|i| TOP + i as f64 * LANE_H)
    };
    let axis_y = TOP + lanes.len() as f64 * LANE_H + 8.0;
    let legend_y = axis_y + 48.0;
    let height = legend_y + 40.0;
    let width = LEFT + PLOT_W + 40.0;
    let title = options
        .title
        .as_deref()
        .unwrap_or("aclrt simulator timeline");

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
    let ticks = (axis_end / step).round() as u32;
    for i in 0..=ticks {
        let tick = f64::from(i) * step;
        let gx = LEFT + tick / axis_end * PLOT_W;
        let _ = writeln!(
            s,
            r##"<line x1="{gx:.1}" y1="{TOP}" x2="{gx:.1}" y2="{axis_y}" stroke="#e2e8f0"/><line x1="{gx:.1}" y1="{axis_y}" x2="{gx:.1}" y2="{:.1}" stroke="#2d3748"/><text x="{gx:.1}" y="{:.1}" font-size="11" text-anchor="middle">{}</text>"##,
            axis_y + 5.0,
            axis_y + 18.0,
            fmt_ms(tick, step)
        );
    }
    let _ = writeln!(
        s,
        r##"<line x1="{LEFT}" y1="{axis_y}" x2="{:.1}" y2="{axis_y}" stroke="#2d3748"/><text x="{:.1}" y="{:.1}" font-size="12" text-anchor="middle">time since the first task (ms)</text>"##,
        LEFT + PLOT_W,
        LEFT + PLOT_W / 2.0,
        axis_y + 34.0
    );

    // Lanes.
    for (i, lane) in lanes.iter().enumerate() {
        let y = TOP + i as f64 * LANE_H;
        let band = if i % 2 == 0 { "#f7fafc" } else { "#ffffff" };
        let _ = writeln!(
            s,
            r##"<g class="lane" data-device="{}" data-stream="{}"><rect x="0" y="{y}" width="{width}" height="{LANE_H}" fill="{band}" opacity="0.6"/>"##,
            lane.device, lane.stream
        );
        let (label, note) = options.label_of(lane);
        let name = match note {
            Some(n) => format!("{} · {n}", lane.name()),
            None => lane.name(),
        };
        match label {
            Some(label) => {
                let _ = writeln!(
                    s,
                    r##"<text x="12" y="{:.1}" font-size="13" font-weight="bold">{}</text><text x="12" y="{:.1}" font-size="10" fill="#4a5568">{}</text>"##,
                    y + LANE_H / 2.0 - 2.0,
                    esc(label),
                    y + LANE_H / 2.0 + 12.0,
                    esc(&name)
                );
            }
            None => {
                let _ = writeln!(
                    s,
                    r##"<text x="12" y="{:.1}" font-size="11" fill="#2d3748">{}</text>"##,
                    y + LANE_H / 2.0 + 4.0,
                    esc(&name)
                );
            }
        }
        let bar_y = y + (LANE_H - BAR_H) / 2.0;
        for t in &lane.tasks {
            let (fill, what) = style(t);
            let x0 = x(t.start_us);
            let tip = tooltip(t, what, t0);
            if t.category == "event" {
                let _ = writeln!(
                    s,
                    r##"<rect class="task" data-seq="{}" x="{:.1}" y="{:.1}" width="2.5" height="{:.1}" fill="{fill}"><title>{}</title></rect>"##,
                    t.seq,
                    x0 - 1.0,
                    bar_y - 4.0,
                    BAR_H + 8.0,
                    esc(&tip)
                );
                continue;
            }
            let w = (x(t.end_us()) - x0).max(1.5);
            let (stroke, stroke_w, dash) = if t.fault.is_some() {
                ("#c53030", 2.0, "")
            } else if t.aborted {
                ("#c53030", 1.2, r#" stroke-dasharray="3 2""#)
            } else if t.category == "wait" {
                ("#718096", 0.8, "")
            } else {
                ("white", 0.8, "")
            };
            let _ = writeln!(
                s,
                r##"<rect class="task" data-seq="{}" x="{x0:.1}" y="{bar_y:.1}" width="{w:.1}" height="{BAR_H}" fill="{fill}" stroke="{stroke}" stroke-width="{stroke_w}"{dash} rx="2"><title>{}</title></rect>"##,
                t.seq,
                esc(&tip)
            );
            let text = short(t);
            if w > text.chars().count() as f64 * 6.6 + 6.0 {
                let color = if t.category == "wait" {
                    "#2d3748"
                } else {
                    "white"
                };
                let _ = writeln!(
                    s,
                    r##"<text x="{:.1}" y="{:.1}" font-size="11" fill="{color}" text-anchor="middle" pointer-events="none">{}</text>"##,
                    x0 + w / 2.0,
                    bar_y + BAR_H / 2.0 + 4.0,
                    esc(&text)
                );
            }
        }
        s.push_str("</g>\n");
    }

    // Hand-offs: from the end of the task a wait waited for to the wait's end.
    for lane in &lanes {
        for wait in lane.tasks.iter().filter(|t| t.waits_for.is_some()) {
            let Some((from, rec)) = trace.waited_for(lane, wait) else {
                continue;
            };
            let (Some(ys), Some(yd)) = (lane_y(from), lane_y(lane)) else {
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
                x(wait.end_us())
            );
        }
    }

    // Legend: only what appears, in a fixed order.
    let mut seen: Vec<(&str, &str)> = Vec::new();
    for t in tasks() {
        let st = style(t);
        if !seen.contains(&st) {
            seen.push(st);
        }
    }
    seen.sort_by_key(|(_, what)| LEGEND.iter().position(|o| o == what));
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

/// Fill colour and legend text of a task.
fn style(t: &Task) -> (&'static str, &'static str) {
    match (t.category, t.name) {
        ("copy", n) if n.ends_with("H2D") => ("#2b6cb0", "copy host→device"),
        ("copy", n) if n.ends_with("D2H") => ("#2f855a", "copy device→host"),
        ("copy", n) if n.ends_with("D2D") => ("#2c7a7b", "copy device→device"),
        ("copy", _) => ("#4a5568", "copy (other)"),
        ("memset", _) => ("#dd6b20", "memset"),
        ("host", _) => ("#805ad5", "host function"),
        ("kernel", _) => ("#d69e2e", "kernel"),
        ("wait", _) => ("url(#hatch)", "waiting for an event"),
        ("event", _) => ("#1a202c", "event record"),
        ("abort", _) => ("#c53030", "stream abort"),
        _ => ("#a0aec0", "other"),
    }
}

/// The text inside a bar (drawn when it fits).
fn short(t: &Task) -> String {
    let size = if t.bytes >= 1 << 20 {
        format!(" {:.0} MiB", t.bytes as f64 / 1048576.0)
    } else if t.bytes > 0 {
        format!(" {:.0} KiB", t.bytes as f64 / 1024.0)
    } else {
        String::new()
    };
    match t.category {
        "copy" => format!("{}{size}", t.name.trim_start_matches("memcpy ")),
        "memset" => format!("memset{size}"),
        "host" if t.name == "callback" => "callback".to_owned(),
        "host" => "host fn".to_owned(),
        "wait" => "wait".to_owned(),
        "abort" => "abort".to_owned(),
        _ => t.name.to_owned(),
    }
}

/// The tooltip of a task.
fn tooltip(t: &Task, what: &str, t0: f64) -> String {
    let mut tip = format!(
        "{} — {what}: seq {}, start {:.3} ms, {:.3} ms",
        t.name,
        t.seq,
        (t.start_us - t0) / 1000.0,
        t.duration_us / 1000.0
    );
    if t.bytes > 0 {
        let _ = write!(tip, ", {} bytes", t.bytes);
    }
    if let Some(e) = t.event {
        let _ = write!(tip, ", event {e}");
    }
    if let Some((stream, seq)) = t.waits_for {
        let _ = write!(tip, ", waits for stream {stream} seq {seq}");
    }
    if let Some(code) = t.fault {
        let _ = write!(tip, ", device fault {code}");
    }
    if t.aborted {
        tip.push_str(", cut short by aclrtStreamAbort");
    }
    if let Some(n) = t.dropped {
        let _ = write!(tip, ", {n} tasks dropped");
    }
    tip
}

/// Escapes text for SVG content and attribute values.
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

/// A tick label with as many decimals as the step needs.
fn fmt_ms(v: f64, step: f64) -> String {
    if step >= 1.0 {
        format!("{v:.0}")
    } else if step >= 0.1 {
        format!("{v:.1}")
    } else {
        format!("{v:.2}")
    }
}

#[cfg(test)]
mod tests {
    use super::super::tests::task;
    use super::*;

    fn lane(stream: u64, handle: usize, tasks: Vec<Task>) -> Lane {
        Lane {
            device: 0,
            stream,
            handle,
            is_default: false,
            tasks,
        }
    }

    #[test]
    fn lanes_with_tasks_labels_arrows_and_escaping() {
        let mut record = task("record event", "event", 2);
        record.event = Some(1);
        let mut wait = task("wait event", "wait", 1);
        wait.waits_for = Some((5, 2));
        let mut copy = task("memcpy H2D", "copy", 2);
        copy.bytes = 4 << 20;
        copy.fault = Some(507_899);
        let trace = Trace::new(vec![
            lane(5, 0x50, vec![task("memset", "memset", 1), record]),
            lane(6, 0x60, vec![wait, copy]),
            lane(7, 0x70, vec![]),
        ]);
        let options = SvgOptions::new()
            .title("a <b> & \"c\"")
            .label(std::ptr::without_provenance_mut(0x50), "upload")
            .note(std::ptr::without_provenance_mut(0x50), "3 ms/task");
        let svg = render_svg(&trace, &options);
        assert!(svg.starts_with("<svg ") && svg.ends_with("</svg>\n"));
        assert!(svg.contains("a &lt;b&gt; &amp; &quot;c&quot;"), "{svg}");
        assert_eq!(
            svg.matches(r#"<g class="lane""#).count(),
            2,
            "no empty lane"
        );
        assert!(svg.contains(">upload</text>"));
        assert!(svg.contains("device 0 stream 5 · 3 ms/task"));
        assert!(svg.contains(">device 0 stream 6</text>"));
        assert_eq!(svg.matches(r#"class="handoff""#).count(), 1);
        assert!(svg.contains("device fault 507899"), "fault in the tooltip");
        assert!(svg.contains(r##"stroke="#c53030" stroke-width="2""##));
        for entry in [
            "copy host→device",
            "memset",
            "waiting for an event",
            "event record",
        ] {
            assert!(svg.contains(&format!(">{entry}</text>")), "{entry}");
        }
        assert!(!svg.contains(">host function</text>"), "only what appears");
        // Every element that opens also closes.
        for tag in ["g", "text", "rect", "title"] {
            let open =
                svg.matches(&format!("<{tag} ")).count() + svg.matches(&format!("<{tag}>")).count();
            let selfclosed = svg
                .split(&format!("<{tag} "))
                .skip(1)
                .filter(|rest| rest.split('>').next().is_some_and(|a| a.ends_with('/')))
                .count();
            let close = svg.matches(&format!("</{tag}>")).count();
            assert_eq!(open, selfclosed + close, "<{tag}>");
        }
    }

    #[test]
    fn an_empty_trace_is_a_valid_picture() {
        let svg = render_svg(&Trace::default(), &SvgOptions::new());
        assert!(svg.contains("aclrt simulator timeline"));
        assert!(!svg.contains("NaN") && !svg.contains("inf"), "{svg}");
        assert_eq!(svg.matches(r#"<g class="lane""#).count(), 0);
    }

    #[test]
    fn ticks_are_round_numbers() {
        assert_eq!(nice_step(30.0, 10.0), 5.0);
        assert_eq!(nice_step(9.0, 10.0), 1.0);
        assert!((nice_step(0.5, 10.0) - 0.05).abs() < 1e-12);
        assert_eq!(fmt_ms(2.5, 0.5), "2.5");
        assert_eq!(fmt_ms(10.0, 5.0), "10");
    }
}
