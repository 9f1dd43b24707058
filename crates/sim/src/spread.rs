//! Several seeds of one scenario (simulator layer; spec 6.1 results).
//!
//! `softosa sim --seeds N` runs every variant with N seeds. A stream's rate
//! over a short window follows a handful of TCP events (a loss, a window
//! cut), so one run can differ from the next by more than the change a
//! setting makes. This module gathers each run's workload figures and shows
//! them as the mean with the lowest and highest run, and each variant's
//! change against the first variant paired seed by seed: the change with
//! seed 3 is variant-with-seed-3 against first-variant-with-seed-3, so a
//! difference larger than its own spread is the setting's, not the seed's.

use crate::report::{HostResult, RunResult, WlResult};
use std::fmt::Write as _;

/// One figure of a workload, as it is compared across seeds.
struct Metric {
    /// Name in the JSON (the field of [`WlResult`] it comes from).
    key: &'static str,
    /// Column title in the text table; `None`: JSON and CSV only.
    title: Option<&'static str>,
    /// Decimals in the text table.
    prec: usize,
    /// When the figure is missing from a run.
    per: Per,
    /// The figure in a run's results.
    get: fn(&WlResult) -> f64,
}

/// What a figure is per, and so when a run has none.
#[derive(Clone, Copy)]
enum Per {
    /// Always there (a rate).
    Second,
    /// Per completed transaction: none when none completed.
    Transaction,
    /// Per MB delivered: none when nothing was delivered.
    Megabyte,
}

const METRICS: [Metric; 9] = [
    Metric {
        key: "transactions_per_s",
        title: Some("trans/s"),
        prec: 0,
        per: Per::Second,
        get: |w| w.transactions_per_s,
    },
    Metric {
        key: "mb_per_s",
        title: Some("MB/s"),
        prec: 2,
        per: Per::Second,
        get: |w| w.mb_per_s,
    },
    Metric {
        key: "latency_mean_us",
        title: Some("mean us"),
        prec: 1,
        per: Per::Transaction,
        get: |w| w.latency_mean_us,
    },
    Metric {
        key: "latency_p50_us",
        title: None,
        prec: 1,
        per: Per::Transaction,
        get: |w| w.latency_p50_us,
    },
    Metric {
        key: "latency_p99_us",
        title: Some("p99 us"),
        prec: 1,
        per: Per::Transaction,
        get: |w| w.latency_p99_us,
    },
    Metric {
        key: "cpu_us_per_txn_client",
        title: None,
        prec: 2,
        per: Per::Transaction,
        get: |w| w.cpu_us_per_txn_client,
    },
    Metric {
        key: "cpu_us_per_txn_server",
        title: Some("cpu us/tr"),
        prec: 2,
        per: Per::Transaction,
        get: |w| w.cpu_us_per_txn_server,
    },
    Metric {
        key: "cpu_ms_per_mb_client",
        title: None,
        prec: 2,
        per: Per::Megabyte,
        get: |w| w.cpu_ms_per_mb_client,
    },
    Metric {
        key: "cpu_ms_per_mb_server",
        title: Some("srv ms/MB"),
        prec: 2,
        per: Per::Megabyte,
        get: |w| w.cpu_ms_per_mb_server,
    },
];

/// One figure of a host, as it is compared across seeds: what the single
/// run's host line leads with (processors and adapter busy, TCP's
/// recoveries, frames the switch dropped on the way in).
struct HostMetric {
    key: &'static str,
    /// Column title in the text table; `None`: JSON only.
    title: Option<&'static str>,
    prec: usize,
    /// `None` where the host has no such figure (no OSA on HiperSockets).
    get: fn(&HostResult) -> Option<f64>,
}

const HOST_METRICS: [HostMetric; 6] = [
    HostMetric {
        key: "cpu_busy_pct",
        title: Some("CPU busy %"),
        prec: 1,
        get: |h| Some(h.cpu_busy_pct),
    },
    HostMetric {
        key: "adapter_busy_pct",
        title: Some("adapter busy %"),
        prec: 1,
        get: |h| h.adapter.as_ref().map(|a| a.microprocessor_busy_pct),
    },
    HostMetric {
        key: "retransmits",
        title: Some("retransmits"),
        prec: 0,
        get: |h| Some(h.tcp.retransmits as f64),
    },
    HostMetric {
        key: "fast_retransmits",
        title: None,
        prec: 0,
        get: |h| Some(h.tcp.fast_retransmits as f64),
    },
    HostMetric {
        key: "timeouts",
        title: None,
        prec: 0,
        get: |h| Some(h.tcp.timeouts as f64),
    },
    HostMetric {
        key: "switch_drops_in",
        title: Some("switch drops"),
        prec: 0,
        get: |h| Some(h.link_in.dropped_queue_full as f64),
    },
];

