//! Self-contained HTML report (layer: replay driver, output; spec 08 §8.2):
//! the per-mode comparison as bar charts, a timeline per input queue
//! (arrivals and presentations) for every mode, and the text report. SVG is
//! built here by hand; no script, no external style or font.

use crate::report::{render_text, Report};
use std::fmt::Write as _;

fn esc(s: &str) -> String {
    s.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
        .replace('"', "&quot;")
}

const COLORS: [&str; 6] = [
    "#4e79a7", "#f28e2b", "#59a14f", "#e15759", "#76b7b2", "#b07aa1",
];

/// A bar chart: one group per mode, one bar per series.
/// A bar's value in words: a count without decimals, the series' name
/// only where the unit does not already say it (`interrupts 14789`, not
/// `interrupts 14789.00 interrupts`).
fn shown_value(name: &str, v: f64, unit: &str) -> String {
    let v = if v.fract() == 0.0 && v.abs() < 1e15 {
        format!("{v:.0}")
    } else {
        format!("{v:.2}")
    };
    if unit.starts_with(name) {
        format!("{v} {unit}")
    } else {
        format!("{name} {v} {unit}")
    }
}

fn bar_chart(title: &str, unit: &str, modes: &[String], series: &[(&str, Vec<f64>)]) -> String {
    let (w, h, left, bottom, top) = (640.0, 260.0, 60.0, 50.0, 30.0);
    let max = series
        .iter()
        .flat_map(|(_, v)| v.iter().copied())
        .fold(0.0f64, f64::max)
        .max(1e-9);
    let plot_h = h - bottom - top;
    let group_w = (w - left - 10.0) / modes.len().max(1) as f64;
    let bar_w = (group_w * 0.8) / series.len().max(1) as f64;
    let mut s = String::new();
    let _ = write!(
        s,
        r#"<svg xmlns="http://www.w3.org/2000/svg" width="{w}" height="{h}" role="img" aria-label="{t}"><text x="{x}" y="18" font-size="14" text-anchor="middle">{t}</text>"#,
        t = esc(title),
        x = w / 2.0
    );
    for i in 0..=4 {
        let v = max * f64::from(i) / 4.0;
        let y = h - bottom - plot_h * f64::from(i) / 4.0;
        let _ = write!(
            s,
            r##"<line x1="{left}" x2="{x2}" y1="{y:.1}" y2="{y:.1}" stroke="#ddd"/><text x="{tx}" y="{ty:.1}" font-size="10" text-anchor="end">{v}</text>"##,
            x2 = w - 10.0,
            tx = left - 4.0,
            ty = y + 3.0,
            v = if max >= 100.0 {
                format!("{v:.0}")
            } else {
                format!("{v:.1}")
            }
        );
    }
    for (g, m) in modes.iter().enumerate() {
        let gx = left + group_w * g as f64 + group_w * 0.1;
        for (k, (name, vals)) in series.iter().enumerate() {
            let v = vals.get(g).copied().unwrap_or(0.0);
            let bh = plot_h * v / max;
            let _ = write!(
                s,
                r#"<rect x="{x:.1}" y="{y:.1}" width="{bw:.1}" height="{bh:.1}" fill="{c}"><title>{m}: {t}</title></rect>"#,
                x = gx + bar_w * k as f64,
                y = h - bottom - bh,
                bw = bar_w.max(1.0),
                c = COLORS[k % COLORS.len()],
                m = esc(m),
                t = esc(&shown_value(name, v, unit))
            );
        }
        let _ = write!(
            s,
            r#"<text x="{x:.1}" y="{y}" font-size="10" text-anchor="middle">{m}</text>"#,
            x = gx + group_w * 0.4,
            y = h - bottom + 14.0,
            m = esc(m)
        );
    }
    for (k, (name, _)) in series.iter().enumerate() {
        let x = left + 140.0 * k as f64;
        let _ = write!(
            s,
            r#"<rect x="{x}" y="{y}" width="10" height="10" fill="{c}"/><text x="{tx}" y="{ty}" font-size="11">{n}</text>"#,
            y = h - 18.0,
            c = COLORS[k % COLORS.len()],
            tx = x + 14.0,
            ty = h - 9.0,
            n = esc(&if unit.starts_with(name) {
                name.to_string()
            } else {
                format!("{name} ({unit})")
            })
        );
    }
    s.push_str("</svg>");
    s
}

