//! Command-line entry points (`softosa sim`, `softosa reproduce`); the lead
//! wires these into the `softosa` binary.

use crate::report::RunResult;
use crate::scenario::Scenario;
use indicatif::{ProgressBar, ProgressStyle};
use std::path::PathBuf;
use std::process::ExitCode;
use std::time::{Duration, Instant};

/// Output format.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum Format {
    Text,
    Json,
    Csv,
}

/// Simulate a scenario: what would this configuration do to this workload?
///
/// A scenario file (TOML, see docs/scenarios.md) names the hosts (z/OS
/// systems with their OSA adapter and profile settings, AIX/Linux peers), the
/// links, the workloads (RR, CRR, STR), run length and seed. With a `[vary]`
/// table the scenario runs once per value and the results are shown side by
/// side. Output: per-workload throughput, latency (mean, p50, p99), CPU per
/// transaction or per MB, then per-host TCP, link and adapter counters.
/// Same scenario + same seed = byte-identical output.
#[derive(Clone, Debug, clap::Args)]
pub struct SimArgs {
    /// Scenario file (e.g. scenarios/inbperf-modes.toml; format: docs/scenarios.md).
    pub scenario: PathBuf,
    /// Output format.
    #[arg(long, value_enum, default_value_t = Format::Text)]
    pub format: Format,
    /// Override the scenario's random seed.
    #[arg(long)]
    pub seed: Option<u64>,
    /// No progress bar.
    #[arg(long, short)]
    pub quiet: bool,
    /// After the results, show this z/OS display of every simulated host's
    /// adapter at the end of the run (devlinks, osainfo, trle, tuning,
    /// netstat-all, stats, config, vcrt, route-qdioaccel, drops); may be
    /// given several times. Text format only.
    #[arg(long = "display", value_name = "KIND")]
    pub display: Vec<String>,
}

/// Run `softosa sim`.
pub fn run(args: SimArgs) -> Result<ExitCode, Box<dyn std::error::Error>> {
    let sc = Scenario::load(&args.scenario)?;
    let mut variants = sc.variants()?;
    if let Some(s) = args.seed {
        for v in &mut variants {
            v.setup.seed = s;
        }
    }
    let kinds = args
        .display
        .iter()
        .map(|k| k.parse::<softosa_display::DisplayKind>())
        .collect::<Result<Vec<_>, _>>()?;
    let mut results: Vec<(String, RunResult)> = Vec::new();
    let mut displays = String::new();
    for v in &variants {
        let (r, world) = run_world(&v.label, &v.setup, args.quiet)?;
        for kind in &kinds {
            for (host, engine) in world.engines() {
                let ctx = softosa_display::DisplayContext::default();
                let text = softosa_display::render(
                    *kind,
                    engine,
                    &ctx,
                    None,
                    softosa_display::Format::Text,
                )?;
                displays.push_str(&format!(
                    "==== {} on host {host} ({})\n{text}\n",
                    kind.word(),
                    v.label
                ));
            }
        }
        results.push((v.label.clone(), r));
    }
    print!("{}", render(&sc, &results, args.format)?);
    print!("{displays}");
    Ok(ExitCode::SUCCESS)
}

/// Run one setup, showing a progress bar when it takes more than a second.
pub fn run_with_progress(
    label: &str,
    setup: &crate::world::Setup,
    quiet: bool,
) -> Result<RunResult, crate::world::WorldError> {
    run_world(label, setup, quiet).map(|(r, _)| r)
}

/// As [`run_with_progress`], keeping the finished world (for displays).
pub fn run_world(
    label: &str,
    setup: &crate::world::Setup,
    quiet: bool,
) -> Result<(RunResult, crate::world::World), crate::world::WorldError> {
    let start = Instant::now();
    let mut bar: Option<ProgressBar> = None;
    let (r, world) = crate::run_setup(setup, |t, end| {
        if quiet {
            return;
        }
        if bar.is_none() && start.elapsed() > Duration::from_secs(1) {
            let b = ProgressBar::new(end / 1_000_000);
            b.set_style(
                ProgressStyle::with_template("{msg} [{bar:40}] {pos}/{len} ms simulated ({eta})")
                    .unwrap_or_else(|_| ProgressStyle::default_bar()),
            );
            b.set_message(label.to_string());
            bar = Some(b);
        }
        if let Some(b) = &bar {
            b.set_position(t / 1_000_000);
        }
    })?;
    if let Some(b) = bar {
        b.finish_and_clear();
    }
    Ok((r, world))
}

fn render(
    sc: &Scenario,
    results: &[(String, RunResult)],
    f: Format,
) -> Result<String, serde_json::Error> {
    Ok(match f {
        Format::Json => {
            let v: Vec<serde_json::Value> = results
                .iter()
                .map(|(l, r)| serde_json::json!({ "variant": l, "result": r }))
                .collect();
            let mut s = serde_json::to_string_pretty(&serde_json::json!({
                "scenario": sc.file.name.clone().unwrap_or_else(|| sc.path.clone()),
                "seed": sc.file.seed,
                "variants": v,
            }))?;
            s.push('\n');
            s
        }
        Format::Csv => {
            let mut s = String::from(RunResult::CSV_HEADER);
            s.push('\n');
            for (l, r) in results {
                s.push_str(&r.to_csv(l));
            }
            s
        }
        Format::Text => {
            let mut s = String::new();
            if let Some(n) = &sc.file.name {
                s.push_str(&format!("scenario: {n}\n"));
            }
            if results.len() > 1 {
                s.push_str(&side_by_side(results));
                s.push('\n');
            }
            for (l, r) in results {
                if results.len() > 1 {
                    s.push_str(&format!("==== variant {l}\n"));
                }
                s.push_str(&r.to_text());
                s.push('\n');
            }
            s
        }
    })
}

/// One line per workload and variant: the comparison people want first.
fn side_by_side(results: &[(String, RunResult)]) -> String {
    let mut s = String::new();
    s.push_str(&format!(
        "{:<22} {:<18} {:>10} {:>9} {:>9} {:>9} {:>10} {:>10}\n",
        "variant", "workload", "trans/s", "MB/s", "mean us", "p99 us", "cpu us/tr", "srv ms/MB"
    ));
    let n = results.first().map(|r| r.1.workloads.len()).unwrap_or(0);
    for i in 0..n {
        for (l, r) in results {
            if let Some(w) = r.workloads.get(i) {
                s.push_str(&format!(
                    "{:<22} {:<18} {:>10.0} {:>9.2} {:>9.1} {:>9.1} {:>10.2} {:>10.2}\n",
                    l,
                    w.name,
                    w.transactions_per_s,
                    w.mb_per_s,
                    w.latency_mean_us,
                    w.latency_p99_us,
                    w.cpu_us_per_txn_server,
                    w.cpu_ms_per_mb_server
                ));
            }
        }
    }
    s
}

pub use crate::reproduce::{run as run_reproduce, ReproduceArgs};