/// A host's figures in one run, in [`HOST_METRICS`] order.
type HostFigures = [Option<f64>; HOST_METRICS.len()];

fn host_figures(h: &HostResult) -> HostFigures {
    let mut out = [None; HOST_METRICS.len()];
    for (o, m) in out.iter_mut().zip(&HOST_METRICS) {
        *o = (m.get)(h);
    }
    out
}

/// Figure `m` of row `i` (a workload or a host) in each run of `runs`.
fn column<const N: usize>(runs: &[Vec<[Option<f64>; N]>], i: usize, m: usize) -> Vec<Option<f64>> {
    runs.iter()
        .map(|r| r.get(i).and_then(|f| f.get(m).copied().flatten()))
        .collect()
}

/// A cell of the text tables: the mean and how far the farthest run lies
/// from it, or from how many runs the mean is when only some have it.
fn cell(vals: &[Option<f64>], prec: usize, partial: &mut bool) -> String {
    let had = vals.iter().flatten().count();
    match Stat::of(vals.iter().copied()) {
        // A figure only some runs have (no transaction ended in the
        // others) says from how many it is.
        Some(st) if had < vals.len() => {
            *partial = true;
            format!("{:.prec$} ({had}/{})", st.mean, vals.len())
        }
        Some(st) => format!("{:.prec$} ±{:.1}%", st.mean, 100.0 * st.reach()),
        None => "-".into(),
    }
}

/// The figures a workload of `kind` is judged by across seeds, as (its
/// [`METRICS`] key, what it is, unit): a stream by its rate and CPU per
/// MB, the others per transaction.
fn judged_by(kind: &str) -> &'static [(&'static str, &'static str, &'static str)] {
    if kind == "STR" {
        &[
            ("mb_per_s", "throughput", "MB/s"),
            ("cpu_ms_per_mb_server", "CPU per MB (server)", "ms per MB"),
        ]
    } else {
        &[
            ("transactions_per_s", "throughput", "transactions/s"),
            ("latency_mean_us", "mean latency", "us"),
            (
                "cpu_us_per_txn_server",
                "CPU per transaction (server)",
                "us",
            ),
        ]
    }
}

/// The place of the figure `key` in [`METRICS`].
fn metric_index(key: &str) -> Option<usize> {
    METRICS.iter().position(|m| m.key == key)
}

/// A workload's figures in one run, in [`METRICS`] order.
type Figures = [Option<f64>; METRICS.len()];

fn figures(w: &WlResult) -> Figures {
    let mut out = [None; METRICS.len()];
    for (o, m) in out.iter_mut().zip(&METRICS) {
        let there = match m.per {
            Per::Second => true,
            Per::Transaction => w.transactions > 0,
            Per::Megabyte => !w.delivered_nothing(),
        };
        *o = there.then(|| (m.get)(w));
    }
    out
}

/// Mean, lowest and highest of the runs that have the figure.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Stat {
    pub mean: f64,
    pub min: f64,
    pub max: f64,
}

impl Stat {
    /// `None` when no run has the figure.
    fn of(values: impl Iterator<Item = Option<f64>>) -> Option<Stat> {
        let (mut n, mut sum) = (0u32, 0.0);
        let (mut min, mut max) = (f64::INFINITY, f64::NEG_INFINITY);
        for v in values.flatten() {
            n += 1;
            sum += v;
            min = min.min(v);
            max = max.max(v);
        }
        (n > 0).then(|| Stat {
            mean: sum / f64::from(n),
            min,
            max,
        })
    }

    /// The run farthest from the mean, as a share of the mean (0 when the
    /// mean is 0).
    fn reach(&self) -> f64 {
        if self.mean == 0.0 {
            0.0
        } else {
            (self.max - self.mean).max(self.mean - self.min) / self.mean.abs()
        }
    }
}

/// One variant's runs, a run per seed.
struct Variant {
    label: String,
    workloads: Vec<String>,
    /// Each workload's kind (`RR`, `CRR`, `STR`), which picks the changes
    /// worth a line in the text.
    kinds: Vec<&'static str>,
    /// `runs[seed][workload]`.
    runs: Vec<Vec<Figures>>,
    hosts: Vec<String>,
    /// `host_runs[seed][host]`.
    host_runs: Vec<Vec<HostFigures>>,
}