/// One queue's timeline: arrival ticks below the axis, presentations as
/// bars above it (height grows with the frames presented).
fn timeline(arrivals: &[u64], presents: &[(u64, u32)], window: (u64, u64), label: &str) -> String {
    let (w, h, left) = (900.0, 80.0, 8.0);
    let (start, len) = window;
    let span = len.max(1) as f64;
    let x = |t: u64| left + (w - 2.0 * left) * (t.saturating_sub(start) as f64 / span);
    let inside = |t: u64| t >= start && t - start < len;
    let axis = 52.0;
    let mut s = String::new();
    let _ = write!(
        s,
        r##"<svg xmlns="http://www.w3.org/2000/svg" width="{w}" height="{h}" role="img" aria-label="{l}"><text x="{left}" y="12" font-size="11">{l}</text><line x1="{left}" x2="{x2}" y1="{axis}" y2="{axis}" stroke="#888"/>"##,
        l = esc(label),
        x2 = w - left
    );
    for &t in arrivals.iter().filter(|t| inside(**t)) {
        let _ = write!(
            s,
            r##"<line x1="{x:.2}" x2="{x:.2}" y1="{a}" y2="{b}" stroke="#999" stroke-width="0.6"/>"##,
            x = x(t),
            a = axis + 2.0,
            b = axis + 10.0
        );
    }
    for &(t, n) in presents.iter().filter(|(t, _)| inside(*t)) {
        let bh = 6.0 + 8.0 * f64::from(n.max(1)).log2().min(4.0);
        let _ = write!(
            s,
            r##"<line x1="{x:.2}" x2="{x:.2}" y1="{a}" y2="{b:.1}" stroke="#1f5fa8" stroke-width="1.2"><title>{us:.1} us: {n} frame(s)</title></line>"##,
            x = x(t),
            a = axis,
            b = axis - bh,
            us = t as f64 / 1000.0
        );
    }
    let _ = write!(
        s,
        r#"<text x="{left}" y="{y}" font-size="10">{a:.3} ms</text><text x="{x2}" y="{y}" font-size="10" text-anchor="end">{b:.3} ms</text></svg>"#,
        y = h - 4.0,
        x2 = w - left,
        a = start as f64 / 1e6,
        b = (start + len) as f64 / 1e6
    );
    s
}

