//! The HTML report of one `softosa sim` (simulator layer; reporting, spec
//! 6.1 results): the side-by-side figures as a table, then per workload
//! the charts the published figures use (bars per variant for throughput,
//! latency and CPU, and the latency distribution of each variant), then
//! the adapters' microprocessors and hosts' processors per variant and,
//! when the scenario samples them (`sample_us`), the LAN-idle timers over
//! time. Self-contained: inline SVG, no scripts, no external files.
//!
//! Only what is charted is kept of each run, as the run ends: a latency
//! curve of about twenty points per decade, not the histogram, and at most
//! [`MAX_CHARTED`] workloads and hosts get charts (the table has them all).

use crate::report::{RunResult, WlResult};
use crate::svg::{self, esc};
use std::fmt::Write as _;

/// Workloads, hosts and timer charts shown as charts at most; beyond
/// that a scenario of hundreds would give a page nobody can read.
pub const MAX_CHARTED: usize = 12;

/// What the report shows of one workload in one run.
struct Wl {
    name: String,
    kind: &'static str,
    tps: f64,
    mbps: f64,
    /// Mean and p99 latency, µs; CPU per transaction client and server,
    /// µs: `None` when no transaction completed.
    per_txn: Option<[f64; 4]>,
    /// CPU per MB client and server, ms: `None` when nothing was delivered.
    per_mb: Option<[f64; 2]>,
    curve: Option<Vec<(f64, f64)>>,
}

impl Wl {
    fn of(w: &WlResult) -> Wl {
        Wl {
            name: w.name.clone(),
            kind: w.kind,
            tps: w.transactions_per_s,
            mbps: w.mb_per_s,
            per_txn: (w.transactions > 0).then_some([
                w.latency_mean_us,
                w.latency_p99_us,
                w.cpu_us_per_txn_client,
                w.cpu_us_per_txn_server,
            ]),
            per_mb: (!w.delivered_nothing())
                .then_some([w.cpu_ms_per_mb_client, w.cpu_ms_per_mb_server]),
            curve: w.latency_curve(),
        }
    }

    fn is_stream(&self) -> bool {
        self.kind == "STR"
    }
}

/// One figure of a workload, picked from a run (`None`: the run has none).
type Pick = fn(&Wl) -> Option<f64>;