/// Every run of a `softosa sim --seeds N`, gathered as they end.
pub struct SeedRuns {
    seeds: Vec<u64>,
    variants: Vec<Variant>,
}

impl SeedRuns {
    /// Runs with these seeds, in this order, for every variant.
    pub fn new(seeds: Vec<u64>) -> SeedRuns {
        SeedRuns {
            seeds,
            variants: Vec::new(),
        }
    }

    /// Keep the figures of variant `v`'s (labelled `label`) run with the
    /// next of its seeds: a variant's runs come in seed order.
    pub fn add(&mut self, v: usize, label: &str, r: &RunResult) {
        let figs: Vec<Figures> = r.workloads.iter().map(figures).collect();
        let host_figs: Vec<HostFigures> = r.hosts.iter().map(host_figures).collect();
        if let Some(var) = self.variants.get_mut(v) {
            var.runs.push(figs);
            var.host_runs.push(host_figs);
            return;
        }
        self.variants.push(Variant {
            label: label.to_string(),
            workloads: r.workloads.iter().map(|w| w.name.clone()).collect(),
            kinds: r.workloads.iter().map(|w| w.kind).collect(),
            runs: vec![figs],
            hosts: r.hosts.iter().map(|h| h.name.clone()).collect(),
            host_runs: vec![host_figs],
        });
    }

    /// Figure `m` of host `h` of variant `v`, run by run.
    fn host_values(&self, v: usize, h: usize, m: usize) -> Vec<Option<f64>> {
        column(&self.variants[v].host_runs, h, m)
    }

    /// Figure `m` of workload `w` of variant `v`, run by run.
    fn values(&self, v: usize, w: usize, m: usize) -> Vec<Option<f64>> {
        column(&self.variants[v].runs, w, m)
    }

    /// Variant `v`'s change of figure `m` of workload `name` against the
    /// first variant, seed by seed (`None` for a seed where either run has
    /// no figure or the first variant's is 0).
    fn changes(&self, v: usize, name: &str, m: usize) -> Option<Vec<Option<f64>>> {
        let base = self.variants.first()?;
        let bw = base.workloads.iter().position(|n| n == name)?;
        let w = self.variants[v].workloads.iter().position(|n| n == name)?;
        let b = self.values(0, bw, m);
        let x = self.values(v, w, m);
        Some(
            b.iter()
                .zip(&x)
                .map(|(b, x)| match (b, x) {
                    (Some(b), Some(x)) if *b != 0.0 => Some(x / b - 1.0),
                    _ => None,
                })
                .collect(),
        )
    }

    /// The text report: a table of means with the farthest run's distance,
    /// then each variant's changes against the first.
    pub fn to_text(&self, scenario: Option<&str>) -> String {
        let mut s = String::new();
        if let Some(n) = scenario {
            let _ = writeln!(s, "scenario: {n}");
        }
        let seeds = match (self.seeds.first(), self.seeds.last()) {
            (Some(a), Some(b)) if self.seeds.len() > 1 => format!("seeds {a} to {b}"),
            (Some(a), _) => format!("seed {a}"),
            _ => "no seed".into(),
        };
        let _ = writeln!(
            s,
            "{} runs per variant ({seeds}): each figure is the mean over the runs, \
             and ±x% how far the farthest run lies from it",
            self.seeds.len()
        );
        let vw = self
            .variants
            .iter()
            .map(|v| v.label.len())
            .fold(22, usize::max);
        let ww = self
            .variants
            .iter()
            .flat_map(|v| v.workloads.iter().map(String::len))
            .fold(18, usize::max);
        let shown: Vec<(usize, &Metric)> = METRICS
            .iter()
            .enumerate()
            .filter(|(_, m)| m.title.is_some())
            .collect();
        let _ = write!(s, "{:<vw$} {:<ww$}", "variant", "workload");
        for (_, m) in &shown {
            let _ = write!(s, " {:>17}", m.title.unwrap_or_default());
        }
        s.push('\n');
        let rows = self.variants.first().map_or(0, |v| v.workloads.len());
        let mut partial = false;
        for w in 0..rows {
            for (v, var) in self.variants.iter().enumerate() {
                let Some(name) = var.workloads.get(w) else {
                    continue;
                };
                let _ = write!(s, "{:<vw$} {:<ww$}", var.label, name);
                for (m, metric) in &shown {
                    let cell = cell(&self.values(v, w, *m), metric.prec, &mut partial);
                    let _ = write!(s, " {cell:>17}");
                }
                s.push('\n');
            }
        }
        const PARTIAL: &str = "(k/N): the mean of the only k runs of N that have the figure \
                               (no transaction ended in the others), so no spread is shown";
        if partial {
            let _ = writeln!(s, "{PARTIAL}");
        }
        // Under the table whose marks it explains.
        let mut host_partial = false;
        self.host_table(&mut s, vw, &mut host_partial);
        if host_partial && !partial {
            let _ = writeln!(s, "{PARTIAL}");
        }
        let Some(base) = self.variants.first() else {
            return s;
        };
        if self.variants.len() < 2 {
            return s;
        }
        let _ = writeln!(
            s,
            "\nchange against {}, seed by seed: the mean change (lowest .. highest)",
            base.label
        );
        for (v, var) in self.variants.iter().enumerate().skip(1) {
            for (name, kind) in var.workloads.iter().zip(&var.kinds) {
                let _ = write!(s, "{:<vw$} {:<ww$}", var.label, name);
                for &(key, _, _) in judged_by(kind) {
                    let Some(m) = metric_index(key) else { continue };
                    let metric = &METRICS[m];
                    let st = self
                        .changes(v, name, m)
                        .and_then(|ch| Stat::of(ch.into_iter()));
                    let cell = match st {
                        Some(st) => format!(
                            "{:+.1}% ({:+.1} .. {:+.1})",
                            100.0 * st.mean,
                            100.0 * st.min,
                            100.0 * st.max
                        ),
                        None => "-".into(),
                    };
                    let _ = write!(s, "   {} {cell}", metric.title.unwrap_or(metric.key));
                }
                s.push('\n');
            }
        }
        s
    }

