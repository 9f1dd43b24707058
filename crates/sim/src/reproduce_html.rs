//! The reproduce suite's self-contained HTML report (simulator layer;
//! reporting). Inline SVG only: no scripts, no external files.

use crate::report::RunResult;
use crate::reproduce::{Check, Rule, Verdict};
use crate::svg::{self, esc};
use std::collections::BTreeMap;
use std::fmt::Write as _;

/// Render the report.
pub fn render(checks: &[Check], results: &BTreeMap<(String, String), RunResult>) -> String {
    let mut h = String::new();
    h.push_str("<!DOCTYPE html><html><head><meta charset=\"utf-8\"><title>softosa reproduce</title><style>body{font-family:sans-serif;margin:2em;max-width:1100px}table{border-collapse:collapse;font-size:13px}td,th{border:1px solid #ccc;padding:3px 6px}td.n{text-align:right}.pass{background:#d9f2d9}.fail{background:#f8d7d7}.nr{background:#eee}ol.key{font-size:13px;margin-top:0}</style></head><body>");
    let pass = checks.iter().filter(|c| c.pass).count();
    let _ = write!(h, "<h1>softosa reproduce</h1><p>{pass} of {} checks pass. Pass rule: a relative change must have the published sign and lie within max(30&nbsp;% of the published value, 0.05); absolute facts within 30&nbsp;%. Every number below comes from the simulator's mechanisms with the global parameters of <code>calibration/models.toml</code>.</p>", checks.len());
    if checks.iter().any(|c| c.verdict() == Verdict::Fail) {
        let _ = write!(h, "<p>{}</p>", esc(crate::reproduce::WHY_FAIL));
    }
    h.push_str("<table><tr><th>entry</th><th>metric</th><th>published</th><th>simulated</th><th>result</th><th>note</th></tr>");
    for c in checks {
        let verdict = c.verdict();
        let res = verdict.word();
        let cls = match verdict {
            Verdict::Pass => "pass",
            Verdict::Fail => "fail",
            Verdict::NotRun => "nr",
        };
        let f = |v: f64| match c.rule {
            Rule::Absolute => format!("{v:.3}"),
            _ => format!("{:+.1}%", v * 100.0),
        };
        let _ = write!(
            h,
            "<tr class=\"{cls}\"><td>{}</td><td>{}</td><td class=\"n\">{}</td><td class=\"n\">{}</td><td>{res}</td><td>{}</td></tr>",
            esc(&c.entry),
            esc(&c.metric),
            f(c.published),
            c.simulated.map(f).unwrap_or_else(|| "-".into()),
            esc(&c.note)
        );
    }
    h.push_str("</table>");

    // Relative changes, simulated vs published.
    let rel: Vec<&Check> = checks
        .iter()
        .filter(|c| c.rule == Rule::Relative && c.simulated.is_some())
        .collect();
    if !rel.is_empty() {
        h.push_str("<h2>Relative changes: simulated vs published</h2>");
        // Bars are numbered, and a list under each chart names them in
        // full: a metric's name is too long to stand under its bars whole,
        // and cut short the comparison it names (its end) is lost.
        for (k, chunk) in rel.chunks(6).enumerate() {
            let first = k * 6 + 1;
            let groups: Vec<String> = (first..first + chunk.len())
                .map(|n| n.to_string())
                .collect();
            let series = vec![
                (
                    "published %".to_string(),
                    chunk.iter().map(|c| c.published * 100.0).collect(),
                ),
                (
                    "simulated %".to_string(),
                    chunk
                        .iter()
                        .map(|c| c.simulated.unwrap_or(0.0) * 100.0)
                        .collect(),
                ),
            ];
            h.push_str(&svg::bars(
                "relative change, simulated vs published",
                &groups,
                &series,
                "percent",
            ));
            let _ = write!(h, "<ol class=\"key\" start=\"{first}\">");
            for c in chunk {
                let _ = write!(h, "<li>{} ({})</li>", esc(&c.metric), esc(&c.entry));
            }
            h.push_str("</ol>");
        }
    }

    // Workload 1 per mode.
    let wl1: Vec<&Check> = checks
        .iter()
        .filter(|c| c.entry == "iwq-mixed-10g-workload1")
        .collect();
    if !wl1.is_empty() {
        h.push_str("<h2>Mixed workload on OSA-Express3 10 GbE, per mode</h2>");
        for (metric, title) in [("RR30", "RR30 transactions/s"), ("STR1", "STR1 KB/s")] {
            let sel: Vec<&&Check> = wl1.iter().filter(|c| c.metric.contains(metric)).collect();
            let groups: Vec<String> = sel
                .iter()
                .map(|c| c.metric.split(':').next().unwrap_or("").to_string())
                .collect();
            let series = vec![
                (
                    "published".to_string(),
                    sel.iter().map(|c| c.published).collect(),
                ),
                (
                    "simulated".to_string(),
                    sel.iter().map(|c| c.simulated.unwrap_or(0.0)).collect(),
                ),
            ];
            h.push_str(&svg::bars(title, &groups, &series, title));
        }
    }

    // Latency distributions of RR30 per mode.
    let mut lat_series = Vec::new();
    for ((sc, v), r) in results {
        if sc != "iwq-mixed-10g" {
            continue;
        }
        if let Some(pts) = r
            .workloads
            .iter()
            .find(|w| w.name == "RR30")
            .and_then(|w| w.latency_curve())
        {
            lat_series.push((v.clone(), pts));
        }
    }
    if !lat_series.is_empty() {
        h.push_str("<h2>RR30 latency distribution per mode (mixed 10 GbE)</h2>");
        h.push_str(&svg::lines(
            "RR30 transaction latency",
            "latency (us, log scale)",
            "% of transactions",
            &lat_series,
            true,
        ));
    }

    // Tuner timers over time.
    for ((sc, v), r) in results {
        if sc != "iwq-mixed-10g" || !v.contains("DYNAMIC") {
            continue;
        }
        let Some(host) = r.hosts.iter().find(|h| h.name == "zosb") else {
            continue;
        };
        let Some(a) = &host.adapter else { continue };
        let series = a.gap_series();
        if series.is_empty() {
            continue;
        }
        let _ = write!(
            h,
            "<h2>DYNAMIC tuner: z/OS-B inter-packet gap timer over time ({})</h2>",
            esc(v)
        );
        h.push_str(&svg::lines(
            &format!("gap timer, {v}"),
            "simulated time (ms)",
            "gap timer (us)",
            &series,
            false,
        ));
    }
    h.push_str("</body></html>\n");
    h
}