/// The whole HTML page.
pub fn render_html(r: &Report) -> String {
    let modes: Vec<_> = r.available().collect();
    let labels: Vec<String> = modes.iter().map(|m| m.label.to_string()).collect();
    let mut o = String::new();
    let _ = write!(
        o,
        "<!DOCTYPE html><html lang=\"en\"><head><meta charset=\"utf-8\"><title>softosa replay: {t}</title>\
<style>body{{font-family:sans-serif;margin:1.5em;max-width:1000px}}pre{{background:#f6f6f6;padding:1em;overflow-x:auto;font-size:12px}}\
h2{{border-bottom:1px solid #ccc}}.charts svg{{margin:0 1em 1em 0}}</style></head><body>",
        t = esc(&r.capture)
    );
    let _ = write!(
        o,
        "<h1>What would each INBPERF mode do to this traffic?</h1><p>Capture <code>{}</code> ({}), profile <code>{}</code>. The host services each presented batch in {:.1}&nbsp;µs.</p>",
        esc(&r.capture),
        esc(&r.capture_format),
        esc(&r.profile),
        r.host_service_us
    );
    if !r.ports.is_empty() {
        o.push_str("<p>");
        for (i, p) in r.ports.iter().enumerate() {
            if i > 0 {
                o.push_str("<br>");
            }
            let _ = write!(o, "Port {}", esc(&p.describe()));
        }
        o.push_str("</p>");
    }
    // What the capture itself says is wrong with it comes first: it
    // qualifies every chart below.
    if let Some(m) = modes.first().filter(|m| !m.totals.warnings.is_empty()) {
        o.push_str("<p><strong>Warnings about the capture:</strong></p><ul>");
        for w in &m.totals.warnings {
            let _ = write!(o, "<li>{}</li>", esc(w));
        }
        o.push_str("</ul>");
    }
    o.push_str("<h2>Comparison</h2><div class=\"charts\">");
    let interrupts: Vec<f64> = modes.iter().map(|m| m.interrupts() as f64).collect();
    o.push_str(&bar_chart(
        "Interrupts (all input queues)",
        "interrupts",
        &labels,
        &[("interrupts", interrupts)],
    ));
    let mut mean = Vec::new();
    let mut p99 = Vec::new();
    for m in &modes {
        let (mut sum, mut n, mut worst) = (0.0, 0u64, 0.0f64);
        for q in &m.queues {
            if let Some(mu) = q.hold.mean_us {
                sum += mu * q.hold.samples as f64;
                n += q.hold.samples;
            }
            worst = worst.max(q.hold.p99_us.unwrap_or(0.0));
        }
        mean.push(if n > 0 { sum / n as f64 } else { 0.0 });
        p99.push(worst);
    }
    o.push_str(&bar_chart(
        "Hold delay added (mean over all frames; worst queue p99)",
        "µs",
        &labels,
        &[("mean", mean), ("p99", p99)],
    ));
    let ppi: Vec<f64> = modes
        .iter()
        .map(|m| {
            let i = m.interrupts();
            if i > 0 {
                m.frames_presented() as f64 / i as f64
            } else {
                0.0
            }
        })
        .collect();
    o.push_str(&bar_chart(
        "Packets per interrupt",
        "packets/interrupt",
        &labels,
        &[("packets/interrupt", ppi)],
    ));
    o.push_str("</div>");
    let w = r.timeline_window_ns;
    let _ = write!(
        o,
        "<h2>Timelines per input queue</h2><p>The busiest {:.1}&nbsp;ms of the capture, from {:.3}&nbsp;ms. Grey ticks below the line: frames arriving on the queue; blue bars above: presentations to the host (taller = more frames; hover for the time).</p>",
        w.1 as f64 / 1e6,
        w.0 as f64 / 1e6
    );
    for m in &modes {
        let _ = write!(o, "<h3>{}</h3>", esc(m.label));
        for q in m.queues.iter().filter(|q| q.frames > 0) {
            o.push_str(&timeline(
                &q.detail_arrivals,
                &q.detail_presents,
                w,
                &format!(
                    "{} queue {} {}: {}, {} over the whole capture",
                    q.interface,
                    q.queue_id,
                    q.queue,
                    crate::report::counted(q.frames, "frame"),
                    crate::report::counted(q.interrupts, "interrupt")
                ),
            ));
            o.push_str("<br>");
        }
    }
    let _ = writeln!(
        o,
        "<h2>Report</h2><pre>{}</pre></body></html>",
        esc(&render_text(r))
    );
    o
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_bar_says_its_value_once_and_counts_without_decimals() {
        assert_eq!(
            shown_value("interrupts", 14789.0, "interrupts"),
            "14789 interrupts"
        );
        assert_eq!(shown_value("mean", 12.345, "µs"), "mean 12.35 µs");
        assert_eq!(
            shown_value("packets/interrupt", 2.0, "packets/interrupt"),
            "2 packets/interrupt"
        );
        let svg = bar_chart(
            "t",
            "interrupts",
            &["BALANCED".to_string()],
            &[("interrupts", vec![14789.0])],
        );
        assert!(
            svg.contains("<title>BALANCED: 14789 interrupts</title>"),
            "{svg}"
        );
        assert!(svg.contains(">interrupts</text>"), "{svg}");
        assert!(!svg.contains("interrupts (interrupts)"), "{svg}");
    }
}