    /// The hosts' table of the text report: per host and variant, the
    /// mean of each titled [`HOST_METRICS`] figure with its spread.
    fn host_table(&self, s: &mut String, vw: usize, partial: &mut bool) {
        let hw = self
            .variants
            .iter()
            .flat_map(|v| v.hosts.iter().map(String::len))
            .fold(18, usize::max);
        let shown: Vec<(usize, &HostMetric)> = HOST_METRICS
            .iter()
            .enumerate()
            .filter(|(_, m)| m.title.is_some())
            .collect();
        let rows = self.variants.first().map_or(0, |v| v.hosts.len());
        if rows == 0 {
            return;
        }
        let _ = write!(s, "\n{:<vw$} {:<hw$}", "variant", "host");
        for (_, m) in &shown {
            let _ = write!(s, " {:>17}", m.title.unwrap_or_default());
        }
        s.push('\n');
        for h in 0..rows {
            for (v, var) in self.variants.iter().enumerate() {
                let Some(name) = var.hosts.get(h) else {
                    continue;
                };
                let _ = write!(s, "{:<vw$} {:<hw$}", var.label, name);
                for (m, metric) in &shown {
                    let cell = cell(&self.host_values(v, h, *m), metric.prec, partial);
                    let _ = write!(s, " {cell:>17}");
                }
                s.push('\n');
            }
        }
    }

