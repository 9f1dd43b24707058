//! The `softosa` command (layer: front end; spec 05 §5.2, 06, 08).
//!
//! A thin clap front end over the engine's drivers: each subcommand's
//! arguments and body live in the crate that owns it (`softosa-profile`,
//! `softosa-display`, `softosa-sim`, `softosa-replay`, `softosa-live`); this
//! file only composes them, builds an engine from profiles for `display`, and
//! turns errors into messages and exit codes (never a panic).

use clap::{Parser, Subcommand};
use std::path::PathBuf;
use std::process::ExitCode;

/// softosa: a software IBM Z OSA-Express (QDIO) and HiperSockets adapter.
///
/// Try settings you cannot try on a shared production machine: simulate a
/// setup in virtual time, run real Linux traffic through a software OSA, or
/// replay a packet capture to see what each INBPERF mode would do with it.
/// Results read like z/OS: Netstat DEVLINKS, OSAINFO, D NET,TRL and the VTAM
/// tuning statistics.
#[derive(Parser)]
#[command(name = "softosa", version, propagate_version = true)]
#[command(after_help = "\
Start here:
  softosa reproduce                         simulate every published measurement, print sim vs published
  softosa sim scenarios/iwq-mixed-1g.toml   one scenario (see docs/scenarios.md)
  softosa profile check examples/profiles/*.prof
  softosa display devlinks --profile examples/profiles/iwq-dynamic-workloadq.prof
  softosa replay capture.pcap --profile my.prof
  softosa lab --compare BALANCED,DYNAMIC,WORKLOADQ   (root: real iperf3/sockperf traffic)")]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Check TCP/IP profiles, policy files and TRLEs, or convert DEVICE/LINK/HOME.
    Profile(softosa_profile::cli::ProfileArgs),
    /// Show a z/OS display of a freshly activated profile or a running lab.
    Display(DisplayCmd),
    /// Run one simulation scenario in virtual time.
    Sim(softosa_sim::cli::SimArgs),
    /// Re-run every published measurement the simulator is calibrated to.
    Reproduce(softosa_sim::reproduce::ReproduceArgs),
    /// Replay a pcap/pcapng through the adapter under every INBPERF mode.
    Replay(softosa_replay::cli::ReplayArgs),
    /// Real traffic through a live software OSA between network namespaces (root).
    Lab(softosa_live::cli::LabArgs),
}

/// `softosa display KIND (--profile FILE... | --instance NAME)`.
#[derive(clap::Args)]
#[command(after_help = "\
Examples:
  softosa display devlinks --profile examples/profiles/iwq-dynamic-workloadq.prof
  softosa display tuning --profile a.prof --profile osa.trl --intf QDIO4101L --format json
  softosa display tuning --instance lab      (a running `softosa lab`)")]
struct DisplayCmd {
    #[command(flatten)]
    args: softosa_display::cli::DisplayArgs,
    /// Profile, policy and TRL files to activate (each profile is one stack,
    /// named after its file; a TRL file gives device numbers).
    #[arg(long = "profile", value_name = "FILE")]
    profiles: Vec<PathBuf>,
    /// Ask the running `softosa lab` instance of this name instead.
    #[arg(long, conflicts_with = "profiles")]
    instance: Option<String>,
    /// Control socket of a running instance (overrides --instance).
    #[arg(long, conflicts_with = "profiles")]
    socket: Option<PathBuf>,
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    let r: Result<ExitCode, String> = match cli.command {
        Command::Profile(a) => softosa_profile::cli::run(a).map_err(|e| e.to_string()),
        Command::Display(d) => display(d),
        Command::Sim(a) => softosa_sim::cli::run(a).map_err(|e| e.to_string()),
        Command::Reproduce(a) => softosa_sim::reproduce::run(a).map_err(|e| e.to_string()),
        Command::Replay(a) => softosa_replay::cli::run(a).map_err(|e| e.to_string()),
        Command::Lab(a) => softosa_live::cli::run(a).map_err(|e| e.to_string()),
    };
    match r {
        Ok(code) => code,
        Err(msg) => {
            eprintln!("softosa: {msg}");
            ExitCode::FAILURE
        }
    }
}

fn display(d: DisplayCmd) -> Result<ExitCode, String> {
    if d.instance.is_some() || d.socket.is_some() {
        let live = softosa_live::cli::DisplayArgs {
            kind: d.args.kind.word().to_string(),
            instance: d.instance.unwrap_or_else(|| "lab".into()),
            socket: d.socket,
            json: matches!(d.args.format, softosa_display::Format::Json),
        };
        return softosa_live::cli::run_display(live).map_err(|e| e.to_string());
    }
    if d.profiles.is_empty() {
        return Err(
            "display needs --profile FILE (a configuration to activate) or --instance NAME (a running lab)"
                .into(),
        );
    }
    let files: Vec<(Option<String>, PathBuf)> =
        d.profiles.iter().map(|p| (None, p.clone())).collect();
    let activation = softosa_profile::activate::activate_files(&files, &Default::default())
        .map_err(|diags| {
            let lines: Vec<String> = diags.items().iter().map(|d| d.to_string()).collect();
            format!("the configuration has errors:\n{}", lines.join("\n"))
        })?;
    for w in activation.warnings.items() {
        eprintln!("{w}");
    }
    let engine = softosa_engine::Engine::new(activation.config).map_err(|e| e.to_string())?;
    let ctx = context_from(&d.profiles);
    softosa_display::cli::run(&d.args, &engine, &ctx).map_err(|e| e.to_string())
}

/// TRLE device numbers from any TRL files among the inputs.
fn context_from(files: &[PathBuf]) -> softosa_display::DisplayContext {
    use softosa_profile::load::{load_path, Loaded};
    let mut ctx = softosa_display::DisplayContext::default();
    for f in files {
        if let (Some(Loaded::Trl(t)), _) = load_path(f) {
            for trle in t.trles {
                ctx.trles.push(softosa_display::TrleInfo {
                    name: trle.name,
                    portname: trle.portname,
                    portnum: trle.portnum,
                    read: trle.read,
                    write: trle.write,
                    datapath: trle.datapath,
                    stack: None,
                });
            }
        }
    }
    ctx
}
