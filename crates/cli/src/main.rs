//! The `softosa` command (layer: front end; spec 05 §5.2, 06, 08).
//!
//! A thin clap front end over the engine's drivers: each subcommand's
//! arguments and body live in the crate that owns it (`softosa-profile`,
//! `softosa-display`, `softosa-sim`, `softosa-replay`, `softosa-live`); this
//! file only composes them, builds an engine from profiles for `display`, and
//! turns errors into messages and exit codes (never a panic).

use clap::{Parser, Subcommand};
use softosa_display::cli::Usage;
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
  softosa reproduce                         every published measurement: sim vs published
  softosa sim scenarios/calibration/iwq-mixed-1g.toml
                                            one scenario (see docs/scenarios.md)
  softosa profile check examples/profiles/*.prof
  softosa display devlinks --profile examples/profiles/iwq-dynamic-workloadq.prof
  softosa replay crates/replay/tests/data/mix.pcap --profile crates/replay/tests/data/host.prof
                                            a capture through each INBPERF mode (your own:
                                            CAPTURE --profile YOUR.prof)
  softosa lab --compare BALANCED,DYNAMIC,DYNAMIC-WORKLOADQ  (root: real iperf3/sockperf traffic)

Exit status: 0 done; 1 an error in an input file or in the run (the message
on stderr names the file and line); 2 a usage error (an unknown option or
value, options that conflict).")]
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
#[command(after_help = display_help())]
struct DisplayCmd {
    /// Which display (see the list below; case-insensitive).
    kind: String,
    /// What to display: an interface (`NAME` or `STACK/NAME`) or a stack (all
    /// its interfaces) for devlinks, osainfo and tuning (and a running lab's
    /// queues); a TRLE or interface for trle; a stack or interface for the
    /// Netstat displays. Omit it to show everything. The same for a profile
    /// and for a running lab.
    #[arg(long = "intf", visible_aliases = ["target", "trle", "stack"], value_name = "NAME")]
    target: Option<String>,
    /// Output format: text (the z/OS layout) or json (same fields, for scripts).
    #[arg(long, default_value = "text")]
    format: String,
    /// Time of the display (seconds since the Unix epoch, UTC, up to
    /// 253402300799 = 9999-12-31 23:59:59); default now.
    #[arg(long, value_name = "UNIX_SECONDS",
          value_parser = clap::value_parser!(u64).range(..=softosa_display::context::MAX_UNIX_SECONDS))]
    clock: Option<u64>,
    /// OSA code level to show (four hex digits; default 0001).
    #[arg(long, value_name = "HEX")]
    code_level: Option<String>,
    /// osainfo only: MAX=, the lines of each interface's report to show
    /// (1 to 65533), or `*` for all; default 200, as on z/OS. JSON lists
    /// everything.
    #[arg(long, value_name = "LINES|*", value_parser = softosa_display::cli::parse_max)]
    max: Option<softosa_display::cli::OsaInfoMax>,
    /// Profile, policy and TRL files to activate (each profile is one stack,
    /// named after its file, or NAME=FILE to give it its TCP/IP procedure
    /// name; a TRL file gives device numbers).
    #[arg(long = "profile", value_name = "FILE")]
    profiles: Vec<PathBuf>,
    /// Ask the running `softosa lab` instance of this name instead.
    #[arg(long, conflicts_with = "profiles")]
    instance: Option<String>,
    /// Control socket of a running instance (overrides --instance).
    #[arg(long, conflicts_with = "profiles")]
    socket: Option<PathBuf>,
}

fn display_help() -> String {
    format!(
        "Displays:\n{}  A running lab (--instance) also shows: queues, counters, bulk, placement, driver.\n\n\
         Examples:\n  \
         softosa display devlinks --profile examples/profiles/iwq-dynamic-workloadq.prof\n  \
         softosa display tuning --profile a.prof --profile osa.trl --intf QDIO4101L --format json\n  \
         softosa display tuning --instance lab      (a running `softosa lab`)\n  \
         softosa display devlinks --instance lab --intf OSAQDIO1",
        softosa_display::DisplayKind::help_list()
    )
}

/// Why a command failed, and so its exit status: 2 for a usage error (as
/// clap's own), 1 for an error in an input or in the run.
struct Failure {
    message: String,
    usage: bool,
}

impl Failure {
    fn new(e: impl std::fmt::Display, usage: bool) -> Failure {
        Failure {
            message: e.to_string(),
            usage,
        }
    }
    fn run(e: impl std::fmt::Display) -> Failure {
        Failure::new(e, false)
    }
    fn usage(e: impl std::fmt::Display) -> Failure {
        Failure::new(e, true)
    }
    /// A subcommand's boxed error: usage if it is a [`Usage`], a lab
    /// usage error (a bad option value or combination) or a running lab's
    /// refusal of a display it does not have (an unknown kind or interface).
    fn boxed(e: Box<dyn std::error::Error>) -> Failure {
        let usage = e.is::<Usage>()
            || e.downcast_ref::<softosa_live::lab::LabError>()
                .is_some_and(softosa_live::lab::LabError::is_usage)
            || e.downcast_ref::<softosa_live::control::Refusal>()
                .is_some_and(softosa_live::control::Refusal::is_usage);
        Failure::new(e, usage)
    }
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    let r: Result<ExitCode, Failure> = match cli.command {
        Command::Profile(a) => {
            softosa_profile::cli::run(a).map_err(|e| Failure::new(&e, e.is_usage()))
        }
        Command::Display(d) => display(d),
        Command::Sim(a) => softosa_sim::cli::run(a).map_err(Failure::boxed),
        Command::Reproduce(a) => softosa_sim::reproduce::run(a).map_err(Failure::boxed),
        Command::Replay(a) => {
            softosa_replay::cli::run(a).map_err(|e| Failure::new(&e, e.is_usage()))
        }
        Command::Lab(a) => softosa_live::cli::run(a).map_err(Failure::boxed),
    };
    match r {
        Ok(code) => code,
        Err(f) => {
            softosa_display::note!("softosa: {}", f.message);
            ExitCode::from(if f.usage { 2 } else { 1 })
        }
    }
}

fn display(d: DisplayCmd) -> Result<ExitCode, Failure> {
    let format: softosa_display::Format = d.format.parse().map_err(Failure::usage)?;
    let json = matches!(format, softosa_display::Format::Json);
    // --max is OSAINFO's MAX=: refused for another display before a lab
    // or a profile is read.
    if d.max.is_some() && !d.kind.trim().eq_ignore_ascii_case("osainfo") {
        return Err(Failure::usage(format!(
            "--max is OSAINFO's MAX= and applies to osainfo only, not {}",
            d.kind.trim().to_ascii_lowercase()
        )));
    }
    if d.instance.is_some() || d.socket.is_some() {
        // A running lab renders at its own clock and code level: refuse
        // what it would not honour rather than drop it.
        if let Some(unsupported) = softosa_live::lab::Given::of(&[
            (d.clock.is_some(), "--clock"),
            (d.code_level.is_some(), "--code-level"),
        ]) {
            return Err(Failure::usage(format!(
                "{unsupported} cannot be used with --instance/--socket: a running lab's \
                 displays are of the time of asking, with its own code level"
            )));
        }
        // A running lab knows the z/OS displays and its own views, selects
        // with --intf as a profile's displays do, and refuses unknown
        // words naming what it has.
        let live = softosa_live::cli::DisplayArgs {
            kind: d.kind,
            instance: d.instance.unwrap_or_else(|| "lab".into()),
            socket: d.socket,
            json,
            target: d.target,
            max: d.max,
        };
        return softosa_live::cli::run_display(live).map_err(Failure::boxed);
    }
    // A running lab's own views have no meaning for a profile: say where
    // they are shown instead of calling them unknown.
    let word = d.kind.trim().to_ascii_uppercase();
    if softosa_live::displays::KINDS.contains(&word.as_str()) || word == "DRIVER" {
        return Err(Failure::usage(format!(
            "display {}: a running lab's own view, with no meaning for a profile; ask the \
             lab with --instance NAME (or --socket PATH)",
            d.kind.trim().to_ascii_lowercase()
        )));
    }
    let kind: softosa_display::DisplayKind = d.kind.parse().map_err(Failure::usage)?;
    let args = softosa_display::cli::DisplayArgs {
        kind,
        target: d.target,
        format,
        clock: d.clock,
        code_level: d.code_level,
        max: d.max,
    };
    if d.profiles.is_empty() {
        return Err(Failure::usage(
            "display needs --profile FILE (a configuration to activate) or --instance NAME (a running lab)",
        ));
    }
    let files: Vec<(Option<String>, PathBuf)> = d
        .profiles
        .iter()
        .map(|p| softosa_profile::load::named_file(p))
        .collect::<Result<_, _>>()
        .map_err(Failure::usage)?;
    // One file twice would clash with itself (every TRLE "defined more
    // than once"), as profile check refuses it.
    let paths: Vec<&std::path::Path> = files.iter().map(|(_, p)| p.as_path()).collect();
    if let Some((i, j)) = softosa_profile::load::given_twice(&paths) {
        return Err(Failure::usage(format!(
            "--profile {} is given twice (--profile {i} and {j}); give each file once",
            paths[j - 1].display()
        )));
    }
    let activation = softosa_profile::activate::activate_files(&files, &Default::default())
        .map_err(|diags| {
            // Two --profile files that name one stack are a command-line
            // mistake (the files are fine on their own), said as the other
            // usage errors are.
            if let Some(clash) = softosa_profile::activate::StackNameClash::find(&diags) {
                return Failure::usage(clash.with_advice("display"));
            }
            // The errors, in file and line order as profile check lists
            // them; the warnings beside them are profile check's to list.
            let mut diags = diags;
            diags.sort();
            let lines: Vec<String> = diags.errors().map(|d| d.to_string()).collect();
            let hidden = diags.error_count().saturating_sub(lines.len());
            let more = if hidden > 0 {
                format!(
                    "\n... and {hidden} more error{} (softosa profile check lists them)",
                    if hidden == 1 { "" } else { "s" }
                )
            } else {
                String::new()
            };
            Failure::run(format!(
                "the configuration has errors:\n{}{more}",
                lines.join("\n")
            ))
        })?;
    let mut warnings = activation.warnings;
    warnings.sort();
    for w in warnings.items() {
        softosa_display::note!("{w}");
    }
    let engine = softosa_engine::Engine::new(activation.config).map_err(Failure::run)?;
    let paths: Vec<PathBuf> = files.iter().map(|f| f.1.clone()).collect();
    let ctx = context_from(&paths);
    softosa_display::cli::run(&args, &engine, &ctx).map_err(|e| Failure::new(&e, e.is_usage()))
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