    /// The HTML report (`--html` with `--seeds`): the text's tables, then
    /// per workload bars of each variant's mean with a whisker from its
    /// lowest to its highest run, and the changes against the first
    /// variant the same way. Charts for at most
    /// [`crate::sim_html::MAX_CHARTED`] workloads.
    pub fn to_html(&self, scenario: &str) -> String {
        let esc = crate::svg::esc;
        let mut h = String::new();
        let _ = write!(
            h,
            "<!DOCTYPE html><html><head><meta charset=\"utf-8\"><title>softosa sim: {}</title>\
             <style>body{{font-family:sans-serif;margin:2em;max-width:1100px}}pre{{font-size:12px}}</style>\
             </head><body><h1>{}</h1><p>softosa sim, {} runs per variant. Each bar is the mean \
             over the runs, its whisker the lowest and highest run; a change is paired seed by \
             seed (variant-with-seed-k against the first variant with seed k).</p><pre>{}</pre>",
            esc(scenario),
            esc(scenario),
            self.seeds.len(),
            esc(&self.to_text(None))
        );
        let Some(base) = self.variants.first() else {
            h.push_str("</body></html>\n");
            return h;
        };
        let labels: Vec<String> = self.variants.iter().map(|v| v.label.clone()).collect();
        let later: Vec<String> = labels.iter().skip(1).cloned().collect();
        for (name, kind) in base
            .workloads
            .iter()
            .zip(&base.kinds)
            .take(crate::sim_html::MAX_CHARTED)
        {
            let _ = write!(h, "<h2>{} ({kind})</h2>", esc(name));
            let mut ch_series = Vec::new();
            let mut ch_ranges = Vec::new();
            for &(key, what, unit) in judged_by(kind) {
                let Some(m) = metric_index(key) else { continue };
                let stats: Vec<Option<Stat>> = (0..self.variants.len())
                    .map(|v| {
                        let vw = self.variants[v].workloads.iter().position(|n| n == name)?;
                        Stat::of(self.values(v, vw, m).into_iter())
                    })
                    .collect();
                let means = stats.iter().map(|st| st.map_or(0.0, |x| x.mean)).collect();
                let ranges = stats.iter().map(|st| st.map(|x| (x.min, x.max))).collect();
                h.push_str(&crate::svg::bars_ranged(
                    &format!("{name}: {what}"),
                    &labels,
                    &[(unit.to_string(), means)],
                    &[ranges],
                    unit,
                ));
                if later.is_empty() {
                    continue;
                }
                let changes: Vec<Option<Stat>> = (1..self.variants.len())
                    .map(|v| Stat::of(self.changes(v, name, m)?.into_iter()))
                    .collect();
                let pct = |x: f64| 100.0 * x;
                ch_series.push((
                    METRICS[m].title.unwrap_or(key).to_string(),
                    changes
                        .iter()
                        .map(|c| c.map_or(0.0, |c| pct(c.mean)))
                        .collect(),
                ));
                ch_ranges.push(
                    changes
                        .iter()
                        .map(|c| c.map(|c| (pct(c.min), pct(c.max))))
                        .collect(),
                );
            }
            if !later.is_empty() {
                h.push_str(&crate::svg::bars_ranged(
                    &format!("{name}: change against {}", base.label),
                    &later,
                    &ch_series,
                    &ch_ranges,
                    "% change",
                ));
            }
        }
        h.push_str("</body></html>\n");
        h
    }

    /// The JSON report: per variant and workload each figure's mean, min,
    /// max and runs (null where a run has none), the same per host; for
    /// every variant after the first, `changes` against it in the same
    /// form (workloads only).
    pub fn to_json(&self, scenario: &str) -> serde_json::Value {
        let stat = |vals: Vec<Option<f64>>| {
            let st = Stat::of(vals.iter().copied());
            serde_json::json!({
                "mean": st.map(|s| s.mean),
                "min": st.map(|s| s.min),
                "max": st.map(|s| s.max),
                "runs": vals,
            })
        };
        let workload_keys = METRICS.map(|m| m.key);
        let host_keys = HOST_METRICS.map(|m| m.key);
        let variants: Vec<serde_json::Value> = self
            .variants
            .iter()
            .enumerate()
            .map(|(v, var)| {
                let workloads: Vec<serde_json::Value> = var
                    .workloads
                    .iter()
                    .enumerate()
                    .filter_map(|(w, name)| {
                        json_row(("workload", name), &workload_keys, |m| {
                            Some(stat(self.values(v, w, m)))
                        })
                    })
                    .collect();
                let hosts: Vec<serde_json::Value> = var
                    .hosts
                    .iter()
                    .enumerate()
                    .filter_map(|(h, name)| {
                        json_row(("host", name), &host_keys, |m| {
                            Some(stat(self.host_values(v, h, m)))
                        })
                    })
                    .collect();
                let mut o = serde_json::Map::new();
                o.insert("variant".into(), var.label.clone().into());
                o.insert("workloads".into(), workloads.into());
                o.insert("hosts".into(), hosts.into());
                if v > 0 {
                    let changes: Vec<serde_json::Value> = var
                        .workloads
                        .iter()
                        .filter_map(|name| {
                            json_row(("workload", name), &workload_keys, |m| {
                                Some(stat(self.changes(v, name, m)?))
                            })
                        })
                        .collect();
                    o.insert(
                        "changes_against".into(),
                        self.variants[0].label.clone().into(),
                    );
                    o.insert("changes".into(), changes.into());
                }
                o.into()
            })
            .collect();
        serde_json::json!({
            "scenario": scenario,
            "seeds": self.seeds,
            "variants": variants,
        })
    }
}

