//! Stand-alone front end for the simulator (`softosa-sim sim|reproduce`),
//! the same entry points `softosa sim` and `softosa reproduce` use.

use clap::{Parser, Subcommand};
use std::process::ExitCode;

#[derive(Parser)]
#[command(name = "softosa-sim", about = "softosa discrete-event simulator")]
struct Cli {
    #[command(subcommand)]
    cmd: Cmd,
}

#[derive(Subcommand)]
enum Cmd {
    /// Simulate a scenario file: what would this configuration do to this
    /// workload? Prints per-workload throughput, latency (mean, p50, p99),
    /// CPU per transaction or per MB, then per-host TCP, link, adapter and
    /// engine counters. A [vary] table runs the scenario once per value and
    /// shows the runs side by side. Same file + same seed = same output.
    Sim(softosa_sim::cli::SimArgs),
    /// Reproduce every published calibration measurement from mechanisms:
    /// runs scenarios/calibration/*.toml (built in), prints simulated vs
    /// published with pass/fail and writes an HTML report.
    Reproduce(softosa_sim::cli::ReproduceArgs),
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    let r = match cli.cmd {
        Cmd::Sim(a) => softosa_sim::cli::run(a),
        Cmd::Reproduce(a) => softosa_sim::cli::run_reproduce(a),
    };
    match r {
        Ok(c) => c,
        Err(e) => {
            softosa_display::note!("error: {e}");
            ExitCode::from(2)
        }
    }
}