/// A workload's bar charts: (what, unit, series as (label, figure)).
type Charts = &'static [(&'static str, &'static str, &'static [(&'static str, Pick)])];

/// The bars of an RR or CRR workload.
const TRANSACTION_CHARTS: Charts = &[
    (
        "throughput",
        "transactions/s",
        &[("transactions/s", |w| Some(w.tps))],
    ),
    (
        "latency",
        "us",
        &[
            ("mean", |w| w.per_txn.map(|c| c[0])),
            ("p99", |w| w.per_txn.map(|c| c[1])),
        ],
    ),
    (
        "CPU per transaction",
        "us per transaction",
        &[
            ("client", |w| w.per_txn.map(|c| c[2])),
            ("server", |w| w.per_txn.map(|c| c[3])),
        ],
    ),
];

/// The bars of a stream.
const STREAM_CHARTS: Charts = &[
    ("throughput", "MB/s", &[("MB/s", |w| Some(w.mbps))]),
    (
        "CPU per MB",
        "ms per MB",
        &[
            ("client", |w| w.per_mb.map(|c| c[0])),
            ("server", |w| w.per_mb.map(|c| c[1])),
        ],
    ),
];

/// What the report shows of one host in one run.
struct Host {
    name: String,
    cpu_busy_pct: f64,
    /// The adapter's microprocessor, % busy (z/OS hosts on an OSA).
    micro_busy_pct: Option<f64>,
    gaps: Vec<(String, Vec<(f64, f64)>)>,
}

/// One finished run as the report keeps it.
pub struct Run {
    label: String,
    window_s: f64,
    workloads: Vec<Wl>,
    hosts: Vec<Host>,
}

impl Run {
    /// Keep what the report shows of `r`, the run labelled `label`.
    pub fn of(label: &str, r: &RunResult) -> Run {
        Run {
            label: label.to_string(),
            window_s: r.window_s,
            workloads: r.workloads.iter().take(MAX_CHARTED).map(Wl::of).collect(),
            hosts: r
                .hosts
                .iter()
                .take(MAX_CHARTED)
                .map(|h| Host {
                    name: h.name.clone(),
                    cpu_busy_pct: h.cpu_busy_pct,
                    micro_busy_pct: h.adapter.as_ref().map(|a| a.microprocessor_busy_pct),
                    gaps: h
                        .adapter
                        .as_ref()
                        .map(|a| a.gap_series())
                        .unwrap_or_default(),
                })
                .collect(),
        }
    }
}

/// The page for the runs of one scenario (`seed` as run). `table` is
/// every workload's row, as the text's side-by-side table has them:
/// (variant, workload, cells).
pub fn render(
    scenario: &str,
    seed: u64,
    runs: &[Run],
    table: &[(String, String, String)],
) -> String {
    let mut h = String::new();
    let _ = write!(
        h,
        "<!DOCTYPE html><html><head><meta charset=\"utf-8\"><title>softosa sim: {}</title>\
         <style>body{{font-family:sans-serif;margin:2em;max-width:1100px}}\
         table{{border-collapse:collapse;font-size:13px}}td,th{{border:1px solid #ccc;padding:3px 6px}}\
         td.n{{text-align:right;white-space:pre}}</style></head><body>",
        esc(scenario)
    );
    let window = runs.first().map_or(0.0, |r| r.window_s);
    let _ = write!(
        h,
        "<h1>{}</h1><p>softosa sim, seed {seed}, {} run(s), measured window {window:.3} s. \
         The same scenario and seed give the same page.</p>",
        esc(scenario),
        runs.len()
    );
    h.push_str(
        "<table><tr><th>variant</th><th>workload</th><th>trans/s</th><th>MB/s</th>\
         <th>mean us</th><th>p99 us</th><th>cpu us/tr</th><th>srv ms/MB</th></tr>",
    );
    for (v, w, cells) in table {
        let _ = write!(h, "<tr><td>{}</td><td>{}</td>", esc(v), esc(w));
        for c in cells.split_whitespace() {
            let _ = write!(h, "<td class=\"n\">{}</td>", esc(c));
        }
        h.push_str("</tr>");
    }
    h.push_str("</table>");
    let labels: Vec<String> = runs.iter().map(|r| r.label.clone()).collect();
    let names: Vec<&str> = runs
        .first()
        .map(|r| r.workloads.iter().map(|w| w.name.as_str()).collect())
        .unwrap_or_default();
    let total = table
        .iter()
        .map(|(_, w, _)| w.as_str())
        .collect::<std::collections::BTreeSet<_>>()
        .len();
    if total > names.len() {
        let _ = write!(
            h,
            "<p>Charts for the first {} of {total} workloads; the table has them all.</p>",
            names.len()
        );
    }
    for (i, name) in names.iter().enumerate() {
        let ws: Vec<Option<&Wl>> = runs.iter().map(|r| r.workloads.get(i)).collect();
        let Some(first) = ws.iter().flatten().next() else {
            continue;
        };
        let _ = write!(h, "<h2>{} ({})</h2>", esc(name), first.kind);
        let charts = if first.is_stream() {
            STREAM_CHARTS
        } else {
            TRANSACTION_CHARTS
        };
        for (what, unit, picks) in charts {
            let series: Vec<(String, Vec<f64>)> = picks
                .iter()
                .map(|(label, pick)| {
                    let vals = ws.iter().map(|w| w.and_then(pick).unwrap_or(0.0)).collect();
                    (label.to_string(), vals)
                })
                .collect();
            h.push_str(&svg::bars(
                &format!("{name}: {what}"),
                &labels,
                &series,
                unit,
            ));
        }
        if first.is_stream() {
            continue;
        }
        let curves: Vec<(String, Vec<(f64, f64)>)> = runs
            .iter()
            .zip(&ws)
            .filter_map(|(r, w)| Some((r.label.clone(), w.and_then(|w| w.curve.clone())?)))
            .collect();
        if !curves.is_empty() {
            h.push_str(&svg::lines(
                &format!("{name}: latency distribution"),
                "latency (us, log scale)",
                "% of transactions",
                &curves,
                true,
            ));
        }
    }
    let hosts: Vec<&str> = runs
        .first()
        .map(|r| r.hosts.iter().map(|x| x.name.as_str()).collect())
        .unwrap_or_default();
    if !hosts.is_empty() {
        h.push_str("<h2>Hosts</h2>");
        let per_host = |f: &dyn Fn(&Host) -> Option<f64>| -> Vec<(String, Vec<f64>)> {
            hosts
                .iter()
                .enumerate()
                .filter_map(|(k, name)| {
                    let vals: Vec<Option<f64>> =
                        runs.iter().map(|r| r.hosts.get(k).and_then(f)).collect();
                    vals.iter().any(Option::is_some).then(|| {
                        (
                            name.to_string(),
                            vals.iter().map(|v| v.unwrap_or(0.0)).collect(),
                        )
                    })
                })
                .collect()
        };
        let micro = per_host(&|x| x.micro_busy_pct);
        if !micro.is_empty() {
            h.push_str(&svg::bars(
                "adapter microprocessor busy",
                &labels,
                &micro,
                "% busy",
            ));
        }
        h.push_str(&svg::bars(
            "host processors busy",
            &labels,
            &per_host(&|x| Some(x.cpu_busy_pct)),
            "% busy",
        ));
    }
    let mut timer_charts = 0;
    for r in runs {
        for x in &r.hosts {
            if x.gaps.is_empty() || timer_charts >= MAX_CHARTED {
                continue;
            }
            timer_charts += 1;
            let _ = write!(
                h,
                "<h2>LAN-idle gap timer over time: {} ({})</h2>",
                esc(&x.name),
                esc(&r.label)
            );
            h.push_str(&svg::lines(
                &format!("{}, {}", x.name, r.label),
                "simulated time (ms)",
                "gap timer (us)",
                &x.gaps,
                false,
            ));
        }
    }
    h.push_str("</body></html>\n");
    h
}