/// One JSON row: `(what, name)` (`"workload": "RR10"`), then each key with
/// its figure, in order; none where a figure is missing.
fn json_row(
    (what, name): (&str, &str),
    keys: &[&str],
    mut figure: impl FnMut(usize) -> Option<serde_json::Value>,
) -> Option<serde_json::Value> {
    let mut o = serde_json::Map::new();
    o.insert(what.into(), name.into());
    for (m, key) in keys.iter().enumerate() {
        o.insert((*key).into(), figure(m)?);
    }
    Some(o.into())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_figure_only_some_runs_have_says_from_how_many() {
        // Every figure 10 in each run, but the latency (mean us) only in
        // the first: the others finished no transaction.
        let run = |lat: Option<f64>| -> Figures {
            let mut f = [Some(10.0); METRICS.len()];
            f[metric_index("latency_mean_us").unwrap()] = lat;
            f
        };
        let r = SeedRuns {
            seeds: vec![1, 2, 3],
            variants: vec![Variant {
                label: "v".into(),
                workloads: vec!["STR".into()],
                kinds: vec!["STR"],
                runs: vec![vec![run(Some(5.0))], vec![run(None)], vec![run(None)]],
                hosts: Vec::new(),
                host_runs: Vec::new(),
            }],
        };
        let text = r.to_text(None);
        assert!(text.contains("5.0 (1/3)"), "{text}");
        assert!(text.contains("10.00 ±0.0%"), "{text}");
        assert!(
            text.contains("(k/N): the mean of the only k runs"),
            "{text}"
        );
    }

    #[test]
    fn hosts_are_summarised_across_seeds_too() {
        // The quick example (z/OS with an OSA, AIX without one) with two
        // seeds, gathered as `softosa sim --seeds 2` gathers them.
        let sc = crate::scenario::Scenario::parse(
            "quick-rr.toml",
            include_str!("../../../scenarios/quick-rr.toml"),
        )
        .unwrap();
        let v = sc.variants().unwrap().remove(0);
        let mut all = SeedRuns::new(vec![1, 2]);
        let mut runs = Vec::new();
        for seed in [1, 2] {
            let mut setup = v.setup.clone();
            setup.seed = seed;
            let (r, _) = crate::run_setup(&setup, |_, _| {}).unwrap();
            all.add(0, &v.label, &r);
            runs.push(r);
        }
        let j = all.to_json("quick");
        let hosts = j["variants"][0]["hosts"].as_array().expect("hosts");
        assert_eq!(hosts.len(), runs[0].hosts.len());
        for (k, h) in runs[0].hosts.iter().enumerate() {
            let o = &hosts[k];
            assert_eq!(o["host"], h.name.as_str());
            let cpu: Vec<f64> = runs.iter().map(|r| r.hosts[k].cpu_busy_pct).collect();
            assert_eq!(o["cpu_busy_pct"]["runs"], serde_json::json!(cpu));
            assert_eq!(o["cpu_busy_pct"]["mean"], (cpu[0] + cpu[1]) / 2.0);
            // A host without an OSA has no adapter figure in any run.
            match &h.adapter {
                Some(a) => assert_eq!(o["adapter_busy_pct"]["runs"][0], a.microprocessor_busy_pct),
                None => assert!(o["adapter_busy_pct"]["mean"].is_null(), "{o}"),
            }
        }
        assert!(hosts
            .iter()
            .any(|o| o["adapter_busy_pct"]["mean"].is_null()));
        assert!(hosts
            .iter()
            .any(|o| o["adapter_busy_pct"]["mean"].is_number()));
        // The text has a line per host, with a dash where it has no OSA.
        let text = all.to_text(None);
        assert!(text.contains("CPU busy %"), "{text}");
        for h in &runs[0].hosts {
            let line = text
                .lines()
                .find(|l| l.split_whitespace().nth(1) == Some(h.name.as_str()))
                .unwrap_or_else(|| panic!("a line for {}: {text}", h.name));
            let cells: Vec<&str> = line.split_whitespace().collect();
            assert_eq!(cells[4] == "-", h.adapter.is_none(), "{line}");
        }
    }

    #[test]
    fn a_stat_skips_missing_runs_and_has_none_without_any() {
        let st = Stat::of([Some(2.0), None, Some(4.0)].into_iter()).expect("two values");
        assert_eq!(
            st,
            Stat {
                mean: 3.0,
                min: 2.0,
                max: 4.0
            }
        );
        assert!((st.reach() - 1.0 / 3.0).abs() < 1e-12);
        assert_eq!(Stat::of([None, None].into_iter()), None);
        assert_eq!(
            Stat::of([Some(0.0)].into_iter()).map(|s| s.reach()),
            Some(0.0)
        );
    }
}
